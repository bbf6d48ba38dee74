"""Two FreeRADIUS servers on one PostgreSQL store, as a pair of RADIUS servers behind
one VPN: a code one accepts, the other refuses; with the store frozen or stopped,
both answer Access-Reject within the deadline (deadline = 1000 ms) and log why,
never the URL's password; a server starts while the store is down and works
once it is back. These tests stop the run's PostgreSQL server: they run after
the others (pytest takes the files in name order)."""

import time

import pytest

from radius_harness import PASSWORD, pg_signal

#: What one request may take with a store that does not answer: one deadline of 1 s
#: (the sign-in's first store call fails, and nothing else is asked), plus radclient.
BOUND = 3.0


@pytest.fixture(scope="module")
def pair(run, pg_url):
    url = pg_url.replace("postgres://postgres@", "postgres://postgres:hunter2@")
    options = {"deadline": "1000"}
    first = run.server("pg-a", store=url, one_field=True, module_options=options).start()
    second = run.server("pg-b", store=url, one_field=True, module_options=options).start()
    return first, second, url


def challenge_and_answer(server, uid, code):
    reply, out = server.request(uid, PASSWORD)
    assert reply.code == "Access-Challenge", out
    return server.answer(uid, reply["State"], code)[0].code


def test_a_code_accepted_by_one_server_is_rejected_by_the_other(run, pg_url, pair):
    first, second, _ = pair
    uid = run.name()
    app = run.enroll_totp(uid, store=pg_url)
    code = app.next_code()
    assert challenge_and_answer(first, uid, code) == "Access-Accept"
    assert challenge_and_answer(second, uid, code) == "Access-Reject"
    assert "Received Access-Reject" in second.radtest(uid, PASSWORD + code, port=second.one_field_port)
    code = app.next_code()
    assert "Received Access-Accept" in second.radtest(uid, PASSWORD + code, port=second.one_field_port)
    assert challenge_and_answer(first, uid, code) == "Access-Reject"


def timed_request(server, uid):
    start = time.monotonic()
    reply, out = server.request(uid, PASSWORD, timeout=10)
    return reply, out, time.monotonic() - start


def test_a_frozen_store_is_a_reject_within_the_deadline_on_both(run, pg_url, pair):
    first, second, _ = pair
    uid = run.name()
    app = run.enroll_totp(uid, store=pg_url)
    pg_signal("STOP")
    try:
        for server in (first, second):
            reply, out, seconds = timed_request(server, uid)
            assert reply is not None and reply.code == "Access-Reject", out
            assert seconds < BOUND, f"{seconds:.1f} s"
            assert f'second factor of user "{uid}" not checked: STORAGE_ERROR' in server.log_text()
    finally:
        pg_signal("CONT")
    assert challenge_and_answer(first, uid, app.next_code()) == "Access-Accept"


def test_a_store_frozen_while_the_user_types(run, pg_url, pair):
    first, _, _ = pair
    uid = run.name()
    app = run.enroll_totp(uid, store=pg_url)
    reply, out = first.request(uid, PASSWORD)
    assert reply.code == "Access-Challenge", out
    code = app.next_code()
    pg_signal("STOP")
    try:
        start = time.monotonic()
        answer, out = first.answer(uid, reply["State"], code)
        seconds = time.monotonic() - start
    finally:
        pg_signal("CONT")
    assert answer.code == "Access-Reject" and seconds < BOUND, (out, seconds)
    # Whether the frozen server applied the check after all is unknown to the client (it may
    # have, once thawed): a later code signs in once the store is back.
    assert challenge_and_answer(first, uid, app.next_code()) == "Access-Accept"


def test_a_stopped_store_is_a_reject_on_both_and_a_server_starts_without_it(run, pg_url, pair):
    first, second, url = pair
    uid = run.name()
    app = run.enroll_totp(uid, store=pg_url)
    run.context(pg_url).close()
    del run.contexts[pg_url]
    run.pg_halt()
    try:
        for server in (first, second):
            reply, out, seconds = timed_request(server, uid)
            assert reply is not None and reply.code == "Access-Reject", out
            assert seconds < BOUND, f"{seconds:.1f} s"
        late = run.server("pg-late", store=url, module_options={"deadline": "1000"}).start()
        assert "trying again at each request" in late.log_text()
        reply, out, seconds = timed_request(late, uid)
        assert reply.code == "Access-Reject" and seconds < BOUND, out
    finally:
        run.pg_start()
    for server in (first, second, late):
        assert challenge_and_answer(server, uid, app.next_code()) == "Access-Accept"
        # The URL's password is never logged.
        assert "hunter2" not in server.output()
