'use strict';
// Two processes race on one TOTP code, on SQLite and on PostgreSQL: each has its own pending
// credential and sends the same code at the same moment; exactly one sign-in wins, the other
// is INVALID_VERIFICATION_CODE (the code's time step was claimed).
const { describe, it } = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { spawn } = require('node:child_process');
const readline = require('node:readline');
const { mfa, storeKinds, freshStore, openKit } = require('./support');

const ROUNDS = 12;

function child(store, uid, enrollmentId) {
  const proc = spawn(process.execPath, [path.join(__dirname, 'race_child.js'), store, uid, enrollmentId],
    { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = readline.createInterface({ input: proc.stdout })[Symbol.asyncIterator]();
  return {
    send: (line) => proc.stdin.write(line + '\n'),
    quit: () => proc.stdin.end('quit\n'),
    next: async () => {
      const line = await lines.next();
      if (line.done) throw new Error('a race child ended early');
      return line.value;
    },
    done: new Promise((resolve) => proc.on('exit', resolve)),
  };
}

for (const kind of storeKinds()) {
  describe(`two processes on ${kind}`, () => {
    it(`have exactly one winner per code, ${ROUNDS} rounds`, async () => {
      const store = freshStore(kind);
      const kit = await openKit(store);
      const [info, app] = await kit.enrollTotp(kit.user('racer'));
      const start = kit.clock.now;
      await kit.ctx.close();
      const sides = [child(store, 'racer', info.uid), child(store, 'racer', info.uid)];
      const tally = { OK: 0, INVALID_VERIFICATION_CODE: 0 };
      try {
        for (let round = 1; round <= ROUNDS; round++) {
          const time = start + 30 * round;
          const order = JSON.stringify({ time, code: app.at(time) });
          for (const side of sides) side.send(order);
          for (const side of sides) assert.equal(await side.next(), 'ready');
          for (const side of sides) side.send('go');
          const outcomes = [];
          for (const side of sides) outcomes.push(JSON.parse(await side.next()).outcome);
          outcomes.sort();
          assert.deepEqual(outcomes, ['INVALID_VERIFICATION_CODE', 'OK'], `round ${round}`);
          for (const outcome of outcomes) tally[outcome]++;
        }
      } finally {
        for (const side of sides) side.quit();
        assert.deepEqual(await Promise.all(sides.map((side) => side.done)), [0, 0]);
      }
      assert.deepEqual(tally, { OK: ROUNDS, INVALID_VERIFICATION_CODE: ROUNDS });
      void mfa;
    });
  });
}
