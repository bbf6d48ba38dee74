#!/usr/bin/env python3
"""Stateless TOTP verification: the libmfa Python binding against pyotp, in one run.

SHA1, 6 digits, 30 s, window +/-5 (11 steps), over many random secrets. Two
cases: the right code for the current step, and a wrong code that matches none
of the 11 steps. Prints verifications per second for each library and the
ratio libmfa / pyotp, each the best of several rounds. A benchmark, not a test.

    python3 bench/python/totp_verify_bench.py [--iterations N] [--rounds R]

The library is found like the package finds it (``LIBMFA_LIBRARY`` first);
when that variable is unset, ``<repo>/.build/release/libmfa.so`` or
``<repo>/build/libmfa.so`` is used if present.
"""

import argparse
import base64
import importlib.metadata
import os
import pathlib
import platform
import sys
import time

REPO = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "python"))
if not os.environ.get("LIBMFA_LIBRARY"):
    for candidate in (REPO / ".build" / "release" / "libmfa.so", REPO / "build" / "libmfa.so"):
        if candidate.exists():
            os.environ["LIBMFA_LIBRARY"] = str(candidate)
            break

import pyotp  # noqa: E402

import libmfa  # noqa: E402

KEYS = 64
WINDOW = 5
WHEN = 1700000000


def make_samples():
    """(libmfa TOTP, pyotp TOTP, right code, wrong code) for KEYS random secrets.

    Both libraries must agree on every sample before anything is timed.
    """
    samples = []
    for _ in range(KEYS):
        secret = libmfa.random_secret(20)
        ours = libmfa.TOTP(secret)
        theirs = pyotp.TOTP(base64.b32encode(secret).decode())
        right = ours.at(WHEN)
        near = {ours.at(WHEN + 30 * offset) for offset in range(-WINDOW, WINDOW + 1)}
        wrong = next(c for c in ("%06d" % ((n * 7919) % 1000000) for n in range(1000000)) if c not in near)
        if right != theirs.at(WHEN):
            raise SystemExit("pyotp and libmfa disagree on a code")
        if not (ours.verify(right, WHEN, WINDOW) and theirs.verify(right, for_time=WHEN, valid_window=WINDOW)):
            raise SystemExit("a right code was refused")
        if ours.verify(wrong, WHEN, WINDOW) or theirs.verify(wrong, for_time=WHEN, valid_window=WINDOW):
            raise SystemExit("a wrong code was accepted")
        samples.append((ours, theirs, right, wrong))
    return samples


def rate_libmfa(calls):
    """Verifications per second for a list of (bound TOTP.verify, code) pairs."""
    start = time.perf_counter()
    for verify, code in calls:
        verify(code, WHEN, WINDOW)
    return len(calls) / (time.perf_counter() - start)


def rate_pyotp(calls):
    """Verifications per second for a list of (bound pyotp TOTP.verify, code) pairs."""
    start = time.perf_counter()
    for verify, code in calls:
        verify(code, for_time=WHEN, valid_window=WINDOW)
    return len(calls) / (time.perf_counter() - start)


def best(rate, calls, rounds):
    """The highest rate over ``rounds`` runs."""
    return max(rate(calls) for _ in range(rounds))


def main():
    """Parse arguments, run both cases, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--iterations", type=int, default=200000, help="libmfa verifications per round")
    parser.add_argument("--rounds", type=int, default=5, help="rounds per measurement; the best counts")
    args = parser.parse_args()
    pyotp_iterations = max(KEYS, args.iterations // 20)

    samples = make_samples()
    print(
        "libmfa %s (%s), pyotp %s, Python %s, %s"
        % (
            libmfa.version_string(),
            libmfa.library_path(),
            importlib.metadata.version("pyotp"),
            platform.python_version(),
            platform.machine(),
        )
    )
    print("%-28s %14s %14s %8s" % ("case (SHA1, 6 digits, +/-5)", "libmfa /s", "pyotp /s", "ratio"))
    for name, index in (("wrong code (11 steps)", 3), ("right code (current step)", 2)):
        ours = [(s[0].verify, s[index]) for s in samples]
        theirs = [(s[1].verify, s[index]) for s in samples]
        mine = best(rate_libmfa, (ours * (args.iterations // KEYS + 1))[: args.iterations], args.rounds)
        other = best(rate_pyotp, (theirs * (pyotp_iterations // KEYS + 1))[:pyotp_iterations], args.rounds)
        print("%-28s %14.0f %14.0f %7.2fx" % (name, mine, other, mine / other))
    return 0


if __name__ == "__main__":
    sys.exit(main())
