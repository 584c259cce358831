#!/usr/bin/env python3
"""Compares a `signinsim audit --format json` scorecard with a provider's expectation file.

    audit_expectations.py SCORECARD.json EXPECTED.json [--exit-status N] [--max-requests N]

EXPECTED.json maps every check id to the status hand-checked for that provider
({"discovery.issuer-match": "pass", ...}); scripts/interop/providers/audit-expected holds one per
provider, and docs/interop.md ("Audits of real providers") says why each non-pass status is the
provider's own behaviour. Prints one line per mismatch (id, expected, got, the audit's summary),
a check missing from either side, a scorecard that stopped early, an exit status that disagrees
with the totals, or too many requests; exits 1 on any, 0 otherwise. Standard library only.
"""
import argparse
import json
import sys

STATUSES = {"pass", "warn", "fail", "skip"}


def compare(card, expected, exit_status=None, max_requests=None):
    problems = []
    bad = {key: value for key, value in expected.items() if value not in STATUSES}
    for key, value in sorted(bad.items()):
        problems.append(f"{key}: the expectation file says {value!r}, not one of pass, warn, fail, skip")
    got = {check["id"]: check for check in card.get("checks", [])}
    for key in expected:
        if key not in got:
            problems.append(f"{key}: expected {expected[key]}, got nothing (no such check in the scorecard)")
    for key, check in got.items():
        if key not in expected:
            problems.append(f"{key}: expected nothing (not in the expectation file), got {check['status']}: "
                            f"{check.get('summary', '')}")
        elif key not in bad and check["status"] != expected[key]:
            problems.append(f"{key}: expected {expected[key]}, got {check['status']}: {check.get('summary', '')}")
    if card.get("stopped_early"):
        problems.append(f"the audit stopped early: {card['stopped_early']}")
    totals = {status: sum(1 for check in got.values() if check["status"] == status) for status in STATUSES}
    if card.get("totals") and any(card["totals"].get(status) != totals[status] for status in STATUSES):
        problems.append(f"totals {card['totals']} disagree with the checks {totals}")
    if exit_status is not None and exit_status != (1 if totals["fail"] else 0):
        problems.append(f"exit status {exit_status} with {totals['fail']} failed checks")
    requests = card.get("requests")
    if max_requests is not None and not (isinstance(requests, int) and requests < max_requests):
        problems.append(f"requests: {requests}, expected below {max_requests}")
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scorecard")
    parser.add_argument("expected")
    parser.add_argument("--exit-status", type=int)
    parser.add_argument("--max-requests", type=int)
    args = parser.parse_args()
    with open(args.expected) as file:
        expected = json.load(file)
    try:
        with open(args.scorecard) as file:
            card = json.load(file)
    except (OSError, ValueError) as error:
        print(f"no scorecard: {error}")
        return 1
    problems = compare(card, expected, args.exit_status, args.max_requests)
    for line in problems:
        print(line)
    totals = card.get("totals", {})
    print(f"{card.get('requests')} requests, {card.get('milliseconds')} ms; "
          + ", ".join(f"{totals.get(status, 0)} {status}" for status in ("pass", "warn", "fail", "skip")))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
