"""deploy/nginx.conf run for real on loopback: filled in as README "Behind nginx" says, nginx
started in the foreground with its pid, logs and temporary files in a folder of the caller's
(so it needs no root), and stopped again. Used by tests/test_front_proxy.py and
bench/serve_speed.py."""

from __future__ import annotations

import grp
import os
import pwd
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RECIPE = ROOT / "deploy" / "nginx.conf"
PLACEHOLDERS = ("LISTEN", "APP_SERVER", "VAR_DIR", "RUN_DIR")


def nginx_binary() -> str | None:
    return shutil.which("nginx") or next(
        (p for p in ("/usr/sbin/nginx", "/sbin/nginx") if os.access(p, os.X_OK)), None)


def render(values: dict[str, str]) -> str:
    """The recipe with its four placeholders filled in, as envsubst with that list would."""
    text = RECIPE.read_text()
    for name in PLACEHOLDERS:
        text = text.replace("${" + name + "}", values[name])
    if "${" in text:
        raise ValueError("deploy/nginx.conf has a placeholder this tool does not know")
    return text


class FrontProxy:
    """nginx with the recipe, listening on 127.0.0.1:``port`` in front of ``app`` (HOST:PORT)."""

    def __init__(self, port: int, app: str, var_dir: Path, run_dir: Path) -> None:
        binary = nginx_binary()
        if binary is None:
            raise RuntimeError("nginx is not installed (apt-get install nginx-light)")
        self.port, self.run_dir = port, run_dir
        run_dir.mkdir(parents=True, exist_ok=True)
        self.conf = run_dir / "nginx.conf"
        self.conf.write_text(render({"LISTEN": f"127.0.0.1:{port}", "APP_SERVER": app,
                                     "VAR_DIR": str(var_dir), "RUN_DIR": str(run_dir)}))
        # Workers as the user running this (as root, nginx would switch them to `nobody`,
        # which may not read a private temporary folder); ignored with a notice otherwise.
        user = pwd.getpwuid(os.geteuid()).pw_name
        group = grp.getgrgid(os.getegid()).gr_name
        self.command = [binary, "-p", str(run_dir), "-c", str(self.conf), "-e",
                        str(run_dir / "error.log"), "-g", f"daemon off; user {user} {group};"]
        self.process: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> FrontProxy:
        check = subprocess.run([*self.command, "-t"], capture_output=True, text=True)
        if check.returncode:
            raise RuntimeError(f"nginx -t failed:\n{check.stderr}")
        self.process = subprocess.Popen(self.command, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + 10
        while True:
            if self.process.poll() is not None:
                raise RuntimeError(f"nginx exited with {self.process.returncode}:\n{self.log()}")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return self
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"nginx did not listen within 10 s:\n{self.log()}") from None
                time.sleep(0.05)

    def log(self) -> str:
        path = self.run_dir / "error.log"
        return path.read_text()[-3000:] if path.exists() else ""

    def __exit__(self, *exc: object) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        self.process.send_signal(signal.SIGQUIT)  # graceful: workers finish their requests
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(5)
