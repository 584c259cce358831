#!/usr/bin/env bash
# Scenario reports read by software nobody here wrote: the bundled scenarios run with
# --junit, --har-dir and --report-json; junitparser and xml.etree read the JUnit file,
# haralyzer every HAR, jsonschema and check-jsonschema check every bundled scenario and flow
# against scenarios/scenario.schema.json (and refuse broken ones).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
python="$("$root/scripts/python-env" 'junitparser>=3.1' 'haralyzer>=2.4' 'jsonschema>=4.20' 'check-jsonschema>=0.28' 'pyyaml>=6')"
binary="$(cd "$root" && swift build --show-bin-path)/signinsim"
[ -x "$binary" ] || (cd "$root" && swift build --product signinsim >/dev/null)
# scenarios/javascript-pages runs sheets in WebKit.
[ -x "${binary}-webkit" ] || (cd "$root" && swift build --product signinsim-webkit >/dev/null)
exec "$python" "$root/scripts/interop/scenarios_interop.py" "$binary" "$root/scenarios"
