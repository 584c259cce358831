"""Refresh races captured by mitmproxy, replayed and imported by signinsim.

Usage: mitm_interop.py PATH-TO-signinsim PATH-TO-mitmdump PATH-TO-DOT-PYTHON

Two issuers, each behind mitmproxy: `signinsim serve`, and django-oauth-toolkit (the
Django project of providers/django_oidc.py, set up by providers/django_oidc_reuse.py to
revoke a refresh token family on reuse; PATH-TO-DOT-PYTHON is a python with Django and
django-oauth-toolkit). Prints one line per check and a closing "N passed, N failed" line;
exits 1 on any failure.
"""
import json
import os
import secrets
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

import requests

from interop_checks import check, finish, forms_in, results
from interop_common.encoding import b64url, s256_challenge

BINARY, MITMDUMP, DOT_PYTHON = sys.argv[1], sys.argv[2], sys.argv[3]
PROVIDERS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "providers")
WORK = tempfile.mkdtemp(prefix="signinsim-mitm-")
CLIENT_ID = "com.example.app"
REDIRECT_URI = "com.example.app://auth/callback"
processes = []



def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def run(*args):
    try:
        process = subprocess.run([BINARY, *args], capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        return 124, "", f"signinsim {args[0]} timed out after 120 s"
    return process.returncode, process.stdout, process.stderr


def start(arguments, **options):
    process = subprocess.Popen(arguments, **options)
    processes.append(process)
    return process


def stop(process, interrupt=False):
    """Ends a process this script started: SIGINT lets mitmdump write its HAR first."""
    if process.poll() is None:
        process.send_signal(signal.SIGINT if interrupt else signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


def first_line(process, seconds):
    """The process's first line of output, or "" when none comes within `seconds`."""
    ready, _, _ = select.select([process.stdout], [], [], seconds)
    return process.stdout.readline().strip() if ready else ""


def start_proxy(har):
    port = free_port()
    proxy = start(
        [MITMDUMP, "--listen-host", "127.0.0.1", "--listen-port", str(port), "--set", f"hardump={har}", "-q"],
        stdout=subprocess.DEVNULL, stderr=open(har + ".log", "w"))
    return proxy, port


def proxied_session(port):
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            time.sleep(0.1)
    session = requests.Session()
    session.proxies = {"http": f"http://127.0.0.1:{port}", "https": f"http://127.0.0.1:{port}"}
    session.trust_env = False
    return session


def sign_in(session, issuer, username, password):
    """The app's sign-in: discovery, keys, authorize with PKCE S256, the issuer's login and
    consent forms, the code exchange. Returns (discovery, callback URL or None, token response)."""
    discovery = session.get(issuer + "/.well-known/openid-configuration", timeout=10).json()
    session.get(discovery["jwks_uri"], timeout=10)
    verifier = b64url(secrets.token_bytes(32))
    query = {
        "response_type": "code", "client_id": CLIENT_ID, "redirect_uri": REDIRECT_URI,
        "scope": "openid profile email offline_access", "state": b64url(secrets.token_bytes(16)),
        "nonce": b64url(secrets.token_bytes(16)),
        "code_challenge": s256_challenge(verifier), "code_challenge_method": "S256",
    }
    response = session.get(discovery["authorization_endpoint"], params=query, allow_redirects=False, timeout=10)
    callback = None
    for _ in range(10):
        if response.status_code in (301, 302, 303, 307):
            location = response.headers["Location"]
            if location.startswith(REDIRECT_URI):
                callback = location
                break
            response = session.get(urllib.parse.urljoin(response.url, location), allow_redirects=False, timeout=10)
            continue
        forms = forms_in(response.text)
        if not forms:
            break
        form = forms[0]
        data = dict(form["fields"])  # a named submit input (DOT's "allow") is the approval
        if "username" in data:
            data.update({"username": username, "password": password})
        for name, value in form["buttons"]:
            if value == "approve":
                data[name] = value
        response = session.post(urllib.parse.urljoin(response.url, form["action"]), data=data, allow_redirects=False, timeout=10)
    callback_query = urllib.parse.parse_qs(urllib.parse.urlsplit(callback or "").query)
    if callback_query.get("state", [""])[0] != query["state"]:
        return discovery, None, {}
    response = session.post(discovery["token_endpoint"], data={
        "grant_type": "authorization_code", "client_id": CLIENT_ID, "code": callback_query.get("code", [""])[0],
        "redirect_uri": REDIRECT_URI, "code_verifier": verifier}, timeout=10)
    return discovery, callback, response.json()


def refresh(session, discovery, refresh_token):
    return session.post(discovery["token_endpoint"], data={
        "grant_type": "refresh_token", "client_id": CLIENT_ID, "refresh_token": refresh_token}, timeout=20)


def race(session, discovery, refresh_token):
    """Two refreshes with one refresh token, released together; the responses in the order
    they came back (the order mitmproxy writes them to the HAR)."""
    barrier = threading.Barrier(2)
    answered = []

    def one():
        barrier.wait(timeout=30)
        response = refresh(session, discovery, refresh_token)
        answered.append((time.monotonic(), response))

    threads = [threading.Thread(target=one) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return [response for _, response in sorted(answered, key=lambda pair: pair[0])]


def oauth_error(response):
    try:
        return response.json().get("error")
    except ValueError:
        return None


def report_section(report, title):
    """The indented lines under `title:` in a replay report."""
    lines = report.split("\n")
    for index, line in enumerate(lines):
        if line.startswith(title + ":"):
            section = []
            for item in lines[index + 1:]:
                if not item.startswith("  "):
                    break
                section.append(item.strip())
            return section
    return None


def har_entries(har):
    if not (os.path.exists(har) and os.path.getsize(har) > 0):
        return None
    return json.load(open(har))["log"]["entries"]


def derive_and_run(har, profile, label):
    """import-har with `profile`, validate, run: (import status, validate status, run status, text)."""
    status, out, err = run("import-har", har, "--sdk-profile", profile)
    scenario = os.path.join(WORK, f"{label}-{profile}.yaml")
    open(scenario, "w").write(out)
    if status != 0:
        return status, None, None, out + err
    valid, vout, verr = run("validate", scenario)
    ran, rout, rerr = run("run", scenario)
    return status, valid, ran, out + vout + verr + rout + rerr


def serve_checks():
    """signinsim serve behind mitmproxy: sign-in and a race, replayed and imported."""
    server = start([BINARY, "serve", "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    har = os.path.join(WORK, "capture.har")
    proxy, port = start_proxy(har)
    try:
        issuer = first_line(server, 30).split(" ", 1)[-1]
        session = proxied_session(port)
        discovery, callback, tokens = sign_in(session, issuer, "alice@example.com", "alice-password")
        check("the client signed in through mitmproxy", callback is not None)
        statuses = [response.status_code for response in race(session, discovery, tokens.get("refresh_token", ""))]
        check("the race: one refresh wins, the replay is refused", sorted(statuses) == [200, 400], statuses)
    finally:
        stop(proxy, interrupt=True)
        stop(server)

    entries = har_entries(har)
    check("mitmproxy wrote a HAR", entries is not None)
    if entries is None:
        return
    check("the HAR holds the sign-in and both refreshes", len(entries) >= 7, len(entries))

    status, out, err = run("replay", har, "--sdk-profile", "naive")
    check("replay from launch with the naive SDK behaves as recorded (exit 0)", status == 0, out + err)
    check("the naive SDK loses the session as in the field",
          "session_expired" in out and "replayed no" in out, out)
    check("the report names the browser's requests and the app's", " browser GET " in out and " app POST " in out, out)
    status, out, err = run("replay", har)
    check("replay with the default SDK diverges (exit 1)", status == 1, out + err)
    check("the default SDK makes one refresh, not two", "the replayed app did not make this request" in out, out)

    status, out, err = run("import-har", har)
    check("import-har derives a scenario with the race and the naive profile its traffic shows",
          status == 0 and "parallel:" in out and "profile: naive" in out, out + err)
    naive = os.path.join(WORK, "naive.yaml")
    open(naive, "w").write(out)
    status, out, err = run("run", naive)
    check("the derived scenario reproduces field bug 1", status == 0, out + err)


def start_django_oidc():
    """Sets up the provider's project and serves it on 127.0.0.1, on a port of the kernel's
    choice: (issuer or None, the log's tail). Runs while the serve checks do."""
    directory = os.path.join(WORK, "django")
    setup_log = os.path.join(WORK, "django-setup.log")
    setup = start([DOT_PYTHON, os.path.join(PROVIDERS, "django_oidc_reuse.py"), "setup", directory],
                  stdout=open(setup_log, "w"), stderr=subprocess.STDOUT)
    try:
        setup.wait(timeout=120)
    except subprocess.TimeoutExpired:
        stop(setup)
    if setup.returncode != 0:
        return None, open(setup_log).read()[-2000:]
    port_file = os.path.join(directory, "port")
    environment = {name: value for name, value in os.environ.items() if name != "PORT"}
    server_log = os.path.join(WORK, "django-server.log")
    server = start([DOT_PYTHON, os.path.join(PROVIDERS, "django_oidc_reuse.py"), "serve", directory, port_file],
                   stdin=subprocess.DEVNULL, stdout=open(server_log, "w"), stderr=subprocess.STDOUT, env=environment)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and server.poll() is None:
        try:
            port = open(port_file).read().strip()
            issuer = f"http://127.0.0.1:{port}/o"
            if requests.get(issuer + "/.well-known/openid-configuration", timeout=2,
                            proxies={"http": None}).json().get("issuer") == issuer:
                return issuer, ""
        except (OSError, ValueError, requests.RequestException):
            pass
        time.sleep(0.1)
    return None, open(server_log).read()[-2000:]


def django_oidc_checks(issuer, log):
    """django-oauth-toolkit behind mitmproxy: a capture of sign-in and one refresh, and one of
    sign-in, one refresh and a race, each replayed and imported."""
    name = "django-oauth-toolkit: "
    if not check(name + "the provider runs on 127.0.0.1 (reuse protection, one refresh at a time)", issuer, log):
        return
    plain_har = os.path.join(WORK, "dot-refresh.har")
    race_har = os.path.join(WORK, "dot-race.har")
    plain_proxy, plain_port = start_proxy(plain_har)
    race_proxy, race_port = start_proxy(race_har)
    winner_token = None
    try:
        # Sign-in and one refresh.
        session = proxied_session(plain_port)
        discovery, callback, tokens = sign_in(session, issuer, "alice", "alice-password")
        check(name + "the client signed in through mitmproxy (login form, consent, PKCE S256)",
              callback is not None and "code=" in callback, callback)
        check(name + "the code exchange gives an ID token and a refresh token",
              "id_token" in tokens and "refresh_token" in tokens, sorted(tokens))
        response = refresh(session, discovery, tokens.get("refresh_token", ""))
        rotated = response.json().get("refresh_token") if response.status_code == 200 else None
        check(name + "a refresh answers 200 with a new refresh token (rotation)",
              rotated and rotated != tokens.get("refresh_token"), f"{response.status_code} {response.text[:200]}")
        stop(plain_proxy, interrupt=True)

        # Sign-in, one refresh, then the race with the rotated refresh token.
        session = proxied_session(race_port)
        discovery, callback, tokens = sign_in(session, issuer, "alice", "alice-password")
        response = refresh(session, discovery, tokens.get("refresh_token", ""))
        second = response.json().get("refresh_token", "") if response.status_code == 200 else ""
        answered = race(session, discovery, second)
        outcome = [(response.status_code, oauth_error(response)) for response in answered]
        check(name + "the race: the first refresh answered wins, the replay is refused (invalid_grant)",
              outcome == [(200, None), (400, "invalid_grant")], outcome)
        if outcome and outcome[0][0] == 200:
            winner_token = answered[0].json().get("refresh_token")
    finally:
        stop(plain_proxy, interrupt=True)
        stop(race_proxy, interrupt=True)

    # Not through the proxy: the capture ends with the race, as the app's traffic did.
    if winner_token:
        direct = requests.Session()
        direct.trust_env = False
        response = refresh(direct, discovery, winner_token)
        check(name + "reuse protection revoked the family: the winner's new refresh token is refused",
              response.status_code == 400 and oauth_error(response) == "invalid_grant",
              f"{response.status_code} {response.text[:200]}")

    entries = har_entries(plain_har)
    race_entries = har_entries(race_har)
    check(name + "mitmproxy wrote both HARs", entries is not None and race_entries is not None)
    if entries is not None:
        status, out, err = run("replay", plain_har)
        check(name + "the sign-in and refresh capture replays from launch (exit 0)",
              status == 0 and "the app behaves as recorded" in out and "replayed yes" in out, out + err)
        tokens = report_section(out, "recorded ID tokens") or []
        check(name + "its ID tokens (code exchange and refresh) verify against DOT's recorded JWKS",
              len(tokens) >= 2 and all("verifies" in line for line in tokens), tokens)
        status, valid, ran, text = derive_and_run(plain_har, "default", "dot-refresh")
        check(name + "its derived scenario validates and passes with the default SDK",
              (status, valid, ran) == (0, 0, 0), text)
    if race_entries is not None:
        status, out, err = run("replay", race_har, "--sdk-profile", "naive")
        check(name + "replay of the race with the naive SDK behaves as recorded (exit 0)",
              status == 0 and "the app behaves as recorded" in out, out + err)
        # The replay hands the naive SDK the accepted answer first and the refusal once that
        # call has finished, as the issuer handled them: it ends signed out, as in the field.
        check(name + "the naive SDK's losing call fails with session_expired and signs it out, as in the field",
              "session_expired" in out and "replayed no" in out, out)
        tokens = report_section(out, "recorded ID tokens") or []
        check(name + "the race capture's ID tokens verify against DOT's recorded JWKS",
              len(tokens) >= 3 and all("verifies" in line for line in tokens), tokens)
        status, out, err = run("replay", race_har)
        check(name + "replay of the race with the default SDK diverges (exit 1)", status == 1, out + err)
        check(name + "the default SDK makes one refresh, not two, and stays signed in",
              "the replayed app did not make this request" in out and "replayed yes" in out, out)

        status, valid, ran, text = derive_and_run(race_har, "naive", "dot-race")
        check(name + "import-har derives a scenario with the race and the family revoked on reuse",
              status == 0 and "parallel:" in text and "session_expired" in text, text)
        check(name + "signinsim validate accepts the derived scenario", valid == 0, text)
        check(name + "the derived scenario reproduces field bug 1 with the naive SDK", ran == 0, text)


signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # so that the finally below runs
try:
    provider = []

    def start_provider():
        provider.extend(start_django_oidc())

    starting = threading.Thread(target=start_provider, daemon=True)
    starting.start()
    try:
        serve_checks()
    except Exception as error:  # a broken flow is a failed check; the next part still runs
        check("the signinsim serve part ran to the end", False, repr(error))
    starting.join(timeout=180)
    try:
        django_oidc_checks(*(provider or [None, "the provider was not up within 180 s"]))
    except Exception as error:
        check("the django-oauth-toolkit part ran to the end", False, repr(error))
finally:
    for process in reversed(processes):
        try:
            stop(process, interrupt=process.args[0] == MITMDUMP)
        except (OSError, subprocess.TimeoutExpired):
            pass
    if all(results):
        shutil.rmtree(WORK, ignore_errors=True)
    else:
        print(f"captures, scenarios and logs kept in {WORK}")

finish()
