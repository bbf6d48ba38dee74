'use strict';
// The flow contract the C and Python suites run, through the Node binding, on SQLite and on
// PostgreSQL: prerequisites, TOTP enrollment and resolver sign-in, replay refused, wrong code,
// SMS through the outbox, recovery codes, revocation, the operator's reset, and the metrics
// those flows counted.
const { describe, it, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { mfa, storeKinds, freshStore, openKit, wrongCode } = require('./support');

const TOTP = mfa.TOTPMultiFactorGenerator;

for (const kind of storeKinds()) {
  describe(`flow contract on ${kind}`, () => {
    let kit;
    before(async () => {
      kit = await openKit(freshStore(kind));
    });
    after(async () => {
      await kit.ctx.close();
    });

    it('checks the prerequisites of enrolling', async () => {
      const { ctx } = kit;
      await assert.rejects(ctx.multiFactor(kit.user('pre-unverified', { emailVerified: false })).session(),
        { name: 'UnverifiedEmailError', code: 'UNVERIFIED_EMAIL' });
      await assert.rejects(ctx.multiFactor(kit.user('pre-phone', { provider: 'phone' })).session(),
        mfa.UnsupportedFirstFactorError);
      await assert.rejects(ctx.multiFactor(kit.user('pre-old', { authTime: kit.clock.now - 3600 })).session(),
        { code: 'REQUIRES_RECENT_LOGIN', status: mfa.Status.REQUIRES_RECENT_LOGIN });
      // A user without factors signs in with the first factor alone (ENABLED)...
      const plain = await ctx.signIn(kit.user('pre-plain'));
      assert.equal(plain.factorId, null);
      assert.equal(plain.uid, 'pre-plain');
      assert.equal(plain.time, kit.clock.now);
      assert.deepEqual(plain.claims, {});
      // ...and is told to enroll when MFA is MANDATORY.
      await ctx.setConfig({ state: 'MANDATORY', providers: { totp: 'ENABLED' } }, 'strict');
      await assert.rejects(ctx.signIn(kit.user('pre-plain', { tenant: 'strict' })), mfa.EnrollmentRequiredError);
      // At most five factors (recovery codes do not count).
      const user = kit.user('pre-limit');
      for (let i = 0; i < 5; i++) await kit.enrollTotp(user, `app ${i}`);
      kit.clock.advance(1);
      const more = ctx.multiFactor(kit.user('pre-limit'));
      await assert.rejects(async () => mfa.TOTPMultiFactorGenerator.generateSecret(await more.session()),
        mfa.SecondFactorLimitExceededError);
    });

    it('enrolls TOTP and signs in through the resolver', async () => {
      const { ctx } = kit;
      const user = kit.user('totp-alice');
      const early = await ctx.multiFactor(user).session();
      kit.clock.advance(1);
      const mark = kit.events.length;
      const [info, app] = await kit.enrollTotp(user, 'Work phone');
      assert.equal(info.factorId, 'totp');
      assert.equal(info.kind, mfa.FACTOR_TOTP);
      assert.equal(info.displayName, 'Work phone');
      assert.equal(info.hint, 'authenticator app');
      assert.equal(info.remainingCodes, null);
      assert.match(info.uid, /^[A-Za-z0-9_-]{28}$/);
      const listed = await ctx.multiFactor(user).enrolledFactors();
      assert.deepEqual(listed.map((f) => f.uid), [info.uid]);
      const enrolled = kit.events.slice(mark).find((e) => e.kindName === 'ENROLL');
      assert.equal(enrolled.enrollmentId, info.uid);
      assert.equal(enrolled.uid, 'totp-alice');
      assert.equal(enrolled.tenant, null);
      // Enrolling revoked what came before: credentials of that second, the earlier session.
      await assert.rejects(ctx.checkToken('totp-alice', kit.clock.now), mfa.UserTokenExpiredError);
      await ctx.checkToken('totp-alice', kit.clock.now + 1);
      await assert.rejects(TOTP.generateSecret(early), { code: 'USER_TOKEN_EXPIRED' });
      // Sign-in: second factor required, with the hint.
      kit.clock.advance(30);
      const signIn = kit.user('totp-alice');
      const error = await ctx.signIn(signIn).catch((e) => e);
      assert.ok(error instanceof mfa.SecondFactorRequired);
      assert.ok(error instanceof mfa.MFAError);
      assert.equal(error.code, 'SECOND_FACTOR_REQUIRED');
      const { resolver } = error;
      assert.equal(resolver.uid, 'totp-alice');
      assert.equal(resolver.tenant, null);
      assert.equal(resolver.hints.length, 1);
      assert.equal(resolver.hints[0].uid, info.uid);
      assert.equal(typeof resolver.session, 'string');
      // A resolver rebuilt from the pending credential a client sent back.
      const again = await ctx.resolver(resolver.session);
      assert.deepEqual(again.hints.map((h) => h.uid), [info.uid]);
      const result = await resolver.resolveSignIn(TOTP.assertionForSignIn(resolver.hints[0], app.at(kit.clock.now)));
      assert.ok(result instanceof mfa.SignInResult);
      assert.equal(result.uid, 'totp-alice');
      assert.equal(result.factorId, 'totp');
      assert.equal(result.kind, mfa.FACTOR_TOTP);
      assert.equal(result.enrollmentId, info.uid);
      assert.equal(result.time, kit.clock.now);
      assert.deepEqual(result.claims, { sign_in_second_factor: 'totp', second_factor_identifier: info.uid });
      assert.equal(await ctx.passedSecondFactor('totp-alice', 0), true);
      assert.equal(await ctx.passedSecondFactor('nobody', 3600), false);
      assert.equal(kit.kinds().at(-1), 'SIGN_IN_SUCCESS');
    });

    it('refuses a replayed code and a used pending credential', async () => {
      const user = kit.user('replay-bob');
      const [info, app] = await kit.enrollTotp(user);
      kit.clock.advance(30);
      const code = app.at(kit.clock.now);
      const first = await kit.resolver(user);
      await first.resolveSignIn(TOTP.assertionForSignIn(info.uid, code));
      // The same code with a fresh pending credential: its time step is used.
      const second = await kit.resolver(user);
      await assert.rejects(second.resolveSignIn(TOTP.assertionForSignIn(info.uid, code)),
        { code: 'INVALID_VERIFICATION_CODE' });
      // The used pending credential, even with a new code.
      kit.clock.advance(30);
      await assert.rejects(first.resolveSignIn(TOTP.assertionForSignIn(info.uid, app.at(kit.clock.now))),
        mfa.InvalidSessionError);
      await assert.rejects(kit.ctx.resolver(first.session), mfa.InvalidSessionError);
    });

    it('refuses a wrong code, audits it, and keeps the pending credential', async () => {
      const user = kit.user('wrong-carol');
      const [info, app] = await kit.enrollTotp(user);
      kit.clock.advance(30);
      const resolver = await kit.resolver(user);
      const mark = kit.events.length;
      await assert.rejects(resolver.resolveSignIn(TOTP.assertionForSignIn(info.uid, wrongCode(app.at(kit.clock.now)))),
        mfa.InvalidVerificationCodeError);
      const failure = kit.events.slice(mark).find((e) => e.kindName === 'SIGN_IN_FAILURE');
      assert.equal(failure.detail, 'INVALID_VERIFICATION_CODE');
      assert.equal(failure.factorId, 'totp');
      await assert.rejects(resolver.resolveSignIn(TOTP.assertionForSignIn(info.uid, 'abcdef')), mfa.InvalidVerificationCodeError);
      const result = await resolver.resolveSignIn(TOTP.assertionForSignIn(info.uid, app.at(kit.clock.now)));
      assert.equal(result.enrollmentId, info.uid);
    });

    it('enrolls a phone and signs in with SMS codes from the outbox', async () => {
      const { ctx } = kit;
      const user = kit.user('sms-dave');
      const provider = new mfa.PhoneAuthProvider(ctx);
      const mf = ctx.multiFactor(user);
      await assert.rejects(provider.verifyPhoneNumber({ phoneNumber: '+1 510 555 1234', session: await mf.session() }),
        mfa.InvalidPhoneNumberError);
      const number = `+1510555${String(kind.length).padStart(4, '0')}`;
      const verificationId = await provider.verifyPhoneNumber({ phoneNumber: number, session: await mf.session() });
      const code = mfa.outboxCode(kit.outbox, number);
      assert.match(code, /^\d{6}$/);
      await assert.rejects(mf.enroll(mfa.PhoneMultiFactorGenerator.assertion(
        mfa.PhoneAuthProvider.credential(verificationId, wrongCode(code)))), mfa.InvalidVerificationCodeError);
      const info = await mf.enroll(mfa.PhoneMultiFactorGenerator.assertion(mfa.PhoneAuthProvider.credential(verificationId, code)), 'Mobile');
      assert.equal(info.factorId, 'phone');
      assert.equal(info.phoneNumber, number);
      // Sign-in: the hint is masked; the code goes to the full number.
      kit.clock.advance(60);
      const resolver = await kit.resolver(kit.user('sms-dave'));
      const [hint] = resolver.hints;
      assert.equal(hint.kind, mfa.FACTOR_PHONE);
      assert.ok(!hint.phoneNumber.includes(number.slice(2, 8)), hint.phoneNumber);
      assert.ok(hint.phoneNumber.endsWith(number.slice(-4)));
      const sent = mfa.readOutbox(kit.outbox).length;
      const signInId = await provider.verifyPhoneNumber({ multiFactorHint: hint, session: resolver });
      const messages = mfa.readOutbox(kit.outbox);
      assert.equal(messages.length, sent + 1);
      assert.equal(messages.at(-1).to, number);
      const result = await resolver.resolveSignIn(mfa.PhoneMultiFactorGenerator.assertion(
        mfa.PhoneAuthProvider.credential(signInId, messages.at(-1).code)));
      assert.equal(result.factorId, 'phone');
      assert.equal(result.enrollmentId, info.uid);
      assert.ok(kit.kinds().includes('SMS_SENT'));
    });

    it('generates recovery codes and signs in with one, once', async () => {
      const { ctx } = kit;
      const user = kit.user('recovery-erin');
      await kit.enrollTotp(user);
      kit.clock.advance(1);
      const set = await mfa.RecoveryCodesMultiFactorGenerator.generateCodes(await ctx.multiFactor(kit.user('recovery-erin')).session());
      assert.equal(set.codes.length, 10);
      for (const code of set.codes) assert.match(code, /^[a-z0-9]{4}-[a-z0-9]{4}-[a-z0-9]{2}$/);
      assert.equal(set.factor.factorId, 'recovery');
      assert.equal(set.factor.remainingCodes, 10);
      kit.clock.advance(1);
      const resolver = await kit.resolver(kit.user('recovery-erin'));
      const hint = resolver.hints.find((h) => h.kind === mfa.FACTOR_RECOVERY_CODES);
      assert.equal(hint.hint, '10 codes left');
      const result = await resolver.resolveSignIn(mfa.RecoveryCodesMultiFactorGenerator.assertionForSignIn(set.codes[3].toUpperCase()));
      assert.equal(result.usedRecoveryCode, true);
      assert.equal(result.claims.recovery_codes_remaining, '9');
      const next = await kit.resolver(kit.user('recovery-erin'));
      await assert.rejects(next.resolveSignIn(mfa.RecoveryCodesMultiFactorGenerator.assertionForSignIn(set.codes[3], hint)),
        mfa.InvalidVerificationCodeError);
    });

    it('revokes credentials and pending sign-ins, keeping the factors', async () => {
      const { ctx } = kit;
      const user = kit.user('revoke-frank');
      const [info, app] = await kit.enrollTotp(user);
      kit.clock.advance(5);
      const issued = kit.clock.now;
      const pending = await kit.resolver(user);
      kit.clock.advance(5);
      await ctx.checkToken('revoke-frank', issued);
      await ctx.revokeTokens('revoke-frank');
      assert.equal(kit.kinds().at(-1), 'TOKENS_REVOKED');
      await assert.rejects(ctx.checkToken('revoke-frank', issued), mfa.UserTokenExpiredError);
      await assert.rejects(ctx.checkTokenMs('revoke-frank', issued * 1000 + 999), mfa.UserTokenExpiredError);
      await assert.rejects(pending.resolveSignIn(TOTP.assertionForSignIn(info.uid, app.at(kit.clock.now))),
        mfa.UserTokenExpiredError);
      assert.equal((await ctx.multiFactor(user).enrolledFactors()).length, 1);
      // Unenrolling revokes too, and is audited.
      kit.clock.advance(5);
      await ctx.multiFactor(kit.user('revoke-frank')).unenroll(info);
      assert.equal(kit.kinds().at(-1), 'UNENROLL');
      assert.deepEqual(await ctx.multiFactor(user).enrolledFactors(), []);
    });

    it('lets an operator reset a user who lost their factors', async () => {
      const { ctx } = kit;
      const user = kit.user('reset-grace');
      const [info] = await kit.enrollTotp(user);
      const pending = await kit.resolver(user);
      const admin = ctx.admin('ops:test');
      const page = await admin.listUsers({ tenant: null, factorId: 'totp', limit: 1000 });
      assert.ok(page.users.some((u) => u.uid === 'reset-grace' && u.factorCounts.totp === 1));
      const found = await admin.factor(info.uid);
      assert.equal(found.uid, 'reset-grace');
      assert.equal(found.info.uid, info.uid);
      kit.clock.advance(1);
      const removed = await admin.resetUser('reset-grace');
      assert.deepEqual(removed.map((f) => f.uid), [info.uid]);
      const reset = kit.events.filter((e) => e.kindName === 'USER_RESET').at(-1);
      assert.equal(reset.uid, 'reset-grace');
      assert.equal(reset.actor, 'ops:test');
      assert.deepEqual(await admin.userFactors('reset-grace'), []);
      await assert.rejects(kit.ctx.resolver(pending.session), mfa.UserTokenExpiredError);
      kit.clock.advance(1);
      const plain = await ctx.signIn(kit.user('reset-grace'));
      assert.equal(plain.factorId, null);
      await assert.rejects(admin.resetUser('never-seen'), mfa.MFAEnrollmentNotFoundError);
    });

    it('counts the flows above in its metrics, in Prometheus\' text format', async () => {
      const text = await kit.ctx.metricsText();
      assert.match(text, /^# HELP libmfa_/);
      assert.match(text, /\n# TYPE libmfa_sign_ins_total counter\n/);
      const value = (series) => {
        const line = text.split('\n').find((l) => l.startsWith(series + ' '));
        assert.ok(line, `${series} is missing`);
        return Number(line.slice(series.length + 1));
      };
      assert.ok(value('libmfa_sign_ins_total{kind="totp",outcome="success"}') >= 3);
      assert.ok(value('libmfa_sign_ins_total{kind="totp",outcome="wrong_code"}') >= 2);
      assert.ok(value('libmfa_sign_ins_total{kind="totp",outcome="replay"}') >= 1);
      assert.ok(value('libmfa_sign_ins_total{kind="phone",outcome="success"}') >= 1);
      assert.ok(value('libmfa_unenrollments_total{kind="totp",source="operator"}') >= 1);
      assert.ok(value('libmfa_sign_in_duration_seconds_count{kind="totp"}') >= 6);
      assert.equal(value('libmfa_sign_in_duration_seconds_bucket{kind="totp",le="+Inf"}'),
        value('libmfa_sign_in_duration_seconds_count{kind="totp"}'));
      assert.ok(!text.includes('reset-grace'));
    });
  });
}

