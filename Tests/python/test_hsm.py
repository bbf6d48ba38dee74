"""The master key in an HSM (issue 52): the store's data keys wrapped by an
AES key in a SoftHSM2 token, created by the test with softhsm2-util and
pkcs11-tool. Open with the HSM, enroll and sign in (pyotp and oathtool
codes), reopen in a new process; a wrong PIN, a missing key label, a
missing module or token, a key deleted from the token after wrapping and a
key replaced under the same label are each a named error at open, with no
PIN in any message; the HSM key rotated (re-wrap) while two processes sign
in in a loop, nothing lost."""

import pathlib
import sqlite3
import subprocess
import sys
import textwrap
import time
import uuid

import pyotp
import pytest

import libmfa
from hsm_support import PIN, shared_hsm
from mfactl_support import oathtool, sign_in
from shared import REPO

SECRET = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"
T0 = 1_800_000_000


@pytest.fixture(scope="module")
def hsm(tmp_path_factory):
    return shared_hsm(tmp_path_factory)


def new_label(prefix="kek"):
    return "%s-%s" % (prefix, uuid.uuid4().hex[:8])


def clock_at(box):
    return lambda: box[0]


def seed(store, hsm, key, users=("alice",), now=T0):
    """A store opened with the HSM, with a TOTP factor (SECRET) per user imported."""
    with libmfa.Context(store=store, clock=lambda: now, **hsm.options(hsm.token, key)) as ctx:
        text = "".join("otpauth://totp/%s?secret=%s\n" % (uid, SECRET) for uid in users)
        assert ctx.admin("setup").import_factors(text, "otpauth").imported == len(users)


def wrapped_rows(store):
    with sqlite3.connect(store) as db:
        return db.execute("SELECT key_id, provider, wrapping_label, length(wrapped), is_current FROM mfa_data_keys"
                          ).fetchall()


def run_python(hsm, code, *args):
    """Runs ``code`` in a new Python process with the library and SOFTHSM2_CONF."""
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)] + [str(a) for a in args],
                          capture_output=True, text=True, env=hsm.env({"PYTHONPATH": str(REPO / "python")}),
                          timeout=120)


def test_open_enroll_sign_in_reopen_in_new_process(hsm, tmp_path):
    key = new_label()
    hsm.new_key(hsm.token, key)
    store = str(tmp_path / "s.sqlite")
    box = [T0]
    with libmfa.Context(store=store, clock=clock_at(box), **hsm.options(hsm.token, key)) as ctx:
        ctx.set_config({"state": "ENABLED", "providers": {"totp": "ENABLED"}})
        user = libmfa.User(uid="alice", email="alice@example.com", email_verified=True, auth_time=T0)
        secret = libmfa.TOTPMultiFactorGenerator.generate_secret(ctx.multi_factor(user).session())
        code = pyotp.TOTP(secret.shared_secret_key).at(T0)
        ctx.multi_factor(user).enroll(
            libmfa.TOTPMultiFactorGenerator.assertion_for_enrollment(secret, code), "phone app")
        box[0] = T0 + 30
        assert sign_in(ctx, "alice", pyotp.TOTP(secret.shared_secret_key).at(T0 + 30), now=T0 + 30).factor_id == "totp"
    # One data key, wrapped by the token's key, bytes that are no 32-byte key.
    rows = wrapped_rows(store)
    assert [(r[0], r[1], r[2], r[4]) for r in rows] == [("dk-1", "pkcs11", key, 1)]
    assert rows[0][3] == 1 + 12 + 32 + 16
    # A new process opens the store with the HSM and signs in with oathtool's code.
    at = T0 + 90
    code = oathtool("--totp", "-b", "--now", time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(at)),
                    secret.shared_secret_key)[0]
    done = run_python(hsm, """
        import sys, libmfa
        sys.path.insert(0, sys.argv[6])
        from mfactl_support import sign_in
        store, module, token, key, pin_file, tests, code, at = sys.argv[1:9]
        with libmfa.Context(store=store, clock=lambda: int(at), hsm_module=module, hsm_token=token, hsm_key=key,
                            hsm_pin_file=pin_file) as ctx:
            print(sign_in(ctx, "alice", code, now=int(at)).factor_id)
        """, store, hsm.module, hsm.token, key, hsm.pin_file, REPO / "Tests" / "python", code, at)
    assert done.returncode == 0 and done.stdout.strip() == "totp", done


