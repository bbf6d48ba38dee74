"""Agreement with Debian's oathtool and with pyotp on random secrets and parameters."""

import base64
import hashlib
import random
import shutil
import subprocess

import pyotp
import pytest

import libmfa

OATHTOOL = shutil.which("oathtool") or "/usr/bin/oathtool"
ALGORITHMS = ["SHA1", "SHA256", "SHA512"]
DIGESTS = {"SHA1": hashlib.sha1, "SHA256": hashlib.sha256, "SHA512": hashlib.sha512}


def totp_cases(count=50, seed=6238):
    """Random (key, algorithm, digits, period, t0, unix_time) tuples, reproducible."""
    rnd = random.Random(seed)
    cases = []
    for _ in range(count):
        key = bytes(rnd.getrandbits(8) for _ in range(rnd.choice([16, 20, 32, 64])))
        t0 = rnd.choice([0, 0, 0, rnd.randrange(0, 10**9)])
        cases.append(
            (key, rnd.choice(ALGORITHMS), rnd.choice([6, 7, 8]), rnd.choice([30, 30, 60, 15]), t0, t0 + rnd.randrange(0, 2**34))
        )
    return cases


def hotp_cases(count=50, seed=4226):
    """Random (key, algorithm, digits, counter) tuples, reproducible."""
    rnd = random.Random(seed)
    cases = []
    for _ in range(count):
        key = bytes(rnd.getrandbits(8) for _ in range(rnd.choice([16, 20, 32, 64])))
        counter = rnd.choice([rnd.randrange(0, 1000), rnd.randrange(0, 2**40), rnd.randrange(0, 2**63)])
        cases.append((key, rnd.choice(ALGORITHMS), rnd.choice([6, 7, 8]), counter))
    return cases


def oathtool(*args):
    """oathtool's output for ``args``, stripped."""
    done = subprocess.run([OATHTOOL, *args], capture_output=True, text=True, timeout=30, check=True)
    return done.stdout.strip()


def test_oathtool_is_installed():
    assert oathtool("--version").startswith("oathtool")


@pytest.mark.parametrize("key,algorithm,digits,period,t0,when", totp_cases())
def test_totp_agrees_with_oathtool_and_pyotp(key, algorithm, digits, period, t0, when):
    ours = libmfa.TOTP(key, digits=digits, period=period, algorithm=algorithm, t0=t0).at(when)
    theirs = oathtool(
        "--totp=" + algorithm, "--digits=%d" % digits, "--time-step-size=%ds" % period,
        "--start-time=@%d" % t0, "--now=@%d" % when, key.hex(),
    )
    # pyotp has no T0; shifting the time by T0 is the same computation.
    python = pyotp.TOTP(
        libmfa.base32_encode(key, padding=False), digits=digits, digest=DIGESTS[algorithm], interval=period
    ).at(when - t0)
    assert len(ours) == digits
    assert ours == theirs == python


@pytest.mark.parametrize("key,algorithm,digits,period,t0,when", totp_cases(count=10, seed=1))
def test_totp_verifies_what_pyotp_generates(key, algorithm, digits, period, t0, when):
    totp = libmfa.TOTP(key, digits=digits, period=period, algorithm=algorithm, t0=t0)
    theirs = pyotp.TOTP(base64.b32encode(key).decode(), digits=digits, digest=DIGESTS[algorithm], interval=period)
    step = (when - t0) // period
    assert totp.match(theirs.at(when - t0 + period), at=when, window=1) == step + 1
    assert totp.match(theirs.at(when - t0 - period), at=when, window=1) == step - 1


@pytest.mark.parametrize("key,algorithm,digits,counter", hotp_cases())
def test_hotp_agrees_with_pyotp_and_oathtool(key, algorithm, digits, counter):
    ours = libmfa.HOTP(key, digits=digits, algorithm=algorithm).at(counter)
    python = pyotp.HOTP(base64.b32encode(key).decode(), digits=digits, digest=DIGESTS[algorithm]).at(counter)
    assert len(ours) == digits
    assert ours == python
    if algorithm == "SHA1":  # oathtool's HOTP mode is SHA1 only
        assert ours == oathtool("--hotp", "-c", str(counter), "-d", str(digits), key.hex())


def test_oathtool_reads_libmfa_base32():
    rnd = random.Random(4648)
    for _ in range(10):
        key = bytes(rnd.getrandbits(8) for _ in range(20))
        expected = libmfa.TOTP(key).at(1700000000)
        assert oathtool("--totp", "-b", "--now=@1700000000", libmfa.base32_encode(key)) == expected


def test_base32_agrees_with_the_standard_library():
    rnd = random.Random(32)
    for length in range(0, 70):
        data = bytes(rnd.getrandbits(8) for _ in range(length))
        text = base64.b32encode(data).decode()
        assert libmfa.base32_encode(data) == text
        assert libmfa.base32_decode(text) == data
        assert libmfa.base32_decode(text.rstrip("=").lower()) == data


def test_decodes_pyotp_random_secrets():
    for _ in range(20):
        text = pyotp.random_base32()
        assert libmfa.base32_decode(text) == pyotp.TOTP(text).byte_secret()
