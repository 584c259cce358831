#!/usr/bin/env bash
# The webkit engine of the sheet next to lite (release builds), in one run:
#   1. signinsim-bench browser: the engine's start-up, one web sign-in in each engine against the
#      embedded issuer (median and p90), the engine's memory idle and per open sheet, and its
#      memory through 200 sequential sign-ins (flat, or growing);
#   2. the bundled library with --jobs 2 in lite, then with --browser webkit: wall time and peak
#      memory of the whole process tree (signinsim, the helper, Xvfb, WebKit's processes), as
#      proportional set size sampled every 100 ms.
# Targets: the library in webkit under 5 minutes and 2 GB; a sign-in under 1 s median.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
swift build -c release --product signinsim >&2
swift build -c release --product signinsim-webkit >&2
swift build -c release --product signinsim-bench >&2
bin="$(swift build -c release --show-bin-path)"
"$bin/signinsim-bench" browser "$@"

python="$(scripts/python-env)"
for engine in lite webkit; do
    "$python" - "$bin/signinsim" "$engine" <<'PY'
import os, subprocess, sys, time

binary, engine = sys.argv[1], sys.argv[2]

def tree(root):
    children = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            stat = open(f"/proc/{name}/stat").read()
        except OSError:
            continue
        parent = int(stat[stat.rindex(")") + 2:].split()[1])
        children.setdefault(parent, []).append(int(name))
    found, index = [root], 0
    while index < len(found):
        found += children.get(found[index], [])
        index += 1
    return found

def pss(pids):
    total = 0
    for pid in pids:
        try:
            for line in open(f"/proc/{pid}/smaps_rollup"):
                if line.startswith("Pss:"):
                    total += int(line.split()[1])
                    break
        except OSError:
            pass
    return total / 1024

started = time.monotonic()
run = subprocess.Popen([binary, "run", "scenarios", "--jobs", "2", "--browser", engine],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
peak = 0.0
while run.poll() is None:
    peak = max(peak, pss(tree(run.pid)))
    time.sleep(0.1)
output = run.stdout.read()
elapsed = time.monotonic() - started
summary = [line for line in output.splitlines() if " passed, " in line][-1:]
verdict = ""
if engine == "webkit":
    verdict = "  targets < 300 s, < 2048 MB: " + ("meets" if elapsed < 300 and peak < 2048 else "MISSED")
print(f"library --jobs 2 --browser {engine:6}: {elapsed:6.1f} s wall, peak {peak:7.1f} MB PSS, "
      f"{summary[0] if summary else 'no summary'} (exit {run.returncode}){verdict}")
PY
done
