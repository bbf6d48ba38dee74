"""Remembered devices through the Python binding, on SQLite and (when the test
command started a server) PostgreSQL: a device token stands in for the second
factor; expiry (fixed and sliding); revocation by every path; the limit per
user, also when two processes remember devices of one user at once; tenants
and users kept apart; tampered, foreign and malformed tokens ignored and
audited; the operator's calls."""

import os
import subprocess
import sys
import textwrap

import pytest

import libmfa
from conftest import EngineKit
from mfactl_support import fresh_store, store_kinds
from shared import REPO

DEVICES_ON = {"state": "ENABLED", "providers": {"totp": "ENABLED", "recovery": "ENABLED"},
              "recoveryCodes": {"count": 16},
              "rememberedDevices": {"state": "ENABLED", "days": 30, "maxPerUser": 3}}


class DeviceKit(EngineKit):
    """An EngineKit whose users have an authenticator app, with shortcuts for remembered devices."""

    def __init__(self, store, clock):
        super().__init__(store, clock=clock, config=DEVICES_ON)
        self.apps = {}

    def enroll_app(self, user):
        info, app = self.enroll(user)
        self.apps[(user.tenant, user.uid)] = (info, app)
        return info

    def passed(self, user):
        """A resolver of ``user`` that passed the app's code (a new time step)."""
        self.clock.advance(30)
        info, app = self.apps[(user.tenant, user.uid)]
        resolver = self.resolver(user)
        self.resolve(resolver, info.uid, self.code(app))
        return resolver

    def remember(self, user, label="Firefox on Linux"):
        return self.passed(user).remember_device(label)

    def sign_in_with(self, user, token):
        """The SignInResult, or None when a second factor is asked for."""
        user.auth_time = self.clock.now
        try:
            return self.ctx.sign_in(user, device_token=token)
        except libmfa.SecondFactorRequired:
            return None

    def last_refusal(self):
        refusals = [e for e in self.events if e.kind == libmfa.AUDIT_DEVICE_REFUSED]
        return refusals[-1].detail if refusals else None


@pytest.fixture(params=store_kinds())
def dk(request, tmp_path, clock):
    kit = DeviceKit(fresh_store(request.param, tmp_path), clock)
    yield kit
    kit.ctx.close()


def test_a_remembered_device_stands_in_for_the_second_factor(dk):
    user = dk.user()
    dk.enroll_app(user)
    token = dk.remember(user)
    assert token.token.startswith("rd1.") and token.token not in repr(token)
    assert token.device.label == "Firefox on Linux" and token.device.uid == "alice" and token.device.tenant is None
    assert token.device.expires_at == token.device.created_at + 30 * 86400
    dk.clock.advance(3600)
    result = dk.sign_in_with(user, token.token)
    assert result is not None and result.used_remembered_device and result.kind == 0
    assert result.factor_id == libmfa.REMEMBERED_DEVICE_FACTOR_ID == "remembered_device"
    assert result.claims == {"sign_in_second_factor": "remembered_device", "second_factor_identifier": token.device.id}
    event = dk.events[-1]
    assert event.kind == libmfa.AUDIT_SIGN_IN_SUCCESS and event.factor_id == "remembered_device"
    assert event.enrollment_id == token.device.id
    [listed] = dk.ctx.remembered_devices("alice")
    assert listed.id == token.device.id and listed.last_used_at == dk.clock.now
    assert not dk.ctx.passed_second_factor("alice", 3599), "a device is not a second factor for step-up"
    assert dk.sign_in_with(user, None) is None
    assert not any(token.token[4:] in repr(e) for e in dk.events)


def test_only_a_second_factor_remembers_and_once(dk):
    user = dk.user()
    dk.enroll_app(user)
    with pytest.raises(libmfa.InvalidSessionError):
        dk.resolver(user).remember_device()
    resolver = dk.passed(user)
    with pytest.raises(libmfa.InvalidArgumentError):
        resolver.remember_device("x" * 257)
    with pytest.raises(TypeError):
        resolver.remember_device(42)
    resolver.remember_device()
    with pytest.raises(libmfa.InvalidSessionError):
        dk.ctx.remember_device(resolver.session)
    with pytest.raises(libmfa.TenantMismatchError):
        dk.ctx.remember_device(dk.passed(user).session, tenant="other")
    dk.ctx.update_config({"rememberedDevices": {"state": "DISABLED"}})
    with pytest.raises(libmfa.OperationNotAllowedError):
        dk.remember(user)


