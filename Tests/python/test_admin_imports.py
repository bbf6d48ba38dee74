"""libmfa.Admin's importers: otpauth URIs, pam_oath users files, CSV and
google-authenticator files; per-line reports, re-runs, batches and progress (stopped
and resumed), callbacks that raise, the actor in the audit events, every bad input.
On SQLite and PostgreSQL."""

import pytest

import libmfa
from admin_support import ACTOR, LONG_ID, world  # noqa: F401

RFC_BASE32 = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"  # "12345678901234567890"
RFC_HEX = "3132333435363738393031323334353637383930"
RFC_KEY = b"12345678901234567890"
#: What no report and no audit event may hold.
SECRETS = (RFC_BASE32, RFC_BASE32.lower(), RFC_HEX, "JBSWY3DPEHPK3PXP", "12345678", "87654321")

OTPAUTH = (
    "otpauth://totp/ACME:ot-alice?secret=" + RFC_BASE32 + "&issuer=ACME\n"
    "# a comment\n"
    "\n"
    "otpauth://hotp/ACME:ot-bob?secret=" + RFC_BASE32 + "&counter=3\n"
    "otpauth://totp/ACME:ot-carol?secret=not*base32\n"
    "https://example.com/\n"
    "otpauth://totp/ACME:ot-dave?secret=JBSWY3DPEHPK3PXP&digits=8&period=60&algorithm=SHA256\n"
)


def outcomes(reports):
    letters = {libmfa.IMPORT_IMPORTED: "I", libmfa.IMPORT_ALREADY_IMPORTED: "A", libmfa.IMPORT_UNSUPPORTED: "U",
               libmfa.IMPORT_FAILED: "F", libmfa.IMPORT_NOTE: "N"}
    for report in reports:
        assert report.outcome_name == {"I": "IMPORTED", "A": "ALREADY_IMPORTED", "U": "UNSUPPORTED",
                                       "F": "FAILED", "N": "NOTE"}[letters[report.outcome]]
        assert report.reason
        for secret in SECRETS:
            assert secret not in report.reason and secret not in (report.uid or ""), report
    return " ".join("%d:%s" % (report.line, letters[report.outcome]) for report in reports)


def no_secrets_in_events(world):
    for event in world.kit.events:
        for secret in SECRETS:
            assert secret not in repr(event), event


def sign_in(world, uid, enrollment_id, totp, tenant=None):
    kit = world.kit
    resolver = kit.resolver(kit.user(uid, tenant=tenant))
    return kit.resolve(resolver, enrollment_id, totp.at(kit.clock.now))


def test_otpauth(world):
    summary = world.admin.import_factors(OTPAUTH, "otpauth")
    assert (summary.lines, summary.imported, summary.unsupported, summary.failed) == (7, 3, 0, 2)
    assert summary.already_imported == 0 and summary.recovery_codes == 0 and not summary.stopped
    assert outcomes(summary.reports) == "1:I 4:I 5:F 6:F 7:I"
    alice = summary.reports[0]
    assert alice.uid == "ot-alice" and len(alice.enrollment_id) == 28
    bob = summary.reports[1]
    assert "HOTP" in bob.reason and len(bob.enrollment_id) == 28
    imported = [e for e in world.events(libmfa.AUDIT_ENROLL)]
    assert len(imported) == 3 and {e.detail for e in imported} == {"IMPORTED"} and {e.actor for e in imported} == {ACTOR}
    # The HOTP factor starts at the URI's counter.
    hotp = libmfa.HOTP(RFC_KEY)
    resolver = world.kit.resolver(world.kit.user("ot-bob"))
    with pytest.raises(libmfa.InvalidVerificationCodeError):
        resolver.resolve_sign_in(libmfa.HOTPMultiFactorGenerator.assertion_for_sign_in(bob.enrollment_id,
                                                                                       hotp.at(2)))
    assert resolver.resolve_sign_in(libmfa.HOTPMultiFactorGenerator.assertion_for_sign_in(
        bob.enrollment_id, hotp.at(3))).factor_id == "hotp"
    assert world.admin.user_factors("ot-alice")[0].display_name == "ACME"
    result = sign_in(world, "ot-alice", alice.enrollment_id, libmfa.TOTP(RFC_KEY))
    assert result.enrollment_id == alice.enrollment_id
    dave = libmfa.TOTP(libmfa.base32_decode("JBSWY3DPEHPK3PXP"), digits=8, period=60, algorithm="SHA256")
    assert sign_in(world, "ot-dave", summary.reports[4].enrollment_id, dave).factor_id == "totp"
    # A re-run stores nothing and names the factors found.
    world.kit.clock.advance(30)
    world.kit.events.clear()
    again = world.admin.import_factors(OTPAUTH.encode(), libmfa.IMPORT_OTPAUTH)
    assert (again.imported, again.already_imported, again.failed, again.unsupported) == (0, 3, 2, 0)
    assert outcomes(again.reports) == "1:A 4:A 5:F 6:F 7:A"
    assert again.reports[0].enrollment_id == alice.enrollment_id
    assert world.events(libmfa.AUDIT_ENROLL) == []
    no_secrets_in_events(world)


