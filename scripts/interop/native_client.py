"""A native iOS app signing in with its SDK and ASWebAuthenticationSession, played by Python
through an HTTP proxy (mitmproxy), for the capture corpus of scripts/captures.

Usage:
  native_client.py STORY --issuer URL --proxy URL --facts FILE [--username U] [--password P]
                         [--client-id ID] [--redirect-uri URI] [--post-logout-redirect-uri URI]

STORY is one of STORIES below. The client prints nothing on success and writes FILE: a JSON
record of what it did (every HTTP exchange, grouped by step, and each client call with its
outcome) that scripts/interop/captures.py turns into the corpus manifest. Exit status 0 when
the story ran as written (whatever the provider answered), 1 when the client could not play
it (an unexpected page, a provider that did not answer, ...).

Two HTTP actors, as on a phone:

- the app (the SDK's URLSession): a requests.Session that never stores a cookie, with a
  CFNetwork User-Agent and Accept: application/json, for discovery, JWKS, token, userinfo
  and revocation;
- the browser (ASWebAuthenticationSession): a requests.Session with its own cookie jar and a
  Mobile Safari User-Agent, which follows redirects by hand, one hop at a time (each hop is
  its own capture entry), fills the provider's login form (username and password inputs by
  name, every hidden input such as the CSRF token kept), answers the consent form by pressing
  its approve or its deny button, and stops when a Location points into the app's
  custom scheme (the redirect URI, or the post-logout redirect URI). Ephemeral by default (a
  fresh jar per sign-in), shared (one jar kept across sign-in, sign-out and the next sign-in)
  for the sign-out story.
"""
import argparse
import http.cookiejar
import json
import secrets
import sys
import threading
import time
import urllib.parse

import jwt
import requests

from interop_common.encoding import b64url, s256_challenge
from interop_common.forms import Page

APP_USER_AGENT = "ExampleApp/1.0 CFNetwork/1494.0.7 Darwin/23.4.0"
SAFARI_USER_AGENT = (
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 "
    "(KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1")
SCOPE = "openid profile email offline_access"
TIMEOUT = 20  # seconds, per HTTP request
MAX_HOPS = 12  # redirects and form posts per browser journey
PAUSE = 1.0  # the "~1 s" between steps

STORIES = [
    "sign-in-two-refreshes", "refresh-race", "stale-refresh-token", "wrong-password",
    "tampered-state", "error-callback", "sign-out", "replaced-state", "stale-refresh-copy",
]

# Buttons, by their value or their label (lower case): the first list approves a consent or
# confirms a sign-out, the second declines.
APPROVE = {"authorize", "allow", "approve", "grant", "yes", "logout", "log out", "sign out",
           "confirm"}
DENY = {"cancel", "decline", "deny", "no", "stay", "stay signed in"}


class ClientError(Exception):
    """The story cannot go on: the provider answered something this client cannot play."""


class NoCookies(http.cookiejar.DefaultCookiePolicy):
    """The app's URLSession here keeps no cookies: the SDK's calls carry none."""

    def set_ok(self, cookie, request):
        return False

    def return_ok(self, cookie, request):
        return False


# --- HTML (the page itself is read by interop_common.forms.Page) ---------------------------

def password_form(page):
    for form in page.forms:
        if any(item["type"] == "password" for item in form["inputs"]):
            return form
    return None


def button_words(button):
    return {(button.get("value") or "").strip().lower(), " ".join((button.get("label") or "").split()).lower()}


def pressed(button):
    """A button as the description names it: its label, and what it submits."""
    label = " ".join((button.get("label") or button.get("value") or "").split())
    sent = f"{button['name']}={button.get('value', '')}" if button.get("name") else "no name: nothing added"
    return f"'{label}' ({sent})"


def pick_button(form, wanted):
    """The submit button whose value or label is in `wanted`, or None."""
    for button in form["buttons"]:
        if button_words(button) & wanted:
            return button
    return None


