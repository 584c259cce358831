#!/usr/bin/env bash
# Scenario runner benchmark: the bundled library's wall time and scenarios per second with
# --jobs 1 and --jobs 2 (release build), and the wall time of `signinsim run` on a one-step
# scenario, start-up included (median of 20).
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

count="$("$binary" list scenarios | grep -c '^scenarios/')"
echo "bundled library: $count scenarios, $rounds rounds per setting (best round shown)"
for jobs in 1 2; do
    best=""
    for _ in $(seq "$rounds"); do
        start="$(now_ms)"
        "$binary" run scenarios --jobs "$jobs" >"$work/out.txt" || { tail -20 "$work/out.txt"; exit 1; }
        elapsed=$(($(now_ms) - start))
        if [ -z "$best" ] || [ "$elapsed" -lt "$best" ]; then best="$elapsed"; fi
    done
    rate="$(awk -v n="$count" -v ms="$best" 'BEGIN { printf "%.0f", n / (ms / 1000) }')"
    verdict="meets"
    if [ "$jobs" = 2 ] && [ "$rate" -lt 200 ]; then verdict="BELOW"; fi
    if [ "$jobs" = 2 ]; then
        echo "  --jobs $jobs: $best ms wall, $rate scenarios/s   target >= 200/s: $verdict"
    else
        echo "  --jobs $jobs: $best ms wall, $rate scenarios/s"
    fi
done

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
