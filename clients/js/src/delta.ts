/**
 * Applying a pack delta (`/api/packs/G/L/V.json?since=N`), the rules of kartothek_client.delta.
 *
 * A pack is canonical JSON (keys sorted by code point, no spaces, UTF-8 unescaped), so the
 * delta applied to the parsed release N and serialised canonically gives exactly the bytes
 * of release V; `to_sha256` says which bytes to expect, and anything else is a DeltaError.
 */

import { DeltaError } from "./errors.js";
import { isInteger, isObject, type Json, type JsonObject, sha256Hex, utf8 } from "./bytes.js";

export const DELTA_FORMAT = "kartothek-pack-delta";

/** What a pack was built for, as the API path names it: "de", or "en-GB" for one market. */
export function editionOf(pack: Json): Json {
  if (!isObject(pack)) return null;
  const market = pack["market"];
  return market ? `${String(pack["language"])}-${String(market)}` : pack["language"] ?? null;
}

// Python sorts keys by code point; JS compares UTF-16 units, which differ only past U+FFFF.
function byCodePoint(a: string, b: string): number {
  if (!/[\uD800-\uDFFF]/.test(a + b)) return a < b ? -1 : a > b ? 1 : 0;
  const x = Array.from(a, (c) => c.codePointAt(0) ?? 0);
  const y = Array.from(b, (c) => c.codePointAt(0) ?? 0);
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    if (x[i] !== y[i]) return (x[i] ?? 0) - (y[i] ?? 0);
  }
  return x.length - y.length;
}

function canonicalText(value: Json): string {
  if (Array.isArray(value)) return `[${value.map(canonicalText).join(",")}]`;
  if (isObject(value)) {
    const keys = Object.keys(value).sort(byCodePoint);
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalText(value[k] ?? null)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/** The canonical bytes of a JSON value, as the server makes a release's. */
export function canonical(value: Json): Uint8Array {
  return utf8(canonicalText(value));
}

function objectOf(value: Json | undefined, what: string): JsonObject {
  if (!isObject(value)) throw new DeltaError(`The delta's ${what} is not an object.`);
  return value;
}

function listOf(value: Json | undefined, what: string): Json[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new DeltaError(`The delta's ${what} is not a list.`);
  return value;
}

function keyOf(item: Json | undefined, what: string): string | number {
  const key = isObject(item) ? item["key"] : undefined;
  if (typeof key !== "string" && typeof key !== "number") {
    throw new DeltaError(`An object of ${what} has no key.`);
  }
  return key;
}

/** An unchanged embedded picture is not resent: keep the old object's picture bytes. */
function keepPictureData(old: Json, changed: JsonObject): JsonObject {
  const before = isObject(old) ? old["picture"] : undefined;
  const after = changed["picture"];
  if (isObject(before) && isObject(after) && "data" in before && !("data" in after) &&
      before["sha256"] === after["sha256"]) {
    return { ...changed, picture: { ...after, data: before["data"] ?? null } };
  }
  return changed;
}

/** One keyed list (cards, symbols…) after the change: removed, changed, added, order. */
export function applyList(old: Json[], change: JsonObject, name: string): Json[] {
  const items = new Map<string | number, Json>(old.map((item) => [keyOf(item, name), item]));
  const removed = new Set(listOf(change["removed"], `${name}.removed`));
  for (const key of removed) {
    if ((typeof key !== "string" && typeof key !== "number") || !items.delete(key)) {
      throw new DeltaError(`The delta removes '${String(key)}', which the pack does not have.`);
    }
  }
  for (const item of listOf(change["changed"], `${name}.changed`)) {
    const key = keyOf(item, name);
    if (!items.has(key)) {
      throw new DeltaError(`The delta changes '${key}', which the pack does not have.`);
    }
    items.set(key, keepPictureData(items.get(key) ?? null, item as JsonObject));
  }
  const added = listOf(change["added"], `${name}.added`).map((entry) => {
    const found = objectOf(entry, `${name}.added entry`);
    if (!isInteger(found["index"])) throw new DeltaError(`An addition to ${name} has no index.`);
    items.set(keyOf(found["item"], name), found["item"] ?? null);
    return { index: found["index"], item: found["item"] ?? null };
  });
  if ("order" in change) {
    return listOf(change["order"], `${name}.order`).map((key) => {
      const item = typeof key === "string" || typeof key === "number" ? items.get(key) : undefined;
      if (item === undefined) {
        throw new DeltaError(`The delta's order names '${String(key)}', which is nowhere.`);
      }
      return item;
    });
  }
  const result = old.filter((item) => !removed.has(keyOf(item, name)))
    .map((item) => items.get(keyOf(item, name)) ?? null);
  for (const entry of added.sort((a, b) => a.index - b.index)) {
    // Python's list.insert: a negative index counts from the end, a large one appends
    const at = entry.index < 0 ? Math.max(0, result.length + entry.index) : entry.index;
    result.splice(at, 0, entry.item);
  }
  return result;
}

/**
 * The bytes of the delta's target release, made from the parsed source release.
 * Throws DeltaError when the delta is not for this pack or the result's sha256 is not
 * the delta's `to_sha256`.
 */
export async function applyDelta(pack: Json, delta: Json): Promise<Uint8Array> {
  if (!isObject(delta) || delta["format"] !== DELTA_FORMAT) {
    throw new DeltaError("This is not a pack delta.");
  }
  if (!isObject(pack) || pack["game"] !== delta["game"] || editionOf(pack) !== delta["language"] ||
      pack["content_version"] !== delta["from_version"]) {
    throw new DeltaError(`The delta is from release ${String(delta["from_version"])} of ` +
      `${String(delta["game"])} (${String(delta["language"])}), not from this pack.`);
  }
  const unset = new Set(listOf(delta["unset"], "unset"));
  // Maps, then Object.fromEntries: a key such as "__proto__" stays a plain key
  const result = new Map<string, Json>(Object.entries(pack).filter(([k]) => !unset.has(k)));
  for (const [key, value] of Object.entries(objectOf(delta["set"] ?? {}, "set"))) {
    result.set(key, value);
  }
  const body = new Map<string, Json>(Object.entries(objectOf(result.get("body"), "body")));
  for (const [key, value] of Object.entries(objectOf(delta["body_set"] ?? {}, "body_set"))) {
    body.set(key, value);
  }
  for (const [name, change] of Object.entries(objectOf(delta["lists"] ?? {}, "lists"))) {
    const before = body.get(name) ?? [];
    if (!Array.isArray(before)) throw new DeltaError(`The pack's ${name} is not a list.`);
    body.set(name, applyList(before, objectOf(change, `change of ${name}`), name));
  }
  result.set("body", Object.fromEntries(body));
  const data = canonical(Object.fromEntries(result));
  if (await sha256Hex(data) !== delta["to_sha256"]) {
    throw new DeltaError("Applying the delta did not give the release it names (sha256 differs).");
  }
  return data;
}
