'use strict';
// Base32 (RFC 4648), otpauth:// key URIs and QR codes, synchronous.
const native = require('./native');
const args = require('./args');
const C = require('./constants');
const { invalid } = require('./errors');
const { hideInInspect } = require('./models');

/** `data` as RFC 4648 base32 (upper case), with '=' padding unless `{padding: false}`. */
function base32Encode(data, options) {
  const { padding = true } = args.options(options);
  return native.base32Encode(args.bytes(data, 'data'), !padding);
}

/** Base32 text (either case, padding optional) as a Buffer; InvalidBase32Error otherwise. */
function base32Decode(text) {
  return native.base32Decode(args.text(text, 'text'));
}

const KINDS = { totp: C.OTP_TOTP, hotp: C.OTP_HOTP };

/** An otpauth:// key URI as fields. */
class KeyURI {
  /**
   * @param {{kind?: 'totp'|'hotp', issuer?: string|null, account: string, secret: Buffer|Uint8Array,
   *          algorithm?: string|number, digits?: number, period?: number, counter?: number|bigint}} fields
   */
  constructor(fields) {
    const f = args.options(fields, 'fields');
    const kind = String(f.kind ?? 'totp').toLowerCase();
    if (!(kind in KINDS)) throw invalid(`kind must be "totp" or "hotp", got ${JSON.stringify(f.kind)}`);
    this.kind = kind;
    this.issuer = args.optionalText(f.issuer, 'issuer');
    this.account = args.text(f.account, 'account');
    this.secret = Buffer.from(args.bytes(f.secret, 'secret'));
    this.algorithm = args.algorithmName(args.algorithm(f.algorithm ?? 'SHA1'));
    this.digits = f.digits ?? C.DIGITS_DEFAULT;
    this.period = f.period ?? C.PERIOD_DEFAULT;
    this.counter = f.counter ?? 0;
  }

  /** The URI (issuer and account percent-encoded, the secret as unpadded base32). */
  toUri() {
    return native.keyUriBuild({
      type: KINDS[this.kind], issuer: this.issuer, account: this.account, secret: this.secret,
      algorithm: args.algorithm(this.algorithm), digits: this.digits, period: this.period, counter: this.counter,
    });
  }

  /** A TOTP or HOTP object for the URI's secret and parameters. */
  toOtp() {
    const { TOTP, HOTP } = require('./otp');
    if (this.kind === 'hotp') return new HOTP(this.secret, { digits: this.digits, algorithm: this.algorithm });
    return new TOTP(this.secret, { digits: this.digits, period: this.period, algorithm: this.algorithm });
  }
}
hideInInspect(KeyURI, ['secret']);

/** Parses an otpauth:// key URI; InvalidURIError (its message never holds the secret) otherwise. */
function parseUri(text) {
  const f = native.keyUriParse(args.text(text, 'uri'));
  return new KeyURI({ ...f, kind: f.type === C.OTP_HOTP ? 'hotp' : 'totp' });
}

/** Builds an otpauth:// key URI from fields (see KeyURI). */
function buildUri(fields) {
  return new KeyURI(fields).toUri();
}

const QR_FORMATS = { png: C.QR_PNG, svg: C.QR_SVG, text: C.QR_TEXT };

/**
 * `text` (a key URI) as a QR code: a PNG Buffer for "png", a string for "svg" and "text" (UTF-8
 * half blocks for a terminal). It holds what `text` holds: for a key URI, the secret.
 */
function qrCode(text, format = 'png') {
  const number = QR_FORMATS[String(args.text(format, 'format')).toLowerCase()];
  if (!number) throw invalid(`format must be "png", "svg" or "text", got ${JSON.stringify(format)}`);
  const data = native.qrEncode(args.text(text, 'text'), number);
  return number === C.QR_PNG ? data : data.toString('utf8');
}

module.exports = { base32Encode, base32Decode, KeyURI, parseUri, buildUri, qrCode };
