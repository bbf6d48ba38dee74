/// The factor id of WebAuthn second factors (security keys and passkeys),
/// as in `MultiFactorInfo.factorID`.
public let WebAuthnMultiFactorID = "webauthn"

/// The WebAuthn section of a configuration:
///
/// ```json
/// "webauthn": {"rpId": "example.com", "rpName": "ACME", "origins": ["https://example.com"],
///              "userVerification": "preferred", "residentKey": "discouraged",
///              "attestation": "none", "attestationRoots": [], "timeout": 300000,
///              "passkeySignIn": false}
/// ```
///
/// (its state may also be given as `"providers": {"webauthn": "ENABLED"}`).
/// Without `rpId` no ceremony can start (`OPERATION_NOT_ALLOWED`); without
/// `origins`, the one origin allowed is `https://<rpId>`.
///
/// A configuration is refused (`invalidArgument` naming the field) when its
/// rp id is a public suffix (every single-label name but `localhost`, and
/// a short built-in list such as `co.uk` and `github.io`; not the whole
/// Public Suffix List) or an IP address, or when an origin names its
/// scheme's default port (`https://example.com:443`, which no browser
/// writes) or has a host that is neither the rp id nor a subdomain of it.
public struct WebAuthnSettings: FactorSettings {
    /// The most origins a configuration may list.
    public static let maxOrigins = 16
    /// The most attestation roots a configuration may list.
    public static let maxAttestationRoots = 32
    /// The longest attestation root, in PEM bytes.
    public static let maxRootBytes = 16384
    /// The ceremony timeouts allowed, in milliseconds.
    public static let timeouts: ClosedRange<Int64> = 10_000...600_000

    /// The relying party id: the domain credentials are scoped to
    /// ("example.com"), lower case, one the relying party can own (not a
    /// public suffix or an IP address); nil until configured.
    public var rpID: String?
    /// The relying party's name shown by some authenticators (the rp id when empty).
    public var rpName = ""
    /// The origins responses may come from, as a browser writes them
    /// ("https://example.com", "https://login.example.com:8443", with rp id
    /// "localhost" "http://localhost:5000" for development): lower case, no
    /// default port, no path, each host the rp id or a subdomain of it;
    /// empty means `https://<rpId>` only.
    public var origins: [String] = []
    /// Whether the authenticator must verify the user (PIN, biometrics).
    public var userVerification: WebAuthnUserVerification = .preferred
    /// Whether a discoverable credential (a passkey stored on the authenticator) is asked for.
    public var residentKey: WebAuthnResidentKey = .discouraged
    /// The attestation asked of authenticators at registration.
    public var attestation: WebAuthnAttestationConveyance = .none
    /// PEM certificates (`-----BEGIN CERTIFICATE-----`) that attestation
    /// chains must lead to when attestation is asked for.
    public var attestationRoots: [String] = []
    /// How long a ceremony may take, in milliseconds (also the challenge's lifetime).
    public var timeoutMilliseconds: Int64 = 300_000
    /// Whether users may sign in with a passkey alone, without a password
    /// (`MFAContext.signInWithPasskey`): a discoverable credential,
    /// registered with user verification, verifying the user again.
    public var passkeySignIn = false

    /// The defaults: no rp id yet, user verification preferred, no resident
    /// key asked for, no attestation, 5 minutes, no passkey sign-in.
    public init() {}

    /// The origins responses may come from: `origins`, or `https://<rpId>`.
    public var effectiveOrigins: [String] {
        guard origins.isEmpty else { return origins }
        return rpID.map { ["https://" + $0] } ?? []
    }

    /// The challenge lifetime in whole seconds.
    var timeoutSeconds: Int64 { (timeoutMilliseconds + 999) / 1000 }
}

/// `userVerification` (WebAuthn's `UserVerificationRequirement`).
public enum WebAuthnUserVerification: String, Sendable, CaseIterable {
    /// Responses without user verification are refused (`USER_VERIFICATION_REQUIRED`).
    case required
    /// Asked for, not required.
    case preferred
    /// Not asked for.
    case discouraged
}

/// `residentKey` (WebAuthn's `ResidentKeyRequirement`).
public enum WebAuthnResidentKey: String, Sendable, CaseIterable {
    /// A discoverable credential (passkey) is required.
    case required
    /// Asked for, not required.
    case preferred
    /// Not asked for.
    case discouraged
}

/// `attestation` (WebAuthn's `AttestationConveyancePreference`).
public enum WebAuthnAttestationConveyance: String, Sendable, CaseIterable {
    /// No attestation is asked for or judged (a statement that comes anyway is still checked).
    case none
    /// Attestation is asked for and must be trusted (roots or the host's callback).
    case indirect
    /// As `indirect`, asking for the authenticator's own attestation.
    case direct
    /// As `direct`, with enterprise attestation.
    case enterprise
}

extension MFAConfig {
    /// Whether WebAuthn second factors (security keys, passkeys) may be enrolled.
    public var webAuthn: ProviderState {
        get { providers[WebAuthnMultiFactorID] ?? .disabled }
        set { providers[WebAuthnMultiFactorID] = newValue }
    }

    /// The WebAuthn settings (relying party, policies).
    public var webAuthnSettings: WebAuthnSettings {
        get { self[WebAuthnFactor.self] }
        set { self[WebAuthnFactor.self] = newValue }
    }
}
