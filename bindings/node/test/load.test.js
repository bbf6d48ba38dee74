'use strict';
// A short mixed load from 8 async tasks on one context (load.js): no crash, no unexpected
// error, none of the addon's own objects left behind (jobs, callback questions, events,
// contexts, OTP keys: counted by the addon), and RSS about flat after the warm-up.
// LIBMFA_NODE_LOAD_SECONDS sets the duration (8 s here; bench/node_load.sh runs 60 s and
// prints the RSS samples).
const { it } = require('node:test');
const assert = require('node:assert/strict');
const v8 = require('node:v8');
const vm = require('node:vm');
const native = require('../lib/native');
const { runLoad, report } = require('./load');

const SECONDS = Number(process.env.LIBMFA_NODE_LOAD_SECONDS || 8);
// The bound on RSS growth after the warm-up in a short run: loose, as allocator noise is a
// few MiB; the exact check is the count of live objects below.
const GROWTH_MIB = 10;

it(`runs a ${SECONDS} s mixed load from 8 async tasks, leaving nothing behind`, async (t) => {
  const result = await runLoad({ seconds: SECONDS, kind: 'sqlite' });
  t.diagnostic(report(result));
  assert.ok(result.signIns > 8, `only ${result.signIns} sign-ins ran`);
  assert.ok(result.audited > result.signIns, 'the audit callback saw every sign-in');
  assert.ok(result.growth < GROWTH_MIB, `RSS grew ${result.growth.toFixed(1)} MiB after the warm-up`);
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc');
  let live;
  for (let i = 0; i < 20; i++) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 10));
    live = native.liveObjects();
    if (Object.values(live).every((count) => count === 0)) break;
  }
  assert.deepEqual(live, { jobs: 0, asks: 0, events: 0, contexts: 0, otpKeys: 0 });
});
