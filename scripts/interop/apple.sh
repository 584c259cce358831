#!/usr/bin/env bash
# Sign in with Apple interop: pyjwt and requests (software nobody here wrote) talk to a running
# simulated Apple ID provider: its keys verify its identity tokens, client secrets pyjwt signs are
# accepted or refused as Apple would, codes redeem once, tokens refresh and revoke.
#
#   scripts/interop/apple.sh APPLE_BASE_URL     e.g. http://127.0.0.1:8080/apple
#
# The URL may also come from SIGNINSIM_APPLE_URL. Without one the check is skipped (it reports
# "0 passed, 0 failed"): `signinsim serve` does not serve the Apple provider yet, and starting it
# here is left to the step that wires it in.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
base_url="${1:-${SIGNINSIM_APPLE_URL:-}}"
if [ -z "$base_url" ]; then
    echo "skipped: no Apple base URL (pass one, or set SIGNINSIM_APPLE_URL)"
    echo "0 passed, 0 failed"
    exit 0
fi
python="$("$root/scripts/python-env" 'pyjwt[crypto]>=2.8' 'requests>=2.31')"
exec "$python" "$root/scripts/interop/apple_interop.py" "$base_url"
