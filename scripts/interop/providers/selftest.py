"""Signs in against the loopback providers the way a headless browser + native app would.

Usage: selftest.py django=ISSUER mock=ISSUER   (an empty ISSUER counts as a provider that did
not start). Uses only requests, pyjwt and the stdlib. Prints one line per check ("ok", "FAIL",
or "info" for a finding that is not a failure) and a closing "N passed, N failed"; exits 1 on
any failure.
"""
import secrets
import sys
import urllib.parse
from pathlib import Path

import jwt
import requests

sys.path.append(str(Path(__file__).resolve().parent.parent))  # interop_common: see its __init__
from interop_common.encoding import b64url, s256_challenge  # noqa: E402
from interop_common.forms import SUBMIT_INPUTS, Page  # noqa: E402

REDIRECT_URI = "com.example.app://auth/callback"
SIGNED_OUT_URI = "com.example.app://auth/signed-out"
APP_SCHEME = "com.example.app"
TIMEOUT = 10
results = []


def check(name, condition, detail=""):
    results.append(bool(condition))
    print(("ok   " if condition else "FAIL ") + name + ("" if condition else f": {detail}"), flush=True)
    return bool(condition)


def info(text):
    print("info " + text, flush=True)


def forms_in(html):
    """Every <form>: action ("" when absent), method, its named inputs with their types (the
    submit ones aside; checkboxes and radios only when ticked), and its submit controls in
    order as (name, value)."""
    forms = []
    for form in Page(html).forms:
        fields = [c for c in form["controls"] if c["tag"] == "input" and c["name"] and c["type"] not in SUBMIT_INPUTS
                  and (c["type"] not in ("checkbox", "radio") or c["checked"])]
        forms.append({"action": form["action"] or "", "method": form["method"],
                      "fields": {c["name"]: c["value"] for c in fields}, "types": {c["name"]: c["type"] for c in fields},
                      "submits": [(b["name"] or "", b["value"]) for b in form["buttons"]]})
    return forms


class Browser:
    """A cookie-keeping user agent that follows redirects by hand and stops at the app's scheme."""

    def __init__(self):
        self.session = requests.Session()
        self.pages = []

    def go(self, method, url, data=None):
        """Returns ("callback", url) for a redirect to the app, or ("page", url, html)."""
        for _ in range(15):
            response = self.session.request(method, url, data=data, allow_redirects=False, timeout=TIMEOUT)
            location = response.headers.get("Location")
            if response.status_code in (301, 302, 303, 307, 308) and location:
                target = urllib.parse.urljoin(url, location)
                if urllib.parse.urlsplit(target).scheme == APP_SCHEME:
                    return ("callback", target)
                if response.status_code in (301, 302, 303):
                    method, data = "GET", None
                url = target
                continue
            self.pages.append((url, response.status_code))
            return ("page", url, response.text, response.status_code)
        raise RuntimeError(f"too many redirects, last {url}")

    def submit(self, page_url, html, choose, fill=None, submitter=None):
        """Posts the form that choose(form) picks, with fill applied and the named submitter."""
        forms = [form for form in forms_in(html) if choose(form)]
        if not forms:
            raise RuntimeError(f"no matching form on {page_url}")
        form = forms[0]
        data = dict(form["fields"])
        data.update(fill or {})
        if submitter:
            name, value = next((s for s in form["submits"] if s[0] == submitter), (submitter, ""))
            data[name] = value
        action = urllib.parse.urljoin(page_url, form["action"]) if form["action"] else page_url
        return self.go("POST" if form["method"] == "post" else "GET", action, data), form


def authorize_query(endpoint, client_id, nonce=None, with_pkce=True, scope="openid profile email offline_access"):
    verifier = b64url(secrets.token_bytes(32))
    state = b64url(secrets.token_bytes(16))
    nonce = nonce or b64url(secrets.token_bytes(16))
    query = {"response_type": "code", "client_id": client_id, "redirect_uri": REDIRECT_URI,
             "scope": scope, "state": state, "nonce": nonce}
    if with_pkce:
        query["code_challenge"] = s256_challenge(verifier)
        query["code_challenge_method"] = "S256"
    return endpoint + ("&" if "?" in endpoint else "?") + urllib.parse.urlencode(query), verifier, state, nonce


