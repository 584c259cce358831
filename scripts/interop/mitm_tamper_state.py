"""mitmproxy addon (mitmdump -s mitm_tamper_state.py): alters the `state` of the redirect to
the app's callback on its way to the browser, for the `tampered-state` capture of
scripts/captures.

Option: --set tamper_redirect_uri=URI (default com.example.app://auth/callback). In each
response whose Location starts with URI and carries a `state` query parameter, that state is
replaced by another random value of the same length (nothing else in the Location changes).
The flow object is changed in place in the `response` hook, before mitmproxy sends the
response on, so the browser receives the altered Location, and mitmproxy's own HAR export
(hardump, written from the same flow objects when mitmdump exits) records the altered one:
the HAR shows what the app received. The original Location is logged (mitmdump's log), not
written into the capture.
"""
import logging
import secrets
import urllib.parse

from mitmproxy import ctx, http

from interop_common.encoding import b64url

logger = logging.getLogger(__name__)


def load(loader):
    loader.add_option(
        "tamper_redirect_uri", str, "com.example.app://auth/callback",
        "Location prefix whose state parameter is altered.")


def altered(state):
    while True:
        value = b64url(secrets.token_bytes(len(state)))[:len(state)]
        if value != state:
            return value


def response(flow: http.HTTPFlow) -> None:
    location = flow.response.headers.get("Location", "") if flow.response else ""
    if not location.startswith(ctx.options.tamper_redirect_uri):
        return
    base, question, rest = location.partition("?")
    query, hash_mark, fragment = rest.partition("#")
    pairs = query.split("&") if question else []
    # Only the raw `state=...` pair changes: the other parameters keep their exact bytes.
    changed = [f"state={altered(urllib.parse.unquote_plus(pair[6:]))}" if pair.startswith("state=") else pair
               for pair in pairs]
    if changed == pairs:
        return
    new_location = base + question + "&".join(changed) + hash_mark + fragment
    flow.response.headers["Location"] = new_location
    logger.warning("tamper_state: Location %s -> %s", location, new_location)
