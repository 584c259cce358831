# shellcheck shell=bash
# Third-party OpenID providers on loopback for the interop checks. Source this file, then:
#
#   start_django_oidc DIR            Django + django-oauth-toolkit, project generated in DIR
#   stop_django_oidc [DIR]
#   start_oidc_provider_mock DIR [OPTION...]   the oidc-provider-mock CLI (OPTIONs passed on)
#   stop_oidc_provider_mock [DIR]
#   start_django_oidc_provider DIR   Django + django-oidc-provider, project generated in DIR
#   stop_django_oidc_provider [DIR]
#   start_django_allauth DIR         Django + django-allauth's OpenID provider (allauth.idp.oidc)
#   stop_django_allauth [DIR]
#   start_pyop DIR                   pyop (ES256) behind Flask; defined in pyop.sh, sourced below
#   stop_pyop [DIR]
#   stop_providers                   stops whichever of them this shell started
#
# A start function installs what it needs into the repo's venv (scripts/python-env, PyPI only),
# starts the server on 127.0.0.1 with its output in DIR/server.log, waits (at most
# PROVIDERS_WAIT_SECONDS, default 30) until its discovery document answers, prints one line
# "NAME issuer: URL" on stdout, exports the variables listed at each function and writes them to
# DIR/env as KEY=VALUE lines. It returns non-zero (after stopping what it started and printing the
# log's tail on stderr) when the provider does not come up. Stop functions are idempotent and
# safe in an EXIT trap: trap stop_providers EXIT
#
# Call start functions directly, not in $(...): the exported variables would be lost.

PROVIDERS_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PROVIDERS_ROOT="$(cd "$PROVIDERS_DIR/../../.." && pwd)"
PROVIDERS_WAIT_SECONDS="${PROVIDERS_WAIT_SECONDS:-30}"

# The venv's python, with every package the providers and the selftest use, and the extra
# requirements given as arguments (PROVIDERS_EXTRA_PACKAGES lists those of the providers that
# only the captures use).
providers_python() {
    "$PROVIDERS_ROOT/scripts/python-env" \
        'django>=4.2,<6' 'django-oauth-toolkit>=3.0,<4' 'cryptography>=41' \
        'oidc-provider-mock>=0.3,<0.4' 'requests>=2.31' 'pyjwt>=2.8' "$@"
}
PROVIDERS_EXTRA_PACKAGES=('django-oidc-provider>=0.9,<0.10' 'django-allauth>=65.9,<66')

# _providers_wait PYTHON PID PORTFILE URL: waits until URL (where {port} is replaced by the
# port read from PORTFILE, when PORTFILE is not empty) returns a JSON document with "issuer"
# while PID lives; prints that issuer. Fails on time-out or when PID has exited.
_providers_wait() {
    "$1" - "$2" "$3" "$4" "$PROVIDERS_WAIT_SECONDS" <<'PY'
import json, os, sys, time, urllib.request
pid, port_file, template, seconds = int(sys.argv[1]), sys.argv[2], sys.argv[3], float(sys.argv[4])
deadline = time.monotonic() + seconds
last = "nothing yet"
while time.monotonic() < deadline:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        sys.exit(f"the server (pid {pid}) exited before it answered: {last}")
    url = template
    if port_file:
        try:
            port = open(port_file).read().strip()
        except FileNotFoundError:
            port = ""
        if not port:
            time.sleep(0.1)
            continue
        url = template.replace("{port}", port)
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            issuer = json.load(response)["issuer"]
        print(issuer)
        sys.exit(0)
    except Exception as error:  # not up yet: refused, 5xx while starting, ...
        last = f"{url}: {error}"
    time.sleep(0.2)
sys.exit(f"no answer within {seconds:g}s: {last}")
PY
}

