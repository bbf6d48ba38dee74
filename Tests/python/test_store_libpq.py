"""libpq is loaded only when a postgres:// store is opened.

Each test runs a fresh Python process (the library loads libpq at most once
per process), with ``LIBMFA_LIBRARY`` as this run has it.
"""

import os
import subprocess
import sys

from shared import REPO

PROGRAM_PREFIX = """
import sys
sys.path.insert(0, %r)
import libmfa
KEY = bytes(range(32))
""" % str(REPO / "python")


def run(program, **env):
    """Runs ``program`` in a new Python; returns its stdout lines. Fails the test if it fails."""
    environment = dict(os.environ)
    environment.update(env)
    done = subprocess.run([sys.executable, "-c", PROGRAM_PREFIX + program], env=environment,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_sqlite_only_program_never_maps_libpq(tmp_path):
    lines = run("""
ctx = libmfa.Context(store=%r, master_key=KEY)
ctx.set_config({"state": "ENABLED", "providers": {"totp": "ENABLED"}})
ctx.sign_in(libmfa.User("alice", auth_time=1))
with open("/proc/self/maps") as maps:
    mapped = {line.split()[-1] for line in maps if ".so" in line}
print("libmfa" if any("libmfa" in path for path in mapped) else "no libmfa")
for path in sorted(mapped):
    if any(name in path for name in ("libpq", "krb5", "gssapi", "ldap", "sasl", "gnutls")):
        print("mapped:", path)
""" % str(tmp_path / "store.sqlite"))
    assert lines == ["libmfa"]


def test_missing_libpq_is_storage_error_naming_it_and_sqlite_still_works(tmp_path):
    missing = str(tmp_path / "no-such-dir" / "libpq.so.5")
    lines = run("""
for attempt in range(2):
    try:
        libmfa.Context(store="postgres://127.0.0.1:9/none", master_key=KEY)
        print("opened")
    except libmfa.StorageError as error:
        print(error.name, error.message)
ctx = libmfa.Context(store=%r, master_key=KEY)
ctx.set_config({"state": "ENABLED", "providers": {"totp": "ENABLED"}})
print("sqlite", ctx.sign_in(libmfa.User("alice", auth_time=1)) is not None)
""" % str(tmp_path / "store.sqlite"), LIBMFA_LIBPQ=missing)
    assert len(lines) == 3, lines
    for line in lines[:2]:
        assert line.startswith("STORAGE_ERROR "), line
        assert missing in line, line
        assert "LIBMFA_LIBPQ" in line, line
    assert lines[2] == "sqlite True"


def test_bad_deadline_is_invalid_argument_before_libpq_is_loaded():
    lines = run("""
for value in ("99", "600001", "soon", ""):
    try:
        libmfa.Context(store="postgres://127.0.0.1:9/none?mfa_deadline_ms=" + value, master_key=KEY)
        print("opened")
    except libmfa.MFAError as error:
        print(error.name)
""", LIBMFA_LIBPQ="/nonexistent/libpq.so.5")
    assert lines == ["INVALID_ARGUMENT"] * 4
