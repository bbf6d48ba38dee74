"""rlm_mfa under valgrind's memcheck, inside a real FreeRADIUS (-X) on the run's SQLite
store: a run of requests through every path (TOTP, SMS, a recovery code, a choice
list, one field, a wrong code, a replayed State, a forged State, a user with no
factor), then the server stopped. No memory error, no definite leak."""

import re
import secrets

from radius_harness import PASSWORD, other_code


def test_the_module_under_valgrind(run):
    server = run.server("valgrind", one_field=True, valgrind=True).start()
    try:
        uid, phone_user, recovery_user, several = run.name(), run.name(), run.name(), run.name()
        app = run.enroll_totp(uid)
        number = "+1555" + "".join(secrets.choice("0123456789") for _ in range(7))
        run.enroll_phone(phone_user, number)
        codes = run.recovery_codes(recovery_user)
        run.enroll_totp(several)
        other_app = run.enroll_totp(several)

        def challenge(user):
            reply, out = server.request(user, PASSWORD, timeout=30)
            assert reply.code == "Access-Challenge", out
            return reply["State"]

        state = challenge(uid)
        assert server.answer(uid, state, app.next_code())[0].code == "Access-Accept"
        assert server.answer(uid, state, app.next_code())[0].code == "Access-Reject"
        assert server.answer(uid, challenge(uid), other_code(app.next_code()))[0].code == "Access-Reject"
        assert server.answer(uid, "0x6d666131" + secrets.token_hex(16), app.next_code())[0].code == "Access-Reject"
        state = challenge(phone_user)
        assert server.answer(phone_user, state, run.outbox_codes(number)[-1])[0].code == "Access-Accept"
        assert server.answer(recovery_user, challenge(recovery_user), codes[0])[0].code == "Access-Accept"
        state = challenge(several)
        assert server.answer(several, state, "9")[0].code == "Access-Reject"
        assert server.answer(several, challenge(several), other_app.next_code())[0].code == "Access-Accept"
        out = server.radtest(uid, PASSWORD + app.next_code(), port=server.one_field_port)
        assert "Received Access-Accept" in out, out
        assert server.request(run.name(), PASSWORD)[0].code == "Access-Reject"
        # A challenge left unanswered when the server stops: freed with the table.
        challenge(uid)
    finally:
        server.stop()
    report = server.valgrind_log.read_text(errors="replace")
    assert server.process.returncode == 0, server.output()[-3000:] + report
    assert not re.search(r"==\d+== \S", report), report
