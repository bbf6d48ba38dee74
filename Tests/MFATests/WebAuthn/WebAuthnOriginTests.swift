import Foundation
import MFA
import Testing

/// Issue 45 item 16: a WebAuthn configuration whose origins can never match
/// what a browser writes, or must never be trusted for its rp id, is refused
/// with INVALID_ARGUMENT naming the field; a configuration stored before
/// (or written into the store by hand) that breaks these rules stops the
/// WebAuthn ceremonies only, with OPERATION_NOT_ALLOWED naming the field.
@Suite("WebAuthn origins and rp id")
struct WebAuthnOriginTests {
    /// The error of setting the project's `webauthn` section to `section`.
    static func refusal(_ fixture: WebAuthnFixture, _ section: String) -> MFAError? {
        errorMessage { try fixture.context.updateConfig(json: #"{"webauthn":\#(section)}"#) }
    }

    @Test("webauthn_origin_default_port_refused: https://example.com:443 and http://localhost:80 can never match a browser's origin")
    func webauthnOriginDefaultPortRefused() throws {
        let fixture = try WebAuthnFixture()
        let before = try fixture.context.configJSON()
        for section in [#"{"origins":["https://example.com:443"]}"#,
                        #"{"rpId":"example.com","origins":["https://example.com","https://example.com:443"]}"#,
                        #"{"rpId":"localhost","origins":["http://localhost:80"]}"#,
                        #"{"origins":["https://login.example.com:443"]}"#] {
            let error = Self.refusal(fixture, section)
            #expect(error?.code == .invalidArgument && error?.message.contains("webauthn.origins") == true
                    && error?.message.contains("default port") == true, "\(section): \(String(describing: error))")
        }
        #expect(try fixture.context.configJSON() == before, "nothing was stored")
        // Other ports are an origin of their own.
        try fixture.context.updateConfig(json: #"{"webauthn":{"origins":["https://example.com:8443"]}}"#)
        try fixture.context.updateConfig(json: #"{"webauthn":{"rpId":"localhost","origins":["http://localhost:8080"]}}"#)
    }

    @Test("an origin outside the rp id, an rp id that is a public suffix or an IP address, and origins no browser writes are refused, naming the field")
    func untrustedOriginsRefused() throws {
        let fixture = try WebAuthnFixture()
        let before = try fixture.context.configJSON()
        let origins = [
            #"{"rpId":"example.com","origins":["https://evil.net"]}"#,
            #"{"rpId":"example.com","origins":["https://notexample.com"]}"#,
            #"{"rpId":"example.com","origins":["https://example.com.evil.net"]}"#,
            #"{"rpId":"login.example.com","origins":["https://example.com"]}"#,
            #"{"rpId":"example.com","origins":["http://localhost:5000"]}"#,
            #"{"origins":["https://evil.net"]}"#, // the stored rp id is example.com
            #"{"rpId":"example.com","origins":["http://example.com"]}"#,
            #"{"rpId":"example.com","origins":["https://Example.com"]}"#,
            #"{"rpId":"example.com","origins":["https://example.com/"]}"#,
            #"{"rpId":"example.com","origins":["https://example.com/login"]}"#,
            #"{"rpId":"example.com","origins":["https://example.com?next=1"]}"#,
            #"{"rpId":"example.com","origins":["https://example.com#top"]}"#,
            #"{"rpId":"example.com","origins":["https://user@example.com"]}"#,
            #"{"rpId":"example.com","origins":["https://user:secret@example.com"]}"#,
            #"{"rpId":"example.com","origins":["https://example.com."]}"#,
            #"{"rpId":"example.com","origins":["https://example.com:0443"]}"#,
            #"{"rpId":"example.com","origins":["https://[::1]"]}"#,
        ]
        for section in origins {
            let error = Self.refusal(fixture, section)
            #expect(error?.code == .invalidArgument && error?.message.contains("webauthn.origins") == true,
                    "\(section): \(String(describing: error))")
        }
        for rpID in ["com", "uk", "co.uk", "github.io", "com.au", "herokuapp.com", "127.0.0.1", "10.0.0.1",
                     "Example.com", "example.com.", "xn--p1ai"] {
            let error = Self.refusal(fixture, #"{"rpId":"\#(rpID)","origins":[]}"#)
            #expect(error?.code == .invalidArgument && error?.message.contains("webauthn.rpId") == true,
                    "\(rpID): \(String(describing: error))")
        }
        #expect(try fixture.context.configJSON() == before, "nothing was stored")

        // What a relying party does write is accepted: its own host, subdomains, other
        // ports, an Android app, localhost in development, a domain under a public suffix.
        try fixture.context.updateConfig(json: """
            {"webauthn":{"rpId":"example.com","origins":["https://example.com","https://login.example.com:8443",
             "https://a.b.example.com","android:apk-key-hash:abc"]}}
            """)
        try fixture.context.updateConfig(json: #"{"webauthn":{"rpId":"localhost","origins":["http://localhost:5000","http://localhost"]}}"#)
        try fixture.context.updateConfig(json: #"{"webauthn":{"rpId":"example.co.uk","origins":["https://www.example.co.uk"]}}"#)
        try fixture.context.updateConfig(json: #"{"webauthn":{"rpId":"alice.github.io","origins":[]}}"#)
    }

    @Test("a tenant's origins are judged with the project's rp id, and an update with what is stored", arguments: StoreKind.available)
    func layersJudgedTogether(_ kind: StoreKind) throws {
        let fixture = try WebAuthnFixture(kind)
        try fixture.context.updateConfig(json: #"{"webauthn":{"origins":["https://login.example.com"]}}"#)
        // An update that moves the rp id away from the stored origins.
        let moved = Self.refusal(fixture, #"{"rpId":"example.org"}"#)
        #expect(moved?.code == .invalidArgument && moved?.message.contains("webauthn.origins") == true)
        #expect(try fixture.context.config().webAuthnSettings.rpID == "example.com")
        // A tenant's origins outside the project's rp id; a tenant's rp id outside the project's origins.
        var error = errorMessage { try fixture.context.setConfig(json: #"{"webauthn":{"origins":["https://acme.org"]}}"#,
                                                                tenant: "acme") }
        #expect(error?.code == .invalidArgument && error?.message.contains("webauthn.origins") == true)
        error = errorMessage { try fixture.context.updateConfig(json: #"{"webauthn":{"rpId":"acme.org"}}"#, tenant: "acme") }
        #expect(error?.code == .invalidArgument && error?.message.contains("webauthn.origins") == true)
        try fixture.context.setConfig(json: #"{"webauthn":{"rpId":"acme.org","origins":["https://id.acme.org"]}}"#,
                                      tenant: "acme")
        #expect(try fixture.context.config(tenant: "acme").webAuthnSettings.effectiveOrigins == ["https://id.acme.org"])
    }

    @Test("a configuration stored before the checks stops WebAuthn only, with OPERATION_NOT_ALLOWED naming the field", arguments: StoreKind.available)
    func storedConfigurationRefusedAtCeremony(_ kind: StoreKind) throws {
        let location = try kind.freshLocation(file: true)
        let clock = TestClock()
        var options = MFAOptions(store: location, keyring: try MasterKeyring(
            current: MasterKey(id: "k1", bytes: EngineFixture.keyBytes)))
        options.clock = clock
        let context = try MFAContext(options: options)
        try context.setConfig(json: WebAuthnFixture.config)
        let user = MFAUser(uid: "alice", email: "alice@example.com", emailVerified: true, authTime: clock.now())
        let session = try context.multiFactor(for: user).session()
        #expect(try !WebAuthnMultiFactorGenerator.registrationOptions(with: session, userName: "alice").isEmpty)
        for document in [#"{"webauthn":{"rpId":"example.com","origins":["https://example.com:443"]}}"#,
                         #"{"webauthn":{"rpId":"example.com","origins":["https://evil.net"]}}"#,
                         #"{"webauthn":{"rpId":"com"}}"#] {
            let stored = #"{"state":"ENABLED","providers":{"webauthn":"ENABLED","totp":"ENABLED"},"# + document.dropFirst()
            try RawStore.execute(location, "UPDATE mfa_config SET document = ? WHERE tenant = ''", [.text(stored)])
            let error = errorMessage { try WebAuthnMultiFactorGenerator.registrationOptions(with: session, userName: "alice") }
            #expect(error?.code == .operationNotAllowed && error?.message.contains("webauthn.") == true,
                    "\(document): \(String(describing: error))")
            // The other kinds go on.
            let secret = try TOTPMultiFactorGenerator.generateSecret(with: session)
            #expect(!secret.sharedSecretKey().isEmpty)
            #expect(try context.config().webAuthnSettings.rpID != nil)
        }
    }
}
