"""mfactl's audit commands on the trail the store keeps (issue 52), on SQLite
and PostgreSQL: tail (and --follow), search, verify and purge; each tamper
an operator's SQL client can do to the table (sqlite3's CLI, psql) found
by `mfactl audit verify` (exit 1, the event named); and exit 69 with a
message when the store keeps no trail."""

import json
import signal
import subprocess
import time

import pytest

import libmfa
from mfactl_support import Mfactl, context, fresh_store, store_kinds

ON = '{"state":"ENABLED","providers":{"totp":"ENABLED"},"auditTrail":{"store":true}}'


def sql_client(tool, statement):
    """Runs ``statement`` with the store's own command-line client."""
    if tool.store.startswith("postgres"):
        url = tool.store
        subprocess.run(["psql", url, "-q", "-v", "ON_ERROR_STOP=1", "-c", statement], check=True,
                       capture_output=True)
    else:
        subprocess.run(["sqlite3", tool.store, statement], check=True, capture_output=True)


@pytest.fixture(params=store_kinds())
def tool(request, tmp_path):
    """A store with the trail on: the configuration, three imported users, and a few sign-ins' worth of events."""
    tool = Mfactl(fresh_store(request.param, tmp_path), tmp_path)
    tool.run("config", "set", ON, check_status=0)
    path = tmp_path / "seed.csv"
    path.write_text("u1,JBSWY3DPEHPK3PXP,app\nu2,JBSWY3DPEHPK3PXQ,app\nu3,JBSWY3DPEHPK3PXR,app\n")
    tool.run("import", "csv", path, "--actor", "ops:alice", check_status=0)
    with context(tool.store) as ctx:
        for uid in ("u1", "u2"):
            ctx.revoke_tokens(uid)
    return tool


def verify(tool):
    return tool.run("audit", "verify")


def test_tail_search_verify(tool):
    tail = tool.run("audit", "tail", "--json", check_status=0).json_lines()
    assert [(e["chain"], e["seq"], e["kind"]) for e in tail] == [
        ("main", 1, "CONFIG_CHANGE"), ("main", 2, "ENROLL"), ("main", 3, "ENROLL"), ("main", 4, "ENROLL"),
        ("main", 5, "TOKENS_REVOKED"), ("main", 6, "TOKENS_REVOKED")]
    assert tail[1]["actor"] == "ops:alice" and tail[1]["detail"] == "IMPORTED" and tail[1]["keyId"] == "k1"
    assert tail[0]["tenant"] is None and tail[0]["uid"] is None
    text = tool.run("audit", "tail", "-n", "2", check_status=0).out.splitlines()
    first = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(tail[4]["time"]))
    assert len(text) == 2 and text[0].startswith(first) and "main#5  TOKENS_REVOKED  uid=u1" in text[0]
    found = tool.run("audit", "search", "--user", "u1", "--json", check_status=0).json_lines()
    assert [e["kind"] for e in found] == ["ENROLL", "TOKENS_REVOKED"]
    assert [e["seq"] for e in tool.run("audit", "search", "--kind", "tokens-revoked", "--json").json_lines()] == [5, 6]
    start, end = tail[0]["time"], tail[-1]["time"]
    since = tool.run("audit", "search", "--since", str(end), "--json", check_status=0).json_lines()
    assert 6 in [e["seq"] for e in since] and all(e["time"] >= end for e in since)
    iso = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(start))
    assert len(tool.run("audit", "search", "--since", iso, "--json").json_lines()) == 6
    assert tool.run("audit", "search", "--until", iso, "--json", check_status=0).json_lines() == []
    assert len(tool.run("audit", "search", "--since", "1d", "--json").json_lines()) == 6
    assert tool.run("audit", "search", "--until", "1h", "--json", check_status=0).json_lines() == []
    assert [e["seq"] for e in tool.run("audit", "search", "--limit", "2", "--json").json_lines()] == [1, 2]
    assert tool.run("audit", "search", "--tenant", "acme", "--json", check_status=0).out == ""
    assert tool.run("audit", "search", "--since", "yesterday").status == 64
    assert tool.run("audit", "search", "--tenant", "a", "--project").status == 64
    assert tool.run("audit", "search", "--kind", "no such kind!").status == 65
    assert tool.run("audit", "tail", "-n", "-1").status == 64
    ok = verify(tool)
    assert ok.status == 0 and "main" in ok.out and "intact" in ok.out
    report = tool.run("audit", "verify", "--json", check_status=0).json_lines()
    assert report == [{"chain": "main", "anchor": 1, "head": 6, "verified": 6, "unchecked": 0, "missingKeys": [],
                       "intact": True, "brokenAt": None, "problem": None}]


