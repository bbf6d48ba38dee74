"""SPEC flows 2 (before enrolling) and 4 (enroll TOTP), with an injected clock."""

import re

import pytest

import libmfa

GEN = libmfa.TOTPMultiFactorGenerator
ENROLLMENT_ID = re.compile(r"^[A-Za-z0-9_-]{28}$")


# --- flow 2: prerequisites -------------------------------------------------------------


@pytest.mark.parametrize("provider", ["phone", "anonymous", "custom", "gc.apple.com"])
def test_unsupported_first_factors_cannot_enroll(kit, provider):
    with pytest.raises(libmfa.UnsupportedFirstFactorError):
        kit.ctx.multi_factor(kit.user(provider=provider)).session()


@pytest.mark.parametrize("provider", ["password", "emailLink", "google.com", "github.com", "apple.com"])
def test_supported_first_factors_can_enroll(kit, provider):
    kit.enroll(kit.user(provider=provider))


def test_unverified_email_cannot_enroll(kit):
    with pytest.raises(libmfa.UnverifiedEmailError):
        kit.ctx.multi_factor(kit.user(email_verified=False)).session()


def test_no_email_cannot_enroll(kit):
    with pytest.raises(libmfa.UnverifiedEmailError):
        kit.ctx.multi_factor(kit.user(email=None, email_verified=True)).session()


def test_enrolling_requires_a_recent_login(kit):
    user = kit.user()
    kit.ctx.multi_factor(user).session()  # auth_time == now
    kit.clock.advance(300)
    kit.ctx.multi_factor(user).session()  # recentLoginMaxAge is 300 s
    kit.clock.advance(1)
    with pytest.raises(libmfa.RequiresRecentLoginError):
        kit.ctx.multi_factor(user).session()
    user.auth_time = kit.clock.now  # signed in again
    kit.ctx.multi_factor(user).session()


def test_recent_login_limit_is_configurable(kit):
    kit.ctx.set_config({"state": "ENABLED", "providers": {"totp": "ENABLED"}, "limits": {"recentLoginMaxAge": 10}})
    user = kit.user()
    kit.clock.advance(11)
    with pytest.raises(libmfa.RequiresRecentLoginError):
        kit.ctx.multi_factor(user).session()


def test_at_most_five_factors(kit):
    user = kit.user()
    for index in range(5):
        info, _ = kit.enroll(user, "app %d" % index)
    assert len(kit.ctx.multi_factor(user).enrolled_factors()) == 5
    with pytest.raises(libmfa.SecondFactorLimitExceededError):
        kit.ctx.multi_factor(user).session()


def test_factors_enrolled_in_one_second_list_in_enrollment_order(kit):
    """Enrollment ids are random; factors enrolled in the same second still list (and hint)
    in the order they were enrolled, for every user, not by the ids' order."""
    for trial in range(12):
        user = kit.user("same-second-%d" % trial)
        enrolled = [kit.enroll(user, "app %d" % index)[0].uid for index in range(5)]
        assert [f.uid for f in kit.ctx.multi_factor(user).enrolled_factors()] == enrolled
        assert [h.uid for h in kit.resolver(user).hints] == enrolled
        assert len(set(enrolled)) == 5 and all(ENROLLMENT_ID.match(uid) for uid in enrolled)
        assert not any(uid.startswith("-") for uid in enrolled)
    # A later second starts over: its factor lists last whatever its id.
    user = kit.user("same-second-0")
    kit.ctx.multi_factor(user).unenroll(kit.ctx.multi_factor(user).enrolled_factors()[0].uid)
    kit.clock.advance(1)
    later = kit.enroll(kit.user("same-second-0"), "later")[0].uid
    assert kit.ctx.multi_factor(user).enrolled_factors()[-1].uid == later


def test_a_secret_from_before_an_enrollment_is_revoked(kit):
    """Changed on purpose (issue 8): an enrollment moves the user's token epoch on, so a
    second secret generated before it is USER_TOKEN_EXPIRED (it was refused by the limit)."""
    user = kit.user()
    for _ in range(4):
        kit.enroll(user)
    mf = kit.ctx.multi_factor(user)
    first = GEN.generate_secret(mf.session())
    second = GEN.generate_secret(mf.session())  # both sessions start at 4 factors
    mf.enroll(GEN.assertion_for_enrollment(first, kit.code(kit.totp_of(first))))
    with pytest.raises(libmfa.UserTokenExpiredError):
        mf.enroll(GEN.assertion_for_enrollment(second, kit.code(kit.totp_of(second))))
    assert len(mf.enrolled_factors()) == 5


