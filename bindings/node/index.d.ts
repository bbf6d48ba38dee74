// Type declarations of libmfa for Node.js (index.js). Checked with `tsc --noEmit --strict`
// against test/types/usage.ts by the test command. They do not need @types/node: byte values
// are `Buffer` when @types/node is there and a Uint8Array interface otherwise (see below).

declare global {
  /** Node's Buffer (a Uint8Array); @types/node, when present, gives it its methods. */
  interface Buffer extends Uint8Array {}
}

/** Bytes given to libmfa: a Buffer, any TypedArray or DataView, or an ArrayBuffer. */
export type Bytes = Uint8Array | ArrayBufferView | ArrayBuffer;
/** A time: Unix seconds (a number, rounded down, or a bigint) or a Date. */
export type UnixTime = number | bigint | Date;
/** An HMAC algorithm: "SHA1", "SHA256", "SHA512" (any case) or an ALG_* number. */
export type Algorithm = 'SHA1' | 'SHA256' | 'SHA512' | 'sha1' | 'sha256' | 'sha512' | number;

// --- errors ----------------------------------------------------------------------------

/** A libmfa call failed: `code` is the status's stable name, `status` its number. */
export class MFAError extends Error {
  constructor(message?: string, status?: number);
  /** The status's stable name: "INVALID_VERIFICATION_CODE", "INVALID_SESSION", ... */
  readonly code: string;
  /** The status code (negative). */
  readonly status: number;
  /** The class's status code. */
  static readonly status: number;
  /** The class's status name. */
  static readonly code: string;
}
export class InvalidArgumentError extends MFAError {}
export class OperationNotAllowedError extends MFAError {}
export class UnverifiedEmailError extends MFAError {}
export class UnsupportedFirstFactorError extends MFAError {}
export class RequiresRecentLoginError extends MFAError {}
export class InvalidPhoneNumberError extends MFAError {}
export class SecondFactorExistsError extends MFAError {}
export class SecondFactorLimitExceededError extends MFAError {}
export class MissingAppCredentialError extends MFAError {}
export class InvalidAppCredentialError extends MFAError {}
export class InvalidVerificationCodeError extends MFAError {}
export class CodeExpiredError extends MFAError {}
export class InvalidSessionError extends MFAError {}
export class MFAEnrollmentNotFoundError extends MFAError {}
/** The first factor passed; a second factor is required: `resolver` finishes the sign-in. */
export class SecondFactorRequired extends MFAError {
  resolver: MultiFactorResolver | null;
}
export class EnrollmentRequiredError extends MFAError {}
export class TooManyAttemptsError extends MFAError {}
export class QuotaExceededError extends MFAError {}
export class UserTokenExpiredError extends MFAError {}
export class TenantMismatchError extends MFAError {}
export class StorageError extends MFAError {}
export class InvalidBase32Error extends MFAError {}
export class InvalidURIError extends MFAError {}
export class BufferTooSmallError extends MFAError {}
export class OutOfMemoryError extends MFAError {}
export class CryptoError extends MFAError {}
export class InternalError extends MFAError {}
export class SMSSendFailedError extends MFAError {}
export class OriginMismatchError extends MFAError {}
export class RPIDMismatchError extends MFAError {}
export class CredentialClonedError extends MFAError {}
export class AttestationNotTrustedError extends MFAError {}
export class UserVerificationRequiredError extends MFAError {}
export class KeyMismatchError extends MFAError {}
export class InvalidEmailError extends MFAError {}
export class EmailSendFailedError extends MFAError {}
export class DeviceNotFoundError extends MFAError {}
/** The error class of each status the loaded library names (a newer library's too). */
export const ERRORS: ReadonlyMap<number, typeof MFAError>;
/** Status codes by name, of the loaded library. */
export const Status: Readonly<Record<string, number>> & {
  readonly OK: 0;
  readonly INVALID_ARGUMENT: -1;
  readonly INVALID_VERIFICATION_CODE: -11;
  readonly INVALID_SESSION: -13;
  readonly SECOND_FACTOR_REQUIRED: -15;
  readonly USER_TOKEN_EXPIRED: -19;
};

// --- values ----------------------------------------------------------------------------

