'use strict';
// The stateless calls: the shared known-answer vectors (RFC 4226, RFC 6238, RFC 4648), key
// URIs, QR codes, random secrets, and every bad input with its named error.
const { describe, it } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { mfa } = require('./support');

const VECTORS = fs.readFileSync(path.join(__dirname, '..', '..', '..', 'Tests', 'vectors', 'otp_vectors.txt'), 'utf8')
  .split('\n').filter((line) => line && !line.startsWith('#')).map((line) => line.split(/\s+/));

describe('known answers', () => {
  it('computes and verifies RFC 4226 HOTP codes', () => {
    const rows = VECTORS.filter((v) => v[0] === 'hotp');
    assert.ok(rows.length >= 10);
    for (const [, algorithm, key, counter, digits, code] of rows) {
      const hotp = new mfa.HOTP(Buffer.from(key), { digits: Number(digits), algorithm });
      assert.equal(hotp.at(Number(counter)), code);
      assert.equal(hotp.match(code, 0, 9), Number(counter));
      assert.equal(hotp.verify(code, Number(counter) + 1), false);
    }
  });

  it('computes and verifies RFC 6238 TOTP codes for SHA1, SHA256 and SHA512', () => {
    const rows = VECTORS.filter((v) => v[0] === 'totp');
    assert.ok(rows.length >= 18);
    for (const [, algorithm, key, time, digits, code] of rows) {
      const totp = new mfa.TOTP(Buffer.from(key), { digits: Number(digits), algorithm });
      assert.equal(totp.at(Number(time)), code, `${algorithm} ${time}`);
      assert.equal(totp.verify(code, Number(time), 0), true);
      assert.equal(totp.verify(code, Number(time) + 60, 1), false);
      assert.equal(totp.verify(code, Number(time) + 60, 2), true);
      assert.equal(totp.match(code, Number(time) + 30, 1), totp.timecode(Number(time)));
    }
    // A Date and a bigint are times too.
    const totp = new mfa.TOTP(Buffer.from('12345678901234567890'), { digits: 8 });
    assert.equal(totp.at(new Date(59000)), '94287082');
    assert.equal(totp.at(59n), '94287082');
  });

  it('encodes and decodes the RFC 4648 base32 vectors', () => {
    for (const [, plain, encoded] of VECTORS.filter((v) => v[0] === 'base32')) {
      const data = Buffer.from(plain === '-' ? '' : plain);
      const text = encoded === '-' ? '' : encoded;
      assert.equal(mfa.base32Encode(data), text);
      assert.deepEqual(mfa.base32Decode(text), data);
      assert.deepEqual(mfa.base32Decode(text.toLowerCase().replace(/=+$/, '')), data);
      assert.equal(mfa.base32Encode(data, { padding: false }), text.replace(/=+$/, ''));
    }
  });
});

