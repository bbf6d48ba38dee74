extension MFAContext {
    /// Tells the host whether a credential it issued to a user at `issuedAt`
    /// (Unix seconds) is still valid. Enrolling, unenrolling and
    /// `revokeTokens` revoke earlier credentials; a credential issued in the
    /// same second as a revocation counts as earlier (a revoking operation's
    /// second is revoked), so issue the new credential after that second, or
    /// use `checkToken(tenant:uid:issuedAtMilliseconds:)`.
    /// - Throws: `userTokenExpired` if it was issued at or before the last revocation.
    public func checkToken(tenant: String?, uid: String, issuedAt: Int64) throws(MFAError) {
        let call = CallBudget.begin()
        defer { call.end() }
        guard let revoked = try revocation(tenant: tenant, uid: uid) else { return }
        let second = revoked >= 0 ? revoked / 1000 : -((-revoked + 999) / 1000)
        guard issuedAt > second else {
            throw MFAError(.userTokenExpired, "the credential was issued before the user's tokens were revoked")
        }
    }

    /// Like `checkToken(tenant:uid:issuedAt:)` for a credential whose issue
    /// time the host knows to the millisecond: valid if issued strictly after
    /// the last revocation.
    /// - Throws: `userTokenExpired` if it was issued at or before the last revocation.
    public func checkToken(tenant: String?, uid: String, issuedAtMilliseconds: Int64) throws(MFAError) {
        let call = CallBudget.begin()
        defer { call.end() }
        guard let revoked = try revocation(tenant: tenant, uid: uid) else { return }
        guard issuedAtMilliseconds > revoked else {
            throw MFAError(.userTokenExpired, "the credential was issued before the user's tokens were revoked")
        }
    }

    /// Throws `userTokenExpired` if a token that is intact, unexpired and
    /// unused was minted before its user's last revocation: whatever else
    /// the revocation changed (a factor, an SMS code or a pending secret
    /// removed with it), that is the answer. An expired or used token is
    /// left to the flow's own answer (`invalidSession`, `codeExpired`).
    /// Flows call it where they would otherwise answer from what the
    /// revocation removed.
    func checkNotRevoked(_ claims: TokenClaims, now: Int64) throws(MFAError) {
        guard claims.expires >= now else { return }
        let state = try store.tokenState(tokenID: claims.id, tenant: claims.tenant, uid: claims.uid)
        guard state.consumed || state.epoch == claims.epoch else {
            throw MFAError(.userTokenExpired, "the user's tokens were revoked after this one was issued")
        }
    }

    /// When the user's credentials were last revoked (ms), or nil.
    private func revocation(tenant: String?, uid: String) throws(MFAError) -> Int64? {
        if let tenant { try MFAUser.checkIdentifier(tenant, "tenant") }
        try MFAUser.checkIdentifier(uid, "uid")
        return try store.user(tenant: tenant ?? "", uid: uid).revokedAtMs
    }

    /// Revokes every credential and libmfa token issued to the user so far,
    /// as after a password reset or a compromised account: host credentials
    /// issued before now fail `checkToken` with `userTokenExpired`, and
    /// libmfa's own sessions, pending credentials and verification ids fail
    /// with `userTokenExpired` too. The user's remembered devices are
    /// forgotten (a host calls this when the password changes, so that no
    /// device token outlives the password). Factors stay enrolled. Audited
    /// (`TOKENS_REVOKED`, and `DEVICE_REVOKED` for each device).
    /// - Throws: `invalidArgument`, `storageError`.
    public func revokeTokens(uid: String, tenant: String? = nil) throws(MFAError) {
        let call = CallBudget.begin()
        defer { call.end() }
        if let tenant { try MFAUser.checkIdentifier(tenant, "tenant") }
        try MFAUser.checkIdentifier(uid, "uid")
        let now = clock.now()
        let note = auditNote(try auditConfig()) { [self] (forgotten: [String]) in
            [AuditEvent(kind: .tokensRevoked, tenant: tenant ?? "", uid: uid, time: now)]
                + forgottenEvents(forgotten, tenant: tenant ?? "", uid: uid, detail: "TOKENS_REVOKED", time: now)
        }
        let forgotten = try store.revokeTokens(tenant: tenant ?? "", uid: uid, nowMs: clock.nowMilliseconds(),
                                               audit: note)
        report(note, forgotten)
    }

    /// Step-up: whether the user passed a second factor within the last `seconds`.
    public func passedSecondFactor(tenant: String?, uid: String, within seconds: Int64) throws(MFAError) -> Bool {
        let call = CallBudget.begin()
        defer { call.end() }
        if let tenant { try MFAUser.checkIdentifier(tenant, "tenant") }
        try MFAUser.checkIdentifier(uid, "uid")
        guard seconds >= 0 else { throw MFAError(.invalidArgument, "seconds must not be negative") }
        let last = try store.user(tenant: tenant ?? "", uid: uid).lastSecondFactorAt
        return last > 0 && clock.now().minus(last) <= seconds
    }

    /// Deletes what has expired: pending TOTP secrets past their deadline,
    /// SMS and email codes, remembered devices, and records of used tokens
    /// that can no longer be presented (kept until each token's own expiry
    /// plus the clock-skew allowance). With the stored audit trail, also
    /// purges its events by the configuration's retention and size
    /// (`purgeAuditTrail`).
    public func purgeExpired() throws(MFAError) {
        let now = clock.now()
        try store.purgeExpired(now: now)
        let settings = try auditConfig().auditTrail
        if settings.purges { _ = try trail.purge(store.database, settings: settings, now: now) }
    }

    /// Re-encrypts every stored secret that is not under the current master
    /// key. Afterwards stored factors no longer need the previous keys; keep
    /// them in the keyring until the tokens they sealed have expired too
    /// (sessions, pending secrets and credentials: the longest lifetime in
    /// `MFALimits`, 10 minutes by default), or those tokens become invalid.
    /// - Returns: how many records were re-encrypted.
    /// - Throws: `crypto` if a record's key is not in the keyring.
    @discardableResult
    public func rotateKeys() throws(MFAError) -> Int {
        try rotateKeys(batchSize: 500) { _, _ in true }.rotated
    }
}