def form_data(form, button=None, overrides=None):
    """What a browser submits: every named input (checkboxes and radios only when ticked),
    the pressed button's name=value when it has a name, and `overrides`."""
    data = []
    for item in form["inputs"]:
        if not item.get("name"):
            continue
        if item["type"] in ("checkbox", "radio") and not item["checked"]:
            continue
        value = item["value"] if item["value"] is not None else ""
        if item["type"] in ("checkbox", "radio") and value == "":
            value = "on"
        data.append((item["name"], value))
    if overrides:
        names = set(overrides)
        data = [(name, value) for name, value in data if name not in names] + list(overrides.items())
    if button is not None and button.get("name"):
        data.append((button["name"], button.get("value", "")))
    return data


# --- the two HTTP actors --------------------------------------------------------------------

class Recorder:
    """Every exchange of the story, in order, grouped by the step that made it."""

    def __init__(self):
        self.steps = []
        self.calls = []
        self.notes = {}
        self.lock = threading.Lock()

    def step(self, name):
        with self.lock:
            self.steps.append({"step": name, "exchanges": []})

    def exchange(self, actor, method, url, response=None, error=None, note=None, extra=None):
        record = {"actor": actor, "method": method, "url": url}
        if response is not None:
            record["status"] = response.status_code
            location = response.headers.get("Location")
            if location:
                record["location"] = location
        if error is not None:
            record["error"] = error
        if note:
            record["note"] = note
        if extra:
            record.update(extra)
        with self.lock:
            self.steps[-1]["exchanges"].append(record)
        return record

    def call(self, name, outcome, **details):
        record = {"call": name, "outcome": outcome}
        record.update(details)
        with self.lock:
            self.calls.append(record)
        return record


def proxied(session, proxy):
    session.trust_env = False  # no proxy or netrc from the environment: only ours
    session.proxies = {"http": proxy, "https": proxy}
    return session


def app_session(proxy):
    session = proxied(requests.Session(), proxy)
    session.cookies.set_policy(NoCookies())
    session.headers.update({
        "User-Agent": APP_USER_AGENT,
        "Accept": "application/json",
        "Accept-Language": "en-US,en;q=0.9",
    })
    return session


class Browser:
    """ASWebAuthenticationSession: its own cookie jar, redirects followed one hop at a time."""

    def __init__(self, proxy, recorder, app_scheme):
        self.session = proxied(requests.Session(), proxy)
        self.session.headers.update({
            "User-Agent": SAFARI_USER_AGENT,
            "Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
            "Accept-Language": "en-US,en;q=0.9",
        })
        self.recorder = recorder
        self.app_scheme = app_scheme

    def request(self, method, url, data=None, referer=None):
        headers = {}
        if referer:
            headers["Referer"] = referer
            if method == "POST":
                parts = urllib.parse.urlsplit(referer)
                headers["Origin"] = f"{parts.scheme}://{parts.netloc}"
        if method == "POST":
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        try:
            response = self.session.request(method, url, data=data, headers=headers,
                                            allow_redirects=False, timeout=TIMEOUT)
        except requests.RequestException as error:
            self.recorder.exchange("browser", method, url, error=repr(error))
            raise ClientError(f"browser {method} {url}: {error!r}")
        return response

    def journey(self, url, on_page):
        """Opens `url` and walks on: each redirect is followed by hand; each HTML page goes to
        `on_page(response, page, record)`, which returns the next (method, url, data) or
        a final value (anything else) that ends the journey. Ends with ("callback", URL)
        when a Location points into the app's scheme."""
        method, target, data, referer = "GET", url, None, None
        for _ in range(MAX_HOPS):
            response = self.request(method, target, data=data, referer=referer)
            page = None
            note = None
            if response.is_redirect or response.status_code in (301, 302, 303, 307, 308):
                location = response.headers.get("Location", "")
                self.recorder.exchange("browser", method, target, response)
                if urllib.parse.urlsplit(location).scheme == self.app_scheme:
                    return ("callback", location)
                # A 307/308 repeats the method and body; the others go on with a GET. The
                # Referer stays that of the page the navigation started from.
                if response.status_code not in (307, 308):
                    method, data = "GET", None
                target = urllib.parse.urljoin(target, location)
                continue
            if "html" in response.headers.get("Content-Type", ""):
                page = Page(response.text)
                note = page.clean_title or None
            record = self.recorder.exchange("browser", method, target, response, note=note)
            if page is None:
                return ("page", response, None)
            decision = on_page(response, page, record)
            if isinstance(decision, tuple) and decision and decision[0] in ("GET", "POST"):
                referer = target
                method, target, data = decision
                continue
            return decision
        raise ClientError(f"more than {MAX_HOPS} browser hops from {url}")


