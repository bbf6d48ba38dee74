"""A real SSH login through pam_mfa.so: Debian's openssh-server, started by the
test on loopback with its own configuration and host key, keyboard-interactive
authentication through PAM (pam_unix, then the module), and paramiko from PyPI
as the client, answering the password and the code prompts with a code that
oathtool computes. Two such servers share one PostgreSQL store: a code used on
one is refused on the other. The PAM guide's sshd_config lines keep sshd's
password method from handing the password to the code prompt."""

import re
import socket

import paramiko
import pytest

from pam_harness import REPO, SSHD_PORTS


class Login:
    """One keyboard-interactive login with paramiko: the prompts seen, the command's output."""

    def __init__(self, port, host_key, user, password, code):
        self.prompts = []
        self.output = None
        transport = paramiko.Transport(socket.create_connection(("127.0.0.1", port), timeout=10))
        try:
            transport.start_client(timeout=10)
            assert transport.get_remote_server_key().get_base64() == host_key, "not our sshd"

            def answer(title, instructions, prompt_list):
                self.prompts.extend(prompt_list)
                return [password if "Password" in prompt else code for prompt, _echo in prompt_list]

            try:
                transport.auth_interactive(user, answer)
            except paramiko.AuthenticationException:
                self.accepted = False
                return
            self.accepted = transport.is_authenticated()
            channel = transport.open_session(timeout=10)
            channel.exec_command("id -un")
            self.output = channel.makefile("r").read().decode().strip()
            channel.close()
        finally:
            transport.close()


@pytest.fixture(scope="module")
def servers(run, pg_url):
    run.configure('{"totp": {"adjacentIntervals": 10}}', store=pg_url)
    password = "ssh-pw-2026"
    user = run.user(password=password, home=True)
    app = run.enroll(user, store=pg_url)
    words = run.store_words(store=pg_url)
    first = run.sshd(SSHD_PORTS[0], words)
    second = run.sshd(SSHD_PORTS[1], words + " echo_code [prompt=Second factor: ]")
    return user, password, app, first, second


def test_ssh_login_with_password_and_code(run, servers):
    user, password, app, first, _ = servers
    login = Login(SSHD_PORTS[0], first, user, password, app.next_code())
    assert login.accepted, run.sshd_log(SSHD_PORTS[0])
    assert login.output == user
    texts = [(prompt.strip(), echo) for prompt, echo in login.prompts]
    assert ("Password:", False) in texts and ("Verification code:", False) in texts, texts
    assert f"Accepted keyboard-interactive/pam for {user}" in run.sshd_log(SSHD_PORTS[0])


def test_ssh_wrong_code_refused(run, servers):
    user, password, app, first, _ = servers
    login = Login(SSHD_PORTS[0], first, user, password, "000000" if app.next_code() != "000000" else "111111")
    app.step -= 1  # that code was not used
    assert not login.accepted and login.output is None


def test_ssh_replay_refused_on_a_second_server(run, servers):
    user, password, app, first, second = servers
    code = app.next_code()
    assert Login(SSHD_PORTS[0], first, user, password, code).accepted
    replay = Login(SSHD_PORTS[1], second, user, password, code)
    assert not replay.accepted and replay.output is None
    # The second server works, with its own prompt, shown as typed (echo_code).
    login = Login(SSHD_PORTS[1], second, user, password, app.next_code())
    assert login.accepted and login.output == user, run.sshd_log(SSHD_PORTS[1])
    assert ("Second factor: ", True) in login.prompts, login.prompts


def guide_sshd_lines():
    """The sshd_config lines of the PAM guide (the block after "these lines in `sshd_config`")."""
    text = (REPO / "docs" / "guides" / "pam.md").read_text()
    match = re.search(r"with these lines in `sshd_config`:\n\n```\n(.*?)```", text, re.S)
    assert match, "the PAM guide gives sshd_config lines"
    return [line.strip() for line in match.group(1).splitlines() if line.strip()]


def password_method(port, host_key, user, password):
    """sshd's password method with paramiko: 'refused' (not offered), 'failed' or 'accepted'."""
    transport = paramiko.Transport(socket.create_connection(("127.0.0.1", port), timeout=10))
    try:
        transport.start_client(timeout=10)
        assert transport.get_remote_server_key().get_base64() == host_key, "not our sshd"
        try:
            transport.auth_password(user, password, fallback=False)
        except paramiko.BadAuthenticationType:
            return "refused"
        except paramiko.AuthenticationException:
            return "failed"
        return "accepted" if transport.is_authenticated() else "failed"
    finally:
        transport.close()


def test_ssh_guide_lines_keep_the_password_from_the_code_prompt(run, servers, pg_url, syslog):
    """Issue 45: with the PAM guide's lines sshd offers keyboard-interactive only; with
    PasswordAuthentication yes (Debian's default) the password method answers the code prompt
    with the password, which the module judges, and counts, as a wrong code."""
    user, password, app, _, _ = servers
    lines = guide_sshd_lines()
    assert "PasswordAuthentication no" in lines and "AuthenticationMethods keyboard-interactive" in lines, lines
    words = run.store_words(store=pg_url)
    readme = run.sshd(SSHD_PORTS[2], words, auth_lines=lines)
    refused = f"second factor refused for user {user}"
    before = syslog.text().count(refused)
    assert password_method(SSHD_PORTS[2], readme, user, password) == "refused"
    assert syslog.text().count(refused) == before, syslog.text()
    login = Login(SSHD_PORTS[2], readme, user, password, app.next_code())
    assert login.accepted and login.output == user, run.sshd_log(SSHD_PORTS[2])
    # What the guide warns of.
    default = [line for line in lines if not line.startswith(("PasswordAuthentication", "AuthenticationMethods"))]
    loose = run.sshd(SSHD_PORTS[3], words, auth_lines=default + ["PasswordAuthentication yes"])
    assert password_method(SSHD_PORTS[3], loose, user, password) == "failed"
    assert syslog.text().count(refused + ": INVALID_VERIFICATION_CODE") == before + 1, syslog.text()
    # A success forgets that failure.
    assert Login(SSHD_PORTS[2], readme, user, password, app.next_code()).accepted

