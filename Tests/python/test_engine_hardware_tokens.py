"""Hardware tokens through the Python binding, against the tools users have:
HOTP codes from oathtool, YubiKey OTPs from Debian's python3-yubiotp (its
simulated key: counters rising, the session counter wrapping into the use
counter), PSKC files written by Debian's python3-pskc (plain, pre-shared key,
PBKDF2): every key it wrote is imported and signs in. On SQLite and
PostgreSQL. The Debian tools run under /usr/bin/python3 (Tests/python/tools)."""

import json
import pathlib
import subprocess

import pytest

import libmfa
from mfactl_support import fresh_store, store_kinds

DEBIAN_PYTHON = "/usr/bin/python3"
TOOLS = pathlib.Path(__file__).resolve().parent / "tools"
ON = {"state": "ENABLED", "providers": {"totp": "ENABLED", "hotp": "ENABLED", "yubico_otp": "ENABLED"}}
ACTOR = "ops:tokens"
RFC_HEX = "3132333435363738393031323334353637383930"


def oathtool_hotp(secret_hex, counter, digits=6):
    """The code of ``counter``, computed by oathtool --hotp."""
    out = subprocess.run(["oathtool", "--hotp", "-c", str(counter), "-d", str(digits), secret_hex], check=True,
                         capture_output=True, text=True)
    return out.stdout.strip()


def oathtool_totp(secret_hex, at, period=30, digits=6, algorithm="SHA1"):
    """The TOTP code at Unix time ``at``, computed by oathtool --totp."""
    out = subprocess.run(["oathtool", "--totp=" + algorithm, "-s", "%ds" % period, "-d", str(digits),
                          "-N", "@%d" % at, secret_hex], check=True, capture_output=True, text=True)
    return out.stdout.strip()


def yubikey_otps(key_hex, private_hex, public_id, session, counter, count):
    """OTPs as a YubiKey types them, made by python3-yubiotp."""
    out = subprocess.run([DEBIAN_PYTHON, str(TOOLS / "yubikey_otps.py"), key_hex, private_hex, public_id,
                          str(session), str(counter), str(count)], check=True, capture_output=True, text=True)
    return out.stdout.split()


def pskc_file(tmp_path, mode, arg=None):
    """A PSKC file written by python3-pskc, and what it holds."""
    path = tmp_path / ("keys-%s.pskcxml" % mode)
    command = [DEBIAN_PYTHON, str(TOOLS / "pskc_write.py"), str(path), mode] + ([arg] if arg else [])
    out = subprocess.run(command, check=True, capture_output=True, text=True)
    return path.read_bytes(), json.loads(out.stdout)


class Kit:
    """A Context on an injected clock (the conftest Clock) with every token kind enabled."""

    def __init__(self, store, clock):
        self.clock = clock
        self.events = []
        self.ctx = libmfa.Context(store, master_key=bytes(range(32)), clock=clock, audit=self.events.append)
        self.ctx.set_config(ON)
        self.admin = self.ctx.admin(ACTOR)

    def user(self, uid):
        return libmfa.User(uid, email=uid + "@example.com", email_verified=True, auth_time=self.clock.now)

    def resolve(self, uid, assertion):
        with pytest.raises(libmfa.SecondFactorRequired) as caught:
            self.ctx.sign_in(self.user(uid))
        return caught.value.resolver.resolve_sign_in(assertion)

    def hotp(self, uid, enrollment_id, code, next_code=None):
        return self.resolve(uid, libmfa.HOTPMultiFactorGenerator.assertion_for_sign_in(enrollment_id, code, next_code))

    def yubikey(self, uid, otp, enrollment_id=None):
        return self.resolve(uid, libmfa.YubicoOTPMultiFactorGenerator.assertion_for_sign_in(otp, enrollment_id))


@pytest.fixture(params=store_kinds())
def kit(request, tmp_path, clock):
    made = Kit(fresh_store(request.param, tmp_path), clock)
    yield made
    made.ctx.close()


