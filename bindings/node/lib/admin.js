'use strict';
// The operator's side: Admin (no user sign-in; the host decides who may). Calls that change
// something record the actor in their audit events.
const native = require('./native');
const args = require('./args');
const C = require('./constants');
const { invalid } = require('./errors');
const { MultiFactorInfo } = require('./models');
const { callCallbacks } = require('./callbacks');

/** listUsers() filter: the project and every tenant (the default). */
const ALL_TENANTS = Object.freeze({ toString: () => 'ALL_TENANTS' });

const FORMATS = { otpauth: C.IMPORT_OTPAUTH, users_file: C.IMPORT_USERS_FILE, 'users-file': C.IMPORT_USERS_FILE, usersFile: C.IMPORT_USERS_FILE, csv: C.IMPORT_CSV };

function adminFactor(fields) {
  return fields && Object.freeze({ tenant: fields.tenant, uid: fields.uid, info: new MultiFactorInfo(fields.info) });
}

function importLine(fields) {
  return Object.freeze({ ...fields });
}

function importText(text) {
  if (typeof text === 'string') return Buffer.from(text, 'utf8');
  return args.bytes(text, 'text');
}

function flags(showPhoneNumbers) {
  return showPhoneNumbers ? C.ADMIN_SHOW_PHONE_NUMBERS : 0;
}

/** The administrative calls of a context, made by one actor. */
class Admin {
  constructor(context, actor) {
    this.context = context;
    this.actor = args.text(actor, 'actor');
    const bytes = Buffer.byteLength(this.actor);
    if (bytes < 1 || bytes > C.ACTOR_MAX_BYTES) throw invalid(`actor must be 1 to ${C.ACTOR_MAX_BYTES} bytes`);
    Object.freeze(this);
  }

  /** One page of the users with second factors: {users, nextCursor}. */
  async listUsers(options) {
    const { tenant = ALL_TENANTS, factorId = null, limit = 100, cursor = null } = args.options(options);
    const page = await this.context._call(native.adminListUsers,
      tenant === ALL_TENANTS ? null : tenant === null ? '' : args.text(tenant, 'tenant'),
      args.optionalText(factorId, 'factorId'), args.integer(limit, 'limit'), args.optionalText(cursor, 'cursor'));
    return Object.freeze({
      users: Object.freeze(page.users.map((u) => Object.freeze({
        tenant: u.tenant, uid: u.uid, factorTotal: u.factorTotal,
        factorCounts: Object.freeze(Object.fromEntries(u.kinds.map((k) => [k.factorId, k.count]))),
      }))),
      nextCursor: page.nextCursor,
    });
  }

  /** Every user with factors, page after page (an async iterator). */
  async *users(options) {
    const { pageSize = 100, ...rest } = args.options(options);
    let cursor = null;
    do {
      const page = await this.listUsers({ ...rest, limit: pageSize, cursor });
      yield* page.users;
      cursor = page.nextCursor;
    } while (cursor !== null);
  }

  /** One user's factors, oldest first (phone numbers masked unless showPhoneNumbers). */
  async userFactors(uid, options) {
    const { tenant = null, showPhoneNumbers = false } = args.options(options);
    const list = await this.context._call(native.adminUserFactors, args.optionalText(tenant, 'tenant'),
      args.text(uid, 'uid'), flags(showPhoneNumbers));
    return list.map((fields) => new MultiFactorInfo(fields));
  }

  /** One factor, by enrollment id, with its user: {tenant, uid, info}. */
  async factor(enrollmentId, options) {
    const { showPhoneNumbers = false } = args.options(options);
    return adminFactor(await this.context._call(native.adminFactorGet, args.enrollmentId(enrollmentId), flags(showPhoneNumbers)));
  }

  /** Removes a factor, whoever has it; revokes that user's credentials and tokens. */
  async unenroll(enrollmentId) {
    return adminFactor(await this.context._call(native.adminUnenroll, args.enrollmentId(enrollmentId), this.actor));
  }

  /** Renames a factor (null or "" removes its name). */
  async rename(enrollmentId, displayName) {
    return adminFactor(await this.context._call(native.adminRename, args.enrollmentId(enrollmentId),
      args.optionalText(displayName, 'displayName'), this.actor));
  }

