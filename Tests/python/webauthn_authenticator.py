"""A software WebAuthn authenticator and browser, on ``cryptography`` and fido2's CBOR, for the tests.

It answers the options a relying party makes (libmfa's, or any) the way a
browser and an authenticator do together: clientDataJSON, authenticator
data, a COSE public key and an attestation statement (``none``, ``packed``
self, ``packed`` with a certificate chain, ``fido-u2f``, ``tpm``,
``android-key``, ``apple``, each chained to a test root), or an assertion;
``credProps`` when asked, and the user handle of a discoverable credential.
Keys: ES256 (P-256), EdDSA (Ed25519), RS256 (RSA 2048), ES384, ES512, PS256.
It can be told to misbehave (another origin or rp id, no UV, a counter
reset, another user handle).
"""

import base64
import datetime
import hashlib
import json
import os
import struct

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, padding, rsa
from cryptography.x509.oid import NameOID
from fido2 import cbor

ALGORITHMS = {"ES256": -7, "EdDSA": -8, "RS256": -257, "ES384": -35, "ES512": -36, "PS256": -37}
AAGUID_OID = x509.ObjectIdentifier("1.3.6.1.4.1.45724.1.1.4")


def b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


CURVES = {"ES256": (ec.SECP256R1, hashes.SHA256, 1, 32), "ES384": (ec.SECP384R1, hashes.SHA384, 2, 48),
          "ES512": (ec.SECP521R1, hashes.SHA512, 3, 66)}


def new_key(algorithm):
    if algorithm in CURVES:
        return ec.generate_private_key(CURVES[algorithm][0]())
    if algorithm == "EdDSA":
        return ed25519.Ed25519PrivateKey.generate()
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def sign(key, message, algorithm=None):
    """``key``'s signature of ``message``: ECDSA with its curve's hash, Ed25519, RSA PKCS#1 v1.5 or PSS (PS256)."""
    if isinstance(key, ec.EllipticCurvePrivateKey):
        digest = {256: hashes.SHA256, 384: hashes.SHA384, 521: hashes.SHA512}[key.curve.key_size]
        return key.sign(message, ec.ECDSA(digest()))
    if isinstance(key, ed25519.Ed25519PrivateKey):
        return key.sign(message)
    if algorithm == "PS256":
        return key.sign(message, padding.PSS(mgf=padding.MGF1(hashes.SHA256()), salt_length=32), hashes.SHA256())
    return key.sign(message, padding.PKCS1v15(), hashes.SHA256())


def cose_key(public, algorithm=None):
    if isinstance(public, ec.EllipticCurvePublicKey):
        name = {256: "ES256", 384: "ES384", 521: "ES512"}[public.curve.key_size]
        _, _, curve, size = CURVES[name]
        n = public.public_numbers()
        return {1: 2, 3: ALGORITHMS[name], -1: curve, -2: n.x.to_bytes(size, "big"), -3: n.y.to_bytes(size, "big")}
    if isinstance(public, ed25519.Ed25519PublicKey):
        raw = public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        return {1: 1, 3: -8, -1: 6, -2: raw}
    n = public.public_numbers()
    return {1: 3, 3: ALGORITHMS.get(algorithm or "RS256", -257), -1: n.n.to_bytes(256, "big"),
            -2: n.e.to_bytes(3, "big")}


class AttestationCA:
    """A root and an attestation certificate it issued, for packed x5c and fido-u2f statements."""

    def __init__(self, aaguid, algorithm="ES256", name="libmfa test root"):
        self.root_key = ec.generate_private_key(ec.SECP256R1())
        now = datetime.datetime(2020, 1, 1, tzinfo=datetime.timezone.utc)
        later = datetime.datetime(2090, 1, 1, tzinfo=datetime.timezone.utc)
        root_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
        self.root = (x509.CertificateBuilder().subject_name(root_name).issuer_name(root_name)
                     .public_key(self.root_key.public_key()).serial_number(1).not_valid_before(now)
                     .not_valid_after(later)
                     .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
                     .add_extension(x509.KeyUsage(False, False, False, False, False, True, True, False, False),
                                    critical=True)
                     .sign(self.root_key, hashes.SHA256()))
        self.key = new_key(algorithm)
        subject = x509.Name([
            x509.NameAttribute(NameOID.COUNTRY_NAME, "SE"),
            x509.NameAttribute(NameOID.ORGANIZATION_NAME, "libmfa tests"),
            x509.NameAttribute(NameOID.ORGANIZATIONAL_UNIT_NAME, "Authenticator Attestation"),
            x509.NameAttribute(NameOID.COMMON_NAME, "libmfa test authenticator"),
        ])
        builder = (x509.CertificateBuilder().subject_name(subject).issuer_name(root_name)
                   .public_key(self.key.public_key()).serial_number(2).not_valid_before(now).not_valid_after(later)
                   .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True))
        if aaguid is not None:
            builder = builder.add_extension(x509.UnrecognizedExtension(AAGUID_OID, b"\x04\x10" + aaguid),
                                            critical=False)
        self.certificate = builder.sign(self.root_key, hashes.SHA256())

    @property
    def leaf_der(self):
        return self.certificate.public_bytes(serialization.Encoding.DER)

    @property
    def root_pem(self):
        return self.root.public_bytes(serialization.Encoding.PEM).decode()


