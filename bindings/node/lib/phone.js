'use strict';
// SMS second factors under the Firebase SDKs' names: PhoneAuthProvider and
// PhoneMultiFactorGenerator. Codes go through the context's smsSender (or smsOutbox) after its
// appVerifier accepted the client's app credential.
const native = require('./native');
const args = require('./args');
const C = require('./constants');
const { MultiFactorAssertion, MultiFactorResolver, MultiFactorSession } = require('./flow');
const { hideInInspect } = require('./models');

/** A verification id and the code the user received by SMS. */
class PhoneAuthCredential {
  constructor(verificationId, verificationCode) {
    this.verificationId = args.text(verificationId, 'verificationId');
    this.verificationCode = args.text(verificationCode, 'verificationCode');
    Object.freeze(this);
  }
}
PhoneAuthCredential.prototype.providerId = C.PHONE_FACTOR_ID;
hideInInspect(PhoneAuthCredential, ['verificationId', 'verificationCode']);

/** Proof of a phone factor; the verification id decides whether it enrolls or signs in. */
class PhoneMultiFactorAssertion extends MultiFactorAssertion {
  constructor(credential) {
    super(C.FACTOR_PHONE, C.PHONE_FACTOR_ID, {
      verificationId: credential.verificationId, code: credential.verificationCode,
    });
  }
}

function sessionToken(session) {
  if (session instanceof MultiFactorSession) return session.token;
  return args.text(session, 'session');
}

/** Sends SMS codes for enrolling and signing in (Firebase's PhoneAuthProvider). */
class PhoneAuthProvider {
  static PROVIDER_ID = C.PHONE_FACTOR_ID;

  constructor(context) {
    this.context = context;
    Object.freeze(this);
  }

  /**
   * Sends a code; resolves with the verification id. As in Firebase's JS SDK:
   * `{phoneNumber, session}` enrolls a number (session: the user's MultiFactorSession);
   * `{multiFactorHint, session}` signs in with an enrolled phone factor (session: the
   * MultiFactorResolver, or its pending credential with `tenant`). `appCredential` is the
   * token the client's app verification produced, for the context's appVerifier.
   */
  verifyPhoneNumber(phoneInfoOptions, appCredential = null) {
    const options = args.options(phoneInfoOptions, 'phoneInfoOptions');
    if (options.multiFactorHint !== undefined || options.multiFactorUid !== undefined) {
      const hint = options.multiFactorHint !== undefined ? options.multiFactorHint : options.multiFactorUid;
      return this.verifyPhoneNumberForSignIn(hint, options.session, appCredential, options.tenant);
    }
    if (options.session === undefined || options.session === null) {
      throw args.typeError('session is required: the user\'s MultiFactorSession');
    }
    return this.context._call(native.phoneStartEnrollment, sessionToken(options.session),
      args.text(options.phoneNumber, 'phoneNumber'), args.optionalText(appCredential, 'appCredential'));
  }

  /** Sends a code to the number of an enrolled factor chosen from the hints; the full number never leaves libmfa. */
  verifyPhoneNumberForSignIn(hint, resolver, appCredential = null, tenant = null) {
    let pending = resolver;
    if (resolver instanceof MultiFactorResolver) {
      pending = resolver.session;
      tenant = resolver.tenant;
    }
    return this.context._call(native.phoneStartSignIn, args.text(pending, 'resolver'),
      args.optionalText(tenant, 'tenant'), args.enrollmentId(hint, 'hint'), args.optionalText(appCredential, 'appCredential'));
  }

  /** The credential of a verification id and the code the user typed (nothing is checked here). */
  static credential(verificationId, verificationCode) {
    return new PhoneAuthCredential(verificationId, verificationCode);
  }
}

/** Makes phone assertions. */
class PhoneMultiFactorGenerator {
  static FACTOR_ID = C.PHONE_FACTOR_ID;

  /** An assertion for MultiFactor.enroll() or resolveSignIn(). */
  static assertion(credential) {
    if (!(credential instanceof PhoneAuthCredential)) throw args.typeError('credential must be a PhoneAuthCredential');
    return new PhoneMultiFactorAssertion(credential);
  }
}

module.exports = { PhoneAuthCredential, PhoneMultiFactorAssertion, PhoneAuthProvider, PhoneMultiFactorGenerator };
