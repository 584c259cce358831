#!/usr/bin/env bash
# Issuer interop: a Python client nobody here wrote (requests + jwcrypto) signs in against
# `signinsim serve` with authorization code + PKCE, parsing and submitting the login form,
# verifies the ID token from the JWKS, refreshes, revokes and logs out.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
python="$("$root/scripts/python-env" 'requests>=2.31' 'jwcrypto>=1.5')"
binary="$(cd "$root" && swift build --show-bin-path)/signinsim"
[ -x "$binary" ] || (cd "$root" && swift build --product signinsim >/dev/null)
exec "$python" "$root/scripts/interop/issuer_interop.py" "$binary"