def test_hotp_codes_from_oathtool_sign_in_resync_from_500_and_refuse_below_and_replayed(kit):
    info = kit.admin.import_token("hotp", bytes.fromhex(RFC_HEX), user=kit.user("h-alice"), serial="OT-1")
    assert info.factor_id == "hotp" and info.kind == libmfa.FACTOR_HOTP
    for counter in range(3):
        assert kit.hotp("h-alice", info.uid, oathtool_hotp(RFC_HEX, counter)).factor_id == "hotp"
    with pytest.raises(libmfa.InvalidVerificationCodeError):
        kit.hotp("h-alice", info.uid, oathtool_hotp(RFC_HEX, 2))  # replayed
    with pytest.raises(libmfa.InvalidVerificationCodeError):
        kit.hotp("h-alice", info.uid, oathtool_hotp(RFC_HEX, 1))  # below the counter
    # 500 presses away: one code is wrong, two consecutive codes bring the token back.
    with pytest.raises(libmfa.InvalidVerificationCodeError):
        kit.hotp("h-alice", info.uid, oathtool_hotp(RFC_HEX, 503))
    result = kit.hotp("h-alice", info.uid, oathtool_hotp(RFC_HEX, 503), oathtool_hotp(RFC_HEX, 504))
    assert result.claims["hotp_resynchronized"] == "true"
    assert any(e.kind == libmfa.AUDIT_TOKEN_RESYNCED for e in kit.events)
    with pytest.raises(libmfa.InvalidVerificationCodeError):
        kit.hotp("h-alice", info.uid, oathtool_hotp(RFC_HEX, 504))
    assert kit.hotp("h-alice", info.uid, oathtool_hotp(RFC_HEX, 505)).factor_id == "hotp"
    # An operator's resync, 800 presses on.
    kit.admin.resync_hotp(info.uid, oathtool_hotp(RFC_HEX, 1300), oathtool_hotp(RFC_HEX, 1301))
    assert kit.hotp("h-alice", info.uid, oathtool_hotp(RFC_HEX, 1302)).factor_id == "hotp"
    with pytest.raises(libmfa.InvalidVerificationCodeError):
        kit.admin.resync_hotp(info, oathtool_hotp(RFC_HEX, 10), oathtool_hotp(RFC_HEX, 11))


def test_yubikey_otps_from_python_yubiotp_counters_wrap_replay_and_reorder(kit):
    key, private, public = "2b7e151628aed2a6abf7158809cf4f3c", "ca62baca62ba", "vvcccbhbkbgc"
    kit.admin.import_token("yubico_otp", bytes.fromhex(key), public_id=public, private_id=bytes.fromhex(private))
    tokens = kit.admin.list_tokens(libmfa.ALL_TENANTS)
    assert [(t.serial, t.factor_id, t.public_id) for t in tokens] == [(public, "yubico_otp", public)]
    # The key: use counter 7, session counter 252: its touches wrap into use counter 8.
    otps = yubikey_otps(key, private, public, 7, 252, 8)
    assert all(len(otp) == libmfa.YUBICO_OTP_LENGTH for otp in otps)
    assert libmfa.YubicoOTPMultiFactorGenerator.is_otp(otps[0]) and not libmfa.YubicoOTPMultiFactorGenerator.is_otp("123456")
    mf = kit.ctx.multi_factor(kit.user("y-bob"))
    info = mf.enroll(libmfa.YubicoOTPMultiFactorGenerator.assertion_for_enrollment(mf.session(), otps[0]), "keychain")
    assert info.factor_id == "yubico_otp" and info.kind == libmfa.FACTOR_YUBICO_OTP
    assert any(e.kind == libmfa.AUDIT_TOKEN_ASSIGNED and e.uid == "y-bob" for e in kit.events)
    with pytest.raises(libmfa.InvalidVerificationCodeError):
        kit.yubikey("y-bob", otps[0])  # the touch that claimed it
    assert kit.yubikey("y-bob", otps[2]).enrollment_id == info.uid
    with pytest.raises(libmfa.InvalidVerificationCodeError):
        kit.yubikey("y-bob", otps[1])  # older, arrived late
    with pytest.raises(libmfa.InvalidVerificationCodeError):
        kit.yubikey("y-bob", otps[2])  # replayed
    for otp in otps[3:]:  # across the wrap of the session counter (252, 253, 254, 255, then 8/0, ...)
        assert kit.yubikey("y-bob", otp, info.uid).factor_id == "yubico_otp"
    # A key of the same public id and another AES key is another key: refused, counted.
    forged = yubikey_otps("00" * 16, private, public, 9, 0, 1)[0]
    with pytest.raises(libmfa.InvalidVerificationCodeError):
        kit.yubikey("y-bob", forged)
    # After a power cycle (use counter 9) the key goes on.
    assert kit.yubikey("y-bob", yubikey_otps(key, private, public, 9, 0, 1)[0]).factor_id == "yubico_otp"


@pytest.mark.parametrize("mode,arg", [("plain", None), ("psk", "00112233445566778899aabbccddeeff"),
                                      ("psk", "00112233445566778899aabbccddeeff" * 2), ("pbkdf2", "correct horse")])
