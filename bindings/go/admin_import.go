package mfa

/*
#include <stdint.h>
#include <mfa.h>

extern void mfaGoImportReport(uintptr_t, mfa_import_line *);
extern int mfaGoProgress(uintptr_t, int64_t, int64_t);

static void mfa_go_report(void *c, const mfa_import_line *line) { mfaGoImportReport((uintptr_t)c, (mfa_import_line *)line); }
static int mfa_go_progress(void *c, int64_t done, int64_t total) { return mfaGoProgress((uintptr_t)c, done, total); }

// mfa_go_import_callbacks points o's report and progress at the Go entry
// points with the handle h as their context.
static void mfa_go_import_callbacks(mfa_import_options *o, uintptr_t h) {
	o->report = mfa_go_report;
	o->report_context = (void *)h;
	o->progress = mfa_go_progress;
	o->progress_context = (void *)h;
}

static int32_t mfa_go_rotate(mfa_ctx *ctx, mfa_rotation_result *out, int32_t batch, const char *actor,
		uintptr_t h, char **err) {
	return mfa_rotate_keys_batched(ctx, out, batch, actor, mfa_go_progress, (void *)h, err);
}

static int32_t mfa_go_check_seals(mfa_ctx *ctx, mfa_seal_check **out, int32_t batch, uintptr_t h, char **err) {
	return mfa_check_seals(ctx, out, batch, mfa_go_progress, (void *)h, err);
}
*/
import "C"

import (
	"context"
	"fmt"
	"runtime/cgo"
	"unsafe"
)

// ImportFormat is the format of an import's text.
type ImportFormat int32

// The formats of Admin.Import.
const (
	// ImportOTPAuth is otpauth://totp/ key URIs, one per line; the account
	// name is the uid, the issuer the factor's name.
	ImportOTPAuth ImportFormat = C.MFA_IMPORT_OTPAUTH
	// ImportUsersFile is a pam_oath / liboath users file (HOTP/T30/6 alice - <hex secret>).
	ImportUsersFile ImportFormat = C.MFA_IMPORT_USERS_FILE
	// ImportCSV is CSV uid,secret,issuer,digits,period,algorithm (base32 secret).
	ImportCSV ImportFormat = C.MFA_IMPORT_CSV
)

// ImportOutcome is what an import did with one line.
type ImportOutcome int32

// The outcomes of an import's lines.
const (
	ImportImported        ImportOutcome = C.MFA_IMPORT_IMPORTED
	ImportAlreadyImported ImportOutcome = C.MFA_IMPORT_ALREADY_IMPORTED
	ImportUnsupported     ImportOutcome = C.MFA_IMPORT_UNSUPPORTED
	ImportFailed          ImportOutcome = C.MFA_IMPORT_FAILED
	ImportNote            ImportOutcome = C.MFA_IMPORT_NOTE
)

// ImportLine reports one line of an import: never a secret, a code or the
// line's text.
type ImportLine struct {
	// Line is the line number, from 1.
	Line int64
	// UID is the user the line is about, or "" when it could not be read or
	// may be a secret (a swapped column).
	UID string
	// Outcome and OutcomeName ("IMPORTED", "FAILED", ...) say what was done.
	Outcome     ImportOutcome
	OutcomeName string
	// Reason says why, for people.
	Reason string
	// EnrollmentID is the factor stored or found, or "".
	EnrollmentID string
}

func importLine(c *C.mfa_import_line) ImportLine {
	return ImportLine{Line: int64(c.line), UID: goOptional(c.uid), Outcome: ImportOutcome(c.outcome),
		OutcomeName: goOptional(c.outcome_name), Reason: goOptional(c.reason),
		EnrollmentID: goOptional(c.enrollment_id)}
}

// ImportOptions says how to import.
type ImportOptions struct {
	// Tenant is the tenant of every user in the text, "" for the project.
	Tenant string
	// BatchSize is the lines per transaction, 1 to ImportBatchMax (0 for 500).
	BatchSize int
	// Report receives each line that has something to report, in line
	// order; nil keeps them in ImportSummary.Reports.
	Report func(ImportLine)
	// Progress runs after each batch with the lines done and the lines in
	// all; false stops the import there (ImportSummary.Stopped; run it again
	// to go on).
	Progress func(done, total int64) bool
}

