#!/usr/bin/env bash
# The HTML report and the embedded issuer's own pages in a real browser: Debian's headless
# Chromium, driven by selenium, with the network off for the report. Installs chromium and
# chromium-driver when they are missing. Screenshots go to .build/browser/.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
if ! command -v chromium >/dev/null 2>&1 || ! command -v chromedriver >/dev/null 2>&1; then
    echo "browser: installing chromium and chromium-driver" >&2
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends chromium chromium-driver >/dev/null
fi
python="$("$root/scripts/python-env" 'selenium>=4.20' 'requests>=2.31')"
binary="$(cd "$root" && swift build --show-bin-path)/signinsim"
[ -x "$binary" ] || (cd "$root" && swift build --product signinsim >/dev/null)
exec "$python" "$root/scripts/interop/browser_interop.py" "$binary" "$root"
