"""Sign: the team table, the game length, the hand check before the table opens, the team's
sign, and what the views show. Each test names the rulebook passage or docs/engines.md line."""

import json

import pytest

from games.engines import IllegalAction
from games.engines import sign as engine
from tests.engines.packs import sign_pack
from tests.engines.test_sign import FOUR, PACK, QUINTET, checked, events, game, play, sign


def ids(count):
    return [f"p{n}" for n in range(count)]


def teams_of(players, sizes):
    """Teams of the given sizes, filled in seating order."""
    teams, seat = [], 0
    for size in sizes:
        teams.append(players[seat : seat + size])
        seat += size
    return teams


# --- teams: the rulebook's player table -------------------------------------------------------


@pytest.mark.parametrize(
    ("players", "sizes"),
    [(4, (2, 2)), (5, (3, 2)), (5, (2, 3)), (6, (3, 3)), (6, (2, 2, 2)), (7, (4, 3)), (7, (3, 2, 2)),
     (7, (2, 3, 2)), (8, (4, 4)), (9, (3, 3, 3))],
)  # fmt: skip
def test_custom_teams_may_be_any_division_of_the_player_table(players, sizes):
    """Rulebook, Teams: the player table's divisions (4: 2-2, 5: 3-2, 6: 3-3 of 2-2-2,
    7: 4-3 of 3-2-2, 8: 4-4, 9: 3-3-3); docs/engines.md, sign, option ``teams``."""
    players = ids(players)
    teams = teams_of(players, sizes)
    state = engine.setup(players, PACK, seed=0, options={"teams": teams})
    assert state["teams"] == teams
    assert state["team_scores"] == [0] * len(sizes)


@pytest.mark.parametrize(
    ("players", "sizes", "allowed"),
    [(4, (1, 1, 1, 1), "2-2"), (4, (2, 1, 1), "2-2"), (8, (3, 3, 2), "4-4"), (9, (5, 4), "3-3-3"),
     (6, (4, 2), "3-3 or 2-2-2"), (7, (3, 3, 1), "4-3 or 3-2-2"), (5, (4, 1), "3-2")],
)  # fmt: skip
def test_a_division_outside_the_player_table_is_refused_naming_the_allowed_ones(players, sizes, allowed):
    """Rulebook, Teams: "Sign is played with two or more equally divided teams. In the
    player-table below, you can find the possible team divisions"; docs/engines.md, sign:
    custom teams must be one of the rulebook's divisions."""
    players = ids(players)
    with pytest.raises(ValueError, match=f"the teams are {allowed}, not"):
        engine.setup(players, PACK, seed=0, options={"teams": teams_of(players, sizes)})


def test_allowed_divisions_lists_the_player_table_for_screens():
    """docs/engines.md, sign: ``allowed_divisions(n)`` lists the rulebook's divisions."""
    assert engine.allowed_divisions(4) == [(2, 2)]
    assert engine.allowed_divisions(6) == [(3, 3), (2, 2, 2)]
    assert engine.allowed_divisions(7) == [(4, 3), (3, 2, 2)]
    assert engine.allowed_divisions(9) == [(3, 3, 3)]
    assert engine.allowed_divisions(3) == [] and engine.allowed_divisions(10) == []


@pytest.mark.parametrize("players", range(4, 10))
def test_the_default_teams_are_one_of_the_allowed_divisions(players):
    """Rulebook, Teams: the player table; docs/engines.md, sign: default teams alternate seats."""
    state = engine.setup(ids(players), PACK, seed=0)
    division = tuple(sorted((len(team) for team in state["teams"]), reverse=True))
    assert division == engine.allowed_divisions(players)[0]


# --- game length ----------------------------------------------------------------------------


@pytest.mark.parametrize("rounds", [1, 2, 4, 7])
def test_any_number_of_rounds_of_at_least_one_is_accepted(rounds):
    """Rulebook, Goal of the Game: "Don't pick an even number of rounds" is advice; docs/engines.md,
    sign: ``rounds`` any number >= 1, the engine accepts it."""
    state = engine.setup(FOUR, PACK, seed=0, options={"rounds": rounds})
    assert state["rounds"] == rounds and state["target_points"] is None


def test_a_game_of_two_rounds_ends_after_the_second():
    """docs/engines.md, sign: "then the game ends after that many rounds"."""
    state = game(rounds=2)
    state = checked(engine.apply(state, "ben", {"type": "sign", "target": "cat"}))
    assert engine.result(state) is None
    state = engine.apply(state, "ben", {"type": "sign", "target": "cat"})
    assert engine.result(state) == {
        "scores": {"ann": 2, "ben": 0, "cat": 2, "dan": 0},
        "winners": ["ann", "cat"],
    }


