#!/usr/bin/env bash
# Refresh-token grant throughput of `signinsim serve` next to oidc-provider-mock (PyPI), both
# under wrk on loopback in the same run, plus the issuer's memory at idle and after 100,000
# refreshes. Every load is bounded: wrk runs for a fixed time, token counts are fixed.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
seconds="${BENCH_SECONDS:-10}"
connections=32
threads=2
work="$(mktemp -d)"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT

swift build -c release --product signinsim >&2
signinsim="$(swift build -c release --show-bin-path)/signinsim"
python="$(scripts/python-env 'oidc-provider-mock==0.3.4' 'requests>=2.31')"

rss_mb() { awk '/VmRSS/ { printf "%.1f", $2 / 1024 }' "/proc/$1/status"; }
wrk_field() { # file, what: rps | p99 | requests | errors
    case "$2" in
    rps) awk '/Requests\/sec/ { print $2 }' "$1" ;;
    p99) awk '$1 == "99%" { print $2 }' "$1" ;;
    requests) awk '/requests in/ { print $1 }' "$1" ;;
    errors) awk '/Non-2xx/ { print $NF } END { }' "$1" | tail -1 ;;
    esac
}
to_ms() { # wrk latency like 3.21ms, 812.00us, 1.02s
    echo "$1" | awk '{ v = $1; if (v ~ /us$/) { sub(/us/, "", v); print v / 1000 } else if (v ~ /ms$/) { sub(/ms/, "", v); print v } else { sub(/s/, "", v); print v * 1000 } }'
}

# --- signinsim ---------------------------------------------------------------------------
"$signinsim" serve --port 0 >"$work/serve.out" 2>/dev/null &
pids+=($!)
serve_pid=$!
for _ in $(seq 100); do grep -q '^issuer: ' "$work/serve.out" 2>/dev/null && break; sleep 0.1; done
issuer="$(head -1 "$work/serve.out" | cut -d' ' -f2)"
sleep 1
idle_rss="$(rss_mb "$serve_pid")"

# Enough for the timed run (10 s at up to ~14,000/s) and to reach 100,000 refreshes in all;
# each token is used once. Fewer tokens than that would end the run with 400s (reported).
total_tokens="${BENCH_TOKENS:-150000}"
"$python" - "$issuer" "$total_tokens" "$work/tokens.txt" <<'PY'
import sys, requests
issuer, count, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
tokens = []
while len(tokens) < count:
    batch = min(50000, count - len(tokens))
    response = requests.post(issuer + "/_admin/tokens", json={
        "client_id": "com.example.app", "email": "alice@example.com",
        "scope": "openid profile email offline_access", "count": batch}, timeout=120)
    response.raise_for_status()
    tokens += response.json()["refresh_tokens"]
open(path, "w").write("\n".join(tokens) + "\n")
PY
minted_rss="$(rss_mb "$serve_pid")"

wrk -t"$threads" -c"$connections" -d"${seconds}s" --latency -s scripts/benchmarks/refresh.lua "$issuer/oauth/token" \
    -- "$work/tokens.txt" "$threads" com.example.app >"$work/ours.txt"
ours_rps="$(wrk_field "$work/ours.txt" rps)"
ours_p99="$(to_ms "$(wrk_field "$work/ours.txt" p99)")"
ours_requests="$(wrk_field "$work/ours.txt" requests)"
ours_errors="$(wrk_field "$work/ours.txt" errors)"
# Reach 100,000 refreshes in all with the unused tokens, then read the memory.
if [ "$ours_requests" -lt 100000 ]; then
    # Thread i sent tokens i, i+2, …: the threads' counts differ by a few percent, so skip
    # 10% past the total (plus 1,000) to be sure no token of the timed run is sent again.
    tail -n +"$((ours_requests + ours_requests / 10 + 1000))" "$work/tokens.txt" >"$work/rest.txt"
    remaining=$((100000 - ours_requests))
    extra_seconds=$(awk -v r="$remaining" -v rps="$ours_rps" 'BEGIN { s = int(r / (rps > 1 ? rps : 1)) + 2; print (s > 60 ? 60 : s) }')
    wrk -t"$threads" -c"$connections" -d"${extra_seconds}s" -s scripts/benchmarks/refresh.lua "$issuer/oauth/token" \
        -- "$work/rest.txt" "$threads" com.example.app >"$work/ours-rest.txt"
    ours_total=$((ours_requests + $(wrk_field "$work/ours-rest.txt" requests)))
    rest_errors="$(wrk_field "$work/ours-rest.txt" errors)"
