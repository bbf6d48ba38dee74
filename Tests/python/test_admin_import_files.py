"""libmfa.Admin's importers on files as operators have them (issue 45, items 2 to 6):
CSV as Python's csv module and spreadsheets write it (CR LF, quoted commas, quotes
and line breaks), Excel's "CSV UTF-8" (a byte order mark), swapped columns and
lone secrets (never in a report), control characters in names (refused at every
entry point the binding reaches), and a pam_oath users file rewritten by liboath
itself after a login (its last code stays used)."""

import csv
import io
import os
import time

import pyotp
import pytest

import libmfa
from conftest import Clock, EngineKit
from import_files_support import b32, local_time_far_east, pam_oath_login  # noqa: F401

RFC_KEY = b"12345678901234567890"
RFC_BASE32 = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"
RFC_HEX = RFC_KEY.hex()
ACTOR = "ops:migration"
ALL_TOTP = {"state": "ENABLED", "providers": {"totp": "ENABLED"}}


@pytest.fixture
def kit(clock, tmp_path):
    made = EngineKit(str(tmp_path / "store.sqlite"), clock=clock, config=ALL_TOTP)
    yield made
    made.ctx.close()


def admin(kit):
    return kit.ctx.admin(ACTOR)


def sign_in(kit, uid, code):
    resolver = kit.resolver(kit.user(uid))
    hint = next(h for h in resolver.hints if h.factor_id == "totp")
    return kit.resolve(resolver, hint.uid, code)


def spreadsheet_csv(rows):
    """The CSV text Python's csv module writes (its default dialect is Excel's: CR LF, minimal quoting)."""
    out = io.StringIO(newline="")
    csv.writer(out).writerows(rows)
    return out.getvalue()


def test_crlf_csv_as_a_spreadsheet_writes_it(kit):
    rows = [["uid", "secret", "issuer", "digits", "period", "algorithm"],
            ["alice", RFC_BASE32, "ACME, Inc.", "", "", ""],
            ["bob", RFC_BASE32, 'the "new" app', "8", "60", "SHA256"],
            ["carol", RFC_BASE32, "", "", "", ""]]
    text = spreadsheet_csv(rows)
    assert '"ACME, Inc."' in text and '"the ""new"" app"' in text and text.count("\r\n") == 4
    summary = admin(kit).import_factors(text, "csv")
    assert (summary.lines, summary.imported, summary.failed) == (4, 3, 0), summary.reports
    assert [r.line for r in summary.reports] == [2, 3, 4]
    names = {uid: admin(kit).user_factors(uid)[0].display_name for uid in ("alice", "bob", "carol")}
    assert names == {"alice": "ACME, Inc.", "bob": 'the "new" app', "carol": None}
    assert sign_in(kit, "alice", libmfa.TOTP(RFC_KEY).at(kit.clock.now)).factor_id == "totp"
    bob = libmfa.TOTP(RFC_KEY, digits=8, period=60, algorithm="SHA256")
    assert sign_in(kit, "bob", bob.at(kit.clock.now)).factor_id == "totp"


def test_crlf_a_quoted_line_break_is_one_record_and_the_next_line_is_read(kit):
    text = spreadsheet_csv([["alice", RFC_BASE32, "two\nlines"], ["bob", RFC_BASE32, "ACME"]])
    summary = admin(kit).import_factors(text, "csv")
    # alice's record spans lines 1 and 2; a line break is no part of a name, so it fails; bob is line 3.
    assert summary.lines == 3 and summary.imported == 1 and summary.failed == 1
    assert [(r.line, r.outcome_name) for r in summary.reports] == [(1, "FAILED"), (3, "IMPORTED")]
    assert "issuer" in summary.reports[0].reason and summary.reports[0].uid == "alice"