# --- the SDK ---------------------------------------------------------------------------------

class Client:
    def __init__(self, options, recorder):
        self.options = options
        self.recorder = recorder
        self.app = app_session(options.proxy)
        self.app_scheme = urllib.parse.urlsplit(options.redirect_uri).scheme
        self.discovery = None
        self.jwks = None
        self.tokens = None  # {"access_token", "refresh_token", "id_token"} while signed in
        self.shared_browser = None
        # The one sign-in state the app stores while a sheet is up (its single pending slot):
        # the callback is accepted only with this state.
        self.pending_state = None

    # app calls ----------------------------------------------------------------------------

    def app_call(self, name, method, url, **kwargs):
        """One SDK call; returns (response or None, outcome string)."""
        try:
            response = self.app.request(method, url, timeout=TIMEOUT, allow_redirects=False, **kwargs)
        except requests.RequestException as error:
            self.recorder.exchange("app", method, url, error=repr(error))
            self.recorder.call(name, f"no answer ({error.__class__.__name__})", method=method, url=url)
            return None, "no answer"
        outcome = describe(response)
        self.recorder.exchange("app", method, url, response,
                               note=None if outcome == "ok" else outcome.partition(" ")[2] or None)
        self.recorder.call(name, outcome, method=method, url=url, status=response.status_code)
        return response, outcome

    def launch(self, label="launch"):
        self.recorder.step(label)
        url = self.options.issuer.rstrip("/") + "/.well-known/openid-configuration"
        response, outcome = self.app_call("discovery", "GET", url)
        if outcome != "ok":
            raise ClientError(f"discovery: {outcome}")
        self.discovery = response.json()
        if self.discovery.get("issuer") != self.options.issuer:
            raise ClientError(f"discovery names issuer {self.discovery.get('issuer')!r}")
        response, outcome = self.app_call("jwks", "GET", self.discovery["jwks_uri"])
        if outcome != "ok":
            raise ClientError(f"JWKS: {outcome}")
        self.jwks = response.json()

    def verify_id_token(self, id_token, nonce=None):
        header = jwt.get_unverified_header(id_token)
        keys = self.jwks.get("keys", [])
        candidates = [key for key in keys if key.get("kid") == header.get("kid")] if header.get("kid") else keys
        if not candidates:
            raise jwt.InvalidTokenError(f"no JWKS key with kid {header.get('kid')!r}")
        key = jwt.PyJWK(candidates[0], algorithm=header.get("alg", "RS256"))
        claims = jwt.decode(
            id_token, key.key, algorithms=["RS256"], audience=self.options.client_id,
            issuer=self.options.issuer, leeway=10, options={"require": ["exp", "iat", "iss", "aud", "sub"]})
        if nonce is not None and claims.get("nonce") != nonce:
            raise jwt.InvalidTokenError(f"nonce {claims.get('nonce')!r} is not the sign-in's")
        return claims

    def take_tokens(self, body, nonce=None, previous=None):
        """Checks a token answer (the ID token against the JWKS) and keeps its tokens."""
        id_token = body.get("id_token") or (previous or {}).get("id_token")
        if body.get("id_token"):
            claims = self.verify_id_token(body["id_token"], nonce)
        else:
            claims = None
        tokens = {
            "access_token": body["access_token"],
            "refresh_token": body.get("refresh_token") or (previous or {}).get("refresh_token"),
            "id_token": id_token,
        }
        return tokens, claims

    # sign-in --------------------------------------------------------------------------------

    def sign_in(self, password=None, consent="approve", browser=None, label="sign-in", while_sheet_up=None):
        """The whole sign-in: authorize in the browser, the callback's state checked against the
        one the app stored, the code exchanged, the ID token verified. `while_sheet_up`, when
        given, runs once as the sheet shows its first page. Returns the sign-in outcome string."""
        self.recorder.step(label)
        password = self.options.password if password is None else password
        browser = browser or Browser(self.options.proxy, self.recorder, self.app_scheme)
        state = b64url(secrets.token_bytes(32))
        nonce = b64url(secrets.token_bytes(32))
        verifier = b64url(secrets.token_bytes(32))
        challenge = s256_challenge(verifier)
        query = {
            "response_type": "code", "client_id": self.options.client_id,
            "redirect_uri": self.options.redirect_uri, "scope": SCOPE, "state": state, "nonce": nonce,
            "code_challenge": challenge, "code_challenge_method": "S256",
        }
        url = self.discovery["authorization_endpoint"] + "?" + urllib.parse.urlencode(query)
        seen = {"login": 0, "consent": 0, "login_notes": []}
        self.pending_state = state
        hooks = [while_sheet_up] if while_sheet_up else []

        def on_page(response, page, record):
            while hooks:
                hooks.pop()(record)
            login = password_form(page)
            if login is not None:
                if seen["login"]:
                    # The provider shows its login form again: the password was refused. The
                    # user reads the note and gives up (cancels the sheet).
                    seen["login_notes"] = page.notes
                    record["note"] = "login form shown again" + (f": {'; '.join(page.notes)}" if page.notes else "")
                    return ("login-refused", page.notes)
                seen["login"] += 1
                record["note"] = "login form"
                user_field = next((item["name"] for item in login["inputs"]
                                   if item["name"] in ("username", "login", "email")), None)
                pass_field = next(item["name"] for item in login["inputs"] if item["type"] == "password")
                if user_field is None:
                    raise ClientError(f"no username input in the login form of {response.url}")
                button = login["buttons"][0] if login["buttons"] else None  # "Sign in"
                data = form_data(login, button, {user_field: self.options.username, pass_field: password})
                return ("POST", urllib.parse.urljoin(response.url, login["action"] or response.url), data)
            if response.status_code == 200 and page.forms:
                form = next((f for f in page.forms if pick_button(f, APPROVE) or pick_button(f, DENY)), None)
                if form is None:
                    raise ClientError(f"a form without approve or deny button at {response.url}")
                seen["consent"] += 1
                wanted = APPROVE if consent == "approve" else DENY
                button = pick_button(form, wanted)
                if button is None:
                    raise ClientError(f"no {consent} button in the consent form at {response.url}")
                record["note"] = f"consent form; the user presses {pressed(button)}"
                data = form_data(form, button)
                return ("POST", urllib.parse.urljoin(response.url, form["action"] or response.url), data)
            return ("page", response, page)

        result = browser.journey(url, on_page)
        details = {"login_form_shown": bool(seen["login"]), "consent_form_shown": bool(seen["consent"])}
        if result[0] == "login-refused":
            notes = result[1]
            outcome = "cancelled by the user: the login form came back" + (f" ({'; '.join(notes)})" if notes else "")
            self.recorder.call("sign-in", outcome, **details, login_error=notes)
            return "cancelled"
        if result[0] == "page":
            response, page = result[1], result[2]
            outcome = describe(response)
            self.recorder.call("sign-in", f"stopped on a page: {outcome}", **details)
            return "page"
        callback = result[1]
        params = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(callback).query))
        details["callback"] = callback
        stored, self.pending_state = self.pending_state, None
        if params.get("state") != stored:
            which = "sent" if stored == state else "the app stored"
            self.recorder.call("sign-in", f"state mismatch: the callback's state is not the one {which}; "
                               "the client stops (no token request)", **details,
                               sent_state=state, stored_state=stored, received_state=params.get("state"))
            return "state_mismatch"
        if "error" in params:
            self.recorder.call("sign-in", f"error callback: {params['error']}", **details,
                               error=params["error"], error_description=params.get("error_description"))
            return "error"
        if "iss" in params and params["iss"] != self.options.issuer:
            self.recorder.call("sign-in", f"callback iss {params['iss']!r} is not the issuer", **details)
            return "iss_mismatch"
        if "code" not in params:
            self.recorder.call("sign-in", "callback without a code", **details)
            return "no_code"
        self.recorder.call("sign-in", "ok", **details)
        response, outcome = self.app_call("token (authorization_code)", "POST", self.discovery["token_endpoint"], data={
            "grant_type": "authorization_code", "client_id": self.options.client_id, "code": params["code"],
            "redirect_uri": self.options.redirect_uri, "code_verifier": verifier})
        if outcome != "ok":
            return "token_failed"
        try:
            self.tokens, claims = self.take_tokens(response.json(), nonce)
        except (jwt.PyJWTError, KeyError, ValueError) as error:
            self.recorder.calls[-1]["outcome"] = f"ID token rejected: {error}"
            return "id_token_rejected"
        self.recorder.calls[-1]["id_token"] = "verified (signature, iss, aud, exp, nonce)"
        self.recorder.calls[-1]["refresh_token_issued"] = bool(self.tokens["refresh_token"])
        return "ok"

    # refresh, userinfo, sign-out --------------------------------------------------------------

    def refresh_request(self, refresh_token, name="refresh"):
        return self.app_call(name, "POST", self.discovery["token_endpoint"], data={
            "grant_type": "refresh_token", "client_id": self.options.client_id, "refresh_token": refresh_token})

    def apply_refresh(self, response, outcome, keep=True):
        """What the SDK does with a refresh answer: 200 keeps the new tokens (when `keep`);
        400 invalid_grant means the session is over (local tokens forgotten); anything else
        (5xx, no answer) changes nothing."""
        call = self.recorder.calls[-1]
        if response is not None and response.status_code == 200:
            try:
                tokens, _ = self.take_tokens(response.json(), previous=self.tokens)
            except (jwt.PyJWTError, KeyError, ValueError) as error:
                call["outcome"] = f"ID token rejected: {error}"
                return
            call["rotated"] = tokens["refresh_token"] != (self.tokens or {}).get("refresh_token")
            if response.json().get("id_token"):
                call["id_token"] = "verified (signature, iss, aud, exp)"
            if keep and self.tokens is not None:
                self.tokens = tokens
            elif not keep:
                call["client"] = "the app was killed before it stored the new tokens"
        elif response is not None and oauth_error(response) == "invalid_grant":
            self.tokens = None
            call["client"] = "session over: local tokens forgotten (signed out)"

    def refresh(self):
        self.recorder.step("refresh")
        response, outcome = self.refresh_request(self.tokens["refresh_token"])
        self.apply_refresh(response, outcome)
        return response

    def userinfo(self):
        self.recorder.step("userinfo")
        self.app_call("userinfo", "GET", self.discovery["userinfo_endpoint"],
                      headers={"Authorization": f"Bearer {self.tokens['access_token']}"})

    def sign_out(self, browser):
        self.recorder.step("sign-out")
        end_session = self.discovery.get("end_session_endpoint")
        if not end_session:
            # No RP-initiated logout: revoke the refresh token (RFC 7009) instead.
            revocation = self.discovery.get("revocation_endpoint")
            if revocation:
                self.app_call("revocation", "POST", revocation, data={
                    "token": self.tokens["refresh_token"], "token_type_hint": "refresh_token",
                    "client_id": self.options.client_id})
            self.tokens = None
            return "revoked"
        state = b64url(secrets.token_bytes(32))
        query = {"id_token_hint": self.tokens["id_token"], "client_id": self.options.client_id,
                 "post_logout_redirect_uri": self.options.post_logout_redirect_uri, "state": state}
        url = end_session + ("&" if "?" in end_session else "?") + urllib.parse.urlencode(query)
        confirmed = {"shown": False}

        def on_page(response, page, record):
            form = next((f for f in page.forms if pick_button(f, APPROVE)), None)
            if form is None or confirmed["shown"]:
                return ("page", response, page)
            confirmed["shown"] = True
            button = pick_button(form, APPROVE)
            record["note"] = f"sign-out confirmation form; the user presses {pressed(button)}"
            return ("POST", urllib.parse.urljoin(response.url, form["action"] or response.url), form_data(form, button))

        result = browser.journey(url, on_page)
        self.tokens = None  # the app forgets its tokens whatever the provider showed
        details = {"confirmation_form_shown": confirmed["shown"]}
        if result[0] == "callback":
            params = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(result[1]).query))
            details["callback"] = result[1]
            outcome = "ok" if params.get("state") == state else "ok (post-logout redirect without our state)"
            self.recorder.call("sign-out", outcome, **details)
            return "ok"
        outcome = describe(result[1])
        self.recorder.call("sign-out", f"ended on a page: {outcome}", **details)
        return "page"


