"""mfactl import, end to end: each format from fixture files made with the
real tools (pyotp's provisioning URIs, oathtool's codes), imported by the
mfactl program into SQLite and PostgreSQL, then signed in through the
library with codes from oathtool."""

import base64
import hashlib
import json

import pytest
import pyotp

from mfactl_support import Mfactl, context, fresh_store, oathtool, sign_in, store_kinds

#: When the library's clock stands for the sign-ins (the start of a 30 s step).
NOW = 1_700_000_010


def secret(name):
    """20 bytes that depend on ``name``."""
    return hashlib.sha1(name.encode()).digest()


def b32(raw):
    return base64.b32encode(raw).decode().rstrip("=")


def code_at(raw, *options, now=NOW):
    """oathtool's TOTP code for a raw secret at ``now`` (``--totp=sha256`` among
    ``options`` picks the hash)."""
    mode = [] if any(option.startswith("--totp") for option in options) else ["--totp"]
    return oathtool(*mode, *options, "--now", "@%d" % now, raw.hex())[0]


@pytest.fixture(params=store_kinds())
def tool(request, tmp_path):
    return Mfactl(fresh_store(request.param, tmp_path), tmp_path)


def test_otpauth_uris_from_pyotp(tool, tmp_path):
    lines = [
        pyotp.TOTP(b32(secret("alice"))).provisioning_uri(name="alice", issuer_name="ACME Co"),
        pyotp.TOTP(b32(secret("bob")), digits=8, interval=60, digest=hashlib.sha256).provisioning_uri(
            name="bob", issuer_name="ACME Co"),
        pyotp.HOTP(b32(secret("carol"))).provisioning_uri(name="carol", issuer_name="ACME Co", initial_count=0),
        "otpauth://totp/ACME:dave?secret=%s" % b32(secret("dave"))[:8],
        "this is not a URI",
    ]
    path = tmp_path / "uris.txt"
    path.write_text("\n".join(lines) + "\n")
    first = tool.run("import", "otpauth", path, "--json")
    assert first.status == 1, first  # lines 4 and 5 were not imported
    reports = first.json_lines()
    by_line = {r["line"]: r for r in reports if "line" in r}
    assert [by_line[n]["outcome"] for n in (1, 2, 3, 4, 5)] == [
        "IMPORTED", "IMPORTED", "IMPORTED", "FAILED", "FAILED"]
    assert "HOTP" in by_line[3]["reason"] and by_line[3]["uid"] == "carol"
    assert "10 to 128 bytes" in by_line[4]["reason"]
    assert reports[-1]["summary"] == {"lines": 5, "imported": 3, "alreadyImported": 0, "unsupported": 0,
                                      "failed": 2, "recoveryCodes": 0, "stopped": False}
    assert b32(secret("alice")) not in first.out + first.err

    again = tool.run("import", "otpauth", path)
    assert again.status == 1
    assert "line 1: ALREADY_IMPORTED alice" in again.out and "line 2: ALREADY_IMPORTED bob" in again.out
    assert "imported 0, already imported 3" in again.out

    with context(tool.store, clock=lambda: NOW) as ctx:
        assert sign_in(ctx, "alice", code_at(secret("alice")), now=NOW).factor_id == "totp"
        assert sign_in(ctx, "bob", code_at(secret("bob"), "--digits=8", "--time-step-size=60s",
                                           "--totp=sha256"), now=NOW).factor_id == "totp"


def test_users_file_with_oathtool_codes(tool, tmp_path):
    users = tmp_path / "users.oath"
    users.write_text("\n".join([
        "# pam_oath users file",
        "HOTP/T30/6 alice - %s" % secret("alice").hex(),
        "HOTP/T60/8\tbob\t-\t%s\t0\t%s\t2023-11-14T22:13:00L" % (
            secret("bob").hex(), code_at(secret("bob"), "--digits=8", "--time-step-size=60s", now=NOW - 120)),
        "HOTP/E carol - %s" % secret("carol").hex(),
        "HOTP/T30 dave 1234 %s" % secret("dave").hex(),
        "HOTP/T30 erin - not-hex",
    ]) + "\n")
    result = tool.run("import", "users-file", users, "--tenant", "corp")
    assert result.status == 1
    assert "line 4: " not in result.out  # the HOTP/E line imported, quietly
    assert "line 5: IMPORTED dave: the PIN is not imported" not in result.out  # imported lines are quiet
    assert "line 6: FAILED erin: the secret is not hexadecimal" in result.out
    assert "imported 4, already imported 0, unsupported 0, failed 1" in result.out
    verbose = tool.run("import", "users-file", users, "--tenant", "corp", "--verbose")
    assert "line 2: ALREADY_IMPORTED alice" in verbose.out
    with context(tool.store, clock=lambda: NOW) as ctx:
        for uid, options in (("alice", ()), ("bob", ("--digits=8", "--time-step-size=60s")), ("dave", ())):
            code = code_at(secret(uid), *options)
            assert sign_in(ctx, uid, code, tenant="corp", now=NOW).factor_id == "totp"


