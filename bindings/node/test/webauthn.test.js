'use strict';
// WebAuthn through the binding, with a software authenticator (authenticator.js): libmfa's
// ceremony options, enrollment and sign-in on SQLite and PostgreSQL, the host's trust
// callback, and the stateless verification against the host's own challenge.
const { describe, it } = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const { mfa, storeKinds, freshStore, openKit } = require('./support');
const { Authenticator, b64 } = require('./authenticator');

const ORIGIN = 'https://example.com';
const CONFIG = {
  state: 'ENABLED', providers: { webauthn: 'ENABLED', totp: 'ENABLED' },
  webauthn: { rpId: 'example.com', origins: [ORIGIN] },
};
const GEN = mfa.WebAuthnMultiFactorGenerator;

for (const kind of storeKinds()) {
  describe(`WebAuthn on ${kind}`, () => {
    it('enrolls a security key and signs in with it', async () => {
      const attestations = [];
      let trusted = true;
      const kit = await openKit(freshStore(kind), { config: CONFIG, webauthnTrust: (a) => (attestations.push(a), trusted) });
      const user = kit.user('keyholder');
      const key = new Authenticator(ORIGIN);
      const mf = kit.ctx.multiFactor(user);
      const options = await GEN.registrationOptions(await mf.session(), 'keyholder@example.com', 'Key Holder');
      assert.equal(options.rp.id, 'example.com');
      assert.equal(options.user.name, 'keyholder@example.com');
      assert.ok(options.pubKeyCredParams.some((p) => p.alg === -7));
      // The wrong origin, then an attestation the host does not trust, then the right one.
      await assert.rejects(mf.enroll(GEN.assertionForEnrollment(key.create(options, { origin: 'https://evil.example' }))),
        mfa.OriginMismatchError);
      trusted = false;
      const second = await GEN.registrationOptions(await mf.session(), 'keyholder@example.com');
      await assert.rejects(mf.enroll(GEN.assertionForEnrollment(JSON.stringify(key.create(second)))), mfa.AttestationNotTrustedError);
      assert.equal(attestations.at(-1).format, 'none');
      assert.equal(attestations.at(-1).uid, 'keyholder');
      assert.equal(attestations.at(-1).aaguid.length, 16);
      trusted = true;
      const third = await GEN.registrationOptions(await mf.session(), 'keyholder@example.com');
      const info = await mf.enroll(GEN.assertionForEnrollment(key.create(third)), 'Blue key');
      assert.equal(info.factorId, 'webauthn');
      assert.equal(info.kind, mfa.FACTOR_WEBAUTHN);
      assert.equal(info.displayName, 'Blue key');
      // Sign in.
      kit.clock.advance(60);
      const resolver = await kit.resolver(kit.user('keyholder'));
      assert.equal(resolver.hints[0].kind, mfa.FACTOR_WEBAUTHN);
      const request = await GEN.authenticationOptions(resolver, resolver.hints[0]);
      assert.equal(request.rpId, 'example.com');
      const result = await resolver.resolveSignIn(GEN.assertionForSignIn(key.get(request), resolver.hints[0]));
      assert.equal(result.factorId, 'webauthn');
      assert.equal(result.enrollmentId, info.uid);
      // An answer to another sign-in's challenge is refused.
      const next = await kit.resolver(kit.user('keyholder'));
      await assert.rejects(next.resolveSignIn(GEN.assertionForSignIn(key.get(request))), mfa.InvalidSessionError);
      await kit.ctx.close();
    });
  });
}

describe('WebAuthn against the host\'s own challenge', () => {
  it('verifies a registration and an assertion, and names what is wrong', () => {
    const key = new Authenticator(ORIGIN);
    const challenge = b64(crypto.randomBytes(32));
    const created = key.create({ challenge, rp: { id: 'example.com' } });
    const credential = mfa.webauthn.verifyRegistration(created, challenge, 'example.com', ORIGIN);
    assert.equal(credential.algorithm, -7);
    assert.equal(credential.format, 'none');
    assert.deepEqual(credential.credentialId, key.id);
    assert.equal(credential.flags & mfa.WEBAUTHN_FLAG_UP, mfa.WEBAUTHN_FLAG_UP);
    const login = b64(crypto.randomBytes(32));
    const answer = key.get({ challenge: login, rpId: 'example.com' });
    const checked = mfa.webauthn.verifyAssertion(answer, login, 'example.com', ORIGIN, credential.publicKey, true);
    assert.equal(checked.signCount, 1);
    assert.throws(() => mfa.webauthn.verifyRegistration(created, b64(crypto.randomBytes(32)), 'example.com', ORIGIN), mfa.InvalidSessionError);
    assert.throws(() => mfa.webauthn.verifyRegistration(created, challenge, 'other.com', ORIGIN), mfa.RPIDMismatchError);
    assert.throws(() => mfa.webauthn.verifyAssertion(answer, login, 'example.com', 'https://evil.example', credential.publicKey), mfa.OriginMismatchError);
    const other = new Authenticator(ORIGIN);
    const otherKey = mfa.webauthn.verifyRegistration(other.create({ challenge, rp: { id: 'example.com' } }), challenge, 'example.com', ORIGIN).publicKey;
    assert.throws(() => mfa.webauthn.verifyAssertion(answer, login, 'example.com', ORIGIN, otherKey), mfa.InvalidVerificationCodeError);
    assert.throws(() => mfa.webauthn.verifyRegistration('{', challenge, 'example.com', ORIGIN), mfa.InvalidArgumentError);
    assert.throws(() => mfa.webauthn.verifyRegistration(42, challenge, 'example.com', ORIGIN), TypeError);
  });
});
