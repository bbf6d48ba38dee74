"""The attestation statements of platform authenticators, made by a test CA, for the tests.

``tpm`` (a TPM 2.0 certifying the credential key with an attestation
identity key), ``android-key`` (a keystore certificate of the credential key
with its key description) and ``apple`` (an anonymization CA's certificate
of the credential key with the registration's nonce), each with its
certificate chained to a fresh root (``root_pem``), as WebAuthn §8.3, §8.4
and §8.8 describe them: what real devices send, with keys the tests hold.
"""

import datetime
import hashlib
import struct

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

NOW = datetime.datetime(2020, 1, 1, tzinfo=datetime.timezone.utc)
LATER = datetime.datetime(2090, 1, 1, tzinfo=datetime.timezone.utc)
AAGUID_OID = x509.ObjectIdentifier("1.3.6.1.4.1.45724.1.1.4")
KEY_DESCRIPTION_OID = x509.ObjectIdentifier("1.3.6.1.4.1.11129.2.1.17")
APPLE_NONCE_OID = x509.ObjectIdentifier("1.2.840.113635.100.8.2")
AIK_PURPOSE = x509.ObjectIdentifier("2.23.133.8.3")
TPM_MANUFACTURER, TPM_MODEL, TPM_VERSION = (x509.ObjectIdentifier("2.23.133.2.%d" % n) for n in (1, 2, 3))


# --- DER, the little the extensions need ------------------------------------------------

