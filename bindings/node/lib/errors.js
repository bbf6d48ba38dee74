'use strict';
// Errors: one Error subclass per libmfa status, each with `code` (the status's stable name,
// 'INVALID_VERIFICATION_CODE') and `status` (its number, -11). Statuses the loaded library
// names that this file does not list (a newer libmfa) get a class made from their name.
const native = require('./native');

/** A libmfa call failed. */
class MFAError extends Error {
  /**
   * @param {string} [message] the detailed message (the status's short message by default)
   * @param {number} [status] the status code (the class's own by default)
   */
  constructor(message, status) {
    const code = status === undefined ? new.target.status : status;
    super(message || native.errstr(code ?? -27));
    this.status = code ?? -27;
    this.code = native.statusName(this.status);
  }

  get name() {
    return this.constructor.name;
  }
}

// Class names where the mechanical one (CamelCase + "Error") is not the one libmfa's other
// bindings use.
const SPECIAL = {
  SECOND_FACTOR_REQUIRED: 'SecondFactorRequired',
  MFA_ENROLLMENT_NOT_FOUND: 'MFAEnrollmentNotFoundError',
  TOO_MANY_ATTEMPTS_TRY_LATER: 'TooManyAttemptsError',
  SMS_SEND_FAILED: 'SMSSendFailedError',
  RP_ID_MISMATCH: 'RPIDMismatchError',
  INVALID_URI: 'InvalidURIError',
  STORAGE_ERROR: 'StorageError',
  CRYPTO: 'CryptoError',
  INTERNAL: 'InternalError',
};

/** The class name for a status name: INVALID_SESSION -> InvalidSessionError. */
function className(code) {
  if (SPECIAL[code]) return SPECIAL[code];
  return code.toLowerCase().replace(/(^|_)([a-z0-9])/g, (_, __, c) => c.toUpperCase()) + 'Error';
}

const byStatus = new Map();
const classes = {};
for (const [status, code] of native.statuses()) {
  if (status === 0) continue;
  const name = className(code);
  const cls = { [name]: class extends MFAError {} }[name];
  Object.defineProperty(cls, 'status', { value: status });
  Object.defineProperty(cls, 'code', { value: code });
  byStatus.set(status, cls);
  classes[name] = cls;
}

/** The first factor passed; a second factor is required: `resolver` finishes the sign-in. */
const SecondFactorRequired = classes.SecondFactorRequired;
/** @type {import('../index').MultiFactorResolver | null} */
SecondFactorRequired.prototype.resolver = null;

/** The Error for a status and message (the addon's makeError). */
function makeError(status, code, message) {
  const cls = byStatus.get(status) || MFAError;
  return new cls(message, status);
}

native.setHelpers(makeError, (text) => process.emitWarning(text, 'LibmfaWarning'));

/** InvalidArgumentError with a message. */
function invalid(message) {
  return makeError(-1, 'INVALID_ARGUMENT', message);
}

module.exports = { MFAError, ...classes, makeError, invalid, className, ERRORS: byStatus };