def oauth_error(response):
    try:
        body = response.json()
    except ValueError:
        return None
    return body.get("error") if isinstance(body, dict) else None


def describe(response):
    """ok, or the status with the OAuth error, or the status with the HTML page's title."""
    if 200 <= response.status_code < 300:
        return "ok"
    error = oauth_error(response)
    if error:
        return f"{response.status_code} {error}"
    if "html" in response.headers.get("Content-Type", ""):
        title = Page(response.text).clean_title
        return f"{response.status_code} HTML page" + (f" '{title}'" if title else "")
    return f"{response.status_code}"


# --- stories -----------------------------------------------------------------------------------

def story_sign_in_two_refreshes(client):
    client.launch()
    if client.sign_in() != "ok":
        raise ClientError("the sign-in did not succeed")
    for _ in range(2):
        time.sleep(PAUSE)
        client.refresh()
        if client.tokens is None:
            return
    client.userinfo()


def story_refresh_race(client):
    client.launch()
    if client.sign_in() != "ok":
        raise ClientError("the sign-in did not succeed")
    client.recorder.step("refresh race")
    refresh_token = client.tokens["refresh_token"]
    barrier = threading.Barrier(2, timeout=15)
    lock = threading.Lock()
    timings = []

    def one(index):
        barrier.wait()
        started = time.monotonic()
        response, outcome = client.refresh_request(refresh_token, name=f"refresh (racer {index + 1})")
        ended = time.monotonic()
        with lock:  # the SDK handles each answer as it comes back
            timings.append((started, ended))
            client.apply_refresh(response, outcome)

    threads = [threading.Thread(target=one, args=(index,), daemon=True) for index in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=2 * TIMEOUT + 15)
    if len(timings) == 2:
        client.recorder.notes["client_saw_overlap"] = max(t[0] for t in timings) < min(t[1] for t in timings)


