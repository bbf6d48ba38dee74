"""Master keys and the PAM module (issue 45): a second server's key file made
apart is refused at open in plain words, by the module and by mfa-enroll,
before anything is read or written (key_mismatch); one key file, in every
form, read by the module, mfa-enroll and mfactl alike
(mfactl_reads_pam_key_file)."""

import os
import subprocess

from pam_harness import MFACTL, SERVICE_ERR, SUCCESS, totp

PLAIN_WORDS = "is not the master key this store was written with"


def raw_key_file(run, name, data=None):
    """A key file as the PAM guide makes it: head -c 32 /dev/urandom, root's, 0600."""
    path = run.dir / name
    path.write_bytes(data if data is not None else os.urandom(32))
    os.chmod(path, 0o600)
    return path


def test_key_mismatch_in_plain_words(run, syslog):
    """Issue 45 item 7: the PAM guide's key step run again on a second server makes another key
    under the same default id ("pam"): mfa-enroll and the module refuse it at open."""
    user = run.user()
    app = run.enroll(user)
    other = raw_key_file(run, "second-server.key")
    newcomer = run.user()
    status, out = run.mfa_enroll(f"store={run.store}", f"key_file={other}", "--no-qr", newcomer,
                                 input_text="000000\n")
    assert status == 1 and PLAIN_WORDS in out and "KEY_MISMATCH" in out and '"pam"' in out, out
    assert "Code from the app" not in out and "Key:" not in out, out
    status, out = run.mfa_enroll(f"store={run.store}", f"key_file={run.key_file}", "--list", newcomer)
    assert status == 0 and "no second factor" in out, out
    # The module: a set-up error, logged in the same words; the user's code is not used up.
    code = app.next_code()
    status, out, _ = run.pam(run.service([run.store_words(key_file=other)]), user, code)
    assert status != 0 and SERVICE_ERR in out, out
    log = syslog.text()
    assert PLAIN_WORDS in log and str(other) in log and "KEY_MISMATCH" in log, log
    status, out, _ = run.pam(run.service([run.store_words()]), user, code)
    assert status == 0 and SUCCESS in out, out


def test_module_mfa_enroll_and_mfactl_read_one_key_file(run):
    """Issue 45 item 9: the key file in each form (raw, "<hex>", "pam <hex>", "pam:<hex>" with
    CRLF) works with the module, mfa-enroll and mfactl alike."""
    key = bytes.fromhex(run.key_file.read_text().strip())
    user = run.user()
    app = run.enroll(user)
    forms = {
        "raw": raw_key_file(run, "form-raw.key", key),
        "hex": run.write_key(run.dir / "form-hex.key", 0o600, key.hex() + "\n"),
        "space": run.write_key(run.dir / "form-space.key", 0o600, "# the PAM key\npam " + key.hex() + "\n"),
        "colon": run.write_key(run.dir / "form-colon.key", 0o600, "pam:" + key.hex() + "\r\n"),
    }
    for name, path in forms.items():
        status, out, _ = run.pam(run.service([run.store_words(key_file=path)]), user, app.next_code())
        assert status == 0 and SUCCESS in out, (name, out)
        status, out = run.mfa_enroll(f"store={run.store}", f"key_file={path}", "--list", user)
        assert status == 0 and "totp" in out, (name, out)
        result = subprocess.run([str(MFACTL), "factors", "list", user, "--store", run.store, "--key-file",
                                 str(path), "--key-id", "pam"], capture_output=True, text=True, timeout=60)
        assert result.returncode == 0 and "totp" in result.stdout, (name, result)
    # An 8-digit factor imported with mfactl and the raw key file signs in through the module.
    eight = run.user()
    secret = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"
    result = subprocess.run([str(MFACTL), "import", "csv", "--store", run.store, "--key-file",
                             str(forms["raw"]), "--key-id", "pam", "-"],
                            input=f"{eight},{secret},Tokens,8\r\n", capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and "imported 1" in result.stdout, result
    step = app.step + 2
    code = totp(secret, step, 8)
    status, out, _ = run.pam(run.service([run.store_words()]), eight, code)
    assert status == 0 and SUCCESS in out, out
