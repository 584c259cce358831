#!/usr/bin/env bash
# Makes the captures the golden replay tests read: each scenario here is run by signinsim
# against the embedded issuer with a fixed seed and its HAR kept. Nobody writes these by hand;
# run this again (then the tests with SIGNINSIM_UPDATE_GOLDEN=1) when the HAR format changes.
#   session.har  a sign-in, two refreshes, userinfo and sign-out
#   race.har     the naive app's refresh race (field bug 1)
#   tampered-state.har  a sign-in whose callback carries another state: refused
#   wrong-password.har  a wrong password, the login form shown again, then the right one
#   damaged.har  session.har with the first refreshed ID token's signature flipped, the code
#                exchange's access token swapped (its ID token's at_hash no longer fits), the
#                userinfo entry's body in an unknown encoding, and the last refresh and the
#                sign-out recorded two days late (the ID token they carry has expired by then)
#   foreign.har  session.har as another tool records it: no pages, no steps, no senders
#                (the replay reads its story from the traffic)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
binary="${SIGNINSIM:-$(cd "$root" && swift build --show-bin-path)/signinsim}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
for name in session race tampered-state wrong-password; do
    "$binary" run "$here/$name.yaml" --seed 7 --har-dir "$work/$name" >/dev/null
    cp "$work/$name"/*.har "$here/$name.har"
done
python3 - "$here/session.har" "$here/damaged.har" <<'PY'
import base64, datetime, json, sys
source, target = sys.argv[1], sys.argv[2]
har = json.load(open(source))
entries = har["log"]["entries"]
refreshes = [e for e in entries if "grant_type=refresh_token" in (e["request"].get("postData") or {}).get("text", "")]
body = json.loads(refreshes[0]["response"]["content"]["text"])
header, payload, signature = body["id_token"].split(".")
raw = bytearray(base64.urlsafe_b64decode(signature + "=" * (-len(signature) % 4)))
raw[0] ^= 0x01
body["id_token"] = ".".join([header, payload, base64.urlsafe_b64encode(bytes(raw)).decode().rstrip("=")])
refreshes[0]["response"]["content"]["text"] = json.dumps(body, separators=(",", ":"))
exchanges = [e for e in entries if "grant_type=authorization_code" in (e["request"].get("postData") or {}).get("text", "")]
body = json.loads(exchanges[0]["response"]["content"]["text"])
body["access_token"] = body["access_token"][::-1]
exchanges[0]["response"]["content"]["text"] = json.dumps(body, separators=(",", ":"))
for entry in entries:
    if entry["request"]["url"].endswith("/userinfo"):
        entry["response"]["content"]["encoding"] = "x-rot13"
late = entries.index(refreshes[1])
for entry in entries[late:]:
    started = datetime.datetime.fromisoformat(entry["startedDateTime"].replace("Z", "+00:00"))
    entry["startedDateTime"] = (started + datetime.timedelta(days=2)).isoformat(timespec="milliseconds").replace("+00:00", "Z")
with open(target, "w") as out:
    json.dump(har, out, indent=2)
    out.write("\n")
PY
python3 - "$here/session.har" "$here/foreign.har" <<'PY'
import json, sys
source, target = sys.argv[1], sys.argv[2]
har = json.load(open(source))
log = har["log"]
log["creator"] = {"name": "a proxy", "version": "1"}
log["pages"] = []
for key in ["comment", "_signinsim"]:
    log.pop(key, None)
for entry in log["entries"]:
    for key in ["pageref", "_source", "_app", "_wall_offset_ms"]:
        entry.pop(key, None)
with open(target, "w") as out:
    json.dump(har, out, indent=2)
    out.write("\n")
PY
echo "captures written to $here" >&2
