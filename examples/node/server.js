#!/usr/bin/env node
// A small sign-in server on node:http with libmfa's Node.js binding: a password first factor,
// then TOTP or a recovery code as the second factor through libmfa's resolver; enrollment from
// the account; credentials checked against libmfa's revocations on every request.
//
//   node examples/node/server.js             # http://127.0.0.1:8080, users alice and bob
//
// Environment: PORT (8080; 0 picks a free one), MFA_STORE (an SQLite file or a postgres://
// URL; a file in a temporary folder by default), MFA_MASTER_KEY (64 hex digits; a random key
// by default, so that a restart forgets the factors of a temporary store). JSON in, JSON out:
//
//   POST /login            {username, password} -> {token} | {mfaRequired, pendingCredential, hints}
//   POST /login/second     {pendingCredential, enrollmentId, code} -> {token}   (TOTP or recovery code)
//   GET  /me               Authorization: Bearer <token> -> {uid, factors}
//   POST /mfa/totp         (signed in) -> {enrollment, secret, otpauthUrl}
//   POST /mfa/totp/verify  {enrollment, code, name} -> {factor, token}
//   POST /mfa/recovery     (signed in) -> {codes}
//   POST /mfa/unenroll     {enrollmentId} -> {token}
//
// A libmfa error answers 400 (401 for a wrong code or credential) with {error: <its code>}.
'use strict';
const http = require('node:http');
const crypto = require('node:crypto');
const os = require('node:os');
const path = require('node:path');
const fs = require('node:fs');
const mfa = require('../../bindings/node');

const ISSUER = 'libmfa example';
const TOKEN_KEY = crypto.randomBytes(32);
const UNAUTHORIZED = new Set(['INVALID_VERIFICATION_CODE', 'INVALID_SESSION', 'USER_TOKEN_EXPIRED', 'CODE_EXPIRED']);

// The first factor: users with scrypt password hashes (a real server has its own store).
const users = new Map();
function addUser(uid, password) {
  const salt = crypto.randomBytes(16);
  users.set(uid, { salt, hash: crypto.scryptSync(password, salt, 32) });
}
addUser('alice', 'correct horse');
addUser('bob', 'battery staple');

function checkPassword(uid, password) {
  const record = users.get(uid);
  return Boolean(record && typeof password === 'string' &&
    crypto.timingSafeEqual(record.hash, crypto.scryptSync(password, record.salt, 32)));
}

// Credentials: "<uid>.<issued ms>.<auth time>.<second factor>.<mac>", checked with libmfa's
// revocations. A credential issued in the millisecond of a revocation counts as revoked: after
// a call that revokes (enroll, unenroll, new recovery codes), reissue() waits for the next one.
function issue(uid, authTime, factor = '') {
  const body = `${uid}.${Date.now()}.${authTime}.${factor}`;
  return `${body}.${crypto.createHmac('sha256', TOKEN_KEY).update(body).digest('base64url')}`;
}

async function reissue(uid, authTime, factor = '') {
  const now = Date.now();
  while (Date.now() === now) await new Promise((resolve) => setImmediate(resolve));
  return issue(uid, authTime, factor);
}

async function authenticate(ctx, request) {
  const token = (request.headers.authorization || '').replace(/^Bearer /, '');
  const parts = token.split('.');
  if (parts.length !== 5) throw Object.assign(new Error('sign in first'), { status: 401 });
  const body = parts.slice(0, 4).join('.');
  const mac = crypto.createHmac('sha256', TOKEN_KEY).update(body).digest();
  const given = Buffer.from(parts[4], 'base64url');
  if (given.length !== mac.length || !crypto.timingSafeEqual(given, mac)) {
    throw Object.assign(new Error('bad token'), { status: 401 });
  }
  const [uid, issuedMs, authTime] = parts;
  await ctx.checkTokenMs(uid, Number(issuedMs)); // USER_TOKEN_EXPIRED after enroll, unenroll, revoke
  return { uid, email: `${uid}@example.com`, emailVerified: true, authTime: Number(authTime) };
}

function hints(resolver) {
  return resolver.hints.map((h) => ({ enrollmentId: h.uid, factorId: h.factorId, hint: h.hint, displayName: h.displayName }));
}

