"""The MFA engine: configuration, enrollment, sign-in, tokens (Firebase's model).

Quick start::

    import libmfa

    with libmfa.Context("mfa.sqlite3", master_key=key) as ctx:
        ctx.set_config({"state": "ENABLED", "providers": {"totp": "ENABLED"}})
        user = libmfa.User("alice", email="a@example.com", email_verified=True,
                           auth_time=int(time.time()))
        mf = ctx.multi_factor(user)
        secret = libmfa.TOTPMultiFactorGenerator.generate_secret(mf.session())
        print(secret.qr_text("a@example.com", "ACME"))
        code = input("code: ")
        info = mf.enroll(libmfa.TOTPMultiFactorGenerator.assertion_for_enrollment(secret, code))

        try:
            ctx.sign_in(user)
        except libmfa.SecondFactorRequired as error:
            resolver = error.resolver
            assertion = libmfa.TOTPMultiFactorGenerator.assertion_for_sign_in(
                resolver.hints[0].uid, input("code: "))
            result = resolver.resolve_sign_in(assertion)

SMS (phone) factors use the same MultiFactor and resolver objects, with
:class:`libmfa.PhoneAuthProvider` and :class:`libmfa.PhoneMultiFactorGenerator`
(see :mod:`libmfa.phone`) and a Context opened with ``sms_sender`` (or
``sms_outbox``) and ``app_verifier``.

Every C-allocated result is copied into Python objects and freed before a
method returns. Every failure raises the :class:`libmfa.MFAError` subclass of
its status; wrong Python types raise TypeError.
"""

import contextlib
import ctypes
import datetime
import json
import logging
import os
import threading
import time

from . import _args, _callbacks, constants
from ._lib import OK, lib, missing
from ._types import mfa_factor_info, mfa_factor_list, mfa_master_key, mfa_options, mfa_resolver
from ._types import mfa_sign_in_result, mfa_totp_params, mfa_totp_secret, mfa_user, mfa_ctx
from .constants import Status
from .errors import SecondFactorRequired, check, take_message
from .models import (
    TOTP_FACTOR_ID,
    AuditEvent,
    MultiFactorInfo,
    PhoneMultiFactorAssertion,
    SignInResult,
    TOTPMultiFactorAssertion,
    TOTPSecret,
    User,
)
from .otp import TOTP
from .qr import qr_code

log = logging.getLogger("libmfa")

_ENGINE_FUNCTIONS = (
    "mfa_open",
    "mfa_close",
    "mfa_options_init",
    "mfa_config_set_json",
    "mfa_config_get_json",
    "mfa_session_new",
    "mfa_totp_generate_secret",
    "mfa_totp_secret_free",
    "mfa_totp_enroll",
    "mfa_factor_info_free",
    "mfa_factors_list",
    "mfa_factor_list_free",
    "mfa_unenroll",
    "mfa_sign_in",
    "mfa_resolver_load",
    "mfa_resolver_free",
    "mfa_resolve_totp",
    "mfa_sign_in_result_free",
    "mfa_token_check",
    "mfa_step_up_check",
    "mfa_totp_import",
    "mfa_totp_import_uri",
    "mfa_rotate_keys",
    "mfa_purge_expired",
    "mfa_totp_secret_uri",
    "mfa_user_init",
)
#: The C functions of the SMS second factor (checked when first used).
_PHONE_FUNCTIONS = (
    "mfa_phone_start_enrollment",
    "mfa_phone_start_sign_in",
    "mfa_phone_enroll",
    "mfa_resolve_phone",
)
_SECOND_FACTOR_REQUIRED = int(Status.SECOND_FACTOR_REQUIRED)


def _text(value):
    """A C string (bytes) as str."""
    return value.decode("utf-8", "replace")


def _optional(value):
    """A C string (bytes or None) as str or None."""
    return None if value is None else value.decode("utf-8", "replace")


def _as_str(value):
    """A str-or-UTF-8-bytes value as str (None stays None)."""
    if value is None or isinstance(value, str):
        return value
    return bytes(value).decode("utf-8", "replace")


def _factor_info(fields):
    """A MultiFactorInfo copied from an ``mfa_factor_info``."""
    return MultiFactorInfo(
        uid=_text(fields.uid),
        factor_id=_text(fields.factor_id),
        display_name=_optional(fields.display_name),
        enrollment_time=int(fields.enrollment_time),
        phone_number=_optional(fields.phone_number),
    )


