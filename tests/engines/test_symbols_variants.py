"""Sag's mit Symbolen, scripted: grey markers, extra tiles, replacements; piles, options and secrets."""

from __future__ import annotations

import json

import pytest

from games.engines import IllegalAction
from games.engines import symbols as engine
from tests.engines.packs import BASE_SYMBOLS, EXAMPLE_BOARD, EXTRA_SYMBOLS, symbols_pack
from tests.engines.symbols_script import (
    NEXT_CARDS,
    PLAYERS,
    concept_on,
    guess,
    hint,
    new_game,
    play,
    remove,
    replace,
)

# --- variants and replacements -------------------------------------------------------------


def test_grey_markers_are_played_only_in_the_variant():
    with pytest.raises(IllegalAction, match="green marker"):
        engine.apply(new_game(), "Sabine", hint("handy", "grey"))
    state = play(new_game(grey_markers=True), ("Sabine", hint("handy", "grey")), ("Tim", remove(1)))
    assert state["scores"]["Sabine"] == 1  # a grey hint scores like a green one
    assert state["markers"] == [{"symbol": "handy", "marker": "grey", "player": "Sabine"}]


def test_there_are_two_grey_markers_and_they_count_towards_the_seven():
    state = play(
        new_game(grey_markers=True),
        ("Sabine", hint("handy", "grey")),
        ("Tim", remove(1)),
        ("Frank", hint("koffer", "grey")),
        ("Tim", remove(2)),
    )
    assert {action["marker"] for action in engine.legal_actions(state, "Lisa")} == {"green"}
    with pytest.raises(IllegalAction, match="grey markers"):
        engine.apply(state, "Lisa", hint("sonne", "grey"))
    assert engine.view(state, "Lisa")["markers_left"] == 5


def test_extra_tiles_cover_base_symbols():
    board = [*EXTRA_SYMBOLS[:2], *BASE_SYMBOLS[2:]]
    state = new_game(symbols=board)
    state = play(state, ("Sabine", hint("anker")), ("Tim", remove(1)))
    with pytest.raises(IllegalAction, match="no symbol"):
        engine.apply(state, "Frank", hint("handy"))  # covered by the anchor


@pytest.mark.parametrize(
    "symbols",
    [["nicht-da", *BASE_SYMBOLS[1:]], [*EXTRA_SYMBOLS, *BASE_SYMBOLS], ["handy", "handy", *BASE_SYMBOLS[2:]]],
)
def test_a_board_of_unknown_missing_or_doubled_symbols_is_refused(symbols):
    with pytest.raises(ValueError, match="symbols"):
        new_game(symbols=symbols)


def test_any_player_may_replace_a_card_before_the_first_hint():
    """Rulebook, Game Preparation: "if a concept is drawn which no player can explain, it is
    discarded and a replacement is drawn"; docs/engines.md, symbols: any player, the candidate
    too, before the round's first hint."""
    state = play(new_game(), ("Lisa", replace(2)), ("Tim", replace(4)))
    assert concept_on(state, 2) == NEXT_CARDS[0]
    assert concept_on(state, 4) == NEXT_CARDS[1]  # now the secret concept
    assert state["discarded"] == ["liebe", "italien"]
    state = play(state, ("Sabine", hint("handy")))
    assert not [a for p in PLAYERS for a in engine.legal_actions(state, p) if a["type"] == "replace"]
    with pytest.raises(IllegalAction, match="before the round's first hint"):
        engine.apply(state, "Frank", replace(3))
    state = play(state, ("Tim", remove(1)))  # the next hint is due: the cards are in play
    assert state["phase"] == "hint"
    assert not [a for p in PLAYERS for a in engine.legal_actions(state, p) if a["type"] == "replace"]
    with pytest.raises(IllegalAction, match="before the round's first hint"):
        engine.apply(state, "Frank", replace(3))


def test_each_player_replaces_at_most_one_card_a_round():
    """docs/engines.md, symbols: each player at most one replacement a round (a concept nobody
    can explain is the exception), so one player cannot drain the pile."""
    state = play(new_game(), ("Lisa", replace(2)))
    assert not [a for a in engine.legal_actions(state, "Lisa") if a["type"] == "replace"]
    before = json.dumps(state, sort_keys=True)
    with pytest.raises(IllegalAction, match="replaced a card this round already"):
        engine.apply(state, "Lisa", replace(3))
    assert json.dumps(state, sort_keys=True) == before
    assert [a["slot"] for a in engine.legal_actions(state, "Frank") if a["type"] == "replace"] == [
        1, 3, 4, 5, 6, 7, 8]  # fmt: skip


def test_a_replacement_card_stands():
    """Rulebook: "a replacement is drawn": one; docs/engines.md, symbols: each card drawn for the
    round can be replaced once, the replacement card not again."""
    state = play(new_game(), ("Lisa", replace(2)))
    with pytest.raises(IllegalAction, match="only once"):
        engine.apply(state, "Frank", replace(2))
    assert state["drawn"] == [1, 3, 4, 5, 6, 7, 8]


def test_only_a_card_drawn_for_this_round_can_be_replaced():
    """Rulebook, Game Preparation: the replacement is for "a concept [that] is drawn"; The Next
    Round: "New concept cards are drawn ... until there are eight cards again". docs/engines.md,
    symbols: cards left from an earlier round were played with, so they stay; and every player
    may replace again in the new round."""
    state = play(new_game(), ("Lisa", replace(2)), ("Sabine", hint("sonne")), ("Tim", guess(4)))
    assert state["round"] == 2 and state["candidate"] == "Sabine"
    assert concept_on(state, 4) == NEXT_CARDS[1]  # the only slot refilled
    for player in PLAYERS:
        assert [a for a in engine.legal_actions(state, player) if a["type"] == "replace"] == [replace(4)]
    with pytest.raises(IllegalAction, match="drawn for this round"):
        engine.apply(state, "Tim", replace(1))
    state = play(state, ("Lisa", replace(4)))
    assert concept_on(state, 4) == NEXT_CARDS[2]


