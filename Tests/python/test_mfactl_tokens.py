"""mfactl import pskc, import yubikey-csv and tokens, end to end on SQLite and
PostgreSQL: PSKC files written by Debian's python3-pskc (a pre-shared key
read from a file, a PBKDF2 password read from the environment), tokens listed,
assigned by serial, resynchronized and removed, each signing in through the
library with codes from oathtool and OTPs from python3-yubiotp; hostile XML
refused quickly with a clear message."""

import json
import time

import pytest

import libmfa
from mfactl_support import Mfactl, context, fresh_store, store_kinds
from test_engine_hardware_tokens import ON, oathtool_hotp, pskc_file, yubikey_otps

NOW = 1_700_000_010


@pytest.fixture(params=store_kinds())
def tool(request, tmp_path):
    made = Mfactl(fresh_store(request.param, tmp_path), tmp_path)
    with context(made.store, clock=lambda: NOW) as ctx:
        ctx.set_config(ON)
    return made


def resolve(ctx, uid, assertion):
    user = libmfa.User(uid, email=uid + "@example.com", email_verified=True, auth_time=NOW)
    with pytest.raises(libmfa.SecondFactorRequired) as caught:
        ctx.sign_in(user)
    return caught.value.resolver.resolve_sign_in(assertion)


def listed(tool, *args):
    result = tool.run("tokens", "list", "--json", *args, check_status=0)
    return [line for line in result.json_lines() if "serial" in line]


def test_pskc_with_a_key_file_and_a_password_in_the_environment(tool, tmp_path):
    psk = "00112233445566778899aabbccddeeff"
    data, keys = pskc_file(tmp_path, "psk", psk)
    path = tmp_path / "keys.pskcxml"
    path.write_bytes(data)
    # Without the key, with two sources, with a bad key file: refused before any key is stored.
    missing = tool.run("import", "pskc", path)
    assert missing.status == 77 and "pre-shared key" in missing.err, missing
    key_file = tmp_path / "psk.hex"
    key_file.write_text(psk + "\n")
    both = tool.run("import", "pskc", path, "--pskc-key-file", key_file, "--pskc-password-env", "X")
    assert both.status == 64 and "give one of" in both.err
    bad = tmp_path / "bad.hex"
    bad.write_text("not hex\n")
    assert tool.run("import", "pskc", path, "--pskc-key-file", bad).status == 65
    # No option takes the key on the command line.
    assert tool.run("import", "pskc", path, "--pskc-key", psk).status == 64
    assert listed(tool, "--assigned") == []

    result = tool.run("import", "pskc", path, "--pskc-key-file", key_file, "--json", check_status=0)
    reports = result.json_lines()
    assert [r["serial"] for r in reports if "line" in r] == [k["serial"] for k in keys]
    assert reports[-1]["summary"]["imported"] == 4
    for key in keys:
        assert key["secret"] not in result.out + result.err
    again = tool.run("import", "pskc", path, "--pskc-key-file", key_file)
    assert "already imported 4" in again.out

    waiting = listed(tool)
    assert sorted(t["factorId"] for t in waiting) == ["hotp", "totp", "yubico_otp"]
    hotp = next(k for k in keys if k["kind"] == "hotp" and "user" not in k)
    assigned = json.loads(tool.run("tokens", "assign", hotp["serial"], "dora", "--json", check_status=0).out)
    assert assigned["factorId"] == "hotp"
    assert [t["uid"] for t in listed(tool, "--assigned") if t["serial"] == hotp["serial"]] == ["dora"]
    assert tool.run("tokens", "assign", hotp["serial"], "eve").status == 66

    digits, counter = hotp["response_length"], hotp["counter"]
    with context(tool.store, clock=lambda: NOW) as ctx:
        assertion = libmfa.HOTPMultiFactorGenerator.assertion_for_sign_in(
            assigned["enrollmentId"], oathtool_hotp(hotp["secret"], counter, digits))
        assert resolve(ctx, "dora", assertion).factor_id == "hotp"
    # 300 presses away: mfactl tokens resync with two consecutive codes.
    far = [oathtool_hotp(hotp["secret"], counter + 300 + i, digits) for i in range(3)]
    assert tool.run("tokens", "resync", assigned["enrollmentId"], far[1], far[0]).status == 65  # out of order
    tool.run("tokens", "resync", assigned["enrollmentId"], far[0], far[1], check_status=0)
    with context(tool.store, clock=lambda: NOW) as ctx:
        assertion = libmfa.HOTPMultiFactorGenerator.assertion_for_sign_in(assigned["enrollmentId"], far[2])
        assert resolve(ctx, "dora", assertion).factor_id == "hotp"

    yubikey = next(k for k in keys if k["kind"] == "yubico_otp")
    tool.run("tokens", "remove", yubikey["serial"], check_status=0)
    assert tool.run("tokens", "remove", yubikey["serial"]).status == 66
    assert yubikey["serial"] not in [t["serial"] for t in listed(tool)]

    pbkdf2, pbkdf2_keys = pskc_file(tmp_path, "pbkdf2", "correct horse")
    pbkdf2_path = tmp_path / "pbkdf2.pskcxml"
    pbkdf2_path.write_bytes(pbkdf2)
    unset = tool.run("import", "pskc", pbkdf2_path, "--pskc-password-env", "H48_PSKC_PASSWORD")
    assert unset.status == 64 and "H48_PSKC_PASSWORD is not set" in unset.err
    wrong = tool.run("import", "pskc", pbkdf2_path, "--pskc-password-env", "H48_PSKC_PASSWORD",
                     env={"H48_PSKC_PASSWORD": "wrong horse"})
    assert wrong.status == 77
    tool.run("import", "pskc", pbkdf2_path, "--pskc-password-env", "H48_PSKC_PASSWORD", "--unassigned",
             env={"H48_PSKC_PASSWORD": "correct horse"}, check_status=0)
    serials = {t["serial"] for t in listed(tool)}
    assert {k["serial"] for k in pbkdf2_keys} <= serials  # the UserId one too, with --unassigned


