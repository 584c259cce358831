"""A third-party OAuth client (requests + jwcrypto) against `signinsim serve`.

Usage: issuer_interop.py PATH-TO-signinsim
Prints one line per check and a closing "N passed, N failed" line; exits 1 on any failure.
"""
import json
import secrets
import subprocess
import sys
import time
import urllib.parse

import requests
from jwcrypto import jwk, jwt

from interop_checks import check, finish, forms_in
from interop_common.encoding import b64url, s256_challenge

BINARY = sys.argv[1]
CLIENT_ID = "com.example.app"
REDIRECT_URI = "com.example.app://auth/callback"



server = subprocess.Popen(
    [BINARY, "serve", "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
)
try:
    first = server.stdout.readline().strip()
    check("serve prints 'issuer: <url>' first", first.startswith("issuer: http://127.0.0.1:"), first)
    issuer = first.split(" ", 1)[1]
    session = requests.Session()

    discovery = session.get(issuer + "/.well-known/openid-configuration", timeout=10).json()
    check("discovery issuer matches", discovery["issuer"] == issuer, discovery.get("issuer"))
    check("discovery advertises S256 only", discovery["code_challenge_methods_supported"] == ["S256"])
    keys = jwk.JWKSet.from_json(session.get(discovery["jwks_uri"], timeout=10).text)

    verifier = b64url(secrets.token_bytes(32))
    challenge = s256_challenge(verifier)
    state = b64url(secrets.token_bytes(16))
    nonce = b64url(secrets.token_bytes(16))
    query = {
        "response_type": "code", "client_id": CLIENT_ID, "redirect_uri": REDIRECT_URI,
        "scope": "openid profile email offline_access", "state": state, "nonce": nonce,
        "code_challenge": challenge, "code_challenge_method": "S256",
    }
    response = session.get(discovery["authorization_endpoint"], params=query, allow_redirects=False, timeout=10)
    callback = None
    for step in range(10):
        if response.status_code in (301, 302, 303, 307):
            location = response.headers["Location"]
            if location.startswith(REDIRECT_URI):
                callback = location
                break
            response = session.get(urllib.parse.urljoin(response.url, location), allow_redirects=False, timeout=10)
            continue
        forms = forms_in(response.text)
        if not check(f"step {step}: the page has a form", response.status_code == 200 and forms, response.status_code):
            break
        form = forms[0]
        data = dict(form["fields"])
        if "username" in data:
            data.update({"username": "alice@example.com", "password": "alice-password"})
        for name, value in form["buttons"]:
            if value == "approve":
                data[name] = value
        response = session.post(urllib.parse.urljoin(response.url, form["action"]), data=data, allow_redirects=False, timeout=10)

    check("the flow ends at the redirect URI", callback is not None)
    params = urllib.parse.parse_qs(urllib.parse.urlsplit(callback or "").query)
    check("callback carries the state", params.get("state") == [state], params)
    check("callback carries iss (RFC 9207)", params.get("iss") == [issuer], params)
    code = params.get("code", [""])[0]

    token = session.post(discovery["token_endpoint"], data={
        "grant_type": "authorization_code", "client_id": CLIENT_ID, "code": code,
        "redirect_uri": REDIRECT_URI, "code_verifier": verifier,
    }, timeout=10)
    check("code exchange succeeds", token.status_code == 200, token.text)
    check("token response is not cached", token.headers.get("Cache-Control") == "no-store")
    tokens = token.json()
    claims = {}
    try:
        verified = jwt.JWT(jwt=tokens["id_token"], key=keys, algs=["ES256", "RS256"])
        claims = json.loads(verified.claims)
        check("ID token verifies with jwcrypto from the JWKS", True)
    except Exception as error:  # noqa: BLE001
        check("ID token verifies with jwcrypto from the JWKS", False, repr(error))
    check("ID token claims (iss, aud, nonce, sub)",
          claims.get("iss") == issuer and claims.get("aud") == CLIENT_ID and claims.get("nonce") == nonce
          and claims.get("sub"), claims)
    check("ID token exp in the future", claims.get("exp", 0) > time.time())

    replay = session.post(discovery["token_endpoint"], data={
        "grant_type": "authorization_code", "client_id": CLIENT_ID, "code": code,
        "redirect_uri": REDIRECT_URI, "code_verifier": verifier,
    }, timeout=10)
    check("a replayed code is refused (invalid_grant)", replay.status_code == 400 and replay.json().get("error") == "invalid_grant", replay.text)

    # The replay revoked the first grant's tokens (RFC 6749 §4.1.2): sign in again for the rest.
    response = session.get(discovery["authorization_endpoint"], params=dict(query, state="s2"), allow_redirects=False, timeout=10)
    location = response.headers.get("Location", "")
    check("a second authorize rides the SSO session", response.status_code == 302 and location.startswith(REDIRECT_URI), response.status_code)
    code2 = urllib.parse.parse_qs(urllib.parse.urlsplit(location).query).get("code", [""])[0]
    tokens = session.post(discovery["token_endpoint"], data={
        "grant_type": "authorization_code", "client_id": CLIENT_ID, "code": code2,
        "redirect_uri": REDIRECT_URI, "code_verifier": verifier,
    }, timeout=10).json()

    userinfo = session.get(discovery["userinfo_endpoint"], headers={"Authorization": "Bearer " + tokens["access_token"]}, timeout=10)
    check("userinfo answers the same sub", userinfo.status_code == 200 and userinfo.json().get("sub") == claims.get("sub"), userinfo.text)

    refreshed = session.post(discovery["token_endpoint"], data={
        "grant_type": "refresh_token", "client_id": CLIENT_ID, "refresh_token": tokens["refresh_token"],
    }, timeout=10)
    check("refresh succeeds", refreshed.status_code == 200, refreshed.text)
    new = refreshed.json()
    check("refresh rotates the refresh token", new.get("refresh_token") not in (None, tokens["refresh_token"]))
    reused = session.post(discovery["token_endpoint"], data={
        "grant_type": "refresh_token", "client_id": CLIENT_ID, "refresh_token": tokens["refresh_token"],
    }, timeout=10)
    check("reusing the rotated token is refused", reused.status_code == 400 and reused.json().get("error") == "invalid_grant", reused.text)
    after = session.post(discovery["token_endpoint"], data={
        "grant_type": "refresh_token", "client_id": CLIENT_ID, "refresh_token": new["refresh_token"],
    }, timeout=10)
    check("reuse revoked the whole family", after.status_code == 400, after.text)

    # A fresh grant to revoke.
    response = session.get(discovery["authorization_endpoint"], params=dict(query, state="s3"), allow_redirects=False, timeout=10)
    code3 = urllib.parse.parse_qs(urllib.parse.urlsplit(response.headers.get("Location", "")).query).get("code", [""])[0]
    tokens = session.post(discovery["token_endpoint"], data={
        "grant_type": "authorization_code", "client_id": CLIENT_ID, "code": code3,
        "redirect_uri": REDIRECT_URI, "code_verifier": verifier,
    }, timeout=10).json()
    revoked = session.post(discovery["revocation_endpoint"], data={"token": tokens["refresh_token"], "client_id": CLIENT_ID}, timeout=10)
    check("revocation answers 200", revoked.status_code == 200, revoked.text)
    dead = session.post(discovery["token_endpoint"], data={
        "grant_type": "refresh_token", "client_id": CLIENT_ID, "refresh_token": tokens["refresh_token"],
    }, timeout=10)
    check("a revoked refresh token is refused", dead.status_code == 400, dead.text)

    logout = session.get(discovery["end_session_endpoint"], params={
        "id_token_hint": tokens["id_token"], "post_logout_redirect_uri": "com.example.app://auth/logout", "state": "bye",
    }, allow_redirects=False, timeout=10)
    check("logout redirects to the registered URI with state",
          logout.status_code == 302 and logout.headers.get("Location", "").startswith("com.example.app://auth/logout") and "state=bye" in logout.headers.get("Location", ""),
          f"{logout.status_code} {logout.headers.get('Location')}")
    response = session.get(discovery["authorization_endpoint"], params=dict(query, state="s4"), allow_redirects=False, timeout=10)
    check("after logout the login form is shown again", response.status_code == 200 and any("username" in f["fields"] for f in forms_in(response.text)), response.status_code)
finally:
    server.terminate()
    try:
        server.wait(timeout=10)
    except subprocess.TimeoutExpired:
        server.kill()
    check("serve stops cleanly on SIGTERM", server.returncode == 0, server.returncode)

finish()
