"""Hostile requests against a running `signinsim serve`: what an attacker's page, a fuzzing
client or a careless script sends, over raw sockets so that the framing itself can be wrong.

Usage: hostile_requests.py SIGNINSIM-BINARY [COUNT]

Starts `signinsim serve --port 0`, sends COUNT (default 20,000) requests generated from a fixed
seed across every endpoint of the issuer and of the simulated Apple (admin API included), one
connection per request, eight at a time, and checks:

- the server never dies (the process is alive at the end, and its standard error has no Swift
  runtime trap);
- every request gets exactly one well-formed HTTP/1.1 response within 5 s (a response whose
  status line comes twice, or no answer, counts as a hang or a framing error); a request that
  announces more body than it sends is answered or closed within 12 s (the server's 10 s
  connection timeout);
- no 5xx: nothing is injected here, so a 5xx is a bug;
- every 4xx from the token, revocation and admin endpoints (issuer and Apple) has a JSON body
  with an `error` member (RFC 6749 §5.2), and every 401 from UserInfo to a request that sent a
  bearer token says `error` in its `WWW-Authenticate` header or body (RFC 6750 §3.1);
- the server's resident memory (VmRSS) stays under RSS_LIMIT_MB (default 400);
- a normal sign-in (`signinsim sign-in --issuer …`) still works afterwards.

Prints one `ok   NAME` / `FAIL NAME: detail` line per check, the counts by status, and
`N passed, M failed`; exits 1 when a check failed.
"""
import collections
import concurrent.futures
import json
import os
import random
import re
import socket
import subprocess
import sys
import threading
import time
from urllib.parse import quote, urlsplit

SEED = 27
TIMEOUT = 5.0
# A request that announces more body than it sends stalls on the client's side: the server can
# only give up on it, which it does after its connection timeout (10 s).
STALLED_TIMEOUT = 20.0
# libmicrohttpd 0.9.75 (Debian 12) sends its own 400/413 for an unreadable Content-Length with
# the status line and headers twice. The server answers such requests itself when the header
# block arrives with the request line (HTTPServer's URI callback); a header block too big for one
# read (over 16 KiB here) is parsed by libmicrohttpd before the server sees it. Those are counted
# and printed as a known upstream defect, not as a failure; docs/reliability.md says so.
KNOWN_DOUBLED_HEADER_BYTES = 16 * 1024
RSS_LIMIT_MB = int(os.environ.get("RSS_LIMIT_MB", "400"))
PARALLEL = 8

JSON_ERROR_PATHS = ("/oauth/token", "/oauth/revoke", "/_admin/", "/apple/auth/token", "/apple/auth/revoke",
                    "/apple/_admin/")

GARBAGE = [
    "", "a", "%", "%zz", "%00", "%C3", "%C3%28", "\u00e9", "\U0001F600", "'", '"', "<script>", "../../etc/passwd",
    "${jndi:ldap://x}", "-1", "0", "1e999", "9223372036854775807", "-9223372036854775808", "NaN", "null",
    "true", "[]", "{}", "a" * 600, "é" * 300, "\\", "\t", " ", "+", "=", "&", "#", "?", "//", "http://evil.test",
    "com.example.app://auth/callback", "http://x@127.0.0.1/callback", "http://127.0.0.1:1/callback",
    "com.example.app", "authorization_code", "refresh_token", "urn:ietf:params:oauth:grant-type:token-exchange",
    "S256", "plain", "openid", "openid profile email offline_access", "none", "consent", "login",
]

