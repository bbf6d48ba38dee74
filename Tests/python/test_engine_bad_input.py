"""Bad input to the engine API: TypeError or InvalidArgumentError (or the flow's own
error), never a crash."""

import datetime
import random

import pytest

import libmfa

GEN = libmfa.TOTPMultiFactorGenerator
OVERLONG = "1" * (libmfa.STRING_MAX_BYTES + 1)


@pytest.fixture
def secret(kit):
    """A pending TOTPSecret of alice."""
    return GEN.generate_secret(kit.ctx.multi_factor(kit.user()).session())


# --- User ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "fields",
    [
        {"uid": None, "auth_time": 0},
        {"uid": 42, "auth_time": 0},
        {"uid": "alice"},  # no auth_time
        {"uid": "alice", "auth_time": None},
        {"uid": "alice", "auth_time": "now"},
        {"uid": "alice", "auth_time": 0, "email_verified": "yes"},
        {"uid": "alice", "auth_time": 0, "email_verified": 1},
        {"uid": "alice", "auth_time": 0, "tenant": 7},
        {"uid": "alice", "auth_time": 0, "email": ["a@b"]},
        {"uid": "alice", "auth_time": 0, "provider": None},
    ],
)
def test_user_field_types(fields):
    with pytest.raises(TypeError):
        libmfa.User(**fields)


def test_user_auth_time_forms():
    when = datetime.datetime(2024, 1, 2, 3, 4, 5, tzinfo=datetime.timezone.utc)
    assert libmfa.User("a", auth_time=when).auth_time == int(when.timestamp())
    assert libmfa.User("a", auth_time=1.9).auth_time == 1
    with pytest.raises(libmfa.InvalidArgumentError):
        libmfa.User("a", auth_time=2**63)
    with pytest.raises(libmfa.InvalidArgumentError):
        libmfa.User("a", auth_time=float("nan"))


def test_user_mutated_to_a_bad_type_is_caught(kit):
    user = kit.user()
    user.uid = None
    with pytest.raises(TypeError):
        kit.ctx.multi_factor(user).session()


@pytest.mark.parametrize(
    "fields",
    [
        {"uid": ""},
        {"uid": "u" * 129},
        {"uid": "al\0ice"},
        {"uid": b"\xff\xfe", "email": "x@example.com"},
        {"uid": OVERLONG},
        {"tenant": ""},
        {"tenant": "t" * 129},
        {"provider": ""},
        {"provider": "p" * 129},
        {"email": "e" * 321},
        {"email": b"a\xc0@example.com"},
    ],
)
def test_user_field_values(kit, fields):
    user = kit.user(**fields)
    with pytest.raises(libmfa.InvalidArgumentError):
        kit.ctx.multi_factor(user).session()
    with pytest.raises(libmfa.InvalidArgumentError):
        kit.ctx.sign_in(user)
    with pytest.raises(libmfa.InvalidArgumentError):
        kit.ctx.multi_factor(user).enrolled_factors()


def test_user_limits_are_inclusive(kit):
    kit.enroll(kit.user("u" * 128, tenant="t" * 128, email="e" * 300 + "@x.io"))


def test_non_ascii_and_bytes_users(kit):
    user = kit.user("ユーザー", tenant="テナント", email="ü@example.com")
    info, totp = kit.enroll(user, "Téléphone ☎")
    assert info.display_name == "Téléphone ☎"
    kit.clock.advance(30)
    resolver = kit.resolver(user)
    assert (resolver.uid, resolver.tenant) == ("ユーザー", "テナント")
    assert kit.resolve(resolver, info.uid, kit.code(totp)).uid == "ユーザー"
    same = libmfa.User("ユーザー".encode(), tenant="テナント".encode(), auth_time=kit.clock.now)
    assert kit.ctx.multi_factor(same).enrolled_factors() == [info]


def test_wrong_objects_where_users_are_expected(kit):
    for bad in (None, "alice", {"uid": "alice"}, 1):
        with pytest.raises(TypeError):
            kit.ctx.multi_factor(bad)
        with pytest.raises(TypeError):
            kit.ctx.sign_in(bad)
        with pytest.raises(TypeError):
            kit.ctx.import_totp(bad, bytes(20))
        with pytest.raises(TypeError):
            kit.ctx.import_uri(bad, "otpauth://totp/a?secret=AAAAAAAAAAAAAAAA")


