# shellcheck shell=bash
# Glewlwyd 2.7 (Debian 12's `glewlwyd` package, C, by babelouest): an OpenID provider whose login,
# consent and logout pages are a JavaScript app (React) talking to its REST API. Source this
# file (it sources lib.sh when lib.sh's helpers are not there yet), then:
#
#   start_glewlwyd DIR       installs the Debian packages it lacks, sets Glewlwyd up from nothing
#                            in DIR (sqlite3 database, RS256 key pair, config, a copy of the web
#                            app), serves it on 127.0.0.1 with its output in DIR/server.log,
#                            configures it through its admin REST API, proves it with
#                            glewlwyd_selftest, prints "glewlwyd issuer: URL", exports the
#                            variables below and writes them to DIR/env
#   stop_glewlwyd [DIR]      idempotent, safe in an EXIT trap
#   glewlwyd_selftest DIR    Glewlwyd's own REST flow (no browser): login, grant, authorize with
#                            PKCE S256 + nonce + state, code exchange, ID token checked by pyjwt
#                            against the JWKS, refresh, end_session, the confidential client;
#                            one "ok   ..." line per step, non-zero on the first failure
#
# Exports GLEWLWYD_ISSUER (http://127.0.0.1:PORT/api/oidc, no trailing slash), GLEWLWYD_URL
# (http://127.0.0.1:PORT), GLEWLWYD_PORT, GLEWLWYD_PID, GLEWLWYD_DIR, GLEWLWYD_LOG,
# GLEWLWYD_CLIENT_ID (public, com.example.app; PKCE S256 allowed, not required),
# GLEWLWYD_CONFIDENTIAL_CLIENT_ID,
# GLEWLWYD_CONFIDENTIAL_CLIENT_SECRET (client_secret_basic or client_secret_post),
# GLEWLWYD_REDIRECT_URI, GLEWLWYD_POST_LOGOUT_REDIRECT_URI, GLEWLWYD_USERNAME, GLEWLWYD_PASSWORD,
# GLEWLWYD_EMAIL, GLEWLWYD_NAME, GLEWLWYD_SCOPES (openid profile email offline_access),
# GLEWLWYD_LOGIN_URL (the JS app's login page), GLEWLWYD_ADMIN_USERNAME, GLEWLWYD_ADMIN_PASSWORD.
#
# Read when starting: PROVIDERS_WAIT_SECONDS (default 30), GLEWLWYD_ROTATE_REFRESH=1 (a new
# refresh token on every refresh; default: the refresh token is kept), GLEWLWYD_LOG_LEVEL
# (ERROR, WARNING, INFO (default) or DEBUG).
#
# The first sign-in in a browser shows the login form, then the consent page; every later one
# shows the login app again with a Continue button (docs/interop.md, "Glewlwyd"). The selftest
# withdraws the consent it gave and closes its session, so a browser finds the provider fresh.
#
# Call start_glewlwyd directly, not in $(...): the exported variables would be lost.

GLEWLWYD_SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if ! declare -F _providers_stop >/dev/null; then
    # shellcheck source=lib.sh
    source "$GLEWLWYD_SCRIPT_DIR/lib.sh"
fi
GLEWLWYD_REQUIREMENTS=('requests>=2.31' 'pyjwt>=2.8' 'cryptography>=41')
GLEWLWYD_VARIABLES=(ISSUER URL PORT PID DIR LOG CLIENT_ID CONFIDENTIAL_CLIENT_ID
    CONFIDENTIAL_CLIENT_SECRET REDIRECT_URI POST_LOGOUT_REDIRECT_URI USERNAME PASSWORD EMAIL NAME
    SCOPES LOGIN_URL ADMIN_USERNAME ADMIN_PASSWORD)

