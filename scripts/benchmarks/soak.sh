#!/usr/bin/env bash
# Soak: `signinsim serve` under wrk for SOAK_SECONDS (60) at 64 connections, first on the
# refresh-token grant (a fixed fleet of token families refreshed over and over, each answer's
# rotated token reused), then on the JWKS, with the server's RSS sampled every second. Reports
# per load: requests, errors (non-2xx and socket errors: both must be 0), RSS at start and end,
# and the RSS slope after the warm-up (SOAK_WARMUP seconds, 15), by least squares, in MB per
# minute (target < 1). Bounded: each wrk run has a fixed duration, the fleet a fixed size.
# The samples ("second rss_mb") are kept in .build/soak/NAME.rss; SOAK_LOADS picks the loads
# (default "refresh jwks").
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
seconds="${SOAK_SECONDS:-60}"
warmup="${SOAK_WARMUP:-15}"
connections=64
threads=2
families="${SOAK_FAMILIES:-2000}"
work="$(mktemp -d)"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT

swift build -c release --product signinsim >&2
signinsim="$(swift build -c release --show-bin-path)/signinsim"
python="$(scripts/python-env 'requests>=2.31')"

"$signinsim" serve --port 0 >"$work/serve.out" 2>/dev/null &
pids+=($!)
serve_pid=$!
for _ in $(seq 100); do grep -q '^issuer: ' "$work/serve.out" 2>/dev/null && break; sleep 0.1; done
issuer="$(head -1 "$work/serve.out" | cut -d' ' -f2)"

"$python" - "$issuer" "$families" "$work/tokens.txt" <<'PY'
import sys, requests
issuer, count, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
response = requests.post(issuer + "/_admin/tokens", json={
    "client_id": "com.example.app", "email": "alice@example.com",
    "scope": "openid profile email offline_access", "count": count}, timeout=120)
response.raise_for_status()
open(path, "w").write("\n".join(response.json()["refresh_tokens"]) + "\n")
PY

# sample PID SECONDS FILE: "t rss_mb" once a second.
sample() {
    local t
    for ((t = 0; t < $2; t++)); do
        awk -v t="$t" '/VmRSS/ { printf "%d %.2f\n", t, $2 / 1024 }' "/proc/$1/status" >>"$3"
        sleep 1
    done
}

# soak NAME URL [SCRIPT ARGUMENT…]: wrk on URL, with a Lua SCRIPT and its arguments if given.
soak() {
    local name="$1" url="$2"
    shift 2
    local script=()
    if [ "$#" -gt 0 ]; then
        script=(-s "$1")
        shift
    fi
    : >"$work/$name.rss"
    sample "$serve_pid" "$seconds" "$work/$name.rss" &
    local sampler=$!
    wrk -t"$threads" -c"$connections" -d"${seconds}s" "${script[@]}" "$url" -- "$@" >"$work/$name.wrk"
    wait "$sampler" || true
    mkdir -p .build/soak
    cp "$work/$name.rss" ".build/soak/$name.rss"
    awk -v name="$name" -v warmup="$warmup" '
    FNR == NR {
        if ($0 ~ /requests in/) requests = $1
        if ($0 ~ /Non-2xx/) bad = $NF
        if ($0 ~ /Socket errors/) { for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+,?$/) { v = $i; sub(/,/, "", v); socket += v } }
        next
    }
    { if (first == "") first = $2; last = $2; if ($1 >= warmup) { n++; sx += $1; sy += $2; sxx += $1 * $1; sxy += $1 * $2 } }
    END {
        slope = (n > 1) ? (n * sxy - sx * sy) / (n * sxx - sx * sx) * 60 : 0
        printf "%-8s %9d requests  non-2xx %d  socket errors %d  RSS %.1f -> %.1f MB  slope after %ds: %+.2f MB/min (target < 1)\n",
            name, requests, bad + 0, socket + 0, first, last, warmup, slope
    }' "$work/$name.wrk" "$work/$name.rss"
}

echo "signinsim serve under wrk -t$threads -c$connections -d${seconds}s, RSS sampled each second:"
for load in ${SOAK_LOADS:-refresh jwks}; do
    case "$load" in
    refresh) soak refresh "$issuer/oauth/token" scripts/benchmarks/soak-refresh.lua "$work/tokens.txt" "$threads" \
        com.example.app ;;
    jwks) soak jwks "$issuer/.well-known/jwks.json" ;;
    *) echo "unknown soak load '$load' (refresh, jwks)" >&2; exit 64 ;;
    esac
done
