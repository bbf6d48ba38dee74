'use strict';
// One-time passwords without a store: random secrets, HOTP (RFC 4226) and TOTP (RFC 6238).
// Synchronous: each call is one libmfa call on the JS thread (no store, no callback).
const native = require('./native');
const args = require('./args');
const C = require('./constants');
const { hideInInspect } = require('./models');

/** A fresh random OTP secret (a Buffer) from libsodium's CSPRNG: 16 to 128 bytes, 20 by default. */
function randomSecret(length = C.SECRET_DEFAULT_BYTES) {
  return native.randomSecret(args.inRange(length, C.SECRET_MIN_BYTES, C.SECRET_MAX_BYTES, 'length'));
}

function nowSeconds() {
  return Math.floor(Date.now() / 1000);
}

/** Time-based one-time passwords (RFC 6238) for one secret. Immutable. */
class TOTP {
  /**
   * @param {Buffer|Uint8Array} secret the raw shared secret (1 to KEY_MAX_BYTES bytes)
   * @param {{digits?: number, period?: number, algorithm?: string|number, t0?: number}} [options]
   */
  constructor(secret, options) {
    const { digits = C.DIGITS_DEFAULT, period = C.PERIOD_DEFAULT, algorithm = 'SHA1', t0 = 0 } = args.options(options);
    const key = args.bytes(secret, 'secret');
    this.digits = args.inRange(digits, C.DIGITS_MIN, C.DIGITS_MAX, 'digits');
    this.period = args.inRange(period, 1, C.PERIOD_MAX, 'period');
    this.algorithm = args.algorithmName(args.algorithm(algorithm));
    this.t0 = Number(args.integer(t0, 't0'));
    Object.defineProperty(this, '_handle', { value: native.totpNew(key, args.algorithm(this.algorithm), this.digits, this.period, this.t0) });
    Object.defineProperty(this, '_secret', { value: Buffer.from(key) });
    Object.freeze(this);
  }

  /** A copy of the raw shared secret. */
  get secret() {
    return Buffer.from(this._secret);
  }

  /** The time step that holds `time`: floor((time - t0) / period). */
  timecode(time) {
    return Math.floor((Number(args.unixTime(time, 'time')) - this.t0) / this.period);
  }

  /** The code for the time step that holds `time` (Unix seconds or a Date). */
  at(time) {
    return native.totpGenerate(this._handle, args.unixTime(time, 'time'));
  }

  /** The code for now. */
  now() {
    return native.totpGenerate(this._handle, nowSeconds());
  }

  /**
   * Whether `code` is right at `at` (now by default), give or take `window` steps (0 to
   * WINDOW_MAX, 1 by default). A malformed code is false. Stateless: to make codes single-use,
   * use match() and refuse steps at or before the last accepted one.
   */
  verify(code, at, window = 1) {
    const when = at === undefined ? nowSeconds() : typeof at === 'number' && Number.isInteger(at) ? at : args.unixTime(at, 'at');
    return native.totpVerify(this._handle, code, when, window);
  }

  /** Like verify(), but the time step that matched, or null. */
  match(code, at, window = 1) {
    const when = at === undefined ? nowSeconds() : args.unixTime(at, 'at');
    return native.totpMatch(this._handle, code, when, window);
  }

  /** The otpauth://totp/ URI of this secret (what a QR code holds); issuer and account percent-encoded. */
  provisioningUri(account, issuer) {
    if (this.t0 !== 0) throw require('./errors').invalid(`a key URI cannot carry t0 = ${this.t0}`);
    return native.keyUriBuild({
      type: C.OTP_TOTP, issuer: args.optionalText(issuer, 'issuer'), account: args.text(account, 'account'),
      secret: this._secret, algorithm: args.algorithm(this.algorithm), digits: this.digits, period: this.period, counter: 0,
    });
  }
}
hideInInspect(TOTP, []);

/** Counter-based one-time passwords (RFC 4226) for one secret. Immutable. */
class HOTP {
  /**
   * @param {Buffer|Uint8Array} secret the raw shared secret
   * @param {{digits?: number, algorithm?: string|number}} [options]
   */
  constructor(secret, options) {
    const { digits = C.DIGITS_DEFAULT, algorithm = 'SHA1' } = args.options(options);
    const key = args.bytes(secret, 'secret');
    this.digits = args.inRange(digits, C.DIGITS_MIN, C.DIGITS_MAX, 'digits');
    this.algorithm = args.algorithmName(args.algorithm(algorithm));
    Object.defineProperty(this, '_handle', { value: native.hotpNew(key, this.digits, args.algorithm(this.algorithm)) });
    Object.defineProperty(this, '_secret', { value: Buffer.from(key) });
    Object.freeze(this);
  }

  /** A copy of the raw shared secret. */
  get secret() {
    return Buffer.from(this._secret);
  }

  /** The code for `counter` (a number or a bigint, 0 to 2**64 - 1). */
  at(counter) {
    return native.hotpGenerate(this._handle, args.integer(counter, 'counter'));
  }

  /** Whether `code` is right for `counter` or up to `lookAhead` counters after it. */
  verify(code, counter, lookAhead = 0) {
    return this.match(code, counter, lookAhead) !== null;
  }

  /** The counter that matched (the next expected one is that plus one), or null. */
  match(code, counter, lookAhead = 0) {
    return native.hotpMatch(this._handle, code, args.integer(counter, 'counter'), lookAhead);
  }
}
hideInInspect(HOTP, []);

module.exports = { randomSecret, TOTP, HOTP };
