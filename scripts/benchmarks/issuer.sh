#!/usr/bin/env bash
# Refresh-token grant throughput of `signinsim serve` next to oidc-provider-mock (PyPI), both
# under wrk on loopback in the same run, plus the issuer's memory at idle and after 100,000
# refreshes. Every load is bounded: wrk runs for a fixed time, token counts are fixed.
#
# Throughput is measured in BENCH_ROUNDS (3) rounds that alternate the two servers, each wrk
# run BENCH_SECONDS (10) long, and the median round is reported with every round: on a shared
# two-core machine either server's rate drifts by 15% between runs, and alternating lets a
# slow stretch weigh on both. Memory is measured on a fresh `serve`, as a user would see it:
# idle, then after 100,000 refreshes of tokens minted for that purpose.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
seconds="${BENCH_SECONDS:-10}"
rounds="${BENCH_ROUNDS:-3}"
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
wrk_field() { # file, what: rps (answered 2xx, per second) | p99 | requests | errors
    case "$2" in
    # wrk's Requests/sec counts every answer; a refused token is answered fast, so only the
    # 2xx answers count: requests minus non-2xx over the run's own duration.
    rps) awk '/requests in/ { n = $1; d = $4; sub(/s,?$/, "", d) } /Non-2xx/ { bad = $NF }
              END { printf "%.2f\n", (n - bad) / d }' "$1" ;;
    p99) awk '$1 == "99%" { print $2 }' "$1" ;;
    requests) awk '/requests in/ { print $1 }' "$1" ;;
    errors) awk '/Non-2xx/ { print $NF } END { }' "$1" | tail -1 ;;
    esac
}
to_ms() { # wrk latency like 3.21ms, 812.00us, 1.02s
    echo "$1" | awk '{ v = $1; if (v ~ /us$/) { sub(/us/, "", v); print v / 1000 } else if (v ~ /ms$/) { sub(/ms/, "", v); print v } else { sub(/s/, "", v); print v * 1000 } }'
}
start_serve() { # output file; sets serve_pid and issuer
    "$signinsim" serve --port 0 >"$1" 2>/dev/null &
    pids+=($!)
    serve_pid=$!
    for _ in $(seq 100); do grep -q '^issuer: ' "$1" 2>/dev/null && break; sleep 0.1; done
    issuer="$(head -1 "$1" | cut -d' ' -f2)"
}
mint() { # issuer, count, file: refresh tokens for alice, each to be used once
    "$python" - "$1" "$2" "$3" <<'PY'
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
}
refresh_load() { # issuer, tokens file, seconds, output file (with latency figures)
    wrk -t"$threads" -c"$connections" -d"${3}s" --latency -s scripts/benchmarks/refresh.lua "$1/oauth/token" \
        -- "$2" "$threads" com.example.app >"$4"
}

# --- throughput: alternating rounds ------------------------------------------------------
start_serve "$work/serve.out"
# Enough for one round (10 s at up to ~16,000/s) per round, even when one wrk thread gets
# 70% of the answers (each thread has half the slice); each token is used once.
per_round="${BENCH_TOKENS_PER_ROUND:-240000}"
mint "$issuer" $((per_round * rounds)) "$work/tokens.txt"
split -l "$per_round" -d -a 2 "$work/tokens.txt" "$work/round-"

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

: >"$work/rounds.txt"
for round in $(seq "$rounds"); do
    slice="$(printf '%s/round-%02d' "$work" $((round - 1)))"
    refresh_load "$issuer" "$slice" "$seconds" "$work/ours-$round.txt"
    wrk -t"$threads" -c"$connections" -d"${seconds}s" --latency -s scripts/benchmarks/static-refresh.lua \
        "http://127.0.0.1:$mock_port/oauth2/token" -- "$mock_token" "$basic" >"$work/mock-$round.txt"
    ours_errors="$(wrk_field "$work/ours-$round.txt" errors)"
    mock_errors="$(wrk_field "$work/mock-$round.txt" errors)"
    echo "$round $(wrk_field "$work/ours-$round.txt" rps) $(to_ms "$(wrk_field "$work/ours-$round.txt" p99)")" \
        "${ours_errors:-0} $(wrk_field "$work/mock-$round.txt" rps)" \
        "$(to_ms "$(wrk_field "$work/mock-$round.txt" p99)") ${mock_errors:-0}" >>"$work/rounds.txt"
