"""The Python SMS sender and app verifier callbacks (arguments, exceptions, re-entry, lifetime)
and the development outbox (one JSON line per message, read_outbox, outbox_code)."""

import gc
import json
import logging
import os
import pathlib
import subprocess
import sys
import threading

import pytest

import libmfa
from conftest import APP_OK, ENGINE_KEY, NUMBER, PHONE_ON, SMS_TEXT, phone_config
from shared import REPO

# --- the sender ----------------------------------------------------------------------------


def test_sender_gets_two_str_on_the_calling_thread(make_phone_kit):
    seen = []

    def sender(number, message):
        seen.append((type(number), type(message), number, message, threading.get_ident()))

    kit = make_phone_kit(sms_sender=sender)
    kit.start_enrollment(kit.user())
    [(number_type, message_type, number, message, thread)] = seen
    assert (number_type, message_type, number) == (str, str, NUMBER)
    assert SMS_TEXT.match(message)
    assert thread == threading.get_ident()


def test_sender_return_value_is_ignored(make_phone_kit):
    kit = make_phone_kit(sms_sender=lambda number, message: False)
    kit.start_enrollment(kit.user())  # only raising fails a send


def test_sender_log_does_not_hold_the_code(make_phone_kit, caplog):
    def sender(number, message):
        raise RuntimeError("gateway refused %r" % message)

    kit = make_phone_kit(sms_sender=sender)
    with caplog.at_level(logging.DEBUG, logger="libmfa"):
        with pytest.raises(libmfa.SMSSendFailedError):
            kit.start_enrollment(kit.user())
    assert "RuntimeError" in caplog.text
    assert "verification code" not in caplog.text and NUMBER not in caplog.text


def test_sender_calling_back_into_the_context_fails_the_send(make_phone_kit):
    box = {}

    def sender(number, message):
        box["kit"].ctx.config()  # forbidden: RuntimeError inside the callback

    kit = make_phone_kit(sms_sender=sender)
    box["kit"] = kit
    with pytest.raises(libmfa.SMSSendFailedError):
        kit.start_enrollment(kit.user())
    kit.ctx.config()  # the context is fine afterwards


def test_sender_closing_the_context_fails_the_send(make_phone_kit):
    box = {}

    def sender(number, message):
        box["kit"].ctx.close()

    kit = make_phone_kit(sms_sender=sender)
    box["kit"] = kit
    with pytest.raises(libmfa.SMSSendFailedError):
        kit.start_enrollment(kit.user())
    assert not kit.ctx.closed


# --- the app verifier ------------------------------------------------------------------------


@pytest.mark.parametrize("verdict", [False, None, 1, 0, "yes", "", [APP_OK], object()])
def test_only_true_accepts(make_phone_kit, verdict):
    kit = make_phone_kit(app_verifier=lambda credential, action: verdict)
    with pytest.raises(libmfa.InvalidAppCredentialError):
        kit.start_enrollment(kit.user())
    assert kit.inbox.messages == []


def test_non_bool_verdict_is_logged(make_phone_kit, caplog):
    kit = make_phone_kit(app_verifier=lambda credential, action: "yes")
    with pytest.raises(libmfa.InvalidAppCredentialError):
        kit.start_enrollment(kit.user())
    assert "not a bool" in caplog.text


@pytest.mark.parametrize("error", [RuntimeError("recaptcha down"), KeyError("x"), KeyboardInterrupt(), SystemExit(1)])
def test_raising_verifier_rejects(make_phone_kit, error, caplog):
    def verifier(credential, action):
        raise error

    kit = make_phone_kit(app_verifier=verifier)
    with pytest.raises(libmfa.InvalidAppCredentialError):
        kit.start_enrollment(kit.user())
    assert "app verifier failed" in caplog.text
    assert kit.inbox.messages == []


def test_verifier_calling_back_into_the_context_rejects(make_phone_kit):
    box = {}

    def verifier(credential, action):
        box["kit"].ctx.config()
        return True

    kit = make_phone_kit(app_verifier=verifier)
    box["kit"] = kit
    with pytest.raises(libmfa.InvalidAppCredentialError):
        kit.start_enrollment(kit.user())


