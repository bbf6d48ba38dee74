"""libmfa.Admin, the calls that change something: rename, unenroll, reset and delete a
user, each audited with the actor; what they revoke; every bad input refused with
nothing written and nothing audited. On SQLite and PostgreSQL."""

import pytest

import libmfa
from libmfa.models import AUDIT_KINDS
from admin_support import ACTOR, BAD_ACTORS, LONG_ID, world  # noqa: F401

GEN = libmfa.TOTPMultiFactorGenerator


def only(events):
    assert len(events) == 1, events
    return events[0]


def test_rename(world):
    admin, bob = world.admin, world.factors["bob_totp"]
    renamed = admin.rename(bob.uid, "Work phone")
    assert renamed.uid == "u-bob" and renamed.tenant is None and renamed.info.display_name == "Work phone"
    event = only(world.events(libmfa.AUDIT_FACTOR_RENAMED))
    assert event.actor == ACTOR and event.kind_name == "FACTOR_RENAMED" and event.uid == "u-bob"
    assert event.enrollment_id == bob.uid and event.factor_id == "totp" and event.tenant is None
    assert world.kit.ctx.multi_factor(world.users[(None, "u-bob")]).enrolled_factors()[0].display_name == "Work phone"
    # By its MultiFactorInfo or AdminFactor; None and "" remove the name; the longest name.
    assert admin.rename(bob, None).info.display_name is None
    assert admin.rename(renamed, "n" * 256).info.display_name == "n" * 256
    assert admin.rename(bob, "").info.display_name is None
    assert admin.rename(bob, "Bürotelefon".encode()).info.display_name == "Bürotelefon"
    assert len(world.events(libmfa.AUDIT_FACTOR_RENAMED)) == 5


def test_rename_bad_input(world):
    admin, bob = world.admin, world.factors["bob_totp"]
    for name in ("n" * 257, b"Work \xff", "a\0b"):
        with pytest.raises(libmfa.InvalidArgumentError):
            admin.rename(bob, name)
    with pytest.raises(libmfa.MFAEnrollmentNotFoundError):
        admin.rename("no-such-factor", "x")
    for eid in ("", LONG_ID, b"\xc3\x28"):
        with pytest.raises(libmfa.InvalidArgumentError):
            admin.rename(eid, "x")
    for eid, name in ((None, "x"), (5, "x"), (bob, 5)):
        with pytest.raises(TypeError):
            admin.rename(eid, name)
    assert world.events(libmfa.AUDIT_FACTOR_RENAMED) == []
    assert admin.factor(bob).info.display_name is None


def test_unenroll_revokes_the_owner(world):
    admin, kit = world.admin, world.kit
    acme_alice = world.users[("acme", "u-alice")]
    factor = world.factors["acme_alice_totp"]
    resolver = kit.resolver(kit.user("u-alice", tenant="acme"))  # half-way through a sign-in
    kit.clock.advance(5)
    removed = admin.unenroll(factor.uid)
    assert removed.tenant == "acme" and removed.uid == "u-alice" and removed.info.uid == factor.uid
    event = only(world.events(libmfa.AUDIT_UNENROLL))
    assert event.actor == ACTOR and event.detail == "ADMIN" and event.tenant == "acme"
    assert event.enrollment_id == factor.uid and event.factor_id == "totp"
    assert kit.ctx.multi_factor(acme_alice).enrolled_factors() == []
    # The pending credential is revoked (USER_TOKEN_EXPIRED, though its factor is gone too),
    # and so are credentials from before.
    with pytest.raises(libmfa.UserTokenExpiredError):
        kit.resolve(resolver, factor.uid, kit.code(world.apps["acme_alice_totp"]))
    with pytest.raises(libmfa.UserTokenExpiredError):
        kit.ctx.resolver(resolver.session, tenant="acme")
    with pytest.raises(libmfa.UserTokenExpiredError):
        kit.ctx.check_token("u-alice", kit.clock.now - 1, tenant="acme")
    kit.ctx.check_token("u-alice", kit.clock.now + 1, tenant="acme")
    # The project's u-alice is someone else.
    assert len(admin.user_factors("u-alice")) == 2
    with pytest.raises(libmfa.MFAEnrollmentNotFoundError):
        admin.unenroll(factor.uid)  # twice
    assert len(world.events(libmfa.AUDIT_UNENROLL)) == 1


