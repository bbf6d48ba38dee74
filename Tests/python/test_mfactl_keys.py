"""mfactl and master keys (issue 45): the key file forms every tool reads
(mfactl_reads_pam_key_file: the PAM module's 32 raw bytes and "<id> <hex>"
lines, CRLF, comments, an earlier key on a second line), another key under a
known id refused before anything is read or changed (KEY_MISMATCH, exit 77),
`keys check` on a store sealed the old way, `--version`, and `audit tail`
with store options (exit 69 without a stored trail, the events with one)."""

import re
import shutil
import sqlite3

import pytest

import libmfa
from mfactl_support import KEY1, KEY2, Mfactl, context, fresh_store, store_kinds
from shared import REPO

PAM_KEY = bytes(range(200, 232))
SECRET = "JBSWY3DPEHPK3PXP"


@pytest.fixture(params=store_kinds())
def pam_store(request, tmp_path):
    """A store as the PAM module and mfa-enroll write it: key id "pam", one TOTP factor."""
    store = fresh_store(request.param, tmp_path)
    with context(store, key_id="pam", key=PAM_KEY) as ctx:
        ctx.admin("setup").import_factors("otpauth://totp/alice?secret=%s\n" % SECRET, "otpauth")
    return store


def key_file(tmp_path, name, data):
    path = tmp_path / name
    if isinstance(data, bytes):
        path.write_bytes(data)
    else:
        path.write_text(data, newline="")
    path.chmod(0o600)
    return path


def test_mfactl_reads_pam_key_file(pam_store, tmp_path):
    """Issue 45 item 9: every form of the PAM module's key file, as it is."""
    tool = Mfactl(pam_store, tmp_path)
    hexkey = PAM_KEY.hex()
    forms = {
        "raw": (PAM_KEY, ["--key-id", "pam"]),  # head -c 32 /dev/urandom > pam.key
        "hex": (hexkey + "\n", ["--key-id", "pam"]),
        "pam-line": ("pam " + hexkey + "\n", []),
        "pam-tab-crlf-comments": ("# the PAM module's key\r\n\r\npam\t" + hexkey + "\r\n", []),
        "colon": ("pam:" + hexkey, []),
        "two-lines": ("2026-11 " + KEY2.hex() + "\npam " + hexkey + "\n", []),  # a new key first
    }
    for name, (data, words) in forms.items():
        path = key_file(tmp_path, name + ".key", data)
        result = tool.run("factors", "list", "alice", "--json", *words, key=path)
        assert result.status == 0, (name, result)
        assert '"totp"' in result.out, (name, result)
    # The key id comes from the environment too.
    raw = key_file(tmp_path, "raw2.key", PAM_KEY)
    assert tool.run("stats", key=raw, env={"MFA_MASTER_KEY_ID": "pam"}).status == 0
    # A raw key without an id: a usage error that says how to name it.
    result = tool.run("stats", key=raw)
    assert result.status == 64 and "--key-id pam" in result.err, result


def test_mfactl_imports_eight_digit_factors_into_the_pam_store(pam_store, tmp_path):
    """The README's example: 8-digit factors imported with the PAM module's key file."""
    tool = Mfactl(pam_store, tmp_path)
    path = key_file(tmp_path, "pam.key", PAM_KEY)
    csv = tmp_path / "tokens.csv"
    csv.write_text("bob,GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ,Tokens,8\r\n")
    result = tool.run("import", "csv", csv, "--key-id", "pam", "--actor", "ops", key=path)
    assert result.status == 0 and "imported 1" in result.out, result
    with context(pam_store, key_id="pam", key=PAM_KEY) as ctx:
        factors = ctx.admin("check").user_factors("bob")
        assert len(factors) == 1 and factors[0].factor_id == "totp"


def test_mfactl_key_file_forms_refused(pam_store, tmp_path):
    tool = Mfactl(pam_store, tmp_path)
    hexkey = PAM_KEY.hex()
    for data in ("pam " + hexkey + " extra\n", "pam " + hexkey[:-2] + "\n", "pam zz" + hexkey[2:] + "\n",
                 "# nothing\n\n", ":" + hexkey + "\n", "pam " + hexkey + "\npam " + KEY2.hex() + "\n",
                 "".join("k%d %s\n" % (i, hexkey) for i in range(17)), "x" * 9000):
        path = key_file(tmp_path, "bad.key", data)
        result = tool.run("stats", key=path)
        assert result.status == 64, (data[:40], result)
        assert hexkey not in result.err and hexkey[:20] not in result.err


