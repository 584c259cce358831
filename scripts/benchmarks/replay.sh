#!/usr/bin/env bash
# Replay benchmark: a capture of about BENCH_ENTRIES (10,000) exchanges — a sign-in followed by
# that many refreshes, recorded by `signinsim run --har-dir` against the embedded issuer — is
# replayed by `signinsim replay`; wall time and peak memory (max RSS) of the replay.
# Targets: < 2 s and < 200 MB.
#
# This is the hardest 10,000-entry capture there is: every entry is a token response with a
# freshly signed ID token, which the replayed SDK verifies and the report's audit verifies
# again (20,000 signature checks). It is measured twice: signed with RS256, as Auth0, Okta,
# Google and Apple sign ID tokens by default, and with ES256, the embedded issuer's default,
# whose verification costs OpenSSL about 3.5 times as much (see `scripts/bench crypto`).
# BENCH_ALGORITHMS picks (default "RS256 ES256"); BENCH_ROUNDS replays each capture that
# many times (default 3) and reports each round.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
swift build -c release --product signinsim >&2
binary="$(swift build -c release --show-bin-path)/signinsim"
entries="${BENCH_ENTRIES:-10000}"
rounds="${BENCH_ROUNDS:-3}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

refreshes=$((entries - 8))
for algorithm in ${BENCH_ALGORITHMS:-RS256 ES256}; do
    {
        echo "name: a long session ($algorithm)"
        echo "timeout: 600s"
        echo "issuer:"
        echo "  tenant: {signing_algorithm: $algorithm}"
        echo "steps:"
        echo "  - launch"
        echo "  - signIn"
        for _ in $(seq "$refreshes"); do echo "  - renewSession"; done
    } >"$work/long-$algorithm.yaml"
    "$binary" run "$work/long-$algorithm.yaml" --seed 1 --har-dir "$work/har-$algorithm" >/dev/null
    capture="$(ls "$work/har-$algorithm"/*.har)"
    count="$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["log"]["entries"]))' "$capture")"
    size="$(du -m "$capture" | cut -f1)"
    echo "replay of a $count-entry capture signed with $algorithm (${size} MB, a sign-in and $refreshes refreshes):"
    for round in $(seq "$rounds"); do
        start="$(date +%s%3N)"
        /usr/bin/time -f "%M" -o "$work/rss.txt" "$binary" replay "$capture" >"$work/report.txt"
        elapsed=$(($(date +%s%3N) - start))
        rss_kb="$(tail -1 "$work/rss.txt")"
        rss_mb=$((rss_kb / 1024))
        grep -q "the app behaves as recorded" "$work/report.txt" || {
            echo "the replay diverged:"
            cat "$work/report.txt"
            exit 1
        }
        verdict_time="meets"
        [ "$elapsed" -lt 2000 ] || verdict_time="BELOW"
        verdict_memory="meets"
        [ "$rss_mb" -lt 200 ] || verdict_memory="BELOW"
        echo "  round $round: wall time ${elapsed} ms (target < 2000 ms: $verdict_time)   peak memory ${rss_mb} MB (target < 200 MB: $verdict_memory)"
    done
done
