"""Kartothek settings, read from environment variables.

SECRET_KEY   required unless DEBUG is on
KARTOTHEK_ENV_FILE  the local settings file `make run` writes (default: .env beside manage.py);
             environment variables win over it, and with DEBUG off its SECRET_KEY is refused
DEBUG        1/0 (default 0)
ALLOWED_HOSTS comma-separated (default: localhost names when DEBUG is on, none otherwise)
DATABASE_URL  e.g. postgres://user:pass@host:5432/name (default: SQLite file var/kartothek.sqlite3)
KARTOTHEK_LANGUAGES comma-separated language codes, source language first (default: de,en)
KARTOTHEK_VAR_DIR   where generated files go (default: var/ beside manage.py)
KARTOTHEK_PLAY_RATE_LIMIT  room creations and joins a minute per client (default 30; 0 = off)
KARTOTHEK_PLAY_ROOM_EXPIRY_HOURS  a room closes after this long without play (default 24; a finished
                    one after KARTOTHEK_PLAY_FINISHED_EXPIRY_HOURS, default 24 too)
KARTOTHEK_PLAY_WRITE_LIMIT  other play writes (actions, host controls) a minute per client (default 240)
KARTOTHEK_PLAY_ROOM_WRITE_LIMIT  play writes a minute per room (default 900)
KARTOTHEK_PLAY_GAME_LIMIT  games started (start, play again) a minute per room (default 4)
KARTOTHEK_PLAY_LOOKUP_LIMIT  failed room lookups (404s) a minute per client (default 20)
KARTOTHEK_PLAY_STREAMS_PER_CLIENT  event streams one client holds open at once, on all servers
                    together (default 12; 0 = off); one more is a 429 with Retry-After
KARTOTHEK_PLAY_STATS_DAILY_CAP  games a day per client that count in the card statistics (default 20;
                    0 = no cap; docs/play.md)
KARTOTHEK_CORS_ALLOWED_ORIGINS  web origins that may use the play API from their pages
                    (comma-separated, default none; packs, schemas and keys answer any origin)
Production (HTTPS, cookies, CSP, proxy): see the README's Configuration table and
deploy/production.env.example.
"""

from __future__ import annotations

from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from common.env import (
    LOCAL_DEV_MARKER,
    env_bool,
    env_header,
    env_int,
    env_list,
    env_origins,
    env_path,
    env_str,
    load_env_file,
)

BASE_DIR = Path(__file__).resolve().parent.parent
# `make run`'s local settings file (kartothek/localenv.py): read before every other setting,
# each value only where the environment has none.
ENV_FILE = Path(env_str("KARTOTHEK_ENV_FILE", str(BASE_DIR / ".env")))
_env_file = load_env_file(ENV_FILE)
VAR_DIR = Path(env_str("KARTOTHEK_VAR_DIR", str(BASE_DIR / "var")))

DEBUG = env_bool("DEBUG", False)
SECRET_KEY = env_str("SECRET_KEY")
if (not DEBUG and _env_file.get(LOCAL_DEV_MARKER) and SECRET_KEY
        and SECRET_KEY == _env_file.get("SECRET_KEY")):
    raise ImproperlyConfigured(
        f"SECRET_KEY comes from {ENV_FILE}, the local development file `make run` writes, "
        "and DEBUG is off: set a real SECRET_KEY in the environment for production "
        "(README: Production).")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured(
            "SECRET_KEY is not set. Set the SECRET_KEY environment variable "
            "(or DEBUG=1 for local development, where a throw-away key is used)."
        )
    SECRET_KEY = "insecure-development-key-do-not-use-in-production"
if SECRET_KEY.strip().lower().startswith("change-me"):
    raise ImproperlyConfigured(
        "SECRET_KEY is still the placeholder from deploy/production.env.example: make one of "
        "your own, e.g. python -c \"import secrets; print(secrets.token_urlsafe(50))\".")

