/**
 * The pack side of the client: the same rules as kartothek_client.Client.
 *
 * `update(game, language)` brings the stored pack up to the newest release: nothing when it is
 * current, a delta when the server has one, else the full release. Whatever it keeps has
 * passed these checks: its sha256 is the release's (the delta's `to_sha256` or the release's
 * ETag); its Ed25519 signature verifies under a key the client trusts; the signed pack says it
 * is the game, language (and market) and release version asked for; and it is newer than the
 * pack already stored (a stored release is never replaced by an older one); and it is not older
 * than the newest release the server's signed timestamp lists (/api/timestamp, timestamp.ts).
 *
 * Trusted keys are the keys passed in, or else the current key /api/keys gave on first use,
 * then pinned in the store (trust on first use, like SSH). Once keys are pinned or given, a
 * server cannot add one: a pack signed by an unknown key is refused, unless /api/keys shows a
 * chain of rotation statements from a trusted key to it, which is how the server rotates its
 * key. The retirements are kept too (`retired` in the store): a retired key endorses one
 * successor only and is held to the releases its statement lists (keys.ts).
 */

import { DeltaError, KartothekError, VerificationError } from "./errors.js";
import { isInteger, isObject, type Json, type JsonObject, parseJson, sha256Hex, text, utf8 } from "./bytes.js";
import { applyDelta, editionOf } from "./delta.js";
import { Http, failure, type Answer } from "./http.js";
import { asRetirement, endorsedChain, firstUse, type Keys, type Retired, retiredRefusal,
         verifySignature } from "./keys.js";
import { type EventSourceConstructor, Play } from "./play.js";
import { checkNotOlder, type Listed, parseTimestamp, type Timestamp, TimestampError, verifyTimestamp } from "./timestamp.js";

/** Where pinned keys and packs are kept: `localStorage` fits, the default keeps them in memory. */
export interface PackStore {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
}

export class MemoryStore implements PackStore {
  private readonly items = new Map<string, string>();

  getItem(key: string): string | null {
    return this.items.get(key) ?? null;
  }

  setItem(key: string, value: string): void {
    this.items.set(key, value);
  }
}

export interface ClientOptions {
  /** {key id: base64 raw public key}; without it /api/keys is trusted on first use and pinned. */
  publicKeys?: Keys;
  store?: PackStore;
  /** Prefix of the store's item names (default "kartothek:"). */
  prefix?: string;
  fetch?: typeof fetch;
  /** Default: globalThis.EventSource (browsers); in Node pass one, e.g. the eventsource package's. */
  EventSource?: EventSourceConstructor;
}

/** A release as the client keeps it: its exact bytes, checked. */
export class Pack {
  constructor(readonly game: string, readonly language: string, readonly version: number,
              readonly data: Uint8Array, readonly sha256: string, readonly keyId: string,
              readonly how: "cached" | "delta" | "full") {}

  /** The parsed pack (parsed anew at each call: the bytes are what is kept). */
  get content(): JsonObject {
    return parseJson(this.data, "The pack") as JsonObject;
  }
}

export interface ReleaseEntry {
  version: number;
  sha256: string;
  size: number;
  url: string;
  published_at: string;
  note: string;
  [field: string]: Json;
}

export interface PackIndex {
  format_version: number;
  games: {
    game: string;
    name: string;
    languages: { language: string; market?: string; latest: string | null; releases: ReleaseEntry[] }[];
  }[];
}

function checkNames(game: string, language: string): void {
  if (!/^[a-z]+$/.test(game) || !/^[A-Za-z-]+$/.test(language)) {
    throw new KartothekError(`'${game}'/'${language}' is not a game and language name.`);
  }
}

function show(value: Json | undefined): string {
  return typeof value === "string" ? `'${value}'` : JSON.stringify(value ?? null);
}

function isPackIndex(found: JsonObject): boolean {
  const games = found["games"];
  return Array.isArray(games) && games.every((game) =>
    isObject(game) && typeof game["game"] === "string" && Array.isArray(game["languages"]) &&
    game["languages"].every((entry) =>
      isObject(entry) && typeof entry["language"] === "string" && Array.isArray(entry["releases"]) &&
      entry["releases"].every((release) => isObject(release) && isInteger(release["version"]))));
}

export class Client extends Play {
  private readonly givenKeys: Keys | null;
  private readonly givenRetired: Retired = {};
  private readonly store: PackStore;
  private readonly prefix: string;

  constructor(baseUrl: string, options: ClientOptions = {}) {
    const http = new Http(baseUrl.replace(/\/+$/, ""), options.fetch ?? globalThis.fetch.bind(globalThis));
    super(http, options.EventSource);
    this.givenKeys = options.publicKeys ? { ...options.publicKeys } : null;
    this.store = options.store ?? new MemoryStore();
    this.prefix = options.prefix ?? "kartothek:";
  }

