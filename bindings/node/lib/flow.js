'use strict';
// The flow every kind of second factor shares (Firebase's model): MultiFactorSession,
// MultiFactor (one user's factors), MultiFactorResolver (a sign-in waiting for a second
// factor) and MultiFactorAssertion, the base of every kind's assertion. An assertion carries
// the fields of libmfa's generic mfa_assertion (kind, enrollmentId, sessionInfo,
// verificationId, code, credential), so the flow never asks which kind it has: a new kind
// needs a new assertion class and nothing here.
const native = require('./native');
const args = require('./args');
const { invalid } = require('./errors');
const { MultiFactorInfo, SignInResult, hideInInspect } = require('./models');

/** Proof that a user recently passed the first factor, needed to enroll. */
class MultiFactorSession {
  /**
   * @param {string} token the opaque, expiring token (from MultiFactor.session(), or sent back by a client)
   * @param {import('./context').Context} context the context that minted it
   */
  constructor(token, context) {
    this.token = args.text(token, 'token');
    this.context = context;
    Object.freeze(this);
  }
}
hideInInspect(MultiFactorSession, ['token', 'context']);

/**
 * Proof of a second factor, of any kind. Made by a kind's generator; a kind libmfa has and this
 * binding has no class for can be used as `new MultiFactorAssertion(kind, factorId, fields)`.
 */
class MultiFactorAssertion {
  /**
   * @param {number} kind FACTOR_*
   * @param {string} factorId
   * @param {{enrollmentId?: string, sessionInfo?: string, verificationId?: string, code?: string,
   *          credential?: string}} fields
   * @param {'enrollment'|'signIn'|'both'} [purpose]
   */
  constructor(kind, factorId, fields, purpose = 'both') {
    Object.defineProperty(this, 'kind', { value: kind, enumerable: true });
    Object.defineProperty(this, 'factorId', { value: factorId, enumerable: true });
    Object.defineProperty(this, '_fields', { value: Object.freeze({ kind, ...fields }) });
    Object.defineProperty(this, '_purpose', { value: purpose });
  }

  /** The fields of the mfa_assertion that enrolls with it (MultiFactor.enroll). */
  _enrollment() {
    if (this._purpose === 'signIn') throw invalid(`a ${this.factorId} sign-in assertion cannot enroll a factor`);
    return this._fields;
  }

  /** The fields of the mfa_assertion that resolves a sign-in with it (resolveSignIn). */
  _signIn() {
    if (this._purpose === 'enrollment') throw invalid(`a ${this.factorId} enrollment assertion cannot resolve a sign-in`);
    return this._fields;
  }
}
hideInInspect(MultiFactorAssertion, []);

function requireAssertion(assertion) {
  if (!(assertion instanceof MultiFactorAssertion)) {
    throw args.typeError('assertion must come from a MultiFactorGenerator (TOTP, phone, recovery codes, WebAuthn)');
  }
  return assertion;
}

/** One user's second factors: list, enroll, unenroll (Firebase's `user.multiFactor`). */
class MultiFactor {
  constructor(context, user) {
    this.context = context;
    this.user = args.user(user);
    Object.freeze(this);
  }

  /** A session for enrolling a factor (or generating recovery codes). */
  async session() {
    const token = await this.context._call(native.sessionNew, this.user);
    return new MultiFactorSession(token, this.context);
  }

  /** The enrolled factors of every kind, oldest first. */
  async enrolledFactors() {
    const list = await this.context._call(native.factorsList, this.user);
    return list.map((fields) => new MultiFactorInfo(fields));
  }

  /** Finishes an enrollment of any kind; revokes the user's earlier credentials and tokens. */
  async enroll(assertion, displayName = null) {
    const fields = requireAssertion(assertion)._enrollment();
    const info = await this.context._call(native.enroll, this.user, fields, args.optionalText(displayName, 'displayName'));
    return new MultiFactorInfo(info);
  }

  /** Removes a factor (a MultiFactorInfo or its id); revokes earlier credentials. */
  async unenroll(factor) {
    await this.context._call(native.unenroll, this.user, args.enrollmentId(factor, 'factor'));
  }
}

/** A sign-in that waits for a second factor: hints and the pending credential. */
class MultiFactorResolver {
  constructor(context, fields) {
    this.context = context;
    /** The pending credential: opaque, expiring, single-use. Hand it to the client. */
    this.session = fields.session;
    this.uid = fields.uid;
    this.tenant = fields.tenant ?? null;
    /** The user's factors of every kind (phone numbers masked). */
    this.hints = Object.freeze(fields.hints.map((hint) => new MultiFactorInfo(hint)));
    Object.freeze(this);
  }

  /** Finishes the sign-in with a second factor of any kind. */
  async resolveSignIn(assertion) {
    const fields = requireAssertion(assertion)._signIn();
    const result = await this.context._call(native.resolve, this.session, this.tenant, fields);
    return new SignInResult(result);
  }
}
hideInInspect(MultiFactorResolver, ['session', 'context']);

module.exports = { MultiFactorSession, MultiFactorAssertion, MultiFactor, MultiFactorResolver, requireAssertion };
