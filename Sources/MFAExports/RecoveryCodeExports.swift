import CMFATypes
import Glibc
import MFA

/// Generates a new recovery-code set for the user of `session` (an
/// enrollment session from mfa_session_new(), like any enrollment),
/// replacing the user's previous set. The set does not count toward the
/// factor limit; generating it revokes the user's earlier credentials and
/// tokens, as any enrollment does.
///
/// `display_name` may be NULL. On MFA_OK, `*out` holds the codes, to show
/// the user once (libmfa keeps only their hashes), and the set as a factor;
/// free it with mfa_recovery_codes_free(). Returns MFA_OK,
/// MFA_ERR_OPERATION_NOT_ALLOWED (recovery codes disabled),
/// MFA_ERR_INVALID_SESSION (missing, tampered, expired or used session),
/// MFA_ERR_USER_TOKEN_EXPIRED, MFA_ERR_INVALID_ARGUMENT or MFA_ERR_STORAGE_ERROR.
@c(mfa_recovery_codes_generate)
public func mfa_recovery_codes_generate(_ ctx: UnsafeMutablePointer<mfa_ctx>?,
                                        _ out: UnsafeMutablePointer<UnsafeMutablePointer<mfa_recovery_codes>?>?,
                                        _ session: UnsafePointer<CChar>?, _ display_name: UnsafePointer<CChar>?,
                                        _ err: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    CResults.status(err) { () throws(MFAError) in
        let context = try CContext.get(ctx)
        let out = try CArguments.required(out, "out")
        out.pointee = nil
        let set = try RecoveryCodesMultiFactorGenerator.generateCodes(
            with: MultiFactorSession(token: try CArguments.string(session, "session"), context: context),
            displayName: try CArguments.optionalString(display_name, "display_name"))
        out.pointee = try CBlock.make { arena in
            mfa_recovery_codes(count: set.codes.count,
                               codes: UnsafePointer(arena.array(set.codes) { UnsafePointer(arena.string($0)) }),
                               factor: cFactorInfo(set.factor, arena))
        }
    }
}

/// Frees a set from mfa_recovery_codes_generate(), wiping the codes first.
/// NULL is a no-op.
@c(mfa_recovery_codes_free)
public func mfa_recovery_codes_free(_ codes: UnsafeMutablePointer<mfa_recovery_codes>?) {
    guard let codes else { return }
    if let list = codes.pointee.codes {
        for index in 0..<codes.pointee.count {
            if let code = list[index] { memset(UnsafeMutableRawPointer(mutating: code), 0, strlen(code)) }
        }
    }
    free(codes)
}

extension CAssertions {
    /// A recovery-code assertion: the code as typed, and the set's enrollment id or NULL.
    static func recoveryCodeAssertion(_ fields: mfa_assertion,
                                      _ purpose: Purpose) throws(MFAError) -> MultiFactorAssertion {
        guard purpose == .signIn else {
            throw MFAError(.invalidArgument, "recovery codes are generated with mfa_recovery_codes_generate()")
        }
        return RecoveryCodesMultiFactorGenerator.assertionForSignIn(
            withEnrollmentID: try CArguments.optionalString(fields.enrollment_id, "assertion->enrollment_id"),
            code: try CArguments.string(fields.code, "assertion->code"))
    }
}
