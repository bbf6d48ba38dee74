import MFA
import Testing

/// Issue 8, item 17: configuration as the guides write it, and updates
/// that change only what they name.
@Suite("Hardening: configuration as the guides write it")
struct GuideConfigTests {
    @Test("item 17: the Admin SDK's multiFactorConfig, project and tenant, as the TOTP guide writes it",
          arguments: StoreKind.available)
    func regressionAdminSDKShape(_ kind: StoreKind) throws {
        let fixture = try EngineFixture(kind, config: "{}")
        try fixture.context.setConfig(json: """
            {"multiFactorConfig": {"providerConfigs": [{"state": "ENABLED",
              "totpProviderConfig": {"adjacentIntervals": 3}}]}}
            """)
        let project = try fixture.context.config()
        #expect(project.state == .enabled && project.totp == .enabled && project.adjacentIntervals == 3)
        _ = try fixture.enrollTOTP(fixture.user())
        try fixture.context.setConfig(json: """
            {"multiFactorConfig": {"state": "ENABLED", "factorIds": ["phone"],
              "providerConfigs": [{"totpProviderConfig": {"adjacentIntervals": 7}}]},
             "testPhoneNumbers": {"+15555550100": "123456"}}
            """, tenant: "tenant-a")
        let tenant = try fixture.context.config(tenant: "tenant-a")
        #expect(tenant.phone == .enabled && tenant.totp == .enabled && tenant.adjacentIntervals == 7)
        #expect(tenant.testCode(for: "+15555550100") == "123456")
    }

    @Test("item 17: the REST API's mfa and mfaConfig, with integers as strings", arguments: StoreKind.available)
    func regressionRESTShape(_ kind: StoreKind) throws {
        let fixture = try EngineFixture(kind, config: "{}")
        try fixture.context.setConfig(json: """
            {"mfa": {"state": "MANDATORY", "enabledProviders": ["PHONE_SMS"],
              "providerConfigs": [{"state": "ENABLED", "totpProviderConfig": {"adjacentIntervals": "5"}}]}}
            """)
        let project = try fixture.context.config()
        #expect(project.state == .mandatory && project.phone == .enabled && project.totp == .enabled)
        #expect(project.adjacentIntervals == 5)
        try fixture.context.setConfig(json: #"{"mfaConfig":{"providerConfigs":[{"totpProviderConfig":{"adjacentIntervals":"2"}}]}}"#,
                                      tenant: "t")
        #expect(try fixture.context.config(tenant: "t").adjacentIntervals == 2)
        for bad in [#"{"mfa":{"state":"ON"}}"#, #"{"mfa":{"providerConfigs":[{"totpProviderConfig":{"adjacentIntervals":"11"}}]}}"#,
                    #"{"mfa":{"enabledProviders":"PHONE_SMS"}}"#, #"{"mfa":{"colour":1}}"#,
                    #"{"multiFactorConfig":{"providerConfigs":[{"totpProviderConfig":{"window":1}}]}}"#] {
            #expect(errorCode { try fixture.context.setConfig(json: bad) } == .invalidArgument, "\(bad)")
        }
    }

    @Test("item 17: update changes only what it names; set replaces the whole document",
          arguments: StoreKind.available)
    func regressionUpdateMerges(_ kind: StoreKind) throws {
        let fixture = try EngineFixture(kind)
        try fixture.context.updateConfig(json: #"{"totp":{"adjacentIntervals":2}}"#)
        var config = try fixture.context.config()
        #expect(config.state == .enabled && config.totp == .enabled && config.adjacentIntervals == 2)
        try fixture.context.updateConfig(json: #"{"multiFactorConfig":{"factorIds":["phone"]}}"#)
        config = try fixture.context.config()
        #expect(config.phone == .enabled && config.totp == .enabled && config.adjacentIntervals == 2)
        try fixture.context.updateConfig(json: #"{"testPhoneNumbers":{"+15555550100":"123456"}}"#)
        try fixture.context.updateConfig(json: #"{"testPhoneNumbers":{"+15555550101":"654321"}}"#)
        #expect(try fixture.context.config().testPhoneNumbers.map(\.number) == ["+15555550101"],
                "test numbers are replaced whole")
        #expect(errorCode { try fixture.context.updateConfig(json: #"{"totp":{"adjacentIntervals":12}}"#) }
            == .invalidArgument)
        #expect(try fixture.context.config().adjacentIntervals == 2, "a rejected update changes nothing")
        try fixture.context.updateConfig(json: #"{"limits":{"maxFactors":3}}"#, tenant: "t")
        #expect(try fixture.context.config(tenant: "t").limits.maxFactors == 3)
        #expect(try fixture.context.config(tenant: "t").adjacentIntervals == 2, "a tenant still inherits")
        try fixture.context.setConfig(json: #"{"totp":{"adjacentIntervals":1}}"#)
        #expect(try fixture.context.config().state == .disabled, "set replaces: no state is DISABLED")
    }

    @Test("disabling a provider keeps its enrolled factors working and required", arguments: StoreKind.available)
    func disabledProviderKeepsFactors(_ kind: StoreKind) throws {
        let fixture = try EngineFixture(kind)
        let (info, secret) = try fixture.enrollTOTP(fixture.user())
        try fixture.context.updateConfig(json: #"{"providers":{"totp":"DISABLED"}}"#)
        let resolver = try fixture.resolver(fixture.user())
        fixture.clock.advance(30)
        _ = try resolver.resolveSignIn(with: TOTPMultiFactorGenerator.assertionForSignIn(
            withEnrollmentID: info.uid, oneTimePassword: fixture.code(secret)))
        #expect(errorCode { try TOTPMultiFactorGenerator.generateSecret(with:
            fixture.context.multiFactor(for: fixture.user("new")).session()) } != nil)
    }
}
