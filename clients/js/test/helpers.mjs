// What the Node tests share: the server's URL, a fake mirror in front of it, and Ed25519 keys
// of the tests' own (WebCrypto), so a test can sign what a hostile mirror would serve.
import { createServer } from "node:http";
import { createHash, webcrypto } from "node:crypto";

import assert from "node:assert/strict";

import { Client, canonical } from "../dist/index.js";

export const BASE = process.env.KARTOTHEK_URL;
if (!BASE) throw new Error("KARTOTHEK_URL is not set: tests/test_client_js.py runs these tests.");

export const SAUSCHWER = "/api/packs/sauschwer/de";
export const sha256 = (bytes) => createHash("sha256").update(bytes).digest("hex");
export const b64 = (bytes) => Buffer.from(bytes).toString("base64");

/** A store like localStorage, whose items a test can look at. */
export class Store extends Map {
  getItem(key) { return this.has(key) ? this.get(key) : null; }
  setItem(key, value) { this.set(key, String(value)); }
  snapshot() { return JSON.stringify([...this.entries()]); }
}

/**
 * A real HTTP server in front of the real one: answers the paths (with their query) in `forged`
 * itself, as {status, headers, body}, and passes every other request through unchanged.
 */
export class Mirror {
  constructor() {
    this.forged = new Map();
    this.server = createServer((request, response) => this.answer(request, response));
  }

  async start() {
    await new Promise((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${this.server.address().port}`;
    return this;
  }

  async answer(request, response) {
    let { status, headers, body } = this.forged.get(request.url) ?? {};
    if (status === undefined) {
      const upstream = await fetch(BASE + request.url, { method: request.method, redirect: "manual" });
      status = upstream.status;
      body = Buffer.from(await upstream.arrayBuffer());
      headers = {};
      for (const name of ["location", "etag", "x-kartothek-signature", "content-type"]) {
        if (upstream.headers.has(name)) headers[name] = upstream.headers.get(name);
      }
    }
    body = typeof body === "string" ? Buffer.from(body) : body ?? Buffer.alloc(0);
    // headers copied from a fetch answer describe its gzip, not the bytes fetch gave
    const sent = Object.fromEntries(Object.entries(headers).filter(([name]) =>
      !["content-encoding", "content-length", "transfer-encoding"].includes(name.toLowerCase())));
    response.writeHead(status, { ...sent, "content-length": String(body.length) });
    response.end(body);
  }

  forge(path, status, headers = {}, body = "") {
    this.forged.set(path, { status, headers, body });
  }

  close() {
    this.server.closeAllConnections(); // fetch keeps connections open; close() would wait for them
    return new Promise((resolve) => this.server.close(resolve));
  }
}

export async function withMirror(run) {
  const mirror = await new Mirror().start();
  try {
    return await run(mirror);
  } finally {
    await mirror.close();
  }
}

/** An Ed25519 key pair of the test's own: {raw, b64, id, sign(bytes) -> base64}. */
export async function newKey() {
  const pair = await webcrypto.subtle.generateKey({ name: "Ed25519" }, true, ["sign", "verify"]);
  const raw = new Uint8Array(await webcrypto.subtle.exportKey("raw", pair.publicKey));
  return {
    raw, b64: b64(raw), id: sha256(raw).slice(0, 16),
    sign: async (bytes) => b64(new Uint8Array(
      await webcrypto.subtle.sign({ name: "Ed25519" }, pair.privateKey, bytes))),
  };
}

/** What a server answers for a release: its bytes, sha256 ETag and signature header. */
export async function signedRelease(bytes, key) {
  return { status: 200, body: Buffer.from(bytes), headers: {
    etag: `"${sha256(bytes)}"`, "content-type": "application/json",
    "x-kartothek-signature": `keyid=${key.id}, ed25519=${await key.sign(bytes)}` } };
}

export async function get(path) {
  const answer = await fetch(BASE + path, { redirect: "manual" });
  return { status: answer.status, headers: answer.headers,
           body: new Uint8Array(await answer.arrayBuffer()) };
}

export async function json(path) {
  return JSON.parse(Buffer.from((await get(path)).body).toString("utf8"));
}

/** A client whose store holds release 1 (fetched and kept by hand: update() would take the
 * newest release, which the server's signed timestamp names). */
export async function clientAtRelease1(store = new Store()) {
  const client = new Client(BASE, { store });
  const first = await client.keep(await client.release("sauschwer", "de", 1));
  assert.equal(first.version, 1);
  return store;
}

const iso = (date) => date.toISOString().replace(/\.\d{3}Z$/, "Z");

/** A timestamp as /api/timestamp serves it, of `releases` ([{game, language, version, sha256}]),
 * signed by `key` (a test's own key a client trusts, or one it does not). */
export async function signedTimestamp(key, releases, issued = new Date(),
                                      expires = new Date(issued.getTime() + 24 * 3600 * 1000)) {
  const signed = canonical({ type: "kartothek-timestamp-v1", issued_at: iso(issued),
                             expires: iso(expires), releases });
  return { status: 200, headers: { "content-type": "application/json" }, body: JSON.stringify({
    signed: Buffer.from(signed).toString("utf8"), algorithm: "ed25519", key_id: key.id,
    signature: await key.sign(signed) }) };
}

export { canonical };
