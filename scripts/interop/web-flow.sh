#!/usr/bin/env bash
# Web-flow interop: `signinsim sign-in` (the SDK model on a simulated phone) against issuers
# nobody here wrote, started on loopback: django-oauth-toolkit (a Django project with OIDC,
# PKCE required, a public client with a custom-scheme redirect and a confidential one) and
# oidc-provider-mock. Discovery drives everything; the login, consent and authorize pages are
# theirs, filled by the scripted user.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
binary="$(cd "$root" && swift build --show-bin-path)/signinsim"
[ -x "$binary" ] || (cd "$root" && swift build --product signinsim >/dev/null)
python="$("$root/scripts/python-env" 'requests>=2.31')"

work="$(mktemp -d)"
# shellcheck source=providers/lib.sh
source "$root/scripts/interop/providers/lib.sh"
cleanup() { stop_providers >/dev/null 2>&1 || true; rm -rf "$work"; }
trap cleanup EXIT
trap 'exit 130' INT TERM

start_django_oidc "$work/django" >/dev/null
start_oidc_provider_mock "$work/mock" >/dev/null

passed=0
failed=0
# check NAME EXPECTED-EXIT PYTHON-ASSERTION -- signinsim arguments…
# The assertion is a Python expression over `out` (parsed JSON or None) and `err` (stderr).
check() {
    local name="$1" expected="$2" assertion="$3"
    shift 4
    local status=0
    timeout 120 "$binary" "$@" >"$work/out" 2>"$work/err" || status=$?
    if [ "$status" = "$expected" ] && "$python" - "$work/out" "$work/err" "$assertion" <<'PY'
import json, sys
text = open(sys.argv[1]).read()
err = open(sys.argv[2]).read()
out = json.loads(text) if text.strip() else None
sys.exit(0 if eval(sys.argv[3]) else 1)
PY
    then
        echo "ok   $name"
        passed=$((passed + 1))
    else
        echo "FAIL $name (exit $status, expected $expected)"
        sed 's/^/     /' "$work/err" | head -8
        failed=$((failed + 1))
    fi
}

dot=(--issuer "$DJANGO_OIDC_ISSUER" --redirect-uri "$DJANGO_OIDC_REDIRECT_URI")
check "django-oauth-toolkit: public client, PKCE, login and consent pages, ID token" 0 \
    "out['subject'] == '1' and out['claims']['iss'] == '$DJANGO_OIDC_ISSUER' and out['claims']['preferred_username'] == 'alice'" \
    -- sign-in "${dot[@]}" --client-id "$DJANGO_OIDC_CLIENT_ID" --username alice --password alice-password
check "django-oauth-toolkit: refresh (rotated), and end session in the sheet (logout form confirmed, redirect with state)" 0 \
    "out['refreshed'] and out['has_refresh_token'] and out['signed_out_at_issuer'] and out['sign_out'] == 'ended at the issuer'" \
    -- sign-in "${dot[@]}" --client-id "$DJANGO_OIDC_CLIENT_ID" --username alice --password alice-password --refresh --sign-out \
    --post-logout-redirect-uri com.example.app://auth/signed-out
check "django-oauth-toolkit: without a post-logout redirect URI the sign-out is unconfirmed, not claimed" 0 \
    "not out['signed_out_at_issuer'] and out['sign_out'].startswith('unconfirmed')" \
    -- sign-in "${dot[@]}" --client-id "$DJANGO_OIDC_CLIENT_ID" --username alice --password alice-password --sign-out
check "django-oauth-toolkit: confidential client with a secret (HTTP Basic)" 0 \
    "out['subject'] == '1' and out['refreshed']" \
    -- sign-in "${dot[@]}" --client-id "$DJANGO_OIDC_CONFIDENTIAL_CLIENT_ID" \
    --client-secret "$DJANGO_OIDC_CONFIDENTIAL_CLIENT_SECRET" --username alice --password alice-password --refresh
check "django-oauth-toolkit: the confidential client without its secret is refused" 1 \
    "'token_request_failed' in err and 'invalid_client' in err" \
    -- sign-in "${dot[@]}" --client-id "$DJANGO_OIDC_CONFIDENTIAL_CLIENT_ID" --username alice --password alice-password
check "django-oauth-toolkit: the confidential client with client_secret_post" 0 \
    "out['subject'] == '1'" \
    -- sign-in "${dot[@]}" --client-id "$DJANGO_OIDC_CONFIDENTIAL_CLIENT_ID" \
    --client-secret "$DJANGO_OIDC_CONFIDENTIAL_CLIENT_SECRET" --client-auth-method client_secret_post \
    --username alice --password alice-password
check "django-oauth-toolkit: a wrong secret is invalid_client, naming the method" 1 \
    "'invalid_client' in err and '(client authentication: client_secret_post)' in err" \
    -- sign-in "${dot[@]}" --client-id "$DJANGO_OIDC_CONFIDENTIAL_CLIENT_ID" --client-secret wrong \
    --client-auth-method client_secret_post --username alice --password alice-password