/** A user as the host knows them after the first factor. */
export interface User {
  /** 1 to 128 bytes of UTF-8. */
  uid: string;
  /** The tenant, or null for the project. */
  tenant?: string | null;
  email?: string | null;
  /** Enrolling needs a verified email. */
  emailVerified?: boolean;
  /** "password", "emailLink", "google.com", ... ("phone", "anonymous", "custom", "gc.apple.com" cannot carry MFA). */
  provider?: string;
  /** When the user passed the first factor. */
  authTime: UnixTime;
}

/** One enrolled second factor, of any kind. */
export class MultiFactorInfo {
  private constructor();
  readonly uid: string;
  readonly factorId: string;
  readonly displayName: string | null;
  readonly enrollmentTime: number;
  /** For phone factors the number (masked in hints). */
  readonly phoneNumber: string | null;
  /** FACTOR_*. */
  readonly kind: number;
  /** What identifies the factor to its user, never secret. */
  readonly hint: string;
  /** For a recovery-code set, the codes left. */
  readonly remainingCodes: number | null;
}

/** A finished sign-in. */
export class SignInResult {
  private constructor();
  readonly uid: string;
  readonly tenant: string | null;
  readonly factorId: string | null;
  readonly enrollmentId: string | null;
  readonly time: number;
  readonly kind: number | null;
  /** sign_in_second_factor, second_factor_identifier and any the kind adds. */
  readonly claims: Readonly<Record<string, string>>;
  readonly usedRecoveryCode: boolean;
}

/** One audit event (never a secret, a code or a token). */
export class AuditEvent {
  private constructor();
  readonly kind: number;
  readonly kindName: string;
  readonly tenant: string | null;
  readonly uid: string | null;
  readonly factorId: string | null;
  readonly enrollmentId: string | null;
  readonly time: number;
  readonly detail: string;
  readonly actor: string | null;
}

/** A WebAuthn attestation, as a webauthnTrust callback sees it. */
export interface WebAuthnAttestation {
  readonly format: string;
  readonly kind: string;
  readonly aaguid: Buffer;
  readonly certificates: readonly Buffer[];
  readonly chainTrusted: boolean;
  readonly tenant: string | null;
  readonly uid: string;
}

// --- the engine --------------------------------------------------------------------------

export interface ContextOptions {
  /** An SQLite file, ":memory:" (the default) or a postgres:// URL. */
  store?: string;
  /** The 32-byte master key. */
  masterKey: Bytes;
  /** Its id ("k1"). */
  keyId?: string;
  /** Earlier keys still needed to read records not yet rotated. */
  previousKeys?: Record<string, Bytes> | Map<string, Bytes> | Array<[string, Bytes]>;
  clock?: () => UnixTime | Promise<UnixTime>;
  random?: (length: number) => Uint8Array | Promise<Uint8Array>;
  audit?: (event: AuditEvent) => unknown;
  /** Resolving sends; throwing or rejecting fails the send (SMS_SEND_FAILED). */
  smsSender?: (phoneNumber: string, message: string) => unknown;
  smsOutbox?: string;
  /** Exactly true accepts the credential. */
  appVerifier?: (credential: string, action: 'enrollment' | 'signIn') => boolean | Promise<boolean>;
  /** Exactly true trusts the attestation. */
  webauthnTrust?: (attestation: WebAuthnAttestation) => boolean | Promise<boolean>;
  /** Called when a callback throws, rejects or answers something unusable; a process warning by default. */
  onCallbackError?: (error: unknown, callbackName: string) => void;
  /** How long a call waits for a callback's answer (30000 ms). */
  callbackTimeoutMs?: number;
  /** Worker threads the environment runs at least (4). */
  threads?: number;
}