def test_pin_from_the_environment(hsm, tmp_path, monkeypatch):
    key = new_label()
    hsm.new_key(hsm.token, key)
    monkeypatch.setenv("MFA_TEST_HSM_PIN", PIN)
    store = str(tmp_path / "s.sqlite")
    options = hsm.options(hsm.token, key, hsm_pin_file=None, hsm_pin_env="MFA_TEST_HSM_PIN")
    with libmfa.Context(store=store, **options):
        pass
    monkeypatch.delenv("MFA_TEST_HSM_PIN")
    with pytest.raises(libmfa.InvalidArgumentError, match="MFA_TEST_HSM_PIN"):
        libmfa.Context(store=store, **options)


def test_wrong_pin_is_named_and_not_shown(hsm, tmp_path):
    key = new_label()
    hsm.new_key(hsm.token, key)
    store = str(tmp_path / "s.sqlite")
    seed(store, hsm, key)
    for options in (hsm.options(hsm.token, key, hsm_pin_file=None, hsm_pin="97531864"),
                    hsm.options(hsm.token, key, hsm_pin_file=str(tmp_path / "bad-pin"))):
        (tmp_path / "bad-pin").write_text("86420975\n")
        with pytest.raises(libmfa.KeyProviderLoginError) as caught:
            libmfa.Context(store=store, **options)
        assert caught.value.status == libmfa.Status.KEY_PROVIDER_LOGIN
        message = str(caught.value)
        assert "CKR_PIN_INCORRECT" in message and hsm.token in message
        assert "97531864" not in message and "86420975" not in message and PIN not in message


def test_missing_key_label_module_and_token(hsm, tmp_path):
    store = str(tmp_path / "s.sqlite")
    missing = new_label("absent")
    with pytest.raises(libmfa.KeyProviderKeyNotFoundError, match=missing):
        libmfa.Context(store=store, **hsm.options(hsm.token, missing))
    with pytest.raises(libmfa.KeyProviderUnavailableError, match="/nonexistent/libpkcs11.so"):
        libmfa.Context(store=store, **hsm.options(hsm.token, missing, hsm_module="/nonexistent/libpkcs11.so"))
    with pytest.raises(libmfa.KeyProviderUnavailableError, match="no token \"nosuchtoken\" in"):
        libmfa.Context(store=store, **hsm.options("nosuchtoken", missing))
    # A library that is not a PKCS#11 module.
    with pytest.raises(libmfa.KeyProviderUnavailableError, match="not a PKCS#11 module"):
        libmfa.Context(store=store, **hsm.options(hsm.token, missing, hsm_module="libz.so.1"))
    # Nothing was written: no data key was made for a failed open.
    assert wrapped_rows(store) == []


def test_bad_hsm_arguments(hsm, tmp_path):
    store = str(tmp_path / "s.sqlite")
    options = hsm.options(hsm.token, "k")
    with pytest.raises(libmfa.InvalidArgumentError, match="not both"):
        libmfa.Context(store=store, master_key=bytes(32), **options)
    with pytest.raises(libmfa.InvalidArgumentError, match="one of"):
        libmfa.Context(store=store, **dict(options, hsm_pin="1"))
    with pytest.raises(libmfa.InvalidArgumentError, match="hsm_token or options->hsm_slot"):
        libmfa.Context(store=store, **dict(options, hsm_token=None))
    with pytest.raises(libmfa.InvalidArgumentError, match="PIN file"):
        libmfa.Context(store=store, **dict(options, hsm_pin_file=str(tmp_path / "none")))
    with pytest.raises(libmfa.InvalidArgumentError, match="needs hsm_module"):
        libmfa.Context(store=store, master_key=bytes(32), hsm_key="k")
    with pytest.raises(libmfa.InvalidArgumentError, match="key label"):
        libmfa.Context(store=store, **dict(options, hsm_key="a\nb"))


