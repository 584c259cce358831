"""The capture corpus's harness, run by scripts/captures: for one provider already serving on
loopback, each story is played by native_client.py through its own mitmdump (one HAR per
story), the HAR is checked and copied into the corpus, and the story's facts are kept for the
manifest.

Usage:
  captures.py run --provider NAME --package PKG --version VERSION --issuer URL
                  --mitmdump PATH --work DIR --out DIR [--django-version V]
                  [--server-log FILE] [--story NAME]...

The HARs and facts are made in WORK; once every story has been played, the good captures are
copied to OUT/NAME/STORY.har and their entries merged into OUT/manifest.json (the entries of
captures not made this time are kept), one line printed per file written. Exits 1 when a
story could not be captured or its HAR does not hold the story's key requests.
"""
import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
CLIENT = os.path.join(HERE, "native_client.py")
TAMPER = os.path.join(HERE, "mitm_tamper_state.py")
REDIRECT_URI = "com.example.app://auth/callback"
STORIES = [
    "sign-in-two-refreshes", "refresh-race", "stale-refresh-token", "wrong-password",
    "tampered-state", "error-callback", "sign-out", "replaced-state", "stale-refresh-copy",
]
# What each provider does, as configured by its project in providers/ (read from the packages'
# source and seen in the captures); the manifest repeats it, with the endpoint paths taken from
# the captured discovery documents.
PROVIDER_FACTS = {
    "django-oauth-toolkit": {
        "project": "scripts/interop/providers/django_oidc.py (as the interop checks use it)",
        "discovery_path": "/o/.well-known/openid-configuration",
        "login_form": "Django's LoginView at /accounts/login/ (the project's template): inputs username, "
                      "password, hidden next and csrfmiddlewaretoken; an unnamed submit button 'Sign in'. "
                      "A wrong password: 200, the form again with \"Your username and password didn't match.\"",
        "consent_form": "form #authorizationForm posted to the authorize URL: hidden redirect_uri, scope, nonce, "
                        "client_id, state, response_type, code_challenge, code_challenge_method, csrfmiddlewaretoken; "
                        "approve = <input type=submit name=allow value=Authorize>, deny = the unnamed "
                        "<input type=submit value=Cancel> (no allow field: error=access_denied). Shown on every "
                        "sign-in (REQUEST_APPROVAL_PROMPT force, skip_authorization off).",
        "refresh_tokens": "issued on every code exchange (offline_access is only a scope name here)",
        "rotates_refresh_tokens": True,
        "rotated_token_presented_again": "400 invalid_grant; nothing else revoked (REFRESH_TOKEN_REUSE_PROTECTION is "
                                         "off in django_oidc.py, DOT's default; grace period 0): the newer refresh "
                                         "token keeps working",
        "end_session_endpoint": "/o/logout/ (OIDC_RP_INITIATED_LOGOUT_ENABLED): a confirmation form (ALWAYS_PROMPT "
                                "on) with allow=Logout / an unnamed Cancel; on Logout the user's tokens are "
                                "revoked (OIDC_RP_INITIATED_LOGOUT_DELETE_TOKENS), the session ends and it "
                                "redirects to the post_logout_redirect_uri with the state",
        "revocation": "/o/revoke_token/ (RFC 7009) exists but discovery does not name it",
        "authorization_response_iss": "iss on the success callback (COMPLIANT_BCP_RFC9700_AUTHZ_RESPONSE_ISS), "
                                      "not on the access_denied one",
    },
    "django-oidc-provider": {
        "project": "scripts/interop/providers/django_oidc_provider.py",
        "discovery_path": "/openid/.well-known/openid-configuration",
        "login_form": "Django's LoginView at /accounts/login/ (the same template as the DOT project): inputs "
                      "username, password, hidden next and csrfmiddlewaretoken; an unnamed submit button "
                      "'Sign in'. A wrong password: 200, the form again with \"Your username and password didn't match.\"",
        "consent_form": "oidc_provider/authorize.html posted to /openid/authorize: hidden client_id, redirect_uri, "
                        "response_type, scope, state, nonce, code_challenge, code_challenge_method, "
                        "csrfmiddlewaretoken; approve = <input type=submit name=allow value=Authorize>, deny = "
                        "the unnamed <input type=submit value=Decline>. Shown on every sign-in: a public client "
                        "with the code flow can never skip consent (AuthorizeEndpoint.is_client_allowed_to_skip_consent).",
        "refresh_tokens": "issued on every code exchange, whatever the scope (no offline_access handling)",
        "rotates_refresh_tokens": True,
        "rotated_token_presented_again": "400 invalid_grant (the old Token row is deleted on refresh, "
                                         "lib/endpoints/token.py); no reuse detection: the newer token keeps working",
        "end_session_endpoint": "/openid/end-session: with an id_token_hint and a registered post_logout_redirect_uri "
                                "it ends the session at once (no confirmation) and redirects there with the state; "
                                "it does not revoke tokens (the refresh token still works after sign-out)",
        "revocation": "none (no RFC 7009 endpoint; /openid/introspect only)",
        "authorization_response_iss": "no",
        "discovery_notes": "token_endpoint_auth_methods_supported omits none, yet the public client (no secret) is "
                           "accepted; no code_challenge_methods_supported although PKCE S256 works",
    },
    "django-allauth": {
        "project": "scripts/interop/providers/django_allauth_idp.py",
        "discovery_path": "/.well-known/openid-configuration",
        "login_form": "allauth's account login form at /accounts/login/: inputs login, password, checkbox remember, "
                      "hidden next and csrfmiddlewaretoken; an unnamed submit button 'Sign In'. A wrong password: "
                      "200, the form again with \"The username and/or password you specified are not correct.\"",
        "consent_form": "idp/oidc/authorization_form.html posted to /identity/o/authorize: hidden request (the "
                        "signed authorization request), one ticked checkbox scopes per requested scope, "
                        "csrfmiddlewaretoken; approve = <button name=action value=grant>Authorize, deny = "
                        "<button name=action value=cancel>Cancel. Shown on every sign-in (client skip_consent off).",
        "refresh_tokens": "issued on every code exchange (oauthlib), offline_access or not; the client must list "
                          "every scope it requests, so offline_access is registered on it; the refresh grant needs "
                          "refresh_token among the client's grant types",
        "rotates_refresh_tokens": True,
        "rotated_token_presented_again": "400 invalid_grant (IDP_OIDC_ROTATE_REFRESH_TOKEN: the presented token is "
                                         "deleted on refresh); no reuse detection: the newer token keeps working",
        "end_session_endpoint": "/identity/o/logout: a confirmation form (IDP_OIDC_RP_INITIATED_LOGOUT_ASKS_FOR_OP_LOGOUT) "
                                "with action=logout 'Sign Out' / action=stay 'Stay Signed In'; on Sign Out it deletes "
                                "the user's access and refresh tokens for the client, ends the session and redirects "
                                "to the post_logout_redirect_uri with the state",
        "revocation": "/identity/o/api/revoke (RFC 7009), named in discovery",
        "authorization_response_iss": "no",
    },
}
STORY_TIMEOUT = 90  # seconds for the client's whole story
RACE_ATTEMPTS = 3  # captures of refresh-race until the two refreshes overlap on the wire


