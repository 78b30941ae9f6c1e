// The signed timestamp (/api/timestamp) through the client: the same rules as kartothek_client
// (tests/test_client_timestamp.py). A mirror cannot hand an empty store an old genuine release,
// and an expired, forged or replayed timestamp is refused.
import assert from "node:assert/strict";
import { test } from "node:test";

import { Client, KartothekError, TimestampError, VerificationError } from "../dist/index.js";
import { SAUSCHWER, Store, get, json, newKey, sha256, signedTimestamp, withMirror } from "./helpers.mjs";

const HOUR = 3600 * 1000;

async function serverKeys() {
  return Object.fromEntries((await json("/api/keys")).keys.map((k) => [k.id, k.public_key]));
}

test("a client with pinned keys and an empty store refuses an old genuine release", async () => {
  const one = await get(`${SAUSCHWER}/1.json`);
  const two = await get(`${SAUSCHWER}/2.json`);
  await withMirror(async (mirror) => {
    // the mirror says release 1 is the newest and serves it, genuine, signature and all
    mirror.forge(`${SAUSCHWER}/latest`, 302, { location: `${SAUSCHWER}/1.json` });
    mirror.forge(`${SAUSCHWER}/2.json`, 404, { "content-type": "application/json" }, '{"error": "withheld"}');
    const store = new Store();
    const client = new Client(mirror.url, { store, publicKeys: await serverKeys() });
    await assert.rejects(client.update("sauschwer", "de"),
      (e) => e instanceof KartothekError && e.status === 404 && /2\.json/.test(e.message));
    assert.equal(await client.cached("sauschwer", "de"), null);
    // release 1's genuine bytes under release 2's name: refused as well
    mirror.forge(`${SAUSCHWER}/2.json`, 200, Object.fromEntries(one.headers), one.body);
    await assert.rejects(client.update("sauschwer", "de"),
      (e) => e instanceof VerificationError && /signed pack is release 1/.test(e.message));
    assert.equal(await client.cached("sauschwer", "de"), null);
    // once the mirror serves release 2, the client takes it, the old "latest" notwithstanding
    mirror.forged.delete(`${SAUSCHWER}/2.json`);
    const pack = await client.update("sauschwer", "de");
    assert.equal(pack.version, 2);
    assert.deepEqual(pack.data, two.body);
  });
});

test("a stale, forged or foreign timestamp is refused and nothing is stored", async () => {
  const key = await newKey(); // trusted beside the server's keys: it signs what the cases need
  const stranger = await newKey();
  const two = sha256((await get(`${SAUSCHWER}/2.json`)).body);
  const listing = [{ game: "sauschwer", language: "de", version: 2, sha256: two }];
  const now = Date.now();
  const genuine = JSON.parse(Buffer.from((await get("/api/timestamp")).body).toString("utf8"));
  const edited = { ...genuine, signed: genuine.signed.replace('"version":2', '"version":1') };
  const cases = [
    [await signedTimestamp(key, listing, new Date(now - 48 * HOUR)), /expired/],
    [await signedTimestamp(key, listing, new Date(now - 8 * 24 * HOUR), new Date(now + 30 * 24 * HOUR)),
     /more than 7 days ago/],
    [await signedTimestamp(key, listing, new Date(now + 3 * HOUR)), /in the future/],
    [{ status: 200, headers: {}, body: JSON.stringify(edited) }, /does not verify/],
    [await signedTimestamp(stranger, listing), /does not trust/],
    [{ status: 200, headers: {}, body: '{"signed": 5}' }, /not a signed envelope/],
  ];
  for (const [forged, message] of cases) {
    await withMirror(async (mirror) => {
      mirror.forged.set("/api/timestamp", forged);
      mirror.forge(`${SAUSCHWER}/latest`, 302, { location: `${SAUSCHWER}/1.json` });
      const store = new Store();
      const client = new Client(mirror.url, { store, publicKeys: { ...await serverKeys(), [key.id]: key.b64 } });
      await assert.rejects(client.update("sauschwer", "de"),
        (e) => e instanceof TimestampError && message.test(e.message));
      assert.equal(store.snapshot(), "[]");
    });
  }
});

test("a replayed older timestamp is refused", async () => {
  const key = await newKey();
  const one = sha256((await get(`${SAUSCHWER}/1.json`)).body);
  const two = sha256((await get(`${SAUSCHWER}/2.json`)).body);
  const at = (version, sha) => [{ game: "sauschwer", language: "de", version, sha256: sha }];
  const issued = new Date(Date.now() - 3 * HOUR); // before the server's own (slots of 2.4 hours)
  const store = new Store();
  await withMirror(async (mirror) => {
    const keys = { ...await serverKeys(), [key.id]: key.b64 };
    mirror.forged.set("/api/timestamp", await signedTimestamp(key, at(2, two), issued));
    const client = new Client(mirror.url, { store, publicKeys: keys });
    assert.equal((await client.update("sauschwer", "de")).version, 2);
    assert.ok(store.getItem("kartothek:timestamp"));
    // issued before the one the client holds
    mirror.forged.set("/api/timestamp", await signedTimestamp(key, at(2, two), new Date(issued.getTime() - HOUR)));
    await assert.rejects(client.update("sauschwer", "de"),
      (e) => e instanceof TimestampError && /before the one this client holds/.test(e.message));
    // as new, but naming release 1 where the one held named release 2
    mirror.forged.set("/api/timestamp", await signedTimestamp(key, at(1, one), issued));
    await assert.rejects(client.update("sauschwer", "de"), /named release 2: a replayed older timestamp/);
    // a new client with the same store remembers it
    await assert.rejects(new Client(mirror.url, { store, publicKeys: keys }).update("sauschwer", "de"),
                         TimestampError);
    // the server's own, newer timestamp is taken
    mirror.forged.delete("/api/timestamp");
    assert.equal((await client.update("sauschwer", "de")).version, 2);
  });
});
