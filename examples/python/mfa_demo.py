#!/usr/bin/env python3
"""libmfa's MFA engine from Python: the whole TOTP flow of Firebase's model,
and recovery codes, on an SQLite store in a temporary directory.

 1. enable TOTP and recovery codes for the project;
 2. sign a user in with a first factor (no second factor yet);
 3. enroll TOTP: show the key and the QR code in the terminal, type the code
    an authenticator app would show;
 4. sign in again: "second factor required", show the hints, resolve with a
    code computed like an authenticator app;
 5. generate recovery codes, sign in with one (the phone is lost), see how
    many are left, and that a used code is refused;
 6. unenroll, and show that the credential issued before is revoked
    (USER_TOKEN_EXPIRED).

The engine runs on a simulated clock (libmfa's injectable clock) so the demo
can move from one 30 s time step to the next without waiting.

    LIBMFA_LIBRARY=/path/to/libmfa.so python3 examples/python/mfa_demo.py

Exits with status 1 on any unexpected outcome.
"""

import os
import pathlib
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "python"))

try:
    import libmfa  # noqa: E402  (after the path set-up above)
except ImportError as error:
    sys.exit("mfa_demo: %s" % error)

GEN = libmfa.TOTPMultiFactorGenerator
RECOVERY = libmfa.RecoveryCodesMultiFactorGenerator


class Failure(Exception):
    """An unexpected outcome."""


def expect(condition, what):
    """Raise Failure unless ``condition``; print a check mark line otherwise."""
    if not condition:
        raise Failure(what)
    print("  ok: %s" % what)


class SimulatedClock:
    """Starts at the real time; ``advance`` moves it forward."""

    def __init__(self):
        self.now = int(time.time())

    def __call__(self):
        return self.now

    def advance(self, seconds):
        self.now += seconds


