#!/usr/bin/env bash
# Glewlwyd (Debian's `glewlwyd`, an OpenID provider in C whose login, consent and logout pages
# are a JavaScript app) set up from nothing on loopback by providers/glewlwyd.sh, and driven by
# `signinsim sign-in` and the bundled smoke scenarios in the webkit engine, unchanged apart from
# -e settings. The lite engine, which runs no JavaScript, must say so rather than fail vaguely.
# The sign-out through a shared sheet is proven to end Glewlwyd's session by the smoke scenario
# that signs in again in the same shared store and sees the login form come back.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
python="$("$root/scripts/python-env" 'requests>=2.31')"

work="$(mktemp -d)"
# shellcheck source=sign_in_checks.bash
source "$root/scripts/interop/sign_in_checks.bash"
ensure_binaries
# shellcheck source=providers/glewlwyd.sh
source "$root/scripts/interop/providers/glewlwyd.sh"
cleanup() { stop_glewlwyd >/dev/null 2>&1 || true; rm -rf "$work"; }
trap cleanup EXIT
trap 'exit 130' INT TERM

start_glewlwyd "$work/glewlwyd" >/dev/null

client=(--issuer "$GLEWLWYD_ISSUER" --redirect-uri "$GLEWLWYD_REDIRECT_URI" --scope "$GLEWLWYD_SCOPES")
user=(--username "$GLEWLWYD_USERNAME" --password "$GLEWLWYD_PASSWORD")
signed_in="out['browser'] == 'webkit' and out['claims']['iss'] == '$GLEWLWYD_ISSUER' and out['id_token_alg'] == 'RS256' and out['claims']['email'] == '$GLEWLWYD_EMAIL'"

# Before any consent is given: a refusal Glewlwyd's pages cannot express (its consent page has
# no deny button) fails, and says why, rather than signing in.
check "glewlwyd (webkit): --deny-consent on a consent page without a deny button fails and says so" 1 \
    "out is None and 'no button to deny' in err" \
    -- sign-in --browser webkit "${client[@]}" --client-id "$GLEWLWYD_CLIENT_ID" "${user[@]}" --deny-consent
check "glewlwyd (webkit): the JavaScript login page, consent (scopes ticked), refresh, sign-out through a shared sheet" 0 \
    "$signed_in and out['refreshed'] and out['has_refresh_token'] and out['signed_out_at_issuer'] and out['sign_out'].startswith('ended at the issuer (verified: ') and 'without prompt' in out['sign_out'] and 'was shown the login form' in out['sign_out'] and out.get('seed') is None" \
    -- sign-in --browser webkit "${client[@]}" --client-id "$GLEWLWYD_CLIENT_ID" "${user[@]}" \
    --refresh --sign-out --shared-session --post-logout-redirect-uri "$GLEWLWYD_POST_LOGOUT_REDIRECT_URI"
check "glewlwyd (webkit): the confidential client (client_secret_basic) signs in and refreshes" 0 \
    "$signed_in and out['refreshed']" \
    -- sign-in --browser webkit "${client[@]}" --client-id "$GLEWLWYD_CONFIDENTIAL_CLIENT_ID" \
    --client-secret "$GLEWLWYD_CONFIDENTIAL_CLIENT_SECRET" --client-auth-method client_secret_basic "${user[@]}" --refresh
check "glewlwyd (webkit): a wrong password is login_rejected with the message the script wrote" 1 \
    "out is None and 'login_rejected' in err and 'the page shows no reason' not in err" \
    -- sign-in --browser webkit "${client[@]}" --client-id "$GLEWLWYD_CLIENT_ID" --username "$GLEWLWYD_USERNAME" \
    --password not-the-password
check "glewlwyd (lite): the script-built login page is javascript_required, naming --browser webkit" 1 \
    "out is None and 'javascript_required' in err and '--browser webkit' in err" \
    -- sign-in --browser lite "${client[@]}" --client-id "$GLEWLWYD_CLIENT_ID" "${user[@]}"
check "glewlwyd: without --browser, a real issuer's sheet runs in webkit" 0 "$signed_in" \
    -- sign-in "${client[@]}" --client-id "$GLEWLWYD_CLIENT_ID" "${user[@]}"

settings=(--browser webkit -e ISSUER="$GLEWLWYD_ISSUER" -e REDIRECT_URI="$GLEWLWYD_REDIRECT_URI"
    -e POST_LOGOUT_REDIRECT_URI="$GLEWLWYD_POST_LOGOUT_REDIRECT_URI" -e USERNAME="$GLEWLWYD_USERNAME"
    -e PASSWORD="$GLEWLWYD_PASSWORD" -e SCOPES="$GLEWLWYD_SCOPES")
smoke "glewlwyd (webkit): the smoke scenarios pass unchanged, sign-out at the issuer proven by the login form (public client)" \
    "${settings[@]}" -e CLIENT_ID="$GLEWLWYD_CLIENT_ID"
smoke "glewlwyd (webkit): the smoke scenarios pass unchanged (confidential client, client_secret_basic)" \
    "${settings[@]}" -e CLIENT_ID="$GLEWLWYD_CONFIDENTIAL_CLIENT_ID" \
    -e CLIENT_SECRET="$GLEWLWYD_CONFIDENTIAL_CLIENT_SECRET" -e CLIENT_AUTH_METHOD=client_secret_basic

# signinsim audit in the webkit engine (the pages need JavaScript): the public client audited,
# the confidential one for the client-binding checks. Every check's status is pinned in
# providers/audit-expected/glewlwyd.json; each one other than pass is Glewlwyd's own behaviour,
# explained in docs/interop.md ("Audits of real providers"). No loopback redirect URI is
# registered (the loopback checks are skipped), nor is the ten-minute code wait taken. Each of
# the audit's ~17 sheets loads Glewlwyd's JavaScript login app afresh, some 20 requests for its
# HTML, scripts, styles, fonts, translations and configuration, so the audit sends about 500
# requests where the lite-engine audits send under 100: its budget is raised to 800.
AUDIT_MAX_REQUESTS=800 audit "glewlwyd (webkit): signinsim audit's scorecard is the one hand-checked in audit-expected/glewlwyd.json" \
    "$root/scripts/interop/providers/audit-expected/glewlwyd.json" \
    -- --browser webkit "${client[@]}" --client-id "$GLEWLWYD_CLIENT_ID" "${user[@]}" \
    --other-client-id "$GLEWLWYD_CONFIDENTIAL_CLIENT_ID" --other-client-secret "$GLEWLWYD_CONFIDENTIAL_CLIENT_SECRET" \
    --post-logout-redirect-uri "$GLEWLWYD_POST_LOGOUT_REDIRECT_URI" --max-requests 800

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