done
kill "$serve_pid"

# --- memory: a fresh serve, idle, then after 100,000 refreshes -----------------------------
start_serve "$work/memory.out"
sleep 1
idle_rss="$(rss_mb "$serve_pid")"
memory_tokens=200000
mint "$issuer" "$memory_tokens" "$work/memory-tokens.txt"
minted_rss="$(rss_mb "$serve_pid")"
# Thread i sends tokens i, i+2, …; threads need not keep pace with each other, so each top-up
# run starts after the furthest token any thread of the previous run reached (refresh.lua
# reports it).
done_refreshes=0
offset=1
errors_total=0
# A run of 2 s reaches at most ~50,000 tokens into its slice (16,000/s, threads 70/30 uneven);
# one starts only with that many left, so no run reaches past the minted tokens.
run_seconds=2
run_tokens=50000
while [ "$done_refreshes" -lt 100000 ] && [ $((memory_tokens - offset + 1)) -ge "$run_tokens" ]; do
    tail -n +"$offset" "$work/memory-tokens.txt" >"$work/memory-slice.txt"
    refresh_load "$issuer" "$work/memory-slice.txt" "$run_seconds" "$work/memory-run.txt"
    sent="$(wrk_field "$work/memory-run.txt" requests)"
    done_refreshes=$((done_refreshes + sent))
    errors="$(wrk_field "$work/memory-run.txt" errors)"
    errors_total=$((errors_total + ${errors:-0}))
    reached="$(awk '/tokens-used-through/ { print $2 }' "$work/memory-run.txt")"
    offset=$((offset + ${reached:-$((sent * 2))} + 1))
done
after_rss="$(rss_mb "$serve_pid")"

awk -v s="$seconds" -v c="$connections" -v t="$threads" -v idle="$idle_rss" -v minted="$minted_rss" \
    -v after="$after_rss" -v total="$done_refreshes" -v me="$errors_total" -v tokens="$memory_tokens" '
{ n++; ours[n] = $2; p99[n] = $3; oe[n] = ($4 == "" ? 0 : $4); mock[n] = $5; mp99[n] = $6; ratio[n] = $2 / ($5 > 0 ? $5 : 1) }
END {
    printf "refresh_token grant under wrk -t%d -c%d -d%ds on loopback, %d alternating rounds (same run, same machine):\n", t, c, s, n
    for (i = 1; i <= n; i++) {
        printf "  round %d: signinsim serve %7.0f/s (p99 %6.2f ms, non-2xx %s)   oidc-provider-mock %5.0f/s (p99 %6.2f ms)   ratio %5.1fx\n", i, ours[i], p99[i], oe[i], mock[i], mp99[i], ratio[i]
        order[i] = i
    }
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (ratio[order[j]] < ratio[order[i]]) { k = order[i]; order[i] = order[j]; order[j] = k }
    m = order[int((n + 1) / 2)]
    worst = 0; for (i = 1; i <= n; i++) if (p99[i] > worst) worst = p99[i]
    printf "  median round: signinsim serve %7.0f refreshes/s (target >= 8000/s), p99 %.2f ms, worst round p99 %.2f ms (target < 25 ms)\n", ours[m], p99[m], worst
    printf "                oidc-provider-mock %5.0f refreshes/s;  ratio %.1fx (target >= 20x)\n", mock[m], ratio[m]
    printf "memory of a fresh signinsim serve (RSS):\n"
    printf "  %-26s %6.1f MB   (target < 50 MB)\n", "idle", idle
    printf "  %-26s %6.1f MB\n", tokens " tokens minted", minted
    printf "  %-26s %6.1f MB   (target < 150 MB; non-2xx %s)\n", "after " total " refreshes", after, me
}' "$work/rounds.txt"