def test_expiry_fixed_and_sliding(dk):
    user = dk.user()
    dk.enroll_app(user)
    fixed = dk.remember(user)
    dk.clock.advance(29 * 86400)
    assert dk.sign_in_with(user, fixed.token) is not None
    dk.clock.advance(86400)
    assert dk.sign_in_with(user, fixed.token) is None and dk.last_refusal() == "EXPIRED"
    dk.ctx.update_config({"rememberedDevices": {"days": 1, "sliding": True}})
    sliding = dk.remember(user)
    for _ in range(4):
        dk.clock.advance(20 * 3600)
        assert dk.sign_in_with(user, sliding.token) is not None
    dk.clock.advance(25 * 3600)
    assert dk.sign_in_with(user, sliding.token) is None and dk.last_refusal() == "EXPIRED"


def test_revocation_by_every_path(dk):
    user = dk.user()
    app = dk.enroll_app(user)
    admin = dk.ctx.admin("ops")

    def gone(token, detail):
        if not dk.ctx.multi_factor(user).enrolled_factors():
            dk.enroll_app(user)  # with no factor there is no second factor to stand in for
        assert dk.sign_in_with(user, token.token) is None
        assert any(e.kind == libmfa.AUDIT_DEVICE_REVOKED and e.enrollment_id == token.device.id and e.detail == detail
                   for e in dk.events), detail

    one, two = dk.remember(user), dk.remember(user)
    assert dk.ctx.revoke_remembered_devices("alice", one.device.id) == 1
    gone(one, "OK")
    with pytest.raises(libmfa.DeviceNotFoundError):
        dk.ctx.revoke_remembered_devices("alice", one.device.id)
    with pytest.raises(libmfa.DeviceNotFoundError):
        dk.ctx.revoke_remembered_devices("bob", two.device.id)
    assert dk.ctx.revoke_remembered_devices("alice") == 1
    gone(two, "OK")
    three = dk.remember(user)
    dk.ctx.revoke_tokens("alice")  # what a host does when the password changes
    gone(three, "TOKENS_REVOKED")
    four = dk.remember(user)
    user.auth_time = dk.clock.now
    dk.ctx.multi_factor(user).unenroll(app)
    gone(four, "LAST_FACTOR_REMOVED")
    five = dk.remember(user)
    admin.reset_user("alice")
    gone(five, "USER_RESET")
    six = dk.remember(user)
    admin.delete_user("alice")
    gone(six, "USER_DELETED")
    seven = dk.remember(user)
    assert [d.id for d in admin.remembered_devices("alice")] == [seven.device.id]
    assert admin.revoke_remembered_devices("alice") == 1
    gone(seven, "ADMIN")
    assert [e.actor for e in dk.events if e.kind == libmfa.AUDIT_DEVICE_REVOKED][-1] == "ops"


def test_limit_per_user_forgets_the_least_recently_used(dk):
    user = dk.user()
    dk.enroll_app(user)
    tokens = [dk.remember(user, "d%d" % index) for index in range(3)]
    dk.clock.advance(5)
    assert dk.sign_in_with(user, tokens[0].token) is not None
    dk.remember(user, "d3")
    assert sorted(d.label for d in dk.ctx.remembered_devices("alice")) == ["d0", "d2", "d3"]
    assert dk.sign_in_with(user, tokens[1].token) is None and dk.last_refusal() == "UNKNOWN"
    assert [e.detail for e in dk.events if e.kind == libmfa.AUDIT_DEVICE_REVOKED] == ["LIMIT"]


