import CMFATypes
import Glibc
import MFA

/// The PublicKeyCredentialCreationOptions for registering a WebAuthn
/// credential (a security key or passkey) for the user of `session` (an
/// enrollment session from mfa_session_new()), as JSON in `*out` (free with
/// mfa_free()): hand it to the browser's
/// navigator.credentials.create({publicKey:
/// PublicKeyCredential.parseCreationOptionsFromJSON(options)}).
///
/// It holds the challenge (a sealed libmfa token bound to the session's
/// user, tenant and revocation epoch, expiring after webauthn.timeout), the
/// relying party (webauthn.rpId, rpName), the user (a stable random handle,
/// `user_name`, and `user_display_name` or NULL for `user_name`), the
/// algorithms ES256, EdDSA, RS256, ES384, ES512 and PS256, the user's
/// registered credentials to exclude, residentKey, userVerification and
/// attestation from the configuration, and the credProps extension. Finish with mfa_enroll() and an assertion of kind
/// MFA_FACTOR_WEBAUTHN whose `credential` is the browser's credential JSON;
/// that uses up the session.
///
/// Returns MFA_OK, MFA_ERR_OPERATION_NOT_ALLOWED (WebAuthn disabled, no
/// webauthn.rpId, or a stored webauthn section that breaks a rule of
/// mfa_config_set_json(); `err` names the field), MFA_ERR_INVALID_SESSION,
/// MFA_ERR_USER_TOKEN_EXPIRED,
/// MFA_ERR_SECOND_FACTOR_LIMIT_EXCEEDED, MFA_ERR_INVALID_ARGUMENT (a user
/// name empty or over 256 bytes) or MFA_ERR_STORAGE_ERROR.
@c(mfa_webauthn_registration_options)
public func mfa_webauthn_registration_options(_ ctx: UnsafeMutablePointer<mfa_ctx>?,
                                              _ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                                              _ session: UnsafePointer<CChar>?, _ user_name: UnsafePointer<CChar>?,
                                              _ user_display_name: UnsafePointer<CChar>?,
                                              _ err: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    CResults.status(err) { () throws(MFAError) in
        let context = try CContext.get(ctx)
        let out = try CArguments.required(out, "out")
        out.pointee = nil
        let options = try WebAuthnMultiFactorGenerator.registrationOptions(
            with: MultiFactorSession(token: try CArguments.string(session, "session"), context: context),
            userName: try CArguments.string(user_name, "user_name"),
            userDisplayName: try CArguments.optionalString(user_display_name, "user_display_name"))
        out.pointee = try CResults.cString(options)
    }
}

/// mfa_webauthn_registration_options() with this ceremony's choices over
/// the configuration's (`options`, NULL for none; see mfa_webauthn_options):
/// authenticatorAttachment, userVerification, residentKey, Level 3 hints and
/// the algorithms offered. A passkey that signs in without a password is
/// registered with resident_key "required" and user_verification
/// "required"; the options then ask for the credProps extension, and
/// mfa_enroll() refuses a credential the browser says is not discoverable.
///
/// Returns as mfa_webauthn_registration_options(); MFA_ERR_INVALID_ARGUMENT
/// also for options that are not one of their values.
@c(mfa_webauthn_registration_options_ext)
public func mfa_webauthn_registration_options_ext(_ ctx: UnsafeMutablePointer<mfa_ctx>?,
                                                  _ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                                                  _ session: UnsafePointer<CChar>?,
                                                  _ user_name: UnsafePointer<CChar>?,
                                                  _ user_display_name: UnsafePointer<CChar>?,
                                                  _ options: UnsafePointer<mfa_webauthn_options>?,
                                                  _ err: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    CResults.status(err) { () throws(MFAError) in
        let context = try CContext.get(ctx)
        let out = try CArguments.required(out, "out")
        out.pointee = nil
        let json = try WebAuthnMultiFactorGenerator.registrationOptions(
            with: MultiFactorSession(token: try CArguments.string(session, "session"), context: context),
            userName: try CArguments.string(user_name, "user_name"),
            userDisplayName: try CArguments.optionalString(user_display_name, "user_display_name"),
            options: try CWebAuthnOptions.read(options))
        out.pointee = try CResults.cString(json)
    }
}

