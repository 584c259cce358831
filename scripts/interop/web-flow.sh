#!/usr/bin/env bash
# Web-flow interop: `signinsim sign-in` (the SDK model on a simulated phone) and the bundled
# smoke scenarios, unchanged apart from -e settings, against OpenID providers nobody here wrote,
# each set up and started on loopback by scripts/interop/providers: django-oauth-toolkit,
# django-oidc-provider and django-allauth's provider (Django login forms with CSRF tokens,
# consent pages, RS256), pyop (ES256), and oidc-provider-mock. The first four each have a public
# client (PKCE) and a confidential one. Discovery drives everything; the login, consent and
# logout pages are theirs, filled by the scripted user. Whether a sign-out ended the provider's
# session is what signinsim checks afterwards (prompt=none in the shared browser store, else the
# refresh token the app held); each provider's answer is pinned below, hand-checked and explained
# in docs/interop.md. Last, `signinsim audit` of each of the four, every check's status pinned
# in providers/audit-expected (docs/interop.md, "Audits of real providers").
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
python="$("$root/scripts/python-env" 'requests>=2.31')"

work="$(mktemp -d)"
# shellcheck source=sign_in_checks.bash
source "$root/scripts/interop/sign_in_checks.bash"
ensure_binaries
# shellcheck source=providers/lib.sh
source "$root/scripts/interop/providers/lib.sh"
cleanup() { stop_providers >/dev/null 2>&1 || true; rm -rf "$work"; }
trap cleanup EXIT
trap 'exit 130' INT TERM

start_django_oidc "$work/django" >/dev/null
start_django_oidc_provider "$work/django-oidc-provider" >/dev/null
start_django_allauth "$work/django-allauth" >/dev/null
start_pyop "$work/pyop" >/dev/null
start_oidc_provider_mock "$work/mock" >/dev/null

