import CMFATypes
import Glibc
import MFA

/// The C layout of one listed user, its strings and counts placed in `arena`.
private func cAdminUser(_ user: AdminUser, _ arena: CArena) -> mfa_admin_user {
    mfa_admin_user(tenant: arena.string(user.tenant), uid: arena.string(user.uid),
                   factor_total: Int64(user.factorTotal), kind_count: user.factorCounts.count,
                   kinds: arena.array(user.factorCounts) {
                       mfa_factor_count(factor_id: arena.string($0.factorID), kind: cKind($0.factorID),
                                        count: Int64($0.count))
                   })
}

/// Lays out a factor with its owner.
private func cAdminFactor(_ factor: AdminFactor) throws(MFAError) -> UnsafeMutablePointer<mfa_admin_factor> {
    try CBlock.make { arena in
        mfa_admin_factor(tenant: arena.string(factor.tenant), uid: arena.string(factor.uid),
                         info: cFactorInfo(factor.info, arena))
    }
}

/// Lays out a list of factors.
private func cFactorList(_ factors: [MultiFactorInfo]) throws(MFAError) -> UnsafeMutablePointer<mfa_factor_list> {
    try CBlock.make { arena in
        mfa_factor_list(count: factors.count, items: arena.array(factors) { cFactorInfo($0, arena) })
    }
}

/// Whether `flags` asks for full phone numbers; `invalidArgument` for a bit no flag has.
private func showPhoneNumbers(_ flags: Int32) throws(MFAError) -> Bool {
    guard flags & ~MFA_ADMIN_SHOW_PHONE_NUMBERS == 0 else {
        throw MFAError(.invalidArgument, "flags must be 0 or MFA_ADMIN_SHOW_PHONE_NUMBERS")
    }
    return flags & MFA_ADMIN_SHOW_PHONE_NUMBERS != 0
}

/// Lists the users that have second factors, one page at a time, ordered by
/// tenant (the project first) then uid. An administrative call: no sign-in
/// is checked (see "Administration" in mfa_types.h).
///
/// `tenant` is NULL for every tenant and the project, "" for the project
/// only, or a tenant; `factor_id` is NULL, or "totp", "phone" or "recovery"
/// for the users with a factor of that kind; `limit` is 1 to
/// MFA_ADMIN_PAGE_MAX users; `cursor` is NULL for the first page, else the
/// `next_cursor` of the page before (opaque; it carries nothing secret and
/// grants nothing). On MFA_OK, `*out` is the page (free with
/// mfa_admin_user_page_free()). Returns MFA_OK, MFA_ERR_INVALID_ARGUMENT (a
/// limit out of range, an unknown factor id, a cursor libmfa did not make,
/// a bad tenant) or MFA_ERR_STORAGE_ERROR.
@c(mfa_admin_list_users)
public func mfa_admin_list_users(_ ctx: UnsafeMutablePointer<mfa_ctx>?,
                                 _ out: UnsafeMutablePointer<UnsafeMutablePointer<mfa_admin_user_page>?>?,
                                 _ tenant: UnsafePointer<CChar>?, _ factor_id: UnsafePointer<CChar>?,
                                 _ limit: Int32, _ cursor: UnsafePointer<CChar>?,
                                 _ err: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    CResults.status(err) { () throws(MFAError) in
        let context = try CContext.get(ctx)
        let out = try CArguments.required(out, "out")
        out.pointee = nil
        let page = try context.listUsers(tenant: TenantFilter(try CArguments.optionalString(tenant, "tenant")),
                                         factorID: try CArguments.optionalString(factor_id, "factor_id"),
                                         limit: Int(limit), cursor: try CArguments.optionalString(cursor, "cursor"))
        out.pointee = try CBlock.make { arena in
            mfa_admin_user_page(count: page.users.count, users: arena.array(page.users) { cAdminUser($0, arena) },
                                next_cursor: arena.string(page.nextCursor))
        }
    }
}

/// Frees a page from mfa_admin_list_users(). NULL is a no-op.
@c(mfa_admin_user_page_free)
public func mfa_admin_user_page_free(_ page: UnsafeMutablePointer<mfa_admin_user_page>?) {
    free(page)
}

