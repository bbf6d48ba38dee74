'use strict';
// The MFA engine on one store: Context (mfa_ctx). Every call on it returns a promise and runs
// on one of the addon's worker threads; a context is safe to use from many async tasks at once.
const native = require('./native');
const args = require('./args');
const C = require('./constants');
const { invalid, SecondFactorRequired, makeError } = require('./errors');
const { AuditEvent, SignInResult, MultiFactorInfo } = require('./models');
const { contextCallbacks } = require('./callbacks');
const { MultiFactor, MultiFactorResolver } = require('./flow');

const OPEN = Symbol('open');

function masterKey(id, key, what) {
  args.text(id, `${what} id`);
  const bytes = args.bytes(key, what);
  if (bytes.length !== C.MASTER_KEY_BYTES) throw invalid(`${what} must be ${C.MASTER_KEY_BYTES} bytes, got ${bytes.length}`);
  return { id, key: bytes };
}

function previousKeys(value) {
  if (value === undefined || value === null) return [];
  let pairs;
  if (value instanceof Map) pairs = [...value.entries()];
  else if (Array.isArray(value)) pairs = value.map((item) => (Array.isArray(item) ? item : [item && item.id, item && item.key]));
  else if (typeof value === 'object') pairs = Object.entries(value);
  else throw args.typeError('previousKeys must be {id: key}, a Map or an array of [id, key]');
  return pairs.map(([id, key]) => masterKey(id, key, 'previous key'));
}

function configText(config) {
  if (typeof config === 'string') return config;
  if (config && typeof config === 'object') return JSON.stringify(config);
  throw args.typeError('config must be an object or JSON text');
}

function attestation(fields) {
  return Object.freeze({ ...fields, tenant: fields.tenant || null, certificates: Object.freeze(fields.certificates) });
}

/** The MFA engine on one store. Open one with `await Context.open({...})`. */
class Context {
  constructor(token, handle, options) {
    if (token !== OPEN) throw new TypeError('use `await Context.open(options)`');
    this._handle = handle;
    this._closed = false;
    this._clock = options.clock || null;
    this.store = options.store;
  }

  /**
   * Opens the engine on a store (created and migrated as needed).
   *
   * @param {object} options
   * @param {string} [options.store] an SQLite file, ":memory:" (the default), or a postgres:// URL
   * @param {Buffer|Uint8Array} options.masterKey the 32-byte key new secrets and tokens are sealed with
   * @param {string} [options.keyId] its id (1 to 64 printable ASCII characters; "k1")
   * @param {object|Map|Array} [options.previousKeys] earlier keys: {id: key}, a Map or [[id, key]]
   * @param {Function} [options.clock] () => Unix seconds (number, bigint or Date); the system clock by default
   * @param {Function} [options.random] (n) => n random bytes (Buffer); libsodium's by default
   * @param {Function} [options.audit] (AuditEvent) => void, after the change it reports is stored
   * @param {Function} [options.smsSender] (phoneNumber, message) => void or a promise; throwing fails the send
   * @param {string} [options.smsOutbox] instead of smsSender, a file to append each SMS to (development)
   * @param {Function} [options.appVerifier] (credential, action: "enrollment"|"signIn") => true to accept
   * @param {Function} [options.webauthnTrust] (attestation) => true to trust it
   * @param {Function} [options.onCallbackError] (error, callbackName) => void; a process warning by default
   * @param {number} [options.callbackTimeoutMs] how long a call waits for a callback's answer (30000)
   * @param {number} [options.threads] worker threads the environment runs at least (4; 1 to 64)
   * @returns {Promise<Context>}
   */
  static async open(options) {
    const o = args.options(options);
    const store = o.store === undefined ? ':memory:' : args.text(o.store, 'store');
    if (o.masterKey === undefined || o.masterKey === null) throw args.typeError(`masterKey is required (${C.MASTER_KEY_BYTES} bytes)`);
    for (const name of ['clock', 'random', 'audit', 'smsSender', 'appVerifier', 'webauthnTrust', 'onCallbackError']) {
      args.optionalFunction(o[name], name);
    }
    const outbox = args.optionalText(o.smsOutbox, 'smsOutbox');
    if (outbox !== null && o.smsSender) throw invalid('give smsSender or smsOutbox, not both');
    if (outbox === '') throw invalid('smsOutbox must not be empty');
    const callbacks = contextCallbacks(o, (event) => new AuditEvent(event), attestation);
    const handle = await native.open({
      store,
      masterKey: masterKey(o.keyId === undefined ? 'k1' : o.keyId, o.masterKey, 'masterKey'),
      previousKeys: previousKeys(o.previousKeys),
      smsOutbox: outbox,
      callbackTimeoutMs: o.callbackTimeoutMs,
      threads: o.threads,
      ...callbacks,
    });
    return new Context(OPEN, handle, { clock: o.clock, store });
  }

  /** Runs an addon call on this context's handle. */
  _call(fn, ...rest) {
    return fn(this._handle, ...rest);
  }

  /** Whether close() was called. */
  get closed() {
    return this._closed;
  }

  /** Closes the context and its store, after the calls in flight; later calls reject (INVALID_ARGUMENT). */
  async close() {
    this._closed = true;
    await native.close(this._handle);
  }

  async [Symbol.asyncDispose || Symbol.for('nodejs.asyncDispose')]() {
    await this.close();
  }

