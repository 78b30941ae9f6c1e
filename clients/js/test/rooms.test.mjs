// Rooms through the client against the real server: open, join, start, moves, and the room's
// event stream to the end of a game; `event: closed` ends a removed seat's stream.
import assert from "node:assert/strict";
import { test } from "node:test";

import { EventSource } from "eventsource";

import { Client, KartothekError } from "../dist/index.js";
import { BASE } from "./helpers.mjs";
import { playToTheEnd } from "./play.mjs";

const client = new Client(BASE, { EventSource });

async function twoSeats() {
  const host = await client.openRoom({ game: "sauschwer", language: "en", name: "Ada" });
  const guest = await client.join(host.code, "Bo");
  return [host, guest];
}

async function collect(stream, until) {
  const seen = [];
  for await (const room of stream) {
    seen.push(room);
    if (until(room)) break;
  }
  return seen;
}

test("the table's stream follows a game to its end, each version once and in order", async () => {
  const [host, guest] = await twoSeats();
  const stream = client.follow(host.code);
  const following = collect(stream, (room) => room.status === "finished");
  await client.start(host, { rounds: 1 });
  const last = await playToTheEnd(client, [host, guest]);
  const seen = await following;
  assert.equal(seen.at(-1).status, "finished");
  assert.equal(seen.at(-1).version, last.version);
  assert.equal(seen.at(-1).you, null);
  const versions = seen.map((room) => room.version);
  assert.deepEqual(versions, [...versions].sort((a, b) => a - b));
  assert.equal(new Set(versions).size, versions.length);
});

test("a seat's stream, opened by ticket, shows that seat's view to the end of the game", async () => {
  const [host, guest] = await twoSeats();
  const stream = client.follow(guest);
  const following = collect(stream, (room) => room.status === "finished");
  await client.start(host, { rounds: 1 });
  await playToTheEnd(client, [host, guest]);
  const seen = await following;
  assert.ok(seen.every((room) => room.you === guest.seat));
  assert.equal(seen.at(-1).status, "finished");
  assert.equal(stream.closed, null);
});

test("a removed seat's stream ends with event: closed", async () => {
  const [host, guest] = await twoSeats();
  const stream = client.follow(guest);
  const first = await stream.next();
  assert.equal(first.value.you, guest.seat);
  await client.removeSeat(host, guest.seat);
  assert.deepEqual(await collect(stream, () => false), []);
  assert.ok(stream.closed !== null && stream.closed.status >= 400, JSON.stringify(stream.closed));
  await assert.rejects(client.room(guest), (e) => e instanceof KartothekError && e.status === 403);
});

test("a seat's token that proves nothing gets no stream, and says why", async () => {
  const [host] = await twoSeats();
  const stream = client.follow({ ...host, token: "not-a-token" });
  await assert.rejects(stream.next(), (e) => e instanceof KartothekError && e.status === 403);
});
