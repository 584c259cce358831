"""A throwaway OpenID provider built on pyop (IdentityPython's OP library, the one SATOSA's
OpenID Connect frontend uses) with a Flask front, for the interop checks. Its ID tokens are
signed with ES256 (a P-256 key), where the Django providers of this folder only sign RS256.

Usage:
  pyop_provider.py setup DIR          writes the P-256 signing key (DIR/signing-key.jwk, a private
                                      JWK with its RFC 7638 thumbprint as kid) and the Flask
                                      session secret (DIR/flask-secret); idempotent.
  pyop_provider.py serve DIR PORTFILE serves the provider on 127.0.0.1 (port from $PORT, else a
                                      free one chosen by the kernel) with a threaded stdlib WSGI
                                      server, and writes the bound port to PORTFILE. The issuer
                                      is http://127.0.0.1:PORT (no path).

Environment read by serve (pyop.sh passes them on):
  PYOP_CONFIDENTIAL_AUTH_METHOD  confidential-app's registered token_endpoint_auth_method,
                                 client_secret_basic (default) or client_secret_post: pyop accepts
                                 exactly the one registered method (see below).
  PYOP_ROTATE_REFRESH=1          issue a new refresh token on every refresh (refresh_token_threshold
                                 just above the refresh token lifetime); the old one keeps working.
                                 Default: pyop keeps the refresh token (none in refresh responses).
  PYOP_LOGOUT_PROMPT=1           ask "Log out?" at the end-session endpoint first (the confirmation
                                 page of pyop's example app); default: no page.

What is pyop's (pyop 3.5, on oic 1.7 and pyjwkest 1.4), and what is glue here:

- pyop.provider.Provider does the protocol: parse_authentication_request (oic's
  AuthorizationRequest.verify, known client_id, registered redirect_uri and response_type),
  authorize (the code, bound to the request and the subject), handle_token_request (client
  authentication, the code exchange with redirect_uri and PKCE checks, the refresh_token
  grant), the ES256 ID token (_create_signed_id_token, at_hash and nonce included), the JWKS,
  handle_userinfo_request (claims by scope), logout_user and do_post_logout_redirect. Codes,
  tokens and subject identifiers live in pyop's AuthorizationState over in-memory dicts; subject
  identifiers come from its HashBasedSubjectIdentifierFactory (public type, fixed salt: alice's
  sub is the same after a restart). Error responses are oic's message classes.
- Glue (this file): the Flask routes and their HTTP status codes (those of pyop's example app,
  plus Cache-Control: no-store on token responses), the login and consent pages with their CSRF
  tokens, the login session (Flask's signed cookie `pyop_session`: user, auth_time, pending
  authorization requests), prompt=none/login and max_age (pyop ignores both, so the page flow
  decides), auth_time in the ID token (given to handle_token_request as extra_id_token_claims:
  the time of the user's last login on this server; pyop keeps the extra claims given to
  authorize() with the code only with its stateless storage, so they are not used there), the
  access_denied redirect on Deny (oic's AuthorizationErrorResponse), the client and user tables,
  the key file, and one work-around: oic's ProviderConfigurationResponse.verify (run once in
  Provider.__init__) refuses an issuer that is not https, so the provider is built with the
  https spelling of the issuer, which is switched to http://127.0.0.1:PORT right after.

What pyop's source says it does (read in the venv, pyop 3.5.0; the offline_access, PKCE, client
authentication, refresh and logout points were also tried against the running server):

- ES256: jwkest signs with its own pure-Python ECDSA (jwkest/ecc.py), R||S fixed-length as JWS
  wants, but draws the ECDSA nonce k with random.getrandbits (Mersenne Twister, not a CSPRNG)
  and would draw a generated key the same way; the key here is therefore made by
  `cryptography` at setup. Fine on loopback with a throwaway key, not for production. The alg
  is the client's id_token_signed_response_alg, else the first of the discovery document's
  id_token_signing_alg_values_supported (ES256 here); at_hash uses "HS" + the alg's last three
  digits, i.e. SHA-256.
- ID token at the code exchange: iss, sub, aud (a list), iat, exp (1 h), nonce, at_hash, plus
  auth_time from this glue; profile and email claims only at userinfo (the claims request
  parameter can ask for them in the ID token).
- offline_access: oic's AuthorizationRequest.verify refuses it (invalid_request, redirected
  with the state) unless prompt contains consent; OpenID Connect Core 1.0 section 11 says to
  ignore the scope instead. The simulator sends prompt=consent with offline_access.
- PKCE: honoured, not required. When the authorization request had a code_challenge, the token
  request must carry a matching code_verifier (S256; "plain" passes validation but has no hash
  function in oic's CC_METHOD table, so a plain challenge fails at the token endpoint with a
  500). Without a code_challenge pyop issues the code without PKCE, for public clients too.
- Client authentication (pyop/client_authentication.py): Basic header -> client_secret_basic,
  client_secret in the body -> client_secret_post, client_id alone -> none; the method used must
  equal the client's single registered token_endpoint_auth_method (default client_secret_basic),
  so confidential-app takes either Basic or post, whichever PYOP_CONFIDENTIAL_AUTH_METHOD names.
- Refresh tokens: issued with every code exchange (offline_access or not) once a
  refresh_token_lifetime is set (24 h here). A refresh returns a new access token and no ID
  token; the refresh token is kept (no refresh_token in the response) unless it is within
  refresh_token_threshold of its expiry, when a new one is issued and the old one still works
  until it expires (no rotation with revocation, no reuse detection). The old access token
  stays valid. use_refresh_token does not check that the refresh token was issued to the
  authenticated client (RFC 6749 section 6 says it must).
- End session: logout_user takes the subject from a verified id_token_hint (else from the
  login session here) and deletes that subject's codes and access tokens, not its refresh
  tokens, which are left pointing at deleted access tokens: a later refresh with one fails with a
  KeyError (500). do_post_logout_redirect redirects only with an id_token_hint (it finds the
  client from its aud; client_id is not read) and a post_logout_redirect_uri registered for that
  client, adding the state; otherwise the glue shows a "signed out" page. The login session
  cookie is cleared either way.

Loopback-only test scaffolding: the secrets are fixed and public.
"""
import hashlib
import html
import json
import os
import secrets
import sys
import textwrap
import time
from pathlib import Path
from urllib.parse import urlencode