def test_option_warnings_advise_an_odd_number_of_rounds():
    """Rulebook, Goal of the Game: "Don't pick an even number of rounds, because then the
    likelihood of a draw is much higher"; docs/engines.md, sign: a screen warns."""
    assert engine.option_warnings({"rounds": 4}) == [
        "An odd number of rounds avoids a draw: with 4 rounds a tie is much likelier."
    ]
    for options in ({"rounds": 3}, {"target_points": 2}, {}, None, {"rounds": "x"}, {"rounds": 0}):
        assert engine.option_warnings(options) == []


# --- checking: the hand is checked before the table opens ------------------------------------


def test_a_round_starts_in_the_checking_phase_with_the_table_face_down():
    """Rulebook, Preparation: "puts them face down in the middle of the table ... After all
    players have checked their hand, the cards in the middle of the table are opened-up";
    docs/engines.md, sign: phase ``checking``."""
    state = engine.setup(FOUR, PACK, seed=3)
    assert state["phase"] == "checking"
    table = state["table"]
    for viewer in [*FOUR, None]:
        seen = engine.view(state, viewer)
        assert seen["table"] == [] and seen["table_face_down"] == 5
        text = json.dumps(seen)
        assert not any(f'"{card}"' in text for card in table), viewer
    for player in FOUR:
        assert engine.legal_actions(state, player) == [{"type": "ready"}]


def test_nothing_but_ready_is_allowed_while_players_check_their_hands():
    """Rulebook, Preparation and Swapping Cards: swapping starts "When the cards in the middle
    of the table are opened-up"; docs/engines.md, sign: phase ``checking``."""
    state = engine.setup(FOUR, PACK, seed=3)
    before = json.dumps(state, sort_keys=True)
    actions = [
        {"type": "take", "card": state["table"][0]},
        {"type": "drop", "card": state["hands"]["ann"][0]},
        {"type": "done"},
        {"type": "sign", "target": "ben"},
        {"type": "signal"},
    ]
    for action in actions:
        with pytest.raises(IllegalAction, match="checked their hand"):
            engine.apply(state, "ann", action)
    assert json.dumps(state, sort_keys=True) == before


def test_the_table_opens_when_the_last_player_is_ready():
    """Rulebook, Preparation: "After all players have checked their hand, the cards in the
    middle of the table are opened-up and all players can start swapping"."""
    state = engine.setup(FOUR, PACK, seed=3)
    for player in FOUR[:3]:
        state = engine.apply(state, player, {"type": "ready"})
        assert state["phase"] == "checking"
        assert engine.legal_actions(state, player) == []
    with pytest.raises(IllegalAction, match="already checked"):
        engine.apply(state, "ann", {"type": "ready"})
    assert engine.view(state, None)["ready"] == FOUR[:3]
    state = engine.apply(state, "dan", {"type": "ready"})
    assert state["phase"] == "swapping"
    seen = engine.view(state, None)
    assert seen["table"] == state["table"] and seen["table_face_down"] == 0
    assert events(state, "table_opened") == [{"type": "table_opened", "round": 1, "table": state["table"]}]
    with pytest.raises(IllegalAction, match="already open"):
        engine.apply(state, "ann", {"type": "ready"})


def test_every_new_round_is_checked_again():
    """Rulebook, End of the Round: "the preparation phase of a new round begins"."""
    state = game()
    state = engine.apply(state, "ann", {"type": "sign", "target": "ben"})
    assert state["phase"] == "checking" and state["ready"] == [] and state["round"] == 2
    assert engine.view(state, "ann")["table"] == []


def test_a_drawn_round_is_checked_again_too():
    """Rulebook, Refreshing Cards: "When the deck is finished while new cards are required,
    then this round ends in a draw"; End of the Round: a new round's preparation."""
    state = game(pack=sign_pack(5, 5))  # 25 cards: the deck is empty after the deal
    state = play(state, *[(player, {"type": "done"}) for player in FOUR])
    assert [event["outcome"] for event in events(state, "round_end")] == ["draw"]
    assert events(state, "refresh") == [{"type": "refresh", "round": 1, "table": [], "deck_ran_out": True}]
    assert state["phase"] == "checking" and state["round"] == 2


# --- the team's sign ------------------------------------------------------------------------


