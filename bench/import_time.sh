#!/usr/bin/env bash
# The time of `import libmfa` from the wheel, as a user pays it at start-up:
# installs the wheel (the one given, or one built by scripts/wheel.sh) into a
# new venv and runs `python -X importtime -c "import libmfa"` many times in new
# processes. Prints the fastest and the median run, the part spent loading
# libmfa.so and the libraries it links (the module libmfa._lib), and for scale
# the import of the standard library's json. A benchmark, not a test.
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
env -u LIBMFA_LIBRARY -u PYTHONPATH "$tmp/venv/bin/python" - "$runs" <<'EOF'
import statistics
import subprocess
import sys

def cumulative(module, statement):
    """Microseconds of `module`'s import (with what it imports), from -X importtime."""
    err = subprocess.run([sys.executable, "-X", "importtime", "-c", statement],
                         stderr=subprocess.PIPE, text=True, check=True).stderr
    return next(int(line.split("|")[1]) for line in err.splitlines()
                if line.split("|")[-1].strip() == module)

runs = int(sys.argv[1])
total = [cumulative("libmfa", "import libmfa") for _ in range(runs)]
library = [cumulative("libmfa._lib", "import libmfa") for _ in range(runs)]
json = [cumulative("json", "import json") for _ in range(runs)]
for name, values in (("import libmfa", total), ("  of which libmfa._lib (dlopen)", library),
                     ("import json (for scale)", json)):
    print("%-34s fastest %6.1f ms, median %6.1f ms" % (name, min(values) / 1e3, statistics.median(values) / 1e3))
print("import libmfa / import json: %.1fx (median)" % (statistics.median(total) / statistics.median(json)))
EOF
