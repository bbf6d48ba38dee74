"""WebAuthn: security keys and passkeys as a second factor, libmfa being the relying party.

Enable it with ``"providers": {"webauthn": "ENABLED"}`` and the relying
party: ``"webauthn": {"rpId": "example.com", "origins": ["https://example.com"]}``
(also ``userVerification``, ``residentKey``, ``attestation``,
``attestationRoots``, ``timeout``). Each credential is one factor (factor id
``"webauthn"``, kind ``FACTOR_WEBAUTHN``; its hint is ``"security key"`` or
``"passkey"``).

Registering (from an enrollment session, like any enrollment)::

    options = WebAuthnMultiFactorGenerator.registration_options(mf.session(), "alice@example.com")
    # browser: navigator.credentials.create({publicKey: PublicKeyCredential.parseCreationOptionsFromJSON(options)})
    info = mf.enroll(WebAuthnMultiFactorGenerator.assertion_for_enrollment(credential_json), "My key")

Signing in (the hint of kind ``FACTOR_WEBAUTHN``)::

    options = WebAuthnMultiFactorGenerator.authentication_options(resolver)
    # browser: navigator.credentials.get({publicKey: PublicKeyCredential.parseRequestOptionsFromJSON(options)})
    result = resolver.resolve_sign_in(WebAuthnMultiFactorGenerator.assertion_for_sign_in(credential_json))

The options are JSON text (``json.loads`` them to add to a page); a
credential is the browser's ``credential.toJSON()``, as JSON text or as the
dict it parses to. The challenge is a sealed libmfa token bound to the
session or pending credential, so nothing is stored between the two calls.

:func:`verify_registration` and :func:`verify_assertion` check responses
without libmfa's state, against the host's own challenge.
"""

from __future__ import annotations

import ctypes

from .. import _args, _ffi, _lib, _memory
from .._lib import lib
from .._record import Record
from ..errors import check
from ..models import WEBAUTHN_FACTOR_ID, MultiFactorInfo
from .flow import MultiFactorAssertion, MultiFactorResolver, MultiFactorSession, session_token

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Dict, Optional, Tuple, Union

    from .._typing import OptionalText, Text

    Credential = Union[str, bytes, Dict[str, Any]]


def _credential(value: object) -> bytes:
    """The credential JSON as bytes: JSON text, or the dict of ``credential.toJSON()``."""
    if isinstance(value, dict):
        import json  # here: most programs never pass a dict

        value = json.dumps(value, separators=(",", ":"))
    if not isinstance(value, (str, bytes)):
        raise TypeError("credential must be JSON text or a dict, not %s" % type(value).__name__)
    return _args.text(value, "credential")


class WebAuthnMultiFactorAssertion(MultiFactorAssertion):
    """A WebAuthn credential from the browser, to enroll or to resolve a sign-in.

    Made by :meth:`WebAuthnMultiFactorGenerator.assertion_for_enrollment` or
    :meth:`WebAuthnMultiFactorGenerator.assertion_for_sign_in`.

    Attributes:
        credential: the browser's ``credential.toJSON()``, as JSON text or a dict.
        enrollment_id: at sign-in, the factor the user chose, or None.
        factor_id: always ``"webauthn"``.
    """

    __slots__ = ("credential", "enrollment_id", "_purpose")
    factor_id = WEBAUTHN_FACTOR_ID
    _kind = _ffi.MFA_FACTOR_WEBAUTHN

    credential: Credential
    enrollment_id: Optional[Text]
    _purpose: str

    def __init__(self, credential: Credential, enrollment_id: Optional[Text], purpose: str) -> None:
        self._set(credential=credential, enrollment_id=enrollment_id, _purpose=purpose)

    def _enrollment(self) -> _ffi.mfa_assertion:
        if self._purpose != "enrollment":
            raise _args.invalid("a WebAuthn sign-in assertion cannot enroll a factor")
        fields = self._fields()
        fields.credential = _credential(self.credential)
        return fields

    def _sign_in(self) -> _ffi.mfa_assertion:
        if self._purpose != "sign_in":
            raise _args.invalid("a WebAuthn enrollment assertion cannot resolve a sign-in")
        fields = self._fields()
        fields.credential = _credential(self.credential)
        fields.enrollment_id = _args.optional_text(self.enrollment_id, "enrollment id")
        return fields