# --- mitmdump -----------------------------------------------------------------------------

def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def listening(port):
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        return True
    except OSError:
        return False


class Mitmdump:
    """One mitmdump on 127.0.0.1 writing one HAR when it is stopped (SIGINT)."""

    def __init__(self, mitmdump, har, log, confdir, addon=None):
        self.process = None
        for _ in range(3):  # the free port can be taken before mitmdump binds it: retry
            self.port = free_port()
            arguments = [mitmdump, "--listen-host", "127.0.0.1", "--listen-port", str(self.port),
                         "--set", f"hardump={har}", "--set", f"confdir={confdir}",
                         "--set", "termlog_verbosity=warn", "--set", "flow_detail=0"]
            if addon:
                arguments += ["-s", addon]
            self.process = subprocess.Popen(arguments, stdin=subprocess.DEVNULL, stdout=open(log, "a"),
                                            stderr=subprocess.STDOUT)
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline and self.process.poll() is None:
                if listening(self.port):
                    return
                time.sleep(0.1)
            self.stop()
        raise RuntimeError(f"mitmdump did not listen within 30 s (log: {log})")

    @property
    def proxy(self):
        return f"http://127.0.0.1:{self.port}"

    def stop(self):
        """SIGINT lets mitmdump write its HAR; KILL after 30 s."""
        if self.process is None or self.process.poll() is not None:
            return
        self.process.send_signal(signal.SIGINT)
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)


