"""The engine contract of docs/engines.md, checked the same way for all four games."""

from __future__ import annotations

import ast
import json
import random
from pathlib import Path
from types import ModuleType

import pytest

from games import engines
from games.engines import IllegalAction
from tests.engines import playouts
from tests.engines.packs import pack_for

ENGINE_DIR = Path(engines.__file__).parent
PILES = {"symbols": "concepts", "sign": "deck", "slogan": "cards", "sauschwer": "cards"}


def engine_of(slug: str) -> ModuleType:
    """The engine, or a skip while its module is still being written."""
    pytest.importorskip(f"games.engines.{slug}")
    return engines.get(slug)


def players_for(engine: ModuleType) -> list[str]:
    return [f"p{n}" for n in range(min(max(engine.MIN_PLAYERS, 4), engine.MAX_PLAYERS))]


def new_state(slug: str, seed: int = 7) -> tuple[ModuleType, dict]:
    engine = engine_of(slug)
    return engine, engine.setup(players_for(engine), pack_for(slug), seed=seed)


@pytest.fixture(params=engines.ENGINES)
def slug(request):
    return request.param


def test_get_returns_each_games_engine(slug):
    engine = engine_of(slug)
    assert engine.SLUG == slug
    assert 2 <= engine.MIN_PLAYERS <= engine.MAX_PLAYERS
    for member in ("setup", "legal_actions", "apply", "view", "result"):
        assert callable(getattr(engine, member))


def test_get_refuses_an_unknown_game():
    with pytest.raises(KeyError, match="no game 'skat'"):
        engines.get("skat")


def _imported_modules(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
        elif isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "import_module":
            names |= {arg.value for arg in node.args if isinstance(arg, ast.Constant)}
    return names


@pytest.mark.parametrize("path", sorted(ENGINE_DIR.glob("*.py")), ids=lambda path: path.name)
def test_no_engine_module_imports_django_or_does_io(path):
    imported = _imported_modules(path)
    assert not {name for name in imported if name.split(".")[0] == "django"}
    assert not imported & {"os", "io", "pathlib", "socket", "urllib", "requests", "sqlite3"}


def test_a_new_state_is_json_with_scores_phase_and_log(slug):
    engine, state = new_state(slug)
    assert json.loads(json.dumps(state)) == state
    assert set(state["scores"]) == set(players_for(engine))
    assert isinstance(state["phase"], str)
    assert all(isinstance(event["type"], str) for event in state["log"])
    assert engine.result(state) is None


def test_the_same_seed_gives_the_same_game(slug):
    engine = engine_of(slug)
    players, pack = players_for(engine), pack_for(slug)
    assert engine.setup(players, pack, seed=3) == engine.setup(players, pack, seed=3)
    assert engine.setup(players, pack, seed=3) != engine.setup(players, pack, seed=4)


def test_an_unknown_pile_or_card_in_the_stack_is_an_error(slug):
    engine = engine_of(slug)
    players, pack = players_for(engine), pack_for(slug)
    with pytest.raises(ValueError):
        engine.setup(players, pack, seed=1, options={"stack": {"no-such-pile": []}})
    with pytest.raises(ValueError):
        engine.setup(players, pack, seed=1, options={"stack": {PILES[slug]: ["no-such-card"]}})


def test_too_few_or_too_many_players_are_refused(slug):
    engine = engine_of(slug)
    for count in (engine.MIN_PLAYERS - 1, engine.MAX_PLAYERS + 1):
        with pytest.raises(ValueError):
            engine.setup([f"p{n}" for n in range(count)], pack_for(slug), seed=1)


@pytest.mark.parametrize("action", playouts.JUNK_ACTIONS, ids=repr)
def test_a_malformed_action_raises_illegal_action_and_changes_nothing(slug, action):
    engine, state = new_state(slug)
    before = playouts.dumped(state)
    for player in [*state["scores"], "stranger"]:
        with pytest.raises(IllegalAction):
            engine.apply(state, player, action)
    assert playouts.dumped(state) == before


def test_random_play_keeps_the_contract(slug):
    """A few hundred random legal actions: states stay JSON, apply never mutates its argument,
    every view is JSON, and a state that went through JSON plays on the same."""
    engine, state = new_state(slug)
    rng = random.Random(slug)
    for _ in range(300):
        if engine.result(state) is not None:
            break
        for who in [*state["scores"], None]:
            json.dumps(engine.view(state, who))
        moves = playouts.legal_moves(engine, state)
        assert moves, "nobody can act, but the game is not over"
        player, action = rng.choice(moves)
        new = playouts.check_step(engine, state, player, action)
        assert engine.apply(json.loads(json.dumps(state)), player, action) == new
        state = new
    outcome = engine.result(state)
    if outcome is not None:
        assert set(outcome["scores"]) == set(state["scores"])
        assert set(outcome["winners"]) <= set(state["scores"])


def test_a_pack_of_another_game_is_refused(slug):
    """docs/engines.md, contract: ``content`` is "the content pack of that game"; "a pack of
    another game is refused" with a ValueError naming it."""
    engine = engine_of(slug)
    other = next(game for game in engines.ENGINES if game != slug)
    with pytest.raises(ValueError, match=repr(other)):
        engine.setup(players_for(engine), pack_for(other), seed=0)


def test_someone_not_playing_has_no_legal_action(slug):
    """docs/engines.md, contract: ``legal_actions`` is "empty when none, and for someone not
    playing"."""
    engine, state = new_state(slug)
    assert engine.legal_actions(state, "nobody") == []
