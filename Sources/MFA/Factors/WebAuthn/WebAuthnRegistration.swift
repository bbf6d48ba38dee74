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
    /// `PublicKeyCredentialCreationOptions` (JSON) for the user of `sessionToken`.
    func webAuthnRegistrationOptions(sessionToken: String, userName: String,
                                     userDisplayName: String?) throws(MFAError) -> String {
        guard !userName.isEmpty, userName.utf8.count <= 256 else {
            throw MFAError(.invalidArgument, "the user name must be 1 to 256 bytes")
        }
        if let userDisplayName, userDisplayName.utf8.count > 256 {
            throw MFAError(.invalidArgument, "the user's display name must be at most 256 bytes")
        }
        try IdentifierText.check(userName, "the user name")
        if let userDisplayName { try IdentifierText.check(userDisplayName, "the user's display name") }
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
        let claims = TokenClaims(purpose: .webAuthnRegistration, id: session.id, tenant: session.tenant,
                                 uid: session.uid, expires: now.plus(settings.timeoutSeconds),
                                 reference: Base64URL.encode(handle), epoch: session.epoch,
                                 parentExpires: session.expires)
        let selection: [(String, JSONValue)] = [
            ("residentKey", .string(settings.residentKey.rawValue)),
            ("requireResidentKey", .bool(settings.residentKey == .required)),
            ("userVerification", .string(settings.userVerification.rawValue)),
        ]
        let options: JSONValue = .object([
            ("rp", .object([("id", .string(rpID)), ("name", .string(settings.rpName.isEmpty ? rpID : settings.rpName))])),
            ("user", .object([("id", .string(Base64URL.encode(handle))), ("name", .string(userName)),
                              ("displayName", .string(userDisplayName ?? userName))])),
            ("challenge", .string(try WebAuthnChallenge.make(claims, keyring: keyring))),
            ("pubKeyCredParams", .array(COSEKey.Algorithm.allCases.map {
                .object([("type", .string("public-key")), ("alg", .int($0.rawValue))])
            })),
            ("timeout", .int(settings.timeoutMilliseconds)),
            ("excludeCredentials", .array(existing.map(Self.descriptor))),
            ("authenticatorSelection", .object(selection)),
            ("attestation", .string(settings.attestation.rawValue)),
        ])
        return options.jsonText
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
        let (_, party) = try Self.relyingParty(settings)
        let registration: RelyingParty.Registration
        do throws(MFAError) {
            registration = try party.verifyRegistration(credential, clientData: clientData)
        } catch {
            audit(AuditEvent(kind: .signInFailure, tenant: user.tenantKey, uid: user.uid,
                             factorID: WebAuthnMultiFactorID, time: now, detail: error.code.name))
            throw error
        }
        let attested = registration.credential
        try WebAuthnTrustPolicy.check(registration.attestation, aaguid: attested.aaguid, settings: settings, now: now,
                                      trust: attestationTrust, tenant: user.tenant, uid: user.uid)
        guard let handle = Base64URL.decode(claims.reference), !handle.isEmpty else {
            throw MFAError(.invalidSession, "the registration challenge is malformed")
        }
        let flags = registration.authData.flags
        let passkey = flags.contains(.backupEligible) || registration.attachment == "platform"
            || registration.transports.contains("internal") || registration.transports.contains("hybrid")
        let row = WebAuthnStore.Credential(
            enrollmentID: "", credentialID: attested.credentialID, userHandle: handle,
            algorithm: attested.publicKey.algorithm.rawValue, signCount: Int64(registration.authData.signCount),
            transports: registration.transports, aaguid: attested.aaguid,
            backupEligible: flags.contains(.backupEligible), backupState: flags.contains(.backedUp),
            userVerified: flags.contains(.userVerified), attestationFormat: registration.attestation.format,
            attestationKind: registration.attestation.kind.rawValue,
            authenticatorKind: passkey ? .passkey : .securityKey, lastUsedAt: 0)
        let payload = WebAuthnFactor.payload(credentialID: attested.credentialID, publicKey: attested.publicKeyBytes)
        let sealedPayload = try withBytes(of: payload) { (buffer) throws(MFAError) in try SecureBytes(copying: buffer) }
        return FactorEnrollment(session: claims, payload: sealedPayload) { (db, factor) throws(MFAError) in
            var stored = row
            stored.enrollmentID = factor.enrollmentID
            try WebAuthnStore.insert(db, stored)
        }
    }
}
