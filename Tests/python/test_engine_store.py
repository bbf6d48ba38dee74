"""The SQLite store: no secret at rest, key rotation, imports, persistence, closing."""

import base64
import hashlib

import pyotp
import pytest

import libmfa
from conftest import ENGINE_KEY, TOTP_ON

GEN = libmfa.TOTPMultiFactorGenerator
KEY2 = bytes(range(100, 132))
KEY3 = bytes(range(200, 232))


def store_bytes(path):
    """The contents of the database file and its companions (-wal, -shm, -journal)."""
    data = b""
    for candidate in sorted(path.parent.glob(path.name + "*")):
        data += candidate.read_bytes()
    return data


def secret_forms(raw):
    """Every form a leaked secret could take in the file."""
    b32 = libmfa.base32_encode(raw, padding=False)
    return {
        "raw": raw,
        "base32": b32.encode(),
        "base32 lower": b32.lower().encode(),
        "hex": raw.hex().encode(),
        "HEX": raw.hex().upper().encode(),
        "base64": base64.b64encode(raw).rstrip(b"="),
        "base64url": base64.urlsafe_b64encode(raw).rstrip(b"="),
    }


def assert_no_secret(path, raw):
    data = store_bytes(path)
    assert len(data) > 4096  # the store really is there
    for name, form in secret_forms(raw).items():
        assert form not in data, "the TOTP secret is in the store as %s" % name


def test_no_totp_secret_in_the_clear(tmp_path, make_kit):
    path = tmp_path / "mfa.sqlite3"
    kit = make_kit(str(path))
    user = kit.user()
    mf = kit.ctx.multi_factor(user)
    secret = GEN.generate_secret(mf.session())
    raw = libmfa.base32_decode(secret.shared_secret_key)
    assert_no_secret(path, raw)  # pending, waiting for the enrollment
    totp = kit.totp_of(secret)
    info = mf.enroll(GEN.assertion_for_enrollment(secret, kit.code(totp)), "phone")
    assert_no_secret(path, raw)  # enrolled
    kit.clock.advance(30)
    kit.resolve(kit.resolver(user), info.uid, kit.code(totp))
    imported = libmfa.random_secret(32)
    kit.ctx.import_totp(user, imported)
    uri_secret = libmfa.random_secret()
    kit.ctx.import_uri(user, libmfa.TOTP(uri_secret).provisioning_uri("alice@example.com", "ACME"))
    for leaked in (raw, imported, uri_secret):
        assert_no_secret(path, leaked)
    kit.ctx.close()
    for leaked in (raw, imported, uri_secret):
        assert_no_secret(path, leaked)


def test_state_persists_across_contexts(tmp_path, make_kit):
    path = str(tmp_path / "mfa.sqlite3")
    first = make_kit(path)
    user = first.user()
    info, totp = first.enroll(user)
    first.ctx.close()
    second = make_kit(path, config=None)
    assert second.ctx.config()["state"] == "ENABLED"
    assert second.ctx.multi_factor(user).enrolled_factors() == [info]
    second.clock.advance(30)
    second.resolve(second.resolver(user), info.uid, second.code(totp))


def test_pending_credential_works_across_contexts_on_one_store(tmp_path, make_kit):
    path = str(tmp_path / "mfa.sqlite3")
    a = make_kit(path)
    b = make_kit(path, config=None)
    user = a.user()
    info, totp = a.enroll(user)
    a.clock.advance(30)
    pending = a.resolver(user).session
    result = b.resolve(b.ctx.resolver(pending), info.uid, b.code(totp))
    assert result.uid == "alice"
    with pytest.raises(libmfa.InvalidSessionError):
        a.resolve(a.ctx.resolver(pending), info.uid, a.code(totp))  # used up, seen by the other context


def test_wrong_master_key_cannot_read(tmp_path, make_kit):
    path = str(tmp_path / "mfa.sqlite3")
    kit = make_kit(path)
    user = kit.user()
    info, totp = kit.enroll(user)
    kit.ctx.close()
    other = make_kit(path, config=None, master_key=KEY2, key_id="k2")
    other.clock.advance(30)
    with pytest.raises(libmfa.CryptoError):
        other.resolve(other.resolver(user), info.uid, other.code(totp))


