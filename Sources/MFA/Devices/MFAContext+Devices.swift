/// Remembered devices: after a second factor, the host may ask for a
/// device token; until it expires, the first factor and that token sign the
/// user in on that device without a second factor.
extension MFAContext {
    /// Remembers the device a sign-in finished on, and returns its token.
    ///
    /// Call it right after `resolveSignIn` succeeded, with that sign-in's
    /// pending credential (the resolver's `session`): only a sign-in that
    /// passed a second factor consumed it, and each remembers one device.
    /// The token is random; libmfa keeps only a keyed hash of it. At the
    /// user's limit (`rememberedDevices.maxPerUser`) the device used least
    /// recently is forgotten. Audited (`DEVICE_REMEMBERED`).
    /// - Parameters:
    ///   - pendingCredential: the pending credential of the finished sign-in.
    ///   - tenant: the tenant the host serves the request for (nil for the project).
    ///   - label: the host's name for the device ("Firefox on Linux"), at most 256 bytes, or nil.
    /// - Throws: `operationNotAllowed` (remembering is off for the tenant),
    ///   `invalidSession` (the sign-in did not finish with a second factor,
    ///   already remembered a device, or is too old), `userTokenExpired`
    ///   (revoked since), `tenantMismatch`, `invalidArgument`, `storageError`.
    public func rememberDevice(pendingCredential: String, tenant: String?,
                               label: String?) throws(MFAError) -> DeviceToken {
        let call = CallBudget.begin()
        defer { call.end() }
        let now = clock.now()
        let claims = try openPendingCredential(pendingCredential, tenant: tenant, now: now, checkExpiry: false)
        let config = try config(tenant: tenant)
        let until = claims.consumedUntil(skew: config.limits.clockSkew)
        guard until >= now else { throw MFAError(.invalidSession, "this sign-in is too old to remember its device") }
        let settings = config.rememberedDevices
        guard settings.state == .enabled else {
            throw MFAError(.operationNotAllowed, "remembering devices is off (rememberedDevices.state)")
        }
        let label = try Self.checkedDeviceLabel(label)
        let id = try random.bytes(DeviceTokenFormat.idBytes)
        var secret = try random.bytes(DeviceTokenFormat.secretBytes)
        defer { wipe(&secret) }
        let deviceID = Base64URL.encode(id)
        let key = keyring.current
        let record = DeviceRecord(
            deviceID: deviceID, tenant: claims.tenant, uid: claims.uid, label: label, keyID: key.id,
            tokenHash: DeviceTokenFormat.hash(secret, deviceID: deviceID, tenant: claims.tenant, uid: claims.uid,
                                              key: key.codesKey),
            createdAt: now, lastUsedAt: now, expiresAt: now.plus(settings.window))
        let proof = DeviceProof(tokenID: claims.id, epoch: claims.epoch,
                                marker: DeviceTokenFormat.marker(of: claims.id, key: key.codesKey), until: until)
        let note = auditNote(config) { [self] (evicted: [String]) in
            forgottenEvents(evicted, tenant: claims.tenant, uid: claims.uid, detail: "LIMIT", time: now)
                + [AuditEvent(kind: .deviceRemembered, tenant: claims.tenant, uid: claims.uid,
                              factorID: RememberedDeviceFactorID, enrollmentID: deviceID, time: now)]
        }
        let evicted = try store.rememberDevice(record, proof: proof, maxPerUser: settings.maxPerUser, now: now,
                                               audit: note)
        report(note, evicted)
        return DeviceToken(token: DeviceTokenFormat.encode(id: id, secret: secret),
                           device: rememberedDevice(record, settings))
    }

    /// The user's remembered devices that have not expired, the most recently used first.
    /// - Throws: `invalidArgument`, `storageError`.
    public func rememberedDevices(uid: String, tenant: String? = nil) throws(MFAError) -> [RememberedDevice] {
        let call = CallBudget.begin()
        defer { call.end() }
        try Self.checkUser(uid, tenant)
        let settings = try config(tenant: tenant).rememberedDevices
        let now = clock.now()
        return try store.devices(tenant: tenant ?? "", uid: uid).map { rememberedDevice($0, settings) }
            .filter { $0.expiresAt > now }
    }

    /// Forgets one of the user's remembered devices (`deviceID`), or every
    /// one (nil): their tokens no longer stand in for a second factor.
    /// Audited (`DEVICE_REVOKED`, one event per device).
    /// - Returns: how many devices were forgotten.
    /// - Throws: `deviceNotFound` (the user has no device with this id),
    ///   `invalidArgument`, `storageError`.
    @discardableResult
    public func revokeRememberedDevices(uid: String, tenant: String? = nil,
                                        deviceID: String? = nil) throws(MFAError) -> Int {
        let call = CallBudget.begin()
        defer { call.end() }
        return try forgetDevices(uid: uid, tenant: tenant, deviceID: deviceID, actor: "")
    }

    /// The admin API's `revokeRememberedDevices`: the same, audited with the
    /// actor (detail `ADMIN`).
    @discardableResult
    public func adminRevokeRememberedDevices(uid: String, tenant: String? = nil, deviceID: String? = nil,
                                             actor: String) throws(MFAError) -> Int {
        let call = CallBudget.begin()
        defer { call.end() }
        try Self.checkActor(actor)
        return try forgetDevices(uid: uid, tenant: tenant, deviceID: deviceID, actor: actor)
    }

