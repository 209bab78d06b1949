"""Settings for mafia_protocol.

Everything that differs between a laptop and a deployment comes from the
environment; the embedded defaults (SQLite in WAL mode, the in-memory channel
layer) need no server at all, so `make run` works on a fresh machine.
"""

import hashlib
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from django.utils.csp import CSP
from django.utils.translation import gettext_lazy as _

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


DEBUG = env_bool("DJANGO_DEBUG", True)
# The default key is only good for a local demo. With DEBUG off a missing,
# short or placeholder key stops every process (manage.py, daphne) at once
# with one line, instead of signing sessions with a key anyone can read here.
DEV_SECRET_KEY = "dev-insecure-mafia-protocol-key-change-me"
SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY", "").strip() or DEV_SECRET_KEY


def secret_key_problem(key: str) -> str | None:
    """Why `key` must not sign a production deployment's sessions, or None."""
    lowered = key.lower()
    if key == DEV_SECRET_KEY or not key:
        return "DJANGO_SECRET_KEY is not set"
    if lowered.startswith(("dev-insecure", "django-insecure")) or any(
        w in lowered for w in ("change-me", "changeme", "change_me", "placeholder", "your-secret", "secret-key-here")
    ):
        return "DJANGO_SECRET_KEY is a placeholder"
    if len(key) < 50 or len(set(key)) < 5:
        return "DJANGO_SECRET_KEY is too short (50 random characters or more)"
    return None


if not DEBUG and (problem := secret_key_problem(SECRET_KEY)):
    # SystemExit with a message prints that one line and exits with status 1.
    raise SystemExit(
        f"Refusing to start with DJANGO_DEBUG=0: {problem}. Generate one: python -c 'import secrets; print(secrets.token_urlsafe(50))'"
    )

ALLOWED_HOSTS = [
    h.strip()
    for h in os.environ.get("DJANGO_ALLOWED_HOSTS", "localhost,127.0.0.1,[::1],testserver").split(",")
    if h.strip()
]
CSRF_TRUSTED_ORIGINS = [o.strip() for o in os.environ.get("DJANGO_CSRF_TRUSTED_ORIGINS", "").split(",") if o.strip()]

# Behind a TLS proxy (nginx, deploy/nginx-mafia-protocol.conf): the proxy
# terminates HTTPS and says so in X-Forwarded-Proto, which only the proxy may
# set (it overwrites whatever the client sent). /healthz stays plain HTTP so
# the proxy and the supervisor can probe a worker directly.
HTTPS = env_bool("DJANGO_HTTPS", False)
SECURE_REDIRECT_EXEMPT = [r"^healthz(/ready|/live)?/?$"]
if HTTPS:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = True
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    # One year by default; start lower (DJANGO_HSTS_SECONDS=3600) while trying
    # a new domain, since browsers remember it for the whole max-age.
    SECURE_HSTS_SECONDS = int(os.environ.get("DJANGO_HSTS_SECONDS", "31536000"))
    SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("DJANGO_HSTS_INCLUDE_SUBDOMAINS", True)
    SECURE_HSTS_PRELOAD = env_bool("DJANGO_HSTS_PRELOAD", False)
    if not SECURE_HSTS_PRELOAD:
        # Preloading is a one-way promise for the whole domain that only its
        # owner can make (hstspreload.org); off is a decision, not an oversight.
        SILENCED_SYSTEM_CHECKS = ["security.W021"]

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "channels",
    "django_htmx",
    "games",
    "tournaments",
    "players",
    "discord_bridge",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # Static files from the app itself (no proxy configuration): WhiteNoise
    # answers /static/ before sessions or auth run.
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "mafia_protocol.middleware.SameHostContentSecurityPolicyMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "mafia_protocol.middleware.ExplicitLanguageMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    # Password guessing on /accounts/login/ and /admin/login/ (login_throttle.py).
    "mafia_protocol.login_throttle.LoginThrottleMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "mafia_protocol.middleware.RefusalReasonMiddleware",
]

# Content-Security-Policy on every response (Django's own middleware, with
# connect-src extended per request to this host's ws:// and wss://, see
# mafia_protocol/middleware.py). No inline script or style, no eval: every
# script is a file under static/js, and htmx runs with allowEval off and its
# indicator <style> off (the htmx-config meta tag in base.html).
SECURE_CSP = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF],
    "style-src": [CSP.SELF],
    "img-src": [CSP.SELF, "data:"],
    "font-src": [CSP.SELF],
    "connect-src": [CSP.SELF],
    "object-src": [CSP.NONE],
    "base-uri": [CSP.SELF],
    "form-action": [CSP.SELF],
}

