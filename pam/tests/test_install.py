"""cmake --install puts pam_mfa.so in the PAM module folder under the prefix
(libpam's folder and security/: /usr/lib/x86_64-linux-gnu/security with
--prefix /usr on Debian) and mfa-enroll in sbin; the module exports only the PAM entry points
and depends on the installed libmfa.so.0, not on the build folder."""

import pathlib
import subprocess
import tempfile

from pam_harness import BUILD


def test_install_puts_the_module_in_the_pam_folder():
    with tempfile.TemporaryDirectory() as prefix:
        subprocess.run(["cmake", "--install", str(BUILD), "--prefix", prefix], check=True, capture_output=True)
        # libpam's own folder (pkg-config), under the prefix: lib/x86_64-linux-gnu/security on Debian.
        libdir = subprocess.run(["pkg-config", "--variable=libdir", "pam"], check=True, capture_output=True,
                                text=True).stdout.strip()
        relative = libdir.removeprefix("/usr/").lstrip("/")
        module = pathlib.Path(prefix) / relative / "security" / "pam_mfa.so"
        assert module.exists(), list(pathlib.Path(prefix).rglob("*"))
        assert (pathlib.Path(prefix) / "sbin" / "mfa-enroll").exists()
        symbols = subprocess.run(["nm", "-D", "--defined-only", str(module)], check=True, capture_output=True,
                                 text=True).stdout.split()
        assert sorted(s for s in symbols if s.startswith("pam_") or s.startswith("mfa_")) == [
            "pam_sm_authenticate", "pam_sm_setcred"]
        dynamic = subprocess.run(["readelf", "-d", str(module)], check=True, capture_output=True, text=True).stdout
        assert "libmfa.so.0" in dynamic and str(BUILD) not in dynamic
        assert "NODELETE" in dynamic
