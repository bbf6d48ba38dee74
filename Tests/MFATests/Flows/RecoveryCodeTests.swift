import Foundation
import MFA
import Testing

/// Recovery codes, the third factor kind: what is particular to it (the
/// contract suites cover what it shares with the others).
@Suite("Recovery codes")
struct RecoveryCodeTests {
    @Test("a set: 10 codes of 50 bits, xxxx-xxxx-xx without look-alikes, shown once, one hint with the count",
          arguments: StoreKind.available)
    func generate(_ kind: StoreKind) throws {
        let fixture = try FlowFixture(kind)
        let set = try RecoveryCodesMultiFactorGenerator.generateCodes(
            with: fixture.context.multiFactor(for: fixture.user()).session(), displayName: "paper")
        #expect(set.codes.count == 10 && Set(set.codes).count == 10)
        for code in set.codes {
            #expect(code.count == 12 && code.split(separator: "-").map(\.count) == [4, 4, 2])
            #expect(code.allSatisfy { "0123456789abcdefghjkmnpqrstvwxyz-".contains($0) })
        }
        #expect(set.factor.factorID == "recovery" && set.factor.remainingCodes == 10 && set.factor.displayName == "paper")
        let hints = try fixture.resolver(fixture.user()).hints
        #expect(hints.count == 1 && hints[0].remainingCodes == 10 && hints[0].hint == "10 codes left")
        #expect(fixture.log.all.last?.kind == .enroll && fixture.log.all.last?.factorID == "recovery")
    }

    @Test("the count is configurable from 8 to 16; the section may carry the state", arguments: StoreKind.available)
    func configuredCount(_ kind: StoreKind) throws {
        let fixture = try EngineFixture(kind, config: #"{"state":"ENABLED","recoveryCodes":{"state":"ENABLED","count":16}}"#)
        let config = try fixture.context.config()
        #expect(config.recoveryCodes == .enabled && config.recoveryCodeCount == 16)
        let set = try RecoveryCodesMultiFactorGenerator.generateCodes(
            with: fixture.context.multiFactor(for: fixture.user()).session())
        #expect(set.codes.count == 16)
        for bad in [#"{"recoveryCodes":{"count":7}}"#, #"{"recoveryCodes":{"count":17}}"#,
                    #"{"recoveryCodes":{"length":10}}"#, #"{"recoveryCodes":{"state":"ON"}}"#] {
            #expect(errorCode { try fixture.context.setConfig(json: bad) } == .invalidArgument)
        }
        try fixture.context.setConfig(json: #"{"state":"ENABLED","providers":{"totp":"ENABLED","recoveryCodes":"DISABLED"}}"#)
        #expect(errorCode { try RecoveryCodesMultiFactorGenerator.generateCodes(
            with: fixture.context.multiFactor(for: fixture.user("bob")).session()) } == .operationNotAllowed)
    }

    @Test("a code works once; typing is forgiving; the result says a recovery code was used and how many are left",
          arguments: StoreKind.available)
    func signIn(_ kind: StoreKind) throws {
        let fixture = try FlowFixture(kind)
        let set = try RecoveryCodesMultiFactorGenerator.generateCodes(
            with: fixture.context.multiFactor(for: fixture.user()).session())
        let typed = set.codes[0].uppercased().replacingOccurrences(of: "-", with: " ")
            .replacingOccurrences(of: "0", with: "O").replacingOccurrences(of: "1", with: "l")
        let resolver = try fixture.resolver(fixture.user())
        let result = try resolver.resolveSignIn(with: RecoveryCodesMultiFactorGenerator.assertionForSignIn(code: typed))
        #expect(result.usedRecoveryCode && result.factorID == "recovery")
        #expect(result.claims.contains { $0.name == "recovery_codes_remaining" && $0.value == "9" })
        #expect(fixture.log.all.last?.kind == .signInSuccess && fixture.log.all.last?.factorID == "recovery")
        let again = try fixture.resolver(fixture.user())
        #expect(again.hints[0].remainingCodes == 9)
        #expect(errorCode { try again.resolveSignIn(with: RecoveryCodesMultiFactorGenerator.assertionForSignIn(
            code: set.codes[0])) } == .invalidVerificationCode)
        for junk in ["", "x", String(repeating: "a", count: 100), "ûûûû-ûûûû-ûû", "uuuu-uuuu-uu"] {
            #expect(errorCode { try again.resolveSignIn(with: RecoveryCodesMultiFactorGenerator.assertionForSignIn(
                code: junk)) } == .invalidVerificationCode)
        }
    }

    @Test("a set does not count toward the factor limit, and a new one replaces the old",
          arguments: StoreKind.available)
    func limitAndReplace(_ kind: StoreKind) throws {
        let fixture = try FlowFixture(kind)
        try fixture.context.updateConfig(json: #"{"limits":{"maxFactors":1}}"#)
        _ = try TOTPDriver().enroll(fixture, fixture.user())
        // Factors are listed oldest first, and those of one second by their (random) id:
        // the sets come a second after the TOTP factor, so that the order below is certain.
        fixture.clock.advance(1)
        let first = try RecoveryCodesMultiFactorGenerator.generateCodes(
            with: fixture.context.multiFactor(for: fixture.user()).session())
        let second = try RecoveryCodesMultiFactorGenerator.generateCodes(
            with: fixture.context.multiFactor(for: fixture.user()).session())
        let factors = try fixture.context.multiFactor(for: fixture.user()).enrolledFactors()
        #expect(factors.map(\.factorID) == ["totp", "recovery"] && factors[1].uid == second.factor.uid)
        let resolver = try fixture.resolver(fixture.user())
        #expect(errorCode { try resolver.resolveSignIn(with: RecoveryCodesMultiFactorGenerator.assertionForSignIn(
            code: first.codes[0])) } == .invalidVerificationCode, "the old set is gone")
        _ = try resolver.resolveSignIn(with: RecoveryCodesMultiFactorGenerator.assertionForSignIn(
            withEnrollmentID: second.factor.uid, code: second.codes[3]))
    }

    @Test("codes are stored only as keyed hashes")
    func atRest() throws {
        let location = try StoreKind.sqlite.freshLocation(file: true)
        let fixture = try PhoneFixture(store: location, config: FlowFixture.config)
        let set = try RecoveryCodesMultiFactorGenerator.generateCodes(
            with: fixture.context.multiFactor(for: fixture.user()).session())
        fixture.context.close()
        let directory = URL(fileURLWithPath: location).deletingLastPathComponent()
        var bytes = Data()
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
            bytes.append(try Data(contentsOf: directory.appendingPathComponent(name)))
        }
        for code in set.codes {
            #expect(bytes.range(of: Data(code.utf8)) == nil)
            #expect(bytes.range(of: Data(code.replacingOccurrences(of: "-", with: "").utf8)) == nil)
        }
    }

    @Test("without a set, a recovery assertion is MFA_ENROLLMENT_NOT_FOUND", arguments: StoreKind.available)
    func noSet(_ kind: StoreKind) throws {
        let fixture = try FlowFixture(kind)
        _ = try TOTPDriver().enroll(fixture, fixture.user())
        let resolver = try fixture.resolver(fixture.user())
        #expect(errorCode { try resolver.resolveSignIn(with: RecoveryCodesMultiFactorGenerator.assertionForSignIn(
            code: "0000-0000-00")) } == .mfaEnrollmentNotFound)
    }
}