class Authenticator:
    """One credential on a software authenticator, with the browser around it."""

    def __init__(self, algorithm="ES256", fmt="none", origin="https://example.com", aaguid=None):
        self.algorithm = algorithm
        self.key = new_key(algorithm)
        self.credential_id = os.urandom(32)
        self.fmt = fmt
        self.origin = origin
        self.rp_id_override = None
        self.user_present = True
        self.user_verified = True
        self.backup_eligible = False
        self.sign_count = 0
        self.counter_step = 1
        self.aaguid = aaguid if aaguid is not None else (bytes(16) if fmt == "fido-u2f" else os.urandom(16))
        self.ca = AttestationCA(self.aaguid) if fmt in ("packed-x5c", "fido-u2f") else None
        if fmt in ("tpm", "android-key", "apple"):
            from webauthn_formats import FormatCA

            self.ca = FormatCA(fmt, self.aaguid)
        self.user_handle = None
        #: Whether it keeps discoverable credentials (a passkey provider; not by default: a security key), and
        #: whether the browser reports credProps.
        self.resident = False
        self.reports_cred_props = True
        #: The user handle its assertions name instead of the registered one.
        self.user_handle_override = None

    @property
    def cose(self):
        return cbor.encode(cose_key(self.key.public_key(), self.algorithm))

    def client_data(self, kind, challenge):
        return json.dumps({"type": kind, "challenge": challenge, "origin": self.origin, "crossOrigin": False},
                          separators=(",", ":")).encode()

    def auth_data(self, rp_id, attested):
        flags = (0x01 if self.user_present else 0) | (0x04 if self.user_verified else 0)
        flags |= 0x08 if self.backup_eligible else 0
        flags |= 0x40 if attested else 0
        data = hashlib.sha256((self.rp_id_override or rp_id).encode()).digest() + bytes([flags])
        data += struct.pack(">I", self.sign_count)
        if attested:
            data += self.aaguid + struct.pack(">H", len(self.credential_id)) + self.credential_id + self.cose
        return data

    def statement(self, auth_data, client_data, rp_id):
        client_hash = hashlib.sha256(client_data).digest()
        if self.fmt == "none":
            return "none", {}
        if self.fmt == "packed":
            return "packed", {"alg": ALGORITHMS[self.algorithm],
                              "sig": sign(self.key, auth_data + client_hash, self.algorithm)}
        if self.fmt == "packed-x5c":
            return "packed", {"alg": -7, "sig": sign(self.ca.key, auth_data + client_hash), "x5c": [self.ca.leaf_der]}
        if self.fmt in ("tpm", "android-key", "apple"):
            return self.fmt, self.ca.statement(self, auth_data, client_hash)
        point = self.key.public_key().public_bytes(serialization.Encoding.X962,
                                                   serialization.PublicFormat.UncompressedPoint)
        signed = (b"\x00" + hashlib.sha256((self.rp_id_override or rp_id).encode()).digest() + client_hash
                  + self.credential_id + point)
        return "fido-u2f", {"sig": sign(self.ca.key, signed), "x5c": [self.ca.leaf_der]}

    def register(self, options):
        """The credential JSON (a dict, as ``toJSON()`` gives) answering creation options (JSON text or dict)."""
        if isinstance(options, str):
            options = json.loads(options)
        rp_id = options["rp"]["id"]
        self.user_handle = unb64(options["user"]["id"])
        client = self.client_data("webauthn.create", options["challenge"])
        data = self.auth_data(rp_id, True)
        fmt, statement = self.statement(data, client, rp_id)
        json_form = self.registration_json(client, cbor.encode({"fmt": fmt, "attStmt": statement, "authData": data}))
        if (options.get("extensions") or {}).get("credProps") and self.reports_cred_props:
            asked = (options.get("authenticatorSelection") or {}).get("residentKey") in ("required", "preferred")
            json_form["clientExtensionResults"] = {"credProps": {"rk": bool(asked and self.resident)}}
        return json_form

    def registration_json(self, client, attestation_object):
        return {"id": b64(self.credential_id), "rawId": b64(self.credential_id), "type": "public-key",
                "authenticatorAttachment": "cross-platform", "clientExtensionResults": {},
                "response": {"clientDataJSON": b64(client), "attestationObject": b64(attestation_object),
                             "transports": ["usb"]}}

    def assert_(self, options):
        """The credential JSON (a dict) answering request options (JSON text or dict)."""
        if isinstance(options, str):
            options = json.loads(options)
        self.sign_count += self.counter_step
        client = self.client_data("webauthn.get", options["challenge"])
        data = self.auth_data(options["rpId"], False)
        return self.assertion_json(client, data,
                                   sign(self.key, data + hashlib.sha256(client).digest(), self.algorithm))

    def assertion_json(self, client, data, signature):
        return {"id": b64(self.credential_id), "rawId": b64(self.credential_id), "type": "public-key",
                "authenticatorAttachment": "cross-platform", "clientExtensionResults": {},
                "response": {"clientDataJSON": b64(client), "authenticatorData": b64(data),
                             "signature": b64(signature),
                             "userHandle": b64(self.user_handle_override or self.user_handle)
                             if self.user_handle else None}}
