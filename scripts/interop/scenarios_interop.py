"""Reads signinsim's scenario reports with Python libraries nobody here wrote.

Usage: scenarios_interop.py PATH-TO-signinsim PATH-TO-scenarios
Prints one line per check and a closing "N passed, N failed" line; exits 1 on any failure.
"""
import glob
import json
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ElementTree

import jsonschema
import yaml
from haralyzer import HarParser
from junitparser import JUnitXml

from interop_checks import check, finish

BINARY, SCENARIOS = sys.argv[1], sys.argv[2]
WORK = tempfile.mkdtemp(prefix="signinsim-scenarios-")


def scenario_files():
    files = []
    for path in glob.glob(os.path.join(SCENARIOS, "**", "*.*"), recursive=True):
        parts = os.path.relpath(path, SCENARIOS).split(os.sep)
        if "flows" in parts or path.endswith(".schema.json"):
            continue
        if path.endswith((".yaml", ".yml", ".json")):
            files.append(path)
    return sorted(files)


# 1. The bundled library runs and writes its reports.
junit_path = os.path.join(WORK, "junit.xml")
report_path = os.path.join(WORK, "report.json")
har_dir = os.path.join(WORK, "har")
process = subprocess.run(
    [BINARY, "run", SCENARIOS, "--junit", junit_path, "--report-json", report_path, "--har-dir", har_dir],
    capture_output=True, text=True, timeout=1800,
)
check("signinsim run scenarios exits 0", process.returncode == 0, process.stdout[-2000:] + process.stderr[-2000:])
files = scenario_files()
report = json.load(open(report_path))
check("the JSON report lists every bundled scenario", len(report["scenarios"]) == len(files),
      f"{len(report['scenarios'])} reported, {len(files)} files")

# 2. JUnit: junitparser and the standard library's XML parser agree with the JSON report.
xml = JUnitXml.fromfile(junit_path)
cases = [case for suite in xml for case in suite]
check("junitparser reads one testcase per scenario", len(cases) == len(files), f"{len(cases)} cases")
check("junitparser sees no failures", all(case.is_passed or case.is_skipped for case in cases),
      [case.name for case in cases if not (case.is_passed or case.is_skipped)][:5])
# A passing case carries what its steps saw: the sign-out check's evidence among them.
ends_nothing = [case for case in cases if case.name.startswith("A logout acknowledged with the state")]
check("junitparser reads a passing case's evidence in system-out",
      len(ends_nothing) == 1 and "not ended at the issuer" in (ends_nothing[0].system_out or ""),
      [case.system_out for case in ends_nothing])
suites = ElementTree.parse(junit_path).getroot()
check("xml.etree: testsuites totals match", suites.tag == "testsuites" and int(suites.get("tests")) == len(files),
      f"{suites.tag} tests={suites.get('tests')}")
suite_files = {suite.get("name") for suite in suites.iter("testsuite")}
check("xml.etree: one testsuite per file", len(suite_files) == len(files), f"{len(suite_files)} suites")

# 3. HAR: haralyzer reads every file; entries have requests, responses and timings.
hars = sorted(glob.glob(os.path.join(har_dir, "*.har")))
check("a HAR per scenario", len(hars) == len(files), f"{len(hars)} HAR files")
entries_total = 0
bad = []
for path in hars:
    with open(path) as handle:
        parser = HarParser(json.load(handle))
    raw = parser.har_data["entries"]
    entries_total += len(raw)
    for entry in raw:
        if not entry["request"]["url"].startswith("http") or "timings" not in entry:
            bad.append(path)
            break
    if parser.har_data.get("creator", {}).get("name") != "signinsim":
        bad.append(path)
    if "alice-password" in open(path).read():
        bad.append(path + " (password not redacted)")
check("haralyzer reads every HAR with well-formed entries", not bad and entries_total > len(hars), bad[:3])
check("HAR timestamps are ISO 8601 with milliseconds",
      all(entry["startedDateTime"].endswith("Z") for path in hars[:5]
          for entry in json.load(open(path))["log"]["entries"]))