/** The MFA engine on one store. */
export class Context {
  private constructor();
  static open(options: ContextOptions): Promise<Context>;
  readonly store: string;
  readonly closed: boolean;
  close(): Promise<void>;
  setConfig(config: object | string, tenant?: string | null): Promise<void>;
  updateConfig(config: object | string, tenant?: string | null): Promise<void>;
  config(tenant?: string | null): Promise<Record<string, any>>;
  /** The context's metrics in Prometheus' text exposition format (version 0.0.4), for /metrics. */
  metricsText(): Promise<string>;
  multiFactor(user: User): MultiFactor;
  /** Resolves when no second factor is needed; rejects with SecondFactorRequired otherwise. */
  signIn(user: User): Promise<SignInResult>;
  resolver(pendingCredential: string, tenant?: string | null): Promise<MultiFactorResolver>;
  checkToken(uid: string, issuedAt: UnixTime, tenant?: string | null): Promise<void>;
  checkTokenMs(uid: string, issuedAtMs: number | bigint | Date, tenant?: string | null): Promise<void>;
  revokeTokens(uid: string, tenant?: string | null): Promise<void>;
  passedSecondFactor(uid: string, withinSeconds: number, tenant?: string | null): Promise<boolean>;
  admin(actor: string): Admin;
  importTotp(user: User, secret: Bytes | TOTP, displayName?: string | null): Promise<MultiFactorInfo>;
  importUri(user: User, uri: string, displayName?: string | null): Promise<MultiFactorInfo>;
  rotateKeys(): Promise<number>;
  purgeExpired(): Promise<void>;
}

export class MultiFactorSession {
  constructor(token: string, context: Context);
  readonly token: string;
  readonly context: Context;
}

/** The fields of libmfa's generic assertion. */
export interface AssertionFields {
  enrollmentId?: string | null;
  sessionInfo?: string | null;
  verificationId?: string | null;
  code?: string | null;
  credential?: string | null;
}

/** Proof of a second factor, of any kind. */
export class MultiFactorAssertion {
  constructor(kind: number, factorId: string, fields: AssertionFields, purpose?: 'enrollment' | 'signIn' | 'both');
  readonly kind: number;
  readonly factorId: string;
}

export class MultiFactor {
  constructor(context: Context, user: User);
  readonly context: Context;
  session(): Promise<MultiFactorSession>;
  enrolledFactors(): Promise<MultiFactorInfo[]>;
  enroll(assertion: MultiFactorAssertion, displayName?: string | null): Promise<MultiFactorInfo>;
  unenroll(factor: MultiFactorInfo | string): Promise<void>;
}

export class MultiFactorResolver {
  private constructor();
  readonly context: Context;
  readonly session: string;
  readonly uid: string;
  readonly tenant: string | null;
  readonly hints: readonly MultiFactorInfo[];
  resolveSignIn(assertion: MultiFactorAssertion): Promise<SignInResult>;
}

// TOTP
export class TOTPSecret {
  private constructor();
  readonly sharedSecretKey: string;
  readonly hashingAlgorithm: string;
  readonly codeLength: number;
  readonly codeIntervalSeconds: number;
  readonly enrollmentCompletionDeadline: number;
  readonly sessionInfo: string;
  generateQrCodeUrl(accountName: string, issuer?: string | null): string;
  qrPng(accountName: string, issuer?: string | null): Buffer;
  qrSvg(accountName: string, issuer?: string | null): string;
  qrText(accountName: string, issuer?: string | null): string;
}
export class TOTPMultiFactorAssertion extends MultiFactorAssertion {}
export class TOTPMultiFactorGenerator {
  static readonly FACTOR_ID: 'totp';
  static generateSecret(session: MultiFactorSession): Promise<TOTPSecret>;
  /** `secret`: the TOTPSecret, or its sessionInfo. */
  static assertionForEnrollment(secret: TOTPSecret | string, oneTimePassword: string): TOTPMultiFactorAssertion;
  static assertionForSignIn(enrollmentId: MultiFactorInfo | string, oneTimePassword: string): TOTPMultiFactorAssertion;
}

// SMS
export class PhoneAuthCredential {
  constructor(verificationId: string, verificationCode: string);
  readonly verificationId: string;
  readonly verificationCode: string;
  readonly providerId: 'phone';
}
export class PhoneMultiFactorAssertion extends MultiFactorAssertion {}
export type PhoneInfoOptions =
  | { phoneNumber: string; session: MultiFactorSession | string }
  | { multiFactorHint: MultiFactorInfo | string; session: MultiFactorResolver | string; tenant?: string | null }
  | { multiFactorUid: string; session: MultiFactorResolver | string; tenant?: string | null };
export class PhoneAuthProvider {
  static readonly PROVIDER_ID: 'phone';
  constructor(context: Context);
  verifyPhoneNumber(phoneInfoOptions: PhoneInfoOptions, appCredential?: string | null): Promise<string>;
  verifyPhoneNumberForSignIn(hint: MultiFactorInfo | string, resolver: MultiFactorResolver | string,
    appCredential?: string | null, tenant?: string | null): Promise<string>;
  static credential(verificationId: string, verificationCode: string): PhoneAuthCredential;
}
export class PhoneMultiFactorGenerator {
  static readonly FACTOR_ID: 'phone';
  static assertion(credential: PhoneAuthCredential): PhoneMultiFactorAssertion;
}

