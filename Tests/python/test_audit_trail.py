"""The stored audit trail from Python (issue 52): Context.audit_records,
verify_audit_trail, purge_audit_trail and audit_chain; tampering with the
table through Python's sqlite3 and psql, found where it is; no secret, code
or phone number in the table; and two processes signing in at once on one
PostgreSQL store, whose chain (or chains) verify afterwards."""

import json
import os
import sqlite3
import subprocess
import sys

import pytest

import libmfa
from conftest import Clock, EngineKit
from mfactl_support import Mfactl, fresh_store, store_kinds
from shared import REPO

TRAIL_ON = {"state": "ENABLED", "providers": {"totp": "ENABLED", "phone": "ENABLED"},
            "phone": {"appVerification": "DISABLED"}, "auditTrail": {"store": True}}


def sql(store, statement):
    """Runs ``statement`` on the store behind libmfa's back (sqlite3 module, or psql)."""
    if store.startswith("postgres"):
        subprocess.run(["psql", store, "-q",
                        "-v", "ON_ERROR_STOP=1", "-c", statement], check=True, capture_output=True)
        return
    db = sqlite3.connect(store)
    with db:
        db.execute(statement)
    db.close()


def rows(store, query):
    if store.startswith("postgres"):
        out = subprocess.run(["psql", store, "-q",
                              "-A", "-t", "-c", query], check=True, capture_output=True, text=True).stdout
        return [line.split("|") for line in out.splitlines() if line]
    db = sqlite3.connect(store)
    try:
        return [[str(value) for value in row] for row in db.execute(query)]
    finally:
        db.close()


@pytest.fixture(params=store_kinds())
def trail(request, tmp_path):
    """An EngineKit on a fresh store (SQLite file or PostgreSQL schema) with the trail on, SMS to an outbox."""
    store = fresh_store(request.param, tmp_path)
    kit = EngineKit(store=store, config=TRAIL_ON, sms_outbox=str(tmp_path / "outbox.jsonl"))
    kit.store = store
    kit.outbox = tmp_path / "outbox.jsonl"
    yield kit
    kit.ctx.close()


def journey(kit):
    """Enroll, a wrong code, a sign-in, a rename, a revocation: 6 events with the configuration."""
    user = kit.user()
    info, totp = kit.enroll(user, "app")
    kit.clock.advance(30)
    with pytest.raises(libmfa.InvalidVerificationCodeError):
        kit.resolve(kit.resolver(user), info.uid, "000000" if kit.code(totp) != "000000" else "999999")
    kit.resolve(kit.resolver(user), info.uid, kit.code(totp))
    kit.ctx.admin("ops:bob").rename(info.uid, "work")
    kit.ctx.revoke_tokens("alice")
    return info


def fields(item):
    return (item.kind, item.kind_name, item.tenant, item.uid, item.factor_id, item.enrollment_id, item.time,
            item.detail, item.actor)


def test_stored_as_the_callback_saw_them(trail):
    journey(trail)
    stored = trail.ctx.audit_records(limit=libmfa.TRAIL_READ_MAX)
    assert [fields(r) for r in stored] == [fields(e) for e in trail.events]
    assert [r.kind_name for r in stored] == ["CONFIG_CHANGE", "ENROLL", "SIGN_IN_FAILURE", "SIGN_IN_SUCCESS",
                                             "FACTOR_RENAMED", "TOKENS_REVOKED"]
    assert [(r.chain, r.seq, r.key_id) for r in stored] == [("main", n, "k1") for n in range(1, 7)]
    result = trail.ctx.verify_audit_trail()
    assert result.intact and result.verified == 6 and result.unchecked == 0
    assert [(c.chain, c.anchor_seq, c.head_seq, c.broken_at, c.problem) for c in result.chains] == [
        ("main", 1, 6, None, None)]
    assert list(trail.ctx.audit_trail()) == stored


def test_filters_and_pages(trail):
    journey(trail)
    ctx = trail.ctx
    assert [r.kind_name for r in ctx.audit_records(kind=libmfa.AUDIT_SIGN_IN_FAILURE)] == ["SIGN_IN_FAILURE"]
    assert [r.kind_name for r in ctx.audit_records(kind="FACTOR_RENAMED")] == ["FACTOR_RENAMED"]
    assert ctx.audit_records(kind="FACTOR_RENAMED")[0].actor == "ops:bob"
    assert len(ctx.audit_records(uid="alice")) == 5
    assert ctx.audit_records(tenant="other") == []
    assert [r.seq for r in ctx.audit_records(since=trail.clock.now)] == [3, 4, 5, 6]
    assert [r.seq for r in ctx.audit_records(until=trail.clock.now)] == [1, 2]
    assert [r.seq for r in ctx.audit_records(limit=2, latest=True)] == [5, 6]
    first = ctx.audit_records(limit=4)
    assert [r.seq for r in ctx.audit_records(after=first[-1].position)] == [5, 6]
    assert [r.seq for r in ctx.audit_records(chain="main", after_seq=4)] == [5, 6]


