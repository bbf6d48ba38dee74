"""The MFA engine on one store: :class:`Context` (``mfa_ctx``).

A context owns the C handle and the host's callbacks; it holds the
configuration, the first-factor sign-in, tokens and administration (the
operator's calls are in :mod:`libmfa.engine.admin`, :meth:`Context.admin`). The
flows of every kind of second factor go through the objects of
:mod:`libmfa.engine.flow` (``MultiFactor``, ``MultiFactorResolver``) and the
module of each kind (:mod:`libmfa.engine.totp`, :mod:`libmfa.engine.phone`,
:mod:`libmfa.engine.recovery_codes`).

Every C-allocated result is copied into Python objects and freed before a
method returns. Every failure raises the :class:`libmfa.MFAError` subclass of
its status; wrong Python types raise TypeError.
"""

from __future__ import annotations

import ctypes
import os
import time

from .. import _args, _callbacks, _ffi, _lib, _memory
from .._lib import OK, lib
from ..errors import SecondFactorRequired, check, take_message
from ..models import AuditEvent, SignInResult, User
from . import flow
from . import metrics as _metrics

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, Dict, Iterable, Iterator, List, Mapping, Optional, Sequence, Tuple, Union

    from .._typing import Bytes, OptionalText, Text, UnixTime
    from ..models import MultiFactorInfo
    from .admin import Admin
    from .devices import DeviceToken, RememberedDevice
    from .audit_trail import AuditRecord, AuditVerification
    from ..otp import TOTP

    KeyPairs = Union[Mapping[str, Bytes], Iterable[Tuple[str, Bytes]], None]
    Config = Union[Dict[str, Any], str, bytes, bytearray]

#: The C functions every context needs (checked when one is opened).
_ENGINE_FUNCTIONS = (
    "mfa_open",
    "mfa_close",
    "mfa_options_init",
    "mfa_config_set_json",
    "mfa_config_get_json",
    "mfa_user_init",
    "mfa_session_new",
    "mfa_assertion_init",
    "mfa_enroll",
    "mfa_factor_info_free",
    "mfa_factors_list",
    "mfa_factor_list_free",
    "mfa_unenroll",
    "mfa_sign_in",
    "mfa_resolver_load",
    "mfa_resolver_free",
    "mfa_resolve",
    "mfa_sign_in_result_free",
    "mfa_token_check",
    "mfa_step_up_check",
    "mfa_rotate_keys",
    "mfa_purge_expired",
)


def _master_key(key_id: object, key: object, what: str) -> Tuple[bytes, ctypes.Array[ctypes.c_uint8]]:
    """(id bytes, key buffer) for one master key, checked."""
    raw_id = _args.text(key_id, what + " id")
    raw = _args.secret(key, what)
    if len(raw) != _ffi.MFA_MASTER_KEY_BYTES:
        raise _args.invalid("%s must be %d bytes, got %d" % (what, _ffi.MFA_MASTER_KEY_BYTES, len(raw)))
    return raw_id, (ctypes.c_uint8 * len(raw)).from_buffer_copy(raw)


def _key_pairs(previous_keys: object) -> List[Tuple[object, object]]:
    """previous_keys (None, a dict id -> bytes, or (id, bytes) pairs) as a list of pairs."""
    if previous_keys is None:
        return []
    if isinstance(previous_keys, dict):
        return list(previous_keys.items())
    if isinstance(previous_keys, (str, bytes, bytearray, memoryview)) or not hasattr(previous_keys, "__iter__"):
        raise TypeError("previous_keys must be a dict of id -> key or a list of (id, key) pairs")
    pairs: List[Tuple[object, object]] = []
    for item in previous_keys:
        if not isinstance(item, (tuple, list)) or len(item) != 2:
            raise TypeError("previous_keys items must be (id, key) pairs")
        pairs.append((item[0], item[1]))
    return pairs


def _config_text(config: object) -> bytes:
    """A configuration (a dict, or JSON text) as the bytes of a JSON document."""
    if isinstance(config, dict):
        import json

        return _args.text(json.dumps(config), "config")
    if isinstance(config, (str, bytes, bytearray)):
        return _args.text(config, "config")
    raise TypeError("config must be a dict or a JSON string, not %s" % type(config).__name__)


def _hsm_fields(module: object, token: object, slot: object, key: object, pin: object, pin_file: object,
                pin_env: object) -> Optional[Dict[str, Any]]:
    """The mfa_options fields of a PKCS#11 key provider, or None without ``hsm_module``."""
    if module is None:
        for name, value in (("hsm_token", token), ("hsm_slot", slot), ("hsm_key", key), ("hsm_pin", pin),
                            ("hsm_pin_file", pin_file), ("hsm_pin_env", pin_env)):
            if value is not None:
                raise _args.invalid("%s needs hsm_module" % name)
        return None
    fields: Dict[str, Any] = {
        "hsm_module": _args.text(os.fspath(module) if isinstance(module, os.PathLike) else module, "hsm_module"),
        "hsm_key": _args.text(key, "hsm_key") if key is not None else None,
        "hsm_token": _args.optional_text(token, "hsm_token"),
        "hsm_pin": _args.optional_text(pin, "hsm_pin"),
        "hsm_pin_file": _args.optional_text(os.fspath(pin_file) if isinstance(pin_file, os.PathLike) else pin_file,
                                            "hsm_pin_file"),
        "hsm_pin_env": _args.optional_text(pin_env, "hsm_pin_env"),
    }
    if slot is not None:
        if isinstance(slot, bool) or not isinstance(slot, int) or slot < 0:
            raise TypeError("hsm_slot must be a non-negative int or None")
        fields["hsm_slot"] = slot
    return fields