ALLOWED_HOSTS = env_list(
    "ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]"] if DEBUG else []
)

INSTALLED_APPS = [
    "curation.site.KartothekAdminConfig",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "csp",
    "corsheaders",
    "axes",
    "import_export",
    "simple_history",
    "cards",
    "exports",
    "games",
    "curation",
]

MIDDLEWARE = [
    # Cross-origin use (kartothek/cors.py): first, so that every answer below it, a 429, a 503
    # or a static file's, carries the headers a browser on another origin needs to read it.
    "kartothek.cors.PublicCorsMiddleware",
    "corsheaders.middleware.CorsMiddleware",
    "django.middleware.security.SecurityMiddleware",
    # Every answer's security headers come from the middleware above WhiteNoise, so static
    # files carry the same CSP, X-Frame-Options, nosniff, HSTS and Referrer-Policy as pages
    # (WhiteNoise answers /static/ itself: the middleware below it never sees those answers).
    "csp.middleware.CSPMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Static files straight after the security headers, before sessions are loaded.
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # A NUL (or another character no database stores) in a path, query, header or body: a 400
    # with the headers above, before anything reads it; under /play/ a failed room lookup
    # (kartothek/storable_text.py).
    "kartothek.storable_text.StorableTextMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # The admin's words and date formats follow the browser: German or English.
    "curation.language.AdminLanguageMiddleware",
    "django.middleware.common.CommonMiddleware",
    # Failed room lookups per client (guessing codes): 429 after KARTOTHEK_PLAY_LOOKUP_LIMIT.
    "games.ratelimit.RoomLookupMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "simple_history.middleware.HistoryRequestMiddleware",
    # /api/ answers a JSON 503 while the database cannot be reached (kartothek/unavailable.py).
    "kartothek.unavailable.DatabaseUnavailableMiddleware",
    # Last, as django-axes asks: turns a locked-out login into its 429 answer.
    "axes.middleware.AxesMiddleware",
]

# django-axes first: it refuses a locked-out login before the password is even checked.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]

ROOT_URLCONF = "kartothek.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

WSGI_APPLICATION = "kartothek.wsgi.application"

_database_url = env_str("DATABASE_URL")
if not _database_url:
    # The default SQLite file lives in var/, which a fresh clone does not have yet.
    VAR_DIR.mkdir(parents=True, exist_ok=True)
    _database_url = f"sqlite:///{VAR_DIR / 'kartothek.sqlite3'}"
# No persistent connections: the app is served through ASGI, where each request runs its
# database work in a thread of its own, so a kept connection would never be used again.
DATABASES = {"default": dj_database_url.parse(_database_url, conn_max_age=0)}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Writers queue instead of failing with "database is locked" (SQLite ignores
    # select_for_update, so IMMEDIATE transactions are what serialises writes).
    DATABASES["default"].setdefault("OPTIONS", {})["transaction_mode"] = "IMMEDIATE"
    # WAL: readers (the play mode's polls) never wait for a writer; synchronous=NORMAL syncs
    # at checkpoints instead of every commit (a power cut may lose the last moves, never
    # corrupt the file). Without it each play action waits for a disk sync. cache_size: each
    # connection's page cache (SQLite's default 2 MiB) fills as the file grows, and a server
    # process keeps a dozen or more connections (its pool, its play threads, the streams'
    # threads), so a worker's memory grew with the database; 256 KiB bounds it at a few MB.
    # The pages stay in the operating system's cache, so a read that misses costs a copy.
    DATABASES["default"]["OPTIONS"]["init_command"] = (
        "PRAGMA journal_mode=WAL;PRAGMA synchronous=NORMAL;PRAGMA cache_size=-256")
    # The same backend, with the writers of one process queueing on a lock of that process
    # instead of in SQLite's sleeping busy handler (kartothek/sqlite/base.py says why).
    DATABASES["default"]["ENGINE"] = "kartothek.sqlite"
# Closed SQLite connections a server process keeps for its next requests (per database file):
# opening one and reading its schema costs a hundred times the play mode's queries.
KARTOTHEK_SQLITE_POOL = env_int("KARTOTHEK_SQLITE_POOL", 8)

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]

