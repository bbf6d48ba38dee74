'use strict';
// Recovery codes: a set of single-use codes, one factor ("recovery"), generated (not enrolled)
// from an enrollment session; libmfa keeps only their hashes.
const native = require('./native');
const args = require('./args');
const C = require('./constants');
const { MultiFactorAssertion, MultiFactorSession } = require('./flow');
const { MultiFactorInfo, hideInInspect } = require('./models');

/** A freshly generated set: show `codes` once. */
class RecoveryCodes {
  constructor(fields) {
    /** The codes, "xxxx-xxxx-xx". */
    this.codes = Object.freeze([...fields.codes]);
    /** The set as a factor (its hint says how many codes are left). */
    this.factor = new MultiFactorInfo(fields.factor);
    Object.freeze(this);
  }
}
hideInInspect(RecoveryCodes, ['codes']);

/** A recovery code, to resolve a sign-in. */
class RecoveryCodeMultiFactorAssertion extends MultiFactorAssertion {
  constructor(fields) {
    super(C.FACTOR_RECOVERY_CODES, C.RECOVERY_CODES_FACTOR_ID, fields, 'signIn');
  }
}

/** Makes recovery-code sets and assertions. */
class RecoveryCodesMultiFactorGenerator {
  static FACTOR_ID = C.RECOVERY_CODES_FACTOR_ID;

  /** A new set for the user of `session`, replacing the old one; revokes earlier credentials. */
  static async generateCodes(session, displayName = null) {
    if (!(session instanceof MultiFactorSession)) throw args.typeError('session must be a MultiFactorSession');
    return new RecoveryCodes(await session.context._call(native.recoveryCodesGenerate, session.token,
      args.optionalText(displayName, 'displayName')));
  }

  /** An assertion with a code the user typed (any case; dashes and spaces ignored). */
  static assertionForSignIn(code, enrollmentId = null) {
    return new RecoveryCodeMultiFactorAssertion({
      code: args.text(code, 'code'), enrollmentId: enrollmentId === null ? null : args.enrollmentId(enrollmentId),
    });
  }
}

module.exports = { RecoveryCodes, RecoveryCodeMultiFactorAssertion, RecoveryCodesMultiFactorGenerator };