  get baseUrl(): string {
    return this.http.baseUrl;
  }

  /** Paths asked for, in order. */
  get requests(): string[] {
    return this.http.requests;
  }

  /** Every game and edition with its releases, newest first (GET /api/packs). */
  async packs(): Promise<PackIndex> {
    const found = await this.http.json("/api/packs");
    if (!isPackIndex(found)) throw new KartothekError("The answer to /api/packs is not the pack index.");
    return found as unknown as PackIndex;
  }

  // --- keys and signatures ------------------------------------------------------------------

  private pinned(): Keys {
    const stored = this.store.getItem(`${this.prefix}keys`);
    if (stored === null) return {};
    const found = parseJson(stored, "The pinned keys");
    if (!isObject(found) || !Object.values(found).every((v) => typeof v === "string")) {
      throw new KartothekError("The pinned keys in the store are damaged: not {key id: key}.");
    }
    return found as Keys;
  }

  private pin(keys: Keys, retired: Retired): void {
    this.write(`${this.prefix}retired`, JSON.stringify(retired));
    this.write(`${this.prefix}keys`, JSON.stringify(keys));
  }

  /** The retirements this client kept: {retired key id: its statement's facts}. */
  retiredKeys(): Retired {
    if (this.givenKeys !== null) return this.givenRetired;
    const stored = this.store.getItem(`${this.prefix}retired`);
    if (stored === null) return {};
    const found = parseJson(stored, "The kept retirements");
    const retired: Retired = {};
    for (const [keyId, value] of Object.entries(isObject(found) ? found : { "": null })) {
      const retirement = asRetirement(value);
      if (retirement === null) {
        throw new KartothekError("The kept retirements in the store are damaged.");
      }
      retired[keyId] = retirement;
    }
    return retired;
  }

  private write(name: string, value: string): void {
    try {
      this.store.setItem(name, value);
    } catch (error) {
      throw new KartothekError(`The store refused ${name}: ${String(error)}`);
    }
  }

  /** The keys passed in, else the pinned ones; with neither, the current key of /api/keys
   * (then pinned, with the retired keys held to their releases). */
  async trustedKeys(): Promise<Keys> {
    if (this.givenKeys !== null) return this.givenKeys;
    let pinned = this.pinned();
    if (Object.keys(pinned).length === 0) {
      const [current, retired] = await firstUse((await this.http.json("/api/keys"))["keys"] ?? null);
      this.pin(current, retired);
      pinned = current;
    } else if (this.store.getItem(`${this.prefix}retired`) === null) {
      // pinned before rotation statements: once, the statements from the pinned keys
      const [found, retired] = await endorsedChain(pinned, {}, (await this.http.json("/api/keys"))["keys"] ?? null);
      pinned = { ...found, ...pinned };
      this.pin(pinned, retired);
    }
    return pinned;
  }

  /** A key not trusted yet: trusted only if /api/keys endorses it by a chain from a trusted
   * key; then pinned with the keys and retirements on that chain. Nothing else is stored. */
  private async learnEndorsed(keyId: string, keys: Keys): Promise<Keys> {
    const retired = this.retiredKeys();
    const [found, retirements] = await endorsedChain(
      keys, retired, (await this.http.json("/api/keys"))["keys"] ?? null);
    if (!Object.hasOwn(found, keyId)) return keys;
    if (this.givenKeys !== null) {
      Object.assign(this.givenRetired, { ...retirements, ...retired });
      return Object.assign(this.givenKeys, found);
    }
    const pinned = { ...found, ...this.pinned() }; // a key once pinned is never replaced
    this.pin(pinned, { ...retirements, ...retired }); // nor a retirement once kept
    return pinned;
  }

  /** The trusted public key of that id (learned through endorsements if need be), or null. */
  private async keyFor(keyId: string): Promise<string | null> {
    let keys = await this.trustedKeys();
    if (!Object.hasOwn(keys, keyId)) keys = await this.learnEndorsed(keyId, keys);
    return Object.hasOwn(keys, keyId) ? keys[keyId] as string : null;
  }

  /** The server's signed list of the newest releases (timestamp.ts), verified, not older than
   * the one kept in the store, which it then replaces. */
  async timestamp(): Promise<Timestamp> {
    const name = `${this.prefix}timestamp`;
    const stored = this.store.getItem(name);
    const keyFor = (keyId: string) => this.keyFor(keyId);
    // the one kept: only the mark a new one must not fall behind (damaged: replaced)
    const held = stored === null ? null : await parseTimestamp(stored, keyFor).catch((error: unknown) => {
      if (error instanceof TimestampError) return null;
      throw error;
    });
    const answer = await this.http.send("/api/timestamp");
    if (answer.status !== 200) throw failure("/api/timestamp", answer);
    const stamp = await verifyTimestamp(text(answer.body, "The timestamp"), keyFor);
    checkNotOlder(stamp, held);
    if (stored !== stamp.envelope) this.write(name, stamp.envelope);
    return stamp;
  }

