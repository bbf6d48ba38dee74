"""Differential tests: libmfa's relying party against python-fido2's ``Fido2Server``.

The same registration and assertion responses, made by the software
authenticator for every algorithm and attestation format, go to both; they
must agree on every one: the genuine response, and each response with one
byte of clientDataJSON, authenticatorData or the signature flipped (by 0x01
and by 0x80). Every flip of a signed byte must be refused by both. Then the
wrong origin, rp id and challenge. libmfa runs through its stateless C
calls (``mfa_webauthn_verify_registration`` / ``_assertion``), fido2 with
the attestation statement verified (not trusted) and the same single origin.

Two differences are libmfa's on purpose, both stricter, and the tests hold
every disagreement to them (anything else fails):

* the challenge is compared as the base64url text the options carried
  (WebAuthn §7.1 step 8, §7.2 step 12: "equals the base64url encoding of
  options.challenge"); fido2 decodes it and compares bytes, so a flip of the
  unused low bits of the last character passes there;
* a registration's ``rawId`` must be the credential id in the authenticator
  data (fido2 ignores ``rawId``), and the credential public key must be a
  whole COSE_Key of the algorithm's key type and curve with unique keys
  (fido2 reads only what it needs, and refuses a broken key later, at the
  first sign-in).

Both matter only where nothing is signed: the ``none`` format.
"""

import hashlib

import pytest
from fido2 import cbor
from fido2.attestation import Attestation
from fido2.server import Fido2Server
from fido2.utils import websafe_encode

from webauthn_authenticator import Authenticator, b64, unb64

import libmfa

RP_ID = "example.com"
ORIGIN = "https://example.com"
CHALLENGE = bytes(range(32))
KINDS = [("ES256", "none"), ("ES256", "packed"), ("ES256", "packed-x5c"), ("ES256", "fido-u2f"),
         ("EdDSA", "none"), ("EdDSA", "packed"), ("RS256", "none"), ("RS256", "packed"), ("RS256", "packed-x5c")]
FLIPS = (0x01, 0x80)


def verify_statement(attestation_object, client_data_hash):
    """fido2: the statement's signature and certificate rules, no trust decision."""
    Attestation.for_type(attestation_object.fmt)().verify(attestation_object.att_stmt, attestation_object.auth_data,
                                                          client_data_hash)


SERVER = Fido2Server({"id": RP_ID, "name": "libmfa"}, attestation="direct",
                     verify_origin=lambda origin: origin == ORIGIN, verify_attestation=verify_statement)
STATE = {"challenge": websafe_encode(CHALLENGE), "user_verification": "preferred"}


def libmfa_registration(response, challenge=CHALLENGE, rp_id=RP_ID, origin=ORIGIN):
    try:
        return libmfa.webauthn.verify_registration(response, b64(challenge), rp_id, origin)
    except libmfa.MFAError:
        return None


def fido2_registration(response, server=SERVER, state=STATE):
    try:
        return server.register_complete(state, response)
    except Exception:  # noqa: BLE001 - any refusal
        return None


def libmfa_assertion(response, public_key, challenge=CHALLENGE, rp_id=RP_ID, origin=ORIGIN):
    try:
        return libmfa.webauthn.verify_assertion(response, b64(challenge), rp_id, origin, public_key)
    except libmfa.MFAError:
        return None


def fido2_assertion(response, credential, server=SERVER, state=STATE):
    try:
        return server.authenticate_complete(state, [credential], response)
    except Exception:  # noqa: BLE001 - any refusal
        return None


def flipped(data):
    """Every copy of ``data`` with one byte XORed by one of FLIPS: (position, mask, bytes)."""
    for position in range(len(data)):
        for mask in FLIPS:
            copy = bytearray(data)
            copy[position] ^= mask
            yield position, mask, bytes(copy)


def with_response(response, **fields):
    changed = dict(response, response=dict(response["response"], **fields))
    return changed


def known_difference(response, part, position, mutated):
    """Whether a disagreement is one of the two documented above (libmfa refusing)."""
    if part == "clientDataJSON":
        import json

        challenge = json.loads(unb64(response["response"]["clientDataJSON"]))["challenge"]
        try:
            text = json.loads(unb64(mutated["response"]["clientDataJSON"]))["challenge"]
        except (ValueError, KeyError, TypeError):
            return False
        return text != challenge and unb64(text) == unb64(challenge)
    if part == "authenticatorData":  # the credential id and public key
        return position >= 55
    return False


def signed_positions(fmt, auth_data):
    """The authenticator data bytes the attestation signature covers."""
    if fmt == "none":
        return range(0)
    if fmt == "fido-u2f":  # the rp id hash and the credential id (and the key's point, not its COSE framing)
        length = int.from_bytes(auth_data[53:55], "big")
        return [p for p in range(len(auth_data)) if p < 32 or 55 <= p < 55 + length]
    return range(len(auth_data))


