#!/usr/bin/env python3
"""libmfa from Python: make a TOTP secret, print its otpauth:// URI (what the
QR code holds), then compute the current code the way an authenticator app
does and verify it, accepting one time step of clock skew.

    LIBMFA_LIBRARY=/path/to/libmfa.so python3 examples/python/totp_demo.py

Exits with status 1 if the verification fails.
"""

import pathlib
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "python"))

try:
    import libmfa  # noqa: E402  (after the path set-up above)
except ImportError as error:
    sys.exit("totp_demo: %s" % error)


def main():
    """Run the demo; return the process exit status."""
    print("libmfa %s (%s)" % (libmfa.version_string(), libmfa.library_path()))

    secret = libmfa.random_secret()
    totp = libmfa.TOTP(secret)  # SHA1, 6 digits, 30 s, as Google Authenticator uses
    print("otpauth URI: %s" % totp.provisioning_uri("alice@example.com", issuer="ACME Co"))

    now = int(time.time())
    code = totp.at(now)
    print("current code: %s" % code)

    step = totp.match(code, at=now, window=1)
    if step is None:
        print("verification FAILED", file=sys.stderr)
        return 1
    print("verified: time step %d" % step)

    guessed = "000000" if code != "000000" else "111111"
    print("a guessed code: %s" % ("accepted" if totp.verify(guessed, at=now, window=0) else "rejected"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