  private async signatureOf(game: string, language: string, version: number,
                            header: string | null): Promise<[string, Json | undefined]> {
    const found = header === null ? null : /^keyid=([0-9a-f]+), ed25519=(\S+)$/.exec(header);
    if (found) return [found[1] as string, found[2]];
    const sig = await this.http.json(`/api/packs/${game}/${language}/${version}.json.sig`);
    if (typeof sig["key_id"] !== "string") {
      throw new VerificationError(`The signature of release ${version} names no key.`);
    }
    return [sig["key_id"], sig["signature"]];
  }

  private async verify(game: string, language: string, version: number, data: Uint8Array,
                       header: string | null): Promise<string> {
    const [keyId, signature] = await this.signatureOf(game, language, version, header);
    let keys = await this.trustedKeys();
    if (!Object.hasOwn(keys, keyId) && !Object.hasOwn(this.retiredKeys(), keyId)) {
      keys = await this.learnEndorsed(keyId, keys); // a rotated key
    }
    const retired = this.retiredKeys();
    const retirement = Object.hasOwn(retired, keyId) ? retired[keyId] : undefined;
    const publicKey = Object.hasOwn(keys, keyId) ? keys[keyId] : retirement?.public_key;
    if (publicKey === undefined) {
      throw new VerificationError(`Release ${version} is signed with key ${keyId}, which this ` +
        "client does not trust, and no key it trusts endorsed it.");
    }
    if (!await verifySignature(publicKey, signature, data)) {
      throw new VerificationError(`Release ${version} of ${game} (${language}): the signature ` +
        "does not verify.");
    }
    checkIdentity(data, game, language, version);
    const refusal = retirement && retiredRefusal(retirement, keyId, game, language, version);
    if (refusal) throw new VerificationError(refusal); // a retired key signs nothing more
    return keyId;
  }

  // --- the store ----------------------------------------------------------------------------

  private packName(game: string, language: string): string {
    checkNames(game, language);
    return `${this.prefix}pack:${game}/${language}`;
  }

  /** The stored pack, if its bytes still match the sha256 kept beside them. */
  async cached(game: string, language: string): Promise<Pack | null> {
    const stored = this.store.getItem(this.packName(game, language));
    let meta: Json;
    try {
      meta = stored === null ? null : JSON.parse(stored) as Json;
    } catch {
      return null;
    }
    if (!isObject(meta) || typeof meta["data"] !== "string" || !isInteger(meta["version"]) ||
        typeof meta["key_id"] !== "string") {
      return null;
    }
    const data = utf8(meta["data"]);
    if (await sha256Hex(data) !== meta["sha256"]) return null; // damaged: fetched again in full
    return new Pack(game, language, meta["version"], data, meta["sha256"], meta["key_id"], "cached");
  }

  /** Keep a checked pack unless a newer one is stored already: the store never goes
   * backwards. The pack now stored. */
  async keep(pack: Pack): Promise<Pack> {
    const have = await this.cached(pack.game, pack.language);
    if (have !== null && have.version >= pack.version) return have;
    this.write(this.packName(pack.game, pack.language), JSON.stringify({
      version: pack.version, sha256: pack.sha256, key_id: pack.keyId,
      data: text(pack.data, "The pack"),
    }));
    return pack;
  }

  // --- releases -----------------------------------------------------------------------------

  /** Release `version` in full, checked (sha256, signature, identity); not stored. */
  async release(game: string, language: string, version: number): Promise<Pack> {
    checkNames(game, language);
    const path = `/api/packs/${game}/${language}/${version}.json`;
    return this.full(game, language, version, await this.http.send(path), path);
  }

  private async full(game: string, language: string, version: number, answer: Answer,
                     path: string): Promise<Pack> {
    if (answer.status !== 200) throw failure(path, answer);
    const digest = await sha256Hex(answer.body);
    if ((answer.headers.get("ETag") ?? "").replace(/^"+|"+$/g, "") !== digest) {
      throw new VerificationError(`Release ${version}: the bytes do not match the ETag sha256.`);
    }
    const keyId = await this.verify(game, language, version, answer.body,
                                    answer.headers.get("X-Kartothek-Signature"));
    return new Pack(game, language, version, answer.body, digest, keyId, "full");
  }

