"""The HTML report and the issuer's pages, checked in headless Chromium (Debian's) via selenium.

Usage: browser_interop.py PATH-TO-signinsim PATH-TO-repository
1. Runs the bundled library plus one scenario made to fail, with --html and --har-dir, and
   opens the report from disk with the browser's network off: no console error; a known
   scenario's diagram has the expected lifelines and two arrows per entry of its HAR; choosing
   the token response shows its decoded, verified ID token; unticking "passed" hides every
   passing scenario; screenshots of the summary and of the failing scenario.
2. Drives `signinsim serve`'s login and consent pages as a person would, from an authorization
   request with a loopback redirect URI to the callback a local listener catches, and redeems
   the code it carries.
Prints one line per check and "N passed, N failed"; exits 1 on any failure.
"""
import http.server
import json
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
import threading
import urllib.parse

import requests
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from interop_checks import check, finish
from interop_common.encoding import s256_challenge

BINARY, ROOT = sys.argv[1], sys.argv[2]
WORK = tempfile.mkdtemp(prefix="signinsim-browser-")
SHOTS = os.path.join(ROOT, ".build", "browser")
KNOWN = "scenarios/smoke/web-sign-in.yaml"
os.makedirs(SHOTS, exist_ok=True)


def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                     "--window-size=1400,1000", "--no-first-run", "--disable-extensions",
                     "--disable-background-networking", "--disable-component-update"]:
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    service = Service(executable_path=shutil.which("chromedriver") or "/usr/bin/chromedriver")
    driver = webdriver.Chrome(options=options, service=service)
    driver.set_page_load_timeout(60)
    return driver


# -- 1. the report

failing = os.path.join(WORK, "failing.yaml")
with open(os.path.join(ROOT, KNOWN)) as source, open(failing, "w") as target:
    text = source.read()
    target.write(text.replace("name: ", "name: Made to fail, ", 1)
                 + "  - expect:\n      claims: {email: somebody-else@example.com}\n")
report = os.path.join(WORK, "report.html")
hars = os.path.join(WORK, "har")
run = subprocess.run([BINARY, "run", "scenarios", failing, "--html", report, "--har-dir", hars,
                      "--report-json", os.path.join(WORK, "report.json")],
                     cwd=ROOT, capture_output=True, text=True, timeout=900)
if not check("run --html with one failing scenario exits 1 and writes the report", run.returncode == 1 and
             os.path.exists(report), run.stderr[-2000:]):
    finish()
size = os.path.getsize(report)
check("the report of the whole library is under 5 MB", size < 5_000_000, size)
with open(os.path.join(WORK, "report.json")) as file:
    results = json.load(file)["scenarios"]
known_index = next(i for i, s in enumerate(results) if s["file"] == KNOWN)
failing_index = next(i for i, s in enumerate(results) if s["status"] == "failed")
with open(results[known_index]["har"]) as file:
    har_entries = len(json.load(file)["log"]["entries"])

