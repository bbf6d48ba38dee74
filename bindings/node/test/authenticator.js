'use strict';
// A software WebAuthn authenticator and browser for the tests, on node:crypto: ES256 keys,
// "none" attestation, answers in the JSON form of credential.toJSON(). Enough CBOR to write
// its own messages.
const crypto = require('node:crypto');

const b64 = (data) => Buffer.from(data).toString('base64url');

function cbor(value) {
  const head = (major, n) => {
    if (n < 24) return Buffer.from([(major << 5) | n]);
    if (n < 256) return Buffer.from([(major << 5) | 24, n]);
    if (n < 65536) return Buffer.from([(major << 5) | 25, n >> 8, n & 255]);
    const b = Buffer.alloc(5);
    b[0] = (major << 5) | 26;
    b.writeUInt32BE(n, 1);
    return b;
  };
  if (typeof value === 'number') return value >= 0 ? head(0, value) : head(1, -1 - value);
  if (typeof value === 'string') return Buffer.concat([head(3, Buffer.byteLength(value)), Buffer.from(value)]);
  if (Buffer.isBuffer(value)) return Buffer.concat([head(2, value.length), value]);
  if (value instanceof Map) {
    const parts = [head(5, value.size)];
    for (const [k, v] of value) parts.push(cbor(k), cbor(v));
    return Buffer.concat(parts);
  }
  throw new TypeError('cannot encode ' + typeof value);
}

class Authenticator {
  constructor(origin) {
    this.origin = origin;
    const { privateKey, publicKey } = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' });
    this.privateKey = privateKey;
    const jwk = publicKey.export({ format: 'jwk' });
    this.cose = cbor(new Map([[1, 2], [3, -7], [-1, 1], [-2, Buffer.from(jwk.x, 'base64url')], [-3, Buffer.from(jwk.y, 'base64url')]]));
    this.id = crypto.randomBytes(16);
    this.count = 0;
  }

  /** navigator.credentials.create() with these options (the JSON form). */
  create(options, { origin = this.origin } = {}) {
    const clientData = Buffer.from(JSON.stringify({ type: 'webauthn.create', challenge: options.challenge, origin, crossOrigin: false }));
    const rpIdHash = crypto.createHash('sha256').update(options.rp.id).digest();
    const count = Buffer.alloc(4);
    const idLength = Buffer.from([this.id.length >> 8, this.id.length & 255]);
    const authData = Buffer.concat([rpIdHash, Buffer.from([0x45]), count, Buffer.alloc(16), idLength, this.id, this.cose]);
    const attestation = cbor(new Map([['fmt', 'none'], ['attStmt', new Map()], ['authData', authData]]));
    return {
      id: b64(this.id), rawId: b64(this.id), type: 'public-key', clientExtensionResults: {},
      response: { clientDataJSON: b64(clientData), attestationObject: b64(attestation), transports: ['usb'] },
    };
  }

  /** navigator.credentials.get() with these options (the JSON form). */
  get(options, { origin = this.origin } = {}) {
    const clientData = Buffer.from(JSON.stringify({ type: 'webauthn.get', challenge: options.challenge, origin, crossOrigin: false }));
    const rpIdHash = crypto.createHash('sha256').update(options.rpId).digest();
    const count = Buffer.alloc(4);
    count.writeUInt32BE(++this.count);
    const authData = Buffer.concat([rpIdHash, Buffer.from([0x05]), count]);
    const signed = Buffer.concat([authData, crypto.createHash('sha256').update(clientData).digest()]);
    const signature = crypto.sign('sha256', signed, this.privateKey);
    return {
      id: b64(this.id), rawId: b64(this.id), type: 'public-key', clientExtensionResults: {},
      response: { clientDataJSON: b64(clientData), authenticatorData: b64(authData), signature: b64(signature) },
    };
  }
}

module.exports = { Authenticator, b64 };
