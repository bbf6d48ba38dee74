"""Password and code in one field (one_field = yes), with radtest as the client: the
code is the end of User-Password."""

from radius_harness import PASSWORD, other_code


def accepted(out):
    return "Received Access-Accept" in out


def rejected(out):
    return "Received Access-Reject" in out


def test_password_and_code_in_one_field(run, server):
    uid = run.name()
    app = run.enroll_totp(uid)
    code = app.next_code()
    out = server.radtest(uid, PASSWORD + code, port=server.one_field_port)
    assert accepted(out), out
    # Replayed: the code's time step is used.
    assert rejected(server.radtest(uid, PASSWORD + code, port=server.one_field_port))


def test_a_wrong_code_or_password_in_one_field_is_rejected(run, server):
    uid = run.name()
    app = run.enroll_totp(uid)
    code = app.next_code()
    assert rejected(server.radtest(uid, PASSWORD + other_code(code), port=server.one_field_port))
    # A wrong password never reaches the code: the code stays good.
    assert rejected(server.radtest(uid, "wrong horse" + code, port=server.one_field_port))
    assert rejected(server.radtest(uid, code, port=server.one_field_port))
    assert accepted(server.radtest(uid, PASSWORD + code, port=server.one_field_port))


def test_a_recovery_code_in_one_field(run, server):
    uid = run.name()
    run.enroll_totp(uid)
    codes = run.recovery_codes(uid)
    out = server.radtest(uid, PASSWORD + codes[0], port=server.one_field_port)
    assert accepted(out) and "recovery code" in out, out
    assert rejected(server.radtest(uid, PASSWORD + codes[0], port=server.one_field_port))


def test_no_factor_accept_takes_the_whole_field_as_the_password(run, server):
    uid = run.name()
    assert accepted(server.radtest(uid, PASSWORD, port=server.one_field_port))
    assert rejected(server.radtest(uid, "wrong horse", port=server.one_field_port))


def test_sms_only_users_need_the_challenge(run, server):
    uid = run.name()
    run.enroll_phone(uid, "+15555550188")
    out = server.radtest(uid, PASSWORD + "123456", port=server.one_field_port)
    assert rejected(out), out
    out = server.radtest(uid, PASSWORD, port=server.one_field_port)
    assert rejected(out), out


def test_one_field_takes_no_state(run, server):
    """A State (even one shaped like rlm_mfa's) means nothing to the one-field instance: the field is checked."""
    uid = run.name()
    app = run.enroll_totp(uid)
    reply, out = server.request(uid, PASSWORD + app.next_code(), "State = 0x6d666131" + "00" * 16,
                                port=server.one_field_port)
    assert reply.code == "Access-Accept", out
