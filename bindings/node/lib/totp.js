'use strict';
// TOTP second factors (authenticator apps), under the Firebase SDKs' names.
const native = require('./native');
const args = require('./args');
const C = require('./constants');
const { MultiFactorAssertion, MultiFactorSession } = require('./flow');
const { hideInInspect } = require('./models');
const { qrCode } = require('./codecs');

/** A fresh TOTP secret waiting for the user to prove they have it. */
class TOTPSecret {
  constructor(fields) {
    /** The secret as unpadded base32, for users who type it in. */
    this.sharedSecretKey = fields.sharedSecretKey;
    /** "SHA1". */
    this.hashingAlgorithm = args.algorithmName(fields.algorithm);
    this.codeLength = fields.digits;
    this.codeIntervalSeconds = fields.period;
    /** Unix time by which the enrollment must finish. */
    this.enrollmentCompletionDeadline = fields.deadline;
    /** The opaque token naming this pending enrollment. */
    this.sessionInfo = fields.sessionInfo;
    Object.freeze(this);
  }

  /** The otpauth://totp/ URI an authenticator app reads (issuer and account percent-encoded). */
  generateQrCodeUrl(accountName, issuer = null) {
    return native.totpSecretUri({
      sharedSecretKey: this.sharedSecretKey, sessionInfo: this.sessionInfo, algorithm: args.algorithm(this.hashingAlgorithm),
      digits: this.codeLength, period: this.codeIntervalSeconds, deadline: this.enrollmentCompletionDeadline,
    }, args.text(accountName, 'accountName'), args.optionalText(issuer, 'issuer'));
  }

  /** The QR code of generateQrCodeUrl() as a PNG Buffer (it holds the secret). */
  qrPng(accountName, issuer = null) {
    return qrCode(this.generateQrCodeUrl(accountName, issuer), 'png');
  }

  /** The QR code as an SVG document. */
  qrSvg(accountName, issuer = null) {
    return qrCode(this.generateQrCodeUrl(accountName, issuer), 'svg');
  }

  /** The QR code as terminal text (UTF-8 half blocks). */
  qrText(accountName, issuer = null) {
    return qrCode(this.generateQrCodeUrl(accountName, issuer), 'text');
  }
}
hideInInspect(TOTPSecret, ['sharedSecretKey', 'sessionInfo']);

/** Proof of a TOTP factor: a code from the app and the secret (enrollment) or factor (sign-in) it is for. */
class TOTPMultiFactorAssertion extends MultiFactorAssertion {
  constructor(fields, purpose) {
    super(C.FACTOR_TOTP, C.TOTP_FACTOR_ID, fields, purpose);
  }
}
hideInInspect(TOTPMultiFactorAssertion, []);

/** Makes TOTP secrets and assertions. */
class TOTPMultiFactorGenerator {
  static FACTOR_ID = C.TOTP_FACTOR_ID;

  /** A new secret for the user of `session` (kept, encrypted, until enrolled or past its deadline). */
  static async generateSecret(session) {
    if (!(session instanceof MultiFactorSession)) throw args.typeError('session must be a MultiFactorSession');
    return new TOTPSecret(await session.context._call(native.totpGenerateSecret, session.token));
  }

  /**
   * An assertion that finishes enrolling `secret` with a code from the app. `secret` is the
   * TOTPSecret, or its sessionInfo (what a server that keeps no state hands its client).
   */
  static assertionForEnrollment(secret, oneTimePassword) {
    const sessionInfo = secret instanceof TOTPSecret ? secret.sessionInfo : args.text(secret, 'secret (a TOTPSecret or its sessionInfo)');
    return new TOTPMultiFactorAssertion({ sessionInfo, code: args.text(oneTimePassword, 'oneTimePassword') }, 'enrollment');
  }

  /** An assertion that resolves a sign-in with the enrolled factor (a hint, or its uid). */
  static assertionForSignIn(enrollmentId, oneTimePassword) {
    return new TOTPMultiFactorAssertion({
      enrollmentId: args.enrollmentId(enrollmentId), code: args.text(oneTimePassword, 'oneTimePassword'),
    }, 'signIn');
  }
}

module.exports = { TOTPSecret, TOTPMultiFactorAssertion, TOTPMultiFactorGenerator };
