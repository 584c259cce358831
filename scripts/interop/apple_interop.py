"""Sign in with Apple interop: pyjwt and requests against a simulated Apple ID provider.

Usage: apple_interop.py APPLE_BASE_URL [ISSUER_URL]
       (e.g. http://127.0.0.1:8080/apple http://127.0.0.1:8080)
Needs the provider's /_admin/ API. With ISSUER_URL (the issuer `signinsim serve`
connects to that provider) it also signs in end to end: an Apple code exchanged
at the issuer, the issuer's ID token verified with its JWKS. Prints one line per
check and a closing "N passed, N failed" line; exits 1 on any failure.
"""
import hashlib
import json
import secrets
import sys
import time

import jwt as pyjwt
import requests
from cryptography.hazmat.primitives.asymmetric import ec

from interop_checks import check, finish

BASE = sys.argv[1].rstrip("/")
ISSUER = sys.argv[2].rstrip("/") if len(sys.argv) > 2 else None
APPLE_ISSUER = "https://appleid.apple.com"
RUN = secrets.token_hex(4)
TEAM = "INTEROP" + RUN[:3].upper()
KEY_ID = "PYKEY" + RUN[:5].upper()
BUNDLE = f"com.example.interop{RUN}"
EMAIL = f"interop-{RUN}@example.com"
session = requests.Session()


def post_form(path, data):
    return session.post(BASE + path, data=data, timeout=30)


def post_json(path, body):
    return session.post(BASE + path, json=body, timeout=30)


def client_secret(key, *, kid=KEY_ID, iss=TEAM, sub=BUNDLE, aud=APPLE_ISSUER, iat=None, lifetime=600,
                  alg="ES256"):
    iat = int(time.time()) if iat is None else iat
    claims = {"iss": iss, "sub": sub, "aud": aud, "iat": iat, "exp": iat + lifetime}
    return pyjwt.encode(claims, key, algorithm=alg, headers={"kid": kid})


def authorize(**extra):
    body = {"email": EMAIL, "given_name": "Ivy", "family_name": "Interop", "bundle_id": BUNDLE,
            "team_id": TEAM, "scopes": ["fullName", "email"]}
    body.update(extra)
    response = post_json("/_admin/authorize", body)
    return response.status_code, (response.json() if response.headers.get("Content-Type", "").startswith(
        "application/json") else {})


def verify(token, jwks, audience=BUNDLE, nonce=None):
    header = pyjwt.get_unverified_header(token)
    key = jwks[header["kid"]]
    claims = pyjwt.decode(token, key=key, algorithms=["RS256"], audience=audience, issuer=APPLE_ISSUER,
                          options={"verify_iat": False})
    if nonce is not None and claims.get("nonce") != nonce:
        raise ValueError("nonce mismatch")
    return header, claims


def fetch_jwks():
    response = session.get(BASE + "/auth/keys", timeout=30)
    return response, {k["kid"]: pyjwt.PyJWK(k).key for k in response.json()["keys"]}


def token_error(response):
    try:
        return response.status_code, response.json()
    except ValueError:
        return response.status_code, None


# 1. Keys.
response, jwks = fetch_jwks()
keys = response.json().get("keys", [])
check("GET /auth/keys answers a JWK Set", response.status_code == 200 and len(keys) >= 2, response.text[:200])
check("every key is RSA, RS256, use sig, with a kid, public only",
      all(k.get("kty") == "RSA" and k.get("alg") == "RS256" and k.get("use") == "sig" and k.get("kid")
          and "d" not in k for k in keys), json.dumps(keys)[:300])

# 2. A developer key of our own (P-256), registered as a JWK.
developer_key = ec.generate_private_key(ec.SECP256R1())
public_jwk = json.loads(pyjwt.algorithms.ECAlgorithm.to_jwk(developer_key.public_key()))
registered = post_json("/_admin/developer-keys", {"team_id": TEAM, "key_id": KEY_ID, "jwk": public_jwk})
check("developer key registered", registered.status_code == 201, registered.text[:200])

# 3. A native authorization; its identity token verifies in pyjwt.
raw_nonce = secrets.token_urlsafe(32)
nonce_hash = hashlib.sha256(raw_nonce.encode()).hexdigest()
status, credential = authorize(nonce=nonce_hash, private_email=True)
check("admin authorize answers a credential", status == 200 and "identity_token" in credential, credential)
check("first authorization returns the name",
      credential.get("full_name") == {"given_name": "Ivy", "family_name": "Interop"}, credential.get("full_name"))
check("private relay address", str(credential.get("email", "")).endswith("@privaterelay.appleid.com"),
      credential.get("email"))