def test_users_file_in_a_tenant(world):
    text = ("# pam_oath users file\n"
            "HOTP/T30/6 uf-alice - " + RFC_HEX + "\n"
            "HOTP/T60/8\tuf-bob\t1234\t" + RFC_HEX + " 0 755224 2024-01-01T00:00:00L\n"
            "HOTP uf-carol - " + RFC_HEX + "\n"
            "HOTP/E/8 uf-dave - " + RFC_HEX + "\n"
            "HOTP/T30 uf-erin - 12345\n"
            "HOTP/T30 uf-frank\n")
    world.kit.ctx.set_config({"state": "ENABLED", "providers": {"totp": "ENABLED"}}, tenant="corp")
    summary = world.admin.import_factors(text, "users_file", tenant="corp")
    assert (summary.lines, summary.imported, summary.unsupported, summary.failed) == (7, 4, 0, 2)
    assert outcomes(summary.reports) == "2:I 3:I 4:I 5:I 6:F 7:F"
    assert "PIN" in summary.reports[1].reason
    assert {e.tenant for e in world.events(libmfa.AUDIT_ENROLL)} == {"corp"}
    assert sign_in(world, "uf-alice", summary.reports[0].enrollment_id, libmfa.TOTP(RFC_KEY), "corp")
    assert world.admin.user_factors("uf-alice") == []  # not in the project
    assert [f.factor_id for f in world.admin.user_factors("uf-dave", tenant="corp")] == ["hotp"]
    assert world.admin.import_factors(text, "users-file", tenant="corp").already_imported == 4


def test_csv(world):
    text = ("uid,secret,issuer,digits,period,algorithm\n"
            "csv-alice," + RFC_BASE32 + ",ACME,,,\n"
            "\"csv-bob\",\"JBSWY3DPEHPK3PXP\",\"ACME, Inc.\",8,60,SHA256\n"
            "csv-carol,!!!,ACME,6,30,SHA1\n"
            "csv-dave," + RFC_BASE32 + ",ACME,9,30,SHA1\n")
    summary = world.admin.import_factors(text, "CSV")
    assert (summary.lines, summary.imported, summary.failed) == (5, 2, 2)
    assert outcomes(summary.reports) == "2:I 3:I 4:F 5:F"
    assert world.admin.user_factors("csv-bob")[0].display_name == "ACME, Inc."
    bob = libmfa.TOTP(libmfa.base32_decode("JBSWY3DPEHPK3PXP"), digits=8, period=60, algorithm="SHA256")
    assert sign_in(world, "csv-bob", summary.reports[1].enrollment_id, bob).uid == "csv-bob"


