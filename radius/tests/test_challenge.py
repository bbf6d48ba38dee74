"""Challenge-response through a real FreeRADIUS, as a NAS does it: radclient sends the
password (checked by pap against the users file), gets an Access-Challenge with a
State and a Reply-Message, and sends the code with the State."""

import re
import secrets
import time

from radius_harness import PASSWORD, SECRET, other_code


def challenge(server, uid, *extra):
    """The first Access-Request (the password) of `uid`; the Access-Challenge."""
    reply, out = server.request(uid, PASSWORD, *extra)
    assert reply is not None and reply.code == "Access-Challenge", out
    return reply


def test_totp_code_after_the_password_is_accepted(run, server):
    uid = run.name()
    app = run.enroll_totp(uid)
    reply = challenge(server, uid)
    state = reply["State"]
    # Nothing of the sign-in in the State: a prefix and 16 random bytes.
    assert re.fullmatch(r"0x6d666131[0-9a-f]{32}", state), state
    assert reply["Reply-Message"] == "Verification code (authenticator app): "
    assert reply["Session-Timeout"] == "60"
    code = app.next_code()
    accept, out = server.answer(uid, state, code)
    assert accept.code == "Access-Accept", out
    log = server.log_text()
    assert f'audit SIGN_IN_SUCCESS user "{uid}" factor totp' in log
    assert code not in log


def test_a_wrong_password_gets_no_challenge(run, server):
    uid = run.name()
    run.enroll_totp(uid)
    reply, out = server.request(uid, "wrong horse")
    assert reply.code == "Access-Reject" and reply["State"] is None, out


def test_a_wrong_code_is_rejected(run, server):
    uid = run.name()
    app = run.enroll_totp(uid)
    reply = challenge(server, uid)
    rejected, out = server.answer(uid, reply["State"], other_code(app.next_code()))
    assert rejected.code == "Access-Reject", out
    assert f'audit SIGN_IN_FAILURE user "{uid}" factor totp' in server.log_text()


def test_a_replayed_code_is_rejected(run, server):
    uid = run.name()
    app = run.enroll_totp(uid)
    code = app.next_code()
    accept, _ = server.answer(uid, challenge(server, uid)["State"], code)
    assert accept.code == "Access-Accept"
    # The same code with a new challenge: its time step is used.
    replay, out = server.answer(uid, challenge(server, uid)["State"], code)
    assert replay.code == "Access-Reject", out


def test_a_state_is_answered_once(run, server):
    uid = run.name()
    app = run.enroll_totp(uid)
    state = challenge(server, uid)["State"]
    assert server.answer(uid, state, app.next_code())[0].code == "Access-Accept"
    # Replayed with a good code: refused, and the code is not spent by it.
    fresh = app.next_code()
    replay, out = server.answer(uid, state, fresh)
    assert replay.code == "Access-Reject", out
    assert "the State is unknown, already used or expired" in server.log_text()
    assert server.answer(uid, challenge(server, uid)["State"], fresh)[0].code == "Access-Accept"


def test_a_state_answered_with_a_wrong_code_is_used_up(run, server):
    uid = run.name()
    app = run.enroll_totp(uid)
    state = challenge(server, uid)["State"]
    code = app.next_code()
    assert server.answer(uid, state, other_code(code))[0].code == "Access-Reject"
    assert server.answer(uid, state, code)[0].code == "Access-Reject"


def test_a_state_of_another_user_is_rejected(run, server):
    alice, mallory = run.name(), run.name()
    app = run.enroll_totp(alice)
    run.enroll_totp(mallory)
    state = challenge(server, alice)["State"]
    code = app.next_code()
    stolen, out = server.answer(mallory, state, code)
    assert stolen.code == "Access-Reject", out
    assert "the State was issued to another user" in server.log_text()
    # Used up by the attempt; alice's code still signs her in with a challenge of her own.
    assert server.answer(alice, state, code)[0].code == "Access-Reject"
    assert server.answer(alice, challenge(server, alice)["State"], code)[0].code == "Access-Accept"


