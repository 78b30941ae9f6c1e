/**
 * Ed25519 keys and their rotation (WebCrypto), as kartothek_client.keys checks them.
 *
 * A key's id is the first 16 hex digits of its public key's sha256. When the server retires K1
 * for K2, K1 signs `endorsementStatement` (v2): its one successor K2, the retirement time and,
 * for each pack ("game/language"), the last release K1 signed. /api/keys carries it: K1's entry
 * has `retired_at` and `last_releases`, K2's `endorsed_by` (K1) and `endorsement`. A client
 * follows a key only through statements from a key it trusts, lets a key endorse one successor
 * only, holds a retired key to its releases, and on first use pins the current key only.
 */

import { fromBase64, isInteger, isObject, type Json, type JsonObject, sha256Hex, subtle, toBase64, utf8 } from "./bytes.js";

/** Trusted keys: {key id: base64 of the raw 32-byte Ed25519 public key}. */
export type Keys = Record<string, string>;

export const ENDORSEMENT_CONTEXT = "kartothek-signing-key-endorsement-v2";

/** What a retired key's statement says, as the client keeps it. */
export interface Retirement {
  public_key: string;
  successor: string;
  retired_at: string;
  last_releases: Record<string, number>;
}

/** The retirements a client kept: {retired key id: its statement's facts}. */
export type Retired = Record<string, Retirement>;

export async function keyIdOf(publicRaw: Uint8Array): Promise<string> {
  return (await sha256Hex(publicRaw)).slice(0, 16);
}

/** What a retiring key signs to endorse its successor (the bytes exports.signing makes). */
export async function endorsementStatement(publicRaw: Uint8Array, retiredKeyId: string,
                                           retiredAt: string,
                                           lastReleases: Record<string, number>): Promise<Uint8Array> {
  const lines = [ENDORSEMENT_CONTEXT, `retired_key_id=${retiredKeyId}`, `retired_at=${retiredAt}`,
                 `key_id=${await keyIdOf(publicRaw)}`, `public_key=${toBase64(publicRaw)}`];
  // sorted as Python sorts str: by UTF-16 code units equals by code points for these names
  for (const pack of Object.keys(lastReleases).sort()) {
    lines.push(`last_release=${pack}=${lastReleases[pack]}`);
  }
  return utf8(lines.join("\n") + "\n");
}

/** Why a release signed by a retired key is refused, or null when it may stand. */
export function retiredRefusal(retirement: Retirement, keyId: string, game: string,
                               language: string, version: number): string | null {
  const last = Object.hasOwn(retirement.last_releases, `${game}/${language}`)
    ? retirement.last_releases[`${game}/${language}`] as number : null;
  if (last !== null && version <= last) return null;
  return `Release ${version} of ${game} (${language}) is signed with key ${keyId}, retired at ` +
    `${retirement.retired_at} for key ${retirement.successor}; the last release it signed of ` +
    `this pack is ${last ?? "none"}: refused.`;
}

/** A kept retirement, or null when it is damaged. */
export function asRetirement(found: Json | undefined): Retirement | null {
  if (!isObject(found)) return null;
  const releases = found["last_releases"];
  if (typeof found["public_key"] !== "string" || typeof found["successor"] !== "string" ||
      typeof found["retired_at"] !== "string" || !isObject(releases) ||
      !Object.values(releases).every(isInteger)) {
    return null;
  }
  return { public_key: found["public_key"], successor: found["successor"],
           retired_at: found["retired_at"], last_releases: releases as Record<string, number> };
}

/** Whether `signature` (base64) is a valid Ed25519 signature of `data` under the key. */
export async function verifySignature(publicKeyB64: string, signatureB64: unknown,
                                      data: Uint8Array): Promise<boolean> {
  const raw = fromBase64(publicKeyB64);
  const signature = fromBase64(signatureB64);
  if (raw === null || raw.length !== 32 || signature === null || signature.length !== 64) {
    return false;
  }
  const crypto = subtle(); // outside the try: no WebCrypto is an error, not a bad signature
  try {
    const key = await crypto.importKey("raw", raw as BufferSource, { name: "Ed25519" },
                                              false, ["verify"]);
    return await crypto.verify({ name: "Ed25519" }, key, signature as BufferSource,
                                      data as BufferSource);
  } catch {
    return false; // a key WebCrypto refuses verifies nothing
  }
}

/** A key list longer than this is refused whole (a rotation a year: decades). */
export const MAX_KEYS = 64;

