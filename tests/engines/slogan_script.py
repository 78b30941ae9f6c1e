"""Slogan test helpers: the test pack, a game set up as a test needs it, and short ways to play a turn."""

import copy

from games.engines import slogan as engine
from tests.engines.packs import slogan_pack

PACK = slogan_pack()  # karte-001..040; one Alfons card of each kind (alfons-01-move … alfons-12-to-level)
FOUR = ["ann", "ben", "cat", "dan"]
THREE = ["ann", "ben", "cat"]


def answer(card, slogan):
    """The correct option of ``karte-<card>``'s slogan 0 or 1 in the test pack."""
    return (card + slogan + 1) % 4


def game(players=FOUR, *, cards=(), alfons=(), pack=PACK, seed=0, **options):
    stack = {}
    if cards:
        stack["cards"] = list(cards)
    if alfons:
        stack["alfons"] = list(alfons)
    return engine.setup(players, pack, seed=seed, options={**options, "stack": stack})


def alfons_pack(*effects):
    """A pack whose Alfons cards are ``alfons-01-…`` with these effects, in order."""
    return slogan_pack(effects=effects)


def arrange(state, *, positions=None, chips=None, desks=None):
    """The same game with pieces, chips or desks set as a test needs them."""
    state = copy.deepcopy(state)
    state["positions"].update(positions or {})
    state["scores"].update(chips or {})
    state["desks"].update(desks or {})
    return state


def do(state, actor, kind, **fields):
    return engine.apply(state, actor, {"type": kind, **fields})


def ask(state, slogan=0, stake=1):
    return do(state, state["questioner"], "ask", slogan=slogan, stake=stake)


def judge(state, correct):
    return do(state, state["questioner"], "judge", correct=correct)


def wrong_answer(state, stake=1):
    """The questioner asks and judges the answer wrong: the questioned player's second chance."""
    return judge(ask(state, stake=stake), False)


def draw_alfons(state, **arrangement):
    """After a wrong answer, with the table arranged, the questioned player draws an Alfons card."""
    state = arrange(wrong_answer(state), **arrangement)
    return do(state, state["questioned"], "alfons")


def events(state, kind):
    return [event for event in state["log"] if event["type"] == kind]


def one_alfons(effect, **arrangement):
    """Ben (questioned by ann) draws a single Alfons card with this effect; ann took 1 chip and
    moved 1 space for the wrong answer before ``arrangement`` sets the table."""
    state = game(pack=alfons_pack(effect))
    state = arrange(state, desks={"ann": [], "ben": ["alfons-01-" + effect["kind"].replace("_", "-")]})
    return draw_alfons(state, **arrangement)


# --- the duel ---------------------------------------------------------------------------------


def challenge(state, challenger, target):
    return do(state, challenger, "challenge", target=target)


def duel_judge(state, reader, player, slogan, correct):
    return do(state, reader, "judge", player=player, slogan=slogan, correct=correct)
