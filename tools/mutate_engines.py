"""Mutation testing of the game engines: does some fast test fail when a rule is changed?

    python tools/mutate_engines.py [--files sign slogan …] [--sample N] [--seed S]
                                   [--timeout SECONDS] [--json OUT] [--list]

Each mutant is one small change to one engine module (``games/engines/*.py``): a comparison
flipped (``==``/``!=``, ``<``/``<=``, ``>``/``>=``, ``in``/``not in``, ``is``/``is not``), ``and``/``or``
swapped, a ``not`` dropped, an integer constant moved by one, ``True``/``False`` swapped, ``+``/``-``
swapped (also in ``+=``/``-=``), a statement replaced by ``pass`` (an assignment, a call, an
append …), or a ``return`` of a value replaced by ``return None``. String constants (messages,
keys) are left alone.

The modules are imported once; each mutant runs in a forked child that executes the mutated
source into the module's namespace (for ``base.py`` the four engines are executed again so
they take the mutated helpers) and runs that engine's fast tests with ``pytest -x``: the
scripted tests first, the property tests after. A mutant is *killed* when a test fails (or
errors, or the run exceeds ``--timeout``: an endless loop), and *survives* when every test
passes. ``--sample N`` runs N mutants drawn with ``--seed`` instead of all of them.

The report (and ``--json``) lists each survivor with its line, so it can be killed by a new
test or written down as equivalent (``docs/mutation-testing-engines.md``).
"""

from __future__ import annotations

import argparse
import ast
import copy
import importlib
import json
import os
import random
import signal
import sys
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ENGINE_DIR = ROOT / "games" / "engines"
MODULES = ("base", "symbols", "sign", "slogan", "sauschwer")
GAMES = ("symbols", "sign", "slogan", "sauschwer")

# The engine tests need neither Django nor a browser: leaving those plugins out saves most of a
# pytest start in every child.
PYTEST_ARGS = ["-x", "-q", "-p", "no:cacheprovider", "-p", "no:django", "-p", "no:playwright"]
PYTEST_ARGS += ["-p", "no:base_url"]
TIMED_OUT, MUTANT_BROKE = 124, 120  # exit codes of a child that pytest does not use
COMPARE_SWAPS: dict[type[ast.cmpop], type[ast.cmpop]] = {
    ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE,
    ast.GtE: ast.Gt, ast.In: ast.NotIn, ast.NotIn: ast.In, ast.Is: ast.IsNot, ast.IsNot: ast.Is,
}  # fmt: skip
BINOP_SWAPS: dict[type[ast.operator], type[ast.operator]] = {ast.Add: ast.Sub, ast.Sub: ast.Add}


@dataclass
class Mutant:
    module: str
    number: int  # the mutation site's index in the module (stable for the same source)
    line: int
    kind: str
    before: str
    after: str
    outcome: str = ""  # killed, survived, timeout
    seconds: float = 0.0


# --- making mutants --------------------------------------------------------------------------


def _docstring_nodes(tree: ast.AST) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                ids.add(id(body[0]))
    return ids


def _annotation_nodes(tree: ast.AST) -> set[int]:
    """Every node inside an annotation (types are not behaviour)."""
    ids: set[int] = set()
    for node in ast.walk(tree):
        annotations = []
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            annotations.append(node.returns)
            args = node.args
            for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]:
                if arg is not None:
                    annotations.append(arg.annotation)
        elif isinstance(node, ast.AnnAssign):
            annotations.append(node.annotation)
        for annotation in annotations:
            if annotation is not None:
                ids |= {id(inner) for inner in ast.walk(annotation)}
    return ids


def _in_raise(tree: ast.AST) -> set[int]:
    """Nodes in the argument of a ``raise`` (a message, not a rule)."""
    ids: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Raise) and node.exc is not None:
            ids |= {id(inner) for inner in ast.walk(node.exc)}
    return ids


