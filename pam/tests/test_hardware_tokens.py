"""pam_mfa.so with hardware tokens, through pamtester: an HOTP token imported
with mfactl (codes from oathtool --hotp; two codes on one line resynchronize
it) and a YubiKey imported from the CSV ykman writes and assigned with
`mfactl tokens assign` (OTPs from Debian's python3-yubiotp, typed as a touch
types them)."""

import json
import pathlib
import subprocess

import pytest

from pam_harness import AUTH_ERR, MFACTL, SUCCESS

RFC_HEX = "3132333435363738393031323334353637383930"
YUBIKEY_OTPS = pathlib.Path(__file__).resolve().parents[2] / "Tests" / "python" / "tools" / "yubikey_otps.py"


def hotp(counter, secret_hex=RFC_HEX):
    """The code of `counter`, as oathtool --hotp computes it."""
    out = subprocess.run(["oathtool", "--hotp", "-c", str(counter), secret_hex], check=True, capture_output=True,
                         text=True)
    return out.stdout.strip()


def yubikey_otps(key_hex, private_hex, public_id, session, counter, count):
    """OTPs as the YubiKey types them (python3-yubiotp, under Debian's python3)."""
    out = subprocess.run(["/usr/bin/python3", str(YUBIKEY_OTPS), key_hex, private_hex, public_id, str(session),
                          str(counter), str(count)], check=True, capture_output=True, text=True)
    return out.stdout.split()


def mfactl(run, *args, text=""):
    result = subprocess.run([str(MFACTL), *args, "--store", run.store, "--key-file", str(run.key_file), "--key-id",
                             "pam", "--json"], input=text, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


@pytest.fixture(scope="module")
def token_service(run):
    return run.service([run.store_words()])


def test_hotp_token_logs_in_refuses_replay_and_resyncs_with_two_codes(run, token_service):
    user = run.user()
    out = mfactl(run, "import", "users-file", "-", text="HOTP %s - %s\n" % (user, RFC_HEX))
    assert '"imported":1' in out.replace(" ", "")
    status, out, _ = run.pam(token_service, user, hotp(0))
    assert status == 0 and SUCCESS in out, out
    status, out, _ = run.pam(token_service, user, hotp(0))
    assert status != 0 and AUTH_ERR in out, out  # replayed
    assert run.pam(token_service, user, hotp(3))[0] == 0  # two presses lost on the way
    # 200 presses away: one code is refused, two codes on one line bring the token back.
    assert run.pam(token_service, user, hotp(204))[0] != 0
    status, out, _ = run.pam(token_service, user, "%s %s" % (hotp(204), hotp(205)))
    assert status == 0 and SUCCESS in out, out
    assert run.pam(token_service, user, hotp(206))[0] == 0


def test_yubikey_touch_logs_in_and_refuses_replay(run, token_service):
    user = run.user()
    key, private, public = "2b7e151628aed2a6abf7158809cf4f3c", "ca62baca62ba", "vvcccbhbkbgc"
    serial = "%d" % (int(run.id, 16) % 10_000_000)
    out = mfactl(run, "import", "yubikey-csv", "-",
                 text="%s,%s,%s,%s,,2024-01-02T03:04:05,\n" % (serial, public, private, key))
    assert '"imported":1' in out.replace(" ", "")
    tokens = [json.loads(line) for line in mfactl(run, "tokens", "list").splitlines()]
    assert any(token["serial"] == serial and token["uid"] is None for token in tokens)
    mfactl(run, "tokens", "assign", serial, user)
    first, second, third = yubikey_otps(key, private, public, 3, 0, 3)
    status, out, _ = run.pam(token_service, user, second)
    assert status == 0 and SUCCESS in out, out
    for replayed in (second, first):  # the same touch, and an older one
        status, out, _ = run.pam(token_service, user, replayed)
        assert status != 0 and AUTH_ERR in out, out
    status, out, _ = run.pam(token_service, user, third.upper())  # caps lock on
    assert status == 0 and SUCCESS in out, out


def test_forward_pass_with_a_yubikey_touch_or_an_hotp_code_after_the_password(run):
    password = "pw-ending-in-cbdef"  # ends in modhex letters, as a touch does
    user = run.user(password=password)
    key, private = "00112233445566778899aabbccddeeff", "0a0b0c0d0e0f"
    public = "".join("cbdefghijklnrtuv"[int(c, 16)] for c in ("%012x" % (int(run.id, 16) % (1 << 48))))
    serial = "%d" % (int(run.id, 16) % 10_000_000 + 1)
    mfactl(run, "import", "yubikey-csv", "-", text="%s,%s,%s,%s,,,\n" % (serial, public, private, key))
    mfactl(run, "tokens", "assign", serial, user)
    secret = "%040x" % int(run.id, 16)
    mfactl(run, "import", "users-file", "-", text="HOTP %s - %s\n" % (user, secret))
    service = run.service([run.store_words() + " forward_pass"], after=["auth required pam_unix.so use_first_pass"])
    first, second = yubikey_otps(key, private, public, 1, 0, 2)
    status, out, _ = run.pam(service, user, password + first)
    assert status == 0 and SUCCESS in out, out
    assert run.pam(service, user, "not-the-pw" + second)[0] != 0  # pam_unix refuses; the touch is spent
    assert run.pam(service, user, password + second)[0] != 0
    status, out, _ = run.pam(service, user, password + hotp(0, secret))
    assert status == 0 and SUCCESS in out, out
