"""Bad input gets a named exception (or status), never a crash."""

import ctypes

import pytest

import libmfa
from libmfa import Status
from libmfa import _lib
from libmfa._lib import lib
from libmfa._ffi import mfa_ctx, mfa_key_uri, mfa_options, mfa_totp_params, mfa_user

SECRET = b"12345678901234567890"
INVALID = int(Status.INVALID_ARGUMENT)
OVERLONG = "1" * (libmfa.STRING_MAX_BYTES + 1)


@pytest.fixture
def totp():
    """A default TOTP object for the RFC 6238 SHA1 secret."""
    return libmfa.TOTP(SECRET)


@pytest.fixture
def hotp():
    """A default HOTP object for the RFC 4226 secret."""
    return libmfa.HOTP(SECRET)


# --- None and wrong Python types: TypeError ------------------------------------------


@pytest.mark.parametrize(
    "call",
    [
        lambda: libmfa.TOTP(None),
        lambda: libmfa.HOTP(None),
        lambda: libmfa.TOTP(SECRET).verify(None),
        lambda: libmfa.TOTP(SECRET).match(None),
        lambda: libmfa.HOTP(SECRET).verify(None, 0),
        lambda: libmfa.HOTP(SECRET).at(None),
        lambda: libmfa.TOTP(SECRET).at(None),
        lambda: libmfa.base32_decode(None),
        lambda: libmfa.base32_encode(None),
        lambda: libmfa.parse_uri(None),
        lambda: libmfa.build_uri(None, "alice"),
        lambda: libmfa.build_uri(SECRET, None),
        lambda: libmfa.random_secret(None),
        lambda: libmfa.TOTP(SECRET, digits=None),
        lambda: libmfa.TOTP(SECRET, digits=6.0),
        lambda: libmfa.TOTP(SECRET, algorithm=None),
        lambda: libmfa.TOTP(SECRET).verify(123456),
        lambda: libmfa.TOTP(SECRET).verify("123456", window=1.5),
        lambda: libmfa.TOTP(SECRET).verify("123456", window=True),
        lambda: libmfa.TOTP(SECRET).verify("123456", at="now"),
    ],
)
def test_none_and_wrong_types_raise_type_error(call):
    with pytest.raises(TypeError):
        call()


@pytest.mark.parametrize("make", [libmfa.TOTP, libmfa.HOTP, lambda s: libmfa.build_uri(s, "alice")])
def test_str_secret_is_a_type_error(make):
    with pytest.raises(TypeError, match="bytes"):
        make("JBSWY3DPEHPK3PXP")


def test_str_data_for_base32_encode_is_a_type_error():
    with pytest.raises(TypeError):
        libmfa.base32_encode("foobar")


@pytest.mark.parametrize("secret", [SECRET, bytearray(SECRET), memoryview(SECRET)])
def test_secret_accepts_bytes_like(secret):
    assert libmfa.TOTP(secret, digits=8).at(59) == "94287082"
    assert libmfa.HOTP(secret).at(0) == "755224"


# --- values out of range: InvalidArgumentError ---------------------------------------


@pytest.mark.parametrize("length", [0, libmfa.KEY_MAX_BYTES + 1, 5000])
def test_secret_lengths(length):
    with pytest.raises(libmfa.InvalidArgumentError, match="secret"):
        libmfa.TOTP(b"k" * length)
    with pytest.raises(libmfa.InvalidArgumentError):
        libmfa.HOTP(b"k" * length)
    with pytest.raises(libmfa.InvalidArgumentError, match="secret"):
        libmfa.build_uri(b"k" * length, "alice")


def test_secret_length_limits_are_inclusive():
    assert len(libmfa.TOTP(b"k").at(0)) == 6
    assert len(libmfa.TOTP(b"k" * libmfa.KEY_MAX_BYTES).at(0)) == 6


@pytest.mark.parametrize("digits", [5, 9, 0, -6, 2**32 + 6])
def test_digits_out_of_range(digits):
    with pytest.raises(libmfa.InvalidArgumentError, match="digits"):
        libmfa.TOTP(SECRET, digits=digits)
    with pytest.raises(libmfa.InvalidArgumentError, match="digits"):
        libmfa.HOTP(SECRET, digits=digits)
    with pytest.raises(libmfa.InvalidArgumentError, match="digits"):
        libmfa.build_uri(SECRET, "alice", digits=digits)