@pytest.mark.parametrize("statements,event", [
    (["DELETE FROM mfa_audit_events WHERE seq = 3"], 3),
    (["INSERT INTO mfa_audit_events (chain, seq, time, kind, tenant, uid, factor_id, enrollment_id, detail, actor, "
      "key_id, mac) SELECT chain, 7, time, kind, tenant, 'u9', factor_id, enrollment_id, detail, actor, key_id, mac "
      "FROM mfa_audit_events WHERE seq = 6"], 7),
    (["UPDATE mfa_audit_events SET actor = 'someone else' WHERE seq = 2"], 2),
    (["UPDATE mfa_audit_events SET seq = 100 WHERE seq = 2", "UPDATE mfa_audit_events SET seq = 2 WHERE seq = 4",
      "UPDATE mfa_audit_events SET seq = 4 WHERE seq = 100"], 2),
    (["DELETE FROM mfa_audit_events WHERE seq = 6"], 6),
    (["UPDATE mfa_audit_events SET uid = 'u9', key_id = 'zz' WHERE seq = 4"], 4),
    (["UPDATE mfa_audit_events SET actor = 'x', key_id = 'zz' WHERE seq = 1"], 1),
], ids=["delete", "insert", "alter", "reorder", "delete-last", "alter-with-key-id", "alter-first-with-key-id"])
def test_tamper_found_by_verify(tool, statements, event):
    for statement in statements:
        sql_client(tool, statement)
    result = verify(tool)
    assert result.status == 1, result
    assert "BROKEN at event %d" % event in result.out
    assert "chain main breaks at event %d" % event in result.err
    report = tool.run("audit", "verify", "--json").json_lines()
    assert report[0]["brokenAt"] == event and report[0]["intact"] is False


def test_purge_keeps_it_verifiable(tool):
    tool.run("config", "update", '{"auditTrail":{"maxEvents":3}}', check_status=0)
    assert json.loads(tool.run("audit", "purge", "--json", check_status=0).out) == {"deleted": 4}
    assert [e["seq"] for e in tool.run("audit", "tail", "--json").json_lines()] == [5, 6, 7]
    assert verify(tool).status == 0
    tool.run("config", "update", '{"auditTrail":{"maxEvents":2}}', check_status=0)
    tool.run("purge", check_status=0)  # mfactl purge purges the trail too
    assert [e["seq"] for e in tool.run("audit", "tail", "--json").json_lines()] == [7, 8]
    assert verify(tool).status == 0
    sql_client(tool, "DELETE FROM mfa_audit_events WHERE seq = 7")
    assert verify(tool).status == 1


def test_key_rotation(tool):
    tool.run("keys", "rotate", key=tool.key2, previous=[tool.key1], check_status=0)
    both = tool.run("audit", "verify", "--json", key=tool.key2, previous=[tool.key1], check_status=0).json_lines()
    assert both[0]["verified"] == 7 and both[0]["unchecked"] == 0
    alone = tool.run("audit", "verify", key=tool.key2, check_status=0)
    assert "not checked" in alone.err and "k1" in alone.err
    assert [e["keyId"] for e in tool.run("audit", "tail", "-n", "2", "--json", key=tool.key2).json_lines()] == [
        "k1", "k2"]


def test_follow(tool):
    follower = tool.popen("audit", "tail", "-n", "1", "--follow", "--json")
    try:
        first = json.loads(follower.stdout.readline())
        assert first["seq"] == 6
        with context(tool.store) as ctx:
            ctx.revoke_tokens("u3")
        deadline = time.monotonic() + 30
        line = follower.stdout.readline()
        assert time.monotonic() < deadline
        event = json.loads(line)
        assert event["seq"] == 7 and event["uid"] == "u3" and event["kind"] == "TOKENS_REVOKED"
        follower.send_signal(signal.SIGINT)
        assert follower.wait(timeout=30) == 0
    finally:
        if follower.poll() is None:
            follower.kill()
            follower.wait()


@pytest.mark.parametrize("kind", store_kinds())
def test_not_stored(kind, tmp_path):
    tool = Mfactl(fresh_store(kind, tmp_path), tmp_path)
    tool.run("config", "set", '{"state":"ENABLED"}', check_status=0)
    for command in (["audit", "tail"], ["audit", "search", "--user", "u1"], ["audit", "verify"]):
        result = tool.run(*command)
        assert result.status == 69, command
        assert "keeps no audit trail" in result.err and '"auditTrail":{"store":true}' in result.err
    assert tool.run("audit", "purge", check_status=0).out.strip() == "deleted 0 audit events"
    assert libmfa.TRAIL_READ_MAX == 10000