def test_limit_is_checked_again_when_enrollment_finishes(kit):
    user = kit.user()
    for _ in range(4):
        kit.enroll(user)
    mf = kit.ctx.multi_factor(user)
    secret = GEN.generate_secret(mf.session())  # at 4 factors
    kit.ctx.import_totp(user, libmfa.random_secret())  # the 5th, by the administrative call (no revocation)
    with pytest.raises(libmfa.SecondFactorLimitExceededError):
        mf.enroll(GEN.assertion_for_enrollment(secret, kit.code(kit.totp_of(secret))))
    assert len(mf.enrolled_factors()) == 5


# --- flow 4: enroll TOTP ---------------------------------------------------------------


def test_totp_secret_fields(kit):
    secret = GEN.generate_secret(kit.ctx.multi_factor(kit.user()).session())
    assert re.fullmatch(r"[A-Z2-7]{32}", secret.shared_secret_key)  # 20 bytes, unpadded base32
    assert len(libmfa.base32_decode(secret.shared_secret_key)) == 20
    assert secret.hashing_algorithm == "SHA1"
    assert secret.code_length == 6
    assert secret.code_interval_seconds == 30
    assert secret.enrollment_completion_deadline == kit.clock.now + 600
    assert isinstance(secret.session_info, str) and secret.session_info
    # Neither the key nor the session info shows in the repr.
    assert secret.shared_secret_key not in repr(secret)
    assert secret.session_info not in repr(secret)


def test_each_secret_is_fresh(kit):
    mf = kit.ctx.multi_factor(kit.user())
    session = mf.session()
    keys = {GEN.generate_secret(session).shared_secret_key for _ in range(5)}
    assert len(keys) == 5


def test_qr_code_url_is_google_authenticator_compatible(kit):
    secret = GEN.generate_secret(kit.ctx.multi_factor(kit.user()).session())
    url = secret.generate_qr_code_url("alice@example.com", "ACME Co: Cloud")
    assert url.startswith("otpauth://totp/")
    assert "secret=" + secret.shared_secret_key in url
    assert " " not in url and "ACME%20Co%3A%20Cloud" in url and "alice%40example.com" in url
    parsed = libmfa.parse_uri(url)
    assert parsed.issuer == "ACME Co: Cloud"
    assert parsed.account == "alice@example.com"
    assert parsed.secret == libmfa.base32_decode(secret.shared_secret_key)
    assert (parsed.algorithm, parsed.digits, parsed.period) == ("SHA1", 6, 30)
    assert libmfa.parse_uri(secret.generate_qr_code_url("bob", None)).issuer is None
    assert libmfa.parse_uri(secret.generate_qr_code_url("bob", "")).issuer is None


def test_qr_code_renderings(kit):
    secret = GEN.generate_secret(kit.ctx.multi_factor(kit.user()).session())
    png = secret.qr_png("alice@example.com", "ACME")
    assert isinstance(png, bytes) and png.startswith(b"\x89PNG\r\n\x1a\n")
    svg = secret.qr_svg("alice@example.com", "ACME")
    assert isinstance(svg, str) and "<svg" in svg
    text = secret.qr_text("alice@example.com", "ACME")
    assert isinstance(text, str) and "\0" not in text and ("█" in text or "▀" in text or "▄" in text)
    assert libmfa.qr_code(secret.generate_qr_code_url("alice@example.com", "ACME"), "text") == text
    with pytest.raises(libmfa.InvalidArgumentError):
        secret.generate_qr_code_url("", "ACME")


def test_enroll_totp_end_to_end(kit):
    user = kit.user()
    mf = kit.ctx.multi_factor(user)
    assert mf.enrolled_factors() == []
    session = mf.session()
    secret = GEN.generate_secret(session)
    totp = kit.totp_of(secret)
    kit.clock.advance(45)  # the user opens the app, scans, types
    info = mf.enroll(GEN.assertion_for_enrollment(secret, kit.code(totp)), "Work phone")
    assert ENROLLMENT_ID.match(info.uid)
    assert info.factor_id == "totp"
    assert info.display_name == "Work phone"
    assert info.enrollment_time == kit.clock.now
    assert info.phone_number is None
    assert mf.enrolled_factors() == [info]
    assert [e.kind_name for e in kit.events if e.kind_name == "ENROLL"] == ["ENROLL"]


