"""mfactl's admin commands, end to end against SQLite and PostgreSQL: users,
factors, reset (the old sign-in and session refused), delete, stats,
config, and the exit statuses."""

import base64
import hashlib
import json

import pytest

import libmfa
from mfactl_support import Mfactl, context, fresh_store, oathtool, sign_in, store_kinds

NOW = 1_700_000_010


def b32(name):
    return base64.b32encode(hashlib.sha1(name.encode()).digest()).decode().rstrip("=")


@pytest.fixture(params=store_kinds())
def tool(request, tmp_path):
    tool = Mfactl(fresh_store(request.param, tmp_path), tmp_path)
    path = tmp_path / "seed.csv"
    path.write_text("".join("%s,%s,app\n" % (uid, b32(uid)) for uid in ("u1", "u2", "u3", "u4", "u5")))
    tool.run("import", "csv", path, check_status=0)
    tool.run("import", "csv", path, "--tenant", "acme", check_status=0)
    tool.run("config", "set", '{"state":"ENABLED","providers":{"totp":"ENABLED"}}', check_status=0)
    return tool


def user(uid, tenant=None):
    return libmfa.User(uid=uid, tenant=tenant, email=uid + "@example.com", email_verified=True, auth_time=NOW)


def test_users_list_pages_and_filters(tool):
    first = tool.run("users", "list", "--limit", "3", check_status=0)
    assert first.out.splitlines()[0].split() == ["TENANT", "UID", "FACTORS"]
    assert [line.split()[1] for line in first.out.splitlines()[1:4]] == ["u1", "u2", "u3"]
    cursor = first.out.splitlines()[-1].split("--cursor ")[1]
    second = tool.run("users", "list", "--limit", "3", "--cursor", cursor, "--json", check_status=0)
    rows = second.json_lines()
    assert [(r["tenant"], r["uid"]) for r in rows[:3]] == [(None, "u4"), (None, "u5"), ("acme", "u1")]
    assert rows[0]["factors"] == {"totp": 1} and "nextCursor" in rows[-1]
    everyone = tool.run("users", "list", "--limit", "2", "--all", "--json", check_status=0).json_lines()
    assert len(everyone) == 10
    assert len(tool.run("users", "list", "--tenant", "acme", "--json").json_lines()) == 5
    assert len(tool.run("users", "list", "--project", "--json").json_lines()) == 5
    assert tool.run("users", "list", "--factor", "phone", "--json", check_status=0).json_lines() == []
    assert tool.run("users", "list", "--cursor", "garbage!").status == 65
    assert tool.run("users", "list", "--limit", "0").status == 65
    assert tool.run("users", "list", "--tenant", "a", "--project").status == 64


def test_factors_list_rename_remove(tool):
    listed = json.loads(tool.run("factors", "list", "u1", "--json", check_status=0).out)
    assert len(listed) == 1 and listed[0]["factorId"] == "totp" and listed[0]["displayName"] == "app"
    factor = listed[0]["enrollmentId"]
    table = tool.run("factors", "list", "u1", check_status=0)
    assert factor in table.out and "authenticator app" in table.out
    renamed = tool.run("factors", "rename", factor, "work phone", "--actor", "ops:test", check_status=0)
    assert "renamed" in renamed.out
    assert json.loads(tool.run("factors", "list", "u1", "--json").out)[0]["displayName"] == "work phone"
    assert tool.run("factors", "rename", "no-such-factor", "x").status == 66
    assert tool.run("factors", "rename", factor, "n" * 300).status == 65
    with context(tool.store, clock=lambda: NOW) as ctx:
        issued = NOW - 1
        ctx.check_token("u1", issued)
        tool.run("factors", "remove", factor, check_status=0)
        with pytest.raises(libmfa.UserTokenExpiredError):
            ctx.check_token("u1", issued)
    assert tool.run("factors", "remove", factor).status == 66
    assert tool.run("factors", "list", "u1").status == 66
    assert json.loads(tool.run("factors", "list", "u1", "--json", check_status=0).out) == []


