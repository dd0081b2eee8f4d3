"""Pegasus settings: everything from the environment.

Development needs no variables at all (embedded PostgreSQL, generated SECRET_KEY, offline LLM
mode). ``PEGASUS_ENV=production`` switches on the production posture and then requires
``SECRET_KEY``, ``ALLOWED_HOSTS`` and ``DATABASE_URL``. Every variable is listed in README.md.
Django's and the libraries' settings are here; Pegasus's own (models, LLM, memory constants,
limits) are in ``product_settings.py``, read in at the end.
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

from pegasus_site.env import env_bool, env_int, env_list, env_str

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(os.environ.get("PEGASUS_VAR_DIR", BASE_DIR / "var"))


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
        # Persistent connections (60 s): with 0, every database call of a chat turn opened a
        # connection — 15 % of the web process's samples and a PostgreSQL backend forked per
        # call; 33 → 51 turns/s in the chat bench (docs/BENCHMARKS.md). Health checks replace
        # a connection a database restart broke.
        DATABASE_URL,
        conn_max_age=env_int("DB_CONN_MAX_AGE", 60),
        conn_health_checks=True,
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

from pegasus_site.product_settings import *  # noqa: E402, F403 (Pegasus's own settings)
