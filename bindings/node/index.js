'use strict';
/**
 * libmfa for Node.js: TOTP/HOTP one-time passwords, base32, otpauth:// key URIs, QR codes, and
 * the MFA engine (Firebase Authentication's multi-factor model with TOTP, SMS, recovery-code
 * and WebAuthn second factors: enrollment, sign-in with a resolver, token revocation, the
 * operator's calls), over libmfa's C ABI through a Node-API addon.
 *
 *     const mfa = require('libmfa');
 *     const ctx = await mfa.Context.open({ store: 'mfa.sqlite3', masterKey });
 *     await ctx.setConfig({ state: 'ENABLED', providers: { totp: 'ENABLED' } });
 *
 * Calls on a Context return promises and run off the event loop; the stateless calls
 * (TOTP, HOTP, base32, URIs, QR codes) are synchronous. Every libmfa failure is an MFAError
 * subclass with `code` (the status's name) and `status`; wrong JS types are TypeErrors.
 * See docs/bindings/node.md.
 */
const native = require('./lib/native');
const errors = require('./lib/errors');
const constants = require('./lib/constants');
const models = require('./lib/models');
const otp = require('./lib/otp');
const codecs = require('./lib/codecs');
const outbox = require('./lib/outbox');
const flow = require('./lib/flow');
const { Context } = require('./lib/context');
const totp = require('./lib/totp');
const phone = require('./lib/phone');
const recovery = require('./lib/recovery');
const webauthn = require('./lib/webauthn');
const admin = require('./lib/admin');

const { makeError, invalid, className, ERRORS, ...errorClasses } = errors;
const { hideInInspect, ...modelClasses } = models;
void makeError; void invalid; void className; void hideInInspect;

module.exports = {
  ...constants,
  ...errorClasses,
  ERRORS,
  ...modelClasses,
  ...otp,
  ...codecs,
  ...outbox,
  MultiFactorSession: flow.MultiFactorSession,
  MultiFactorAssertion: flow.MultiFactorAssertion,
  MultiFactor: flow.MultiFactor,
  MultiFactorResolver: flow.MultiFactorResolver,
  Context,
  ...totp,
  ...phone,
  ...recovery,
  WebAuthnMultiFactorAssertion: webauthn.WebAuthnMultiFactorAssertion,
  WebAuthnMultiFactorGenerator: webauthn.WebAuthnMultiFactorGenerator,
  webauthn: webauthn.webauthn,
  Admin: admin.Admin,
  ALL_TENANTS: admin.ALL_TENANTS,
  /** The loaded library's version, MAJOR * 10000 + MINOR * 100 + PATCH. */
  version: () => native.version(),
  /** The loaded library's version, "MAJOR.MINOR.PATCH". */
  versionString: () => native.versionString(),
  /** The path libmfa was loaded from. */
  libraryPath: () => native.libraryPath(),
  /** The stable name of a status code ("INVALID_SESSION"; "UNKNOWN"). */
  statusName: (status) => native.statusName(status),
  /** A short human message for a status code. */
  errstr: (status) => native.errstr(status),
};
