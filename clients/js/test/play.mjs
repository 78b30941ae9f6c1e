// Plays a room's game to its end through the client (browser-safe: the Chromium page imports it
// too): whichever seat may act plays "stop" when it can, else its first legal action. With
// Sauschwer's `rounds: 1` that is one card, a stop and the markers.
export async function playToTheEnd(client, seats) {
  for (let moves = 0; moves < 100; moves++) {
    const rooms = await Promise.all(seats.map((seat) => client.room(seat)));
    if (rooms[0].status === "finished") return rooms[0];
    const mover = rooms.findIndex((room) => room.legal_actions.length > 0);
    if (mover < 0) throw new Error("Nobody may act, yet the game goes on.");
    const { legal_actions: legal, version } = rooms[mover];
    await client.act(seats[mover], legal.find((a) => a.type === "stop") ?? legal[0], version);
  }
  throw new Error("The game did not end in 100 moves.");
}