sys.path.append(str(Path(__file__).resolve().parent.parent))  # interop_common: see its __init__
from interop_common.encoding import b64url  # noqa: E402

USERNAME = "alice"
PASSWORD = "alice-password"
PUBLIC_CLIENT_ID = "com.example.app"
CONFIDENTIAL_CLIENT_ID = "confidential-app"
CONFIDENTIAL_CLIENT_SECRET = "confidential-app-secret"
REDIRECT_URIS = ["com.example.app://auth/callback"]
POST_LOGOUT_REDIRECT_URIS = ["com.example.app://auth/signed-out", "com.example.app://auth/callback"]
SCOPES = ["openid", "profile", "email", "offline_access"]
GRANT_TYPES = ["authorization_code", "refresh_token"]
SUBJECT_SALT = "signinsim-pyop"  # fixed: alice's sub survives a restart
REFRESH_TOKEN_LIFETIME = 86400
USERS = {
    USERNAME: {
        "password": PASSWORD,
        "claims": {
            "name": "Alice Example",
            "given_name": "Alice",
            "family_name": "Example",
            "preferred_username": USERNAME,
            "email": "alice@example.com",
            "email_verified": True,
        },
    },
}
LOGIN_PATH = "/login"
PENDING_LIMIT = 8  # authorization requests kept per browser session


def _b64url(number, length=32):
    """A P-256 coordinate or private value as a JWK member (RFC 7518 §6.2.1.2: base64url of
    its `length` big-endian octets)."""
    return b64url(number.to_bytes(length, "big"))