def test_yubikey_csv_then_assign_by_serial(tool, tmp_path):
    key, private, public = "2b7e151628aed2a6abf7158809cf4f3c", "ca62baca62ba", "vvcccbhbkbgc"
    csv = tmp_path / "ykman.csv"
    csv.write_text("12345678,%s,%s,%s,,2024-01-02T03:04:05,\n" % (public, private, key))
    result = tool.run("import", "yubikey-csv", csv, check_status=0)
    assert key not in result.out + result.err
    assert [(t["serial"], t["publicId"]) for t in listed(tool)] == [("12345678", public)]
    tool.run("tokens", "assign", "12345678", "yuri", check_status=0)
    otp = yubikey_otps(key, private, public, 1, 0, 1)[0]
    with context(tool.store, clock=lambda: NOW) as ctx:
        assertion = libmfa.YubicoOTPMultiFactorGenerator.assertion_for_sign_in(otp)
        assert resolve(ctx, "yuri", assertion).factor_id == "yubico_otp"


def test_hostile_xml_is_refused_fast_with_a_clear_message(tool, tmp_path):
    laughs = ['<?xml version="1.0"?>', "<!DOCTYPE lolz [", ' <!ENTITY lol "lol">']
    for level in range(1, 10):
        previous = "lol" if level == 1 else "lol%d" % (level - 1)
        laughs.append(' <!ENTITY lol%d "%s">' % (level, ("&" + previous + ";") * 10))
    laughs += ["]>", '<KeyContainer Version="1.0"><KeyPackage><DeviceInfo><SerialNo>&lol9;</SerialNo>'
                     "</DeviceInfo></KeyPackage></KeyContainer>"]
    xxe = ('<?xml version="1.0"?>\n<!DOCTYPE KeyContainer [<!ENTITY x SYSTEM "file:///etc/passwd">]>\n'
           '<KeyContainer xmlns="urn:ietf:params:xml:ns:keyprov:pskc" Version="1.0"><KeyPackage>'
           "<DeviceInfo><SerialNo>&x;</SerialNo></DeviceInfo></KeyPackage></KeyContainer>\n")
    for name, text in (("laughs", "\n".join(laughs)), ("xxe", xxe)):
        path = tmp_path / (name + ".pskcxml")
        path.write_text(text)
        started = time.monotonic()
        result = tool.run("import", "pskc", path)
        assert time.monotonic() - started < 10
        assert result.status == 65 and "DTD" in result.err, result
        assert "root:" not in result.out + result.err
    assert listed(tool, "--assigned") == []