class WebAuthnMultiFactorGenerator:
    """Makes WebAuthn ceremony options and assertions, in the style of the other generators."""

    #: "webauthn".
    FACTOR_ID = WEBAUTHN_FACTOR_ID

    def __init__(self) -> None:
        raise TypeError("WebAuthnMultiFactorGenerator has only static methods")

    @staticmethod
    def registration_options(session: MultiFactorSession, user_name: Text,
                             user_display_name: OptionalText = None) -> str:
        """The ``PublicKeyCredentialCreationOptions`` for the user of ``session``, as JSON text.

        Args:
            session: from :meth:`libmfa.MultiFactor.session`.
            user_name: the account name the authenticator shows (an email
                address), 1 to 256 bytes.
            user_display_name: a friendlier name, or None for ``user_name``.

        Raises:
            OperationNotAllowedError: WebAuthn disabled, or no ``webauthn.rpId``.
            InvalidSessionError, UserTokenExpiredError, SecondFactorLimitExceededError,
            InvalidArgumentError, TypeError, StorageError.
        """
        if not isinstance(session, MultiFactorSession):
            raise TypeError("session must be a MultiFactorSession, not %s" % type(session).__name__)
        _lib.require(("mfa_webauthn_registration_options",), "WebAuthn")
        return session.context._string_call(lib.mfa_webauthn_registration_options,
                                            _args.text(session_token(session), "session"),
                                            _args.text(user_name, "user_name"),
                                            _args.optional_text(user_display_name, "user_display_name"))

    @staticmethod
    def assertion_for_enrollment(credential: Credential) -> WebAuthnMultiFactorAssertion:
        """An assertion that enrolls the credential the browser created (``credential.toJSON()``)."""
        _credential(credential)
        return WebAuthnMultiFactorAssertion(credential, None, "enrollment")

    @staticmethod
    def authentication_options(resolver: MultiFactorResolver,
                               enrollment_id: Union[MultiFactorInfo, Text, None] = None) -> str:
        """The ``PublicKeyCredentialRequestOptions`` for ``resolver``'s sign-in, as JSON text.

        Args:
            resolver: the :class:`libmfa.MultiFactorResolver` of the sign-in.
            enrollment_id: the hint the user chose (or its uid), or None to
                allow every WebAuthn credential of the user.

        Raises:
            InvalidSessionError, UserTokenExpiredError, TenantMismatchError,
            MFAEnrollmentNotFoundError (no such credential),
            OperationNotAllowedError (no ``webauthn.rpId``), TypeError, StorageError.
        """
        if not isinstance(resolver, MultiFactorResolver):
            raise TypeError("resolver must be a MultiFactorResolver, not %s" % type(resolver).__name__)
        if isinstance(enrollment_id, MultiFactorInfo):
            enrollment_id = enrollment_id.uid
        _lib.require(("mfa_webauthn_authentication_options",), "WebAuthn")
        return resolver.context._string_call(lib.mfa_webauthn_authentication_options,
                                             _args.text(resolver.session, "pending_credential"),
                                             _args.optional_text(resolver.tenant, "tenant"),
                                             _args.optional_text(enrollment_id, "enrollment_id"))

    @staticmethod
    def assertion_for_sign_in(credential: Credential,
                              enrollment_id: Union[MultiFactorInfo, Text, None] = None) -> WebAuthnMultiFactorAssertion:
        """An assertion that resolves a sign-in with the credential the browser returned.

        Args:
            credential: ``credential.toJSON()``, as JSON text or a dict.
            enrollment_id: the hint the user chose, or None for whichever of
                the user's credentials answered.
        """
        if isinstance(enrollment_id, MultiFactorInfo):
            enrollment_id = enrollment_id.uid
        if enrollment_id is not None and not isinstance(enrollment_id, (str, bytes)):
            raise TypeError("enrollment_id must be str or None, not %s" % type(enrollment_id).__name__)
        _credential(credential)
        return WebAuthnMultiFactorAssertion(credential, enrollment_id, "sign_in")


class WebAuthnAttestation(Record):
    """An attestation, as a ``webauthn_trust`` callback of :class:`libmfa.Context` sees it.

    Attributes:
        format: ``"none"``, ``"packed"`` or ``"fido-u2f"``.
        kind: ``"none"``, ``"self"`` or ``"basic"`` (a certificate chain).
        aaguid: the authenticator model's AAGUID (16 bytes).
        certificates: the chain, leaf first, DER (a tuple of bytes).
        chain_trusted: whether the chain leads to a configured ``webauthn.attestationRoots`` entry.
        tenant: the tenant, or None.
        uid: the user enrolling.
    """

    __slots__ = ("format", "kind", "aaguid", "certificates", "chain_trusted", "tenant", "uid")

    format: str
    kind: str
    aaguid: bytes
    certificates: Tuple[bytes, ...]
    chain_trusted: bool
    tenant: Optional[str]
    uid: str

    def __init__(self, format: str, kind: str, aaguid: bytes, certificates: Tuple[bytes, ...],
                 chain_trusted: bool, tenant: Optional[str], uid: str) -> None:
        self._set(format=format, kind=kind, aaguid=aaguid, certificates=tuple(certificates),
                  chain_trusted=chain_trusted, tenant=tenant, uid=uid)

    @classmethod
    def _from_fields(cls, fields: _ffi.mfa_webauthn_attestation) -> WebAuthnAttestation:
        certificates = tuple(ctypes.string_at(fields.certificates[i], fields.certificate_lengths[i])
                             for i in range(fields.certificate_count))
        tenant = _memory.optional(fields.tenant)
        return cls(_memory.required(fields.format), _memory.required(fields.kind),
                   ctypes.string_at(fields.aaguid, 16), certificates, bool(fields.chain_trusted),
                   tenant or None, _memory.required(fields.uid))