# --- assertions and codes --------------------------------------------------------------


def test_generator_argument_types(kit, secret):
    with pytest.raises(TypeError):
        GEN.generate_secret(None)
    with pytest.raises(TypeError):
        GEN.generate_secret("a-session-token")
    with pytest.raises(TypeError):
        GEN.assertion_for_enrollment(None, "123456")
    with pytest.raises(TypeError):
        GEN.assertion_for_enrollment(secret.shared_secret_key, "123456")
    for code in (None, 123456, 1.0, ["1"]):
        with pytest.raises(TypeError):
            GEN.assertion_for_enrollment(secret, code)
        with pytest.raises(TypeError):
            GEN.assertion_for_sign_in("x" * 28, code)
    for enrollment_id in (None, 5, object()):
        with pytest.raises(TypeError):
            GEN.assertion_for_sign_in(enrollment_id, "123456")
    with pytest.raises(TypeError):
        GEN()
    with pytest.raises(TypeError):
        libmfa.MultiFactorSession("token", None)
    with pytest.raises(TypeError):
        libmfa.MultiFactorSession(None, kit.ctx)


def test_assertion_repr_hides_the_code(secret):
    assertion = GEN.assertion_for_enrollment(secret, "987654")
    assert "987654" not in repr(assertion) and secret.session_info not in repr(assertion)


@pytest.mark.parametrize("code", [OVERLONG, "123\x00456", b"\xff\xfe\xfd\xfc\xfb\xfa"])
def test_bad_codes_at_enrollment(kit, secret, code):
    mf = kit.ctx.multi_factor(kit.user())
    with pytest.raises(libmfa.InvalidArgumentError):
        mf.enroll(GEN.assertion_for_enrollment(secret, code))


def test_bytes_codes_work(kit, secret):
    mf = kit.ctx.multi_factor(kit.user())
    info = mf.enroll(GEN.assertion_for_enrollment(secret, kit.code(kit.totp_of(secret)).encode()))
    kit.clock.advance(30)
    kit.resolve(kit.resolver(kit.user()), info.uid.encode(), kit.code(kit.totp_of(secret)).encode())


def test_bad_codes_and_ids_at_sign_in(kit):
    user = kit.user()
    info, totp = kit.enroll(user)
    kit.clock.advance(30)
    resolver = kit.resolver(user)
    for code in (OVERLONG, "12\x003456", b"\xc3\x28\xa0\xa1"):
        with pytest.raises(libmfa.InvalidArgumentError):
            kit.resolve(resolver, info.uid, code)
    for enrollment_id in ("", "x" * 129, OVERLONG, "a\0b"):
        with pytest.raises(libmfa.InvalidArgumentError):
            kit.resolve(resolver, enrollment_id, kit.code(totp))
    kit.resolve(resolver, info.uid, kit.code(totp))  # none of that used the credential up


@pytest.mark.parametrize("name", ["n" * 257, "é" * 129, "a\0b", b"\xff"])
def test_bad_display_names(kit, secret, name):
    mf = kit.ctx.multi_factor(kit.user())
    with pytest.raises(libmfa.InvalidArgumentError):
        mf.enroll(GEN.assertion_for_enrollment(secret, kit.code(kit.totp_of(secret))), name)
    mf.enroll(GEN.assertion_for_enrollment(secret, kit.code(kit.totp_of(secret))), "n" * 256)


def test_display_name_type(kit, secret):
    mf = kit.ctx.multi_factor(kit.user())
    with pytest.raises(TypeError):
        mf.enroll(GEN.assertion_for_enrollment(secret, kit.code(kit.totp_of(secret))), 42)


# --- tokens ----------------------------------------------------------------------------


def test_pending_credential_types_and_lengths(kit):
    with pytest.raises(TypeError):
        kit.ctx.resolver(None)
    with pytest.raises(TypeError):
        kit.ctx.resolver(12345)
    with pytest.raises(libmfa.InvalidArgumentError):
        kit.ctx.resolver(OVERLONG)
    with pytest.raises(libmfa.InvalidArgumentError):
        kit.ctx.resolver("abc\0def")
    with pytest.raises(libmfa.InvalidArgumentError):
        kit.ctx.resolver(b"\xff\xff")
    with pytest.raises(TypeError):
        kit.ctx.resolver("x", tenant=5)