def _sign_in_result(fields):
    """A SignInResult copied from an ``mfa_sign_in_result``."""
    return SignInResult(
        uid=_text(fields.uid),
        tenant=_optional(fields.tenant),
        factor_id=_optional(fields.factor_id),
        enrollment_id=_optional(fields.enrollment_id),
        time=int(fields.time),
    )


def _phone_functions():
    """RuntimeError unless the loaded library exports the SMS functions."""
    absent = [name for name in _PHONE_FUNCTIONS if name in missing]
    if absent:
        raise RuntimeError("libmfa: the loaded library lacks the SMS functions " + ", ".join(absent))


def _code(value, what="verification_code"):
    """An SMS code as NUL-free bytes (str or bytes; anything else is a TypeError)."""
    if not isinstance(value, (str, bytes, bytearray, memoryview)):
        raise TypeError("%s must be str, not %s" % (what, type(value).__name__))
    return _args.text(value, what)


def _master_key(key_id, key, what):
    """(id bytes, key buffer) for one master key, checked."""
    raw_id = _args.text(key_id, what + " id")
    raw = _args.secret(key, what)
    if len(raw) != constants.MASTER_KEY_BYTES:
        raise _args.invalid("%s must be %d bytes, got %d" % (what, constants.MASTER_KEY_BYTES, len(raw)))
    return raw_id, (ctypes.c_uint8 * len(raw)).from_buffer_copy(raw)


def _key_pairs(previous_keys):
    """previous_keys (None, a dict id -> bytes, or (id, bytes) pairs) as a list of pairs."""
    if previous_keys is None:
        return []
    if isinstance(previous_keys, dict):
        return list(previous_keys.items())
    if isinstance(previous_keys, (str, bytes, bytearray, memoryview)):
        raise TypeError("previous_keys must be a dict of id -> key or a list of (id, key) pairs")
    pairs = []
    for item in previous_keys:
        if not isinstance(item, (tuple, list)) or len(item) != 2:
            raise TypeError("previous_keys items must be (id, key) pairs")
        pairs.append((item[0], item[1]))
    return pairs


def _seconds(value, what):
    """A duration in seconds from an int or a ``datetime.timedelta``."""
    if isinstance(value, datetime.timedelta):
        value = int(value.total_seconds())
    return _args.int64(value, what)


def _otp(value):
    """A one-time password as NUL-free bytes (str or bytes; anything else is a TypeError)."""
    if not isinstance(value, (str, bytes, bytearray, memoryview)):
        raise TypeError("one_time_password must be str, not %s" % type(value).__name__)
    return _args.text(value, "one_time_password")