def run(directory):
    """The demo; raises Failure (or an MFAError) on anything unexpected."""
    clock = SimulatedClock()
    store = os.path.join(directory, "mfa.sqlite3")
    master_key = libmfa.random_secret(libmfa.MASTER_KEY_BYTES)  # keep it in a secret manager
    audit = []
    print("libmfa %s (%s), store %s" % (libmfa.version_string(), libmfa.library_path(), store))

    with libmfa.Context(store, master_key=master_key, key_id="demo-2024", clock=clock, audit=audit.append) as ctx:
        print("\n1. Enable TOTP and recovery codes for the project")
        ctx.set_config({"state": "ENABLED", "providers": {"totp": "ENABLED", "recovery": "ENABLED"},
                        "totp": {"adjacentIntervals": 1}})
        config = ctx.config()
        expect(config["providers"]["totp"] == "ENABLED", "TOTP is enabled, adjacentIntervals = %d"
               % config["totp"]["adjacentIntervals"])
        expect(config["providers"]["recovery"] == "ENABLED", "recovery codes are enabled, %d per set"
               % config["recoveryCodes"]["count"])

        print("\n2. First-factor sign-in (password checked by the host)")
        user = libmfa.User("alice", email="alice@example.com", email_verified=True, provider="password",
                           auth_time=clock())
        result = ctx.sign_in(user)
        expect(result.factor_id is None, "alice is signed in without a second factor (claims %r)" % result.claims)

        print("\n3. Enroll TOTP")
        multi_factor = ctx.multi_factor(user)
        secret = GEN.generate_secret(multi_factor.session())
        print("  key to type in:  %s" % secret.shared_secret_key)
        print("  or scan this QR code (%s):" % secret.generate_qr_code_url("alice@example.com", "ACME Co"))
        print(secret.qr_text("alice@example.com", "ACME Co"))
        app = libmfa.TOTP(libmfa.base32_decode(secret.shared_secret_key),
                          digits=secret.code_length, period=secret.code_interval_seconds,
                          algorithm=secret.hashing_algorithm)  # what the authenticator app holds
        clock.advance(20)  # the user scans and types
        code = app.at(clock())
        print("  the app shows %s" % code)
        info = multi_factor.enroll(GEN.assertion_for_enrollment(secret, code), "Alice's phone")
        expect(info.factor_id == "totp", "enrolled factor %s (%r)" % (info.uid, info.display_name))
        expect([f.uid for f in multi_factor.enrolled_factors()] == [info.uid], "it is listed")

        print("\n4. Sign in again: second factor required")
        clock.advance(40)
        user.auth_time = clock()
        try:
            ctx.sign_in(user)
            raise Failure("sign-in should have required a second factor")
        except libmfa.SecondFactorRequired as error:
            resolver = error.resolver
        print("  hints:")
        for index, hint in enumerate(resolver.hints):
            print("    [%d] %s: %s %r enrolled at %d (id %s)" % (index, hint.factor_id, hint.hint, hint.display_name,
                                                              hint.enrollment_time, hint.uid))
        hint = resolver.hints[0]  # the user picks one
        code = app.at(clock())
        print("  the app shows %s" % code)
        result = resolver.resolve_sign_in(GEN.assertion_for_sign_in(hint.uid, code))
        expect(result.claims == {"sign_in_second_factor": "totp", "second_factor_identifier": info.uid},
               "signed in with claims %r" % result.claims)
        issued_at = result.time  # the host issues its credential now
        ctx.check_token("alice", issued_at)
        expect(True, "the credential issued at %d is valid" % issued_at)
        expect(ctx.passed_second_factor("alice", 300), "step-up: a second factor was passed in the last 5 minutes")
        try:
            resolver.resolve_sign_in(GEN.assertion_for_sign_in(hint.uid, code))
            raise Failure("a replayed code was accepted")
        except libmfa.InvalidSessionError:
            expect(True, "the pending credential and the code cannot be used twice")

        print("\n5. Recovery codes, for the day the phone is lost")
        clock.advance(30)
        user.auth_time = clock()
        codes = RECOVERY.generate_codes(multi_factor.session(), "Printed codes")
        print("  write these down; each works once:")
        for row in range(0, len(codes.codes), 5):
            print("    " + "  ".join(codes.codes[row:row + 5]))
        expect(codes.factor.hint == "%d codes left" % len(codes.codes), "the set is a factor: %r" % codes.factor.hint)
        try:
            ctx.check_token("alice", issued_at)
            raise Failure("the credential from before the new codes is still valid")
        except libmfa.UserTokenExpiredError as error:
            expect(True, "like any enrollment, the new set revoked the earlier credential: %s" % error.name)
        clock.advance(30)
        user.auth_time = clock()
        try:
            ctx.sign_in(user)
            raise Failure("sign-in should have required a second factor")
        except libmfa.SecondFactorRequired as error:
            resolver = error.resolver
        print("  hints: %s" % ", ".join("%s (%s)" % (hint.hint, hint.factor_id) for hint in resolver.hints))
        typed = codes.codes[0].upper().replace("-", "")  # what the user types, read forgivingly
        result = resolver.resolve_sign_in(RECOVERY.assertion_for_sign_in(typed))
        left = result.claims["recovery_codes_remaining"]
        expect(result.used_recovery_code and left == str(len(codes.codes) - 1),
               "signed in with a recovery code; %s left (warn the user, offer a new set)" % left)
        issued_at = result.time
        try:
            ctx.sign_in(user)
        except libmfa.SecondFactorRequired as error:
            resolver = error.resolver
        try:
            resolver.resolve_sign_in(RECOVERY.assertion_for_sign_in(codes.codes[0]))
            raise Failure("a used recovery code was accepted")
        except libmfa.InvalidVerificationCodeError:
            expect(True, "a used recovery code is refused")
        hints = {hint.factor_id: hint for hint in resolver.hints}
        expect(hints["recovery"].remaining_codes == len(codes.codes) - 1,
               "the hint says %r" % hints["recovery"].hint)

        print("\n6. Unenroll, and the earlier credential is revoked")
        clock.advance(60)
        user.auth_time = clock()
        for factor in multi_factor.enrolled_factors():
            multi_factor.unenroll(factor)
        expect(multi_factor.enrolled_factors() == [], "no factor is left")
        try:
            ctx.check_token("alice", issued_at)
            raise Failure("the old credential is still valid after unenrolling")
        except libmfa.UserTokenExpiredError as error:
            expect(True, "check_token of the old credential: %s" % error.name)
        result = ctx.sign_in(user)
        expect(result.factor_id is None, "alice signs in with the first factor only again")

    print("\naudit log:")
    for event in audit:
        print("  %-16s uid=%-6s factor=%-8s detail=%s" % (event.kind_name, event.uid, event.factor_id, event.detail))
    kinds = [event.kind_name for event in audit]
    expect(kinds == ["CONFIG_CHANGE", "ENROLL", "SIGN_IN_SUCCESS", "ENROLL", "SIGN_IN_SUCCESS", "SIGN_IN_FAILURE",
                     "UNENROLL", "UNENROLL"], "the audit log has every step")
    data = b"".join(p.read_bytes() for p in pathlib.Path(directory).iterdir())
    expect(secret.shared_secret_key.encode() not in data and libmfa.base32_decode(secret.shared_secret_key) not in data,
           "the store holds no TOTP secret in the clear")
    expect(not any(code.encode() in data or code.replace("-", "").encode() in data for code in codes.codes),
           "nor any recovery code (only keyed hashes)")


def main():
    """Run the demo; return the process exit status."""
    with tempfile.TemporaryDirectory(prefix="libmfa-demo-") as directory:
        try:
            run(directory)
        except (Failure, libmfa.MFAError) as error:
            print("mfa_demo: UNEXPECTED: %s" % error, file=sys.stderr)
            return 1
    print("\nmfa_demo: all steps behaved as expected")
    return 0


if __name__ == "__main__":
    sys.exit(main())
