#!/usr/bin/env bash
# Scenario runner benchmark: the bundled library's wall time and scenarios per second with
# --jobs 1 and --jobs 2 (release build), whole and without the scenarios that pause in real
# time, and the wall time of `signinsim run` on a one-step scenario, start-up included
# (median of 20).
# Targets: one-step scenario < 150 ms; >= 200 typical scenarios/s with two jobs.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
swift build -c release --product signinsim >&2
binary="$(swift build -c release --show-bin-path)/signinsim"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
rounds="${BENCH_ROUNDS:-3}"

now_ms() { date +%s%3N; }

# Scenarios tagged realtime hold a request at the issuer or pause for a moment of real time
# to order a race; "typical" is every other one.
library() {
    local label="$1" target="$2"
    shift 2
    local count best elapsed rate verdict
    count="$("$binary" list scenarios "$@" | grep -c '^scenarios/')"
    echo "$label: $count scenarios, $rounds rounds per setting (best round shown)"
    for jobs in 1 2; do
        best=""
        for _ in $(seq "$rounds"); do
            start="$(now_ms)"
            "$binary" run scenarios --jobs "$jobs" "$@" >"$work/out.txt" || { tail -20 "$work/out.txt"; exit 1; }
            elapsed=$(($(now_ms) - start))
            if [ -z "$best" ] || [ "$elapsed" -lt "$best" ]; then best="$elapsed"; fi
        done
        rate="$(awk -v n="$count" -v ms="$best" 'BEGIN { printf "%.0f", n / (ms / 1000) }')"
        if [ "$jobs" = 2 ] && [ -n "$target" ]; then
            verdict="meets"
            [ "$rate" -ge "$target" ] || verdict="BELOW"
            echo "  --jobs $jobs: $best ms wall, $rate scenarios/s   target >= $target/s: $verdict"
        else
            echo "  --jobs $jobs: $best ms wall, $rate scenarios/s"
        fi
    done
}
library "whole bundled library" ""
library "typical scenarios (--exclude-tags realtime)" 200 --exclude-tags realtime

cat >"$work/one-step.yaml" <<'YAML'
name: one step
steps:
  - launch
YAML
times=()
for _ in $(seq 20); do
    start="$(now_ms)"
    "$binary" run "$work/one-step.yaml" --jobs 1 >/dev/null
    times+=($(($(now_ms) - start)))
done
median="$(printf '%s\n' "${times[@]}" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')"
verdict="meets"
[ "$median" -lt 150 ] || verdict="BELOW"
echo "one-step scenario, start-up included: median $median ms of 20 runs   target < 150 ms: $verdict"
