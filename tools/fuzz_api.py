"""`make fuzz-api`: schemathesis against the served API description (packs and play).

    python tools/fuzz_api.py [--max-examples 50] [--seed 14] [-- extra schemathesis options]

The same stack as tools/load.py (a throw-away PostgreSQL with the starter catalogue and its
releases, gunicorn with the production settings on loopback). A room of the starter's
Sauschwer is opened through the API first and its code, seat and token are given to
schemathesis (a room code cannot be an example in the description: rooms are made at run
time), so the play operations get past 404 and 403. schemathesis then reads
``/api/openapi.json`` from the server and runs its phases (the description's examples,
coverage, fuzzing, stateful) with the checks that matter at the edge: no 5xx, every status
code, content type, header and body as the description declares them, and a JSON 405 for a
method an operation does not declare.

Prints schemathesis' summary (cases run, failures) and exits with its exit code; the reports
(JUnit XML, the failures' cURL reproductions) stay in the printed folder when a check fails.
"""

from __future__ import annotations

import argparse
import json
import shutil
import signal
import subprocess
import sys
import tempfile
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from load import HOST, free_port, gunicorn, log, machine, postgres, prepare, server_environment

CHECKS = ",".join([
    "not_a_server_error", "status_code_conformance", "content_type_conformance",
    "response_headers_conformance", "response_schema_conformance", "unsupported_method",
    "allow_header_conformance",
])


def post(port: int, path: str, data: dict[str, object], token: str | None = None) -> dict[str, object]:
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(f"http://{HOST}:{port}{path}", data=json.dumps(data).encode(),
                                     headers=headers, method="POST")
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.loads(answer.read())  # type: ignore[no-any-return]


def open_room(port: int) -> tuple[str, str, str, str]:
    """A started two-seat room: (code, host seat, host token, the other seat)."""
    created = post(port, "/api/play/rooms", {"game": "sauschwer", "language": "en", "name": "Fuzz",
                                             "cookie": False})
    code, token = str(created["code"]), str(created["token"])
    joined = post(port, f"/api/play/rooms/{code}/seats", {"name": "Other", "cookie": False})
    post(port, f"/api/play/rooms/{code}/start", {}, token)
    return code, str(created["seat"]), token, str(joined["seat"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--max-examples", type=int, default=50, help="cases per operation and phase")
    parser.add_argument("--seed", type=int, default=14)
    parser.add_argument("--database-url", default=None)
    parser.add_argument("--keep", action="store_true", help="keep the run's folder")
    parser.add_argument("extra", nargs="*", help="more schemathesis options (after --)")
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

    folder = Path(tempfile.mkdtemp(prefix="kartothek-fuzz-"))
    log(f"machine: {machine()}; files in {folder}")
    with postgres(args.database_url) as server:
        env = server_environment(server.url, folder / "var", free_port(), workers=2, recycle=True)
        prepare(env)
        with gunicorn(env, folder):
            port = int(env["PORT"])
            code, seat, token, other = open_room(port)
            log(f"room {code}: seat {seat} (its token is sent), seat {other}")
            # Path parameters a description cannot know; every other value is schemathesis'.
            (folder / "schemathesis.toml").write_text(
                f'[parameters]\n"path.code" = "{code}"\n"path.seat" = "{other}"\n', encoding="utf-8")
            command = [
                str(Path(sys.executable).parent / "schemathesis"), "--config-file",
                str(folder / "schemathesis.toml"), "run", f"http://{HOST}:{port}/api/openapi.json",
                "--url", f"http://{HOST}:{port}", "--checks", CHECKS,
                "--header", f"Authorization: Bearer {token}",
                "--max-examples", str(args.max_examples), "--seed", str(args.seed),
                "--generation-database", "none", "--workers", "2", "--no-color",
                # our seat's token, never a generated one (else nearly every play call is a 403)
                "--generation-with-security-parameters", "false",
                "--report", "junit", "--report-dir", str(folder / "report"),
                "--request-timeout", "30", *args.extra,
            ]
            done = subprocess.run(command, cwd=folder, timeout=3600)
    if done.returncode == 0 and not args.keep:
        shutil.rmtree(folder, ignore_errors=True)
    else:
        log(f"reports in {folder}/report")
    return done.returncode


if __name__ == "__main__":
    sys.exit(main())