def story_stale_refresh_token(client):
    client.launch()
    if client.sign_in() != "ok":
        raise ClientError("the sign-in did not succeed")
    client.recorder.step("refresh (app killed before storing)")
    stale = client.tokens["refresh_token"]
    response, outcome = client.refresh_request(stale)
    client.apply_refresh(response, outcome, keep=False)
    time.sleep(PAUSE)
    relaunched = Client(client.options, client.recorder)  # a new process: a new URLSession
    relaunched.tokens = client.tokens  # what the keychain still holds: the first refresh token
    relaunched.launch(label="relaunch")
    relaunched.recorder.step("refresh with the stale refresh token")
    response, outcome = relaunched.refresh_request(stale)
    relaunched.apply_refresh(response, outcome)
    client.tokens = relaunched.tokens


def story_wrong_password(client):
    client.launch()
    client.sign_in(password=client.options.password + "-typo")


def story_tampered_state(client):
    client.launch()
    client.sign_in()


def story_error_callback(client):
    client.launch()
    client.sign_in(consent="deny")


def story_replaced_state(client):
    """The app keeps one pending state: a second tap on Sign in while the first sheet is up
    draws a new state and stores it over the first (no second sheet: iOS shows one web
    authentication session at a time). The first sheet's callback carries the state that sheet
    sent, which is no longer the stored one: the app refuses it and never exchanges the code."""
    client.launch()

    def second_tap(record):
        client.pending_state = b64url(secrets.token_bytes(32))
        record["meanwhile"] = ("the user taps Sign in again: the app stores a new state over the "
                               "first (no second sheet)")

    client.sign_in(while_sheet_up=second_tap)


