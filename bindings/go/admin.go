package mfa

// #include <mfa.h>
import "C"

import (
	"context"
	"unsafe"
)

// Limits of the administrative calls.
const (
	ActorMaxBytes      = C.MFA_ACTOR_MAX_BYTES
	AdminPageMax       = C.MFA_ADMIN_PAGE_MAX
	ImportMaxBytes     = C.MFA_IMPORT_MAX_BYTES
	ImportBatchMax     = C.MFA_IMPORT_BATCH_MAX
	RotationBatchMax   = C.MFA_ROTATION_BATCH_MAX
	importBatchDefault = C.MFA_IMPORT_BATCH_DEFAULT
)

// Admin makes the operator's calls on a Context: users and their factors,
// unenroll, rename, reset and delete, counts, imports from other systems,
// key rotation. They need no user sign-in (the host decides who may make
// them); those that change something carry Actor into their audit events.
type Admin struct {
	// Actor is who makes the calls (an operator's name), 1 to ActorMaxBytes bytes.
	Actor string
	c     *Context
}

// Admin returns the administrative calls made by actor.
func (c *Context) Admin(actor string) *Admin { return &Admin{Actor: actor, c: c} }

// FactorCount is how many factors of one kind a user has.
type FactorCount struct {
	FactorID string
	Kind     FactorKind
	Count    int64
}

// AdminUser is a user who has second factors.
type AdminUser struct {
	// Tenant is the tenant, "" for the project.
	Tenant string
	UID    string
	// FactorTotal counts the user's factors of every kind; Kinds per kind,
	// in factor-id order.
	FactorTotal int64
	Kinds       []FactorCount
}

// AdminUserPage is one page of ListUsers.
type AdminUserPage struct {
	// Users are ordered by tenant (the project first), then uid.
	Users []AdminUser
	// NextCursor is the Cursor of the next page; "" when this is the last.
	NextCursor string
}

// ListUsersOptions selects the users of ListUsers.
type ListUsersOptions struct {
	// Tenant is the one tenant to list; with Tenant "", every tenant and the
	// project are listed, unless ProjectOnly is set.
	Tenant      string
	ProjectOnly bool
	// FactorID is "totp", "phone", "recovery", ... for the users with a
	// factor of that kind, or "" for every user.
	FactorID string
	// Limit is the users per page, 1 to AdminPageMax (0 for 100).
	Limit int
	// Cursor is "" for the first page, else the NextCursor of the page before.
	Cursor string
}

// ListUsers returns one page of the users that have second factors.
// Errors: INVALID_ARGUMENT (a limit out of range, an unknown factor id, a
// cursor libmfa did not make, a bad tenant), STORAGE_ERROR.
func (a *Admin) ListUsers(ctx context.Context, opts ListUsersOptions) (*AdminUserPage, error) {
	var args cArgs
	defer args.free()
	var tenant *C.char
	switch {
	case opts.Tenant != "":
		tenant = args.str(opts.Tenant, "tenant")
	case opts.ProjectOnly:
		tenant = args.str("", "tenant")
	}
	factor, cursor := args.optional(opts.FactorID, "factor id"), args.optional(opts.Cursor, "cursor")
	limit := opts.Limit
	if limit == 0 {
		limit = 100
	}
	if limit < 0 || limit > AdminPageMax {
		return nil, invalid("the limit must be 1 to 1000")
	}
	var out *C.mfa_admin_user_page
	err := a.c.call(ctx, &args, func(h *C.mfa_ctx, message **C.char) C.int32_t {
		return C.mfa_admin_list_users(h, &out, tenant, factor, C.int32_t(limit), cursor, message)
	})
	defer C.mfa_admin_user_page_free(out)
	if err != nil {
		return nil, err
	}
	page := &AdminUserPage{NextCursor: goOptional(out.next_cursor), Users: []AdminUser{}}
	if out.count > 0 {
		for _, u := range unsafe.Slice(out.users, int(out.count)) {
			user := AdminUser{Tenant: goOptional(u.tenant), UID: goOptional(u.uid), FactorTotal: int64(u.factor_total)}
			if u.kind_count > 0 {
				for _, k := range unsafe.Slice(u.kinds, int(u.kind_count)) {
					user.Kinds = append(user.Kinds, FactorCount{goOptional(k.factor_id), FactorKind(k.kind), int64(k.count)})
				}
			}
			page.Users = append(page.Users, user)
		}
	}
	return page, nil
}