ISSUER_PATHS = [
    ("GET", "/.well-known/openid-configuration"), ("GET", "/.well-known/jwks.json"), ("GET", "/authorize"),
    ("POST", "/u/login"), ("POST", "/u/consent"), ("GET", "/u/login"), ("POST", "/oauth/token"),
    ("GET", "/userinfo"), ("POST", "/userinfo"), ("POST", "/oauth/revoke"), ("GET", "/oidc/logout"),
    ("POST", "/oidc/logout"),
]
ADMIN_PATHS = [
    ("POST", "/_admin/clock"), ("POST", "/_admin/faults"), ("GET", "/_admin/faults"), ("POST", "/_admin/users"),
    ("GET", "/_admin/users"), ("POST", "/_admin/clients"), ("GET", "/_admin/clients"),
    # The request log is read from its end only: read whole, it is up to 16 MiB a time, which
    # measures the client's reading speed, not the server's robustness.
    ("POST", "/_admin/tokens"), ("GET", "/_admin/requests?since=9223372036854775807"),
    ("POST", "/_admin/keys/rotate"),
]
APPLE_PATHS = [
    ("GET", "/apple/auth/keys"), ("POST", "/apple/auth/token"), ("POST", "/apple/auth/revoke"),
    ("POST", "/apple/_admin/authorize"), ("GET", "/apple/_admin/credential-state"),
    ("POST", "/apple/_admin/transfer"), ("POST", "/apple/_admin/developer-keys"),
]
PARAMETERS = [
    "response_type", "client_id", "redirect_uri", "scope", "state", "nonce", "code_challenge",
    "code_challenge_method", "prompt", "max_age", "login_hint", "grant_type", "code", "code_verifier",
    "refresh_token", "client_secret", "client_assertion", "client_assertion_type", "subject_token",
    "subject_token_type", "token", "token_type_hint", "id_token_hint", "post_logout_redirect_uri",
    "username", "password", "transaction", "csrf", "decision", "user_profile", "audience", "resource",
]
ADMIN_BODIES = [
    {"advance": 9223372036854775807}, {"advance": -9223372036854775808}, {"offset": 9223372036854775807},
    {"advance": 4611686018427387904}, {"offset": 1e308}, {"advance": "1"}, {"advance": None}, {"offset": []},
    # Fault bodies are all refused ones: an armed fault makes the server slow or 5xx on purpose,
    # which is not what this check is looking for.
    {"fault": "http-503", "count": -1}, {"fault": "nope"}, {"fault": "http-delay", "count": 0},
    {"fault": "http-503", "count": 10 ** 12},
    {"email": ""}, {"email": "a" * 5000}, {"client_id": "x", "redirect_uris": ["http://x@127.0.0.1/cb"]},
    {"client_id": "com.example.app", "email": "alice@example.com", "count": 10 ** 9}, {"alg": "HS256"},
    {"alg": None}, [], "string", 1, None,
]


def random_value(rng):
    if rng.random() < 0.15:
        return "".join(chr(rng.randrange(0x20, 0x7F)) for _ in range(rng.randrange(0, 80)))
    return rng.choice(GARBAGE)


def form(rng, count=None):
    count = rng.randrange(0, 12) if count is None else count
    pairs = []
    for _ in range(count):
        name = rng.choice(PARAMETERS) if rng.random() < 0.8 else random_value(rng)
        pairs.append(f"{quote(name, safe='')}={quote(random_value(rng), safe='') if rng.random() < 0.8 else random_value(rng)}")
    return "&".join(pairs)


def jwt_like(rng):
    parts = [rng.choice(["eyJhbGciOiJub25lIn0", "eyJhbGciOiJFUzI1NiIsImtpZCI6IngifQ", "e30", "", "%%%", "a" * 50])
             for _ in range(rng.choice([1, 2, 3, 3, 3, 5]))]
    return ".".join(parts)


def build(rng, host):
    """One hostile request as raw bytes, and the path it targets."""
    roll = rng.random()
    headers = {"Host": host, "Connection": "close", "User-Agent": "hostile/1"}
    body = b""
    if roll < 0.55:
        method, path = rng.choice(ISSUER_PATHS + APPLE_PATHS)
    elif roll < 0.75:
        method, path = rng.choice(ADMIN_PATHS + [p for p in APPLE_PATHS if "_admin" in p[1]])
    elif roll < 0.85:
        method = rng.choice(["GET", "POST", "PUT", "DELETE", "OPTIONS", "HEAD", "PATCH", "BREW", "get"])
        path = "/" + rng.choice(["", "a" * rng.randrange(1, 2000), "a" * 510 + "é", "%ff%fe", "..%2f..%2f", "//",
                                 "_admin", "_admin/../_admin/users", "apple", "apple/../oauth/token",
                                 quote("é" * rng.randrange(1, 400))])
    else:
        method, path = rng.choice(ISSUER_PATHS + ADMIN_PATHS + APPLE_PATHS)
        edge = rng.randrange(8)
        if edge == 0:
            headers["Cookie"] = "; ".join(f"c{i}=v{i}" for i in range(rng.choice([50, 500])))
        elif edge == 1:
            headers["Cookie"] = "x=" + "a" * rng.choice([4000, 17000])
        elif edge == 2:
            path += "?" + "&".join(f"p{i}=v" for i in range(rng.choice([100, 463, 600])))
        elif edge == 3:
            for i in range(rng.choice([50, 120])):
                headers[f"X-Extra-{i}"] = "v" * 20
        elif edge == 4:
            headers["Host"] = rng.choice(["evil.test", "evil.test:80", "127.0.0.1.evil.test", host + ".evil.test"])
        elif edge == 5:
            headers["Origin"] = rng.choice(["http://evil.test", "null", "http://127.0.0.1:1"])
        elif edge == 6:
            headers["Authorization"] = rng.choice(["Basic", "Basic %%%", "Basic " + "A" * 3000, "Bearer",
                                                   "Bearer " + jwt_like(rng), "DPoP " + jwt_like(rng), "Digest x"])
        else:
            headers["DPoP"] = jwt_like(rng)
    if method in ("GET", "get", "HEAD", "DELETE", "OPTIONS") and "?" not in path and rng.random() < 0.7:
        query = form(rng)
        if query:
            path += "?" + query
    if method in ("POST", "PUT", "PATCH", "BREW"):
        if "_admin" in path and rng.random() < 0.7:
            body = json.dumps(rng.choice(ADMIN_BODIES)).encode()
            headers["Content-Type"] = rng.choice(["application/json", "application/json", "text/plain",
                                                  "application/x-www-form-urlencoded"])
        else:
            kind = rng.randrange(6)
            if kind == 0:
                body = ("{" * rng.randrange(1, 3000)).encode()
                headers["Content-Type"] = "application/json"
            elif kind == 1:
                body = rng.randbytes(rng.randrange(0, 2000))
                headers["Content-Type"] = rng.choice(["application/x-www-form-urlencoded", "text/plain", "",
                                                      "multipart/form-data; boundary=x"])
            else:
                body = form(rng).encode()
                headers["Content-Type"] = "application/x-www-form-urlencoded"
        roll = rng.random()
        if roll < 0.002:
            headers["Content-Length"] = str(len(body) + 10)  # stalls: the server must time it out
        elif roll < 0.05:
            headers["Content-Length"] = rng.choice(["-1", "abc", "99999999999999999999", "1, 2"])
        else:
            headers["Content-Length"] = str(len(body))
    if path.startswith("/") is False:
        path = "/" + path
    head = f"{method} {path} HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers.items()) + "\r\n"
    return head.encode("utf-8", "surrogateescape") + body, method, path.split("?")[0], headers