def setup(directory):
    from cryptography.hazmat.primitives.asymmetric import ec

    directory.mkdir(parents=True, exist_ok=True)
    key_file = directory / "signing-key.jwk"
    if not key_file.exists():
        private = ec.generate_private_key(ec.SECP256R1())
        numbers = private.private_numbers()
        public = {"crv": "P-256", "kty": "EC",
                  "x": _b64url(numbers.public_numbers.x), "y": _b64url(numbers.public_numbers.y)}
        canonical = json.dumps(public, separators=(",", ":"), sort_keys=True).encode()
        kid = b64url(hashlib.sha256(canonical).digest())
        jwk = dict(public, d=_b64url(numbers.private_value), kid=kid, use="sig", alg="ES256")
        key_file.write_text(json.dumps(jwk, indent=2) + "\n")
        key_file.chmod(0o600)
    secret_file = directory / "flask-secret"
    if not secret_file.exists():
        secret_file.write_text(secrets.token_urlsafe(48) + "\n")
        secret_file.chmod(0o600)


def clients(confidential_auth_method):
    common = {
        "redirect_uris": REDIRECT_URIS,
        "post_logout_redirect_uris": POST_LOGOUT_REDIRECT_URIS,
        "response_types": ["code"],
        "grant_types": GRANT_TYPES,
        "scope": " ".join(SCOPES),
        "id_token_signed_response_alg": "ES256",
    }
    return {
        PUBLIC_CLIENT_ID: dict(common, client_id=PUBLIC_CLIENT_ID, token_endpoint_auth_method="none"),
        CONFIDENTIAL_CLIENT_ID: dict(
            common, client_id=CONFIDENTIAL_CLIENT_ID, client_secret=CONFIDENTIAL_CLIENT_SECRET,
            token_endpoint_auth_method=confidential_auth_method),
    }


def make_provider(directory, issuer):
    from jwkest.jwk import ECKey
    from pyop.authz_state import AuthorizationState
    from pyop.provider import Provider
    from pyop.subject_identifier import HashBasedSubjectIdentifierFactory
    from pyop.userinfo import Userinfo

    signing_key = ECKey(**json.loads((directory / "signing-key.jwk").read_text()))
    auth_method = os.environ.get("PYOP_CONFIDENTIAL_AUTH_METHOD", "client_secret_basic")
    if auth_method not in ("client_secret_basic", "client_secret_post"):
        sys.exit(f"PYOP_CONFIDENTIAL_AUTH_METHOD: {auth_method!r} is neither client_secret_basic nor client_secret_post")
    rotate = os.environ.get("PYOP_ROTATE_REFRESH", "0") not in ("", "0", "false", "no")
    https_issuer = "https://" + issuer.split("://", 1)[1]  # see the docstring: oic wants https
    configuration = {
        "issuer": https_issuer,
        "authorization_endpoint": issuer + "/authorize",
        "token_endpoint": issuer + "/token",
        "userinfo_endpoint": issuer + "/userinfo",
        "jwks_uri": issuer + "/jwks",
        "end_session_endpoint": issuer + "/logout",
        "response_types_supported": ["code"],
        "response_modes_supported": ["query"],
        "grant_types_supported": GRANT_TYPES,
        "subject_types_supported": ["public"],
        "id_token_signing_alg_values_supported": ["ES256"],
        "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post", "none"],
        "code_challenge_methods_supported": ["S256"],
        "scopes_supported": SCOPES,
        "claims_supported": ["sub", "iss", "aud", "exp", "iat", "auth_time", "nonce", "at_hash", "name",
                             "given_name", "family_name", "preferred_username", "email", "email_verified"],
        "prompt_values_supported": ["none", "login", "consent"],
        "request_uri_parameter_supported": False,  # oic's default says True; pyop reads no request_uri
    }
    authz_state = AuthorizationState(
        HashBasedSubjectIdentifierFactory(SUBJECT_SALT),
        refresh_token_lifetime=REFRESH_TOKEN_LIFETIME,
        refresh_token_threshold=REFRESH_TOKEN_LIFETIME + 1 if rotate else None,  # "+ 1": pyop compares with <
    )
    userinfo = Userinfo({name: user["claims"] for name, user in USERS.items()})
    provider = Provider(signing_key, configuration, authz_state, clients(auth_method), userinfo)
    provider.configuration_information["issuer"] = issuer
    return provider


PAGE = """<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>{title}</title></head>
<body>
<h1>{title}</h1>
{body}
</body>
</html>
"""