def test_google_authenticator(world):
    text = (RFC_BASE32 + "\n"
            "\" RATE_LIMIT 3 30 1700000000\n"
            "\" WINDOW_SIZE 17\n"
            "\" TOTP_AUTH\n"
            "12345678\n"
            "87654321\n"
            "1234\n")
    summary = world.admin.import_google_authenticator(text, "ga-alice")
    assert (summary.lines, summary.imported, summary.recovery_codes, summary.failed) == (7, 1, 2, 1)
    assert outcomes(summary.reports) == "1:I 2:N 3:N 4:N 5:I 6:I 7:F"
    assert summary.reports[0].uid == "ga-alice" and "5" in summary.reports[2].reason
    assert len(world.events(libmfa.AUDIT_ENROLL)) == 2  # the factor and the recovery-code set
    assert {e.actor for e in world.events(libmfa.AUDIT_ENROLL)} == {ACTOR}
    # Stored in the same second, listed in the file's order: the factor, then its scratch codes.
    kinds = [f.factor_id for f in world.admin.user_factors("ga-alice")]
    assert kinds == ["totp", "recovery"]
    # A scratch code signs in as a recovery code, the secret as TOTP.
    kit = world.kit
    resolver = kit.resolver(kit.user("ga-alice"))
    result = resolver.resolve_sign_in(libmfa.RecoveryCodesMultiFactorGenerator.assertion_for_sign_in("8765-4321"))
    assert result.used_recovery_code and result.claims["recovery_codes_remaining"] == "1"
    kit.clock.advance(30)
    assert sign_in(world, "ga-alice", summary.reports[0].enrollment_id, libmfa.TOTP(RFC_KEY)).factor_id == "totp"
    # A re-run stores nothing.
    again = world.admin.import_google_authenticator(text.encode(), b"ga-alice")
    assert again.imported == 0 and again.already_imported >= 1 and again.recovery_codes == 0
    # Without TOTP_AUTH the file is counter-based: HOTP at its HOTP_COUNTER; without that line, refused.
    hotp = world.admin.import_google_authenticator(RFC_BASE32 + "\n\" HOTP_COUNTER 1\n12345678\n", "ga-bob")
    assert hotp.imported == 1 and hotp.recovery_codes == 1 and hotp.unsupported == 0
    assert [f.factor_id for f in world.admin.user_factors("ga-bob")] == ["hotp", "recovery"]
    uncounted = world.admin.import_google_authenticator(RFC_BASE32 + "\n12345678\n", "ga-eve")
    assert uncounted.imported == 0 and "HOTP_COUNTER" in uncounted.reports[0].reason
    assert world.admin.user_factors("ga-eve") == []
    # An empty file is one failed line; in a tenant.
    world.kit.ctx.set_config({"state": "ENABLED", "providers": {"totp": "ENABLED"}}, tenant="corp")
    empty = world.admin.import_google_authenticator("", "ga-bob", tenant="corp")
    assert empty.failed == 1 and empty.imported == 0
    assert world.admin.import_google_authenticator(text, "ga-carol", tenant="corp").imported == 1
    assert len(world.admin.user_factors("ga-carol", tenant="corp")) == 2
    no_secrets_in_events(world)


def test_report_callback(world):
    lines = []
    summary = world.admin.import_factors(OTPAUTH, "otpauth", report=lines.append)
    assert summary.reports == () and outcomes(lines) == "1:I 4:I 5:F 6:F 7:I"
    assert all(isinstance(line, libmfa.ImportLine) for line in lines)
    ga = []
    world.admin.import_google_authenticator(RFC_BASE32 + "\n\" TOTP_AUTH\n", "ga-u", report=ga.append)
    assert outcomes(ga) == "1:I 2:N"


BATCH = "".join("otpauth://totp/b-u%d?secret=JBSWY3DPEHPK3PX%s\n" % (i, "ABCDEF"[i - 1]) for i in range(1, 7))


def test_batches_stopped_and_resumed(world):
    calls = []

    def stop_at_once(done, total):
        calls.append((done, total))
        return False

    first = world.admin.import_factors(BATCH, "otpauth", batch_size=2, progress=stop_at_once)
    assert first.stopped and first.imported == 2 and first.lines == 6 and calls == [(2, 6)]
    assert outcomes(first.reports) == "1:I 2:I"
    calls.clear()
    again = world.admin.import_factors(BATCH, "otpauth", batch_size=4, progress=lambda d, t: calls.append((d, t)))
    assert not again.stopped and again.imported == 4 and again.already_imported == 2
    assert outcomes(again.reports) == "1:A 2:A 3:I 4:I 5:I 6:I"
    assert calls == [(4, 6), (6, 6)]
    # Progress that returns None or True goes on; the largest batch is fine.
    assert world.admin.import_factors(BATCH, "otpauth", batch_size=libmfa.IMPORT_BATCH_MAX,
                                      progress=lambda d, t: True).already_imported == 6


class Boom(Exception):
    pass


def test_a_raising_callback_stops_the_import_and_is_raised(world):
    def progress(done, total):
        raise Boom("progress")

    with pytest.raises(Boom, match="progress"):
        world.admin.import_factors(BATCH, "otpauth", batch_size=2, progress=progress)
    assert [u.uid for u in world.admin.list_users(tenant=None, factor_id="totp")
            if u.uid.startswith("b-")] == ["b-u1", "b-u2"]  # the first batch is stored

    seen = []

    def report(line):
        seen.append(line.line)
        if line.line == 3:
            raise Boom("report")

    with pytest.raises(Boom, match="report"):
        world.admin.import_factors(BATCH, "otpauth", batch_size=2, report=report)
    assert seen == [1, 2, 3]  # no line reported after the exception; the import stopped after its batch
    stored = [u.uid for u in world.admin.list_users(tenant=None) if u.uid.startswith("b-")]
    assert stored == ["b-u1", "b-u2", "b-u3", "b-u4"]
    with pytest.raises(KeyboardInterrupt):
        world.admin.import_factors(BATCH, "otpauth", batch_size=1,
                                   progress=lambda d, t: (_ for _ in ()).throw(KeyboardInterrupt()))
    with pytest.raises(Boom):
        world.admin.import_google_authenticator(RFC_BASE32 + "\n\" TOTP_AUTH\n", "ga-u",
                                                report=lambda line: (_ for _ in ()).throw(Boom()))
    # Callbacks must not call back into the context.
    inner = []

    def reenter(line):
        try:
            world.admin.stats()
        except RuntimeError as error:
            inner.append(str(error))

    world.admin.import_factors(BATCH, "otpauth", report=reenter)
    assert inner and "callbacks must not call back" in inner[0]


