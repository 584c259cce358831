"""Sets up and checks a Glewlwyd 2.7 OpenID provider started by providers/glewlwyd.sh.

    glewlwyd_setup.py webapp-config DIR BASE_URL   writes DIR/webapp/config.json (the JS app's)
    glewlwyd_setup.py configure DIR PID            waits for the server, then configures it
    glewlwyd_setup.py selftest DIR                 Glewlwyd's own REST flow, end to end

`configure` waits (GLEWLWYD_WAIT_SECONDS) until the server with process id PID answers
GET /config/, then, through the admin REST API as admin/password: adds the scopes `profile`,
`email` and `offline_access`, lets the database client backend store the
`post_logout_redirect_uris` list the OIDC plugin reads, adds the OIDC plugin instance `oidc`
(RS256 with the PEM key pair in DIR/keys, code and refresh_token grants, PKCE S256 allowed,
end_session with front-channel logout), the user and the two clients. It exits with 75 when the server exited
before it answered (the port was taken: glewlwyd.sh tries another), 1 on any other failure.

The values come from the environment (glewlwyd.sh exports them): GLEWLWYD_URL, GLEWLWYD_ISSUER,
GLEWLWYD_CLIENT_ID, GLEWLWYD_CONFIDENTIAL_CLIENT_ID, GLEWLWYD_CONFIDENTIAL_CLIENT_SECRET,
GLEWLWYD_REDIRECT_URI, GLEWLWYD_POST_LOGOUT_REDIRECT_URI, GLEWLWYD_USERNAME, GLEWLWYD_PASSWORD,
GLEWLWYD_EMAIL, GLEWLWYD_NAME, GLEWLWYD_SCOPES, GLEWLWYD_ADMIN_USERNAME, GLEWLWYD_ADMIN_PASSWORD,
GLEWLWYD_ROTATE_REFRESH. `selftest` reads them from DIR/env instead, so that it runs on its own.

What Glewlwyd 2.7.5 wants that its API document does not say (found on Debian 12's package):
- the client backend's stock `data-format` knows `post_logout_redirect_uri` (one string), but
  the OIDC plugin's end_session reads `post_logout_redirect_uris` (a list): without a
  `multiple` entry for that name the client is refused ("must be a string value");
- a client's secret is its `password` property (stored hashed); `client_secret` is only the
  key of HMAC-signed request objects;
- PUT /api/auth/grant/CLIENT takes the scopes separated by spaces (the document says commas),
  and needs the user to hold `g_profile`;
- the authorization endpoint sends every request without `g_continue` to the login page, even
  with a session and every scope granted: the JS app's Continue button adds it;
- a scope is only granted when it exists as a Glewlwyd scope and the user holds it;
- the JS app's end-session page lists the session's clients through
  GET /api/oidc/session/SID/CLIENT, which is 400 unless `front-channel-logout-allowed` is on:
  without it the page's Logout button does nothing.

`selftest` leaves the provider as a person finds it: the consent it gave is withdrawn and its
session closed.
"""

import json
import os
import secrets
import sys
import time
import urllib.parse
from pathlib import Path

import jwt
import requests

sys.path.append(str(Path(__file__).resolve().parent.parent))  # interop_common: see its __init__
from interop_common.encoding import s256_challenge  # noqa: E402

TIMEOUT = 10


class Failure(Exception):
    pass


def env(name):
    value = os.environ.get(name)
    if value is None:
        raise Failure(f"{name} is not set")
    return value


def expect(response, status, what):
    if response.status_code != status:
        raise Failure(f"{what}: HTTP {response.status_code} (expected {status}): {response.text[:300]}")
    return response


# -- webapp-config -----------------------------------------------------------------------------

def webapp_config(directory, base_url):
    """The package's config.json for the JS app (a conffile under /etc, reached through a link
    to a folder), with absolute loopback URLs."""
    for source in ("/usr/share/glewlwyd/templates/config.json",
                   "/etc/glewlwyd/config-2.7.json/config.json"):
        if os.path.isfile(source):
            with open(source) as handle:
                config = json.load(handle)
            break
    else:
        raise Failure("no config.json for the web app in the glewlwyd-common package")
    base = base_url.rstrip("/") + "/"
    config.update({
        "GlewlwydUrl": base,
        "ProfileUrl": base + "profile.html",
        "AdminUrl": base + "index.html",
        "LoginUrl": base + "login.html",
        "CallbackPage": base + "callback.html",
    })
    with open(os.path.join(directory, "webapp", "config.json"), "w") as handle:
        json.dump(config, handle, indent=2)


