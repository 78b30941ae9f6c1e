"""Kartothek settings, read from environment variables.

SECRET_KEY   required unless DEBUG is on
DEBUG        1/0 (default 0)
ALLOWED_HOSTS comma-separated (default: localhost names when DEBUG is on, none otherwise)
DATABASE_URL  e.g. postgres://user:pass@host:5432/name (default: SQLite file var/kartothek.sqlite3)
KARTOTHEK_LANGUAGES comma-separated language codes, source language first (default: de,en)
KARTOTHEK_VAR_DIR   where generated files go (default: var/ beside manage.py)
"""

from __future__ import annotations

from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from kartothek.env import env_bool, env_list, env_str

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(env_str("KARTOTHEK_VAR_DIR", str(BASE_DIR / "var")))

DEBUG = env_bool("DEBUG", False)
SECRET_KEY = env_str("SECRET_KEY")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured(
            "SECRET_KEY is not set. Set the SECRET_KEY environment variable "
            "(or DEBUG=1 for local development, where a throw-away key is used)."
        )
    SECRET_KEY = "insecure-development-key-do-not-use-in-production"

ALLOWED_HOSTS = env_list(
    "ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]"] if DEBUG else []
)

INSTALLED_APPS = [
    "kartothek.admin.KartothekAdminConfig",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "import_export",
    "simple_history",
    "cards",
    "exports",
    "games",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "simple_history.middleware.HistoryRequestMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
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
DATABASES = {"default": dj_database_url.parse(_database_url, conn_max_age=60)}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Writers queue instead of failing with "database is locked" (SQLite ignores
    # select_for_update, so IMMEDIATE transactions are what serialises writes).
    DATABASES["default"].setdefault("OPTIONS", {})["transaction_mode"] = "IMMEDIATE"

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]

LANGUAGE_CODE = "en"
TIME_ZONE = "Europe/Berlin"
USE_I18N = True
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
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}

# --- Background jobs and storage (issue 14) ---------------------------------------------------
# Big decks (every print-shop deck, and PDFs of more than KARTOTHEK_JOB_CARDS cards) render in a
# worker, not in the request: django-tasks with its database backend; the worker is
# `python manage.py db_worker` (make worker).
INSTALLED_APPS += ["django_tasks", "django_tasks_db"]
TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend", "QUEUES": ["default"]}}
KARTOTHEK_JOB_CARDS = int(env_str("KARTOTHEK_JOB_CARDS", "300"))
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
elif KARTOTHEK_STORAGE != "files":
    raise ImproperlyConfigured("KARTOTHEK_STORAGE is 'files' (the default) or 's3'.")
