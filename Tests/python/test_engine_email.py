"""Email codes through the Python binding, on SQLite and (when the test command
started a server) PostgreSQL: enrollment and sign-in with a mailed code, masked
hints, INVALID_EMAIL, a failing sender, the verified sign-in address, caps that
other accounts cannot spend, the development outbox, and the admin's listings."""

import logging

import pytest

import libmfa
from conftest import EngineKit
from mfactl_support import fresh_store, store_kinds

EMAIL_ON = {"state": "ENABLED", "providers": {"totp": "ENABLED", "email": "ENABLED"}}
Generator = libmfa.EmailMultiFactorGenerator


class Mailbox:
    """An email sender that keeps what it was given; ``failing`` makes it raise."""

    def __init__(self):
        self.messages = []
        self.failing = False

    def __call__(self, message):
        if self.failing:
            raise ConnectionError("mail server down")
        self.messages.append(message)

    def code(self, to):
        return [m for m in self.messages if m.to == to][-1].code


@pytest.fixture(params=store_kinds())
def mail(request, tmp_path, clock):
    box = Mailbox()
    kit = EngineKit(fresh_store(request.param, tmp_path), clock=clock, config=EMAIL_ON, email_sender=box)
    kit.box = box
    yield kit
    kit.ctx.close()


def enroll(kit, user, address, name="mail"):
    provider = libmfa.EmailAuthProvider(kit.ctx)
    mf = kit.ctx.multi_factor(user)
    vid = provider.send_verification_code(address, session=mf.session())
    return mf.enroll(Generator.assertion(provider.credential(vid, kit.box.code(libmfa_normal(address)))), name)


def libmfa_normal(address):
    local, domain = address.rsplit("@", 1)
    return local + "@" + domain.lower()


def sign_in(kit, user, hint=None):
    provider = libmfa.EmailAuthProvider(kit.ctx)
    resolver = kit.resolver(user)
    hint = hint or resolver.hints[0]
    vid = provider.send_verification_code_for_sign_in(hint, resolver)
    message = kit.box.messages[-1]
    assert message.purpose == "sign_in"
    return resolver, resolver.resolve_sign_in(Generator.assertion(provider.credential(vid, message.code)))


def test_enroll_and_sign_in(mail):
    user = mail.user()
    info = enroll(mail, user, "Jane.Doe@Example.COM", "Work mail")
    assert info.factor_id == "email" and info.kind == libmfa.FACTOR_EMAIL == 5
    assert info.email == info.hint == "Jane.Doe@example.com" and info.phone_number is None
    first = mail.box.messages[0]
    assert first.purpose == "enrollment" and first.to == "Jane.Doe@example.com"
    assert first.body.startswith(first.code) and len(first.code) == 6 and first.subject
    assert "Jane" not in repr(first) and first.code not in repr(first)
    mail.clock.advance(31)
    resolver, result = sign_in(mail, user)
    assert [h.hint for h in resolver.hints] == ["J*******@e******.com"]
    assert result.factor_id == "email" and result.kind == libmfa.FACTOR_EMAIL and result.enrollment_id == info.uid
    assert result.claims == {"sign_in_second_factor": "email", "second_factor_identifier": info.uid}
    assert mail.kinds().count("EMAIL_SENT") == 2
    assert not any("jane" in repr(event).lower() for event in mail.events)


def test_bad_addresses_and_duplicates(mail):
    user = mail.user()
    provider = libmfa.EmailAuthProvider(mail.ctx)
    session = mail.ctx.multi_factor(user).session()
    for bad in ["jane", "jane@example", "Jane <jane@example.com>", "jané@example.com", "a@b..c"]:
        with pytest.raises(libmfa.InvalidEmailError) as caught:
            provider.send_verification_code(bad, session=session)
        assert bad not in str(caught.value)
    with pytest.raises(TypeError):
        provider.send_verification_code(None, session=session)
    with pytest.raises(TypeError):
        provider.send_verification_code("jane@example.com")
    assert mail.box.messages == []
    enroll(mail, user, "jane@example.com")
    with pytest.raises(libmfa.SecondFactorExistsError):
        provider.send_verification_code("JANE@EXAMPLE.COM", session=mail.ctx.multi_factor(user).session())