LANGUAGE_CODE = "en"
TIME_ZONE = "Europe/Berlin"
USE_I18N = True
# English dates without "p.m." and full stops (kartothek/formats/en/formats.py)
FORMAT_MODULE_PATH = ["kartothek.formats"]
# The play pages' German and English strings (games/views.py picks the player's language).
LOCALE_PATHS = [BASE_DIR / "locale"]
USE_TZ = True

# Content languages: the first is the source language of every card text.
KARTOTHEK_LANGUAGES = env_list("KARTOTHEK_LANGUAGES", ["de", "en"])
if not KARTOTHEK_LANGUAGES or KARTOTHEK_LANGUAGES[0] != "de":
    raise ImproperlyConfigured("KARTOTHEK_LANGUAGES must start with the source language 'de'.")

STATIC_URL = "static/"
STATIC_ROOT = VAR_DIR / "static"
MEDIA_URL = "media/"
MEDIA_ROOT = VAR_DIR / "media"

# Uploads: keep big files off the heap, and refuse absurd request bodies early.
FILE_UPLOAD_MAX_MEMORY_SIZE = 2_621_440
DATA_UPLOAD_MAX_MEMORY_SIZE = 10_485_760
# An uploaded file larger than the largest import is dropped while it streams in (cards.uploads).
FILE_UPLOAD_HANDLERS = [
    "cards.uploads.LimitedUploadHandler",
    "django.core.files.uploadhandler.MemoryFileUploadHandler",
    "django.core.files.uploadhandler.TemporaryFileUploadHandler",
]
# What one import file may hold (cards.tables.ImportLimits); README, "Spreadsheets".
KARTOTHEK_IMPORT_MAX_BYTES = 20 * 1024 * 1024
KARTOTHEK_IMPORT_MAX_ROWS = 20_000
KARTOTHEK_IMPORT_MAX_COLUMNS = 50
KARTOTHEK_IMPORT_MAX_CELLS = 500_000
KARTOTHEK_IMPORT_MAX_ROW_CHARS = 1_000_000
KARTOTHEK_IMPORT_MAX_UNZIPPED_BYTES = 100 * 1024 * 1024
KARTOTHEK_IMPORT_PREVIEW_MAX_AGE = 3600  # seconds an unconfirmed import preview keeps its file

IMPORT_EXPORT_SKIP_ADMIN_LOG = False
IMPORT_EXPORT_IMPORT_PERMISSION_CODE = "change"
IMPORT_EXPORT_EXPORT_PERMISSION_CODE = "view"

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": "WARNING"},
}

STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    # Tile pictures are content-addressed (pictures/ab/<sha256>.png): a file is never
    # overwritten and a name never holds other bytes (cards/pictures.py).
    "pictures": {"BACKEND": "cards.pictures.ContentAddressedStorage"},
    # Hashed names (cacheable forever) and gzip/brotli copies, served by WhiteNoise; with
    # DEBUG on, {% static %} falls back to the plain names so `make run` needs no collectstatic.
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}

# Release signatures (exports/signing.py): base64 of a 32-byte Ed25519 seed, or a PEM key.
KARTOTHEK_SIGNING_KEY = env_str("KARTOTHEK_SIGNING_KEY")
# The retired signing keys, oldest first, each PUBLIC:ENDORSEMENT:RETIRED_AT:LAST_RELEASES: its
# rotation statement naming the next key (exports/signing.py; manage.py rotate_signing_key).
KARTOTHEK_PREVIOUS_SIGNING_KEYS = env_str("KARTOTHEK_PREVIOUS_SIGNING_KEYS")
# Webhooks on publish (exports/webhooks.py): the site's public address for the URLs in a
# message (empty: paths only), and whether endpoints on loopback/private/link-local addresses
# are allowed (off: a curator could otherwise make the server probe its own network).
KARTOTHEK_PUBLIC_URL = env_str("KARTOTHEK_PUBLIC_URL").rstrip("/")
KARTOTHEK_WEBHOOK_ALLOW_PRIVATE = env_bool("KARTOTHEK_WEBHOOK_ALLOW_PRIVATE", False)