describe('key URIs and QR codes', () => {
  it('builds a URI that percent-encodes issuer and account, and parses it back', () => {
    const secret = mfa.randomSecret();
    const totp = new mfa.TOTP(secret, { digits: 8, period: 60, algorithm: 'sha256' });
    const uri = totp.provisioningUri('alice smith@example.com', 'ACME: Co');
    assert.match(uri, /^otpauth:\/\/totp\/ACME%3A%20Co:alice%20smith%40example\.com\?/);
    const parsed = mfa.parseUri(uri);
    assert.equal(parsed.kind, 'totp');
    assert.equal(parsed.issuer, 'ACME: Co');
    assert.equal(parsed.account, 'alice smith@example.com');
    assert.deepEqual(parsed.secret, secret);
    assert.equal(parsed.algorithm, 'SHA256');
    assert.equal(parsed.digits, 8);
    assert.equal(parsed.period, 60);
    assert.equal(parsed.toOtp().at(1700000000), totp.at(1700000000));
    const hotp = mfa.parseUri(mfa.buildUri({ kind: 'hotp', account: 'bob', secret, counter: 42 }));
    assert.equal(hotp.kind, 'hotp');
    assert.equal(hotp.issuer, null);
    assert.equal(hotp.counter, 42);
    assert.ok(hotp.toOtp() instanceof mfa.HOTP);
  });

  it('renders QR codes as PNG, SVG and terminal text', () => {
    const png = mfa.qrCode('otpauth://totp/x?secret=JBSWY3DPEHPK3PXP');
    assert.ok(Buffer.isBuffer(png));
    assert.deepEqual(png.subarray(0, 8), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    assert.match(mfa.qrCode('hello', 'svg'), /^<\?xml|<svg/);
    const text = mfa.qrCode('hello', 'text');
    assert.equal(typeof text, 'string');
    assert.ok(text.includes('█') || text.includes('▀'));
    assert.ok(!text.includes('\0'));
  });

  it('makes random secrets of the asked length', () => {
    assert.equal(mfa.randomSecret().length, 20);
    assert.equal(mfa.randomSecret(16).length, 16);
    assert.notDeepEqual(mfa.randomSecret(), mfa.randomSecret());
  });

  it('reports its versions and the status names of the loaded library', () => {
    assert.equal(mfa.versionString(), `${mfa.VERSION_MAJOR}.${mfa.VERSION_MINOR}.${mfa.VERSION_PATCH}`);
    assert.equal(mfa.version(), mfa.VERSION_NUMBER);
    assert.equal(mfa.statusName(-11), 'INVALID_VERIFICATION_CODE');
    assert.equal(mfa.statusName(-9999), 'UNKNOWN');
    assert.equal(mfa.Status.INVALID_SESSION, -13);
    assert.ok(fs.existsSync(mfa.libraryPath()));
    // Every status the library names has its class, with its code.
    for (const [code, status] of Object.entries(mfa.Status)) {
      if (status === 0) continue;
      const cls = mfa.ERRORS.get(status);
      assert.ok(cls && cls.prototype instanceof mfa.MFAError, code);
      const error = new cls('message');
      assert.equal(error.code, code);
      assert.equal(error.status, status);
      assert.equal(error.name, cls.name);
      assert.ok(mfa[cls.name] === cls, cls.name);
    }
  });
});

describe('bad input to the stateless calls', () => {
  const key = Buffer.from('12345678901234567890');
  const totp = new mfa.TOTP(key);

  it('names the error of each bad value', () => {
    const cases = [
      [() => new mfa.TOTP(Buffer.alloc(0)), 'INVALID_ARGUMENT'],
      [() => new mfa.TOTP(key, { digits: 5 }), 'INVALID_ARGUMENT'],
      [() => new mfa.TOTP(key, { digits: 9 }), 'INVALID_ARGUMENT'],
      [() => new mfa.TOTP(key, { period: 0 }), 'INVALID_ARGUMENT'],
      [() => new mfa.TOTP(key, { algorithm: 'MD5' }), 'INVALID_ARGUMENT'],
      [() => new mfa.TOTP(Buffer.alloc(1025)), 'INVALID_ARGUMENT'],
      [() => totp.verify('123456', 1700000000, 11), 'INVALID_ARGUMENT'],
      [() => totp.verify('123456', 1700000000, -1), 'INVALID_ARGUMENT'],
      [() => totp.verify('12\u00003456', 1700000000, 1), 'INVALID_ARGUMENT'],
      [() => totp.at(Number.NaN), 'INVALID_ARGUMENT'],
      [() => new mfa.TOTP(key, { t0: 100 }).at(50), 'INVALID_ARGUMENT'],
      [() => new mfa.HOTP(key).at(-1), 'INVALID_ARGUMENT'],
      [() => new mfa.HOTP(key).verify('123456', 0, 11), 'INVALID_ARGUMENT'],
      [() => mfa.base32Decode('AB CD'), 'INVALID_BASE32'],
      [() => mfa.base32Decode('A'), 'INVALID_BASE32'],
      [() => mfa.base32Decode('x'.repeat(70000)), 'INVALID_ARGUMENT'],
      [() => mfa.parseUri('https://example.com/'), 'INVALID_URI'],
      [() => mfa.parseUri('otpauth://totp/x?secret=!!'), 'INVALID_URI'],
      [() => mfa.buildUri({ account: '', secret: key }), 'INVALID_ARGUMENT'],
      [() => mfa.buildUri({ account: 'a', secret: key, digits: 10 }), 'INVALID_ARGUMENT'],
      [() => mfa.buildUri({ kind: 'motp', account: 'a', secret: key }), 'INVALID_ARGUMENT'],
      [() => new mfa.TOTP(key, { t0: 30 }).provisioningUri('a'), 'INVALID_ARGUMENT'],
      [() => mfa.qrCode(''), 'INVALID_ARGUMENT'],
      [() => mfa.qrCode('x', 'gif'), 'INVALID_ARGUMENT'],
      [() => mfa.randomSecret(15), 'INVALID_ARGUMENT'],
      [() => mfa.randomSecret(129), 'INVALID_ARGUMENT'],
    ];
    for (const [call, code] of cases) {
      assert.throws(call, (error) => error instanceof mfa.MFAError && error.code === code, call.toString());
    }
    // Malformed codes are simply wrong, not errors.
    for (const code of ['', '12345', '1234567', 'abcdef', '12 456', '１２３４５６']) {
      assert.equal(totp.verify(code, 1700000000, 1), false, JSON.stringify(code));
    }
    assert.equal(totp.verify('9'.repeat(200), 1700000000, 1), false);
  });

  it('throws TypeError for values of the wrong type', () => {
    const cases = [
      () => new mfa.TOTP('12345678901234567890'),
      () => new mfa.TOTP(key, { digits: '6' }),
      () => totp.verify(123456, 1700000000, 1),
      () => totp.verify(null),
      () => totp.verify('123456', '1700000000', 1),
      () => totp.at({}),
      () => mfa.base32Encode('text'),
      () => mfa.base32Decode(Buffer.from('MZXW6===')),
      () => mfa.parseUri(null),
      () => mfa.qrCode(42),
      () => new mfa.HOTP(key).at('1'),
    ];
    for (const call of cases) assert.throws(call, TypeError, call.toString());
  });

  it('survives the addon called directly with nonsense', () => {
    const native = require('../lib/native');
    const junk = [undefined, null, 0, -1, 2 ** 53, Number.NaN, '', 'x', {}, [], () => 0, Symbol('s'), 1n, Buffer.alloc(3)];
    let calls = 0;
    for (const name of Object.keys(native)) {
      if (typeof native[name] !== 'function' || name === 'setHelpers' || name === 'open') continue;
      for (const a of junk) {
        for (const b of [undefined, 'code', 1]) {
          calls++;
          try {
            const result = native[name](a, b, b, b, b, b);
            if (result && typeof result.then === 'function') result.catch(() => {});
          } catch (error) {
            assert.ok(error instanceof TypeError || error instanceof mfa.MFAError, `${name}: ${error}`);
          }
        }
      }
    }
    assert.ok(calls > 500);
  });
});
