"""Sign, scripted: the deal, swapping, refreshing, "Sign!" and the end of the game."""

import json

import pytest

from games.engines import IllegalAction
from games.engines import sign as engine
from tests.engines.packs import sign_pack

PACK = sign_pack(8, 8)  # 8 symbols × 8 colours = 64 cards
SMALL_PACK = sign_pack(6, 6)  # 36 cards: 4 players leave 11 in the deck
FOUR = ["ann", "ben", "cat", "dan"]
QUINTET = ["anker-rot", "anker-orange", "anker-gelb", "anker-gruen", "anker-blau"]


def _filler(pack, used):
    """Cards not in ``used``, colour by colour, so five in a row never make a quintet."""
    colours = [colour["key"] for colour in pack["body"]["colours"]]
    cards = sorted(pack["body"]["cards"], key=lambda c: (colours.index(c["colour"]), c["symbol"]))
    return [card["key"] for card in cards if card["key"] not in used]


def game(hands=None, table=None, deck=(), *, players=FOUR, pack=PACK, seed=0, **options):
    """A game whose first deal is stacked: the named hands and table, the rest filled in."""
    hands = hands or {}
    used = {card for hand in hands.values() for card in hand} | set(table or ()) | set(deck)
    filler = iter(_filler(pack, used))
    dealer = options.get("first_dealer", players[0])
    seat = players.index(dealer)
    stack = []
    for player in players[seat + 1 :] + players[: seat + 1]:
        stack += hands.get(player) or [next(filler) for _ in range(5)]
    stack += table if table is not None else [next(filler) for _ in range(engine.TABLE_CARDS[len(players)])]
    stack += list(deck)
    state = engine.setup(players, pack, seed=seed, options={**options, "stack": {"deck": stack}})
    return checked(state)


def checked(state):
    """Every player has checked their hand: the table is open."""
    for player in state["players"]:
        state = engine.apply(state, player, {"type": "ready"})
    return state


def play(state, *moves):
    for player, action in moves:
        state = engine.apply(state, player, action)
    return state


def events(state, kind):
    return [event for event in state["log"] if event["type"] == kind]


# --- the deal --------------------------------------------------------------------------------


def test_the_dealer_deals_five_cards_each_starting_with_the_left_neighbour():
    stack = _filler(PACK, set())[:25]
    state = engine.setup(FOUR, PACK, seed=1, options={"stack": {"deck": stack}})
    assert state["dealer"] == "ann"
    assert state["hands"]["ben"] == stack[0:5]
    assert state["hands"]["cat"] == stack[5:10]
    assert state["hands"]["dan"] == stack[10:15]
    assert state["hands"]["ann"] == stack[15:20]
    assert state["table"] == stack[20:25]
    assert len(state["deck"]) == 64 - 25


def test_the_first_dealer_option_moves_the_deal():
    state = game({"cat": QUINTET}, first_dealer="ben")
    assert state["dealer"] == "ben"
    assert state["log"][0]["dealer"] == "ben"
    assert state["hands"]["cat"] == QUINTET


@pytest.mark.parametrize(("players", "table_cards"), [(4, 5), (5, 6), (6, 6), (7, 7), (8, 7), (9, 8)])
def test_the_table_cards_follow_the_player_table(players, table_cards):
    ids = [f"p{n}" for n in range(players)]
    state = engine.setup(ids, PACK, seed=3)
    assert len(state["table"]) == table_cards
    assert all(len(hand) == 5 for hand in state["hands"].values())
    assert len(state["deck"]) == 64 - 5 * players - table_cards


def test_the_bottom_card_of_the_deck_is_shown_to_everybody():
    state = engine.setup(FOUR, PACK, seed=4)
    bottom = state["deck"][-1]
    for viewer in [*FOUR, None]:
        assert engine.view(state, viewer)["bottom_card"] == bottom


def test_the_table_is_open_at_once_and_there_are_no_turns():
    state = game()
    assert state["phase"] == "swapping"
    for player in FOUR:
        kinds = {action["type"] for action in engine.legal_actions(state, player)}
        assert kinds == {"take", "drop", "done", "signal", "sign"}


# --- teams -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("players", "sizes"),
    [(4, [2, 2]), (5, [3, 2]), (6, [3, 3]), (7, [4, 3]), (8, [4, 4]), (9, [3, 3, 3])],
)
def test_default_teams_follow_the_team_table_with_alternating_seats(players, sizes):
    ids = [f"p{n}" for n in range(players)]
    teams = engine.setup(ids, PACK, seed=0)["teams"]
    assert [len(team) for team in teams] == sizes
    count = len(teams)
    for seat, player in enumerate(ids):
        assert player in teams[seat % count]


