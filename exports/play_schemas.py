"""The play API's game models as OpenAPI components: each game's seat view, table view, log
events and actions, as ``engine.view`` and ``engine.legal_actions`` give them (see
docs/engines.md). ``exports.openapi_bundle`` writes them into exports/schema/openapi.json, so a
generated client (openapi-typescript, openapi-python-client) types a room's ``view`` and the
actions it sends; tests/test_play_schemas.py plays bot games of every game and holds every
view and action to them, so they cannot drift from the engines.

A seat view and the table view of a game share their fields; a seat's ``you`` is its seat id
(the table's is null or absent) and a seat may see fields the table never does (its hand, a
secret slot, the options of a question it asks)."""

from __future__ import annotations

from typing import Any

Schema = dict[str, Any]


def ref(name: str) -> Schema:
    return {"$ref": f"#/components/schemas/{name}"}


def nullable(name: str) -> Schema:
    return {"oneOf": [ref(name), {"type": "null"}]}


def closed(properties: Schema, required: list[str] | None = None, **extra: Any) -> Schema:
    """An object with exactly these properties (``required``: all of them unless given)."""
    return {"type": "object", "required": list(properties) if required is None else required,
            "properties": properties, "additionalProperties": False, **extra}


def action(kind: str, **fields: Schema) -> Schema:
    return closed({"type": {"const": kind}, **fields})


INT = {"type": "integer"}
COUNT = {"type": "integer", "minimum": 0}
BOOL = {"type": "boolean"}
TEXT = {"type": "string"}
PLAYERS = {"type": "array", "items": ref("PlayerId")}
CARDS = {"type": "array", "items": ref("CardId")}


def per_player(value: Schema) -> Schema:
    return {"type": "object", "additionalProperties": value,
            "description": "By seat id (p1, p2…): one entry per player."}


PLAYER = ref("PlayerId")
CARD = ref("CardId")
NULLABLE_PLAYER = nullable("PlayerId")


def log_of(game: str, events: dict[str, Schema], optional: dict[str, tuple[str, ...]] | None = None
           ) -> Schema:
    """The events of a game's log, one closed object per ``type`` (``optional``: fields an
    event of that type does not always have)."""
    optional = optional or {}
    return {"oneOf": [closed({"type": {"const": kind}, **fields},
                             ["type", *(n for n in fields if n not in optional.get(kind, ()))])
                      for kind, fields in events.items()],
            "description": f"An event of the {game} game's log, by its `type`. A view carries the "
                           "last 50 events."}


def views(game: str, common: Schema, *, seat_only: Schema, seat_you: Schema,
          table_you: Schema | None, table_overrides: Schema | None = None,
          optional: tuple[str, ...] = ()) -> dict[str, Schema]:
    """The seat view and the table view of a game (``optional``: fields not always there)."""
    title = game.capitalize()
    base = {"game": {"const": game}, **common, "log": {"type": "array",
                                                        "items": ref(f"{title}LogEvent")}}
    seat = {**base, "you": seat_you, **seat_only}
    table = {**base, **(table_overrides or {})}
    if table_you is not None:
        table["you"] = table_you
    return {
        f"{title}SeatView": closed(seat, [n for n in seat if n not in optional],
                                   description=f"What a seat of {title} sees."),
        f"{title}TableView": closed(table, [n for n in table if n not in optional],
                                    description=f"What the table (a shared screen) sees of {title}."),
    }


def symbols() -> dict[str, Schema]:
    slot = {"type": "integer", "minimum": 1, "maximum": 8}
    common = {
        "players": PLAYERS, "scores": ref("Scores"), "goal": INT,
        "phase": {"enum": ["hint", "decide", "over"]}, "round": INT,
        "candidate": ref("PlayerId"), "hint_giver": nullable("PlayerId"),
        "last_hint_giver": nullable("PlayerId"),
        "board": {"type": "array", "items": closed({"slot": slot, "concept": nullable("CardId")})},
        "symbols": {"type": "array", "items": TEXT, "description": "The symbols on the board (keys)."},
        "markers": {"type": "array", "items": closed({
            "player": ref("PlayerId"), "symbol": TEXT, "marker": {"enum": ["green", "grey"]}})},
        "markers_left": COUNT, "grey_markers": BOOL, "grey_markers_left": COUNT,
        "concepts_left": COUNT, "out": COUNT, "discarded": CARDS, "result": nullable("GameResult"),
    }
    return {
        **views("symbols", common, seat_you=ref("PlayerId"), table_you={"type": "null"},
                seat_only={"secret": {**slot, "description": "The secret slot: hint givers only."}},
                optional=("secret",)),
        "SymbolsLogEvent": log_of("symbols", {
            "round_started": {"round": INT, "candidate": PLAYER},
            "hint": {"player": PLAYER, "symbol": TEXT, "marker": {"enum": ["green", "grey"]}},
            "removed": {"player": PLAYER, "slot": slot, "card": CARD},
            "guessed": {"player": PLAYER, "slot": slot, "card": CARD},
            "replaced": {"player": PLAYER, "slot": slot, "card": CARD, "new": nullable("CardId")},
            "scored": {"points": ref("Scores")},
            "round_ended": {"round": INT, "outcome": {"enum": [
                "right_solution", "wrong_solution", "solution_removed", "last_card"]},
                "secret": slot, "solution": CARD, "points": ref("Scores")},
            "game_ended": {"reason": {"enum": ["goal", "concepts_exhausted"]}}}),
        "SymbolsAction": {"oneOf": [
            action("hint", symbol=TEXT, marker={"enum": ["green", "grey"]}),
            action("remove", slot=slot), action("guess", slot=slot), action("replace", slot=slot)]},
    }


