import CMFATypes
import MFA

/// A host's C clock callback as an `MFAClock`.
struct CClock: MFAClock, @unchecked Sendable {
    let function: mfa_clock_fn
    let context: UnsafeMutableRawPointer?

    func now() -> Int64 { function(context) }
}

/// A host's C random callback as a `RandomSource`.
struct CRandom: RandomSource, @unchecked Sendable {
    let function: mfa_random_fn
    let context: UnsafeMutableRawPointer?

    func fill(_ buffer: UnsafeMutableRawBufferPointer) throws(MFAError) {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        guard function(context, base.assumingMemoryBound(to: UInt8.self), buffer.count) == 0 else {
            throw MFAError(.crypto, "the host's random source failed")
        }
    }
}

/// A host's C SMS gateway callback as an `SMSSender`.
struct CSMSSender: SMSSender, @unchecked Sendable {
    let function: mfa_sms_sender_fn
    let context: UnsafeMutableRawPointer?

    func send(to number: String, message: String) throws(MFAError) {
        let status = number.withCString { to in message.withCString { text in function(context, to, text) } }
        guard status == 0 else { throw MFAError(.smsSendFailed, "the host's SMS sender failed") }
    }
}

/// A host's C email callback as an `EmailSender`.
struct CEmailSender: EmailSender, @unchecked Sendable {
    let function: mfa_email_sender_fn
    let context: UnsafeMutableRawPointer?

    func send(_ message: EmailMessage) throws(MFAError) {
        let status = message.to.withCString { to in
            message.subject.withCString { subject in
                message.body.withCString { body in
                    message.code.withCString { code in
                        var fields = mfa_email_message(to: to, subject: subject, body: body, code: code,
                                                       purpose: message.purpose.rawValue)
                        return function(context, &fields)
                    }
                }
            }
        }
        guard status == 0 else { throw MFAError(.emailSendFailed, "the host's email sender failed") }
    }
}

/// A host's C app verifier callback as an `AppVerifier`.
struct CAppVerifier: AppVerifier, @unchecked Sendable {
    let function: mfa_app_verifier_fn
    let context: UnsafeMutableRawPointer?

    func verify(credential: String, action: AppVerificationAction) -> Bool {
        credential.withCString { function(context, $0, action.rawValue) } == 0
    }
}

/// A host's C audit callback.
struct CAudit: @unchecked Sendable {
    let function: mfa_audit_fn
    let context: UnsafeMutableRawPointer?

    static let kinds: [AuditEvent.Kind: Int32] = [
        .enroll: MFA_AUDIT_ENROLL, .unenroll: MFA_AUDIT_UNENROLL, .signInSuccess: MFA_AUDIT_SIGN_IN_SUCCESS,
        .signInFailure: MFA_AUDIT_SIGN_IN_FAILURE, .backoff: MFA_AUDIT_BACKOFF,
        .configChange: MFA_AUDIT_CONFIG_CHANGE, .smsSent: MFA_AUDIT_SMS_SENT,
        .integrityFailure: MFA_AUDIT_INTEGRITY_FAILURE, .tokensRevoked: MFA_AUDIT_TOKENS_REVOKED,
        .factorRenamed: MFA_AUDIT_FACTOR_RENAMED, .userReset: MFA_AUDIT_USER_RESET,
        .userDeleted: MFA_AUDIT_USER_DELETED, .keysRotated: MFA_AUDIT_KEYS_ROTATED,
        .deviceRemembered: MFA_AUDIT_DEVICE_REMEMBERED, .deviceRefused: MFA_AUDIT_DEVICE_REFUSED,
        .deviceRevoked: MFA_AUDIT_DEVICE_REVOKED, .emailSent: MFA_AUDIT_EMAIL_SENT,
        .passkeySignInSuccess: MFA_AUDIT_PASSKEY_SIGN_IN_SUCCESS,
        .passkeySignInFailure: MFA_AUDIT_PASSKEY_SIGN_IN_FAILURE,
        .tokenImported: MFA_AUDIT_TOKEN_IMPORTED, .tokenAssigned: MFA_AUDIT_TOKEN_ASSIGNED,
        .tokenResynced: MFA_AUDIT_TOKEN_RESYNCED, .tokenRemoved: MFA_AUDIT_TOKEN_REMOVED,
    ]

    func deliver(_ event: AuditEvent) {
        event.kind.rawValue.withCString { kind in
            event.tenant.withCString { tenant in
                event.uid.withCString { uid in
                    event.factorID.withCString { factor in
                        event.enrollmentID.withCString { enrollment in
                            event.detail.withCString { detail in
                                event.actor.withCString { actor in
                                    var record = mfa_audit_event(
                                        kind: Self.kinds[event.kind] ?? 0, kind_name: kind, tenant: tenant, uid: uid,
                                        factor_id: factor, enrollment_id: enrollment, time: event.time,
                                        detail: detail, actor: actor)
                                    function(context, &record)
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// Converts a C `mfa_user` into an `MFAUser`.
enum CUser {
    static func read(_ user: UnsafePointer<mfa_user>?) throws(MFAError) -> MFAUser {
        let fields = try CStructs.user.read(user)
        return MFAUser(uid: try CArguments.string(fields.uid, "user->uid"),
                       tenant: try CArguments.optionalString(fields.tenant, "user->tenant"),
                       email: try CArguments.optionalString(fields.email, "user->email"),
                       emailVerified: fields.email_verified != 0,
                       provider: try CArguments.string(fields.provider, "user->provider"),
                       authTime: fields.auth_time)
    }
}

/// The Swift object behind an `mfa_ctx *`.
enum CContext {
    static func handle(_ context: MFAContext) -> UnsafeMutablePointer<mfa_ctx> {
        UnsafeMutablePointer(OpaquePointer(Unmanaged.passRetained(context).toOpaque()))
    }

    /// The context of a handle; `invalidArgument` for NULL.
    static func get(_ handle: UnsafeMutablePointer<mfa_ctx>?) throws(MFAError) -> MFAContext {
        let handle = try CArguments.required(handle, "ctx")
        return Unmanaged<MFAContext>.fromOpaque(UnsafeRawPointer(handle)).takeUnretainedValue()
    }

    static func release(_ handle: UnsafeMutablePointer<mfa_ctx>) {
        Unmanaged<MFAContext>.fromOpaque(UnsafeRawPointer(handle)).release()
    }
}