@pytest.mark.parametrize("players", [4, 6, 8, 9])
def test_team_mates_do_not_sit_next_to_each_other_when_seats_allow(players):
    ids = [f"p{n}" for n in range(players)]
    state = engine.setup(ids, PACK, seed=0)
    for seat, player in enumerate(ids):
        neighbour = ids[(seat + 1) % players]
        assert engine.team_of(state, player) != engine.team_of(state, neighbour)


def test_the_teams_option_sets_three_teams_of_two():
    ids = [f"p{n}" for n in range(6)]
    teams = [["p0", "p3"], ["p1", "p4"], ["p2", "p5"]]
    state = engine.setup(ids, PACK, seed=0, options={"teams": teams})
    assert state["teams"] == teams
    assert state["team_scores"] == [0, 0, 0]


@pytest.mark.parametrize(
    "teams",
    [
        [["ann", "ben", "cat"], []],
        [["ann", "ben", "cat", "dan"]],
        [["ann", "ben"], ["cat"]],
        [["ann", "ben"], ["cat", "ann"]],
        [["ann", "ben", "cat"], ["dan"]],
        "ann,ben/cat,dan",
    ],
)
def test_teams_must_divide_all_players_equally(teams):
    with pytest.raises(ValueError):
        engine.setup(FOUR, PACK, seed=0, options={"teams": teams})


# --- swapping --------------------------------------------------------------------------------


def test_a_player_takes_a_card_from_the_table():
    state = game()
    card = state["table"][0]
    after = play(state, ("ben", {"type": "take", "card": card}))
    assert card in after["hands"]["ben"]
    assert card not in after["table"]
    assert len(after["hands"]["ben"]) == 6


def test_with_six_cards_a_player_must_drop_before_taking_again():
    state = game()
    state = play(state, ("ben", {"type": "take", "card": state["table"][0]}))
    with pytest.raises(IllegalAction, match="drop"):
        engine.apply(state, "ben", {"type": "take", "card": state["table"][0]})
    assert {a["type"] for a in engine.legal_actions(state, "ben")} == {"drop", "signal", "sign"}


def test_with_four_cards_a_player_must_take_before_dropping_again():
    state = game()
    state = play(state, ("ben", {"type": "drop", "card": state["hands"]["ben"][0]}))
    assert len(state["hands"]["ben"]) == 4
    assert state["table"][-1] in engine.view(state, "ann")["table"]  # face up
    with pytest.raises(IllegalAction, match="take"):
        engine.apply(state, "ben", {"type": "drop", "card": state["hands"]["ben"][0]})
    assert {a["type"] for a in engine.legal_actions(state, "ben")} == {"take", "signal", "sign"}


def test_a_player_can_take_only_a_card_on_the_table_and_drop_only_a_card_in_hand():
    state = game()
    with pytest.raises(IllegalAction, match="not on the table"):
        engine.apply(state, "ben", {"type": "take", "card": state["hands"]["cat"][0]})
    with pytest.raises(IllegalAction, match="not in your hand"):
        engine.apply(state, "ben", {"type": "drop", "card": state["hands"]["cat"][0]})


def test_done_needs_exactly_five_cards():
    state = game()
    state = play(state, ("ben", {"type": "take", "card": state["table"][0]}))
    with pytest.raises(IllegalAction, match="exactly five"):
        engine.apply(state, "ben", {"type": "done"})


def test_done_cannot_be_said_twice():
    state = play(game(), ("ben", {"type": "done"}))
    assert state["done"] == ["ben"]
    assert {"type": "done"} not in engine.legal_actions(state, "ben")
    with pytest.raises(IllegalAction, match="already"):
        engine.apply(state, "ben", {"type": "done"})


def test_a_take_or_a_drop_withdraws_done():
    state = play(game(), ("ben", {"type": "done"}), ("cat", {"type": "done"}))
    state = play(state, ("ben", {"type": "take", "card": state["table"][0]}))
    assert state["done"] == ["cat"]
    state = play(state, ("cat", {"type": "drop", "card": state["hands"]["cat"][0]}))
    assert state["done"] == []


# --- refreshing ------------------------------------------------------------------------------