def test_verifier_receives_unicode_credentials(make_phone_kit):
    seen = []
    kit = make_phone_kit(app_verifier=lambda credential, action: seen.append(credential) or True)
    kit.start_enrollment(kit.user(), credential="jeton-é-ü-✓")
    assert seen == ["jeton-é-ü-✓"]


def test_app_credential_types(phone_kit):
    kit = phone_kit
    with pytest.raises(TypeError):
        kit.start_enrollment(kit.user(), credential=123)
    with pytest.raises(libmfa.InvalidArgumentError):
        kit.start_enrollment(kit.user(), credential="a\0b")
    kit.verifier.accept.add(APP_OK)
    kit.start_enrollment(kit.user(), credential=APP_OK.encode())


# --- options and lifetime ------------------------------------------------------------------


def test_callbacks_must_be_callable():
    for name in ("sms_sender", "app_verifier"):
        with pytest.raises(TypeError):
            libmfa.Context(master_key=ENGINE_KEY, **{name: "not callable"})


def test_sender_and_outbox_are_exclusive(tmp_path):
    with pytest.raises(libmfa.InvalidArgumentError):
        libmfa.Context(master_key=ENGINE_KEY, sms_sender=print, sms_outbox=str(tmp_path / "o"))
    with pytest.raises(libmfa.InvalidArgumentError):
        libmfa.Context(master_key=ENGINE_KEY, sms_outbox="")
    with pytest.raises(TypeError):
        libmfa.Context(master_key=ENGINE_KEY, sms_outbox=42)


def test_callbacks_stay_alive_without_other_references(clock):
    sent = []
    ctx = libmfa.Context(master_key=ENGINE_KEY, clock=clock,
                         sms_sender=lambda number, message: sent.append(number),
                         app_verifier=lambda credential, action: credential == APP_OK)
    gc.collect()
    ctx.set_config(PHONE_ON)
    user = libmfa.User("alice", email="a@example.com", email_verified=True, auth_time=clock.now)
    libmfa.PhoneAuthProvider(ctx).verify_phone_number(NUMBER, APP_OK, session=ctx.multi_factor(user).session())
    assert sent == [NUMBER]
    ctx.close()
    assert ctx._sms_sender_fn is None and ctx._app_verifier_fn is None  # released at close


def test_provider_on_a_closed_context(phone_kit):
    kit = phone_kit
    session = kit.ctx.multi_factor(kit.user()).session()
    kit.ctx.close()
    with pytest.raises(libmfa.InvalidArgumentError):
        kit.provider.verify_phone_number(NUMBER, APP_OK, session=session)


def test_reprs_hold_no_secret(phone_kit):
    kit = phone_kit
    verification_id = kit.start_enrollment(kit.user())
    code = kit.inbox.code()
    credential = kit.provider.credential(verification_id, code)
    assertion = libmfa.PhoneMultiFactorGenerator.assertion(credential)
    for text in (repr(credential), repr(assertion), repr(kit.provider)):
        assert code not in text and verification_id not in text


# --- the outbox ------------------------------------------------------------------------------


def test_outbox_writes_one_json_line_per_message(make_phone_kit, tmp_path):
    outbox = tmp_path / "outbox.jsonl"
    kit = make_phone_kit(sms_outbox=outbox, config=phone_config(smsResendCooldown=0))  # a path-like works
    alice = kit.user()
    verification_id = kit.start_enrollment(alice)
    info = kit.ctx.multi_factor(alice).enroll(kit.assertion(verification_id, libmfa.outbox_code(outbox)))
    kit.clock.advance(7)
    resolver = kit.resolver(alice)
    verification_id = kit.start_sign_in(resolver, info)
    kit.start_enrollment(kit.user("bob"), "+442071838750")
    lines = outbox.read_bytes().split(b"\n")
    assert lines[-1] == b"" and len(lines) == 4  # three messages, each ending in a newline
    entries = [json.loads(line) for line in lines[:-1]]
    for entry in entries:
        assert set(entry) == {"time", "to", "message"}
        assert SMS_TEXT.match(entry["message"])
    assert [(e["time"], e["to"]) for e in entries] == [
        (kit.clock.now - 7, NUMBER), (kit.clock.now, NUMBER), (kit.clock.now, "+442071838750")]
    read = libmfa.read_outbox(outbox)
    assert [dict(e, code=SMS_TEXT.match(e["message"]).group(1)) for e in entries] == read
    assert libmfa.outbox_code(outbox, NUMBER) == read[1]["code"]
    assert libmfa.outbox_code(outbox) == read[2]["code"]
    assert libmfa.outbox_code(outbox, "+15550000000") is None
    result = kit.resolve_phone(resolver, verification_id, libmfa.outbox_code(outbox, NUMBER))
    assert result.factor_id == "phone"
    if os.name == "posix":
        assert outbox.stat().st_mode & 0o077 == 0  # the codes are for the owner only


