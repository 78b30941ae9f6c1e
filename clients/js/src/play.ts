/**
 * The play side of the client: rooms, seats and moves through /api/play/, and a room's event
 * stream. A seat is proved by its Bearer token only (no cookies: `credentials: "omit"`); a
 * browser's EventSource cannot send that header, so a seat's stream is opened with a
 * short-lived single-use ticket the token buys (`POST …/stream-tickets`), a fresh one for
 * every reconnection, resuming after the last version seen.
 */

import { KartothekError } from "./errors.js";
import { isInteger, isObject, type Json, type JsonObject, parseJson, randomId } from "./bytes.js";
import type { Http } from "./http.js";

/** One seat of a room: what `openRoom` and `join` give. Keep the token secret. */
export interface Seat {
  code: string;
  seat: string;
  token: string;
}

/** A room as one seat (or the table) sees it: GET /api/play/rooms/CODE. */
export interface RoomBody {
  code: string;
  game: string;
  language: string;
  market: string | null;
  status: "lobby" | "playing" | "finished";
  version: number;
  seats: JsonObject[];
  you: string | null;
  view: Json;
  legal_actions: JsonObject[];
  result: Json;
}

export interface RoomOptions {
  game: string;
  language: string;
  name?: string;
  market?: string;
  options?: JsonObject;
  seed?: number | string;
  release?: number | "latest";
}

/** What a stream's `event: closed` said: the room or the seat is gone. */
export interface Closed {
  error: string;
  status: number;
}

/** The part of EventSource the client uses (browsers' own, or the eventsource package's). */
export interface EventSourceLike {
  readonly readyState: number;
  addEventListener(type: string, listener: (event: MessageEvent) => void): void;
  close(): void;
}

export type EventSourceConstructor = new (url: string) => EventSourceLike;

const CLOSED = 2; // EventSource.CLOSED
const MAX_REOPEN = 3; // consecutive failed reconnections before the stream gives up

function roomBody(found: Json, what: string): RoomBody {
  if (!isObject(found) || typeof found["code"] !== "string" || !isInteger(found["version"]) ||
      typeof found["status"] !== "string" || !Array.isArray(found["legal_actions"]) ||
      !Array.isArray(found["seats"])) {
    throw new KartothekError(`${what} is not a room.`);
  }
  return found as unknown as RoomBody;
}

function roomPath(code: string): string {
  if (!/^[A-Za-z0-9]{1,16}$/.test(code)) throw new KartothekError(`'${code}' is not a room code.`);
  return `/api/play/rooms/${code.toUpperCase()}`;
}

function seatOf(found: JsonObject, code: string, what: string): Seat {
  if (typeof found["seat"] !== "string" || typeof found["token"] !== "string") {
    throw new KartothekError(`${what} gave no seat.`);
  }
  return { code, seat: found["seat"], token: found["token"] };
}

export class Play {
  constructor(protected readonly http: Http,
              private readonly eventSource: EventSourceConstructor | undefined) {}

  private async post(path: string, body: JsonObject, token?: string): Promise<JsonObject> {
    const headers: Record<string, string> = { "Content-Type": "application/json" };
    if (token !== undefined) headers["Authorization"] = `Bearer ${token}`;
    return this.http.json(path, {
      method: "POST", headers, body: JSON.stringify(body), credentials: "omit",
    });
  }

  /** Open a room and take its first seat (the host). */
  async openRoom(room: RoomOptions): Promise<Seat> {
    const found = await this.post("/api/play/rooms", { ...room, cookie: false } as JsonObject);
    if (typeof found["code"] !== "string") throw new KartothekError("The new room has no code.");
    roomPath(found["code"]);
    return seatOf(found, found["code"], "Opening a room");
  }

  async join(code: string, name?: string): Promise<Seat> {
    const body: JsonObject = name === undefined ? { cookie: false } : { name, cookie: false };
    return seatOf(await this.post(`${roomPath(code)}/seats`, body), code.toUpperCase(), "Joining");
  }

  /** The room as this seat sees it (a Seat), or as the table does (a code). */
  async room(target: Seat | string): Promise<RoomBody> {
    const code = typeof target === "string" ? target : target.code;
    const headers: Record<string, string> = typeof target === "string" ? {} :
      { Authorization: `Bearer ${target.token}` };
    const found = await this.http.json(roomPath(code), { headers, credentials: "omit" });
    return roomBody(found, `Room ${code}`);
  }

  /** The host starts the game; the room's new version. */
  async start(host: Seat, options?: JsonObject): Promise<number> {
    const found = await this.post(`${roomPath(host.code)}/start`,
                                  options ? { options } : {}, host.token);
    if (!isInteger(found["version"])) throw new KartothekError("Starting gave no version.");
    return found["version"];
  }

  /** Play `action` (one of the seat's `legal_actions`) on the room at `version`. The id makes
   * a retried request count once. */
  async act(seat: Seat, action: JsonObject, version: number,
            id: string = randomId()): Promise<RoomBody> {
    const found = await this.post(`${roomPath(seat.code)}/actions`, { id, version, action }, seat.token);
    return roomBody(found, `Room ${seat.code}`);
  }