def test_replacements_never_take_the_cards_the_next_round_needs():
    """docs/engines.md, symbols: a replacement is offered only while the pile holds more than a
    board of cards (8), so the next round can always be dealt."""
    state = engine.setup(PLAYERS, symbols_pack(17), seed=1)
    assert len(state["concepts"]) == 9
    state = play(state, ("Tim", replace(1)))
    assert len(state["concepts"]) == 8
    assert not [a for p in PLAYERS for a in engine.legal_actions(state, p) if a["type"] == "replace"]
    with pytest.raises(IllegalAction, match="keeps its last cards"):
        engine.apply(state, "Lisa", replace(2))


def test_a_card_cannot_be_replaced_when_no_concept_is_left():
    state = engine.setup(PLAYERS, symbols_pack(EXAMPLE_BOARD), seed=1)
    assert not any(action["type"] == "replace" for action in engine.legal_actions(state, "Tim"))
    with pytest.raises(IllegalAction, match="keeps its last cards"):
        engine.apply(state, "Tim", replace(1))


def test_a_state_saved_before_the_replacement_limits_allows_none_until_its_next_round():
    """A room's state stored before ``drawn`` and ``replaced_by`` existed still plays."""
    state = new_game()
    del state["drawn"], state["replaced_by"]
    assert not [a for a in engine.legal_actions(state, "Lisa") if a["type"] == "replace"]
    with pytest.raises(IllegalAction, match="drawn for this round"):
        engine.apply(state, "Lisa", replace(2))
    state = play(state, ("Sabine", hint("sonne")), ("Tim", guess(4)))
    assert [a for a in engine.legal_actions(state, "Lisa") if a["type"] == "replace"] == [replace(4)]


# --- piles, options, secrets ---------------------------------------------------------------


def test_stacked_numbers_give_the_secret_of_successive_rounds():
    state = new_game(numbers=[4, 7])
    assert state["secret"] == 4
    state = play(state, ("Sabine", hint("handy")), ("Tim", guess(4)))
    assert state["secret"] == 7


@pytest.mark.parametrize(
    "stack",
    [
        {"deck": []},
        {"concepts": ["nicht-da"]},
        {"concepts": ["oma", "oma"]},
        {"numbers": [9]},
        {"numbers": ["4"]},
    ],
)
def test_an_unknown_pile_or_card_in_the_stack_is_an_error(stack):
    with pytest.raises(ValueError):
        engine.setup(PLAYERS, symbols_pack(), seed=1, options={"stack": stack})


@pytest.mark.parametrize(
    "options",
    [{"first_candidate": "Ute"}, {"goal": 0}, {"grey_markers": "yes"}, {"colour": "green"}],
)
def test_bad_options_are_refused(options):
    with pytest.raises(ValueError):
        engine.setup(PLAYERS, symbols_pack(), seed=1, options=options)


@pytest.mark.parametrize(
    "players", [["Tim", "Sabine"], [*PLAYERS, "Ute", "Jan", "Eva"], ["Tim", "Tim", "Lisa"]]
)
def test_three_to_six_distinct_players(players):
    with pytest.raises(ValueError):
        engine.setup(players, symbols_pack(), seed=1)


def test_the_secret_slot_is_hidden_from_the_candidate_and_the_table():
    state = new_game()
    assert "secret" not in engine.view(state, "Tim")
    assert "secret" not in engine.view(state, None)
    assert engine.view(state, "Sabine")["secret"] == 4
    assert "numbers" not in json.dumps(engine.view(state, None))


def test_the_concept_pile_is_shuffled_by_the_seed():
    one, again, other = (engine.setup(PLAYERS, symbols_pack(), seed=seed) for seed in (1, 1, 2))
    assert one == again
    assert one["board"] + one["concepts"] != other["board"] + other["concepts"]


def test_once_the_game_is_over_no_view_holds_a_secret():
    """docs/engines.md, symbols: the secret is the hint givers' "during a round"; after the end
    there is no round."""
    state = play(new_game(goal=6), ("Sabine", hint("sonne")), ("Tim", guess(4)))
    assert state["phase"] == "over"
    for who in [*PLAYERS, None]:
        assert "secret" not in engine.view(state, who)


def test_number_cards_one_and_eight_can_be_stacked():
    """Rulebook, Game Components: "8 number cards"; docs/engines.md: the integers 1 to 8."""
    assert new_game(numbers=[1])["secret"] == 1
    assert new_game(numbers=[8])["secret"] == 8


def test_a_board_of_exactly_seven_symbols_is_enough():
    """docs/engines.md, symbols: "a board needs at least 7 symbols, one per marker of a round"."""
    state = engine.setup(PLAYERS, symbols_pack(symbols=BASE_SYMBOLS[:7]), seed=1)
    assert len(state["symbols"]) == 7
    with pytest.raises(ValueError, match="at least 7"):
        engine.setup(PLAYERS, symbols_pack(symbols=BASE_SYMBOLS[:6]), seed=1)


@pytest.mark.parametrize("symbols", [5, "handy"])
def test_a_symbols_option_that_is_not_a_list_is_refused(symbols):
    """docs/engines.md, symbols: ``symbols`` lists the keys of the board's symbols."""
    with pytest.raises(ValueError, match="list of symbol keys"):
        new_game(symbols=symbols)