check "django-oauth-toolkit: no prompt sent (--prompt omit) still signs in with a refresh token" 0 \
    "out['has_refresh_token']" \
    -- sign-in "${dot[@]}" --client-id "$DJANGO_OIDC_CLIENT_ID" --username alice --password alice-password \
    --prompt omit --login-hint alice --ui-locales en
check "django-oauth-toolkit: a wrong password is login_rejected" 1 \
    "'step sign-in' in err and 'login_rejected' in err" \
    -- sign-in "${dot[@]}" --client-id "$DJANGO_OIDC_CLIENT_ID" --username alice --password wrong
check "django-oauth-toolkit: denying consent is access_denied" 1 \
    "'authorization_denied' in err and 'access_denied' in err" \
    -- sign-in "${dot[@]}" --client-id "$DJANGO_OIDC_CLIENT_ID" --username alice --password alice-password --deny-consent
check "django-oauth-toolkit: exact issuer comparison still passes (no trailing slash either side)" 0 \
    "out['subject'] == '1'" \
    -- sign-in "${dot[@]}" --client-id "$DJANGO_OIDC_CLIENT_ID" --username alice --password alice-password --profile exact-issuer-match

mock=(--issuer "$OIDC_PROVIDER_MOCK_ISSUER" --client-id com.example.app --client-secret any-secret --fill sub=alice)
check "oidc-provider-mock: authorize page filled (sub=alice), code exchange, ID token with nonce" 0 \
    "out['subject'] == 'alice' and out['claims']['iss'] == '$OIDC_PROVIDER_MOCK_ISSUER'" \
    -- sign-in "${mock[@]}"
check "oidc-provider-mock: refresh without refresh_token in the response keeps the old one (field bug 3)" 0 \
    "out['refreshed'] and out['has_refresh_token']" \
    -- sign-in "${mock[@]}" --refresh --sign-out
check "oidc-provider-mock: the faulty profile drops it (field bug 3 reproduced)" 0 \
    "out['refreshed'] and not out['has_refresh_token']" \
    -- sign-in "${mock[@]}" --refresh --profile drop-refresh-token
check "oidc-provider-mock: --deny-consent fails when no consent page is shown" 1 \
    "'consent_not_shown' in err and out is None" \
    -- sign-in "${mock[@]}" --deny-consent
check "oidc-provider-mock: no client secret is refused (invalid_client)" 1 \
    "'invalid_client' in err" \
    -- sign-in --issuer "$OIDC_PROVIDER_MOCK_ISSUER" --client-id com.example.app --fill sub=alice

# The smoke suite, unchanged, against a real issuer: discovery drives the endpoints. One job
# at a time: the Django test project's SQLite database answers 500 to concurrent writes.
smoke_status=0
timeout 300 "$binary" run "$root/scenarios/smoke" --jobs 1 --report-json "$work/smoke.json" \
    -e ISSUER="$DJANGO_OIDC_ISSUER" -e CLIENT_ID="$DJANGO_OIDC_CLIENT_ID" \
    -e REDIRECT_URI="$DJANGO_OIDC_REDIRECT_URI" -e USERNAME=alice -e PASSWORD=alice-password \
    -e LOGIN_PATH=/accounts/login/ >"$work/out" 2>"$work/err" || smoke_status=$?
if [ "$smoke_status" = 0 ] && grep -q "3 passed, 0 failed" "$work/out"; then
    echo "ok   django-oauth-toolkit: the bundled smoke scenarios pass unchanged"
    passed=$((passed + 1))
else
    echo "FAIL django-oauth-toolkit: the bundled smoke scenarios (exit $smoke_status)"
    sed 's/^/     /' "$work/out" "$work/err" | head -20
    failed=$((failed + 1))
fi

# Again with the confidential client, its secret sent in the body as registered.
smoke_status=0
timeout 300 "$binary" run "$root/scenarios/smoke" --jobs 1 \
    -e ISSUER="$DJANGO_OIDC_ISSUER" -e CLIENT_ID="$DJANGO_OIDC_CONFIDENTIAL_CLIENT_ID" \
    -e CLIENT_SECRET="$DJANGO_OIDC_CONFIDENTIAL_CLIENT_SECRET" -e CLIENT_AUTH_METHOD=client_secret_post \
    -e REDIRECT_URI="$DJANGO_OIDC_REDIRECT_URI" -e USERNAME=alice -e PASSWORD=alice-password \
    -e LOGIN_PATH=/accounts/login/ >"$work/out" 2>"$work/err" || smoke_status=$?
if [ "$smoke_status" = 0 ] && grep -q "3 passed, 0 failed" "$work/out"; then
    echo "ok   django-oauth-toolkit: the smoke scenarios with a confidential client (client_secret_post)"
    passed=$((passed + 1))
else
    echo "FAIL django-oauth-toolkit: the smoke scenarios with a confidential client (exit $smoke_status)"
    sed 's/^/     /' "$work/out" "$work/err" | head -20
    failed=$((failed + 1))
fi

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