def der(tag, content):
    """A DER element: ``tag`` (bytes of the identifier), then the length, then ``content``."""
    length = len(content)
    if length < 0x80:
        head = bytes([length])
    else:
        raw = length.to_bytes((length.bit_length() + 7) // 8, "big")
        head = bytes([0x80 | len(raw)]) + raw
    return tag + head + content


def der_int(value):
    raw = value.to_bytes(max(1, (value.bit_length() + 8) // 8), "big")
    return der(b"\x02", raw)


def context_tag(number):
    """The identifier of a constructed context-specific tag ``[number]``."""
    if number < 31:
        return bytes([0xA0 | number])
    digits = []
    while number:
        digits.insert(0, number & 0x7F)
        number >>= 7
    return bytes([0xBF]) + bytes(d | 0x80 for d in digits[:-1]) + bytes([digits[-1]])


def key_description(challenge, purpose=2, origin=0, all_applications=False):
    """An Android ``KeyDescription``: version 3, TEE, the challenge, and a TEE list with purpose and origin."""
    tee = der(context_tag(1), der(b"\x31", der_int(purpose))) + der(context_tag(702), der_int(origin))
    if all_applications:
        tee += der(context_tag(600), b"\x05\x00")
    return der(b"\x30", der_int(3) + der(b"\x0a", b"\x01") + der_int(4) + der(b"\x0a", b"\x01")
               + der(b"\x04", challenge) + der(b"\x04", b"") + der(b"\x30", b"") + der(b"\x30", tee))


# --- TPM structures ---------------------------------------------------------------------

TPM_ALG_RSA, TPM_ALG_SHA256, TPM_ALG_NULL, TPM_ALG_ECC = 0x0001, 0x000B, 0x0010, 0x0023


def pub_area(public):
    """A ``TPMT_PUBLIC`` of the credential's public key (name algorithm SHA-256)."""
    head = struct.pack(">HHI", TPM_ALG_ECC if isinstance(public, ec.EllipticCurvePublicKey) else TPM_ALG_RSA,
                       TPM_ALG_SHA256, 0x00060472) + struct.pack(">H", 0)
    if isinstance(public, ec.EllipticCurvePublicKey):
        n = public.public_numbers()
        curve = {256: 3, 384: 4, 521: 5}[public.curve.key_size]
        size = {256: 32, 384: 48, 521: 66}[public.curve.key_size]
        params = struct.pack(">HHHH", TPM_ALG_NULL, TPM_ALG_NULL, curve, TPM_ALG_NULL)
        unique = struct.pack(">H", size) + n.x.to_bytes(size, "big") + struct.pack(">H", size) + n.y.to_bytes(size,
                                                                                                              "big")
        return head + params + unique
    n = public.public_numbers()
    params = struct.pack(">HHHI", TPM_ALG_NULL, TPM_ALG_NULL, 2048, 0)  # exponent 0: 65537
    return head + params + struct.pack(">H", 256) + n.n.to_bytes(256, "big")


def cert_info(extra_data, area):
    """A ``TPMS_ATTEST`` certifying the object ``area`` over ``extra_data``."""
    name = struct.pack(">H", TPM_ALG_SHA256) + hashlib.sha256(area).digest()
    return (struct.pack(">IH", 0xFF544347, 0x8017) + struct.pack(">H", 4) + b"\x00\x0b\x01\x02"
            + struct.pack(">H", len(extra_data)) + extra_data + bytes(17) + bytes(8)
            + struct.pack(">H", len(name)) + name + struct.pack(">H", 0))


class FormatCA:
    """A root, and what it certifies for one format: an AIK (tpm), or each credential's own key (android-key, apple)."""

    def __init__(self, fmt, aaguid, name="libmfa test platform root"):
        self.fmt = fmt
        self.aaguid = aaguid
        self.root_key = ec.generate_private_key(ec.SECP384R1())
        root_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
        self.root_name = root_name
        self.root = (x509.CertificateBuilder().subject_name(root_name).issuer_name(root_name)
                     .public_key(self.root_key.public_key()).serial_number(1).not_valid_before(NOW)
                     .not_valid_after(LATER)
                     .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
                     .add_extension(x509.KeyUsage(False, False, False, False, False, True, True, False, False),
                                    critical=True)
                     .sign(self.root_key, hashes.SHA384()))
        self.aik = rsa.generate_private_key(public_exponent=65537, key_size=2048) if fmt == "tpm" else None
        #: Knobs to misbehave: the TPM certifies another object; the key description's origin and allApplications.
        self.other_area = False
        self.origin = 0
        self.all_applications = False

    @property
    def root_pem(self):
        return self.root.public_bytes(serialization.Encoding.PEM).decode()

    def _issue(self, public, subject, extensions):
        builder = (x509.CertificateBuilder().subject_name(subject).issuer_name(self.root_name).public_key(public)
                   .serial_number(x509.random_serial_number()).not_valid_before(NOW).not_valid_after(LATER))
        for extension, critical in extensions:
            builder = builder.add_extension(extension, critical=critical)
        return builder.sign(self.root_key, hashes.SHA384()).public_bytes(serialization.Encoding.DER)

    def statement(self, authenticator, auth_data, client_hash):
        credential = authenticator.key.public_key()
        if self.fmt == "tpm":
            area = pub_area(ec.generate_private_key(ec.SECP256R1()).public_key() if self.other_area else credential)
            info = cert_info(hashlib.sha256(auth_data + client_hash).digest(), area)
            san = x509.SubjectAlternativeName([x509.DirectoryName(x509.Name([
                x509.NameAttribute(TPM_MANUFACTURER, "id:FFFFF1D0"), x509.NameAttribute(TPM_MODEL, "libmfa vTPM"),
                x509.NameAttribute(TPM_VERSION, "id:00020000")]))])
            aik_cert = self._issue(self.aik.public_key(), x509.Name([]), [
                (x509.BasicConstraints(ca=False, path_length=None), True), (san, True),
                (x509.ExtendedKeyUsage([AIK_PURPOSE]), False),
                (x509.UnrecognizedExtension(AAGUID_OID, b"\x04\x10" + self.aaguid), False)])
            return {"ver": "2.0", "alg": -257, "x5c": [aik_cert],
                    "sig": self.aik.sign(info, padding.PKCS1v15(), hashes.SHA256()), "certInfo": info,
                    "pubArea": area}
        subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "libmfa test %s credential" % self.fmt)])
        if self.fmt == "android-key":
            description = key_description(client_hash, origin=self.origin, all_applications=self.all_applications)
            leaf = self._issue(credential, subject, [
                (x509.UnrecognizedExtension(KEY_DESCRIPTION_OID, description), False),
                (x509.ExtendedKeyUsage([ExtendedKeyUsageOID.CLIENT_AUTH]), False)])
            from webauthn_authenticator import ALGORITHMS, sign

            return {"alg": ALGORITHMS[authenticator.algorithm], "x5c": [leaf],
                    "sig": sign(authenticator.key, auth_data + client_hash, authenticator.algorithm)}
        nonce = hashlib.sha256(auth_data + client_hash).digest()
        leaf = self._issue(credential, subject, [
            (x509.UnrecognizedExtension(APPLE_NONCE_OID, der(b"\x30", der(context_tag(1), der(b"\x04", nonce)))),
             False)])
        return {"x5c": [leaf]}
