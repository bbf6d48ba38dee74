/// SMS codes to an enrolled phone number as a second factor.
///
/// The payload is the number (strict E.164). Codes are six uniform digits,
/// stored only as keyed hashes in `mfa_sms_verifications`, single-use, with
/// a wrong-try limit; sends are budgeted in `mfa_sms_sends`.
package enum PhoneFactor: SecondFactor {
    package typealias Settings = PhoneSettings

    package static var id: String { PhoneMultiFactorID }
    package static var kind: Int32 { 2 }
    package static var codeChannel: String? { "sms" }
    package static var configKeys: [String] { ["phone", "testPhoneNumbers"] }
    package static var defaultSettings: PhoneSettings { PhoneSettings() }
    package static var migrations: [Migration] { SMSStore.migrations }
    package static var sealedTables: [SealedTable] { [SMSStore.verificationsTable] }

    package static func apply(_ document: JSONValue, to settings: inout PhoneSettings) throws(MFAError) {
        if let phone = document["phone"] {
            try ConfigFields.expectObject(phone, "phone", keys: ["appVerification"])
            if let policy = phone["appVerification"] {
                settings.appVerification = try ConfigFields.enumValue(policy, "phone.appVerification",
                                                                      AppVerificationPolicy.self)
            }
        }
        if let numbers = document["testPhoneNumbers"] {
            settings.testPhoneNumbers = try testNumbers(numbers)
        }
    }

    package static func json(_ settings: PhoneSettings) -> [(String, JSONValue)] {
        [("phone", .object([("appVerification", .string(settings.appVerification.rawValue))])),
         ("testPhoneNumbers", .object(settings.testPhoneNumbers.map { ($0.number, .string($0.code)) }))]
    }

    /// Test numbers; errors say which entry is wrong by position, never by number or code.
    private static func testNumbers(_ value: JSONValue) throws(MFAError) -> [(number: String, code: String)] {
        guard case .object(let members) = value else {
            throw MFAError(.invalidArgument, "testPhoneNumbers must be an object of number: code")
        }
        guard members.count <= PhoneSettings.maxTestPhoneNumbers else {
            throw MFAError(.invalidArgument, "testPhoneNumbers holds at most 10 numbers")
        }
        var out: [(number: String, code: String)] = []
        for (index, (number, code)) in members.enumerated() {
            guard PhoneNumber.isValid(number) else {
                throw MFAError(.invalidArgument, "testPhoneNumbers: entry \(index + 1) is not an E.164 number")
            }
            guard case .string(let text) = code, text.utf8.count == 6,
                  text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
                throw MFAError(.invalidArgument, "testPhoneNumbers: the code of entry \(index + 1) must be six digits")
            }
            guard !out.contains(where: { $0.number == number }) else {
                throw MFAError(.invalidArgument, "testPhoneNumbers: entry \(index + 1) repeats a number")
            }
            out.append((number, text))
        }
        return out
    }

    package static func hint(of record: FactorRecord, masked: Bool,
                             context: MFAContext) throws(MFAError) -> FactorHint {
        let number = try context.phoneNumber(of: record)
        let shown = masked ? PhoneNumber.masked(number) : number
        return FactorHint(text: masked ? shown : PhoneNumber.masked(number), phoneNumber: shown)
    }

    package static func enrollment(for assertion: any MultiFactorAssertion, user: MFAUser, context: MFAContext,
                                   now: Int64) throws(MFAError) -> FactorEnrollment {
        guard let phone = assertion as? PhoneMultiFactorAssertion else {
            throw MFAError(.invalidArgument, "unsupported assertion")
        }
        return try context.phoneEnrollment(user: user, credential: phone.credential, now: now)
    }

    package static func attempt(for assertion: any MultiFactorAssertion, claims: TokenClaims, context: MFAContext,
                                now: Int64) throws(MFAError) -> FactorAttempt {
        guard let phone = assertion as? PhoneMultiFactorAssertion else {
            throw MFAError(.invalidArgument, "unsupported assertion")
        }
        return try context.phoneAttempt(phone.credential, claims: claims, now: now)
    }
}