def test_a_players_sign_is_seen_by_team_mates_only():
    """Rulebook, Signs: "keep the sign secret for the other team, because it helps team members
    to signal each other when they have a quintet"; docs/engines.md, sign: ``signal``."""
    state = game({"cat": QUINTET})  # teams: ann+cat, ben+dan
    state = engine.apply(state, "cat", {"type": "signal"})
    assert engine.view(state, "ann")["signals"] == ["cat"]
    assert engine.view(state, "cat")["signals"] == ["cat"]
    assert any(event["type"] == "signal" for event in engine.view(state, "ann")["log"])
    for viewer in ["ben", "dan", None]:
        seen = engine.view(state, viewer)
        assert seen["signals"] == []
        assert not any(event["type"] == "signal" for event in seen["log"]), viewer
    assert {"type": "signal"} not in engine.legal_actions(state, "cat")
    with pytest.raises(IllegalAction, match="already showing"):
        engine.apply(state, "cat", {"type": "signal"})


def test_a_take_or_a_drop_ends_the_sign_and_a_new_round_clears_it():
    """docs/engines.md, sign: a take or drop stops the player's sign (the hand it stood for
    has changed); a new round starts without signs."""
    state = game({"cat": QUINTET})
    state = engine.apply(state, "cat", {"type": "signal"})
    state = engine.apply(state, "cat", {"type": "take", "card": state["table"][0]})
    assert state["signals"] == []
    state = engine.apply(state, "ann", {"type": "signal"})
    state = engine.apply(state, "ben", {"type": "sign", "target": "dan"})
    assert state["signals"] == []


# --- what no test pinned before (mutation testing) -------------------------------------------


def test_which_card_another_player_dropped_is_left_to_memory():
    """Rulebook, Game Tips: "Try to remember which symbols other players are collecting";
    docs/engines.md, sign: who took or dropped which card is left out of the others' log."""
    state = game()
    card = state["hands"]["ben"][0]
    state = play(state, ("ben", {"type": "drop", "card": card}))
    assert engine.view(state, "ben")["log"][-1]["card"] == card
    for viewer in ["ann", None]:
        assert engine.view(state, viewer)["log"][-1] == {"type": "drop", "round": 1, "player": "ben"}


def test_done_is_cleared_when_a_round_ends_after_a_sign_call():
    """Rulebook, Refreshing Cards: the table is refreshed "If none of the players want to swap
    anymore"; End of the Round: a new round; docs/engines.md: "When every player is done"."""
    state = game()
    state = play(state, ("ann", {"type": "done"}), ("ben", {"type": "done"}), ("cat", {"type": "done"}))
    state = checked(engine.apply(state, "dan", {"type": "sign", "target": "ann"}))
    assert state["done"] == []
    assert engine.view(state, None)["done"] == []
    assert {"type": "done"} in engine.legal_actions(state, "ann")
    table = list(state["table"])
    state = play(state, ("ann", {"type": "done"}))
    assert state["table"] == table  # one player done does not refresh the table


def test_a_pack_with_exactly_enough_cards_is_accepted_and_leaves_an_empty_deck():
    """Rulebook, Preparation: five cards each plus the player table's cards; docs/engines.md:
    a pack too small for the players is refused (one of exactly that size is not)."""
    state = engine.setup(FOUR, sign_pack(5, 5), seed=0)  # 25 = 4 × 5 + 5
    assert state["deck"] == [] and len(state["table"]) == 5
    assert state["bottom_card"] is None
    assert engine.view(state, None)["bottom_card"] is None
    assert engine.view(state, None)["deck_count"] == 0
    with pytest.raises(ValueError, match="at least 25 cards; the pack has 24"):
        engine.setup(FOUR, {**sign_pack(5, 5), "body": {**sign_pack(5, 5)["body"],
                     "cards": sign_pack(5, 5)["body"]["cards"][:24]}}, seed=0)  # fmt: skip


def test_the_viewer_sees_their_own_seat_and_team():
    """docs/engines.md, sign view keys: ``you``, ``hand``, ``team`` (the viewer's team number)."""
    state = game()
    assert engine.view(state, "cat")["you"] == "cat"
    assert engine.view(state, "cat")["team"] == 0
    assert engine.view(state, "dan")["team"] == 1
    assert engine.view(state, "dan")["hand"] == state["hands"]["dan"]


def test_a_view_for_someone_not_playing_is_the_table_view():
    """docs/engines.md, contract: ``view(state, player)``; a stranger sees what the table sees."""
    state = game()
    seen = engine.view(state, "zoe")
    assert seen == engine.view(state, None)
    assert not {"you", "hand", "team"} & set(seen)


def test_a_valid_call_is_logged_as_valid():
    """Rulebook, Scoring a Quintet: "If the quintet is valid then the team of the player that
    called "Sign!" scores a point"; docs/engines.md: the log records how a round ended."""
    state = engine.apply(game({"cat": QUINTET}), "ann", {"type": "sign", "target": "cat"})
    (call,) = events(state, "sign")
    assert call["valid"] is True and call["hand"] == QUINTET and call["scoring_teams"] == [0]
    assert events(state, "round_end")[0]["outcome"] == "valid"
    state = engine.apply(checked(state), "ann", {"type": "sign", "target": "ben"})
    assert events(state, "round_end")[1]["outcome"] == "invalid"


