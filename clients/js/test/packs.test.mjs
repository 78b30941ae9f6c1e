// Packs through the client against the real server, and through a mirror that forges answers:
// the same rules as kartothek_client (tests/test_client_library.py, tests/test_client_trust.py).
import assert from "node:assert/strict";
import { test } from "node:test";

import { Client, KartothekError, VerificationError, endorsementStatement } from "../dist/index.js";
import { BASE, SAUSCHWER, Store, canonical, clientAtRelease1, get, json, newKey, sha256, signedRelease, signedTimestamp,
         withMirror } from "./helpers.mjs";

async function serverKeys() {
  return Object.fromEntries((await json("/api/keys")).keys.map((k) => [k.id, k.public_key]));
}

test("it lists the packs with their releases, newest first", async () => {
  const index = await new Client(BASE).packs();
  const sauschwer = index.games.find((g) => g.game === "sauschwer").languages
    .find((l) => l.language === "de");
  assert.deepEqual(sauschwer.releases.map((r) => r.version), [2, 1]);
  assert.equal(sauschwer.latest, `${SAUSCHWER}/latest`);
});

test("it downloads a release, verifies it and keeps its exact bytes", async () => {
  const client = new Client(BASE);
  const pack = await client.release("sauschwer", "de", 1);
  const served = await get(`${SAUSCHWER}/1.json`);
  assert.deepEqual(pack.data, served.body);
  assert.equal(pack.sha256, sha256(served.body));
  assert.equal(pack.how, "full");
  assert.equal(pack.keyId, (await json("/api/keys")).keys[0].id); // signed before the rotation
  assert.equal(pack.content.content_version, 1);
  const current = (await json("/api/keys")).keys.at(-1);
  assert.deepEqual(await client.trustedKeys(), { [current.id]: current.public_key }); // first use: the current key only
});

test("it updates by delta to the very bytes of the full release, then stays current", async () => {
  const store = await clientAtRelease1();
  const client = new Client(BASE, { store });
  const second = await client.update("sauschwer", "de");
  assert.equal(second.version, 2);
  assert.equal(second.how, "delta");
  assert.deepEqual(second.data, (await get(`${SAUSCHWER}/2.json`)).body);
  assert.deepEqual(client.requests, ["/api/timestamp", `${SAUSCHWER}/latest?since=1`,
                                     `${SAUSCHWER}/2.json.sig`]);
  const again = new Client(BASE, { store });
  const current = await again.update("sauschwer", "de");
  assert.equal(current.how, "cached");
  assert.deepEqual(current.data, second.data);
  assert.deepEqual(again.requests, ["/api/timestamp", `${SAUSCHWER}/latest?since=2`]);
});

test("a damaged store is fetched again in full", async () => {
  const store = new Store();
  const client = new Client(BASE, { store });
  await client.update("sauschwer", "de");
  const name = "kartothek:pack:sauschwer/de";
  store.setItem(name, store.getItem(name).replace("Ding 1", "Ding X"));
  assert.equal(await client.cached("sauschwer", "de"), null);
  assert.equal((await client.update("sauschwer", "de")).how, "full");
});

test("a key a mirror adds to /api/keys is refused and nothing is stored", async () => {
  const store = new Store();
  await new Client(BASE, { store }).update("sauschwer", "de"); // keys pinned, release 2 kept
  const before = store.snapshot();
  const mirrorKey = await newKey();
  await withMirror(async (mirror) => {
    const genuine = (await json(`${SAUSCHWER}/2.json`));
    const forged = canonical({ ...genuine, content_version: 3 });
    const keys = await json("/api/keys");
    keys.keys.push({ id: mirrorKey.id, algorithm: "ed25519", public_key: mirrorKey.b64, status: "current" });
    mirror.forge("/api/keys", 200, { "content-type": "application/json" }, JSON.stringify(keys));
    for (const latest of ["latest", "latest?since=2"]) {
      mirror.forge(`${SAUSCHWER}/${latest}`, 302, { location: `${SAUSCHWER}/3.json` });
    }
    mirror.forged.set(`${SAUSCHWER}/3.json`, await signedRelease(forged, mirrorKey));
    const client = new Client(mirror.url, { store });
    await assert.rejects(client.update("sauschwer", "de"),
      (e) => e instanceof VerificationError && /does not trust/.test(e.message));
    assert.equal(store.snapshot(), before);
    // keys passed in: the same refusal, and the given keys stay as they were
    const given = await serverKeys();
    const other = new Client(mirror.url, { publicKeys: given });
    await assert.rejects(other.update("sauschwer", "de"), /does not trust/);
    assert.deepEqual(await other.trustedKeys(), given);
  });
});