// Recovery codes
export class RecoveryCodes {
  private constructor();
  readonly codes: readonly string[];
  readonly factor: MultiFactorInfo;
}
export class RecoveryCodeMultiFactorAssertion extends MultiFactorAssertion {}
export class RecoveryCodesMultiFactorGenerator {
  static readonly FACTOR_ID: 'recovery';
  static generateCodes(session: MultiFactorSession, displayName?: string | null): Promise<RecoveryCodes>;
  static assertionForSignIn(code: string, enrollmentId?: MultiFactorInfo | string | null): RecoveryCodeMultiFactorAssertion;
}

// WebAuthn
/** The browser's credential.toJSON(), or its JSON text. */
export type WebAuthnCredentialJSON = string | Record<string, unknown>;
export class WebAuthnMultiFactorAssertion extends MultiFactorAssertion {}
export class WebAuthnMultiFactorGenerator {
  static readonly FACTOR_ID: 'webauthn';
  static registrationOptions(session: MultiFactorSession, userName: string, userDisplayName?: string | null): Promise<Record<string, any>>;
  static assertionForEnrollment(credential: WebAuthnCredentialJSON): WebAuthnMultiFactorAssertion;
  static authenticationOptions(resolver: MultiFactorResolver, enrollmentId?: MultiFactorInfo | string | null): Promise<Record<string, any>>;
  static assertionForSignIn(credential: WebAuthnCredentialJSON, enrollmentId?: MultiFactorInfo | string | null): WebAuthnMultiFactorAssertion;
}
export interface WebAuthnCredential {
  readonly credentialId: Buffer;
  readonly publicKey: Buffer;
  readonly algorithm: number;
  readonly signCount: number;
  readonly flags: number;
  readonly aaguid: Buffer;
  readonly format: string;
  readonly attestationKind: string;
  readonly certificates: readonly Buffer[];
}
export const webauthn: {
  verifyRegistration(credential: WebAuthnCredentialJSON, challenge: string, rpId: string, origin: string,
    requireUserVerification?: boolean): WebAuthnCredential;
  verifyAssertion(credential: WebAuthnCredentialJSON, challenge: string, rpId: string, origin: string,
    publicKey: Bytes, requireUserVerification?: boolean): { readonly signCount: number; readonly flags: number };
};

// Administration
export const ALL_TENANTS: object;
export interface AdminUser {
  readonly tenant: string | null;
  readonly uid: string;
  readonly factorTotal: number;
  readonly factorCounts: Readonly<Record<string, number>>;
}
export interface AdminUserPage {
  readonly users: readonly AdminUser[];
  readonly nextCursor: string | null;
}
export interface AdminFactor {
  readonly tenant: string | null;
  readonly uid: string;
  readonly info: MultiFactorInfo;
}
export interface AdminStats {
  readonly rows: readonly { tenant: string | null; factorId: string; kind: number; factors: number; users: number }[];
  readonly tenantUsers: readonly { tenant: string | null; users: number }[];
  readonly totalUsers: number;
  readonly totalFactors: number;
}
export interface ImportLine {
  readonly line: number;
  readonly uid: string | null;
  readonly outcome: number;
  readonly outcomeName: string;
  readonly reason: string;
  readonly enrollmentId: string | null;
}
export interface ImportSummary {
  readonly lines: number;
  readonly imported: number;
  readonly alreadyImported: number;
  readonly unsupported: number;
  readonly failed: number;
  readonly recoveryCodes: number;
  readonly stopped: boolean;
  /** The line reports, when no report callback was given. */
  readonly reports: readonly ImportLine[];
}
/** Called after each batch; false stops the call there. */
export type Progress = (done: number, total: number) => boolean | void | Promise<boolean | void>;
export class Admin {
  constructor(context: Context, actor: string);
  readonly context: Context;
  readonly actor: string;
  listUsers(options?: { tenant?: string | null | object; factorId?: string | null; limit?: number; cursor?: string | null }): Promise<AdminUserPage>;
  users(options?: { tenant?: string | null | object; factorId?: string | null; pageSize?: number }): AsyncGenerator<AdminUser>;
  userFactors(uid: string, options?: { tenant?: string | null; showPhoneNumbers?: boolean }): Promise<MultiFactorInfo[]>;
  factor(enrollmentId: string | MultiFactorInfo | AdminFactor, options?: { showPhoneNumbers?: boolean }): Promise<AdminFactor>;
  unenroll(enrollmentId: string | MultiFactorInfo | AdminFactor): Promise<AdminFactor>;
  rename(enrollmentId: string | MultiFactorInfo | AdminFactor, displayName: string | null): Promise<AdminFactor>;
  resetUser(uid: string, tenant?: string | null): Promise<MultiFactorInfo[]>;
  deleteUser(uid: string, tenant?: string | null): Promise<MultiFactorInfo[]>;
  stats(): Promise<AdminStats>;
  importFactors(text: string | Bytes, format: 'otpauth' | 'users_file' | 'csv' | number,
    options?: { tenant?: string | null; batchSize?: number; report?: (line: ImportLine) => unknown; progress?: Progress }): Promise<ImportSummary>;
  importGoogleAuthenticator(text: string | Bytes, uid: string,
    options?: { tenant?: string | null; report?: (line: ImportLine) => unknown }): Promise<ImportSummary>;
  rotateKeys(options?: { batchSize?: number; progress?: Progress }): Promise<{ readonly rotated: number; readonly remaining: number; readonly stopped: boolean }>;
  checkSeals(options?: { batchSize?: number; progress?: Progress }): Promise<{ readonly checked: number; readonly failed: number; readonly failedIds: readonly string[]; readonly stopped: boolean }>;
}

