/** The client's one way to the server: fetch, every failure a KartothekError. */

import { KartothekError } from "./errors.js";
import { isObject, type Json, parseJson, text } from "./bytes.js";

export interface Answer {
  status: number;
  headers: Headers;
  body: Uint8Array;
  /** The URL that answered, after any redirects fetch followed. */
  url: string;
}

export class Http {
  /** Paths asked for, in order (for tests and logs). */
  readonly requests: string[] = [];

  constructor(readonly baseUrl: string, private readonly fetchImpl: typeof fetch) {}

  async send(path: string, init: RequestInit = {}): Promise<Answer> {
    this.requests.push(path);
    let response: Response;
    let body: Uint8Array;
    try {
      // redirects are followed: a browser cannot read a cross-origin Location header
      response = await this.fetchImpl(this.baseUrl + path, { ...init, redirect: "follow" });
      body = new Uint8Array(await response.arrayBuffer());
    } catch (error) {
      throw new KartothekError(`${this.baseUrl}${path}: ${String(error)}`);
    }
    return { status: response.status, headers: response.headers, body, url: response.url };
  }

  /** The JSON of a 2xx answer (an object); any other answer is a KartothekError. */
  async json(path: string, init: RequestInit = {}): Promise<{ [key: string]: Json }> {
    const answer = await this.send(path, init);
    if (answer.status < 200 || answer.status > 299) throw failure(path, answer);
    const found = parseJson(answer.body, `The answer to ${path}`);
    if (!isObject(found)) throw new KartothekError(`The answer to ${path} is not a JSON object.`);
    return found;
  }
}

/** The error for an answer that is not what was asked for: the server's message if it sent one. */
export function failure(path: string, answer: Answer): KartothekError {
  let message = "";
  try {
    const found = JSON.parse(text(answer.body, "answer")) as Json;
    message = isObject(found) && typeof found["error"] === "string" ? found["error"] : "";
  } catch {
    message = "";
  }
  if (!message) {
    try {
      message = text(answer.body.slice(0, 200), "answer");
    } catch {
      message = "(not text)";
    }
  }
  return new KartothekError(`${path}: ${answer.status} ${message}`.trim(), answer.status);
}