@pytest.mark.parametrize("window", [11, -1, 2**32, 2**32 + 1, -(2**31)])
def test_window_out_of_range(totp, hotp, window):
    with pytest.raises(libmfa.InvalidArgumentError, match="window"):
        totp.verify("287082", at=59, window=window)
    with pytest.raises(libmfa.InvalidArgumentError, match="window"):
        totp.match("287082", at=59, window=window)
    with pytest.raises(libmfa.InvalidArgumentError, match="look_ahead"):
        hotp.verify("287082", 0, look_ahead=window)


@pytest.mark.parametrize("period", [0, -30, libmfa.PERIOD_MAX + 1])
def test_period_out_of_range(period):
    with pytest.raises(libmfa.InvalidArgumentError, match="period"):
        libmfa.TOTP(SECRET, period=period)
    with pytest.raises(libmfa.InvalidArgumentError, match="period"):
        libmfa.build_uri(SECRET, "alice", period=period)


@pytest.mark.parametrize("algorithm", ["MD5", "sha3", "", "SHA1 ", 0, 4, -1])
def test_unknown_algorithm(algorithm):
    with pytest.raises(libmfa.InvalidArgumentError, match="algorithm"):
        libmfa.TOTP(SECRET, algorithm=algorithm)
    with pytest.raises(libmfa.InvalidArgumentError, match="algorithm"):
        libmfa.HOTP(SECRET, algorithm=algorithm)
    with pytest.raises(libmfa.InvalidArgumentError, match="algorithm"):
        libmfa.KeyURI("totp", None, "alice", SECRET, algorithm=algorithm)


def test_algorithm_spellings():
    for spelling in ("SHA256", "sha256", "Sha-256", libmfa.ALG_SHA256):
        assert libmfa.TOTP(SECRET, algorithm=spelling).algorithm == "SHA256"


@pytest.mark.parametrize("counter", [-1, 2**64])
def test_counter_out_of_range_is_not_wrapped(hotp, counter):
    with pytest.raises(libmfa.InvalidArgumentError, match="counter"):
        hotp.at(counter)
    with pytest.raises(libmfa.InvalidArgumentError, match="counter"):
        hotp.verify("755224", counter)


def test_largest_counter_is_accepted(hotp):
    assert len(hotp.at(2**64 - 1)) == 6


@pytest.mark.parametrize("when", [2**63, -(2**63) - 1, float("nan"), float("inf")])
def test_time_out_of_range_is_not_wrapped(totp, when):
    with pytest.raises(libmfa.InvalidArgumentError, match="time"):
        totp.at(when)
    with pytest.raises(libmfa.InvalidArgumentError, match="time"):
        totp.verify("287082", at=when)


def test_time_before_t0():
    totp = libmfa.TOTP(SECRET, t0=1000)
    with pytest.raises(libmfa.InvalidArgumentError):
        totp.at(999)
    with pytest.raises(libmfa.InvalidArgumentError):
        totp.verify("123456", at=999)
    with pytest.raises(libmfa.InvalidArgumentError):
        totp.match("123456", at=999)
    assert len(totp.at(1000)) == 6
    with pytest.raises(libmfa.InvalidArgumentError):
        libmfa.TOTP(SECRET).at(-1)


@pytest.mark.parametrize("length", [0, 15, 129, -1, 2**64 + 16])
def test_random_secret_length(length):
    with pytest.raises(libmfa.InvalidArgumentError, match="length"):
        libmfa.random_secret(length)


def test_random_secret_lengths_and_randomness():
    assert len(libmfa.random_secret()) == libmfa.SECRET_DEFAULT_BYTES
    assert len(libmfa.random_secret(libmfa.SECRET_MIN_BYTES)) == 16
    assert len(libmfa.random_secret(libmfa.SECRET_MAX_BYTES)) == 128
    assert len({libmfa.random_secret() for _ in range(50)}) == 50


# --- base32 ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "MZXW6Y1B",
        "MZXW 6YTB",
        "ÄZXW6YTB",
        "MZXW6YTB\n",
        "M",
        "MZX",
        "MZXW6Y",
        "MZ=XW6==",
        "M=======",
        "=MZXW6YTB",
        "MZXW6YQ==",
        "MZXW6YTBOI=====",
        "MZXW6YTB========",
        "========",
    ],
)
def test_base32_rejects(text):
    with pytest.raises(libmfa.InvalidBase32Error) as caught:
        libmfa.base32_decode(text)
    assert caught.value.status == Status.INVALID_BASE32


