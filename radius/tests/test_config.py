"""mods-available/mfa as an operator edits it: every bad option stops FreeRADIUS at
start (freeradius -C) with an error that names it; cmake --install puts the module
and the configuration files where FreeRADIUS looks."""

import os
import pathlib
import subprocess
import tempfile

import pytest

from radius_harness import BUILD


def check(server):
    result = subprocess.run(["freeradius", "-C", "-d", str(server.dir), "-n", "radiusd"], capture_output=True,
                            text=True, timeout=60)
    return result.returncode, result.stdout + result.stderr + server.output()


BAD = [
    ({"code_length": "9"}, "code_length = 9 is out of range (6 to 8)"),
    ({"challenge_timeout": "5"}, "challenge_timeout = 5 is out of range (10 to 600)"),
    ({"max_challenges": "0"}, "max_challenges = 0 is out of range"),
    ({"deadline": "50"}, "deadline = 50 is out of range (100 to 600000)"),
    ({"sms_timeout": "70000"}, "sms_timeout = 70000 is out of range"),
    ({"no_factor": "maybe"}, 'no_factor is "reject" or "accept", not "maybe"'),
    ({"code_attribute": "NAS-Port"}, 'code_attribute "NAS-Port" is not a string attribute'),
    ({"code_attribute": "Not-In-The-Dictionary"}, 'code_attribute "Not-In-The-Dictionary" is not a string attribute'),
    ({"sms_program": '"send-sms"'}, "sms_program is an absolute path"),
    ({"store": '"mysql://db/mfa"'}, "cannot open the store: INVALID_ARGUMENT"),
    ({"store": None}, '"store"'),
    ({"store": '"/nonexistent-folder/mfa.sqlite"'}, "cannot open the store: STORAGE_ERROR"),
    ({"key_file": '"relative.key"'}, "key_file must be an absolute path"),
]


@pytest.mark.parametrize("options,error", BAD, ids=[next(iter(o)) + "=" + str(next(iter(o.values()))) for o, _ in BAD])
def test_a_bad_option_stops_the_server(run, options, error):
    server = run.server(run.name("bad"), checked_only=True, module_options=options)
    status, out = check(server)
    assert status != 0 and error in out, out


@pytest.mark.parametrize("mode,error", [(0o644, "must have mode 0600 or 0400"), (None, "cannot open key file")])
def test_a_bad_key_file_stops_the_server(run, mode, error):
    key = run.dir / run.name("key")
    if mode is not None:
        key.write_text(os.urandom(32).hex() + "\n")
        os.chmod(key, mode)
    server = run.server(run.name("badkey"), checked_only=True, module_options={"key_file": f'"{key}"'})
    status, out = check(server)
    assert status != 0 and error in out, out


def test_the_shipped_file_with_a_store_and_key_is_accepted(run):
    status, out = check(run.server(run.name("good"), checked_only=True))
    assert status == 0, out


def test_install_puts_the_module_and_its_files_where_freeradius_looks():
    with tempfile.TemporaryDirectory() as prefix:
        subprocess.run(["cmake", "--install", str(BUILD), "--prefix", prefix], check=True, capture_output=True)
        root = pathlib.Path(prefix)
        module = root / "lib" / "freeradius" / "rlm_mfa.so"
        assert module.exists(), sorted(str(p) for p in root.rglob("*"))
        raddb = root / "etc" / "freeradius" / "3.0"
        assert (raddb / "mods-available" / "mfa").read_text().startswith("# -*- text -*-")
        assert (raddb / "sites-available" / "mfa").exists()
        symbols = subprocess.run(["nm", "-D", "--defined-only", str(module)], check=True, capture_output=True,
                                 text=True).stdout.split()
        assert [s for s in symbols if s.startswith(("rlm_", "mfa_"))] == ["rlm_mfa"]
        dynamic = subprocess.run(["readelf", "-d", str(module)], check=True, capture_output=True, text=True).stdout
        assert "libmfa.so.0" in dynamic and str(BUILD) not in dynamic
        assert "NODELETE" in dynamic


def test_a_new_sqlite_store_is_the_server_users_alone(run):
    store = run.dir / run.name("store") / "mfa.sqlite"
    os.makedirs(store.parent)
    status, out = check(run.server(run.name("fresh"), store=str(store), checked_only=True))
    assert status == 0, out
    for path in store.parent.iterdir():
        assert path.stat().st_mode & 0o077 == 0, (path, oct(path.stat().st_mode))
