'use strict';
// A short mixed load from 8 async tasks (load.js): no crash, no error, RSS flat after the
// warm-up. LIBMFA_NODE_LOAD_SECONDS sets the duration (6 s here; bench/node_load.sh runs 60 s).
const { it } = require('node:test');
const assert = require('node:assert/strict');
const { runLoad, report } = require('./load');

const SECONDS = Number(process.env.LIBMFA_NODE_LOAD_SECONDS || 6);
// The bound on RSS growth after the warm-up. A leak of a few hundred bytes per call grows
// past it within a minute; allocator and SQLite page-cache noise stays well below.
const GROWTH_MIB = 6;

it(`runs a ${SECONDS} s mixed load from 8 async tasks with RSS flat after warm-up`, async (t) => {
  const result = await runLoad({ seconds: SECONDS, kind: 'sqlite' });
  t.diagnostic(report(result));
  assert.ok(result.rounds > 8, `only ${result.rounds} rounds ran`);
  assert.ok(result.audited > result.rounds, 'the audit callback saw every sign-in');
  assert.ok(result.growth < GROWTH_MIB, `RSS grew ${result.growth.toFixed(1)} MiB after the warm-up`);
});
