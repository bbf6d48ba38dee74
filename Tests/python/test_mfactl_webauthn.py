"""mfactl lists WebAuthn factors like any other kind: kind, name, hint, and the users filter; passkeys as such."""

import json
import time

from mfactl_support import Mfactl, context, fresh_store
from webauthn_authenticator import Authenticator

import libmfa


def test_mfactl_lists_security_keys_and_passkeys(tmp_path):
    tool = Mfactl(fresh_store("sqlite", tmp_path), tmp_path)
    now = int(time.time())
    with context(tool.store) as ctx:
        ctx.set_config({"state": "ENABLED", "providers": {"webauthn": "ENABLED"},
                        "webauthn": {"rpId": "example.com", "passkeySignIn": True}})
        user = libmfa.User("alice", email="alice@example.com", email_verified=True, auth_time=now)
        mf = ctx.multi_factor(user)
        gen = libmfa.WebAuthnMultiFactorGenerator
        for name, synced, passkey in (("YubiKey", False, False), ("Phone", True, False), ("Laptop", False, True),
                                      ("iCloud", True, True)):
            key = Authenticator("ES256")
            key.backup_eligible = synced
            key.resident = passkey
            make = gen.passkey_registration_options if passkey else gen.registration_options
            mf.enroll(gen.assertion_for_enrollment(key.register(make(mf.session(), "alice"))), name)
    listed = json.loads(tool.run("factors", "list", "alice", "--json", check_status=0).out)
    assert sorted((f["factorId"], f["displayName"], f["hint"]) for f in listed) == [
        ("webauthn", "Laptop", "device-bound passkey"), ("webauthn", "Phone", "passkey"),
        ("webauthn", "YubiKey", "security key"), ("webauthn", "iCloud", "synced passkey")]
    details = {f["displayName"]: f["webauthn"] for f in listed}
    assert [name for name in ("YubiKey", "Phone", "Laptop", "iCloud") if details[name]["passkey"]] == ["Laptop", "iCloud"]
    assert details["iCloud"]["backup"] == "synced passkey" and details["Laptop"]["backup"] == "device-bound key"
    assert details["Laptop"]["discoverable"] is True and details["YubiKey"]["discoverable"] is False
    assert details["YubiKey"]["attestationFormat"] == "none" and len(details["YubiKey"]["aaguid"]) == 32
    table = tool.run("factors", "list", "alice", check_status=0).out
    assert "webauthn" in table and "security key" in table and "synced passkey" in table
    users = tool.run("users", "list", "--factor", "webauthn", "--json", check_status=0).json_lines()
    assert [(u["uid"], u["factors"]) for u in users] == [("alice", {"webauthn": 4})]