def test_bad_arguments(trail):
    ctx = trail.ctx
    for bad in ({"limit": 0}, {"limit": libmfa.TRAIL_READ_MAX + 1}, {"kind": 999}, {"kind": "sign-in"},
                {"chain": "a b"}, {"uid": ""}):
        with pytest.raises(libmfa.InvalidArgumentError):
            ctx.audit_records(**bad)
    for bad in ({"limit": "10"}, {"kind": 1.5}, {"kind": True}, {"after": [1, "main", 2]}, {"since": "x"}):
        with pytest.raises(TypeError):
            ctx.audit_records(**bad)
    with pytest.raises(libmfa.InvalidArgumentError):
        libmfa.Context(":memory:", master_key=bytes(32), audit_chain="bad chain")
    with pytest.raises(libmfa.InvalidArgumentError):
        ctx.set_config({"auditTrail": {"store": False}}, tenant="t1")


@pytest.mark.parametrize("kind", store_kinds())
def test_off_stores_nothing(kind, tmp_path):
    kit = EngineKit(store=fresh_store(kind, tmp_path), config={"state": "ENABLED", "providers": {"totp": "ENABLED"}})
    try:
        journey(kit)
        assert len(kit.events) == 6
        assert kit.ctx.audit_records() == [] and kit.ctx.verify_audit_trail().chains == ()
    finally:
        kit.ctx.close()


def tampered(trail, *statements):
    """The chain's verification after ``statements``."""
    for statement in statements:
        sql(trail.store, statement)
    result = trail.ctx.verify_audit_trail()
    assert not result.intact
    return result.chains[0]


def test_tamper_delete(trail):
    journey(trail)
    chain = tampered(trail, "DELETE FROM mfa_audit_events WHERE seq = 3")
    assert chain.broken_at == 3 and "missing" in chain.problem


def test_tamper_insert(trail):
    journey(trail)
    chain = tampered(trail, "INSERT INTO mfa_audit_events (chain, seq, time, kind, tenant, uid, factor_id, "
                            "enrollment_id, detail, actor, key_id, mac) SELECT chain, 7, time, 'SIGN_IN_SUCCESS', "
                            "tenant, uid, factor_id, enrollment_id, 'OK', actor, key_id, mac "
                            "FROM mfa_audit_events WHERE seq = 4")
    assert chain.broken_at == 7 and "beyond" in chain.problem


def test_tamper_alter(trail):
    journey(trail)
    chain = tampered(trail, "UPDATE mfa_audit_events SET detail = 'OK' WHERE seq = 3")
    assert chain.broken_at == 3 and "MAC" in chain.problem


def test_tamper_reorder(trail):
    journey(trail)
    chain = tampered(trail, "UPDATE mfa_audit_events SET seq = 100 WHERE seq = 2",
                     "UPDATE mfa_audit_events SET seq = 2 WHERE seq = 5",
                     "UPDATE mfa_audit_events SET seq = 5 WHERE seq = 100")
    assert chain.broken_at == 2


def test_retention_purge_keeps_it_verifiable(trail):
    journey(trail)
    trail.ctx.update_config({"auditTrail": {"retentionDays": 1}})
    trail.clock.advance(86_400 - 15)
    trail.ctx.revoke_tokens("late")
    trail.ctx.purge_expired()
    kept = trail.ctx.audit_records()
    assert [r.seq for r in kept] == [3, 4, 5, 6, 7, 8]
    result = trail.ctx.verify_audit_trail()
    assert result.intact and result.chains[0].anchor_seq == 3 and result.verified == 6
    chain = tampered(trail, "DELETE FROM mfa_audit_events WHERE seq = 3")
    assert chain.broken_at == 3