def test_store_sealed_under_a_file_key_is_not_taken_over(hsm, tmp_path):
    key = new_label()
    hsm.new_key(hsm.token, key)
    store = str(tmp_path / "s.sqlite")
    with libmfa.Context(store=store, master_key=bytes(range(32)), key_id="file") as ctx:
        ctx.admin("setup").import_factors("otpauth://totp/alice?secret=%s\n" % SECRET, "otpauth")
    with pytest.raises(libmfa.KeyMismatchError, match="sealed under master keys"):
        libmfa.Context(store=store, **hsm.options(hsm.token, key))


def test_deleted_then_replaced_key_is_detected(hsm, tmp_path):
    key = new_label()
    hsm.new_key(hsm.token, key)
    store = str(tmp_path / "s.sqlite")
    seed(store, hsm, key)
    hsm.delete_key(hsm.token, key)
    # In this process and in a new one: the key the store is wrapped with is gone.
    with pytest.raises(libmfa.KeyProviderKeyNotFoundError, match=key):
        libmfa.Context(store=store, **hsm.options(hsm.token, key))
    done = run_python(hsm, """
        import sys, libmfa
        try:
            libmfa.Context(store=sys.argv[1], hsm_module=sys.argv[2], hsm_token=sys.argv[3], hsm_key=sys.argv[4],
                           hsm_pin_file=sys.argv[5])
        except libmfa.MFAError as error:
            print(error.name)
        """, store, hsm.module, hsm.token, key, hsm.pin_file)
    assert done.stdout.strip() == "KEY_PROVIDER_KEY_NOT_FOUND", done
    # Another key made under the same label does not unwrap what the first wrapped.
    hsm.new_key(hsm.token, key)
    with pytest.raises(libmfa.KeyMismatchError, match="replaced"):
        libmfa.Context(store=store, **hsm.options(hsm.token, key))


WORKER = """
import pathlib, sys, time
import libmfa
sys.path.insert(0, sys.argv[7])
from mfactl_support import sign_in
import pyotp

store, module, token, key, pin_file, name, tests, stop, users = sys.argv[1:10]
users = users.split(",")
progress = pathlib.Path(stop).with_name("progress-" + name)
totp = pyotp.TOTP(%r)
t = %d + (1 if name == "b" else 0) * 10_000_000
done = 0
ctx = None
while not pathlib.Path(stop).exists():
    if done %% 10 == 0:  # a new context (unwrapping the data keys) every ten sign-ins
        if ctx is not None:
            ctx.close()
        ctx = libmfa.Context(store=store, clock=lambda: t, hsm_module=module, hsm_token=token, hsm_key=key,
                             hsm_pin_file=pin_file)
    t += 30
    uid = users[done %% len(users)]
    assert sign_in(ctx, uid, totp.at(t), now=t).factor_id == "totp"
    done += 1
    progress.write_text(str(done))
print(done)
""" % (SECRET, T0)