def test_random_garbage_tokens_never_crash(kit):
    user = kit.user()
    info, totp = kit.enroll(user)
    kit.clock.advance(30)
    good = kit.resolver(user).session
    session = kit.ctx.multi_factor(user).session().token
    rnd = random.Random(1234)
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.=+/~"
    mf = kit.ctx.multi_factor(user)
    for index in range(300):
        kind = index % 3
        if kind == 0:
            token = "".join(rnd.choice(alphabet) for _ in range(rnd.randrange(0, 400)))
        elif kind == 1:
            cut = rnd.randrange(len(good))
            token = good[:cut] + rnd.choice(alphabet.replace(good[cut], "")) + good[cut + 1 :]
        else:
            token = bytes(rnd.randrange(1, 256) for _ in range(rnd.randrange(0, 200)))
        for call in (
            lambda: kit.ctx.resolver(token),
            lambda: GEN.generate_secret(libmfa.MultiFactorSession(token, kit.ctx)),
            lambda: mf.enroll(libmfa.TOTPMultiFactorAssertion("123456", session_info=token)),
            lambda: kit.resolve(libmfa.MultiFactorResolver(kit.ctx, token, "alice", None, []), info.uid, "123456"),
        ):
            with pytest.raises((libmfa.InvalidSessionError, libmfa.InvalidArgumentError, libmfa.TenantMismatchError)):
                call()
    # The real ones still work.
    kit.resolve(kit.ctx.resolver(good), info.uid, kit.code(totp))
    GEN.generate_secret(libmfa.MultiFactorSession(session, kit.ctx))


def test_step_up_and_token_check_input(kit):
    for within in (None, 1.5, "60"):
        with pytest.raises(TypeError):
            kit.ctx.passed_second_factor("alice", within)
    with pytest.raises(libmfa.InvalidArgumentError):
        kit.ctx.passed_second_factor("alice", 2**63)
    with pytest.raises(libmfa.InvalidArgumentError):
        kit.ctx.passed_second_factor("", 60)
    with pytest.raises(TypeError):
        kit.ctx.passed_second_factor(None, 60)
    with pytest.raises(libmfa.InvalidArgumentError):
        kit.ctx.check_token("u" * 129, 0)
    with pytest.raises(libmfa.InvalidArgumentError):
        kit.ctx.check_token("alice", 0, tenant="")


# --- QR codes --------------------------------------------------------------------------


def test_qr_code_input():
    assert libmfa.qr_code("otpauth://totp/a?secret=AAAAAAAAAAAAAAAA").startswith(b"\x89PNG")
    assert libmfa.qr_code(b"hello", "SVG").lstrip().startswith("<")
    assert isinstance(libmfa.qr_code("hello", format="text"), str)
    with pytest.raises(libmfa.InvalidArgumentError):
        libmfa.qr_code("", "png")
    with pytest.raises(libmfa.InvalidArgumentError):
        libmfa.qr_code("hello", "jpeg")
    with pytest.raises(libmfa.InvalidArgumentError):
        libmfa.qr_code("x" * 8000, "png")  # more than a QR code holds
    with pytest.raises(libmfa.InvalidArgumentError):
        libmfa.qr_code(OVERLONG, "png")
    with pytest.raises(libmfa.InvalidArgumentError):
        libmfa.qr_code("a\0b", "png")
    with pytest.raises(TypeError):
        libmfa.qr_code(None)
    with pytest.raises(TypeError):
        libmfa.qr_code("hello", libmfa.QR_PNG)


def test_secret_uri_input(secret):
    for account, issuer in ((None, "x"), (5, "x"), ("a", 5)):
        with pytest.raises(TypeError):
            secret.generate_qr_code_url(account, issuer)
    for account, issuer in (("", "x"), (OVERLONG, "x"), ("a\0b", "x"), ("a", "i\0")):
        with pytest.raises(libmfa.InvalidArgumentError):
            secret.generate_qr_code_url(account, issuer)
    with pytest.raises(libmfa.InvalidArgumentError):
        secret.qr_png("", "x")