def test_wrong_and_used_codes(mail):
    user = mail.user()
    provider = libmfa.EmailAuthProvider(mail.ctx)
    mf = mail.ctx.multi_factor(user)
    vid = provider.send_verification_code("jane@example.com", session=mf.session())
    code = mail.box.code("jane@example.com")
    wrong = "000000" if code != "000000" else "111111"
    with pytest.raises(libmfa.InvalidVerificationCodeError):
        mf.enroll(Generator.assertion(provider.credential(vid, wrong)))
    info = mf.enroll(Generator.assertion(provider.credential(vid, code)))
    with pytest.raises(libmfa.InvalidSessionError):
        mf.enroll(Generator.assertion(provider.credential(vid, code)))
    mail.clock.advance(31)
    resolver = mail.resolver(user)
    vid = provider.send_verification_code_for_sign_in(info, resolver)
    with pytest.raises(libmfa.TooManyAttemptsError):
        provider.send_verification_code_for_sign_in(info, resolver)
    with pytest.raises(libmfa.InvalidVerificationCodeError):
        resolver.resolve_sign_in(Generator.assertion(provider.credential(vid, wrong)))
    assert resolver.resolve_sign_in(Generator.assertion(provider.credential(vid, mail.box.messages[-1].code)))
    with pytest.raises(TypeError):
        Generator.assertion("not a credential")


def test_failing_sender_counts_nothing_and_logs_no_address(mail, caplog):
    user = mail.user()
    provider = libmfa.EmailAuthProvider(mail.ctx)
    session = mail.ctx.multi_factor(user).session()
    mail.box.failing = True
    with caplog.at_level(logging.ERROR, logger="libmfa"):
        with pytest.raises(libmfa.EmailSendFailedError):
            provider.send_verification_code("jane@example.com", session=session)
    assert "email sender failed" in caplog.text and "jane" not in caplog.text
    assert mail.events[-1].kind == libmfa.AUDIT_EMAIL_SENT and mail.events[-1].detail == "EMAIL_SEND_FAILED"
    mail.box.failing = False
    provider.send_verification_code("jane@example.com", session=session)  # no cooldown was started


def test_code_sends_are_counted_on_the_email_channel(mail):
    def sends(purpose, outcome):
        line = 'libmfa_code_sends_total{channel="email",purpose="%s",outcome="%s"} ' % (purpose, outcome)
        return [int(float(l[len(line):])) for l in mail.ctx.metrics_text().splitlines() if l.startswith(line)]

    assert sends("enrollment", "sent") == [0] and sends("sign_in", "sent") == [0]
    user = mail.user()
    provider = libmfa.EmailAuthProvider(mail.ctx)
    with pytest.raises(libmfa.InvalidEmailError):
        provider.send_verification_code("jane@example", session=mail.ctx.multi_factor(user).session())
    mail.box.failing = True
    with pytest.raises(libmfa.EmailSendFailedError):
        provider.send_verification_code("jane@example.com", session=mail.ctx.multi_factor(user).session())
    mail.box.failing = False
    info = enroll(mail, user, "jane@example.com")
    mail.clock.advance(31)
    sign_in(mail, user, info)
    assert sends("enrollment", "invalid_argument") == [1] and sends("enrollment", "send_failed") == [1]
    assert sends("enrollment", "sent") == [1] and sends("sign_in", "sent") == [1]
    assert 'channel="sms",purpose="sign_in",outcome="sent"} 0' in mail.ctx.metrics_text()


def test_caps_cannot_spend_another_users_sign_in_codes(mail):
    mail.ctx.update_config({"email": {"perAddressHour": 2, "perAddressDay": 2}})
    victim = mail.user("victim")
    info = enroll(mail, victim, "victim@example.com")
    provider = libmfa.EmailAuthProvider(mail.ctx)
    refused = 0
    for index in range(4):
        mail.clock.advance(31)
        session = mail.ctx.multi_factor(mail.user("attacker%d" % index)).session()
        try:
            provider.send_verification_code("Victim@Example.com", session=session)
        except libmfa.QuotaExceededError:
            refused += 1
    assert refused >= 2
    mail.clock.advance(31)
    sign_in(mail, victim, info)


