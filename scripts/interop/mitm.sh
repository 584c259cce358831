#!/usr/bin/env bash
# Captures nobody here wrote: mitmproxy (PyPI, in its own virtual environment) records a
# Python client signing in to `signinsim serve` through it and racing two refreshes with one
# refresh token (field bug 1); then `signinsim replay` must reproduce the capture with the
# naive SDK and diverge with the default one, and `signinsim import-har` must give a scenario
# that passes with the naive profile and fails with the default.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
venv="$root/.venv-mitm"
if [ ! -x "$venv/bin/mitmdump" ]; then
    python3 -m venv "$venv" >&2
    "$venv/bin/python" -m pip install -q --upgrade pip >&2
    "$venv/bin/python" -m pip install -q 'mitmproxy>=10.1' 'requests>=2.31' >&2
fi
binary="$(cd "$root" && swift build --show-bin-path)/signinsim"
[ -x "$binary" ] || (cd "$root" && swift build --product signinsim >/dev/null)
exec "$venv/bin/python" "$root/scripts/interop/mitm_interop.py" "$binary" "$venv/bin/mitmdump"
