#!/usr/bin/env bash
# The whole bundled library in the webkit engine (WebKitGTK, in signinsim-webkit), two jobs, every
# picture kept: every scenario must pass unchanged, the HTML report must stay under 10 MB, and
# haralyzer (a HAR reader nobody here wrote) must find in the HARs the sheets' requests marked
# `_engine: webkit`, with the Cookie WebKit sent and the bodies it posted.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
python="$("$root/scripts/python-env" 'haralyzer>=2.4')"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# shellcheck source=sign_in_checks.bash
source "$root/scripts/interop/sign_in_checks.bash"
ensure_binaries
status=0
started=$(date +%s)
timeout 900 "$binary" run "$root/scenarios" --browser webkit --jobs 2 --screenshots all \
    --report-json "$work/run.json" --html "$work/run.html" --har-dir "$work/har" >"$work/out" 2>&1 || status=$?
echo "the library in webkit took $(($(date +%s) - started)) s" >&2
exec "$python" - "$status" "$work" "$root/scenarios" <<'PY'
import glob, json, os, pathlib, sys
from haralyzer import HarParser

status, work, library = int(sys.argv[1]), sys.argv[2], sys.argv[3]
passed = failed = 0

def check(name, ok, detail=""):
    global passed, failed
    if ok:
        print(f"ok   {name}")
        passed += 1
    else:
        print(f"FAIL {name}: {detail}")
        failed += 1

files = [f for f in pathlib.Path(library).rglob("*.yaml") if "flows" not in f.parts]
report = json.load(open(os.path.join(work, "run.json")))
results = report["scenarios"]
bad = [f"{r['file']}: {r['status']}: {(r.get('failure') or {}).get('message', '')[:200]}" for r in results
       if r["status"] != "passed"]
check(f"every bundled scenario passes with --browser webkit ({len(results)} run)",
      status == 0 and not bad and len(results) == len(files),
      f"exit {status}, {len(results)} of {len(files)} run; " + " | ".join(bad[:5]) + open(os.path.join(work, "out")).read()[-800:])
size = os.path.getsize(os.path.join(work, "run.html"))
check(f"the HTML report with every picture is under 10 MB ({size / 1e6:.2f} MB)", size < 10_000_000, str(size))
pictures = sum(len(step.get("sheet", [])) and sum(1 for page in step["sheet"] if "screenshot" in page)
               for r in results for step in r.get("steps", []))
check(f"the JSON report carries the sheets' pictures ({pictures})", pictures > 100, str(pictures))

mismatched, cookies, bodies = [], 0, 0
for path in glob.glob(os.path.join(work, "har", "*.har")):
    har = HarParser.from_file(path)
    # A scenario that pins its engine keeps it (scenarios/javascript-pages pins lite once).
    scenario = json.load(open(path))["log"].get("_signinsim", {}).get("scenario", {})
    wanted = {scenario.get("browser", "webkit")} | {app.get("browser", scenario.get("browser", "webkit"))
                                                    for app in scenario.get("apps", [])}
    for page in har.pages:
        for entry in page.entries:
            raw = entry.raw_entry
            if raw.get("_source") != "browser":
                continue
            if raw.get("_engine") not in wanted:
                mismatched.append(f"{os.path.basename(path)}: {raw.get('_engine')}")
            if any(h["name"].lower() == "cookie" for h in raw["request"]["headers"]):
                cookies += 1
            if raw["request"]["method"] == "POST" and (raw["request"].get("postData") or {}).get("text"):
                bodies += 1
check("haralyzer reads every sheet request as _engine webkit (lite where a scenario pins it)", not mismatched,
      ", ".join(mismatched[:5]))
check(f"the sheets' requests carry the Cookie WebKit sent ({cookies}) and their POST bodies ({bodies})",
      cookies > 50 and bodies > 50, f"{cookies} cookies, {bodies} bodies")
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
PY
