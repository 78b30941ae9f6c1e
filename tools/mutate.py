"""Mutation check: does the test suite notice when a rule is broken?

Applies one small change ("mutant") at a time to a source file — a comparison flipped, a
number off by one, ``and`` for ``or``, ``continue`` for ``break``, a string changed, a call
statement removed, ``\\Z`` for ``$`` in a pattern — runs the given tests against it, and
reports which mutants the tests did not notice ("survived"). Work happens in a throw-away
copy of the project (``git ls-files``), so the checkout is never touched.

    python tools/mutate.py cards/validation.py tests/test_validation_rules.py
    python tools/mutate.py cards/text.py tests/test_text_rules.py --list   # mutants only

Exit status 1 when the score (killed / all mutants, minus those listed as equivalent in
``--equivalent``) is below ``--min-score``.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

COMPARE_SWAPS: dict[type[ast.cmpop], type[ast.cmpop]] = {
    ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.Lt: ast.LtE, ast.LtE: ast.Lt,
    ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.In: ast.NotIn, ast.NotIn: ast.In,
    ast.Is: ast.IsNot, ast.IsNot: ast.Is,
}
BINOP_SWAPS: dict[type[ast.operator], type[ast.operator]] = {
    ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.FloorDiv, ast.FloorDiv: ast.Mult,
    ast.Div: ast.Mult, ast.Mod: ast.Mult, ast.BitOr: ast.BitAnd, ast.BitAnd: ast.BitOr,
}


@dataclass
class Mutant:
    ident: str          # "L42:C8 compare == -> !=": stable enough to list equivalent ones
    line: int
    description: str
    start: int          # offsets into the source text
    end: int
    replacement: str
    status: str = "pending"  # killed, survived, timeout, equivalent
    seconds: float = 0.0


def _offsets(source: str) -> list[int]:
    starts, total = [], 0
    for line in source.splitlines(keepends=True):
        starts.append(total)
        total += len(line.encode("utf-8"))
    return starts


class _Finder(ast.NodeVisitor):
    def __init__(self, source: str) -> None:
        self.source = source
        self.data = source.encode("utf-8")
        self.line_starts = _offsets(source)
        self.mutants: list[Mutant] = []
        self.docstrings: set[int] = set()
        self.skip_depth = 0

    # byte offsets (ast columns are UTF-8 byte offsets)
    def _span(self, node: ast.AST) -> tuple[int, int]:
        start = self.line_starts[node.lineno - 1] + node.col_offset  # type: ignore[attr-defined]
        end = self.line_starts[node.end_lineno - 1] + node.end_col_offset  # type: ignore[attr-defined]
        return start, end

    def add(self, node: ast.AST, replacement: str, description: str) -> None:
        start, end = self._span(node)
        line = node.lineno  # type: ignore[attr-defined]
        col = node.col_offset  # type: ignore[attr-defined]
        self.mutants.append(Mutant(f"L{line}:C{col} {description}", line, description,
                                   start, end, replacement))

    # --- what is not mutated: docstrings, annotations, __future__ imports -------------

    def visit_Module(self, node: ast.Module) -> None:
        self._note_docstring(node)
        self.generic_visit(node)

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        self._note_docstring(node)
        for child in (*node.decorator_list, node.args, *node.body):
            self.visit(child)

    visit_AsyncFunctionDef = visit_FunctionDef  # type: ignore[assignment]

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self._note_docstring(node)
        for child in (*node.bases, *node.keywords, *node.body):
            self.visit(child)

    def visit_arg(self, node: ast.arg) -> None:
        return  # annotations

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is not None:
            self.visit(node.value)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        return

    def _note_docstring(self, node: ast.AST) -> None:
        body = getattr(node, "body", [])
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                and isinstance(body[0].value.value, str):
            self.docstrings.add(id(body[0].value))

    def visit_JoinedStr(self, node: ast.JoinedStr) -> None:
        # An f-string: mutate the expressions inside, and its literal text as a whole.
        for value in node.values:
            if isinstance(value, ast.FormattedValue):
                self.visit(value.value)
        if any(isinstance(v, ast.Constant) and v.value.strip() for v in node.values):
            prefix = self.data[slice(*self._span(node))].decode("utf-8")
            quote = prefix.lstrip("rRfFbB")
            if quote[:1] in "'\"":
                body_start = len(prefix) - len(quote) + (3 if quote[:3] in ('"""', "'''") else 1)
                self.add(node, prefix[:body_start] + "XX" + prefix[body_start:],
                         "f-string text changed")

    # --- mutations ----------------------------------------------------------------------

    def visit_Compare(self, node: ast.Compare) -> None:
        for i, op in enumerate(node.ops):
            swap = COMPARE_SWAPS.get(type(op))
            if swap is None:
                continue
            mutated = ast.Compare(left=node.left, ops=list(node.ops), comparators=node.comparators)
            mutated.ops[i] = swap()
            self.add(node, ast.unparse(mutated),
                     f"compare {_op(op)} -> {_op(swap())}" + (f" (#{i + 1})" if len(node.ops) > 1 else ""))
        self.generic_visit(node)

    def visit_BinOp(self, node: ast.BinOp) -> None:
        swap = BINOP_SWAPS.get(type(node.op))
        if swap is not None and not _is_string_format(node):
            mutated = ast.BinOp(left=node.left, op=swap(), right=node.right)
            self.add(node, _paren(ast.unparse(mutated)), f"operator {_op(node.op)} -> {_op(swap())}")
        self.generic_visit(node)

    def visit_BoolOp(self, node: ast.BoolOp) -> None:
        other = ast.Or() if isinstance(node.op, ast.And) else ast.And()
        self.add(node, _paren(ast.unparse(ast.BoolOp(op=other, values=node.values))),
                 f"{_op(node.op)} -> {_op(other)}")
        self.generic_visit(node)

    def visit_UnaryOp(self, node: ast.UnaryOp) -> None:
        if isinstance(node.op, ast.Not):
            self.add(node, _paren(ast.unparse(node.operand)), "not removed")
        elif isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):
            self.add(node, ast.unparse(node.operand), "unary minus removed")
            return
        self.generic_visit(node)

    def visit_Constant(self, node: ast.Constant) -> None:
        value = node.value
        if id(node) in self.docstrings:
            return
        if isinstance(value, bool):
            self.add(node, repr(not value), f"{value} -> {not value}")
        elif isinstance(value, int):
            self.add(node, repr(value + 1), f"number {value} -> {value + 1}")
            if value != 0:
                self.add(node, "0", f"number {value} -> 0")
        elif isinstance(value, str):
            if "\\Z" in value:
                self.add(node, repr(value.replace("\\Z", "$")), "pattern \\Z -> $")
            if value:
                self.add(node, repr("XX" + value + "XX"), "string changed")
            else:
                self.add(node, repr("XX"), "empty string -> 'XX'")

    def visit_Continue(self, node: ast.Continue) -> None:
        self.add(node, "break", "continue -> break")

    def visit_Break(self, node: ast.Break) -> None:
        self.add(node, "continue", "break -> continue")

    def visit_Expr(self, node: ast.Expr) -> None:
        if isinstance(node.value, ast.Call):
            self.add(node, "pass", "call statement removed")
        self.generic_visit(node)

    def visit_Return(self, node: ast.Return) -> None:
        if node.value is not None and not (isinstance(node.value, ast.Constant)
                                           and node.value.value is None):
            self.add(node, "return None", "return value -> None")
        self.generic_visit(node)

    def visit_Raise(self, node: ast.Raise) -> None:
        self.add(node, "pass", "raise removed")
        self.generic_visit(node)