# --- reading a HAR --------------------------------------------------------------------------

def form_of(entry):
    post = entry["request"].get("postData") or {}
    text = post.get("text") or ""
    if text:
        return dict(urllib.parse.parse_qsl(text, keep_blank_values=True))
    return {item["name"]: item.get("value", "") for item in post.get("params") or []}


def path_of(url):
    return urllib.parse.urlsplit(url).path


def header(entry, part, name):
    for item in entry[part].get("headers", []):
        if item["name"].lower() == name.lower():
            return item["value"]
    return None


def started(entry):
    from datetime import datetime
    return datetime.fromisoformat(entry["startedDateTime"].replace("Z", "+00:00")).timestamp()


def ended(entry):
    """When the answer had been received: the start plus the send, wait and receive timings.
    Not the start plus `time`: mitmproxy's `wait` runs from the request's end to the answer's
    start, which already holds the upstream connect (and TLS) it also reports as `connect` and
    `ssl`, so `time`, their sum, counts a new connection twice (mitmproxy/addons/savehar.py).
    On a capture's first request to a server that made a sequential retry look 1 ms early."""
    timings = entry.get("timings") or {}
    parts = [timings.get(name) for name in ("send", "wait", "receive")]
    if all(isinstance(part, (int, float)) for part in parts):
        return started(entry) + sum(max(part, 0) for part in parts) / 1000.0
    return started(entry) + max(entry.get("time", 0), 0) / 1000.0


class Har:
    def __init__(self, path):
        with open(path) as source:
            self.document = json.load(source)
        self.entries = self.document["log"]["entries"]
        self.discovery = {}
        for entry in self.entries:
            if entry["request"]["url"].endswith("/.well-known/openid-configuration") and entry["response"]["status"] == 200:
                try:
                    self.discovery = json.loads(entry["response"]["content"].get("text") or "{}")
                except ValueError:
                    pass
                break

    def requests_to(self, endpoint, method=None):
        url = self.discovery.get(endpoint)
        if not url:
            return []
        return [entry for entry in self.entries
                if path_of(entry["request"]["url"]) == path_of(url)
                and (method is None or entry["request"]["method"] == method)]

    def token_requests(self, grant_type):
        return [entry for entry in self.requests_to("token_endpoint", "POST")
                if form_of(entry).get("grant_type") == grant_type]

    def callbacks(self):
        """(entry, Location) of each redirect into the app's callback."""
        found = []
        for entry in self.entries:
            location = header(entry, "response", "Location") or ""
            if location.startswith(REDIRECT_URI):
                found.append((entry, location))
        return found


