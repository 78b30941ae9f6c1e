// Hostile answers from a fake server: malformed JSON, wrong shapes, bad signatures, broken
// deltas, garbage events. Every one is the client's own error, never a TypeError or a crash.
import assert from "node:assert/strict";
import { test } from "node:test";

import { EventSource } from "eventsource";

import { Client, KartothekError, VerificationError } from "../dist/index.js";
import { SAUSCHWER, clientAtRelease1, get, newKey, sha256, signedRelease, signedTimestamp, withMirror } from "./helpers.mjs";

const JSON_TYPE = { "content-type": "application/json" };

async function refused(run, check = (e) => e instanceof KartothekError) {
  await assert.rejects(run, (error) => {
    assert.ok(check(error), `${error?.name}: ${error?.message}`);
    return true;
  });
}

test("a malformed pack index is a KartothekError", async () => {
  for (const body of ["not json", "[]", "null", '{"games": 5}', '{"games": [{"game": 1}]}',
                      '{"games": [{"game": "a", "languages": [{"language": "de", "releases": [{}]}]}]}',
                      Buffer.from([0xff, 0xfe, 0x7b])]) {
    await withMirror(async (mirror) => {
      mirror.forge("/api/packs", 200, JSON_TYPE, body);
      await refused(new Client(mirror.url).packs());
    });
  }
  await withMirror(async (mirror) => {
    mirror.forge("/api/packs", 502, { "content-type": "text/html" }, "<h1>Bad gateway</h1>");
    await refused(new Client(mirror.url).packs(), (e) => e instanceof KartothekError && e.status === 502);
  });
});

test("a malformed key list, signature or release is refused", async () => {
  // release 2: the newest, which the server's signed timestamp names
  const two = await get(`${SAUSCHWER}/2.json`);
  const key = await newKey();
  const cases = [
    { "/api/keys": [200, JSON_TYPE, "{"] },
    { "/api/keys": [200, JSON_TYPE, '{"keys": "all of them"}'] },
    { "/api/keys": [200, JSON_TYPE, '{"keys": [{"id": 1}, null, {"id": "x", "public_key": "??"}]}'] },
    { [`${SAUSCHWER}/2.json`]: [200, { etag: `"${sha256(two.body)}"`, "x-kartothek-signature": "rubbish" }, two.body],
      [`${SAUSCHWER}/2.json.sig`]: [200, JSON_TYPE, '"nope"'] },
    { [`${SAUSCHWER}/2.json`]: [200, { etag: `"${sha256(two.body)}"` }, two.body],
      [`${SAUSCHWER}/2.json.sig`]: [200, JSON_TYPE, '{"key_id": 5, "signature": "AA=="}'] },
    { [`${SAUSCHWER}/2.json`]: [200, { etag: '"0000"' }, two.body] },
    { [`${SAUSCHWER}/2.json`]: [200, { etag: `"${sha256(two.body)}"` }, two.body],
      [`${SAUSCHWER}/2.json.sig`]: [404, JSON_TYPE, '{"error": "not signed"}'] },
  ];
  for (const forged of cases) {
    await withMirror(async (mirror) => {
      mirror.forge(`${SAUSCHWER}/latest`, 302, { location: `${SAUSCHWER}/2.json` });
      for (const [path, [status, headers, body]] of Object.entries(forged)) mirror.forge(path, status, headers, body);
      await refused(new Client(mirror.url).update("sauschwer", "de"));
    });
  }
  // signed by a trusted key, but not a pack, or a pack that is not this one
  for (const bytes of ["{", "[1, 2]", '{"game": "sauschwer", "language": "de", "content_version": true}',
                       Buffer.from([0xc3, 0x28])]) {
    await withMirror(async (mirror) => {
      mirror.forge(`${SAUSCHWER}/latest`, 302, { location: `${SAUSCHWER}/1.json` });
      mirror.forged.set(`${SAUSCHWER}/1.json`, await signedRelease(Buffer.from(bytes), key));
      mirror.forged.set("/api/timestamp", await signedTimestamp(key, [
        { game: "sauschwer", language: "de", version: 1, sha256: sha256(Buffer.from(bytes)) }]));
      const client = new Client(mirror.url, { publicKeys: { [key.id]: key.b64 } });
      await refused(client.update("sauschwer", "de"), (e) => e instanceof VerificationError);
    });
  }
  for (const location of [`${SAUSCHWER}/99999999999999999999.json`, "/elsewhere", `${SAUSCHWER}/latest`]) {
    await withMirror(async (mirror) => {
      mirror.forge(`${SAUSCHWER}/latest`, 302, { location });
      mirror.forge("/elsewhere", 200, JSON_TYPE, "{}");
      await refused(new Client(mirror.url).update("sauschwer", "de"));
    });
  }
});

