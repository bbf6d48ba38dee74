"""mfactl lists WebAuthn factors like any other kind: kind, name, hint, and the users filter."""

import json
import time

from mfactl_support import Mfactl, context, fresh_store
from webauthn_authenticator import Authenticator

import libmfa


def test_mfactl_lists_security_keys_and_passkeys(tmp_path):
    tool = Mfactl(fresh_store("sqlite", tmp_path), tmp_path)
    now = int(time.time())
    with context(tool.store) as ctx:
        ctx.set_config({"state": "ENABLED", "providers": {"webauthn": "ENABLED"}, "webauthn": {"rpId": "example.com"}})
        user = libmfa.User("alice", email="alice@example.com", email_verified=True, auth_time=now)
        mf = ctx.multi_factor(user)
        gen = libmfa.WebAuthnMultiFactorGenerator
        for name, synced in (("YubiKey", False), ("Phone", True)):
            key = Authenticator("ES256")
            key.backup_eligible = synced
            mf.enroll(gen.assertion_for_enrollment(key.register(gen.registration_options(mf.session(), "alice"))), name)
    listed = json.loads(tool.run("factors", "list", "alice", "--json", check_status=0).out)
    assert sorted((f["factorId"], f["displayName"], f["hint"]) for f in listed) == [
        ("webauthn", "Phone", "passkey"), ("webauthn", "YubiKey", "security key")]
    table = tool.run("factors", "list", "alice", check_status=0).out
    assert "webauthn" in table and "security key" in table and "passkey" in table
    users = tool.run("users", "list", "--factor", "webauthn", "--json", check_status=0).json_lines()
    assert [(u["uid"], u["factors"]) for u in users] == [("alice", {"webauthn": 2})]
