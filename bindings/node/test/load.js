'use strict';
// A mixed load from 8 async tasks on one context, with RSS sampled after a warm-up: used by
// load.test.js (a few seconds, in the test command) and by bench/node_load.sh (60 s).
//
// The tasks share one Context (as the handlers of a server do) and run at once on the addon's
// worker threads. Its clock is the test's: a ticker moves it one 30 s step every 25 ms, so
// that each user can sign in with a new code many times a second; the configuration accepts
// +/-10 steps. Each task has a user of its own. A task's round: a first-factor sign-in and
// the resolver, now and then a wrong code first, then the right code (or a recovery code);
// token, step-up and configuration reads; every few rounds an unfinished TOTP enrollment, a
// new recovery-code set, an operator's page of users and a purge; and the stateless calls
// (TOTP verify, base32, key URIs, QR text). Audit events go to a JS callback. A right code
// refused because the clock ran more than 10 steps past it (a stall longer than 250 ms) is
// counted as late, not as a failure; everything else unexpected fails the run. RSS is read
// from /proc after a full garbage collection, once a second.
const v8 = require('node:v8');
const vm = require('node:vm');
const { mfa, openKit, freshStore, wrongCode, rssMiB, T0 } = require('./support');

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc');

const TOTP = mfa.TOTPMultiFactorGenerator;
const RECOVERY = mfa.RecoveryCodesMultiFactorGenerator;
const CONFIG = {
  state: 'ENABLED',
  providers: { totp: 'ENABLED', recovery: 'ENABLED' },
  totp: { adjacentIntervals: 10 },
};
const TICK_MS = 25;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function task(index, kit, deadline, counts) {
  const { ctx, clock } = kit;
  const user = kit.user(`load-${index}`);
  const [info, app] = await kit.enrollTotp(user);
  const admin = ctx.admin(`load-task-${index}`);
  const secret = mfa.randomSecret();
  const stateless = new mfa.TOTP(secret);
  let recovery = null;
  let last = Math.floor(clock.now / 30);
  for (let round = 0; Date.now() < deadline; round++) {
    while (Math.floor(clock.now / 30) <= last) await sleep(5);
    const codeTime = clock.now;
    last = Math.floor(codeTime / 30);
    const signIn = { ...user, authTime: codeTime };
    const resolver = await kit.resolver(signIn);
    if (round % 4 === 1) {
      await resolver.resolveSignIn(TOTP.assertionForSignIn(info.uid, wrongCode(app.at(codeTime)))).then(
        () => { throw new Error('a wrong code was accepted'); },
        (error) => { if (error.code !== 'INVALID_VERIFICATION_CODE') throw error; });
    }
    if (recovery && round % 8 === 3) {
      await resolver.resolveSignIn(RECOVERY.assertionForSignIn(recovery.codes[(round >> 3) % recovery.codes.length]))
        .catch((error) => { if (error.code !== 'INVALID_VERIFICATION_CODE') throw error; });
    } else {
      try {
        await resolver.resolveSignIn(TOTP.assertionForSignIn(info.uid, app.at(codeTime)));
        counts.signIns++;
      } catch (error) {
        const stalled = clock.now - codeTime > 10 * 30;
        if (!stalled || !['INVALID_VERIFICATION_CODE', 'INVALID_SESSION', 'CODE_EXPIRED'].includes(error.code)) throw error;
        counts.late++;
      }
    }
    await ctx.checkToken(user.uid, clock.now + 1);
    await ctx.passedSecondFactor(user.uid, 3600);
    if (round % 10 === 0) {
      await ctx.config();
      await TOTP.generateSecret(await ctx.multiFactor({ ...user, authTime: clock.now }).session());
    }
    if (round % 40 === 5) {
      recovery = await RECOVERY.generateCodes(await ctx.multiFactor({ ...user, authTime: clock.now }).session());
    }
    if (round % 25 === 7) {
      await admin.listUsers({ limit: 10 });
      await ctx.purgeExpired();
    }
    for (let i = 0; i < 20; i++) stateless.verify(stateless.at(T0 + i * 30), T0 + i * 30, 1);
    if (round % 20 === 9) {
      mfa.parseUri(stateless.provisioningUri(`user${index}@example.com`, 'Load Co'));
      mfa.base32Decode(mfa.base32Encode(secret));
      mfa.qrCode('otpauth://totp/x?secret=' + mfa.base32Encode(secret, { padding: false }), 'text');
    }
    counts.rounds++;
  }
}

/**
 * Runs the load for `seconds` on a new store of `kind`; returns the counts and the RSS samples
 * (MiB): `warm` after the warm-up, `end` at the end, `growth` the difference, `peak`.
 */
async function runLoad({ seconds, kind = 'sqlite', tasks = 8, warmup = Math.max(1, Math.round(seconds / 4)) }) {
  const store = freshStore(kind);
  const counts = { rounds: 0, signIns: 0, late: 0, audited: 0 };
  const kit = await openKit(store, { config: CONFIG, audit: () => counts.audited++ });
  const ticker = setInterval(() => kit.clock.advance(30), TICK_MS);
  const start = Date.now();
  const deadline = start + seconds * 1000;
  const samples = [];
  const sampler = setInterval(() => {
    gc();
    samples.push({ t: (Date.now() - start) / 1000, rss: rssMiB() });
  }, 1000);
  try {
    await Promise.all(Array.from({ length: tasks }, (_, i) => task(i, kit, deadline, counts)));
  } finally {
    clearInterval(sampler);
    clearInterval(ticker);
    await kit.ctx.close();
  }
  gc();
  samples.push({ t: (Date.now() - start) / 1000, rss: rssMiB() });
  const after = samples.filter((s) => s.t >= warmup);
  const warm = after.length ? after[0].rss : samples[0].rss;
  const end = samples[samples.length - 1].rss;
  return { ...counts, seconds, kind, tasks, samples, warm, end, growth: end - warm, peak: Math.max(...after.map((s) => s.rss)) };
}

function report(result) {
  const rate = (result.rounds / result.seconds).toFixed(0);
  return `${result.kind}: ${result.tasks} async tasks on one context, ${result.seconds} s: ${result.rounds} rounds ` +
    `(${rate}/s), ${result.signIns} TOTP sign-ins, ${result.late} late, ${result.audited} audit events; RSS after ` +
    `warm-up ${result.warm.toFixed(1)} MiB, at the end ${result.end.toFixed(1)} MiB ` +
    `(${result.growth >= 0 ? '+' : ''}${result.growth.toFixed(1)} MiB), peak ${result.peak.toFixed(1)} MiB`;
}

module.exports = { runLoad, report };

if (require.main === module) {
  const seconds = Number(process.argv[2] || 60);
  const kinds = (process.argv[3] || 'sqlite').split(',');
  (async () => {
    for (const kind of kinds) {
      const result = await runLoad({ seconds, kind });
      console.log(report(result));
      console.log('  RSS (s: MiB): ' + result.samples.map((s) => `${s.t.toFixed(0)}: ${s.rss.toFixed(1)}`).join(', '));
    }
  })().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
