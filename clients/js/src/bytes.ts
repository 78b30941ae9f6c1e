/** Bytes, text, base64, sha256 and JSON checks on platform APIs only (no Node, no DOM). */

import { KartothekError } from "./errors.js";

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

export function utf8(text: string): Uint8Array {
  return encoder.encode(text);
}

/** The text of UTF-8 bytes; bytes that are not UTF-8 are an error, never replaced. */
export function text(data: Uint8Array, what: string): string {
  try {
    return decoder.decode(data);
  } catch {
    throw new KartothekError(`${what} is not UTF-8.`);
  }
}

export function parseJson(data: Uint8Array | string, what: string): Json {
  try {
    return JSON.parse(typeof data === "string" ? data : text(data, what)) as Json;
  } catch (error) {
    if (error instanceof KartothekError) throw error;
    throw new KartothekError(`${what} is not JSON.`);
  }
}

export function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function isInteger(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value);
}

/** Strict base64 (the server's alphabet, padded): anything else is null. */
export function fromBase64(value: unknown): Uint8Array | null {
  if (typeof value !== "string" || value.length % 4 !== 0 ||
      !/^[A-Za-z0-9+/]*={0,2}$/.test(value)) {
    return null;
  }
  const binary = atob(value);
  return Uint8Array.from(binary, (char) => char.charCodeAt(0));
}

export function toBase64(data: Uint8Array): string {
  let binary = "";
  for (const byte of data) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** WebCrypto's SubtleCrypto, which browsers give secure contexts only (HTTPS, localhost). */
export function subtle(): SubtleCrypto {
  const found = (globalThis as { crypto?: Crypto }).crypto?.subtle;
  if (found === undefined) {
    throw new KartothekError("WebCrypto is not available here: a page must be served over " +
      "HTTPS (or from localhost) to check signatures.");
  }
  return found;
}

/** A random id for an action (crypto.randomUUID needs a secure context; this does not). */
export function randomId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

export async function sha256Hex(data: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await subtle().digest("SHA-256", data as BufferSource));
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, index) => byte === b[index]);
}
