"""Production serving: the settings an operator writes down in deploy/production.env.example
pass `check --deploy`, and `make serve`'s gunicorn serves a styled admin with DEBUG off."""

from __future__ import annotations

import gzip
import http.client
import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "deploy" / "production.env.example"
GUNICORN_CONF = ROOT / "deploy" / "gunicorn.conf.py"


def example_variables() -> dict[str, str]:
    values = {}
    for line in EXAMPLE.read_text().splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            name, sep, value = line.partition("=")
            assert sep, f"not NAME=value: {line!r}"
            values[name.strip()] = value
    return values


def filled_in_variables() -> dict[str, str]:
    """The example as an operator fills it in: every change-me secret replaced by a new one."""
    import base64
    import secrets

    values = example_variables()
    values["SECRET_KEY"] = secrets.token_urlsafe(50)
    values["KARTOTHEK_SIGNING_KEY"] = base64.b64encode(secrets.token_bytes(32)).decode()
    values["DATABASE_URL"] = values["DATABASE_URL"].replace("change-me", secrets.token_urlsafe(16))
    assert "change-me" not in "".join(values.values()).lower()
    return values


def clean_environment(**extra: str) -> dict[str, str]:
    keep = {k: v for k, v in os.environ.items()
            if k in {"PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "SYSTEMROOT"}}
    return {**keep, "DJANGO_SETTINGS_MODULE": "kartothek.settings", **extra}


def manage(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)


def test_every_variable_of_the_example_has_a_comment_and_is_read_somewhere():
    readers = "".join(p.read_text() for p in
                      [ROOT / "kartothek" / "settings.py", GUNICORN_CONF, ROOT / "Makefile"])
    # Paragraphs (blank-line separated): each begins with a comment saying what its variables do.
    for paragraph in EXAMPLE.read_text().split("\n\n"):
        lines = [line for line in paragraph.splitlines() if line.strip()]
        names = [line.partition("=")[0] for line in lines if not line.startswith("#")]
        if names:
            assert lines[0].startswith("#"), f"{names} have no comment"
        for name in names:
            assert f'"{name}"' in readers or f"'{name}'" in readers or f"$({name})" in readers, \
                f"{name} is read by nothing"


def test_a_shell_reads_the_example_as_the_readme_says_with_the_same_values():
    script = f'set -a; . "{EXAMPLE}"; set +a; env -0'
    result = subprocess.run(["bash", "-c", script], env={"PATH": os.environ["PATH"]},
                            capture_output=True, timeout=30)
    assert result.returncode == 0 and not result.stderr, result.stderr
    seen = dict(item.split("=", 1) for item in result.stdout.decode().split("\0") if "=" in item)
    assert {name: seen.get(name) for name in example_variables()} == example_variables()


def test_every_variable_of_the_example_is_in_the_readme_configuration_table():
    readme = (ROOT / "README.md").read_text()
    table = readme[readme.index("## Configuration"):]
    table = table[:table.index("\n## ", 5)]
    missing = [name for name in example_variables() if f"`{name}`" not in table]
    assert missing == []


def test_check_deploy_is_clean_with_the_example_production_variables(tmp_path):
    env = clean_environment(**{**filled_in_variables(), "KARTOTHEK_VAR_DIR": str(tmp_path)})
    result = manage(env, "check", "--deploy", "--fail-level", "DEBUG")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues (0 silenced)." in result.stdout


def test_check_deploy_names_what_is_missing_without_the_production_variables(tmp_path):
    env = clean_environment(SECRET_KEY="x" * 60, ALLOWED_HOSTS="cards.example.org",
                            KARTOTHEK_VAR_DIR=str(tmp_path))
    result = manage(env, "check", "--deploy")
    for warning in ["security.W004", "security.W008", "security.W012", "security.W016"]:
        assert warning in result.stderr + result.stdout


def test_the_example_secrets_are_placeholders_that_refuse_to_load(tmp_path):
    values = {**filled_in_variables(), "KARTOTHEK_VAR_DIR": str(tmp_path)}
    kept_secret = manage(clean_environment(**{**values,
                                              "SECRET_KEY": example_variables()["SECRET_KEY"]}),
                         "check")
    assert kept_secret.returncode != 0
    assert "SECRET_KEY is still the placeholder from deploy/production.env.example" in \
        kept_secret.stderr
    kept_key = manage(clean_environment(**{
        **values, "KARTOTHEK_SIGNING_KEY": example_variables()["KARTOTHEK_SIGNING_KEY"]}), "check")
    assert kept_key.returncode != 0
    assert "exports.E001" in kept_key.stderr
    assert "KARTOTHEK_SIGNING_KEY is still the placeholder" in kept_key.stderr


# What earlier versions of deploy/production.env.example held: valid values that loaded.
EARLIER_EXAMPLE = {
    "SECRET_KEY": "CHANGE-ME-to-a-long-random-string-of-at-least-fifty-characters-0123456789",
    "KARTOTHEK_SIGNING_KEY": "Q0hBTkdFLU1FLWdlbmVyYXRlLXlvdXItb3duLWtleSE=",
    "DATABASE_URL": "postgres://kartothek:CHANGE-ME@127.0.0.1:5432/kartothek",
}


def test_check_deploy_errors_on_every_secret_copied_from_an_earlier_example(tmp_path):
    loadable = {k: v for k, v in EARLIER_EXAMPLE.items() if k != "SECRET_KEY"}
    env = clean_environment(**{**filled_in_variables(), **loadable,
                               "KARTOTHEK_VAR_DIR": str(tmp_path)})
    result = manage(env, "check", "--deploy")
    assert result.returncode != 0
    out = result.stdout + result.stderr
    for name in ("KARTOTHEK_SIGNING_KEY", "database password"):
        assert f"{name} is the value from deploy/production.env.example" in out, out
    assert out.count("kartothek.E001") == 2
    # the old SECRET_KEY now stops the start (it begins with change-me, in any case)
    env = clean_environment(**{**filled_in_variables(), "KARTOTHEK_VAR_DIR": str(tmp_path),
                               "SECRET_KEY": EARLIER_EXAMPLE["SECRET_KEY"]})
    assert "SECRET_KEY is still the placeholder" in manage(env, "check", "--deploy").stderr
    # one at a time: each alone is an error
    for name, value in loadable.items():
        env = clean_environment(**{**filled_in_variables(), name: value,
                                   "KARTOTHEK_VAR_DIR": str(tmp_path)})
        alone = manage(env, "check", "--deploy")
        assert alone.returncode != 0 and (alone.stdout + alone.stderr).count("kartothek.E001") == 1


def test_check_without_deploy_does_not_judge_the_secrets(settings):
    from common import deploy_checks

    settings.SECRET_KEY = EARLIER_EXAMPLE["SECRET_KEY"]
    assert [e.id for e in deploy_checks.check_no_example_secrets(None)] == ["kartothek.E001"]
    from django.core import checks
    assert "kartothek.E001" not in [m.id for m in checks.run_checks(include_deployment_checks=False)]


@pytest.mark.parametrize(("name", "value", "message"), [
    ("SECURE_HSTS_SECONDS", "a year", "SECURE_HSTS_SECONDS='a year' is not a whole number"),
    ("SECURE_HSTS_SECONDS", "-5", "SECURE_HSTS_SECONDS='-5' must be at least 0"),
    ("SECURE_PROXY_SSL_HEADER", "https", "is not 'Header-Name: value'"),
    ("SECURE_SSL_REDIRECT", "sometimes", "SECURE_SSL_REDIRECT='sometimes' is not a boolean"),
])
def test_a_production_setting_that_cannot_be_understood_stops_the_start(tmp_path, name, value,
                                                                         message):
    env = clean_environment(SECRET_KEY="x", KARTOTHEK_VAR_DIR=str(tmp_path), **{name: value})
    result = manage(env, "check")
    assert result.returncode != 0
    assert message in result.stderr


def test_the_proxy_header_and_the_security_settings_come_from_the_environment(tmp_path):
    env = clean_environment(**{**filled_in_variables(), "KARTOTHEK_VAR_DIR": str(tmp_path)})
    script = ("import django; django.setup(); from django.conf import settings as s; "
              "print(s.SECURE_PROXY_SSL_HEADER, s.SECURE_HSTS_SECONDS, s.SESSION_COOKIE_SECURE, "
              "s.CSRF_TRUSTED_ORIGINS, s.X_FRAME_OPTIONS)")
    result = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == (
        "('HTTP_X_FORWARDED_PROTO', 'https') 31536000 True ['https://cards.example.org'] DENY")


def test_make_serve_runs_gunicorn_with_the_config_file_after_collectstatic():
    result = subprocess.run(["make", "-n", "serve", "HOST=127.0.0.2", "PORT=9123", "STAMP=/dev/null"],
                            cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    collect = next(i for i, line in enumerate(lines) if "collectstatic --no-input" in line)
    serve = next(i for i, line in enumerate(lines) if "gunicorn --config deploy/gunicorn.conf.py" in line)
    assert collect < serve
    assert lines[serve].startswith("HOST=127.0.0.2 PORT=9123 ")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def get(port: int, path: str, headers: dict[str, str]) -> tuple[int, dict[str, str], bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        connection.request("GET", path, headers=headers)
        response = connection.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        connection.close()


def start_gunicorn(env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    """`make serve`'s server command (see the Makefile), in this test's environment."""
    with log.open("wb") as out:
        return subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "--config", str(GUNICORN_CONF),
             "kartothek.asgi:application"],
            cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)


def wait_until_up(server: subprocess.Popen[bytes], port: int, log: Path) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise AssertionError(f"gunicorn exited:\n{log.read_text()[-3000:]}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.2)
    raise AssertionError(f"gunicorn did not answer:\n{log.read_text()[-3000:]}")


def stop(server: subprocess.Popen[bytes]) -> None:
    server.terminate()
    try:
        server.wait(timeout=20)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()


@pytest.mark.slow
def test_gunicorn_serves_a_styled_admin_with_debug_off_and_the_security_headers(tmp_path):
    port = free_port()
    env = clean_environment(**{
        **filled_in_variables(), "DATABASE_URL": "", "KARTOTHEK_VAR_DIR": str(tmp_path),
        "ALLOWED_HOSTS": "127.0.0.1", "HOST": "127.0.0.1", "PORT": str(port),
        "WEB_CONCURRENCY": "2", "CSRF_TRUSTED_ORIGINS": "https://127.0.0.1",
    })
    for step in (["migrate", "--no-input"], ["collectstatic", "--no-input"]):
        done = manage(env, *step)
        assert done.returncode == 0, done.stderr
    log = tmp_path / "gunicorn.log"
    server = start_gunicorn(env, log)
    try:
        wait_until_up(server, port, log)
        # Plain HTTP is sent to HTTPS …
        status, headers, _ = get(port, "/admin/login/", {})
        assert status == 301 and headers["location"] == f"https://127.0.0.1:{port}/admin/login/"
        # … and what the TLS proxy forwards is served, with every security header.
        https = {"X-Forwarded-Proto": "https"}
        status, headers, body = get(port, "/admin/login/", https)
        assert status == 200, body[:500]
        csp = headers["content-security-policy"]
        assert "default-src 'self'" in csp and "frame-ancestors 'none'" in csp
        assert "unsafe-inline" not in csp
        assert headers["strict-transport-security"] == "max-age=31536000; includeSubDomains; preload"
        assert headers["x-content-type-options"] == "nosniff"
        assert headers["x-frame-options"] == "DENY"
        assert "secure" in headers["set-cookie"].lower()  # the CSRF cookie
        stylesheets = re.findall(rb'<link rel="stylesheet" href="(/static/[^"]+\.css)"', body)
        assert stylesheets, body[:1000]
        for href in stylesheets:
            assert re.search(rb"\.[0-9a-f]{12}\.css$", href), href  # a hashed name
            status, css_headers, css = get(port, href.decode(), {**https, "Accept-Encoding": "gzip"})
            assert status == 200, href
            assert css_headers["content-type"].startswith("text/css")
            assert css_headers.get("content-encoding") == "gzip"
            assert b"{" in gzip.decompress(css)
            assert "max-age=315360000" in css_headers["cache-control"]  # hashed: cached for ever
            for name in ("content-security-policy", "x-frame-options", "x-content-type-options",
                         "strict-transport-security", "referrer-policy"):
                assert css_headers.get(name) == headers.get(name), name  # as on every page
        # The unhashed name is served too, but only cached for a minute (it may change).
        status, plain_headers, _ = get(port, "/static/admin/css/base.css", https)
        assert status == 200 and plain_headers["cache-control"] == "max-age=60, public"
        # The access log has paths, never query strings or Referers (they can carry tokens).
        get(port, "/play/ABCD/rejoin?token=secret-in-the-query",
            {**https, "Referer": "https://elsewhere.example/?seat=secret-in-the-referer"})
        get(port, "/api/play/rooms/ABCD/events?ticket=secret-stream-ticket", https)  # refused
    finally:
        stop(server)
    logged = log.read_text()
    assert '"GET /play/ABCD/rejoin HTTP/1.1"' in logged
    assert "/api/play/rooms/ABCD/events" in logged
    assert "secret-in-the-query" not in logged and "secret-in-the-referer" not in logged
    assert "secret-stream-ticket" not in logged


@pytest.mark.django_db
def test_static_files_carry_the_security_headers_every_page_has(client, settings):
    settings.WHITENOISE_USE_FINDERS = True  # read when the client's first request loads it
    page = client.get("/admin/login/")
    static = client.get("/static/play/play.css")
    assert static.status_code == 200 and static["Content-Type"].startswith("text/css")
    assert "frame-ancestors 'none'" in page["Content-Security-Policy"]
    for name in ("Content-Security-Policy", "X-Frame-Options", "X-Content-Type-Options",
                 "Referrer-Policy", "Cross-Origin-Opener-Policy"):
        assert static.get(name) == page.get(name), name
    assert static["X-Frame-Options"] == "DENY"


# --- login throttling, the admin's path --------------------------------------------------


def post_login(client, username: str, password: str, address: str = "10.0.0.1"):  # type: ignore[no-untyped-def]
    return client.post("/admin/login/?next=/admin/", {"username": username, "password": password},
                       REMOTE_ADDR=address)


@pytest.mark.django_db
def test_the_admin_login_is_refused_after_five_wrong_passwords_even_with_the_right_one(client):
    from axes.models import AccessAttempt
    from django.contrib.auth.models import User

    User.objects.create_user("carla", "", "karten-pw-1", is_staff=True)
    for _ in range(4):
        assert post_login(client, "carla", "wrong").status_code == 200  # the form again
    assert post_login(client, "carla", "wrong").status_code == 429
    refused = post_login(client, "carla", "karten-pw-1")
    assert refused.status_code == 429
    assert "_auth_user_id" not in client.session
    assert AccessAttempt.objects.get(username="carla").failures_since_start == 6  # the refused try too
    # The lock is for this user from this address: another address may still log in …
    assert post_login(client, "carla", "karten-pw-1", address="10.0.0.2").status_code == 302
    # … and the count lives in the database, where every app server sees it.
    client.logout()
    assert post_login(client, "carla", "karten-pw-1").status_code == 429


@pytest.mark.django_db
def test_a_successful_login_resets_the_count_of_failures(client):
    from django.contrib.auth.models import User

    User.objects.create_user("carla", "", "karten-pw-1", is_staff=True)
    for _ in range(4):
        post_login(client, "carla", "wrong")
    assert post_login(client, "carla", "karten-pw-1").status_code == 302
    client.logout()
    for _ in range(4):
        assert post_login(client, "carla", "wrong").status_code == 200
    assert post_login(client, "carla", "karten-pw-1").status_code == 302


def test_behind_a_proxy_the_client_is_read_from_the_right_of_x_forwarded_for(settings, rf):
    from common.security import client_ip

    spoofed = rf.get("/", HTTP_X_FORWARDED_FOR="6.6.6.6, 203.0.113.9", REMOTE_ADDR="127.0.0.1")
    settings.KARTOTHEK_PROXY_COUNT = 0
    assert client_ip(spoofed) == "127.0.0.1"
    settings.KARTOTHEK_PROXY_COUNT = 1
    assert client_ip(spoofed) == "203.0.113.9"  # not the 6.6.6.6 the client wrote itself
    settings.KARTOTHEK_PROXY_COUNT = 2
    assert client_ip(spoofed) == "6.6.6.6"
    assert client_ip(rf.get("/", REMOTE_ADDR="127.0.0.1")) == "127.0.0.1"


def test_the_admin_path_comes_from_the_environment(tmp_path):
    script = (
        "import django; django.setup(); from django.test import Client; c = Client(); "
        "print(c.get('/').headers['Location'], c.get('/verwaltung/login/').status_code, "
        "c.get('/admin/login/').status_code)"
    )
    # DEBUG on: the login page renders without collectstatic.
    env = clean_environment(DEBUG="1", ALLOWED_HOSTS="testserver", KARTOTHEK_VAR_DIR=str(tmp_path),
                            KARTOTHEK_ADMIN_PATH="/verwaltung/")
    result = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["/verwaltung/", "200", "404"]
    bad = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True,
                         env={**env, "KARTOTHEK_ADMIN_PATH": "../etc"}, timeout=60)
    assert bad.returncode != 0
    assert "KARTOTHEK_ADMIN_PATH='../etc' is not a URL path" in bad.stderr