  /** Resets a user who lost their factors: every factor removed, backoff cleared, tokens revoked. */
  async resetUser(uid, tenant = null) {
    const list = await this.context._call(native.adminResetUser, args.optionalText(tenant, 'tenant'), args.text(uid, 'uid'), this.actor);
    return list.map((fields) => new MultiFactorInfo(fields));
  }

  /** Deletes everything stored about a user (an erasure request); only a revocation marker stays. */
  async deleteUser(uid, tenant = null) {
    const list = await this.context._call(native.adminDeleteUser, args.optionalText(tenant, 'tenant'), args.text(uid, 'uid'), this.actor);
    return list.map((fields) => new MultiFactorInfo(fields));
  }

  /** Users and factors counted per tenant and kind. */
  async stats() {
    const s = await this.context._call(native.adminStats);
    return Object.freeze({
      rows: Object.freeze(s.rows.map((row) => Object.freeze(row))),
      tenantUsers: Object.freeze(s.tenantUsers.map((t) => Object.freeze(t))),
      totalUsers: s.totalUsers,
      totalFactors: s.totalFactors,
    });
  }

  /**
   * Imports TOTP factors from another system, one per line of `text`: format "otpauth",
   * "users_file" or "csv" (or IMPORT_*). Lines are reported (to `report`, else in the summary's
   * `reports`); `progress(done, total)` after each batch may return false to stop. If `report`
   * or `progress` throws, the import stops after the batch in progress and the call rejects
   * with that error.
   */
  async importFactors(text, format, options) {
    const { tenant = null, batchSize = C.IMPORT_BATCH_DEFAULT, report = null, progress = null } = args.options(options);
    let number = format;
    if (typeof format === 'string') {
      number = FORMATS[format] ?? FORMATS[format.toLowerCase()];
      if (number === undefined) throw invalid(`unknown import format ${JSON.stringify(format)} (use otpauth, users_file or csv)`);
    } else {
      args.integer(format, 'format');
    }
    return this._import(native.importFactors, [number, importText(text)], { tenant, batchSize, report, progress });
  }

  /** Imports one user's google-authenticator-libpam file: its secret and its scratch codes. */
  async importGoogleAuthenticator(text, uid, options) {
    const { tenant = null, report = null } = args.options(options);
    return this._import(native.importGoogleAuthenticator, [args.text(uid, 'uid'), importText(text)],
      { tenant, batchSize: C.IMPORT_BATCH_DEFAULT, report, progress: null });
  }

  async _import(fn, leading, { tenant, batchSize, report, progress }) {
    args.optionalFunction(report, 'report');
    args.optionalFunction(progress, 'progress');
    const collected = [];
    const call = callCallbacks({ report, progress }, importLine, collected);
    const summary = await this.context._call(fn, ...leading, {
      actor: this.actor, tenant: args.optionalText(tenant, 'tenant'), batchSize: args.integer(batchSize, 'batchSize'),
      report: call.report, progress: call.progress,
    });
    if (call.failure()) throw call.failure();
    return Object.freeze({ ...summary, reports: Object.freeze(report ? [] : collected) });
  }

  /** Re-encrypts stored secrets not under the current key, in batches: {rotated, remaining, stopped}. */
  async rotateKeys(options) {
    const { batchSize = 500, progress = null } = args.options(options);
    args.optionalFunction(progress, 'progress');
    const call = callCallbacks({ progress }, importLine, []);
    const result = await this.context._call(native.rotateKeysBatched, args.integer(batchSize, 'batchSize'), this.actor,
      progress ? call.progress : null);
    if (call.failure()) throw call.failure();
    return Object.freeze(result);
  }

  /** Opens every sealed record with the context's keys: {checked, failed, failedIds, stopped}. */
  async checkSeals(options) {
    const { batchSize = 1000, progress = null } = args.options(options);
    args.optionalFunction(progress, 'progress');
    const call = callCallbacks({ progress }, importLine, []);
    const result = await this.context._call(native.checkSeals, args.integer(batchSize, 'batchSize'),
      progress ? call.progress : null);
    if (call.failure()) throw call.failure();
    return Object.freeze({ ...result, failedIds: Object.freeze(result.failedIds) });
  }
}

module.exports = { Admin, ALL_TENANTS };
