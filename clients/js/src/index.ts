/** Kartothek's client for browsers and Node (ESM, platform APIs only). */

export { Client, MemoryStore, Pack, type ClientOptions, type PackIndex, type PackStore, type ReleaseEntry } from "./client.js";
export { DeltaError, KartothekError, VerificationError } from "./errors.js";
export { applyDelta, canonical, DELTA_FORMAT, editionOf } from "./delta.js";
export { endorsedChain, endorsedKeys, endorsementStatement, firstUse, keyIdOf, type Keys, type Retired, type Retirement, verifySignature } from "./keys.js";
export { RoomStream, type Closed, type EventSourceConstructor, type EventSourceLike, type RoomBody, type RoomOptions, type Seat } from "./play.js";
export { type KeyLookup, type Listed, Timestamp, TIMESTAMP_TYPE, TimestampError, verifyTimestamp } from "./timestamp.js";
export type { Json, JsonObject } from "./bytes.js";