# Play mode (games/rooms.py and the modules beneath it): limits, room expiry, and the pace of
# Sign's bots in seconds.
KARTOTHEK_PLAY_RATE_LIMIT = env_int("KARTOTHEK_PLAY_RATE_LIMIT", 30)
KARTOTHEK_PLAY_ROOM_EXPIRY_HOURS = env_int("KARTOTHEK_PLAY_ROOM_EXPIRY_HOURS", 24, minimum=1)
# Finished rooms close too (their replay goes with them; the card statistics stay).
KARTOTHEK_PLAY_FINISHED_EXPIRY_HOURS = env_int("KARTOTHEK_PLAY_FINISHED_EXPIRY_HOURS", 24, minimum=1)
# Per-minute windows, so a burst up to the limit is fine: a fast human makes ~3 actions a
# second for a few seconds, far below 240 a minute; one client sending 600 in 4 s is stopped.
KARTOTHEK_PLAY_WRITE_LIMIT = env_int("KARTOTHEK_PLAY_WRITE_LIMIT", 240)
KARTOTHEK_PLAY_ROOM_WRITE_LIMIT = env_int("KARTOTHEK_PLAY_ROOM_WRITE_LIMIT", 900)
KARTOTHEK_PLAY_GAME_LIMIT = env_int("KARTOTHEK_PLAY_GAME_LIMIT", 4)
KARTOTHEK_PLAY_LOOKUP_LIMIT = env_int("KARTOTHEK_PLAY_LOOKUP_LIMIT", 20)
# Event streams one client address holds open at once (games/stream_slots.py), counted in the
# database across every server; past it a new stream is a 429 and the page polls instead. 12:
# a whole party behind one home NAT fits — the largest table (Sign, 9 seats) on 9 phones, the
# table screen, and 2 reconnects whose old stream the server has not yet seen end (a page holds
# one stream and hangs it up while hidden) — while one address can no longer hold hundreds.
KARTOTHEK_PLAY_STREAMS_PER_CLIENT = env_int("KARTOTHEK_PLAY_STREAMS_PER_CLIENT", 12)
# Finished games a day per client (its address) that count in the card statistics (games/stats.py).
KARTOTHEK_PLAY_STATS_DAILY_CAP = env_int("KARTOTHEK_PLAY_STATS_DAILY_CAP", 20)
KARTOTHEK_PLAY_SIGN_BOT_DELAY = (2.0, 4.0)
# Pushed updates (games/events.py): seconds between the event streams' keep-alive comments,
# and between SQLite's version checks (one query a process for every room it streams: how
# moves made through another process on the same file arrive, within that time; 20 ms: a
# stream on the other app server learned a move ~10 ms later at the median with 50 ms).
KARTOTHEK_PLAY_EVENTS_HEARTBEAT = float(env_str("KARTOTHEK_PLAY_EVENTS_HEARTBEAT") or 15)
# Seconds between the streams' `event: ping` (no database read): a page that hears nothing for
# a ping and a half polls, so a stream that died without a word costs it under 2 s.
KARTOTHEK_PLAY_EVENTS_PING = float(env_str("KARTOTHEK_PLAY_EVENTS_PING") or 1)
KARTOTHEK_PLAY_EVENTS_CHECK = float(env_str("KARTOTHEK_PLAY_EVENTS_CHECK") or 0.02)
# Threads per server process that answer the play pages and the play API, each request on one
# of them from start to end (kartothek/asgi.py says why).
KARTOTHEK_PLAY_THREADS = env_int("KARTOTHEK_PLAY_THREADS", 8, minimum=1)
# Threads per server process that answer the packs API, the static files and the media files,
# each request on one of them from start to end, apart from the play threads (kartothek/asgi.py).
KARTOTHEK_PACK_THREADS = env_int("KARTOTHEK_PACK_THREADS", 4, minimum=1)
# Threads per process that read rooms for the event streams (a pool of their own, apart from
# the play requests' and Django's): each stream's look is short, and more threads than this only
# wait for the GIL in turn while a move's request waits behind them (docs/play-performance.md).
KARTOTHEK_PLAY_LOOK_THREADS = env_int("KARTOTHEK_PLAY_LOOK_THREADS", 2, minimum=1)
# Milliseconds a server process keeps a room's parsed engine state after its last use
# (games/states.py): long enough to share it across a move's fan-out to the room's streams (every
# seat learns of a move within ~100 ms, p99, under the play bench's 1,020 players) and with a
# quick next move, short enough that only the rooms being played this moment hold one: kept for a
# second, the states of a quarter of the rooms were in memory at any time, growing with their
# games' logs (docs/play-performance.md, 2026-12-03 evening).
KARTOTHEK_PLAY_STATE_KEEP_MS = env_int("KARTOTHEK_PLAY_STATE_KEEP_MS", 250)
# --- Cross-origin use (CORS; kartothek/cors.py). Two policies: the public read-only API (packs,
# schemas, keys, pictures) answers any origin with "*" (kartothek.cors.PublicCorsMiddleware);
# the play API only the origins listed here (django-cors-headers, whose settings follow). No
# credentials anywhere: a page on another origin proves a seat with its Bearer token (or a
# stream ticket), never with this site's cookies.
CORS_ALLOWED_ORIGINS = env_origins("KARTOTHEK_CORS_ALLOWED_ORIGINS")
CORS_URLS_REGEX = r"^/api/play/"
CORS_ALLOW_CREDENTIALS = False
CORS_ALLOW_METHODS = ["GET", "HEAD", "POST", "OPTIONS"]
CORS_ALLOW_HEADERS = ["authorization", "content-type", "if-none-match", "last-event-id"]
CORS_EXPOSE_HEADERS = ["ETag", "Location", "Retry-After"]
# --- Login throttling (django-axes): failed logins are counted in the database, so every
# app server sees them. After AXES_FAILURE_LIMIT failures the (user name, client address)
# pair is refused with 429 for AXES_COOLOFF_MINUTES; a successful login resets the count.
AXES_ENABLED = env_bool("AXES_ENABLED", True)
AXES_FAILURE_LIMIT = env_int("AXES_FAILURE_LIMIT", 5, minimum=1)
AXES_COOLOFF_TIME = env_int("AXES_COOLOFF_MINUTES", 15, minimum=1) / 60  # hours, as axes wants
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
# Lockouts are handled with `manage.py axes_list_attempts` / `axes_reset`, not in the admin
# (whose pages would need rows of their own in the roles table).
AXES_ENABLE_ADMIN = False
# Behind N proxies the client is the Nth address from the right of X-Forwarded-For.
KARTOTHEK_PROXY_COUNT = env_int("KARTOTHEK_PROXY_COUNT", 0)
AXES_CLIENT_IP_CALLABLE = "common.security.client_ip"

