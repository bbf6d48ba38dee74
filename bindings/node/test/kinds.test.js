'use strict';
// Every factor kind and audit kind of the checkout's mfa_types.h is exported with the
// header's number and declared in index.d.ts: a kind libmfa adds fails this until the
// binding names it.
const { it } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { mfa } = require('./support');

it('names every factor and audit kind of the header, with its number', () => {
  const header = fs.readFileSync(path.join(__dirname, '..', '..', '..', 'include', 'mfa_types.h'), 'utf8');
  const types = fs.readFileSync(path.join(__dirname, '..', 'index.d.ts'), 'utf8');
  const kinds = [...header.matchAll(/^#define MFA_((?:FACTOR|AUDIT)_[A-Z0-9_]+) (\d+)$/gm)];
  assert.ok(kinds.length >= 30);
  for (const [, name, value] of kinds) {
    assert.equal(mfa[name], Number(value), name);
    assert.ok(types.includes(`export const ${name}: number;`), `${name} in index.d.ts`);
  }
});
