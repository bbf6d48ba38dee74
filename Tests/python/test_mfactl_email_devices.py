"""mfactl lists and counts (stats) email factors like any other kind (masked unless --show-numbers), and
lists and forgets a user's remembered devices, with its actor in the audit trail."""

import json
import time

from mfactl_support import KEY1, Mfactl, fresh_store

import libmfa


def test_mfactl_email_factors_and_remembered_devices(tmp_path):
    tool = Mfactl(fresh_store("sqlite", tmp_path), tmp_path)
    now = int(time.time())
    mailed = []
    ctx = libmfa.Context(store=tool.store, master_key=KEY1, key_id="k1", email_sender=mailed.append)
    try:
        ctx.set_config({"state": "ENABLED", "providers": {"email": "ENABLED", "recovery": "ENABLED"},
                        "recoveryCodes": {"count": 8}, "rememberedDevices": {"state": "ENABLED"}})
        user = libmfa.User("alice", email="alice@example.com", email_verified=True, auth_time=now)
        mf = ctx.multi_factor(user)
        provider = libmfa.EmailAuthProvider(ctx)
        vid = provider.send_verification_code("Alice.Work@Example.com", session=mf.session())
        mf.enroll(libmfa.EmailMultiFactorGenerator.assertion(provider.credential(vid, mailed[-1].code)), "Work mail")
        codes = libmfa.RecoveryCodesMultiFactorGenerator.generate_codes(mf.session())
        tokens = []
        for code in codes.codes[:2]:
            try:
                ctx.sign_in(user)
            except libmfa.SecondFactorRequired as required:
                resolver = required.resolver
            resolver.resolve_sign_in(libmfa.RecoveryCodesMultiFactorGenerator.assertion_for_sign_in(code))
            tokens.append(resolver.remember_device("Firefox on Linux"))
    finally:
        ctx.close()
    listed = json.loads(tool.run("factors", "list", "alice", "--json", check_status=0).out)
    email = [f for f in listed if f["factorId"] == "email"]
    assert [(f["displayName"], f["hint"], f["email"]) for f in email] == [
        ("Work mail", "A*********@e******.com", "A*********@e******.com")]
    shown = json.loads(tool.run("factors", "list", "alice", "--json", "--show-numbers", check_status=0).out)
    assert [f["email"] for f in shown if f["factorId"] == "email"] == ["Alice.Work@example.com"]
    users = tool.run("users", "list", "--factor", "email", "--json", check_status=0).json_lines()
    assert [(u["uid"], u["factors"]["email"]) for u in users] == [("alice", 1)]
    stats = json.loads(tool.run("stats", "--json", check_status=0).out)
    assert [(k["tenant"], k["factors"], k["users"]) for k in stats["kinds"] if k["factorId"] == "email"] == [
        (None, 1, 1)]

    devices = json.loads(tool.run("devices", "list", "alice", "--json", check_status=0).out)
    assert sorted(d["deviceId"] for d in devices) == sorted(t.device.id for t in tokens)
    assert {d["label"] for d in devices} == {"Firefox on Linux"}
    table = tool.run("devices", "list", "alice", check_status=0).out
    assert "Firefox on Linux" in table and tokens[0].device.id in table
    assert tool.run("devices", "list", "bob", check_status=66).status == 66
    assert tool.run("devices", "revoke", "alice", "not-a-device", check_status=66).status == 66
    assert tool.run("devices", "revoke", "alice", check_status=64).status == 64
    revoked = json.loads(tool.run("devices", "revoke", "alice", tokens[0].device.id, "--actor", "ops:eve", "--json",
                                  check_status=0).out)
    assert revoked["revoked"] == 1
    assert "forgot 1 remembered device of alice" in tool.run("devices", "revoke", "alice", "--all",
                                                             check_status=0).out
    assert json.loads(tool.run("devices", "list", "alice", "--json", check_status=0).out) == []
