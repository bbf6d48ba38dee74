/// An attestation as the host's trust callback sees it.
public struct WebAuthnAttestation: Sendable {
    /// The statement format: "none", "packed", "fido-u2f", "tpm", "android-key", "apple", or
    /// another the authenticator wrote (then `kind` is "unverified").
    public let format: String
    /// How it was made: "none", "self" (the credential's own key), "basic"
    /// (a certificate chain: packed, fido-u2f, android-key), "attca" (a TPM's
    /// attestation CA), "anonca" (Apple's anonymization CA), or "unverified"
    /// (a format libmfa does not verify, under conveyance "none").
    public let kind: String
    /// The authenticator model's AAGUID (16 bytes; zeros from U2F keys and when not attested).
    public let aaguid: [UInt8]
    /// The certificate chain, leaf first, DER (empty unless `kind` is "basic", "attca" or "anonca").
    public let certificates: [[UInt8]]
    /// Whether the chain leads to one of the configured `webauthn.attestationRoots`.
    public let chainTrusted: Bool
    /// The tenant, or nil for the project.
    public let tenant: String?
    /// The user enrolling.
    public let uid: String
}

/// The host's decision on attestations: which authenticators it accepts.
///
/// Called at every WebAuthn registration, after the statement's signature
/// checked out; return false to refuse the credential
/// (`attestationNotTrusted`). It runs on the calling thread and must not
/// call back into the context.
public protocol WebAuthnAttestationTrust: Sendable {
    /// Whether to accept a credential attested this way.
    func trust(_ attestation: WebAuthnAttestation) -> Bool
}

/// Who decides whether an attestation is good enough.
///
/// - With a host callback, the callback decides, whatever the conveyance,
///   knowing whether the chain led to a configured root.
/// - Without one, conveyance `none` accepts every statement (none was asked
///   for, and none was verified); `indirect`, `direct` and `enterprise`
///   accept only a verified statement whose certificate chain leads to one
///   of `webauthn.attestationRoots`, so `none`, self and unverified
///   attestations (a format libmfa does not verify) are refused.
enum WebAuthnTrustPolicy {
    static func check(_ result: AttestationResult, aaguid: [UInt8], settings: WebAuthnSettings, now: Int64,
                      trust: (any WebAuthnAttestationTrust)?, tenant: String?, uid: String) throws(MFAError) {
        let needsChain = trust != nil || settings.attestation != .none
        var chainTrusted = false
        if needsChain, !result.chain.isEmpty, !settings.attestationRoots.isEmpty {
            var chain: [X509Certificate] = []
            for der in result.chain { chain.append(try X509Certificate(der: der)) }
            chainTrusted = try X509Certificate.chainIsTrusted(chain, roots: settings.attestationRoots, now: now)
        }
        let accepted: Bool
        if let trust {
            accepted = trust.trust(WebAuthnAttestation(format: result.format, kind: result.kind.rawValue,
                                                       aaguid: aaguid, certificates: result.chain,
                                                       chainTrusted: chainTrusted, tenant: tenant, uid: uid))
        } else {
            accepted = settings.attestation == .none || chainTrusted
        }
        guard accepted else {
            throw MFAError(.attestationNotTrusted, "the \(result.format) attestation (\(result.kind.rawValue)) is not trusted")
        }
    }
}
