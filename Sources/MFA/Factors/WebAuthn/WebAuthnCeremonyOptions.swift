/// What a relying party asks of the authenticator for one ceremony, over
/// what the configuration says (`webauthn` section): the fields WebAuthn
/// lets a page choose per call.
///
/// nil or empty means "as configured". User verification only ever
/// tightens: when the configuration requires it, a call cannot ask for
/// less. Whatever a registration asked for is sealed in its challenge and
/// checked when it finishes: user verification required means the UV flag,
/// a resident key required means a discoverable credential (`credProps.rk`
/// must not say otherwise), and the credential's algorithm must be one of
/// those offered.
public struct WebAuthnCeremonyOptions: Sendable, Equatable {
    /// Which authenticators may answer: built into the device, or roaming (USB, NFC, BLE, a phone).
    public var authenticatorAttachment: WebAuthnAttachment?
    /// Whether the authenticator must verify the user (PIN, biometrics).
    public var userVerification: WebAuthnUserVerification?
    /// Whether a discoverable credential is asked for (registration only).
    public var residentKey: WebAuthnResidentKey?
    /// WebAuthn Level 3 hints: which kind of authenticator the page expects, most likely first.
    public var hints: [WebAuthnHint]
    /// The algorithms offered at registration, most preferred first (nil:
    /// all of `WebAuthnAlgorithm`, in its order).
    public var algorithms: [WebAuthnAlgorithm]?

    /// Options as configured.
    public init(authenticatorAttachment: WebAuthnAttachment? = nil, userVerification: WebAuthnUserVerification? = nil,
                residentKey: WebAuthnResidentKey? = nil, hints: [WebAuthnHint] = [],
                algorithms: [WebAuthnAlgorithm]? = nil) {
        self.authenticatorAttachment = authenticatorAttachment
        self.userVerification = userVerification
        self.residentKey = residentKey
        self.hints = hints
        self.algorithms = algorithms
    }

    /// A passkey's registration: a discoverable credential
    /// (`residentKey: "required"`) and user verification required, so that
    /// the credential can sign its user in without a password.
    public static let passkey = WebAuthnCeremonyOptions(userVerification: .required, residentKey: .required)

    /// Refuses options that contradict themselves: a hint or algorithm named twice, or no algorithm at all.
    func check() throws(MFAError) {
        guard Set(hints).count == hints.count else {
            throw MFAError(.invalidArgument, "WebAuthn hints: each may be given once")
        }
        if let algorithms {
            guard !algorithms.isEmpty, Set(algorithms).count == algorithms.count else {
                throw MFAError(.invalidArgument, "WebAuthn algorithms: one or more, each once")
            }
        }
    }
}

/// `authenticatorAttachment` (WebAuthn's `AuthenticatorAttachment`).
public enum WebAuthnAttachment: String, Sendable, CaseIterable {
    /// An authenticator built into the device (Windows Hello, Touch ID, Android's screen lock).
    case platform
    /// A roaming authenticator: a security key, or a phone reached over hybrid transport.
    case crossPlatform = "cross-platform"
}

/// WebAuthn Level 3 `hints` (`PublicKeyCredentialHint`).
public enum WebAuthnHint: String, Sendable, CaseIterable {
    /// A physical security key.
    case securityKey = "security-key"
    /// The device the user is on (a platform authenticator).
    case clientDevice = "client-device"
    /// A phone or tablet reached over hybrid transport (a QR code).
    case hybrid
}

/// The credential algorithms libmfa verifies, as COSE identifiers.
public enum WebAuthnAlgorithm: Int64, Sendable, CaseIterable {
    /// ECDSA P-256 with SHA-256 (-7): what nearly every authenticator makes.
    case es256 = -7
    /// EdDSA with Ed25519 (-8).
    case edDSA = -8
    /// RSASSA-PKCS1-v1_5 with SHA-256 (-257): Windows Hello.
    case rs256 = -257
    /// ECDSA P-384 with SHA-384 (-35).
    case es384 = -35
    /// ECDSA P-521 with SHA-512 (-36).
    case es512 = -36
    /// RSASSA-PSS with SHA-256 (-37).
    case ps256 = -37

    /// The name WebAuthn's registries give it ("ES256").
    public var name: String { COSEKey.Algorithm(rawValue: rawValue)?.name ?? "" }

    /// The algorithm named `name` ("ES256", "EdDSA", "RS256", "ES384", "ES512", "PS256"), or nil.
    public init?(name: String) {
        guard let found = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = found
    }
}
