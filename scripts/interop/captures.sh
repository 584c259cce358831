#!/usr/bin/env bash
# Fresh captures of issuers nobody here wrote, replayed and imported: scripts/captures makes
# today's captures of django-allauth's and django-oidc-provider's OpenID providers (a native-style
# client through mitmproxy, every story of the corpus), then each replays from launch with the
# SDK profile its traffic shows (the sign-out too: the SDK opens end-session in the web sheet,
# where the person confirms the provider's logout page) and imports as a scenario that passes
# against the embedded issuer. The checked-in corpus is tested by the Swift suite; this proves
# the same on captures made now.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
binary="$(cd "$root" && swift build --show-bin-path)/signinsim"
[ -x "$binary" ] || (cd "$root" && swift build --product signinsim >/dev/null)
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
passed=0
failed=0
report() {  # report NAME STATUS DETAIL
    if [ "$2" -eq 0 ]; then
        echo "ok   $1"
        passed=$((passed + 1))
    else
        echo "FAIL $1: $3"
        failed=$((failed + 1))
    fi
}
status=0
log="$work/captures.log"
timeout -k 10 600 "$root/scripts/captures" --provider django-allauth --provider django-oidc-provider \
    --out "$work/corpus" >"$log" 2>&1 || status=$?
report "scripts/captures made today's captures of two providers" "$status" "$(tail -20 "$log")"
for har in "$work"/corpus/*/*.har; do
    [ -e "$har" ] || continue
    name="$(basename "$(dirname "$har")")/$(basename "$har" .har)"
    profile="default"
    case "$name" in
    */refresh-race) profile="naive" ;;
    */stale-refresh-token) profile="persist-late" ;;
    */stale-refresh-copy) profile="stale-refresh-copy" ;;
    esac
    status=0
    out="$("$binary" replay "$har" --sdk-profile "$profile" 2>&1)" || status=$?
    report "$name replays from launch with the $profile SDK as recorded" "$status" "$(tail -25 <<<"$out")"
    status=0
    out="$("$binary" import-har "$har" 2>&1)" || status=$?
    report "$name imports as a scenario that passes against the embedded issuer" "$status" "$(tail -25 <<<"$out")"
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