  /** The context's clock, read from JS. */
  _now() {
    if (this._clock) {
      try {
        const value = this._clock();
        if (typeof value === 'number' && Number.isFinite(value)) return Math.floor(value);
        if (typeof value === 'bigint') return Number(value);
        if (value instanceof Date) return Math.floor(value.getTime() / 1000);
      } catch {
        // the system clock, as the callback's own fallback
      }
    }
    return Math.floor(Date.now() / 1000);
  }

  // --- configuration ------------------------------------------------------------------

  /**
   * Stores the configuration of the project (tenant null) or a tenant, replacing it: an
   * object or JSON text in libmfa's format, or the guides' shapes (multiFactorConfig, mfa).
   */
  async setConfig(config, tenant = null) {
    await native.configSet(this._handle, args.optionalText(tenant, 'tenant'), configText(config));
  }

  /** Changes only the fields `config` names (objects merge; testPhoneNumbers is replaced whole). */
  async updateConfig(config, tenant = null) {
    await native.configUpdate(this._handle, args.optionalText(tenant, 'tenant'), configText(config));
  }

  /** The effective configuration, every field written out. */
  async config(tenant = null) {
    return JSON.parse(await native.configGet(this._handle, args.optionalText(tenant, 'tenant')));
  }

  /**
   * The context's metrics (sign-ins, enrollments, code sends, backoffs, store latency,
   * counted since it opened) in Prometheus' text exposition format, version 0.0.4: what a
   * /metrics endpoint serves, as "text/plain; version=0.0.4; charset=utf-8". Empty when the
   * context keeps no metrics.
   */
  async metricsText() {
    return native.metricsText(this._handle);
  }

  // --- users and sign-in ----------------------------------------------------------------

  /** The second factors of `user` ({uid, tenant, email, emailVerified, provider, authTime}). */
  multiFactor(user) {
    return new MultiFactor(this, user);
  }

  /**
   * Reports a successful first factor. Resolves with a SignInResult (no factor) when no second
   * factor is needed; rejects with SecondFactorRequired, whose `resolver` finishes the sign-in.
   */
  async signIn(user) {
    const u = args.user(user);
    const answer = await native.signIn(this._handle, u);
    if (answer === null) {
      return new SignInResult({ uid: u.uid, tenant: u.tenant, factorId: null, enrollmentId: null, time: this._now() });
    }
    const error = makeError(C.Status.SECOND_FACTOR_REQUIRED, 'SECOND_FACTOR_REQUIRED', answer.message);
    error.resolver = new MultiFactorResolver(this, answer.resolver);
    throw error;
  }

  /** Rebuilds a resolver from the pending credential a client sent back. */
  async resolver(pendingCredential, tenant = null) {
    const fields = await native.resolverLoad(this._handle, args.text(pendingCredential, 'pendingCredential'),
      args.optionalText(tenant, 'tenant'));
    return new MultiFactorResolver(this, fields);
  }

  // --- tokens -------------------------------------------------------------------------

  /** Rejects with UserTokenExpiredError if a credential issued at `issuedAt` predates a revocation. */
  async checkToken(uid, issuedAt, tenant = null) {
    await native.tokenCheck(this._handle, args.text(uid, 'uid'), args.unixTime(issuedAt, 'issuedAt'),
      args.optionalText(tenant, 'tenant'));
  }

  /** The same, for an issue time in Unix milliseconds (or a Date). */
  async checkTokenMs(uid, issuedAtMs, tenant = null) {
    await native.tokenCheckMs(this._handle, args.text(uid, 'uid'), args.unixTimeMs(issuedAtMs, 'issuedAtMs'),
      args.optionalText(tenant, 'tenant'));
  }

  /** Revokes every credential and libmfa token issued to the user so far (audited). */
  async revokeTokens(uid, tenant = null) {
    await native.revokeTokens(this._handle, args.text(uid, 'uid'), args.optionalText(tenant, 'tenant'));
  }

  /** Step-up: whether the user passed a second factor in the last `withinSeconds` seconds. */
  passedSecondFactor(uid, withinSeconds, tenant = null) {
    return native.stepUpCheck(this._handle, args.text(uid, 'uid'), args.integer(withinSeconds, 'withinSeconds'),
      args.optionalText(tenant, 'tenant'));
  }

  // --- administration and maintenance -------------------------------------------------

  /** The operator's calls, made by `actor` (recorded in their audit events). */
  admin(actor) {
    const { Admin } = require('./admin');
    return new Admin(this, actor);
  }

  /** Imports a TOTP factor the user has elsewhere, without a code (raw secret bytes or a TOTP). */
  async importTotp(user, secret, displayName = null) {
    const { TOTP } = require('./otp');
    let params = null;
    let raw = secret;
    if (secret instanceof TOTP) {
      params = { algorithm: args.algorithm(secret.algorithm), digits: secret.digits, period: secret.period, t0: secret.t0 };
      raw = secret.secret;
    }
    const info = await native.totpImport(this._handle, args.user(user), args.bytes(raw, 'secret'), params,
      args.optionalText(displayName, 'displayName'));
    return new MultiFactorInfo(info);
  }

  /** Imports a TOTP factor from an otpauth://totp/ URI. */
  async importUri(user, uri, displayName = null) {
    const info = await native.totpImportUri(this._handle, args.user(user), args.text(uri, 'uri'),
      args.optionalText(displayName, 'displayName'));
    return new MultiFactorInfo(info);
  }

  /** Re-encrypts every stored secret not under the current key; resolves with the count. */
  rotateKeys() {
    return native.rotateKeys(this._handle);
  }

  /** Deletes pending secrets past their deadline and expired used-token records. */
  async purgeExpired() {
    await native.purgeExpired(this._handle);
  }
}

module.exports = { Context, SecondFactorRequired };
