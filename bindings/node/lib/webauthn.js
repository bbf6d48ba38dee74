'use strict';
// WebAuthn security keys and passkeys, libmfa being the relying party. Options are returned
// as objects (PublicKeyCredentialCreationOptionsJSON / RequestOptionsJSON) to hand to the
// browser; a credential is the browser's credential.toJSON(), as an object or JSON text.
const native = require('./native');
const args = require('./args');
const C = require('./constants');
const { MultiFactorAssertion, MultiFactorResolver, MultiFactorSession } = require('./flow');

function credentialJson(value) {
  if (typeof value === 'string') return value;
  if (value && typeof value === 'object') return JSON.stringify(value);
  throw args.typeError('credential must be the browser\'s credential.toJSON() (an object or JSON text)');
}

/** A browser's WebAuthn credential, to enroll or to resolve a sign-in. */
class WebAuthnMultiFactorAssertion extends MultiFactorAssertion {
  constructor(fields, purpose) {
    super(C.FACTOR_WEBAUTHN, C.WEBAUTHN_FACTOR_ID, fields, purpose);
  }
}

/** Makes WebAuthn ceremony options and assertions. */
class WebAuthnMultiFactorGenerator {
  static FACTOR_ID = C.WEBAUTHN_FACTOR_ID;

  /** PublicKeyCredentialCreationOptions (JSON form) for the user of `session`. */
  static async registrationOptions(session, userName, userDisplayName = null) {
    if (!(session instanceof MultiFactorSession)) throw args.typeError('session must be a MultiFactorSession');
    return JSON.parse(await session.context._call(native.webauthnRegistrationOptions, session.token,
      args.text(userName, 'userName'), args.optionalText(userDisplayName, 'userDisplayName')));
  }

  /** An assertion that enrolls the credential navigator.credentials.create() made. */
  static assertionForEnrollment(credential) {
    return new WebAuthnMultiFactorAssertion({ credential: credentialJson(credential) }, 'enrollment');
  }

  /** PublicKeyCredentialRequestOptions (JSON form) for the resolver's sign-in (one factor, or all the user's). */
  static async authenticationOptions(resolver, enrollmentId = null) {
    if (!(resolver instanceof MultiFactorResolver)) throw args.typeError('resolver must be a MultiFactorResolver');
    return JSON.parse(await resolver.context._call(native.webauthnAuthenticationOptions, resolver.session,
      resolver.tenant, enrollmentId === null ? null : args.enrollmentId(enrollmentId)));
  }

  /** An assertion that resolves a sign-in with what navigator.credentials.get() returned. */
  static assertionForSignIn(credential, enrollmentId = null) {
    return new WebAuthnMultiFactorAssertion({
      credential: credentialJson(credential), enrollmentId: enrollmentId === null ? null : args.enrollmentId(enrollmentId),
    }, 'signIn');
  }
}

/** Verifies a registration response against the host's own challenge (no libmfa state). */
function verifyRegistration(credential, challenge, rpId, origin, requireUserVerification = false) {
  return Object.freeze(native.webauthnVerifyRegistration(credentialJson(credential), args.text(challenge, 'challenge'),
    args.text(rpId, 'rpId'), args.text(origin, 'origin'), Boolean(requireUserVerification)));
}

/** Verifies an assertion response with a stored COSE public key: {signCount, flags}. */
function verifyAssertion(credential, challenge, rpId, origin, publicKey, requireUserVerification = false) {
  return Object.freeze(native.webauthnVerifyAssertion(credentialJson(credential), args.text(challenge, 'challenge'),
    args.text(rpId, 'rpId'), args.text(origin, 'origin'), Boolean(requireUserVerification), args.bytes(publicKey, 'publicKey')));
}

module.exports = {
  WebAuthnMultiFactorAssertion,
  WebAuthnMultiFactorGenerator,
  webauthn: Object.freeze({ verifyRegistration, verifyAssertion }),
};
