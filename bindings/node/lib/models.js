'use strict';
// Plain values copied out of libmfa: no object here holds C memory.
const util = require('node:util');
const { FACTOR_RECOVERY_CODES } = require('./constants');

/** One enrolled second factor, of any kind, as listed and as shown in sign-in hints. */
class MultiFactorInfo {
  constructor(fields) {
    /** The enrollment id (28 URL-safe characters). */
    this.uid = fields.uid;
    /** "totp", "phone", "recovery", "webauthn", or another kind's id. */
    this.factorId = fields.factorId;
    /** The user's name for it, or null. */
    this.displayName = fields.displayName ?? null;
    /** When it was enrolled (Unix seconds). */
    this.enrollmentTime = fields.enrollmentTime;
    /** For phone factors the number (masked in hints: "+1******1234"), else null. */
    this.phoneNumber = fields.phoneNumber ?? null;
    /** The kind, FACTOR_* (kinds this binding does not know keep their number). */
    this.kind = fields.kind;
    /** What identifies the factor to its user, never secret: "authenticator app", a masked number, "7 codes left". */
    this.hint = fields.hint;
    /** For a recovery-code set, how many codes are left; null for other kinds. */
    this.remainingCodes = fields.remainingCodes ?? null;
    Object.freeze(this);
  }
}

/** A finished sign-in. */
class SignInResult {
  constructor(fields) {
    this.uid = fields.uid;
    this.tenant = fields.tenant ?? null;
    /** The second factor used, or null when none was needed. */
    this.factorId = fields.factorId ?? null;
    this.enrollmentId = fields.enrollmentId ?? null;
    /** When it finished (Unix seconds, by the context's clock). */
    this.time = fields.time;
    /** The kind of the factor used (FACTOR_*), or null. */
    this.kind = fields.kind ?? null;
    /**
     * The claims to put in the credential the host issues: sign_in_second_factor,
     * second_factor_identifier and any the kind adds (recovery_codes_remaining); {} when no
     * second factor was used.
     */
    this.claims = Object.freeze(Object.fromEntries(fields.claims || []));
    Object.freeze(this);
  }

  /** Whether the user signed in with a recovery code (warn them; offer a new set). */
  get usedRecoveryCode() {
    return this.kind === FACTOR_RECOVERY_CODES;
  }
}

/** One audit event (ids and outcomes, never a secret, a code or a token). */
class AuditEvent {
  constructor(fields) {
    const optional = (value) => (value ? value : null);
    /** AUDIT_* */
    this.kind = fields.kind;
    /** "ENROLL", "SIGN_IN_FAILURE", ... */
    this.kindName = fields.kindName;
    this.tenant = optional(fields.tenant);
    this.uid = optional(fields.uid);
    this.factorId = optional(fields.factorId);
    this.enrollmentId = optional(fields.enrollmentId);
    /** Unix time (the context's clock). */
    this.time = fields.time;
    /** The outcome's status name ("OK", "INVALID_VERIFICATION_CODE") or another detail ("ADMIN", "IMPORTED"). */
    this.detail = fields.detail;
    /** Who made the administrative call, or null for the user's own actions. */
    this.actor = optional(fields.actor);
    Object.freeze(this);
  }
}

/** Hides the named fields from util.inspect (console.log) of instances of `cls`. */
function hideInInspect(cls, hidden) {
  cls.prototype[util.inspect.custom] = function inspect(depth, options, inspectFn) {
    const shown = {};
    for (const [key, value] of Object.entries(this)) shown[key] = hidden.includes(key) ? '[hidden]' : value;
    return `${cls.name} ${inspectFn(shown, options)}`;
  };
}

module.exports = { MultiFactorInfo, SignInResult, AuditEvent, hideInInspect };
