#!/usr/bin/env node
// Where libmfa's header and library are, for binding.gyp: `node scripts/configure.js include`
// prints the folder that holds mfa.h, `... library` the library file the addon loads when
// LIBMFA_LIBRARY is not set at run time (empty: libmfa.so.0 on the system's search path).
//
// In order: the environment (LIBMFA_INCLUDE_DIR, LIBMFA_LIBRARY), the libmfa checkout this
// binding sits in (its include/ and its CMake build/), then an installed libmfa found with
// `pkg-config mfa` (its includedir and libdir).
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');

const repo = path.resolve(__dirname, '..', '..', '..');

function pkgConfig(variable) {
  try {
    return execFileSync('pkg-config', ['--variable=' + variable, 'mfa'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return '';
  }
}

function include() {
  if (process.env.LIBMFA_INCLUDE_DIR) return process.env.LIBMFA_INCLUDE_DIR;
  const local = path.join(repo, 'include');
  if (fs.existsSync(path.join(local, 'mfa.h'))) return local;
  const installed = pkgConfig('includedir');
  if (installed && fs.existsSync(path.join(installed, 'mfa.h'))) return installed;
  throw new Error('mfa.h not found: set LIBMFA_INCLUDE_DIR, or install libmfa so that `pkg-config mfa` finds it');
}

function library() {
  if (process.env.LIBMFA_LIBRARY) return path.resolve(process.env.LIBMFA_LIBRARY);
  const local = path.join(repo, 'build', 'libmfa.so');
  if (fs.existsSync(local)) return local;
  const libdir = pkgConfig('libdir');
  if (libdir && fs.existsSync(path.join(libdir, 'libmfa.so.0'))) return path.join(libdir, 'libmfa.so.0');
  return '';
}

const what = process.argv[2];
if (what === 'include') process.stdout.write(include());
else if (what === 'library') process.stdout.write(library());
else {
  process.stderr.write('usage: configure.js include|library\n');
  process.exit(2);
}