def test_user_reset_refuses_the_old_sign_in_and_session(tool):
    with context(tool.store, clock=lambda: NOW) as ctx:
        with pytest.raises(libmfa.SecondFactorRequired) as required:
            ctx.sign_in(user("u2"))
        pending = required.value.resolver.session
        session = ctx.multi_factor(user("u2")).session()
        reset = tool.run("user", "reset", "u2", "--actor", "helpdesk", "--json", check_status=0)
        assert json.loads(reset.out)["removed"][0]["factorId"] == "totp"
        with pytest.raises(libmfa.UserTokenExpiredError):
            ctx.resolver(pending)
        with pytest.raises(libmfa.UserTokenExpiredError):
            libmfa.TOTPMultiFactorGenerator.generate_secret(session)
        with pytest.raises(libmfa.UserTokenExpiredError):
            ctx.check_token("u2", NOW - 1)
        assert ctx.sign_in(user("u2")).factor_id is None  # the first factor alone now
        # The tenant's u2 is another user: untouched.
        code = oathtool("--totp", "-b", "--now", "@%d" % NOW, b32("u2"))[0]
        assert sign_in(ctx, "u2", code, tenant="acme", now=NOW).factor_id == "totp"
    assert tool.run("user", "reset", "nobody").status == 66
    assert tool.run("user", "reset", "u2").status == 66  # nothing left to reset (issue 45)


def test_user_delete_and_stats(tool):
    before = json.loads(tool.run("stats", "--json", check_status=0).out)
    assert before["users"] == 10 and before["factors"] == 10
    assert before["kinds"] == [{"tenant": None, "factorId": "totp", "factors": 5, "users": 5},
                               {"tenant": "acme", "factorId": "totp", "factors": 5, "users": 5}]
    table = tool.run("stats", check_status=0)
    assert "total: 10 users, 10 factors" in table.out
    tool.run("user", "delete", "u3", "--tenant", "acme", check_status=0)
    after = json.loads(tool.run("stats", "--json").out)
    assert after["users"] == 9 and after["tenants"][1] == {"tenant": "acme", "users": 4}
    assert tool.run("user", "delete", "nobody", "--tenant", "acme").status == 66
    # A second delete finds nothing either (issue 45): exit 66, nothing audited or written.
    assert tool.run("user", "delete", "u3", "--tenant", "acme").status == 66
    assert json.loads(tool.run("factors", "list", "u3", "--json").out) != []  # the project's u3 stays


def test_config_get_set_update(tool, tmp_path):
    config = json.loads(tool.run("config", "get", check_status=0).out)
    assert config["state"] == "ENABLED" and config["totp"]["adjacentIntervals"] == 5
    tool.run("config", "update", '{"totp":{"adjacentIntervals":2}}', check_status=0)
    assert json.loads(tool.run("config", "get").out)["totp"]["adjacentIntervals"] == 2
    document = tmp_path / "tenant.json"
    document.write_text('{"state":"MANDATORY"}')
    tool.run("config", "set", "@%s" % document, "--tenant", "acme", check_status=0)
    tenant = json.loads(tool.run("config", "get", "--tenant", "acme").out)
    assert tenant["state"] == "MANDATORY" and tenant["totp"]["adjacentIntervals"] == 2
    assert tool.run("config", "update", '{"totp":{"adjacentIntervals":11}}').status == 65
    assert tool.run("config", "set", "{not json").status == 65


def test_exit_statuses_and_help(tool, tmp_path):
    assert tool.run("no-such-command").status == 64
    assert tool.run("factors", "rename").status == 64
    assert tool.run("stats", key=False).status == 64  # no master key given
    assert tool.run("stats", key=False, env={"MFA_MASTER_KEY": "k1:" + bytes(range(32)).hex()}).status == 0
    short = tmp_path / "short.key"
    short.write_text("k1:abcd")
    assert tool.run("stats", key=short).status == 64
    assert tool.run("stats", env={"MFA_STORE": str(tmp_path / "missing" / "dir" / "s.sqlite")}).status == 74
    assert tool.run("keys", "check", key=tool.key2).status == 77  # the factors are under k1
    assert tool.run("audit", "tail").status == 69  # this store keeps no audit trail
    assert tool.run("import", "csv", tmp_path / "absent.csv").status == 66
    for command in (["users", "list"], ["factors", "list"], ["factors", "rename"], ["factors", "remove"],
                    ["user", "reset"], ["user", "delete"], ["import", "otpauth"], ["import", "users-file"],
                    ["import", "csv"], ["import", "google-authenticator"], ["keys", "rotate"], ["keys", "check"],
                    ["config", "get"], ["config", "set"], ["config", "update"], ["purge"], ["audit", "tail"],
                    ["audit", "search"], ["audit", "verify"], ["audit", "purge"], ["stats"]):
        shown = tool.run(*command, "--help", key=False)
        assert shown.status == 0 and "USAGE: mfactl " + " ".join(command) in shown.out, command
    assert tool.run("purge", check_status=0).out.strip() == "purged expired records"