def test_enroll_without_display_name(kit):
    info, _ = kit.enroll(kit.user(), None)
    assert info.display_name is None
    info2, _ = kit.enroll(kit.user(), "")
    assert info2.display_name is None


def test_factors_are_listed_oldest_first(kit):
    user = kit.user()
    names = []
    for index in range(3):
        kit.clock.advance(10)
        user.auth_time = kit.clock.now
        names.append(kit.enroll(user, "f%d" % index)[0].display_name)
    assert [f.display_name for f in kit.ctx.multi_factor(user).enrolled_factors()] == names


def test_wrong_code_can_be_retried(kit):
    mf = kit.ctx.multi_factor(kit.user())
    secret = GEN.generate_secret(mf.session())
    totp = kit.totp_of(secret)
    right = kit.code(totp)
    wrong = "%06d" % ((int(right) + 1) % 10**6)
    with pytest.raises(libmfa.InvalidVerificationCodeError):
        mf.enroll(GEN.assertion_for_enrollment(secret, wrong))
    with pytest.raises(libmfa.InvalidVerificationCodeError):
        mf.enroll(GEN.assertion_for_enrollment(secret, "12345"))  # malformed
    with pytest.raises(libmfa.InvalidVerificationCodeError):
        mf.enroll(GEN.assertion_for_enrollment(secret, ""))
    info = mf.enroll(GEN.assertion_for_enrollment(secret, right))
    assert info.factor_id == "totp"


@pytest.mark.parametrize("code", ["abcdef", "12345", "1234567", "12 456", "-12345", "１２３４５６", "123456\n"])
def test_malformed_enrollment_codes(kit, code):
    mf = kit.ctx.multi_factor(kit.user())
    secret = GEN.generate_secret(mf.session())
    with pytest.raises(libmfa.InvalidVerificationCodeError):
        mf.enroll(GEN.assertion_for_enrollment(secret, code))


def test_enrollment_accepts_codes_within_adjacent_intervals(kit):
    mf = kit.ctx.multi_factor(kit.user())
    secret = GEN.generate_secret(mf.session())
    totp = kit.totp_of(secret)
    with pytest.raises(libmfa.InvalidVerificationCodeError):
        mf.enroll(GEN.assertion_for_enrollment(secret, kit.code(totp, 6 * 30)))
    mf.enroll(GEN.assertion_for_enrollment(secret, kit.code(totp, 5 * 30)))


def test_code_expired_after_the_enrollment_deadline(kit):
    mf = kit.ctx.multi_factor(kit.user())
    secret = GEN.generate_secret(mf.session())
    totp = kit.totp_of(secret)
    kit.clock.now = secret.enrollment_completion_deadline + 1
    with pytest.raises(libmfa.CodeExpiredError):
        mf.enroll(GEN.assertion_for_enrollment(secret, kit.code(totp)))


def test_enrollment_at_the_deadline_still_works(kit):
    mf = kit.ctx.multi_factor(kit.user())
    secret = GEN.generate_secret(mf.session())
    kit.clock.now = secret.enrollment_completion_deadline
    mf.enroll(GEN.assertion_for_enrollment(secret, kit.code(kit.totp_of(secret))))