test("the right key id with the wrong key does not verify", async () => {
  const stranger = await newKey();
  const ids = Object.keys(await serverKeys()); // [retired, current]: sauschwer was signed by the first
  const client = new Client(BASE, { publicKeys: { [ids[0]]: stranger.b64 } });
  await assert.rejects(client.release("sauschwer", "de", 1),
    (e) => e instanceof VerificationError && /does not verify/.test(e.message));
  // the signed timestamp (by the current key) is refused the same way, and nothing is kept
  const other = new Client(BASE, { publicKeys: { [ids.at(-1)]: stranger.b64 } });
  await assert.rejects(other.update("sauschwer", "de"),
    (e) => e instanceof VerificationError && /does not verify/.test(e.message));
  assert.equal(await other.cached("sauschwer", "de"), null);
});

const RETIRED_AT = "2026-12-05T07:10:00Z";
const LAST = { "sauschwer/de": 2 };

/** A mirror that rotates to `newest` (endorsed as `endorsement` says) and signs release 3 with it. */
async function rotatedMirror(mirror, old, newest, endorsement) {
  const pack = canonical({ ...(await json(`${SAUSCHWER}/2.json`)), content_version: 3 });
  const keys = [{ id: old.id, public_key: old.b64, status: "retired", retired_at: RETIRED_AT,
                  last_releases: LAST },
                { id: newest.id, public_key: newest.b64, status: "current", ...endorsement }];
  mirror.forge("/api/keys", 200, {}, JSON.stringify({ algorithm: "ed25519", keys }));
  mirror.forge(`${SAUSCHWER}/latest`, 302, { location: `${SAUSCHWER}/3.json` });
  mirror.forged.set(`${SAUSCHWER}/3.json`, await signedRelease(pack, newest));
  mirror.forged.set("/api/timestamp", await signedTimestamp(newest, [
    { game: "sauschwer", language: "de", version: 3, sha256: sha256(pack) }]));
}

test("a rotated key endorsed by a trusted key is accepted, a self-endorsed one is not", async () => {
  const old = await newKey();
  const newest = await newKey();
  await withMirror(async (mirror) => {
    await rotatedMirror(mirror, old, newest, {
      endorsed_by: old.id, endorsement: await old.sign(await endorsementStatement(newest.raw, old.id, RETIRED_AT, LAST)) });
    const client = new Client(mirror.url, { publicKeys: { [old.id]: old.b64 } });
    const pack = await client.update("sauschwer", "de");
    assert.deepEqual([pack.version, pack.keyId], [3, newest.id]);
    assert.deepEqual(Object.keys(await client.trustedKeys()).sort(), [old.id, newest.id].sort());
  });
  await withMirror(async (mirror) => {
    await rotatedMirror(mirror, old, newest, {
      endorsed_by: old.id, endorsement: await newest.sign(await endorsementStatement(newest.raw, old.id, RETIRED_AT, LAST)) });
    const store = new Store();
    store.setItem("kartothek:keys", JSON.stringify({ [old.id]: old.b64 }));
    await assert.rejects(new Client(mirror.url, { store }).update("sauschwer", "de"), /does not trust/);
    assert.deepEqual(Object.keys(JSON.parse(store.getItem("kartothek:keys"))), [old.id]);
  });
});

test("a genuine release of another game or language is refused", async () => {
  const symbols = await get("/api/packs/symbols/en/1.json");
  const sauschwer = await get(`${SAUSCHWER}/1.json`);
  await withMirror(async (mirror) => {
    mirror.forge(`${SAUSCHWER}/latest`, 302, { location: `${SAUSCHWER}/9.json` });
    mirror.forge(`${SAUSCHWER}/9.json`, 200, Object.fromEntries(symbols.headers), symbols.body);
    mirror.forge("/api/packs/sauschwer/en/latest", 302, { location: "/api/packs/sauschwer/en/1.json" });
    mirror.forge("/api/packs/sauschwer/en/1.json", 200, Object.fromEntries(sauschwer.headers),
                 sauschwer.body);
    const client = new Client(mirror.url);
    await assert.rejects(client.update("sauschwer", "de"),
      (e) => e instanceof VerificationError && /release 1 of 'symbols' \('en'\)/.test(e.message));
    await assert.rejects(client.update("sauschwer", "en"), /release 1 of 'sauschwer' \('de'\)/);
    assert.equal(await client.cached("sauschwer", "de"), null);
  });
});