def _is_string_format(node: ast.BinOp) -> bool:
    return isinstance(node.op, ast.Mod) and isinstance(node.left, ast.Constant) \
        and isinstance(node.left.value, str)


def _paren(text: str) -> str:
    return f"({text})"


def _op(op: ast.AST) -> str:
    return {
        ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=",
        ast.In: "in", ast.NotIn: "not in", ast.Is: "is", ast.IsNot: "is not", ast.Add: "+",
        ast.Sub: "-", ast.Mult: "*", ast.FloorDiv: "//", ast.Div: "/", ast.Mod: "%",
        ast.BitOr: "|", ast.BitAnd: "&", ast.And: "and", ast.Or: "or",
    }.get(type(op), type(op).__name__)


def find_mutants(source: str) -> list[Mutant]:
    finder = _Finder(source)
    finder.visit(ast.parse(source))
    seen: set[tuple[int, int, str]] = set()
    mutants = []
    for mutant in sorted(finder.mutants, key=lambda m: (m.start, m.end, m.description)):
        key = (mutant.start, mutant.end, mutant.replacement)
        if key not in seen:
            seen.add(key)
            mutants.append(mutant)
    return mutants


def apply(source: str, mutant: Mutant) -> str:
    data = source.encode("utf-8")
    return (data[:mutant.start] + mutant.replacement.encode("utf-8") + data[mutant.end:]).decode("utf-8")


# --- running ---------------------------------------------------------------------------------


def copy_project(target: Path) -> None:
    files = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                           cwd=ROOT, check=True, capture_output=True).stdout.split(b"\0")
    for name in filter(None, files):
        path = Path(name.decode())
        if path.parts[0] == ".venv" or not (ROOT / path).is_file():
            continue
        (target / path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / path, target / path)


