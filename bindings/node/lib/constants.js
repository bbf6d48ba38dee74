'use strict';
// The constants of the header the addon was built with (mfa_types.h), without MFA_.
const native = require('./native');

const constants = Object.freeze({ ...native.constants });

/** Status codes by name ({OK: 0, INVALID_ARGUMENT: -1, ...}) of the loaded library. */
const Status = Object.freeze(Object.fromEntries(native.statuses().map(([status, code]) => [code, status])));

/** Factor ids. */
const TOTP_FACTOR_ID = 'totp';
const PHONE_FACTOR_ID = 'phone';
const RECOVERY_CODES_FACTOR_ID = 'recovery';
const WEBAUTHN_FACTOR_ID = 'webauthn';

const ALGORITHMS = { SHA1: constants.ALG_SHA1, SHA256: constants.ALG_SHA256, SHA512: constants.ALG_SHA512 };

module.exports = {
  ...constants,
  Status,
  TOTP_FACTOR_ID,
  PHONE_FACTOR_ID,
  RECOVERY_CODES_FACTOR_ID,
  WEBAUTHN_FACTOR_ID,
  ALGORITHMS,
};