try:
    header, claims = verify(credential["identity_token"], jwks, nonce=nonce_hash)
    check("pyjwt verifies the identity token (RS256, iss, aud, exp, nonce)", True)
    check("identity token header is {kid, alg}", set(header) == {"kid", "alg"}, header)
    check("exp - iat is 600", claims["exp"] - claims["iat"] == 600, claims)
    check("sub is the credential's user", claims["sub"] == credential["user"], claims)
    check("no name in the identity token",
          not {"name", "given_name", "family_name"} & set(claims), sorted(claims))
    check("email claims present", claims.get("email") == credential["email"]
          and claims.get("is_private_email") in (True, "true") and claims.get("email_verified") in (True, "true"),
          claims)
    now = claims["iat"]
except Exception as error:  # noqa: BLE001 - any failure is a failed check
    check("pyjwt verifies the identity token (RS256, iss, aud, exp, nonce)", False, repr(error))
    now = int(time.time())

status, second = authorize()
check("returning authorization omits name and email",
      status == 200 and "full_name" not in second and "email" not in second, second)
check("user id stable", second.get("user") == credential.get("user"), second.get("user"))

# 4. Client secrets pyjwt signs: refused the way Apple refuses them. Times are taken from the
# identity token, so that a provider whose clock was moved is judged on its own time.
code = second.get("authorization_code", "")
other_key = ec.generate_private_key(ec.SECP256R1())
faults = {
    "HS256 secret": client_secret("a shared secret Apple never accepts", alg="HS256", iat=now),
    "unknown kid": client_secret(developer_key, kid="NOPE000000", iat=now),
    "wrong iss": client_secret(developer_key, iss="NOTMYTEAM1", iat=now),
    "wrong sub": client_secret(developer_key, sub="com.example.other", iat=now),
    "wrong aud": client_secret(developer_key, aud="https://appleid.apple.com/", iat=now),
    "expired": client_secret(developer_key, iat=now - 1200, lifetime=600),
    "lifetime over 15777000 s": client_secret(developer_key, iat=now - 10, lifetime=15_777_001),
    "signed by another key": client_secret(other_key, iat=now),
    "garbage": "garbage",
}
for name, secret in faults.items():
    response = post_form("/auth/token", {"grant_type": "authorization_code", "code": code, "client_id": BUNDLE,
                                         "client_secret": secret})
    check(f"client secret fault refused: {name}", token_error(response) == (400, {"error": "invalid_client"}),
          token_error(response))

# 5. Code redemption with a good secret, then reuse.
good = client_secret(developer_key, iat=now)
response = post_form("/auth/token", {"grant_type": "authorization_code", "code": code, "client_id": BUNDLE,
                                     "client_secret": good})
tokens = response.json() if response.status_code == 200 else {}
check("code redeems", response.status_code == 200
      and set(tokens) == {"access_token", "token_type", "expires_in", "refresh_token", "id_token"}, response.text[:300])
check("token response is no-store", response.headers.get("Cache-Control") == "no-store", dict(response.headers))
check("token_type Bearer, expires_in 3600", tokens.get("token_type") == "Bearer" and tokens.get("expires_in") == 3600,
      tokens)
try:
    verify(tokens["id_token"], jwks)
    check("pyjwt verifies the id_token of the code", True)
except Exception as error:  # noqa: BLE001
    check("pyjwt verifies the id_token of the code", False, repr(error))
response = post_form("/auth/token", {"grant_type": "authorization_code", "code": code, "client_id": BUNDLE,
                                     "client_secret": good})
check("a reused code is invalid_grant 'The code has already been used.'",
      token_error(response) == (400, {"error": "invalid_grant",
                                      "error_description": "The code has already been used."}),
      token_error(response))
response = post_form("/auth/token", {"grant_type": "password", "client_id": BUNDLE, "client_secret": good})
check("unsupported grant_type", token_error(response) == (400, {"error": "unsupported_grant_type"}),
      token_error(response))
response = session.post(BASE + "/auth/token", data=b"grant_type=%ZZ",
                        headers={"Content-Type": "application/x-www-form-urlencoded"}, timeout=30)
check("a malformed form is 400 JSON", response.status_code == 400 and "error" in response.json(), response.text)

# 6. Refresh, revoke, credential state.
refresh_token = tokens.get("refresh_token", "")
response = post_form("/auth/token", {"grant_type": "refresh_token", "refresh_token": refresh_token,
                                     "client_id": BUNDLE, "client_secret": good})
refreshed = response.json() if response.status_code == 200 else {}
check("refresh grant gives access and id tokens, no refresh token",
      response.status_code == 200 and "id_token" in refreshed and "refresh_token" not in refreshed, response.text[:300])
response = post_form("/auth/revoke", {"client_id": BUNDLE, "client_secret": good, "token": refresh_token,
                                      "token_type_hint": "refresh_token"})
check("revoke answers 200 with an empty body", response.status_code == 200 and response.content == b"",
      response.text)
state = session.get(BASE + "/_admin/credential-state", params={"email": EMAIL, "bundle_id": BUNDLE}, timeout=30)
check("credential state is revoked", state.json() == {"state": "revoked"}, state.text)
response = post_form("/auth/token", {"grant_type": "refresh_token", "refresh_token": refresh_token,
                                     "client_id": BUNDLE, "client_secret": good})
