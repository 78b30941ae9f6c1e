/**
 * Ed25519 keys and their endorsements (WebCrypto), as kartothek_client.client checks them.
 *
 * A key's id is the first 16 hex digits of its public key's sha256. The server rotates its key
 * by listing the new key in /api/keys with `endorsed_by` (the key before it) and `endorsement`
 * (that key's signature over `endorsementStatement` of the new key), so a client that trusts
 * an older key walks the chain to the new one and trusts nothing else.
 */

import { fromBase64, isObject, type Json, sha256Hex, subtle, toBase64, utf8 } from "./bytes.js";

/** Trusted keys: {key id: base64 of the raw 32-byte Ed25519 public key}. */
export type Keys = Record<string, string>;

export const ENDORSEMENT_CONTEXT = "kartothek-signing-key-endorsement-v1";

export async function keyIdOf(publicRaw: Uint8Array): Promise<string> {
  return (await sha256Hex(publicRaw)).slice(0, 16);
}

/** What an older key signs to endorse a newer one (the bytes exports.signing makes). */
export async function endorsementStatement(publicRaw: Uint8Array): Promise<Uint8Array> {
  return utf8(`${ENDORSEMENT_CONTEXT}\nkey_id=${await keyIdOf(publicRaw)}\n` +
    `public_key=${toBase64(publicRaw)}\n`);
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

/** The listed keys whose id is their public key's: the keys a first use may pin. */
export async function selfConsistent(listed: Json): Promise<Keys> {
  const keys: Keys = {};
  for (const entry of Array.isArray(listed) ? listed : []) {
    if (!isObject(entry) || typeof entry["id"] !== "string") continue;
    const raw = fromBase64(entry["public_key"]);
    if (raw !== null && raw.length === 32 && await keyIdOf(raw) === entry["id"]) {
      keys[entry["id"]] = entry["public_key"] as string;
    }
  }
  return keys;
}

/**
 * The keys of a served key list that a chain of valid endorsements links to a trusted key
 * (trusted ones excluded). A listed key whose id is not its public key's, or whose
 * endorsement does not verify, is left out.
 */
export async function endorsedKeys(trusted: Keys, listed: Json): Promise<Keys> {
  const known: Keys = { ...trusted };
  const found: Keys = {};
  const entries = Array.isArray(listed) ? listed.filter(isObject) : [];
  let progress = true;
  while (progress) {
    progress = false;
    for (const entry of entries) {
      const keyId = entry["id"];
      const endorser = entry["endorsed_by"];
      const raw = fromBase64(entry["public_key"]);
      if (typeof keyId !== "string" || typeof endorser !== "string" || raw === null ||
          Object.hasOwn(known, keyId) || !Object.hasOwn(known, endorser) ||
          await keyIdOf(raw) !== keyId) {
        continue;
      }
      const endorserKey = known[endorser] as string;
      if (await verifySignature(endorserKey, entry["endorsement"], await endorsementStatement(raw))) {
        known[keyId] = found[keyId] = entry["public_key"] as string;
        progress = true;
      }
    }
  }
  return found;
}