def sign() -> dict[str, Schema]:
    nullable_count = {"type": ["integer", "null"], "minimum": 1}
    common = {
        "phase": {"enum": ["checking", "swapping", "over"]}, "round": INT, "players": PLAYERS,
        "teams": {"type": "array", "items": PLAYERS}, "team_scores": {"type": "array", "items": INT},
        "scores": ref("Scores"),
        "target_points": {**nullable_count, "description": "Null when the game runs for `rounds`."},
        "rounds": {**nullable_count, "description": "Null when the game runs to `target_points`."},
        "dealer": ref("PlayerId"),
        "table": {**CARDS, "description": "Face-up table cards (empty while `checking`)."},
        "table_face_down": COUNT, "deck_count": COUNT, "bottom_card": nullable("CardId"),
        "discard_count": COUNT, "hand_counts": per_player(COUNT), "done": PLAYERS, "ready": PLAYERS,
        "signals": {**PLAYERS, "description": "Your team-mates showing your team's sign."},
        "faces": {"type": "object", "description": "The symbol and colour of every card you see.",
                  "additionalProperties": closed({"symbol": TEXT, "colour": TEXT})},
    }
    return {
        **views("sign", common, seat_you=ref("PlayerId"), table_you=None,
                seat_only={"hand": CARDS, "team": {**COUNT, "description": "Index into `teams`."}},
                table_overrides={"signals": {**PLAYERS, "maxItems": 0}}),
        "SignLogEvent": log_of("sign", {
            "deal": {"round": INT, "dealer": PLAYER, "table_count": COUNT,
                     "bottom_card": nullable("CardId")},
            "ready": {"round": INT, "player": PLAYER},
            "table_opened": {"round": INT, "table": CARDS},
            "signal": {"round": INT, "player": PLAYER, "team": COUNT},
            "take": {"round": INT, "player": PLAYER, "card": CARD},
            "drop": {"round": INT, "player": PLAYER, "card": CARD},
            "done": {"round": INT, "player": PLAYER},
            "refresh": {"round": INT, "table": CARDS, "deck_ran_out": BOOL},
            "sign": {"round": INT, "caller": PLAYER, "target": PLAYER, "hand": CARDS, "valid": BOOL,
                     "scoring_teams": {"type": "array", "items": COUNT}},
            "round_end": {"round": INT, "outcome": {"enum": ["valid", "invalid", "draw"]},
                          "team_scores": {"type": "array", "items": INT}},
            "game_end": {"round": INT, "winners": PLAYERS}},
            # which card another player took or dropped is theirs to remember
            optional={"take": ("card",), "drop": ("card",)}),
        "SignAction": {"oneOf": [
            action("ready"), action("take", card=ref("CardId")), action("drop", card=ref("CardId")),
            action("done"), action("signal"), action("sign", target=ref("PlayerId"))]},
    }


def _duel(slogan_item: Schema, *, readers_see: bool) -> Schema:
    """A duel as a seat (``readers_see``: the card and the slogans' keys to its readers) or
    the table sees it."""
    number = slogan_item["properties"]["slogan"]
    duel = {
        "challenger": ref("PlayerId"), "challenged": ref("PlayerId"), "readers": PLAYERS,
        "answers": {"type": "array", "items": closed(
            {"player": ref("PlayerId"), "slogan": number, "correct": BOOL})},
        "next": closed({"player": ref("PlayerId"), "slogan": number}),
        "slogans": {"type": "array", "items": slogan_item},
    }
    if readers_see:
        duel["card"] = {**ref("CardId"), "description": "Readers only."}
    return closed(duel, [n for n in duel if n != "card"],
                  description="While `duel`: every slogan's options and answer to the readers, "
                              "to the others a slogan's once it is judged.")


