"""libmfa.Admin, the reading calls: users listed page by page (cursors, tenant and kind
filters), one user's factors, one factor by its id, counts; on SQLite and PostgreSQL."""

import pickle

import pytest

import libmfa
from admin_support import ACTOR, ALICE_PHONE, BAD_ACTORS, DAVE_PHONE, LONG_ID, world  # noqa: F401


def seen(page):
    return ["%s/%s" % (user.tenant or "-", user.uid) for user in page]


EVERYONE = ["-/u-alice", "-/u-bob", "-/u-carol", "acme/u-alice", "acme/u-dave"]


def test_pages_of_two_in_tenant_then_uid_order(world):
    first = world.admin.list_users(limit=2)
    assert seen(first) == EVERYONE[:2] and len(first) == 2 and first.next_cursor
    second = world.admin.list_users(limit=2, cursor=first.next_cursor)
    assert seen(second) == EVERYONE[2:4] and second.next_cursor
    third = world.admin.list_users(limit=2, cursor=second.next_cursor)
    assert seen(third) == EVERYONE[4:] and third.next_cursor is None
    assert seen(world.admin.list_users(limit=libmfa.ADMIN_PAGE_MAX)) == EVERYONE
    assert [("%s/%s" % (u.tenant or "-", u.uid)) for u in world.admin.users(page_size=1)] == EVERYONE
    assert world.kit.events == []  # reading is not audited


def test_many_pages(world):
    # 53 more users in tenant "bulk", imported from a CSV: eleven pages of five.
    text = "".join("b%02d,GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJ%s,bulk\n" % (i, "ABCDEFGHIJ"[i % 10]) for i in range(53))
    assert world.admin.import_factors(text, "csv", tenant="bulk").imported == 53
    pages, cursor = [], None
    while True:
        page = world.admin.list_users(tenant="bulk", limit=5, cursor=cursor)
        pages.append(page)
        if page.next_cursor is None:
            break
        cursor = page.next_cursor
    assert [len(page) for page in pages] == [5] * 10 + [3]
    assert [user.uid for page in pages for user in page] == ["b%02d" % i for i in range(53)]
    everyone = list(world.admin.users(page_size=7))
    assert len(everyone) == 58 and [u.uid for u in everyone if u.tenant == "bulk"] == ["b%02d" % i for i in range(53)]
    assert [u.tenant for u in everyone[:5]] == [None, None, None, "acme", "acme"]


def test_filters(world):
    admin = world.admin
    assert seen(admin.list_users(tenant=libmfa.ALL_TENANTS)) == EVERYONE
    assert seen(admin.list_users(tenant=None)) == EVERYONE[:3]  # the project only
    assert seen(admin.list_users(tenant="")) == EVERYONE[:3]
    assert seen(admin.list_users(tenant="acme")) == EVERYONE[3:]
    assert seen(admin.list_users(tenant=b"acme")) == EVERYONE[3:]
    assert seen(admin.list_users(tenant="other")) == []
    assert seen(admin.list_users(factor_id="phone")) == ["-/u-alice", "acme/u-dave"]
    assert seen(admin.list_users(factor_id="recovery")) == ["-/u-carol"]
    assert seen(admin.list_users(factor_id="totp")) == ["-/u-alice", "-/u-bob", "acme/u-alice"]
    assert seen(admin.list_users(tenant="acme", factor_id="totp")) == ["acme/u-alice"]
    assert seen(admin.users(tenant="acme", factor_id="phone", page_size=1)) == ["acme/u-dave"]
    assert repr(libmfa.ALL_TENANTS) == "libmfa.ALL_TENANTS"
    assert pickle.loads(pickle.dumps(libmfa.ALL_TENANTS)) is libmfa.ALL_TENANTS


def test_per_kind_counts(world):
    alice = world.admin.list_users(tenant=None, limit=1).users[0]
    assert alice == libmfa.AdminUser(None, "u-alice", 2, {"phone": 1, "totp": 1})
    assert alice.factor_total == 2 and alice.factor_counts == {"phone": 1, "totp": 1}
    assert list(alice.factor_counts) == ["phone", "totp"]
    assert "factor_counts={'phone': 1, 'totp': 1}" in repr(alice)
    assert hash(alice) == hash(libmfa.AdminUser(None, "u-alice", 2, (("phone", 1), ("totp", 1))))
    carol = world.admin.list_users(factor_id="recovery").users[0]
    assert carol.factor_counts == {"recovery": 1} and carol.factor_total == 1


def test_list_users_bad_input(world):
    admin = world.admin
    for limit in (0, -1, libmfa.ADMIN_PAGE_MAX + 1, 2**31 - 1, -(2**31)):
        with pytest.raises(libmfa.InvalidArgumentError):
            admin.list_users(limit=limit)
    for limit in (2**31, 2**63):
        with pytest.raises(libmfa.InvalidArgumentError):
            admin.list_users(limit=limit)
    for factor_id in ("sms", "", "TOTP", b"totp\xff"):
        with pytest.raises(libmfa.InvalidArgumentError):
            admin.list_users(factor_id=factor_id)
    # Cursors libmfa did not make: not base64url, empty, another version, a tenant longer than
    # the bytes, no uid, too long, not UTF-8, a NUL inside.
    for cursor in ("garbage!", "", "AgB4", "AQV4", "AQA", "A" * 600, b"AQB4\xff", "AQ\0B4"):
        with pytest.raises(libmfa.InvalidArgumentError):
            admin.list_users(cursor=cursor)
    for tenant in (b"\xff", LONG_ID, "a\0b"):
        with pytest.raises(libmfa.InvalidArgumentError):
            admin.list_users(tenant=tenant)
    for name, value in (("limit", "10"), ("limit", 1.5), ("limit", True), ("cursor", 5), ("tenant", 5),
                        ("factor_id", 1)):
        with pytest.raises(TypeError):
            admin.list_users(**{name: value})
    # A cursor made by hand only moves the position: after the project's "x".
    assert seen(admin.list_users(cursor="AQB4")) == EVERYONE[3:]


