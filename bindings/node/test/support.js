'use strict';
// What the tests share: stores (a new SQLite file, or a schema of its own on the PostgreSQL
// server of MFA_TEST_POSTGRES_URL), an injectable clock, and a context with an audit log.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const crypto = require('node:crypto');
const { execFileSync } = require('node:child_process');
const mfa = require('..');

/** A fixed start time: the start of a 30 s step. */
const T0 = 1700000010;
const KEY = Buffer.from(Array.from({ length: 32 }, (_, i) => i));
const CONFIG = {
  state: 'ENABLED',
  providers: { totp: 'ENABLED', phone: 'ENABLED', recovery: 'ENABLED' },
  phone: { appVerification: 'DISABLED' },
};

/** The store kinds to run over: sqlite, and postgres when the test command started a server. */
function storeKinds() {
  if (process.env.MFA_TEST_POSTGRES_URL) return ['sqlite', 'postgres'];
  if (process.env.CI === 'true') throw new Error('MFA_TEST_POSTGRES_URL is not set: scripts/test.sh starts the server');
  return ['sqlite'];
}

/** A new temporary folder, removed at exit. */
function tempDir() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'libmfa-node-'));
  process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A new, empty store location of this kind. */
function freshStore(kind, dir = tempDir()) {
  if (kind === 'sqlite') return path.join(dir, `store-${crypto.randomBytes(4).toString('hex')}.sqlite3`);
  const base = process.env.MFA_TEST_POSTGRES_URL;
  const schema = 'n_' + crypto.randomBytes(8).toString('hex');
  execFileSync('psql', [base, '-q', '-c', `CREATE SCHEMA ${schema}`], { stdio: ['ignore', 'ignore', 'inherit'] });
  return base + (base.includes('?') ? '&' : '?') + 'options=-csearch_path%3D' + schema;
}

/** An injectable clock: calling it gives `now`. */
function makeClock(now = T0) {
  const clock = () => clock.now;
  clock.now = now;
  clock.advance = (seconds) => (clock.now += seconds);
  return clock;
}

/** A context on `store` with an injected clock, an audit log and an SMS outbox. */
async function openKit(store = ':memory:', options = {}) {
  const dir = tempDir();
  const clock = options.clock || makeClock();
  const events = [];
  const outbox = path.join(dir, 'outbox.jsonl');
  const ctx = await mfa.Context.open({
    store, masterKey: KEY, clock, audit: (event) => events.push(event),
    ...(options.smsSender ? {} : { smsOutbox: outbox }), ...options,
  });
  if (options.config !== null) await ctx.setConfig(options.config || CONFIG);
  const kit = {
    ctx, clock, events, outbox,
    user(uid, fields = {}) {
      return { uid, email: `${uid}@example.com`, emailVerified: true, authTime: clock.now, ...fields };
    },
    /** Enrolls a TOTP factor; returns [info, the app's TOTP]. */
    async enrollTotp(user, name = 'app') {
      const mf = ctx.multiFactor({ ...user, authTime: clock.now });
      const secret = await mfa.TOTPMultiFactorGenerator.generateSecret(await mf.session());
      const app = new mfa.TOTP(mfa.base32Decode(secret.sharedSecretKey));
      const info = await mf.enroll(mfa.TOTPMultiFactorGenerator.assertionForEnrollment(secret, app.at(clock.now)), name);
      return [info, app];
    },
    /** The resolver of a sign-in that needs a second factor. */
    async resolver(user) {
      try {
        await ctx.signIn(user);
      } catch (error) {
        if (error instanceof mfa.SecondFactorRequired) return error.resolver;
        throw error;
      }
      throw new Error('no second factor was required');
    },
    kinds() {
      return events.map((event) => event.kindName);
    },
  };
  return kit;
}

/** A six-digit code that is not `code`. */
function wrongCode(code) {
  return String((Number(code) + 1) % 1000000).padStart(6, '0');
}

/** Resident set size in MiB, from /proc (the kernel's count, not V8's). */
function rssMiB() {
  const status = fs.readFileSync('/proc/self/status', 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)[1]) / 1024;
}

module.exports = { mfa, T0, KEY, CONFIG, storeKinds, tempDir, freshStore, makeClock, openKit, wrongCode, rssMiB };