# A port the kernel just handed out, released again (oidc-provider-mock wants a number).
_providers_free_port() {
    "$1" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# _providers_stop PID MARKER: TERM (then KILL after 5 s) PID if it is still our server, i.e.
# its command line contains MARKER (guards against a recycled pid).
_providers_stop() {
    local pid="$1" marker="$2" i
    [ -n "$pid" ] || return 0
    kill -0 "$pid" 2>/dev/null || return 0
    if [ -r "/proc/$pid/cmdline" ] && ! tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qF -- "$marker"; then
        return 0
    fi
    kill "$pid" 2>/dev/null || true
    for ((i = 0; i < 50; i++)); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    kill -9 "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    return 0
}

_providers_fail() {
    local name="$1" log="$2"
    echo "$name did not start; last lines of $log:" >&2
    tail -n 25 "$log" >&2 2>/dev/null || true
    return 1
}

# Exports DJANGO_OIDC_ISSUER (http://127.0.0.1:PORT/o), DJANGO_OIDC_PORT, DJANGO_OIDC_PID,
# DJANGO_OIDC_DIR, DJANGO_OIDC_LOG, DJANGO_OIDC_CLIENT_ID (public, com.example.app),
# DJANGO_OIDC_CONFIDENTIAL_CLIENT_ID, DJANGO_OIDC_CONFIDENTIAL_CLIENT_SECRET,
# DJANGO_OIDC_REDIRECT_URI, DJANGO_OIDC_USERNAME, DJANGO_OIDC_PASSWORD.
# Set DJANGO_OIDC_LOGOUT_PROMPT=0 to let the logout endpoint skip its confirmation form.
start_django_oidc() {
    local dir="${1:?usage: start_django_oidc DIR}" python pid issuer
    python="$(providers_python)" || return 1
    mkdir -p "$dir"
    dir="$(cd "$dir" && pwd)"
    stop_django_oidc "$dir"
    "$python" "$PROVIDERS_DIR/django_oidc.py" setup "$dir" >"$dir/setup.log" 2>&1 ||
        _providers_fail django-oidc "$dir/setup.log" || return 1
    rm -f "$dir/port"
    "$python" "$PROVIDERS_DIR/django_oidc.py" serve "$dir" "$dir/port" </dev/null >"$dir/server.log" 2>&1 &
    pid=$!
    echo "$pid" >"$dir/server.pid"
    export DJANGO_OIDC_PID="$pid" DJANGO_OIDC_DIR="$dir" DJANGO_OIDC_LOG="$dir/server.log"
    if ! issuer="$(_providers_wait "$python" "$pid" "$dir/port" \
        'http://127.0.0.1:{port}/o/.well-known/openid-configuration')"; then
        stop_django_oidc "$dir"
        _providers_fail django-oidc "$dir/server.log"
        return 1
    fi
    export DJANGO_OIDC_ISSUER="$issuer" DJANGO_OIDC_PORT="$(cat "$dir/port")"
    export DJANGO_OIDC_CLIENT_ID=com.example.app
    export DJANGO_OIDC_CONFIDENTIAL_CLIENT_ID=confidential-app
    export DJANGO_OIDC_CONFIDENTIAL_CLIENT_SECRET=confidential-app-secret
    export DJANGO_OIDC_REDIRECT_URI=com.example.app://auth/callback
    export DJANGO_OIDC_USERNAME=alice DJANGO_OIDC_PASSWORD=alice-password
    local name
    for name in ISSUER PORT PID DIR LOG CLIENT_ID CONFIDENTIAL_CLIENT_ID CONFIDENTIAL_CLIENT_SECRET \
        REDIRECT_URI USERNAME PASSWORD; do
        name="DJANGO_OIDC_$name"
        printf '%s=%s\n' "$name" "${!name}"
    done >"$dir/env"
    echo "django-oidc issuer: $issuer"
}

stop_django_oidc() {
    local dir="${1:-${DJANGO_OIDC_DIR:-}}" pid="${DJANGO_OIDC_PID:-}"
    if [ -n "$dir" ] && [ -r "$dir/server.pid" ]; then
        pid="$(cat "$dir/server.pid")"
    fi
    _providers_stop "$pid" django_oidc.py
    [ -z "$dir" ] || rm -f "$dir/server.pid" "$dir/port"
    unset DJANGO_OIDC_PID
    return 0
}

# Exports OIDC_PROVIDER_MOCK_ISSUER (http://127.0.0.1:PORT, no path, no trailing slash),
# OIDC_PROVIDER_MOCK_PORT, OIDC_PROVIDER_MOCK_PID, OIDC_PROVIDER_MOCK_DIR, OIDC_PROVIDER_MOCK_LOG,
# OIDC_PROVIDER_MOCK_SUB (alice: the value to type into the authorize form's `sub` field).
# Default options: --require-nonce true. Extra OPTIONs go to the CLI (see oidc-provider-mock --help).
start_oidc_provider_mock() {
    local dir="${1:?usage: start_oidc_provider_mock DIR [OPTION...]}" python pid port issuer attempt
    shift
    python="$(providers_python)" || return 1
    mkdir -p "$dir"
    dir="$(cd "$dir" && pwd)"
    stop_oidc_provider_mock "$dir"
    for attempt in 1 2 3; do  # the free port can be taken before the server binds it: retry
        port="$(_providers_free_port "$python")"
        NO_COLOR=1 "$(dirname "$python")/oidc-provider-mock" --host 127.0.0.1 --port "$port" \
            --require-nonce true "$@" </dev/null >"$dir/server.log" 2>&1 &
        pid=$!
        echo "$pid" >"$dir/server.pid"
        export OIDC_PROVIDER_MOCK_PID="$pid" OIDC_PROVIDER_MOCK_DIR="$dir" OIDC_PROVIDER_MOCK_LOG="$dir/server.log"
        if issuer="$(_providers_wait "$python" "$pid" "" \
            "http://127.0.0.1:$port/.well-known/openid-configuration")"; then
            break
        fi
        stop_oidc_provider_mock "$dir"
        issuer=""
    done
    [ -n "$issuer" ] || { _providers_fail oidc-provider-mock "$dir/server.log"; return 1; }
    export OIDC_PROVIDER_MOCK_ISSUER="$issuer" OIDC_PROVIDER_MOCK_PORT="$port" OIDC_PROVIDER_MOCK_SUB=alice
    local name
    for name in ISSUER PORT PID DIR LOG SUB; do
        name="OIDC_PROVIDER_MOCK_$name"
        printf '%s=%s\n' "$name" "${!name}"
    done >"$dir/env"
    echo "oidc-provider-mock issuer: $issuer"
}

stop_oidc_provider_mock() {
    local dir="${1:-${OIDC_PROVIDER_MOCK_DIR:-}}" pid="${OIDC_PROVIDER_MOCK_PID:-}"
    if [ -n "$dir" ] && [ -r "$dir/server.pid" ]; then
        pid="$(cat "$dir/server.pid")"
    fi
    _providers_stop "$pid" oidc-provider-mock
    [ -z "$dir" ] || rm -f "$dir/server.pid"
    unset OIDC_PROVIDER_MOCK_PID
    return 0
}

# _providers_start_django NAME SCRIPT PREFIX DISCOVERY-PATH DIR REQUIREMENT: sets up SCRIPT's
# Django project in DIR (a script of this folder with the `setup DIR` / `serve DIR PORTFILE`
# commands of django_oidc.py), serves it, waits for DISCOVERY-PATH and exports PREFIX_ISSUER,
# _PORT, _PID, _DIR, _LOG, _CLIENT_ID, _CONFIDENTIAL_CLIENT_ID, _CONFIDENTIAL_CLIENT_SECRET,
# _REDIRECT_URI, _POST_LOGOUT_REDIRECT_URI, _USERNAME, _PASSWORD (also written to DIR/env). REQUIREMENT is installed into the venv when missing.
_providers_start_django() {
    local name="$1" script="$2" prefix="$3" discovery="$4" dir="$5" requirement="$6" python pid issuer
    python="$(providers_python "$requirement")" || return 1
    mkdir -p "$dir"
    dir="$(cd "$dir" && pwd)"
    _providers_stop_django "$script" "$prefix" "$dir"
    "$python" "$PROVIDERS_DIR/$script" setup "$dir" >"$dir/setup.log" 2>&1 ||
        _providers_fail "$name" "$dir/setup.log" || return 1
    rm -f "$dir/port"
    env -u PORT "$python" "$PROVIDERS_DIR/$script" serve "$dir" "$dir/port" </dev/null >"$dir/server.log" 2>&1 &
    pid=$!
    echo "$pid" >"$dir/server.pid"
    export "${prefix}_PID=$pid" "${prefix}_DIR=$dir" "${prefix}_LOG=$dir/server.log"
    if ! issuer="$(_providers_wait "$python" "$pid" "$dir/port" "http://127.0.0.1:{port}$discovery")"; then
        _providers_stop_django "$script" "$prefix" "$dir"
        _providers_fail "$name" "$dir/server.log"
        return 1
    fi
    export "${prefix}_ISSUER=$issuer" "${prefix}_PORT=$(cat "$dir/port")"
    export "${prefix}_CLIENT_ID=com.example.app"
    export "${prefix}_CONFIDENTIAL_CLIENT_ID=confidential-app"
    export "${prefix}_CONFIDENTIAL_CLIENT_SECRET=confidential-app-secret"
    export "${prefix}_REDIRECT_URI=com.example.app://auth/callback"
    export "${prefix}_POST_LOGOUT_REDIRECT_URI=com.example.app://auth/signed-out"
    export "${prefix}_USERNAME=alice" "${prefix}_PASSWORD=alice-password"
    local key
    for key in ISSUER PORT PID DIR LOG CLIENT_ID CONFIDENTIAL_CLIENT_ID CONFIDENTIAL_CLIENT_SECRET \
        REDIRECT_URI POST_LOGOUT_REDIRECT_URI USERNAME PASSWORD; do
        key="${prefix}_$key"
        printf '%s=%s\n' "$key" "${!key}"
    done >"$dir/env"
    echo "$name issuer: $issuer"
}

# _providers_stop_django SCRIPT PREFIX [DIR]
_providers_stop_django() {
    local script="$1" prefix="$2" dir_var="${2}_DIR" pid_var="${2}_PID"
    local dir="${3:-${!dir_var:-}}" pid="${!pid_var:-}"
    if [ -n "$dir" ] && [ -r "$dir/server.pid" ]; then
        pid="$(cat "$dir/server.pid")"
    fi
    _providers_stop "$pid" "$script"
    [ -z "$dir" ] || rm -f "$dir/server.pid" "$dir/port"
    unset "$pid_var"
    return 0
}

# Exports DJANGO_OIDC_PROVIDER_ISSUER (http://127.0.0.1:PORT/openid), DJANGO_OIDC_PROVIDER_PORT,
# _PID, _DIR, _LOG, _CLIENT_ID (public, com.example.app), _CONFIDENTIAL_CLIENT_ID,
# _CONFIDENTIAL_CLIENT_SECRET, _REDIRECT_URI, _POST_LOGOUT_REDIRECT_URI, _USERNAME, _PASSWORD.
# See providers/django_oidc_provider.py.
start_django_oidc_provider() {
    _providers_start_django django-oidc-provider django_oidc_provider.py DJANGO_OIDC_PROVIDER \
        /openid/.well-known/openid-configuration "${1:?usage: start_django_oidc_provider DIR}" \
        "${PROVIDERS_EXTRA_PACKAGES[0]}"
}

stop_django_oidc_provider() {
    _providers_stop_django django_oidc_provider.py DJANGO_OIDC_PROVIDER "${1:-}"
}

# Exports DJANGO_ALLAUTH_ISSUER (http://127.0.0.1:PORT, no path), DJANGO_ALLAUTH_PORT, _PID,
# _DIR, _LOG, _CLIENT_ID (public, com.example.app), _CONFIDENTIAL_CLIENT_ID,
# _CONFIDENTIAL_CLIENT_SECRET, _REDIRECT_URI, _POST_LOGOUT_REDIRECT_URI, _USERNAME, _PASSWORD.
# See providers/django_allauth_idp.py.
start_django_allauth() {
    _providers_start_django django-allauth django_allauth_idp.py DJANGO_ALLAUTH \
        /.well-known/openid-configuration "${1:?usage: start_django_allauth DIR}" \
        "${PROVIDERS_EXTRA_PACKAGES[1]}"
}

stop_django_allauth() {
    _providers_stop_django django_allauth_idp.py DJANGO_ALLAUTH "${1:-}"
}

stop_providers() {
    stop_django_oidc
    stop_oidc_provider_mock
    stop_django_oidc_provider
    stop_django_allauth
    stop_pyop
}

# shellcheck source=pyop.sh
source "$PROVIDERS_DIR/pyop.sh"