# 3b. HAR pages, senders and cookies as haralyzer reads them: one page per top-level step, every
# entry on a page of its file, the log's comment naming the scenario and its SDK profiles, the
# Cookie a browser sent recorded on the request and every cookie value hidden.
page_problems = []
cookie_requests = 0
set_cookies = 0
senders = set()
for path in hars:
    with open(path) as handle:
        document = json.load(handle)
    parser = HarParser(document)
    log = document["log"]
    ids = {page.page_id for page in parser.pages}
    steps = log.get("_signinsim", {}).get("scenario", {})
    if not parser.pages or any(not page.title for page in parser.pages):
        page_problems.append(f"{path}: no pages")
    if not log.get("comment", "").startswith("signinsim run of") or "SDK profile" not in log["comment"]:
        page_problems.append(f"{path}: comment {log.get('comment')!r}")
    if not steps.get("name"):
        page_problems.append(f"{path}: _signinsim names no scenario")
    for page in parser.pages:
        for entry in page.entries:
            senders.add(entry.raw_entry.get("_source"))
    for entry in log["entries"]:
        if entry.get("pageref") not in ids:
            page_problems.append(f"{path}: an entry on no page ({entry.get('pageref')})")
            break
        for header in entry["request"]["headers"]:
            if header["name"].lower() == "cookie":
                cookie_requests += 1
                if "<REDACTED:cookie:" not in header["value"]:
                    page_problems.append(f"{path}: a Cookie value not hidden")
        for header in entry["response"]["headers"]:
            if header["name"].lower() == "set-cookie" and "=" in header["value"].split(";")[0]:
                value = header["value"].split(";")[0].split("=", 1)[1]
                set_cookies += 1
                if value and "<REDACTED:cookie:" not in value:
                    page_problems.append(f"{path}: a Set-Cookie value not hidden")
check("haralyzer: one page per step, every entry on a page, the scenario and profiles named",
      not page_problems, page_problems[:3])
check("requests record the Cookie the browser sent, hidden like the Set-Cookie that set it",
      cookie_requests > 20 and set_cookies > 20 and not page_problems, f"{cookie_requests} Cookie, {set_cookies} Set-Cookie")
check("entries say whether the app or its browser sheet sent them", {"app", "browser"} <= senders, senders)

# 4. jsonschema: every bundled scenario matches scenario.schema.json, broken ones do not.
schema = json.load(open(os.path.join(SCENARIOS, "scenario.schema.json")))
jsonschema.Draft202012Validator.check_schema(schema)
validator = jsonschema.Draft202012Validator(schema)
invalid = []
for path in files:
    with open(path) as handle:
        document = yaml.safe_load(handle)
    errors = list(validator.iter_errors(document))
    if errors:
        invalid.append(f"{path}: {errors[0].message[:120]}")
check("every bundled scenario matches the schema", not invalid, invalid[:3])
broken = [
    {"name": "x", "steps": ["jump"]},
    {"name": "x", "steps": [{"signIn": {"pasword": "x"}}]},
    {"name": "x"},
    {"name": "x", "steps": ["launch"], "extra": 1},
    # Near misses of the closed sets, which the schema takes from the code's declarations.
    {"name": "x", "profile": "naiv", "steps": ["launch"]},
    {"name": "x", "profile": "naive+strict-clok", "steps": ["launch"]},
    {"name": "x", "steps": [{"issuer": {"fault": "rp-made-up-fault"}}]},
    {"name": "x", "steps": [{"signIn": {"error": "not_a_code"}}]},
    {"name": "x", "steps": [{"signIn": {"error": ["sesion_expired", "none"]}}]},
    {"name": "x", "steps": [{"expect": {"app_phase": "sleeping"}}]},
    {"name": "x", "steps": [{"expect": {"error": "sesion_expired"}}]},
]
refused = [doc for doc in broken if list(validator.iter_errors(doc))]
check("the schema refuses broken scenarios and near misses of known names", len(refused) == len(broken),
      [doc for doc in broken if doc not in refused])
