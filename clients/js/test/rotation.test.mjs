// A retired signing key signs nothing more (issue 38, finding 2), as tests/test_key_rotation.py
// checks kartothek_client: after K1 -> K2 a release forged with K1 beyond its last release is
// refused, a K3 "endorsed" by K1 is refused and never pinned, a fresh client pins K2 only.
import assert from "node:assert/strict";
import { test } from "node:test";

import { Client, VerificationError, endorsementStatement } from "../dist/index.js";
import { BASE, SAUSCHWER, Store, canonical, json, newKey, sha256, signedRelease, signedTimestamp,
  withMirror } from "./helpers.mjs";

const RETIRED_AT = "2026-12-05T07:10:00Z";
const GENUINE = { retired_at: RETIRED_AT, last_releases: { "sauschwer/de": 3 } };

/** /api/keys after `old` retired for each of `successors` (K1 names them all), with `facts`. */
async function keyList(old, successors, facts = GENUINE) {
  const keys = [{ id: old.id, algorithm: "ed25519", public_key: old.b64, pem: "", status: "retired", ...facts }];
  for (const next of successors) {
    const statement = await endorsementStatement(next.raw, old.id, facts.retired_at, facts.last_releases);
    keys.push({ id: next.id, algorithm: "ed25519", public_key: next.b64, pem: "", status: "current",
                endorsed_by: old.id, endorsement: await old.sign(statement) });
  }
  return JSON.stringify({ algorithm: "ed25519", keys });
}

/** The mirror serves release `version` (release 2's content renumbered), signed by `key`, and
 * a timestamp naming it, signed by the server's current key (`mirror.current`, set by the test;
 * else `key`): the forged release must be refused for its key, not for being unlisted. */
async function serveRelease(mirror, version, key) {
  const pack = canonical({ ...(await json(`${SAUSCHWER}/2.json`)), content_version: version });
  mirror.forged.set("/api/timestamp", await signedTimestamp(mirror.current ?? key, [
    { game: "sauschwer", language: "de", version, sha256: sha256(pack) }]));
  for (const latest of ["latest", `latest?since=${version - 1}`]) {
    mirror.forge(`${SAUSCHWER}/${latest}`, 302, { location: `${SAUSCHWER}/${version}.json` });
  }
  mirror.forged.set(`${SAUSCHWER}/${version}.json`, await signedRelease(pack, key));
}

/** The store without the signed timestamp: a refused release leaves the keys and packs as they
 * were, while the timestamp the mirror served (genuine, signed by the current key) is verified
 * and kept before the release is read, as a TUF client keeps a verified timestamp. */
function keysAndPacks(store) {
  return JSON.stringify([...store.entries()].filter(([name]) => name !== "kartothek:timestamp"));
}

/** A store that pinned `old`, then followed the rotation to `next` with release 3. */
async function rotatedStore(mirror, old, next) {
  const store = new Store();
  store.setItem("kartothek:keys", JSON.stringify({ [old.id]: old.b64 }));
  mirror.current = next;
  mirror.forge("/api/keys", 200, {}, await keyList(old, [next]));
  await serveRelease(mirror, 3, next);
  const pack = await new Client(mirror.url, { store }).update("sauschwer", "de");
  assert.deepEqual([pack.version, pack.keyId], [3, next.id]);
  assert.deepEqual(JSON.parse(store.getItem("kartothek:retired")), { [old.id]: {
    public_key: old.b64, successor: next.id, retired_at: RETIRED_AT, last_releases: { "sauschwer/de": 3 } } });
  return store;
}

test("after a rotation a release forged with the retired key beyond its last release is refused", async () => {
  const [old, next] = [await newKey(), await newKey()];
  await withMirror(async (mirror) => {
    const store = await rotatedStore(mirror, old, next);
    const before = keysAndPacks(store);
    await serveRelease(mirror, 4, old);
    const refused = (e) => e instanceof VerificationError &&
      /retired at .* the last release it signed of this pack is 3/.test(e.message);
    await assert.rejects(new Client(mirror.url, { store }).update("sauschwer", "de"), refused);
    assert.equal(keysAndPacks(store), before);
    // a client meeting the server after the rotation: the same refusal, the current key pinned only
    const fresh = new Store();
    await assert.rejects(new Client(mirror.url, { store: fresh }).update("sauschwer", "de"), refused);
    assert.deepEqual(JSON.parse(fresh.getItem("kartothek:keys")), { [next.id]: next.b64 });
    // keys passed in: the rotation learnt from release 3 holds the same
    const given = new Client(mirror.url, { publicKeys: { [old.id]: old.b64 } });
    await serveRelease(mirror, 3, next);
    assert.equal((await given.update("sauschwer", "de")).keyId, next.id);
    await serveRelease(mirror, 4, old);
    await assert.rejects(given.update("sauschwer", "de"), refused);
  });
});

test("a second key endorsed by the retired key is refused and never pinned", async () => {
  const [old, next, thief] = [await newKey(), await newKey(), await newKey()];
  await withMirror(async (mirror) => {
    const store = await rotatedStore(mirror, old, next);
    const before = keysAndPacks(store);
    mirror.forge("/api/keys", 200, {}, await keyList(old, [thief], {
      retired_at: "2099-01-01T00:00:00Z", last_releases: { "sauschwer/de": 99 } }));
    await serveRelease(mirror, 4, thief);
    const client = new Client(mirror.url, { store });
    await assert.rejects(client.update("sauschwer", "de"), /does not trust/);
    assert.equal(keysAndPacks(store), before);
    assert.equal(Object.hasOwn(await client.trustedKeys(), thief.id), false);
    // a client that only knew K1, offered a list where K1 names two successors, follows neither
    mirror.forge("/api/keys", 200, {}, await keyList(old, [next, thief]));
    const given = new Client(mirror.url, { publicKeys: { [old.id]: old.b64 } });
    await assert.rejects(given.update("sauschwer", "de"), /does not trust/);
    assert.deepEqual(Object.keys(await given.trustedKeys()), [old.id]);
  });
});

test("a store pinned before rotation statements reads them once and holds the retired key", async () => {
  const [old, next] = [await newKey(), await newKey()];
  await withMirror(async (mirror) => {
    mirror.forge("/api/keys", 200, {}, await keyList(old, [next]));
    mirror.current = next;
    await serveRelease(mirror, 4, old);
    const store = new Store(); // what the client before v2 pinned on first use: every listed key
    store.setItem("kartothek:keys", JSON.stringify({ [old.id]: old.b64, [next.id]: next.b64 }));
    const client = new Client(mirror.url, { store });
    await assert.rejects(client.update("sauschwer", "de"), /the last release it signed of this pack is 3/);
    assert.deepEqual(Object.keys(client.retiredKeys()), [old.id]);
    assert.equal(client.requests.filter((path) => path === "/api/keys").length, 1);
  });
});

test("a client meeting the real server after its rotation pins the current key only", async () => {
  const [old, current] = (await json("/api/keys")).keys; // tests/test_client_js.py rotated once
  assert.equal(old.last_releases["sauschwer/de"], 2);
  const store = new Store();
  const client = new Client(BASE, { store });
  assert.deepEqual(await client.trustedKeys(), { [current.id]: current.public_key });
  assert.equal(client.retiredKeys()[old.id].successor, current.id);
  assert.equal((await client.release("sauschwer", "de", 2)).keyId, old.id); // its own releases stand
  assert.equal((await client.release("slogan", "de", 1)).keyId, current.id);
});
