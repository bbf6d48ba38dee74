"""The master key in an HSM and the PAM module (issue 52): pam_mfa.so and
mfa-enroll take hsm_module=, hsm_token= (or hsm_slot=), hsm_key= and
hsm_pin_file= instead of key_file=, on a SoftHSM2 token the test makes.
mfa-enroll enrolls through the HSM, pamtester signs in with oathtool's code
and is refused a wrong one, mfactl reads the same store with the same
options (hsm_login); a wrong PIN is a logged key-provider error and
PAM_AUTHINFO_UNAVAIL with no PIN in the log (hsm_wrong_pin); a PIN file
others can read, and each bad combination of words, is PAM_SERVICE_ERR
(hsm_bad_set_up)."""

import os
import subprocess
import sys
import uuid

import pytest

from pam_harness import AUTH_ERR, AUTHINFO_UNAVAIL, MFACTL, REPO, SERVICE_ERR, SUCCESS, other_code

sys.path.insert(0, str(REPO / "Tests" / "python"))
from hsm_support import PIN, shared_hsm  # noqa: E402


@pytest.fixture(scope="module")
def hsm(tmp_path_factory):
    return shared_hsm(tmp_path_factory)


def hsm_store(run, hsm, token=None, pin_file=None, slot=False):
    """A new store path, a new AES key in the token, and the module's words for them."""
    token = token or hsm.token
    key = "kek-" + uuid.uuid4().hex[:8]
    hsm.new_key(token, key)
    folder = run.dir / ("hsm-" + key)
    folder.mkdir(mode=0o700)
    words = [f"hsm_module={hsm.module}", f"hsm_key={key}", f"hsm_pin_file={pin_file or hsm.pin_file}"]
    words.append(f"hsm_slot={slot}" if slot is not False else f"hsm_token={token}")
    return str(folder / "pam.sqlite"), key, words


def test_hsm_login(run, hsm):
    store, key, words = hsm_store(run, hsm)
    user = run.user()
    app = run.enroll(user, "--no-qr", store=store, key_words=words)
    service = run.service([f"store={store} " + " ".join(words)])
    code = app.next_code()
    status, out, _ = run.pam(service, user, other_code(code))
    assert status != 0 and AUTH_ERR in out, out
    status, out, _ = run.pam(service, user, code)
    assert status == 0 and SUCCESS in out, out
    # The same options in mfa-enroll --list and mfactl's --hsm-* options read the same store.
    status, out = run.mfa_enroll(f"store={store}", *words, "--list", user)
    assert status == 0 and "totp" in out, out
    done = subprocess.run([str(MFACTL), "factors", "list", user, "--store", store, "--hsm-module", hsm.module,
                           "--hsm-token", hsm.token, "--hsm-key", key, "--hsm-pin-file", str(hsm.pin_file)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "totp" in done.stdout, done
    # Without the HSM the store is sealed: the run's key file cannot open it.
    status, out, _ = run.pam(run.service([run.store_words(store=store)]), user, app.next_code())
    assert status != 0 and SUCCESS not in out, out


def test_hsm_by_slot(run, hsm):
    """hsm_slot= names the token by its slot id (pkcs11-tool --list-slots)."""
    listing = hsm.run("pkcs11-tool", "--module", hsm.module, "--list-slots")
    slot = None
    for block in listing.split("Slot ")[1:]:
        if f"token label        : {hsm.token}" in block:
            slot = int(block.split("(0x")[1].split(")")[0], 16)
    assert slot is not None, listing
    store, _, words = hsm_store(run, hsm, slot=slot)
    user = run.user()
    app = run.enroll(user, "--no-qr", store=store, key_words=words)
    status, out, _ = run.pam(run.service([f"store={store} " + " ".join(words)]), user, app.next_code())
    assert status == 0 and SUCCESS in out, out


def test_hsm_wrong_pin(run, hsm, syslog):
    token = hsm.new_token()
    store, _, words = hsm_store(run, hsm, token=token)
    user = run.user()
    app = run.enroll(user, "--no-qr", store=store, key_words=words)
    wrong = run.dir / "wrong.pin"
    wrong.write_text("86420975\n")
    os.chmod(wrong, 0o600)
    bad = [w if not w.startswith("hsm_pin_file=") else f"hsm_pin_file={wrong}" for w in words]
    status, out, _ = run.pam(run.service([f"store={store} " + " ".join(bad)]), user, app.next_code())
    assert status != 0 and AUTHINFO_UNAVAIL in out, out
    log = syslog.text()
    assert "KEY_PROVIDER_LOGIN" in log and token in log, log
    assert "86420975" not in log and PIN not in log, log
    status, out = run.mfa_enroll(f"store={store}", *bad, "--list", user)
    assert status != 0 and "KEY_PROVIDER_LOGIN" in out and "86420975" not in out, out


def test_hsm_bad_set_up(run, hsm):
    store, key, words = hsm_store(run, hsm)
    user = run.user()
    run.enroll(user, "--no-qr", store=store, key_words=words)
    loose = run.dir / "loose.pin"
    loose.write_text(PIN + "\n")
    os.chmod(loose, 0o644)
    module, token = f"hsm_module={hsm.module}", f"hsm_token={hsm.token}"
    cases = {
        "pin file others read": ([w if not w.startswith("hsm_pin_file=") else f"hsm_pin_file={loose}"
                                  for w in words], "root's alone"),
        "key file too": (words + [f"key_file={run.key_file}"], "exclude each other"),
        "no key label": ([module, token, f"hsm_pin_file={hsm.pin_file}"], "needs hsm_key="),
        "token and slot": (words + ["hsm_slot=0"], "one of hsm_token= or hsm_slot="),
        "no module": ([token, f"hsm_key={key}", f"hsm_pin_file={hsm.pin_file}", f"key_file={run.key_file}"],
                      "need hsm_module="),
        "relative module": (["hsm_module=libsofthsm2.so"] + words[1:], "absolute file path"),
        "bad slot": ([module, f"hsm_key={key}", f"hsm_pin_file={hsm.pin_file}", "hsm_slot=0x1"],
                     "decimal slot id"),
        "empty key": ([module, token, "hsm_key=", f"hsm_pin_file={hsm.pin_file}"], "needs a value"),
    }
    for name, (bad, reason) in cases.items():
        status, out, _ = run.pam(run.service([f"store={store} " + " ".join(bad)]), user, "123456")
        assert status != 0 and SERVICE_ERR in out, (name, out)
        status, out = run.mfa_enroll(f"store={store}", *bad, "--list", user)
        assert status != 0 and reason in out and PIN not in out, (name, out)