def test_the_faces_of_the_cards_a_player_sees_are_in_the_view():
    """docs/engines.md, sign view keys: ``faces`` gives symbol and colour of the cards in the
    viewer's hand, on the open table and the bottom card, and of no other card."""
    state = game({"cat": QUINTET})
    seen = engine.view(state, "cat")
    assert seen["faces"]["anker-rot"] == {"symbol": "anker", "colour": "rot"}
    assert set(seen["faces"]) == {*QUINTET, *state["table"], state["bottom_card"]}
    assert set(engine.view(state, None)["faces"]) == {*state["table"], state["bottom_card"]}


def test_a_call_on_a_hand_of_four_is_logged_as_invalid():
    """Rulebook, Goal of a Round: "a quintet is impossible when a player has only four cards in
    their hand"; docs/engines.md: the ``sign`` event has ``valid``."""
    state = game({"cat": QUINTET})
    state = play(state, ("cat", {"type": "drop", "card": QUINTET[0]}))
    state = engine.apply(state, "ann", {"type": "sign", "target": "cat"})
    (call,) = events(state, "sign")
    assert call["valid"] is False and call["hand"] == QUINTET[1:]
    assert state["team_scores"] == [0, 1]  # a team-mate called: the other team scores


def test_take_and_drop_refuse_fields_they_do_not_have():
    """docs/engines.md, contract: an illegal action raises IllegalAction; the state is unchanged."""
    state = game()
    before = json.dumps(state, sort_keys=True)
    for action in (
        {"type": "take", "card": state["table"][0], "from": "deck"},
        {"type": "drop", "card": state["hands"]["ann"][0], "face": "down"},
        {"type": "ready", "now": True},
        {"type": "sign", "target": "ben", "hand": QUINTET},
        {"type": "signal", "to": "cat"},
    ):
        with pytest.raises(IllegalAction):
            engine.apply(state, "ann", action)
    assert json.dumps(state, sort_keys=True) == before


def test_the_log_records_who_is_done_and_each_refresh():
    """Rulebook, Refreshing Cards: "If none of the players want to swap anymore ... the dealer
    takes the same number as the discarded cards from the deck and opens them up"."""
    state = game()
    state = play(state, ("ann", {"type": "done"}))
    assert state["log"][-1] == {"type": "done", "round": 1, "player": "ann"}
    state = play(state, *[(player, {"type": "done"}) for player in FOUR[1:]])
    refresh = events(state, "refresh")[-1]
    assert refresh == {"type": "refresh", "round": 1, "table": state["table"], "deck_ran_out": False}


# --- found by the full mutation run (docs/mutation-testing-engines.md) ------------------------


def test_the_first_deal_is_round_one_and_the_log_records_each_check():
    """docs/engines.md, sign: every round starts with a check, each player sends ``ready``;
    a state's log records the events (the contract)."""
    state = engine.setup(FOUR, PACK, seed=0)
    assert state["round"] == 1 and engine.view(state, None)["round"] == 1
    state = engine.apply(state, "ann", {"type": "ready"})
    assert state["log"][-1] == {"type": "ready", "round": 1, "player": "ann"}


def test_the_log_records_the_end_of_the_game_and_its_winners():
    """docs/engines.md, sign: the game ends at the target; the log records the events."""
    state = sign(game(target_points=1), "ben", "cat")
    end = events(state, "game_end")
    assert len(end) == 1 and end[0]["round"] == 1
    assert sorted(end[0]["winners"]) == sorted(engine.result(state)["winners"])


@pytest.mark.parametrize("teams", [7, 2.5, "p0p1", {"ann": ["ann"]}])
def test_teams_that_are_not_a_list_of_lists_are_refused(teams):
    """docs/engines.md, sign: ``teams`` is a list of lists of player ids; anything else is refused
    with a message for the host (the contract: bad options raise ``ValueError``)."""
    with pytest.raises(ValueError, match="list of lists"):
        engine.setup(FOUR, PACK, seed=0, options={"teams": teams})


def test_every_player_starts_with_no_points():
    """docs/engines.md, sign: scores are per team, each player's entry is their team's score;
    nobody has scored before the first call."""
    state = engine.setup(FOUR, PACK, seed=0)
    assert state["scores"] == dict.fromkeys(FOUR, 0) and state["team_scores"] == [0, 0]
    assert engine.view(state, "ann")["scores"] == dict.fromkeys(FOUR, 0)