def test_a_state_from_another_nas_is_rejected(run, server):
    uid = run.name()
    app = run.enroll_totp(uid)
    state = challenge(server, uid, 'NAS-Identifier = "vpn-1"')["State"]
    moved, out = server.answer(uid, state, app.next_code(), 'NAS-Identifier = "vpn-2"')
    assert moved.code == "Access-Reject", out
    assert "the State was issued to another NAS" in server.log_text()
    state = challenge(server, uid, 'NAS-Identifier = "vpn-1"')["State"]
    assert server.answer(uid, state, app.next_code(), 'NAS-Identifier = "vpn-1"')[0].code == "Access-Accept"


def test_a_made_up_state_is_rejected(run, server):
    uid = run.name()
    app = run.enroll_totp(uid)
    forged, out = server.answer(uid, "0x6d666131" + secrets.token_hex(16), app.next_code())
    assert forged.code == "Access-Reject", out
    # A State that is not rlm_mfa's is no reply to a challenge: the "code" is checked as a password.
    foreign, out = server.answer(uid, "0x" + secrets.token_hex(20), app.next_code())
    assert foreign.code == "Access-Reject", out


def test_sms_code_is_sent_then_accepted(run, server):
    uid, number = run.name(), "+1555" + "".join(secrets.choice("0123456789") for _ in range(7))
    run.enroll_phone(uid, number)
    before = len(run.outbox_codes(number))
    reply = challenge(server, uid)
    message = reply["Reply-Message"]
    assert message.startswith("Enter the code sent to +1") and number[-4:] in message and number not in message
    codes = run.outbox_codes(number)
    assert len(codes) == before + 1
    accept, out = server.answer(uid, reply["State"], codes[-1])
    assert accept.code == "Access-Accept", out
    log = server.log_text()
    assert f'audit SMS_SENT user "{uid}" factor phone' in log
    assert number not in log and number[1:] not in log and codes[-1] not in log


def test_a_recovery_code_signs_in_once(run, server):
    uid = run.name()
    codes = run.recovery_codes(uid)
    reply = challenge(server, uid)
    assert reply["Reply-Message"] == f"Recovery code ({len(codes)} codes left): "
    accept, out = server.answer(uid, reply["State"], codes[0])
    assert accept.code == "Access-Accept", out
    assert accept["Reply-Message"] == f"Signed in with a recovery code: {len(codes) - 1} left."
    again, out = server.answer(uid, challenge(server, uid)["State"], codes[0])
    assert again.code == "Access-Reject", out


def test_several_factors_a_number_picks_one(run, server):
    uid, number = run.name(), "+1555" + "".join(secrets.choice("0123456789") for _ in range(7))
    run.enroll_totp(uid, name="Phone app")
    run.enroll_phone(uid, number)
    codes = run.recovery_codes(uid)
    reply = challenge(server, uid)
    assert reply["Reply-Message"] == (
        f"Second factor: 1) authenticator app (Phone app), 2) SMS to +1******{number[-4:]}, "
        f"3) recovery code ({len(codes)} codes left). Type its number, or a code: ")
    sent = len(run.outbox_codes(number))
    sms = server.answer(uid, reply["State"], "2")[0]
    assert sms.code == "Access-Challenge" and sms["Reply-Message"].startswith("Enter the code sent to")
    assert sms["State"] != reply["State"]
    assert len(run.outbox_codes(number)) == sent + 1
    accept, out = server.answer(uid, sms["State"], run.outbox_codes(number)[-1])
    assert accept.code == "Access-Accept", out


def test_several_factors_a_code_at_once(run, server):
    uid = run.name()
    app = run.enroll_totp(uid)
    other = run.enroll_totp(uid)
    codes = run.recovery_codes(uid)
    # The second app's code: tried against both apps.
    reply = challenge(server, uid)
    assert reply["Reply-Message"].startswith("Second factor: 1) authenticator app, 2) authenticator app, 3)")
    assert server.answer(uid, reply["State"], other.next_code())[0].code == "Access-Accept"
    # A recovery code typed at the list, with spaces and capitals.
    typed = codes[1].upper().replace("-", " ")
    accept, out = server.answer(uid, challenge(server, uid)["State"], typed)
    assert accept.code == "Access-Accept", out
    # A number out of the list is no choice, and no code either.
    assert server.answer(uid, challenge(server, uid)["State"], "7")[0].code == "Access-Reject"
    assert server.answer(uid, challenge(server, uid)["State"], app.next_code())[0].code == "Access-Accept"


