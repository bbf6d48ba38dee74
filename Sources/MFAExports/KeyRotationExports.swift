import CMFATypes
import Glibc
import MFA

/// Re-encrypts every stored secret that is not under the current master key,
/// `batch_size` records (1 to MFA_ROTATION_BATCH_MAX) at a time, each batch
/// its own short transaction, so that a large store is never locked for long
/// and other calls go on meanwhile. Interrupting it loses nothing: a batch
/// commits whole or not at all, and running it again resumes with exactly
/// the records not under the current key.
///
/// `progress` (or NULL) runs after each batch with the records done and the
/// total found at the start, and may stop the run there. `actor` (NULL or 1
/// to MFA_ACTOR_MAX_BYTES bytes) goes into the MFA_AUDIT_KEYS_ROTATED event.
/// Keep the previous keys in the options until the tokens they sealed have
/// expired (10 minutes by default). On MFA_OK, `*out` says what was done and
/// what is left (zeroed on failure). Returns MFA_OK, MFA_ERR_INVALID_ARGUMENT
/// (batch size, actor), MFA_ERR_CRYPTO (a record's key was not given, or it
/// does not decrypt for its row; the batches before stay done) or
/// MFA_ERR_STORAGE_ERROR.
@c(mfa_rotate_keys_batched)
public func mfa_rotate_keys_batched(_ ctx: UnsafeMutablePointer<mfa_ctx>?,
                                    _ out: UnsafeMutablePointer<mfa_rotation_result>?, _ batch_size: Int32,
                                    _ actor: UnsafePointer<CChar>?, _ progress: mfa_progress_fn?,
                                    _ progress_context: UnsafeMutableRawPointer?,
                                    _ err: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    out?.pointee = mfa_rotation_result()
    return CResults.status(err) { () throws(MFAError) in
        let context = try CContext.get(ctx)
        let out = try CArguments.required(out, "out")
        let who = try CArguments.optionalString(actor, "actor")
        let result = try context.rotateKeys(batchSize: Int(batch_size), actor: who,
                                            progress: cProgress(progress, progress_context))
        out.pointee = mfa_rotation_result(rotated: Int64(result.rotated), remaining: Int64(result.remaining),
                                          stopped: result.stopped)
    }
}

/// Opens every sealed record (factor secrets, pending secrets, SMS codes)
/// with the context's keys, reading `batch_size` records (1 to
/// MFA_ROTATION_BATCH_MAX) at a time, and reports those that do not open:
/// after a key rotation, a check on a context opened with the new key alone
/// proves that nothing still needs an old one. Nothing is written. Every row
/// is checked whatever its seal format; a format this libmfa cannot read
/// counts as failed.
///
/// `progress` (or NULL) runs after each batch with the records checked and
/// the total, and may stop the check there. On MFA_OK, `*out` holds what was
/// found (free with mfa_seal_check_free()). Returns MFA_OK,
/// MFA_ERR_INVALID_ARGUMENT or MFA_ERR_STORAGE_ERROR.
@c(mfa_check_seals)
public func mfa_check_seals(_ ctx: UnsafeMutablePointer<mfa_ctx>?,
                            _ out: UnsafeMutablePointer<UnsafeMutablePointer<mfa_seal_check>?>?,
                            _ batch_size: Int32, _ progress: mfa_progress_fn?,
                            _ progress_context: UnsafeMutableRawPointer?,
                            _ err: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    CResults.status(err) { () throws(MFAError) in
        let context = try CContext.get(ctx)
        let out = try CArguments.required(out, "out")
        out.pointee = nil
        let host = cProgress(progress, progress_context)
        var stopped = false
        let result = try context.checkSeals(batchSize: Int(batch_size)) { done, total in
            stopped = !host(done, total)
            return !stopped
        }
        out.pointee = try CBlock.make { arena in
            mfa_seal_check(checked: Int64(result.checked), failed: Int64(result.failedCount),
                           failed_id_count: result.failed.count,
                           failed_ids: UnsafePointer(arena.array(result.failed) { UnsafePointer(arena.string($0)) }),
                           stopped: stopped)
        }
    }
}

/// Frees what mfa_check_seals() found. NULL is a no-op.
@c(mfa_seal_check_free)
public func mfa_seal_check_free(_ check: UnsafeMutablePointer<mfa_seal_check>?) {
    free(check)
}

/// Re-wraps every data key of the store under the key provider's key
/// `key_label` (rotating the HSM key, or the host's KMS key): each is
/// unwrapped with the key it is wrapped under now, wrapped under
/// `key_label`, checked, and all are stored in one transaction. No sealed
/// record is touched (seconds, not a pass over the factors), and contexts
/// already open go on meanwhile; contexts opened later unwrap with the new
/// key. The old key may be deleted from the token once every store it
/// wrapped is re-wrapped. `actor` (NULL or 1 to MFA_ACTOR_MAX_BYTES bytes)
/// goes into the MFA_AUDIT_KEYS_ROTATED event. On MFA_OK, `*rewrapped`
/// (may be NULL) is the number of data keys re-wrapped. Returns MFA_OK,
/// MFA_ERR_INVALID_ARGUMENT (the context was opened without a key provider,
/// a bad label or actor), MFA_ERR_KEY_PROVIDER_KEY_NOT_FOUND (no key
/// `key_label`, or the current one is gone), MFA_ERR_KEY_PROVIDER_LOGIN,
/// MFA_ERR_KEY_PROVIDER_UNAVAILABLE, MFA_ERR_KEY_MISMATCH (a data key does
/// not unwrap to the key this context holds) or MFA_ERR_STORAGE_ERROR
/// (another process re-wrapped meanwhile; nothing was changed).
@c(mfa_keys_rewrap)
public func mfa_keys_rewrap(_ ctx: UnsafeMutablePointer<mfa_ctx>?, _ key_label: UnsafePointer<CChar>?,
                            _ actor: UnsafePointer<CChar>?, _ rewrapped: UnsafeMutablePointer<Int64>?,
                            _ err: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    rewrapped?.pointee = 0
    return CResults.status(err) { () throws(MFAError) in
        let context = try CContext.get(ctx)
        let label = try CArguments.string(key_label, "key_label")
        let who = try CArguments.optionalString(actor, "actor")
        let result = try context.rewrapDataKeys(to: label, actor: who)
        rewrapped?.pointee = Int64(result.rewrapped)
    }
}