# Third-party modules every test run imports. The forking runner loads them once; each mutant's
# run then only imports the project's own modules, from the mutated copy.
PRELOAD = (
    "django", "django.db.models", "django.forms", "django.test", "django.core.validators",
    "django.template", "django.urls", "PIL.Image", "tablib", "openpyxl", "polib", "jsonschema",
    "reportlab.pdfgen.canvas", "pypdf", "pytest", "pytest_django", "_pytest.python",
)


class Forker:
    """Runs pytest in a forked child of a process that has imported the libraries once."""

    def __init__(self, workdir: Path) -> None:
        os.chdir(workdir)
        sys.path.insert(0, str(workdir))
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.settings")
        os.environ["PYTHONDONTWRITEBYTECODE"] = "1"
        sys.dont_write_bytecode = True
        import importlib

        for name in PRELOAD:
            try:
                importlib.import_module(name)
            except Exception:  # a library a project does not use: nothing to preload
                continue

    def run(self, tests: list[str], timeout: float, extra: list[str]) -> tuple[str, float]:
        started = time.monotonic()
        pid = os.fork()
        if pid == 0:  # the child: run the tests, never return into the parent's code
            code = 3
            try:
                devnull = os.open(os.devnull, os.O_WRONLY)
                os.dup2(devnull, 1)
                os.dup2(devnull, 2)
                import pytest

                code = int(pytest.main(["-x", "-q", "-p", "no:cacheprovider", "--no-header",
                                        "-o", "addopts=", *extra, *tests]))
            finally:
                os._exit(code)
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                break
            if time.monotonic() - started > timeout:
                os.kill(pid, 9)
                os.waitpid(pid, 0)
                return "timeout", time.monotonic() - started
            time.sleep(0.05)
        code = os.waitstatus_to_exitcode(status)
        if code == 5:
            raise SystemExit(f"no tests ran: {' '.join(tests)}")
        return ("survived" if code == 0 else "killed"), time.monotonic() - started