class WebAuthnCredential(Record):
    """A registration verified by :func:`verify_registration`.

    Attributes:
        credential_id: the credential id (bytes).
        public_key: the COSE public key (bytes): keep it for :func:`verify_assertion`.
        algorithm: its COSE algorithm: -7 (ES256), -8 (EdDSA) or -257 (RS256).
        sign_count: the signature counter at registration.
        flags: the authenticator data flags (``WEBAUTHN_FLAG_UP``, ``_UV``, ``_BE``, ``_BS``).
        aaguid: the AAGUID (16 bytes).
        format: ``"none"``, ``"packed"`` or ``"fido-u2f"``.
        attestation_kind: ``"none"``, ``"self"`` or ``"basic"``.
        certificates: the attestation chain, leaf first, DER (not judged).
    """

    __slots__ = ("credential_id", "public_key", "algorithm", "sign_count", "flags", "aaguid", "format",
                 "attestation_kind", "certificates")

    credential_id: bytes
    public_key: bytes
    algorithm: int
    sign_count: int
    flags: int
    aaguid: bytes
    format: str
    attestation_kind: str
    certificates: Tuple[bytes, ...]

    def __init__(self, **fields: Any) -> None:
        self._set(**fields)


def verify_registration(credential: Credential, challenge: Text, rp_id: Text, origin: Text,
                        require_user_verification: bool = False) -> WebAuthnCredential:
    """Verify a registration response against the host's own challenge (no libmfa state).

    Args:
        credential: ``credential.toJSON()`` of ``navigator.credentials.create``.
        challenge: the challenge the host's options carried, base64url.
        rp_id: the relying party id.
        origin: the origin the page must have had.
        require_user_verification: require the UV flag.

    Raises:
        InvalidArgumentError (malformed), InvalidSessionError (another
        challenge), OriginMismatchError, RPIDMismatchError,
        UserVerificationRequiredError, InvalidVerificationCodeError (a
        statement that does not verify), CryptoError (GnuTLS missing).
    """
    out = ctypes.POINTER(_ffi.mfa_webauthn_credential)()
    err = ctypes.c_void_p()
    try:
        check(lib.mfa_webauthn_verify_registration(ctypes.byref(out), _credential(credential),
                                                   _args.text(challenge, "challenge"), _args.text(rp_id, "rp_id"),
                                                   _args.text(origin, "origin"),
                                                   1 if require_user_verification else 0, ctypes.byref(err)), err)
        f = out.contents
        return WebAuthnCredential(
            credential_id=ctypes.string_at(f.credential_id, f.credential_id_len),
            public_key=ctypes.string_at(f.public_key, f.public_key_len), algorithm=int(f.algorithm),
            sign_count=int(f.sign_count), flags=int(f.flags), aaguid=ctypes.string_at(f.aaguid, 16),
            format=_memory.required(f.format), attestation_kind=_memory.required(f.attestation_kind),
            certificates=tuple(ctypes.string_at(f.certificates[i], f.certificate_lengths[i])
                               for i in range(f.certificate_count)))
    finally:
        lib.mfa_free(out)


def verify_assertion(credential: Credential, challenge: Text, rp_id: Text, origin: Text, public_key: bytes,
                     require_user_verification: bool = False) -> Tuple[int, int]:
    """Verify an assertion response with a stored COSE public key (no libmfa state).

    Returns:
        ``(sign_count, flags)``: the host must check that the counter went up
        (unless it was and stays 0).

    Raises:
        As :func:`verify_registration`; InvalidVerificationCodeError for a wrong signature.
    """
    key = _args.secret(public_key, "public_key")
    count = ctypes.c_uint32()
    flags = ctypes.c_uint32()
    err = ctypes.c_void_p()
    check(lib.mfa_webauthn_verify_assertion(ctypes.byref(count), ctypes.byref(flags), _credential(credential),
                                            _args.text(challenge, "challenge"), _args.text(rp_id, "rp_id"),
                                            _args.text(origin, "origin"), 1 if require_user_verification else 0,
                                            key, len(key), ctypes.byref(err)), err)
    return int(count.value), int(flags.value)


__all__ = ["WebAuthnAttestation", "WebAuthnCredential", "WebAuthnMultiFactorAssertion",
           "WebAuthnMultiFactorGenerator", "verify_assertion", "verify_registration"]