else
    ours_total="$ours_requests"
fi
after_rss="$(rss_mb "$serve_pid")"
kill "$serve_pid"

# --- oidc-provider-mock ------------------------------------------------------------------
mock_port=$(("$(date +%s)" % 20000 + 30000))
"$python" -m oidc_provider_mock --port "$mock_port" >"$work/mock.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$mock_port/.well-known/openid-configuration" >/dev/null && break; sleep 0.2; done
mock_token="$("$python" - "http://127.0.0.1:$mock_port" <<'PY'
import sys, urllib.parse, requests
base = sys.argv[1]
redirect = "http://127.0.0.1/cb"
r = requests.post(base + "/oauth2/authorize", params={"client_id": "bench", "redirect_uri": redirect,
    "response_type": "code", "scope": "openid offline_access", "nonce": "n"}, data={"sub": "alice"},
    allow_redirects=False, timeout=30)
code = urllib.parse.parse_qs(urllib.parse.urlsplit(r.headers["Location"]).query)["code"][0]
t = requests.post(base + "/oauth2/token", auth=("bench", "x"), data={"grant_type": "authorization_code",
    "code": code, "redirect_uri": redirect}, timeout=30)
print(t.json()["refresh_token"])
PY
)"
basic="$(printf 'bench:x' | base64)"
wrk -t"$threads" -c"$connections" -d"${seconds}s" --latency -s scripts/benchmarks/static-refresh.lua \
    "http://127.0.0.1:$mock_port/oauth2/token" -- "$mock_token" "$basic" >"$work/mock.txt"
mock_rps="$(wrk_field "$work/mock.txt" rps)"
mock_p99="$(to_ms "$(wrk_field "$work/mock.txt" p99)")"
mock_errors="$(wrk_field "$work/mock.txt" errors)"

awk -v ours="$ours_rps" -v p99="$ours_p99" -v mock="$mock_rps" -v mp99="$mock_p99" -v idle="$idle_rss" \
    -v after="$after_rss" -v minted="$minted_rss" -v total="$ours_total" -v oe="${ours_errors:-0}" -v me="${mock_errors:-0}" \
    -v s="$seconds" -v c="$connections" -v tokens="$total_tokens" -v re="${rest_errors:-0}" 'BEGIN {
    printf "refresh_token grant under wrk -t2 -c%d -d%ds on loopback (same run, same machine):\n", c, s
    printf "  signinsim serve        %9.0f refreshes/s   p99 %7.2f ms   non-2xx %s   (target >= 8000/s, p99 < 25 ms)\n", ours, p99, oe
    printf "  oidc-provider-mock     %9.0f refreshes/s   p99 %7.2f ms   non-2xx %s\n", mock, mp99, me
    printf "  ratio                  %9.1fx                                     (target >= 20x)\n", ours / (mock > 0 ? mock : 1)
    printf "memory of signinsim serve (RSS):\n"
    printf "  idle                   %9.1f MB   (target < 50 MB)\n", idle
    printf "  %d tokens minted   %9.1f MB\n", tokens, minted
    printf "  after %d refreshes %6.1f MB   (target < 150 MB; non-2xx in the top-up run %s)\n", total, after, re
}'