# Installs the Debian packages glewlwyd (with glewlwyd-common: the web app), sqlite3 and openssl
# when dpkg-query says they are missing. The package's postinst starts its own system service
# (port 4593, every interface, /etc/glewlwyd): when this function installed the package, that
# service is stopped and disabled again.
_glewlwyd_install() {
    local missing=() package sudo=""
    for package in glewlwyd sqlite3 openssl; do
        dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" ||
            missing+=("$package")
    done
    ((${#missing[@]})) || return 0
    echo "glewlwyd: installing ${missing[*]}" >&2
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq || return 1
    $sudo env DEBIAN_FRONTEND=noninteractive \
        apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null || return 1
    if [[ " ${missing[*]} " == *" glewlwyd "* ]]; then
        if [ -d /run/systemd/system ]; then
            $sudo systemctl disable --now glewlwyd.service >/dev/null 2>&1 || true
        elif [ -x /etc/init.d/glewlwyd ] && [ -s /var/run/glewlwyd.pid ]; then
            $sudo /etc/init.d/glewlwyd stop >/dev/null 2>&1 || true
        fi
    fi
}

# _glewlwyd_package_file PACKAGE SUFFIX: the first file of PACKAGE (dpkg -L) whose path ends
# with SUFFIX; nothing (and status 0) when there is none.
_glewlwyd_package_file() {
    local files
    files="$(dpkg -L "$1" 2>/dev/null)" || true
    grep -m1 -- "$2\$" <<<"$files" || true
}

# _glewlwyd_write_config DIR PORT LIBDIR: DIR/glewlwyd.conf, Glewlwyd's libconfig file. No
# use_secure_connection line: glewlwyd 2.7.5 exits when it is false and no key files are given.
_glewlwyd_write_config() {
    local dir="$1" port="$2" lib="$3"
    cat >"$dir/glewlwyd.conf" <<EOF
# Written by scripts/interop/providers/glewlwyd.sh; everything lives in $dir.
port=$port
bind_address="127.0.0.1"
external_url="http://127.0.0.1:$port"
login_url="login.html"
api_prefix="api"
static_files_path="$dir/webapp/"
log_mode="console"
log_level="${GLEWLWYD_LOG_LEVEL:-INFO}"
cookie_secure=0
cookie_same_site="empty"
session_key="GLEWLWYD2_SESSION_ID"
session_expiration=2419200
admin_session_authentication="cookie"
profile_session_authentication="cookie"
allow_multiple_user_per_session=true
login_api_enabled=true
admin_scope="g_admin"
profile_scope="g_profile"
hash_algorithm="SHA512"
user_module_path="$lib/user"
client_module_path="$lib/client"
user_auth_scheme_module_path="$lib/scheme"
plugin_module_path="$lib/plugin"
database = {
  type = "sqlite3"
  path = "$dir/glewlwyd.db"
};
static_files_mime_types = (
  { extension = ".html";  mime_type = "text/html"; },
  { extension = ".css";   mime_type = "text/css"; },
  { extension = ".js";    mime_type = "application/javascript"; },
  { extension = ".json";  mime_type = "application/json"; },
  { extension = ".png";   mime_type = "image/png"; },
  { extension = ".ico";   mime_type = "image/x-icon"; },
  { extension = ".svg";   mime_type = "image/svg+xml"; },
  { extension = ".ttf";   mime_type = "font/ttf"; },
  { extension = ".woff";  mime_type = "font/woff"; },
  { extension = ".woff2"; mime_type = "font/woff2"; },
  { extension = ".eot";   mime_type = "application/vnd.ms-fontobject"; },
  { extension = ".map";   mime_type = "application/json"; }
);
EOF
}

# Exports the fixed values of the set-up (the issuer and the URLs once the port is known).
_glewlwyd_export_constants() {
    export GLEWLWYD_CLIENT_ID=com.example.app
    export GLEWLWYD_CONFIDENTIAL_CLIENT_ID=confidential-app
    export GLEWLWYD_CONFIDENTIAL_CLIENT_SECRET=confidential-app-secret
    export GLEWLWYD_REDIRECT_URI=com.example.app://auth/callback
    export GLEWLWYD_POST_LOGOUT_REDIRECT_URI=com.example.app://auth/signed-out
    export GLEWLWYD_USERNAME=alice GLEWLWYD_PASSWORD=alice-password
    export GLEWLWYD_EMAIL=alice@example.com GLEWLWYD_NAME="Alice Example"
    export GLEWLWYD_SCOPES="openid profile email offline_access"
    # The defaults of init.sqlite3.sql; the server only listens on loopback.
    export GLEWLWYD_ADMIN_USERNAME=admin GLEWLWYD_ADMIN_PASSWORD=password
}

# start_glewlwyd DIR: see the top of this file. Removes what an earlier start left in DIR (after
# stopping its server) and starts from nothing. Returns non-zero, after stopping what it started
# and printing the tails of the logs on stderr, when the provider does not come up or its
# selftest fails.
start_glewlwyd() {
    local dir="${1:?usage: start_glewlwyd DIR}" python lib sql webapp pid port status name
    _glewlwyd_install || { echo "glewlwyd: could not install the Debian packages" >&2; return 1; }
    python="$("$PROVIDERS_ROOT/scripts/python-env" "${GLEWLWYD_REQUIREMENTS[@]}")" || return 1
    mkdir -p "$dir"
    dir="$(cd "$dir" && pwd)"
    stop_glewlwyd "$dir"
    rm -rf "$dir/glewlwyd.db" "$dir/glewlwyd.conf" "$dir/webapp" "$dir/keys" "$dir/env" \
        "$dir/server.log" "$dir/setup.log" "$dir/selftest.log" "$dir/openid-configuration.json"
    : >"$dir/setup.log"

    # From the packages: the schema with the admin user, the modules, the web app.
    sql="$(_glewlwyd_package_file glewlwyd /init.sqlite3.sql.gz)"
    lib="$(_glewlwyd_package_file glewlwyd /plugin/libprotocol_oidc.so)"
    lib="${lib%/plugin/libprotocol_oidc.so}"
    webapp="$(_glewlwyd_package_file glewlwyd-common /webapp/login.html)"
    webapp="${webapp%/login.html}"
    if [ -z "$sql" ] || [ -z "$lib" ] || [ -z "$webapp" ]; then
        echo "glewlwyd: init.sqlite3.sql.gz, the plugin folder or the web app is missing from the packages" >&2
        return 1
    fi
    {
        zcat "$sql" | sqlite3 "$dir/glewlwyd.db" &&
            mkdir -p "$dir/keys" &&
            openssl genrsa -out "$dir/keys/private.pem" 2048 &&
            openssl rsa -in "$dir/keys/private.pem" -pubout -out "$dir/keys/public.pem" &&
            # -L: the package links jQuery, Bootstrap and the fonts from other packages with
            # relative links; config.json (a link to a folder under /etc) is replaced below.
            cp -RL "$webapp" "$dir/webapp" &&
            rm -rf "$dir/webapp/config.json"
    } >>"$dir/setup.log" 2>&1 || _providers_fail glewlwyd "$dir/setup.log" || return 1

    _glewlwyd_export_constants
    export GLEWLWYD_DIR="$dir" GLEWLWYD_LOG="$dir/server.log"
    status=1
    for _ in 1 2 3; do # the free port can be taken before glewlwyd binds it: retry
        port="$(_providers_free_port "$python")"
        export GLEWLWYD_PORT="$port" GLEWLWYD_URL="http://127.0.0.1:$port"
        export GLEWLWYD_ISSUER="$GLEWLWYD_URL/api/oidc" GLEWLWYD_LOGIN_URL="$GLEWLWYD_URL/login.html"
        _glewlwyd_write_config "$dir" "$port" "$lib"
        "$python" "$GLEWLWYD_SCRIPT_DIR/glewlwyd_setup.py" webapp-config "$dir" "$GLEWLWYD_URL" \
            >>"$dir/setup.log" 2>&1 || { _providers_fail glewlwyd "$dir/setup.log"; return 1; }
        glewlwyd --config-file="$dir/glewlwyd.conf" </dev/null >"$dir/server.log" 2>&1 &
        pid=$!
        echo "$pid" >"$dir/server.pid"
        export GLEWLWYD_PID="$pid"
        status=0
        GLEWLWYD_WAIT_SECONDS="$PROVIDERS_WAIT_SECONDS" \
            "$python" "$GLEWLWYD_SCRIPT_DIR/glewlwyd_setup.py" configure "$dir" "$pid" \
            >>"$dir/setup.log" 2>&1 || status=$?
        [ "$status" -eq 75 ] || break
        stop_glewlwyd "$dir"
    done
    if [ "$status" -ne 0 ]; then
        stop_glewlwyd "$dir"
        tail -n 3 "$dir/setup.log" >&2
        _providers_fail glewlwyd "$dir/server.log"
        return 1
    fi
    for name in "${GLEWLWYD_VARIABLES[@]}"; do
        name="GLEWLWYD_$name"
        printf '%s=%s\n' "$name" "${!name}"
    done >"$dir/env"
    if ! _glewlwyd_selftest "$python" "$dir" >"$dir/selftest.log" 2>&1; then
        stop_glewlwyd "$dir"
        echo "glewlwyd: the selftest failed:" >&2
        tail -n 5 "$dir/selftest.log" >&2
        _providers_fail glewlwyd "$dir/server.log"
        return 1
    fi
    echo "glewlwyd issuer: $GLEWLWYD_ISSUER"
}

# stop_glewlwyd [DIR]: TERM (then KILL) the server of DIR (default: the last one started in this
# shell), found by DIR/server.pid and checked by its command line. Idempotent.
stop_glewlwyd() {
    local dir="${1:-${GLEWLWYD_DIR:-}}" pid="${GLEWLWYD_PID:-}"
    if [ -n "$dir" ] && [ -r "$dir/server.pid" ]; then
        pid="$(cat "$dir/server.pid")"
    fi
    # The marker: glewlwyd's command line names this DIR's config file.
    _providers_stop "$pid" "${dir:-glewlwyd}/glewlwyd.conf"
    [ -z "$dir" ] || rm -f "$dir/server.pid"
    unset GLEWLWYD_PID
    return 0
}

# glewlwyd_selftest DIR: glewlwyd_setup.py's selftest against the provider DIR/env describes.
glewlwyd_selftest() {
    local dir="${1:?usage: glewlwyd_selftest DIR}" python
    python="$("$PROVIDERS_ROOT/scripts/python-env" "${GLEWLWYD_REQUIREMENTS[@]}")" || return 1
    _glewlwyd_selftest "$python" "$dir"
}

# _glewlwyd_selftest PYTHON DIR: glewlwyd_selftest with the venv's python already known.
_glewlwyd_selftest() {
    "$1" "$GLEWLWYD_SCRIPT_DIR/glewlwyd_setup.py" selftest "$2"
}
