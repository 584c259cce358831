#!/usr/bin/env bash
# Sign in with Apple interop: pyjwt and requests (software nobody here wrote) talk to the
# simulated Apple ID provider: its keys verify its identity tokens, client secrets pyjwt signs are
# accepted or refused as Apple would, codes redeem once, tokens refresh and revoke. Against
# `signinsim serve` it also signs in end to end: an Apple code exchanged at the issuer's
# /oauth/token, the issuer's ID token verified by pyjwt with the issuer's JWKS.
#
#   scripts/interop/apple.sh                    starts `signinsim serve --port 0` and stops it after
#   scripts/interop/apple.sh APPLE_BASE_URL     a provider already running (Apple checks only,
#                                               unless SIGNINSIM_ISSUER_URL names its issuer)
#
# The URL may also come from SIGNINSIM_APPLE_URL.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
base_url="${1:-${SIGNINSIM_APPLE_URL:-}}"
issuer_url="${SIGNINSIM_ISSUER_URL:-}"
python="$("$root/scripts/python-env" 'pyjwt[crypto]>=2.8' 'requests>=2.31')"

if [ -n "$base_url" ]; then
    exec "$python" "$root/scripts/interop/apple_interop.py" "$base_url" ${issuer_url:+"$issuer_url"}
fi

binary="$(cd "$root" && swift build --show-bin-path)/signinsim"
[ -x "$binary" ] || (cd "$root" && swift build --product signinsim >/dev/null)
work="$(mktemp -d)"
"$binary" serve --port 0 >"$work/stdout" 2>"$work/stderr" &
serve_pid=$!
stop_serve() {
    kill -TERM "$serve_pid" 2>/dev/null || true
    wait "$serve_pid" 2>/dev/null || true
    rm -rf "$work"
}
trap stop_serve EXIT

# The first two lines: "issuer: <url>" and "apple: <url>/apple".
for _ in $(seq 1 300); do
    [ "$(wc -l <"$work/stdout")" -ge 2 ] && break
    kill -0 "$serve_pid" 2>/dev/null || break
    sleep 0.1
done
issuer_url="$(sed -n 's/^issuer: //p' "$work/stdout" | head -1)"
base_url="$(sed -n 's/^apple: //p' "$work/stdout" | head -1)"
if [ -z "$issuer_url" ] || [ -z "$base_url" ]; then
    echo "FAIL signinsim serve did not print its issuer and apple lines"
    cat "$work/stdout" "$work/stderr"
    echo "0 passed, 1 failed"
    exit 1
fi
echo "serve: issuer $issuer_url, apple $base_url"
status=0
"$python" "$root/scripts/interop/apple_interop.py" "$base_url" "$issuer_url" || status=$?
exit "$status"
