"""Hardware tokens through a real FreeRADIUS: an HOTP token's code (from oathtool) answers
the challenge, a replayed one is rejected; a YubiKey's touch (an OTP made by Debian's
python3-yubiotp) answers the challenge, and in one field it is told from the password
by its shape (44 modhex characters), as pam_mfa does."""

import pathlib
import secrets
import subprocess

from radius_harness import PASSWORD

TOOLS = pathlib.Path(__file__).resolve().parents[2] / "Tests" / "python" / "tools"
HOTP_SECRET = "3132333435363738393031323334353637383930"  # RFC 4226's test key
MODHEX = "cbdefghijklnrtuv"


def hotp(counter):
    out = subprocess.run(["oathtool", "--hotp", "-c", str(counter), HOTP_SECRET], check=True, capture_output=True,
                         text=True)
    return out.stdout.strip()


def import_hotp(run, uid):
    admin = run.context().admin("ops:radius-tests")
    return admin.import_token("hotp", bytes.fromhex(HOTP_SECRET), serial="OT-" + uid, user=run.user(uid),
                              display_name="Key fob")


def import_yubikey(run, uid):
    """A YubiKey of its own for `uid`; a function giving its next touches."""
    key, private = secrets.token_hex(16), secrets.token_hex(6)
    public = "vv" + "".join(secrets.choice(MODHEX) for _ in range(10))
    run.context().admin("ops:radius-tests").import_token("yubico_otp", bytes.fromhex(key), user=run.user(uid),
                                                         public_id=public, private_id=bytes.fromhex(private))
    session = iter(range(1, 100))

    def touches(count):
        out = subprocess.run(["/usr/bin/python3", str(TOOLS / "yubikey_otps.py"), key, private, public,
                              str(next(session)), "0", str(count)], check=True, capture_output=True, text=True)
        return out.stdout.split()
    return touches


def challenge(server, uid):
    reply, out = server.request(uid, PASSWORD)
    assert reply is not None and reply.code == "Access-Challenge", out
    return reply


def test_an_hotp_code_answers_the_challenge_and_a_replayed_one_is_rejected(run, server):
    uid = run.name()
    import_hotp(run, uid)
    reply = challenge(server, uid)
    assert reply["Reply-Message"] == "Verification code (hardware token): ", reply
    accept, out = server.answer(uid, reply["State"], hotp(0))
    assert accept.code == "Access-Accept", out
    assert f'audit SIGN_IN_SUCCESS user "{uid}" factor hotp' in server.log_text()
    replay, out = server.answer(uid, challenge(server, uid)["State"], hotp(0))
    assert replay.code == "Access-Reject", out
    # The token's next press signs in (the replay did not move its counter back or forward).
    assert server.answer(uid, challenge(server, uid)["State"], hotp(1))[0].code == "Access-Accept"
    assert hotp(1) not in server.log_text()


def test_an_hotp_code_in_one_field(run, server):
    uid = run.name()
    import_hotp(run, uid)
    out = server.radtest(uid, PASSWORD + hotp(0), port=server.one_field_port)
    assert "Received Access-Accept" in out, out
    assert "Received Access-Reject" in server.radtest(uid, PASSWORD + hotp(0), port=server.one_field_port)
    assert "Received Access-Accept" in server.radtest(uid, PASSWORD + hotp(1), port=server.one_field_port)


def test_a_yubikey_touch_answers_the_challenge(run, server):
    uid = run.name()
    touches = import_yubikey(run, uid)
    first, second = touches(2)
    accept, out = server.answer(uid, challenge(server, uid)["State"], first)
    assert accept.code == "Access-Accept", out
    assert f'audit SIGN_IN_SUCCESS user "{uid}" factor yubico_otp' in server.log_text()
    assert server.answer(uid, challenge(server, uid)["State"], first)[0].code == "Access-Reject"  # replayed
    assert server.answer(uid, challenge(server, uid)["State"], second)[0].code == "Access-Accept"


def test_a_yubikey_touch_after_the_password_in_one_field(run, server):
    uid = run.name()
    touches = import_yubikey(run, uid)
    first, second = touches(2)
    assert len(first) == 44
    out = server.radtest(uid, PASSWORD + first, port=server.one_field_port)
    assert "Received Access-Accept" in out, out
    assert "Received Access-Reject" in server.radtest(uid, PASSWORD + first, port=server.one_field_port)
    # Six characters short of a touch: the password check gets the wrong split, and it is rejected.
    assert "Received Access-Reject" in server.radtest(uid, PASSWORD + second[:38], port=server.one_field_port)
    assert "Received Access-Accept" in server.radtest(uid, PASSWORD + second, port=server.one_field_port)
    assert first not in server.log_text()


def test_a_code_is_tried_only_on_the_factors_of_its_shape(run, server):
    """A user with a YubiKey and an HOTP token: the token's digits never go to the YubiKey, nor a touch
    to the token (no failure counted or audited on the other one), in the challenge and in one field."""
    uid = run.name()
    touches = import_yubikey(run, uid)
    import_hotp(run, uid)
    spaced = hotp(0)[:3] + " " + hotp(0)[3:]  # as the token's display groups it
    assert server.answer(uid, challenge(server, uid)["State"], spaced)[0].code == "Access-Accept"
    assert "Received Access-Accept" in server.radtest(uid, PASSWORD + hotp(1), port=server.one_field_port)
    assert "Received Access-Accept" in server.radtest(uid, PASSWORD + touches(1)[0], port=server.one_field_port)
    assert f'audit SIGN_IN_FAILURE user "{uid}"' not in server.log_text()
