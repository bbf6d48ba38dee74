"""otpauth:// key URIs: round trips through libmfa and pyotp, and rejected URIs."""

import hashlib
import random

import pyotp
import pytest

import libmfa

NAMES = [
    "alice@example.com",
    "ACME Co",
    "a b:c",
    "x@y&z+w%v",
    "path/with?query#frag",
    "50% off + free: a&b=c",
    "Ünïcødé 株式会社",
    "emoji \U0001f510 key",
    "trailing space ",
    "plain",
]
ISSUERS = NAMES + [None]
SECRET = bytes(range(1, 21))
DIGESTS = {"SHA1": hashlib.sha1, "SHA256": hashlib.sha256, "SHA512": hashlib.sha512}


def uri_cases():
    """(kind, issuer, account, algorithm, digits, period, counter) for every issuer x account."""
    rnd = random.Random(2024)
    cases = []
    for issuer in ISSUERS:
        for account in NAMES:
            kind = rnd.choice(["totp", "totp", "hotp"])
            period = rnd.choice([30, 60, 15]) if kind == "totp" else 30  # HOTP has no period,
            counter = rnd.randrange(0, 2**40) if kind == "hotp" else 0  # TOTP no counter
            cases.append((kind, issuer, account, rnd.choice(list(DIGESTS)), rnd.choice([6, 7, 8]), period, counter))
    return cases


@pytest.mark.parametrize("kind,issuer,account,algorithm,digits,period,counter", uri_cases())
def test_round_trip_through_pyotp_and_libmfa(kind, issuer, account, algorithm, digits, period, counter):
    key = libmfa.KeyURI(kind, issuer, account, SECRET, algorithm, digits, period, counter)
    uri = key.to_uri()
    assert uri.startswith("otpauth://%s/" % kind)
    assert uri.isascii() and " " not in uri
    assert libmfa.parse_uri(uri) == key

    theirs = pyotp.parse_uri(uri)
    assert theirs.issuer == issuer
    assert theirs.name == account
    assert theirs.byte_secret() == SECRET
    assert theirs.digits == digits
    assert theirs.digest().name == algorithm.lower()
    if kind == "totp":
        assert isinstance(theirs, pyotp.TOTP)
        assert theirs.interval == period
    else:
        assert isinstance(theirs, pyotp.HOTP)
        assert theirs.initial_count == counter


def test_build_uri_equals_key_uri_to_uri():
    assert libmfa.build_uri(SECRET, "alice@example.com", "ACME Co") == libmfa.KeyURI(
        "totp", "ACME Co", "alice@example.com", SECRET
    ).to_uri()


def test_secret_is_unpadded_base32():
    uri = libmfa.build_uri(b"foobar", "a")
    assert "secret=MZXW6YTBOI&" in uri or uri.endswith("secret=MZXW6YTBOI")


def test_totp_provisioning_uri():
    totp = libmfa.TOTP(SECRET, digits=8, period=60, algorithm="sha512")
    uri = totp.provisioning_uri("alice@example.com", issuer="ACME Co")
    assert uri == libmfa.build_uri(SECRET, "alice@example.com", "ACME Co", algorithm="SHA512", digits=8, period=60)
    parsed = libmfa.parse_uri(uri).to_otp()
    assert isinstance(parsed, libmfa.TOTP)
    assert parsed.at(1700000000) == totp.at(1700000000)
    assert pyotp.parse_uri(uri).at(1700000000) == totp.at(1700000000)


def test_totp_with_t0_cannot_be_provisioned():
    with pytest.raises(libmfa.InvalidArgumentError):
        libmfa.TOTP(SECRET, t0=100).provisioning_uri("alice")


def test_hotp_uri_to_otp():
    key = libmfa.parse_uri(libmfa.build_uri(SECRET, "bob", kind="hotp", counter=7, digits=7))
    assert key.kind == "hotp" and key.counter == 7 and key.issuer is None
    hotp = key.to_otp()
    assert isinstance(hotp, libmfa.HOTP)
    assert hotp.at(7) == pyotp.HOTP(libmfa.base32_encode(SECRET), digits=7).at(7)


@pytest.mark.parametrize(
    "issuer,account,algorithm,digits,interval",
    [
        ("ACME Co", "alice@example.com", hashlib.sha1, 6, 30),
        ("Ünïcødé 株式会社", "jürgen@example.de", hashlib.sha256, 8, 60),
        ("a/b", "c/d", hashlib.sha512, 7, 45),
        ("x+y", "50%", hashlib.sha1, 6, 30),
        (None, "no issuer", hashlib.sha1, 6, 30),
    ],
)
def test_parses_pyotp_uris(issuer, account, algorithm, digits, interval):
    secret = pyotp.random_base32()
    theirs = pyotp.TOTP(secret, digits=digits, digest=algorithm, interval=interval, name=account, issuer=issuer)
    key = libmfa.parse_uri(theirs.provisioning_uri())
    assert key.kind == "totp"
    assert key.issuer == issuer
    assert key.account == account
    assert key.secret == theirs.byte_secret()
    assert key.algorithm == algorithm().name.upper()
    assert (key.digits, key.period) == (digits, interval)
    assert key.to_otp().at(1700000000) == theirs.at(1700000000)


def test_parses_pyotp_hotp_uri():
    secret = pyotp.random_base32()
    key = libmfa.parse_uri(pyotp.HOTP(secret, initial_count=42).provisioning_uri(name="carol", issuer_name="Co"))
    assert (key.kind, key.issuer, key.account, key.counter) == ("hotp", "Co", "carol", 42)
    assert key.secret == libmfa.base32_decode(secret)


def test_key_uri_normalizes_and_hides_the_secret():
    key = libmfa.KeyURI("TOTP", "ACME", "alice", bytearray(SECRET), algorithm=libmfa.ALG_SHA256)
    assert key.kind == "totp"
    assert key.algorithm == "SHA256"
    assert type(key.secret) is bytes and key.secret == SECRET
    assert "secret" not in repr(key) and repr(SECRET) not in repr(key)


SECRET32 = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"


@pytest.mark.parametrize(
    "uri,fragment",
    [
        ("", "otpauth"),
        ("http://totp/x?secret=" + SECRET32, "otpauth"),
        ("otpauth://totp/x", "secret"),
        ("otpauth://totp/x?secret=MZXW6Y1B", "base32"),
        ("otpauth://sotp/x?secret=" + SECRET32, "type"),
        ("otpauth://totp/x?secret=%s&digits=9" % SECRET32, "digits"),
        ("otpauth://totp/x?secret=%s&algorithm=MD5" % SECRET32, "algorithm"),
        ("otpauth://totp/x?secret=%s&period=0" % SECRET32, "period"),
        ("otpauth://totp/?secret=" + SECRET32, "account"),
        ("otpauth://totp/a%ZZb?secret=" + SECRET32, "percent"),
        ("otpauth://totp/x?secret=%s&secret=%s" % (SECRET32, SECRET32), "repeated"),
        ("otpauth://totp/A:x?secret=%s&issuer=B" % SECRET32, "issuer"),
        ("otpauth://hotp/x?secret=" + SECRET32, "counter"),
    ],
)
def test_invalid_uris_raise_with_a_reason(uri, fragment):
    with pytest.raises(libmfa.InvalidURIError) as caught:
        libmfa.parse_uri(uri)
    assert caught.value.status == libmfa.Status.INVALID_URI
    assert fragment in caught.value.message
    assert SECRET32 not in caught.value.message
