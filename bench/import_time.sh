#!/usr/bin/env bash
# The time of `import libmfa` from the wheel, as a user pays it at start-up:
# installs the wheel (the one given, or one built by scripts/wheel.sh) into a
# new venv and imports it many times, each in a new process. Prints the
# fastest and the median run, in wall time (python -X importtime) and in CPU
# time (less disturbed by other work on a shared machine), the part spent
# loading libmfa.so and the libraries it links (the module libmfa._lib), and
# for scale the import of the standard library's json. A benchmark, not a test.
#
#   bench/import_time.sh [wheel] [runs]
set -euo pipefail
. "$(dirname "$0")/../scripts/env.sh"
runs=${2:-30}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
wheel=${1:-}
if [ -z "$wheel" ]; then
    wheel=$("$ROOT/scripts/wheel.sh" "$tmp/dist" | tail -n 1)
fi
python3 -m venv "$tmp/venv"
"$tmp/venv/bin/python" -m pip install -q --no-index --disable-pip-version-check "$wheel"
cd "$tmp"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(date -u +%Y-%m-%d)"
echo "wheel: $(basename "$wheel"), $runs runs"
env -u LIBMFA_LIBRARY -u PYTHONPATH "$tmp/venv/bin/python" - "$runs" <<'PYTHON'
import statistics
import subprocess
import sys

TIMED = "import time; c = time.process_time(); import {0}; print(time.process_time() - c)"


def one_run(module):
    """(wall ms of `module` and of libmfa._lib from -X importtime, CPU ms of the import)."""
    done = subprocess.run([sys.executable, "-X", "importtime", "-c", TIMED.format(module)],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, check=True)
    wall = {}
    for line in done.stderr.splitlines()[1:]:
        fields = line.split("|")
        wall[fields[-1].strip()] = int(fields[1]) / 1e3
    return wall[module], wall.get("libmfa._lib", 0.0), float(done.stdout) * 1e3


runs = int(sys.argv[1])
libmfa = [one_run("libmfa") for _ in range(runs)]
json = [one_run("json") for _ in range(runs)]
rows = (("import libmfa, wall", [r[0] for r in libmfa]),
        ("import libmfa, CPU", [r[2] for r in libmfa]),
        ("  of which libmfa._lib (dlopen), wall", [r[1] for r in libmfa]),
        ("import json (for scale), wall", [r[0] for r in json]),
        ("import json (for scale), CPU", [r[2] for r in json]))
for name, values in rows:
    print("%-38s fastest %6.1f ms, median %6.1f ms" % (name, min(values), statistics.median(values)))
print("import libmfa / import json, CPU: %.1fx (fastest)" % (min(r[2] for r in libmfa) / min(r[2] for r in json)))
PYTHON
