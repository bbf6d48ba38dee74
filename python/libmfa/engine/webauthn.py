"""WebAuthn: security keys and passkeys as a second factor, libmfa being the relying party.

Enable it with ``"providers": {"webauthn": "ENABLED"}`` and the relying
party: ``"webauthn": {"rpId": "example.com", "origins": ["https://example.com"]}``
(also ``userVerification``, ``residentKey``, ``attestation``,
``attestationRoots``, ``timeout``, ``passkeySignIn``). Each credential is one
factor (factor id ``"webauthn"``, kind ``FACTOR_WEBAUTHN``; its hint is
``"synced passkey"``, ``"device-bound passkey"``, ``"passkey"`` or
``"security key"``).

Passkeys sign in without a password when ``webauthn.passkeySignIn`` is true:
register one with :meth:`WebAuthnMultiFactorGenerator.passkey_registration_options`,
then::

    options = ctx.passkey_sign_in_options()
    # browser: navigator.credentials.get({publicKey: ..., mediation: "conditional"})
    result = ctx.sign_in_with_passkey(credential_json)   # result.uid is who signed in

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
from .flow import MultiFactorAssertion, MultiFactorResolver, MultiFactorSession, session_token, sign_in_result

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

    from .._typing import OptionalText, Text
    from ..models import SignInResult
    from .context import Context

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


#: The values of each ceremony option, as WebAuthn spells them.
ATTACHMENTS = ("platform", "cross-platform")
REQUIREMENTS = ("required", "preferred", "discouraged")
HINTS = ("security-key", "client-device", "hybrid")


def _ceremony(authenticator_attachment: OptionalText = None, user_verification: OptionalText = None,
              resident_key: OptionalText = None, hints: Optional[Sequence[str]] = None,
              algorithms: Optional[Sequence[int]] = None) -> Optional[Tuple[_ffi.mfa_webauthn_options, Any]]:
    """An ``mfa_webauthn_options`` for the options given (and what it points to), or None when none is."""
    if authenticator_attachment is None and user_verification is None and resident_key is None and not hints \
            and algorithms is None:
        return None
    options = _ffi.mfa_webauthn_options()
    check(lib.mfa_webauthn_options_init(ctypes.byref(options), _ffi.MFA_WEBAUTHN_OPTIONS_VERSION))
    options.authenticator_attachment = _args.optional_text(authenticator_attachment, "authenticator_attachment")
    options.user_verification = _args.optional_text(user_verification, "user_verification")
    options.resident_key = _args.optional_text(resident_key, "resident_key")
    if hints:
        if isinstance(hints, (str, bytes)):
            raise TypeError("hints must be a sequence of str, such as [\"client-device\"]")
        options.hints = _args.text(",".join(str(hint) for hint in hints), "hints")
    keep: Any = None
    if algorithms is not None:
        values = [int(algorithm) for algorithm in algorithms]
        keep = (ctypes.c_int32 * max(len(values), 1))(*values)
        options.algorithms = ctypes.cast(keep, ctypes.POINTER(ctypes.c_int32))
        options.algorithm_count = len(values)
    return options, keep


class WebAuthnMultiFactorGenerator:
    """Makes WebAuthn ceremony options and assertions, in the style of the other generators."""

    #: "webauthn".
    FACTOR_ID = WEBAUTHN_FACTOR_ID

    def __init__(self) -> None:
        raise TypeError("WebAuthnMultiFactorGenerator has only static methods")

    @staticmethod
    def registration_options(session: MultiFactorSession, user_name: Text, user_display_name: OptionalText = None,
                             *, authenticator_attachment: OptionalText = None, user_verification: OptionalText = None,
                             resident_key: OptionalText = None, hints: Optional[Sequence[str]] = None,
                             algorithms: Optional[Sequence[int]] = None) -> str:
        """The ``PublicKeyCredentialCreationOptions`` for the user of ``session``, as JSON text.

        Args:
            session: from :meth:`libmfa.MultiFactor.session`.
            user_name: the account name the authenticator shows (an email
                address), 1 to 256 bytes.
            user_display_name: a friendlier name, or None for ``user_name``.
            authenticator_attachment: ``"platform"`` or ``"cross-platform"``, or None for any.
            user_verification: ``"required"``, ``"preferred"`` or
                ``"discouraged"``, or None for the configuration's (a call
                cannot ask for less than the configuration requires).
            resident_key: ``"required"`` (a passkey), ``"preferred"`` or
                ``"discouraged"``, or None for the configuration's.
            hints: WebAuthn Level 3 hints, most likely first:
                ``"security-key"``, ``"client-device"``, ``"hybrid"``.
            algorithms: the COSE algorithms offered (``COSE_ES256``, ...),
                most preferred first, or None for all six.

        What the call asked for is checked when the registration finishes
        (the UV flag, a discoverable credential, an offered algorithm).

        Raises:
            OperationNotAllowedError: WebAuthn disabled, or no ``webauthn.rpId``.
            InvalidSessionError, UserTokenExpiredError, SecondFactorLimitExceededError,
            InvalidArgumentError (also an option that is not one of its values), TypeError, StorageError.
        """
        if not isinstance(session, MultiFactorSession):
            raise TypeError("session must be a MultiFactorSession, not %s" % type(session).__name__)
        arguments = (_args.text(session_token(session), "session"), _args.text(user_name, "user_name"),
                     _args.optional_text(user_display_name, "user_display_name"))
        ceremony = _ceremony(authenticator_attachment, user_verification, resident_key, hints, algorithms)
        if ceremony is None:
            _lib.require(("mfa_webauthn_registration_options",), "WebAuthn")
            return session.context._string_call(lib.mfa_webauthn_registration_options, *arguments)
        _lib.require(("mfa_webauthn_registration_options_ext",), "WebAuthn ceremony options")
        return session.context._string_call(lib.mfa_webauthn_registration_options_ext, *arguments,
                                            ctypes.byref(ceremony[0]))

    @staticmethod
    def passkey_registration_options(session: MultiFactorSession, user_name: Text,
                                     user_display_name: OptionalText = None, *,
                                     authenticator_attachment: OptionalText = None,
                                     hints: Optional[Sequence[str]] = None,
                                     algorithms: Optional[Sequence[int]] = None) -> str:
        """:meth:`registration_options` for a passkey that signs in without a password.

        A discoverable credential (``resident_key="required"``) and user
        verification required; enrolling refuses a credential the browser
        says is not discoverable (``credProps``).
        """
        return WebAuthnMultiFactorGenerator.registration_options(
            session, user_name, user_display_name, authenticator_attachment=authenticator_attachment,
            user_verification="required", resident_key="required", hints=hints, algorithms=algorithms)

    @staticmethod
    def assertion_for_enrollment(credential: Credential) -> WebAuthnMultiFactorAssertion:
        """An assertion that enrolls the credential the browser created (``credential.toJSON()``)."""
        _credential(credential)
        return WebAuthnMultiFactorAssertion(credential, None, "enrollment")

    @staticmethod
    def authentication_options(resolver: MultiFactorResolver,
                               enrollment_id: Union[MultiFactorInfo, Text, None] = None, *,
                               user_verification: OptionalText = None,
                               hints: Optional[Sequence[str]] = None) -> str:
        """The ``PublicKeyCredentialRequestOptions`` for ``resolver``'s sign-in, as JSON text.

        Args:
            resolver: the :class:`libmfa.MultiFactorResolver` of the sign-in.
            enrollment_id: the hint the user chose (or its uid), or None to
                allow every WebAuthn credential of the user.
            user_verification: as for :meth:`registration_options`; what it
                requires is checked by :meth:`libmfa.MultiFactorResolver.resolve_sign_in`.
            hints: WebAuthn Level 3 hints, as for :meth:`registration_options`.

        Raises:
            InvalidSessionError, UserTokenExpiredError, TenantMismatchError,
            MFAEnrollmentNotFoundError (no such credential),
            OperationNotAllowedError (no ``webauthn.rpId``), TypeError, StorageError.
        """
        if not isinstance(resolver, MultiFactorResolver):
            raise TypeError("resolver must be a MultiFactorResolver, not %s" % type(resolver).__name__)
        if isinstance(enrollment_id, MultiFactorInfo):
            enrollment_id = enrollment_id.uid
        arguments = (_args.text(resolver.session, "pending_credential"), _args.optional_text(resolver.tenant, "tenant"),
                     _args.optional_text(enrollment_id, "enrollment_id"))
        ceremony = _ceremony(user_verification=user_verification, hints=hints)
        if ceremony is None:
            _lib.require(("mfa_webauthn_authentication_options",), "WebAuthn")
            return resolver.context._string_call(lib.mfa_webauthn_authentication_options, *arguments)
        _lib.require(("mfa_webauthn_authentication_options_ext",), "WebAuthn ceremony options")
        return resolver.context._string_call(lib.mfa_webauthn_authentication_options_ext, *arguments,
                                             ctypes.byref(ceremony[0]))

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
        format: ``"none"``, ``"packed"``, ``"fido-u2f"``, ``"tpm"``,
            ``"android-key"``, ``"apple"``, or another (then ``kind`` is ``"unverified"``).
        kind: ``"none"``, ``"self"``, ``"basic"`` (a certificate chain),
            ``"attca"`` (TPM), ``"anonca"`` (Apple) or ``"unverified"``.
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
        algorithm: its COSE algorithm: ``COSE_ES256`` (-7), ``COSE_EDDSA``
            (-8), ``COSE_RS256`` (-257), ``COSE_ES384`` (-35), ``COSE_ES512`` (-36) or ``COSE_PS256`` (-37).
        sign_count: the signature counter at registration.
        flags: the authenticator data flags (``WEBAUTHN_FLAG_UP``, ``_UV``, ``_BE``, ``_BS``).
        aaguid: the AAGUID (16 bytes).
        format: ``"none"``, ``"packed"``, ``"fido-u2f"``, ``"tpm"``, ``"android-key"`` or ``"apple"``.
        attestation_kind: ``"none"``, ``"self"``, ``"basic"``, ``"attca"`` or ``"anonca"``.
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


class WebAuthnCredentialInfo(Record):
    """One WebAuthn credential of a user (:meth:`libmfa.Context.webauthn_credentials`).

    Attributes:
        enrollment_id: the factor's enrollment id.
        display_name: the user's name for it, or None.
        enrollment_time: when it was registered (Unix seconds).
        credential_id: the credential id (bytes).
        algorithm: its COSE algorithm (``COSE_ES256``, ...).
        aaguid: the authenticator model's AAGUID (16 bytes).
        transports: the transports the browser reported (a tuple of str).
        discoverable: True or False as ``credProps`` said, None when the browser did not say.
        user_verified: whether the user was verified at registration.
        backup_eligible: BE, the credential may be synced.
        backed_up: BS, it is backed up (as of its last use).
        passkey: a passkey that signs in without a password (discoverable, registered with UV).
        backup: ``"synced passkey"`` (BE) or ``"device-bound key"``.
        sign_count: the signature counter as last seen.
        attestation_format: ``"none"``, ``"packed"``, ``"tpm"``, ...
        attestation_kind: ``"none"``, ``"self"``, ``"basic"``, ``"attca"``, ``"anonca"`` or ``"unverified"``.
        last_used_at: when it last signed in (Unix seconds), 0 if never.
    """

    __slots__ = ("enrollment_id", "display_name", "enrollment_time", "credential_id", "algorithm", "aaguid",
                 "transports", "discoverable", "user_verified", "backup_eligible", "backed_up", "passkey", "backup",
                 "sign_count", "attestation_format", "attestation_kind", "last_used_at")

    enrollment_id: str
    display_name: Optional[str]
    enrollment_time: int
    credential_id: bytes
    algorithm: int
    aaguid: bytes
    transports: Tuple[str, ...]
    discoverable: Optional[bool]
    user_verified: bool
    backup_eligible: bool
    backed_up: bool
    passkey: bool
    backup: str
    sign_count: int
    attestation_format: str
    attestation_kind: str
    last_used_at: int

    def __init__(self, **fields: Any) -> None:
        self._set(**fields)

    @classmethod
    def _from_fields(cls, f: _ffi.mfa_webauthn_credential_info) -> WebAuthnCredentialInfo:
        transports = _memory.required(f.transports)
        return cls(enrollment_id=_memory.required(f.enrollment_id), display_name=_memory.optional(f.display_name),
                   enrollment_time=int(f.enrollment_time),
                   credential_id=ctypes.string_at(f.credential_id, f.credential_id_len), algorithm=int(f.algorithm),
                   aaguid=ctypes.string_at(f.aaguid, 16), transports=tuple(transports.split(",")) if transports else (),
                   discoverable=None if f.discoverable < 0 else bool(f.discoverable),
                   user_verified=bool(f.user_verified),
                   backup_eligible=bool(f.backup_flags & _ffi.MFA_WEBAUTHN_FLAG_BE),
                   backed_up=bool(f.backup_flags & _ffi.MFA_WEBAUTHN_FLAG_BS), passkey=bool(f.passkey),
                   backup=_memory.required(f.backup), sign_count=int(f.sign_count),
                   attestation_format=_memory.required(f.attestation_format),
                   attestation_kind=_memory.required(f.attestation_kind), last_used_at=int(f.last_used_at))


def passkey_sign_in_options(context: Context, tenant: OptionalText = None,
                            hints: Optional[Sequence[str]] = None) -> str:
    """:meth:`libmfa.Context.passkey_sign_in_options`."""
    _lib.require(("mfa_passkey_sign_in_options",), "passkey")
    ceremony = _ceremony(hints=hints)
    return context._string_call(lib.mfa_passkey_sign_in_options, _args.optional_text(tenant, "tenant"),
                                ctypes.byref(ceremony[0]) if ceremony else None)


def sign_in_with_passkey(context: Context, credential: Credential, tenant: OptionalText = None) -> SignInResult:
    """:meth:`libmfa.Context.sign_in_with_passkey`."""
    _lib.require(("mfa_passkey_sign_in",), "passkey")
    raw = _credential(credential)
    raw_tenant = _args.optional_text(tenant, "tenant")
    out = ctypes.POINTER(_ffi.mfa_sign_in_result)()
    err = ctypes.c_void_p()
    try:
        with context._use() as handle:
            check(lib.mfa_passkey_sign_in(handle, ctypes.byref(out), raw_tenant, raw, ctypes.byref(err)), err)
        return sign_in_result(out.contents)
    finally:
        lib.mfa_sign_in_result_free(out)


def webauthn_credentials(context: Context, uid: Text, tenant: OptionalText = None) -> List[WebAuthnCredentialInfo]:
    """:meth:`libmfa.Context.webauthn_credentials`."""
    _lib.require(("mfa_webauthn_credentials_list", "mfa_webauthn_credential_list_free"), "passkey")
    out = ctypes.POINTER(_ffi.mfa_webauthn_credential_list)()
    err = ctypes.c_void_p()
    try:
        with context._use() as handle:
            check(lib.mfa_webauthn_credentials_list(handle, ctypes.byref(out), _args.optional_text(tenant, "tenant"),
                                                    _args.text(uid, "uid"), ctypes.byref(err)), err)
        listed = out.contents
        return [WebAuthnCredentialInfo._from_fields(listed.items[i]) for i in range(listed.count)]
    finally:
        lib.mfa_webauthn_credential_list_free(out)


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


__all__ = ["WebAuthnAttestation", "WebAuthnCredential", "WebAuthnCredentialInfo", "WebAuthnMultiFactorAssertion",
           "WebAuthnMultiFactorGenerator", "passkey_sign_in_options", "sign_in_with_passkey", "verify_assertion",
           "verify_registration", "webauthn_credentials"]
