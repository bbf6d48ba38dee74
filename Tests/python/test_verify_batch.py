"""Verification tries the current step alone, then every other step of the
window as one batch of MACs (issue 8, item 16: the batch was a suspect of a
code reuse under a race). Checked here against Python's own hmac: for every
batch size from 1 to 20 and every position in the batch, keys of many
lengths (over a hash block too) and all three hashes, ``match`` returns the
first step, nearest first, whose code it is."""

import hashlib
import hmac
import random
import struct

import pytest

import libmfa

HASHES = {"SHA1": hashlib.sha1, "SHA256": hashlib.sha256, "SHA512": hashlib.sha512}


def reference_code(key, step, digits, algorithm):
    """RFC 4226 HOTP of `step` with Python's hmac."""
    digest = hmac.new(key, struct.pack(">Q", step), HASHES[algorithm]).digest()
    offset = digest[-1] & 0x0F
    value = struct.unpack(">I", digest[offset:offset + 4])[0] & 0x7FFFFFFF
    return "%0*d" % (digits, value % 10 ** digits)


def search_order(center, window):
    """The steps a verification tries: the center, then -1, +1, -2, +2, ...; none below 0."""
    steps = [center]
    for distance in range(1, window + 1):
        steps += [s for s in (center - distance, center + distance) if s >= 0]
    return steps


@pytest.mark.parametrize("algorithm", ["SHA1", "SHA256", "SHA512"])
def test_totp_batch_matches_hmac_for_every_batch_size(algorithm):
    rng = random.Random(16)
    sizes = set()
    for key_length in (10, 20, 32, 63, 64, 65, 129, 1024):
        key = bytes(rng.getrandbits(8) for _ in range(key_length))
        digits = rng.choice((6, 7, 8))
        totp = libmfa.TOTP(key, digits=digits, period=1, algorithm=algorithm)
        for window in range(11):
            # Centers below the window leave negative steps out: batches of
            # window + center steps; a far one gives 2 * window.
            for center in list(range(window)) + [rng.randrange(2 ** 40)]:
                steps = search_order(center, window)
                sizes.add(len(steps) - 1)
                codes = {step: reference_code(key, step, digits, algorithm) for step in steps}
                for target in steps:
                    want = next(step for step in steps if codes[step] == codes[target])
                    assert totp.match(codes[target], at=center, window=window) == want, (key_length, window, center)
    assert sizes == set(range(21))