def test_caps_per_user_and_per_tenant(mail):
    mail.ctx.update_config({"email": {"perUserHour": 2, "perTenantHour": 3}})
    mail.ctx.set_config(EMAIL_ON, tenant="t1")
    provider = libmfa.EmailAuthProvider(mail.ctx)
    victim = mail.user("victim")
    info = enroll(mail, victim, "victim@example.com")  # the project's first enrollment send

    def send(user, address):
        mail.clock.advance(31)
        provider.send_verification_code(address, session=mail.ctx.multi_factor(user).session())

    mallory = mail.user("mallory")
    send(mallory, "a1@example.com")
    send(mallory, "a2@example.com")
    with pytest.raises(libmfa.QuotaExceededError):
        send(mallory, "a3@example.com")  # her own two an hour
    with pytest.raises(libmfa.QuotaExceededError):
        send(mail.user("trudy"), "t1@example.com")  # the project's three an hour
    send(mail.user("trudy", tenant="t1"), "t1@example.com")  # another tenant's budget
    mail.clock.advance(31)
    sign_in(mail, victim, info)  # sign-in codes have a budget of their own


def test_verified_sign_in_address(mail):
    user = mail.user("carol", email="Carol@Example.ORG")
    mf = mail.ctx.multi_factor(user)
    with pytest.raises(libmfa.OperationNotAllowedError):
        mf.enroll(Generator.assertion_for_verified_sign_in_email(mf.session()))
    mail.ctx.update_config({"email": {"enrollVerifiedSignInEmail": True}})
    unverified = mail.user("carol", email="Carol@Example.ORG", email_verified=False)
    with pytest.raises(libmfa.UnverifiedEmailError):
        mail.ctx.multi_factor(unverified).enroll(Generator.assertion_for_verified_sign_in_email(mf.session()))
    info = mf.enroll(Generator.assertion_for_verified_sign_in_email(mf.session()), "sign-in address")
    assert info.email == "Carol@example.org" and mail.box.messages == []
    assert [e.detail for e in mail.events if e.kind == libmfa.AUDIT_ENROLL][-1] == "VERIFIED_SIGN_IN_EMAIL"


def test_admin_listings_and_stats(mail):
    enroll(mail, mail.user("dora"), "dora@example.com")
    admin = mail.ctx.admin("ops")
    assert [f.hint for f in admin.user_factors("dora")] == ["d***@e******.com"]
    assert [f.hint for f in admin.user_factors("dora", show_phone_numbers=True)] == ["dora@example.com"]
    rows = [(row.factor_id, row.kind, row.factors) for row in admin.stats().rows]
    assert ("email", libmfa.FACTOR_EMAIL, 1) in rows
    assert [user.uid for user in admin.users(factor_id="email")] == ["dora"]


def test_outbox(tmp_path, clock):
    path = tmp_path / "mail.jsonl"
    with pytest.raises(libmfa.InvalidArgumentError):
        libmfa.Context(":memory:", master_key=bytes(32), email_outbox=path, email_sender=print)
    with pytest.raises(libmfa.InvalidArgumentError):
        libmfa.Context(":memory:", master_key=bytes(32), email_outbox="")
    kit = EngineKit(clock=clock, config=EMAIL_ON, email_outbox=path)
    try:
        user = kit.user()
        vid = libmfa.EmailAuthProvider(kit.ctx).send_verification_code("jane@example.com",
                                                                        session=kit.ctx.multi_factor(user).session())
        [entry] = libmfa.read_outbox(path)
        assert entry["to"] == "jane@example.com" and entry["subject"] and entry["time"] == clock.now
        code = libmfa.outbox_code(path, "jane@example.com")
        assert code == entry["code"] and len(code) == 6
        info = kit.ctx.multi_factor(user).enroll(Generator.assertion(libmfa.EmailAuthProvider.credential(vid, code)))
        assert info.factor_id == "email"
    finally:
        kit.ctx.close()


def test_config_fields(kit):
    config = kit.ctx.config()
    assert config["providers"]["email"] == "DISABLED"
    assert config["email"]["codeLifetime"] == 600 and config["email"]["enrollVerifiedSignInEmail"] is False
    for bad in ({"email": {"codeLifetime": 1}}, {"email": {"maxAttempts": 11}}, {"email": {"x": 1}},
                {"email": {"enrollVerifiedSignInEmail": 1}}):
        with pytest.raises(libmfa.InvalidArgumentError):
            kit.ctx.update_config(bad)