/// One user's factors, oldest first, without the user's sign-in (an
/// administrative call). `tenant` is NULL for the project; `flags` is 0
/// (phone numbers masked, as in hints) or MFA_ADMIN_SHOW_PHONE_NUMBERS.
///
/// On MFA_OK, `*out` is the list (free with mfa_factor_list_free()), empty
/// for a user with no factor. Returns MFA_OK, MFA_ERR_INVALID_ARGUMENT (bad
/// uid, tenant or flags), MFA_ERR_CRYPTO (a phone number that does not
/// decrypt with the keys given) or MFA_ERR_STORAGE_ERROR.
@c(mfa_admin_user_factors)
public func mfa_admin_user_factors(_ ctx: UnsafeMutablePointer<mfa_ctx>?,
                                   _ out: UnsafeMutablePointer<UnsafeMutablePointer<mfa_factor_list>?>?,
                                   _ tenant: UnsafePointer<CChar>?, _ uid: UnsafePointer<CChar>?, _ flags: Int32,
                                   _ err: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    CResults.status(err) { () throws(MFAError) in
        let context = try CContext.get(ctx)
        let out = try CArguments.required(out, "out")
        out.pointee = nil
        let factors = try context.userFactors(uid: try CArguments.string(uid, "uid"),
                                              tenant: try CArguments.optionalString(tenant, "tenant"),
                                              maskPhoneNumbers: !showPhoneNumbers(flags))
        out.pointee = try cFactorList(factors)
    }
}

/// One factor, found by its enrollment id alone, with the user who has it
/// (an administrative call). `flags` as for mfa_admin_user_factors().
///
/// On MFA_OK, `*out` is the factor (free with mfa_admin_factor_free()).
/// Returns MFA_OK, MFA_ERR_MFA_ENROLLMENT_NOT_FOUND, MFA_ERR_INVALID_ARGUMENT,
/// MFA_ERR_CRYPTO or MFA_ERR_STORAGE_ERROR.
@c(mfa_admin_factor_get)
public func mfa_admin_factor_get(_ ctx: UnsafeMutablePointer<mfa_ctx>?,
                                 _ out: UnsafeMutablePointer<UnsafeMutablePointer<mfa_admin_factor>?>?,
                                 _ enrollment_id: UnsafePointer<CChar>?, _ flags: Int32,
                                 _ err: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    CResults.status(err) { () throws(MFAError) in
        let context = try CContext.get(ctx)
        let out = try CArguments.required(out, "out")
        out.pointee = nil
        let factor = try context.adminFactor(enrollmentID: try CArguments.string(enrollment_id, "enrollment_id"),
                                             maskPhoneNumbers: !showPhoneNumbers(flags))
        out.pointee = try cAdminFactor(factor)
    }
}

/// Frees a factor from mfa_admin_factor_get(), mfa_admin_unenroll() or
/// mfa_admin_rename(). NULL is a no-op.
@c(mfa_admin_factor_free)
public func mfa_admin_factor_free(_ factor: UnsafeMutablePointer<mfa_admin_factor>?) {
    free(factor)
}

/// Removes one factor, whoever has it, and revokes that user's credentials
/// and tokens, as the user's own mfa_unenroll() does, but with no sign-in
/// (an administrative call). Audited: MFA_AUDIT_UNENROLL, detail "ADMIN",
/// with `actor` (1 to MFA_ACTOR_MAX_BYTES bytes).
///
/// `out` may be NULL; if not, on MFA_OK `*out` is the removed factor (free
/// with mfa_admin_factor_free()). Returns MFA_OK,
/// MFA_ERR_MFA_ENROLLMENT_NOT_FOUND, MFA_ERR_INVALID_ARGUMENT or
/// MFA_ERR_STORAGE_ERROR.
@c(mfa_admin_unenroll)
public func mfa_admin_unenroll(_ ctx: UnsafeMutablePointer<mfa_ctx>?,
                               _ out: UnsafeMutablePointer<UnsafeMutablePointer<mfa_admin_factor>?>?,
                               _ enrollment_id: UnsafePointer<CChar>?, _ actor: UnsafePointer<CChar>?,
                               _ err: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    CResults.status(err) { () throws(MFAError) in
        let context = try CContext.get(ctx)
        out?.pointee = nil
        let id = try CArguments.string(enrollment_id, "enrollment_id")
        let who = try CArguments.string(actor, "actor")
        let removed = try context.unenrollFactor(enrollmentID: id, actor: who)
        if let out { out.pointee = try cAdminFactor(removed) }
    }
}

