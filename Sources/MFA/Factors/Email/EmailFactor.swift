/// Codes sent by email to an enrolled address as a second factor.
///
/// The payload is the address (see `EmailAddress`). Codes are six uniform
/// digits, stored only as keyed hashes in `mfa_email_verifications`,
/// single-use, with a wrong-try limit; sends are budgeted in
/// `mfa_email_sends`, as SMS codes are (`SentCodeChannel`).
package enum EmailFactor: SecondFactor {
    package typealias Settings = EmailSettings

    package static var id: String { EmailMultiFactorID }
    package static var kind: Int32 { 5 }
    package static var codeChannel: String? { "email" }
    package static var configKeys: [String] { ["email"] }
    package static var defaultSettings: EmailSettings { EmailSettings() }
    package static var migrations: [Migration] { EmailCodes.migrations }
    package static var sealedTables: [SealedTable] { [EmailCodes.channel.verificationsTable] }

    package static func apply(_ document: JSONValue, to settings: inout EmailSettings) throws(MFAError) {
        guard let section = document["email"] else { return }
        try ConfigFields.expectObject(section, "email",
                                      keys: EmailSettings.fields.map(\.name) + ["enrollVerifiedSignInEmail"])
        for field in EmailSettings.fields {
            if let value = section[field.name] {
                settings[keyPath: field.path] = try ConfigFields.integer(value, "email." + field.name, field.range)
            }
        }
        if let value = section["enrollVerifiedSignInEmail"] {
            settings.enrollVerifiedSignInEmail = try ConfigFields.boolean(value, "email.enrollVerifiedSignInEmail")
        }
    }

    package static func json(_ settings: EmailSettings) -> [(String, JSONValue)] {
        [("email", .object(EmailSettings.fields.map { ($0.name, .int(settings[keyPath: $0.path])) }
            + [("enrollVerifiedSignInEmail", .bool(settings.enrollVerifiedSignInEmail))]))]
    }

    package static func hint(of record: FactorRecord, masked: Bool,
                             context: MFAContext) throws(MFAError) -> FactorHint {
        let address = try context.emailAddress(of: record)
        let shown = masked ? EmailAddress.masked(address) : address
        return FactorHint(text: shown, email: shown)
    }

    package static func enrollment(for assertion: any MultiFactorAssertion, user: MFAUser, context: MFAContext,
                                   now: Int64) throws(MFAError) -> FactorEnrollment {
        guard let email = assertion as? EmailMultiFactorAssertion else {
            throw MFAError(.invalidArgument, "unsupported assertion")
        }
        if let credential = email.credential {
            return try context.emailEnrollment(user: user, credential: credential, now: now)
        }
        guard let session = email.session else { throw MFAError(.invalidArgument, "unsupported assertion") }
        return try context.verifiedEmailEnrollment(user: user, sessionToken: session, now: now)
    }

    package static func attempt(for assertion: any MultiFactorAssertion, claims: TokenClaims, context: MFAContext,
                                now: Int64) throws(MFAError) -> FactorAttempt {
        guard let email = assertion as? EmailMultiFactorAssertion, let credential = email.credential else {
            throw MFAError(.invalidArgument, "an email sign-in needs a verification id and a code")
        }
        return try context.emailAttempt(credential, claims: claims, now: now)
    }
}
