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


def test_install_puts_the_man_pages_beside_mfactl():
    """Issue 45: pam_mfa(8) and mfa-enroll(8) are installed like mfactl(1), render without a
    warning, and name every option the module and the command take."""
    import re

    from pam_harness import ENROLL, REPO

    with tempfile.TemporaryDirectory() as prefix:
        subprocess.run(["cmake", "--install", str(BUILD), "--prefix", prefix], check=True, capture_output=True)
        man8 = pathlib.Path(prefix) / "share" / "man" / "man8"
        pages = {name: man8 / name for name in ("pam_mfa.8", "mfa-enroll.8")}
        for path in pages.values():
            assert path.exists(), list(pathlib.Path(prefix).rglob("*.8"))
            rendered = subprocess.run(["groff", "-man", "-Tutf8", "-ww"], stdin=path.open("rb"), capture_output=True)
            assert rendered.returncode == 0 and rendered.stderr == b"", rendered.stderr
        module_page = pages["pam_mfa.8"].read_text().replace("\\-", "-").replace("\\fB", "").replace("\\fR", "")
        source = (REPO / "pam" / "module_options.c").read_text()
        words = set(re.findall(r'value_of\(word, "(\w+)"\)', source))
        words |= set(re.findall(r'"(\w+)"', source.split("flags[] = {", 1)[1].split("}", 1)[0]))
        assert {"store", "nullok", "forward_pass", "defer_code", "use_deferred_code", "digits"} <= words, words
        for word in words:
            assert re.search(r"(^|\s|\[)%s(=|\s|$)" % word, module_page, re.M), word
        enroll_page = pages["mfa-enroll.8"].read_text().replace("\\-", "-").replace("\\fB", "").replace("\\fR", "")
        usage = subprocess.run([str(ENROLL), "--help"], check=True, capture_output=True, text=True).stdout
        options = set(re.findall(r"^\s+(--[a-z-]+)", usage, re.M))
        assert "--no-qr" in options and "--config" in options, usage
        for option in options:
            assert option in enroll_page, option
