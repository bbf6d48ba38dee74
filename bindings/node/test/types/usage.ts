// What a TypeScript user of the binding writes; `tsc --noEmit --strict` must accept it
// (types.test.js), and reject the mistakes in mistakes.ts.
import * as mfa from '../../index';

async function signIn(ctx: mfa.Context, user: mfa.User, code: string): Promise<string> {
  try {
    const result: mfa.SignInResult = await ctx.signIn(user);
    return result.uid;
  } catch (error) {
    if (error instanceof mfa.SecondFactorRequired && error.resolver) {
      const hint: mfa.MultiFactorInfo = error.resolver.hints[0];
      const result = await error.resolver.resolveSignIn(mfa.TOTPMultiFactorGenerator.assertionForSignIn(hint, code));
      const claims: Readonly<Record<string, string>> = result.claims;
      return claims.sign_in_second_factor + result.usedRecoveryCode;
    }
    if (error instanceof mfa.MFAError) return `${error.code} ${error.status}`;
    throw error;
  }
}

async function main(): Promise<void> {
  const events: mfa.AuditEvent[] = [];
  const ctx = await mfa.Context.open({
    store: ':memory:',
    masterKey: mfa.randomSecret(32),
    keyId: 'k1',
    previousKeys: { k0: new Uint8Array(32) },
    clock: () => new Date(),
    random: (n) => mfa.randomSecret(Math.max(16, n)).subarray(0, n),
    audit: (event) => events.push(event),
    smsSender: async (to: string, message: string) => { void to; void message; },
    appVerifier: (credential, action) => credential === 'ok' && action === 'signIn',
    webauthnTrust: (attestation) => attestation.chainTrusted,
    onCallbackError: (error, name) => events.length > 1e9 && void [error, name],
    callbackTimeoutMs: 5000,
    threads: 4,
  });
  await ctx.setConfig({ state: 'ENABLED', providers: { totp: 'ENABLED' } });
  const state: string = (await ctx.config()).state;
  const user: mfa.User = { uid: 'alice', email: 'a@example.com', emailVerified: true, authTime: Date.now() / 1000 };
  const mf = ctx.multiFactor(user);
  const secret: mfa.TOTPSecret = await mfa.TOTPMultiFactorGenerator.generateSecret(await mf.session());
  const url: string = secret.generateQrCodeUrl('alice@example.com', 'ACME');
  const png: Buffer = secret.qrPng('alice@example.com');
  const app = new mfa.TOTP(mfa.base32Decode(secret.sharedSecretKey), { digits: 6, algorithm: 'SHA1' });
  const info = await mf.enroll(mfa.TOTPMultiFactorGenerator.assertionForEnrollment(secret, app.now()), 'phone');
  const factors: mfa.MultiFactorInfo[] = await mf.enrolledFactors();
  await signIn(ctx, user, app.now());
  const provider = new mfa.PhoneAuthProvider(ctx);
  const id: string = await provider.verifyPhoneNumber({ phoneNumber: '+15105551234', session: await mf.session() }, 'ok');
  await mf.enroll(mfa.PhoneMultiFactorGenerator.assertion(mfa.PhoneAuthProvider.credential(id, '123456')));
  const codes: mfa.RecoveryCodes = await mfa.RecoveryCodesMultiFactorGenerator.generateCodes(await mf.session());
  const recovery = mfa.RecoveryCodesMultiFactorGenerator.assertionForSignIn(codes.codes[0], codes.factor);
  const options = await mfa.WebAuthnMultiFactorGenerator.registrationOptions(await mf.session(), 'alice');
  const webauthn = mfa.WebAuthnMultiFactorGenerator.assertionForEnrollment({ id: options.challenge });
  const generic = new mfa.MultiFactorAssertion(mfa.FACTOR_TOTP, 'totp', { enrollmentId: info.uid, code: '123456' }, 'signIn');
  const assertions: mfa.MultiFactorAssertion[] = [recovery, webauthn, generic];
  await ctx.checkToken('alice', new Date());
  await ctx.checkTokenMs('alice', Date.now());
  await ctx.revokeTokens('alice', null);
  const passed: boolean = await ctx.passedSecondFactor('alice', 300);
  const admin = ctx.admin('ops:bob');
  const page: mfa.AdminUserPage = await admin.listUsers({ tenant: mfa.ALL_TENANTS, limit: 10 });
  for await (const u of admin.users({ factorId: 'totp' })) void u.factorCounts.totp;
  const summary: mfa.ImportSummary = await admin.importFactors('otpauth://totp/x?secret=JBSWY3DPEHPK3PXP', 'otpauth', {
    report: (line) => void line.outcomeName, progress: (done, total) => done < total,
  });
  const rotated: number = (await admin.rotateKeys({ batchSize: 100 })).rotated;
  const removed: mfa.MultiFactorInfo[] = await admin.resetUser('alice');
  const stats: mfa.AdminStats = await admin.stats();
  const hotp = new mfa.HOTP(mfa.randomSecret());
  const matched: number | bigint | null = hotp.match(hotp.at(5n), 0, 10);
  const uri: mfa.KeyURI = mfa.parseUri(app.provisioningUri('alice', 'ACME'));
  const text: string = mfa.qrCode(uri.toUri(), 'text');
  const image: Buffer = mfa.qrCode(uri.toUri());
  const outbox: mfa.OutboxMessage[] = mfa.readOutbox('/tmp/outbox.jsonl');
  const status: number = mfa.Status.INVALID_SESSION;
  const verified: boolean = app.verify('123456', new Date(), 1);
  const step: number | null = app.match('123456');
  const credential: mfa.WebAuthnCredential | null = null;
  void [state, url, png, factors, assertions, passed, page, summary, rotated, removed, stats, matched, text, image,
    outbox, status, verified, step, credential, events, mfa.versionString(), mfa.webauthn.verifyAssertion];
  await ctx.close();
}

void main;