  /** The host removes a seat (its token stops working, its stream gets `event: closed`). */
  async removeSeat(host: Seat, seat: string): Promise<RoomBody> {
    const found = await this.post(`${roomPath(host.code)}/seats/${encodeURIComponent(seat)}/remove`,
                                  {}, host.token);
    return roomBody(found, `Room ${host.code}`);
  }

  /** A single-use ticket that opens this seat's stream for 30 s: the events URL (absolute). */
  async streamTicket(seat: Seat): Promise<string> {
    const found = await this.post(`${roomPath(seat.code)}/stream-tickets`, {}, seat.token);
    const url = found["events_url"];
    if (typeof url !== "string" || !url.startsWith(`${roomPath(seat.code)}/events?`)) {
      throw new KartothekError("The stream ticket gave no events URL of this room.");
    }
    return this.http.baseUrl + url;
  }

  /**
   * The room's versions as they come: a seat's view (by ticket) or, given a code, the table's.
   * Iterate it with `for await`; it ends when the server sends `event: closed` (see `closed`)
   * or on `close()`/`break`, and throws a KartothekError when it cannot be (re)opened.
   */
  follow(target: Seat | string): RoomStream {
    const source = this.eventSource ?? (globalThis as { EventSource?: EventSourceConstructor }).EventSource;
    if (source === undefined) {
      throw new KartothekError("No EventSource here: pass one as the EventSource option " +
        "(in Node, the eventsource package's).");
    }
    if (typeof target === "string") {
      const url = `${this.http.baseUrl}${roomPath(target)}/events?as=table`;
      return new RoomStream(async () => url, source, false); // EventSource resumes by itself
    }
    return new RoomStream(async (since) => (await this.streamTicket(target)) +
      (since === null ? "" : `&last_event_id=${since}`), source, true);
  }
}

export class RoomStream implements AsyncIterableIterator<RoomBody> {
  /** Set when the server ended the stream with `event: closed`. */
  closed: Closed | null = null;
  /** The newest version received: events never go back to an older one. */
  version: number | null = null;
  private source: EventSourceLike | null = null;
  private readonly queue: RoomBody[] = [];
  private failure: KartothekError | null = null;
  private ended = false;
  private wake: (() => void) | null = null;
  private failures = 0;

  constructor(private readonly open: (since: number | null) => Promise<string>,
              private readonly EventSource: EventSourceConstructor,
              private readonly reopen: boolean) {
    void this.connect();
  }

  private async connect(): Promise<void> {
    try {
      const url = await this.open(this.version);
      if (this.ended) return;
      const source = new this.EventSource(url);
      this.source = source;
      source.addEventListener("room", (event) => this.onRoom(event.data));
      source.addEventListener("closed", (event) => this.onClosed(event.data));
      source.addEventListener("error", () => this.onError(source));
    } catch (error) {
      this.fail(error instanceof KartothekError ? error : new KartothekError(String(error)));
    }
  }

  private onRoom(data: unknown): void {
    let body: RoomBody;
    try {
      body = roomBody(parseJson(String(data), "A room event"), "A room event");
    } catch (error) {
      return this.fail(error as KartothekError);
    }
    this.failures = 0;
    if (this.version !== null && body.version <= this.version) return; // seen, or older
    this.version = body.version;
    this.queue.push(body);
    this.notify();
  }

  private onClosed(data: unknown): void {
    let found: Json = null;
    try {
      found = parseJson(String(data), "The closed event");
    } catch {
      found = null;
    }
    if (!isObject(found) || typeof found["error"] !== "string" || !isInteger(found["status"])) {
      return this.fail(new KartothekError("The stream closed with a malformed event."));
    }
    this.closed = { error: found["error"], status: found["status"] };
    this.finish();
  }

  private onError(source: EventSourceLike): void {
    if (this.ended || source !== this.source) return;
    if (!this.reopen) {
      if (source.readyState === CLOSED) this.fail(new KartothekError("The room's stream was refused."));
      return; // the EventSource reconnects by itself, with Last-Event-ID
    }
    source.close(); // its ticket is used: a reconnection needs a new one
    this.source = null;
    this.failures += 1;
    if (this.failures > MAX_REOPEN) {
      return this.fail(new KartothekError(`The room's stream failed ${MAX_REOPEN} times in a row.`));
    }
    setTimeout(() => void this.connect(), 250 * this.failures);
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }

  private finish(): void {
    this.ended = true;
    this.source?.close();
    this.source = null;
    this.notify();
  }

  private fail(error: KartothekError): void {
    if (this.ended) return;
    this.failure = error;
    this.finish();
  }

  /** Stop following: the iteration ends. */
  close(): void {
    this.finish();
  }

  [Symbol.asyncIterator](): RoomStream {
    return this;
  }

  async next(): Promise<IteratorResult<RoomBody, undefined>> {
    for (;;) {
      const body = this.queue.shift();
      if (body !== undefined) return { value: body, done: false };
      if (this.failure !== null) {
        const error = this.failure;
        this.failure = null;
        throw error;
      }
      if (this.ended) return { value: undefined, done: true };
      await new Promise<void>((resolve) => { this.wake = resolve; });
    }
  }

  async return(): Promise<IteratorResult<RoomBody, undefined>> {
    this.close();
    return { value: undefined, done: true };
  }
}
