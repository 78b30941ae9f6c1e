"""Settings for the test run: the project's settings, with a test key and a throw-away var/."""

import atexit
import os
import shutil
import tempfile

os.environ.setdefault("SECRET_KEY", "tests-only-secret-key")
# Never the checkout's .env that `make run` writes (its DEBUG=1 would change what tests see);
# subprocesses the tests start inherit this too.
os.environ["KARTOTHEK_ENV_FILE"] = os.devnull
# Pictures and other generated files of a test run go to a throw-away folder, never var/.
_VAR = tempfile.mkdtemp(prefix="kartothek-tests-")
atexit.register(shutil.rmtree, _VAR, ignore_errors=True)
os.environ["KARTOTHEK_VAR_DIR"] = _VAR
# live_server and Playwright's event loop share the thread of a browser test.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

from kartothek.settings import *  # noqa: E402, F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # fast logins in tests
KARTOTHEK_SIGNING_KEY_GENERATE = True  # a key generated into the throw-away var/ (exports/signing.py)

if DATABASES["default"]["ENGINE"] == "kartothek.sqlite":  # noqa: F405
    # A file, not SQLite's shared in-memory database: threads that write at the same time then
    # queue on IMMEDIATE transactions as they do in production, instead of failing at once
    # with "database table is locked" (tests/test_concurrency.py races real threads).
    DATABASES["default"]["TEST"] = {"NAME": os.path.join(_VAR, "test.sqlite3")}  # noqa: F405
KARTOTHEK_PLAY_RATE_LIMIT = 0  # the rate limits' own tests turn them on
KARTOTHEK_PLAY_WRITE_LIMIT = 0
KARTOTHEK_PLAY_ROOM_WRITE_LIMIT = 0
KARTOTHEK_PLAY_GAME_LIMIT = 0
KARTOTHEK_PLAY_LOOKUP_LIMIT = 0
KARTOTHEK_PLAY_STREAMS_PER_CLIENT = 0  # tests/play/test_stream_cap.py turns it on

# Tests render templates without running collectstatic first: plain names, no manifest.
STORAGES = {**STORAGES, "staticfiles": {  # noqa: F405
    "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}}
os.makedirs(STATIC_ROOT, exist_ok=True)  # noqa: F405  (WhiteNoise warns about a missing one)