def callback_params(url):
    return dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(url).query))


def verify_id_token(token, jwks, issuer, audience, nonce=None):
    kid = jwt.get_unverified_header(token).get("kid")
    keys = jwt.PyJWKSet.from_dict(jwks).keys
    key = next((k for k in keys if k.key_id == kid), keys[0])
    claims = jwt.decode(token, key.key, algorithms=["RS256"], audience=audience, issuer=issuer,
                        options={"require": ["iss", "aud", "exp", "iat", "sub"]})
    if nonce is not None and claims.get("nonce") != nonce:
        raise ValueError(f"nonce {claims.get('nonce')!r} != {nonce!r}")
    return claims


def discover(name, issuer, session):
    config = session.get(issuer + "/.well-known/openid-configuration", timeout=TIMEOUT).json()
    check(f"{name}: discovery issuer equals the issuer URL ({issuer})", config["issuer"] == issuer, config["issuer"])
    check(f"{name}: discovery has end_session_endpoint", "end_session_endpoint" in config)
    jwks = session.get(config["jwks_uri"], timeout=TIMEOUT).json()
    check(f"{name}: JWKS has an RS256 key", any(k.get("kty") == "RSA" for k in jwks.get("keys", [])))
    info(f"{name}: code_challenge_methods_supported={config.get('code_challenge_methods_supported')} "
         f"token_endpoint_auth_methods_supported={config.get('token_endpoint_auth_methods_supported')}")
    return config, jwks


def token_request(config, form, auth=None):
    return requests.post(config["token_endpoint"], data=form, auth=auth, timeout=TIMEOUT)


# ---------------------------------------------------------------- Django + django-oauth-toolkit

def django_consent(browser, page):
    """On DOT's consent page: checks its shape, then posts it with allow=Authorize."""
    _, url, html, status = page
    form = next((f for f in forms_in(html) if any(s[0] == "allow" for s in f["submits"])), None)
    check("django: consent page has a form with submit allow and hidden OAuth fields",
          form is not None and {"csrfmiddlewaretoken", "client_id", "redirect_uri", "state", "nonce",
                                "code_challenge", "code_challenge_method"} <= set(form["fields"]),
          f"status {status}, forms {forms_in(html)}")
    if form is not None:
        info(f"django: consent form fields {sorted(form['fields'])} submits {form['submits']}")
    result, _ = browser.submit(url, html, lambda f: any(s[0] == "allow" for s in f["submits"]), submitter="allow")
    return result


