/// What a ceremony's options asked for beyond the configuration, sealed in
/// its challenge (`TokenClaims.reference`) so that finishing it checks the
/// very terms the browser was given.
///
/// A registration's reference is the user handle (base64url), then `.` and
/// the terms in hexadecimal; an authentication's is `~`, the terms, `~` and
/// the enrollment id it is restricted to (or nothing). A reference without
/// terms (a challenge made before they existed) asks for nothing more.
struct WebAuthnCeremonyTerms: Equatable {
    /// The UV flag is required.
    var userVerification = false
    /// A discoverable credential is required.
    var residentKey = false
    /// The algorithms offered, or nil for every one.
    var algorithms: Set<COSEKey.Algorithm>?

    private static let order: [WebAuthnAlgorithm] = WebAuthnAlgorithm.allCases

    /// The terms as bits: 1 UV, 2 resident key, then one bit per offered algorithm (none set: every one).
    var bits: Int {
        var value = (userVerification ? 1 : 0) | (residentKey ? 2 : 0)
        if let algorithms {
            for (index, algorithm) in Self.order.enumerated()
            where COSEKey.Algorithm(rawValue: algorithm.rawValue).map(algorithms.contains) == true {
                value |= 4 << index
            }
        }
        return value
    }

    init(userVerification: Bool = false, residentKey: Bool = false, algorithms: Set<COSEKey.Algorithm>? = nil) {
        self.userVerification = userVerification
        self.residentKey = residentKey
        self.algorithms = algorithms
    }

    init(bits: Int) {
        userVerification = bits & 1 != 0
        residentKey = bits & 2 != 0
        let offered = Self.order.indices.filter { bits & (4 << $0) != 0 }
        algorithms = offered.isEmpty ? nil
            : Set(offered.compactMap { COSEKey.Algorithm(rawValue: Self.order[$0].rawValue) })
    }

    /// A registration challenge's reference.
    func registrationReference(handle: [UInt8]) -> String {
        Base64URL.encode(handle) + "." + String(bits, radix: 16)
    }

    /// The user handle and terms of a registration challenge's reference.
    static func registration(_ reference: String) -> (handle: [UInt8], terms: WebAuthnCeremonyTerms)? {
        let parts = reference.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let handle = Base64URL.decode(String(parts[0])), !handle.isEmpty else { return nil }
        guard parts.count == 2 else { return (handle, WebAuthnCeremonyTerms()) }
        guard let bits = Int(parts[1], radix: 16), bits >= 0 else { return nil }
        return (handle, WebAuthnCeremonyTerms(bits: bits))
    }

    /// An authentication challenge's reference.
    func authenticationReference(enrollmentID: String?) -> String {
        "~" + String(bits, radix: 16) + "~" + (enrollmentID ?? "")
    }

    /// The enrollment id (nil for none) and terms of an authentication challenge's reference.
    static func authentication(_ reference: String) -> (enrollmentID: String?, terms: WebAuthnCeremonyTerms) {
        guard reference.hasPrefix("~") else { return (reference.isEmpty ? nil : reference, WebAuthnCeremonyTerms()) }
        let parts = reference.dropFirst().split(separator: "~", maxSplits: 1, omittingEmptySubsequences: false)
        let bits = Int(parts[0], radix: 16) ?? 0
        let id = parts.count == 2 ? String(parts[1]) : ""
        return (id.isEmpty ? nil : id, WebAuthnCeremonyTerms(bits: bits))
    }
}