/// Renames a factor (`display_name` NULL or "" removes its name; at most 256
/// bytes), with no sign-in (an administrative call). Audited:
/// MFA_AUDIT_FACTOR_RENAMED, with `actor`.
///
/// `out` may be NULL; if not, on MFA_OK `*out` is the factor as it is now
/// (free with mfa_admin_factor_free()). Returns MFA_OK,
/// MFA_ERR_MFA_ENROLLMENT_NOT_FOUND, MFA_ERR_INVALID_ARGUMENT or
/// MFA_ERR_STORAGE_ERROR.
@c(mfa_admin_rename)
public func mfa_admin_rename(_ ctx: UnsafeMutablePointer<mfa_ctx>?,
                             _ out: UnsafeMutablePointer<UnsafeMutablePointer<mfa_admin_factor>?>?,
                             _ enrollment_id: UnsafePointer<CChar>?, _ display_name: UnsafePointer<CChar>?,
                             _ actor: UnsafePointer<CChar>?,
                             _ err: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    CResults.status(err) { () throws(MFAError) in
        let context = try CContext.get(ctx)
        out?.pointee = nil
        let id = try CArguments.string(enrollment_id, "enrollment_id")
        let name = try CArguments.optionalString(display_name, "display_name")
        let who = try CArguments.string(actor, "actor")
        let renamed = try context.renameFactor(enrollmentID: id, displayName: name, actor: who)
        if let out { out.pointee = try cAdminFactor(renamed) }
    }
}

/// Resets a user who lost their second factors: removes every factor (and
/// any enrollment or SMS code in flight), clears their backoff and revokes
/// their credentials and tokens, in one transaction. A sign-in in progress,
/// enrollment sessions and credentials issued before are refused
/// (MFA_ERR_USER_TOKEN_EXPIRED, whatever the reset removed with them); the
/// user signs in with the first factor
/// alone and enrolls again. Audited: MFA_AUDIT_UNENROLL (detail "ADMIN") for
/// each factor and MFA_AUDIT_USER_RESET, with `actor`. `tenant` is NULL for
/// the project.
///
/// A user with nothing to reset (no factor and no enrollment or SMS code
/// in flight: a uid never seen, a user deleted, or reset with nothing
/// enrolled or started since) is MFA_ERR_MFA_ENROLLMENT_NOT_FOUND: nothing
/// is written or audited (mfa_revoke_tokens() revokes such a user's tokens).
///
/// `out` may be NULL; if not, on MFA_OK `*out` lists the removed factors
/// (free with mfa_factor_list_free()). Returns MFA_OK,
/// MFA_ERR_MFA_ENROLLMENT_NOT_FOUND (nothing to reset),
/// MFA_ERR_INVALID_ARGUMENT or MFA_ERR_STORAGE_ERROR.
@c(mfa_admin_reset_user)
public func mfa_admin_reset_user(_ ctx: UnsafeMutablePointer<mfa_ctx>?,
                                 _ out: UnsafeMutablePointer<UnsafeMutablePointer<mfa_factor_list>?>?,
                                 _ tenant: UnsafePointer<CChar>?, _ uid: UnsafePointer<CChar>?,
                                 _ actor: UnsafePointer<CChar>?,
                                 _ err: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    userRemoval(ctx, out, tenant, uid, actor, err) { (context, user, tenantName, who) throws(MFAError) in
        try context.resetUser(uid: user, tenant: tenantName, actor: who).factors
    }
}

