import MFA
import Testing

@Suite("otpauth key URIs")
struct KeyURITests {
    let secret = Array("12345678901234567890".utf8)

    @Test("names with spaces, colons, @, & and non-ASCII round-trip")
    func roundTrip() throws {
        let names = [("ACME Co", "alice@example.com"), ("a:b", "c:d"), ("R&D", "bob & eve"),
                     ("Ünïcødé 株式会社", "名前@例え.jp"), ("100%", "x+y=z?#/")]
        for (issuer, account) in names {
            for kind in [KeyURI.Kind.totp, .hotp] {
                let key = KeyURI(kind: kind, issuer: issuer, account: account, secret: secret,
                                 algorithm: .sha256, digits: 8, period: kind == .totp ? 45 : 30,
                                 counter: kind == .hotp ? 7 : 0)
                let text = try key.uri()
                #expect(try KeyURI(parsing: text) == key)
            }
        }
        let bare = KeyURI(issuer: nil, account: "only:account", secret: secret)
        #expect(try KeyURI(parsing: bare.uri()) == bare)
    }

    @Test("the built text follows the key URI format")
    func builtText() throws {
        let key = KeyURI(issuer: "ACME Co", account: "alice@example.com", secret: secret)
        #expect(try key.uri() == "otpauth://totp/ACME%20Co:alice%40example.com?secret="
            + "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&issuer=ACME%20Co&algorithm=SHA1&digits=6&period=30")
    }

    @Test("URIs written by other tools parse")
    func foreignURIs() throws {
        let google = try KeyURI(parsing:
            "otpauth://totp/Example:alice@google.com?secret=JBSWY3DPEHPK3PXP&issuer=Example")
        #expect(google.issuer == "Example")
        #expect(google.account == "alice@google.com")
        #expect(google.secret == Array("Hello!\u{de}\u{ad}\u{be}\u{ef}".utf8).prefix(6) + [0xde, 0xad, 0xbe, 0xef])
        let encodedColon = try KeyURI(parsing:
            "otpauth://totp/Example%3Aalice%40google.com?secret=JBSWY3DPEHPK3PXP&issuer=Example")
        #expect(encodedColon.account == "alice@google.com")
        let lower = try KeyURI(parsing: "OTPAUTH://TOTP/x?SECRET=jbswy3dpehpk3pxp&digits=8&algorithm=sha512")
        #expect(lower.digits == 8 && lower.algorithm == .sha512 && lower.issuer == nil)
    }

    @Test("malformed URIs are INVALID_URI")
    func malformed() {
        let bad = [
            "", "http://totp/x?secret=AAAA", "otpauth://", "otpauth://totp", "otpauth://xotp/x?secret=MY",
            "otpauth://totp/x", "otpauth://totp/x?secret=", "otpauth://totp/x?secret=MY1",
            "otpauth://totp/?secret=MZXW6YTB", "otpauth://totp/:x?secret=MZXW6YTB",
            "otpauth://totp/x?secret=MZXW6YTB&digits=5", "otpauth://totp/x?secret=MZXW6YTB&digits=9",
            "otpauth://totp/x?secret=MZXW6YTB&period=0", "otpauth://totp/x?secret=MZXW6YTB&algorithm=MD5",
            "otpauth://totp/x?secret=MZXW6YTB&secret=MZXW6YTB", "otpauth://hotp/x?secret=MZXW6YTB",
            "otpauth://totp/A:x?secret=MZXW6YTB&issuer=B", "otpauth://totp/%ZZ?secret=MZXW6YTB",
            "otpauth://totp/%FF?secret=MZXW6YTB", "otpauth://hotp/x?secret=MZXW6YTB&counter=-1",
            // Found by fuzz_key_uri (fuzz/corpus/key_uri/regress-crash-0e75dd17e77b): a NUL decoded from
            // the label made an account that is empty once it crosses the C ABI.
            "otpauth://totp/%0000gla9?secret=JBSW", "otpauth://totp/a%00b?secret=MZXW6YTB",
            "otpauth://totp/I%00:a?secret=MZXW6YTB", "otpauth://totp/a?secret=MZXW6YTB&issuer=%00",
            "otpauth://totp/a?secret=MZXW6YTB&issuer=I%00J", "otpauth://totp/a\u{0}b?secret=MZXW6YTB",
            // Numbers are plain decimal digits: no sign.
            "otpauth://totp/x?secret=MZXW6YTB&digits=+6", "otpauth://totp/x?secret=MZXW6YTB&period=+30",
            "otpauth://hotp/x?secret=MZXW6YTB&counter=+1", "otpauth://totp/x?secret=MZXW6YTB&digits=%2B6",
            "otpauth://totp/x?secret=MZXW6YTB&period=-30", "otpauth://totp/x?secret=MZXW6YTB&digits= 6",
        ]
        for text in bad {
            #expect(performing: { try KeyURI(parsing: text) },
                    throws: { ($0 as? MFAError)?.code == .invalidURI })
        }
        let long = "otpauth://totp/" + String(repeating: "a", count: 20000) + "?secret=MZXW6YTB"
        #expect(throws: MFAError(.invalidURI, "URI is too long")) { try KeyURI(parsing: long) }
    }

    @Test("building refuses empty names and out-of-range values")
    func buildErrors() {
        let cases = [
            KeyURI(issuer: nil, account: "", secret: secret),
            KeyURI(issuer: "", account: "a", secret: secret),
            KeyURI(issuer: nil, account: "a", secret: []),
            KeyURI(issuer: nil, account: "a", secret: secret, digits: 5),
            KeyURI(issuer: nil, account: "a", secret: secret, period: 0),
            KeyURI(issuer: nil, account: String(repeating: "a", count: 1025), secret: secret),
            KeyURI(issuer: nil, account: "a\u{0}b", secret: secret),
            KeyURI(issuer: "I\u{0}", account: "a", secret: secret),
        ]
        for key in cases {
            #expect(performing: { try key.uri() }, throws: { ($0 as? MFAError)?.code == .invalidArgument })
        }
    }
}