def test_outbox_skips_test_numbers(make_phone_kit, tmp_path):
    outbox = tmp_path / "outbox.jsonl"
    kit = make_phone_kit(sms_outbox=str(outbox), config=dict(PHONE_ON, testPhoneNumbers={"+15555550100": "424242"}))
    kit.enroll_phone(kit.user(), "+15555550100", code="424242")
    assert not outbox.exists() and libmfa.read_outbox(outbox) == []


def test_outbox_shared_by_two_contexts(make_phone_kit, tmp_path):
    outbox = tmp_path / "outbox.jsonl"
    store = str(tmp_path / "mfa.sqlite3")
    config = phone_config(smsResendCooldown=0, smsPerNumberHour=1000, smsPerNumberDay=1000, smsPerUserHour=1000,
                          smsPerUserDay=1000)
    one = make_phone_kit(store, sms_outbox=outbox, config=config)
    two = make_phone_kit(store, sms_outbox=outbox, config=None)
    for index in range(20):
        (one if index % 2 else two).start_enrollment(one.user("u%d" % index), "+1555%07d" % index)
    entries = libmfa.read_outbox(outbox)
    assert [e["to"] for e in entries] == ["+1555%07d" % index for index in range(20)]


def outbox_writer(outbox, store, first, count):
    """A subprocess body: ``count`` enrollments through its own context, one outbox."""
    return (
        "import libmfa\n"
        "ctx = libmfa.Context(%r, master_key=bytes(range(32)), sms_outbox=%r)\n"
        "provider = libmfa.PhoneAuthProvider(ctx)\n"
        "for n in range(%d, %d):\n"
        "    user = libmfa.User('u%%d' %% n, email='x@example.com', email_verified=True,"
        " auth_time=__import__('time').time())\n"
        "    provider.verify_phone_number('+1555%%07d' %% n, None, session=ctx.multi_factor(user).session())\n"
        "ctx.close()\n" % (store, str(outbox), first, first + count)
    )


def test_outbox_shared_by_two_processes(tmp_path):
    outbox = tmp_path / "outbox.jsonl"
    store = str(tmp_path / "mfa.sqlite3")
    with libmfa.Context(store, master_key=bytes(range(32))) as ctx:
        ctx.set_config(phone_config(dict(PHONE_ON, phone={"appVerification": "DISABLED"}), smsResendCooldown=0,
                                    smsPerUserHour=1000, smsPerUserDay=1000))
    env = dict(os.environ, PYTHONPATH=str(REPO / "python"))
    procs = [subprocess.Popen([sys.executable, "-c", outbox_writer(outbox, store, first, 50)], env=env)
             for first in (0, 50)]
    assert [proc.wait(timeout=60) for proc in procs] == [0, 0]
    entries = libmfa.read_outbox(outbox)
    assert sorted(e["to"] for e in entries) == ["+1555%07d" % n for n in range(100)]


def test_read_outbox_edge_cases(tmp_path):
    path = tmp_path / "outbox.jsonl"
    assert libmfa.read_outbox(path) == []  # no file yet
    assert libmfa.outbox_code(path) is None
    line = json.dumps({"time": 1, "to": NUMBER, "message": "012345 is your verification code."})
    path.write_text(line + "\n\n" + line[:20])  # a blank line, and a writer mid-way
    assert libmfa.read_outbox(str(path)) == [{"time": 1, "to": NUMBER,
                                              "message": "012345 is your verification code.", "code": "012345"}]
    path.write_text(json.dumps({"time": 2, "to": NUMBER, "message": "hello"}) + "\n")
    assert libmfa.read_outbox(pathlib.Path(path))[0]["code"] is None
    path.write_text("not json\n")
    with pytest.raises(ValueError):
        libmfa.read_outbox(path)
    path.write_text("[1, 2]\n")
    with pytest.raises(ValueError):
        libmfa.read_outbox(path)