# -- configure ---------------------------------------------------------------------------------

def wait_for_server(base_url, pid, seconds):
    deadline = time.monotonic() + seconds
    last = "nothing yet"
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            print(f"the server (pid {pid}) exited before it answered: {last}", file=sys.stderr)
            sys.exit(75)
        try:
            response = requests.get(base_url + "/config/", timeout=2)
            if response.status_code == 200 and "api_prefix" in response.json():
                return
            last = f"HTTP {response.status_code}"
        except (requests.RequestException, ValueError) as error:
            last = str(error)
        time.sleep(0.1)
    raise Failure(f"no answer from {base_url}/config/ within {seconds:g}s: {last}")


def configure(directory, pid):
    base = env("GLEWLWYD_URL")
    issuer = env("GLEWLWYD_ISSUER")
    wait_for_server(base, pid, float(os.environ.get("GLEWLWYD_WAIT_SECONDS", "30")))
    admin = requests.Session()
    expect(admin.post(base + "/api/auth/", json={"username": env("GLEWLWYD_ADMIN_USERNAME"),
                                                 "password": env("GLEWLWYD_ADMIN_PASSWORD")},
                      timeout=TIMEOUT), 200, "admin login")

    # Scopes: `openid` (no password) comes with the database; the others need the password.
    for name, description in (("profile", "Your name"), ("email", "Your e-mail address"),
                              ("offline_access", "Access while you are away (refresh tokens)")):
        expect(admin.post(base + "/api/scope/", json={
            "name": name, "display_name": name, "description": description,
            "password_required": True, "password_max_age": 0, "scheme": {}}, timeout=TIMEOUT),
            200, f"scope {name}")

    # The client backend must store post_logout_redirect_uris as a list (see the docstring).
    module = expect(admin.get(base + "/api/mod/client/database", timeout=TIMEOUT), 200,
                    "client backend").json()
    module["parameters"]["data-format"]["post_logout_redirect_uris"] = {
        "multiple": True, "read": True, "write": True}
    expect(admin.put(base + "/api/mod/client/database", json=module, timeout=TIMEOUT), 200,
           "client backend data-format")
    expect(admin.put(base + "/api/mod/client/database/reset", timeout=TIMEOUT), 200,
           "client backend reset")

    keys = os.path.join(directory, "keys")
    with open(os.path.join(keys, "private.pem")) as handle:
        private_pem = handle.read()
    with open(os.path.join(keys, "public.pem")) as handle:
        public_pem = handle.read()
    scopes = env("GLEWLWYD_SCOPES").split()
    parameters = {
        "iss": issuer,
        "jwt-type": "rsa", "jwt-key-size": "256", "key": private_pem, "cert": public_pem,
        "jwks-show": True,
        "access-token-duration": 3600, "refresh-token-duration": 1209600, "code-duration": 600,
        "refresh-token-rolling": True,
        "refresh-token-one-use": "always" if os.environ.get("GLEWLWYD_ROTATE_REFRESH") == "1" else "never",
        "allow-non-oidc": False,
        "auth-type-code-enabled": True, "auth-type-code-revoke-replayed": True,
        "auth-type-refresh-enabled": True,
        # The id_token response type is always on in this plugin; the rest are off.
        "auth-type-token-enabled": False, "auth-type-password-enabled": False,
        "auth-type-client-enabled": False, "auth-type-device-enabled": False,
        "auth-type-none-enabled": False,
        "pkce-allowed": True, "pkce-method-plain-allowed": False,
        "subject-type": "public",
        "allowed-scope": scopes,
        "name-claim": "on-demand", "name-claim-scope": ["profile"],
        "email-claim": "on-demand", "email-claim-scope": ["email"],
        "oauth-as-iss-id": True,
        "session-management-allowed": True,
        # The end-session page of the JS app lists the session's clients through an endpoint
        # that answers 400 unless front-channel logout is on: its Logout button then does nothing.
        "front-channel-logout-allowed": True,
        "session-cookie-name": "GLEWLWYD2_OIDC_SID", "session-cookie-expiration": 2419200,
        "request-parameter-allow": False,
        # Pushed authorization requests (RFC 9126) allowed beside plain ones, so that the
        # audit's PAR checks run against Glewlwyd's own endpoint (OIDC.md, "OAuth 2.0 Pushed
        # Authorization Requests").
        "oauth-par-allowed": True, "oauth-par-required": False,
        "oauth-par-request_uri-prefix": "urn:ietf:params:oauth:request_uri:", "oauth-par-duration": 90,
    }
    expect(admin.post(base + "/api/mod/plugin/", json={
        "module": "oidc", "name": "oidc", "display_name": "OpenID Connect",
        "enabled": True, "parameters": parameters}, timeout=TIMEOUT), 200, "OIDC plugin")

    expect(admin.post(base + "/api/user/", json={
        "username": env("GLEWLWYD_USERNAME"), "password": env("GLEWLWYD_PASSWORD"),
        "name": env("GLEWLWYD_NAME"), "email": env("GLEWLWYD_EMAIL"), "enabled": True,
        "scope": ["g_profile"] + scopes}, timeout=TIMEOUT), 200, "user")

    common = {
        "enabled": True,
        "redirect_uri": [env("GLEWLWYD_REDIRECT_URI")],
        "post_logout_redirect_uris": [env("GLEWLWYD_POST_LOGOUT_REDIRECT_URI")],
        "authorization_type": ["code", "refresh_token"],
        "scope": [],
    }
    expect(admin.post(base + "/api/client/", json=dict(common, **{
        "client_id": env("GLEWLWYD_CLIENT_ID"), "name": "Example app (public)",
        "confidential": False, "token_endpoint_auth_method": ["none"]}), timeout=TIMEOUT),
        200, "public client")
    expect(admin.post(base + "/api/client/", json=dict(common, **{
        "client_id": env("GLEWLWYD_CONFIDENTIAL_CLIENT_ID"), "name": "Example app (confidential)",
        "confidential": True, "password": env("GLEWLWYD_CONFIDENTIAL_CLIENT_SECRET"),
        "token_endpoint_auth_method": ["client_secret_basic", "client_secret_post"]}),
        timeout=TIMEOUT), 200, "confidential client")

    discovery = expect(requests.get(issuer + "/.well-known/openid-configuration", timeout=TIMEOUT),
                       200, "discovery").json()
    if discovery.get("issuer") != issuer:
        raise Failure(f"discovery names issuer {discovery.get('issuer')!r}, not {issuer!r}")
    with open(os.path.join(directory, "openid-configuration.json"), "w") as handle:
        json.dump(discovery, handle, indent=1, sort_keys=True)
    expect(admin.delete(base + "/api/auth/", timeout=TIMEOUT), 200, "admin logout")