def test_same_key_id_different_key_is_key_mismatch(tmp_path, make_kit):
    """Issue 45 item 7: another key under a known id is refused at open, naming the id."""
    path = str(tmp_path / "mfa.sqlite3")
    kit = make_kit(path)
    user = kit.user()
    kit.enroll(user)
    kit.ctx.close()
    with pytest.raises(libmfa.KeyMismatchError, match='"k1"') as caught:
        make_kit(path, config=None, master_key=KEY2, key_id="k1")
    assert caught.value.status == libmfa.Status.KEY_MISMATCH
    # An earlier key given for rotation is checked too.
    with pytest.raises(libmfa.KeyMismatchError, match='"k1"'):
        make_kit(path, config=None, master_key=KEY2, key_id="k2", previous_keys=[("k1", bytes(32))])


def test_key_rotation_end_to_end(tmp_path, make_kit):
    path = str(tmp_path / "mfa.sqlite3")
    old = make_kit(path)  # key "k1"
    alice, bob = old.user("alice"), old.user("bob")
    info, totp = old.enroll(alice)
    bob_secret = GEN.generate_secret(old.ctx.multi_factor(bob).session())  # a pending secret under k1
    old.ctx.close()

    # Rotation without the old key is impossible.
    missing = make_kit(path, config=None, master_key=KEY2, key_id="k2")
    with pytest.raises(libmfa.CryptoError):
        missing.ctx.rotate_keys()
    missing.ctx.close()

    # The new key with the old one as previous: everything reads; rotation re-encrypts.
    both = make_kit(path, config=None, master_key=KEY2, key_id="k2", previous_keys={"k1": ENGINE_KEY})
    both.clock.advance(30)
    both.resolve(both.resolver(alice), info.uid, both.code(totp))
    assert both.ctx.rotate_keys() == 2  # alice's factor and bob's pending secret
    assert both.ctx.rotate_keys() == 0
    # bob's pending secret was re-encrypted; his session info (a token made under k1) still opens.
    bob_info = both.ctx.multi_factor(bob).enroll(
        GEN.assertion_for_enrollment(bob_secret, both.code(both.totp_of(bob_secret)))
    )
    assert both.ctx.rotate_keys() == 0  # the new factor is under k2 already
    both.ctx.close()

    # Only the new key: both factors still work.
    new = make_kit(path, config=None, master_key=KEY2, key_id="k2")
    new.clock.advance(60)
    new.resolve(new.resolver(alice), info.uid, new.code(totp))
    new.resolve(new.resolver(bob), bob_info.uid, new.code(new.totp_of(bob_secret)))
    new.ctx.close()

    # The old key alone no longer reads anything.
    stale = make_kit(path, config=None)
    stale.clock.advance(90)
    with pytest.raises(libmfa.CryptoError):
        stale.resolve(stale.resolver(alice), info.uid, stale.code(totp))
    stale.ctx.close()

    # A second rotation, previous keys as a list of pairs.
    third = make_kit(path, config=None, master_key=KEY3, key_id="k3", previous_keys=[("k2", KEY2), ("k1", ENGINE_KEY)])
    assert third.ctx.rotate_keys() == 2
    third.clock.advance(120)
    third.resolve(third.resolver(bob), bob_info.uid, third.code(third.totp_of(bob_secret)))


