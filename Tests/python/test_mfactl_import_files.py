"""mfactl import on files as operators have them (issue 45, items 2 to 6): Excel's
"CSV UTF-8" (a byte order mark, CR LF lines) imports every line and exits 0; a file
that imports nothing never exits 0; swapped columns never print the secret; a uid
with a NUL or another control character fails its line; a pam_oath users file
rewritten by liboath after a login keeps its last code used; UTF-16 is refused."""

import csv
import io
import json
import os
import time

import pyotp
import pytest

import libmfa
from mfactl_support import Mfactl, context, fresh_store, sign_in, store_kinds
from import_files_support import b32, local_time_far_east, pam_oath_login  # noqa: F401

RFC_BASE32 = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"
RFC_HEX = b"12345678901234567890".hex()


@pytest.fixture(params=store_kinds())
def tool(request, tmp_path):
    return Mfactl(fresh_store(request.param, tmp_path), tmp_path)


def excel_csv(rows):
    """Excel's "CSV UTF-8": a byte order mark, then the Excel dialect (CR LF, minimal quoting)."""
    out = io.StringIO(newline="")
    csv.writer(out).writerows(rows)
    return out.getvalue().encode("utf-8-sig")


def test_mfactl_crlf_bom_excel_csv_imports_every_line(tool, tmp_path):
    path = tmp_path / "export.csv"
    path.write_bytes(excel_csv([["uid", "secret", "issuer"], ["alice", RFC_BASE32, "ACME, Inc."],
                                ["bob", RFC_BASE32, ""]]))
    result = tool.run("import", "csv", path, "--json")
    assert result.status == 0, result
    summary = result.json_lines()[-1]["summary"]
    assert (summary["lines"], summary["imported"], summary["failed"]) == (3, 2, 0)
    listed = json.loads(tool.run("factors", "list", "alice", "--json").out)
    assert listed[0]["displayName"] == "ACME, Inc."


def test_mfactl_crlf_nothing_imported_never_exits_0(tool, tmp_path):
    for name, data in (("header.csv", b"uid,secret,issuer\r\n"), ("empty.csv", b""), ("bom.csv", b"\xef\xbb\xbf")):
        path = tmp_path / name
        path.write_bytes(data)
        result = tool.run("import", "csv", path)
        assert result.status == 1, (name, result)
        assert "line 1: FAILED" in result.out and "some lines were not imported" in result.err


def test_mfactl_report_uid_secret_never_printed(tool, tmp_path):
    path = tmp_path / "swapped.csv"
    path.write_text("%s,alice\n%s\nbob;%s\n" % (RFC_BASE32, RFC_BASE32, RFC_BASE32))
    users = tmp_path / "users.oath"
    users.write_text("HOTP/T30 %s\n" % RFC_HEX)
    for args in (("csv", path), ("csv", path, "--json"), ("users-file", users), ("users-file", users, "--json")):
        result = tool.run("import", *args)
        assert result.status == 1, result
        for secret in (RFC_BASE32, RFC_HEX):
            assert secret not in result.out + result.err
    assert "line 1: FAILED:" in tool.run("import", "csv", path).out  # the line number alone


def test_mfactl_control_char_uid_fails_its_line(tool, tmp_path):
    path = tmp_path / "nul.csv"
    path.write_bytes(b"ali\x00ce," + RFC_BASE32.encode() + b"\r\n\"bob\x1b[2J\"," + RFC_BASE32.encode() + b"\r\n")
    result = tool.run("import", "csv", path)
    assert result.status == 1, result
    assert "line 1: FAILED: the uid holds a control character" in result.out
    assert "line 2: FAILED: the uid holds a control character" in result.out
    assert "\x1b" not in result.out and "\x00" not in result.out
    assert [line for line in tool.run("users", "list", "--json").json_lines() if "uid" in line] == []
    refused = tool.run("user", "delete", "ali\x1bce", "--actor", "ops")
    assert refused.status == 65 and "uid holds a control character" in refused.err


def test_mfactl_pam_oath_last_otp_stays_used(tool, tmp_path, local_time_far_east):  # noqa: F811
    secret = os.urandom(20)
    users = tmp_path / "users.oath"
    users.write_text("HOTP/T30 alice - %s\n" % secret.hex())
    code = pyotp.TOTP(b32(secret)).now()
    assert pam_oath_login(users, "alice", code) == 0
    result = tool.run("import", "users-file", users, "--verbose")
    assert result.status == 0 and "stays used" in result.out, result
    assert code not in result.out
    now = int(time.time())
    with context(tool.store, clock=lambda: now) as ctx:
        with pytest.raises(libmfa.InvalidVerificationCodeError):
            sign_in(ctx, "alice", code, now=now)
    with context(tool.store, clock=lambda: now + 30) as ctx:
        assert sign_in(ctx, "alice", pyotp.TOTP(b32(secret)).at(now + 30), now=now + 30).factor_id == "totp"


def test_mfactl_utf16_file_refused_whole(tool, tmp_path):
    path = tmp_path / "unicode.txt"
    path.write_bytes(("uid,secret\r\nalice,%s\r\n" % RFC_BASE32).encode("utf-16"))
    result = tool.run("import", "csv", path)
    assert result.status == 65 and "UTF-16" in result.err, result
