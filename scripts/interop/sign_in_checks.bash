# shellcheck shell=bash
# The checks web-flow.sh and glewlwyd.sh make with the signinsim binary, one "ok   NAME" or
# "FAIL NAME" line each; source after setting:
#   binary   the signinsim executable
#   python   a python with nothing beyond the standard library needed
#   work     a scratch folder
#   root     the repository
# and read `passed` and `failed` at the end.
passed=0
failed=0

# check NAME EXPECTED-EXIT PYTHON-ASSERTION -- signinsim arguments…
# The assertion is a Python expression over `out` (parsed JSON or None) and `err` (stderr).
check() {
    local name="$1" expected="$2" assertion="$3"
    shift 4
    local status=0
    timeout 180 "$binary" "$@" >"$work/out" 2>"$work/err" || status=$?
    if [ "$status" = "$expected" ] && "$python" - "$work/out" "$work/err" "$assertion" <<'PY'
import json, sys
text = open(sys.argv[1]).read()
err = open(sys.argv[2]).read()
out = json.loads(text) if text.strip() else None
sys.exit(0 if eval(sys.argv[3]) else 1)
PY
    then
        echo "ok   $name"
        passed=$((passed + 1))
    else
        echo "FAIL $name (exit $status, expected $expected)"
        sed 's/^/     /' "$work/out" "$work/err" | head -12
        failed=$((failed + 1))
    fi
}

# smoke NAME -e SETTINGS…: the bundled smoke scenarios, one job at a time (the Django test
# projects' SQLite databases answer 500 to concurrent writes); every one must pass. When one does
# not, the requests of its HAR are printed too: what the run saw before it stopped.
smoke() {
    local name="$1" status=0
    shift
    rm -rf "$work/smoke-har"
    timeout 300 "$binary" run "$root/scenarios/smoke" --jobs 1 --report-json "$work/smoke.json" \
        --har-dir "$work/smoke-har" "$@" >"$work/out" 2>"$work/err" || status=$?
    if [ "$status" = 0 ] && "$python" - "$work/smoke.json" "$root/scenarios/smoke" <<'PY'
import json, pathlib, sys
report = json.load(open(sys.argv[1]))
results = report["scenarios"]
files = sorted(pathlib.Path(sys.argv[2]).glob("*.yaml"))
sys.exit(0 if len(results) == len(files) and all(r["status"] == "passed" for r in results) else 1)
PY
    then
        echo "ok   $name"
        passed=$((passed + 1))
    else
        echo "FAIL $name (exit $status)"
        sed 's/^/     /' "$work/out" "$work/err" | head -20
        "$python" - "$work/smoke.json" "$work/smoke-har" <<'PY' || true
import json, pathlib, sys
try:
    results = json.load(open(sys.argv[1]))["scenarios"]
except (OSError, ValueError, KeyError):
    results = []
unfinished = {pathlib.Path(r.get("file", "")).stem for r in results if r.get("status") != "passed"}
for har in sorted(pathlib.Path(sys.argv[2]).glob("*.har")):
    if not any(har.stem.endswith(stem) for stem in unfinished):
        continue
    entries = json.load(open(har))["log"]["entries"]
    print(f"     {har.name}: the last of {len(entries)} requests")
    for entry in entries[-15:]:
        request, response = entry["request"], entry["response"]
        sender = entry.get("_sender", "")
        print(f"       {entry['startedDateTime']} {sender} {request['method']} {request['url'][:110]}"
              f" -> {response['status']} in {entry['time']:.0f} ms")
PY
        failed=$((failed + 1))
    fi
}

# audit NAME EXPECTED-FILE -- signinsim audit arguments…: one `signinsim audit --format json`
# run, compared check by check with EXPECTED-FILE (scripts/interop/audit_expectations.py: every
# check's status as hand-checked, the exit status that goes with it, fewer than 300 requests, or
# AUDIT_MAX_REQUESTS).
# Counts as one check; prints the audit's requests and milliseconds either way, and each
# mismatch (id, expected, got, the audit's summary) when it fails. With AUDIT_SCORECARDS set to a
# folder, each scorecard is also copied there (named as its expectation file).
audit() {
    local name="$1" expected="$2" status=0
    shift 3
    rm -f "$work/audit.json" "$work/audit.out"
    timeout 300 "$binary" audit --format json "$@" >"$work/audit.json" 2>"$work/err" || status=$?
    [ -z "${AUDIT_SCORECARDS:-}" ] || cp "$work/audit.json" "$AUDIT_SCORECARDS/$(basename "$expected")" || true
    if [ "$status" -le 1 ] && "$python" "$root/scripts/interop/audit_expectations.py" "$work/audit.json" \
        "$expected" --exit-status "$status" --max-requests "${AUDIT_MAX_REQUESTS:-300}" >"$work/audit.out"; then
        echo "ok   $name ($(tail -n 1 "$work/audit.out"))"
        passed=$((passed + 1))
    else
        echo "FAIL $name (exit $status)"
        sed 's/^/     /' "$work/audit.out" "$work/err" 2>/dev/null | head -60
        failed=$((failed + 1))
    fi
}

# ensure_binaries: builds signinsim and its WebKit helper when either is missing.
ensure_binaries() {
    local bin
    bin="$(cd "$root" && swift build --show-bin-path)"
    binary="$bin/signinsim"
    [ -x "$binary" ] || (cd "$root" && swift build --product signinsim >/dev/null)
    [ -x "$bin/signinsim-webkit" ] || (cd "$root" && swift build --product signinsim-webkit >/dev/null)
}