# Where the admin lives (a less guessable path keeps some scanners away; not a secret).
KARTOTHEK_ADMIN_PATH = env_path("KARTOTHEK_ADMIN_PATH", "admin/")
LOGIN_URL = f"/{KARTOTHEK_ADMIN_PATH}login/"

# --- Production: HTTPS, cookies, proxy, security headers (README: Configuration) ---------
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", False)
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", False)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", False)
SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", False)
CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", False)
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])
# Only behind a proxy that sets this header itself (and strips it from clients' requests).
SECURE_PROXY_SSL_HEADER = env_header("SECURE_PROXY_SSL_HEADER")
SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"

# No 'unsafe-inline' anywhere: styles and scripts come from static files only
# (tests/test_csp_browser.py listens for violations on the admin pages).
_csp_extra_images = env_list("KARTOTHEK_CSP_IMG_SRC", [])
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "img-src": ["'self'", *_csp_extra_images],
        "font-src": ["'self'"],
        "connect-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    },
}
if env_str("KARTOTHEK_CSP_REPORT_URI"):
    CONTENT_SECURITY_POLICY["DIRECTIVES"]["report-uri"] = [env_str("KARTOTHEK_CSP_REPORT_URI")]

# --- Background jobs and storage (issue 14) ---------------------------------------------------
# Big decks (every print-shop deck, and PDFs of more than KARTOTHEK_JOB_CARDS cards) render in a
# worker, not in the request: django-tasks with its database backend; the worker is
# `python manage.py db_worker` (make worker).
INSTALLED_APPS += ["django_tasks", "django_tasks_db"]
TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend", "QUEUES": ["default"]}}
KARTOTHEK_JOB_CARDS = env_int("KARTOTHEK_JOB_CARDS", 300, minimum=1)
# Days a finished job and its file are kept (exports/jobs.py expire_render_jobs).
KARTOTHEK_JOB_KEEP_DAYS = env_int("KARTOTHEK_JOB_KEEP_DAYS", 7, minimum=1)
# The bytes of releases, named by their sha256 (exports/release_files.py): under media/ like
# the pictures, so the backup routine's copy of media/ holds them (README, "Backups").
STORAGES["releases"] = {"BACKEND": "django.core.files.storage.FileSystemStorage"}
# Generated decks kept for download (exports.models.RenderJob).
STORAGES["decks"] = {"BACKEND": "django.core.files.storage.FileSystemStorage",
                     "OPTIONS": {"location": VAR_DIR / "files"}}