def test_user_factors(world):
    admin, factors = world.admin, world.factors
    alice = admin.user_factors("u-alice")
    assert [f.uid for f in alice] == [factors["alice_totp"].uid, factors["alice_phone"].uid]
    assert alice[0].display_name == "Alice's app" and alice[0].kind == libmfa.FACTOR_TOTP
    assert alice[1].phone_number == "+1******1234" and alice[1].hint == "+1******1234"
    shown = admin.user_factors("u-alice", show_phone_numbers=True)
    assert shown[1].phone_number == ALICE_PHONE
    assert [f.uid for f in admin.user_factors(b"u-alice", tenant="acme")] == [factors["acme_alice_totp"].uid]
    carol = admin.user_factors("u-carol")
    assert len(carol) == 1 and carol[0].kind == libmfa.FACTOR_RECOVERY_CODES and carol[0].remaining_codes == 10
    assert admin.user_factors("nobody") == []
    assert admin.user_factors("u-dave") == []  # u-dave is acme's
    for uid in ("", b"u-alice\xff", LONG_ID, "u\0alice"):
        with pytest.raises(libmfa.InvalidArgumentError):
            admin.user_factors(uid)
    for tenant in ("", b"\xe2\x82", LONG_ID):
        with pytest.raises(libmfa.InvalidArgumentError):
            admin.user_factors("u-alice", tenant=tenant)
    with pytest.raises(TypeError):
        admin.user_factors(None)
    with pytest.raises(TypeError):
        admin.user_factors("u-alice", show_phone_numbers=1)


def test_one_factor_by_its_id(world):
    admin, factors = world.admin, world.factors
    dave = admin.factor(factors["dave_phone"].uid)
    assert dave.tenant == "acme" and dave.uid == "u-dave" and dave.info.phone_number == "+1******7777"
    assert admin.factor(factors["dave_phone"], show_phone_numbers=True).info.phone_number == DAVE_PHONE
    bob = admin.factor(factors["bob_totp"])
    assert bob == libmfa.AdminFactor(None, "u-bob", factors["bob_totp"])
    assert admin.factor(bob).uid == "u-bob"  # an AdminFactor names its factor too
    with pytest.raises(libmfa.MFAEnrollmentNotFoundError):
        admin.factor("no-such-factor")
    with pytest.raises(libmfa.MFAEnrollmentNotFoundError):
        admin.factor("u-bob")  # a uid is not an enrollment id
    for bad in ("", b"\xff\xfe", LONG_ID):
        with pytest.raises(libmfa.InvalidArgumentError):
            admin.factor(bad)
    for bad in (None, 5, ["x"]):
        with pytest.raises(TypeError):
            admin.factor(bad)


def test_stats(world):
    stats = world.admin.stats()
    assert stats.total_users == 5 and stats.total_factors == 6
    assert [(r.tenant, r.factor_id, r.kind, r.factors, r.users) for r in stats.rows] == [
        (None, "phone", libmfa.FACTOR_PHONE, 1, 1),
        (None, "recovery", libmfa.FACTOR_RECOVERY_CODES, 1, 1),
        (None, "totp", libmfa.FACTOR_TOTP, 2, 2),
        ("acme", "phone", libmfa.FACTOR_PHONE, 1, 1),
        ("acme", "totp", libmfa.FACTOR_TOTP, 1, 1),
    ]
    assert stats.tenant_users == ((None, 3), ("acme", 2))
    assert isinstance(stats.rows[0], libmfa.AdminStatsRow)
    world.admin.delete_user("u-dave", tenant="acme")
    after = world.admin.stats()
    assert after.total_users == 4 and after.total_factors == 5 and after.tenant_users == ((None, 3), ("acme", 1))


def test_admin_objects(world):
    ctx = world.kit.ctx
    admin = ctx.admin(b"ops:alice")
    assert admin.actor == "ops:alice" and admin.context is ctx
    assert "ops:alice" in repr(admin)
    assert libmfa.Admin(ctx, "x" * libmfa.ACTOR_MAX_BYTES).actor == "x" * libmfa.ACTOR_MAX_BYTES
    assert ctx.admin("é" * 128).actor == "é" * 128  # 256 bytes
    for actor in BAD_ACTORS + ["é" * 128 + "x"]:
        with pytest.raises(libmfa.InvalidArgumentError):
            ctx.admin(actor)
    for actor in (None, 5, ["ops"]):
        with pytest.raises(TypeError):
            ctx.admin(actor)
    with pytest.raises(TypeError):
        libmfa.Admin(object(), ACTOR)
    ctx.close()
    with pytest.raises(libmfa.InvalidArgumentError):
        admin.list_users()
    with pytest.raises(libmfa.InvalidArgumentError):
        admin.stats()