// ImportSummary holds an import's totals.
type ImportSummary struct {
	Lines, Imported, AlreadyImported, Unsupported, Failed, RecoveryCodes int64
	// Stopped says whether Progress stopped the import.
	Stopped bool
	// Reports are the lines' reports when ImportOptions.Report was nil.
	Reports []ImportLine
}

// withCallbacks runs f with a handle on the call's callbacks, and panics
// again with the first panic of one once libmfa has returned (the call
// stopped after the batch it was in; what was stored stays stored).
func withCallbacks(h *callCallbacks, f func(handle C.uintptr_t)) {
	handle := cgo.NewHandle(h)
	defer handle.Delete()
	f(C.uintptr_t(handle))
	if h.panicked != nil {
		panic(h.panicked)
	}
}

func (a *Admin) importCall(ctx context.Context, text []byte, opts ImportOptions,
	f func(h *C.mfa_ctx, out *C.mfa_import_summary, data *C.uint8_t, o *C.mfa_import_options,
		message **C.char) C.int32_t) (*ImportSummary, error) {
	var args cArgs
	defer args.free()
	var o C.mfa_import_options
	if err := check(C.mfa_import_options_init(&o, C.MFA_IMPORT_OPTIONS_VERSION), nil); err != nil {
		return nil, err
	}
	o.actor = args.str(a.Actor, "actor")
	o.tenant = args.optional(opts.Tenant, "tenant")
	if opts.BatchSize != 0 {
		o.batch_size = C.int32_t(opts.BatchSize)
	}
	if opts.BatchSize < 0 || opts.BatchSize > ImportBatchMax {
		return nil, invalid(fmt.Sprintf("the batch size must be 1 to %d, not %d", ImportBatchMax, opts.BatchSize))
	}
	if len(text) > ImportMaxBytes {
		return nil, invalid("the text is longer than ImportMaxBytes")
	}
	data := args.bytes(text, true)
	summary := &ImportSummary{}
	calls := &callCallbacks{report: opts.Report, progress: opts.Progress}
	if calls.report == nil {
		calls.report = func(line ImportLine) { summary.Reports = append(summary.Reports, line) }
	}
	var out C.mfa_import_summary
	var err error
	withCallbacks(calls, func(handle C.uintptr_t) {
		C.mfa_go_import_callbacks(&o, handle)
		err = a.c.call(ctx, &args, func(h *C.mfa_ctx, message **C.char) C.int32_t {
			return f(h, &out, data, &o, message)
		})
	})
	if err != nil {
		return nil, err
	}
	summary.Lines, summary.Imported = int64(out.lines), int64(out.imported)
	summary.AlreadyImported, summary.Unsupported = int64(out.already_imported), int64(out.unsupported)
	summary.Failed, summary.RecoveryCodes = int64(out.failed), int64(out.recovery_codes)
	summary.Stopped = bool(out.stopped)
	return summary, nil
}

// Import stores the TOTP factors users already have in another system, one
// per line of text (UTF-8, at most ImportMaxBytes) in format. A bad line
// does not stop the import; re-running it stores nothing twice
// (ImportAlreadyImported); the factor limit applies per line; imports do
// not revoke the users' tokens; each factor stored is audited (AuditEnroll,
// detail "IMPORTED"). A panic in Report or Progress stops the import after
// its batch and is raised again here. Errors: INVALID_ARGUMENT (an unknown
// format, bad options, text not UTF-8), STORAGE_ERROR (the batches before
// are stored: run it again to go on).
func (a *Admin) Import(ctx context.Context, text []byte, format ImportFormat, opts ImportOptions) (*ImportSummary, error) {
	return a.importCall(ctx, text, opts, func(h *C.mfa_ctx, out *C.mfa_import_summary, data *C.uint8_t,
		o *C.mfa_import_options, message **C.char) C.int32_t {
		return C.mfa_import(h, out, C.int32_t(format), data, C.size_t(len(text)), o, message)
	})
}

