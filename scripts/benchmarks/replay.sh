#!/usr/bin/env bash
# Replay benchmark: a capture of about BENCH_ENTRIES (10,000) exchanges — a sign-in followed by
# that many refreshes, recorded by `signinsim run --har-dir` against the embedded issuer — is
# replayed by `signinsim replay`; wall time and peak memory (max RSS) of the replay.
# Targets: < 2 s and < 200 MB.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
swift build -c release --product signinsim >&2
binary="$(swift build -c release --show-bin-path)/signinsim"
entries="${BENCH_ENTRIES:-10000}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

refreshes=$((entries - 8))
{
    echo "name: a long session"
    echo "timeout: 600s"
    echo "steps:"
    echo "  - launch"
    echo "  - signIn"
    for _ in $(seq "$refreshes"); do echo "  - renewSession"; done
} >"$work/long.yaml"
"$binary" run "$work/long.yaml" --har-dir "$work/har" >/dev/null
capture="$(ls "$work"/har/*.har)"
count="$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["log"]["entries"]))' "$capture")"
size="$(du -m "$capture" | cut -f1)"

start="$(date +%s%3N)"
/usr/bin/time -f "%M" -o "$work/rss.txt" "$binary" replay "$capture" >"$work/report.txt"
elapsed=$(($(date +%s%3N) - start))
rss_kb="$(tail -1 "$work/rss.txt")"
rss_mb=$((rss_kb / 1024))
grep -q "the app behaves as recorded" "$work/report.txt" || { echo "the replay diverged:"; cat "$work/report.txt"; exit 1; }
verdict_time="meets"
[ "$elapsed" -lt 2000 ] || verdict_time="BELOW"
verdict_memory="meets"
[ "$rss_mb" -lt 200 ] || verdict_memory="BELOW"
echo "replay of a $count-entry capture (${size} MB, a sign-in and $refreshes refreshes):"
echo "  wall time ${elapsed} ms   target < 2000 ms: $verdict_time"
echo "  peak memory ${rss_mb} MB   target < 200 MB: $verdict_memory"
