"""The options a test server of its own shows: an SMS gateway program (sms_program),
one that fails, max_challenges, and code_length = 8 in one field."""

import json
import os
import re

import pytest

from radius_harness import PASSWORD, App, now_step, totp


@pytest.fixture(scope="module")
def gateway(run):
    """An SMS gateway program: it keeps what it reads, and fails while a flag file exists."""
    program = run.dir / "send-sms"
    received = run.dir / "gateway.jsonl"
    flag = run.dir / "gateway-down"
    program.write_text(f"""#!/bin/sh
[ -e {flag} ] && exit 1
read -r number
read -r message
printf '{{"number": "%s", "message": "%s", "path": "%s"}}\\n' "$number" "$message" "$PATH" >> {received}
""")
    os.chmod(program, 0o700)
    return program, received, flag


@pytest.fixture(scope="module")
def special(run, gateway):
    program, _, _ = gateway
    options = {"sms_outbox": None, "sms_program": f'"{program}"', "max_challenges": "3"}
    return run.server("options", one_field=True, module_options=options,
                      one_field_options={"code_length": "8"}).start()


def test_sms_through_the_gateway_program(run, special, gateway):
    _, received, _ = gateway
    uid, number = run.name(), "+15555550142"
    run.enroll_phone(uid, number)
    reply, out = special.request(uid, PASSWORD)
    assert reply.code == "Access-Challenge", out
    sent = json.loads(received.read_text().splitlines()[-1])
    assert sent["number"] == number and sent["path"] == "/usr/local/bin:/usr/bin:/bin"
    code = re.search(r"\b(\d{6})\b", sent["message"]).group(1)
    accept, out = special.answer(uid, reply["State"], code)
    assert accept.code == "Access-Accept", out


def test_a_failing_gateway_is_a_reject_and_logged(run, special, gateway):
    _, _, flag = gateway
    uid = run.name()
    run.enroll_phone(uid, "+15555550143")
    flag.write_text("")
    try:
        reply, out = special.request(uid, PASSWORD)
    finally:
        flag.unlink()
    assert reply.code == "Access-Reject", out
    log = special.log_text()
    assert "send-sms exited with status 1" in log and "SMS_SEND_FAILED" in log
    assert "+15555550143" not in log and "5555550143" not in log


def test_max_challenges_refuses_beyond_it(run, special):
    users = [run.name() for _ in range(4)]
    for uid in users:
        run.enroll_totp(uid)
    codes = [special.request(uid, PASSWORD)[0].code for uid in users]
    assert codes == ["Access-Challenge"] * 3 + ["Access-Reject"]
    assert "max_challenges sign-ins are waiting for a code: refused" in special.log_text()


def test_eight_digit_codes_in_one_field(run, special):
    uid = run.name()
    app = run.enroll_totp(uid, digits=8)
    code = app.next_code()
    assert len(code) == 8
    out = special.radtest(uid, PASSWORD + code, port=special.one_field_port)
    assert "Received Access-Accept" in out, out


def test_a_server_running_as_freerad_reads_the_root_only_key(run):
    """As Debian runs it (user = freerad): the key file is root's, mode 0600, read at start with the
    rights the server keeps for such work; the store it creates is freerad's alone."""
    import pwd
    import shutil
    import subprocess

    folder = run.dir / run.name("freerad-store")
    folder.mkdir()
    shutil.chown(folder, "freerad", "freerad")
    os.chmod(folder, 0o700)
    store = folder / "mfa.sqlite"
    server = run.server(run.name("freerad"), store=str(store))
    config = server.dir / "radiusd.conf"
    config.write_text(config.read_text().replace("security {", "security {\n\tuser = freerad\n\tgroup = freerad"))
    server.start()
    owner = subprocess.run(["ps", "-o", "user=", "-p", str(server.process.pid)], capture_output=True,
                           text=True).stdout.strip()
    assert owner == "freerad"
    assert run.key_file.stat().st_uid == 0 and run.key_file.stat().st_mode & 0o077 == 0
    assert store.stat().st_uid == pwd.getpwnam("freerad").pw_uid and store.stat().st_mode & 0o077 == 0
    uid = run.name()
    app = run.enroll_totp(uid, store=str(store))
    reply, out = server.request(uid, PASSWORD)
    assert reply.code == "Access-Challenge", out
    assert server.answer(uid, reply["State"], app.next_code())[0].code == "Access-Accept"