# KARTOTHEK_STORAGE=s3: pictures, decks and other files in an S3-compatible bucket
# (django-storages), shared by every app server and worker. README, "Storage".
KARTOTHEK_STORAGE = env_str("KARTOTHEK_STORAGE", "files")
if KARTOTHEK_STORAGE == "s3":
    _s3 = {
        "bucket_name": env_str("KARTOTHEK_S3_BUCKET"),
        "endpoint_url": env_str("KARTOTHEK_S3_ENDPOINT_URL") or None,
        "region_name": env_str("KARTOTHEK_S3_REGION") or None,
        "access_key": env_str("KARTOTHEK_S3_ACCESS_KEY_ID") or None,
        "secret_key": env_str("KARTOTHEK_S3_SECRET_ACCESS_KEY") or None,
        "default_acl": None, "querystring_auth": True, "file_overwrite": False,
    }
    if not _s3["bucket_name"]:
        raise ImproperlyConfigured("KARTOTHEK_STORAGE=s3 needs KARTOTHEK_S3_BUCKET.")
    STORAGES["default"] = {"BACKEND": "storages.backends.s3.S3Storage",
                           "OPTIONS": {**_s3, "location": "media"}}
    STORAGES["pictures"] = {"BACKEND": "exports.object_storage.ContentAddressedS3Storage",
                            "OPTIONS": _s3}
    STORAGES["decks"] = {"BACKEND": "storages.backends.s3.S3Storage", "OPTIONS": _s3}
    STORAGES["releases"] = {"BACKEND": "storages.backends.s3.S3Storage", "OPTIONS": _s3}
elif KARTOTHEK_STORAGE != "files":
    raise ImproperlyConfigured("KARTOTHEK_STORAGE is 'files' (the default) or 's3'.")
