#!/usr/bin/env bash
# Hostile requests against `signinsim serve` (scripts/interop/hostile_requests.py): 20,000
# malformed requests across every endpoint, raw sockets, a fixed seed. No third-party package:
# the server is what is under test, and the client is a plain socket.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
binary="$(cd "$root" && swift build --show-bin-path)/signinsim"
[ -x "$binary" ] || (cd "$root" && swift build --product signinsim >/dev/null)
python="$("$root/scripts/python-env")"
exec timeout -k 10 600 "$python" "$root/scripts/interop/hostile_requests.py" "$binary" "${HOSTILE_REQUESTS:-20000}"
