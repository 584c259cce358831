"""A refresh race captured by mitmproxy, replayed and imported by signinsim.

Usage: mitm_interop.py PATH-TO-signinsim PATH-TO-mitmdump
Prints one line per check and a closing "N passed, N failed" line; exits 1 on any failure.
"""
import base64
import hashlib
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from html.parser import HTMLParser

import requests

BINARY, MITMDUMP = sys.argv[1], sys.argv[2]
WORK = tempfile.mkdtemp(prefix="signinsim-mitm-")
CLIENT_ID = "com.example.app"
REDIRECT_URI = "com.example.app://auth/callback"
results = []


def check(name, condition, detail=""):
    results.append(bool(condition))
    print(("ok   " if condition else "FAIL ") + name + ("" if condition else f": {detail}"))
    return bool(condition)


class FormParser(HTMLParser):
    def __init__(self):
        super().__init__()
        self.forms = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "form":
            self.forms.append({"action": attrs.get("action", ""), "fields": {}, "buttons": []})
        elif self.forms and tag == "input" and attrs.get("name"):
            self.forms[-1]["fields"][attrs["name"]] = attrs.get("value", "")
        elif self.forms and tag == "button" and attrs.get("name"):
            self.forms[-1]["buttons"].append((attrs["name"], attrs.get("value", "")))


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def run(*args):
    process = subprocess.run([BINARY, *args], capture_output=True, text=True, timeout=300)
    return process.returncode, process.stdout, process.stderr


server = subprocess.Popen([BINARY, "serve", "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
har = os.path.join(WORK, "capture.har")
port = free_port()
proxy = subprocess.Popen(
    [MITMDUMP, "--listen-host", "127.0.0.1", "--listen-port", str(port), "--set", f"hardump={har}", "-q"],
    stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
try:
    issuer = server.stdout.readline().strip().split(" ", 1)[1]
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            time.sleep(0.1)
    session = requests.Session()
    session.proxies = {"http": f"http://127.0.0.1:{port}", "https": f"http://127.0.0.1:{port}"}
    session.trust_env = False

    # The app's sign-in: discovery, keys, authorize with PKCE, the login form, the code exchange.
    discovery = session.get(issuer + "/.well-known/openid-configuration", timeout=10).json()
    session.get(discovery["jwks_uri"], timeout=10)
    verifier = b64url(secrets.token_bytes(32))
    query = {
        "response_type": "code", "client_id": CLIENT_ID, "redirect_uri": REDIRECT_URI,
        "scope": "openid profile email offline_access", "state": b64url(secrets.token_bytes(16)),
        "nonce": b64url(secrets.token_bytes(16)),
        "code_challenge": b64url(hashlib.sha256(verifier.encode()).digest()), "code_challenge_method": "S256",
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
        parser = FormParser()
        parser.feed(response.text)
        form = parser.forms[0]
        data = dict(form["fields"])
        if "username" in data:
            data.update({"username": "alice@example.com", "password": "alice-password"})
        for name, value in form["buttons"]:
            if value == "approve":
                data[name] = value
        response = session.post(urllib.parse.urljoin(response.url, form["action"]), data=data, allow_redirects=False, timeout=10)
    check("the client signed in through mitmproxy", callback is not None)
    code = urllib.parse.parse_qs(urllib.parse.urlsplit(callback or "").query).get("code", [""])[0]
    tokens = session.post(discovery["token_endpoint"], data={
        "grant_type": "authorization_code", "client_id": CLIENT_ID, "code": code,
        "redirect_uri": REDIRECT_URI, "code_verifier": verifier}, timeout=10).json()
    refresh_token = tokens.get("refresh_token", "")

    # The race: two refreshes with one refresh token, released together.
    barrier = threading.Barrier(2)
    statuses = []

    def refresh():
        barrier.wait()
        statuses.append(session.post(discovery["token_endpoint"], data={
            "grant_type": "refresh_token", "client_id": CLIENT_ID, "refresh_token": refresh_token}, timeout=10).status_code)

    threads = [threading.Thread(target=refresh) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    check("the race: one refresh wins, the replay is refused", sorted(statuses) == [200, 400], statuses)
finally:
    proxy.send_signal(signal.SIGINT)
    try:
        proxy.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proxy.kill()
    server.terminate()
    server.wait(timeout=30)

check("mitmproxy wrote a HAR", os.path.exists(har) and os.path.getsize(har) > 0)
if os.path.exists(har):
    entries = json.load(open(har))["log"]["entries"]
    check("the HAR holds the sign-in and both refreshes", len(entries) >= 7, len(entries))

    status, out, err = run("replay", har, "--sdk-profile", "naive")
    check("replay with the naive SDK behaves as recorded (exit 0)", status == 0, out + err)
    check("the naive SDK loses the session as in the field", "session_expired" in out, out)
    status, out, err = run("replay", har)
    check("replay with the default SDK diverges (exit 1)", status == 1, out + err)
    check("the default SDK makes one refresh, not two", "requests in the capture the app did not make:" in out and "none" not in out.split("requests in the capture the app did not make:")[1].split("\n")[0], out)

    status, out, err = run("import-har", har, "--sdk-profile", "naive")
    check("import-har derives a scenario", status == 0 and "parallel:" in out, out + err)
    naive = os.path.join(WORK, "naive.yaml")
    open(naive, "w").write(out)
    status, out, err = run("run", naive)
    check("the derived scenario reproduces field bug 1 with the naive SDK", status == 0, out + err)
    status, out, err = run("import-har", har)
    default = os.path.join(WORK, "default.yaml")
    open(default, "w").write(out)
    status, out, err = run("run", default)
    check("the derived scenario fails with the default SDK (no race, no revocation)", status == 1, out + err)

passed = sum(results)
print(f"{passed} passed, {len(results) - passed} failed")
sys.exit(0 if passed == len(results) else 1)
