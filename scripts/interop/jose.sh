#!/usr/bin/env bash
# JOSE interop: tokens signed by signinsim verify in pyjwt and jwcrypto, and theirs verify in
# signinsim; forged tokens are refused by signinsim.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
python="$("$root/scripts/python-env" 'pyjwt[crypto]>=2.8' 'jwcrypto>=1.5')"
binary="$(cd "$root" && swift build --show-bin-path)/signinsim"
[ -x "$binary" ] || (cd "$root" && swift build --product signinsim >/dev/null)
exec "$python" "$root/scripts/interop/jose_interop.py" "$binary"