// ImportGoogleAuthenticator imports one user's google-authenticator-libpam
// file (~/.google_authenticator) for uid in opts.Tenant: its TOTP secret as
// a factor, its scratch codes as the user's recovery codes, each option
// line reported as it maps onto libmfa (ImportNote). A counter-based file is
// ImportUnsupported and stores nothing. One file is one transaction
// (Progress is not called).
func (a *Admin) ImportGoogleAuthenticator(ctx context.Context, text []byte, uid string,
	opts ImportOptions) (*ImportSummary, error) {
	var args cArgs
	defer args.free()
	u := args.str(uid, "uid")
	if args.err != nil {
		return nil, args.err
	}
	return a.importCall(ctx, text, opts, func(h *C.mfa_ctx, out *C.mfa_import_summary, data *C.uint8_t,
		o *C.mfa_import_options, message **C.char) C.int32_t {
		return C.mfa_import_google_authenticator(h, out, u, data, C.size_t(len(text)), o, message)
	})
}

// KeyRotationResult says what a batched key rotation did.
type KeyRotationResult struct {
	// Rotated records were re-encrypted by this run; Remaining are still
	// not under the current key (0 when it finished).
	Rotated, Remaining int64
	// Stopped says whether progress stopped the run.
	Stopped bool
}

// RotateKeys re-encrypts every stored secret that is not under the current
// master key, batchSize records (1 to RotationBatchMax; 0 for 500) at a time,
// each batch its own short transaction; progress (or nil) runs after each
// batch and stops the run by returning false. Interrupting it loses
// nothing: running it again resumes. Audited (AuditKeysRotated). Errors:
// CRYPTO (a record's key was not given; the batches before stay done),
// INVALID_ARGUMENT, STORAGE_ERROR.
func (a *Admin) RotateKeys(ctx context.Context, batchSize int, progress func(done, total int64) bool) (*KeyRotationResult, error) {
	if batchSize == 0 {
		batchSize = 500
	}
	if batchSize < 0 || batchSize > RotationBatchMax {
		return nil, invalid(fmt.Sprintf("the batch size must be 1 to %d, not %d", RotationBatchMax, batchSize))
	}
	var args cArgs
	defer args.free()
	actor := args.str(a.Actor, "actor")
	var out C.mfa_rotation_result
	var err error
	withCallbacks(&callCallbacks{progress: progress}, func(handle C.uintptr_t) {
		err = a.c.call(ctx, &args, func(h *C.mfa_ctx, message **C.char) C.int32_t {
			return C.mfa_go_rotate(h, &out, C.int32_t(batchSize), actor, handle, message)
		})
	})
	if err != nil {
		return nil, err
	}
	return &KeyRotationResult{Rotated: int64(out.rotated), Remaining: int64(out.remaining), Stopped: bool(out.stopped)}, nil
}

// SealCheck is what CheckSeals found.
type SealCheck struct {
	// Checked records were read; Failed did not open with the keys given.
	Checked, Failed int64
	// FailedIDs are the ids of the first records that did not open (at most 100).
	FailedIDs []string
	// Stopped says whether progress stopped the check.
	Stopped bool
}

// CheckSeals opens every sealed record (factor secrets, pending secrets, SMS
// codes) with the Context's keys, batchSize (1 to RotationBatchMax; 0 for
// 1000) at a time, and reports those that do not open: after a rotation, a
// check on a Context opened with the new key alone proves nothing still
// needs an old one. Nothing is written.
func (a *Admin) CheckSeals(ctx context.Context, batchSize int, progress func(done, total int64) bool) (*SealCheck, error) {
	if batchSize == 0 {
		batchSize = 1000
	}
	if batchSize < 0 || batchSize > RotationBatchMax {
		return nil, invalid(fmt.Sprintf("the batch size must be 1 to %d, not %d", RotationBatchMax, batchSize))
	}
	var out *C.mfa_seal_check
	var err error
	withCallbacks(&callCallbacks{progress: progress}, func(handle C.uintptr_t) {
		err = a.c.call(ctx, nil, func(h *C.mfa_ctx, message **C.char) C.int32_t {
			return C.mfa_go_check_seals(h, &out, C.int32_t(batchSize), handle, message)
		})
	})
	defer C.mfa_seal_check_free(out)
	if err != nil {
		return nil, err
	}
	check := &SealCheck{Checked: int64(out.checked), Failed: int64(out.failed), Stopped: bool(out.stopped),
		FailedIDs: []string{}}
	if out.failed_id_count > 0 {
		for _, id := range unsafe.Slice(out.failed_ids, int(out.failed_id_count)) {
			check.FailedIDs = append(check.FailedIDs, C.GoString(id))
		}
	}
	return check, nil
}
