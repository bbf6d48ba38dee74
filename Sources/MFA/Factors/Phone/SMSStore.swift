/// The phone factor's channel: SMS codes, in `mfa_sms_verifications` and
/// `mfa_sms_sends` (created by the core schema's version 2, where they
/// began) and `mfa_sms_budgets` (its own track's first). What it does with
/// them is shared with every kind that sends codes (`SentCodeStore`).
package enum SMSStore {
    /// The channel.
    package static let channel = SentCodeChannel(
        factorID: PhoneMultiFactorID, record: "sms", addressScope: "number", tablePrefix: "mfa_sms",
        hashLabel: "libmfa sms code v1", tokenPurpose: .phoneVerification, sentEvent: .smsSent,
        sendFailure: .smsSendFailed) { config in
        let limits = config.limits
        return SentCodeLimits(
            codeLifetime: limits.smsCodeLifetime, maxAttempts: limits.smsMaxAttempts,
            resendCooldown: limits.smsResendCooldown, perAddressHour: limits.smsPerNumberHour,
            perAddressDay: limits.smsPerNumberDay, perUserHour: limits.smsPerUserHour,
            perUserDay: limits.smsPerUserDay, perTenantHour: limits.smsPerTenantHour,
            perTenantDay: limits.smsPerTenantDay, perFactorHour: limits.smsPerFactorHour,
            perFactorDay: limits.smsPerFactorDay)
    }

    /// The phone track of the schema.
    package static let migrations: [Migration] = [
        // Version 1: one row per budget, locked by each send that spends it
        // (so that the count and the send are ordered per budget, not store-wide).
        { d, _ in [d.createKeyedTable("mfa_sms_budgets", "scope TEXT PRIMARY KEY, touched_at BIGINT NOT NULL")] },
    ]

    /// Verifications hold the number sealed for their verification id.
    package static var verificationsTable: SealedTable { channel.verificationsTable }
}