def exchange(port, raw, limit=TIMEOUT):
    """Sends raw bytes on a fresh connection and reads to the end (Connection: close), at most
    `limit` seconds in all. Returns (elapsed, data, timed_out)."""
    started = time.monotonic()
    data = b""
    with socket.create_connection(("127.0.0.1", port), timeout=limit) as connection:
        try:
            connection.sendall(raw)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the server may answer and close before reading everything: read the answer
        while True:
            left = limit - (time.monotonic() - started)
            if left <= 0:
                return time.monotonic() - started, data, True
            connection.settimeout(left)
            try:
                chunk = connection.recv(65536)
            except socket.timeout:
                return time.monotonic() - started, data, True
            except ConnectionResetError:
                break
            if not chunk:
                break
            data += chunk
    return time.monotonic() - started, data, False


STATUS_LINE = re.compile(rb"HTTP/1\.[01] (\d{3})[^\r\n]*\r\n")


def parse(data):
    """(status, headers, body, extra status lines) of one response, or None when there is none."""
    match = STATUS_LINE.match(data)
    if not match:
        return None
    head_end = data.find(b"\r\n\r\n")
    if head_end < 0:
        return None
    headers = {}
    for line in data[match.end():head_end].split(b"\r\n"):
        name, _, value = line.partition(b":")
        headers[name.strip().lower().decode("latin-1")] = value.strip().decode("latin-1")
    body = data[head_end + 4:]
    if "content-length" in headers and headers["content-length"].isdigit():
        length = int(headers["content-length"])
        extra = body[length:]
        body = body[:length]
    else:
        extra = b""
    repeated = len(STATUS_LINE.findall(extra)) + (1 if STATUS_LINE.match(body) else 0)
    return int(match.group(1)), headers, body, repeated


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def main():
    binary = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 20_000
    server = subprocess.Popen([binary, "serve", "--port", "0"], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    stderr_lines = []
    threading.Thread(target=lambda: stderr_lines.extend(server.stderr), daemon=True).start()
    issuer = server.stdout.readline().split("issuer: ", 1)[-1].strip()
    port = urlsplit(issuer).port
    host = f"127.0.0.1:{port}"
    rng = random.Random(SEED)
    requests = [build(rng, host) for _ in range(count)]
    statuses = collections.Counter()
    problems = collections.defaultdict(list)
    slowest = 0.0
    peak_rss = rss_mb(server.pid)
    lock = threading.Lock()

    def one(item):
        raw, method, path, headers = item
        body_length = len(raw) - raw.find(b"\r\n\r\n") - 4
        announced = headers.get("Content-Length", "")
        stalled = announced.isdigit() and int(announced) > body_length and len(announced) < 10
        limit = STALLED_TIMEOUT if stalled else TIMEOUT
        try:
            elapsed, data, timed_out = exchange(port, raw, limit)
        except OSError as error:
            return ("connection", f"{method} {path[:80]}: {error}", None, 0.0)
        if timed_out:
            return ("hang", f"{method} {path[:80]} got {len(data)} bytes in {limit:g} s", None, elapsed)
        parsed = parse(data)
        if parsed is None and stalled and not data:
            return (None, None, "closed", elapsed)  # the body never came: closed at the timeout
        if parsed is None:
            if not data and method in ("get", "BREW"):
                return (None, None, "closed", elapsed)  # not HTTP methods: closing is an answer
            return ("framing", f"{method} {path[:80]}: no response ({data[:60]!r})", None, elapsed)
        status, response_headers, body, repeated = parsed
        readable_length = announced.isdigit() and len(announced) < 19
        if repeated and len(raw) - body_length > KNOWN_DOUBLED_HEADER_BYTES and not readable_length:
            return ("known-doubled", f"{method} {path[:60]}: Content-Length {announced[:24]!r}", status, elapsed)
        if repeated:
            return ("framing", f"{method} {path[:80]}: {repeated + 1} status lines", status, elapsed)
        if status >= 500 and not (status == 501 and method in ("get", "BREW", "PATCH", "PUT")):
            return ("5xx", f"{method} {path[:80]}: {status} {body[:120]!r}", status, elapsed)
        if 400 <= status < 500 and method != "HEAD" and any(path.startswith(p) for p in JSON_ERROR_PATHS):
            try:
                document = json.loads(body)
                ok = isinstance(document, dict) and isinstance(document.get("error"), str)
            except ValueError:
                ok = False
            # A refusal before routing (Host, framing) is the server's, not the endpoint's.
            if not ok and status not in (405, 414, 431) and path in {p for _, p in ISSUER_PATHS + ADMIN_PATHS + APPLE_PATHS}:
                return ("error-body", f"{method} {path[:80]}: {status} without a JSON error ({body[:100]!r})",
                        status, elapsed)
        # RFC 6750 §3.1: a request without credentials gets a challenge without an error code.
        if status == 401 and path == "/userinfo" and headers.get("Authorization", "").startswith("Bearer "):
            if "error" not in response_headers.get("www-authenticate", "") and b"error" not in body:
                return ("error-body", f"{method} {path}: 401 without error", status, elapsed)
        return (None, None, status, elapsed)

    started = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(PARALLEL) as pool:
        for index, (kind, detail, status, elapsed) in enumerate(pool.map(one, requests)):
            statuses[status] += 1
            slowest = max(slowest, elapsed)
            if kind:
                problems[kind].append(detail)
            if index % 1000 == 0:
                peak_rss = max(peak_rss, rss_mb(server.pid) if server.poll() is None else 0)
    duration = time.monotonic() - started
    alive = server.poll() is None
    if alive:
        peak_rss = max(peak_rss, rss_mb(server.pid))

    # The hostile admin calls may have replaced the default client: back to the tenant first.
    sign_in = None
    if alive:
        exchange(port, f"POST /_admin/reset HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
                 f"Content-Length: 2\r\nConnection: close\r\n\r\n{{}}".encode())
        sign_in = subprocess.run([binary, "sign-in", "--issuer", issuer], capture_output=True, text=True,
                                 timeout=60)
    server.terminate()
    try:
        server.wait(timeout=10)
    except subprocess.TimeoutExpired:
        server.kill()
    trapped = [line for line in stderr_lines if "Fatal error" in line or "Illegal instruction" in line]

    passed = failed = 0

    def report(name, ok, detail=""):
        nonlocal passed, failed
        if ok:
            print(f"ok   {name}")
            passed += 1
        else:
            print(f"FAIL {name}: {detail}")
            failed += 1

    print(f"     {count} requests in {duration:.1f} s, slowest {slowest:.2f} s, peak RSS {peak_rss:.0f} MB")
    print("     by status: " + ", ".join(f"{k}: {v}" for k, v in sorted(statuses.items(), key=lambda p: str(p[0]))))
    report(f"{count} hostile requests: the server is alive and trapped nowhere", alive and not trapped,
           "; ".join(trapped[:3]) or "the process exited")
    for kind, name in [("hang", "every request answered within 5 s"),
                       ("framing", "every answer is one well-formed response"),
                       ("connection", "every connection accepted"),
                       ("5xx", "no 5xx"),
                       ("error-body", "every OAuth and admin 4xx has a JSON error body (RFC 6749 §5.2)")]:
        found = problems.get(kind, [])
        report(name, not found, f"{len(found)}: " + " | ".join(found[:3]))
    report(f"peak RSS under {RSS_LIMIT_MB} MB", peak_rss < RSS_LIMIT_MB, f"{peak_rss:.0f} MB")
    known = problems.get("known-doubled", [])
    if known:
        print(f"     known upstream: {len(known)} doubled libmicrohttpd answers to an unreadable Content-Length "
              f"after a header block over {KNOWN_DOUBLED_HEADER_BYTES // 1024} KiB: " + " | ".join(known[:2]))
    report("a normal sign-in still works afterwards", sign_in is not None and sign_in.returncode == 0,
           (sign_in.stderr[-300:] if sign_in else "server gone"))
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
