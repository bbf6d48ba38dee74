'use strict';
// Host callbacks as JS functions: answered on the JS thread while a worker waits, sync or
// async, with the safe answer on an exception, a bad value or a timeout; events delivered in
// order before the call's promise settles; no deadlock when callbacks need libuv's pool.
const { describe, it } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const dns = require('node:dns');
const path = require('node:path');
const { Worker } = require('node:worker_threads');
const { mfa, openKit, makeClock, KEY, T0, tempDir } = require('./support');

const PHONE = { state: 'ENABLED', providers: { phone: 'ENABLED', totp: 'ENABLED' } };
const NUMBER = '+15105551234';
const CODE = /^(\d{6}) is your verification code\.$/;

function inbox() {
  const messages = [];
  const send = (to, message) => {
    messages.push({ to, message });
  };
  send.messages = messages;
  send.code = () => CODE.exec(messages.at(-1).message)[1];
  return send;
}

function errors() {
  const seen = [];
  const onCallbackError = (error, name) => seen.push([name, error.message]);
  onCallbackError.seen = seen;
  return onCallbackError;
}

describe('host callbacks', () => {
  it('reads the clock from JS: a number, a float, a Date, a bigint; the system clock when it throws', async () => {
    const onCallbackError = errors();
    let value = T0;
    const ctx = await mfa.Context.open({ masterKey: KEY, clock: () => value, onCallbackError });
    await ctx.setConfig({ state: 'ENABLED', providers: { totp: 'ENABLED' } });
    const user = { uid: 'clocked', email: 'c@example.com', emailVerified: true, authTime: T0 };
    const deadline = async () => (await mfa.TOTPMultiFactorGenerator.generateSecret(await ctx.multiFactor(user).session()))
      .enrollmentCompletionDeadline;
    assert.equal(await deadline(), T0 + 600);
    value = T0 + 0.9;
    assert.equal(await deadline(), T0 + 600);
    value = new Date((T0 + 5) * 1000);
    assert.equal(await deadline(), T0 + 605);
    value = BigInt(T0 + 7);
    assert.equal(await deadline(), T0 + 607);
    value = 'not a time';
    await assert.rejects(deadline(), mfa.RequiresRecentLoginError); // the system clock is years later
    assert.equal(onCallbackError.seen[0][0], 'clock');
    await ctx.close();
  });

  it('takes random bytes from JS; a failing source fails the call with CRYPTO', async () => {
    const onCallbackError = errors();
    let mode = 'fixed';
    const asked = [];
    const random = (n) => {
      asked.push(n);
      if (mode === 'short') return Buffer.alloc(n - 1);
      if (mode === 'throw') throw new Error('no entropy');
      return new Uint8Array(n).fill(0x42);
    };
    const ctx = await mfa.Context.open({ masterKey: KEY, random, onCallbackError });
    await ctx.setConfig({ state: 'ENABLED', providers: { totp: 'ENABLED' } });
    const user = { uid: 'random', email: 'r@example.com', emailVerified: true, authTime: Math.floor(Date.now() / 1000) };
    const secret = await mfa.TOTPMultiFactorGenerator.generateSecret(await ctx.multiFactor(user).session());
    assert.ok(asked.includes(20));
    assert.deepEqual(mfa.base32Decode(secret.sharedSecretKey), Buffer.alloc(20, 0x42));
    for (mode of ['short', 'throw']) {
      await assert.rejects(async () => mfa.TOTPMultiFactorGenerator.generateSecret(await ctx.multiFactor(user).session()),
        mfa.CryptoError);
    }
    assert.deepEqual(onCallbackError.seen.map(([name]) => name), ['random', 'random']);
    await ctx.close();
  });

  it('sends SMS through a sync or async sender; a failing one is SMS_SEND_FAILED and counts nothing', async () => {
    const onCallbackError = errors();
    let fail = false;
    const messages = [];
    const smsSender = async (to, message) => {
      await new Promise((resolve) => setTimeout(resolve, 10));
      if (fail) throw new Error(`gateway down for ${to}`);
      messages.push({ to, message });
    };
    const verified = [];
    const appVerifier = (credential, action) => {
      verified.push([credential, action]);
      return credential === 'genuine' ? true : credential === 'truthy' ? 1 : false;
    };
    const kit = await openKit(':memory:', { config: PHONE, smsSender, appVerifier, onCallbackError });
    const provider = new mfa.PhoneAuthProvider(kit.ctx);
    const session = async () => kit.ctx.multiFactor(kit.user('sms')).session();
    await assert.rejects(provider.verifyPhoneNumber({ phoneNumber: NUMBER, session: await session() }), mfa.MissingAppCredentialError);
    await assert.rejects(provider.verifyPhoneNumber({ phoneNumber: NUMBER, session: await session() }, 'forged'), mfa.InvalidAppCredentialError);
    await assert.rejects(provider.verifyPhoneNumber({ phoneNumber: NUMBER, session: await session() }, 'truthy'), mfa.InvalidAppCredentialError);
    fail = true;
    await assert.rejects(provider.verifyPhoneNumber({ phoneNumber: NUMBER, session: await session() }, 'genuine'), mfa.SMSSendFailedError);
    assert.deepEqual(onCallbackError.seen.map(([name]) => name), ['smsSender']);
    fail = false;
    const id = await provider.verifyPhoneNumber({ phoneNumber: NUMBER, session: await session() }, 'genuine');
    assert.equal(messages.length, 1);
    assert.equal(messages[0].to, NUMBER);
    assert.deepEqual(verified.at(-1), ['genuine', 'enrollment']);
    const code = CODE.exec(messages[0].message)[1];
    await kit.ctx.multiFactor(kit.user('sms')).enroll(mfa.PhoneMultiFactorGenerator.assertion(mfa.PhoneAuthProvider.credential(id, code)));
    kit.clock.advance(60);
    const resolver = await kit.resolver(kit.user('sms'));
    await provider.verifyPhoneNumberForSignIn(resolver.hints[0], resolver, 'genuine');
    assert.deepEqual(verified.at(-1), ['genuine', 'signIn']);
    assert.equal(messages.length, 2);
    await kit.ctx.close();
  });

  it('gives the safe answer when a callback does not answer in time, and warns', async () => {
    const warnings = [];
    const listener = (warning) => warnings.push(warning);
    process.on('warning', listener);
    const smsSender = () => new Promise(() => {}); // never settles
    const kit = await openKit(':memory:', {
      config: { ...PHONE, phone: { appVerification: 'DISABLED' } }, smsSender, callbackTimeoutMs: 150,
    });
    const started = Date.now();
    await assert.rejects(kit.ctx.multiFactor(kit.user('slow')).session().then((session) =>
      new mfa.PhoneAuthProvider(kit.ctx).verifyPhoneNumber({ phoneNumber: NUMBER, session })), mfa.SMSSendFailedError);
    const took = Date.now() - started;
    assert.ok(took >= 140 && took < 5000, `took ${took} ms`);
    await new Promise((resolve) => setImmediate(resolve));
    process.off('warning', listener);
    assert.ok(warnings.some((w) => /smsSender callback did not answer within 150 ms/.test(w.message)), warnings.map(String).join());
    await kit.ctx.close();
  });

  it('does not deadlock when the JS thread is blocked while a call waits for a callback', async () => {
    const warnings = [];
    const listener = (warning) => warnings.push(warning.message);
    process.on('warning', listener);
    const sent = [];
    // The system clock: a clock callback would wait for the JS thread too.
    const kit = await openKit(':memory:', {
      config: { ...PHONE, phone: { appVerification: 'DISABLED' } }, smsSender: (to) => sent.push(to), callbackTimeoutMs: 200,
      clock: undefined,
    });
    const user = kit.user('blocked', { authTime: new Date() });
    const session = await kit.ctx.multiFactor(user).session();
    const send = new mfa.PhoneAuthProvider(kit.ctx).verifyPhoneNumber({ phoneNumber: NUMBER, session });
    // The JS thread does not return to the event loop: once the worker asks for the SMS sender
    // (the addon counts the question), it stays blocked for longer than the timeout, and the
    // worker gives up with the safe answer instead of waiting for ever.
    const native = require('../lib/native');
    const start = Date.now();
    while (native.liveObjects().asks === 0 && Date.now() - start < 20000) { /* blocked */ }
    const until = Date.now() + 700;
    while (Date.now() < until) { /* blocked */ }
    await assert.rejects(send, mfa.SMSSendFailedError);
    assert.deepEqual(sent, []); // the late question was dropped, not asked
    await new Promise((resolve) => setImmediate(resolve));
    process.off('warning', listener);
    assert.ok(warnings.some((text) => /smsSender callback did not answer within 200 ms/.test(text)));
    await kit.ctx.close();
  });

  it('does not starve callbacks that need libuv\'s thread pool (fs, dns)', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'gateway.txt');
    fs.writeFileSync(file, 'ok');
    const sent = [];
    // More sends in flight than libuv has threads (4), each awaiting work on libuv's pool.
    const smsSender = async (to) => {
      await fs.promises.readFile(file);
      await dns.promises.lookup('localhost');
      await fs.promises.appendFile(path.join(dir, 'log.txt'), to + '\n');
      sent.push(to);
    };
    const kit = await openKit(':memory:', {
      config: { ...PHONE, phone: { appVerification: 'DISABLED' } }, smsSender, threads: 8, callbackTimeoutMs: 20000,
    });
    const provider = new mfa.PhoneAuthProvider(kit.ctx);
    const sends = Array.from({ length: 12 }, async (_, i) => {
      const session = await kit.ctx.multiFactor(kit.user(`pool-${i}`)).session();
      return provider.verifyPhoneNumber({ phoneNumber: `+1510555${String(1000 + i)}`, session });
    });
    const ids = await Promise.all(sends);
    assert.equal(ids.length, 12);
    assert.equal(sent.length, 12);
    await kit.ctx.close();
  });

  it('delivers audit events in order, before the promise of their call settles', async () => {
    const kit = await openKit(':memory:');
    const [info] = await kit.enrollTotp(kit.user('audited'));
    const enroll = kit.events.at(-1);
    assert.equal(enroll.kindName, 'ENROLL');
    assert.equal(enroll.kind, mfa.AUDIT_ENROLL);
    assert.equal(enroll.enrollmentId, info.uid);
    assert.equal(enroll.detail, 'OK');
    assert.equal(enroll.actor, null);
    assert.ok(enroll instanceof mfa.AuditEvent);
    assert.ok(Object.isFrozen(enroll));
    await kit.ctx.revokeTokens('audited');
    assert.equal(kit.events.at(-1).kindName, 'TOKENS_REVOKED');
    await kit.ctx.close();
  });

  it('lets a callback call the context (queued, never re-entered) and survives a throwing audit', async () => {
    const onCallbackError = errors();
    let ctx;
    const reads = [];
    const audit = (event) => {
      reads.push(ctx.config());
      if (event.kindName === 'CONFIG_CHANGE') throw new Error('audit sink down');
    };
    ctx = await mfa.Context.open({ masterKey: KEY, clock: makeClock(), audit, onCallbackError });
    await ctx.setConfig({ state: 'ENABLED', providers: { totp: 'ENABLED' } });
    await ctx.revokeTokens('x');
    assert.equal(reads.length, 2);
    for (const config of await Promise.all(reads)) assert.equal(config.state, 'ENABLED');
    assert.deepEqual(onCallbackError.seen, [['audit', 'audit sink down']]);
    await ctx.close();
  });

  it('closes after the calls in flight; later calls are INVALID_ARGUMENT', async () => {
    const kit = await openKit(':memory:');
    const calls = Array.from({ length: 20 }, () => kit.ctx.config());
    const closing = kit.ctx.close();
    assert.equal(kit.ctx.closed, true);
    assert.equal((await Promise.all(calls)).length, 20);
    await closing;
    await kit.ctx.close();
    await assert.rejects(kit.ctx.config(), (error) => error.code === 'INVALID_ARGUMENT' && /closed/.test(error.message));
  });

  it('runs in a worker thread of its own', async () => {
    const code = `
      const { parentPort } = require('node:worker_threads');
      const mfa = require(${JSON.stringify(path.join(__dirname, '..'))});
      (async () => {
        const ctx = await mfa.Context.open({ masterKey: Buffer.alloc(32, 3), clock: () => ${T0} });
        await ctx.setConfig({ state: 'ENABLED' });
        parentPort.postMessage((await ctx.config()).state);
        // left open: the worker's teardown closes it
      })();`;
    const worker = new Worker(code, { eval: true });
    const [message] = await Promise.all([new Promise((resolve) => worker.once('message', resolve)), null]);
    assert.equal(message, 'ENABLED');
    assert.equal(await new Promise((resolve) => worker.once('exit', resolve)), 0);
  });
});

