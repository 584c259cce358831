"""A throwaway Django + django-allauth OpenID provider (allauth.idp.oidc, django-allauth 65.x,
added in 65.9) for scripts/captures and the web-flow interop check.

Usage:
  django_allauth_idp.py setup DIR          writes a Django project into DIR (settings, URLs, RSA
                                           signing key, sqlite database) and creates the user,
                                           the public client and the confidential one;
                                           idempotent.
  django_allauth_idp.py serve DIR PORTFILE as django_oidc.py serve (threaded stdlib WSGI server
                                           on 127.0.0.1, bound port to PORTFILE).

What the package does, read from its source (allauth/idp/oidc, django-allauth 65.22):

- Issuer: the site root (DefaultOIDCAdapter.get_issuer: build_absolute_uri("/") without the
  slash). Discovery /.well-known/openid-configuration, JWKS /.well-known/jwks.json; the
  endpoints under /identity/o/: authorize, logout (end_session_endpoint), api/token,
  api/revoke (revocation_endpoint), api/userinfo, device (and api/device/code).
- Login: allauth's own account login form (/accounts/login/, fields `login` and `password`,
  a `remember` checkbox, a hidden `next`, csrfmiddlewaretoken).
- Consent: a form with a hidden signed `request`, one checkbox per requested scope
  (`scopes`, all ticked), and two buttons named `action`: `grant` (Authorize) and `cancel`
  (Cancel). Cancel redirects to the redirect URI with error=access_denied and the state
  (views.py AuthorizationView._respond_with_access_denied). The client's `skip_consent`
  is off here, so the page is shown on every sign-in.
- Public client: type public, PKCE required for it (request_validator.is_pkce_required) and
  only S256 accepted (server.validate_code_challenge_method); token endpoint auth `none`.
- Scopes: the client may only request scopes listed on it (validate_scopes), so
  offline_access is listed here. It means nothing to allauth: oauthlib's code grant hands
  out a refresh token on every code exchange, with or without offline_access, as long as the
  client's grant types include refresh_token for the refresh itself.
- Refresh tokens: IDP_OIDC_ROTATE_REFRESH_TOKEN (default True, written out below): each
  refresh deletes the presented token and issues a new one
  (OAuthLibRequestValidator._prep_refresh_token), so the old one is unknown afterwards
  (400 invalid_grant); no reuse detection, no grace period. IDP_OIDC_REFRESH_TOKEN_EXPIRES_IN
  (default None: no expiry).
- RP-initiated logout: IDP_OIDC_RP_INITIATED_LOGOUT_ASKS_FOR_OP_LOGOUT (default True) shows a
  confirmation form (buttons `action` = `logout` / `stay`); on logout it deletes the user's
  access and refresh tokens for that client (internal/flows.py rp_initiated_logout), ends
  the session and redirects to the registered post_logout_redirect_uri with the state.

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
# interop_common.django_settings).
OWN_SETTINGS = '''\
AUTHENTICATION_BACKENDS = [
    "django.contrib.auth.backends.ModelBackend",
    "allauth.account.auth_backends.AuthenticationBackend",
]

# django-allauth accounts: username + password, no e-mail verification step.
ACCOUNT_LOGIN_METHODS = {"username"}
ACCOUNT_SIGNUP_FIELDS = ["username*", "email", "password1*", "password2*"]
ACCOUNT_EMAIL_VERIFICATION = "none"
# allauth limits logins by address (30 a minute, and 5 failed ones in 5 minutes per user: its
# defence against password guessing, not part of the OpenID flows under test). The interop checks
# sign in dozens of times a minute from 127.0.0.1, wrong passwords included, and were answered 429
# when one provider's checks in both engines ran back to back; so the test project has no limits.
ACCOUNT_RATE_LIMITS = False

# allauth.idp.oidc (allauth/idp/oidc/app_settings.py lists them all).
IDP_OIDC_PRIVATE_KEY = (BASE_DIR / "oidc-signing-key.pem").read_text()
IDP_OIDC_ROTATE_REFRESH_TOKEN = True
IDP_OIDC_REFRESH_TOKEN_EXPIRES_IN = 86400
IDP_OIDC_ACCESS_TOKEN_EXPIRES_IN = 3600
IDP_OIDC_RP_INITIATED_LOGOUT_ASKS_FOR_OP_LOGOUT = True
'''

URLS = '''\
from django.http import HttpResponse
from django.urls import include, path


def home(request):
    who = request.user.username if request.user.is_authenticated else "nobody"
    return HttpResponse(f"<!DOCTYPE html><title>IdP</title><p>Signed in: {who}</p>")


urlpatterns = [
    path("", include("allauth.idp.urls")),
    path("accounts/", include("allauth.urls")),
    path("", home, name="home"),
]
'''


def setup(directory):
    directory.mkdir(parents=True, exist_ok=True)
    package = directory / PACKAGE
    key = directory / "oidc-signing-key.pem"
    if not key.exists():
        django_oidc.write(key, django_oidc.signing_key_pem())
        key.chmod(0o600)
    secret_file = directory / "django-secret-key"
    if not secret_file.exists():
        django_oidc.write(secret_file, secrets.token_urlsafe(48))
    django_oidc.write(package / "__init__.py", "")
    django_oidc.write(package / "settings.py", settings_module(
        "django_allauth_idp.py", PACKAGE, secret_file.read_text().strip(),
        apps=["django.contrib.messages", "allauth", "allauth.account", "allauth.idp.oidc"],
        middleware=["django.contrib.messages.middleware.MessageMiddleware",
                    "allauth.account.middleware.AccountMiddleware"],
        context_processors=["django.contrib.messages.context_processors.messages"],
        templates_dir=False, logger="allauth", own=OWN_SETTINGS))
    django_oidc.write(package / "urls.py", URLS)
    django_oidc.write(directory / "manage.py", django_oidc.MANAGE.format(package=PACKAGE))

    django_oidc.use_project(directory)
    from allauth.account.models import EmailAddress
    from allauth.idp.oidc.models import Client
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)
    users = get_user_model()
    user, _ = users.objects.get_or_create(username=USERNAME)
    user.email = "alice@example.com"
    user.first_name, user.last_name = "Alice", "Example"
    user.set_password(PASSWORD)
    user.save()
    EmailAddress.objects.update_or_create(
        user=user, email=user.email, defaults={"verified": True, "primary": True})

    Client.objects.filter(id=PUBLIC_CLIENT_ID).delete()
    client = Client(id=PUBLIC_CLIENT_ID, name="SignInSim public app", type=Client.Type.PUBLIC,
                    skip_consent=False)
    client.set_scopes(SCOPES)
    client.set_default_scopes(["openid"])
    client.set_grant_types([Client.GrantType.AUTHORIZATION_CODE, Client.GrantType.REFRESH_TOKEN])
    client.set_response_types([Client.ResponseType.CODE])
    client.set_redirect_uris(REDIRECT_URIS)
    client.set_post_logout_redirect_uris(POST_LOGOUT_REDIRECT_URIS)
    client.save()

    # The confidential client: its secret is stored hashed (Client.set_secret) and checked
    # with HTTP Basic or in the body (oauthlib's authenticate_client).
    Client.objects.filter(id=CONFIDENTIAL_CLIENT_ID).delete()
    confidential = Client(id=CONFIDENTIAL_CLIENT_ID, name="SignInSim confidential app",
                          type=Client.Type.CONFIDENTIAL, skip_consent=False)
    confidential.set_secret(CONFIDENTIAL_CLIENT_SECRET)
    confidential.set_scopes(SCOPES)
    confidential.set_default_scopes(["openid"])
    confidential.set_grant_types([Client.GrantType.AUTHORIZATION_CODE, Client.GrantType.REFRESH_TOKEN])
    confidential.set_response_types([Client.ResponseType.CODE])
    confidential.set_redirect_uris(REDIRECT_URIS)
    confidential.set_post_logout_redirect_uris(POST_LOGOUT_REDIRECT_URIS)
    confidential.save()


if __name__ == "__main__":
    sys.exit(django_oidc.main(sys.argv[1:], setup=setup, usage=__doc__))
