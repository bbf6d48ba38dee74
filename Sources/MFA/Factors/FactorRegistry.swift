/// Every kind of second factor libmfa knows, in a fixed order (the order of
/// their schema tracks and of the configuration's JSON).
///
/// Adding a kind is a folder under `Factors/` and one line here.
package enum FactorRegistry {
    /// The kinds.
    package static let all: [any SecondFactor.Type] = [
        TOTPFactor.self,
        PhoneFactor.self,
        RecoveryCodesFactor.self,
        WebAuthnFactor.self,
        EmailFactor.self,
        HOTPFactor.self,
        YubicoOTPFactor.self,
    ]

    /// The kind with this factor id, or nil.
    package static func kind(_ id: String) -> (any SecondFactor.Type)? {
        all.first { $0.id == id }
    }

    /// The kind with this factor id.
    /// - Throws: `storageError` for an id no kind has (a row written by a newer libmfa, or altered).
    package static func stored(_ id: String) throws(MFAError) -> any SecondFactor.Type {
        guard let kind = kind(id) else {
            throw MFAError(.storageError, "a stored factor has an unknown kind")
        }
        return kind
    }

    /// Every kind's `factorColumns`, in the order of `all`.
    package static let factorColumns: [String] = all.flatMap { $0.factorColumns }

    /// The ids of the kinds that count toward the factor limit.
    package static var limitedIDs: [String] { all.filter { $0.countsTowardLimit }.map { $0.id } }
}
