"""Verification: wrong and malformed codes, window edges, matched steps and counters."""

import datetime
import time

import pytest

import libmfa

SECRET = b"12345678901234567890"
WHEN = 1111111109  # step 37037036 of RFC 6238 appendix B
STEP = WHEN // 30


@pytest.fixture
def totp():
    """The RFC 6238 SHA1 secret, 6 digits, 30 s."""
    return libmfa.TOTP(SECRET)


@pytest.fixture
def hotp():
    """The RFC 4226 secret, 6 digits."""
    return libmfa.HOTP(SECRET)


def code_at_step(totp, step):
    """The TOTP code for a time step."""
    return totp.at(step * totp.period + totp.t0)


def wrong_code(totp, when, window):
    """A well-formed code that matches none of the steps in the window."""
    near = {code_at_step(totp, (when - totp.t0) // totp.period + d) for d in range(-window, window + 1)}
    return next(c for c in ("%06d" % n for n in range(0, 1000000, 7919)) if c not in near)


def test_right_code_verifies(totp):
    code = totp.at(WHEN)
    assert totp.verify(code, at=WHEN) is True
    assert totp.verify(code.encode(), at=WHEN) is True
    assert totp.match(code, at=WHEN) == STEP


def test_wrong_code_is_false_and_none(totp, hotp):
    wrong = wrong_code(totp, WHEN, 10)
    assert totp.verify(wrong, at=WHEN, window=10) is False
    assert totp.match(wrong, at=WHEN, window=10) is None
    hotp_codes = {hotp.at(c) for c in range(0, 11)}
    wrong = next(c for c in ("%06d" % n for n in range(1000000)) if c not in hotp_codes)
    assert hotp.verify(wrong, 0, look_ahead=10) is False
    assert hotp.match(wrong, 0, look_ahead=10) is None


@pytest.mark.parametrize("code", ["", "1", "12345", "1234567", "abcdef", "12345a", " 12345", "12345 ", "+12345",
                                  "-12345", "１２３４５６", "٣٤٥٦٧٨", "12 345"])
def test_malformed_codes_are_false_and_none(totp, hotp, code):
    assert totp.verify(code, at=WHEN, window=10) is False
    assert totp.match(code, at=WHEN, window=10) is None
    assert hotp.verify(code, 0, look_ahead=10) is False
    assert hotp.match(code, 0, look_ahead=10) is None


def test_right_code_with_extra_characters_is_false(totp):
    code = totp.at(WHEN)
    for variant in (code + "0", "0" + code, code[:-1], " " + code, code + " ", code + "\n"):
        assert totp.verify(variant, at=WHEN) is False


def test_code_of_wrong_length_for_eight_digits():
    totp = libmfa.TOTP(SECRET, digits=8)
    assert totp.at(WHEN) == "07081804"
    assert totp.verify("07081804", at=WHEN) is True
    assert totp.verify("081804", at=WHEN) is False
    assert totp.verify("7081804", at=WHEN) is False


@pytest.mark.parametrize("window", [0, 1, 5, 10])
def test_window_edges(totp, window):
    for offset in range(-window, window + 1):
        code = code_at_step(totp, STEP + offset)
        assert totp.match(code, at=WHEN, window=window) == STEP + offset
        assert totp.verify(code, at=WHEN, window=window) is True
    for offset in (-window - 1, window + 1):
        code = code_at_step(totp, STEP + offset)
        assert code not in {code_at_step(totp, STEP + d) for d in range(-window, window + 1)}
        assert totp.match(code, at=WHEN, window=window) is None
        assert totp.verify(code, at=WHEN, window=window) is False


def test_step_boundaries(totp):
    start = STEP * 30
    code = code_at_step(totp, STEP)
    assert totp.match(code, at=start, window=0) == STEP
    assert totp.match(code, at=start + 29, window=0) == STEP
    assert totp.match(code, at=start + 30, window=0) is None
    assert totp.match(code, at=start - 1, window=0) is None
    assert totp.match(code, at=start + 30, window=1) == STEP
    assert totp.match(code, at=start - 1, window=1) == STEP


def test_window_at_step_zero_does_not_go_negative(totp):
    code = code_at_step(totp, 0)
    assert totp.match(code, at=0, window=10) == 0
    assert totp.match(code_at_step(totp, 10), at=0, window=10) == 10
    assert totp.match(code_at_step(totp, 11), at=0, window=10) is None


def test_t0_and_period():
    totp = libmfa.TOTP(SECRET, period=60, t0=1000)
    assert totp.at(1000) == libmfa.TOTP(SECRET, period=60).at(0)
    assert totp.at(1059) == totp.at(1000) != totp.at(1060)
    assert totp.timecode(1060) == 1
    assert totp.match(totp.at(1060), at=1000, window=1) == 1
    assert totp.match(totp.at(1000), at=1000, window=1) == 0


@pytest.mark.parametrize("look_ahead", [0, 1, 5, 10])
def test_hotp_look_ahead_edges(hotp, look_ahead):
    start = 1000
    for ahead in range(0, look_ahead + 1):
        assert hotp.match(hotp.at(start + ahead), start, look_ahead=look_ahead) == start + ahead
        assert hotp.verify(hotp.at(start + ahead), start, look_ahead=look_ahead) is True
    assert hotp.match(hotp.at(start + look_ahead + 1), start, look_ahead=look_ahead) is None
    assert hotp.verify(hotp.at(start + look_ahead + 1), start, look_ahead=look_ahead) is False
    assert hotp.match(hotp.at(start - 1), start, look_ahead=look_ahead) is None
    assert hotp.verify(hotp.at(start - 1), start, look_ahead=look_ahead) is False


def test_hotp_look_ahead_at_the_top_counter(hotp):
    top = 2**64 - 1
    assert hotp.match(hotp.at(top), top, look_ahead=10) == top
    assert hotp.match(hotp.at(top), top - 3, look_ahead=10) == top
    assert hotp.verify(hotp.at(top), top - 3, look_ahead=10) is True
    assert hotp.match(hotp.at(0), top - 3, look_ahead=10) is None  # no wrap-around
    assert hotp.verify(hotp.at(0), top - 3, look_ahead=10) is False


def test_regression_hotp_verify_right_code_at_counter_zero_is_true(hotp):
    # verify used to return the matched counter, so a right code at counter 0
    # gave 0, which is falsy: `if hotp.verify(code, 0):` turned the user away.
    code = hotp.at(0)
    assert code == "755224"  # RFC 4226 appendix D, counter 0
    assert hotp.verify(code, 0) is True
    assert hotp.verify(code, 0, look_ahead=3) is True
    assert hotp.match(code, 0) == 0
    assert hotp.verify(hotp.at(1), 0) is False


def test_regression_totp_verify_right_code_at_step_zero_is_true(totp):
    code = code_at_step(totp, 0)
    assert totp.verify(code, at=0, window=0) is True
    assert totp.match(code, at=0, window=0) == 0


def test_time_as_float_and_datetime(totp):
    code = totp.at(WHEN)
    assert totp.at(WHEN + 0.999) == code
    assert totp.verify(code, at=float(WHEN) + 0.5, window=0) is True
    moment = datetime.datetime.fromtimestamp(WHEN, tz=datetime.timezone.utc)
    assert totp.at(moment) == code
    assert totp.match(code, at=moment, window=0) == STEP


def test_now_uses_the_clock(totp):
    before = int(time.time())
    code = totp.now()
    after = int(time.time())
    assert code in {totp.at(before), totp.at(after)}
    assert totp.verify(code) is True
    assert totp.match(code) in {before // 30, after // 30}


def test_properties_and_repr_hide_the_secret():
    totp = libmfa.TOTP(bytearray(SECRET), digits=7, period=45, algorithm="sha512", t0=3)
    assert (totp.secret, totp.digits, totp.period, totp.algorithm, totp.t0) == (SECRET, 7, 45, "SHA512", 3)
    assert "1234" not in repr(totp) and "TOTP(" in repr(totp)
    hotp = libmfa.HOTP(memoryview(SECRET), digits=8, algorithm=libmfa.ALG_SHA256)
    assert (hotp.secret, hotp.digits, hotp.algorithm) == (SECRET, 8, "SHA256")
    assert "1234" not in repr(hotp)


def test_secret_is_copied(totp):
    secret = bytearray(SECRET)
    copy = libmfa.TOTP(secret)
    secret[:] = b"x" * len(secret)
    assert copy.at(WHEN) == totp.at(WHEN)