test("a pack of another market is refused under a market's path", async () => {
  const key = await newKey();
  const us = canonical({ game: "slogan", language: "en", market: "US", content_version: 1, body: {} });
  await withMirror(async (mirror) => {
    mirror.forge("/api/packs/slogan/en-GB/latest", 302, { location: "/api/packs/slogan/en-GB/1.json" });
    mirror.forged.set("/api/packs/slogan/en-GB/1.json", await signedRelease(us, key));
    mirror.forged.set("/api/timestamp", await signedTimestamp(key, [
      { game: "slogan", language: "en-GB", version: 1, sha256: sha256(us) }]));
    const client = new Client(mirror.url, { publicKeys: { [key.id]: key.b64 } });
    await assert.rejects(client.update("slogan", "en-GB"), /release 1 of 'slogan' \('en-US'\)/);
  });
});

test("the store never goes back to an older release", async () => {
  const store = new Store();
  const one = await get(`${SAUSCHWER}/1.json`);
  await withMirror(async (mirror) => {
    const client = new Client(mirror.url, { store });
    assert.equal((await client.update("sauschwer", "de")).version, 2);
    // a lagging mirror says latest is 1: ignored, the stored release 2 is returned
    mirror.forge(`${SAUSCHWER}/latest?since=2`, 302, { location: `${SAUSCHWER}/1.json?since=2` });
    assert.equal((await client.update("sauschwer", "de")).version, 2);
    // genuine release 1 served as "3": refused, it says it is release 1
    mirror.forge(`${SAUSCHWER}/latest?since=2`, 302, { location: `${SAUSCHWER}/3.json` });
    mirror.forge(`${SAUSCHWER}/3.json`, 200, Object.fromEntries(one.headers), one.body);
    await assert.rejects(client.update("sauschwer", "de"), /release 1 of 'sauschwer'/);
    assert.equal((await client.cached("sauschwer", "de")).version, 2);
  });
});

test("a delta to another release than asked is refused", async () => {
  const store = await clientAtRelease1();
  const deltaTo2 = (await get(`${SAUSCHWER}/1..2.delta.json`)).body;
  await withMirror(async (mirror) => {
    mirror.forge(`${SAUSCHWER}/latest?since=1`, 302, { location: `${SAUSCHWER}/3.json?since=1` });
    mirror.forge(`${SAUSCHWER}/3.json?since=1`, 200, {}, deltaTo2);
    const client = new Client(mirror.url, { store });
    await assert.rejects(client.update("sauschwer", "de"),
      (e) => e instanceof VerificationError && /got one to release 2/.test(e.message));
    assert.equal((await client.cached("sauschwer", "de")).version, 1);
  });
});

test("no release yet is a clear error", async () => {
  await assert.rejects(new Client(BASE).update("sign", "de"),
    (e) => e instanceof KartothekError && /No release of sign \(de\)/.test(e.message) && e.status === 404);
});


test("delta() makes a release from an older one, and refuses to go back", async () => {
  const client = new Client(BASE);
  const one = await client.release("sauschwer", "de", 1);
  const two = await client.delta(one, 2);
  assert.equal(two.how, "delta");
  assert.deepEqual(two.data, (await client.release("sauschwer", "de", 2)).data);
  await assert.rejects(client.delta(two, 1), (e) => e instanceof KartothekError && e.status === 400);
});

test("the server's own key rotation: a client that trusts the retired key follows its endorsement", async () => {
  const [old, current] = (await json("/api/keys")).keys; // tests/test_client_js.py rotated once
  assert.equal(current.endorsed_by, old.id);
  const given = new Client(BASE, { publicKeys: { [old.id]: old.public_key } });
  assert.equal((await given.release("slogan", "de", 1)).keyId, current.id);
  assert.deepEqual(Object.keys(await given.trustedKeys()).sort(), [old.id, current.id].sort());
  // pinned in a store: the endorsed key is pinned beside the old one
  const store = new Store();
  store.setItem("kartothek:keys", JSON.stringify({ [old.id]: old.public_key }));
  assert.equal((await new Client(BASE, { store }).update("slogan", "de")).keyId, current.id);
  assert.deepEqual(JSON.parse(store.getItem("kartothek:keys")),
                   { [old.id]: old.public_key, [current.id]: current.public_key });
});
