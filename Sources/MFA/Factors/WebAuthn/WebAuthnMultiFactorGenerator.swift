/// A WebAuthn assertion: the browser's `PublicKeyCredential` as JSON
/// (`credential.toJSON()`), from `navigator.credentials.create` to enroll
/// or `navigator.credentials.get` to sign in.
public struct WebAuthnMultiFactorAssertion: MultiFactorAssertion {
    /// The credential's JSON.
    public let credentialJSON: String
    /// At sign-in, the factor the user chose (its hint's uid), or nil for
    /// whichever of the user's credentials answered.
    public let enrollmentID: String?
    /// Always "webauthn".
    public var factorID: String { WebAuthnMultiFactorID }

    /// Creates an assertion (usually through `WebAuthnMultiFactorGenerator`).
    public init(credentialJSON: String, enrollmentID: String? = nil) {
        self.credentialJSON = credentialJSON
        self.enrollmentID = enrollmentID
    }
}

/// Makes WebAuthn ceremony options and assertions, in the seeds' style.
///
/// Registration: `registrationOptions(with:userName:)` gives the JSON for
/// `navigator.credentials.create({publicKey: PublicKeyCredential.parseCreationOptionsFromJSON(options)})`;
/// the credential's `toJSON()` goes to `assertionForEnrollment` and
/// `MultiFactor.enroll`. Sign-in: `authenticationOptions(for:)` gives the
/// JSON for `navigator.credentials.get`; the credential's `toJSON()` goes to
/// `assertionForSignIn` and `MultiFactorResolver.resolveSignIn`.
public enum WebAuthnMultiFactorGenerator {
    /// "webauthn".
    public static let factorID = WebAuthnMultiFactorID

    /// The `PublicKeyCredentialCreationOptions` for the user of `session`, as JSON.
    ///
    /// The challenge is a sealed libmfa token bound to the session's user,
    /// tenant and revocation epoch; it expires after `webauthn.timeout`, and
    /// the enrollment uses up the session.
    /// - Parameters:
    ///   - session: from `MultiFactor.session()`.
    ///   - userName: the account's name the authenticator shows (an email address), 1 to 256 bytes.
    ///   - userDisplayName: a friendlier name, or nil for `userName`.
    ///   - options: this ceremony's choices over the configuration's
    ///     (`WebAuthnCeremonyOptions.passkey` registers a passkey that signs in without a password).
    /// - Throws: `operationNotAllowed` (WebAuthn disabled, no rp id),
    ///   `invalidSession`, `userTokenExpired`, `secondFactorLimitExceeded`,
    ///   `invalidArgument`, `storageError`.
    public static func registrationOptions(with session: MultiFactorSession, userName: String,
                                           userDisplayName: String? = nil,
                                           options: WebAuthnCeremonyOptions = WebAuthnCeremonyOptions())
        throws(MFAError) -> String {
        let call = CallBudget.begin()
        defer { call.end() }
        return try session.context.webAuthnRegistrationOptions(sessionToken: session.token, userName: userName,
                                                               userDisplayName: userDisplayName, ceremony: options)
    }

    /// An assertion that enrolls the credential the browser created.
    public static func assertionForEnrollment(credentialJSON: String) -> WebAuthnMultiFactorAssertion {
        WebAuthnMultiFactorAssertion(credentialJSON: credentialJSON)
    }

    /// The `PublicKeyCredentialRequestOptions` for `resolver`'s sign-in, as
    /// JSON: the user's credentials (or only `enrollmentID`'s) are allowed;
    /// of `options`, the user verification and the hints apply.
    /// - Throws: `invalidSession`, `userTokenExpired`, `tenantMismatch`,
    ///   `mfaEnrollmentNotFound` (no such credential), `operationNotAllowed`
    ///   (no rp id), `storageError`.
    public static func authenticationOptions(for resolver: MultiFactorResolver, enrollmentID: String? = nil,
                                             options: WebAuthnCeremonyOptions = WebAuthnCeremonyOptions())
        throws(MFAError) -> String {
        let call = CallBudget.begin()
        defer { call.end() }
        return try resolver.context.webAuthnAuthenticationOptions(pendingCredential: resolver.session,
                                                                  tenant: resolver.tenant, enrollmentID: enrollmentID,
                                                                  ceremony: options)
    }

    /// An assertion that resolves a sign-in with the credential the browser returned.
    public static func assertionForSignIn(credentialJSON: String,
                                          enrollmentID: String? = nil) -> WebAuthnMultiFactorAssertion {
        WebAuthnMultiFactorAssertion(credentialJSON: credentialJSON, enrollmentID: enrollmentID)
    }
}
