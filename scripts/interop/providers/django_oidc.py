"""A throwaway Django + django-oauth-toolkit OpenID provider for the interop checks.

Usage:
  django_oidc.py setup DIR          writes a Django project into DIR (settings, URLs, login
                                    template, RSA signing key, sqlite database) and creates
                                    the user and the two applications; idempotent.
  django_oidc.py serve DIR PORTFILE serves the project on 127.0.0.1 (port from $PORT, else a
                                    free one chosen by the kernel) with a threaded stdlib WSGI
                                    server, and writes the bound port to PORTFILE.

Everything here is loopback-only test scaffolding: the secrets are fixed and public.
"""
import os
import secrets
import sys
import textwrap
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parent.parent))  # interop_common: see its __init__
from interop_common.django_settings import settings_module  # noqa: E402

USERNAME = "alice"
PASSWORD = "alice-password"
PUBLIC_CLIENT_ID = "com.example.app"
CONFIDENTIAL_CLIENT_ID = "confidential-app"
CONFIDENTIAL_CLIENT_SECRET = "confidential-app-secret"
REDIRECT_URIS = "com.example.app://auth/callback http://127.0.0.1/callback"
POST_LOGOUT_REDIRECT_URIS = "com.example.app://auth/callback com.example.app://auth/signed-out"
PACKAGE = "signinsim_idp"

# This provider's own settings.py lines (after the shared ones of interop_common.django_settings);
# they go through str.format: braces are doubled.
OWN_SETTINGS = '''\
OAUTH2_PROVIDER = {{
    "OIDC_ENABLED": True,
    "OIDC_RSA_PRIVATE_KEY": (BASE_DIR / "oidc-signing-key.pem").read_text(),
    "PKCE_REQUIRED": True,
    "COMPLIANT_BCP_RFC9700_PKCE_METHOD": True,
    "COMPLIANT_BCP_RFC9700_AUTHZ_RESPONSE_ISS": True,
    "ALLOWED_REDIRECT_URI_SCHEMES": ["http", "https", "com.example.app"],
    "OIDC_RP_INITIATED_LOGOUT_ENABLED": True,
    "OIDC_RP_INITIATED_LOGOUT_ALWAYS_PROMPT": {always_prompt},
    "OIDC_TOKEN_ENDPOINT_AUTH_METHODS_SUPPORTED": ["none", "client_secret_basic", "client_secret_post"],
    "SCOPES": {{
        "openid": "OpenID Connect",
        "profile": "Your name and username",
        "email": "Your email address",
        "offline_access": "Stay signed in",
    }},
    "DEFAULT_SCOPES": ["openid"],
    "ROTATE_REFRESH_TOKEN": True,
    "ACCESS_TOKEN_EXPIRE_SECONDS": 3600,
    "REFRESH_TOKEN_EXPIRE_SECONDS": 86400,
    "OAUTH2_VALIDATOR_CLASS": "{package}.validator.ClaimsValidator",
}}
'''

URLS = '''\
from django.contrib.auth.views import LoginView
from django.http import HttpResponse
from django.urls import include, path


def home(request):
    who = request.user.username if request.user.is_authenticated else "nobody"
    return HttpResponse(f"<!DOCTYPE html><title>IdP</title><p>Signed in: {who}</p>")


urlpatterns = [
    path("o/", include("oauth2_provider.urls", namespace="oauth2_provider")),
    path("accounts/login/", LoginView.as_view(template_name="login.html"), name="login"),
    path("", home, name="home"),
]
'''

VALIDATOR = '''\
from oauth2_provider.oauth2_validators import OAuth2Validator


class ClaimsValidator(OAuth2Validator):
    """Adds a few standard claims, released per scope by DOT's oidc_claim_scope table."""

    def get_additional_claims(self):
        return {
            "preferred_username": lambda request: request.user.username,
            "name": lambda request: request.user.get_full_name(),
            "email": lambda request: request.user.email,
            "email_verified": lambda request: True,
        }
'''

LOGIN_TEMPLATE = '''\
<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>Sign in</title></head>
<body>
<h1>Sign in</h1>
{% if form.errors %}<p class="error">Your username and password didn't match.</p>{% endif %}
<form method="post" action="{% url 'login' %}">
  {% csrf_token %}
  <label>Username <input type="text" name="username" autocomplete="username" required></label>
  <label>Password <input type="password" name="password" autocomplete="current-password" required></label>
  <input type="hidden" name="next" value="{{ next }}">
  <button type="submit">Sign in</button>
</form>
</body>
</html>
'''

