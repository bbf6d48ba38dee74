'use strict';
// Every bad input to the context's calls, each with the error it is named for: TypeError for a
// value of the wrong JS type, the libmfa error (its code) for a value libmfa refuses.
const { describe, it, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { mfa, openKit, KEY } = require('./support');

const code = (name) => (error) => error instanceof mfa.MFAError && error.code === name;

describe('opening a context', () => {
  it('names each bad option', async () => {
    const cases = [
      [{ masterKey: Buffer.alloc(31) }, 'INVALID_ARGUMENT'],
      [{ masterKey: KEY, keyId: '' }, 'INVALID_ARGUMENT'],
      [{ masterKey: KEY, keyId: 'k\u00001' }, 'INVALID_ARGUMENT'],
      [{ masterKey: KEY, previousKeys: { k1: KEY } }, 'INVALID_ARGUMENT'], // duplicate key id
      [{ masterKey: KEY, previousKeys: { k0: Buffer.alloc(8) } }, 'INVALID_ARGUMENT'],
      [{ masterKey: KEY, store: 'mysql://db/mfa' }, 'INVALID_ARGUMENT'],
      [{ masterKey: KEY, store: 'host=db1 dbname=mfa' }, 'INVALID_ARGUMENT'],
      [{ masterKey: KEY, store: 'postgres://127.0.0.1:1/x?mfa_deadline_ms=5' }, 'INVALID_ARGUMENT'],
      [{ masterKey: KEY, store: '/nonexistent-dir/x/y.sqlite3' }, 'STORAGE_ERROR'],
      [{ masterKey: KEY, smsOutbox: '/tmp/x', smsSender: () => {} }, 'INVALID_ARGUMENT'],
      [{ masterKey: KEY, smsOutbox: '' }, 'INVALID_ARGUMENT'],
      [{ masterKey: KEY, callbackTimeoutMs: 0 }, 'INVALID_ARGUMENT'],
      [{ masterKey: KEY, threads: 65 }, 'INVALID_ARGUMENT'],
    ];
    for (const [options, name] of cases) {
      await assert.rejects(mfa.Context.open(options), code(name), JSON.stringify(options, (k, v) => (v && v.type === 'Buffer' ? `<${v.data.length} bytes>` : v)));
    }
    for (const options of [undefined, {}, { masterKey: 'x'.repeat(32) }, { masterKey: KEY, clock: 5 },
      { masterKey: KEY, store: 42 }, { masterKey: KEY, previousKeys: 'k1' }]) {
      await assert.rejects(mfa.Context.open(options), TypeError);
    }
    assert.throws(() => new mfa.Context(), TypeError);
  });
});

describe('calls on a context', () => {
  let kit;
  before(async () => {
    kit = await openKit(':memory:');
  });
  after(async () => {
    await kit.ctx.close();
  });

  it('names each bad user', async () => {
    const session = (user) => kit.ctx.multiFactor(user).session();
    await assert.rejects(session(kit.user('')), code('INVALID_ARGUMENT'));
    await assert.rejects(session(kit.user('x'.repeat(129))), code('INVALID_ARGUMENT'));
    await assert.rejects(session(kit.user('a\u0000b')), code('INVALID_ARGUMENT'));
    await assert.rejects(session(kit.user('ok', { tenant: '' })), code('INVALID_ARGUMENT'));
    await assert.rejects(session(kit.user('ok', { provider: 'anonymous' })), code('UNSUPPORTED_FIRST_FACTOR'));
    await assert.rejects(session(kit.user('ok', { email: null })), code('UNVERIFIED_EMAIL'));
    assert.throws(() => kit.ctx.multiFactor({ uid: 'x' }), TypeError);
    assert.throws(() => kit.ctx.multiFactor({ uid: 7, authTime: 1 }), TypeError);
    assert.throws(() => kit.ctx.multiFactor({ uid: 'x', authTime: 1, emailVerified: 'yes' }), TypeError);
    assert.throws(() => kit.ctx.multiFactor(null), TypeError);
  });

  it('names each bad configuration', async () => {
    for (const config of ['{', '{"state": "SOMETIMES"}', { totp: { adjacentIntervals: 11 } }, { bogus: 1 },
      { testPhoneNumbers: { '+15555550100': '12345' } }]) {
      await assert.rejects(kit.ctx.updateConfig(config), code('INVALID_ARGUMENT'), JSON.stringify(config));
    }
    assert.equal((await kit.ctx.config()).state, 'ENABLED'); // nothing was changed
    await assert.rejects(kit.ctx.setConfig(42), TypeError);
  });

  it('names each bad token, session and id', async () => {
    const user = kit.user('tokens');
    const [info] = await kit.enrollTotp(user);
    const resolver = await kit.resolver(user);
    const flipped = resolver.session.slice(0, -3) + (resolver.session.at(-3) === 'A' ? 'B' : 'A') + resolver.session.slice(-2);
    await assert.rejects(kit.ctx.resolver(flipped), code('INVALID_SESSION'));
    await assert.rejects(kit.ctx.resolver('garbage'), code('INVALID_SESSION'));
    await assert.rejects(kit.ctx.resolver(resolver.session, 'other-tenant'), code('TENANT_MISMATCH'));
    const forged = new mfa.MultiFactorSession('not-a-session', kit.ctx);
    await assert.rejects(mfa.TOTPMultiFactorGenerator.generateSecret(forged), code('INVALID_SESSION'));
    await assert.rejects(resolver.resolveSignIn(mfa.TOTPMultiFactorGenerator.assertionForSignIn('no-such-factor', '123456')),
      code('MFA_ENROLLMENT_NOT_FOUND'));
    await assert.rejects(kit.ctx.multiFactor(user).unenroll('no-such-factor'), code('MFA_ENROLLMENT_NOT_FOUND'));
    await assert.rejects(kit.ctx.passedSecondFactor('tokens', -1), code('INVALID_ARGUMENT'));
    await assert.rejects(kit.ctx.checkToken('', 1), code('INVALID_ARGUMENT'));
    // An assertion used for what it cannot do.
    const signInAssertion = mfa.TOTPMultiFactorGenerator.assertionForSignIn(info, '123456');
    await assert.rejects(kit.ctx.multiFactor(user).enroll(signInAssertion), code('INVALID_ARGUMENT'));
    await assert.rejects(kit.ctx.multiFactor(user).enroll({ kind: 1, code: '123456' }), TypeError);
    const unknownKind = new mfa.MultiFactorAssertion(99, 'future', { code: '123456' });
    await assert.rejects(resolver.resolveSignIn(unknownKind), code('INVALID_ARGUMENT'));
    assert.throws(() => mfa.TOTPMultiFactorGenerator.assertionForSignIn(info, 123456), TypeError);
    assert.throws(() => mfa.PhoneMultiFactorGenerator.assertion({ verificationId: 'x', verificationCode: '1' }), TypeError);
  });

  it('names each bad phone request', async () => {
    const provider = new mfa.PhoneAuthProvider(kit.ctx);
    const session = await kit.ctx.multiFactor(kit.user('phones')).session();
    for (const number of ['5105551234', '+1 510 555 1234', '+1-510-555-1234', '+0123456789', '+1', '+1234567890123456']) {
      await assert.rejects(provider.verifyPhoneNumber({ phoneNumber: number, session }), code('INVALID_PHONE_NUMBER'), number);
    }
    await assert.rejects(async () => provider.verifyPhoneNumber({ phoneNumber: '+15105551234' }), TypeError);
    await assert.rejects(provider.verifyPhoneNumber({ phoneNumber: '+15105551234', session: 'forged' }), code('INVALID_SESSION'));
  });

  it('names each bad administrative value', async () => {
    assert.throws(() => kit.ctx.admin(''), code('INVALID_ARGUMENT'));
    assert.throws(() => kit.ctx.admin('x'.repeat(257)), code('INVALID_ARGUMENT'));
    assert.throws(() => kit.ctx.admin(null), TypeError);
    const admin = kit.ctx.admin('ops');
    await assert.rejects(admin.listUsers({ limit: 0 }), code('INVALID_ARGUMENT'));
    await assert.rejects(admin.listUsers({ limit: 1001 }), code('INVALID_ARGUMENT'));
    await assert.rejects(admin.listUsers({ factorId: 'bogus' }), code('INVALID_ARGUMENT'));
    await assert.rejects(admin.listUsers({ cursor: 'junk' }), code('INVALID_ARGUMENT'));
    await assert.rejects(admin.factor('no-such-factor'), code('MFA_ENROLLMENT_NOT_FOUND'));
    await assert.rejects(admin.rename('no-such-factor', 'x'), code('MFA_ENROLLMENT_NOT_FOUND'));
    await assert.rejects(admin.importFactors('x', 'xml'), code('INVALID_ARGUMENT'));
    await assert.rejects(admin.importFactors('x', 99), code('INVALID_ARGUMENT'));
    await assert.rejects(admin.importFactors('x', 'csv', { batchSize: 0 }), code('INVALID_ARGUMENT'));
    await assert.rejects(admin.importFactors(Buffer.from([0xff, 0xfe]), 'csv'), code('INVALID_ARGUMENT'));
    await assert.rejects(admin.rotateKeys({ batchSize: 0 }), code('INVALID_ARGUMENT'));
    await assert.rejects(admin.checkSeals({ batchSize: 10001 }), code('INVALID_ARGUMENT'));
    await assert.rejects(admin.deleteUser('never-seen'), code('MFA_ENROLLMENT_NOT_FOUND'));
    await assert.rejects(admin.importFactors(42, 'csv'), TypeError);
  });

  it('names each bad import of one secret', async () => {
    const user = kit.user('imports');
    await assert.rejects(kit.ctx.importTotp(user, Buffer.alloc(9)), code('INVALID_ARGUMENT'));
    await assert.rejects(kit.ctx.importTotp(user, new mfa.TOTP(Buffer.alloc(20, 1), { t0: 30 })), code('INVALID_ARGUMENT'));
    await assert.rejects(kit.ctx.importUri(user, 'otpauth://hotp/x?secret=JBSWY3DPEHPK3PXP&counter=0'), code('INVALID_ARGUMENT'));
    await assert.rejects(kit.ctx.importUri(user, 'https://example.com'), code('INVALID_URI'));
    await assert.rejects(kit.ctx.importTotp(user, 'JBSWY3DPEHPK3PXP'), TypeError);
    const info = await kit.ctx.importTotp(user, new mfa.TOTP(Buffer.alloc(20, 1), { digits: 8, algorithm: 'SHA256' }), 'old app');
    assert.equal(info.displayName, 'old app');
    const uri = await kit.ctx.importUri(user, 'otpauth://totp/ACME:imports?secret=JBSWY3DPEHPK3PXP&issuer=ACME');
    assert.equal(uri.factorId, 'totp');
  });
});
