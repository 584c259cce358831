"""A throwaway Django + django-oidc-provider (PyPI `django-oidc-provider`, 0.9.x) OpenID provider
for scripts/captures and the web-flow interop check.

Usage:
  django_oidc_provider.py setup DIR          writes a Django project into DIR (settings, URLs,
                                             login template, sqlite database), creates the RSA
                                             signing key with the package's own management
                                             command (creatersakey), the user, the public
                                             client and the confidential one; idempotent.
  django_oidc_provider.py serve DIR PORTFILE as django_oidc.py serve (threaded stdlib WSGI
                                             server on 127.0.0.1, bound port to PORTFILE).

What the package does, read from its source (oidc_provider 0.9.0):

- Paths under /openid/ (this project mounts oidc_provider.urls there): authorize, token,
  userinfo, end-session (+ end-session-prompt), jwks, introspect, and
  .well-known/openid-configuration. The issuer is the site URL + /openid.
- Refresh tokens: every code exchange issues one, whatever the scope (no offline_access
  handling at all). A refresh always rotates: lib/endpoints/token.py
  create_refresh_response_dic creates a new Token and deletes the old one, so a rotated-out
  refresh token is simply unknown afterwards (400 invalid_grant); there is no reuse
  detection and no grace period.
- No revocation endpoint (RFC 7009); end_session_endpoint yes (RP-initiated logout): with an
  id_token_hint and a registered post_logout_redirect_uri it logs the browser session out at
  once (no confirmation form) and redirects there with the state; it does not delete tokens.
- Consent: a public client using the code flow is never allowed to skip the consent page
  (AuthorizeEndpoint.is_client_allowed_to_skip_consent), so the page is shown on every sign-in.
  Its buttons are <input type=submit name=allow value=Authorize> and an unnamed
  <input type=submit value=Decline>; a POST without `allow` redirects with error=access_denied.
- PKCE: honoured when the authorize request carries code_challenge (S256 or plain), not
  required.

Loopback-only test scaffolding, like django_oidc.py: the secrets are fixed and public.
"""
import secrets
import sys
from pathlib import Path

import django_oidc

sys.path.append(str(Path(__file__).resolve().parent.parent))  # interop_common: see its __init__
from interop_common.django_settings import settings_module  # noqa: E402

USERNAME = django_oidc.USERNAME
PASSWORD = django_oidc.PASSWORD
PUBLIC_CLIENT_ID = django_oidc.PUBLIC_CLIENT_ID
CONFIDENTIAL_CLIENT_ID = django_oidc.CONFIDENTIAL_CLIENT_ID
CONFIDENTIAL_CLIENT_SECRET = django_oidc.CONFIDENTIAL_CLIENT_SECRET
REDIRECT_URIS = ["com.example.app://auth/callback", "http://127.0.0.1/callback"]
POST_LOGOUT_REDIRECT_URIS = ["com.example.app://auth/signed-out", "com.example.app://auth/callback"]
SCOPES = ["openid", "profile", "email", "offline_access"]
PACKAGE = django_oidc.PACKAGE  # serve() (shared with django_oidc.py) loads PACKAGE.settings

# This provider's own settings.py lines (after the shared ones of
# interop_common.django_settings); they go through str.format.
OWN_SETTINGS = '''\
# django-oidc-provider (oidc_provider/settings.py lists them all).
OIDC_USERINFO = "{package}.userinfo.userinfo"
OIDC_TOKEN_EXPIRE = 3600
OIDC_IDTOKEN_EXPIRE = 600
OIDC_SESSION_MANAGEMENT_ENABLE = False
'''

URLS = '''\
from django.contrib.auth.views import LoginView
from django.http import HttpResponse
from django.urls import include, path


def home(request):
    who = request.user.username if request.user.is_authenticated else "nobody"
    return HttpResponse(f"<!DOCTYPE html><title>IdP</title><p>Signed in: {who}</p>")


urlpatterns = [
    path("openid/", include("oidc_provider.urls", namespace="oidc_provider")),
    path("accounts/login/", LoginView.as_view(template_name="login.html"), name="login"),
    path("", home, name="home"),
]
'''

USERINFO = '''\
def userinfo(claims, user):
    """OIDC_USERINFO: the standard claims django-oidc-provider releases per scope."""
    claims["name"] = user.get_full_name()
    claims["given_name"] = user.first_name
    claims["family_name"] = user.last_name
    claims["preferred_username"] = user.username
    claims["email"] = user.email
    claims["email_verified"] = True
    return claims
'''


def setup(directory):
    directory.mkdir(parents=True, exist_ok=True)
    package = directory / PACKAGE
    secret_file = directory / "django-secret-key"
    if not secret_file.exists():
        django_oidc.write(secret_file, secrets.token_urlsafe(48))
    django_oidc.write(package / "__init__.py", "")
    django_oidc.write(package / "settings.py", settings_module(
        "django_oidc_provider.py", PACKAGE, secret_file.read_text().strip(), apps=["oidc_provider"],
        logger="oidc_provider", own=OWN_SETTINGS.format(package=PACKAGE)))
    django_oidc.write(package / "urls.py", URLS)
    django_oidc.write(package / "userinfo.py", USERINFO)
    django_oidc.write(directory / "templates" / "login.html", django_oidc.LOGIN_TEMPLATE)
    django_oidc.write(directory / "manage.py", django_oidc.MANAGE.format(package=PACKAGE))

    django_oidc.use_project(directory)
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from oidc_provider.models import Client, ResponseType, RSAKey

    call_command("migrate", verbosity=0, interactive=False)
    if not RSAKey.objects.exists():
        call_command("creatersakey")  # the package's command: one RSA-2048 key, RS256
    users = get_user_model()
    user, _ = users.objects.get_or_create(username=USERNAME)
    user.email = "alice@example.com"
    user.first_name, user.last_name = "Alice", "Example"
    user.set_password(PASSWORD)
    user.save()

    Client.objects.filter(client_id=PUBLIC_CLIENT_ID).delete()
    client = Client(
        name="SignInSim public app", client_type="public", client_id=PUBLIC_CLIENT_ID,
        client_secret="", jwt_alg="RS256", require_consent=True, reuse_consent=True)
    client.redirect_uris = REDIRECT_URIS
    client.post_logout_redirect_uris = POST_LOGOUT_REDIRECT_URIS
    client.scope = SCOPES
    client.save()
    client.response_types.set([ResponseType.objects.get(value="code")])

    # The confidential client: the secret is compared as stored, taken from HTTP Basic or,
    # without that header, from the body (lib/utils/oauth2.py extract_client_auth).
    Client.objects.filter(client_id=CONFIDENTIAL_CLIENT_ID).delete()
    confidential = Client(
        name="SignInSim confidential app", client_type="confidential",
        client_id=CONFIDENTIAL_CLIENT_ID, client_secret=CONFIDENTIAL_CLIENT_SECRET, jwt_alg="RS256",
        require_consent=True, reuse_consent=True)
    confidential.redirect_uris = REDIRECT_URIS
    confidential.post_logout_redirect_uris = POST_LOGOUT_REDIRECT_URIS
    confidential.scope = SCOPES
    confidential.save()
    confidential.response_types.set([ResponseType.objects.get(value="code")])


if __name__ == "__main__":
    sys.exit(django_oidc.main(sys.argv[1:], setup=setup, usage=__doc__))