OPTIONS = {"type": "array", "items": TEXT, "minItems": 4, "maxItems": 4}
ANSWER = {"type": "integer", "minimum": 0, "maximum": 3}
NUMBER = {"type": "integer", "minimum": 0, "maximum": 1, "description": "Which slogan of the card."}
STAKE = {"type": "integer", "minimum": 1, "maximum": 3}


def _slogan_log() -> Schema:
    space = ref("Space")
    return log_of("slogan", {
        "turn": {"turn": INT, "questioner": PLAYER, "questioned": PLAYER},
        "challenge": {"turn": INT, "challenger": PLAYER, "challenged": PLAYER, "readers": PLAYERS,
                      "new_card": BOOL},
        "ask": {"turn": INT, "questioner": PLAYER, "questioned": PLAYER, "slogan": NUMBER,
                "text": TEXT, "stake": STAKE},
        "judge": {"turn": INT, "correct": BOOL, "winner": PLAYER, "stake": STAKE},
        "tip": {"turn": INT, "player": PLAYER, "option": ANSWER, "correct": BOOL},
        "pass": {"turn": INT, "player": PLAYER},
        "alfons": {"turn": INT, "player": PLAYER, "card": CARD, "text": TEXT,
                   "effect": ref("AlfonsEffect"), "void": BOOL},
        "solution": {"turn": INT, "card": CARD, "slogan": NUMBER, "key": CARD, "text": TEXT,
                     "options": OPTIONS, "answer": ANSWER},
        "duel_answer": {"turn": INT, "player": PLAYER, "slogan": NUMBER, "correct": BOOL},
        "duel_end": {"turn": INT, "card": CARD, "chips": ref("Scores"), "winner": NULLABLE_PLAYER},
        "move": {"turn": INT, "player": PLAYER, "start": space, "end": space,
                 "cause": {"enum": ["stake", "tip", "alfons"]}},
        "career_prize": {"turn": INT, "player": PLAYER, "level": INT, "chips": COUNT},
        "swap": {"turn": INT, "player": PLAYER, "partner": PLAYER, "start": space, "end": space},
        "chips": {"turn": INT, "payer": NULLABLE_PLAYER, "payee": NULLABLE_PLAYER, "amount": COUNT},
        "game_end": {"reason": {"enum": ["goal", "cards_exhausted"]}, "scores": ref("Scores"),
                     "winners": PLAYERS}})


def slogan() -> dict[str, Schema]:
    options, answer, number = OPTIONS, ANSWER, NUMBER
    question = {"slogan": number, "text": TEXT, "stake": STAKE}
    judged = {"slogan": number, "text": TEXT, "options": options, "answer": answer}
    common = {
        "phase": {"enum": ["question", "judge", "second_chance", "duel", "over"]}, "turn": INT,
        "players": PLAYERS, "scores": {**ref("Scores"), "description": "Chips."},
        "positions": per_player(ref("Space")),
        "levels": per_player({"type": "integer", "minimum": 0, "maximum": 7}),
        "questioner": ref("PlayerId"), "questioned": ref("PlayerId"), "pile_count": COUNT,
        "desk_counts": per_player(COUNT), "alfons_discard": CARDS,
        "question": closed({**question, "card": ref("CardId"), "key": ref("CardId"),
                            "options": options, "answer": answer}, list(question),
                           description="While `judge` and `second_chance`: the questioner sees "
                                       "the card, the options and the answer; the questioned "
                                       "the options in `second_chance`."),
        "duel": _duel(closed({**judged, "key": ref("CardId")}, ["slogan", "text"]), readers_see=True),
    }
    card = closed({"key": ref("CardId"), "slogans": {"type": "array", "items": closed(
        {"key": ref("CardId"), "text": TEXT, "options": options, "answer": answer})}},
        description="The questioner's card before the question (phase `question`).")
    table = {"question": closed(question, description="While `judge` and `second_chance`."),
             "duel": _duel(closed(judged, ["slogan", "text"]), readers_see=False)}
    return {
        **views("slogan", common, seat_you=ref("PlayerId"), table_you=None,
                seat_only={"card": card}, optional=("question", "duel", "card"), table_overrides=table),
        "SloganLogEvent": _slogan_log(),
        "SloganAction": {"oneOf": [
            action("challenge", target=ref("PlayerId")),
            action("ask", slogan=number, stake=STAKE),
            action("judge", correct=BOOL),
            action("judge", player=ref("PlayerId"), slogan=number, correct=BOOL),
            action("alfons"), action("tip", option=answer), action("pass")]},
    }