MANAGE = '''\
#!/usr/bin/env python
import os
import sys

if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "{package}.settings")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)
'''


def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def signing_key_pem():
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode()


def use_project(directory):
    sys.path.insert(0, str(directory))
    os.environ["DJANGO_SETTINGS_MODULE"] = f"{PACKAGE}.settings"
    import django

    django.setup()


def setup(directory, extra_settings=""):
    """Writes the project into `directory`, migrates it and creates the user and the two
    applications; `extra_settings` (a variant's, through str.format) ends its settings.py."""
    directory.mkdir(parents=True, exist_ok=True)
    package = directory / PACKAGE
    key = directory / "oidc-signing-key.pem"
    if not key.exists():
        write(key, signing_key_pem())
        key.chmod(0o600)
    secret_file = directory / "django-secret-key"
    if not secret_file.exists():
        write(secret_file, secrets.token_urlsafe(48))
    always_prompt = os.environ.get("DJANGO_OIDC_LOGOUT_PROMPT", "1") not in ("0", "false", "no")
    write(package / "__init__.py", "")
    own = OWN_SETTINGS.format(package=PACKAGE, always_prompt=always_prompt)
    write(package / "settings.py", settings_module(
        "django_oidc.py", PACKAGE, secret_file.read_text().strip(), apps=["oauth2_provider"],
        logger="oauth2_provider", own=own) + extra_settings.format(package=PACKAGE))
    write(package / "urls.py", URLS)
    write(package / "validator.py", VALIDATOR)
    write(directory / "templates" / "login.html", LOGIN_TEMPLATE)
    write(directory / "manage.py", MANAGE.format(package=PACKAGE))

    use_project(directory)
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from oauth2_provider.models import get_application_model

    call_command("migrate", verbosity=0, interactive=False)
    users = get_user_model()
    user, _ = users.objects.get_or_create(username=USERNAME)
    user.email = "alice@example.com"
    user.first_name, user.last_name = "Alice", "Example"
    user.set_password(PASSWORD)
    user.save()

    applications = get_application_model()
    common = {
        "user": user,
        "redirect_uris": REDIRECT_URIS,
        "post_logout_redirect_uris": POST_LOGOUT_REDIRECT_URIS,
        "authorization_grant_type": applications.GRANT_AUTHORIZATION_CODE,
        "algorithm": applications.RS256_ALGORITHM,
        "skip_authorization": False,
    }
    applications.objects.filter(client_id__in=[PUBLIC_CLIENT_ID, CONFIDENTIAL_CLIENT_ID]).delete()
    applications.objects.create(
        name="SignInSim public app", client_id=PUBLIC_CLIENT_ID,
        client_type=applications.CLIENT_PUBLIC, client_secret="", **common)
    applications.objects.create(
        name="SignInSim confidential app", client_id=CONFIDENTIAL_CLIENT_ID,
        client_type=applications.CLIENT_CONFIDENTIAL, client_secret=CONFIDENTIAL_CLIENT_SECRET,
        hash_client_secret=False, **common)


def serve(directory, port_file):
    from socketserver import ThreadingMixIn
    from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

    use_project(directory)
    from django.core.handlers.wsgi import WSGIHandler

    class Server(ThreadingMixIn, WSGIServer):
        daemon_threads = True
        allow_reuse_address = True

    class Handler(WSGIRequestHandler):
        def log_message(self, format, *args):
            sys.stderr.write("%s %s\n" % (self.log_date_time_string(), format % args))

    port = int(os.environ.get("PORT", "0"))
    httpd = make_server("127.0.0.1", port, WSGIHandler(), server_class=Server, handler_class=Handler)
    bound = httpd.server_address[1]
    temporary = Path(str(port_file) + ".tmp")
    temporary.write_text(f"{bound}\n")
    temporary.replace(port_file)  # atomic: the waiter never reads a half-written port
    sys.stderr.write(f"django-oidc listening on http://127.0.0.1:{bound}\n")
    sys.stderr.flush()
    try:
        httpd.serve_forever()
    except KeyboardInterrupt:
        pass


def main(argv, setup=setup, usage=__doc__):
    """`setup DIR` or `serve DIR PORT_FILE`; a variant passes its own setup and usage text."""
    if len(argv) >= 2 and argv[0] == "setup":
        setup(Path(argv[1]).resolve())
    elif len(argv) >= 3 and argv[0] == "serve":
        serve(Path(argv[1]).resolve(), Path(argv[2]))
    else:
        sys.stderr.write(textwrap.dedent(usage))
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