def test_ignored_tokens(dk):
    alice, bob, other = dk.user(), dk.user("bob"), dk.user("alice", tenant="t1")
    for user in (alice, bob, other):
        dk.enroll_app(user)
    dk.ctx.set_config(DEVICES_ON, tenant="t1")
    token = dk.remember(alice).token
    tenant_token = dk.remember(other).token
    assert dk.sign_in_with(bob, token) is None and dk.last_refusal() == "FOREIGN"
    assert dk.sign_in_with(other, token) is None and dk.last_refusal() == "FOREIGN"
    assert dk.sign_in_with(alice, tenant_token) is None and dk.last_refusal() == "FOREIGN"
    flipped = token[:-2] + ("A" if token[-2] != "A" else "B") + token[-1]
    assert dk.sign_in_with(alice, flipped) is None and dk.last_refusal() == "TAMPERED"
    refusals = len(dk.events)
    assert dk.sign_in_with(alice, "") is None and len(dk.events) == refusals, "no token: nothing to refuse"
    for garbage in ["rd1.", "rd1.abc", "x" * 10000, token + "A", "v2." + token[4:]]:
        assert dk.sign_in_with(alice, garbage) is None and dk.last_refusal() == "MALFORMED"
    with pytest.raises(libmfa.InvalidArgumentError):
        dk.sign_in_with(alice, "rd1.\0")
    with pytest.raises(TypeError):
        dk.sign_in_with(alice, 1234)
    dk.ctx.set_config({"rememberedDevices": {"state": "DISABLED"}}, tenant="t1")
    assert dk.sign_in_with(other, tenant_token) is None and dk.last_refusal() == "DISABLED"
    assert dk.sign_in_with(alice, token) is not None


WORKER = textwrap.dedent("""
    import sys
    import libmfa

    store, now, role = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    credentials = sys.argv[4:]
    ctx = libmfa.Context(store, master_key=bytes(range(32)), clock=lambda: now)
    print("ready", flush=True)
    sys.stdin.readline()  # the start line: both workers go at once
    remembered = refused = 0
    for credential in credentials:
        try:
            ctx.remember_device(credential, label=role)
            remembered += 1
        except libmfa.InvalidSessionError:
            refused += 1
    print("%d %d" % (remembered, refused), flush=True)
    ctx.close()
""")


def race(store, now, first, second):
    """Two processes remember devices with their lists of pending credentials at once: (remembered, refused) each."""
    env = dict(os.environ, PYTHONPATH=str(REPO / "python"))
    workers = [subprocess.Popen([sys.executable, "-c", WORKER, store, str(now), name] + credentials,
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
               for name, credentials in (("one", first), ("two", second))]
    for worker in workers:
        assert worker.stdout.readline().strip() == "ready"
    for worker in workers:
        worker.stdin.write("go\n")
        worker.stdin.flush()
    answers = []
    for worker in workers:
        out, _ = worker.communicate(timeout=120)
        assert worker.returncode == 0
        answers.append(tuple(int(n) for n in out.split()))
    return answers


def test_two_processes_racing_on_the_limit(tmp_path, clock):
    kind = "postgres" if "postgres" in store_kinds() else "sqlite"
    store = fresh_store(kind, tmp_path) if kind == "postgres" else str(tmp_path / "race.sqlite")
    kit = EngineKit(store, clock=clock, config=DEVICES_ON)
    try:
        user = kit.user()
        codes = libmfa.RecoveryCodesMultiFactorGenerator.generate_codes(kit.ctx.multi_factor(user).session())
        credentials = []
        for code in codes.codes:
            resolver = kit.resolver(user)
            resolver.resolve_sign_in(libmfa.RecoveryCodesMultiFactorGenerator.assertion_for_sign_in(code))
            credentials.append(resolver.session)
        # Six sign-ins each, remembered at once: three devices stay, nine are forgotten.
        answers = race(store, clock.now, credentials[0:6], credentials[6:12])
        assert answers == [(6, 0), (6, 0)]
        assert len(kit.ctx.remembered_devices("alice")) == 3
        # The same four sign-ins in both: each remembers one device, once.
        answers = race(store, clock.now, credentials[12:16], credentials[12:16])
        assert sum(a[0] for a in answers) == 4 and sum(a[1] for a in answers) == 4
        assert len(kit.ctx.remembered_devices("alice")) == 3
    finally:
        kit.ctx.close()