// EachUser calls fn with every user ListUsers selects (opts.Cursor is where
// it starts), page after page, until the last page or fn's error, which it
// returns.
func (a *Admin) EachUser(ctx context.Context, opts ListUsersOptions, fn func(AdminUser) error) error {
	for {
		page, err := a.ListUsers(ctx, opts)
		if err != nil {
			return err
		}
		for _, u := range page.Users {
			if err := fn(u); err != nil {
				return err
			}
		}
		if page.NextCursor == "" {
			return nil
		}
		opts.Cursor = page.NextCursor
	}
}

func showFlags(showPhoneNumbers bool) C.int32_t {
	if showPhoneNumbers {
		return C.MFA_ADMIN_SHOW_PHONE_NUMBERS
	}
	return 0
}

func (a *Admin) factorList(ctx context.Context, args *cArgs,
	f func(h *C.mfa_ctx, out **C.mfa_factor_list, message **C.char) C.int32_t) ([]FactorInfo, error) {
	var out *C.mfa_factor_list
	err := a.c.call(ctx, args, func(h *C.mfa_ctx, message **C.char) C.int32_t { return f(h, &out, message) })
	defer C.mfa_factor_list_free(out)
	if err != nil {
		return nil, err
	}
	return factorInfos(out.items, out.count), nil
}

// UserFactors returns one user's factors, oldest first (none for a user
// without factors), phone numbers masked unless showPhoneNumbers. Errors:
// INVALID_ARGUMENT, CRYPTO (a number that does not decrypt), STORAGE_ERROR.
func (a *Admin) UserFactors(ctx context.Context, tenant, uid string, showPhoneNumbers bool) ([]FactorInfo, error) {
	var args cArgs
	defer args.free()
	t, u := args.optional(tenant, "tenant"), args.str(uid, "uid")
	return a.factorList(ctx, &args, func(h *C.mfa_ctx, out **C.mfa_factor_list, message **C.char) C.int32_t {
		return C.mfa_admin_user_factors(h, out, t, u, showFlags(showPhoneNumbers), message)
	})
}

// AdminFactor is a factor and who has (or had) it.
type AdminFactor struct {
	// Tenant is the tenant, "" for the project.
	Tenant string
	UID    string
	Info   FactorInfo
}

func (a *Admin) factorCall(ctx context.Context, args *cArgs,
	f func(h *C.mfa_ctx, out **C.mfa_admin_factor, message **C.char) C.int32_t) (*AdminFactor, error) {
	var out *C.mfa_admin_factor
	err := a.c.call(ctx, args, func(h *C.mfa_ctx, message **C.char) C.int32_t { return f(h, &out, message) })
	defer C.mfa_admin_factor_free(out)
	if err != nil {
		return nil, err
	}
	return &AdminFactor{Tenant: goOptional(out.tenant), UID: goOptional(out.uid), Info: factorInfo(&out.info)}, nil
}

// Factor returns the factor enrollmentID, found by its id alone, with its
// user. Errors: MFA_ENROLLMENT_NOT_FOUND, INVALID_ARGUMENT, CRYPTO,
// STORAGE_ERROR.
func (a *Admin) Factor(ctx context.Context, enrollmentID string, showPhoneNumbers bool) (*AdminFactor, error) {
	var args cArgs
	defer args.free()
	id := args.str(enrollmentID, "enrollment id")
	return a.factorCall(ctx, &args, func(h *C.mfa_ctx, out **C.mfa_admin_factor, message **C.char) C.int32_t {
		return C.mfa_admin_factor_get(h, out, id, showFlags(showPhoneNumbers), message)
	})
}

// Unenroll removes the factor enrollmentID, whoever has it, and revokes that
// user's credentials and tokens; it returns the removed factor. Audited
// (AuditUnenroll, detail "ADMIN"). Errors: MFA_ENROLLMENT_NOT_FOUND,
// INVALID_ARGUMENT, STORAGE_ERROR.
func (a *Admin) Unenroll(ctx context.Context, enrollmentID string) (*AdminFactor, error) {
	var args cArgs
	defer args.free()
	id, actor := args.str(enrollmentID, "enrollment id"), args.str(a.Actor, "actor")
	return a.factorCall(ctx, &args, func(h *C.mfa_ctx, out **C.mfa_admin_factor, message **C.char) C.int32_t {
		return C.mfa_admin_unenroll(h, out, id, actor, message)
	})
}