def django(issuer):
    browser = Browser()
    config, jwks = discover("django", issuer, browser.session)
    client_id = "com.example.app"

    url, verifier, state, nonce = authorize_query(config["authorization_endpoint"], client_id)
    page = browser.go("GET", url)
    check("django: authorize redirects to the login page", page[0] == "page" and "/accounts/login/" in page[1], page[:2])
    login = next((f for f in forms_in(page[2]) if "password" in f["fields"]), None)
    check("django: login form has username, password, csrfmiddlewaretoken, next",
          login is not None and {"username", "password", "csrfmiddlewaretoken", "next"} <= set(login["fields"]),
          login)
    info(f"django: login form method={login and login['method']} action={login and login['action']!r} "
         f"fields {login and sorted(login['fields'])} submits {login and login['submits']}")
    page, _ = browser.submit(page[1], page[2], lambda f: "password" in f["fields"],
                             fill={"username": "alice", "password": "alice-password"})
    check("django: login leads to the consent page", page[0] == "page" and "/o/authorize/" in page[1], page[:2])
    result = django_consent(browser, page)
    check("django: consent redirects to com.example.app://auth/callback", result[0] == "callback", result[:2])
    params = callback_params(result[1])
    check("django: callback has code and the same state", "code" in params and params.get("state") == state, params)
    info(f"django: callback parameters {sorted(params)} (iss={params.get('iss')})")
    check("django: callback iss (RFC 9207) equals issuer", params.get("iss", issuer) == issuer, params.get("iss"))

    response = token_request(config, {"grant_type": "authorization_code", "code": params.get("code"),
                                      "redirect_uri": REDIRECT_URI, "client_id": client_id, "code_verifier": verifier})
    check("django: public client exchanges the code with code_verifier and no secret", response.ok, response.text)
    tokens = response.json()
    check("django: token response has access, refresh and ID tokens",
          {"access_token", "refresh_token", "id_token"} <= set(tokens), sorted(tokens))
    try:
        claims = verify_id_token(tokens["id_token"], jwks, issuer, client_id, nonce)
        check("django: ID token verifies against JWKS (iss, aud, nonce)", True)
        info(f"django: ID token claims {sorted(claims)} sub={claims.get('sub')!r} "
             f"preferred_username={claims.get('preferred_username')!r}")
    except Exception as error:
        check("django: ID token verifies against JWKS (iss, aud, nonce)", False, repr(error))
    userinfo = requests.get(config["userinfo_endpoint"], timeout=TIMEOUT,
                            headers={"Authorization": "Bearer " + tokens.get("access_token", "")})
    check("django: userinfo answers for the access token", userinfo.ok and userinfo.json().get("sub"), userinfo.text)

    response = token_request(config, {"grant_type": "refresh_token", "refresh_token": tokens.get("refresh_token"),
                                      "client_id": client_id})
    check("django: refresh works for the public client", response.ok, response.text)
    refreshed = response.json()
    check("django: refresh rotates the refresh token",
          refreshed.get("refresh_token") not in (None, tokens.get("refresh_token")), sorted(refreshed))
    if "id_token" in refreshed:
        try:
            verify_id_token(refreshed["id_token"], jwks, issuer, client_id)
            check("django: refreshed ID token verifies (iss, aud)", True)
        except Exception as error:
            check("django: refreshed ID token verifies (iss, aud)", False, repr(error))

    # PKCE is enforced: a wrong verifier is refused, and so is an authorize without a challenge.
    url, _, state2, _ = authorize_query(config["authorization_endpoint"], client_id)
    page = browser.go("GET", url)
    check("django: signed-in session goes straight to consent", page[0] == "page" and "/o/authorize/" in page[1], page[:2])
    result = django_consent(browser, page)
    code2 = callback_params(result[1]).get("code") if result[0] == "callback" else None
    response = token_request(config, {"grant_type": "authorization_code", "code": code2, "redirect_uri": REDIRECT_URI,
                                      "client_id": client_id, "code_verifier": b64url(secrets.token_bytes(32))})
    check("django: wrong code_verifier is refused", response.status_code == 400, response.text)
    url, _, _, _ = authorize_query(config["authorization_endpoint"], client_id, with_pkce=False)
    result = browser.go("GET", url)
    refused = (result[0] == "callback" and callback_params(result[1]).get("error") == "invalid_request") or \
        (result[0] == "page" and result[3] >= 400) or (result[0] == "page" and "Error" in result[2])
    check("django: authorize without code_challenge is refused", refused, result[:2])

    # Confidential client: the secret is required at the token endpoint.
    confidential = "confidential-app"
    url, verifier, _, nonce = authorize_query(config["authorization_endpoint"], confidential)
    result = django_consent(browser, browser.go("GET", url))
    code3 = callback_params(result[1]).get("code") if result[0] == "callback" else None
    exchange = {"grant_type": "authorization_code", "code": code3, "redirect_uri": REDIRECT_URI,
                "code_verifier": verifier}
    response = token_request(config, {**exchange, "client_id": confidential})
    check("django: confidential client without secret is refused", response.status_code in (400, 401), response.text)
    response = token_request(config, exchange, auth=(confidential, "confidential-app-secret"))
    check("django: confidential client exchanges the code with client_secret_basic", response.ok, response.text)
    try:
        verify_id_token(response.json()["id_token"], jwks, issuer, confidential, nonce)
        check("django: confidential client's ID token verifies", True)
    except Exception as error:
        check("django: confidential client's ID token verifies", False, repr(error))

    # RP-initiated logout: a confirmation form (allow=Logout), then the app's post-logout URI.
    logout_state = b64url(secrets.token_bytes(8))
    query = urllib.parse.urlencode({"id_token_hint": refreshed.get("id_token") or tokens["id_token"],
                                    "client_id": client_id, "post_logout_redirect_uri": SIGNED_OUT_URI,
                                    "state": logout_state})
    result = browser.go("GET", config["end_session_endpoint"] + "?" + query)
    if result[0] == "page":
        form = next((f for f in forms_in(result[2]) if any(s[0] == "allow" for s in f["submits"])), None)
        check("django: logout confirmation form has submit allow", form is not None, result[:2])
        info(f"django: logout form fields {form and sorted(form['fields'])} submits {form and form['submits']}")
        result, _ = browser.submit(result[1], result[2], lambda f: any(s[0] == "allow" for s in f["submits"]),
                                   submitter="allow")
    check("django: end session redirects to the post-logout URI with state",
          result[0] == "callback" and result[1].startswith(SIGNED_OUT_URI)
          and callback_params(result[1]).get("state") == logout_state, result[:2])
    response = token_request(config, {"grant_type": "refresh_token", "client_id": client_id,
                                      "refresh_token": refreshed.get("refresh_token")})
    check("django: refresh token is revoked by the logout", response.status_code == 400, response.text)
    page = browser.go("GET", authorize_query(config["authorization_endpoint"], client_id)[0])
    check("django: after logout authorize asks for the login again",
          page[0] == "page" and "/accounts/login/" in page[1], page[:2])


