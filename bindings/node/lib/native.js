'use strict';
// The addon (build/Release/mfa.node), loaded once. Loading it loads libmfa: LIBMFA_LIBRARY
// (a full path) when it is set, else the library found when the addon was built, else
// libmfa.so.0 on the system's search path. LIBMFA_NODE_ADDON names another addon file.
const path = require('node:path');

function load() {
  const candidates = process.env.LIBMFA_NODE_ADDON
    ? [process.env.LIBMFA_NODE_ADDON]
    : [path.join(__dirname, '..', 'build', 'Release', 'mfa.node'), path.join(__dirname, '..', 'build', 'Debug', 'mfa.node')];
  let first;
  for (const file of candidates) {
    try {
      return require(file);
    } catch (error) {
      // A missing file tries the next candidate; anything else (libmfa not found) is the answer.
      if (error.code !== 'MODULE_NOT_FOUND' || !String(error.message).includes(file)) throw error;
      first = first || error;
    }
  }
  const error = new Error('the libmfa addon is not built: run `node-gyp rebuild --nodedir=/usr` in ' +
    path.join(__dirname, '..') + ' (see docs/bindings/node.md)');
  error.code = 'ERR_LIBMFA_NOT_BUILT';
  error.cause = first;
  throw error;
}

module.exports = load();