def test_hsm_key_rotation_under_sign_in_load(hsm, tmp_path):
    old, new = new_label("old"), new_label("new")
    hsm.new_key(hsm.token, old)
    store = str(tmp_path / "s.sqlite")
    users = {"a": ["a1", "a2"], "b": ["b1", "b2"]}
    seed(store, hsm, old, users=users["a"] + users["b"])
    stop = tmp_path / "stop"
    workers = {
        name: subprocess.Popen(
            [sys.executable, "-c", WORKER, store, hsm.module, hsm.token, old, hsm.pin_file, name,
             REPO / "Tests" / "python", stop, ",".join(uids)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env=hsm.env({"PYTHONPATH": str(REPO / "python")}))
        for name, uids in users.items()}

    def progress():
        return {name: int((tmp_path / ("progress-" + name)).read_text() or 0)
                if (tmp_path / ("progress-" + name)).exists() else 0 for name in workers}

    def wait_for(count):
        deadline = time.monotonic() + 90
        while min(progress().values()) < count:
            if any(w.poll() is not None for w in workers.values()):
                return False
            assert time.monotonic() < deadline, progress()
            time.sleep(0.05)
        return True

    rewrapped = None
    try:
        if wait_for(10):
            hsm.new_key(hsm.token, new)
            with libmfa.Context(store=store, **hsm.options(hsm.token, old)) as ctx:
                started = time.monotonic()
                rewrapped = ctx.admin("ops").rewrap_keys(new)
                assert time.monotonic() - started < 10
            # The workers, still configured with the old label, reopen with the label the store records.
            hsm.delete_key(hsm.token, old)
            before = progress()
            wait_for(max(before.values()) + 25)
    finally:
        stop.write_text("")
        outputs = {name: worker.communicate(timeout=60) for name, worker in workers.items()}
    for name, worker in workers.items():
        assert worker.returncode == 0, (name, outputs[name])
    assert rewrapped == 1
    assert [(r[0], r[2]) for r in wrapped_rows(store)] == [("dk-1", new)]
    # Nothing lost: every factor signs in, in a new context on the new key alone.
    with libmfa.Context(store=store, clock=lambda: T0 + 99_000_000, **hsm.options(hsm.token, new)) as ctx:
        for uid in users["a"] + users["b"]:
            assert sign_in(ctx, uid, pyotp.TOTP(SECRET).at(T0 + 99_000_000), now=T0 + 99_000_000).factor_id == "totp"
        assert ctx.admin("check").check_seals().failed == 0


def test_rewrap_refusals(hsm, tmp_path):
    key = new_label()
    hsm.new_key(hsm.token, key)
    store = str(tmp_path / "s.sqlite")
    with libmfa.Context(store=store, **hsm.options(hsm.token, key)) as ctx:
        with pytest.raises(libmfa.KeyProviderKeyNotFoundError, match="absent-label"):
            ctx.admin("ops").rewrap_keys("absent-label")
        with pytest.raises(libmfa.InvalidArgumentError):
            ctx.admin("ops").rewrap_keys("")
    assert [(r[0], r[2]) for r in wrapped_rows(store)] == [("dk-1", key)]
    with libmfa.Context(store=str(tmp_path / "file.sqlite"), master_key=bytes(32)) as ctx:
        with pytest.raises(libmfa.InvalidArgumentError, match="no key provider"):
            ctx.admin("ops").rewrap_keys(key)


def test_mfactl_with_the_hsm(hsm, tmp_path):
    from mfactl_support import Mfactl

    key, new = new_label(), new_label("new")
    hsm.new_key(hsm.token, key)
    store = str(tmp_path / "s.sqlite")
    seed(store, hsm, key)
    tool = Mfactl(store, tmp_path)
    words = ["--hsm-module", hsm.module, "--hsm-token", hsm.token, "--hsm-key", key]
    listed = tool.run("factors", "list", "alice", "--json", *words, "--hsm-pin-file", hsm.pin_file, key=False)
    assert listed.status == 0 and '"totp"' in listed.out, listed
    # The PIN from the environment (MFA_HSM_PIN by default), and the options from it too.
    env = {"MFA_HSM_MODULE": hsm.module, "MFA_HSM_TOKEN": hsm.token, "MFA_HSM_KEY": key, "MFA_HSM_PIN": PIN}
    assert tool.run("stats", key=False, env=env).status == 0
    # A wrong PIN: exit 77, named, the PIN not shown.
    wrong = tool.run("stats", key=False, env=dict(env, MFA_HSM_PIN="11223344"))
    assert wrong.status == 77 and "KEY_PROVIDER_LOGIN" in wrong.err and "11223344" not in wrong.err, wrong
    # No PIN option on the command line.
    assert tool.run("stats", *words, "--hsm-pin", PIN, key=False).status == 64
    # The module missing: exit 69.
    missing = tool.run("stats", key=False, env=dict(env, MFA_HSM_MODULE="/nonexistent/libpkcs11.so"))
    assert missing.status == 69 and "KEY_PROVIDER_UNAVAILABLE" in missing.err, missing
    # HSM and key file together: a usage error.
    assert tool.run("stats", *words, "--hsm-pin-file", hsm.pin_file).status == 64
    # Rotation of the HSM key.
    hsm.new_key(hsm.token, new)
    rewrapped = tool.run("keys", "rewrap", "--to", new, "--json", key=False, env=env)
    assert rewrapped.status == 0, rewrapped
    assert rewrapped.json_lines() == [{"rewrapped": 1, "key": new, "previous": [key]}]
    hsm.delete_key(hsm.token, key)
    after = tool.run("factors", "list", "alice", "--json", key=False, env=dict(env, MFA_HSM_KEY=new))
    assert after.status == 0 and '"totp"' in after.out, after
    gone = tool.run("keys", "rewrap", "--to", key, key=False, env=dict(env, MFA_HSM_KEY=new))
    assert gone.status == 77 and "KEY_PROVIDER_KEY_NOT_FOUND" in gone.err, gone


def test_host_key_provider_callbacks(tmp_path):
    """The C ABI's host provider (key_wrap/key_unwrap), as a KMS client would plug in."""
    import ctypes
    import os

    from libmfa import _ffi
    from libmfa._lib import lib

    vault = {}
    unwraps = []
    refuse = []

    def wrap(_ctx, label, key, key_len, aad, aad_len, out, out_cap, out_len):
        token = os.urandom(24)
        vault[token] = (label, bytes(aad[:aad_len]), bytes(key[:key_len]))
        ctypes.memmove(out, token, len(token))
        out_len[0] = len(token)
        return 0

    def unwrap(_ctx, label, wrapped, wrapped_len, aad, aad_len, key, key_len):
        unwraps.append((label, bytes(aad[:aad_len])))
        if refuse:
            return refuse[0]
        entry = vault.get(bytes(wrapped[:wrapped_len]))
        if entry is None or entry[:2] != (label, bytes(aad[:aad_len])):
            return _ffi.MFA_ERR_KEY_MISMATCH
        ctypes.memmove(key, entry[2], key_len)
        return 0

    wrap_fn, unwrap_fn = _ffi.mfa_key_wrap_fn(wrap), _ffi.mfa_key_unwrap_fn(unwrap)
    store = str(tmp_path / "s.sqlite").encode()

    def open_store(label=b"transit/mfa"):
        options = _ffi.mfa_options()
        assert lib.mfa_options_init(ctypes.byref(options), _ffi.MFA_OPTIONS_VERSION) == 0
        options.store, options.hsm_key = store, label
        options.key_wrap, options.key_unwrap = wrap_fn, unwrap_fn
        handle = ctypes.POINTER(_ffi.mfa_ctx)()
        status = lib.mfa_open(ctypes.byref(handle), ctypes.byref(options), None)
        return status, handle

    status, handle = open_store()
    assert status == 0 and len(vault) == 1 and unwraps == [(b"transit/mfa", b"dk-1")]
    lib.mfa_close(handle)
    status, handle = open_store()
    assert status == 0 and len(unwraps) == 2
    count = ctypes.c_int64()
    assert lib.mfa_keys_rewrap(handle, b"transit/mfa-2", None, ctypes.byref(count), None) == 0 and count.value == 1
    lib.mfa_close(handle)
    status, handle = open_store()
    assert status == 0 and unwraps[-1] == (b"transit/mfa-2", b"dk-1")
    lib.mfa_close(handle)
    for code in (_ffi.MFA_ERR_KEY_PROVIDER_LOGIN, _ffi.MFA_ERR_KEY_PROVIDER_KEY_NOT_FOUND, _ffi.MFA_ERR_KEY_MISMATCH):
        refuse[:] = [code]
        assert open_store()[0] == code
    refuse[:] = [12345]
    assert open_store()[0] == _ffi.MFA_ERR_KEY_PROVIDER_UNAVAILABLE
    # Only one of the two functions: INVALID_ARGUMENT.
    options = _ffi.mfa_options()
    lib.mfa_options_init(ctypes.byref(options), _ffi.MFA_OPTIONS_VERSION)
    options.store, options.hsm_key, options.key_wrap = store, b"transit/mfa", wrap_fn
    handle = ctypes.POINTER(_ffi.mfa_ctx)()
    assert lib.mfa_open(ctypes.byref(handle), ctypes.byref(options), None) == _ffi.MFA_ERR_INVALID_ARGUMENT