def test_every_key_python_pskc_wrote_imports_and_signs_in(kit, tmp_path, mode, arg):
    data, keys = pskc_file(tmp_path, mode, arg)
    secret: dict[str, object] = {}
    if mode == "psk":
        secret = {"key": bytes.fromhex(arg)}
    elif mode == "pbkdf2":
        secret = {"password": arg}
    if secret:
        with pytest.raises(libmfa.PSKCKeyMismatchError):
            kit.admin.import_pskc(data)
        wrong = {"key": bytes(len(secret["key"]))} if "key" in secret else {"password": "wrong"}
        with pytest.raises(libmfa.PSKCKeyMismatchError):
            kit.admin.import_pskc(data, **wrong)
    summary = kit.admin.import_pskc(data, **secret)
    assert (summary.lines, summary.imported, summary.failed) == (4, 4, 0), summary.reports
    assert [line.serial for line in summary.reports] == [k["serial"] for k in keys]
    again = kit.admin.import_pskc(data, **secret)
    assert again.already_imported == 4 and again.imported == 0
    now = kit.clock.now
    for index, key in enumerate(keys):
        uid = key.get("user") or "pskc-%d" % index
        if key["kind"] == "hotp":
            if "user" in key:
                info = kit.admin.user_factors(uid)[0]
            else:
                info = kit.admin.assign_token(key["serial"], uid)
            digits = key.get("response_length", 6)
            counter = key.get("counter", 0)
            if counter:
                with pytest.raises(libmfa.InvalidVerificationCodeError):
                    kit.hotp(uid, info.uid, oathtool_hotp(key["secret"], counter - 1, digits))
            assert kit.hotp(uid, info.uid, oathtool_hotp(key["secret"], counter, digits)).factor_id == "hotp"
        elif key["kind"] == "totp":
            # The user claims it with a code (60 s steps, SHA256).
            mf = kit.ctx.multi_factor(kit.user(uid))
            code = oathtool_totp(key["secret"], now, period=60, algorithm="SHA256")
            info = mf.enroll(libmfa.TOTPMultiFactorGenerator.assertion_for_token(mf.session(), key["serial"], code))
            kit.clock.advance(60)
            later = oathtool_totp(key["secret"], kit.clock.now, period=60, algorithm="SHA256")
            assert kit.resolve(uid, libmfa.TOTPMultiFactorGenerator.assertion_for_sign_in(info.uid, later)).factor_id \
                == "totp"
        else:
            info = kit.admin.assign_token(key["public_id"], uid)
            otp = yubikey_otps(key["secret"], key["private_id"], key["public_id"], 1, 0, 1)[0]
            assert kit.yubikey(uid, otp).enrollment_id == info.uid
    assert kit.admin.list_tokens(libmfa.ALL_TENANTS).tokens == ()


def test_xxe_and_billion_laughs_are_refused(kit, tmp_path):
    xxe = (b'<?xml version="1.0"?>\n<!DOCTYPE KeyContainer [<!ENTITY x SYSTEM "file:///etc/shadow">]>\n'
           b'<KeyContainer xmlns="urn:ietf:params:xml:ns:keyprov:pskc" Version="1.0">'
           b'<KeyPackage><DeviceInfo><SerialNo>&x;</SerialNo></DeviceInfo></KeyPackage></KeyContainer>\n')
    laughs = [b'<?xml version="1.0"?>', b'<!DOCTYPE lolz [', b' <!ENTITY lol "lol">']
    for level in range(1, 10):
        previous = b"lol" if level == 1 else b"lol%d" % (level - 1)
        laughs.append(b' <!ENTITY lol%d "%s">' % (level, (b"&" + previous + b";") * 10))
    laughs += [b"]>", b'<KeyContainer Version="1.0"><KeyPackage><DeviceInfo><SerialNo>&lol9;</SerialNo>'
                      b"</DeviceInfo></KeyPackage></KeyContainer>"]
    external = (b'<?xml version="1.0"?>\n<!DOCTYPE KeyContainer SYSTEM "http://127.0.0.1:9/x.dtd">\n'
                b'<KeyContainer Version="1.0"/>\n')
    for data in (xxe, b"\n".join(laughs), external):
        with pytest.raises(libmfa.InvalidPSKCError) as caught:
            kit.admin.import_pskc(data)
        assert "DTD" in caught.value.message and "root:" not in caught.value.message
    assert kit.admin.list_tokens(libmfa.ALL_TENANTS).tokens == ()