/// mfa_webauthn_authentication_options() with this ceremony's choices
/// (`options`, NULL for none): of mfa_webauthn_options, user_verification
/// (which can only tighten the configuration's, and is checked by
/// mfa_resolve()) and hints apply.
///
/// Returns as mfa_webauthn_authentication_options().
@c(mfa_webauthn_authentication_options_ext)
public func mfa_webauthn_authentication_options_ext(_ ctx: UnsafeMutablePointer<mfa_ctx>?,
                                                    _ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                                                    _ pending_credential: UnsafePointer<CChar>?,
                                                    _ tenant: UnsafePointer<CChar>?,
                                                    _ enrollment_id: UnsafePointer<CChar>?,
                                                    _ options: UnsafePointer<mfa_webauthn_options>?,
                                                    _ err: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    CResults.status(err) { () throws(MFAError) in
        let context = try CContext.get(ctx)
        let out = try CArguments.required(out, "out")
        out.pointee = nil
        let ceremony = try CWebAuthnOptions.read(options)
        let resolver = try context.resolver(
            pendingCredential: try CArguments.string(pending_credential, "pending_credential"),
            tenant: try CArguments.optionalString(tenant, "tenant"))
        let json = try WebAuthnMultiFactorGenerator.authenticationOptions(
            for: resolver, enrollmentID: try CArguments.optionalString(enrollment_id, "enrollment_id"),
            options: ceremony)
        out.pointee = try CResults.cString(json)
    }
}

/// The PublicKeyCredentialRequestOptions for signing in with a WebAuthn
/// credential, as JSON in `*out` (free with mfa_free()): hand it to the
/// browser's navigator.credentials.get({publicKey:
/// PublicKeyCredential.parseRequestOptionsFromJSON(options)}).
///
/// `pending_credential` is the resolver's session (mfa_sign_in()), `tenant`
/// the tenant the host serves (NULL for the project), `enrollment_id` the
/// hint the user chose or NULL for every WebAuthn credential of the user.
/// The challenge is a sealed libmfa token bound to this pending credential;
/// finish with mfa_resolve() and an assertion of kind MFA_FACTOR_WEBAUTHN
/// whose `credential` is the browser's credential JSON.
///
/// Returns MFA_OK, MFA_ERR_INVALID_SESSION (tampered, expired or used),
/// MFA_ERR_USER_TOKEN_EXPIRED, MFA_ERR_TENANT_MISMATCH,
/// MFA_ERR_MFA_ENROLLMENT_NOT_FOUND (no such WebAuthn credential),
/// MFA_ERR_OPERATION_NOT_ALLOWED (no webauthn.rpId, or a stored webauthn
/// section that breaks a rule of mfa_config_set_json()),
/// MFA_ERR_INVALID_ARGUMENT or MFA_ERR_STORAGE_ERROR.
@c(mfa_webauthn_authentication_options)
public func mfa_webauthn_authentication_options(_ ctx: UnsafeMutablePointer<mfa_ctx>?,
                                                _ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                                                _ pending_credential: UnsafePointer<CChar>?,
                                                _ tenant: UnsafePointer<CChar>?,
                                                _ enrollment_id: UnsafePointer<CChar>?,
                                                _ err: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    CResults.status(err) { () throws(MFAError) in
        let context = try CContext.get(ctx)
        let out = try CArguments.required(out, "out")
        out.pointee = nil
        let resolver = try context.resolver(
            pendingCredential: try CArguments.string(pending_credential, "pending_credential"),
            tenant: try CArguments.optionalString(tenant, "tenant"))
        let options = try WebAuthnMultiFactorGenerator.authenticationOptions(
            for: resolver, enrollmentID: try CArguments.optionalString(enrollment_id, "enrollment_id"))
        out.pointee = try CResults.cString(options)
    }
}

