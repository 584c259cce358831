#!/usr/bin/env bash
# Native Sign in with Apple exchanges per second through `signinsim serve` (the issuer and the
# simulated Apple on one loopback listener), next to the cryptography floor of one exchange
# priced at `openssl speed` rates measured in the same run.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
seconds="${BENCH_SECONDS:-10}"
work="$(mktemp -d)"
serve_pid=""
cleanup() {
    [ -n "$serve_pid" ] && kill "$serve_pid" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

swift build -c release --product signinsim >&2
swift build -c release --product signinsim-bench >&2
bin="$(swift build -c release --show-bin-path)"
"$bin/signinsim" serve --port 0 >"$work/serve.out" 2>/dev/null &
serve_pid=$!
for _ in $(seq 100); do [ "$(wc -l <"$work/serve.out")" -ge 2 ] && break; sleep 0.1; done
issuer="$(sed -n 1p "$work/serve.out" | cut -d' ' -f2)"
apple="$(sed -n 2p "$work/serve.out" | cut -d' ' -f2)"
"$bin/signinsim-bench" apple --issuer "$issuer" --apple "$apple" --seconds "$seconds" "$@"
