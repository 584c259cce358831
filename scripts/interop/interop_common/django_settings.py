"""The settings.py every Django provider project of scripts/interop/providers starts from.

The providers write their project at setup; settings_module builds the text of its
PACKAGE/settings.py (a module of its own, so that the project needs nothing from here when
Django loads it). Each provider passes only what is its own: its apps, middleware, context
processors, whether it has a templates/ directory, the logger it wants on stderr, and its own
settings (written between the shared ones and LOGGING).
"""

BASE_APPS = ["django.contrib.auth", "django.contrib.contenttypes", "django.contrib.sessions"]
BASE_MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
]
BASE_CONTEXT_PROCESSORS = [
    "django.template.context_processors.request",
    "django.contrib.auth.context_processors.auth",
]

TEMPLATE = '''\
"""Settings written by scripts/interop/providers/{generator}; regenerate rather than edit."""
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent.parent
SECRET_KEY = {secret_key!r}
DEBUG = False
ALLOWED_HOSTS = ["127.0.0.1", "localhost", "[::1]"]

INSTALLED_APPS = [
{apps}]
MIDDLEWARE = [
{middleware}]
ROOT_URLCONF = "{package}.urls"
WSGI_APPLICATION = None
TEMPLATES = [
    {{
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [{template_dirs}],
        "APP_DIRS": True,
        "OPTIONS": {{
            "context_processors": [
{context_processors}            ],
        }},
    }},
]
DATABASES = {{"default": {{"ENGINE": "django.db.backends.sqlite3", "NAME": BASE_DIR / "db.sqlite3"}}}}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
USE_TZ = True
STATIC_URL = "/static/"
LOGIN_URL = "/accounts/login/"
LOGIN_REDIRECT_URL = "/"

{own}
LOGGING = {{
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {{"stderr": {{"class": "logging.StreamHandler"}}}},
    "loggers": {{
        "django.request": {{"handlers": ["stderr"], "level": "WARNING"}},
        "{logger}": {{"handlers": ["stderr"], "level": "WARNING"}},
    }},
}}
'''


def _items(names, indent):
    return "".join(f'{" " * indent}"{name}",\n' for name in names)


def settings_module(generator, package, secret_key, apps, logger, own, middleware=(),
                    context_processors=(), templates_dir=True):
    """The text of PACKAGE/settings.py for the provider script `generator` (its file name).

    apps go after the django.contrib ones and before the project's PACKAGE, middleware and
    context_processors after the shared ones; templates_dir says whether the project has a
    templates/ directory (BASE_DIR/templates) of its own; `logger` is the provider's logger,
    shown on stderr from WARNING up with django.request; `own` is the provider's own settings,
    Python source ending in a newline, written after the shared ones and before LOGGING."""
    return TEMPLATE.format(
        generator=generator, package=package, secret_key=secret_key, logger=logger, own=own,
        apps=_items([*BASE_APPS, *apps, package], 4),
        middleware=_items([*BASE_MIDDLEWARE, *middleware], 4),
        context_processors=_items([*BASE_CONTEXT_PROCESSORS, *context_processors], 16),
        template_dirs='BASE_DIR / "templates"' if templates_dir else "")