def test_base32_overlong():
    with pytest.raises(libmfa.InvalidArgumentError):
        libmfa.base32_decode("A" * (libmfa.STRING_MAX_BYTES + 8))
    with pytest.raises(libmfa.InvalidArgumentError):
        libmfa.base32_encode(b"\0" * (libmfa.STRING_MAX_BYTES // 2 + 1))


# --- text: invalid UTF-8, NUL, overlong ------------------------------------------------


@pytest.mark.parametrize(
    "call",
    [
        lambda: libmfa.base32_decode(b"\xff\xfe"),
        lambda: libmfa.parse_uri(b"otpauth://totp/\xff\xfe?secret=MZXW6YTB"),
        lambda: libmfa.TOTP(SECRET).verify(b"\xff\xfe"),
        lambda: libmfa.TOTP(SECRET).match(b"\xff\xfe\xfd\xfc\xfb\xfa"),
        lambda: libmfa.HOTP(SECRET).verify(b"\xff\xfe", 0),
        lambda: libmfa.build_uri(SECRET, b"\xff\xfe"),
        lambda: libmfa.build_uri(SECRET, "alice", issuer=b"\xc3"),
        lambda: libmfa.TOTP(SECRET).verify("12345\udc80"),
        lambda: libmfa.build_uri(SECRET, "\ud800"),
    ],
)
def test_invalid_utf8(call):
    with pytest.raises(libmfa.InvalidArgumentError):
        call()


@pytest.mark.parametrize(
    "call",
    [
        lambda: libmfa.TOTP(SECRET).verify("287082\x00"),
        lambda: libmfa.TOTP(SECRET).verify(b"287082\x00999"),
        lambda: libmfa.TOTP(SECRET).match("\x00"),
        lambda: libmfa.HOTP(SECRET).verify("755224\x00", 0),
        lambda: libmfa.base32_decode("MZXW6YTB\x00junk"),
        lambda: libmfa.parse_uri("otpauth://totp/a?secret=MZXW6YTB\x00&digits=9"),
        lambda: libmfa.build_uri(SECRET, "alice\x00mallory"),
        lambda: libmfa.build_uri(SECRET, "alice", issuer="ACME\x00"),
    ],
)
def test_embedded_nul_is_rejected_not_truncated(call):
    with pytest.raises(libmfa.InvalidArgumentError, match="NUL"):
        call()


@pytest.mark.parametrize(
    "call",
    [
        lambda: libmfa.TOTP(SECRET).verify(OVERLONG),
        lambda: libmfa.HOTP(SECRET).verify(OVERLONG, 0),
        lambda: libmfa.parse_uri("otpauth://totp/a?secret=MZXW6YTB&x=" + OVERLONG),
        lambda: libmfa.build_uri(SECRET, "a" * (libmfa.STRING_MAX_BYTES + 1)),
        lambda: libmfa.build_uri(SECRET, "alice", issuer="i" * (libmfa.STRING_MAX_BYTES + 1)),
    ],
)
def test_overlong_strings(call):
    with pytest.raises(libmfa.InvalidArgumentError):
        call()


def test_empty_account():
    with pytest.raises(libmfa.InvalidArgumentError, match="account"):
        libmfa.build_uri(SECRET, "")


# --- the raw C functions with NULL and out-of-range arguments --------------------------


def raw_calls():
    """(name, thunk) pairs calling the C functions with NULL or bad values."""
    key, n = SECRET, len(SECRET)
    buf = ctypes.create_string_buffer(16)
    out = ctypes.c_void_p()
    size = ctypes.c_size_t()
    uri_out = ctypes.POINTER(mfa_key_uri)()
    params = mfa_totp_params()
    lib.mfa_totp_params_init(ctypes.byref(params), libmfa.TOTP_PARAMS_VERSION)
    bad_version = mfa_totp_params()
    lib.mfa_totp_params_init(ctypes.byref(bad_version), libmfa.TOTP_PARAMS_VERSION)
    bad_version.version = 99
    uri_fields = mfa_key_uri()
    lib.mfa_key_uri_init(ctypes.byref(uri_fields), libmfa.KEY_URI_VERSION)
    return [
        ("totp_verify all NULL", lambda: lib.mfa_totp_verify(None, None, 20, None, 0, 1, None)),
        ("totp_verify NULL key", lambda: lib.mfa_totp_verify(None, None, n, None, 59, 1, b"287082")),
        ("totp_verify NULL code", lambda: lib.mfa_totp_verify(None, key, n, None, 59, 1, None)),
        ("totp_verify key_len 0", lambda: lib.mfa_totp_verify(None, key, 0, None, 59, 1, b"287082")),
        ("totp_verify window 11", lambda: lib.mfa_totp_verify(None, key, n, None, 59, 11, b"287082")),
        ("totp_verify window -1", lambda: lib.mfa_totp_verify(None, key, n, None, 59, -1, b"287082")),
        ("totp_verify before T0", lambda: lib.mfa_totp_verify(None, key, n, None, -1, 1, b"287082")),
        ("totp_verify params version", lambda: lib.mfa_totp_verify(None, key, n, bad_version, 59, 1, b"287082")),
        ("totp_generate NULL out", lambda: lib.mfa_totp_generate(None, 16, key, n, None, 59)),
        ("totp_generate NULL key", lambda: lib.mfa_totp_generate(buf, 16, None, n, None, 59)),
        ("totp_generate key 1025", lambda: lib.mfa_totp_generate(buf, 16, b"k" * 1025, 1025, None, 59)),
        ("totp_params_init NULL", lambda: lib.mfa_totp_params_init(None, libmfa.TOTP_PARAMS_VERSION)),
        ("totp_params_init version 0", lambda: lib.mfa_totp_params_init(ctypes.byref(params), 0)),
        ("totp_params_init version 2", lambda: lib.mfa_totp_params_init(ctypes.byref(params), libmfa.TOTP_PARAMS_VERSION + 1)),
        ("hotp_generate NULL out", lambda: lib.mfa_hotp_generate(None, 16, key, n, 0, 6, 1)),
        ("hotp_generate NULL key", lambda: lib.mfa_hotp_generate(buf, 16, None, n, 0, 6, 1)),
        ("hotp_generate digits 5", lambda: lib.mfa_hotp_generate(buf, 16, key, n, 0, 5, 1)),
        ("hotp_generate digits 9", lambda: lib.mfa_hotp_generate(buf, 16, key, n, 0, 9, 1)),
        ("hotp_generate algorithm 0", lambda: lib.mfa_hotp_generate(buf, 16, key, n, 0, 6, 0)),
        ("hotp_generate algorithm 4", lambda: lib.mfa_hotp_generate(buf, 16, key, n, 0, 6, 4)),
        ("hotp_verify all NULL", lambda: lib.mfa_hotp_verify(None, None, 0, 0, 0, 6, 1, None)),
        ("hotp_verify look-ahead 11", lambda: lib.mfa_hotp_verify(None, key, n, 0, 11, 6, 1, b"755224")),
        ("base32_decode NULL text", lambda: lib.mfa_base32_decode(ctypes.byref(out), ctypes.byref(size), None)),
        ("base32_decode NULL out", lambda: lib.mfa_base32_decode(None, ctypes.byref(size), b"MZXW6YTB")),
        ("base32_decode NULL len", lambda: lib.mfa_base32_decode(ctypes.byref(out), None, b"MZXW6YTB")),
        ("base32_decode not UTF-8", lambda: lib.mfa_base32_decode(ctypes.byref(out), ctypes.byref(size), b"\xff\xfe")),
        ("base32_encode NULL out", lambda: lib.mfa_base32_encode(None, b"foo", 3, 0)),
        ("base32_encode NULL data", lambda: lib.mfa_base32_encode(ctypes.byref(out), None, 3, 0)),
        ("base32_encode flags", lambda: lib.mfa_base32_encode(ctypes.byref(out), b"foo", 3, 2)),
        ("random_secret NULL", lambda: lib.mfa_random_secret(None, 20)),
        ("random_secret 15", lambda: lib.mfa_random_secret(buf, 15)),
        ("key_uri_init NULL", lambda: lib.mfa_key_uri_init(None, libmfa.KEY_URI_VERSION)),
        ("key_uri_init version 0", lambda: lib.mfa_key_uri_init(ctypes.byref(uri_fields), 0)),
        ("key_uri_build NULL uri", lambda: lib.mfa_key_uri_build(ctypes.byref(out), None, None)),
        ("key_uri_build NULL out", lambda: lib.mfa_key_uri_build(None, ctypes.byref(uri_fields), None)),
        ("key_uri_build NULL account", lambda: lib.mfa_key_uri_build(ctypes.byref(out), ctypes.byref(uri_fields), None)),
        ("key_uri_parse NULL text", lambda: lib.mfa_key_uri_parse(ctypes.byref(uri_out), None, None)),
        ("key_uri_parse NULL out", lambda: lib.mfa_key_uri_parse(None, b"otpauth://totp/a?secret=MZXW6YTB", None)),
        ("qr_encode NULL", lambda: lib.mfa_qr_encode(None, None, None, libmfa.QR_PNG)),
        ("qr_encode format 9", lambda: lib.mfa_qr_encode(ctypes.byref(out), ctypes.byref(size), b"hello", 9)),
        ("qr_encode empty text", lambda: lib.mfa_qr_encode(ctypes.byref(out), ctypes.byref(size), b"", libmfa.QR_SVG)),
        ("open NULL", lambda: lib.mfa_open(None, None, None)),
        ("options_init NULL", lambda: lib.mfa_options_init(None, libmfa.OPTIONS_VERSION)),
        ("options_init version 2", lambda: lib.mfa_options_init(ctypes.byref(mfa_options()), libmfa.OPTIONS_VERSION + 1)),
        ("user_init NULL", lambda: lib.mfa_user_init(None, libmfa.USER_VERSION)),
        ("user_init version 0xffffffff", lambda: lib.mfa_user_init(ctypes.byref(mfa_user()), 0xFFFFFFFF)),
        ("config_get_json NULL ctx", lambda: lib.mfa_config_get_json(None, ctypes.byref(out), None, None)),
        ("config_set_json NULL ctx", lambda: lib.mfa_config_set_json(None, None, b"{}", None)),
        ("factors_list NULL", lambda: lib.mfa_factors_list(None, None, None, None)),
        ("purge_expired NULL", lambda: lib.mfa_purge_expired(None, None)),
        ("resolve_totp NULL", lambda: lib.mfa_resolve_totp(None, None, None, None, None, None, None)),
        ("resolver_load NULL", lambda: lib.mfa_resolver_load(None, None, None, None, None)),
        ("rotate_keys NULL", lambda: lib.mfa_rotate_keys(None, None, None)),
        ("session_new NULL", lambda: lib.mfa_session_new(None, None, None, None)),
        ("sign_in NULL", lambda: lib.mfa_sign_in(None, None, None, None)),
        ("step_up_check NULL", lambda: lib.mfa_step_up_check(None, None, None, None, 0)),
        ("token_check NULL", lambda: lib.mfa_token_check(None, None, None, 0)),
        ("totp_enroll NULL", lambda: lib.mfa_totp_enroll(None, None, None, None, None, None, None)),
        ("totp_generate_secret NULL", lambda: lib.mfa_totp_generate_secret(None, None, None, None)),
        ("totp_secret_uri NULL", lambda: lib.mfa_totp_secret_uri(None, None, None, None, None)),
        ("unenroll NULL", lambda: lib.mfa_unenroll(None, None, None, None)),
    ]


@pytest.mark.parametrize("name,call", raw_calls(), ids=[name for name, _ in raw_calls()])
def test_raw_calls_return_invalid_argument(name, call):
    assert call() == INVALID


def test_raw_null_code_buffer_too_small():
    buf = ctypes.create_string_buffer(16)
    assert lib.mfa_totp_generate(buf, 6, SECRET, len(SECRET), None, 59) == Status.BUFFER_TOO_SMALL
    assert lib.mfa_hotp_generate(buf, 7, SECRET, len(SECRET), 0, 8, 1) == Status.BUFFER_TOO_SMALL
    assert lib.mfa_hotp_generate(buf, 7, SECRET, len(SECRET), 0, 6, 1) == Status.OK
    assert buf.value == b"755224"


def test_free_functions_accept_null():
    names = [name for name in _lib.SIGNATURES if name.endswith("_free") or name == "mfa_close"]
    assert len(names) >= 8
    for name in names:
        if name not in _lib.missing:
            assert getattr(lib, name)(None) is None


def test_null_options_gives_a_detailed_message():
    ctx = ctypes.POINTER(mfa_ctx)()
    err = ctypes.c_void_p()
    status = lib.mfa_open(ctypes.byref(ctx), None, ctypes.byref(err))
    assert not ctx
    with pytest.raises(libmfa.InvalidArgumentError) as caught:
        libmfa.check(status, err)
    assert "NULL" in caught.value.message
    assert err.value is None