# What the loader substitutes, the schema accepts: ${VAR} for numbers, booleans and names.
substituted = [
    {"name": "x", "profile": "${PROFILE}", "steps": [
        "launch", {"advance": "${WAIT}"}, {"issuer": {"fault": "http-delay", "delay_ms": "${PAUSE_MS}"}},
        {"network": {"offline": "${OFFLINE:-false}"}}, {"expect": {"app_phase": "${PHASE}"}}]},
    {"name": "x", "profile": "naive + strict-clock", "steps": [
        {"getAccessToken": {"error": "none session_expired"}}, {"expect": {"error": None}}]},
]
check("the schema accepts ${VAR} wherever the loader substitutes a value",
      all(not list(validator.iter_errors(doc)) for doc in substituted),
      [next(validator.iter_errors(doc)).message[:160] for doc in substituted if list(validator.iter_errors(doc))])
# Flow files for runFlow: a list of steps, or description, env and steps.
flow_files = sorted(path for path in glob.glob(os.path.join(SCENARIOS, "**", "flows", "*.yaml"), recursive=True))
flow_invalid = []
for path in flow_files:
    with open(path) as handle:
        errors = list(validator.iter_errors(yaml.safe_load(handle)))
    if errors:
        flow_invalid.append(f"{path}: {errors[0].message[:120]}")
check(f"every bundled flow ({len(flow_files)}) matches the schema", flow_files and not flow_invalid, flow_invalid[:3])
# check-jsonschema (PyPI), as an editor or a CI job would run it, over every bundled file.
checker = os.path.join(os.path.dirname(sys.executable), "check-jsonschema")
process = subprocess.run(
    [checker, "--schemafile", os.path.join(SCENARIOS, "scenario.schema.json")] + files + flow_files,
    capture_output=True, text=True, timeout=600)
check(f"check-jsonschema validates the {len(files)} scenarios and {len(flow_files)} flows",
      process.returncode == 0, process.stdout[-1500:] + process.stderr[-1500:])
printed = subprocess.run([BINARY, "schema"], capture_output=True, text=True, timeout=60).stdout
check("signinsim schema prints the checked-in schema", json.loads(printed) == schema)

# 5. import-har of the HARs the run wrote: every derived scenario matches the schema too.
derived_invalid = []
for path in hars[::10]:
    process = subprocess.run([BINARY, "import-har", path], capture_output=True, text=True, timeout=300)
    if process.returncode != 0:
        derived_invalid.append(f"{path}: import-har exited {process.returncode}: {process.stderr[-300:]}")
        continue
    errors = list(validator.iter_errors(yaml.safe_load(process.stdout)))
    if errors:
        derived_invalid.append(f"{path}: {errors[0].message[:160]}")
check(f"the scenarios import-har derives from {len(hars[::10])} of the HARs match the schema and pass",
      not derived_invalid, derived_invalid[:3])

# 6. The audit's reports: its JSON against docs/audit.schema.json (check-jsonschema), its HAR
# read by haralyzer, with exactly the requests the JSON counts and each finding's evidence among
# them.
audit_json = os.path.join(WORK, "audit.json")
audit_har = os.path.join(WORK, "audit.har")
process = subprocess.run([BINARY, "audit", "--format", "json", "--har", audit_har], capture_output=True,
                         text=True, timeout=300)
check("signinsim audit of the embedded issuer exits 0", process.returncode == 0, process.stderr[-1500:])
with open(audit_json, "w") as output:
    output.write(process.stdout)
process = subprocess.run(
    [checker, "--schemafile", os.path.join(os.path.dirname(SCENARIOS), "docs", "audit.schema.json"), audit_json],
    capture_output=True, text=True, timeout=120)
check("check-jsonschema validates the audit's JSON against docs/audit.schema.json", process.returncode == 0,
      process.stdout[-1500:] + process.stderr[-1500:])
try:
    audit = json.load(open(audit_json))
    audit_entries = HarParser.from_file(audit_har).har_data["entries"]
    cited = sorted({number for finding in audit["checks"] for number in finding["evidence"]})
    check("haralyzer reads the audit's HAR: one entry per request counted, every cited exchange in it",
          len(audit_entries) == audit["requests"] and cited and cited[-1] <= len(audit_entries),
          f"{len(audit_entries)} entries, {audit['requests']} requests, last cited {cited[-1:]}")
except (ValueError, KeyError, OSError) as error:
    check("haralyzer reads the audit's HAR", False, str(error))

finish()
