#!/usr/bin/env bash
# Proves the loopback providers work end to end without signinsim: starts Django +
# django-oauth-toolkit and oidc-provider-mock, then a requests-based client (selftest.py) signs
# in with authorization code + PKCE S256, state and nonce, fills their HTML forms, exchanges
# the code, verifies ID tokens against the JWKS, refreshes and ends the session.
# Prints one line per check and a closing "N passed, N failed"; exits 1 on any failure.
# Usage: selftest.sh [WORKDIR]   (default: a fresh temporary folder, removed afterwards)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
source "$here/lib.sh"
if (($#)); then
    work="$1"
    keep=1
else
    work="$(mktemp -d "${TMPDIR:-/tmp}/signinsim-providers.XXXXXX")"
    keep=0
fi
client=""
cleanup() {
    if [ -n "$client" ]; then kill "$client" 2>/dev/null || true; fi
    stop_providers
    if ((keep == 0)); then rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM
python="$(providers_python)"
django_issuer=""
mock_issuer=""
if start_django_oidc "$work/django-oidc"; then django_issuer="$DJANGO_OIDC_ISSUER"; fi
if start_oidc_provider_mock "$work/oidc-provider-mock"; then mock_issuer="$OIDC_PROVIDER_MOCK_ISSUER"; fi
status=0
# In the background so that a TERM/INT reaches the trap at once rather than after the client.
timeout 300 "$python" "$here/selftest.py" "django=$django_issuer" "mock=$mock_issuer" &
client=$!
wait "$client" || status=$?
client=""
if ((status != 0)) && ((keep == 0)); then
    for log in "$work"/*/server.log; do
        echo "--- last lines of ${log#"$work"/}" >&2
        tail -n 20 "$log" >&2 || true
    done
fi
exit "$status"
