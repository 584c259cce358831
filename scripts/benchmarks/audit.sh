#!/usr/bin/env bash
# `signinsim audit` (release build): the requests and wall time of a full audit, against the
# embedded issuer and against django-oauth-toolkit on loopback, side by side in one run with its
# baseline: `signinsim sign-in --refresh --sign-out` against the same issuer, one native sign-in
# with what a smoke check sends. Each row is the median of ROUNDS runs (AUDIT_ROUNDS=5).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
swift build -c release --product signinsim >&2
binary="$(swift build -c release --show-bin-path)/signinsim"
rounds="${AUDIT_ROUNDS:-5}"
work="$(mktemp -d)"
# shellcheck source=../interop/providers/lib.sh
source "$root/scripts/interop/providers/lib.sh"
cleanup() { stop_providers >/dev/null 2>&1 || true; rm -rf "$work"; }
trap cleanup EXIT
start_django_oidc "$work/django" >/dev/null
python="$(scripts/python-env)"

"$python" - "$binary" "$rounds" "$DJANGO_OIDC_ISSUER" "$DJANGO_OIDC_CONFIDENTIAL_CLIENT_ID" \
    "$DJANGO_OIDC_CONFIDENTIAL_CLIENT_SECRET" <<'PY'
import json, statistics, subprocess, sys, time

binary, rounds, issuer, other, secret = sys.argv[1], int(sys.argv[2]), *sys.argv[3:]
dot = ["--issuer", issuer, "--client-id", "com.example.app", "--redirect-uri",
       "com.example.app://auth/callback", "--username", "alice", "--password", "alice-password",
       "--browser", "lite"]
audit_dot = dot + ["--other-client-id", other, "--other-client-secret", secret,
                   "--post-logout-redirect-uri", "com.example.app://auth/signed-out"]
rows = [
    ("baseline: sign-in --refresh --sign-out, embedded", ["sign-in", "--refresh", "--sign-out"], False),
    ("audit, embedded issuer", ["audit", "--format", "json"], True),
    ("baseline: sign-in --refresh --sign-out, django-oauth-toolkit", ["sign-in", *dot, "--refresh", "--sign-out"], False),
    ("audit, django-oauth-toolkit", ["audit", "--format", "json", *audit_dot], True),
]
print(f"{'run':62} {'wall ms':>9} {'requests':>9}")
for name, arguments, is_audit in rows:
    walls, requests = [], []
    for _ in range(rounds):
        started = time.monotonic()
        done = subprocess.run([binary, *arguments], capture_output=True, text=True)
        walls.append((time.monotonic() - started) * 1000)
        if is_audit:
            requests.append(json.loads(done.stdout)["requests"])
        elif done.returncode != 0:
            sys.exit(f"{name} failed: {done.stderr}")
    shown = f"{statistics.median(requests):9.0f}" if requests else f"{'—':>9}"
    print(f"{name:62} {statistics.median(walls):9.0f} {shown}")
PY