def run_tests(workdir: Path, tests: list[str], timeout: float, extra: list[str]) -> tuple[str, float]:
    started = time.monotonic()
    command = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider",
               "--no-header", "-o", "addopts=", *extra, *tests]
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    try:
        done = subprocess.run(command, cwd=workdir, env=env, capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timeout", time.monotonic() - started
    status = "survived" if done.returncode == 0 else "killed"
    if done.returncode == 5:
        raise SystemExit(f"no tests ran: {' '.join(tests)}")
    return status, time.monotonic() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("target", help="the source file to mutate, relative to the project")
    parser.add_argument("tests", nargs="*", help="test files or node ids to run per mutant")
    parser.add_argument("--list", action="store_true", help="only list the mutants")
    parser.add_argument("--equivalent", type=Path,
                        help="a file listing equivalent mutants, one ident per line (# comments)")
    parser.add_argument("--min-score", type=float, default=0.0, help="fail below this percentage")
    parser.add_argument("--json", type=Path, help="write every mutant and its status here")
    parser.add_argument("--pytest-args", default="-m ''",
                        help="extra pytest arguments (default: every marker, slow ones too)")
    parser.add_argument("--only", help="run only mutants whose ident contains this text")
    parser.add_argument("--first-pass", default="",
                        help="pytest arguments selecting quick tests to try first, e.g. "
                        "\"-m 'not django_db'\"; the whole selection runs only if they pass")
    parser.add_argument("--timeout", type=float, default=180.0,
                        help="seconds before a mutant's run counts as killed (at least 5 × the "
                        "unmutated run)")
    parser.add_argument("--range", help="only mutants FIRST-LAST (1-based) of the listing")
    parser.add_argument("--sample", type=int, help="run only this many mutants, drawn at random")
    parser.add_argument("--seed", type=int, default=0, help="for --sample")
    parser.add_argument("--fresh-db", action="store_true",
                        help="migrate a new test database for every mutant (slower)")
    parser.add_argument("--rerun", type=Path,
                        help="the --json of an earlier run: run only the mutants it left alive")
    parser.add_argument("--subprocess", action="store_true",
                        help="a fresh interpreter per mutant (slower; the default forks one that "
                        "has loaded the libraries)")
    args = parser.parse_args(argv)

    source = (ROOT / args.target).read_text(encoding="utf-8")
    mutants = find_mutants(source)
    if args.only:
        mutants = [m for m in mutants if args.only in m.ident]
    if args.range:  # "101-135": a slice of the mutants (1-based, inclusive), to share out runs
        first, last = (int(n) for n in args.range.split("-"))
        mutants = mutants[first - 1:last]
    if args.sample:
        import random

        mutants = sorted(random.Random(args.seed).sample(mutants, min(args.sample, len(mutants))),
                         key=lambda m: m.start)
    if args.list:
        for mutant in mutants:
            print(f"{mutant.ident}: {source.encode()[mutant.start:mutant.end].decode()!r} -> "
                  f"{mutant.replacement!r}")
        print(f"{len(mutants)} mutants")
        return 0
    if not args.tests:
        parser.error("name the tests to run")
    equivalent = _read_equivalent(args.equivalent, args.target) if args.equivalent else set()
    if args.rerun:
        # Only the mutants a previous run of the same source left alive run again; tests were
        # only added since, so the ones killed then are still killed.
        before = {m["ident"]: m for m in json.loads(args.rerun.read_text(encoding="utf-8"))}
        if set(before) != {m.ident for m in mutants}:
            parser.error(f"{args.rerun} was made from another version of {args.target}")
        for mutant in mutants:
            if before[mutant.ident]["status"] in ("killed", "invalid"):  # timeouts run again
                mutant.status = before[mutant.ident]["status"]
                mutant.seconds = before[mutant.ident]["seconds"]
    extra = _split(args.pytest_args)

    with tempfile.TemporaryDirectory(prefix="kartothek-mutate-") as tmp:
        workdir = Path(tmp)
        copy_project(workdir)
        target = workdir / args.target
        first_pass = _split(args.first_pass) if args.first_pass else []
        if not args.fresh_db:
            # One test database on disk, migrated by the first run and reused by every mutant's
            # run (each test still runs in a transaction that is rolled back).
            (workdir / "tests" / "mutation_settings.py").write_text(
                "from tests.settings import *  # noqa: F403\n"
                "DATABASES['default'].setdefault('TEST', {})['NAME'] = "
                f"{str(workdir / 'mutation-test.sqlite3')!r}\n", encoding="utf-8")
            extra = [*extra, "--ds", "tests.mutation_settings", "--reuse-db"]
        if args.subprocess:
            def run(timeout: float, more: list[str] = []) -> tuple[str, float]:  # noqa: B006
                return run_tests(workdir, args.tests, timeout, [*extra, *more])
        else:
            forker = Forker(workdir)

            def run(timeout: float, more: list[str] = []) -> tuple[str, float]:  # noqa: B006
                return forker.run(args.tests, timeout, [*extra, *more])
        baseline, seconds = run(1800)
        if baseline != "survived":
            print(f"The tests fail without any mutant ({baseline}); fix them first.", file=sys.stderr)
            return 2
        # Generous: on a busy machine a slow run must not pass for a killed mutant.
        timeout = max(args.timeout, seconds * 5)
        print(f"{len(mutants)} mutants of {args.target}; the tests take {seconds:.1f} s unmutated",
              flush=True)
        for number, mutant in enumerate(mutants, start=1):
            if mutant.status != "pending":
                continue
            if mutant.ident in equivalent:
                mutant.status = "equivalent"
                continue
            target.write_text(apply(source, mutant), encoding="utf-8")
            try:
                compile(target.read_text(encoding="utf-8"), str(target), "exec")
            except SyntaxError:
                mutant.status = "invalid"
                continue
            mutant.status, mutant.seconds = "survived", 0.0
            if first_pass:  # a quick selection first: most mutants die there
                mutant.status, mutant.seconds = run(timeout, first_pass)
            if mutant.status == "survived":
                mutant.status, seconds = run(timeout)
                mutant.seconds += seconds
            if mutant.status == "survived" or number % 20 == 0:
                print(f"[{number}/{len(mutants)}] {mutant.status}: {mutant.ident}", flush=True)
        target.write_text(source, encoding="utf-8")

    counted = [m for m in mutants if m.status in ("killed", "survived", "timeout")]
    killed = sum(1 for m in counted if m.status in ("killed", "timeout"))
    score = 100.0 * killed / len(counted) if counted else 100.0
    n_equivalent = sum(1 for m in mutants if m.status == "equivalent")
    print(f"{args.target}: {killed} of {len(counted)} behaviour-changing mutants killed "
          f"({score:.1f} %); {n_equivalent} listed as equivalent; "
          f"{sum(1 for m in mutants if m.status == 'invalid')} invalid")
    if args.json:
        args.json.write_text(json.dumps([asdict(m) for m in mutants], indent=1), encoding="utf-8")
    return 1 if score < args.min_score else 0


def _read_equivalent(path: Path, target: str) -> set[str]:
    """Lines "TARGET IDENT" (e.g. "cards/text.py L42:C8 compare == -> !=") of one file."""
    found = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line.startswith("- `") and "` " in line:  # a Markdown list item: - `file Lx:Cy …`
            line = line[3:line.index("`", 3)]
        if line.startswith(target + " "):
            found.add(line[len(target) + 1:].strip())
    return found


def _split(text: str) -> list[str]:
    import shlex

    return shlex.split(text)


if __name__ == "__main__":
    raise SystemExit(main())