# -- selftest ----------------------------------------------------------------------------------

def read_env(directory):
    values = {}
    with open(os.path.join(directory, "env")) as handle:
        for line in handle:
            key, sep, value = line.rstrip("\n").partition("=")
            if sep:
                values[key] = value
    return values


class SelfTest:
    def __init__(self, values):
        self.v = values
        self.issuer = values["GLEWLWYD_ISSUER"]
        self.base = values["GLEWLWYD_URL"]
        self.scopes = values["GLEWLWYD_SCOPES"]
        self.redirect_uri = values["GLEWLWYD_REDIRECT_URI"]
        self.passed = 0

    def ok(self, name):
        self.passed += 1
        print(f"ok   {name}", flush=True)

    def discovery(self):
        d = expect(requests.get(self.issuer + "/.well-known/openid-configuration", timeout=TIMEOUT),
                   200, "discovery").json()
        if d["issuer"] != self.issuer:
            raise Failure(f"discovery issuer {d['issuer']!r} != {self.issuer!r}")
        for key in ("authorization_endpoint", "token_endpoint", "jwks_uri", "userinfo_endpoint",
                    "end_session_endpoint"):
            if not d.get(key, "").startswith(self.base + "/"):
                raise Failure(f"discovery {key} is {d.get(key)!r}")
        if "S256" not in d.get("code_challenge_methods_supported", []):
            raise Failure("discovery does not offer PKCE S256")
        if "RS256" not in d.get("id_token_signing_alg_values_supported", []):
            raise Failure("discovery does not offer RS256 ID tokens")
        self.d = d
        self.jwks = jwt.PyJWKClient(d["jwks_uri"], cache_keys=False)
        self.ok("discovery: issuer, endpoints on loopback, S256, RS256, end_session_endpoint")

    def log_in(self):
        bad = requests.Session()
        expect(bad.post(self.base + "/api/auth/", json={"username": self.v["GLEWLWYD_USERNAME"],
                                                        "password": "wrong-" + secrets.token_hex(4)},
                        timeout=TIMEOUT), 401, "login with a wrong password")
        self.user = requests.Session()
        expect(self.user.post(self.base + "/api/auth/", json={"username": self.v["GLEWLWYD_USERNAME"],
                                                              "password": self.v["GLEWLWYD_PASSWORD"]},
                              timeout=TIMEOUT), 200, "login")
        self.ok("POST /api/auth/: the user logs in with the password; a wrong one is 401")

    def grant(self, client_id, scope):
        expect(self.user.put(self.base + "/api/auth/grant/" + urllib.parse.quote(client_id, safe=""),
                             json={"scope": scope}, timeout=TIMEOUT), 200, f"grant to {client_id}")

    def authorize(self, client_id):
        verifier = secrets.token_urlsafe(48)
        challenge = s256_challenge(verifier)
        state, nonce = secrets.token_urlsafe(12), secrets.token_urlsafe(12)
        query = urllib.parse.urlencode({
            "response_type": "code", "client_id": client_id, "redirect_uri": self.redirect_uri,
            "scope": self.scopes, "state": state, "nonce": nonce,
            "code_challenge": challenge, "code_challenge_method": "S256"})
        # Without g_continue the endpoint always answers with the login page (the JS app).
        response = self.user.get(self.d["authorization_endpoint"] + "?" + query, allow_redirects=False,
                                 timeout=TIMEOUT)
        login = self.base + "/login.html?"
        if response.status_code != 302 or not response.headers.get("Location", "").startswith(login):
            raise Failure(f"authorize without g_continue: {response.status_code} {response.headers.get('Location')}")
        response = self.user.get(self.d["authorization_endpoint"] + "?" + query + "&g_continue",
                                 allow_redirects=False, timeout=TIMEOUT)
        location = response.headers.get("Location", "")
        if response.status_code != 302 or not location.startswith(self.redirect_uri + "?"):
            raise Failure(f"authorize: {response.status_code} to {location!r}: {response.text[:200]}")
        params = urllib.parse.parse_qs(urllib.parse.urlsplit(location).query)
        if params.get("state") != [state]:
            raise Failure(f"authorize: state {params.get('state')} != {state}")
        if params.get("iss", [self.issuer]) != [self.issuer]:
            raise Failure(f"authorize: iss {params.get('iss')} != {self.issuer}")
        if "code" not in params:
            raise Failure(f"authorize: no code in {location}")
        return params["code"][0], verifier, nonce

    def token(self, form, auth=None):
        return requests.post(self.d["token_endpoint"], data=form, auth=auth, timeout=TIMEOUT)

    def check_id_token(self, id_token, client_id, nonce):
        header = jwt.get_unverified_header(id_token)
        if header.get("alg") != "RS256":
            raise Failure(f"ID token alg {header.get('alg')}")
        key = self.jwks.get_signing_key_from_jwt(id_token)
        claims = jwt.decode(id_token, key.key, algorithms=["RS256"], audience=client_id,
                            issuer=self.issuer, options={"require": ["exp", "iat", "sub", "nonce"]})
        if claims["nonce"] != nonce:
            raise Failure(f"ID token nonce {claims['nonce']!r} != {nonce!r}")
        if claims.get("email") != self.v["GLEWLWYD_EMAIL"]:
            raise Failure(f"ID token email {claims.get('email')!r}")
        return claims

    def public_client(self):
        client_id = self.v["GLEWLWYD_CLIENT_ID"]
        self.grant(client_id, self.scopes)
        code, verifier, nonce = self.authorize(client_id)
        self.ok("authorize (PKCE S256, nonce, state, g_continue) redirects to the app with code, state and iss")
        wrong = self.token({"grant_type": "authorization_code", "code": code, "client_id": client_id,
                            "redirect_uri": self.redirect_uri, "code_verifier": secrets.token_urlsafe(48)})
        if wrong.status_code < 400:
            raise Failure(f"a wrong code_verifier was accepted: {wrong.status_code}")
        code, verifier, nonce = self.authorize(client_id)
        response = expect(self.token({"grant_type": "authorization_code", "code": code,
                                      "client_id": client_id, "redirect_uri": self.redirect_uri,
                                      "code_verifier": verifier}), 200, "code exchange")
        tokens = response.json()
        for key in ("access_token", "id_token", "refresh_token"):
            if not tokens.get(key):
                raise Failure(f"code exchange: no {key} in {sorted(tokens)}")
        if tokens.get("token_type", "").lower() != "bearer":
            raise Failure(f"token_type {tokens.get('token_type')!r}")
        claims = self.check_id_token(tokens["id_token"], client_id, nonce)
        self.ok("code exchange with the verifier (a wrong verifier is refused); pyjwt verifies the ID "
                f"token from the JWKS: RS256, iss, aud, nonce, email (sub {claims['sub']})")
        info = expect(requests.get(self.d["userinfo_endpoint"], timeout=TIMEOUT,
                                   headers={"Authorization": "Bearer " + tokens["access_token"]}),
                      200, "userinfo").json()
        if info.get("sub") != claims["sub"]:
            raise Failure(f"userinfo sub {info.get('sub')!r} != {claims['sub']!r}")
        self.ok("userinfo names the same sub")
        refreshed = expect(self.token({"grant_type": "refresh_token", "client_id": client_id,
                                       "refresh_token": tokens["refresh_token"]}), 200, "refresh").json()
        if not refreshed.get("access_token") or refreshed["access_token"] == tokens["access_token"]:
            raise Failure(f"refresh: no new access token in {sorted(refreshed)}")
        rotated = "a new refresh token" if refreshed.get("refresh_token") else "no new refresh token (kept)"
        self.ok(f"refresh_token grant: a new access token, {rotated}")
        # auth-type-code-revoke-replayed: a replayed code revokes what the code gave.
        replay = self.token({"grant_type": "authorization_code", "code": code, "client_id": client_id,
                             "redirect_uri": self.redirect_uri, "code_verifier": verifier})
        if replay.status_code < 400:
            raise Failure(f"a replayed code was accepted: {replay.status_code}")
        revoked = self.token({"grant_type": "refresh_token", "client_id": client_id,
                              "refresh_token": tokens["refresh_token"]})
        if revoked.status_code < 400:
            raise Failure(f"the refresh token still works after the code was replayed: {revoked.status_code}")
        self.ok("a replayed code is refused and revokes the refresh token it gave")

    def confidential_client(self):
        client_id = self.v["GLEWLWYD_CONFIDENTIAL_CLIENT_ID"]
        secret = self.v["GLEWLWYD_CONFIDENTIAL_CLIENT_SECRET"]
        self.grant(client_id, self.scopes)
        code, verifier, nonce = self.authorize(client_id)
        form = {"grant_type": "authorization_code", "code": code, "redirect_uri": self.redirect_uri,
                "code_verifier": verifier}
        wrong = self.token(form, auth=(client_id, "wrong-secret"))
        if wrong.status_code not in (400, 401, 403):
            raise Failure(f"a wrong client secret: HTTP {wrong.status_code}")
        response = expect(self.token(form, auth=(client_id, secret)), 200, "confidential code exchange")
        self.check_id_token(response.json()["id_token"], client_id, nonce)
        self.ok("confidential client: client_secret_basic redeems, a wrong secret is refused")

    def exchange(self, client_id):
        """A fresh code for the public client, redeemed: (tokens, claims)."""
        code, verifier, nonce = self.authorize(client_id)
        tokens = expect(self.token({"grant_type": "authorization_code", "code": code,
                                    "client_id": client_id, "redirect_uri": self.redirect_uri,
                                    "code_verifier": verifier}), 200, "code exchange").json()
        return tokens, self.check_id_token(tokens["id_token"], client_id, nonce)

    def end_session(self):
        """RP-initiated logout as the JS app's end-session page does it when its Logout button is
        pressed, then the provider left as a person finds it: no consent given, no session."""
        client_id = self.v["GLEWLWYD_CLIENT_ID"]
        tokens, claims = self.exchange(client_id)
        for client in (client_id, self.v["GLEWLWYD_CONFIDENTIAL_CLIENT_ID"]):
            self.grant(client, "")
        post_logout = self.v["GLEWLWYD_POST_LOGOUT_REDIRECT_URI"]
        end = self.user.get(self.d["end_session_endpoint"] + "?" + urllib.parse.urlencode({
            "id_token_hint": tokens["id_token"], "state": "signed-out",
            "post_logout_redirect_uri": post_logout}), allow_redirects=False, timeout=TIMEOUT)
        location = end.headers.get("Location", "")
        query = urllib.parse.parse_qs(urllib.parse.urlsplit(location).query)
        if (end.status_code != 302 or not location.startswith(self.base + "/login.html?")
                or query.get("prompt") != ["end_session"] or query.get("sid") != [claims.get("sid")]
                or query.get("callback_url") != [post_logout + "?state=signed-out"]):
            raise Failure(f"end_session: {end.status_code} to {location!r}")
        self.ok("end_session (id_token_hint, post_logout_redirect_uri, state) sends the browser to "
                "the login app's end-session prompt for the ID token's sid")
        plugin = self.issuer.rsplit("/", 1)[1]
        sid = claims["sid"]
        listing = expect(self.user.get(f"{self.base}/api/{plugin}/session/{sid}/{client_id}",
                                       params={"post_redirect_to": post_logout}, timeout=TIMEOUT),
                         200, "the end-session page's session list").json()
        if listing.get("post_redirect_to") != post_logout:
            raise Failure(f"session list: post_redirect_to {listing.get('post_redirect_to')!r}")
        expect(self.user.delete(f"{self.base}/api/{plugin}/session/{sid}", timeout=TIMEOUT), 200,
               "end the OIDC session")
        expect(self.user.delete(self.base + "/api/auth/", timeout=TIMEOUT), 200, "logout")
        refresh = self.token({"grant_type": "refresh_token", "client_id": client_id,
                              "refresh_token": tokens["refresh_token"]})
        if refresh.status_code < 400:
            raise Failure(f"the session's refresh token still works after the logout: {refresh.status_code}")
        if self.user.get(self.base + "/api/profile_list", timeout=TIMEOUT).status_code != 401:
            raise Failure("the session is still open after the logout")
        self.ok("the end-session page's Logout, over REST: the session's refresh token is revoked and "
                "the session closed; the consent given here is withdrawn")


def selftest(directory):
    test = SelfTest(read_env(directory))
    test.discovery()
    test.log_in()
    test.public_client()
    test.confidential_client()
    test.end_session()
    print(f"{test.passed} passed, 0 failed")


def main(argv):
    try:
        if len(argv) == 4 and argv[1] == "webapp-config":
            webapp_config(argv[2], argv[3])
        elif len(argv) == 4 and argv[1] == "configure":
            configure(argv[2], int(argv[3]))
        elif len(argv) == 3 and argv[1] == "selftest":
            selftest(argv[2])
        else:
            print(__doc__.split("\n\n")[1], file=sys.stderr)
            return 64
    except (Failure, requests.RequestException, jwt.PyJWTError, KeyError, OSError) as error:
        name = "glewlwyd selftest" if argv[1:2] == ["selftest"] else f"glewlwyd {argv[1]}"
        print(f"FAIL {name}: {type(error).__name__}: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
