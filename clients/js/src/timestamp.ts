/**
 * The server's signed timestamp (/api/timestamp): which release of every pack is the newest, as
 * kartothek_client/timestamp.py checks it.
 *
 * A release's signature says its bytes are genuine, not that it is the newest: without more, a
 * mirror could hand a client that holds nothing yet an old genuine release (and an old
 * `latest`). The timestamp, after TUF's timestamp role, is a dated list of the newest release
 * of every game and edition, signed by the server's current key. A client accepts one only if
 * its signature verifies under a key it trusts; it is a timestamp (its `type`) and well formed;
 * it has not expired, was issued at most seven days ago and not in the future (beyond five
 * minutes of clock difference); and it is not older than the timestamp the client kept, nor
 * names a pack at an older release than that one did. The client then refuses a release
 * older than the one listed.
 */

import { VerificationError } from "./errors.js";
import { isInteger, isObject, type Json, parseJson, utf8 } from "./bytes.js";
import { verifySignature } from "./keys.js";

export const TIMESTAMP_TYPE = "kartothek-timestamp-v1";
const MAX_AGE_MS = 7 * 24 * 3600 * 1000; // a hard maximum, whatever the timestamp says of its expiry
const SKEW_MS = 5 * 60 * 1000; // how far the client's clock may be behind the server's
const MAX_CHARS = 4 * 1024 * 1024;

/** The timestamp is forged, damaged, expired or older than the one the client holds. */
export class TimestampError extends VerificationError {
  constructor(message: string) {
    super(message);
    this.name = "TimestampError";
  }
}

/** (key id) -> the trusted base64 public key of that id, or null. */
export type KeyLookup = (keyId: string) => Promise<string | null>;

export interface Listed {
  version: number;
  sha256: string;
}

export class Timestamp {
  constructor(readonly issuedAt: Date, readonly expires: Date, readonly keyId: string,
              readonly releases: ReadonlyMap<string, Listed>,
              /** The envelope as served: what the store keeps. */
              readonly envelope: string) {}

  /** The newest release of the pack, or null: none published. */
  newest(game: string, language: string): Listed | null {
    return this.releases.get(`${game}/${language}`) ?? null;
  }
}

function when(date: Date): string {
  return date.toISOString().slice(0, 16).replace("T", " ") + " UTC";
}

function moment(value: Json | undefined, name: string): Date {
  if (typeof value !== "string" || !/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/.test(value) ||
      Number.isNaN(Date.parse(value))) {
    throw new TimestampError(`The timestamp's ${name} is not a UTC time (YYYY-MM-DDTHH:MM:SSZ).`);
  }
  return new Date(value);
}

function releasesOf(value: Json | undefined): Map<string, Listed> {
  if (!Array.isArray(value)) throw new TimestampError("The timestamp lists no releases.");
  const found = new Map<string, Listed>();
  for (const entry of value) {
    if (!isObject(entry) || typeof entry["game"] !== "string" || typeof entry["language"] !== "string" ||
        !isInteger(entry["version"]) || entry["version"] < 1 || typeof entry["sha256"] !== "string" ||
        !/^[0-9a-f]{64}$/.test(entry["sha256"])) {
      throw new TimestampError(`A release in the timestamp is malformed: ${JSON.stringify(entry).slice(0, 200)}`);
    }
    const name = `${entry["game"]}/${entry["language"]}`;
    if (found.has(name)) throw new TimestampError(`The timestamp names ${name} twice.`);
    found.set(name, { version: entry["version"], sha256: entry["sha256"] });
  }
  return found;
}

/** The timestamp in an envelope whose signature verifies under a trusted key; its dates are
 * not checked here (see verifyTimestamp). */
export async function parseTimestamp(envelope: string, keyFor: KeyLookup): Promise<Timestamp> {
  if (envelope.length > MAX_CHARS) throw new TimestampError("The timestamp is too large.");
  let outer: Json;
  try {
    outer = parseJson(envelope, "The timestamp");
  } catch {
    throw new TimestampError("The timestamp is not JSON.");
  }
  if (!isObject(outer) || typeof outer["signed"] !== "string" || typeof outer["key_id"] !== "string" ||
      typeof outer["signature"] !== "string") {
    throw new TimestampError("The timestamp is not a signed envelope (signed, key_id, signature).");
  }
  if ((outer["algorithm"] ?? "ed25519") !== "ed25519") {
    throw new TimestampError("The timestamp is not signed with ed25519.");
  }
  const keyId = outer["key_id"];
  const publicKey = await keyFor(keyId);
  if (publicKey === null) {
    throw new TimestampError(`The timestamp is signed with key ${keyId.slice(0, 40)}, which this ` +
      "client does not trust, and no key it trusts endorsed it.");
  }
  if (!await verifySignature(publicKey, outer["signature"], utf8(outer["signed"]))) {
    throw new TimestampError(`The timestamp's signature does not verify under key ${keyId}: it is ` +
      "forged or damaged.");
  }
  let body: Json;
  try {
    body = parseJson(outer["signed"], "The signed timestamp");
  } catch {
    throw new TimestampError("The signed timestamp is not JSON.");
  }
  if (!isObject(body) || body["type"] !== TIMESTAMP_TYPE) {
    throw new TimestampError(`The signed bytes are not a timestamp (type is not ${TIMESTAMP_TYPE}).`);
  }
  const issued = moment(body["issued_at"], "issued_at");
  const expires = moment(body["expires"], "expires");
  if (expires <= issued) throw new TimestampError("The timestamp expires before it was issued.");
  return new Timestamp(issued, expires, keyId, releasesOf(body["releases"]), envelope);
}

/** A timestamp as served, checked: signature, form, and fresh at `now`. */
export async function verifyTimestamp(envelope: string, keyFor: KeyLookup,
                                      now: Date = new Date()): Promise<Timestamp> {
  const stamp = await parseTimestamp(envelope, keyFor);
  if (stamp.issuedAt.getTime() > now.getTime() + SKEW_MS) {
    throw new TimestampError(`The timestamp was issued at ${when(stamp.issuedAt)}, in the future: ` +
      "the client's or the server's clock is wrong.");
  }
  if (now > stamp.expires) {
    throw new TimestampError(`The timestamp expired at ${when(stamp.expires)}: a mirror may be ` +
      "holding back newer releases.");
  }
  if (now.getTime() - stamp.issuedAt.getTime() > MAX_AGE_MS) {
    throw new TimestampError(`The timestamp was issued at ${when(stamp.issuedAt)}, more than 7 days ago.`);
  }
  return stamp;
}

/** A timestamp older than the one the client holds, or one that names a pack at an older
 * release than it did, is a replay: refused. */
export function checkNotOlder(next: Timestamp, held: Timestamp | null): void {
  if (held === null) return;
  if (next.issuedAt < held.issuedAt) {
    throw new TimestampError(`The timestamp was issued at ${when(next.issuedAt)}, before the one ` +
      `this client holds (${when(held.issuedAt)}): a replayed older timestamp is refused.`);
  }
  for (const [name, { version }] of held.releases) {
    const listed = next.releases.get(name);
    if (listed === undefined || listed.version < version) {
      throw new TimestampError(`The timestamp names ${name} at release ${listed?.version ?? "none"}, ` +
        `but the one this client holds named release ${version}: a replayed older timestamp is refused.`);
    }
  }
}