/// Verifies a WebAuthn registration response without libmfa's state
/// (WebAuthn Level 2 §7.1): `credential_json` is the browser's credential
/// (toJSON()), `challenge` the challenge the host put in its options
/// (base64url, as in clientDataJSON), `rp_id` and `origin` the relying party
/// and the page's origin, and `require_user_verification` non-zero to
/// require the UV flag. The attestation statement (none, packed, fido-u2f,
/// tpm, android-key, apple) is verified; its chain is returned, not judged.
///
/// On MFA_OK, `*out` is the credential (free with mfa_free()). Returns
/// MFA_OK, MFA_ERR_INVALID_ARGUMENT (malformed JSON, base64url, CBOR,
/// client or authenticator data, an unsupported algorithm or format, a key
/// whose signatures prove nothing: an RSA exponent other than 65537 or a
/// modulus that is not odd and of 2048 to 4096 bits, a P-256 point off the
/// curve, an Ed25519 point of small order),
/// MFA_ERR_INVALID_SESSION (another challenge), MFA_ERR_ORIGIN_MISMATCH,
/// MFA_ERR_RP_ID_MISMATCH, MFA_ERR_USER_VERIFICATION_REQUIRED,
/// MFA_ERR_INVALID_VERIFICATION_CODE (the user was not present, or the
/// statement's signature or certificate does not check out) or
/// MFA_ERR_CRYPTO (GnuTLS, needed for a certificate, cannot be loaded).
@c(mfa_webauthn_verify_registration)
public func mfa_webauthn_verify_registration(
    _ out: UnsafeMutablePointer<UnsafeMutablePointer<mfa_webauthn_credential>?>?,
    _ credential_json: UnsafePointer<CChar>?, _ challenge: UnsafePointer<CChar>?, _ rp_id: UnsafePointer<CChar>?,
    _ origin: UnsafePointer<CChar>?, _ require_user_verification: Int32,
    _ err: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
) -> Int32 {
    CResults.status(err) { () throws(MFAError) in
        let out = try CArguments.required(out, "out")
        out.pointee = nil
        let credential = try WebAuthnVerifier.verifyRegistration(
            credentialJSON: try CArguments.string(credential_json, "credential_json"),
            expecting: try expectation(challenge, rp_id, origin, require_user_verification))
        out.pointee = try CBlock.make { arena in
            mfa_webauthn_credential(
                credential_id: arena.bytes(credential.credentialID), credential_id_len: credential.credentialID.count,
                public_key: arena.bytes(credential.publicKey), public_key_len: credential.publicKey.count,
                algorithm: Int32(credential.algorithm), sign_count: credential.signCount,
                flags: UInt32(credential.flags), aaguid: arena.bytes(credential.aaguid),
                format: arena.string(credential.format), attestation_kind: arena.string(credential.attestationKind),
                certificate_count: credential.certificates.count,
                certificates: arena.array(credential.certificates) { (der: [UInt8]) -> UnsafePointer<UInt8>? in arena.bytes(der) },
                certificate_lengths: arena.array(credential.certificates) { $0.count })
        }
    }
}