/** The listed keys by id, each under its public key's id; an id listed twice is left out. */
async function entriesOf(listed: Json): Promise<Map<string, JsonObject>> {
  const seen = new Map<string, JsonObject[]>();
  if (!Array.isArray(listed) || listed.length > MAX_KEYS) return new Map(); // checked pairwise
  for (const entry of listed) {
    if (!isObject(entry) || typeof entry["id"] !== "string") continue;
    const raw = fromBase64(entry["public_key"]);
    if (raw === null || raw.length !== 32 || await keyIdOf(raw) !== entry["id"]) continue;
    seen.set(entry["id"], [...(seen.get(entry["id"]) ?? []), entry]);
  }
  const entries = new Map<string, JsonObject>();
  for (const [keyId, found] of seen) if (found.length === 1) entries.set(keyId, found[0] as JsonObject);
  return entries;
}

const RETIRED_AT = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;
const PACK = /^[a-z]+\/[A-Za-z-]+$/;

/** The endorser's retirement in favour of `entry`, if its signature verifies. */
async function statementOf(entries: Map<string, JsonObject>, endorserKey: string,
                           entry: JsonObject): Promise<Retirement | null> {
  const endorser = typeof entry["endorsed_by"] === "string" ? entries.get(entry["endorsed_by"]) : undefined;
  const raw = fromBase64(entry["public_key"]);
  if (endorser === undefined || raw === null) return null;
  const retiredAt = endorser["retired_at"];
  const releases = endorser["last_releases"];
  if (typeof retiredAt !== "string" || !RETIRED_AT.test(retiredAt) || !isObject(releases) ||
      !Object.entries(releases).every(([pack, v]) => PACK.test(pack) && isInteger(v) && v >= 0)) {
    return null;
  }
  const last = releases as Record<string, number>;
  const statement = await endorsementStatement(raw, endorser["id"] as string, retiredAt, last);
  if (!await verifySignature(endorserKey, entry["endorsement"], statement)) return null;
  return { public_key: endorserKey, successor: entry["id"] as string, retired_at: retiredAt,
           last_releases: { ...last } };
}

/**
 * The keys of a served key list that a chain of v2 statements links to a key the client trusts
 * (`trusted`, and the retirements it kept), and the retirements those statements make, also
 * between keys it trusts already. A key that already has a successor endorses no other; a key
 * naming two in the list endorses none.
 */
export async function endorsedChain(trusted: Keys, retired: Retired,
                                    listed: Json): Promise<[Keys, Retired]> {
  const entries = await entriesOf(listed);
  const known: Keys = {};
  const successorOf = new Map<string, string | null>();
  for (const [keyId, retirement] of Object.entries(retired)) {
    known[keyId] = retirement.public_key;
    successorOf.set(keyId, retirement.successor);
  }
  Object.assign(known, trusted);
  const keys: Keys = {};
  const retirements: Retired = {};
  let progress = true;
  while (progress) {
    progress = false;
    for (const [keyId, entry] of entries) {
      const endorser = entry["endorsed_by"];
      if (typeof endorser !== "string" || !Object.hasOwn(known, endorser) || successorOf.has(endorser)) {
        continue;
      }
      const statement = await statementOf(entries, known[endorser] as string, entry);
      if (statement === null) continue;
      let rivals = false;
      for (const [otherId, other] of entries) {
        if (otherId !== keyId && other["endorsed_by"] === endorser &&
            await statementOf(entries, known[endorser] as string, other) !== null) {
          rivals = true;
        }
      }
      successorOf.set(endorser, rivals ? null : keyId); // two successors: the key is not followed
      if (rivals) continue;
      retirements[endorser] = statement;
      if (!Object.hasOwn(known, keyId)) {
        known[keyId] = keys[keyId] = entry["public_key"] as string;
        progress = true;
      }
    }
  }
  return [keys, retirements];
}

/** The keys of a served key list that a chain of statements links to a trusted key. */
export async function endorsedKeys(trusted: Keys, listed: Json): Promise<Keys> {
  return (await endorsedChain(trusted, {}, listed))[0];
}

/**
 * What a client meeting the server for the first time keeps: the current key, and each retired
 * key whose own statement names its successor in the list (held to the releases it signed).
 */
export async function firstUse(listed: Json): Promise<[Keys, Retired]> {
  const entries = await entriesOf(listed);
  const retirements: Retired = {};
  const named = new Map<string, number>();
  for (const entry of entries.values()) {
    const endorser = typeof entry["endorsed_by"] === "string" ? entries.get(entry["endorsed_by"]) : undefined;
    if (endorser === undefined) continue;
    const statement = await statementOf(entries, endorser["public_key"] as string, entry);
    if (statement === null) continue;
    const endorserId = endorser["id"] as string;
    named.set(endorserId, (named.get(endorserId) ?? 0) + 1);
    retirements[endorserId] = statement;
  }
  for (const [keyId, count] of named) if (count > 1) delete retirements[keyId];
  const keys: Keys = {};
  for (const [keyId, entry] of entries) {
    if (entry["status"] === "current" && !named.has(keyId)) keys[keyId] = entry["public_key"] as string;
  }
  return [keys, retirements];
}