def test_when_everybody_is_done_the_table_goes_to_the_discard_pile_and_new_cards_come():
    fresh = ["mond-rot", "mond-orange", "mond-gelb", "mond-gruen", "mond-blau"]
    state = game(deck=fresh)
    old_table = list(state["table"])
    state = play(state, *[(player, {"type": "done"}) for player in FOUR])
    assert state["table"] == fresh
    assert state["discard"] == old_table
    assert state["done"] == []
    assert len(state["deck"]) == 64 - 30
    assert engine.view(state, "ann")["discard_count"] == 5
    assert events(state, "refresh")[-1]["table"] == fresh


def test_no_refresh_while_one_player_is_still_swapping():
    state = game()
    table = list(state["table"])
    state = play(state, *[(player, {"type": "done"}) for player in FOUR[:3]])
    assert state["table"] == table


def test_when_the_deck_runs_short_the_round_is_a_draw():
    # 36 cards, 4 players: 25 dealt, 11 in the deck; two refreshes of 5, then 1 card is too few.
    state = game(pack=SMALL_PACK)
    assert len(state["deck"]) == 11
    all_done = [(player, {"type": "done"}) for player in FOUR]
    state = play(state, *all_done, *all_done)
    assert len(state["deck"]) == 1 and state["round"] == 1
    state = play(state, *all_done)
    assert events(state, "round_end") == [
        {"type": "round_end", "round": 1, "outcome": "draw", "team_scores": [0, 0]}
    ]
    assert state["scores"] == dict.fromkeys(FOUR, 0)
    assert state["round"] == 2
    assert state["dealer"] == "ben"
    assert len(state["deck"]) == 11  # a fresh deal from the whole pack


def test_a_deck_of_exactly_the_table_size_still_refreshes():
    pack = sign_pack(6, 5)  # 30 cards: 25 dealt, 5 in the deck
    state = checked(engine.setup(FOUR, pack, seed=2))
    deck = list(state["deck"])
    state = play(state, *[(player, {"type": "done"}) for player in FOUR])
    assert state["table"] == deck and state["deck"] == [] and state["round"] == 1
    assert engine.view(state, None)["bottom_card"] is None


# --- Sign! -----------------------------------------------------------------------------------


def sign(state, caller, target):
    """Call "Sign!"; if the game goes on, everybody checks the next round's hand."""
    state = engine.apply(state, caller, {"type": "sign", "target": target})
    return checked(state) if state["phase"] == "checking" else state


def test_a_valid_quintet_called_by_a_team_mate_scores_for_the_callers_team():
    state = sign(game({"cat": QUINTET}), "ann", "cat")  # teams: ann+cat, ben+dan
    assert state["team_scores"] == [1, 0]
    assert events(state, "sign")[0]["valid"] is True


def test_a_valid_quintet_called_by_an_opponent_scores_for_the_opponents_team():
    state = sign(game({"cat": QUINTET}), "ben", "cat")
    assert state["team_scores"] == [0, 1]


def test_an_invalid_call_on_an_opponent_scores_for_the_targets_team():
    state = sign(game(), "ben", "cat")
    assert state["team_scores"] == [1, 0]
    assert events(state, "round_end")[0]["outcome"] == "invalid"


def test_an_invalid_call_on_a_team_mate_scores_for_every_other_team():
    six = [f"p{n}" for n in range(6)]
    teams = [["p0", "p3"], ["p1", "p4"], ["p2", "p5"]]
    state = sign(game(players=six, teams=teams), "p0", "p3")
    assert state["team_scores"] == [0, 1, 1]


def test_a_hand_with_two_symbols_is_no_quintet():
    hand = [*QUINTET[:4], "mond-violett"]
    assert sign(game({"cat": hand}), "ann", "cat")["team_scores"] == [0, 1]


def test_a_hand_with_a_colour_twice_is_no_quintet():
    cards = {card["key"]: [card["symbol"], card["colour"]] for card in PACK["body"]["cards"]}
    two_reds = ["anker-rot", "anker-orange", "anker-gelb", "anker-gruen", "anker-rot"]
    assert not engine.is_quintet(two_reds, cards)


def test_six_cards_of_one_symbol_in_six_colours_are_no_quintet():
    state = game(
        {"cat": QUINTET}, table=["anker-violett", *_filler(PACK, set(QUINTET) | {"anker-violett"})[:4]]
    )
    state = play(state, ("cat", {"type": "take", "card": "anker-violett"}))
    assert sign(state, "ann", "cat")["team_scores"] == [0, 1]


