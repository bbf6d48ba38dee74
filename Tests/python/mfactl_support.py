"""Running mfactl as a subprocess against a fresh store, for the mfactl tests.

The program is ``$MFACTL`` if set, else ``build/mfactl`` (the CMake build),
else a SwiftPM build under ``Tools/mfactl/.build``. Without one the tests
are skipped, unless ``MFA_REQUIRE_MFACTL=1`` (scripts/test.sh sets it), when
they fail.
"""

import dataclasses
import json
import os
import pathlib
import subprocess
import uuid

import pytest

from shared import REPO

KEY1 = bytes(range(32))
KEY2 = bytes(range(100, 132))


def mfactl_path():
    candidates = [os.environ.get("MFACTL"), REPO / "build" / "mfactl",
                  REPO / "Tools" / "mfactl" / ".build" / "debug" / "mfactl",
                  REPO / "Tools" / "mfactl" / ".build" / "release" / "mfactl"]
    for candidate in candidates:
        if candidate and pathlib.Path(candidate).is_file():
            return str(candidate)
    if os.environ.get("MFA_REQUIRE_MFACTL") == "1":
        pytest.fail("mfactl is not built (build/mfactl)")
    pytest.skip("mfactl is not built")


def store_kinds():
    """sqlite always; postgres when the test command started a server."""
    return ["sqlite", "postgres"] if os.environ.get("MFA_TEST_POSTGRES_URL") else ["sqlite"]


def fresh_store(kind, tmp_path):
    """A new, empty store location of this kind."""
    if kind == "sqlite":
        return str(tmp_path / "store.sqlite")
    base = os.environ["MFA_TEST_POSTGRES_URL"]
    schema = "m_" + uuid.uuid4().hex
    subprocess.run(["psql", base, "-q", "-c", "CREATE SCHEMA %s" % schema], check=True, capture_output=True)
    return base + ("&" if "?" in base else "?") + "options=-csearch_path%3D" + schema


@dataclasses.dataclass
class Result:
    status: int
    out: str
    err: str

    def json_lines(self):
        return [json.loads(line) for line in self.out.splitlines() if line.startswith("{") or line.startswith("[")]


class Mfactl:
    """mfactl on one store, with key files for KEY1 (k1) and KEY2 (k2)."""

    def __init__(self, store, tmp_path):
        self.program = mfactl_path()
        self.store = store
        self.key1 = tmp_path / "k1.key"
        self.key1.write_text("k1:" + KEY1.hex() + "\n")
        self.key2 = tmp_path / "k2.key"
        self.key2.write_text("k2:" + KEY2.hex() + "\n")

    def env(self, extra=None):
        env = {key: value for key, value in os.environ.items() if not key.startswith("MFA_")}
        env["MFA_STORE"] = self.store
        env.update(extra or {})
        return env

    def run(self, *args, key=None, previous=(), env=None, check_status=None, timeout=600):
        """Runs mfactl with ``args`` and the given key files (key1 by default)."""
        command = [self.program] + [str(a) for a in args]
        if key is not False:
            command += ["--key-file", str(key or self.key1)]
            for path in previous:
                command += ["--previous-key-file", str(path)]
        done = subprocess.run(command, capture_output=True, text=True, env=self.env(env), timeout=timeout)
        result = Result(done.returncode, done.stdout, done.stderr)
        if check_status is not None:
            assert result.status == check_status, (command, result)
        return result

    def popen(self, *args, key=None, previous=()):
        command = [self.program] + [str(a) for a in args] + ["--key-file", str(key or self.key1)]
        for path in previous:
            command += ["--previous-key-file", str(path)]
        return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env=self.env())


def context(store, key_id="k1", key=KEY1, clock=None, previous_keys=None):
    """A libmfa.Context on the same store, for signing in with what mfactl imported."""
    import libmfa
    return libmfa.Context(store=store, master_key=key, key_id=key_id, clock=clock, previous_keys=previous_keys)


def sign_in(ctx, uid, code, tenant=None, now=None):
    """Signs ``uid`` in with the first factor, then with its only TOTP factor and ``code``."""
    import libmfa
    user = libmfa.User(uid=uid, tenant=tenant, email=uid + "@example.com", email_verified=True,
                       auth_time=now if now is not None else 1_700_000_000)
    try:
        ctx.sign_in(user)
    except libmfa.SecondFactorRequired as required:
        resolver = required.resolver
        hint = next(h for h in resolver.hints if h.factor_id == "totp")
        return resolver.resolve_sign_in(libmfa.TOTPMultiFactorGenerator.assertion_for_sign_in(hint.uid, code))
    raise AssertionError("%s has no second factor" % uid)


def oathtool(*args):
    """Runs oathtool (Debian's oathtool package) and returns its output's lines."""
    return subprocess.run(["oathtool"] + list(args), check=True, capture_output=True, text=True).stdout.split()