def story_stale_refresh_copy(client):
    """The app keeps its own copy of the credentials it was handed at sign-in and refreshes
    with that copy's refresh token; the SDK stores each rotated one. Once the copy is stale the
    provider refuses it (400 invalid_grant); the SDK then reads its store, finds a newer refresh
    token and retries once with it, keeping the session."""
    client.launch()
    if client.sign_in() != "ok":
        raise ClientError("the sign-in did not succeed")
    kept = client.tokens["refresh_token"]  # the app's copy; never updated by a refresh
    for label in ("refresh (the app's copy is the stored token)",
                  "refresh with the app's stale copy, then the stored token"):
        time.sleep(PAUSE)
        client.recorder.step(label)
        response, outcome = client.refresh_request(kept)
        stored = client.tokens["refresh_token"]
        if response is not None and oauth_error(response) == "invalid_grant" and stored != kept:
            client.recorder.calls[-1]["client"] = (
                "refused; the SDK reads its store, which holds a newer refresh token, and retries with it")
            response, outcome = client.refresh_request(stored, name="refresh (retry with the stored token)")
        client.apply_refresh(response, outcome)
        if client.tokens is None:
            return
    client.userinfo()


def story_sign_out(client):
    client.launch()
    browser = Browser(client.options.proxy, client.recorder, client.app_scheme)  # shared
    if client.sign_in(browser=browser) != "ok":
        raise ClientError("the sign-in did not succeed")
    time.sleep(PAUSE)
    client.refresh()
    if client.tokens is None:
        raise ClientError("the refresh did not succeed")
    time.sleep(PAUSE)
    client.sign_out(browser)
    time.sleep(PAUSE)
    outcome = client.sign_in(browser=browser, label="second sign-in (same browser)")
    sign_ins = [call for call in client.recorder.calls if call["call"] == "sign-in"]
    if len(sign_ins) == 2:  # the login page skipped means the provider's session survived
        client.recorder.notes["sso_session_survived_sign_out"] = not sign_ins[1]["login_form_shown"]
    if outcome != "ok":
        raise ClientError("the second sign-in did not succeed")


