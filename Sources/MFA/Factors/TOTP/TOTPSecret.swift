/// A fresh TOTP shared secret, waiting for the user to prove they have it.
public struct TOTPSecret: Sendable {
    /// The raw secret (20 random bytes).
    public let secret: [UInt8]
    /// The HMAC hash (SHA1, what every authenticator app supports).
    public let hashingAlgorithm: OTPAlgorithm
    /// Code length.
    public let codeLength: Int
    /// Time step, in seconds.
    public let codeIntervalSeconds: Int64
    /// When the enrollment must be finished by (Unix seconds); after it the secret is gone.
    public let enrollmentCompletionDeadline: Int64
    /// The opaque token naming this pending enrollment, to give back when enrolling.
    public let sessionInfo: String

    /// The secret as RFC 4648 base32 without padding, for users who type it in.
    public func sharedSecretKey() -> String {
        Base32.encode(secret, padding: false)
    }

    /// The `otpauth://totp/...` URI an authenticator app reads from a QR code,
    /// with the issuer and account name percent-encoded.
    /// - Parameters:
    ///   - accountName: usually the user's email address.
    ///   - issuer: the service's name, shown by the app.
    /// - Throws: `invalidArgument` for an empty or overlong name.
    public func generateQRCodeURL(withAccountName accountName: String, issuer: String) throws(MFAError) -> String {
        try keyURI(accountName: accountName, issuer: issuer).uri()
    }

    /// The QR code of `generateQRCodeURL(withAccountName:issuer:)`, ready to
    /// render as PNG, SVG or terminal text.
    public func qrCode(withAccountName accountName: String, issuer: String) throws(MFAError) -> QRCode {
        try QRCode(encoding: generateQRCodeURL(withAccountName: accountName, issuer: issuer))
    }

    private func keyURI(accountName: String, issuer: String) -> KeyURI {
        KeyURI(issuer: issuer.isEmpty ? nil : issuer, account: accountName, secret: secret,
               algorithm: hashingAlgorithm, digits: codeLength, period: codeIntervalSeconds)
    }
}