  /**
   * The newest release, checked and stored; by delta when one is worth having.
   *
   * Two requests: the signed timestamp, then `latest?since=N`, which answers 304 when N is the newest, else redirects to the newest
   * release's delta from N (or to its full bytes). A "latest" older than the stored pack is ignored and the stored
   * pack returned: a mirror may lag behind, and going back is refused without failing.
   * The signed timestamp (one request more) says which release is the newest: a "latest"
   * older than the one it lists is overruled (that release is fetched, or the update fails),
   * so a mirror cannot hand even an empty store an old genuine release.
   */
  async update(game: string, language: string): Promise<Pack> {
    const have = await this.cached(game, language);
    const listed = (await this.timestamp()).newest(game, language);
    const path = `/api/packs/${game}/${language}/latest` + (have ? `?since=${have.version}` : "");
    const answer = await this.http.send(path);
    const url = new URL(answer.url || this.baseUrl + path);
    let version = have !== null && answer.status === 304 ? have.version : NaN; // 304: we hold the newest
    if (Number.isNaN(version)) {
      const number = /\/(\d+)\.json$/.exec(url.pathname)?.[1];
      version = number === undefined ? NaN : Number(number);
    }
    if (!Number.isSafeInteger(version)) {
      const why = failure(path, answer);
      throw new KartothekError(`No release of ${game} (${language}): ${why.message}`, answer.status);
    }
    if (listed !== null && version < listed.version) { // a lagging or lying "latest"
      if (have !== null && have.version >= listed.version) return have;
      const pack = have === null ? await this.release(game, language, listed.version)
        : await this.delta(have, listed.version);
      return this.keep(asListed(pack, listed));
    }
    if (have !== null && have.version >= version) return have;
    const pack = have !== null && url.searchParams.has("since")
      ? await this.byDelta(have, version, answer)
      : await this.full(game, language, version, answer, url.pathname);
    return this.keep(asListed(pack, listed));
  }

  /** Release `version` made from `have` and the delta between them, checked like a full
   * release (or the full release when the server has no delta worth sending); not stored. */
  async delta(have: Pack, version: number): Promise<Pack> {
    const path = `/api/packs/${have.game}/${have.language}/${version}.json?since=${have.version}`;
    const answer = await this.http.send(path);
    if (new URL(answer.url || this.baseUrl + path).searchParams.has("since")) {
      return this.byDelta(have, version, answer);
    }
    return this.full(have.game, have.language, version, answer, path);
  }

  private async byDelta(have: Pack, version: number, answer: Answer): Promise<Pack> {
    const span = `${have.version}..${version}`;
    if (answer.status !== 200) throw failure(`Delta ${span}`, answer);
    const delta = parseJson(answer.body, `Delta ${span}`);
    const found = isObject(delta) ? delta : {};
    if (found["game"] !== have.game || found["language"] !== have.language ||
        found["to_version"] !== version) {
      throw new VerificationError(`Asked for the delta ${span} of ${have.game} (${have.language}), ` +
        `got one to release ${show(found["to_version"])} of ${show(found["game"])} ` +
        `(${show(found["language"])}).`);
    }
    if (found["from_sha256"] !== have.sha256) {
      throw new VerificationError("The delta is not from the release this client holds.");
    }
    let data: Uint8Array;
    try {
      data = await applyDelta(have.content, found);
    } catch (error) {
      if (!(error instanceof DeltaError)) throw error;
      throw new VerificationError(`Delta ${span} did not apply: ${error.message}`);
    }
    const keyId = await this.verify(have.game, have.language, version, data, null);
    return new Pack(have.game, have.language, version, data, found["to_sha256"] as string, keyId, "delta");
  }
}

/** The release the signed timestamp lists must be the very bytes it names. */
function asListed(pack: Pack, listed: Listed | null): Pack {
  if (listed !== null && pack.version === listed.version && pack.sha256 !== listed.sha256) {
    throw new VerificationError(`Release ${pack.version} of ${pack.game} (${pack.language}) is not ` +
      "the one the signed timestamp lists (another sha256): not kept.");
  }
  return pack;
}

/** The signed bytes must be the release asked for: a genuine signature of another game,
 * language or version (a replayed or older release) is refused. */
function checkIdentity(data: Uint8Array, game: string, language: string, version: number): void {
  let pack: Json;
  try {
    pack = parseJson(data, "The release");
  } catch {
    pack = null;
  }
  if (!isObject(pack)) {
    throw new VerificationError(`Release ${version} of ${game} (${language}) is not a pack.`);
  }
  const found = [pack["game"] ?? null, editionOf(pack), pack["content_version"] ?? null] as const;
  if (found[0] !== game || found[1] !== language || found[2] !== version) {
    throw new VerificationError(`Asked for release ${version} of ${game} (${language}), but the ` +
      `signed pack is release ${show(found[2])} of ${show(found[0])} (${show(found[1])}): not kept.`);
  }
}