def test_a_user_with_no_factor_is_rejected_by_default(run, server):
    uid = run.name()
    reply, out = server.request(uid, PASSWORD)
    assert reply.code == "Access-Reject", out
    assert f'user "{uid}" has no second factor (no_factor = reject)' in server.log_text()


def test_backoff_after_wrong_codes_says_to_wait(run, server):
    uid = run.name()
    app = run.enroll_totp(uid)
    replies = []
    for _ in range(5):
        code = app.next_code()
        replies.append(server.answer(uid, challenge(server, uid)["State"], other_code(code))[0])
    assert all(r.code == "Access-Reject" for r in replies)
    assert replies[0]["Reply-Message"] is None
    assert replies[-1]["Reply-Message"] == "Too many failed attempts: wait a few minutes, then try again."
    # While it lasts, even the right code is refused.
    good = server.answer(uid, challenge(server, uid)["State"], app.next_code())[0]
    assert good.code == "Access-Reject" and good["Reply-Message"].startswith("Too many failed attempts")
    assert f'audit BACKOFF user "{uid}"' in server.log_text()


def test_a_wrong_shared_secret_is_dropped(run, server):
    uid = run.name()
    run.enroll_totp(uid)
    reply, out = server.request(uid, PASSWORD, secret="not-the-secret", timeout=1)
    assert reply is None and "No reply from server" in out, out


def test_fifty_clients_with_one_code_one_is_accepted(run, server):
    uid = run.name()
    app = run.enroll_totp(uid)
    first = [[f'User-Name = "{uid}"', f'User-Password = "{PASSWORD}"'] for _ in range(50)]
    challenges, out, _ = server.radclient(first, parallel=50, timeout=10)
    assert [r.code for r in challenges] == ["Access-Challenge"] * 50, out
    assert len({r["State"] for r in challenges}) == 50
    code = app.next_code()
    answers = [[f'User-Name = "{uid}"', f'User-Password = "{code}"', f"State = {r['State']}"] for r in challenges]
    replies, out, _ = server.radclient(answers, parallel=50, timeout=10)
    assert len(replies) == 50, out
    assert sorted(r.code for r in replies) == ["Access-Accept"] + ["Access-Reject"] * 49, out


def access_request(identifier, user, password, state):
    """An Access-Request as a NAS builds it (RFC 2865, RFC 3579 Message-Authenticator)."""
    import hashlib
    import hmac
    import struct

    authenticator = secrets.token_bytes(16)
    hidden, last = b"", authenticator
    padded = password.encode() + b"\0" * (-len(password) % 16)
    for i in range(0, len(padded), 16):
        block = bytes(a ^ b for a, b in zip(padded[i:i + 16], hashlib.md5(SECRET.encode() + last).digest()))
        hidden += block
        last = block

    def attribute(kind, value):
        return struct.pack("BB", kind, len(value) + 2) + value

    body = attribute(1, user.encode()) + attribute(2, hidden) + attribute(24, bytes.fromhex(state[2:]))
    body += attribute(80, b"\0" * 16)
    packet = struct.pack("!BBH", 1, identifier, 20 + len(body)) + authenticator + body
    mac = hmac.new(SECRET.encode(), packet, hashlib.md5).digest()
    return packet[:-16] + mac


def test_a_resent_answer_gets_the_same_accept(run, server):
    """A NAS that lost the answer resends the same packet: FreeRADIUS answers it from its cache
    (cleanup_delay), not as a second use of the State."""
    import socket

    uid = run.name()
    app = run.enroll_totp(uid)
    state = challenge(server, uid)["State"]
    packet = access_request(77, uid, app.next_code(), state)
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.settimeout(5)
    sock.bind(("127.0.0.1", 0))
    codes = []
    for pause in (1, 0):
        sock.sendto(packet, ("127.0.0.1", server.port))
        codes.append(sock.recv(4096)[0])
        time.sleep(pause)  # a NAS resends after its own timeout
    sock.close()
    assert codes == [2, 2]  # Access-Accept, twice