def test_unenroll_by_info_and_bad_input(world):
    admin = world.admin
    for eid in ("", LONG_ID, b"\xed\xa0\x80"):
        with pytest.raises(libmfa.InvalidArgumentError):
            admin.unenroll(eid)
    for eid in (None, 5):
        with pytest.raises(TypeError):
            admin.unenroll(eid)
    with pytest.raises(libmfa.MFAEnrollmentNotFoundError):
        admin.unenroll("no-such-factor")
    assert world.events(libmfa.AUDIT_UNENROLL) == []
    phone = admin.factor(world.factors["alice_phone"])
    assert admin.unenroll(phone).info.uid == phone.info.uid  # an AdminFactor
    assert admin.unenroll(world.factors["alice_totp"]).uid == "u-alice"  # a MultiFactorInfo
    assert admin.user_factors("u-alice") == []
    assert [e.actor for e in world.events(libmfa.AUDIT_UNENROLL)] == [ACTOR, ACTOR]


def test_reset_a_user_who_lost_their_phone(world):
    admin, kit = world.admin, world.kit
    alice = world.users[(None, "u-alice")]
    resolver = kit.resolver(kit.user("u-alice"))  # a sign-in in progress
    session = kit.ctx.multi_factor(kit.user("u-alice")).session()  # an enrollment in progress
    kit.clock.advance(5)
    helpdesk = kit.ctx.admin("helpdesk:42")
    removed = helpdesk.reset_user("u-alice")
    assert sorted(f.uid for f in removed) == sorted([world.factors["alice_totp"].uid, world.factors["alice_phone"].uid])
    assert all(f.phone_number is None for f in removed)
    reset = only(world.events(libmfa.AUDIT_USER_RESET))
    assert reset.actor == "helpdesk:42" and reset.kind_name == "USER_RESET" and reset.uid == "u-alice"
    unenrolls = world.events(libmfa.AUDIT_UNENROLL)
    assert len(unenrolls) == 2 and {e.actor for e in unenrolls} == {"helpdesk:42"}
    assert {e.detail for e in unenrolls} == {"ADMIN"}
    assert kit.ctx.multi_factor(alice).enrolled_factors() == []
    # Everything from before is refused; the first factor alone signs her in.
    with pytest.raises(libmfa.UserTokenExpiredError):
        kit.ctx.resolver(resolver.session)
    with pytest.raises(libmfa.UserTokenExpiredError):
        GEN.generate_secret(session)
    with pytest.raises(libmfa.UserTokenExpiredError):
        kit.ctx.check_token("u-alice", kit.clock.now)
    result = kit.ctx.sign_in(kit.user("u-alice"))
    assert result.factor_id is None
    # She enrolls again.
    kit.clock.advance(1)
    kit.enroll(kit.user("u-alice"))
    assert len(admin.user_factors("u-alice")) == 1
    # Other users are untouched.
    assert len(admin.user_factors("u-alice", tenant="acme")) == 1 and len(admin.user_factors("u-bob")) == 1


