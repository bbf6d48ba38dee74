/// The claim value of `sign_in_second_factor` when a remembered device
/// stood in for the second factor (`SignInResult.factorID`).
public let RememberedDeviceFactorID = "remembered_device"

/// A device whose user passed a second factor on it and asked to be
/// remembered there: until it expires, signing in on it with the first
/// factor and its device token needs no second factor.
///
/// libmfa keeps only a keyed hash of the token, with what is listed here.
public struct RememberedDevice: Sendable, Equatable {
    /// The device's id: 22 URL-safe characters (not secret; the token is).
    public let id: String
    /// The tenant, or nil for the project.
    public let tenant: String?
    /// The user.
    public let uid: String
    /// The host's name for it ("Firefox on Linux"), or nil.
    public let label: String?
    /// When it was remembered (Unix seconds).
    public let createdAt: Int64
    /// When its token last stood in for a second factor (`createdAt` until then).
    public let lastUsedAt: Int64
    /// When it stops being remembered, unless used before (sliding) or revoked.
    public let expiresAt: Int64

    /// Creates a description.
    public init(id: String, tenant: String?, uid: String, label: String?, createdAt: Int64, lastUsedAt: Int64,
                expiresAt: Int64) {
        self.id = id
        self.tenant = tenant
        self.uid = uid
        self.label = label
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
        self.expiresAt = expiresAt
    }
}

/// A device token and the device it names, as `MFAContext.rememberDevice` returns them.
public struct DeviceToken: Sendable, Equatable {
    /// The token: opaque, secret and long-lived. Hand it to the device alone
    /// (an HttpOnly cookie, the app's keychain); libmfa never shows it again.
    public let token: String
    /// The device.
    public let device: RememberedDevice
}

extension MultiFactorResolver {
    /// Remembers the device of this sign-in, after `resolveSignIn` succeeded:
    /// `MFAContext.rememberDevice(pendingCredential:tenant:label:)`.
    public func rememberDevice(label: String?) throws(MFAError) -> DeviceToken {
        try context.rememberDevice(pendingCredential: session, tenant: tenant, label: label)
    }
}
