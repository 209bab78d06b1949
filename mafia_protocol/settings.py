"""Settings for mafia_protocol.

Everything that differs between a laptop and a deployment comes from the
environment; the embedded defaults (SQLite in WAL mode, the in-memory channel
layer) need no server at all, so `make run` works on a fresh machine.
"""

import os
from pathlib import Path

import dj_database_url
from django.utils.translation import gettext_lazy as _

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


DEBUG = env_bool("DJANGO_DEBUG", True)
# The default key is only good for a local demo; DEBUG off without a real key
# is refused below so a deployment cannot forget it.
SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY", "dev-insecure-mafia-protocol-key-change-me")
if not DEBUG and SECRET_KEY.startswith("dev-insecure"):
    raise RuntimeError("Set DJANGO_SECRET_KEY when DJANGO_DEBUG is off.")

ALLOWED_HOSTS = [h.strip() for h in os.environ.get("DJANGO_ALLOWED_HOSTS", "localhost,127.0.0.1,[::1],testserver").split(",") if h.strip()]
CSRF_TRUSTED_ORIGINS = [o.strip() for o in os.environ.get("DJANGO_CSRF_TRUSTED_ORIGINS", "").split(",") if o.strip()]

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
    "discord_bridge",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "mafia_protocol.middleware.ExplicitLanguageMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "mafia_protocol.middleware.RefusalReasonMiddleware",
]

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
if DATABASE_URL:
    DATABASES = {"default": dj_database_url.parse(DATABASE_URL, conn_max_age=60, conn_health_checks=True)}
    if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
        DATABASES["default"].setdefault("TEST", {})["NAME"] = os.environ.get("TEST_DATABASE_NAME", "test_mafia_protocol")
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
if REDIS_URL:
    CHANNEL_LAYERS = {
        "default": {
            # Pub/sub layer: a group message is one PUBLISH that every worker
            # receives, instead of a per-channel list push per member; the
            # board never needs per-channel delivery guarantees because the
            # database is the truth and clients re-fetch on gaps.
            "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
            "CONFIG": {"hosts": [REDIS_URL]},
        }
    }
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}

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
STATIC_ROOT = BASE_DIR / "staticfiles"

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# A refused request (403, 404, 422 …) is one line — method, path, user,
# reason — without a traceback; tracebacks are for real 500s only
# (mafia_protocol/log_filters.py). The filter sits on the loggers, so every
# handler (and pytest's caplog) sees the one-line record.
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"one_line_client_errors": {"()": "mafia_protocol.log_filters.OneLineClientErrors"}},
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "WARNING")},
    "loggers": {
        name: {"filters": ["one_line_client_errors"], "level": os.environ.get("LOG_LEVEL", "WARNING")}
        for name in ("django.request", "django.security.csrf", "django.security.DisallowedHost", "django.security.SuspiciousOperation", "django.security.RequestDataTooBig", "django.security.TooManyFieldsSent")
    },
}
