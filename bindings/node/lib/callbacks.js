'use strict';
// The host's callbacks as the addon calls them (src/callbacks.c).
//
// libmfa calls a callback synchronously, on the worker thread that runs the call; the addon
// brings the question to the JS thread and waits there (at most callbackTimeoutMs) for the
// answer. The functions here are what it calls: fn(reply, ...args) for the callbacks that
// answer, fn(event) for the events. They make the user's function safe to call: it may
// return its answer or a promise of it; an exception, a rejection or an unusable value gives
// the safe answer (the system clock, no random bytes, a failed send, a rejected credential or
// attestation, a stopped batch) and is reported to onCallbackError (by default a process
// warning that names the callback and the error's class, never its arguments).

const APP_ACTIONS = { 1: 'enrollment', 2: 'signIn' };

/** The default report of a failed callback: a process warning, without the arguments. */
function defaultOnError(error, name) {
  const kind = error && error.constructor ? error.constructor.name : typeof error;
  process.emitWarning(`libmfa: the ${name} callback failed (${kind}); the safe answer was used`, 'LibmfaWarning');
}

function systemNow() {
  return Math.floor(Date.now() / 1000);
}

/**
 * An answering callback: `convert` turns the user's value into the addon's (throwing if it is
 * unusable), `safe` is the answer when anything goes wrong.
 */
function answering(name, fn, convert, safe, onError) {
  return (reply, ...args) => {
    let settled = false;
    const finish = (value) => {
      if (!settled) {
        settled = true;
        reply(value);
      }
    };
    const fail = (error) => {
      try {
        onError(error, name);
      } catch {
        // the report of a failure must not fail the answer
      }
      finish(safe(...args));
    };
    const take = (value) => {
      let converted;
      try {
        converted = convert(value, ...args);
      } catch (error) {
        return fail(error);
      }
      finish(converted);
    };
    let result;
    try {
      result = fn(...args);
    } catch (error) {
      return fail(error);
    }
    if (result && typeof result.then === 'function') result.then(take, fail);
    else take(result);
  };
}

function clockValue(value) {
  if (value instanceof Date) value = value.getTime() / 1000;
  if (typeof value === 'bigint') return value;
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new TypeError('the clock returned no time');
  return Math.floor(value);
}

function randomValue(value, length) {
  if (!ArrayBuffer.isView(value)) throw new TypeError('the random callback returned no bytes');
  const buffer = Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  if (buffer.length !== length) throw new RangeError(`the random callback returned ${buffer.length} bytes, ${length} were asked for`);
  return buffer;
}

/** The context's callbacks, wrapped: the object the addon's open() reads. */
function contextCallbacks(options, makeAuditEvent, makeAttestation) {
  const onError = options.onCallbackError || defaultOnError;
  const wrapped = {};
  if (options.clock) wrapped.clock = answering('clock', options.clock, clockValue, systemNow, onError);
  if (options.random) wrapped.random = answering('random', options.random, randomValue, () => null, onError);
  if (options.smsSender) {
    wrapped.smsSender = answering('smsSender', options.smsSender, () => true, () => false, onError);
  }
  if (options.appVerifier) {
    const verify = options.appVerifier;
    wrapped.appVerifier = answering('appVerifier', (credential, action) => {
      const name = APP_ACTIONS[action];
      if (!name) throw new RangeError(`unknown app verification action ${action}`);
      return verify(credential, name);
    }, (verdict) => verdict === true, () => false, onError);
  }
  if (options.webauthnTrust) {
    const trust = options.webauthnTrust;
    wrapped.webauthnTrust = answering('webauthnTrust', (attestation) => trust(makeAttestation(attestation)),
      (verdict) => verdict === true, () => false, onError);
  }
  if (options.audit) {
    const audit = options.audit;
    wrapped.audit = (event) => {
      try {
        const result = audit(makeAuditEvent(event));
        if (result && typeof result.then === 'function') result.then(undefined, (error) => onError(error, 'audit'));
      } catch (error) {
        onError(error, 'audit');
      }
    };
  }
  return wrapped;
}

/**
 * The callbacks of one long call (imports, key rotation, seal checks): report(line) and
 * progress(done, total). An exception from either stops the call after the batch in progress;
 * `failure()` then gives it, for the call to throw.
 */
function callCallbacks({ report, progress }, makeLine, collected) {
  let failed = null;
  const keep = (error) => {
    if (!failed) failed = { error };
  };
  const wrapped = {
    failure: () => failed && failed.error,
    report: (line) => {
      if (failed) return;
      const value = makeLine(line);
      if (!report) return collected.push(value);
      try {
        const result = report(value);
        if (result && typeof result.then === 'function') result.then(undefined, keep);
      } catch (error) {
        keep(error);
      }
    },
    progress: answering('progress', (done, total) => {
      if (failed) return false;
      return progress ? progress(done, total) : true;
    }, (verdict) => verdict !== false && !failed, () => false, (error, name) => {
      keep(error);
      void name;
    }),
  };
  return wrapped;
}

module.exports = { contextCallbacks, callCallbacks, defaultOnError, APP_ACTIONS };
