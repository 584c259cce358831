# shellcheck shell=bash
# The pyop OpenID provider (IdentityPython's OP library behind a Flask front, ID tokens signed
# ES256; see providers/pyop_provider.py). lib.sh sources this file; it defines:
#
#   start_pyop DIR     installs pyop and Flask into the venv, serves the provider on 127.0.0.1
#                      with its output in DIR/server.log, prints "pyop issuer: URL", exports the
#                      variables below and writes them to DIR/env
#   stop_pyop [DIR]    idempotent, safe in an EXIT trap
#
# Exports PYOP_ISSUER (http://127.0.0.1:PORT, no path), PYOP_PORT, PYOP_PID, PYOP_DIR, PYOP_LOG,
# PYOP_CLIENT_ID (public, com.example.app), PYOP_CONFIDENTIAL_CLIENT_ID,
# PYOP_CONFIDENTIAL_CLIENT_SECRET, PYOP_CONFIDENTIAL_AUTH_METHOD, PYOP_REDIRECT_URI,
# PYOP_POST_LOGOUT_REDIRECT_URI, PYOP_USERNAME, PYOP_PASSWORD, PYOP_LOGIN_PATH.
#
# Read when starting: PYOP_CONFIDENTIAL_AUTH_METHOD (client_secret_basic, the default, or
# client_secret_post: pyop accepts only the one method registered for confidential-app),
# PYOP_ROTATE_REFRESH=1 (a new refresh token on every refresh), PYOP_LOGOUT_PROMPT=1 (a "Log out?"
# page at the end-session endpoint).
#
# Call start_pyop directly, not in $(...): the exported variables would be lost.

PYOP_REQUIREMENTS=('pyop>=3.5,<4' 'flask>=3')

start_pyop() {
    local dir="${1:?usage: start_pyop DIR}" python pid issuer
    python="$(providers_python "${PYOP_REQUIREMENTS[@]}")" || return 1
    mkdir -p "$dir"
    dir="$(cd "$dir" && pwd)"
    stop_pyop "$dir"
    "$python" "$PROVIDERS_DIR/pyop_provider.py" setup "$dir" >"$dir/setup.log" 2>&1 ||
        _providers_fail pyop "$dir/setup.log" || return 1
    rm -f "$dir/port"
    local auth_method="${PYOP_CONFIDENTIAL_AUTH_METHOD:-client_secret_basic}"
    env -u PORT PYOP_CONFIDENTIAL_AUTH_METHOD="$auth_method" \
        "$python" "$PROVIDERS_DIR/pyop_provider.py" serve "$dir" "$dir/port" </dev/null >"$dir/server.log" 2>&1 &
    pid=$!
    echo "$pid" >"$dir/server.pid"
    export PYOP_PID="$pid" PYOP_DIR="$dir" PYOP_LOG="$dir/server.log"
    if ! issuer="$(_providers_wait "$python" "$pid" "$dir/port" \
        'http://127.0.0.1:{port}/.well-known/openid-configuration')"; then
        stop_pyop "$dir"
        _providers_fail pyop "$dir/server.log"
        return 1
    fi
    export PYOP_ISSUER="$issuer" PYOP_PORT="$(cat "$dir/port")"
    export PYOP_CLIENT_ID=com.example.app
    export PYOP_CONFIDENTIAL_CLIENT_ID=confidential-app
    export PYOP_CONFIDENTIAL_CLIENT_SECRET=confidential-app-secret
    export PYOP_CONFIDENTIAL_AUTH_METHOD="$auth_method"
    export PYOP_REDIRECT_URI=com.example.app://auth/callback
    export PYOP_POST_LOGOUT_REDIRECT_URI=com.example.app://auth/signed-out
    export PYOP_USERNAME=alice PYOP_PASSWORD=alice-password
    export PYOP_LOGIN_PATH=/login
    local name
    for name in ISSUER PORT PID DIR LOG CLIENT_ID CONFIDENTIAL_CLIENT_ID CONFIDENTIAL_CLIENT_SECRET \
        CONFIDENTIAL_AUTH_METHOD REDIRECT_URI POST_LOGOUT_REDIRECT_URI USERNAME PASSWORD LOGIN_PATH; do
        name="PYOP_$name"
        printf '%s=%s\n' "$name" "${!name}"
    done >"$dir/env"
    echo "pyop issuer: $issuer"
}

stop_pyop() {
    local dir="${1:-${PYOP_DIR:-}}" pid="${PYOP_PID:-}"
    if [ -n "$dir" ] && [ -r "$dir/server.pid" ]; then
        pid="$(cat "$dir/server.pid")"
    fi
    _providers_stop "$pid" pyop_provider.py
    [ -z "$dir" ] || rm -f "$dir/server.pid" "$dir/port"
    unset PYOP_PID
    return 0
}
