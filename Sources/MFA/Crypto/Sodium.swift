import CSodium

/// libsodium's one-time start-up, done lazily and thread-safely on first use.
enum Sodium {
    /// Whether `sodium_init` succeeded (it only fails when the system has no randomness).
    static let isReady: Bool = sodium_init() >= 0

    /// Throws `crypto` if libsodium could not start.
    static func ensureReady() throws(MFAError) {
        guard isReady else { throw MFAError(.crypto, "libsodium could not be initialised") }
    }
}