def _sites(tree: ast.Module) -> Iterator[tuple[ast.AST, str, str, str]]:
    """(node, kind, before, after) for each mutation of the tree, in a stable order."""
    skip = _docstring_nodes(tree) | _annotation_nodes(tree) | _in_raise(tree)
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Compare):
            for index, op in enumerate(node.ops):
                if type(op) in COMPARE_SWAPS:
                    after = COMPARE_SWAPS[type(op)].__name__
                    yield node, f"compare:{index}", type(op).__name__, after
        elif isinstance(node, ast.BoolOp):
            yield node, "boolop", type(node.op).__name__, "Or" if isinstance(node.op, ast.And) else "And"
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            yield node, "drop-not", "not x", "x"
        elif isinstance(node, ast.Constant) and type(node.value) is bool:
            yield node, "bool", str(node.value), str(not node.value)
        elif isinstance(node, ast.Constant) and type(node.value) is int:
            yield node, "int", str(node.value), str(node.value + 1)
        elif isinstance(node, (ast.BinOp, ast.AugAssign)) and type(node.op) in BINOP_SWAPS:
            yield node, "binop", type(node.op).__name__, BINOP_SWAPS[type(node.op)].__name__
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.For, ast.If, ast.While, ast.With)):
            for field in ("body", "orelse"):
                for statement in getattr(node, field, []):
                    if id(statement) in skip:
                        continue
                    if isinstance(statement, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr)):
                        yield statement, f"delete:{field}", ast.unparse(statement)[:60], "pass"
                    elif isinstance(statement, ast.Return) and not _returns_none(statement):
                        yield statement, "return-none", ast.unparse(statement)[:60], "return None"


def _returns_none(statement: ast.Return) -> bool:
    value = statement.value
    return value is None or (isinstance(value, ast.Constant) and value.value is None)


def _apply(tree: ast.Module, target: ast.AST, kind: str) -> ast.Module:
    """A copy of the tree with the mutation at ``target`` (found by position in the walk)."""
    nodes = list(ast.walk(tree))
    index = nodes.index(target)
    new = copy.deepcopy(tree)
    node = list(ast.walk(new))[index]
    if kind.startswith("compare:"):
        position = int(kind.split(":")[1])
        assert isinstance(node, ast.Compare)
        node.ops[position] = COMPARE_SWAPS[type(node.ops[position])]()
    elif kind == "boolop":
        assert isinstance(node, ast.BoolOp)
        node.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()
    elif kind == "drop-not":
        _replace(new, node, node.operand)  # type: ignore[attr-defined]
    elif kind in ("bool", "int"):
        assert isinstance(node, ast.Constant)
        node.value = (not node.value) if kind == "bool" else node.value + 1
    elif kind == "binop":
        node.op = BINOP_SWAPS[type(node.op)]()  # type: ignore[attr-defined]
    elif kind.startswith("delete:"):
        _replace(new, node, ast.Pass())
    elif kind == "return-none":
        node.value = ast.Constant(value=None)  # type: ignore[attr-defined]
    return ast.fix_missing_locations(new)


def _replace(tree: ast.AST, old: ast.AST, new: ast.AST) -> None:
    for parent in ast.walk(tree):
        for field, value in ast.iter_fields(parent):
            if value is old:
                setattr(parent, field, new)
                return
            if isinstance(value, list) and any(item is old for item in value):
                value[[item is old for item in value].index(True)] = new
                return
    raise LookupError("node not found")


def mutants_of(module: str) -> list[tuple[Mutant, ast.Module]]:
    source = (ENGINE_DIR / f"{module}.py").read_text(encoding="utf-8")
    tree = ast.parse(source)
    found = []
    for number, (node, kind, before, after) in enumerate(_sites(tree)):
        mutant = Mutant(module, number, getattr(node, "lineno", 0), kind, before, after)
        found.append((mutant, (tree, node, kind)))
    return found  # type: ignore[return-value]


# --- running them ----------------------------------------------------------------------------


def tests_for(module: str) -> list[str]:
    """The fast tests that hold this module's rules: scripted first, properties after."""
    engines_tests = ROOT / "tests" / "engines"
    games = GAMES if module == "base" else (module,)
    scripted, properties = [], []
    for game in games:
        for path in sorted(engines_tests.glob(f"test_{game}*.py")):
            (properties if "properties" in path.name else scripted).append(str(path))
    shared = [str(engines_tests / name) for name in ("test_contract.py", "test_view_keys.py")]
    shared.append(str(engines_tests / "test_fair_bots.py"))
    selection = [] if module == "base" else ["-k", module]
    return [*scripted, *properties, *shared, *selection]


def _exec_mutant(mutant: Mutant, tree: ast.Module) -> None:
    """Put the mutated module (and, for base, engines using it) in place, in this process."""
    code = compile(tree, str(ENGINE_DIR / f"{mutant.module}.py"), "exec")
    module = sys.modules[f"games.engines.{mutant.module}"]
    exec(code, module.__dict__)
    if mutant.module == "base":
        for game in GAMES:
            path = ENGINE_DIR / f"{game}.py"
            engine = sys.modules[f"games.engines.{game}"]
            exec(compile(path.read_text(encoding="utf-8"), str(path), "exec"), engine.__dict__)