def validate(story, har):
    """The story's key requests in the HAR: a list of problems (empty when it holds them)."""
    problems = []
    if not har.entries:
        return ["the HAR has no entries"]
    if not har.discovery:
        return ["no discovery request answered 200"]
    if not har.requests_to("jwks_uri", "GET"):
        problems.append("no JWKS request")
    authorizes = har.requests_to("authorization_endpoint", "GET")
    codes = har.token_requests("authorization_code")
    refreshes = har.token_requests("refresh_token")
    if not authorizes:
        problems.append("no authorize request")

    def need(condition, text):
        if not condition:
            problems.append(text)

    if story == "sign-in-two-refreshes":
        need(len(codes) == 1, f"{len(codes)} code exchanges, not 1")
        need(len(refreshes) == 2, f"{len(refreshes)} refreshes, not 2")
        need(har.requests_to("userinfo_endpoint", "GET"), "no userinfo request")
    elif story == "refresh-race":
        need(len(codes) == 1, f"{len(codes)} code exchanges, not 1")
        need(len(refreshes) == 2, f"{len(refreshes)} refreshes, not 2")
        if len(refreshes) == 2:
            need(len({form_of(entry).get("refresh_token") for entry in refreshes}) == 1,
                 "the two refreshes do not carry the same refresh token")
            need(overlap(refreshes), "the two refreshes did not overlap in time")
    elif story == "stale-refresh-token":
        need(len(codes) == 1, f"{len(codes)} code exchanges, not 1")
        need(len(refreshes) == 2, f"{len(refreshes)} refreshes, not 2")
        if len(refreshes) == 2:
            need(form_of(refreshes[0]).get("refresh_token") == form_of(refreshes[1]).get("refresh_token"),
                 "the second refresh does not carry the first refresh token again")
            need(refreshes[0]["response"]["status"] == 200, "the first refresh was not answered 200")
            need(started(refreshes[1]) >= ended(refreshes[0]), "the two refreshes overlap")
    elif story == "wrong-password":
        logins = [entry for entry in har.entries if entry["request"]["method"] == "POST"
                  and "password" in form_of(entry) and form_of(entry)["password"] != "alice-password"]
        need(logins, "no login form post with the wrong password")
        need(logins and logins[-1]["response"]["status"] == 200, "the wrong password was not answered with a page")
        need(not codes and not refreshes, "a token request after the refused login")
        need(not har.callbacks(), "a redirect to the app's callback")
    elif story == "tampered-state":
        sent = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(authorizes[0]["request"]["url"]).query)) if authorizes else {}
        received = [dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(location).query)) for _, location in har.callbacks()]
        need(received, "no redirect to the app's callback")
        need(received and received[-1].get("state") and received[-1].get("state") != sent.get("state"),
             "the callback in the HAR carries the state the app sent (not the altered one)")
        need(received and received[-1].get("code"), "the callback carries no code")
        need(not codes and not refreshes, "a token request after the state mismatch")
    elif story == "error-callback":
        received = [dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(location).query)) for _, location in har.callbacks()]
        need(received and received[-1].get("error") == "access_denied", "no callback with error=access_denied")
        need(not codes and not refreshes, "a token request after the error callback")
    elif story == "replaced-state":
        sent = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(authorizes[0]["request"]["url"]).query)) if authorizes else {}
        received = [dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(location).query)) for _, location in har.callbacks()]
        states = {dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(entry["request"]["url"]).query)).get("state")
                  for entry in authorizes}
        need(len(states) == 1, f"{len(states)} sheets (distinct authorize states), not 1")
        need(received, "no redirect to the app's callback")
        need(received and received[-1].get("state") == sent.get("state"),
             "the callback does not carry the state its sheet sent")
        need(received and received[-1].get("code"), "the callback carries no code")
        need(not codes and not refreshes, "a token request after the refused callback")
    elif story == "stale-refresh-copy":
        need(len(codes) == 1, f"{len(codes)} code exchanges, not 1")
        need(len(refreshes) == 3, f"{len(refreshes)} refreshes, not 3")
        if len(refreshes) == 3:
            first, stale, retry = refreshes
            need(first["response"]["status"] == 200, "the first refresh was not answered 200")
            need(form_of(stale).get("refresh_token") == form_of(first).get("refresh_token"),
                 "the second refresh does not carry the first one's refresh token again")
            need(stale["response"]["status"] == 400 and token_answer(stale).get("error") == "invalid_grant",
                 "the stale refresh token was not answered 400 invalid_grant")
            need(form_of(retry).get("refresh_token") == token_answer(first).get("refresh_token")
                 and form_of(retry).get("refresh_token") != form_of(first).get("refresh_token"),
                 "the retry does not carry the refresh token the first refresh issued")
            need(retry["response"]["status"] == 200, "the retry with the newer refresh token was not answered 200")
            need(started(stale) >= ended(first) and started(retry) >= ended(stale), "the refreshes overlap")
        need(har.requests_to("userinfo_endpoint", "GET"), "no userinfo request")
    elif story == "sign-out":
        need(har.requests_to("end_session_endpoint") or har.requests_to("revocation_endpoint", "POST"),
             "no end-session (or revocation) request")
        # Each sign-in opens the authorize endpoint with its own state (the login redirects
        # back to it with the same query).
        states = {dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(entry["request"]["url"]).query)).get("state")
                  for entry in authorizes}
        need(len(states) == 2, f"{len(states)} sign-ins (distinct authorize states), not 2")
        need(len(codes) == 2, f"{len(codes)} code exchanges, not 2")
        need(len(refreshes) == 1, f"{len(refreshes)} refreshes, not 1")
    return problems