test("a broken delta is refused and release 1 is kept", async () => {
  const store = await clientAtRelease1();
  const from = sha256((await get(`${SAUSCHWER}/1.json`)).body);
  const head = { format: "kartothek-pack-delta", game: "sauschwer", language: "de",
                 from_version: 1, to_version: 2, from_sha256: from, to_sha256: "0".repeat(64) };
  const bodies = [
    "not json", "[]", "5", JSON.stringify({ ...head, format: "other" }),
    JSON.stringify({ ...head, from_sha256: "f".repeat(64) }),
    JSON.stringify({ ...head, lists: "x" }), JSON.stringify({ ...head, lists: { cards: 5 } }),
    JSON.stringify({ ...head, lists: { cards: { removed: [{}] } } }),
    JSON.stringify({ ...head, lists: { cards: { removed: ["nothing-such"] } } }),
    JSON.stringify({ ...head, lists: { cards: { changed: [5] } } }),
    JSON.stringify({ ...head, lists: { cards: { added: [{ index: "a", item: { key: "k" } }] } } }),
    JSON.stringify({ ...head, lists: { cards: { added: [{ index: 0, item: null }] } } }),
    JSON.stringify({ ...head, lists: { cards: { order: ["nowhere"] } } }),
    JSON.stringify({ ...head, lists: { objects: { order: [{}] } } }),
    JSON.stringify({ ...head, set: { body: 5 } }), JSON.stringify({ ...head, body_set: [] }),
    JSON.stringify({ ...head, unset: ["body"] }), JSON.stringify({ ...head, set: { __proto__: { x: 1 } } }),
    JSON.stringify(head), // applies, but not to the bytes it names
  ];
  for (const body of bodies) {
    await withMirror(async (mirror) => {
      mirror.forge(`${SAUSCHWER}/latest?since=1`, 302, { location: `${SAUSCHWER}/2.json?since=1` });
      mirror.forge(`${SAUSCHWER}/2.json?since=1`, 200, JSON_TYPE, body);
      const client = new Client(mirror.url, { store });
      await refused(client.update("sauschwer", "de"));
      assert.equal((await client.cached("sauschwer", "de")).version, 1);
    });
  }
});

test("malformed room answers and garbage events are KartothekErrors", async () => {
  const seat = { code: "ABCD", seat: "s1", token: "t" };
  await withMirror(async (mirror) => {
    const client = new Client(mirror.url, { EventSource });
    mirror.forge("/api/play/rooms", 201, JSON_TYPE, '{"code": "../../x", "seat": "s1", "token": "t"}');
    await refused(client.openRoom({ game: "sauschwer", language: "en" }));
    mirror.forge("/api/play/rooms/ABCD", 200, JSON_TYPE, '{"code": 5}');
    await refused(client.room(seat));
    mirror.forge("/api/play/rooms/ABCD/actions", 200, JSON_TYPE, "[]");
    await refused(client.act(seat, { type: "stop" }, 3));
    mirror.forge("/api/play/rooms/ABCD/start", 200, JSON_TYPE, '{"version": "3"}');
    await refused(client.start(seat));
    mirror.forge("/api/play/rooms/ABCD/stream-tickets", 201, JSON_TYPE,
                 '{"ticket": "x", "events_url": "https://evil.example/events"}');
    await refused(client.follow(seat).next());
    const events = { "content-type": "text/event-stream", "cache-control": "no-cache" };
    for (const stream of ["event: room\ndata: nonsense\n\n", 'event: room\ndata: {"version": 1}\n\n',
                          "event: closed\ndata: []\n\n"]) {
      mirror.forge("/api/play/rooms/ABCD/events?as=table", 200, events, stream);
      await refused(client.follow("ABCD").next());
    }
    await refused(Promise.resolve().then(() => client.follow("../etc")));
    // Node has no EventSource: without one passed in, following says so
    await refused(Promise.resolve().then(() => new Client(mirror.url).follow("ABCD")),
                  (e) => e instanceof KartothekError && /No EventSource/.test(e.message));
  });
});

test("a dropped seat stream reopens with a fresh ticket after the last version it saw", async () => {
  const seat = { code: "ABCD", seat: "s1", token: "t" };
  const room = (version, status) => JSON.stringify({ code: "ABCD", version, status, seats: [],
                                                      legal_actions: [], you: "s1" });
  const events = { "content-type": "text/event-stream", "cache-control": "no-cache" };
  await withMirror(async (mirror) => {
    mirror.forge("/api/play/rooms/ABCD/stream-tickets", 201, JSON_TYPE,
                 '{"ticket": "t1", "expires_in": 30, "events_url": "/api/play/rooms/ABCD/events?ticket=t1"}');
    // the first connection sends versions 4 and 5, then drops; versions go up from 5 on
    mirror.forge("/api/play/rooms/ABCD/events?ticket=t1", 200, events,
                 `id: 4\nevent: room\ndata: ${room(4, "playing")}\n\nid: 5\nevent: room\ndata: ${room(5, "playing")}\n\n`);
    mirror.forge("/api/play/rooms/ABCD/events?ticket=t1&last_event_id=5", 200, events,
                 `id: 3\nevent: room\ndata: ${room(3, "playing")}\n\n` +
                 `id: 6\nevent: room\ndata: ${room(6, "finished")}\n\n` +
                 'event: closed\ndata: {"error": "There is no room ABCD.", "status": 404}\n\n');
    const stream = new Client(mirror.url, { EventSource }).follow(seat);
    const seen = [];
    for await (const body of stream) seen.push(body.version);
    assert.deepEqual(seen, [4, 5, 6]); // 3 is older than what it saw: never shown
    assert.deepEqual(stream.closed, { error: "There is no room ABCD.", status: 404 });
  });
});