def test_no_secrets_in_the_table(trail):
    user = trail.user()
    number = "+14155550123"
    phone = libmfa.PhoneAuthProvider(trail.ctx)
    mf = trail.ctx.multi_factor(user)
    vid = phone.verify_phone_number(number, None, mf.session())
    sms_code = libmfa.outbox_code(trail.outbox, number)
    assert sms_code
    mf.enroll(libmfa.PhoneMultiFactorGenerator.assertion(phone.credential(vid, sms_code)), "phone")
    info, totp = trail.enroll(user, "app")
    trail.clock.advance(30)
    code = trail.code(totp)
    trail.resolve(trail.resolver(user), info.uid, code)
    text = "|".join("|".join(row) for row in rows(trail.store, "SELECT * FROM mfa_audit_events"))
    assert "SMS_SENT" in text and "SIGN_IN_SUCCESS" in text
    for needle in (number, number[1:], number[-4:], sms_code, code, "alice@example.com"):
        assert needle not in text


WORKER = REPO / "Tests" / "python" / "audit_trail_worker.py"


def run_workers(store, chains, go, users=4, rounds=25):
    """Two worker processes at once (they start when ``go`` exists); the number of events each reported."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO / "python"), env.get("PYTHONPATH", "")])
    workers = [subprocess.Popen([sys.executable, str(WORKER), store, chain, "w%d_" % index, str(users),
                                 str(rounds), "1700000000", str(go)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, env=env) for index, chain in enumerate(chains)]
    go.write_text("go")
    counts = []
    for worker in workers:
        out, err = worker.communicate(timeout=600)
        assert worker.returncode == 0, err
        counts.append(json.loads(out)["events"])
    return counts


def load_store(tmp_path, users=4):
    store = fresh_store("postgres", tmp_path)
    with libmfa.Context(store, master_key=bytes(range(32))) as ctx:
        ctx.set_config(TRAIL_ON)
        for index in (0, 1):
            for n in range(users):
                uid = "w%d_%d" % (index, n)
                ctx.import_totp(libmfa.User(uid, auth_time=0), (uid.encode() * 20)[:20])
    return store


@pytest.mark.parametrize("chains", [("main", "main"), ("east", "west")], ids=["one chain", "a chain each"])
def test_two_processes_on_postgres_verify(tmp_path, chains):
    if not os.environ.get("MFA_TEST_POSTGRES_URL"):
        if os.environ.get("CI") == "true":
            pytest.fail("MFA_TEST_POSTGRES_URL is not set: CI must run the PostgreSQL load too")
        pytest.skip("needs the test command's PostgreSQL (MFA_TEST_POSTGRES_URL)")
    store = load_store(tmp_path)
    counts = run_workers(store, chains, tmp_path / "go")
    # Each round of each user: a failure and a success.
    assert counts == [4 * 25 * 2, 4 * 25 * 2]
    with libmfa.Context(store, master_key=bytes(range(32))) as ctx:
        result = ctx.verify_audit_trail()
        assert result.intact, [c.problem for c in result.chains]
        # The configuration and the 8 imports, then every worker's events.
        assert result.verified == 1 + 8 + sum(counts)
        names = sorted(c.chain for c in result.chains)
        assert names == sorted(set(("main",) + chains))
        heads = {c.chain: c.head_seq for c in result.chains}
        for chain in set(chains):
            records = ctx.audit_records(chain=chain, limit=libmfa.TRAIL_READ_MAX)
            assert [r.seq for r in records] == list(range(1, heads[chain] + 1))
        # Both processes' events are interleaved in the one chain: they waited for each other's head.
        if chains == ("main", "main"):
            owners = [r.uid[:3] for r in ctx.audit_records(chain="main", limit=libmfa.TRAIL_READ_MAX)
                      if r.kind_name == "SIGN_IN_SUCCESS"]
            switches = sum(1 for a, b in zip(owners, owners[1:]) if a != b)
            assert switches > 1
    # The operator's check agrees: mfactl (the same key, k1) finds every chain whole.
    tool = Mfactl(store, tmp_path)
    report = tool.run("audit", "verify", "--json", check_status=0).json_lines()
    assert sorted(c["chain"] for c in report) == names and all(c["intact"] for c in report)
    sql(store, "DELETE FROM mfa_audit_events WHERE seq = 50 AND chain = '%s'" % chains[0])
    with libmfa.Context(store, master_key=bytes(range(32))) as ctx:
        broken = [c for c in ctx.verify_audit_trail().chains if not c.intact]
        assert [(c.chain, c.broken_at) for c in broken] == [(chains[0], 50)]
    result = tool.run("audit", "verify")
    assert result.status == 1 and "chain %s breaks at event 50" % chains[0] in result.err
