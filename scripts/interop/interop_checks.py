"""What the interop scripts share: one ok/FAIL line per check, the closing count, and a
reader of the forms in an HTML page (the issuer's login and consent pages)."""

import base64
import sys
from html.parser import HTMLParser

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


class FormParser(HTMLParser):
    """Collects every <form> with its action, method, inputs and submit buttons."""

    def __init__(self):
        super().__init__()
        self.forms = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "form":
            self.forms.append({"action": attrs.get("action", ""), "method": attrs.get("method", "get"), "fields": {}, "buttons": []})
        elif self.forms and tag == "input" and attrs.get("name"):
            self.forms[-1]["fields"][attrs["name"]] = attrs.get("value", "")
        elif self.forms and tag == "button" and attrs.get("name"):
            self.forms[-1]["buttons"].append((attrs["name"], attrs.get("value", "")))


def b64url(data):
    """Base64url without padding (RFC 7515 §2)."""
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def forms_in(html):
    parser = FormParser()
    parser.feed(html)
    return parser.forms