def test_tokens_made_under_a_dropped_key_are_invalid(tmp_path, make_kit):
    """Sessions, secrets' session info and pending credentials are sealed with the key
    current when they were made: a host that drops a previous key right after
    rotate_keys() invalidates the ones still outstanding (keep previous keys for the
    longest token lifetime)."""
    path = str(tmp_path / "mfa.sqlite3")
    old = make_kit(path)
    alice, bob = old.user("alice"), old.user("bob")
    info, totp = old.enroll(alice)
    old.clock.advance(30)
    pending = old.resolver(alice).session
    session = old.ctx.multi_factor(bob).session()
    secret = GEN.generate_secret(old.ctx.multi_factor(bob).session())
    old.ctx.close()
    both = make_kit(path, config=None, master_key=KEY2, key_id="k2", previous_keys={"k1": ENGINE_KEY})
    assert both.ctx.rotate_keys() == 2
    both.ctx.close()
    new = make_kit(path, config=None, master_key=KEY2, key_id="k2")
    with pytest.raises(libmfa.InvalidSessionError):
        new.ctx.resolver(pending)
    with pytest.raises(libmfa.InvalidSessionError):
        GEN.generate_secret(libmfa.MultiFactorSession(session.token, new.ctx))
    with pytest.raises(libmfa.InvalidSessionError):
        new.ctx.multi_factor(bob).enroll(GEN.assertion_for_enrollment(secret, new.code(new.totp_of(secret))))


def test_master_key_checks(tmp_path):
    with pytest.raises(libmfa.InvalidArgumentError):
        libmfa.Context(master_key=b"short")
    with pytest.raises(libmfa.InvalidArgumentError):
        libmfa.Context(master_key=bytes(33))
    with pytest.raises(TypeError):
        libmfa.Context(master_key="k" * 32)
    with pytest.raises(TypeError):
        libmfa.Context()
    with pytest.raises(libmfa.InvalidArgumentError):
        libmfa.Context(master_key=ENGINE_KEY, key_id="")
    with pytest.raises(libmfa.InvalidArgumentError):
        libmfa.Context(master_key=ENGINE_KEY, key_id="k" * 65)
    with pytest.raises(libmfa.InvalidArgumentError):
        libmfa.Context(master_key=ENGINE_KEY, key_id="has space")
    with pytest.raises(libmfa.InvalidArgumentError):
        libmfa.Context(master_key=ENGINE_KEY, key_id="k1", previous_keys={"k1": KEY2})  # duplicate id
    with pytest.raises(libmfa.InvalidArgumentError):
        libmfa.Context(master_key=ENGINE_KEY, previous_keys={"k0": b"short"})
    with pytest.raises(TypeError):
        libmfa.Context(master_key=ENGINE_KEY, previous_keys=[("k0",)])
    with pytest.raises(TypeError):
        libmfa.Context(master_key=ENGINE_KEY, previous_keys="k0")
    with libmfa.Context(master_key=bytearray(ENGINE_KEY), key_id="key-2024.1") as ctx:
        assert ctx.config()["state"] == "DISABLED"


def test_store_locations(tmp_path):
    with pytest.raises(TypeError):
        libmfa.Context(None, master_key=ENGINE_KEY)
    with pytest.raises(libmfa.InvalidArgumentError):
        libmfa.Context("", master_key=ENGINE_KEY)
    with pytest.raises(libmfa.StorageError):
        libmfa.Context(str(tmp_path / "no" / "such" / "dir" / "x.db"), master_key=ENGINE_KEY)
    with pytest.raises(libmfa.StorageError):
        libmfa.Context(str(tmp_path), master_key=ENGINE_KEY)  # a directory
    not_a_db = tmp_path / "garbage.db"
    not_a_db.write_bytes(b"this is not an sqlite database" * 100)
    with pytest.raises(libmfa.StorageError):
        libmfa.Context(str(not_a_db), master_key=ENGINE_KEY)
    with libmfa.Context(tmp_path / "pathlib.db", master_key=ENGINE_KEY) as ctx:  # os.PathLike
        ctx.set_config(TOTP_ON)
    assert (tmp_path / "pathlib.db").exists()


