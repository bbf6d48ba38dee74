"""Run by check_wheel.sh with the Python of a new venv that has only the wheel.

Checks that libmfa comes from that venv (package and shared library), then
enrolls a TOTP factor and signs in with it through the resolver, on an SQLite
store in the current folder.

usage: python flow.py VENV
"""

import os
import sys

import libmfa

venv = os.path.realpath(sys.argv[1])


def inside_venv(path):
    """Whether ``path`` is inside the venv under test."""
    return os.path.realpath(path).startswith(venv + os.sep)


assert "LIBMFA_LIBRARY" not in os.environ, "the test must run without LIBMFA_LIBRARY"
assert inside_venv(libmfa.__file__), "libmfa imported from %s, not the venv" % libmfa.__file__
assert inside_venv(libmfa.library_path()), "libmfa.so loaded from %s" % libmfa.library_path()
assert os.path.dirname(libmfa.library_path()) == os.path.dirname(os.path.realpath(libmfa.__file__))
# The library inside the package is found without the system search (ldconfig, at import time).
assert "ctypes.util" not in sys.modules, "importing libmfa searched the system for the library"

GEN = libmfa.TOTPMultiFactorGenerator
now = 1_700_000_010
with libmfa.Context("wheel.sqlite", master_key=libmfa.random_secret(libmfa.MASTER_KEY_BYTES), key_id="wheel",
                    clock=lambda: now) as ctx:
    ctx.set_config({"state": "ENABLED", "providers": {"totp": "ENABLED"}})
    user = libmfa.User("alice", email="alice@example.com", email_verified=True, auth_time=now)
    multi_factor = ctx.multi_factor(user)
    secret = GEN.generate_secret(multi_factor.session())
    app = libmfa.TOTP(libmfa.base32_decode(secret.shared_secret_key))
    info = multi_factor.enroll(GEN.assertion_for_enrollment(secret, app.at(now)), "Work phone")
    now += 30
    try:
        ctx.sign_in(user)
        raise AssertionError("the sign-in did not ask for the second factor")
    except libmfa.SecondFactorRequired as required:
        resolver = required.resolver
    assert [hint.uid for hint in resolver.hints] == [info.uid]
    result = resolver.resolve_sign_in(GEN.assertion_for_sign_in(info.uid, app.at(now)))
    assert (result.uid, result.factor_id) == ("alice", "totp"), result

print("libmfa %s from %s: TOTP enrolled and signed in" % (libmfa.version_string(), libmfa.library_path()))