/// Verifies a WebAuthn assertion response without libmfa's state (WebAuthn
/// Level 2 §7.2) with the credential's stored COSE public key
/// (`public_key`, `public_key_len`, as mfa_webauthn_verify_registration()
/// returned it): type, challenge, origin, rp id hash, flags and signature.
/// The arguments are as for mfa_webauthn_verify_registration().
///
/// On MFA_OK, `*out_sign_count` is the signature counter (the host must
/// check that it went up, unless it was and stays 0) and `*out_flags` the
/// authenticator data flags (MFA_WEBAUTHN_FLAG_*). Returns MFA_OK,
/// MFA_ERR_INVALID_ARGUMENT (malformed response or key, or a key whose
/// signatures prove nothing, as for mfa_webauthn_verify_registration()),
/// MFA_ERR_INVALID_SESSION,
/// MFA_ERR_ORIGIN_MISMATCH, MFA_ERR_RP_ID_MISMATCH,
/// MFA_ERR_USER_VERIFICATION_REQUIRED or MFA_ERR_INVALID_VERIFICATION_CODE
/// (the signature is wrong, or the user was not present).
@c(mfa_webauthn_verify_assertion)
public func mfa_webauthn_verify_assertion(
    _ out_sign_count: UnsafeMutablePointer<UInt32>?, _ out_flags: UnsafeMutablePointer<UInt32>?,
    _ credential_json: UnsafePointer<CChar>?, _ challenge: UnsafePointer<CChar>?, _ rp_id: UnsafePointer<CChar>?,
    _ origin: UnsafePointer<CChar>?, _ require_user_verification: Int32, _ public_key: UnsafePointer<UInt8>?,
    _ public_key_len: UInt, _ err: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
) -> Int32 {
    CResults.status(err) { () throws(MFAError) in
        let outCount = try CArguments.required(out_sign_count, "out_sign_count")
        let outFlags = try CArguments.required(out_flags, "out_flags")
        outCount.pointee = 0
        outFlags.pointee = 0
        let key = try CArguments.bytes(public_key, public_key_len, allowed: 1...2048, "public_key")
        let assertion = try WebAuthnVerifier.verifyAssertion(
            credentialJSON: try CArguments.string(credential_json, "credential_json"),
            expecting: try expectation(challenge, rp_id, origin, require_user_verification), publicKey: Array(key))
        outCount.pointee = assertion.signCount
        outFlags.pointee = UInt32(assertion.flags)
    }
}

/// The expectation of the stateless checks.
private func expectation(_ challenge: UnsafePointer<CChar>?, _ rpID: UnsafePointer<CChar>?,
                         _ origin: UnsafePointer<CChar>?,
                         _ requireUserVerification: Int32) throws(MFAError) -> WebAuthnVerifier.Expectation {
    WebAuthnVerifier.Expectation(challenge: try CArguments.string(challenge, "challenge"),
                                 rpID: try CArguments.string(rpID, "rp_id"),
                                 origins: [try CArguments.string(origin, "origin")],
                                 requireUserVerification: requireUserVerification != 0)
}

/// A host's C attestation trust callback as a `WebAuthnAttestationTrust`.
struct CWebAuthnTrust: WebAuthnAttestationTrust, @unchecked Sendable {
    let function: mfa_webauthn_trust_fn
    let context: UnsafeMutableRawPointer?

    func trust(_ attestation: WebAuthnAttestation) -> Bool {
        guard let block = try? CBlock.make({ arena in
            mfa_webauthn_attestation(
                format: arena.string(attestation.format), kind: arena.string(attestation.kind),
                aaguid: arena.bytes(attestation.aaguid), certificate_count: attestation.certificates.count,
                certificates: arena.array(attestation.certificates) { (der: [UInt8]) -> UnsafePointer<UInt8>? in arena.bytes(der) },
                certificate_lengths: arena.array(attestation.certificates) { $0.count },
                chain_trusted: attestation.chainTrusted ? 1 : 0, tenant: arena.string(attestation.tenant ?? ""),
                uid: arena.string(attestation.uid))
        }) else { return false }
        defer { free(block) }
        return function(context, block) == 0
    }
}

extension CAssertions {
    /// A WebAuthn assertion: the credential JSON (struct version 2), and at
    /// sign-in the factor's enrollment id or NULL.
    static func webAuthnAssertion(_ fields: mfa_assertion, _ purpose: Purpose) throws(MFAError) -> MultiFactorAssertion {
        guard fields.version >= 2 else {
            throw MFAError(.invalidArgument, "a WebAuthn assertion needs mfa_assertion version 2 (its credential field)")
        }
        let json = try CArguments.string(fields.credential, "assertion->credential")
        switch purpose {
        case .enrollment:
            return WebAuthnMultiFactorGenerator.assertionForEnrollment(credentialJSON: json)
        case .signIn:
            return WebAuthnMultiFactorGenerator.assertionForSignIn(
                credentialJSON: json,
                enrollmentID: try CArguments.optionalString(fields.enrollment_id, "assertion->enrollment_id"))
        }
    }
}