STORY_FUNCTIONS = {
    "sign-in-two-refreshes": story_sign_in_two_refreshes,
    "refresh-race": story_refresh_race,
    "stale-refresh-token": story_stale_refresh_token,
    "wrong-password": story_wrong_password,
    "tampered-state": story_tampered_state,
    "error-callback": story_error_callback,
    "sign-out": story_sign_out,
    "replaced-state": story_replaced_state,
    "stale-refresh-copy": story_stale_refresh_copy,
}


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("story", choices=STORIES)
    parser.add_argument("--issuer", required=True)
    parser.add_argument("--proxy", required=True, help="http://127.0.0.1:PORT (mitmproxy)")
    parser.add_argument("--facts", required=True, help="where to write the JSON record")
    parser.add_argument("--username", default="alice")
    parser.add_argument("--password", default="alice-password")
    parser.add_argument("--client-id", default="com.example.app")
    parser.add_argument("--redirect-uri", default="com.example.app://auth/callback")
    parser.add_argument("--post-logout-redirect-uri", default="com.example.app://auth/signed-out")
    options = parser.parse_args(argv)

    recorder = Recorder()
    client = Client(options, recorder)
    status, failure = 0, None
    try:
        STORY_FUNCTIONS[options.story](client)
    except ClientError as error:
        status, failure = 1, str(error)
    except Exception as error:  # a bug here: report it, keep what was recorded
        status, failure = 1, f"{error.__class__.__name__}: {error}"
    facts = {
        "story": options.story,
        "issuer": options.issuer,
        "signed_in_at_end": client.tokens is not None,
        "calls": recorder.calls,
        "steps": recorder.steps,
        "notes": recorder.notes,
    }
    if failure:
        facts["client_failure"] = failure
        sys.stderr.write(f"native_client {options.story}: {failure}\n")
    with open(options.facts, "w") as out:
        json.dump(facts, out, indent=2)
        out.write("\n")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
