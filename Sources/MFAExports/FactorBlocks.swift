import CMFATypes
import MFA

/// The C layout of a factor, its strings placed in `arena`.
func cFactorInfo(_ info: MultiFactorInfo, _ arena: CArena) -> mfa_factor_info {
    mfa_factor_info(uid: arena.string(info.uid), factor_id: arena.string(info.factorID),
                    display_name: arena.string(info.displayName), enrollment_time: info.enrollmentDate,
                    phone_number: arena.string(info.phoneNumber))
}