def test_four_cards_of_one_symbol_are_no_quintet():
    state = play(game({"cat": QUINTET}), ("cat", {"type": "drop", "card": "anker-blau"}))
    assert sign(state, "ann", "cat")["team_scores"] == [0, 1]


def test_a_quintet_may_be_called_at_any_moment_even_before_anyone_swaps():
    state = play(game({"cat": QUINTET}), ("ann", {"type": "done"}))
    assert sign(state, "dan", "cat")["team_scores"] == [0, 1]


def test_the_called_hand_is_shown_to_everybody():
    state = sign(game({"cat": QUINTET}), "ann", "cat")
    for viewer in [*FOUR, None]:
        shown = [e for e in engine.view(state, viewer)["log"] if e["type"] == "sign"]
        assert shown[0]["hand"] == QUINTET


def test_nobody_can_call_sign_on_themselves_or_a_stranger():
    state = game()
    with pytest.raises(IllegalAction, match="another player"):
        sign(state, "ann", "ann")
    with pytest.raises(IllegalAction, match="does not play"):
        sign(state, "ann", "zoe")


def test_after_a_call_the_round_ends_and_the_dealer_role_passes_clockwise():
    state = engine.apply(game({"cat": QUINTET}), "ann", {"type": "sign", "target": "cat"})
    assert state["round"] == 2
    assert state["dealer"] == "ben"
    assert state["phase"] == "checking"
    assert state["log"][-1]["type"] == "deal" and state["log"][-1]["dealer"] == "ben"
    assert all(len(hand) == 5 for hand in state["hands"].values())
    assert len(state["hands"]) == 4 and len(state["table"]) == 5 and state["discard"] == []


def test_the_dealer_role_wraps_round_the_table():
    state = game(first_dealer="dan")
    state = sign(state, "ann", "ben")
    assert state["dealer"] == "ann"


# --- scores and the end ----------------------------------------------------------------------


def test_every_player_scores_their_teams_points():
    state = sign(game(), "ben", "cat")  # ann+cat score
    assert state["scores"] == {"ann": 1, "ben": 0, "cat": 1, "dan": 0}


def test_the_game_ends_when_a_team_reaches_three_points_by_default():
    state = game()
    for _ in range(2):
        state = sign(state, "ben", "cat")
        assert engine.result(state) is None
    state = sign(state, "ben", "cat")
    assert state["phase"] == "over"
    assert engine.result(state) == {
        "scores": {"ann": 3, "ben": 0, "cat": 3, "dan": 0},
        "winners": ["ann", "cat"],
    }
    assert engine.legal_actions(state, "ann") == []
    with pytest.raises(IllegalAction, match="over"):
        sign(state, "ann", "ben")


def test_target_points_sets_the_points_to_win():
    state = sign(game(target_points=1), "ben", "cat")
    assert engine.result(state)["winners"] == ["ann", "cat"]


def test_two_teams_reaching_the_target_together_share_the_win():
    six = [f"p{n}" for n in range(6)]
    teams = [["p0", "p3"], ["p1", "p4"], ["p2", "p5"]]
    state = sign(game(players=six, teams=teams, target_points=1), "p0", "p3")
    assert engine.result(state)["winners"] == ["p1", "p2", "p4", "p5"]


def test_with_rounds_the_game_ends_after_that_many_rounds_and_the_top_team_wins():
    state = game(rounds=3)
    state = sign(state, "ben", "cat")  # ann+cat 1
    state = sign(state, "cat", "ben")  # ben+dan 1
    assert engine.result(state) is None
    state = sign(state, "ann", "ben")  # ben+dan 2, round 3 over
    assert engine.result(state)["winners"] == ["ben", "dan"]
    assert state["team_scores"] == [1, 2]


def test_with_rounds_points_beyond_three_do_not_end_the_game():
    state = game(rounds=5)
    for _ in range(4):
        state = sign(state, "ben", "cat")
    assert state["team_scores"] == [4, 0] and engine.result(state) is None


def test_a_drawn_round_counts_as_played_and_equal_scores_are_a_draw():
    state = game(pack=SMALL_PACK, rounds=1)
    all_done = [(player, {"type": "done"}) for player in FOUR]
    state = play(state, *all_done, *all_done, *all_done)
    assert engine.result(state) == {"scores": dict.fromkeys(FOUR, 0), "winners": FOUR}


