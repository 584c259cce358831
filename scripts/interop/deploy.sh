#!/usr/bin/env bash
# The files of deploy/ checked by tools nobody here wrote: check-jsonschema's bundled schema of
# GitHub Actions workflows, kubernetes-validate's bundled Kubernetes API schemas (strict), and
# the commands both run, executed here with the signinsim binary on a small library.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
python="$("$root/scripts/python-env" 'check-jsonschema>=0.28' 'kubernetes-validate>=1.30' 'pyyaml>=6')"
binary="$(cd "$root" && swift build --show-bin-path)/signinsim"
[ -x "$binary" ] || (cd "$root" && swift build --product signinsim >/dev/null)
exec "$python" "$root/scripts/interop/deploy_interop.py" "$binary" "$root"