// --- stateless -------------------------------------------------------------------------

export function randomSecret(length?: number): Buffer;

export interface TOTPOptions {
  digits?: number;
  period?: number;
  algorithm?: Algorithm;
  t0?: number;
}
export class TOTP {
  constructor(secret: Bytes, options?: TOTPOptions);
  readonly secret: Buffer;
  readonly digits: number;
  readonly period: number;
  readonly algorithm: string;
  readonly t0: number;
  timecode(time: UnixTime): number;
  at(time: UnixTime): string;
  now(): string;
  verify(code: string, at?: UnixTime, window?: number): boolean;
  match(code: string, at?: UnixTime, window?: number): number | null;
  provisioningUri(account: string, issuer?: string | null): string;
}
export class HOTP {
  constructor(secret: Bytes, options?: { digits?: number; algorithm?: Algorithm });
  readonly secret: Buffer;
  readonly digits: number;
  readonly algorithm: string;
  at(counter: number | bigint): string;
  verify(code: string, counter: number | bigint, lookAhead?: number): boolean;
  /** The counter that matched (a bigint past 2**53 - 1), or null. */
  match(code: string, counter: number | bigint, lookAhead?: number): number | bigint | null;
}

export function base32Encode(data: Bytes, options?: { padding?: boolean }): string;
export function base32Decode(text: string): Buffer;

export interface KeyURIFields {
  kind?: 'totp' | 'hotp';
  issuer?: string | null;
  account: string;
  secret: Bytes;
  algorithm?: Algorithm;
  digits?: number;
  period?: number;
  counter?: number | bigint;
}
export class KeyURI {
  constructor(fields: KeyURIFields);
  kind: 'totp' | 'hotp';
  issuer: string | null;
  account: string;
  secret: Buffer;
  algorithm: string;
  digits: number;
  period: number;
  counter: number | bigint;
  toUri(): string;
  toOtp(): TOTP | HOTP;
}
export function parseUri(text: string): KeyURI;
export function buildUri(fields: KeyURIFields): string;
export function qrCode(text: string, format?: 'png'): Buffer;
export function qrCode(text: string, format: 'svg' | 'text'): string;

export interface OutboxMessage {
  time: number;
  to: string;
  message: string;
  code: string | null;
}
export function readOutbox(file: string): OutboxMessage[];
export function outboxCode(file: string, phoneNumber?: string | null): string | null;

export function version(): number;
export function versionString(): string;
export function libraryPath(): string;
export function statusName(status: number): string;
export function errstr(status: number): string;

// --- constants (mfa_types.h) ---------------------------------------------------------------

