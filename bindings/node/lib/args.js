'use strict';
// Checks of JS arguments shared by the modules: wrong types are TypeErrors (code
// ERR_INVALID_ARG_TYPE), values libmfa refuses are its InvalidArgumentError.
const { invalid } = require('./errors');
const { ALGORITHMS } = require('./constants');

function typeError(message) {
  const error = new TypeError(message);
  error.code = 'ERR_INVALID_ARG_TYPE';
  return error;
}

function describe(value) {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : typeof value;
}

/** `value` if it is a string, else TypeError. */
function text(value, what) {
  if (typeof value !== 'string') throw typeError(`${what} must be a string, not ${describe(value)}`);
  return value;
}

/** A string, or null for null/undefined. */
function optionalText(value, what) {
  if (value === undefined || value === null) return null;
  return text(value, what);
}

/** Bytes as a Buffer (a copy is not made): Buffer, TypedArray, DataView or ArrayBuffer. */
function bytes(value, what) {
  if (Buffer.isBuffer(value)) return value;
  if (ArrayBuffer.isView(value)) return Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  if (value instanceof ArrayBuffer) return Buffer.from(value);
  throw typeError(`${what} must be a Buffer or a Uint8Array, not ${describe(value)}`);
}

/** Unix seconds from a number (rounded down), a bigint or a Date. */
function unixTime(value, what) {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw invalid(`${what} must be a finite number`);
    return Math.floor(value);
  }
  if (typeof value === 'bigint') return value;
  if (value instanceof Date) {
    const ms = value.getTime();
    if (!Number.isFinite(ms)) throw invalid(`${what} is an invalid Date`);
    return Math.floor(ms / 1000);
  }
  throw typeError(`${what} must be Unix seconds (a number) or a Date, not ${describe(value)}`);
}

/** Unix milliseconds from a number (rounded down), a bigint or a Date. */
function unixTimeMs(value, what) {
  if (value instanceof Date) {
    const ms = value.getTime();
    if (!Number.isFinite(ms)) throw invalid(`${what} is an invalid Date`);
    return ms;
  }
  return unixTime(value, what);
}

/** An integer (number or bigint). */
function integer(value, what) {
  if (typeof value === 'bigint') return value;
  if (typeof value !== 'number') throw typeError(`${what} must be a number, not ${describe(value)}`);
  if (!Number.isInteger(value)) throw invalid(`${what} must be an integer`);
  return value;
}

/** An integer in [min, max]. */
function inRange(value, min, max, what) {
  const number = integer(value, what);
  if (number < min || number > max) throw invalid(`${what} must be ${min} to ${max}, got ${number}`);
  return Number(number);
}

/** An algorithm name ("SHA1", any case) or ALG_* number -> its number. */
function algorithm(value) {
  if (typeof value === 'number') {
    if (!Object.values(ALGORITHMS).includes(value)) throw invalid(`unknown algorithm ${value}`);
    return value;
  }
  const name = text(value, 'algorithm').toUpperCase().replace('-', '');
  if (!(name in ALGORITHMS)) throw invalid(`unknown algorithm ${JSON.stringify(value)} (use SHA1, SHA256 or SHA512)`);
  return ALGORITHMS[name];
}

/** An ALG_* number -> its name. */
function algorithmName(number) {
  for (const [name, value] of Object.entries(ALGORITHMS)) if (value === number) return name;
  return `ALG_${number}`;
}

/** An options object (undefined is {}). */
function options(value, what = 'options') {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw typeError(`${what} must be an object, not ${describe(value)}`);
  return value;
}

/** A function or null. */
function optionalFunction(value, what) {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'function') throw typeError(`${what} must be a function, not ${describe(value)}`);
  return value;
}

/** The enrollment id of a factor, an admin factor or an id string. */
function enrollmentId(value, what = 'enrollmentId') {
  if (value && typeof value === 'object') {
    if (value.info && typeof value.info.uid === 'string') return value.info.uid;
    if (typeof value.uid === 'string') return value.uid;
  }
  return text(value, what);
}

/** The plain user object the addon reads: {uid, tenant, email, emailVerified, provider, authTime}. */
function user(value) {
  if (!value || typeof value !== 'object') throw typeError(`user must be an object, not ${describe(value)}`);
  const { uid, tenant = null, email = null, emailVerified = false, provider = 'password', authTime } = value;
  text(uid, 'user.uid');
  optionalText(tenant, 'user.tenant');
  optionalText(email, 'user.email');
  text(provider, 'user.provider');
  if (typeof emailVerified !== 'boolean') throw typeError('user.emailVerified must be a boolean');
  if (authTime === undefined || authTime === null) {
    throw typeError('user.authTime is required: when the user passed the first factor (Unix seconds or a Date)');
  }
  return { uid, tenant, email, emailVerified, provider, authTime: unixTime(authTime, 'user.authTime') };
}

module.exports = {
  typeError, text, optionalText, bytes, unixTime, unixTimeMs, integer, inRange, algorithm, algorithmName, options,
  optionalFunction, enrollmentId, user,
};
