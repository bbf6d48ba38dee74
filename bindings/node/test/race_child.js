'use strict';
// One side of the two-process race (race.test.js): opens the store, then for each round read
// from stdin ({"time", "code"}) starts a sign-in, says "ready", waits for "go", resolves it
// with the code and prints what happened as one JSON line.
const readline = require('node:readline');
const mfa = require('..');
const { KEY } = require('./support');

const [store, uid, enrollmentId] = process.argv.slice(2);

async function main() {
  let now = 0;
  const ctx = await mfa.Context.open({ store, masterKey: KEY, clock: () => now });
  const input = readline.createInterface({ input: process.stdin });
  const lines = input[Symbol.asyncIterator]();
  for (;;) {
    const next = await lines.next();
    if (next.done || next.value === 'quit') break;
    const round = JSON.parse(next.value);
    now = round.time;
    const user = { uid, email: `${uid}@example.com`, emailVerified: true, authTime: now };
    const resolver = await ctx.signIn(user).then(() => null, (error) => error.resolver);
    const assertion = mfa.TOTPMultiFactorGenerator.assertionForSignIn(enrollmentId, round.code);
    process.stdout.write('ready\n');
    const go = await lines.next();
    if (go.value !== 'go') break;
    const outcome = await resolver.resolveSignIn(assertion).then(() => 'OK', (error) => error.code);
    process.stdout.write(JSON.stringify({ outcome }) + '\n');
  }
  input.close();
  process.stdin.destroy();
  await ctx.close();
}

main().catch((error) => {
  process.stderr.write(`race child failed: ${error.stack}\n`);
  process.exit(1);
});