export const TOTP_FACTOR_ID: 'totp';
export const PHONE_FACTOR_ID: 'phone';
export const RECOVERY_CODES_FACTOR_ID: 'recovery';
export const WEBAUTHN_FACTOR_ID: 'webauthn';
export const ALGORITHMS: Readonly<{ SHA1: number; SHA256: number; SHA512: number }>;
export const VERSION_MAJOR: number;
export const VERSION_MINOR: number;
export const VERSION_PATCH: number;
export const VERSION_NUMBER: number;
export const ALG_SHA1: number;
export const ALG_SHA256: number;
export const ALG_SHA512: number;
export const OTP_TOTP: number;
export const OTP_HOTP: number;
export const DIGITS_MIN: number;
export const DIGITS_MAX: number;
export const DIGITS_DEFAULT: number;
export const PERIOD_DEFAULT: number;
export const PERIOD_MAX: number;
export const WINDOW_MAX: number;
export const CODE_BUFFER_SIZE: number;
export const KEY_MAX_BYTES: number;
export const SECRET_DEFAULT_BYTES: number;
export const SECRET_MIN_BYTES: number;
export const SECRET_MAX_BYTES: number;
export const STRING_MAX_BYTES: number;
export const MASTER_KEY_BYTES: number;
export const FACTOR_TOTP: number;
export const FACTOR_PHONE: number;
export const FACTOR_RECOVERY_CODES: number;
export const FACTOR_WEBAUTHN: number;
export const FACTOR_EMAIL: number;
export const FACTOR_HOTP: number;
export const FACTOR_YUBICO_OTP: number;
export const AUDIT_ENROLL: number;
export const AUDIT_UNENROLL: number;
export const AUDIT_SIGN_IN_SUCCESS: number;
export const AUDIT_SIGN_IN_FAILURE: number;
export const AUDIT_BACKOFF: number;
export const AUDIT_CONFIG_CHANGE: number;
export const AUDIT_SMS_SENT: number;
export const AUDIT_INTEGRITY_FAILURE: number;
export const AUDIT_TOKENS_REVOKED: number;
export const AUDIT_FACTOR_RENAMED: number;
export const AUDIT_USER_RESET: number;
export const AUDIT_USER_DELETED: number;
export const AUDIT_KEYS_ROTATED: number;
export const AUDIT_DEVICE_REMEMBERED: number;
export const AUDIT_DEVICE_REFUSED: number;
export const AUDIT_DEVICE_REVOKED: number;
export const AUDIT_EMAIL_SENT: number;
export const AUDIT_TOKEN_IMPORTED: number;
export const AUDIT_TOKEN_ASSIGNED: number;
export const AUDIT_TOKEN_RESYNCED: number;
export const AUDIT_TOKEN_REMOVED: number;
export const AUDIT_PASSKEY_SIGN_IN_SUCCESS: number;
export const AUDIT_PASSKEY_SIGN_IN_FAILURE: number;
export const APP_ACTION_ENROLLMENT: number;
export const APP_ACTION_SIGN_IN: number;
export const WEBAUTHN_FLAG_UP: number;
export const WEBAUTHN_FLAG_UV: number;
export const WEBAUTHN_FLAG_BE: number;
export const WEBAUTHN_FLAG_BS: number;
export const QR_PNG: number;
export const QR_SVG: number;
export const QR_TEXT: number;
export const ACTOR_MAX_BYTES: number;
export const ADMIN_PAGE_MAX: number;
export const ADMIN_SHOW_PHONE_NUMBERS: number;
export const IMPORT_OTPAUTH: number;
export const IMPORT_USERS_FILE: number;
export const IMPORT_CSV: number;
export const IMPORT_IMPORTED: number;
export const IMPORT_ALREADY_IMPORTED: number;
export const IMPORT_UNSUPPORTED: number;
export const IMPORT_FAILED: number;
export const IMPORT_NOTE: number;
export const IMPORT_MAX_BYTES: number;
export const IMPORT_BATCH_DEFAULT: number;
export const IMPORT_BATCH_MAX: number;
export const ROTATION_BATCH_MAX: number;
export const BASE32_NO_PADDING: number;
export const TOTP_PARAMS_VERSION: number;
export const KEY_URI_VERSION: number;
export const OPTIONS_VERSION: number;
export const USER_VERSION: number;
export const ASSERTION_VERSION: number;
export const IMPORT_OPTIONS_VERSION: number;
