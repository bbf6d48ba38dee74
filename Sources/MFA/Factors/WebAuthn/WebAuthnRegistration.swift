extension MFAContext {
    /// The relying party of a configuration.
    /// - Throws: `operationNotAllowed` when no rp id is configured, or when
    ///   the stored configuration breaks a rule of `WebAuthnConfig.checkRelyingParty`
    ///   (one written before the rule, or into the store by hand): such an rp
    ///   id or origin is never trusted, and the message names the field.
    static func relyingParty(_ settings: WebAuthnSettings) throws(MFAError) -> (id: String, party: RelyingParty) {
        guard let rpID = settings.rpID else {
            throw MFAError(.operationNotAllowed, "WebAuthn needs webauthn.rpId in the configuration")
        }
        do throws(MFAError) {
            try WebAuthnConfig.checkRelyingParty(settings)
        } catch {
            throw MFAError(.operationNotAllowed, "the stored WebAuthn configuration is refused: \(error.message)")
        }
        return (rpID, RelyingParty(id: rpID, origins: settings.effectiveOrigins,
                                   requireUserVerification: settings.userVerification == .required))
    }

    /// `WebAuthnMultiFactorGenerator.registrationOptions`: the
    /// `PublicKeyCredentialCreationOptions` (JSON) for the user of
    /// `sessionToken`, with `ceremony`'s choices over the configuration's.
    func webAuthnRegistrationOptions(sessionToken: String, userName: String, userDisplayName: String?,
                                     ceremony: WebAuthnCeremonyOptions = WebAuthnCeremonyOptions()) throws(MFAError) -> String {
        guard !userName.isEmpty, userName.utf8.count <= 256 else {
            throw MFAError(.invalidArgument, "the user name must be 1 to 256 bytes")
        }
        if let userDisplayName, userDisplayName.utf8.count > 256 {
            throw MFAError(.invalidArgument, "the user's display name must be at most 256 bytes")
        }
        try IdentifierText.check(userName, "the user name")
        if let userDisplayName { try IdentifierText.check(userDisplayName, "the user's display name") }
        try ceremony.check()
        let now = clock.now()
        let session = try openSession(sessionToken, now: now)
        let config = try config(tenant: session.tenant.isEmpty ? nil : session.tenant)
        guard config.allows(WebAuthnMultiFactorID) else {
            throw MFAError(.operationNotAllowed, "WebAuthn second factors are disabled")
        }
        let settings = config.webAuthnSettings
        let (rpID, _) = try Self.relyingParty(settings)
        let existing = try store.database.read { (db) throws(MFAError) in
            try WebAuthnStore.credentials(db, tenant: session.tenant, uid: session.uid)
        }
        try Self.checkFactorLimit(store.factors(tenant: session.tenant, uid: session.uid), config)
        // The user handle stays the same for every credential of the user.
        var handle = existing.first?.userHandle ?? []
        if handle.isEmpty { handle = try random.bytes(32) }
        let userVerification = Self.userVerification(settings, ceremony)
        let residentKey = ceremony.residentKey ?? settings.residentKey
        let algorithms = ceremony.algorithms ?? WebAuthnAlgorithm.allCases
        let terms = WebAuthnCeremonyTerms(
            userVerification: userVerification == .required, residentKey: residentKey == .required,
            algorithms: ceremony.algorithms.map { Set($0.compactMap { COSEKey.Algorithm(rawValue: $0.rawValue) }) })
        let claims = TokenClaims(purpose: .webAuthnRegistration, id: session.id, tenant: session.tenant,
                                 uid: session.uid, expires: now.plus(settings.timeoutSeconds),
                                 reference: terms.registrationReference(handle: handle), epoch: session.epoch,
                                 parentExpires: session.expires)
        var selection: [(String, JSONValue)] = [
            ("residentKey", .string(residentKey.rawValue)),
            ("requireResidentKey", .bool(residentKey == .required)),
            ("userVerification", .string(userVerification.rawValue)),
        ]
        if let attachment = ceremony.authenticatorAttachment {
            selection.append(("authenticatorAttachment", .string(attachment.rawValue)))
        }
        var members: [(String, JSONValue)] = [
            ("rp", .object([("id", .string(rpID)), ("name", .string(settings.rpName.isEmpty ? rpID : settings.rpName))])),
            ("user", .object([("id", .string(Base64URL.encode(handle))), ("name", .string(userName)),
                              ("displayName", .string(userDisplayName ?? userName))])),
            ("challenge", .string(try WebAuthnChallenge.make(claims, keyring: keyring))),
            ("pubKeyCredParams", .array(algorithms.map {
                .object([("type", .string("public-key")), ("alg", .int($0.rawValue))])
            })),
            ("timeout", .int(settings.timeoutMilliseconds)),
            ("excludeCredentials", .array(existing.map(Self.descriptor))),
            ("authenticatorSelection", .object(selection)),
            ("attestation", .string(settings.attestation.rawValue)),
            // Whether the credential is discoverable comes back in the credential's
            // clientExtensionResults, and is kept (`WebAuthnStore.Credential.discoverable`).
            ("extensions", .object([("credProps", .bool(true))])),
        ]
        if !ceremony.hints.isEmpty { members.append(("hints", .array(ceremony.hints.map { .string($0.rawValue) }))) }
        return JSONValue.object(members).jsonText
    }

    /// The user verification a ceremony asks for: the call's, unless the
    /// configuration requires it (a call may not ask for less).
    static func userVerification(_ settings: WebAuthnSettings,
                                 _ ceremony: WebAuthnCeremonyOptions) -> WebAuthnUserVerification {
        settings.userVerification == .required ? .required : ceremony.userVerification ?? settings.userVerification
    }

    /// A `PublicKeyCredentialDescriptor` for a stored credential.
    static func descriptor(_ credential: WebAuthnStore.Credential) -> JSONValue {
        var members: [(String, JSONValue)] = [("type", .string("public-key")),
                                              ("id", .string(Base64URL.encode(credential.credentialID)))]
        if !credential.transports.isEmpty {
            members.append(("transports", .array(credential.transports.map(JSONValue.string))))
        }
        return .object(members)
    }

    /// Verifies a registration response (WebAuthn §7.1) and says what to store.
    func webAuthnEnrollment(user: MFAUser, credentialJSON: String, now: Int64) throws(MFAError) -> FactorEnrollment {
        let credential = try CredentialJSON(credentialJSON, for: .registration)
        let clientData = try RelyingParty.clientData(credential.clientDataJSON, type: "webauthn.create")
        let claims = try WebAuthnChallenge.open(clientData.challenge, purpose: .webAuthnRegistration, keyring: keyring)
        try Self.checkOwner(claims, user)
        guard now <= claims.expires else { throw MFAError(.invalidSession, "the registration challenge has expired") }
        try checkNotRevoked(claims, now: now)
        let config = try config(tenant: user.tenant)
        guard config.allows(WebAuthnMultiFactorID) else {
            throw MFAError(.operationNotAllowed, "WebAuthn second factors are disabled")
        }
        let settings = config.webAuthnSettings
        var (_, party) = try Self.relyingParty(settings)
        guard let (handle, terms) = WebAuthnCeremonyTerms.registration(claims.reference) else {
            throw MFAError(.invalidSession, "the registration challenge is malformed")
        }
        party.requireUserVerification = party.requireUserVerification || terms.userVerification
        // Statements are verified when someone will judge them: the configuration
        // asks for attestation, or the host's callback decides (WebAuthn §7.1:
        // under conveyance none a relying party may ignore the statement).
        let judged = attestationTrust != nil || settings.attestation != .none
        let registration: RelyingParty.Registration
        do throws(MFAError) {
            registration = try party.verifyRegistration(credential, clientData: clientData,
                                                        statements: judged ? .verifyKnown : .skip)
            try Self.checkTerms(terms, registration)
        } catch {
            audit(AuditEvent(kind: .signInFailure, tenant: user.tenantKey, uid: user.uid,
                             factorID: WebAuthnMultiFactorID, time: now, detail: error.code.name), config: config)
            throw error
        }
        let attested = registration.credential
        try WebAuthnTrustPolicy.check(registration.attestation, aaguid: attested.aaguid, settings: settings, now: now,
                                      trust: attestationTrust, tenant: user.tenant, uid: user.uid)
        let flags = registration.authData.flags
        let passkey = flags.contains(.backupEligible) || registration.attachment == "platform"
            || registration.transports.contains("internal") || registration.transports.contains("hybrid")
        // Discoverable: as credProps says, else as the ceremony required.
        let discoverable: Bool? = credential.residentKey ?? (terms.residentKey ? true : nil)
        let row = WebAuthnStore.Credential(
            enrollmentID: "", credentialID: attested.credentialID, userHandle: handle,
            algorithm: attested.publicKey.algorithm.rawValue, signCount: Int64(registration.authData.signCount),
            transports: registration.transports, aaguid: attested.aaguid,
            backupEligible: flags.contains(.backupEligible), backupState: flags.contains(.backedUp),
            userVerified: flags.contains(.userVerified), attestationFormat: registration.attestation.format,
            attestationKind: registration.attestation.kind.rawValue,
            authenticatorKind: passkey ? .passkey : .securityKey, lastUsedAt: 0, discoverable: discoverable)
        let payload = WebAuthnFactor.payload(credentialID: attested.credentialID, publicKey: attested.publicKeyBytes)
        let sealedPayload = try withBytes(of: payload) { (buffer) throws(MFAError) in try SecureBytes(copying: buffer) }
        return FactorEnrollment(session: claims, payload: sealedPayload) { (db, factor) throws(MFAError) in
            var stored = row
            stored.enrollmentID = factor.enrollmentID
            try WebAuthnStore.insert(db, stored)
        }
    }

    /// Checks a registration against what its ceremony asked for: a
    /// resident key required and `credProps` saying the credential is not
    /// discoverable, or an algorithm that was not offered, refuse it.
    static func checkTerms(_ terms: WebAuthnCeremonyTerms, _ registration: RelyingParty.Registration) throws(MFAError) {
        if let offered = terms.algorithms, !offered.contains(registration.credential.publicKey.algorithm) {
            throw MFAError(.invalidArgument, "the credential's algorithm "
                + "\(registration.credential.publicKey.algorithm.name) was not offered for this registration")
        }
        if terms.residentKey, registration.residentKey == false {
            throw MFAError(.invalidArgument, "a passkey was asked for, and the authenticator made a credential "
                + "that is not discoverable (credProps.rk is false)")
        }
    }
}
