"""pam_mfa.so through Debian's pamtester, as an operator would try it: PAM
service files in /etc/pam.d written by the test, users added with useradd,
authenticator apps enrolled with mfa-enroll, codes computed by oathtool."""

import base64
import os
import sqlite3
import subprocess

import pytest

from pam_harness import (AUTH_ERR, AUTHINFO_UNAVAIL, MAXTRIES, SERVICE_ERR, SUCCESS, USER_UNKNOWN, now_step,
                         other_code, totp)


@pytest.fixture(scope="module")
def alice(run):
    """A user with an authenticator app and recovery codes, and the plain service."""
    user = run.user()
    app = run.enroll(user)
    return user, app, run.service([run.store_words()])


def test_enroll_shows_qr_key_and_recovery_codes(run, alice):
    user, app, _ = alice
    assert "Scan this QR code" in app.output and "\u2580" in app.output  # half blocks
    assert "otpauth://totp/" in app.output and f"secret={app.secret}" in app.output
    assert "turned MFA on" in app.output and "turned TOTP on" in app.output
    assert "turned recovery codes on" in app.output
    assert len(app.recovery_codes) == 10
    status, out = run.mfa_enroll(f"store={run.store}", f"key_file={run.key_file}", "--list", user)
    assert status == 0 and "totp" in out and "10 codes left" in out


def test_right_code_passes(run, alice):
    user, app, service = alice
    status, out, _ = run.pam(service, user, app.next_code())
    assert status == 0 and SUCCESS in out, out
    assert "Verification code: " in out


def test_replayed_code_refused(run, alice):
    user, app, service = alice
    code = app.next_code()
    assert run.pam(service, user, code)[0] == 0
    status, out, _ = run.pam(service, user, code)
    assert status != 0 and AUTH_ERR in out, out
    # An older step than the last accepted one is refused too (RFC 6238 section 5.2).
    status, out, _ = run.pam(service, user, totp(app.secret, app.step - 1))
    assert status != 0 and AUTH_ERR in out, out


def test_wrong_code_refused(run):
    # In a tenant with room for many failures before backoff.
    run.configure('{"totp": {"adjacentIntervals": 10}, "limits": {"freeAttempts": 100}}', tenant="many")
    user = run.user()
    app = run.enroll(user, "tenant=many")
    service = run.service([run.store_words() + " tenant=many"])
    bad = [other_code(totp(app.secret, app.step + 1)), "", "abc", "12345", "123456789", "1234567a",
           "\u00e9" * 6, "1" * 5000, b"\xff\xfe123456", "abcd-efgh-jk", "12345\t6"]
    for typed in bad:
        status, out, _ = run.pam(service, user, typed)
        assert status != 0 and AUTH_ERR in out, (typed[:20], out)
    # Spaces inside a code are forgiven.
    code = app.next_code()
    assert run.pam(service, user, code[:3] + " " + code[3:])[0] == 0


def test_recovery_code_passes_once(run, alice):
    user, app, service = alice
    code = app.recovery_codes.pop()
    status, out, _ = run.pam(service, user, code.upper())
    assert status == 0 and "recovery code: 9 left" in out, out
    status, out, _ = run.pam(service, user, code)
    assert status != 0 and AUTH_ERR in out, out


def test_backoff_after_repeated_failures(run):
    user = run.user()
    app = run.enroll(user, "--no-recovery-codes")
    service = run.service([run.store_words()])
    code = app.next_code()
    for _ in range(4):  # freeAttempts 3: the fourth failure starts a 10 minute backoff
        status, out, _ = run.pam(service, user, other_code(code))
        assert status != 0 and AUTH_ERR in out, out
    status, out, _ = run.pam(service, user, code)
    assert status != 0 and MAXTRIES in out and "Too many failed attempts" in out, out


def test_nullok_and_its_absence(run, alice):
    nobody = run.user()  # a local user with no second factor
    strict = run.service([run.store_words()])
    lenient = run.service([run.store_words() + " nullok"])
    status, out, _ = run.pam(strict, nobody, "")
    assert status != 0 and AUTH_ERR in out and "Verification code" not in out, out
    status, out, _ = run.pam(lenient, nobody, "")
    assert status == 0 and SUCCESS in out and "Verification code" not in out, out
    # A name libmfa has never seen has no factor either: not USER_UNKNOWN.
    status, out, _ = run.pam(strict, "no-such-user-anywhere", "")
    assert AUTH_ERR in out, out
    # nullok never lets a user with a factor skip it.
    user, app, _ = alice
    status, out, _ = run.pam(lenient, user, other_code(totp(app.secret, app.step + 1)))
    assert status != 0 and AUTH_ERR in out, out