describe('the operator\'s long calls', () => {
  const lines = ['otpauth://totp/ACME:alice?secret=JBSWY3DPEHPK3PXP&issuer=ACME', 'not a uri',
    'otpauth://totp/ACME:bob?secret=KRSXG5CTMVRXEZLU&issuer=ACME', 'otpauth://hotp/ACME:carol?secret=KRSXG5CTMVRXEZLU&counter=1'];

  it('imports with reports and progress, and stops when progress says so', async () => {
    const kit = await openKit(':memory:');
    const admin = kit.ctx.admin('ops:import');
    const summary = await admin.importFactors(lines.join('\n'), 'otpauth', { batchSize: 1 });
    assert.equal(summary.imported, 3);
    assert.equal(summary.failed, 1);
    assert.equal(summary.unsupported, 0);
    // The last line is an HOTP token's URI: an HOTP factor.
    assert.deepEqual(summary.reports.map((r) => r.outcomeName), ['IMPORTED', 'FAILED', 'IMPORTED', 'IMPORTED']);
    assert.equal(summary.reports[0].uid, 'alice');
    const seen = [];
    const again = await admin.importFactors(Buffer.from(lines.join('\n')), mfa.IMPORT_OTPAUTH, {
      batchSize: 1, report: (line) => seen.push(line.outcomeName), progress: (done) => done < 2,
    });
    assert.equal(again.stopped, true);
    assert.deepEqual(seen, ['ALREADY_IMPORTED', 'FAILED']);
    assert.deepEqual(again.reports, []);
    const factors = await admin.userFactors('alice');
    assert.equal(factors.length, 1);
    assert.equal(kit.events.filter((e) => e.kindName === 'ENROLL' && e.actor === 'ops:import').length, 3);
    await kit.ctx.close();
  });

  it('rejects with the error a report or progress callback threw, after the batch in progress', async () => {
    const kit = await openKit(':memory:');
    const admin = kit.ctx.admin('ops:import');
    const boom = new Error('report sink down');
    await assert.rejects(admin.importFactors(lines.join('\n'), 'otpauth', { batchSize: 1, report: () => { throw boom; } }),
      (error) => error === boom);
    assert.equal((await admin.stats()).totalFactors, 1);
    await kit.ctx.close();
  });

  it('rotates keys and checks seals with progress', async () => {
    const dir = tempDir();
    const store = path.join(dir, 'keys.sqlite3');
    const first = await openKit(store);
    await first.enrollTotp(first.user('rotating'));
    await first.enrollTotp(first.user('rotating-too'));
    await first.ctx.close();
    const next = Buffer.alloc(32, 9);
    const ctx = await mfa.Context.open({ store, masterKey: next, keyId: 'k2', previousKeys: { k1: KEY }, clock: makeClock() });
    const progress = [];
    await assert.rejects(ctx.admin('ops:keys').rotateKeys({ batchSize: 1, progress: () => { throw new RangeError('stop'); } }),
      RangeError);
    const result = await ctx.admin('ops:keys').rotateKeys({ batchSize: 1, progress: (done, total) => progress.push([done, total]) });
    assert.ok(result.rotated >= 1);
    assert.equal(result.remaining, 0);
    assert.equal(result.stopped, false);
    assert.ok(progress.length >= 1);
    await ctx.close();
    const alone = await mfa.Context.open({ store, masterKey: next, keyId: 'k2', clock: makeClock() });
    const check = await alone.admin('ops:keys').checkSeals({ batchSize: 10 });
    assert.equal(check.failed, 0);
    assert.ok(check.checked >= 1);
    await alone.close();
  });
});