ROOT_URLCONF = "mafia_protocol.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

WSGI_APPLICATION = None
ASGI_APPLICATION = "mafia_protocol.asgi.application"

SQLITE_PATH = Path(os.environ.get("SQLITE_PATH", BASE_DIR / "var" / "db.sqlite3"))
DATABASE_URL = os.environ.get("DATABASE_URL", "").strip()
# PostgreSQL under daphne: every request runs its sync view in a thread of its
# own, so a persistent connection (CONN_MAX_AGE > 0) is opened per thread and
# left idle until that thread is collected: 20 readers pushed one worker to 95
# of 100 server connections (issue 22). Instead each worker keeps one psycopg
# pool (Django's OPTIONS["pool"]) of at most DATABASE_POOL_MAX_SIZE
# connections; a request borrows one and gives it back when it ends, and a
# request that finds all of them busy waits up to DATABASE_POOL_TIMEOUT
# seconds. The server then needs max_connections >= workers x max_size +
# what management commands and psql use (README, "PostgreSQL connections").
# DATABASE_POOL=0 falls back to a connection per request (CONN_MAX_AGE,
# default 0 = closed at the end of each request); benchmarks/db_load.py
# measures both side by side.
DATABASE_POOL = env_bool("DATABASE_POOL", True)
DATABASE_POOL_MIN_SIZE = int(os.environ.get("DATABASE_POOL_MIN_SIZE", "2"))
DATABASE_POOL_MAX_SIZE = int(os.environ.get("DATABASE_POOL_MAX_SIZE", "10"))
DATABASE_POOL_TIMEOUT = float(os.environ.get("DATABASE_POOL_TIMEOUT", "10"))
if DATABASE_URL:
    DATABASES = {
        "default": dj_database_url.parse(
            DATABASE_URL, conn_max_age=int(os.environ.get("DATABASE_CONN_MAX_AGE", "0")), conn_health_checks=True
        )
    }
    if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
        DATABASES["default"].setdefault("TEST", {})["NAME"] = os.environ.get(
            "TEST_DATABASE_NAME", "test_mafia_protocol"
        )
        if DATABASE_POOL:
            # The pool and persistent connections exclude each other (Django
            # refuses CONN_MAX_AGE > 0 with a pool); the pool's own check
            # below replaces the health check.
            DATABASES["default"]["CONN_MAX_AGE"] = 0
            DATABASES["default"]["CONN_HEALTH_CHECKS"] = False
            from psycopg_pool import ConnectionPool

            DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
                # A connection the server closed (restart, idle timeout) is
                # found and replaced before a request gets it.
                "check": ConnectionPool.check_connection,
                "min_size": DATABASE_POOL_MIN_SIZE,
                "max_size": DATABASE_POOL_MAX_SIZE,
                "timeout": DATABASE_POOL_TIMEOUT,
            }
else:
    SQLITE_PATH.parent.mkdir(parents=True, exist_ok=True)
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": str(SQLITE_PATH),
            "OPTIONS": {
                # IMMEDIATE takes the write lock at BEGIN, so two concurrent
                # host clicks queue instead of failing with "database is locked"
                # on lock upgrade; WAL lets spectators read while the host writes.
                "transaction_mode": "IMMEDIATE",
                "timeout": 20,
                "init_command": (
                    "PRAGMA journal_mode=WAL;"
                    "PRAGMA synchronous=NORMAL;"
                    "PRAGMA busy_timeout=20000;"
                    "PRAGMA foreign_keys=ON;"
                ),
            },
            "TEST": {"NAME": os.environ.get("SQLITE_TEST_NAME", "")} if os.environ.get("SQLITE_TEST_NAME") else {},
        }
    }

REDIS_URL = os.environ.get("REDIS_URL", "").strip()


def default_channel_layer_prefix(database: Mapping[str, Any]) -> str:
    """The channel-layer prefix a deployment gets unless CHANNEL_LAYER_PREFIX says otherwise.

    Redis pub/sub channels ignore the db number of REDIS_URL, so two
    deployments on one Redis would receive each other's board frames (issue
    27). The database is what tells deployments apart: two that share one
    are one site. Derived from its engine, host, port and name, hashed so the
    prefix stays short and says nothing about the server.
    """
    identity = "|".join(str(database.get(key) or "") for key in ("ENGINE", "HOST", "PORT", "NAME"))
    return "mp" + hashlib.sha256(identity.encode()).hexdigest()[:10] + "."