def test_forward_pass_password_and_code_on_one_line(run):
    password = "s3cret-pw-12"  # ends in digits, like many passwords
    user = run.user(password=password)
    app = run.enroll(user)
    service = run.service([run.store_words() + " forward_pass"],
                          after=["auth required pam_unix.so use_first_pass"])
    status, out, _ = run.pam(service, user, password + app.next_code())
    assert status == 0 and SUCCESS in out and "Password & verification code: " in out, out
    # The wrong password with a right code fails at pam_unix; a right password with a wrong code here.
    assert run.pam(service, user, "not-the-pw" + app.next_code())[0] != 0
    assert run.pam(service, user, password + other_code(totp(app.secret, app.step + 1)))[0] != 0
    # A recovery code, with its dashes, after the password.
    status, out, _ = run.pam(service, user, password + app.recovery_codes[0])
    assert status == 0, out
    # A user with no factor under nullok: the whole line is the password.
    plain = run.user(password=password)
    lenient = run.service([run.store_words() + " forward_pass nullok"],
                          after=["auth required pam_unix.so use_first_pass"])
    assert run.pam(lenient, plain, password)[0] == 0
    assert run.pam(lenient, plain, password + "123456")[0] != 0


def test_forward_pass_with_eight_digit_codes(run):
    password = "pw-ending-in-4321"
    user = run.user(password=password)
    secret = base64.b32encode(os.urandom(20)).decode().rstrip("=")
    run.import_totp(user, secret, digits=8)
    step = now_step()
    after = ["auth required pam_unix.so use_first_pass"]
    eight = run.service([run.store_words() + " forward_pass digits=8"], after=after)
    six = run.service([run.store_words() + " forward_pass"], after=after)
    # Without digits=8 the module takes the last 6 digits as the code: refused.
    status, out, _ = run.pam(six, user, password + totp(secret, step, 8))
    assert status != 0 and AUTH_ERR in out, out
    status, out, _ = run.pam(eight, user, password + totp(secret, step + 1, 8))
    assert status == 0 and SUCCESS in out, out
    # The password is what comes before the 8 digits: a wrong one fails at pam_unix.
    assert run.pam(eight, user, password[:-1] + totp(secret, step + 2, 8))[0] != 0
    # The plain prompt takes the 8 digits without the option.
    status, out, _ = run.pam(run.service([run.store_words()]), user, totp(secret, step + 3, 8))
    assert status == 0 and SUCCESS in out, out


def test_prompt_option(run, alice):
    user, app, _ = alice
    service = run.service([f"{run.store_words()} [prompt=Code from your phone: ]"])
    status, out, _ = run.pam(service, user, app.next_code())
    assert status == 0 and "Code from your phone: " in out, out


def test_tenant_option(run, alice):
    user, app, _ = alice
    # alice's factor is the project's; in tenant "branch" she has none.
    service = run.service([run.store_words() + " tenant=branch nullok"])
    assert run.pam(service, user, "")[0] == 0
    # A MANDATORY configuration makes every user enroll: nullok does not override it.
    run.configure('{"state": "MANDATORY", "providers": {"totp": "ENABLED"}}', tenant="strict")
    service = run.service([run.store_words() + " tenant=strict nullok"])
    status, out, _ = run.pam(service, user, "")
    assert status != 0 and AUTH_ERR in out, out
    tenant_user = run.user()
    tenant_app = run.enroll(tenant_user, "tenant=strict")
    assert run.pam(service, tenant_user, tenant_app.next_code())[0] == 0


def test_user_name_libmfa_cannot_hold_is_unknown(run):
    service = run.service([run.store_words() + " nullok"])
    status, out, _ = run.pam(service, "u" * 200, "")
    assert status != 0 and USER_UNKNOWN in out, out