driver = browser()
try:
    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd("Network.emulateNetworkConditions", {
        "offline": True, "latency": 0, "downloadThroughput": 0, "uploadThroughput": 0})
    driver.get("file://" + report)
    WebDriverWait(driver, 30).until(lambda d: d.find_element(By.ID, "shown").text.endswith("shown"))
    errors = [entry for entry in driver.get_log("browser") if entry["level"] in ("SEVERE", "ERROR")]
    check("the report opens with no console error", not errors, errors[:3])
    requests_made = []
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message.get("method") == "Network.requestWillBeSent":
            url = message["params"]["request"]["url"]
            if not url.startswith("file://") and not url.startswith("data:"):
                requests_made.append(url)
    check("the report asks the network for nothing", not requests_made, requests_made[:3])
    driver.save_screenshot(os.path.join(SHOTS, "report-summary.png"))

    section = driver.find_element(By.ID, f"scenario-{known_index}")
    lifelines = [g.get_attribute("data-lifeline") for g in section.find_elements(By.CSS_SELECTOR, "g.lifeline")]
    check("the known scenario's diagram has the app, web session, keychain, issuer and Apple lifelines",
          lifelines == ["App com.example.app", "Web session", "Keychain", "Issuer", "Apple"], lifelines)
    arrows = section.find_elements(By.CSS_SELECTOR, "svg.diagram g.arrow")
    check("its diagram has two arrows per entry of its HAR", len(arrows) == 2 * har_entries,
          f"{len(arrows)} arrows, {har_entries} HAR entries")
    token_answers = [a for a in arrows if "response" in a.get_attribute("class")
                     and section.find_element(By.CSS_SELECTOR, f'g.arrow.request[data-exchange="{a.get_attribute("data-exchange")}"]')
                     .get_attribute("aria-label").endswith("/oauth/token")]
    check("the diagram has a token response to choose", bool(token_answers))
    if token_answers:
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", token_answers[0])
        token_answers[0].click()
        detail = section.find_element(By.ID, f"detail-{known_index}")
        WebDriverWait(driver, 10).until(lambda d: detail.find_elements(By.CSS_SELECTOR, ".token"))
        tokens = detail.find_elements(By.CSS_SELECTOR, ".token")
        id_tokens = [t for t in tokens if "id_token" in t.find_element(By.TAG_NAME, "h5").text]
        claims = json.loads(id_tokens[0].find_element(By.CSS_SELECTOR, ".jwt-claims").text) if id_tokens else {}
        verification = id_tokens[0].find_element(By.CSS_SELECTOR, ".verification").text if id_tokens else ""
        dates = [p.text for p in id_tokens[0].find_elements(By.CSS_SELECTOR, ".jwt-date")] if id_tokens else []
        check("clicking the token answer shows its ID token decoded, verified, with dates",
              claims.get("email") == "alice@example.com" and "aud" in claims
              and verification.startswith("verified with a key the run received")
              and any(d.startswith("exp: 20") for d in dates), (claims, verification, dates))

    driver.find_element(By.CSS_SELECTOR, 'input[name=status][value=passed]').click()
    visible = [s.get_attribute("data-status") for s in driver.find_elements(By.CSS_SELECTOR, "section.scenario")
               if s.is_displayed()]
    rows = [r.get_attribute("data-status") for r in driver.find_elements(By.CSS_SELECTOR, "#scenarios tbody tr")
            if r.is_displayed()]
    check("unticking passed hides every passing scenario and leaves the failing one",
          visible == ["failed"] and rows == ["failed"], (visible[:5], rows[:5]))
    failed_section = driver.find_element(By.ID, f"scenario-{failing_index}")
    driver.execute_script("arguments[0].scrollIntoView()", failed_section)
    band = failed_section.find_elements(By.CSS_SELECTOR, "g.band.failed")
    box = failed_section.find_elements(By.CSS_SELECTOR, ".failure dt")
    check("the failing scenario marks its failed step in the diagram and shows expected and actual",
          len(band) == 1 and [b.text for b in box] == ["Expected", "Actual"], (len(band), [b.text for b in box]))
    failed_section.screenshot(os.path.join(SHOTS, "report-failing-scenario.png"))
    driver.execute_cdp_cmd("Emulation.setPageScaleFactor", {"pageScaleFactor": 2})
    overflow = driver.execute_script(
        "return document.documentElement.scrollWidth > document.documentElement.clientWidth * 1.05")
    check("at 200% the page body does not overflow sideways (diagrams scroll in their own box)",
          not overflow)
finally:
    driver.quit()

# -- 1b. a replay side by side: field bug 1's capture replayed with the correct SDK diverges