/// Deletes everything stored about a user, for an erasure request: factors,
/// enrollments and SMS codes in flight, SMS send records, backoff and
/// sign-in times. Only a revocation marker (tenant, uid, a counter and the
/// time) stays, so that sessions and credentials issued before stay
/// refused. Audited: MFA_AUDIT_USER_DELETED, with `actor`. `tenant` is NULL
/// for the project.
///
/// A user of whom nothing but that marker is stored (a uid never seen, a
/// user deleted before, or reset before with nothing stored since) is
/// MFA_ERR_MFA_ENROLLMENT_NOT_FOUND: nothing is written or audited, so a
/// second delete answers as a first one of a stranger.
///
/// `out` may be NULL; if not, on MFA_OK `*out` lists the removed factors
/// (free with mfa_factor_list_free()). Returns MFA_OK,
/// MFA_ERR_MFA_ENROLLMENT_NOT_FOUND (nothing to delete),
/// MFA_ERR_INVALID_ARGUMENT or MFA_ERR_STORAGE_ERROR.
@c(mfa_admin_delete_user)
public func mfa_admin_delete_user(_ ctx: UnsafeMutablePointer<mfa_ctx>?,
                                  _ out: UnsafeMutablePointer<UnsafeMutablePointer<mfa_factor_list>?>?,
                                  _ tenant: UnsafePointer<CChar>?, _ uid: UnsafePointer<CChar>?,
                                  _ actor: UnsafePointer<CChar>?,
                                  _ err: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    userRemoval(ctx, out, tenant, uid, actor, err) { (context, user, tenantName, who) throws(MFAError) in
        try context.deleteUser(uid: user, tenant: tenantName, actor: who).factors
    }
}

/// What mfa_admin_reset_user and mfa_admin_delete_user share: the arguments
/// checked, `remove` run, and the removed factors listed in `*out` if asked for.
private func userRemoval(_ ctx: UnsafeMutablePointer<mfa_ctx>?,
                         _ out: UnsafeMutablePointer<UnsafeMutablePointer<mfa_factor_list>?>?,
                         _ tenant: UnsafePointer<CChar>?, _ uid: UnsafePointer<CChar>?,
                         _ actor: UnsafePointer<CChar>?, _ err: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                         _ remove: (MFAContext, String, String?, String) throws(MFAError) -> [MultiFactorInfo])
    -> Int32 {
    CResults.status(err) { () throws(MFAError) in
        let context = try CContext.get(ctx)
        out?.pointee = nil
        let user = try CArguments.string(uid, "uid")
        let tenantName = try CArguments.optionalString(tenant, "tenant")
        let who = try CArguments.string(actor, "actor")
        let factors = try remove(context, user, tenantName, who)
        if let out { out.pointee = try cFactorList(factors) }
    }
}

/// Users and factors, counted per tenant and kind.
///
/// On MFA_OK, `*out` holds the counts (free with mfa_admin_stats_free()).
/// Returns MFA_OK, MFA_ERR_INVALID_ARGUMENT or MFA_ERR_STORAGE_ERROR.
@c(mfa_admin_stats_get)
public func mfa_admin_stats_get(_ ctx: UnsafeMutablePointer<mfa_ctx>?,
                                _ out: UnsafeMutablePointer<UnsafeMutablePointer<mfa_admin_stats>?>?,
                                _ err: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    CResults.status(err) { () throws(MFAError) in
        let context = try CContext.get(ctx)
        let out = try CArguments.required(out, "out")
        out.pointee = nil
        let stats = try context.stats()
        out.pointee = try CBlock.make { arena in
            mfa_admin_stats(
                row_count: stats.rows.count,
                rows: arena.array(stats.rows) {
                    mfa_admin_stats_row(tenant: arena.string($0.tenant), factor_id: arena.string($0.factorID),
                                        kind: cKind($0.factorID), factors: Int64($0.factors), users: Int64($0.users))
                },
                tenant_count: stats.tenants.count,
                tenants: arena.array(stats.tenants) {
                    mfa_admin_tenant_users(tenant: arena.string($0.tenant), users: Int64($0.users))
                },
                total_users: Int64(stats.totalUsers), total_factors: Int64(stats.totalFactors))
        }
    }
}

/// Frees the counts from mfa_admin_stats_get(). NULL is a no-op.
@c(mfa_admin_stats_free)
public func mfa_admin_stats_free(_ stats: UnsafeMutablePointer<mfa_admin_stats>?) {
    free(stats)
}