@pytest.mark.parametrize("location", [
    "host=127.0.0.1 dbname=mfa",
    "dbname=mfa",
    "host=db1,db2 port=5432,5432 dbname=mfa target_session_attrs=read-write",
    "  user = mfa dbname=mfa",
])
def test_libpq_keyword_value_strings_are_refused_not_made_sqlite_files(tmp_path, monkeypatch, location):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(libmfa.InvalidArgumentError) as raised:
        libmfa.Context(location, master_key=ENGINE_KEY)
    assert "keyword/value" in raised.value.message
    assert "postgres://" in raised.value.message
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("location, said", [
    ("mysql://db.internal/mfa", "mysql://"),
    ("sqlite:///var/lib/mfa.sqlite", "sqlite://"),
    ("POSTGRES://db/mfa", "lower case"),
    (" postgresql://db/mfa", "white space"),
])
def test_urls_of_other_schemes_are_refused(tmp_path, monkeypatch, location, said):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(libmfa.InvalidArgumentError) as raised:
        libmfa.Context(location, master_key=ENGINE_KEY)
    assert said in raised.value.message
    assert list(tmp_path.iterdir()) == []


def test_sqlite_names_with_equals_and_file_uris_still_open(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for location in ["./host=x.db", "tenant=acme.db", str(tmp_path / "dbname=y.db"), "file:uri.db"]:
        with libmfa.Context(location, master_key=ENGINE_KEY) as ctx:
            ctx.set_config(TOTP_ON)
    assert {"host=x.db", "tenant=acme.db", "dbname=y.db", "uri.db"} <= {p.name for p in tmp_path.iterdir()}


# --- imports ---------------------------------------------------------------------------


def test_import_raw_secret_then_sign_in(kit):
    user = kit.user()
    raw = libmfa.random_secret()
    info = kit.ctx.import_totp(user, raw, "old server")
    assert info.factor_id == "totp" and info.display_name == "old server"
    assert kit.kinds()[-1] == "ENROLL" and kit.events[-1].detail == "IMPORTED"
    result = kit.resolve(kit.resolver(user), info.uid, libmfa.TOTP(raw).at(kit.clock.now))
    assert result.enrollment_id == info.uid


def test_import_totp_object_with_its_parameters(kit):
    user = kit.user()
    totp = libmfa.TOTP(libmfa.random_secret(32), digits=8, period=60, algorithm="SHA256")
    info = kit.ctx.import_totp(user, totp)
    code = totp.at(kit.clock.now)
    assert len(code) == 8
    kit.resolve(kit.resolver(user), info.uid, code)
    with pytest.raises(libmfa.InvalidVerificationCodeError):
        kit.resolve(kit.resolver(user), info.uid, code)  # imported factors are replay-safe too


def test_import_pyotp_uri_then_sign_in_with_pyotp(kit):
    user = kit.user()
    b32 = pyotp.random_base32()
    uri = pyotp.TOTP(b32).provisioning_uri(name="alice@example.com", issuer_name="ACME Co")
    info = kit.ctx.import_uri(user, uri, "pyotp")
    kit.clock.advance(7)
    result = kit.resolve(kit.resolver(user), info.uid, pyotp.TOTP(b32).at(kit.clock.now))
    assert result.claims["second_factor_identifier"] == info.uid


def test_import_pyotp_sha256_eight_digits(kit):
    user = kit.user()
    b32 = pyotp.random_base32(64)
    app = pyotp.TOTP(b32, digits=8, digest=hashlib.sha256, interval=30)
    info = kit.ctx.import_uri(user, app.provisioning_uri(name="alice", issuer_name="ACME"))
    kit.resolve(kit.resolver(user), info.uid, app.at(kit.clock.now))


def test_import_checks(kit):
    user = kit.user()
    with pytest.raises(libmfa.InvalidArgumentError):
        kit.ctx.import_totp(user, bytes(9))  # at least 10 bytes
    with pytest.raises(libmfa.InvalidArgumentError):
        kit.ctx.import_totp(user, bytes(129))
    with pytest.raises(libmfa.InvalidArgumentError):
        kit.ctx.import_totp(user, b"")
    with pytest.raises(libmfa.InvalidArgumentError):
        kit.ctx.import_totp(user, libmfa.TOTP(bytes(20), t0=30))
    with pytest.raises(TypeError):
        kit.ctx.import_totp(user, "JBSWY3DPEHPK3PXP")  # base32 text: decode it first
    with pytest.raises(TypeError):
        kit.ctx.import_totp(user, None)
    with pytest.raises(libmfa.InvalidArgumentError):
        kit.ctx.import_totp(user, bytes(20), "n" * 257)
    with pytest.raises(libmfa.InvalidURIError):
        kit.ctx.import_uri(user, "https://example.com/")
    with pytest.raises(libmfa.InvalidURIError):
        kit.ctx.import_uri(user, "otpauth://totp/x?secret=not*base32")
    with pytest.raises(libmfa.InvalidArgumentError):
        kit.ctx.import_uri(user, libmfa.build_uri(bytes(20), "alice", kind="hotp"))
    with pytest.raises(libmfa.InvalidArgumentError):
        kit.ctx.import_uri(user, libmfa.build_uri(bytes(8), "alice"))
    with pytest.raises(TypeError):
        kit.ctx.import_uri(user, None)
    assert kit.ctx.multi_factor(user).enrolled_factors() == []
    for _ in range(5):
        kit.ctx.import_totp(user, libmfa.random_secret())
    with pytest.raises(libmfa.SecondFactorLimitExceededError):
        kit.ctx.import_totp(user, libmfa.random_secret())
    with pytest.raises(libmfa.SecondFactorLimitExceededError):
        kit.ctx.import_uri(user, libmfa.TOTP(libmfa.random_secret()).provisioning_uri("alice"))


def test_import_needs_no_email_or_recent_login(kit):
    user = libmfa.User("admin-imported", auth_time=0, email=None)
    info = kit.ctx.import_totp(user, libmfa.random_secret())
    assert kit.ctx.multi_factor(user).enrolled_factors() == [info]


# --- closing ---------------------------------------------------------------------------


def test_close_is_idempotent_and_later_calls_fail(make_kit):
    kit = make_kit()
    ctx = kit.ctx
    assert not ctx.closed
    ctx.close()
    ctx.close()
    assert ctx.closed and "closed" in repr(ctx)
    with pytest.raises(libmfa.InvalidArgumentError):
        ctx.config()
    with pytest.raises(libmfa.InvalidArgumentError):
        ctx.sign_in(kit.user())
    with pytest.raises(libmfa.InvalidArgumentError):
        ctx.check_token("alice", 0)


def test_context_manager_closes(clock):
    with libmfa.Context(master_key=ENGINE_KEY, clock=clock) as ctx:
        ctx.set_config(TOTP_ON)
    assert ctx.closed


def test_objects_of_a_closed_context_fail_cleanly(make_kit):
    kit = make_kit()
    user = kit.user()
    info, totp = kit.enroll(user)
    kit.clock.advance(30)
    resolver = kit.resolver(user)
    session = kit.ctx.multi_factor(user).session()
    kit.ctx.close()
    with pytest.raises(libmfa.InvalidArgumentError):
        kit.resolve(resolver, info.uid, kit.code(totp))
    with pytest.raises(libmfa.InvalidArgumentError):
        GEN.generate_secret(session)


def test_close_waits_for_calls_in_progress(clock):
    import threading

    entered, release = threading.Event(), threading.Event()
    blocking = {"on": False}

    def slow_clock():
        if blocking["on"] and threading.current_thread().name == "caller":
            blocking["on"] = False
            entered.set()
            release.wait(10)
        return clock.now

    ctx = libmfa.Context(master_key=ENGINE_KEY, clock=slow_clock)
    ctx.set_config(TOTP_ON)
    outcome = {}

    def caller():
        outcome["result"] = ctx.sign_in(libmfa.User("alice", auth_time=clock.now))

    blocking["on"] = True
    calling = threading.Thread(target=caller, name="caller")
    calling.start()
    assert entered.wait(10)  # the call is inside libmfa, in the clock callback
    closing = threading.Thread(target=ctx.close)
    closing.start()
    closing.join(0.2)
    assert closing.is_alive()  # close() waits for the call in progress
    assert ctx.closed
    with pytest.raises(libmfa.InvalidArgumentError):
        ctx.config()  # no new calls while closing
    release.set()
    calling.join(10)
    closing.join(10)
    assert not closing.is_alive()
    assert outcome["result"].uid == "alice"  # the call in progress finished normally
