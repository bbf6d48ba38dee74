"""The master key in an HSM and rlm_mfa (issue 52): hsm_module, hsm_token (or
hsm_slot), hsm_key and hsm_pin_file in the module's section instead of
key_file, on a SoftHSM2 token the test makes. A store made and filled through
the HSM by libmfa (Python, the same options); a real freeradius answers
Access-Accept to the right code and Access-Reject to a wrong one, in both
challenge-response and one field (hsm_accept); a wrong PIN, and each bad
combination of options, stops the server at start with the reason, never the
PIN (hsm_bad_options)."""

import base64
import secrets
import subprocess
import sys
import uuid

import pytest

import libmfa
from radius_harness import PASSWORD, REPO, App, other_code

sys.path.insert(0, str(REPO / "Tests" / "python"))
from hsm_support import PIN, shared_hsm  # noqa: E402

CONFIG = {"state": "ENABLED", "providers": {"totp": "ENABLED"}, "totp": {"adjacentIntervals": 10}}


@pytest.fixture(scope="module")
def hsm(tmp_path_factory):
    return shared_hsm(tmp_path_factory)


def hsm_options(hsm, key, pin_file=None):
    """The module's options for the token and key (strings quoted as in mods-available/mfa)."""
    return {"key_file": None, "hsm_module": f'"{hsm.module}"', "hsm_token": f'"{hsm.token}"',
            "hsm_key": f'"{key}"', "hsm_pin_file": f'"{pin_file or hsm.pin_file}"'}


def hsm_store(run, hsm, uids):
    """A new SQLite store under a new token key, with an authenticator app imported per uid; the Apps."""
    key = "kek-" + uuid.uuid4().hex[:8]
    hsm.new_key(hsm.token, key)
    store = str(run.dir / f"hsm-{key}.sqlite")
    apps = {}
    with libmfa.Context(store, **hsm.options(hsm.token, key)) as ctx:
        ctx.set_config(CONFIG)
        for uid in uids:
            secret = secrets.token_bytes(20)
            ctx.import_totp(run.user(uid), libmfa.TOTP(secret))
            apps[uid] = App(base64.b32encode(secret).decode().rstrip("="))
    return store, key, apps


def test_hsm_accept(run, hsm):
    uid = run.name()
    store, key, apps = hsm_store(run, hsm, [uid])
    server = run.server("hsm", store=store, one_field=True, module_options=hsm_options(hsm, key)).start()
    app = apps[uid]
    reply, out = server.request(uid, PASSWORD)
    assert reply.code == "Access-Challenge", out
    code = app.next_code()
    assert server.answer(uid, reply["State"], other_code(code))[0].code == "Access-Reject"
    reply, out = server.request(uid, PASSWORD)
    assert server.answer(uid, reply["State"], code)[0].code == "Access-Accept"
    assert "Received Access-Accept" in server.radtest(uid, PASSWORD + app.next_code(), port=server.one_field_port)
    log = server.log_text()
    assert PIN not in log, log


def check(server):
    result = subprocess.run(["freeradius", "-C", "-d", str(server.dir), "-n", "radiusd"], capture_output=True,
                            text=True, timeout=60)
    return result.returncode, result.stdout + result.stderr + server.output()


def test_hsm_bad_options(run, hsm):
    store, key, _ = hsm_store(run, hsm, [])
    wrong = run.dir / "wrong.pin"
    wrong.write_text("86420975\n")
    wrong.chmod(0o600)
    loose = run.dir / "loose.pin"
    loose.write_text(PIN + "\n")
    loose.chmod(0o644)
    good = hsm_options(hsm, key)
    cases = [
        (hsm_options(hsm, key, pin_file=wrong), "KEY_PROVIDER_LOGIN"),
        # A new store's first data key is wrapped under hsm_key: the token has none of that label.
        (dict(good, hsm_key='"no-such-key"', store=f'"{run.dir / "hsm-new.sqlite"}"'), "KEY_PROVIDER_KEY_NOT_FOUND"),
        (hsm_options(hsm, key, pin_file=loose), "must not be readable or writable by others"),
        (dict(good, key_file=f'"{run.key_file}"'), "key_file and hsm_module exclude each other"),
        (dict(good, hsm_pin_file=None), "hsm_module needs hsm_key and hsm_pin_file"),
        (dict(good, hsm_slot='"0"'), "hsm_module needs one of hsm_token or hsm_slot"),
        (dict(good, hsm_token=None, hsm_slot='"0x1"'), "hsm_slot is a decimal slot id"),
        (dict(good, hsm_module='"libsofthsm2.so"'), "hsm_module and hsm_pin_file are absolute paths"),
        ({"key_file": None}, "key_file (or hsm_module) is required"),
        ({"hsm_key": f'"{key}"'}, "need hsm_module"),
    ]
    for options, error in cases:
        server = run.server(run.name("hsmbad"), store=store, checked_only=True, module_options=options)
        status, out = check(server)
        assert status != 0 and error in out and "86420975" not in out and PIN not in out, (options, out)