    /// The sign-in of a user who passed the first factor on a remembered
    /// device, or nil when `token` does not stand in for the second factor:
    /// remembering is off, the token is malformed, unknown, another user's
    /// or altered, the device expired or was just revoked. Each such token
    /// is audited (`DEVICE_REFUSED`, the reason in the detail) and ignored.
    func rememberedSignIn(_ user: MFAUser, token: String, config: MFAConfig,
                          now: Int64) throws(MFAError) -> SignInResult? {
        func refuse(_ reason: String, _ deviceID: String = "") -> SignInResult? {
            audit(AuditEvent(kind: .deviceRefused, tenant: user.tenantKey, uid: user.uid,
                             factorID: RememberedDeviceFactorID, enrollmentID: deviceID, time: now, detail: reason))
            return nil
        }
        let settings = config.rememberedDevices
        guard settings.state == .enabled else { return refuse("DISABLED") }
        guard var parsed = DeviceTokenFormat.decode(token) else { return refuse("MALFORMED") }
        defer { wipe(&parsed.secret) }
        guard let record = try store.device(id: parsed.deviceID) else { return refuse("UNKNOWN") }
        guard record.tenant == user.tenantKey, record.uid == user.uid else { return refuse("FOREIGN") }
        guard let key = keyring.key(id: record.keyID),
              KeyedHash.equal(DeviceTokenFormat.hash(parsed.secret, deviceID: record.deviceID, tenant: record.tenant,
                                                     uid: record.uid, key: key.codesKey), record.tokenHash) else {
            return refuse("TAMPERED", record.deviceID)
        }
        let expires = Self.effectiveExpiry(record, settings)
        guard expires > now else { return refuse("EXPIRED", record.deviceID) }
        let note = auditNote(config) { () in
            [AuditEvent(kind: .signInSuccess, tenant: user.tenantKey, uid: user.uid,
                        factorID: RememberedDeviceFactorID, enrollmentID: record.deviceID, time: now)]
        }
        guard try store.useDevice(record, now: now, expiresAt: settings.sliding ? now.plus(settings.window) : expires,
                                  audit: note)
        else { return refuse("REVOKED", record.deviceID) }
        report(note, ())
        return SignInResult(uid: user.uid, tenant: user.tenant, factorID: RememberedDeviceFactorID,
                            enrollmentID: record.deviceID, time: now)
    }

    /// The events of devices forgotten (by the user or an operator, or
    /// along with something else: a revocation, the last factor, a reset,
    /// the limit): one `DEVICE_REVOKED` each.
    func forgottenEvents(_ deviceIDs: [String], tenant: String, uid: String, detail: String, time: Int64,
                         actor: String = "") -> [AuditEvent] {
        deviceIDs.map {
            AuditEvent(kind: .deviceRevoked, tenant: tenant, uid: uid, factorID: RememberedDeviceFactorID,
                       enrollmentID: $0, time: time, detail: detail, actor: actor)
        }
    }

    private func forgetDevices(uid: String, tenant: String?, deviceID: String?,
                               actor: String) throws(MFAError) -> Int {
        try Self.checkUser(uid, tenant)
        if let deviceID { try MFAUser.checkIdentifier(deviceID, "device id") }
        let now = clock.now()
        let note = auditNote(try auditConfig()) { [self] (forgotten: [String]) in
            forgottenEvents(forgotten, tenant: tenant ?? "", uid: uid, detail: actor.isEmpty ? "OK" : "ADMIN",
                            time: now, actor: actor)
        }
        let forgotten = try store.revokeDevices(tenant: tenant ?? "", uid: uid, deviceID: deviceID, audit: note)
        if deviceID != nil, forgotten.isEmpty {
            throw MFAError(.deviceNotFound, "the user has no remembered device with this id")
        }
        report(note, forgotten)
        return forgotten.count
    }

    /// When a device stops standing in for the second factor under
    /// `settings`: its stored expiry, or sooner if the window was shortened since.
    private static func effectiveExpiry(_ record: DeviceRecord, _ settings: RememberedDeviceSettings) -> Int64 {
        min(record.expiresAt, (settings.sliding ? record.lastUsedAt : record.createdAt).plus(settings.window))
    }

    private func rememberedDevice(_ record: DeviceRecord, _ settings: RememberedDeviceSettings) -> RememberedDevice {
        RememberedDevice(id: record.deviceID, tenant: record.tenant.isEmpty ? nil : record.tenant, uid: record.uid,
                         label: record.label, createdAt: record.createdAt, lastUsedAt: record.lastUsedAt,
                         expiresAt: Self.effectiveExpiry(record, settings))
    }

    /// A device label: nil or empty for none, else at most 256 bytes without a control character.
    static func checkedDeviceLabel(_ label: String?) throws(MFAError) -> String? {
        guard let label, !label.isEmpty else { return nil }
        guard label.utf8.count <= 256 else { throw MFAError(.invalidArgument, "label is longer than 256 bytes") }
        try IdentifierText.check(label, "label")
        return label
    }
}