def test_yubikey_csv_of_ykman_and_of_the_personalization_tool(kit):
    # ykman otp yubiotp --config-output: serial,public id,private id,key,access code,time,
    text = ("12345678,vvcccbhbkbgc,ca62baca62ba,2b7e151628aed2a6abf7158809cf4f3c,,2024-01-02T03:04:05,\n"
            "LOGGING START,01/02/24 03:04\n"
            "Yubico OTP,01/02/24 03:05,1,vv dd cc bb hb kb,ca 62 ba ca 62 bb,2b 7e 15 16 28 ae d2 a6 ab f7 15 88 09 cf 4f 3d,,,0,0,0\n"
            "OATH-HOTP,01/02/24 03:06,2,,,3132333435363738393031323334353637383930,,,0,0,0\n"
            "12345679,notmodhex!,ca62baca62ba,2b7e151628aed2a6abf7158809cf4f3c,,,\n")
    summary = kit.admin.import_factors(text, "yubikey_csv")
    assert [(line.line, line.outcome_name) for line in summary.reports] == [
        (1, "IMPORTED"), (3, "IMPORTED"), (4, "UNSUPPORTED"), (5, "FAILED")]
    assert [line.serial for line in summary.reports[:2]] == ["12345678", "vvddccbbhbkb"]
    for line in summary.reports:
        assert "2b7e1516" not in line.reason and "ca62baca62ba" not in line.reason
    info = kit.admin.assign_token("12345678", "csv-carol")
    otp = yubikey_otps("2b7e151628aed2a6abf7158809cf4f3c", "ca62baca62ba", "vvcccbhbkbgc", 1, 0, 1)[0]
    assert kit.yubikey("csv-carol", otp).enrollment_id == info.uid
    assert kit.admin.import_factors(text, libmfa.IMPORT_YUBIKEY_CSV).already_imported == 2


def test_inventory_bad_inputs_are_named(kit):
    admin = kit.admin
    with pytest.raises(libmfa.InvalidArgumentError):
        admin.import_token("hotp", bytes.fromhex(RFC_HEX))  # no user and no serial
    with pytest.raises(libmfa.InvalidArgumentError):
        admin.import_token("ocra", bytes.fromhex(RFC_HEX), serial="X")
    with pytest.raises(libmfa.InvalidArgumentError):
        admin.import_token("hotp", b"short", serial="X")
    with pytest.raises(libmfa.InvalidArgumentError):
        admin.import_token("hotp", bytes.fromhex(RFC_HEX), serial="a b")
    with pytest.raises(libmfa.InvalidArgumentError):
        admin.import_token("hotp", bytes.fromhex(RFC_HEX), serial="X", window=11)
    with pytest.raises(libmfa.InvalidArgumentError):
        admin.import_token("yubico_otp", bytes(16), public_id="vvcccbhbkbgc", private_id=bytes(5))
    with pytest.raises(libmfa.InvalidArgumentError):
        admin.import_token("yubico_otp", bytes(16), public_id="not modhex", private_id=bytes(6))
    with pytest.raises(TypeError):
        admin.import_token("hotp", "a str secret", serial="X")
    admin.import_token("hotp", bytes.fromhex(RFC_HEX), serial="X")
    with pytest.raises(libmfa.SecondFactorExistsError):
        admin.import_token("hotp", bytes.fromhex(RFC_HEX), serial="X")
    with pytest.raises(libmfa.TokenNotFoundError):
        admin.assign_token("Y", "u")
    with pytest.raises(libmfa.TokenNotFoundError):
        admin.remove_token("Y")
    with pytest.raises(libmfa.InvalidArgumentError):
        admin.list_tokens(limit=0)
    with pytest.raises(libmfa.InvalidArgumentError):
        admin.list_tokens(cursor="not a cursor")
    with pytest.raises(libmfa.InvalidArgumentError):
        admin.import_pskc(b"<KeyContainer/>", key=bytes(16), password="both")
    with pytest.raises(libmfa.InvalidArgumentError):
        admin.import_pskc(b"<KeyContainer/>", key=bytes(7))
    with pytest.raises(libmfa.InvalidPSKCError):
        admin.import_pskc(b"not xml at all")
    with pytest.raises(libmfa.MFAEnrollmentNotFoundError):
        admin.resync_hotp("no-such-factor", "123456", "654321")
    mf = kit.ctx.multi_factor(kit.user("claimer"))
    with pytest.raises(libmfa.TokenNotFoundError):
        mf.enroll(libmfa.HOTPMultiFactorGenerator.assertion_for_enrollment(mf.session(), "Y", "123456"))
    with pytest.raises(libmfa.InvalidArgumentError):
        mf.enroll(libmfa.HOTPMultiFactorGenerator.assertion_for_sign_in("eid", "123456"))
    admin.remove_token("X")
    assert any(e.kind == libmfa.AUDIT_TOKEN_REMOVED for e in kit.events)