def test_tampered_session_is_invalid(kit):
    session = kit.ctx.multi_factor(kit.user()).session()
    token = session.token
    for index in (0, len(token) // 2, len(token) - 1):
        flipped = token[:index] + ("A" if token[index] != "A" else "B") + token[index + 1 :]
        with pytest.raises(libmfa.InvalidSessionError):
            GEN.generate_secret(libmfa.MultiFactorSession(flipped, kit.ctx))
    for bogus in ("", "x", token[:-4], token + "AAAA", "0" * 4000):
        with pytest.raises((libmfa.InvalidSessionError, libmfa.InvalidArgumentError)):
            GEN.generate_secret(libmfa.MultiFactorSession(bogus, kit.ctx))


def test_tampered_session_info_is_invalid(kit):
    mf = kit.ctx.multi_factor(kit.user())
    secret = GEN.generate_secret(mf.session())
    info = secret.session_info
    flipped = info[:10] + ("A" if info[10] != "A" else "B") + info[11:]
    assertion = libmfa.TOTPMultiFactorAssertion(kit.code(kit.totp_of(secret)), session_info=flipped)
    with pytest.raises(libmfa.InvalidSessionError):
        mf.enroll(assertion)


def test_session_expires(kit):
    session = kit.ctx.multi_factor(kit.user()).session()
    kit.clock.advance(601)  # sessionLifetime is 600 s
    with pytest.raises(libmfa.InvalidSessionError):
        GEN.generate_secret(session)


def test_session_is_single_use_after_enrollment(kit):
    mf = kit.ctx.multi_factor(kit.user())
    session = mf.session()
    secret = GEN.generate_secret(session)
    mf.enroll(GEN.assertion_for_enrollment(secret, kit.code(kit.totp_of(secret))))
    with pytest.raises(libmfa.InvalidSessionError):
        GEN.generate_secret(session)  # reused session
    kit.clock.advance(30)
    with pytest.raises(libmfa.InvalidSessionError):
        mf.enroll(GEN.assertion_for_enrollment(secret, kit.code(kit.totp_of(secret))))  # reused secret


def test_another_users_secret_is_an_invalid_session(kit):
    alice = kit.ctx.multi_factor(kit.user("alice"))
    bob = kit.ctx.multi_factor(kit.user("bob"))
    secret = GEN.generate_secret(alice.session())
    with pytest.raises(libmfa.InvalidSessionError):
        bob.enroll(GEN.assertion_for_enrollment(secret, kit.code(kit.totp_of(secret))))
    assert bob.enrolled_factors() == []
    alice.enroll(GEN.assertion_for_enrollment(secret, kit.code(kit.totp_of(secret))))  # still usable by alice


def test_another_tenants_secret_is_a_tenant_mismatch(kit):
    kit.ctx.set_config({"state": "ENABLED", "providers": {"totp": "ENABLED"}}, tenant="t1")
    in_tenant = kit.ctx.multi_factor(kit.user("alice", tenant="t1"))
    in_project = kit.ctx.multi_factor(kit.user("alice"))
    secret = GEN.generate_secret(in_tenant.session())
    with pytest.raises(libmfa.TenantMismatchError):
        in_project.enroll(GEN.assertion_for_enrollment(secret, kit.code(kit.totp_of(secret))))
    other = kit.ctx.multi_factor(kit.user("alice", tenant="t2"))
    with pytest.raises(libmfa.TenantMismatchError):
        other.enroll(GEN.assertion_for_enrollment(secret, kit.code(kit.totp_of(secret))))
    in_tenant.enroll(GEN.assertion_for_enrollment(secret, kit.code(kit.totp_of(secret))))
    assert in_project.enrolled_factors() == []
    assert len(in_tenant.enrolled_factors()) == 1


def test_sign_in_assertion_cannot_enroll(kit):
    mf = kit.ctx.multi_factor(kit.user())
    with pytest.raises(libmfa.InvalidArgumentError):
        mf.enroll(GEN.assertion_for_sign_in("x" * 28, "123456"))
    with pytest.raises(TypeError):
        mf.enroll("123456")
    with pytest.raises(TypeError):
        mf.enroll(None)


def test_purge_expired_drops_pending_secrets(kit):
    mf = kit.ctx.multi_factor(kit.user())
    secret = GEN.generate_secret(mf.session())
    kit.clock.now = secret.enrollment_completion_deadline + 1
    kit.ctx.purge_expired()
    kit.clock.now = secret.enrollment_completion_deadline  # even back in time, the secret is gone
    with pytest.raises(libmfa.InvalidSessionError):
        mf.enroll(GEN.assertion_for_enrollment(secret, kit.code(kit.totp_of(secret))))


def test_purge_keeps_live_pending_secrets(kit):
    mf = kit.ctx.multi_factor(kit.user())
    secret = GEN.generate_secret(mf.session())
    kit.ctx.purge_expired()
    mf.enroll(GEN.assertion_for_enrollment(secret, kit.code(kit.totp_of(secret))))
