"""What the interop scripts share: one ok/FAIL line per check, the closing count, and the forms
of an HTML page (the issuer's login and consent pages) as the issuer and mitm checks read them."""

import sys

from interop_common.forms import Page

results = []


def check(name, condition, detail=""):
    """Records a check and prints `ok   name` or `FAIL name: detail`; returns whether it held."""
    results.append(bool(condition))
    print(("ok   " if condition else "FAIL ") + name + ("" if condition else f": {detail}"), flush=True)
    return bool(condition)


def finish():
    """Prints `N passed, M failed` (the line scripts/test adds up) and exits 1 on a failure."""
    passed = sum(results)
    print(f"{passed} passed, {len(results) - passed} failed")
    sys.exit(0 if passed == len(results) else 1)


def forms_in(html):
    """Every <form> of the page: its action ("" when absent), its method, `fields` (every named
    <input> of any type by name, so a named submit input such as DOT's "allow" is among them)
    and `buttons` (every named <button> as (name, value))."""
    return [{"action": form["action"] or "", "method": form["method"],
             "fields": {c["name"]: c["value"] for c in form["controls"] if c["tag"] == "input" and c["name"]},
             "buttons": [(c["name"], c["value"]) for c in form["controls"] if c["tag"] == "button" and c["name"]]}
            for form in Page(html).forms]