def test_mfactl_key_mismatch(tmp_path):
    """Issue 45 item 7: a mistyped key under the store's key id: refused before anything is read or
    changed, in plain words (exit 77)."""
    store = str(tmp_path / "store.sqlite")
    tool = Mfactl(store, tmp_path)
    csv = tmp_path / "users.csv"
    csv.write_text("alice,%s\n" % SECRET)
    tool.run("import", "csv", csv, check_status=0)
    wrong = key_file(tmp_path, "wrong.key", "k1:" + KEY2.hex() + "\n")
    for command in (["users", "list"], ["factors", "list", "alice"], ["user", "reset", "alice"],
                    ["user", "delete", "alice"], ["import", "csv", str(csv)], ["keys", "rotate"]):
        result = tool.run(*command, key=wrong)
        assert result.status == 77, (command, result)
        assert "KEY_MISMATCH" in result.err and '"k1"' in result.err, result
        assert "not the key this store was written with" in result.err, result
    # Nothing was changed: alice still has her factor, under k1.
    with context(store) as ctx:
        assert len(ctx.admin("check").user_factors("alice")) == 1
    # An earlier key given for rotation is checked too.
    wrong_previous = key_file(tmp_path, "wrong-previous.key", "k1:" + KEY2.hex() + "\n")
    result = tool.run("keys", "rotate", key=tool.key2, previous=[wrong_previous])
    assert result.status == 77 and "KEY_MISMATCH" in result.err, result


def test_mfactl_keys_check_every_seal_format(tmp_path):
    """Issue 45 item 8: a store written by 0.1.0 (sealed the schema-2 way) checked with a new key
    alone reports its factors as failed, never "checked 0"."""
    store = tmp_path / "store-v2.sqlite"
    shutil.copy(REPO / "Tests" / "fixtures" / "store-v2.sqlite", store)
    tool = Mfactl(str(store), tmp_path)
    result = tool.run("keys", "check", "--json", key=tool.key2)
    assert result.status == 77, result
    assert result.json_lines()[-1]["checked"] == 2 and result.json_lines()[-1]["failed"] == 2, result
    with sqlite3.connect(store) as db:
        assert db.execute("SELECT COUNT(*) FROM mfa_factors WHERE seal_format = 1").fetchone()[0] == 2


def test_mfactl_version_names_tool_and_library(tmp_path):
    tool = Mfactl(str(tmp_path / "unused.sqlite"), tmp_path)
    result = tool.run("--version", key=False)
    assert result.status == 0, result
    lines = result.out.splitlines()
    assert re.fullmatch(r"mfactl \d+\.\d+\.\d+", lines[0]) and re.fullmatch(r"libmfa \d+\.\d+\.\d+", lines[1])
    header = re.search(r'#define MFA_VERSION_STRING "([^"]+)"', (REPO / "include" / "mfa_types.h").read_text())
    assert lines == ["mfactl " + header.group(1), "libmfa " + header.group(1)]
    assert lines[1] == "libmfa " + libmfa.version_string()


def test_mfactl_audit_tail_with_store_options_exits_69(tmp_path):
    """Without a stored trail, audit tail exits 69 whatever its options; once the store keeps one, it reads it."""
    tool = Mfactl(str(tmp_path / "store.sqlite"), tmp_path)
    for args in ([], ["--store", str(tmp_path / "store.sqlite")], ["--json"], ["--follow"], ["-n", "20"]):
        result = tool.run("audit", "tail", *args)
        assert result.status == 69 and "not stored" in result.err, (args, result)
    tool.run("config", "update", '{"auditTrail":{"store":true}}', check_status=0)
    for args in ([], ["--store", str(tmp_path / "store.sqlite")], ["--json"], ["-n", "20"]):
        result = tool.run("audit", "tail", *args)
        assert result.status == 0 and "CONFIG_CHANGE" in result.out, (args, result)
