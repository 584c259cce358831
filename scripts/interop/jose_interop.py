"""JOSE interop between signinsim and two Python libraries nobody here wrote (pyjwt, jwcrypto).

Usage: jose_interop.py PATH-TO-signinsim
Prints one line per check and a closing "N passed, N failed" line; exits 1 on any failure.
"""
import hashlib
import hmac
import json
import os
import subprocess
import sys
import tempfile
import time

import jwt as pyjwt
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
from jwcrypto import jwk as jc_jwk
from jwcrypto import jwt as jc_jwt

from interop_checks import check, finish
from interop_common.encoding import b64url

BINARY = sys.argv[1]
WORK = tempfile.mkdtemp(prefix="signinsim-interop-")
NOW = int(time.time())
ISSUER = "https://issuer.example"
AUDIENCE = "com.example.app"


def run(*args, stdin=None):
    process = subprocess.run(
        [BINARY, *args], input=stdin, capture_output=True, text=True, timeout=60
    )
    return process.returncode, process.stdout, process.stderr


def write(name, text):
    path = os.path.join(WORK, name)
    with open(path, "w") as handle:
        handle.write(text)
    return path


def claims(**extra):
    base = {"iss": ISSUER, "aud": AUDIENCE, "sub": "alice", "iat": NOW, "exp": NOW + 300}
    base.update(extra)
    return base


# 1. signinsim signs; pyjwt and jwcrypto verify.
for alg in ("ES256", "RS256", "PS256"):
    code, private_jwk, err = run("jwk", "generate", "--alg", alg, "--kid", f"sim-{alg}")
    check(f"signinsim jwk generate --alg {alg}", code == 0, err)
    code, public_jwk, err = run("jwk", "public", stdin=private_jwk)
    check(f"signinsim jwk public ({alg})", code == 0 and '"d"' not in public_jwk, err)
    key_file = write(f"sim-{alg}.json", private_jwk)
    code, token, err = run("jwt", "sign", "--key", key_file, "--claims", json.dumps(claims()))
    token = token.strip()
    check(f"signinsim jwt sign ({alg})", code == 0, err)

    try:
        decoded = pyjwt.decode(
            token, key=pyjwt.PyJWK(json.loads(public_jwk)).key, algorithms=[alg],
            audience=AUDIENCE, issuer=ISSUER,
        )
        check(f"pyjwt verifies a signinsim {alg} token", decoded["sub"] == "alice")
    except Exception as error:  # noqa: BLE001 - report any failure as a failed check
        check(f"pyjwt verifies a signinsim {alg} token", False, repr(error))

    try:
        key = jc_jwk.JWK.from_json(public_jwk)
        verified = jc_jwt.JWT(jwt=token, key=key, algs=[alg])
        check(f"jwcrypto verifies a signinsim {alg} token", json.loads(verified.claims)["sub"] == "alice")
    except Exception as error:  # noqa: BLE001
        check(f"jwcrypto verifies a signinsim {alg} token", False, repr(error))

    # RFC 7638 thumbprints agree (signinsim uses it as the default kid).
    code, thumbprint, err = run("jwk", "thumbprint", stdin=public_jwk)
    check(
        f"RFC 7638 thumbprint agrees with jwcrypto ({alg})",
        code == 0 and thumbprint.strip() == jc_jwk.JWK.from_json(public_jwk).thumbprint(),
        f"{thumbprint.strip()} vs {jc_jwk.JWK.from_json(public_jwk).thumbprint()}",
    )

# 2. pyjwt and jwcrypto sign; signinsim verifies.
ec_key = ec.generate_private_key(ec.SECP256R1())
rsa_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
jwks = {"keys": []}
for kid, key, alg in (("py-ec", ec_key, "ES256"), ("py-rsa", rsa_key, "RS256"), ("py-rsa-ps", rsa_key, "PS256")):
    public = json.loads(pyjwt.algorithms.get_default_algorithms()[alg].to_jwk(key.public_key()))
    public.update({"kid": kid, "alg": alg, "use": "sig"})
    jwks["keys"].append(public)
jwks_file = write("python-jwks.json", json.dumps(jwks))


def verify(token, *extra):
    return run("jwt", "verify", token, "--jwks", jwks_file, "--iss", ISSUER, "--aud", AUDIENCE, *extra)