def test_key_file_must_be_root_only(run, alice):
    user, app, _ = alice
    key = run.key_file.read_text()
    cases = {}
    for mode in (0o640, 0o604, 0o644, 0o660):
        cases[f"mode {mode:o}"] = run.write_key(run.dir / f"key-{mode:o}", mode, key)
    owned = run.write_key(run.dir / "key-owned", 0o600, key)
    os.chown(owned, 65534, 65534)
    cases["owned by nobody"] = owned
    link = run.dir / "key-link"
    link.symlink_to(run.key_file)
    cases["symlink"] = link
    cases["missing"] = run.dir / "no-such-key"
    cases["directory"] = run.dir
    cases["empty"] = run.write_key(run.dir / "key-empty", 0o600, "")
    cases["short hex"] = run.write_key(run.dir / "key-short", 0o600, key.strip()[:-2] + "\n")
    cases["not hex"] = run.write_key(run.dir / "key-nothex", 0o600, "g" * 64 + "\n")
    cases["same id twice"] = run.write_key(run.dir / "key-dup", 0o600, f"a {key.strip()}\na {key.strip()}\n")
    for what, path in cases.items():
        service = run.service([run.store_words(key_file=path) + " nullok"])
        status, out, _ = run.pam(service, user, totp(app.secret, app.step + 1))
        assert status != 0 and SERVICE_ERR in out, (what, out)
    # A wrong key (root-only, well formed) under the store's key id: KEY_MISMATCH at open, a set-up
    # error (test_pamtester_keys.py has the rest).
    wrong = run.write_key(run.dir / "key-wrong", 0o600)
    service = run.service([run.store_words(key_file=wrong)])
    status, out, _ = run.pam(service, user, totp(app.secret, app.step + 1))
    assert status != 0 and SERVICE_ERR in out, out
    # The same key as raw bytes, 0400, and as "id hex" with an earlier key after it, all work.
    raw = run.dir / "key-raw"
    raw.write_bytes(bytes.fromhex(key.strip()))
    os.chmod(raw, 0o400)
    rotated = run.write_key(run.dir / "key-rotated", 0o600,
                            f"# rotated\nnew {os.urandom(32).hex()}\n\n{key.strip()}\n")
    for path in (raw, rotated):
        service = run.service([run.store_words(key_file=path)])
        status, out, _ = run.pam(service, user, app.next_code())
        assert status == 0, (path.name, out)


def test_store_must_be_root_only(run, alice):
    user, app, _ = alice
    folder = run.dir / "open-store"
    folder.mkdir(mode=0o777)
    os.chmod(folder, 0o777)
    service = run.service([run.store_words(store=folder / "pam.sqlite") + " nullok"])
    status, out, _ = run.pam(service, user, "")
    assert status != 0 and SERVICE_ERR in out, out


def test_bad_options_refused(run, alice):
    user, app, _ = alice
    for words in ("nulok", "store=relative/path.sqlite", "key_file=relative", "store=", "prompt=",
                  "key_id=", "tenant=" + "t" * 129, "debug=1", "digits=5", "digits=9", "digits=",
                  "digits=08", "digits=8x", "digits=six"):
        service = run.service([f"{run.store_words()} {words}"])
        status, out, _ = run.pam(service, user, totp(app.secret, app.step + 1))
        assert status != 0 and SERVICE_ERR in out, (words, out)


def test_debug_logs_without_secrets(run, syslog):
    password = "Pw-for-the-log-77"
    user = run.user(password=password)
    app = run.enroll(user)
    service = run.service([run.store_words() + " debug forward_pass"],
                          after=["auth required pam_unix.so use_first_pass"])
    right, wrong = app.next_code(), other_code(totp(app.secret, app.step + 1))
    assert run.pam(service, user, password + wrong)[0] != 0
    assert run.pam(service, user, password + right)[0] == 0
    log = syslog.text()
    assert "pam_mfa" in log and f"user {user}" in log, log
    assert "INVALID_VERIFICATION_CODE" in log and "second factor accepted" in log, log
    key_hex = run.key_file.read_text().strip()
    for secret in (right, wrong, password, app.secret, key_hex, app.recovery_codes[0]):
        assert secret not in log, "a secret reached the log"