def test_crlf_users_file_and_uris_with_cr_lf_and_lone_cr(kit):
    users = "# pam_oath\r\nHOTP/T30 dave - %s\r\nHOTP/T30/6 erin - %s 0\r\n" % (RFC_HEX, RFC_HEX)
    assert admin(kit).import_factors(users, "users_file").imported == 2
    uris = "otpauth://totp/ACME:frank?secret=%s\rotpauth://totp/gina?secret=%s\r" % (RFC_BASE32, RFC_BASE32)
    summary = admin(kit).import_factors(uris, "otpauth")
    assert summary.lines == 2 and summary.imported == 2


def test_crlf_nothing_to_import_is_a_failed_line_not_a_quiet_success(kit):
    for text, form in (("uid,secret\r\n", "csv"), ("\ufeff", "csv"), ("# none\r\n\r\n", "otpauth"), ("", "users_file")):
        summary = admin(kit).import_factors(text, form)
        assert summary.failed == 1 and summary.imported == 0, (text, form)
        assert [r.line for r in summary.reports] == [1]


def test_bom_excel_csv_utf8(kit):
    """Excel's "CSV UTF-8": a byte order mark, then CR LF lines; every format skips a leading mark."""
    data = spreadsheet_csv([["uid", "secret", "issuer"], ["zoë", RFC_BASE32, "Café"]]).encode("utf-8-sig")
    assert data.startswith(b"\xef\xbb\xbf")
    summary = admin(kit).import_factors(data, "csv")
    assert (summary.imported, summary.failed) == (1, 0) and [r.line for r in summary.reports] == [2]
    assert admin(kit).user_factors("zoë")[0].display_name == "Café"
    assert admin(kit).import_factors("\ufeffotpauth://totp/yan?secret=%s\n" % RFC_BASE32, "otpauth").imported == 1
    assert admin(kit).import_factors("\ufeffHOTP/T30 xia - %s\n" % RFC_HEX, "users_file").imported == 1
    ga = admin(kit).import_google_authenticator("\ufeff%s\n\" TOTP_AUTH\n" % RFC_BASE32, "wu")
    assert (ga.imported, ga.failed) == (1, 0)
    # Excel's "Unicode Text" is UTF-16: refused whole, nothing half-read.
    with pytest.raises(libmfa.InvalidArgumentError):
        admin(kit).import_factors(("uid,secret\r\nvic,%s\r\n" % RFC_BASE32).encode("utf-16"), "csv")


SECRETS = (RFC_BASE32, RFC_BASE32.lower(), RFC_HEX, "GEZD GNBV GY3T QOJQ")


def test_report_uid_secret_swapped_columns_and_lone_secrets(kit):
    csv_text = "\n".join([
        "%s,alice" % RFC_BASE32,             # swapped columns
        RFC_BASE32,                          # only the secret
        "bob;%s;ACME" % RFC_BASE32,          # another separator
        "%s,carol" % RFC_BASE32.lower(),     # swapped, lower case
        "GEZD GNBV GY3T QOJQ,dave",          # swapped, in groups
        "%s,erin" % RFC_HEX,                 # a hex secret where the uid goes
        "frank,not-base32",                  # an ordinary uid: shown
    ]) + "\n"
    summary = admin(kit).import_factors(csv_text, "csv")
    users = admin(kit).import_factors("HOTP/T30 %s\nHOTP/T30\t%s\t-\n" % (RFC_HEX, RFC_HEX), "users_file")
    uris = admin(kit).import_factors("otpauth://totp/%s?secret=%s\n" % (RFC_BASE32, RFC_BASE32), "otpauth")
    reports = summary.reports + users.reports + uris.reports
    for report in reports:
        for secret in SECRETS:
            assert secret not in (report.uid or "") and secret not in report.reason, report
    assert [r.uid for r in summary.reports] == [None] * 6 + ["frank"]
    assert summary.failed == 7 and users.failed == 2 and uris.imported == 1 and uris.reports[0].uid is None


BAD_NAMES = ["ali\x01ce", "ali\nce", "ali\x1b[31mce", "ali\x7fce", "ali\x85ce", "ali\u2028ce", "ali\u202ece",
             "ali\u2066ce", "\ufeffalice"]