race = next(s["har"] for s in results if s["file"] == "scenarios/field-bugs/01-refresh-rotation-race.yaml")
replay_page = os.path.join(WORK, "replay.html")
replayed = subprocess.run([BINARY, "replay", race, "--sdk-profile", "default", "--html", replay_page],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
check("replay --html of a capture the correct SDK diverges from exits 1 and writes the page",
      replayed.returncode == 1 and os.path.exists(replay_page), replayed.stderr[-1000:])
if os.path.exists(replay_page):
    driver = browser()
    try:
        driver.get("file://" + replay_page)
        WebDriverWait(driver, 30).until(lambda d: d.find_elements(By.ID, "diagram-1"))
        errors = [entry for entry in driver.get_log("browser") if entry["level"] in ("SEVERE", "ERROR")]
        check("the replay page opens with no console error", not errors, errors[:3])
        marked = [len(driver.find_elements(By.CSS_SELECTOR, f"#diagram-{side} g.arrow.diverges")) for side in (0, 1)]
        check("the recorded and the replayed story are side by side, divergences marked on both",
              marked[0] > 0 and marked[1] > 0, marked)
        first = driver.find_element(By.CSS_SELECTOR, "#diagram-1 g.arrow.diverges")
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", first)
        first.click()
        WebDriverWait(driver, 10).until(lambda d: d.find_element(By.ID, "detail-1").find_elements(By.TAG_NAME, "h4"))
        check("a marked arrow opens its exchange and says why it parts",
              "parts from the other story" in (first.get_attribute("aria-label") or ""))
        driver.save_screenshot(os.path.join(SHOTS, "replay-side-by-side.png"))
    finally:
        driver.quit()

# -- 2. the issuer's pages, for a person

issuer = subprocess.Popen([BINARY, "serve", "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
caught = {}


class Callback(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        if not self.path.startswith("/callback"):
            # The browser also asks the callback's host for /favicon.ico: nothing there.
            self.send_response(204)
            self.end_headers()
            return
        caught["url"] = self.path
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.end_headers()
        self.wfile.write(b"<!DOCTYPE html><title>Signed in</title><p>You can close this window.</p>")

    def log_message(self, *arguments):
        pass


listener = http.server.HTTPServer(("127.0.0.1", 0), Callback)
threading.Thread(target=listener.serve_forever, daemon=True).start()
driver = browser()
try:
    first = issuer.stdout.readline().strip()
    base = first.split("issuer: ", 1)[-1]
    redirect_uri = f"http://127.0.0.1:{listener.server_port}/callback"
    verifier = secrets.token_urlsafe(48)
    challenge = s256_challenge(verifier)
    state = secrets.token_urlsafe(16)
    discovery = requests.get(base + "/.well-known/openid-configuration", timeout=10).json()
    query = urllib.parse.urlencode({
        "response_type": "code", "client_id": "com.example.app", "redirect_uri": redirect_uri,
        "scope": "openid profile email", "state": state, "nonce": secrets.token_urlsafe(16),
        "code_challenge": challenge, "code_challenge_method": "S256", "prompt": "consent"})
    driver.get(discovery["authorization_endpoint"] + "?" + query)
    WebDriverWait(driver, 20).until(lambda d: d.find_elements(By.CSS_SELECTOR, "input[type=password]"))
    check("the authorization request shows a login form in the browser", True)
    driver.find_element(By.NAME, "username").send_keys("alice@example.com")
    driver.find_element(By.CSS_SELECTOR, "input[type=password]").send_keys("alice-password")
    driver.save_screenshot(os.path.join(SHOTS, "issuer-login.png"))
    driver.find_element(By.CSS_SELECTOR, "form button[type=submit], form input[type=submit]").click()

    def consent_or_callback(d):
        return "url" in caught or d.find_elements(By.CSS_SELECTOR, "form button[value=approve], form button[name=approve]")
    WebDriverWait(driver, 20).until(consent_or_callback)
    saw_consent = "url" not in caught
    if saw_consent:
        driver.save_screenshot(os.path.join(SHOTS, "issuer-consent.png"))
        approve = driver.find_elements(By.CSS_SELECTOR, "form button[value=approve], form button[name=approve]")
        approve[0].click()
    WebDriverWait(driver, 20).until(lambda d: "url" in caught)
    check("prompt=consent shows a consent form a person can approve", saw_consent)
    params = urllib.parse.parse_qs(urllib.parse.urlparse(caught.get("url", "")).query)
    check("the browser reaches the loopback callback with a code and the state sent",
          params.get("state") == [state] and params.get("code"), caught)
    token = requests.post(discovery["token_endpoint"], data={
        "grant_type": "authorization_code", "client_id": "com.example.app", "code": params.get("code", [""])[0],
        "redirect_uri": redirect_uri, "code_verifier": verifier}, timeout=10)
    check("the code the browser brought back redeems for tokens", token.status_code == 200
          and "id_token" in token.json(), token.text[:300])
    errors = [entry for entry in driver.get_log("browser") if entry["level"] in ("SEVERE", "ERROR")]
    check("the issuer's pages raise no console error", not errors, errors[:3])
finally:
    driver.quit()
    listener.shutdown()
    issuer.terminate()
    issuer.wait(timeout=20)

shutil.rmtree(WORK, ignore_errors=True)
finish()
