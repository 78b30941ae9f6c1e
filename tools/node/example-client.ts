// What a TypeScript client of the play API does with the types openapi-typescript (default
// flags) makes of /api/openapi.json: tests/test_node_tools.py generates ./kartothek-api.ts
// beside a copy of this file and compiles both with `tsc --strict`.
import type { components, paths } from "./kartothek-api";

type Schemas = components["schemas"];
type Room = paths["/api/play/rooms/{code}"]["get"]["responses"][200]["content"]["application/json"];
type Created = paths["/api/play/rooms"]["post"]["responses"][201]["content"]["application/json"];
type Joined = paths["/api/play/rooms/{code}/seats"]["post"]["responses"][201]["content"]["application/json"];

// --- request bodies with only the required fields ---
export const rooms: Schemas["NewRoom"][] = [
  { game: "symbols", language: "de", name: "Ada" },
  { game: "sign", language: "en", name: "Ada" },
  { game: "slogan", language: "en", name: "Ada", market: "GB" },
  { game: "sauschwer", language: "en", name: "Ada", options: { rounds: 4 } },
];
export const join: Schemas["Join"] = { name: "Bo" };
export const start: Schemas["Start"] = {};
export const away: Schemas["Away"] = {};

export function actionRequest(room: Room, action: Schemas["Action"]): Schemas["ActionRequest"] {
  return { id: `a${room.version}`, version: room.version, action };
}

export const actions: Schemas["Action"][] = [
  { type: "hint", symbol: "sonne", marker: "green" },
  { type: "guess", slot: 4 },
  { type: "ready" },
  { type: "take", card: "c0123456789ab" },
  { type: "sign", target: "p2" },
  { type: "ask", slogan: 0, stake: 2 },
  { type: "judge", correct: true },
  { type: "tip", option: 3 },
  { type: "place", card: "c0123456789ab", helmut: "violet" },
  { type: "marker", side: "red" },
];

// --- calls ---
async function post<T>(url: string, body: unknown, token?: string): Promise<T> {
  const headers: Record<string, string> = { "Content-Type": "application/json" };
  if (token) headers.Authorization = `Bearer ${token}`;
  const answer = await fetch(url, { method: "POST", headers, body: JSON.stringify(body) });
  if (!answer.ok) {
    const problem = (await answer.json()) as Schemas["Error"];
    throw new Error(`${answer.status}: ${problem.error}`);
  }
  return (await answer.json()) as T;
}

export async function openAndJoin(base: string): Promise<[Created, Joined]> {
  const created = await post<Created>(`${base}/api/play/rooms`, rooms[3]);
  const joined = await post<Joined>(`${base}/api/play/rooms/${created.code}/seats`, join);
  return [created, joined];
}

export async function poll(base: string, code: string, token: string): Promise<Room> {
  const answer = await fetch(`${base}/api/play/rooms/${code}`, {
    headers: { Authorization: `Bearer ${token}` },
  });
  return (await answer.json()) as Room;
}

// --- reading a seat's view, game by game ---
export function describe(room: Room): string {
  const view = room.view;
  if (view === null) return `lobby: ${room.seats.map((seat) => seat.name).join(", ")}`;
  switch (view.game) {
    case "symbols": {
      const board = view.board.map((slot) => `${slot.slot}:${slot.concept ?? "-"}`).join(" ");
      const secret = view.you !== null && view.secret !== undefined ? ` secret ${view.secret}` : "";
      return `${view.phase} round ${view.round}, candidate ${view.candidate}: ${board}${secret}`;
    }
    case "sign": {
      if (!("hand" in view)) return `table: ${view.table.length} cards`;
      const colours = view.hand.map((card) => view.faces[card]?.colour ?? "?");
      return `team ${view.team} (${view.teams[view.team].join("+")}): ${colours.join(" ")}`;
    }
    case "slogan": {
      const asked = view.question ? `${view.question.text} for ${view.question.stake}` : "";
      const options = "you" in view && view.question?.options ? view.question.options.join("/") : "";
      return `${view.phase} turn ${view.turn} at ${view.positions[view.questioner]}: ${asked} ${options}`;
    }
    case "sauschwer": {
      const hand = view.you === null ? [] : view.hands[view.you].map((card) => card.name);
      const marker = view.you !== null ? view.your_marker ?? "none" : "table";
      const scale = view.scale.map((card) => `${card.name} (${card.side})`).join(", ");
      return `Helmut ${view.helmut}; scale ${scale}; hand ${hand.join(", ")}; marker ${marker}`;
    }
  }
}

// --- the log: events by their type ---
export function lastWeighing(view: Schemas["SauschwerSeatView"] | Schemas["SauschwerTableView"]): string {
  for (const event of [...view.log].reverse()) {
    if (event.type === "revealed") {
      const grams = Object.entries(event.weights).map(([card, weight]) => `${card} ${weight} g`);
      return `${event.heavier ?? "neither side"} heavier (${grams.join(", ")}); points ${JSON.stringify(event.points)}`;
    }
  }
  return "not weighed yet";
}

export function swaps(view: Schemas["SignSeatView"]): string[] {
  return view.log.flatMap((event) =>
    event.type === "take" || event.type === "drop" ? [`${event.player} ${event.type} ${event.card ?? "a card"}`] : []);
}

export function firstPlacement(room: Room): Schemas["ActionRequest"] | null {
  const place = room.legal_actions.find((action) => action.type === "place");
  return place ? actionRequest(room, place) : null;
}

export function winners(room: Room): string[] {
  return room.result ? room.result.winners : [];
}

export function replayed(replay: Schemas["Replay"]): string[] {
  return replay.steps.map((step) => `${step.seat ?? "deal"}: ${step.action?.type ?? ""} ${step.view.game}`);
}