def page(title, body, status=200):
    from flask import make_response

    response = make_response(PAGE.format(title=html.escape(title), body=body), status)
    response.headers["Content-Type"] = "text/html; charset=utf-8"
    response.headers["Cache-Control"] = "no-store"
    return response


def create_app(directory, provider_holder):
    """The Flask app; provider_holder[0] is the pyop Provider (set once the port is known)."""
    import flask
    from flask import Flask, redirect, request, session
    from oic.oic.message import AuthorizationErrorResponse, EndSessionRequest, TokenErrorResponse
    from oic.oic.message import UserInfoErrorResponse
    from pyop.access_token import AccessToken, BearerTokenError
    from pyop.exceptions import (InvalidAccessToken, InvalidAuthenticationRequest,
                                 InvalidClientAuthentication, InvalidSubjectIdentifier, OAuthError)
    from pyop.message import AuthorizationRequest
    from pyop.util import should_fragment_encode

    app = Flask("pyop_provider")
    app.secret_key = (directory / "flask-secret").read_text().strip()
    app.config.update(SESSION_COOKIE_NAME="pyop_session", SESSION_COOKIE_SAMESITE="Lax",
                      SESSION_COOKIE_HTTPONLY=True)
    logout_prompt = os.environ.get("PYOP_LOGOUT_PROMPT", "0") not in ("", "0", "false", "no")

    def provider():
        return provider_holder[0]

    last_login = {}  # user -> auth_time of the user's last login here (pyop keeps no auth_time)

    def auth_time_claim(user_id, client_id):
        return {"auth_time": last_login[user_id]} if user_id in last_login else {}

    def json_response(payload, status=200, **headers):
        response = flask.make_response(payload, status)
        response.headers["Content-Type"] = "application/json"
        for name, value in headers.items():
            response.headers[name.replace("_", "-")] = value
        return response

    def csrf_token():
        if "csrf" not in session:
            session["csrf"] = secrets.token_urlsafe(32)
        return session["csrf"]

    def csrf_input():
        return f'<input type="hidden" name="csrf_token" value="{html.escape(csrf_token())}">'

    def csrf_refused():
        sent = request.form.get("csrf_token", "")
        expected = session.get("csrf", "")
        if sent and expected and secrets.compare_digest(sent, expected):
            return None
        return page("Forbidden", "<p class=\"error\">The form's CSRF token is missing or wrong.</p>", 403)

    def pending_request(txn):
        stored = session.get("pending", {}).get(txn or "")
        return AuthorizationRequest().from_dict(stored) if stored else None

    def finish(txn):
        pending = dict(session.get("pending", {}))
        pending.pop(txn, None)
        session["pending"] = pending

    def to_client(auth_req, message):
        url = message.request(auth_req["redirect_uri"], should_fragment_encode(auth_req))
        return redirect(url, 303)

    def error_to_client(auth_req, error, description=None):
        response = AuthorizationErrorResponse(error=error)
        if description:
            response["error_description"] = description
        if "state" in auth_req:
            response["state"] = auth_req["state"]
        return to_client(auth_req, response)

    def signed_in(auth_req):
        """Whether the login session may answer auth_req without the login page."""
        if "user" not in session:
            return False
        if "login" in auth_req.get("prompt", []) and not session.get("fresh_login"):
            return False
        max_age = auth_req.get("max_age")
        if max_age is not None and time.time() - session.get("auth_time", 0) > int(max_age):
            return False
        return True

    def no_txn():
        return page("Bad request", "<p class=\"error\">No pending authorization request: start at the app.</p>", 400)

    @app.get("/")
    def home():
        who = html.escape(session.get("user", "nobody"))
        return page("IdP", f"<p>Signed in: {who}</p>")

    @app.get("/.well-known/openid-configuration")
    def discovery():
        return flask.jsonify(provider().provider_configuration.to_dict())

    @app.get("/jwks")
    def jwks():
        return flask.jsonify(provider().jwks)

    @app.route("/authorize", methods=["GET", "POST"])
    def authorize():
        raw = request.get_data(as_text=True) if request.method == "POST" else request.query_string.decode()
        try:
            auth_req = provider().parse_authentication_request(raw, request.headers)
        except InvalidAuthenticationRequest as error:
            app.logger.warning("invalid authorization request: %s", error)
            url = error.to_error_url()
            if url:
                return redirect(url, 303)
            return page("Bad request", f"<p class=\"error\">{html.escape(str(error))}</p>", 400)
        prompt = auth_req.get("prompt", [])
        if "none" in prompt:  # consent is asked on every authorization, so never without a page
            return error_to_client(auth_req, "login_required" if "user" not in session else "consent_required")
        txn = secrets.token_urlsafe(12)
        pending = dict(session.get("pending", {}))
        while len(pending) >= PENDING_LIMIT:
            pending.pop(next(iter(pending)))
        pending[txn] = auth_req.to_dict()
        session["pending"] = pending
        session.pop("fresh_login", None)
        target = "consent" if signed_in(auth_req) else "login"
        return redirect(f"/{target}?{urlencode({'txn': txn})}", 303)

    def login_form(txn, error=""):
        error_html = f'<p class="error">{html.escape(error)}</p>\n' if error else ""
        return page("Sign in", error_html + f"""<form method="post" action="{LOGIN_PATH}">
  {csrf_input()}
  <input type="hidden" name="txn" value="{html.escape(txn)}">
  <label>Username <input type="text" name="username" autocomplete="username" required></label>
  <label>Password <input type="password" name="password" autocomplete="current-password" required></label>
  <button type="submit">Sign in</button>
</form>""")

    @app.route(LOGIN_PATH, methods=["GET", "POST"])
    def login():
        if request.method == "GET":
            txn = request.args.get("txn", "")
            return login_form(txn) if pending_request(txn) else no_txn()
        refused = csrf_refused()
        if refused:
            return refused
        txn = request.form.get("txn", "")
        if not pending_request(txn):
            return no_txn()
        username = request.form.get("username", "")
        user = USERS.get(username)
        if not user or not secrets.compare_digest(request.form.get("password", ""), user["password"]):
            return login_form(txn, "Your username and password didn't match.")
        session["user"] = username
        session["auth_time"] = last_login[username] = int(time.time())
        session["fresh_login"] = True
        return redirect(f"/consent?{urlencode({'txn': txn})}", 303)

    @app.route("/consent", methods=["GET", "POST"])
    def consent():
        txn = request.values.get("txn", "")
        auth_req = pending_request(txn)
        if not auth_req:
            return no_txn()
        if not signed_in(auth_req):
            return redirect(f"/login?{urlencode({'txn': txn})}", 303)
        if request.method == "GET":
            scopes = "".join(f"<li>{html.escape(scope)}</li>" for scope in auth_req["scope"])
            return page("Allow access?", f"""<p>{html.escape(auth_req['client_id'])} asks for:</p>
<ul>{scopes}</ul>
<form method="post" action="/consent">
  {csrf_input()}
  <input type="hidden" name="txn" value="{html.escape(txn)}">
  <button name="decision" value="allow">Allow</button>
  <button name="decision" value="deny">Deny</button>
</form>""")
        refused = csrf_refused()
        if refused:
            return refused
        decision = request.form.get("decision")
        if decision not in ("allow", "deny"):
            return page("Bad request", "<p class=\"error\">Choose Allow or Deny.</p>", 400)
        finish(txn)
        session.pop("fresh_login", None)
        if decision == "deny":
            return error_to_client(auth_req, "access_denied", "The user denied the request")
        response = provider().authorize(auth_req, session["user"])
        return to_client(auth_req, response)

    @app.post("/token")
    def token():
        try:
            response = provider().handle_token_request(request.get_data(as_text=True), request.headers,
                                                       extra_id_token_claims=auth_time_claim)
            return json_response(response.to_json(), Cache_Control="no-store", Pragma="no-cache")
        except InvalidClientAuthentication as error:
            app.logger.warning("token endpoint: invalid client: %s", error)
            body = TokenErrorResponse(error="invalid_client", error_description=str(error)).to_json()
            return json_response(body, 401, WWW_Authenticate="Basic", Cache_Control="no-store")
        except OAuthError as error:
            app.logger.warning("token endpoint: %s: %s", error.oauth_error, error)
            body = TokenErrorResponse(error=error.oauth_error, error_description=str(error)).to_json()
            return json_response(body, 400, Cache_Control="no-store")

    @app.route("/userinfo", methods=["GET", "POST"])
    def userinfo():
        raw = request.get_data(as_text=True) if request.method == "POST" else request.query_string.decode()
        try:
            response = provider().handle_userinfo_request(raw, request.headers)
            return json_response(response.to_json())
        except (BearerTokenError, InvalidAccessToken) as error:
            body = UserInfoErrorResponse(error="invalid_token", error_description=str(error)).to_json()
            return json_response(body, 401, WWW_Authenticate=f'{AccessToken.BEARER_TOKEN_TYPE} error="invalid_token"')

    def do_logout(end_session_request):
        subject = None
        user = session.get("user")
        if user:
            subject = provider().authz_state.subject_identifiers.get(user, {}).get("public")
        try:
            if subject or "id_token_hint" in end_session_request:
                provider().logout_user(subject_identifier=subject, end_session_request=end_session_request)
        except InvalidSubjectIdentifier as error:
            app.logger.warning("logout: %s", error)
        except Exception as error:  # a bad id_token_hint: oic's JWT errors
            app.logger.warning("logout refused: %r", error)
            return page("Bad request", f"<p class=\"error\">Logout refused: {html.escape(str(error))}</p>", 400)
        session.clear()  # Flask deletes the cookie
        url = provider().do_post_logout_redirect(end_session_request)
        if url:
            return redirect(url, 303)
        return page("Signed out", "<p>You are signed out.</p>")

    @app.route("/logout", methods=["GET", "POST"])
    def logout():
        if request.method == "POST" and "csrf_token" in request.form:  # the confirmation form
            refused = csrf_refused()
            if refused:
                return refused
            stored = session.pop("end_session_request", None)
            if stored is None:
                return page("Bad request", "<p class=\"error\">No pending logout.</p>", 400)
            if request.form.get("decision") != "logout":
                return page("Still signed in", "<p>You are still signed in.</p>")
            return do_logout(EndSessionRequest().from_dict(stored))
        raw = request.get_data(as_text=True) if request.method == "POST" else request.query_string.decode()
        end_session_request = EndSessionRequest().deserialize(raw, "urlencoded")
        if not logout_prompt:
            return do_logout(end_session_request)
        session["end_session_request"] = end_session_request.to_dict()
        return page("Log out?", f"""<p>Do you want to log out of the identity provider?</p>
<form method="post" action="/logout">
  {csrf_input()}
  <button name="decision" value="logout">Log out</button>
  <button name="decision" value="stay">Stay signed in</button>
</form>""")

    return app