def registration_mutations(response):
    """(part, position, mask, mutated response) for clientDataJSON, authenticatorData and the statement's sig."""
    client = unb64(response["response"]["clientDataJSON"])
    for position, mask, data in flipped(client):
        yield "clientDataJSON", position, mask, with_response(response, clientDataJSON=b64(data))
    obj = cbor.decode(unb64(response["response"]["attestationObject"]))
    for position, mask, data in flipped(obj["authData"]):
        yield "authenticatorData", position, mask, with_response(
            response, attestationObject=b64(cbor.encode(dict(obj, authData=data))))
    if "sig" in obj["attStmt"]:
        for position, mask, data in flipped(obj["attStmt"]["sig"]):
            statement = dict(obj["attStmt"], sig=data)
            yield "signature", position, mask, with_response(
                response, attestationObject=b64(cbor.encode(dict(obj, attStmt=statement))))


def assertion_mutations(response):
    for part in ("clientDataJSON", "authenticatorData", "signature"):
        for position, mask, data in flipped(unb64(response["response"][part])):
            yield part, position, mask, with_response(response, **{part: b64(data)})


@pytest.mark.parametrize("algorithm,fmt", KINDS, ids=["%s-%s" % kind for kind in KINDS])
def test_libmfa_and_fido2_agree_on_registrations(algorithm, fmt):
    key = Authenticator(algorithm, fmt)
    response = key.register({"challenge": b64(CHALLENGE), "rp": {"id": RP_ID}, "user": {"id": "AQ"}})
    assert libmfa_registration(response) is not None
    assert fido2_registration(response) is not None
    auth_data = cbor.decode(unb64(response["response"]["attestationObject"]))["authData"]
    signed = set(signed_positions(fmt, auth_data))
    disagreements = []
    refused = 0
    for part, position, mask, mutated in registration_mutations(response):
        ours, theirs = libmfa_registration(mutated) is not None, fido2_registration(mutated) is not None
        refused += not ours
        if ours != theirs and not (theirs and known_difference(response, part, position, mutated)):
            disagreements.append((part, position, mask, ours, theirs))
        if (part == "authenticatorData" and position in signed) or part == "signature":
            assert not ours and not theirs, (part, position, mask)
    assert disagreements == []
    assert refused > 0


@pytest.mark.parametrize("algorithm,fmt", KINDS[:1] + KINDS[4:5] + KINDS[6:7],
                         ids=["ES256", "EdDSA", "RS256"])
def test_libmfa_and_fido2_refuse_every_flipped_assertion_byte(algorithm, fmt):
    key = Authenticator(algorithm, fmt)
    registration = key.register({"challenge": b64(CHALLENGE), "rp": {"id": RP_ID}, "user": {"id": "AQ"}})
    public_key = libmfa_registration(registration).public_key
    credential = fido2_registration(registration).credential_data
    response = key.assert_({"challenge": b64(CHALLENGE), "rpId": RP_ID})
    assert libmfa_assertion(response, public_key) == (1, 0x05)
    assert fido2_assertion(response, credential) is not None
    count = 0
    for part, position, mask, mutated in assertion_mutations(response):
        count += 1
        assert libmfa_assertion(mutated, public_key) is None, (part, position, mask)
        assert fido2_assertion(mutated, credential) is None, (part, position, mask)
    assert count > 2 * (37 + 64)


def test_both_refuse_the_wrong_origin_rp_id_and_challenge():
    key = Authenticator("ES256", "packed")
    good = key.register({"challenge": b64(CHALLENGE), "rp": {"id": RP_ID}, "user": {"id": "AQ"}})
    public_key = libmfa_registration(good).public_key
    credential = fido2_registration(good).credential_data
    key.origin = "https://evil.example"
    for response in (key.register({"challenge": b64(CHALLENGE), "rp": {"id": RP_ID}, "user": {"id": "AQ"}}),
                     key.assert_({"challenge": b64(CHALLENGE), "rpId": RP_ID})):
        is_registration = "attestationObject" in response["response"]
        ours = libmfa_registration(response) if is_registration else libmfa_assertion(response, public_key)
        theirs = fido2_registration(response) if is_registration else fido2_assertion(response, credential)
        assert ours is None and theirs is None
    key.origin = ORIGIN
    key.rp_id_override = "example.org"
    response = key.assert_({"challenge": b64(CHALLENGE), "rpId": RP_ID})
    assert libmfa_assertion(response, public_key) is None and fido2_assertion(response, credential) is None
    key.rp_id_override = None
    other = hashlib.sha256(b"another challenge").digest()
    response = key.assert_({"challenge": b64(other), "rpId": RP_ID})
    assert libmfa_assertion(response, public_key) is None and fido2_assertion(response, credential) is None
    assert libmfa_assertion(response, public_key, challenge=other) is not None
