import CMFATypes
import MFA

/// The C number of a factor kind (`MFA_FACTOR_*`), or 0 for an unknown id.
func cKind(_ factorID: String?) -> Int32 {
    factorID.flatMap { FactorRegistry.kind($0)?.kind } ?? 0
}

/// The C layout of a factor, its strings placed in `arena`.
func cFactorInfo(_ info: MultiFactorInfo, _ arena: CArena) -> mfa_factor_info {
    mfa_factor_info(uid: arena.string(info.uid), factor_id: arena.string(info.factorID),
                    display_name: arena.string(info.displayName), enrollment_time: info.enrollmentDate,
                    phone_number: arena.string(info.phoneNumber), kind: cKind(info.factorID),
                    hint: arena.string(info.hint), remaining_codes: info.remainingCodes.map(Int64.init) ?? -1)
}

/// Lays out a sign-in result with its claims.
func cSignInResult(_ result: SignInResult) throws(MFAError) -> UnsafeMutablePointer<mfa_sign_in_result> {
    let claims = result.claims // built once: `make` runs its closure twice (measure, then fill)
    return try CBlock.make { arena in
        mfa_sign_in_result(uid: arena.string(result.uid), tenant: arena.string(result.tenant),
                           factor_id: arena.string(result.factorID),
                           enrollment_id: arena.string(result.enrollmentID), time: result.time,
                           kind: cKind(result.factorID), claim_count: claims.count,
                           claims: arena.array(claims) { mfa_claim(name: arena.string($0.name),
                                                                   value: arena.string($0.value)) })
    }
}

/// Lays out a resolver.
func cResolver(_ resolver: MultiFactorResolver) throws(MFAError) -> UnsafeMutablePointer<mfa_resolver> {
    try CBlock.make { arena in
        mfa_resolver(session: arena.string(resolver.session), uid: arena.string(resolver.uid),
                     tenant: arena.string(resolver.tenant), hint_count: resolver.hints.count,
                     hints: arena.array(resolver.hints) { cFactorInfo($0, arena) })
    }
}