def serve(directory, port_file):
    from socketserver import ThreadingMixIn
    from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

    class Server(ThreadingMixIn, WSGIServer):
        daemon_threads = True
        allow_reuse_address = True

    class Handler(WSGIRequestHandler):
        def log_message(self, format, *args):
            sys.stderr.write("%s %s\n" % (self.log_date_time_string(), format % args))

    import logging

    logging.basicConfig(level=logging.WARNING, stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    holder = [None]
    app = create_app(directory, holder)
    port = int(os.environ.get("PORT", "0"))
    httpd = make_server("127.0.0.1", port, app, server_class=Server, handler_class=Handler)
    bound = httpd.server_address[1]
    holder[0] = make_provider(directory, f"http://127.0.0.1:{bound}")
    temporary = Path(str(port_file) + ".tmp")
    temporary.write_text(f"{bound}\n")
    temporary.replace(port_file)  # atomic: the waiter never reads a half-written port
    sys.stderr.write(f"pyop listening on http://127.0.0.1:{bound}\n")
    sys.stderr.flush()
    try:
        httpd.serve_forever()
    except KeyboardInterrupt:
        pass


def main(argv):
    if len(argv) >= 2 and argv[0] == "setup":
        setup(Path(argv[1]).resolve())
    elif len(argv) >= 3 and argv[0] == "serve":
        serve(Path(argv[1]).resolve(), Path(argv[2]))
    else:
        sys.stderr.write(textwrap.dedent(__doc__))
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