class _Use:
    """``with context._use() as handle``: the C handle, counted so that close() waits for the call."""

    __slots__ = ("_context", "_handle")

    def __init__(self, context: Context) -> None:
        self._context = context
        self._handle: Any = None

    def __enter__(self) -> Any:
        context = self._context
        if _callbacks.inside():
            raise RuntimeError("libmfa: callbacks must not call back into the context")
        with context._condition:
            if context._handle is None or context._closing:
                raise _args.invalid("the context is closed")
            context._busy += 1
            self._handle = context._handle
        return self._handle

    def __exit__(self, *exc: object) -> None:
        context = self._context
        with context._condition:
            context._busy -= 1
            if not context._busy:
                context._condition.notify_all()


class Context:
    """The MFA engine on one store (``mfa_ctx``).

    Args:
        store: an SQLite file path (str or path-like; created and migrated as
            needed), ``":memory:"`` for a private in-memory store, or a
            ``postgres://`` URL for a store shared by many servers. A location
            meant for another database raises InvalidArgumentError instead of
            creating an SQLite file of that name: a URL of a scheme other than
            ``file:`` (``mysql://``, ``POSTGRES://``) or a libpq keyword/value
            string (``host=db1,db2 dbname=mfa``: give PostgreSQL as a URL).
        master_key: the 32-byte key new secrets and tokens are protected with.
        key_id: the id stored beside what ``master_key`` encrypts (1 to 64
            printable ASCII characters).
        previous_keys: earlier keys still needed to read records not yet
            rotated (see :meth:`rotate_keys`): a dict ``{id: key}`` or a list of
            ``(id, key)`` pairs.
        clock: a callable returning the current Unix time in seconds (int, or
            float rounded down), or None for the system clock. If it raises or
            returns something unusable, that reading falls back to the system
            clock and the problem is logged on the ``libmfa`` logger.
        random: a callable ``random(n)`` returning ``n`` random bytes, used for
            secrets, ids and codes (never for encryption nonces), or None for
            libsodium's CSPRNG. If it raises or returns anything but ``n``
            bytes, the operation that needed the bytes fails with
            :class:`libmfa.CryptoError`.
        audit: a callable receiving each :class:`libmfa.AuditEvent`, on the
            calling thread, after the change it reports is stored. Exceptions
            it raises are logged on the ``libmfa`` logger and ignored.
        sms_sender: the SMS gateway, a callable ``sms_sender(phone_number,
            message)`` taking two str: the strict E.164 number and the text
            ``"<code> is your verification code."``. Its return value is
            ignored; raising makes the send fail with
            :class:`libmfa.SMSSendFailedError`, and then neither the send nor
            any quota or cooldown is counted. It runs on the calling thread,
            with no libmfa lock held. None: no gateway (sends fail, except to
            the configuration's test numbers, which never reach a sender).
        sms_outbox: instead of ``sms_sender``, a file path (str or
            path-like) to append each SMS to, as one JSON object per line
            ``{"time": ..., "to": "+1...", "message": "..."}``; a development
            and test aid (see :func:`libmfa.read_outbox`). Several processes
            may share one outbox.
        app_verifier: the host's check of the app credential a client sends
            with each SMS request (its reCAPTCHA token or APNs-style receipt):
            a callable ``app_verifier(credential, action)`` with ``credential``
            a non-empty str and ``action`` ``"enrollment"`` or ``"sign_in"``.
            Return True to accept; anything else (False, None, an exception,
            which is logged) rejects the request with
            :class:`libmfa.InvalidAppCredentialError`. None: no verifier; SMS
            requests then fail with :class:`libmfa.OperationNotAllowedError`
            unless the configuration sets ``"phone": {"appVerification":
            "DISABLED"}``.
        webauthn_trust: decides which WebAuthn attestations are trusted at
            registration: a callable receiving a
            :class:`libmfa.WebAuthnAttestation` (format, kind, AAGUID,
            certificate chain, whether it leads to a configured root). Return
            True to accept; anything else (or an exception, logged) refuses
            the credential with :class:`libmfa.AttestationNotTrustedError`.
            None: the configuration decides (``webauthn.attestation``
            ``"none"`` accepts every statement, the others only chains that
            lead to ``webauthn.attestationRoots``).
        metrics: whether the context keeps metrics (:meth:`metrics`,
            :meth:`metrics_text`): True by default; False counts nothing.
        metrics_tenants: None for metrics without a tenant label; else the
            most tenants (1 to ``MFA_METRICS_TENANTS_MAX``, 10,000) whose
            events get series of their own, labelled ``tenant``, from the
            first one counted; the events of tenants past the bound share
            ``tenant="(other)"``. Out of range raises InvalidArgumentError.
        audit_chain: the chain of the stored audit trail this context
            appends to, when the configuration keeps the trail
            (``"auditTrail": {"store": true}``): 1 to 64 letters, digits and
            ``. _ - :``; None for ``"main"``. Appends to one chain wait for
            each other; servers writing many events to one PostgreSQL store
            may each name their own (see :meth:`verify_audit_trail`).
        hsm_module: instead of ``master_key``, the PKCS#11 module of an HSM
            (``/usr/lib/softhsm/libsofthsm2.so``) whose AES key wraps the
            store's data keys (docs/guides/hsm.md).
        hsm_token: the token's label (or give ``hsm_slot``, its slot id).
        hsm_slot: the token's slot id, when ``hsm_token`` is None.
        hsm_key: the label of the AES key new data keys are wrapped with.
        hsm_pin, hsm_pin_file, hsm_pin_env: the user PIN, given, in a file
            (its first line), or in an environment variable (read with
            ``secure_getenv``); exactly one.
        email_sender: the mail gateway for email codes, a callable receiving a
            :class:`libmfa.EmailMessage` (``to``, ``subject``, ``body``,
            ``code``, ``purpose``). Its return value is ignored; raising makes
            the send fail with :class:`libmfa.EmailSendFailedError`, and then
            neither the send nor any quota or cooldown is counted. None: no
            gateway (sends fail).
        email_outbox: instead of ``email_sender``, a file path to append each
            email to, as one JSON object per line ``{"time": ..., "to": "...",
            "subject": "...", "body": "..."}``; a development and test aid
            (see :func:`libmfa.read_outbox`).

    Callbacks must not call back into the context (doing so raises
    RuntimeError inside the callback, which then fails as described above).
    The ctypes callback objects are kept on the instance until :meth:`close`.

    A context is thread-safe: share one between threads. :meth:`close` waits
    for calls in progress on other threads; later calls raise
    :class:`libmfa.InvalidArgumentError`. Use it as a context manager to
    close it.

    Raises:
        TypeError: arguments of the wrong type (a str key, a missing key, a
            callback that is not callable).
        InvalidArgumentError: a key that is not 32 bytes, a bad key id,
            duplicate key ids, both ``sms_sender`` and ``sms_outbox`` (or
            ``email_sender`` and ``email_outbox``), an empty outbox path, a
            ``metrics_tenants`` out of range or with ``metrics=False``.
        KeyMismatchError: the store knows a key id given (``key_id`` or one of
            ``previous_keys``) with another key under it; the message names the
            id. With an HSM: the key under the label the store's data keys are
            wrapped with does not unwrap them (it was replaced).
        KeyProviderUnavailableError: the PKCS#11 module does not load, the
            token is not found, or the HSM failed.
        KeyProviderLoginError: the token refused the PIN.
        KeyProviderKeyNotFoundError: the token holds no AES key under the
            label (deleted, or mistyped for a new store).
        StorageError: the store cannot be opened, or was written by a newer libmfa.
    """

    def __init__(
        self,
        store: Union[str, bytes, os.PathLike[str]] = ":memory:",
        master_key: Optional[Bytes] = None,
        key_id: Text = "k1",
        previous_keys: KeyPairs = None,
        clock: Optional[Callable[[], Union[int, float]]] = None,
        random: Optional[Callable[[int], Bytes]] = None,
        audit: Optional[Callable[[AuditEvent], object]] = None,
        sms_sender: Optional[Callable[[str, str], object]] = None,
        sms_outbox: Union[str, bytes, os.PathLike[str], None] = None,
        app_verifier: Optional[Callable[[str, str], object]] = None,
        webauthn_trust: Optional[Callable[[Any], object]] = None,
        metrics: bool = True,
        metrics_tenants: Optional[int] = None,
        audit_chain: OptionalText = None,
        hsm_module: Union[str, bytes, os.PathLike[str], None] = None,
        hsm_token: OptionalText = None,
        hsm_slot: Optional[int] = None,
        hsm_key: OptionalText = None,
        hsm_pin: OptionalText = None,
        hsm_pin_file: Union[str, bytes, os.PathLike[str], None] = None,
        hsm_pin_env: OptionalText = None,
        email_sender: Optional[Callable[[Any], object]] = None,
        email_outbox: Union[str, bytes, os.PathLike[str], None] = None,
    ) -> None:
        import threading  # here, not at import: most programs that import libmfa open no context

        self._handle: Any = None
        self._condition = threading.Condition(threading.Lock())
        self._busy = 0
        self._closing = False
        _lib.require(_ENGINE_FUNCTIONS, "engine")
        hsm = _hsm_fields(hsm_module, hsm_token, hsm_slot, hsm_key, hsm_pin, hsm_pin_file, hsm_pin_env)
        if master_key is None and hsm is None:
            raise TypeError("master_key is required (%d bytes), or hsm_module" % _ffi.MFA_MASTER_KEY_BYTES)
        if master_key is not None and hsm is not None:
            raise _args.invalid("give master_key or hsm_module, not both")
        for name, function in (("clock", clock), ("random", random), ("audit", audit),
                               ("sms_sender", sms_sender), ("app_verifier", app_verifier),
                               ("webauthn_trust", webauthn_trust), ("email_sender", email_sender)):
            if function is not None and not callable(function):
                raise TypeError("%s must be callable or None" % name)
        if isinstance(store, os.PathLike):
            store = os.fspath(store)
        store_raw = _args.text(store, "store")
        if isinstance(sms_outbox, os.PathLike):
            sms_outbox = os.fspath(sms_outbox)
        outbox_raw = _args.optional_text(sms_outbox, "sms_outbox")
        chain_raw = _args.optional_text(audit_chain, "audit_chain")
        if outbox_raw is not None and sms_sender is not None:
            raise _args.invalid("give sms_sender or sms_outbox, not both")
        if outbox_raw == b"":
            raise _args.invalid("sms_outbox must not be empty")
        if isinstance(email_outbox, os.PathLike):
            email_outbox = os.fspath(email_outbox)
        mail_outbox_raw = _args.optional_text(email_outbox, "email_outbox")
        if mail_outbox_raw is not None and email_sender is not None:
            raise _args.invalid("give email_sender or email_outbox, not both")
        if mail_outbox_raw == b"":
            raise _args.invalid("email_outbox must not be empty")

        metrics_mode, tenant_bound = _metrics.options(metrics, metrics_tenants)
        pairs = _key_pairs(previous_keys)
        previous = (_ffi.mfa_master_key * max(len(pairs), 1))()
        buffers: List[ctypes.Array[ctypes.c_uint8]] = []
        key_raw_id = None
        if master_key is not None:
            key_raw_id, key_buffer = _master_key(key_id, master_key, "master_key")
            buffers.append(key_buffer)
        for index, (pid, pkey) in enumerate(pairs):
            raw_id, buffer = _master_key(pid, pkey, "previous key")
            previous[index].id = raw_id
            previous[index].key = ctypes.cast(buffer, ctypes.POINTER(ctypes.c_uint8))
            buffers.append(buffer)

        self._clock = clock
        self._clock_fn = _callbacks.clock(clock) if clock is not None else None
        self._random_fn = _callbacks.random(random) if random is not None else None
        self._audit_fn = _callbacks.audit(audit, AuditEvent._from_fields) if audit is not None else None
        self._sms_sender_fn = _callbacks.sms_sender(sms_sender) if sms_sender is not None else None
        self._app_verifier_fn = _callbacks.app_verifier(app_verifier) if app_verifier is not None else None
        self._email_sender_fn = None
        if email_sender is not None:
            from .email import EmailMessage

            self._email_sender_fn = _callbacks.email_sender(email_sender, EmailMessage)
        self._webauthn_trust_fn = None
        if webauthn_trust is not None:
            from .webauthn import WebAuthnAttestation

            self._webauthn_trust_fn = _callbacks.webauthn_trust(webauthn_trust, WebAuthnAttestation._from_fields)

        options = _ffi.mfa_options()
        check(lib.mfa_options_init(ctypes.byref(options), _ffi.MFA_OPTIONS_VERSION))
        options.store = store_raw
        if key_raw_id is not None:
            options.master_key.id = key_raw_id
            options.master_key.key = ctypes.cast(buffers[0], ctypes.POINTER(ctypes.c_uint8))
        if hsm is not None:
            for name, value in hsm.items():
                setattr(options, name, value)
        if pairs:
            options.previous_keys = previous
            options.previous_key_count = len(pairs)
        if self._clock_fn is not None:
            options.clock = self._clock_fn
        if self._random_fn is not None:
            options.random = self._random_fn
        if self._audit_fn is not None:
            options.audit = self._audit_fn
        if self._sms_sender_fn is not None:
            options.sms_sender = self._sms_sender_fn
        if outbox_raw is not None:
            options.sms_outbox = outbox_raw
        if self._app_verifier_fn is not None:
            options.app_verifier = self._app_verifier_fn
        if self._webauthn_trust_fn is not None:
            options.webauthn_trust = self._webauthn_trust_fn
        options.metrics = metrics_mode
        options.metrics_tenants = tenant_bound
        if chain_raw is not None:
            options.audit_chain = chain_raw
        if self._email_sender_fn is not None:
            options.email_sender = self._email_sender_fn
        if mail_outbox_raw is not None:
            options.email_outbox = mail_outbox_raw

        handle = ctypes.POINTER(_ffi.mfa_ctx)()
        err = ctypes.c_void_p()
        try:
            check(lib.mfa_open(ctypes.byref(handle), ctypes.byref(options), ctypes.byref(err)), err)
        finally:
            for buffer in buffers:  # mfa_open copied the keys
                ctypes.memset(buffer, 0, len(buffer))
        self._handle = handle
        self._store = store if isinstance(store, str) else store_raw.decode("utf-8", "replace")

    # --- lifetime ---------------------------------------------------------------------

    def close(self) -> None:
        """Close the context and its store (idempotent).

        Waits for calls in progress on other threads to return; calls made
        afterwards raise InvalidArgumentError. Releases the callbacks.

        Raises:
            RuntimeError: called from inside one of this context's callbacks.
        """
        if _callbacks.inside():
            raise RuntimeError("libmfa: a callback must not close the context")
        with self._condition:
            if self._handle is None or self._closing:
                return
            self._closing = True
            while self._busy:
                self._condition.wait()
            handle, self._handle = self._handle, None
        lib.mfa_close(handle)
        self._clock_fn = self._random_fn = self._audit_fn = None
        self._sms_sender_fn = self._app_verifier_fn = self._webauthn_trust_fn = None

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` was called."""
        return self._handle is None or self._closing

    def __enter__(self) -> Context:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            if getattr(self, "_handle", None) is not None and not self._busy:
                self.close()
        except Exception:  # noqa: BLE001 - interpreter shutdown
            pass

    def __repr__(self) -> str:
        return "<libmfa.Context store=%r%s>" % (getattr(self, "_store", None), " closed" if self.closed else "")

    def _use(self) -> _Use:
        """``with self._use() as handle``: the C handle, the call counted so that close() waits for it."""
        return _Use(self)

    def _now(self) -> int:
        """The context's clock, read from Python (same fallback as the callback)."""
        if self._clock is None:
            return int(time.time())
        try:
            return _callbacks.seconds(self._clock())
        except Exception:  # noqa: BLE001 - documented fallback
            _callbacks.log().exception("libmfa: the clock callback failed; using the system clock")
            return int(time.time())

    # --- calls shared by the flows of every factor kind ---------------------------------

    def _string_call(self, function: Callable[..., int], *arguments: Any) -> str:
        """Calls an engine function that returns a new string (ctx, out, *arguments, err) and decodes it."""
        out = ctypes.c_void_p()
        err = ctypes.c_void_p()
        try:
            with self._use() as handle:
                check(function(handle, ctypes.byref(out), *arguments, ctypes.byref(err)), err)
            return _memory.text(out)
        finally:
            lib.mfa_free(out)

    def _factor_call(self, function: Callable[..., int], user: User, *arguments: Any) -> MultiFactorInfo:
        """Calls an engine function that makes a factor (ctx, out, user, *arguments, err) and copies it."""
        c_user = flow.c_user(user)
        out = ctypes.POINTER(_ffi.mfa_factor_info)()
        err = ctypes.c_void_p()
        try:
            with self._use() as handle:
                check(function(handle, ctypes.byref(out), ctypes.byref(c_user), *arguments, ctypes.byref(err)), err)
            return flow.factor_info(out.contents)
        finally:
            lib.mfa_factor_info_free(out)

    # --- configuration ----------------------------------------------------------------

    def set_config(self, config: Config, tenant: OptionalText = None) -> None:
        """Store the MFA configuration of the project (``tenant`` None) or of a tenant.

        Replaces the previous configuration of that project or tenant (a field
        it does not name takes its default: a document without ``state`` turns
        MFA off); a tenant's fields override the project's. To change some
        fields and keep the others, use :meth:`update_config`.

        Args:
            config: a dict, or a JSON str/bytes, like ``{"state": "ENABLED",
                "providers": {"totp": "ENABLED", "phone": "DISABLED",
                "recovery": "ENABLED"}, "totp": {"adjacentIntervals": 5},
                "testPhoneNumbers": {"+15555550100": "123456"},
                "recoveryCodes": {"count": 10}, "limits": {...}}``; every field
                is optional. ``state`` is DISABLED, ENABLED or MANDATORY. The
                shapes the Firebase guides write are accepted too: the Admin
                SDK's ``{"multiFactorConfig": {"state", "factorIds",
                "providerConfigs"}}`` and the REST API's ``{"mfa": {...}}`` /
                ``{"mfaConfig": {...}}`` with ``"enabledProviders"``; integers
                may be given as strings.
            tenant: the tenant id, or None for the project.

        Raises:
            TypeError: ``config`` is neither a dict nor JSON text (or holds
                values ``json`` cannot serialize).
            InvalidArgumentError: malformed JSON, an unknown field, a value out
                of range (adjacentIntervals outside 0..10, more than 10 test
                numbers, a test code that is not six digits); the message
                names the field.
            StorageError: the store failed.
        """
        self._config_call(lib.mfa_config_set_json, config, tenant)

    def update_config(self, config: Config, tenant: OptionalText = None) -> None:
        """Change only the fields ``config`` names in the configuration of the project or a tenant.

        Like the service's ``updateProjectConfig`` / ``updateTenant``: objects
        merge field by field, ``testPhoneNumbers`` is replaced whole, and every
        field not named keeps its stored value. Accepts what :meth:`set_config`
        accepts; on an error nothing is changed.

        Raises:
            The errors of :meth:`set_config`.
        """
        _lib.require(("mfa_config_update_json",), "configuration")
        self._config_call(lib.mfa_config_update_json, config, tenant)

    def _config_call(self, function: Callable[..., int], config: object, tenant: object) -> None:
        raw = _config_text(config)
        raw_tenant = _args.optional_text(tenant, "tenant")
        err = ctypes.c_void_p()
        with self._use() as handle:
            check(function(handle, raw_tenant, raw, ctypes.byref(err)), err)

    def config(self, tenant: OptionalText = None) -> Dict[str, Any]:
        """The effective configuration of the project or a tenant, every field written out.

        Returns:
            A dict in libmfa's own format of :meth:`set_config` (the tenant's
            fields over the project's over the defaults).
        """
        import json

        raw_tenant = _args.optional_text(tenant, "tenant")
        document: Dict[str, Any] = json.loads(self._string_call(lib.mfa_config_get_json, raw_tenant))
        return document

    # --- metrics ----------------------------------------------------------------------

    def metrics(self) -> _metrics.Metrics:
        """The context's metrics now: counters and latency histograms since it opened.

        Returns:
            A :class:`libmfa.Metrics` (no families when the context was opened
            with ``metrics=False``); ``metrics.value("libmfa_sign_ins_total",
            kind="totp", outcome="success")`` reads one series.
        """
        _lib.require(("mfa_metrics_snapshot", "mfa_metrics_free"), "metrics")
        out = _metrics.snapshot_pointer()
        err = ctypes.c_void_p()
        try:
            with self._use() as handle:
                check(lib.mfa_metrics_snapshot(handle, ctypes.byref(out), ctypes.byref(err)), err)
            return _metrics.from_c(out.contents)
        finally:
            lib.mfa_metrics_free(out)

    def metrics_text(self) -> str:
        """The context's metrics in Prometheus' text exposition format (version 0.0.4), in one call.

        What a ``/metrics`` endpoint serves, with the content type
        :data:`libmfa.PROMETHEUS_CONTENT_TYPE`: ``# HELP`` and ``# TYPE``
        lines, then each series; "" when the context keeps no metrics.
        """
        _lib.require(("mfa_metrics_prometheus",), "metrics")
        return self._string_call(lib.mfa_metrics_prometheus)

    # --- users and sign-in --------------------------------------------------------------

    def multi_factor(self, user: User) -> flow.MultiFactor:
        """The second factors of ``user``: a :class:`MultiFactor` (Firebase's ``user.multiFactor``)."""
        return flow.MultiFactor(self, user)

    def sign_in(self, user: User, device_token: OptionalText = None) -> SignInResult:
        """Report a successful first factor for ``user``.

        Args:
            user: the :class:`libmfa.User` who passed the first factor.
            device_token: the token of a remembered device the user signs in
                on (:meth:`remember_device`), or None. When it names one of
                the user's remembered devices that has not expired (and
                ``rememberedDevices`` is ENABLED), the user is signed in
                without a second factor. Any other token (unknown, another
                user's or tenant's, altered, expired, revoked) is ignored,
                audited (``AUDIT_DEVICE_REFUSED``) and the sign-in goes on as
                without it: nothing in the answer says why.

        Returns:
            A :class:`SignInResult` when no second factor is needed: the user
            has none and MFA is not MANDATORY (``factor_id`` None, no claims;
            ``time`` from the context's clock), or a remembered device stood in
            for it (``factor_id`` ``"remembered_device"``, ``enrollment_id``
            the device's id, with the claims).

        Raises:
            SecondFactorRequired: the user has second factors; its
                ``resolver`` (a :class:`MultiFactorResolver`) holds the hints
                and the pending credential that finish the sign-in.
            EnrollmentRequiredError: MFA is MANDATORY and the user has no factor.
            UnsupportedFirstFactorError: the user signed in with phone,
                anonymous, custom or gc.apple.com while a second factor is
                required (the user has factors, or MFA is MANDATORY).
            InvalidArgumentError, StorageError.
        """
        c_user = flow.c_user(user)
        if device_token is not None:
            return self._sign_in_remembered(c_user, _args.text(device_token, "device_token"))
        out = ctypes.POINTER(_ffi.mfa_resolver)()
        err = ctypes.c_void_p()
        try:
            with self._use() as handle:
                status = lib.mfa_sign_in(handle, ctypes.byref(out), ctypes.byref(c_user), ctypes.byref(err))
            if status == OK:
                take_message(err)
                return SignInResult(_text(user.uid), _optional_text(user.tenant), None, None, self._now())
            if status == _ffi.MFA_ERR_SECOND_FACTOR_REQUIRED and out:
                resolver = flow.resolver(self, out.contents)
                error = SecondFactorRequired(status, take_message(err))
                error.resolver = resolver
                raise error
            check(status, err)
            raise AssertionError("unreachable")  # pragma: no cover
        finally:
            lib.mfa_resolver_free(out)

    def _sign_in_remembered(self, c_user: _ffi.mfa_user, token: bytes) -> SignInResult:
        """``mfa_sign_in_remembered``: :meth:`sign_in` with a device token."""
        _lib.require(("mfa_sign_in_remembered",), "remembered devices")
        result = ctypes.POINTER(_ffi.mfa_sign_in_result)()
        out = ctypes.POINTER(_ffi.mfa_resolver)()
        err = ctypes.c_void_p()
        try:
            with self._use() as handle:
                status = lib.mfa_sign_in_remembered(handle, ctypes.byref(result), ctypes.byref(out),
                                                    ctypes.byref(c_user), token, ctypes.byref(err))
            if status == OK and result:
                take_message(err)
                return flow.sign_in_result(result.contents)
            if status == _ffi.MFA_ERR_SECOND_FACTOR_REQUIRED and out:
                error = SecondFactorRequired(status, take_message(err))
                error.resolver = flow.resolver(self, out.contents)
                raise error
            check(status, err)
            raise AssertionError("unreachable")  # pragma: no cover
        finally:
            lib.mfa_sign_in_result_free(result)
            lib.mfa_resolver_free(out)

    # --- remembered devices -----------------------------------------------------------

    def remember_device(self, pending_credential: Union[flow.MultiFactorResolver, Text], label: OptionalText = None,
                        tenant: OptionalText = None) -> DeviceToken:
        """Remember the device a sign-in finished on, and return its token (``mfa_device_remember``).

        Call it right after the sign-in's ``resolve_sign_in`` succeeded:
        only a sign-in that passed a second factor can remember its device,
        and each remembers one. libmfa keeps only a keyed hash of the token;
        hand it to that device alone (an HttpOnly cookie). At the user's
        limit (``rememberedDevices.maxPerUser``) the device used least
        recently is forgotten. Audited (``AUDIT_DEVICE_REMEMBERED``).

        Args:
            pending_credential: the :class:`libmfa.MultiFactorResolver` of the
                finished sign-in, or its pending credential (``resolver.session``).
            label: the host's name for the device ("Firefox on Linux"), at
                most 256 bytes, or None.
            tenant: the tenant of the request (taken from the resolver when one is given).

        Returns:
            A :class:`libmfa.DeviceToken`: ``token`` and its ``device``.

        Raises:
            OperationNotAllowedError: ``rememberedDevices.state`` is not ENABLED for the tenant.
            InvalidSessionError: the sign-in did not finish with a second
                factor, already remembered a device, or is too old.
            UserTokenExpiredError, TenantMismatchError, InvalidArgumentError, TypeError, StorageError.
        """
        from . import devices

        if isinstance(pending_credential, flow.MultiFactorResolver):
            return devices.remember(self, pending_credential.session, pending_credential.tenant, label)
        return devices.remember(self, pending_credential, tenant, label)

    def remembered_devices(self, uid: Text, tenant: OptionalText = None) -> List[RememberedDevice]:
        """The user's remembered devices that have not expired, the most recently used first.

        For the user's account page (the host decides who may see them).

        Raises:
            InvalidArgumentError, TypeError, StorageError.
        """
        from . import devices

        return devices.listed(self, uid, tenant)

    def revoke_remembered_devices(self, uid: Text, device_id: OptionalText = None,
                                  tenant: OptionalText = None) -> int:
        """Forget one of the user's remembered devices (``device_id``), or all of them (None).

        Their tokens no longer stand in for a second factor. The user's
        devices are also forgotten by :meth:`revoke_tokens` (call it when the
        password changes), by the removal of the user's last factor, and by
        an operator's reset or delete. Audited: ``AUDIT_DEVICE_REVOKED`` per device.

        Returns:
            How many were forgotten.

        Raises:
            DeviceNotFoundError: the user has no device with this id.
            InvalidArgumentError, TypeError, StorageError.
        """
        from . import devices

        return devices.revoke(self, uid, device_id, tenant)

    def resolver(self, pending_credential: Text, tenant: OptionalText = None) -> flow.MultiFactorResolver:
        """Rebuild a :class:`MultiFactorResolver` from a pending credential a client sent back.

        Args:
            pending_credential: the resolver's ``session`` string.
            tenant: the tenant this request is served for, or None.

        Raises:
            InvalidSessionError: a tampered, expired or already used pending credential.
            UserTokenExpiredError: the user's tokens were revoked since it was issued.
            TenantMismatchError: it belongs to another tenant.
            TypeError, InvalidArgumentError, StorageError.
        """
        raw = _args.text(pending_credential, "pending_credential")
        raw_tenant = _args.optional_text(tenant, "tenant")
        out = ctypes.POINTER(_ffi.mfa_resolver)()
        err = ctypes.c_void_p()
        try:
            with self._use() as handle:
                check(lib.mfa_resolver_load(handle, ctypes.byref(out), raw, raw_tenant, ctypes.byref(err)), err)
            return flow.resolver(self, out.contents)
        finally:
            lib.mfa_resolver_free(out)

    # --- tokens -----------------------------------------------------------------------

    def check_token(self, uid: Text, issued_at: UnixTime, tenant: OptionalText = None) -> None:
        """Check that a credential issued to ``uid`` at ``issued_at`` is still valid.

        Enrolling and unenrolling a factor, generating recovery codes and
        :meth:`revoke_tokens` revoke the user's earlier credentials. A
        credential issued in the same second as a revocation counts as
        earlier: issue the new one a second later, or check with
        :meth:`check_token_ms`.

        Args:
            uid: the user.
            issued_at: when the host issued the credential (Unix seconds, int,
                float rounded down, or datetime).
            tenant: the user's tenant, or None.

        Raises:
            UserTokenExpiredError: the credential predates a revocation; the
                user must sign in again.
            TypeError, InvalidArgumentError, StorageError.
        """
        raw_uid = _args.text(uid, "uid")
        raw_tenant = _args.optional_text(tenant, "tenant")
        when = _args.unix_time(issued_at, "issued_at")
        with self._use() as handle:
            check(lib.mfa_token_check(handle, raw_tenant, raw_uid, when))

    def check_token_ms(self, uid: Text, issued_at_ms: UnixTime, tenant: OptionalText = None) -> None:
        """Like :meth:`check_token`, for a credential whose issue time is known to the millisecond.

        Valid if issued strictly after the user's last revocation, which
        libmfa records to the millisecond.

        Args:
            uid: the user.
            issued_at_ms: when the host issued the credential, in Unix
                milliseconds (int, or float rounded down), or a datetime.
            tenant: the user's tenant, or None.

        Raises:
            UserTokenExpiredError: the credential predates a revocation.
            TypeError, InvalidArgumentError, StorageError.
        """
        _lib.require(("mfa_token_check_ms",), "token")
        raw_uid = _args.text(uid, "uid")
        raw_tenant = _args.optional_text(tenant, "tenant")
        when = _args.unix_time_ms(issued_at_ms, "issued_at_ms")
        with self._use() as handle:
            check(lib.mfa_token_check_ms(handle, raw_tenant, raw_uid, when))

    def revoke_tokens(self, uid: Text, tenant: OptionalText = None) -> None:
        """Revoke every credential and libmfa token issued to ``uid`` so far.

        As after a password reset or a compromised account: credentials issued
        before fail :meth:`check_token` with :class:`libmfa.UserTokenExpiredError`,
        and so do the user's enrollment sessions, TOTP secrets waiting for
        enrollment, SMS and email verification ids and pending credentials.
        The user's remembered devices are forgotten: call it when the user's
        password changes, so that no device token outlives the password.
        Factors stay enrolled. Audited (``AUDIT_TOKENS_REVOKED``, and
        ``AUDIT_DEVICE_REVOKED`` per device).

        Raises:
            TypeError, InvalidArgumentError, StorageError.
        """
        _lib.require(("mfa_revoke_tokens",), "token")
        raw_uid = _args.text(uid, "uid")
        raw_tenant = _args.optional_text(tenant, "tenant")
        err = ctypes.c_void_p()
        with self._use() as handle:
            check(lib.mfa_revoke_tokens(handle, raw_tenant, raw_uid, ctypes.byref(err)), err)

    # --- passkeys: signing in without a password ------------------------------------------

    def passkey_sign_in_options(self, tenant: OptionalText = None, hints: Optional[Sequence[str]] = None) -> str:
        """The ``PublicKeyCredentialRequestOptions`` of a sign-in with a passkey alone, as JSON text.

        No user is named: ``allowCredentials`` is empty (the browser offers
        the passkeys it holds for the rp id, in the username field's autofill
        with ``mediation: "conditional"`` or in its account chooser), user
        verification is required, and the challenge is a fresh token bound to
        ``tenant``. The answer is the same whoever asks.

        Args:
            tenant: the tenant the host serves, or None for the project.
            hints: WebAuthn Level 3 hints (``"client-device"``, ``"hybrid"``, ``"security-key"``).

        Raises:
            OperationNotAllowedError: WebAuthn disabled, no ``webauthn.rpId``,
                or ``webauthn.passkeySignIn`` not true.
            InvalidArgumentError, TypeError, StorageError.
        """
        from . import webauthn

        return webauthn.passkey_sign_in_options(self, tenant, hints)

    def sign_in_with_passkey(self, credential: Any, tenant: OptionalText = None) -> SignInResult:
        """Sign a user in with a passkey alone: first and second factor at once.

        Args:
            credential: the browser's ``credential.toJSON()`` answering
                :meth:`passkey_sign_in_options` (JSON text or a dict).
            tenant: the tenant the host serves, or None.

        Returns:
            A :class:`libmfa.SignInResult` naming the user (``uid``,
            ``tenant``) and the passkey (``enrollment_id``), whose ``claims``
            say ``sign_in_method: "passkey"`` and ``amr`` (``"hwk user mfa"``
            for a device-bound key, ``"swk user mfa"`` for a synced passkey)
            beside the claims of a WebAuthn second factor.

        Raises:
            InvalidVerificationCodeError: the passkey was not accepted (an
                unknown credential, another tenant's, a removed one, one that
                is not a passkey, another user handle, a wrong signature: one
                answer, so that nobody learns whether an account exists).
            InvalidArgumentError (malformed, no ``userHandle``),
            InvalidSessionError (another challenge, expired, used),
            TenantMismatchError, OriginMismatchError, RPIDMismatchError,
            UserVerificationRequiredError, OperationNotAllowedError,
            TooManyAttemptsError, UserTokenExpiredError, CredentialClonedError,
            TypeError, StorageError.
        """
        from . import webauthn

        return webauthn.sign_in_with_passkey(self, credential, tenant)

    def webauthn_credentials(self, uid: Text, tenant: OptionalText = None) -> List[Any]:
        """A user's WebAuthn credentials (:class:`libmfa.WebAuthnCredentialInfo`), oldest first.

        Which are passkeys that sign in without a password, which are synced
        (the backup flags), how each was attested. An operator's call: no session.

        Raises:
            TypeError, InvalidArgumentError, StorageError.
        """
        from . import webauthn

        return list(webauthn.webauthn_credentials(self, uid, tenant))

    def passed_second_factor(self, uid: Text, within: object, tenant: OptionalText = None) -> bool:
        """Step-up: whether ``uid`` passed a second factor in the last ``within`` seconds.

        Args:
            uid: the user.
            within: seconds (int or ``datetime.timedelta``), not negative.
            tenant: the user's tenant, or None.

        Returns:
            True or False.

        Raises:
            InvalidArgumentError: a negative ``within``; TypeError, StorageError.
        """
        raw_uid = _args.text(uid, "uid")
        raw_tenant = _args.optional_text(tenant, "tenant")
        seconds = _args.seconds(within, "within")
        out = ctypes.c_bool(False)
        with self._use() as handle:
            check(lib.mfa_step_up_check(handle, ctypes.byref(out), raw_tenant, raw_uid, seconds))
        return bool(out.value)

    # --- administration ---------------------------------------------------------------

    def admin(self, actor: Text) -> Admin:
        """The administrative calls on this context, made by ``actor``: an :class:`libmfa.Admin`.

        Listing users and their factors, unenrolling, renaming, resetting and
        deleting users, counting, importing from other systems and rotating
        keys, with no user sign-in (the host decides who may). The audit
        events of the calls that change something carry ``actor``.

        Args:
            actor: who makes the calls (such as an operator's name), 1 to
                :data:`libmfa.ACTOR_MAX_BYTES` bytes of UTF-8.

        Raises:
            TypeError: an actor that is not str or bytes.
            InvalidArgumentError: an empty, overlong or non-UTF-8 actor.
        """
        from .admin import Admin

        return Admin(self, actor)

    def import_totp(self, user: User, secret: Union[Bytes, TOTP], display_name: OptionalText = None) -> MultiFactorInfo:
        """Import a TOTP factor the user already has elsewhere, without a code.

        See :func:`libmfa.engine.totp.import_totp`.
        """
        from . import totp

        return totp.import_totp(self, user, secret, display_name)

    def import_uri(self, user: User, uri: Text, display_name: OptionalText = None) -> MultiFactorInfo:
        """Import a TOTP factor from an ``otpauth://totp/...`` URI.

        See :func:`libmfa.engine.totp.import_uri`.
        """
        from . import totp

        return totp.import_uri(self, user, uri, display_name)

    def rotate_keys(self) -> int:
        """Re-encrypt every stored secret that is not under the current master key.

        Afterwards the previous keys are no longer needed for stored factors.
        It runs to the end in batches of 500 records, each its own
        transaction; :meth:`libmfa.Admin.rotate_keys` takes the batch size,
        reports progress and can stop.

        Returns:
            The number of records re-encrypted (factors, and SMS verifications
            still stored).

        Raises:
            CryptoError: a record's key was not given; StorageError.
        """
        count = ctypes.c_size_t(0)
        err = ctypes.c_void_p()
        with self._use() as handle:
            check(lib.mfa_rotate_keys(handle, ctypes.byref(count), ctypes.byref(err)), err)
        return int(count.value)

    def purge_expired(self) -> None:
        """Delete pending TOTP secrets past their deadline and expired used-token records.

        With the stored audit trail, also its events past the configuration's
        retention and size (:meth:`purge_audit_trail`).

        Raises:
            StorageError: the store failed.
        """
        err = ctypes.c_void_p()
        with self._use() as handle:
            check(lib.mfa_purge_expired(handle, ctypes.byref(err)), err)

    # --- the stored audit trail -----------------------------------------------------------

    def audit_records(self, tenant: OptionalText = None, uid: OptionalText = None,
                      kind: Union[int, str, None] = None, since: Optional[int] = None,
                      until: Optional[int] = None, chain: OptionalText = None, after_seq: Optional[int] = None,
                      after: Optional[Tuple[int, str, int]] = None, limit: int = 100,
                      latest: bool = False) -> List[AuditRecord]:
        """Read stored audit events (the configuration's ``auditTrail.store`` keeps them), oldest first.

        Every filter is optional. Events come by time, then chain, then
        number; by number alone with ``chain``.

        Args:
            tenant: only this tenant's events (``""`` for the project's).
            uid: only events about this user.
            kind: only events of this kind: an ``AUDIT_*`` int or a kind's
                name (``"SIGN_IN_FAILURE"``, also for kinds newer than this
                package).
            since: only events at or after this Unix time.
            until: only events before this Unix time.
            chain: only this chain's events, by number.
            after_seq: with ``chain``, only events numbered after this one.
            after: the :attr:`AuditRecord.position` of the last record of
                the previous page (without ``chain``).
            limit: at most this many, 1 to :data:`libmfa.TRAIL_READ_MAX`.
            latest: the latest ``limit`` events instead of the earliest
                (still oldest first).

        Raises:
            InvalidArgumentError: a bad limit, kind, tenant, uid or chain;
            StorageError.
        """
        from . import audit_trail

        return audit_trail.records(self, tenant=tenant, uid=uid, kind=kind, since=since, until=until, chain=chain,
                                   after_seq=after_seq, after=after, limit=limit, latest=latest)

    def audit_trail(self, tenant: OptionalText = None, uid: OptionalText = None,
                    kind: Union[int, str, None] = None, since: Optional[int] = None,
                    until: Optional[int] = None) -> Iterator[AuditRecord]:
        """Every stored audit event the filters select, oldest first, read a page at a time.

        The filters are those of :meth:`audit_records`.
        """
        from . import audit_trail

        return audit_trail.every(self, tenant=tenant, uid=uid, kind=kind, since=since, until=until)

    def verify_audit_trail(self) -> AuditVerification:
        """Check the stored audit trail, chain by chain.

        Every event's MAC and link to the event before it, the numbering
        from the anchor (the first event kept after purges) to the head, and
        the head's own MAC. Events MACed under a key not among this
        context's keys are counted as unchecked (give the earlier keys as
        ``previous_keys`` to check them). Reads without locks while other
        processes append.

        Returns:
            An :class:`AuditVerification`: ``intact``, and for each broken
            chain the event where it breaks and what is wrong there.

        Raises:
            StorageError: the trail cannot be read.
        """
        from . import audit_trail

        return audit_trail.verify(self)

    def purge_audit_trail(self) -> int:
        """Delete stored audit events past the configuration's ``retentionDays`` and ``maxEvents``.

        Each chain stays verifiable from its new anchor.

        Returns:
            How many events were deleted.

        Raises:
            StorageError.
        """
        from . import audit_trail

        return audit_trail.purge(self)


def _text(value: Text) -> str:
    """A str-or-UTF-8-bytes value as str."""
    return value if isinstance(value, str) else bytes(value).decode("utf-8", "replace")


def _optional_text(value: OptionalText) -> Optional[str]:
    """Like :func:`_text`; None stays None."""
    return None if value is None else _text(value)


__all__ = ["Context"]