# ---------------------------------------------------------------- oidc-provider-mock

def mock_authorize(browser, config, client_id="com.example.app"):
    url, verifier, state, nonce = authorize_query(config["authorization_endpoint"], client_id)
    page = browser.go("GET", url)
    forms = forms_in(page[2]) if page[0] == "page" else []
    check("mock: authorize page has a post form with a sub field", any("sub" in f["fields"] for f in forms), page[:2])
    result, form = browser.submit(page[1], page[2], lambda f: "sub" in f["fields"], fill={"sub": "alice"})
    return page, forms, form, result, verifier, state, nonce


def mock(issuer):
    browser = Browser()
    config, jwks = discover("mock", issuer, browser.session)
    client_id = "com.example.app"
    page, forms, form, result, verifier, state, nonce = mock_authorize(browser, config)
    info("mock: authorize page forms " + "; ".join(
        f"action={f['action']!r} fields={sorted(f['fields'])} submits={f['submits']}" for f in forms))
    check("mock: submitting sub redirects to com.example.app://auth/callback", result[0] == "callback", result[:2])
    params = callback_params(result[1]) if result[0] == "callback" else {}
    check("mock: callback has code and the same state", "code" in params and params.get("state") == state, params)
    info(f"mock: callback parameters {sorted(params)}")

    exchange = {"grant_type": "authorization_code", "code": params.get("code"), "redirect_uri": REDIRECT_URI,
                "code_verifier": verifier}
    response = token_request(config, {**exchange, "client_id": client_id})
    info(f"mock: code exchange with no client secret (auth method none) -> {response.status_code} "
         f"{response.text.strip()[:120]}")
    if not response.ok:
        response = token_request(config, {**exchange, "client_id": client_id, "client_secret": "any"})
        info(f"mock: code exchange with client_secret_post (any secret) -> {response.status_code}")
    check("mock: code exchange works", response.ok, response.text)
    tokens = response.json() if response.ok else {}
    check("mock: token response has access, refresh and ID tokens",
          {"access_token", "refresh_token", "id_token"} <= set(tokens), sorted(tokens))
    try:
        claims = verify_id_token(tokens["id_token"], jwks, issuer, client_id, nonce)
        check("mock: ID token verifies against JWKS (iss, aud, nonce)", claims.get("sub") == "alice", claims)
        info(f"mock: ID token claims {sorted(claims)}")
    except Exception as error:
        check("mock: ID token verifies against JWKS (iss, aud, nonce)", False, repr(error))
    userinfo = requests.get(config["userinfo_endpoint"], timeout=TIMEOUT,
                            headers={"Authorization": "Bearer " + tokens.get("access_token", "")})
    check("mock: userinfo answers for the access token", userinfo.ok and userinfo.json().get("sub") == "alice",
          userinfo.text)

    refresh = {"grant_type": "refresh_token", "refresh_token": tokens.get("refresh_token")}
    response = token_request(config, {**refresh, "client_id": client_id})
    info(f"mock: refresh with no client secret -> {response.status_code}")
    if not response.ok:
        response = token_request(config, {**refresh, "client_id": client_id, "client_secret": "any"})
        info(f"mock: refresh with client_secret_post -> {response.status_code}")
    if not response.ok:
        response = token_request(config, refresh, auth=(client_id, "any"))
        info(f"mock: refresh with client_secret_basic (any secret) -> {response.status_code}")
    check("mock: refresh works", response.ok, response.text)
    refreshed = response.json() if response.ok else {}
    info(f"mock: refresh response keys {sorted(refreshed)}")
    if "id_token" in refreshed:
        try:
            verify_id_token(refreshed["id_token"], jwks, issuer, client_id)
            check("mock: refreshed ID token verifies (iss, aud)", True)
        except Exception as error:
            check("mock: refreshed ID token verifies (iss, aud)", False, repr(error))

    # PKCE: find out whether a wrong verifier is refused (reported, not judged).
    _, _, _, result, _, _, _ = mock_authorize(browser, config)
    code2 = callback_params(result[1]).get("code") if result[0] == "callback" else None
    response = token_request(config, {"grant_type": "authorization_code", "code": code2, "redirect_uri": REDIRECT_URI,
                                      "client_id": client_id, "client_secret": "any",
                                      "code_verifier": b64url(secrets.token_bytes(32))})
    info(f"mock: exchange with a WRONG code_verifier -> {response.status_code} "
         f"({'PKCE not enforced' if response.ok else 'PKCE enforced'})")

    # End session: an HTML form that posts to /oauth2/end_session/confirm, then the app's URI.
    logout_state = b64url(secrets.token_bytes(8))
    query = urllib.parse.urlencode({"id_token_hint": tokens.get("id_token", ""), "client_id": client_id,
                                    "post_logout_redirect_uri": SIGNED_OUT_URI, "state": logout_state})
    result = browser.go("GET", config["end_session_endpoint"] + "?" + query)
    if result[0] == "page":
        logout_forms = forms_in(result[2])
        info("mock: end-session forms " + "; ".join(
            f"action={f['action']!r} fields={sorted(f['fields'])} submits={f['submits']}" for f in logout_forms))
        result, _ = browser.submit(result[1], result[2], lambda f: f["method"] == "post")
    check("mock: end session redirects to the post-logout URI with state",
          result[0] == "callback" and result[1].startswith(SIGNED_OUT_URI)
          and callback_params(result[1]).get("state") == logout_state, result[:2])


def main(argv):
    issuers = dict(arg.split("=", 1) for arg in argv)
    for name, run in (("django", django), ("mock", mock)):
        if name not in issuers:
            continue
        if not check(f"{name}: provider started", issuers[name], "see its server.log"):
            continue
        try:
            run(issuers[name])
        except Exception as error:
            check(f"{name}: flow ran to the end", False, repr(error))
    failed = results.count(False)
    print(f"{len(results) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
