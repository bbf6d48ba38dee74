'use strict';
// The example sign-in server (examples/node/server.js) end to end, as a browser's scripts
// would use it: password, TOTP enrollment from the account, sign-in with the second factor,
// a wrong code, a recovery code, revocation of the credentials issued before an enrollment.
const { it } = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const readline = require('node:readline');
const { spawn } = require('node:child_process');
const { mfa, freshStore } = require('./support');

const SERVER = path.join(__dirname, '..', '..', '..', 'examples', 'node', 'server.js');

it('signs users in with a password and a second factor over HTTP', async () => {
  const server = spawn(process.execPath, [SERVER], {
    env: { ...process.env, PORT: '0', MFA_STORE: freshStore('sqlite') }, stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const first = await readline.createInterface({ input: server.stdout })[Symbol.asyncIterator]().next();
    const base = /listening on (http:\/\/\S+)/.exec(first.value)[1];
    const call = async (method, route, body, token) => {
      const response = await fetch(base + route, {
        method, body: body && JSON.stringify(body),
        headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      });
      return [response.status, await response.json()];
    };
    assert.deepEqual(await call('POST', '/login', { username: 'alice', password: 'wrong' }), [401, { error: 'WRONG_PASSWORD' }]);
    const [, login] = await call('POST', '/login', { username: 'alice', password: 'correct horse' });
    assert.ok(login.token);
    assert.equal((await call('GET', '/me', null, login.token))[1].uid, 'alice');
    // Enroll TOTP from the account.
    const [, start] = await call('POST', '/mfa/totp', {}, login.token);
    assert.match(start.otpauthUrl, /^otpauth:\/\/totp\/libmfa%20example:alice%40example\.com\?/);
    const app = new mfa.TOTP(mfa.base32Decode(start.secret));
    assert.deepEqual(await call('POST', '/mfa/totp/verify', { enrollment: start.enrollment, code: '000000' }, login.token),
      [401, { error: 'INVALID_VERIFICATION_CODE' }]);
    const [status, enrolled] = await call('POST', '/mfa/totp/verify', { enrollment: start.enrollment, code: app.now(), name: 'phone' }, login.token);
    assert.equal(status, 200);
    // The credential issued before the enrollment is revoked; the new one works.
    assert.deepEqual(await call('GET', '/me', null, login.token), [401, { error: 'USER_TOKEN_EXPIRED' }]);
    assert.equal((await call('GET', '/me', null, enrolled.token))[1].factors[0].hint, 'authenticator app');
    const [, recovery] = await call('POST', '/mfa/recovery', {}, enrolled.token);
    assert.equal(recovery.codes.length, 10);
    // Signing in now needs the second factor.
    const [, second] = await call('POST', '/login', { username: 'alice', password: 'correct horse' });
    assert.equal(second.mfaRequired, true);
    const totpHint = second.hints.find((h) => h.factorId === 'totp');
    assert.deepEqual(await call('POST', '/login/second', { pendingCredential: second.pendingCredential, enrollmentId: totpHint.enrollmentId, code: '000000' }),
      [401, { error: 'INVALID_VERIFICATION_CODE' }]);
    const recoveryHint = second.hints.find((h) => h.factorId === 'recovery');
    const [, done] = await call('POST', '/login/second', { pendingCredential: second.pendingCredential, enrollmentId: recoveryHint.enrollmentId, code: recovery.codes[0] });
    assert.equal(done.claims.sign_in_second_factor, 'recovery');
    assert.equal((await call('GET', '/me', null, done.token))[1].uid, 'alice');
    assert.deepEqual(await call('POST', '/login/second', { pendingCredential: second.pendingCredential, enrollmentId: totpHint.enrollmentId, code: app.now() }),
      [401, { error: 'INVALID_SESSION' }]);
    assert.deepEqual(await call('GET', '/nowhere'), [404, { error: 'NOT_FOUND' }]);
  } finally {
    server.kill('SIGTERM');
    await new Promise((resolve) => server.on('exit', resolve));
  }
});