@pytest.mark.parametrize("options", [{"rounds": 0}, {"rounds": 3, "target_points": 3},
                                     {"target_points": 0}, {"rounds": True}, {"first_dealer": "zoe"},
                                     {"dealer": "ann"}])  # fmt: skip
def test_bad_options_are_refused(options):
    with pytest.raises(ValueError):
        engine.setup(FOUR, PACK, seed=0, options=options)


def test_too_few_cards_for_the_players_are_refused():
    with pytest.raises(ValueError, match="at least 53"):
        engine.setup([f"p{n}" for n in range(9)], SMALL_PACK, seed=0)


@pytest.mark.parametrize("players", [3, 10])
def test_sign_is_for_four_to_nine_players(players):
    with pytest.raises(ValueError):
        engine.setup([f"p{n}" for n in range(players)], PACK, seed=0)


# --- stacking, actions, secrets, replay ------------------------------------------------------


def test_stacking_an_unknown_pile_or_card_is_an_error():
    with pytest.raises(ValueError, match="pile"):
        engine.setup(FOUR, PACK, seed=0, options={"stack": {"cards": ["anker-rot"]}})
    with pytest.raises(ValueError, match="unknown"):
        engine.setup(FOUR, PACK, seed=0, options={"stack": {"deck": ["anker-lila"]}})


@pytest.mark.parametrize(
    "action",
    [
        {"type": "swap", "card": "anker-rot"},
        {"type": "take"},
        {"type": "take", "card": 3},
        {"type": "sign"},
        {"type": "done", "card": "anker-rot"},
        {"card": "anker-rot"},
        "done",
    ],
)
def test_malformed_actions_are_illegal_and_change_nothing(action):
    state = game()
    before = json.dumps(state, sort_keys=True)
    with pytest.raises(IllegalAction):
        engine.apply(state, "ann", action)
    assert json.dumps(state, sort_keys=True) == before


def test_apply_returns_a_new_state_and_leaves_the_old_one_alone():
    state = game({"cat": QUINTET})
    before = json.dumps(state, sort_keys=True)
    after = sign(play(state, ("ben", {"type": "take", "card": state["table"][0]})), "ann", "cat")
    assert json.dumps(state, sort_keys=True) == before
    assert after is not state
    json.dumps(after)


def test_a_player_sees_their_own_hand_and_nobody_elses():
    state = game({"cat": QUINTET})
    seen = engine.view(state, "cat")
    assert seen["hand"] == QUINTET
    assert seen["hand_counts"] == dict.fromkeys(FOUR, 5)
    for viewer in ["ann", None]:
        text = json.dumps(engine.view(state, viewer))
        assert not any(f'"{card}"' in text for card in QUINTET)
    assert "hands" not in seen and "deck" not in seen and "discard" not in seen


def test_the_deck_order_is_seen_by_no_one():
    state = game()
    hidden = state["deck"][:-1]
    for viewer in [*FOUR, None]:
        text = json.dumps(engine.view(state, viewer))
        assert not any(f'"{card}"' in text for card in hidden)
        assert engine.view(state, viewer)["deck_count"] == len(state["deck"])


def test_which_cards_others_took_is_left_to_memory():
    state = game()
    card = state["table"][0]
    state = play(state, ("ben", {"type": "take", "card": card}))
    assert engine.view(state, "ben")["log"][-1]["card"] == card
    for viewer in ["ann", None]:
        last = engine.view(state, viewer)["log"][-1]
        assert last == {"type": "take", "round": 1, "player": "ben"}


def test_the_same_seed_options_and_actions_replay_the_same_game():
    def replay():
        state = engine.setup(FOUR, PACK, seed="replay", options={"rounds": 3, "first_dealer": "cat"})
        state = checked(state)
        state = play(state, ("ann", {"type": "take", "card": state["table"][2]}))
        state = play(state, ("ann", {"type": "drop", "card": state["hands"]["ann"][0]}))
        state = sign(state, "ben", "dan")
        return play(state, ("dan", {"type": "done"}))

    assert json.dumps(replay(), sort_keys=True) == json.dumps(replay(), sort_keys=True)


def test_a_state_survives_a_json_round_trip():
    state = json.loads(json.dumps(game()))
    state = sign(state, "ann", "ben")
    state = json.loads(json.dumps(state))
    assert play(state, ("ann", {"type": "done"}))["done"] == ["ann"]


def test_different_seeds_shuffle_differently():
    hands = {json.dumps(engine.setup(FOUR, PACK, seed=seed)["hands"]) for seed in range(5)}
    assert len(hands) == 5
