#!/usr/bin/env bash
# Captures nobody here wrote: mitmproxy (PyPI, in its own virtual environment) records a
# Python client signing in through it, refreshing and racing two refreshes with one refresh
# token (field bug 1), against `signinsim serve` and against django-oauth-toolkit (the
# project of providers/django_oidc.py, with refresh-token reuse protection: see
# providers/django_oidc_reuse.py). Then `signinsim replay` must reproduce each race with the
# naive SDK and diverge with the default one, a capture without a race must replay clean,
# and `signinsim import-har` must give scenarios that pass with the naive profile and fail
# with the default.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
venv="$root/.venv-mitm"
if [ ! -x "$venv/bin/mitmdump" ]; then
    python3 -m venv "$venv" >&2
    "$venv/bin/python" -m pip install -q --upgrade pip >&2
    "$venv/bin/python" -m pip install -q 'mitmproxy>=10.1' 'requests>=2.31' >&2
fi
# Django and django-oauth-toolkit come from the interop venv, as for web-flow.sh.
# shellcheck source=providers/lib.sh
source "$root/scripts/interop/providers/lib.sh"
dot_python="$(providers_python)"
binary="$(cd "$root" && swift build --show-bin-path)/signinsim"
[ -x "$binary" ] || (cd "$root" && swift build --product signinsim >/dev/null)
exec timeout --foreground -s TERM -k 10 600 "$venv/bin/python" "$root/scripts/interop/mitm_interop.py" \
    "$binary" "$venv/bin/mitmdump" "$dot_python"