const routes = {
  async 'POST /login'(ctx, body) {
    if (!checkPassword(body.username, body.password)) return [401, { error: 'WRONG_PASSWORD' }];
    const user = { uid: body.username, email: `${body.username}@example.com`, emailVerified: true, authTime: Math.floor(Date.now() / 1000) };
    try {
      await ctx.signIn(user);
      return [200, { token: issue(user.uid, user.authTime) }];
    } catch (error) {
      if (!(error instanceof mfa.SecondFactorRequired)) throw error;
      return [200, { mfaRequired: true, pendingCredential: error.resolver.session, hints: hints(error.resolver) }];
    }
  },

  async 'POST /login/second'(ctx, body) {
    const resolver = await ctx.resolver(String(body.pendingCredential));
    const hint = resolver.hints.find((h) => h.uid === body.enrollmentId);
    if (!hint) return [400, { error: 'MFA_ENROLLMENT_NOT_FOUND' }];
    const assertion = hint.kind === mfa.FACTOR_RECOVERY_CODES
      ? mfa.RecoveryCodesMultiFactorGenerator.assertionForSignIn(String(body.code), hint)
      : mfa.TOTPMultiFactorGenerator.assertionForSignIn(hint, String(body.code));
    const result = await resolver.resolveSignIn(assertion);
    return [200, { token: issue(result.uid, Math.floor(Date.now() / 1000), result.factorId), claims: result.claims }];
  },

  async 'GET /me'(ctx, body, request) {
    const user = await authenticate(ctx, request);
    const factors = await ctx.multiFactor(user).enrolledFactors();
    return [200, { uid: user.uid, factors: factors.map((f) => ({ enrollmentId: f.uid, factorId: f.factorId, hint: f.hint })) }];
  },

  async 'POST /mfa/totp'(ctx, body, request) {
    const user = await authenticate(ctx, request);
    const secret = await mfa.TOTPMultiFactorGenerator.generateSecret(await ctx.multiFactor(user).session());
    return [200, { enrollment: secret.sessionInfo, secret: secret.sharedSecretKey, otpauthUrl: secret.generateQrCodeUrl(`${user.uid}@example.com`, ISSUER) }];
  },

  async 'POST /mfa/totp/verify'(ctx, body, request) {
    const user = await authenticate(ctx, request);
    const assertion = mfa.TOTPMultiFactorGenerator.assertionForEnrollment(String(body.enrollment), String(body.code));
    const factor = await ctx.multiFactor(user).enroll(assertion, body.name ? String(body.name) : null);
    // Enrolling revoked the user's earlier credentials: hand out a new one.
    return [200, { factor: { enrollmentId: factor.uid, hint: factor.hint }, token: await reissue(user.uid, user.authTime, 'totp') }];
  },

  async 'POST /mfa/recovery'(ctx, body, request) {
    const user = await authenticate(ctx, request);
    const set = await mfa.RecoveryCodesMultiFactorGenerator.generateCodes(await ctx.multiFactor(user).session());
    return [200, { codes: set.codes, token: await reissue(user.uid, user.authTime) }];
  },

  async 'POST /mfa/unenroll'(ctx, body, request) {
    const user = await authenticate(ctx, request);
    await ctx.multiFactor(user).unenroll(String(body.enrollmentId));
    return [200, { token: await reissue(user.uid, user.authTime) }];
  },
};

async function readJson(request) {
  let text = '';
  for await (const chunk of request) {
    text += chunk;
    if (text.length > 65536) throw Object.assign(new Error('request too large'), { status: 413 });
  }
  return text ? JSON.parse(text) : {};
}

function serve(ctx) {
  return http.createServer(async (request, response) => {
    let status = 500;
    let answer = { error: 'INTERNAL' };
    try {
      const route = routes[`${request.method} ${new URL(request.url, 'http://x').pathname}`];
      if (!route) [status, answer] = [404, { error: 'NOT_FOUND' }];
      else [status, answer] = await route(ctx, await readJson(request), request);
    } catch (error) {
      if (error instanceof mfa.MFAError) [status, answer] = [UNAUTHORIZED.has(error.code) ? 401 : 400, { error: error.code }];
      else if (error instanceof SyntaxError) [status, answer] = [400, { error: 'BAD_JSON' }];
      else if (error.status) [status, answer] = [error.status, { error: error.message }];
      else console.error(error);
    }
    response.writeHead(status, { 'content-type': 'application/json' });
    response.end(JSON.stringify(answer));
  });
}

async function main() {
  const store = process.env.MFA_STORE || path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'mfa-example-')), 'mfa.sqlite3');
  const masterKey = process.env.MFA_MASTER_KEY ? Buffer.from(process.env.MFA_MASTER_KEY, 'hex') : crypto.randomBytes(32);
  const ctx = await mfa.Context.open({ store, masterKey });
  await ctx.setConfig({ state: 'ENABLED', providers: { totp: 'ENABLED', recovery: 'ENABLED' } });
  const server = serve(ctx);
  server.listen(Number(process.env.PORT ?? 8080), '127.0.0.1', () => {
    console.log(`listening on http://127.0.0.1:${server.address().port}`);
  });
  const stop = () => server.close(() => ctx.close().then(() => process.exit(0)));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