def test_factor_limit_refuses_a_line_and_the_batch_goes_on(world):
    world.kit.ctx.set_config({"state": "ENABLED", "providers": {"totp": "ENABLED"}, "limits": {"maxFactors": 1}},
                             tenant="lim")
    world.admin.import_factors("otpauth://totp/l-u1?secret=JBSWY3DPEHPK3PXA\n", "otpauth", tenant="lim")
    summary = world.admin.import_factors("otpauth://totp/l-u1?secret=JBSWY3DPEHPK3PXZ\n"
                                         "otpauth://totp/l-u2?secret=JBSWY3DPEHPK3PXZ\n", "otpauth", tenant="lim")
    assert summary.failed == 1 and summary.imported == 1 and outcomes(summary.reports) == "1:F 2:I"


def test_bad_input(world):
    admin = world.admin
    line = "otpauth://totp/bad-u?secret=" + RFC_BASE32 + "\n"
    for fmt in ("ga", "", "google_authenticator", 0, 5, -1, 2**31 - 1):
        with pytest.raises(libmfa.InvalidArgumentError):
            admin.import_factors(line, fmt)
    for fmt in (None, 1.0, b"csv"):
        with pytest.raises(TypeError):
            admin.import_factors(line, fmt)
    with pytest.raises(libmfa.InvalidArgumentError):
        admin.import_factors(line, 2**40)
    for text in (b"otpauth\xff\n", "bad-u \udcff\n"):
        with pytest.raises(libmfa.InvalidArgumentError):
            admin.import_factors(text, "otpauth")
        with pytest.raises(libmfa.InvalidArgumentError):
            admin.import_google_authenticator(text, "bad-u")
    for text in (None, 5, ["x"]):
        with pytest.raises(TypeError):
            admin.import_factors(text, "otpauth")
        with pytest.raises(TypeError):
            admin.import_google_authenticator(text, "bad-u")
    for size in (0, -1, libmfa.IMPORT_BATCH_MAX + 1, -(2**31)):
        with pytest.raises(libmfa.InvalidArgumentError):
            admin.import_factors(line, "otpauth", batch_size=size)
    with pytest.raises(libmfa.InvalidArgumentError):
        admin.import_factors(line, "otpauth", batch_size=2**31)
    with pytest.raises(TypeError):
        admin.import_factors(line, "otpauth", batch_size="10")
    for tenant in ("", b"\xff", LONG_ID):
        with pytest.raises(libmfa.InvalidArgumentError):
            admin.import_factors(line, "otpauth", tenant=tenant)
        with pytest.raises(libmfa.InvalidArgumentError):
            admin.import_google_authenticator(line, "bad-u", tenant=tenant)
    for uid in ("", b"bad-u\xff", LONG_ID):
        with pytest.raises(libmfa.InvalidArgumentError):
            admin.import_google_authenticator(line, uid)
    with pytest.raises(TypeError):
        admin.import_google_authenticator(line, None)
    for name in ("report", "progress"):
        with pytest.raises(TypeError):
            admin.import_factors(line, "otpauth", **{name: "not callable"})
    with pytest.raises(TypeError):
        admin.import_google_authenticator(line, "bad-u", report=5)
    assert admin.user_factors("bad-u") == [] and world.kit.events == []
    # Empty text names no factor: one FAILED line, never a quiet success. A NUL byte is text like any
    # other (that line fails, the next is imported).
    empty = admin.import_factors("", "otpauth")
    assert (empty.lines, empty.failed, empty.imported) == (1, 1, 0)
    with_nul = ("otpauth://totp/nul-u?secret=GEZDGNBV\0GY3TQOJQGEZDGNBVGY3TQOJQ\n"
                "otpauth://totp/nul-v?secret=" + RFC_BASE32 + "\n")
    summary = admin.import_factors(with_nul, "otpauth")
    assert outcomes(summary.reports) == "1:F 2:I"
    assert admin.import_factors(memoryview(with_nul.encode()), "otpauth").already_imported == 1