def run_one(mutant: Mutant, tree: ast.Module, timeout: float) -> Mutant:
    import pytest

    start = time.perf_counter()
    pid = os.fork()
    if pid == 0:  # the child: mutate, test, report by exit code
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        signal.alarm(int(timeout))
        signal.signal(signal.SIGALRM, lambda *_: os._exit(TIMED_OUT))
        try:
            _exec_mutant(mutant, tree)
            code = pytest.main([*tests_for(mutant.module), *PYTEST_ARGS])
        except BaseException:  # the mutated module does not even load
            os._exit(MUTANT_BROKE)
        os._exit(int(code))
    _, status = os.waitpid(pid, 0)
    code = os.waitstatus_to_exitcode(status)
    mutant.seconds = round(time.perf_counter() - start, 2)
    # 1: a test failed. Anything else but a pass (pytest's own errors, no tests collected) is
    # a problem of the run, reported as such and not counted as a kill.
    outcomes = {0: "survived", 1: "killed", TIMED_OUT: "timeout", MUTANT_BROKE: "killed"}
    mutant.outcome = outcomes.get(code, f"error-{code}")
    return mutant


def _describe(mutant: Mutant) -> str:
    where = f"{mutant.module}:{mutant.number} line {mutant.line}"
    return f"{where} {mutant.kind}: {mutant.before} -> {mutant.after}"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--files", nargs="*", default=list(MODULES), choices=MODULES)
    parser.add_argument("--sample", type=int, default=0, help="run only this many mutants (0: all)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--timeout", type=float, default=120)
    parser.add_argument("--json", type=Path, help="write every mutant and its outcome here")
    parser.add_argument("--list", action="store_true", help="list the mutants, run nothing")
    parser.add_argument("--only", nargs="*", default=[], help="MODULE:NUMBER mutants to run")
    parser.add_argument("--skip", type=Path, nargs="*", default=[], help="--json files of mutants run before")
    args = parser.parse_args()

    sys.path.insert(0, str(ROOT))
    os.chdir(ROOT)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.settings")
    everything = [item for module in args.files for item in mutants_of(module)]
    done = {f"{m['module']}:{m['number']}" for path in args.skip for m in json.loads(path.read_text())}
    everything = [item for item in everything if f"{item[0].module}:{item[0].number}" not in done]
    chosen = everything
    if args.only:
        wanted = set(args.only)
        chosen = [item for item in everything if f"{item[0].module}:{item[0].number}" in wanted]
    elif args.sample and args.sample < len(everything):
        sample = random.Random(args.seed).sample(everything, args.sample)
        chosen = sorted(sample, key=lambda item: (item[0].module, item[0].number))
    if args.list:
        for mutant, _ in chosen:
            print(_describe(mutant))
        print(f"{len(chosen)} of {len(everything)} mutants")
        return
    # Imported once here, shared by every forked child (the children only re-execute): the
    # engines, the bots, pytest and the test modules (pytest finds them in sys.modules).
    import django

    django.setup()  # tests/conftest.py imports models; the children need not set it up again
    for name in MODULES:
        importlib.import_module(f"games.engines.{name}")
    importlib.import_module("games.bots")
    for game in GAMES:
        importlib.import_module(f"games.bots.{game}")
    import pytest

    for path in sorted((ROOT / "tests" / "engines").glob("*.py")):
        importlib.import_module(f"tests.engines.{path.stem}")
    importlib.import_module("conftest")
    pytest.main(["--collect-only", "-q", *PYTEST_ARGS, "tests/engines/test_contract.py"])
    start, cpu_start = time.perf_counter(), time.process_time()
    results = []
    for count, (mutant, (tree, node, kind)) in enumerate(chosen, start=1):
        mutated = _apply(tree, node, kind)
        results.append(run_one(mutant, mutated, args.timeout))
        if mutant.outcome != "killed":
            print(f"[{count}/{len(chosen)}] {mutant.outcome}: {_describe(mutant)}", flush=True)
    elapsed = time.perf_counter() - start
    children = os.times()
    cpu = time.process_time() - cpu_start + children.children_user + children.children_system
    summary: dict[str, dict[str, int]] = {}
    for mutant in results:
        summary.setdefault(mutant.module, {}).setdefault(mutant.outcome, 0)
        summary[mutant.module][mutant.outcome] += 1
    print(f"\n{len(results)} mutants run of {len(everything)} in {elapsed:.0f} s (CPU {cpu:.0f} s)")
    for module, outcomes in summary.items():
        total = sum(outcomes.values())
        killed = outcomes.get("killed", 0) + outcomes.get("timeout", 0)
        print(f"  {module}: {total} run, {killed} killed ({killed / total:.1%}), {outcomes}")
    if args.json:
        args.json.write_text(json.dumps([asdict(m) for m in results], indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