# provider ENGINE NAME PREFIX ALGORITHM METHODS EPHEMERAL SHARED: what a QA engineer runs against
# any provider, with only what its client registrations hold: the one-shot sign-in with refresh
# and sign-out (public client, then the confidential one with each secret METHOD it accepts),
# refusals that name their cause, and the smoke scenarios with each client (the last METHOD).
# EPHEMERAL is the sign-out status an ephemeral sheet gets (no browser store to ask, so only the
# refresh token can prove it); SHARED names the proof a shared sheet's sign-out gets.
provider() {
    local engine="$1" name="$2 ($1)" prefix="$3" algorithm="$4" methods="$5" method
    local ephemeral="$6" shared="$7"
    local issuer_var="${prefix}_ISSUER" secret_var="${prefix}_CONFIDENTIAL_CLIENT_SECRET"
    local confidential_var="${prefix}_CONFIDENTIAL_CLIENT_ID"
    local issuer="${!issuer_var}" secret="${!secret_var}" confidential="${!confidential_var}"
    local client=(--browser "$engine" --issuer "$issuer" --redirect-uri com.example.app://auth/callback)
    local user=(--username alice --password alice-password)
    local out=(--refresh --sign-out --post-logout-redirect-uri com.example.app://auth/signed-out)
    local signed_in="out['claims']['iss'] == '$issuer' and out['id_token_alg'] == '$algorithm' and out['browser'] == '$engine'"
    local signed_out="out['sign_out_status'] == '$ephemeral' and out['signed_out_at_issuer'] == ('$ephemeral' == 'verified')"
    local all_done="$signed_in and out['refreshed'] and out['has_refresh_token'] and $signed_out and out.get('seed') is None"
    check "$name: public client: login form, consent page, $algorithm ID token, refresh, sign-out $ephemeral" 0 \
        "$all_done" -- sign-in "${client[@]}" --client-id com.example.app "${user[@]}" "${out[@]}"
    check "$name: a shared sheet's sign-out is verified by $shared" 0 \
        "out['sign_out_status'] == 'verified' and out['signed_out_at_issuer'] and '$shared' in out['sign_out']" \
        -- sign-in "${client[@]}" --client-id com.example.app "${user[@]}" "${out[@]}" --shared-session
    for method in $methods; do
        check "$name: confidential client ($method): sign-in, refresh, sign-out" 0 "$all_done" \
            -- sign-in "${client[@]}" --client-id "$confidential" --client-secret "$secret" \
            --client-auth-method "$method" "${user[@]}" "${out[@]}"
    done
    check "$name: a wrong secret is invalid_client, naming the method" 1 \
        "'invalid_client' in err and '(client authentication: $method)' in err" \
        -- sign-in "${client[@]}" --client-id "$confidential" --client-secret wrong \
        --client-auth-method "$method" "${user[@]}"
    check "$name: a wrong password is login_rejected" 1 "'login_rejected' in err and out is None" \
        -- sign-in "${client[@]}" --client-id com.example.app --username alice --password wrong
    check "$name: denying consent is access_denied" 1 "'access_denied' in err and out is None" \
        -- sign-in "${client[@]}" --client-id com.example.app "${user[@]}" --deny-consent
    local settings=(--browser "$engine" -e ISSUER="$issuer" -e REDIRECT_URI=com.example.app://auth/callback
        -e POST_LOGOUT_REDIRECT_URI=com.example.app://auth/signed-out -e USERNAME=alice
        -e PASSWORD=alice-password)
    smoke "$name: the smoke scenarios pass unchanged (public client)" "${settings[@]}" -e CLIENT_ID=com.example.app
    smoke "$name: the smoke scenarios pass unchanged (confidential client, $method)" \
        "${settings[@]}" -e CLIENT_ID="$confidential" -e CLIENT_SECRET="$secret" \
        -e CLIENT_AUTH_METHOD="$method"
}

both="client_secret_basic client_secret_post"
# Every provider in both engines: its pages are plain HTML forms, which lite reads and WebKit
# renders; the same assertions hold in each.
in_both_engines() {
    local engine
    for engine in lite webkit; do provider "$engine" "$@"; done
}

# What only django-oauth-toolkit shows: its logout confirmation, no prompt, exact issuers.
django_oauth_toolkit_only() {
    local dot=(--issuer "$DJANGO_OIDC_ISSUER" --redirect-uri "$DJANGO_OIDC_REDIRECT_URI")
    check "django-oauth-toolkit: without a post-logout redirect URI nothing comes back; the refresh token proves the sign-out" 0 \
        "out['signed_out_at_issuer'] and out['sign_out_evidence'][0].startswith('nothing came back to the app') and 'refresh token' in out['sign_out']" \
        -- sign-in "${dot[@]}" --client-id "$DJANGO_OIDC_CLIENT_ID" --username alice --password alice-password --sign-out
    check "django-oauth-toolkit: the confidential client without its secret is refused" 1 \
        "'token_request_failed' in err and 'invalid_client' in err" \
        -- sign-in "${dot[@]}" --client-id "$DJANGO_OIDC_CONFIDENTIAL_CLIENT_ID" --username alice --password alice-password
    check "django-oauth-toolkit: no prompt sent (--prompt omit) still signs in with a refresh token" 0 \
        "out['has_refresh_token']" \
        -- sign-in "${dot[@]}" --client-id "$DJANGO_OIDC_CLIENT_ID" --username alice --password alice-password \
        --prompt omit --login-hint alice --ui-locales en
    check "django-oauth-toolkit: exact issuer comparison still passes (no trailing slash either side)" 0 \
        "out['subject'] == '1'" \
        -- sign-in "${dot[@]}" --client-id "$DJANGO_OIDC_CLIENT_ID" --username alice --password alice-password --profile exact-issuer-match
}

# pyop (oic's AuthorizationRequest.verify) refuses offline_access without prompt=consent, where
# OpenID Connect Core §11 only asks the client to send it. The SDK's default prompt is what lets
# every other pyop sign-in pass.
pyop_only() {
    check "pyop: --prompt omit with offline_access is refused (invalid_request)" 1 \
        "'invalid_request' in err and out is None" \
        -- sign-in --issuer "$PYOP_ISSUER" --redirect-uri "$PYOP_REDIRECT_URI" --client-id "$PYOP_CLIENT_ID" \
        --username alice --password alice-password --prompt omit
}

# oidc-provider-mock: no login form of its own, a page to fill with the subject.
oidc_provider_mock_checks() {
    local mock=(--issuer "$OIDC_PROVIDER_MOCK_ISSUER" --client-id com.example.app --client-secret any-secret --fill sub=alice)
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
}

# signinsim audit (lite) against each provider: the public client is audited, the confidential
# one serves the checks that a code or refresh token of one client is refused to another. Every
# check's status is pinned in providers/audit-expected/NAME.json; each status other than pass is
# the provider's own behaviour, explained in docs/interop.md ("Audits of real providers"). The
# three Django providers register http://127.0.0.1/callback beside the app's scheme, for the
# loopback checks (pyop's registration has none: skipped there); the ten-minute wait of
# token.code-lifetime is not taken (skipped everywhere).
audit_provider() {
    local name="$1" prefix="$2"
    shift 2
    local issuer_var="${prefix}_ISSUER" confidential_var="${prefix}_CONFIDENTIAL_CLIENT_ID"
    local secret_var="${prefix}_CONFIDENTIAL_CLIENT_SECRET"
    audit "$name (lite): signinsim audit's scorecard is the one hand-checked in audit-expected/$name.json" \
        "$root/scripts/interop/providers/audit-expected/$name.json" \
        -- --browser lite --issuer "${!issuer_var}" --client-id com.example.app \
        --redirect-uri com.example.app://auth/callback \
        --other-client-id "${!confidential_var}" --other-client-secret "${!secret_var}" \
        --post-logout-redirect-uri com.example.app://auth/signed-out \
        --username alice --password alice-password "$@"
}
loopback=(--loopback-redirect-uri http://127.0.0.1/callback)

# Two groups of providers run side by side, each a provider at a time: a provider never sees two
# checks at once (the Django projects' SQLite databases answer 500 to concurrent writes), and the
# checks mostly wait on a provider or a sheet, so the two groups take little more than one.
django_oauth_toolkit_and_django_oidc_provider() {
    # django-oauth-toolkit deletes the user's tokens at RP-initiated logout, so the refresh token
    # proves it; it answers prompt=none with a 500 (its validator leaves validate_silent_login
    # unimplemented), so a shared sheet is proved by the login form shown without prompt.
    in_both_engines django-oauth-toolkit DJANGO_OIDC RS256 "$both" verified "was shown the login form"
    django_oauth_toolkit_only
    audit_provider django-oauth-toolkit DJANGO_OIDC "${loopback[@]}"
    # The next three end the browser session and keep the grant: an ephemeral sheet's sign-out is
    # only acknowledged (pyop answers the refresh with a 500, which proves nothing either way).
    in_both_engines django-oidc-provider DJANGO_OIDC_PROVIDER RS256 "$both" acknowledged "was answered login_required"
    audit_provider django-oidc-provider DJANGO_OIDC_PROVIDER "${loopback[@]}"
}
django_allauth_pyop_and_oidc_provider_mock() {
    in_both_engines django-allauth DJANGO_ALLAUTH RS256 "$both" acknowledged "was answered login_required"
    audit_provider django-allauth DJANGO_ALLAUTH "${loopback[@]}"
    # pyop accepts only the one method registered for the client (client_secret_basic here). It
    # answers prompt=none with id_token_hint with a 500 (oic verifies the hint without its keys:
    # MissingSigningKey), so a shared sheet is proved by the login form shown without prompt.
    in_both_engines pyop PYOP ES256 "$PYOP_CONFIDENTIAL_AUTH_METHOD" acknowledged "was shown the login form"
    pyop_only
    # pyop's confidential client is registered for one method, which the audit holds it to.
    audit_provider pyop PYOP --other-client-auth-method "$PYOP_CONFIDENTIAL_AUTH_METHOD"
    oidc_provider_mock_checks
}
# group GROUP: runs the function GROUP in a subshell with a work folder and counts of its own,
# its output in GROUP's folder, printed whole after the groups have ended.
group() {
    mkdir -p "$work/$1"
    (
        work="$work/$1"
        passed=0
        failed=0
        "$1"
        echo "$passed $failed" >"$work/counts"
    ) >"$work/$1/output" 2>&1
}
groups=(django_oauth_toolkit_and_django_oidc_provider django_allauth_pyop_and_oidc_provider_mock)
group_pids=()
for name in "${groups[@]}"; do
    group "$name" &
    group_pids+=("$!")
done
for pid in "${group_pids[@]}"; do wait "$pid" || true; done
for name in "${groups[@]}"; do
    cat "$work/$name/output"
    read -r group_passed group_failed <"$work/$name/counts" 2>/dev/null || {
        echo "FAIL the checks of $name did not finish"
        group_passed=0 group_failed=1
    }
    passed=$((passed + group_passed))
    failed=$((failed + group_failed))
done

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
