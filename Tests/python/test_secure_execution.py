"""The Python binding ignores ``LIBMFA_LIBRARY`` in a secure-execution process.

A setgid copy of the interpreter (the kernel sets AT_SECURE for it, as for
sudo and su) is run with ``LIBMFA_LIBRARY`` naming a library whose
constructor leaves a marker file: the binding must not load it. A plain copy
run the same way loads it, which shows that the test can fail. Needs root
(to make the copy setgid) and a C compiler.
"""

import os
import shutil
import subprocess
import sys
import sysconfig

from shared import REPO

EVIL = r"""
#include <fcntl.h>
#include <unistd.h>
__attribute__((constructor)) static void leave_marker(void) {
    int fd = open(MARKER, O_WRONLY | O_CREAT, 0644);
    if (fd >= 0) close(fd);
}
"""

#: Imports the binding, which loads the library (an ImportError is expected when it
#: is the marker library, which has none of libmfa's functions).
PROBE = "try:\n    import libmfa\nexcept ImportError as error:\n    print(error)\n"


def _interpreter(tmp_path, name, setgid):
    copy = tmp_path / name
    shutil.copy2(sys.executable, copy)
    if setgid:
        shutil.chown(copy, group="nogroup")
        os.chmod(copy, 0o2755)
    return copy


def _run(interpreter, tmp_path, evil):
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "PYTHONHOME": sys.prefix,
        "PYTHONPATH": str(REPO / "python"),
        "LIBMFA_LIBRARY": str(evil),
    }
    return subprocess.run([str(interpreter), "-c", PROBE], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=60)


def test_secure_execution_ignores_libmfa_library(tmp_path):
    assert os.geteuid() == 0, "this test makes a setgid copy of the interpreter: run it as root"
    os.chmod(tmp_path, 0o755)
    marker = tmp_path / "marker"
    source = tmp_path / "evil.c"
    source.write_text(EVIL)
    evil = tmp_path / "evil.so"
    compiler = sysconfig.get_config_var("CC") or "cc"
    subprocess.run([compiler.split()[0], "-shared", "-fPIC", '-DMARKER="%s"' % marker, "-o", str(evil), str(source)],
                   check=True)

    plain = _run(_interpreter(tmp_path, "python-plain", setgid=False), tmp_path, evil)
    assert marker.exists(), "the plain run did not load the library LIBMFA_LIBRARY names: " + plain.stdout + plain.stderr
    assert str(evil) in plain.stdout
    marker.unlink()

    secure = _run(_interpreter(tmp_path, "python-setgid", setgid=True), tmp_path, evil)
    assert secure.returncode == 0, secure.stderr
    assert not marker.exists(), "a secure-execution process loaded the library LIBMFA_LIBRARY names"
    assert str(evil) not in secure.stdout