def overlap(entries):
    """Whether every one of `entries` was sent before any of them was answered."""
    return max(started(entry) for entry in entries) < min(ended(entry) for entry in entries)


# --- the facts of one capture -----------------------------------------------------------------

def short(url):
    """A URL as the description shows it: the path; app-scheme URLs with their parameter
    names (values only for error, error_description and iss)."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https"):
        params = urllib.parse.parse_qsl(parts.query, keep_blank_values=True)
        shown = [f"{name}={value}" if name in ("error", "error_description", "iss") else f"{name}=…"
                 for name, value in params]
        return f"{parts.scheme}://{parts.netloc}{parts.path}" + ("?" + "&".join(shown) if shown else "")
    return parts.path or "/"


def describe_exchange(exchange):
    text = f"{exchange['method']} {short(exchange['url'])} → "
    if "status" not in exchange:
        return text + f"no answer ({exchange.get('error', '?')})"
    text += str(exchange["status"])
    if exchange.get("location"):
        text += f" to {short(urllib.parse.urljoin(exchange['url'], exchange['location']))}"
    if exchange.get("note"):
        text += f" ({exchange['note']})"
    if exchange.get("meanwhile"):
        text += f" (meanwhile {exchange['meanwhile']})"
    return text


def description(facts, race_order=None):
    sentences = []
    for step in facts["steps"]:
        exchanges = [describe_exchange(exchange) for exchange in step["exchanges"]]
        if not exchanges:
            continue
        sentences.append(f"{step['step'][0].upper() + step['step'][1:]}: " + "; ".join(exchanges) + ".")
    outcomes = []
    for call in facts["calls"]:
        if call["call"] in ("sign-in", "sign-out") or call["outcome"] != "ok" or call.get("client"):
            text = f"{call['call']}: {call['outcome']}"
            if call.get("client"):
                text += f" ({call['client']})"
            outcomes.append(text)
    if race_order:
        sentences.append("The two racing refreshes were in flight together; answered first: "
                         + ", then ".join(race_order) + ".")
    if outcomes:
        sentences.append("Client: " + "; ".join(outcomes) + ".")
    sentences.append("Signed in at the end: " + ("yes." if facts["signed_in_at_end"] else "no."))
    if facts.get("client_failure"):
        sentences.append(f"The client could not finish the story: {facts['client_failure']}.")
    return " ".join(sentences)


def token_answer(entry):
    try:
        return json.loads(entry["response"]["content"].get("text") or "{}")
    except ValueError:
        return {}


def manifest_entry(args, story, facts, har, har_name, log_lines=None):
    calls = []
    for call in facts["calls"]:
        item = {key: value for key, value in call.items() if key not in ("url",)}
        if "url" in call:
            item["path"] = urllib.parse.urlsplit(call["url"]).path
        calls.append(item)
    entry = {
        "capture": har_name,
        "provider": args.provider,
        "package": args.package,
        "package_version": args.version,
        "django_version": args.django_version,
        "mitmproxy_version": har.document["log"].get("creator", {}).get("version"),
        "story": story,
        "issuer": facts["issuer"],
        "discovery_url": facts["issuer"].rstrip("/") + "/.well-known/openid-configuration",
        "entries": len(har.entries),
        "endpoints": {name: urllib.parse.urlsplit(value).path for name, value in sorted(har.discovery.items())
                      if isinstance(value, str) and (name.endswith("_endpoint") or name == "jwks_uri")},
        "signed_in_at_end": facts["signed_in_at_end"],
        "calls": calls,
    }
    race_order = None
    if story == "refresh-race":
        refreshes = har.token_requests("refresh_token")
        entry["refreshes_overlapped"] = overlap(refreshes) if len(refreshes) == 2 else False
        by_answer = sorted(refreshes, key=ended)
        race_order = [answer_text(item) for item in by_answer]
        entry["race_answers_in_order"] = race_order
        issued = [token_answer(item) for item in by_answer if item["response"]["status"] == 200]
        if len(issued) == 2:
            same = issued[0].get("refresh_token") == issued[1].get("refresh_token")
            entry["race_both_200_same_tokens"] = same and issued[0].get("access_token") == issued[1].get("access_token")
            race_order[-1] += " with the same access and refresh tokens as the first" if same else " with other tokens"
        if log_lines:
            entry["provider_log"] = log_lines
    if story == "stale-refresh-token":
        refreshes = har.token_requests("refresh_token")
        entry["stale_refresh_answer"] = answer_text(refreshes[-1]) if refreshes else None
    if story == "stale-refresh-copy":
        refreshes = har.token_requests("refresh_token")
        if len(refreshes) == 3:
            entry["stale_refresh_answer"] = answer_text(refreshes[1])
            entry["retry_answer"] = answer_text(refreshes[2])
    if story != "refresh-race" and log_lines:
        entry["provider_log"] = log_lines
    if "sso_session_survived_sign_out" in facts["notes"]:
        entry["sso_session_survived_sign_out"] = facts["notes"]["sso_session_survived_sign_out"]
    entry["description"] = description(facts, race_order)
    return entry


def answer_text(entry):
    status = entry["response"]["status"]
    content = entry["response"].get("content") or {}
    text = content.get("text") or ""
    kind = content.get("mimeType", "")
    if 200 <= status < 300:
        return f"{status} ok"
    if "json" in kind:
        try:
            return f"{status} {json.loads(text).get('error')}"
        except ValueError:
            pass
    if "html" in kind:
        start, end = text.find("<title>"), text.find("</title>")
        if start >= 0 and end > start:
            return f"{status} HTML page '{' '.join(text[start + 7:end].split())}'"
        return f"{status} HTML page"
    return str(status)


def shown(path):
    """`path` relative to the working directory when it is below it."""
    relative = os.path.relpath(path)
    return path if relative.startswith("..") else relative


# --- commands -----------------------------------------------------------------------------

def log_size(path):
    try:
        return os.path.getsize(path)
    except (OSError, TypeError):
        return 0


def provider_errors(path, offset):
    """The provider's error lines (an exception's last line, a 5xx) logged since `offset`."""
    if not path or not os.path.exists(path):
        return []
    with open(path, errors="replace") as source:
        source.seek(offset)
        lines = source.read().splitlines()
    found = []
    for index, line in enumerate(lines):
        text = line.strip()
        is_exception = (index + 1 == len(lines) or not lines[index + 1].startswith((" ", "\t"))) \
            and ("Error:" in text or "Exception:" in text) and not text.startswith(("File ", "Traceback"))
        if is_exception or text.startswith(("Internal Server Error:", "Bad Request:")):
            if text not in found:
                found.append(text)
    return found[:10]


def capture(args, story, attempt):
    """One run of `story` behind a fresh mitmdump: (HAR path, facts, client status)."""
    base = os.path.join(args.work, args.provider, f"{story}.{attempt}")
    os.makedirs(os.path.dirname(base), exist_ok=True)
    har_path, facts_path = base + ".har", base + ".facts.json"
    confdir = os.path.join(args.work, "mitmproxy-conf")
    proxy = Mitmdump(args.mitmdump, har_path, base + ".mitmdump.log", confdir,
                     addon=TAMPER if story == "tampered-state" else None)
    try:
        try:
            client = subprocess.run(
                [sys.executable, CLIENT, story, "--issuer", args.issuer, "--proxy", proxy.proxy,
                 "--facts", facts_path],
                stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=STORY_TIMEOUT)
            status, stderr = client.returncode, client.stderr
        except subprocess.TimeoutExpired as expired:
            status, stderr = 124, f"the client did not finish within {STORY_TIMEOUT} s\n{expired.stderr or ''}"
    finally:
        proxy.stop()
    facts = None
    if os.path.exists(facts_path):
        with open(facts_path) as source:
            facts = json.load(source)
    return har_path, facts, status, stderr


def run(args):
    stories = args.story or STORIES
    failed = 0
    captured = []
    out_dir = os.path.join(args.out, args.provider)
    os.makedirs(out_dir, exist_ok=True)
    for story in stories:
        attempts = RACE_ATTEMPTS if story == "refresh-race" else 1
        problems = ["not run"]
        for attempt in range(1, attempts + 1):
            offset = log_size(args.server_log)
            har_path, facts, status, stderr = capture(args, story, attempt)
            log_lines = provider_errors(args.server_log, offset)
            problems = []
            if status != 0 or facts is None:
                problems.append(f"the client failed (exit {status}): {stderr.strip()[-500:]}")
            har = None
            if not (os.path.exists(har_path) and os.path.getsize(har_path) > 0):
                problems.append("mitmdump wrote no HAR")
            else:
                try:
                    har = Har(har_path)
                except (ValueError, KeyError, TypeError) as error:
                    problems.append(f"the HAR is not a HAR: {error!r}")
            if har is not None:
                problems += validate(story, har)
            retry = story == "refresh-race" and problems == ["the two refreshes did not overlap in time"]
            if retry and attempt < attempts:
                print(f"  {args.provider}/{story}: the refreshes did not overlap, capturing again", file=sys.stderr)
                continue
            break
        har_name = f"{args.provider}/{story}.har"
        if problems:
            failed += 1
            print(f"FAILED {har_name}: " + "; ".join(problems) + f" (kept in {os.path.dirname(har_path)})")
            continue
        entry = manifest_entry(args, story, facts, har, har_name, log_lines)
        summary = "; ".join(f"{call['call']}: {call['outcome']}" for call in facts["calls"]
                            if call["outcome"] != "ok" or call["call"] in ("sign-in",))
        captured.append((har_path, os.path.join(out_dir, f"{story}.har"), entry,
                         f"({len(har.entries)} entries) {summary}"))
    # Into the corpus only now, all together with the manifest: an interrupted run changes
    # nothing there.
    for har_path, target, entry, summary in captured:
        shutil.copyfile(har_path, target + ".tmp")  # mitmdump's file, byte for byte
        os.replace(target + ".tmp", target)
        print(f"wrote {shown(target)} {summary}")
    if captured:
        write_manifest(args.out, [entry for _, _, entry, _ in captured])
    return 1 if failed else 0


def write_manifest(out, entries):
    """Merges `entries` into OUT/manifest.json (the other captures' entries are kept)."""
    path = os.path.join(out, "manifest.json")
    captures = {}
    if os.path.exists(path):
        try:
            with open(path) as source:
                for entry in json.load(source).get("captures", []):
                    captures[entry["capture"]] = entry
        except (ValueError, KeyError, AttributeError):
            captures = {}
    for entry in entries:
        captures[entry["capture"]] = entry
    order = {story: index for index, story in enumerate(STORIES)}
    ordered = sorted(captures.values(), key=lambda entry: (entry["provider"], order.get(entry["story"], 99)))
    providers = {}
    for entry in ordered:
        if entry["provider"] not in providers:
            providers[entry["provider"]] = {
                "package": entry["package"], "package_version": entry["package_version"],
                "django_version": entry.get("django_version"),
                **PROVIDER_FACTS.get(entry["provider"], {}),
                "endpoints": entry.get("endpoints", {}),
            }
    document = {
        "about": "Captures of a native-app client (scripts/interop/native_client.py) signing in "
                 "against OpenID providers from PyPI on loopback, recorded by mitmproxy (hardump). "
                 "Made by scripts/captures; see README.md beside this file.",
        "providers": providers,
        "captures": ordered,
    }
    with open(path + ".tmp", "w") as out:
        json.dump(document, out, indent=2, ensure_ascii=False)
        out.write("\n")
    os.replace(path + ".tmp", path)
    print(f"wrote {shown(path)} ({len(document['captures'])} captures)")


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    run_parser = commands.add_parser("run")
    for name in ("provider", "package", "version", "issuer", "mitmdump", "work", "out"):
        run_parser.add_argument(f"--{name}", required=True)
    run_parser.add_argument("--django-version", default=None)
    run_parser.add_argument("--server-log", default=None, help="the provider's log (errors go to the manifest)")
    run_parser.add_argument("--story", action="append", choices=STORIES)
    args = parser.parse_args(argv)
    return run(args)


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # so that the finally blocks run
    # A background job of a script starts with SIGINT ignored, and its children would inherit
    # that: mitmdump must get SIGINT (it writes its HAR on it), so handle it again here.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    sys.exit(main(sys.argv[1:]))