class Context:
    """The MFA engine on one store (``mfa_ctx``).

    Args:
        store: an SQLite file path (str or path-like; created and migrated as
            needed) or ``":memory:"`` for a private in-memory store.
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
            duplicate key ids, both ``sms_sender`` and ``sms_outbox``.
        StorageError: the store cannot be opened, or was written by a newer libmfa.
    """

    def __init__(
        self,
        store=":memory:",
        master_key=None,
        key_id="k1",
        previous_keys=None,
        clock=None,
        random=None,
        audit=None,
        sms_sender=None,
        sms_outbox=None,
        app_verifier=None,
    ):
        self._handle = None
        self._condition = threading.Condition(threading.Lock())
        self._busy = 0
        self._closing = False
        absent = [name for name in _ENGINE_FUNCTIONS if name in missing]
        if absent:
            raise RuntimeError("libmfa: the loaded library lacks the engine functions " + ", ".join(absent))
        if master_key is None:
            raise TypeError("master_key is required (%d bytes)" % constants.MASTER_KEY_BYTES)
        for name, function in (("clock", clock), ("random", random), ("audit", audit),
                               ("sms_sender", sms_sender), ("app_verifier", app_verifier)):
            if function is not None and not callable(function):
                raise TypeError("%s must be callable or None" % name)
        if isinstance(store, os.PathLike):
            store = os.fspath(store)
        store_raw = _args.text(store, "store")
        if isinstance(sms_outbox, os.PathLike):
            sms_outbox = os.fspath(sms_outbox)
        outbox_raw = _args.optional_text(sms_outbox, "sms_outbox")
        if outbox_raw is not None and sms_sender is not None:
            raise _args.invalid("give sms_sender or sms_outbox, not both")
        if outbox_raw == b"":
            raise _args.invalid("sms_outbox must not be empty")

        key_raw_id, key_buffer = _master_key(key_id, master_key, "master_key")
        pairs = _key_pairs(previous_keys)
        previous = (mfa_master_key * max(len(pairs), 1))()
        buffers = [key_buffer]
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

        options = mfa_options()
        check(lib.mfa_options_init(ctypes.byref(options), constants.OPTIONS_VERSION))
        options.store = store_raw
        options.master_key.id = key_raw_id
        options.master_key.key = ctypes.cast(key_buffer, ctypes.POINTER(ctypes.c_uint8))
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

        handle = ctypes.POINTER(mfa_ctx)()
        err = ctypes.c_void_p()
        try:
            check(lib.mfa_open(ctypes.byref(handle), ctypes.byref(options), ctypes.byref(err)), err)
        finally:
            for buffer in buffers:  # mfa_open copied the keys
                ctypes.memset(buffer, 0, len(buffer))
        self._handle = handle
        self._store = store if isinstance(store, str) else _as_str(store_raw)

    # --- lifetime ---------------------------------------------------------------------

    def close(self):
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
        self._sms_sender_fn = self._app_verifier_fn = None

    @property
    def closed(self):
        """Whether :meth:`close` was called."""
        return self._handle is None or self._closing

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __del__(self):
        try:
            if getattr(self, "_handle", None) is not None and not self._busy:
                self.close()
        except Exception:  # noqa: BLE001 - interpreter shutdown
            pass

    def __repr__(self):
        return "<libmfa.Context store=%r%s>" % (getattr(self, "_store", None), " closed" if self.closed else "")

    @contextlib.contextmanager
    def _use(self):
        """Yield the C handle, counting the call so that close() waits for it."""
        if _callbacks.inside():
            raise RuntimeError("libmfa: callbacks must not call back into the context")
        with self._condition:
            if self._handle is None or self._closing:
                raise _args.invalid("the context is closed")
            self._busy += 1
            handle = self._handle
        try:
            yield handle
        finally:
            with self._condition:
                self._busy -= 1
                if not self._busy:
                    self._condition.notify_all()

    def _now(self):
        """The context's clock, read from Python (same fallback as the callback)."""
        if self._clock is None:
            return int(time.time())
        try:
            return _callbacks._seconds(self._clock())
        except Exception:  # noqa: BLE001 - documented fallback
            log.exception("libmfa: the clock callback failed; using the system clock")
            return int(time.time())

    # --- configuration ----------------------------------------------------------------

    def set_config(self, config, tenant=None):
        """Store the MFA configuration of the project (``tenant`` None) or of a tenant.

        Replaces the previous configuration of that project or tenant; a
        tenant's fields override the project's.

        Args:
            config: a dict, or a JSON str/bytes, like ``{"state": "ENABLED",
                "providers": {"totp": "ENABLED", "phone": "DISABLED"},
                "totp": {"adjacentIntervals": 5}, "testPhoneNumbers":
                {"+15555550100": "123456"}, "limits": {...}}``; every field is
                optional. ``state`` is DISABLED, ENABLED or MANDATORY.
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
        if isinstance(config, dict):
            text = json.dumps(config)
        elif isinstance(config, (str, bytes, bytearray)):
            text = config
        else:
            raise TypeError("config must be a dict or a JSON string, not %s" % type(config).__name__)
        raw = _args.text(text, "config")
        raw_tenant = _args.optional_text(tenant, "tenant")
        err = ctypes.c_void_p()
        with self._use() as handle:
            check(lib.mfa_config_set_json(handle, raw_tenant, raw, ctypes.byref(err)), err)

    def config(self, tenant=None):
        """The effective configuration of the project or a tenant, every field written out.

        Returns:
            A dict in the format of :meth:`set_config` (the tenant's fields
            over the project's over the defaults).
        """
        raw_tenant = _args.optional_text(tenant, "tenant")
        return json.loads(self._string_call(lib.mfa_config_get_json, raw_tenant))

    # --- users and factors ------------------------------------------------------------

    def multi_factor(self, user):
        """The second factors of ``user``: a :class:`MultiFactor` (Firebase's ``user.multiFactor``)."""
        return MultiFactor(self, user)

    def _session_new(self, user):
        c_user = _c_user(user)
        return self._string_call(lib.mfa_session_new, ctypes.byref(c_user))

    def _generate_secret(self, token):
        raw = _args.text(token, "session")
        out = ctypes.POINTER(mfa_totp_secret)()
        err = ctypes.c_void_p()
        try:
            with self._use() as handle:
                check(lib.mfa_totp_generate_secret(handle, ctypes.byref(out), raw, ctypes.byref(err)), err)
            fields = out.contents
            return TOTPSecret(
                shared_secret_key=_text(fields.shared_secret_key),
                hashing_algorithm=_args.algorithm_name(fields.algorithm),
                code_length=int(fields.digits),
                code_interval_seconds=int(fields.period),
                enrollment_completion_deadline=int(fields.deadline),
                session_info=_text(fields.session_info),
            )
        finally:
            lib.mfa_totp_secret_free(out)

    def _enroll(self, user, session_info, one_time_password, display_name):
        c_user = _c_user(user)
        raw_info = _args.text(session_info, "session_info")
        raw_otp = _otp(one_time_password)
        raw_name = _args.optional_text(display_name, "display_name")
        return self._new_factor(lib.mfa_totp_enroll, c_user, raw_info, raw_otp, raw_name)

    def _new_factor(self, function, c_user, *arguments):
        """Calls an engine function that makes a factor (ctx, out, user, *arguments, err) and copies it."""
        out = ctypes.POINTER(mfa_factor_info)()
        err = ctypes.c_void_p()
        try:
            with self._use() as handle:
                check(function(handle, ctypes.byref(out), ctypes.byref(c_user), *arguments, ctypes.byref(err)), err)
            return _factor_info(out.contents)
        finally:
            lib.mfa_factor_info_free(out)

    def _factors(self, user):
        c_user = _c_user(user)
        out = ctypes.POINTER(mfa_factor_list)()
        err = ctypes.c_void_p()
        try:
            with self._use() as handle:
                check(lib.mfa_factors_list(handle, ctypes.byref(out), ctypes.byref(c_user), ctypes.byref(err)), err)
            listing = out.contents
            return [_factor_info(listing.items[index]) for index in range(listing.count)]
        finally:
            lib.mfa_factor_list_free(out)

    def _unenroll(self, user, enrollment_id):
        c_user = _c_user(user)
        raw_id = _args.text(enrollment_id, "enrollment id")
        err = ctypes.c_void_p()
        with self._use() as handle:
            check(lib.mfa_unenroll(handle, ctypes.byref(c_user), raw_id, ctypes.byref(err)), err)

    # --- sign-in ----------------------------------------------------------------------

    def sign_in(self, user):
        """Report a successful first factor for ``user``.

        Returns:
            A :class:`SignInResult` (``factor_id`` None, no claims; ``time``
            from the context's clock) when no second factor is needed: the
            user has none and MFA is not MANDATORY.

        Raises:
            SecondFactorRequired: the user has second factors; its
                ``resolver`` (a :class:`MultiFactorResolver`) holds the hints
                and the pending credential that finish the sign-in.
            EnrollmentRequiredError: MFA is MANDATORY and the user has no factor.
            UnsupportedFirstFactorError: a user with factors signed in with
                phone, anonymous, custom or gc.apple.com.
            InvalidArgumentError, StorageError.
        """
        c_user = _c_user(user)
        out = ctypes.POINTER(mfa_resolver)()
        err = ctypes.c_void_p()
        try:
            with self._use() as handle:
                status = lib.mfa_sign_in(handle, ctypes.byref(out), ctypes.byref(c_user), ctypes.byref(err))
            if status == OK:
                take_message(err)
                return SignInResult(_as_str(user.uid), _as_str(user.tenant), None, None, self._now())
            if status == _SECOND_FACTOR_REQUIRED and out:
                resolver = self._make_resolver(out.contents)
                error = SecondFactorRequired(status, take_message(err))
                error.resolver = resolver
                raise error
            check(status, err)
            raise AssertionError("unreachable")  # pragma: no cover
        finally:
            lib.mfa_resolver_free(out)

    def resolver(self, pending_credential, tenant=None):
        """Rebuild a :class:`MultiFactorResolver` from a pending credential a client sent back.

        Args:
            pending_credential: the resolver's ``session`` string.
            tenant: the tenant this request is served for, or None.

        Raises:
            InvalidSessionError: a tampered or expired pending credential.
            TenantMismatchError: it belongs to another tenant.
            TypeError, InvalidArgumentError, StorageError.
        """
        raw = _args.text(pending_credential, "pending_credential")
        raw_tenant = _args.optional_text(tenant, "tenant")
        out = ctypes.POINTER(mfa_resolver)()
        err = ctypes.c_void_p()
        try:
            with self._use() as handle:
                check(lib.mfa_resolver_load(handle, ctypes.byref(out), raw, raw_tenant, ctypes.byref(err)), err)
            return self._make_resolver(out.contents)
        finally:
            lib.mfa_resolver_free(out)

    def _make_resolver(self, fields):
        hints = [_factor_info(fields.hints[index]) for index in range(fields.hint_count)]
        return MultiFactorResolver(self, _text(fields.session), _text(fields.uid), _optional(fields.tenant), hints)

    def _resolve(self, pending_credential, tenant, enrollment_id, one_time_password):
        raw = _args.text(pending_credential, "pending_credential")
        raw_tenant = _args.optional_text(tenant, "tenant")
        raw_id = _args.text(enrollment_id, "enrollment id")
        raw_otp = _otp(one_time_password)
        return self._sign_in_call(lib.mfa_resolve_totp, raw, raw_tenant, raw_id, raw_otp)

    def _sign_in_call(self, function, *arguments):
        """Calls an engine function that finishes a sign-in (ctx, out, *arguments, err) and copies the result."""
        out = ctypes.POINTER(mfa_sign_in_result)()
        err = ctypes.c_void_p()
        try:
            with self._use() as handle:
                check(function(handle, ctypes.byref(out), *arguments, ctypes.byref(err)), err)
            return _sign_in_result(out.contents)
        finally:
            lib.mfa_sign_in_result_free(out)

    def _string_call(self, function, *arguments):
        """Calls an engine function that returns a new string (ctx, out, *arguments, err) and decodes it."""
        out = ctypes.c_void_p()
        err = ctypes.c_void_p()
        try:
            with self._use() as handle:
                check(function(handle, ctypes.byref(out), *arguments, ctypes.byref(err)), err)
            return ctypes.string_at(out.value).decode("utf-8")
        finally:
            lib.mfa_free(out)

    # --- SMS (phone) factors ----------------------------------------------------------

    def _start_phone_enrollment(self, session_token, phone_number, app_credential):
        _phone_functions()
        raw_session = _args.text(session_token, "session")
        raw_number = _args.text(phone_number, "phone_number")
        raw_credential = _args.optional_text(app_credential, "app_credential")
        return self._string_call(lib.mfa_phone_start_enrollment, raw_session, raw_number, raw_credential)

    def _start_phone_sign_in(self, pending_credential, tenant, enrollment_id, app_credential):
        _phone_functions()
        raw_pending = _args.text(pending_credential, "pending_credential")
        raw_tenant = _args.optional_text(tenant, "tenant")
        raw_id = _args.text(enrollment_id, "enrollment id")
        raw_credential = _args.optional_text(app_credential, "app_credential")
        return self._string_call(lib.mfa_phone_start_sign_in, raw_pending, raw_tenant, raw_id, raw_credential)

    def _enroll_phone(self, user, verification_id, code, display_name):
        _phone_functions()
        c_user = _c_user(user)
        raw_id = _args.text(verification_id, "verification_id")
        raw_code = _code(code)
        raw_name = _args.optional_text(display_name, "display_name")
        return self._new_factor(lib.mfa_phone_enroll, c_user, raw_id, raw_code, raw_name)

    def _resolve_phone(self, pending_credential, tenant, verification_id, code):
        _phone_functions()
        raw = _args.text(pending_credential, "pending_credential")
        raw_tenant = _args.optional_text(tenant, "tenant")
        raw_id = _args.text(verification_id, "verification_id")
        raw_code = _code(code)
        return self._sign_in_call(lib.mfa_resolve_phone, raw, raw_tenant, raw_id, raw_code)

    # --- tokens -----------------------------------------------------------------------

    def check_token(self, uid, issued_at, tenant=None):
        """Check that a credential issued to ``uid`` at ``issued_at`` is still valid.

        Enrolling and unenrolling a factor revoke the user's earlier credentials.

        Args:
            uid: the user.
            issued_at: when the host issued the credential (Unix seconds, int,
                float or datetime).
            tenant: the user's tenant, or None.

        Raises:
            UserTokenExpiredError: the credential predates a revocation; the
                user must sign in again.
            TypeError, InvalidArgumentError, StorageError.
        """
        raw_uid = _args.text(uid, "uid")
        raw_tenant = _args.optional_text(tenant, "tenant")
        when = _args.unix_time(issued_at)
        with self._use() as handle:
            check(lib.mfa_token_check(handle, raw_tenant, raw_uid, when))

    def passed_second_factor(self, uid, within, tenant=None):
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
        seconds = _seconds(within, "within")
        out = ctypes.c_bool(False)
        with self._use() as handle:
            check(lib.mfa_step_up_check(handle, ctypes.byref(out), raw_tenant, raw_uid, seconds))
        return bool(out.value)

    # --- administration ---------------------------------------------------------------

    def import_totp(self, user, secret, display_name=None):
        """Import a TOTP factor the user already has elsewhere, without a code.

        An administrative call: the host decides who may make it. Only
        ``user.uid`` and ``user.tenant`` are used; earlier credentials are not
        revoked.

        Args:
            user: the :class:`User`.
            secret: the raw secret (10 to 128 bytes; SHA1, 6 digits, 30 s) or
                a :class:`libmfa.TOTP` carrying its own parameters (t0 must be 0).
                A base32 str is a TypeError: decode it with ``base32_decode``.
            display_name: an optional name (at most 256 bytes).

        Returns:
            The new :class:`MultiFactorInfo`.

        Raises:
            InvalidArgumentError: secret length, parameters, t0.
            SecondFactorLimitExceededError, StorageError, TypeError.
        """
        c_user = _c_user(user)
        params = None
        if isinstance(secret, TOTP):
            params = mfa_totp_params()
            check(lib.mfa_totp_params_init(ctypes.byref(params), constants.TOTP_PARAMS_VERSION))
            params.algorithm = _args.algorithm(secret.algorithm)
            params.digits = secret.digits
            params.period = secret.period
            params.t0 = secret.t0
            raw = secret.secret
        else:
            raw = _args.secret(secret)
        raw_name = _args.optional_text(display_name, "display_name")
        buffer = (ctypes.c_char * max(len(raw), 1)).from_buffer_copy(raw or b"\0")
        try:
            return self._new_factor(lib.mfa_totp_import, c_user, ctypes.cast(buffer, ctypes.c_char_p), len(raw),
                                    None if params is None else ctypes.byref(params), raw_name)
        finally:
            ctypes.memset(buffer, 0, len(buffer))

    def import_uri(self, user, uri, display_name=None):
        """Import a TOTP factor from an ``otpauth://totp/...`` URI (see :meth:`import_totp`).

        Raises:
            InvalidURIError: not a key URI.
            InvalidArgumentError: an HOTP URI, a secret length.
            SecondFactorLimitExceededError, StorageError, TypeError.
        """
        c_user = _c_user(user)
        raw = _args.text(uri, "uri")
        raw_name = _args.optional_text(display_name, "display_name")
        return self._new_factor(lib.mfa_totp_import_uri, c_user, raw, raw_name)

    def rotate_keys(self):
        """Re-encrypt every stored secret that is not under the current master key.

        Afterwards the previous keys are no longer needed.

        Returns:
            The number of records re-encrypted.

        Raises:
            CryptoError: a record's key was not given; StorageError.
        """
        count = ctypes.c_size_t(0)
        err = ctypes.c_void_p()
        with self._use() as handle:
            check(lib.mfa_rotate_keys(handle, ctypes.byref(count), ctypes.byref(err)), err)
        return int(count.value)

    def purge_expired(self):
        """Delete pending TOTP secrets past their deadline and expired used-token records.

        Raises:
            StorageError: the store failed.
        """
        err = ctypes.c_void_p()
        with self._use() as handle:
            check(lib.mfa_purge_expired(handle, ctypes.byref(err)), err)


def _c_user(user):
    """An ``mfa_user`` for a :class:`User` (its strings are kept alive by the struct)."""
    if not isinstance(user, User):
        raise TypeError("user must be a libmfa.User, not %s" % type(user).__name__)
    user.validate()
    fields = mfa_user()
    check(lib.mfa_user_init(ctypes.byref(fields), constants.USER_VERSION))
    fields.uid = _args.text(user.uid, "uid")
    fields.tenant = _args.optional_text(user.tenant, "tenant")
    fields.email = _args.optional_text(user.email, "email")
    fields.email_verified = 1 if user.email_verified else 0
    fields.provider = _args.text(user.provider, "provider")
    fields.auth_time = user.auth_time
    return fields


class MultiFactorSession:
    """Proof that a user recently passed the first factor, needed to enroll.

    Attributes:
        token: the opaque, expiring token bound to the user (hand it to a
            client and rebuild the session with ``MultiFactorSession(token,
            context)`` later). Left out of ``repr``.
        context: the :class:`Context` that minted it.
    """

    __slots__ = ("token", "context")

    def __init__(self, token, context):
        if not isinstance(context, Context):
            raise TypeError("context must be a libmfa.Context")
        if not isinstance(token, (str, bytes)):
            raise TypeError("token must be str, not %s" % type(token).__name__)
        self.token = token
        self.context = context

    def __repr__(self):
        return "<libmfa.MultiFactorSession>"


class MultiFactor:
    """One user's second factors: list, enroll, unenroll (Firebase's ``user.multiFactor``).

    Get one with :meth:`Context.multi_factor`.

    Attributes:
        context: the :class:`Context`.
        user: the :class:`User`.
    """

    __slots__ = ("context", "user")

    def __init__(self, context, user):
        if not isinstance(context, Context):
            raise TypeError("context must be a libmfa.Context")
        if not isinstance(user, User):
            raise TypeError("user must be a libmfa.User, not %s" % type(user).__name__)
        self.context = context
        self.user = user

    def __repr__(self):
        return "<libmfa.MultiFactor uid=%r tenant=%r>" % (self.user.uid, self.user.tenant)

    def session(self):
        """A :class:`MultiFactorSession` for enrolling a new factor.

        Raises:
            OperationNotAllowedError: MFA or every provider disabled.
            UnsupportedFirstFactorError: the user signed in with phone,
                anonymous, custom or gc.apple.com.
            UnverifiedEmailError: no email, or not verified.
            RequiresRecentLoginError: ``auth_time`` is too old.
            SecondFactorLimitExceededError: the user has the maximum (5).
            InvalidArgumentError, StorageError, CryptoError (random callback).
        """
        return MultiFactorSession(self.context._session_new(self.user), self.context)

    def enrolled_factors(self):
        """The enrolled factors, oldest first: a list of :class:`MultiFactorInfo`."""
        return self.context._factors(self.user)

    def enroll(self, assertion, display_name=None):
        """Finish an enrollment.

        Args:
            assertion: from :meth:`TOTPMultiFactorGenerator.assertion_for_enrollment`,
                or from :meth:`libmfa.PhoneMultiFactorGenerator.assertion` with
                the verification id of
                :meth:`libmfa.PhoneAuthProvider.verify_phone_number` and the
                SMS code.
            display_name: an optional name for the factor (at most 256 bytes).

        Returns:
            The new :class:`MultiFactorInfo` (for a phone, ``phone_number``
            is the full number). The user's earlier credentials are revoked
            (see :meth:`Context.check_token`).

        Raises:
            InvalidVerificationCodeError: a wrong or malformed code (the user
                may retry; an SMS verification id dies after 5 wrong codes).
            CodeExpiredError: past the secret's enrollment deadline, or the
                SMS code's lifetime (5 minutes by default).
            InvalidSessionError: tampered, already used, or another user's;
                for SMS also a dead verification id, or one made for a sign-in.
            TenantMismatchError: the secret was made for another tenant.
            SecondFactorExistsError: the number is already one of the user's factors.
            SecondFactorLimitExceededError, OperationNotAllowedError,
            InvalidArgumentError (a sign-in assertion), TypeError, StorageError.
        """
        if isinstance(assertion, PhoneMultiFactorAssertion):
            credential = assertion.credential
            return self.context._enroll_phone(self.user, credential.verification_id, credential.verification_code,
                                              display_name)
        if not isinstance(assertion, TOTPMultiFactorAssertion):
            raise TypeError("assertion must come from TOTPMultiFactorGenerator or PhoneMultiFactorGenerator, not %s"
                            % type(assertion).__name__)
        if not assertion.for_enrollment:
            raise _args.invalid("a sign-in assertion cannot enroll a factor; use assertion_for_enrollment")
        return self.context._enroll(self.user, assertion.session_info, assertion.one_time_password, display_name)

    def unenroll(self, factor):
        """Remove a factor, by :class:`MultiFactorInfo` or enrollment id; revokes earlier credentials.

        Raises:
            RequiresRecentLoginError: ``auth_time`` is too old.
            MFAEnrollmentNotFoundError: the user has no factor with this id.
            TypeError, InvalidArgumentError, StorageError.
        """
        enrollment_id = factor.uid if isinstance(factor, MultiFactorInfo) else factor
        if not isinstance(enrollment_id, (str, bytes)):
            raise TypeError("factor must be a MultiFactorInfo or an enrollment id, not %s" % type(factor).__name__)
        self.context._unenroll(self.user, enrollment_id)


class MultiFactorResolver:
    """What a sign-in of a user with second factors gets: hints and a pending credential.

    Found on :class:`SecondFactorRequired` as ``error.resolver``, or rebuilt
    with :meth:`Context.resolver`.

    Attributes:
        hints: the user's factors (:class:`MultiFactorInfo`, phone numbers masked).
        session: the pending credential: opaque, expiring, single-use, bound
            to the user and tenant. Hand it to the client.
        uid: the user signing in.
        tenant: the tenant, or None.
        context: the :class:`Context`.
    """

    __slots__ = ("context", "session", "uid", "tenant", "hints")

    def __init__(self, context, session, uid, tenant, hints):
        self.context = context
        self.session = session
        self.uid = uid
        self.tenant = tenant
        self.hints = list(hints)

    def __repr__(self):
        return "<libmfa.MultiFactorResolver uid=%r tenant=%r hints=%d>" % (self.uid, self.tenant, len(self.hints))

    def resolve_sign_in(self, assertion):
        """Finish the sign-in with a second factor.

        Args:
            assertion: from :meth:`TOTPMultiFactorGenerator.assertion_for_sign_in`,
                or from :meth:`libmfa.PhoneMultiFactorGenerator.assertion` with
                the verification id of
                :meth:`libmfa.PhoneAuthProvider.verify_phone_number_for_sign_in`
                (for this resolver) and the SMS code.

        Returns:
            A :class:`SignInResult` naming the factor used (see its ``claims``).
            The pending credential is used up, and so is the TOTP code's time
            step or the SMS code.

        Raises:
            InvalidVerificationCodeError: a wrong, malformed or replayed code.
            CodeExpiredError: an SMS code past its lifetime.
            InvalidSessionError: a tampered, expired or used pending
                credential, or another user's factor; for SMS also a used or
                dead code (5 wrong tries), or a verification id of another
                sign-in or of an enrollment.
            TenantMismatchError, MFAEnrollmentNotFoundError,
            TooManyAttemptsError (backoff), InvalidArgumentError (an
            enrollment assertion), TypeError, StorageError.
        """
        if isinstance(assertion, PhoneMultiFactorAssertion):
            credential = assertion.credential
            return self.context._resolve_phone(self.session, self.tenant, credential.verification_id,
                                               credential.verification_code)
        if not isinstance(assertion, TOTPMultiFactorAssertion):
            raise TypeError("assertion must come from TOTPMultiFactorGenerator or PhoneMultiFactorGenerator, not %s"
                            % type(assertion).__name__)
        if assertion.for_enrollment:
            raise _args.invalid("an enrollment assertion cannot resolve a sign-in; use assertion_for_sign_in")
        return self.context._resolve(self.session, self.tenant, assertion.enrollment_id, assertion.one_time_password)


class TOTPMultiFactorGenerator:
    """Makes TOTP secrets and assertions, under the Firebase SDKs' names."""

    #: "totp".
    FACTOR_ID = TOTP_FACTOR_ID

    def __init__(self):
        raise TypeError("TOTPMultiFactorGenerator has only static methods")

    @staticmethod
    def generate_secret(session):
        """Generate a :class:`TOTPSecret` for the user of ``session``.

        The secret is kept, encrypted, until the enrollment finishes or its
        deadline passes.

        Raises:
            InvalidSessionError: a missing, tampered, expired or used session.
            OperationNotAllowedError: TOTP is disabled.
            TypeError, CryptoError (random callback), StorageError.
        """
        if not isinstance(session, MultiFactorSession):
            raise TypeError("session must be a MultiFactorSession, not %s" % type(session).__name__)
        return session.context._generate_secret(session.token)

    @staticmethod
    def assertion_for_enrollment(secret, one_time_password):
        """An assertion that finishes enrolling ``secret`` with a code from the app.

        Raises:
            TypeError: ``secret`` is not a :class:`TOTPSecret`, the code is not str.
        """
        if not isinstance(secret, TOTPSecret):
            raise TypeError("secret must be a TOTPSecret, not %s" % type(secret).__name__)
        _otp(one_time_password)
        return TOTPMultiFactorAssertion(one_time_password=one_time_password, session_info=secret.session_info)

    @staticmethod
    def assertion_for_sign_in(enrollment_id, one_time_password):
        """An assertion that resolves a sign-in with the enrolled factor ``enrollment_id``.

        Args:
            enrollment_id: the factor's id (a hint's ``uid``), or the
                :class:`MultiFactorInfo` itself.
            one_time_password: the code from the app.

        Raises:
            TypeError: an id or code of the wrong type.
        """
        if isinstance(enrollment_id, MultiFactorInfo):
            enrollment_id = enrollment_id.uid
        if not isinstance(enrollment_id, (str, bytes)):
            raise TypeError("enrollment_id must be str, not %s" % type(enrollment_id).__name__)
        _otp(one_time_password)
        return TOTPMultiFactorAssertion(one_time_password=one_time_password, enrollment_id=enrollment_id)


__all__ = [
    "Context",
    "MultiFactor",
    "MultiFactorResolver",
    "MultiFactorSession",
    "TOTPMultiFactorGenerator",
    "qr_code",
]