def test_enroll_command_refuses_bad_input(run):
    status, out = run.mfa_enroll(f"store={run.store}", f"key_file={run.key_file}", "no-such-local-user")
    assert status == 1 and "no local user" in out
    status, out = run.mfa_enroll("--bogus", "root")
    assert status == 2 and "unknown option" in out
    status, out = run.mfa_enroll(f"store={run.store}", f"key_file={run.key_file}", "prompt=x", "root")
    assert status == 2 and "unknown option" in out
    status, out = run.mfa_enroll()
    assert status == 2 and "usage" in out
    status, out = run.mfa_enroll(f"store={run.store}", f"key_file={run.key_file}", "--config={bad json")
    assert status == 1 and "INVALID_ARGUMENT" in out
    loose = run.write_key(run.dir / "enroll-key-loose", 0o644)
    status, out = run.mfa_enroll(f"store={run.store}", f"key_file={loose}", "root")
    assert status == 1 and "mode 0600" in out
    # No code typed (end of input): nothing is enrolled.
    user = run.user()
    status, out = run.mfa_enroll(f"store={run.store}", f"key_file={run.key_file}", "--no-qr", user)
    assert status == 1 and "nothing enrolled" in out and "Scan" not in out
    status, out = run.mfa_enroll(f"store={run.store}", f"key_file={run.key_file}", "--list", user)
    assert "no second factor" in out
    # Three wrong codes: nothing is enrolled.
    status, out = run.mfa_enroll(f"store={run.store}", f"key_file={run.key_file}", user,
                                 input_text="000000\n111111\nabc\n")
    assert status == 1 and out.count("That code is wrong") >= 2


def test_enroll_again_replaces_the_app_and_remove(run):
    user = run.user()
    first = run.enroll(user)
    second = run.enroll(user)
    assert "Removed 1 earlier authenticator app" in second.output
    service = run.service([run.store_words()])
    first.step = second.step
    status, out, _ = run.pam(service, user, first.next_code())
    assert status != 0, out
    assert run.pam(service, user, second.next_code())[0] == 0
    # The old recovery codes were replaced by the new set.
    assert run.pam(service, user, first.recovery_codes[0])[0] != 0
    status, out = run.mfa_enroll(f"store={run.store}", f"key_file={run.key_file}", "--remove", user)
    assert status == 0 and "Removed 2 second factors" in out, out
    assert run.pam(run.service([run.store_words() + " nullok"]), user, "")[0] == 0


def test_module_clean_under_valgrind(run):
    """Every path of the module once under valgrind: no memory error, no leak."""
    password = "vg-password"
    user = run.user(password=password)
    app = run.enroll(user)
    plain = run.service([run.store_words()])
    forward = run.service([run.store_words() + " forward_pass debug"],
                          after=["auth required pam_unix.so use_first_pass"])
    lenient = run.service([run.store_words() + " nullok"])
    bad_key = run.service([run.store_words(key_file=run.dir / "missing-key")])
    code = app.next_code()
    cases = [
        (plain, user, code, 0),                              # right code
        (plain, user, code, 1),                              # replay
        (plain, user, other_code(code), 1),                  # wrong code
        (plain, user, app.recovery_codes[0], 0),             # recovery code
        (forward, user, password + app.next_code(), 0),      # forward_pass
        (lenient, run.user(), "", 0),                        # nullok
        (plain, run.user(), "", 1),                          # no factor
        (bad_key, user, "", 1),                              # key file missing
        (lenient, "u" * 200, "", 1),                         # user unknown
    ]
    for service, name, typed, expected in cases:
        status, out, _ = run.pam(service, name, typed, valgrind=True, timeout=120)
        assert status == expected, (name[:20], typed, out)
        assert "==" not in out, out  # valgrind -q prints only errors and leaks


def test_no_answer_is_a_conversation_error(run, alice):
    user, _, service = alice
    result = subprocess.run(["pamtester", service, user, "authenticate"], stdin=subprocess.DEVNULL,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode != 0 and "Conversation error" in result.stdout + result.stderr, result


def test_locked_sqlite_store_is_authinfo_unavail(run):
    """Another process holds the SQLite store's write lock (a stuck writer): the check
    fails after libmfa's busy timeout (10 s) with PAM_AUTHINFO_UNAVAIL, never hangs."""
    user = run.user()
    app = run.enroll(user)
    service = run.service([run.store_words()])
    holder = sqlite3.connect(run.store, timeout=1, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        code = app.next_code()
        status, out, seconds = run.pam(service, user, code, timeout=60)
        assert status != 0 and AUTHINFO_UNAVAIL in out, out
        assert seconds < 20, f"{seconds:.1f} s"
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert run.pam(service, user, code)[0] == 0  # nothing was used up