def sauschwer() -> dict[str, Schema]:
    common = {
        "players": PLAYERS, "scores": ref("Scores"), "phase": {"enum": ["place", "markers", "over"]},
        "round": INT, "rounds": INT, "target_points": INT, "max_cards": INT,
        "hands": per_player({"type": "array", "items": closed({"card": ref("CardId"), "name": TEXT})}),
        "scale": {"type": "array", "items": closed(
            {"card": ref("CardId"), "name": TEXT, "side": ref("Side")})},
        "helmut": ref("Side"), "active": nullable("PlayerId"), "last_placer": nullable("PlayerId"),
        "doubter": nullable("PlayerId"), "markers_in": PLAYERS, "pile": COUNT,
        "result": nullable("GameResult"),
    }
    return {
        **views("sauschwer", common, seat_you=ref("PlayerId"), table_you={"type": "null"},
                seat_only={"your_marker": {**ref("Side"), "description": "Once you set it."}},
                optional=("your_marker",)),
        "SauschwerLogEvent": log_of("sauschwer", {
            "dealt": {"hands": ref("SauschwerDeal")},
            "round_started": {"round": INT, "card": CARD, "side": ref("Side"), "player": PLAYER},
            "placed": {"player": PLAYER, "card": CARD, "side": ref("Side"), "helmut": ref("Side")},
            "stopped": {"player": PLAYER},
            "reveal_called": {
                "reason": {"enum": ["stop", "full", "no_cards"],
                           "description": "stop: a player doubted; full: the scale holds max_cards; "
                                          "no_cards: nobody has a card left to place."},
                "doubter": NULLABLE_PLAYER},
            "marker_in": {"player": PLAYER},
            "revealed": {
                "round": INT,
                "weights": ref("SauschwerWeights"),
                "totals": ref("SauschwerTotals"),
                "heavier": {"oneOf": [ref("Side"), {"type": "null"}], "description": "Null: equal."},
                "helmut": ref("Side"), "markers": ref("SauschwerMarkers"), "last_placer": PLAYER,
                "doubter": NULLABLE_PLAYER, "points": ref("Scores")},
            "game_ended": {"reason": {"enum": ["rounds", "target_points", "cards_exhausted"]}}}),
        # named, not inline: openapi-python-client 0.29 makes an inline map inside a union
        # member twice and drops it
        "SauschwerDeal": {**per_player(CARDS), "description": "Each player's three cards."},
        "SauschwerTotals": closed({"red": INT, "violet": INT}, description="Grams on each side."),
        "SauschwerMarkers": {**per_player(ref("Side")), "description": "Every player's marker."},
        "SauschwerWeights": {"type": "object", "additionalProperties": {"type": "integer"},
                             "description": "Grams, by the ids of the cards on the scale."},
        "SauschwerAction": {"oneOf": [
            action("place", card=ref("CardId"), helmut=ref("Side")), action("stop"),
            action("marker", side=ref("Side"))]},
    }


GAMES = ("Symbols", "Sign", "Slogan", "Sauschwer")


def components() -> dict[str, Schema]:
    """{component name: schema} of every game's model and the pieces they share."""
    shared = {
        "PlayerId": {"type": "string", "description": "A seat id (p1, p2…), as in `seats`.",
                     "examples": ["p1"]},
        "CardId": {"type": "string", "pattern": "^[a-z0-9]+(-[a-z0-9]+)*$",
                   "description": "A card of this room: its room id (`c` and 12 hex digits, "
                                  "docs/engines.md: Card ids), never its pack key.",
                   "examples": ["c3f9a0b1c2d4e"]},
        "Scores": per_player(INT),
        "GameResult": closed({"scores": ref("Scores"), "winners": PLAYERS}),
        "Side": {"enum": ["red", "violet"]},
        "Space": {"type": "integer", "minimum": 0, "maximum": 37,
                  "description": "Slogan's track: 0 the start, 1-36 six levels of six, 37 the goal."},
        "AlfonsEffect": closed({"kind": {"enum": ["move", "chips", "pay_each", "collect_each", "swap",
                                                   "overtake", "to_start", "to_level"]},
                                "amount": INT, "target": {"enum": ["leader", "last", "next"]}},
                               ["kind"], description="A Spießer Alfons card's effect, as in the pack."),
        "GameView": {"oneOf": [ref(f"{g}{kind}View") for g in GAMES for kind in ("Seat", "Table")],
                     "description": "A room's `view`: the seat's view of its game, or the table's."},
        "TableView": {"oneOf": [ref(f"{g}TableView") for g in GAMES]},
        "Action": {"oneOf": [ref(f"{g}Action") for g in GAMES],
                   "description": "An action of the room's game, as listed in `legal_actions` "
                                  "(docs/engines.md)."},
    }
    return {**shared, **symbols(), **sign(), **slogan(), **sauschwer()}
