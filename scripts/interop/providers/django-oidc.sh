#!/usr/bin/env bash
# Starts or stops the Django + django-oauth-toolkit OpenID provider on 127.0.0.1 (see lib.sh).
# Usage: django-oidc.sh start DIR [OPTION...]   prints "django-oidc issuer: URL"; leaves it running and
#                                          writes its variables to DIR/env (source that file)
#        django-oidc.sh stop DIR
set -euo pipefail
source "$(cd "$(dirname "$0")" && pwd)/lib.sh"
case "${1:-}" in
    start) shift; start_django_oidc "$@" ;;
    stop) stop_django_oidc "${2:?usage: $0 stop DIR}" ;;
    *) echo "usage: $0 start DIR [OPTION...] | stop DIR" >&2; exit 2 ;;
esac