def test_reset_again_and_of_strangers(world):
    admin = world.admin
    admin.unenroll(world.factors["bob_totp"])
    before = len(world.kit.events)
    # Nothing left to reset: the answer of a stranger, nothing written or audited (issue 45).
    with pytest.raises(libmfa.MFAEnrollmentNotFoundError):
        admin.reset_user("u-bob")
    with pytest.raises(libmfa.MFAEnrollmentNotFoundError):
        admin.reset_user("nobody")
    with pytest.raises(libmfa.MFAEnrollmentNotFoundError):
        admin.reset_user("u-bob", tenant="acme")
    for uid, tenant in (("", None), (b"u-bob\xff", None), (LONG_ID, None), ("u-bob", ""), ("u-bob", b"\xc0\x80"),
                        ("u-bob", LONG_ID)):
        with pytest.raises(libmfa.InvalidArgumentError):
            admin.reset_user(uid, tenant=tenant)
    for uid, tenant in ((None, None), ("u-bob", 5)):
        with pytest.raises(TypeError):
            admin.reset_user(uid, tenant=tenant)
    assert len(world.kit.events) == before
    assert len(admin.user_factors("u-carol")) == 1


def test_delete_user(world):
    admin, kit = world.admin, world.kit
    session = kit.ctx.multi_factor(kit.user("u-dave", tenant="acme")).session()
    kit.clock.advance(5)
    dpo = kit.ctx.admin("dpo")
    removed = dpo.delete_user("u-dave", tenant="acme")
    assert [f.uid for f in removed] == [world.factors["dave_phone"].uid] and removed[0].phone_number is None
    event = only(world.events(libmfa.AUDIT_USER_DELETED))
    assert event.actor == "dpo" and event.tenant == "acme" and event.uid == "u-dave"
    assert [u.uid for u in admin.list_users(tenant="acme")] == ["u-alice"]
    with pytest.raises(libmfa.UserTokenExpiredError):
        kit.start_enrollment(kit.user("u-dave", tenant="acme"), "+15105557777", session=session)
    # Deleting again finds nothing (the revocation marker is all there is), as for a
    # stranger: nothing written, nothing audited (issue 45).
    with pytest.raises(libmfa.MFAEnrollmentNotFoundError):
        dpo.delete_user("u-dave", tenant="acme")
    with pytest.raises(libmfa.MFAEnrollmentNotFoundError):
        dpo.reset_user("u-dave", tenant="acme")
    assert len(world.events(libmfa.AUDIT_USER_DELETED)) == 1
    with pytest.raises(libmfa.MFAEnrollmentNotFoundError):
        dpo.delete_user("nobody")
    before = len(kit.events)
    for uid, tenant in (("", None), (b"\xff", None), (LONG_ID, None), ("u-bob", ""), ("u-bob", b"\xe2\x82"),
                        ("u-bob", LONG_ID)):
        with pytest.raises(libmfa.InvalidArgumentError):
            dpo.delete_user(uid, tenant=tenant)
    with pytest.raises(TypeError):
        dpo.delete_user(None)
    assert len(kit.events) == before and len(admin.user_factors("u-bob")) == 1


def test_users_own_actions_have_no_actor(world):
    kit = world.kit
    kit.enroll(kit.user("u-erin"))
    kit.ctx.revoke_tokens("u-erin")
    assert [e.kind_name for e in kit.events] == ["ENROLL", "TOKENS_REVOKED"]
    assert all(e.actor is None for e in kit.events)
    event = kit.events[0]
    assert libmfa.AuditEvent(event.kind, event.kind_name, event.tenant, event.uid, event.factor_id,
                             event.enrollment_id, event.time, event.detail) == event
    assert AUDIT_KINDS[libmfa.AUDIT_FACTOR_RENAMED] == "FACTOR_RENAMED"
    assert AUDIT_KINDS[libmfa.AUDIT_USER_RESET] == "USER_RESET"
    assert AUDIT_KINDS[libmfa.AUDIT_USER_DELETED] == "USER_DELETED"
    assert AUDIT_KINDS[libmfa.AUDIT_KEYS_ROTATED] == "KEYS_ROTATED"


@pytest.mark.parametrize("actor", BAD_ACTORS)
def test_bad_actors_are_refused_before_anything_is_written(world, actor):
    with pytest.raises(libmfa.InvalidArgumentError):
        world.kit.ctx.admin(actor)
    assert world.kit.events == [] and len(world.admin.user_factors("u-alice")) == 2