check("a revoked refresh token is invalid_grant", token_error(response) == (
    400, {"error": "invalid_grant", "error_description": "The token has expired or has been revoked."}),
      token_error(response))

# 7. Key rotation: pyjwt's JWKS client fetches again for the new kid.
try:
    # pyjwt 2.10+ waits 30 s between forced refreshes by default; a rotation test cannot wait.
    jwks_client = pyjwt.PyJWKClient(BASE + "/auth/keys", cooldown_duration=0)
except TypeError:
    jwks_client = pyjwt.PyJWKClient(BASE + "/auth/keys")
old_kid = pyjwt.get_unverified_header(second["identity_token"])["kid"]
jwks_client.get_signing_key(old_kid)
rotated = post_json("/_admin/keys/rotate", {})
new_kid = rotated.json().get("kid") if rotated.status_code == 200 else None
check("keys rotate", new_kid is not None and new_kid != old_kid, rotated.text)
status, third = authorize()
try:
    new_token = third["identity_token"]
    check("a new token is signed by the new key", pyjwt.get_unverified_header(new_token)["kid"] == new_kid)
    signing_key = jwks_client.get_signing_key_from_jwt(new_token)
    pyjwt.decode(new_token, key=signing_key.key, algorithms=["RS256"], audience=BUNDLE, issuer=APPLE_ISSUER,
                 options={"verify_iat": False})
    check("PyJWKClient verifies it after re-fetching", True)
except Exception as error:  # noqa: BLE001
    check("PyJWKClient verifies it after re-fetching", False, repr(error))
_, after = fetch_jwks()
check("the old key is still published", old_kid in after, sorted(after))

# 8. End to end through the issuer: the app's code exchanged at /oauth/token (Auth0's native
# Apple path), as `signinsim serve` wires it: the issuer's Apple connection redeems codes of
# com.example.app, the default tenant's native client.
if ISSUER:
    APP = "com.example.app"
    app_email = f"e2e-{RUN}@example.com"
    raw_nonce = secrets.token_urlsafe(32)
    response = post_json("/_admin/authorize", {
        "email": app_email, "given_name": "Eve", "family_name": "Endtoend", "bundle_id": APP,
        "nonce": hashlib.sha256(raw_nonce.encode()).hexdigest()})
    app_credential = response.json() if response.status_code == 200 else {}
    check("authorization for the issuer's app", "authorization_code" in app_credential, response.text[:300])
    try:
        _, jwks_now = fetch_jwks()
        _, app_claims = verify(app_credential["identity_token"], jwks_now, audience=APP,
                               nonce=hashlib.sha256(raw_nonce.encode()).hexdigest())
        check("pyjwt verifies the app's identity token against /auth/keys", app_claims["sub"] == app_credential["user"],
              app_claims)
    except Exception as error:  # noqa: BLE001
        check("pyjwt verifies the app's identity token against /auth/keys", False, repr(error))
    exchange = {
        "grant_type": "urn:ietf:params:oauth:grant-type:token-exchange", "client_id": APP,
        "subject_token": app_credential.get("authorization_code", ""),
        "subject_token_type": "http://auth0.com/oauth/token-type/apple-authz-code",
        "user_profile": json.dumps({"name": {"firstName": "Eve", "lastName": "Endtoend"}}),
        "nonce": raw_nonce, "scope": "openid profile email offline_access",
    }
    response = session.post(ISSUER + "/oauth/token", data=exchange, timeout=30)
    issued = response.json() if response.status_code == 200 else {}
    check("the issuer exchanges the Apple code", response.status_code == 200 and "id_token" in issued,
          response.text[:300])
    try:
        discovery = session.get(ISSUER + "/.well-known/openid-configuration", timeout=30).json()
        signing_key = pyjwt.PyJWKClient(discovery["jwks_uri"]).get_signing_key_from_jwt(issued["id_token"])
        id_claims = pyjwt.decode(issued["id_token"], key=signing_key.key, algorithms=["ES256", "RS256"],
                                 audience=APP, issuer=discovery["issuer"])
        check("pyjwt verifies the issuer's ID token with the issuer's JWKS", True)
        check("the issuer's user is apple|<Apple sub>, named from user_profile",
              id_claims.get("sub") == "apple|" + app_credential["user"] and id_claims.get("name") == "Eve Endtoend",
              id_claims)
    except Exception as error:  # noqa: BLE001
        check("pyjwt verifies the issuer's ID token with the issuer's JWKS", False, repr(error))
    response = session.post(ISSUER + "/oauth/token", data=exchange, timeout=30)
    body = token_error(response)
    check("a reused Apple code is 403 invalid_grant 'Invalid authorization code'",
          body[0] == 403 and body[1] and body[1].get("error") == "invalid_grant"
          and body[1].get("error_description", "").startswith("Invalid authorization code"), body)

finish()