@pytest.mark.parametrize("bad", BAD_NAMES, ids=lambda name: name.encode("unicode_escape").decode())
def test_control_char_refused_at_every_entry_point(kit, bad):
    info, _ = kit.enroll(kit.user("alice"), "phone")
    calls = {
        "uid": [lambda: kit.ctx.sign_in(kit.user(bad)),
                lambda: kit.ctx.multi_factor(kit.user(bad)).session(),
                lambda: kit.ctx.revoke_tokens(bad),
                lambda: admin(kit).user_factors(bad),
                lambda: admin(kit).delete_user(bad),
                lambda: admin(kit).import_google_authenticator(RFC_BASE32 + "\n\" TOTP_AUTH\n", bad)],
        "tenant": [lambda: kit.ctx.sign_in(kit.user("alice", tenant=bad)),
                   lambda: kit.ctx.set_config(ALL_TOTP, tenant=bad),
                   lambda: admin(kit).import_factors("", "csv", tenant=bad)],
        "display name": [lambda: admin(kit).rename(info, bad)],
        "actor": [lambda: kit.ctx.admin(bad).rename(info, "x")],
    }
    for field, tries in calls.items():
        for call in tries:
            with pytest.raises(libmfa.InvalidArgumentError, match="%s holds a control character" % field):
                call()
    assert admin(kit).user_factors("alice")[0].display_name == "phone"


@pytest.mark.parametrize("bad", BAD_NAMES + ["ali\x00ce"], ids=lambda name: name.encode("unicode_escape").decode())
def test_control_char_in_an_imported_uid_fails_its_line(kit, bad):
    quoted = '"%s"' % bad
    summary = admin(kit).import_factors("%s,%s\ncarol,%s,%s\n" % (quoted, RFC_BASE32, RFC_BASE32, quoted), "csv")
    assert summary.failed == 2 and summary.imported == 0, summary.reports
    if "\n" not in bad:
        users = admin(kit).import_factors("HOTP/T30 %s - %s\n" % (bad, RFC_HEX), "users_file")
        assert users.failed == 1 and users.imported == 0
    assert admin(kit).stats().total_factors == 0
    assert admin(kit).user_factors("ali") == []


# --- pam_oath's last code, written by liboath itself --------------------------------------------


def test_pam_oath_last_otp_from_liboath(tmp_path, local_time_far_east):  # noqa: F811
    alice, bob = os.urandom(20), os.urandom(20)
    users_file = tmp_path / "users.oath"
    users_file.write_text("HOTP/T30 alice - %s\nHOTP/T30 bob - %s\n" % (alice.hex(), bob.hex()))
    code = pyotp.TOTP(b32(alice)).now()
    assert pam_oath_login(users_file, "alice", code) == 0  # OATH_OK
    written = users_file.read_text()
    line = next(line for line in written.splitlines() if "\talice\t" in line)
    fields = line.split("\t")
    assert fields[5] == code and fields[6].endswith("L"), written  # the last code and its local time
    now = int(time.time())
    kit = EngineKit(str(tmp_path / "store.sqlite"), clock=Clock(now), config=ALL_TOTP)
    try:
        summary = admin(kit).import_factors(written, "users_file")
        assert (summary.imported, summary.failed) == (2, 0)
        assert "stays used" in summary.reports[0].reason
        # The code pam_oath accepted just before the migration is refused; bob, who never logged in, is not hindered.
        with pytest.raises(libmfa.InvalidVerificationCodeError):
            sign_in(kit, "alice", code)
        assert sign_in(kit, "bob", pyotp.TOTP(b32(bob)).at(now)).factor_id == "totp"
    finally:
        kit.ctx.close()
    later = EngineKit(str(tmp_path / "store.sqlite"), clock=Clock(now + 30), config=None)
    try:
        assert sign_in(later, "alice", pyotp.TOTP(b32(alice)).at(now + 30)).factor_id == "totp"
    finally:
        later.ctx.close()
