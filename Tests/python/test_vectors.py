"""Known-answer tests from Tests/vectors/otp_vectors.txt (RFC 4226, RFC 6238, RFC 4648)."""

import ctypes

import pytest

import libmfa
from libmfa._lib import lib

from shared import read_vectors

HOTP_VECTORS = read_vectors("hotp")
TOTP_VECTORS = read_vectors("totp")
BASE32_VECTORS = read_vectors("base32")


def test_vector_file_has_every_section():
    assert len(HOTP_VECTORS) == 10
    assert len(TOTP_VECTORS) == 18
    assert {row[0] for row in TOTP_VECTORS} == {"SHA1", "SHA256", "SHA512"}
    assert len(BASE32_VECTORS) == 7


@pytest.mark.parametrize("algorithm,key,counter,digits,code", HOTP_VECTORS)
def test_hotp_vectors(algorithm, key, counter, digits, code):
    hotp = libmfa.HOTP(key.encode(), digits=int(digits), algorithm=algorithm)
    assert hotp.at(int(counter)) == code
    assert hotp.verify(code, int(counter)) is True
    assert hotp.match(code, int(counter)) == int(counter)
    assert hotp.match(code.encode(), 0, look_ahead=10) == int(counter)


@pytest.mark.parametrize("algorithm,key,unix_time,digits,code", TOTP_VECTORS)
def test_totp_vectors(algorithm, key, unix_time, digits, code):
    totp = libmfa.TOTP(key.encode(), digits=int(digits), algorithm=algorithm.lower())
    when = int(unix_time)
    assert totp.at(when) == code
    assert totp.verify(code, at=when, window=0) is True
    assert totp.match(code, at=when, window=0) == when // 30


@pytest.mark.parametrize("algorithm,key,unix_time,digits,code", TOTP_VECTORS)
def test_totp_vectors_by_algorithm_constant(algorithm, key, unix_time, digits, code):
    number = getattr(libmfa, "ALG_" + algorithm)
    assert libmfa.TOTP(key.encode(), digits=int(digits), algorithm=number).at(int(unix_time)) == code


@pytest.mark.parametrize("key,unix_time,code", [(k, t, c) for a, k, t, d, c in TOTP_VECTORS if a == "SHA1"])
def test_totp_null_params_are_the_defaults(key, unix_time, code):
    out = ctypes.create_string_buffer(libmfa.CODE_BUFFER_SIZE)
    assert lib.mfa_totp_generate(out, len(out), key.encode(), len(key), None, int(unix_time)) == 0
    assert out.value.decode() == code[-6:]


@pytest.mark.parametrize("plain,encoded", BASE32_VECTORS)
def test_base32_vectors(plain, encoded):
    data = plain.encode()
    assert libmfa.base32_encode(data) == encoded
    assert libmfa.base32_encode(data, padding=False) == encoded.rstrip("=")
    assert libmfa.base32_decode(encoded) == data
    assert libmfa.base32_decode(encoded.lower()) == data
    assert libmfa.base32_decode(encoded.rstrip("=")) == data
    assert libmfa.base32_decode(encoded.encode()) == data