for kid, key, alg in (("py-ec", ec_key, "ES256"), ("py-rsa", rsa_key, "RS256"), ("py-rsa-ps", rsa_key, "PS256")):
    token = pyjwt.encode(claims(), key, algorithm=alg, headers={"kid": kid})
    code, out, err = verify(token)
    check(f"signinsim verifies a pyjwt {alg} token", code == 0 and '"alice"' in out, err)

    jc_key = jc_jwk.JWK.from_pem(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    signed = jc_jwt.JWT(header={"alg": alg, "kid": kid}, claims=claims())
    signed.make_signed_token(jc_key)
    code, out, err = verify(signed.serialize())
    check(f"signinsim verifies a jwcrypto {alg} token", code == 0, err)

# A PEM key written by the cryptography package signs in signinsim and verifies in pyjwt.
pem_file = write(
    "ec.pem",
    ec_key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()).decode(),
)
code, token, err = run("jwt", "sign", "--key", pem_file, "--claims", json.dumps(claims()), "--header", '{"kid":"py-ec"}')
try:
    pyjwt.decode(token.strip(), ec_key.public_key(), algorithms=["ES256"], audience=AUDIENCE)
    check("signinsim signs with a PKCS#8 PEM key from cryptography", code == 0)
except Exception as error:  # noqa: BLE001
    check("signinsim signs with a PKCS#8 PEM key from cryptography", False, f"{err} {error!r}")

# 3. Forged tokens are refused, each for its own reason.
good = pyjwt.encode(claims(), ec_key, algorithm="ES256", headers={"kid": "py-ec"})
header, payload, signature = good.split(".")
tampered_payload = b64url(json.dumps(claims(sub="mallory")).encode())
code, _, err = verify(f"{header}.{tampered_payload}.{signature}")
check("tampered token is refused (bad_signature)", code == 1 and "bad_signature" in err, err)

unsecured = pyjwt.encode(claims(), None, algorithm="none")
code, _, err = verify(unsecured)
check("alg none is refused (unsecured_token)", code == 1 and "unsecured_token" in err, err)

# Algorithm confusion: HS256 keyed with the RSA public key (PEM and JWK forms), kid of the RSA key.
rsa_public_pem = rsa_key.public_key().public_bytes(
    serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
)
for label, secret in (("PEM", rsa_public_pem), ("JWK", json.dumps(jwks["keys"][1]).encode())):
    signing_input = b64url(json.dumps({"alg": "HS256", "kid": "py-rsa", "typ": "JWT"}).encode()) + "." + b64url(
        json.dumps(claims()).encode()
    )
    mac = hmac.new(secret, signing_input.encode(), hashlib.sha256).digest()
    code, _, err = verify(signing_input + "." + b64url(mac))
    check(f"HS256 keyed with the public key ({label}) is refused", code == 1 and "algorithm_not_allowed" in err, err)

unknown = pyjwt.encode(claims(), ec_key, algorithm="ES256", headers={"kid": "rotated-away"})
code, _, err = verify(unknown)
check("unknown kid is refused (unknown_key)", code == 1 and "unknown_key" in err, err)

expired = pyjwt.encode(claims(exp=NOW - 120, iat=NOW - 400), ec_key, algorithm="ES256", headers={"kid": "py-ec"})
code, _, err = verify(expired, "--leeway", "60")
check("expired token is refused (expired)", code == 1 and "expired" in err, err)

wrong_aud = pyjwt.encode(claims(aud="someone-else"), ec_key, algorithm="ES256", headers={"kid": "py-ec"})
code, _, err = verify(wrong_aud)
check("wrong audience is refused (audience_mismatch)", code == 1 and "audience_mismatch" in err, err)

# jwcrypto (rightly) refuses to sign with an unknown critical header, so sign by hand with
# the cryptography package and convert its DER signature to JOSE r||s.
crit_input = b64url(json.dumps({"alg": "ES256", "kid": "py-ec", "crit": ["exp-v2"], "exp-v2": 1}).encode()) + "." + b64url(
    json.dumps(claims()).encode()
)
r, s_value = decode_dss_signature(ec_key.sign(crit_input.encode(), ec.ECDSA(hashes.SHA256())))
crit_token = crit_input + "." + b64url(r.to_bytes(32, "big") + s_value.to_bytes(32, "big"))
code, _, err = verify(crit_token)
check("unknown crit header is refused (unsupported_critical_header)", code == 1 and "unsupported_critical_header" in err, err)

finish()
