"""A SoftHSM2 token for the HSM tests, made by the test itself.

Debian's softhsm2 (softhsm2-util, libsofthsm2.so) holds the tokens in a
directory of the test's own (SOFTHSM2_CONF names a configuration pointing
there), and OpenSC's pkcs11-tool creates and deletes the AES keys, as an
operator would. SoftHSM2 reads its configuration once per process, so the
whole test module shares one directory; each test makes its own token.
"""

import os
import pathlib
import shutil
import subprocess
import time
import uuid

import pytest

MODULE_CANDIDATES = ("/usr/lib/softhsm/libsofthsm2.so", "/usr/lib/x86_64-linux-gnu/softhsm/libsofthsm2.so",
                     "/usr/lib/aarch64-linux-gnu/softhsm/libsofthsm2.so")
PIN = "246810"
SO_PIN = "13579111"


def module_path():
    for candidate in MODULE_CANDIDATES:
        if os.path.isfile(candidate):
            return candidate
    if os.environ.get("CI") == "true" or os.environ.get("MFA_REQUIRE_MFACTL") == "1":
        pytest.fail("SoftHSM2 is not installed (scripts/setup.sh installs softhsm2 and opensc)")
    pytest.skip("SoftHSM2 is not installed (scripts/setup.sh installs softhsm2 and opensc)")


class SoftHSM:
    """A SoftHSM2 token directory, its configuration, and the tools on it."""

    def __init__(self, root):
        self.root = pathlib.Path(root)
        self.module = module_path()
        for tool in ("softhsm2-util", "pkcs11-tool"):
            if shutil.which(tool) is None:
                pytest.fail("%s is missing (scripts/setup.sh installs softhsm2 and opensc)" % tool)
        (self.root / "tokens").mkdir(parents=True, exist_ok=True)
        self.conf = self.root / "softhsm2.conf"
        self.conf.write_text("directories.tokendir = %s\nobjectstore.backend = file\nlog.level = ERROR\n"
                             % (self.root / "tokens"))
        self.pin_file = self.root / "pin"
        self.pin_file.write_text(PIN + "\n")
        self.pin_file.chmod(0o600)

    def env(self, extra=None):
        env = dict(os.environ)
        env["SOFTHSM2_CONF"] = str(self.conf)
        env.update(extra or {})
        return env

    def run(self, *args):
        # SoftHSM2 skips a token whose files another process is writing at
        # that moment (a login by the load test's workers): a tool that
        # finds no token tries again.
        for attempt in range(20):
            done = subprocess.run([str(a) for a in args], capture_output=True, text=True, env=self.env(),
                                  timeout=120)
            if done.returncode == 0 or "No slot with token" not in done.stderr:
                break
            time.sleep(0.05)
        assert done.returncode == 0, (args, done.stdout, done.stderr)
        return done.stdout

    def new_token(self):
        """A new token with a unique label, initialised with PIN and SO_PIN."""
        label = "t" + uuid.uuid4().hex[:12]
        self.run("softhsm2-util", "--init-token", "--free", "--label", label, "--so-pin", SO_PIN, "--pin", PIN)
        return label

    def tool(self, token, *args):
        return self.run("pkcs11-tool", "--module", self.module, "--token-label", token, "--login", "--pin", PIN,
                        *args)

    def new_key(self, token, label):
        """An AES-256 secret key labelled ``label`` in ``token`` (pkcs11-tool --keygen)."""
        self.tool(token, "--keygen", "--key-type", "AES:32", "--label", label)

    def delete_key(self, token, label):
        self.tool(token, "--delete-object", "--type", "secrkey", "--label", label)

    def options(self, token, key, **extra):
        """libmfa.Context keyword arguments for this token and key, the PIN from the file."""
        options = {"hsm_module": self.module, "hsm_token": token, "hsm_key": key, "hsm_pin_file": str(self.pin_file)}
        options.update(extra)
        return options


_SHARED = {}


def shared_hsm(tmp_path_factory):
    """The session's SoftHSM2 directory, with one token made before any test
    loads the module in this process (SOFTHSM2_CONF set for it here)."""
    if "hsm" not in _SHARED:
        hsm = SoftHSM(tmp_path_factory.mktemp("softhsm"))
        os.environ["SOFTHSM2_CONF"] = str(hsm.conf)
        hsm.token = hsm.new_token()
        _SHARED["hsm"] = hsm
    return _SHARED["hsm"]
