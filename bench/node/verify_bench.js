'use strict';
// Stateless TOTP verification in one run (bench/node_verify.sh): libmfa's Node.js binding
// (TOTP.verify, one synchronous addon call) against libmfa's C ABI (mfa_totp_verify in a C
// loop, bench/node_verify_c.c) and against a verifier on node:crypto written the way npm's
// otplib checks a token (per time step: the counter as hex, crypto.createHmac with the key
// from hex, the digest through hex, dynamic truncation, the code compared as a string; the
// current step first, then the window). SHA1, 6 digits, 30 s, window +/-1, 64 keys; the right
// code (current step) and a wrong one (every step tried). Best of ROUNDS rounds, the three
// taking turns. Prints rates and ratios.
//
//   node bench/node/verify_bench.js C_PROGRAM [iterations] [rounds]
const crypto = require('node:crypto');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const mfa = require(path.join(__dirname, '..', '..', 'bindings', 'node'));

const [cProgram, iterationsArg, roundsArg] = process.argv.slice(2);
const N = Number(iterationsArg || 300000);
const ROUNDS = Number(roundsArg || 5);
const WINDOW = 1;
const WHEN = 1700000000;
const KEYS = 64;

// The peer: TOTP checked as otplib's totp.check does it, on node:crypto.
function hotpToken(hexKey, counter) {
  const hexCounter = counter.toString(16).padStart(16, '0');
  const digest = crypto.createHmac('sha1', Buffer.from(hexKey, 'hex')).update(Buffer.from(hexCounter, 'hex')).digest('hex');
  const bytes = Buffer.from(digest, 'hex');
  const offset = bytes[bytes.length - 1] & 0xf;
  const binary = ((bytes[offset] & 0x7f) << 24) | ((bytes[offset + 1] & 0xff) << 16) |
    ((bytes[offset + 2] & 0xff) << 8) | (bytes[offset + 3] & 0xff);
  return String(binary % 1000000).padStart(6, '0');
}

function nodeCryptoCheck(token, hexKey, epochSeconds, window) {
  if (!/^(\d+)$/.test(token)) return false;
  const counter = Math.floor(epochSeconds / 30);
  if (hotpToken(hexKey, counter) === token) return true;
  for (let i = 1; i <= window; i++) {
    if (hotpToken(hexKey, counter - i) === token) return true;
    if (hotpToken(hexKey, counter + i) === token) return true;
  }
  return false;
}

const keys = Array.from({ length: KEYS }, () => mfa.randomSecret(20));
const totps = keys.map((key) => new mfa.TOTP(key));
const hexKeys = keys.map((key) => key.toString('hex'));
const right = totps.map((t) => t.at(WHEN));
const wrong = totps.map((t) => {
  for (let c = 0; ; c++) {
    const code = String((c * 7919 + 17) % 1000000).padStart(6, '0');
    if (!t.verify(code, WHEN, WINDOW)) return code;
  }
});

// Both verifiers must agree before they are timed.
for (let k = 0; k < KEYS; k++) {
  if (!nodeCryptoCheck(right[k], hexKeys[k], WHEN, WINDOW) || nodeCryptoCheck(wrong[k], hexKeys[k], WHEN, WINDOW) ||
      !totps[k].verify(right[k], WHEN, WINDOW)) {
    throw new Error('the verifiers disagree');
  }
}

let sink = 0;
function timeBinding(codes, n) {
  const start = process.hrtime.bigint();
  for (let i = 0; i < n; i++) {
    const k = i & (KEYS - 1);
    if (totps[k].verify(codes[k], WHEN, WINDOW)) sink++;
  }
  return n / (Number(process.hrtime.bigint() - start) / 1e9);
}

function timeNodeCrypto(codes, n) {
  const start = process.hrtime.bigint();
  for (let i = 0; i < n; i++) {
    const k = i & (KEYS - 1);
    if (nodeCryptoCheck(codes[k], hexKeys[k], WHEN, WINDOW)) sink++;
  }
  return n / (Number(process.hrtime.bigint() - start) / 1e9);
}

function timeC() {
  const out = execFileSync(cProgram, [String(N), String(WINDOW)], { encoding: 'utf8' });
  return Object.fromEntries(out.trim().split('\n').map((line) => line.split(' ')).map(([k, v]) => [k, Number(v)]));
}

const best = { right: { c: 0, binding: 0, peer: 0 }, wrong: { c: 0, binding: 0, peer: 0 } };
timeBinding(right, N / 10);
timeNodeCrypto(right, N / 50);
for (let round = 0; round < ROUNDS; round++) {
  const c = timeC();
  for (const [name, codes] of [['right', right], ['wrong', wrong]]) {
    best[name].c = Math.max(best[name].c, c[name]);
    best[name].binding = Math.max(best[name].binding, timeBinding(codes, N));
    best[name].peer = Math.max(best[name].peer, timeNodeCrypto(codes, Math.max(1000, N / 10)));
  }
}

const fmt = (n) => n.toFixed(0).padStart(12);
console.log(`${'case (SHA1, 6 digits, +/-1)'.padEnd(30)}${'C ABI /s'.padStart(12)}${'binding /s'.padStart(12)}` +
  `${'node:crypto /s'.padStart(16)}${'binding/C'.padStart(11)}${'binding/node:crypto'.padStart(21)}`);
for (const [name, label] of [['right', 'right code (current step)'], ['wrong', 'wrong code (3 steps)']]) {
  const b = best[name];
  console.log(`${label.padEnd(30)}${fmt(b.c)}${fmt(b.binding)}${fmt(b.peer).padStart(16)}` +
    `${(b.binding / b.c).toFixed(2).padStart(10)}x${(b.binding / b.peer).toFixed(2).padStart(20)}x`);
}
if (sink === 42) console.log('');
