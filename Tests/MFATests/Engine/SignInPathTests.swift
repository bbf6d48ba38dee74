import MFA
import Testing

/// The shortcuts of the sign-in path give the answers of the general code
/// they stand in for: provider ids, tokens, statement parameters.
@Suite("Sign-in path shortcuts")
struct SignInPathTests {
    /// The general normalization: Unicode white space trimmed, lower-cased.
    private static func reference(_ provider: String) -> Bool {
        let scalars = provider.unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
              let last = scalars.lastIndex(where: { !$0.properties.isWhitespace }) else {
            return !MFAUser.unsupportedFirstFactors.contains("")
        }
        let normalized = String(String.UnicodeScalarView(scalars[first...last])).lowercased()
        return !MFAUser.unsupportedFirstFactors.contains(normalized)
    }

    @Test("ASCII provider ids are judged as the Unicode rules judge them, every ASCII character at every place")
    func asciiProviders() {
        var providers = ["phone", "Phone", " ANONYMOUS ", "\tcustom\n", "gc.APPLE.com", "password", "PASSWORD",
                         "google.com", "", " ", "\u{0B}phone\u{0C}", "\u{1C}phone", "phone\u{1F}", "ph one",
                         "\u{85}phone", "\u{A0}phone\u{A0}", "PHONE\u{3000}", "Phöne"]
        for byte in UInt8(0)...UInt8(127) {
            let character = String(UnicodeScalar(byte))
            providers += [character + "phone", "phone" + character, "PH" + character + "ONE",
                          character + "Anonymous" + character, character]
        }
        for provider in providers {
            let user = MFAUser(uid: "u", provider: provider, authTime: 0)
            #expect(user.firstFactorSupportsMFA == Self.reference(provider), "provider \(provider.debugDescription)")
        }
    }

    @Test("tokens round-trip ASCII and non-ASCII fields, empty and 1024-byte ones")
    func tokenFields() throws {
        let keyring = try MasterKeyring(current: MasterKey(id: "k", bytes: [UInt8](repeating: 7, count: 32)))
        let texts = ["", "t", "tenant-ä", "用户", String(repeating: "x", count: 1024), String(repeating: "é", count: 512)]
        // Two long fields make a token longer than OpaqueToken.maxLength: one at a time.
        let fields = texts.flatMap { a in texts.map { b in (a, b) } }.filter { $0.0.utf8.count + $0.1.utf8.count <= 1100 }
        for (tenant, uid) in fields {
            for reference in ["", uid] {
                let claims = TokenClaims(purpose: .signIn, id: [UInt8](repeating: 9, count: 16), tenant: tenant,
                                         uid: uid, expires: -5, reference: reference, epoch: Int64.max,
                                         parentExpires: Int64.min)
                let token = try OpaqueToken.seal(claims, keyring: keyring)
                #expect(token.hasPrefix("v2."))
                #expect(try OpaqueToken.open(token, purpose: .signIn, keyring: keyring) == claims)
                #expect(throws: MFAError.self) { try OpaqueToken.open(token, purpose: .signIn + 1, keyring: keyring) }
                #expect(throws: MFAError.self) {
                    try OpaqueToken.open("v3." + token.dropFirst(3), purpose: .signIn, keyring: keyring)
                }
            }
        }
        for bad in ["", "v", "v2", "v2.", "V2.AAAA", "v2.A"] {
            #expect(throws: MFAError.self) { try OpaqueToken.open(bad, purpose: .signIn, keyring: keyring) }
        }
    }

    @Test("base64url with a prefix: written in one string, refused without it")
    func prefixedBase64() {
        #expect(Base64URL.encode([0xfb, 0xff, 0xbf], prefix: "v2.") == "v2.-_-_")
        #expect(Base64URL.encode([], prefix: "v2.") == "v2.")
        #expect(Base64URL.decode("v2.-_-_", prefix: "v2.") == [0xfb, 0xff, 0xbf])
        #expect(Base64URL.decode("v2.", prefix: "v2.") == [])
        #expect(Base64URL.decode("v3.-_-_", prefix: "v2.") == nil)
        #expect(Base64URL.decode("v2", prefix: "v2.") == nil)
        #expect(Base64URL.decode("v2.-_-_=", prefix: "v2.") == nil)
    }

    @Test("SQLite parameters: empty, NULL, long and many, bound in place, and statements found again by their text")
    func sqliteParameters() throws {
        let database = try SQLiteDatabase(path: ":memory:")
        let long = String(repeating: "ab", count: 5000)
        let blob = (0..<9000).map { UInt8(truncatingIfNeeded: $0) }
        try database.read { (db) throws(MFAError) in
            let row = try db.query("SELECT ?, ?, ?, ?, ?, ?, length(?)",
                                   [.text(""), .blob([]), .null, .text(long), .blob(blob), .int(-3), .text("é")])
            #expect(row == [[.text(""), .blob([]), .null, .text(long), .blob(blob), .int(-3), .int(1)]])
            // Many statements, texts made on the fly (so their storage comes and goes), twice over.
            for round in 0..<2 {
                for number in 0..<300 {
                    let sql = "SELECT \(number) + ?"
                    #expect(try db.query(sql, [.int(Int64(round))]) == [[.int(Int64(number + round))]])
                }
            }
        }
    }
}

extension TokenPurpose {
    /// Another purpose than `purpose`.
    fileprivate static func + (purpose: TokenPurpose, offset: UInt8) -> TokenPurpose {
        TokenPurpose(rawValue: purpose.rawValue % 6 + offset) ?? .enrollmentSession
    }
}