def test_google_authenticator_file_checked_against_oathtool(tool, tmp_path):
    raw = secret("alice")[:10]  # google-authenticator's own secrets are 80 bits
    step_used = NOW // 30 - 1
    scratch = ["12345678", "23456789", "34567890", "45678901", "56789012"]
    path = tmp_path / ".google_authenticator"
    path.write_text("%s\n\" RATE_LIMIT 3 30 %d\n\" WINDOW_SIZE 3\n\" DISALLOW_REUSE %d\n\" TOTP_AUTH\n%s\n" % (
        b32(raw), NOW - 5, step_used, "\n".join(scratch)))
    result = tool.run("import", "google-authenticator", "--uid", "alice", path, "--json")
    assert result.status == 0, result
    reports = {r["line"]: r for r in result.json_lines() if "line" in r}
    assert reports[1]["outcome"] == "IMPORTED"
    assert reports[2]["outcome"] == "NOTE" and "backoff" in reports[2]["reason"]
    assert reports[3]["outcome"] == "NOTE" and "±1" in reports[3]["reason"] and "±5" in reports[3]["reason"]
    assert reports[4]["outcome"] == "NOTE" and "DISALLOW_REUSE" in reports[4]["reason"]
    assert [reports[n]["outcome"] for n in range(6, 11)] == ["IMPORTED"] * 5
    assert result.json_lines()[-1]["summary"]["recoveryCodes"] == 5
    for code in scratch:
        assert code not in result.out
    listed = json.loads(tool.run("factors", "list", "alice", "--json").out)
    assert sorted(f["factorId"] for f in listed) == ["recovery", "totp"]
    assert next(f for f in listed if f["factorId"] == "recovery")["remainingCodes"] == 5
    # The code of the step the file lists as used stays used; the next one works.
    with context(tool.store, clock=lambda: NOW - 30) as ctx:
        import libmfa
        with pytest.raises(libmfa.InvalidVerificationCodeError):
            sign_in(ctx, "alice", code_at(raw, now=NOW - 30), now=NOW - 30)
    with context(tool.store, clock=lambda: NOW) as ctx:
        assert sign_in(ctx, "alice", oathtool("--totp", "-b", "--now", "@%d" % NOW, b32(raw))[0],
                       now=NOW).factor_id == "totp"
    again = tool.run("import", "google-authenticator", "--uid", "alice", path)
    assert again.status == 0 and "ALREADY_IMPORTED" in again.out

    hotp = tmp_path / "hotp_google_authenticator"
    hotp.write_text("%s\n\" HOTP_COUNTER 4\n12345678\n" % b32(secret("bob")[:10]))
    imported = tool.run("import", "google-authenticator", "--uid", "bob", hotp)
    assert imported.status == 0, imported
    listed = json.loads(tool.run("factors", "list", "bob", "--json").out)
    assert sorted(f["factorId"] for f in listed) == ["hotp", "recovery"]
    uncounted = tmp_path / "uncounted_google_authenticator"
    uncounted.write_text("%s\n12345678\n" % b32(secret("carol")[:10]))
    refused = tool.run("import", "google-authenticator", "--uid", "carol", uncounted)
    assert refused.status == 1 and "line 1: FAILED carol" in refused.out and "HOTP_COUNTER" in refused.out


def test_csv(tool, tmp_path):
    path = tmp_path / "factors.csv"
    path.write_text("uid,secret,issuer,digits,period,algorithm\n"
                    "alice,%s,\"ACME, Inc.\",8,60,SHA512\n"
                    "bob,%s,,,,\n"
                    "carol,%s,x,9\n" % (b32(secret("alice")), b32(secret("bob")), b32(secret("carol"))))
    result = tool.run("import", "csv", path)
    assert result.status == 1 and "line 4: FAILED carol: digits must be 6 to 8" in result.out
    listed = json.loads(tool.run("factors", "list", "alice", "--json").out)
    assert listed[0]["displayName"] == "ACME, Inc."
    with context(tool.store, clock=lambda: NOW) as ctx:
        assert sign_in(ctx, "alice", code_at(secret("alice"), "--digits=8", "--time-step-size=60s",
                                             "--totp=sha512"), now=NOW).factor_id == "totp"
        assert sign_in(ctx, "bob", code_at(secret("bob")), now=NOW).factor_id == "totp"