# Only letters, digits, "." "_" "-": the prefix is part of every Redis channel name.
CHANNEL_LAYER_PREFIX = os.environ.get("CHANNEL_LAYER_PREFIX", "").strip() or default_channel_layer_prefix(
    DATABASES["default"]
)
if not re.fullmatch(r"[A-Za-z0-9._-]{1,64}", CHANNEL_LAYER_PREFIX):
    raise ImproperlyConfigured("CHANNEL_LAYER_PREFIX: 1 to 64 letters, digits, '.', '_' or '-'")
if REDIS_URL:
    CHANNEL_LAYERS = {
        "default": {
            # Pub/sub layer: a group message is one PUBLISH that every worker
            # receives, instead of a per-channel list push per member; the
            # board never needs per-channel delivery guarantees because the
            # database is the truth and clients re-fetch on gaps.
            "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
            "CONFIG": {"hosts": [REDIS_URL], "prefix": CHANNEL_LAYER_PREFIX},
        }
    }
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}

# Login throttling (mafia_protocol/login_throttle.py): the failure counts live
# in this cache, Redis when REDIS_URL is set so every worker shares them.
CACHES = {
    "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"},
    "login_throttle": (
        {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": "mafia-protocol-login",
        }
        if REDIS_URL
        else {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "login-throttle"}
    ),
}
LOGIN_THROTTLE_ACCOUNT_FAILURES = int(os.environ.get("LOGIN_THROTTLE_ACCOUNT_FAILURES", "5"))
LOGIN_THROTTLE_ADDRESS_FAILURES = int(os.environ.get("LOGIN_THROTTLE_ADDRESS_FAILURES", "20"))
LOGIN_THROTTLE_LOCK_SECONDS = int(os.environ.get("LOGIN_THROTTLE_LOCK_SECONDS", "60"))
LOGIN_THROTTLE_MAX_LOCK_SECONDS = int(os.environ.get("LOGIN_THROTTLE_MAX_LOCK_SECONDS", "3600"))

# Under daphne the live-board frames are rendered and sent after the host's
# response, from the server's loop (games/board/frames.py); off, the host's request
# renders them itself before it answers.
LIVE_RENDER_OFF_REQUEST = env_bool("LIVE_RENDER_OFF_REQUEST", True)

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator", "OPTIONS": {"min_length": 6}},
]

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "games:list"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "ru"
LANGUAGES = [("ru", _("Russian")), ("en", _("English"))]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = os.environ.get("TIME_ZONE", "Europe/Moscow")
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = Path(os.environ.get("DJANGO_STATIC_ROOT", BASE_DIR / "staticfiles"))
# Production (DEBUG off): `collectstatic` (run by `make setup`) writes hashed,
# gzip- and brotli-compressed copies; WhiteNoise serves them with a ten-year
# immutable Cache-Control, and {% static %} names the hashed file. With DEBUG
# on (make run, the test suite) the plain storage serves the files as they
# are from static/, so editing a file or running tests never needs a
# collectstatic first and a missing manifest cannot break a test.
# Files are looked up again on each request only with DEBUG on (fixed here:
# the test runner turns settings.DEBUG off, and no collectstatic ran there).
WHITENOISE_AUTOREFRESH = DEBUG
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG
        else "whitenoise.storage.CompressedManifestStaticFilesStorage",
    },
}

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# A refused request (403, 404, 422 …) is one line — method, path, user,
# reason — without a traceback; tracebacks are for real 500s only
# (mafia_protocol/log_filters.py). The filter sits on the loggers, so every
# handler (and pytest's caplog) sees the one-line record.
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"one_line_client_errors": {"()": "mafia_protocol.log_filters.OneLineClientErrors"}},
    # Times with their UTC offset; LOG_FORMAT=json: one JSON object a line (mafia_protocol/log_format.py).
    "formatters": {
        "plain": {
            "()": "mafia_protocol.log_format.OffsetFormatter",
            "format": "%(asctime)s %(levelname)s %(name)s: %(message)s",
        },
        "json": {"()": "mafia_protocol.log_format.JsonFormatter"},
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": "json" if os.environ.get("LOG_FORMAT", "").lower() == "json" else "plain",
        }
    },
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "WARNING")},
    "loggers": {
        name: {"filters": ["one_line_client_errors"], "level": os.environ.get("LOG_LEVEL", "WARNING")}
        for name in (
            "django.request",
            "django.security.csrf",
            "django.security.DisallowedHost",
            "django.security.SuspiciousOperation",
            "django.security.RequestDataTooBig",
            "django.security.TooManyFieldsSent",
        )
    },
}

# Players' rating (players/rating.py): K of the Elo update and the start value.
PLAYERS_RATING_K = float(os.environ.get("PLAYERS_RATING_K", "20"))
PLAYERS_RATING_INITIAL = 1500.0