// Rename renames the factor enrollmentID ("" removes its name; at most 256
// bytes) and returns it as it is now. Audited (AuditFactorRenamed).
func (a *Admin) Rename(ctx context.Context, enrollmentID, displayName string) (*AdminFactor, error) {
	var args cArgs
	defer args.free()
	id, actor := args.str(enrollmentID, "enrollment id"), args.str(a.Actor, "actor")
	name := args.optional(displayName, "display name")
	return a.factorCall(ctx, &args, func(h *C.mfa_ctx, out **C.mfa_admin_factor, message **C.char) C.int32_t {
		return C.mfa_admin_rename(h, out, id, name, actor, message)
	})
}

// ResetUser resets a user who lost their second factors: every factor
// (and any enrollment or SMS code in flight) removed, backoff cleared,
// credentials and tokens revoked, in one transaction; the user signs in with
// the first factor alone and enrolls again. It returns the removed factors.
// Audited. Errors: MFA_ENROLLMENT_NOT_FOUND (nothing is stored about the
// user), INVALID_ARGUMENT, STORAGE_ERROR.
func (a *Admin) ResetUser(ctx context.Context, tenant, uid string) ([]FactorInfo, error) {
	var args cArgs
	defer args.free()
	t, u, actor := args.optional(tenant, "tenant"), args.str(uid, "uid"), args.str(a.Actor, "actor")
	return a.factorList(ctx, &args, func(h *C.mfa_ctx, out **C.mfa_factor_list, message **C.char) C.int32_t {
		return C.mfa_admin_reset_user(h, out, t, u, actor, message)
	})
}

// DeleteUser deletes everything stored about a user, for an erasure request
// (only a revocation marker stays, so that earlier sessions and credentials
// stay refused), and returns the removed factors. Audited
// (AuditUserDeleted). Errors: as ResetUser.
func (a *Admin) DeleteUser(ctx context.Context, tenant, uid string) ([]FactorInfo, error) {
	var args cArgs
	defer args.free()
	t, u, actor := args.optional(tenant, "tenant"), args.str(uid, "uid"), args.str(a.Actor, "actor")
	return a.factorList(ctx, &args, func(h *C.mfa_ctx, out **C.mfa_factor_list, message **C.char) C.int32_t {
		return C.mfa_admin_delete_user(h, out, t, u, actor, message)
	})
}

// AdminStatsRow is one tenant's count of one factor kind.
type AdminStatsRow struct {
	// Tenant is the tenant, "" for the project.
	Tenant   string
	FactorID string
	Kind     FactorKind
	// Factors of this kind in this tenant; Users with at least one.
	Factors int64
	Users   int64
}

// AdminStats counts what the store holds.
type AdminStats struct {
	// Rows per tenant (the project first) and factor id.
	Rows []AdminStatsRow
	// TenantUsers are the users with factors per tenant ("" for the project).
	TenantUsers map[string]int64
	// TotalUsers have at least one factor; TotalFactors of every kind.
	TotalUsers   int64
	TotalFactors int64
}

// Stats counts users and factors per tenant and kind.
func (a *Admin) Stats(ctx context.Context) (*AdminStats, error) {
	var out *C.mfa_admin_stats
	err := a.c.call(ctx, nil, func(h *C.mfa_ctx, message **C.char) C.int32_t {
		return C.mfa_admin_stats_get(h, &out, message)
	})
	defer C.mfa_admin_stats_free(out)
	if err != nil {
		return nil, err
	}
	stats := &AdminStats{TenantUsers: map[string]int64{}, TotalUsers: int64(out.total_users),
		TotalFactors: int64(out.total_factors)}
	if out.row_count > 0 {
		for _, r := range unsafe.Slice(out.rows, int(out.row_count)) {
			stats.Rows = append(stats.Rows, AdminStatsRow{goOptional(r.tenant), goOptional(r.factor_id),
				FactorKind(r.kind), int64(r.factors), int64(r.users)})
		}
	}
	if out.tenant_count > 0 {
		for _, t := range unsafe.Slice(out.tenants, int(out.tenant_count)) {
			stats.TenantUsers[goOptional(t.tenant)] = int64(t.users)
		}
	}
	return stats, nil
}
