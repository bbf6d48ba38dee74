'use strict';
// index.d.ts: it declares every export of index.js, and TypeScript (Debian's node-typescript,
// set up by scripts/setup.sh) accepts what a user writes (types/usage.ts) with --strict and
// catches the mistakes in types/mistakes.ts, each on its line.
const { it } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const mfa = require('..');

const ROOT = path.join(__dirname, '..');

/** The TypeScript compiler: LIBMFA_TSC, or Debian's node-typescript (scripts/setup.sh installs it). */
function tsc() {
  const candidates = [process.env.LIBMFA_TSC, '/usr/share/nodejs/typescript/bin/tsc'];
  for (const candidate of candidates) if (candidate && fs.existsSync(candidate)) return candidate;
  return null;
}

function compile(file) {
  const compiler = tsc();
  const args = [compiler, '--noEmit', '--strict', '--target', 'es2022', '--module', 'commonjs',
    '--lib', 'es2022,esnext.asynciterable', '--typeRoots', path.join(ROOT, 'test', 'types', 'none'), file];
  try {
    execFileSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8', stdio: 'pipe' });
    return '';
  } catch (error) {
    return String(error.stdout) + String(error.stderr);
  }
}

it('declares every export of index.js', () => {
  const declared = new Set();
  const text = fs.readFileSync(path.join(ROOT, 'index.d.ts'), 'utf8');
  for (const match of text.matchAll(/^export (?:declare )?(?:class|const|function|type|interface) (\w+)/gm)) declared.add(match[1]);
  const missing = Object.keys(mfa).filter((name) => !declared.has(name));
  // Error classes of statuses a newer library names are made at load: they are MFAErrors.
  const undeclared = missing.filter((name) => !(mfa[name] && mfa[name].prototype instanceof mfa.MFAError));
  assert.deepEqual(undeclared, []);
  const extra = [...declared].filter((name) => !(name in mfa) && !isTypeOnly(text, name));
  assert.deepEqual(extra, []);
});

function isTypeOnly(text, name) {
  return new RegExp(`^export (?:type|interface) ${name}\\b`, 'm').test(text);
}

it('type-checks a user\'s program with tsc --strict, and catches the mistakes', { skip: !tsc() && process.env.CI !== 'true' && 'no tsc' }, () => {
  assert.ok(tsc(), 'TypeScript is not installed: run scripts/setup.sh');
  assert.equal(compile('test/types/usage.ts'), '');
  const output = compile('test/types/mistakes.ts');
  const source = fs.readFileSync(path.join(ROOT, 'test', 'types', 'mistakes.ts'), 'utf8').split('\n');
  const expected = source.map((line, i) => (line.includes('// error:') ? i + 1 : 0)).filter(Boolean);
  const reported = [...new Set([...output.matchAll(/mistakes\.ts\((\d+),\d+\): error/g)].map((m) => Number(m[1])))];
  assert.deepEqual(reported, expected, output);
});
