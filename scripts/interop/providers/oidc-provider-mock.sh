#!/usr/bin/env bash
# Starts or stops the oidc-provider-mock OpenID provider on 127.0.0.1 (see lib.sh).
# Usage: oidc-provider-mock.sh start DIR [OPTION...]   prints "oidc-provider-mock issuer: URL"; leaves it running and
#                                          writes its variables to DIR/env (source that file)
#        oidc-provider-mock.sh stop DIR
set -euo pipefail
source "$(cd "$(dirname "$0")" && pwd)/lib.sh"
case "${1:-}" in
    start) shift; start_oidc_provider_mock "$@" ;;
    stop) stop_oidc_provider_mock "${2:?usage: $0 stop DIR}" ;;
    *) echo "usage: $0 start DIR [OPTION...] | stop DIR" >&2; exit 2 ;;
esac
