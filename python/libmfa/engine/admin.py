"""The operator's side of the engine: :class:`Admin` (``mfa_admin_*``, ``mfa_import*``,
``mfa_rotate_keys_batched``, ``mfa_check_seals``).

Administrative calls need no user sign-in: the host decides who may make
them. An :class:`Admin` is made for one ``actor`` (1 to
:data:`libmfa.ACTOR_MAX_BYTES` bytes of UTF-8, such as an operator's name),
which the audit events of every call that changes something carry
(:attr:`libmfa.AuditEvent.actor`)::

    admin = ctx.admin("ops:bob")
    page = admin.list_users(tenant="acme", factor_id="totp", limit=100)
    for user in admin.users():                      # every page, one after the other
        print(user.tenant, user.uid, user.factor_counts)
    admin.reset_user("alice")                       # lost phone: every factor gone, tokens revoked
    summary = admin.import_factors(text, "otpauth")
    result = admin.rotate_keys(batch_size=500, progress=lambda done, total: print(done, total))

Every C-allocated result is copied into Python values and freed before a
method returns. Every failure raises the :class:`libmfa.MFAError` subclass of
its status; wrong Python types raise TypeError.
"""

from __future__ import annotations

import ctypes

from .. import _args, _callbacks, _ffi, _lib, _memory
from .._lib import lib
from .._record import Record
from ..errors import check, take_message
from ..models import MultiFactorInfo, User
from .flow import c_user, factor_info

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple, Union

    from .._typing import OptionalText, Text
    from .context import Context
    from .devices import RememberedDevice

    #: A progress callback: ``progress(done, total)``; returning False stops the call.
    Progress = Optional[Callable[[int, int], object]]
    #: An import's report callback: ``report(line)`` with an :class:`ImportLine`.
    Report = Optional[Callable[["ImportLine"], object]]
    #: The text of an import: str, or UTF-8 bytes.
    ImportText = Union[str, bytes, bytearray, memoryview]

#: The C functions the administrative calls need (checked when an Admin is made).
_ADMIN_FUNCTIONS = (
    "mfa_admin_list_users",
    "mfa_admin_user_page_free",
    "mfa_admin_user_factors",
    "mfa_admin_factor_get",
    "mfa_admin_factor_free",
    "mfa_admin_unenroll",
    "mfa_admin_rename",
    "mfa_admin_reset_user",
    "mfa_admin_delete_user",
    "mfa_admin_stats_get",
    "mfa_admin_stats_free",
    "mfa_import_options_init",
    "mfa_import",
    "mfa_import_google_authenticator",
    "mfa_rotate_keys_batched",
    "mfa_check_seals",
    "mfa_seal_check_free",
    "mfa_import_pskc",
    "mfa_token_seed_init",
    "mfa_token_import",
    "mfa_admin_tokens_list",
    "mfa_token_list_free",
    "mfa_admin_token_assign",
    "mfa_admin_token_remove",
    "mfa_admin_hotp_resync",
)

#: The import formats by name (for :meth:`Admin.import_factors`).
_FORMATS = {
    "otpauth": _ffi.MFA_IMPORT_OTPAUTH,
    "users_file": _ffi.MFA_IMPORT_USERS_FILE,
    "users-file": _ffi.MFA_IMPORT_USERS_FILE,
    "csv": _ffi.MFA_IMPORT_CSV,
    "yubikey_csv": _ffi.MFA_IMPORT_YUBIKEY_CSV,
    "yubikey-csv": _ffi.MFA_IMPORT_YUBIKEY_CSV,
}

#: The kinds a hardware token makes, by factor id (for :meth:`Admin.import_token`).
_TOKEN_KINDS = {
    "hotp": _ffi.MFA_FACTOR_HOTP,
    "totp": _ffi.MFA_FACTOR_TOTP,
    "yubico_otp": _ffi.MFA_FACTOR_YUBICO_OTP,
}


class _AllTenants:
    """The type of :data:`ALL_TENANTS` (one instance)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "libmfa.ALL_TENANTS"

    def __reduce__(self) -> str:
        return "ALL_TENANTS"


#: :meth:`Admin.list_users` filter: the project and every tenant (the default).
ALL_TENANTS = _AllTenants()


# --- Values ---------------------------------------------------------------------------------


class AdminUser(Record):
    """A user who has second factors, as :meth:`Admin.list_users` lists them.

    Attributes:
        tenant: the tenant, or None for the project.
        uid: the user's id.
        factor_total: how many factors the user has, of every kind.
        factor_counts: the factors per factor id (``{"totp": 1, "phone": 2}``), in factor-id order.
    """

    __slots__ = ("tenant", "uid", "factor_total", "_counts")

    tenant: Optional[str]
    uid: str
    factor_total: int
    _counts: Tuple[Tuple[str, int], ...]

    def __init__(self, tenant: Optional[str], uid: str, factor_total: int,
                 factor_counts: Union[Dict[str, int], Tuple[Tuple[str, int], ...]]) -> None:
        pairs = tuple(factor_counts.items()) if isinstance(factor_counts, dict) else tuple(factor_counts)
        self._set(tenant=tenant, uid=uid, factor_total=factor_total, _counts=pairs)

    @property
    def factor_counts(self) -> Dict[str, int]:
        """The user's factors counted per factor id (a new dict each time)."""
        return dict(self._counts)

    def __repr__(self) -> str:
        return "AdminUser(tenant=%r, uid=%r, factor_total=%r, factor_counts=%r)" % (
            self.tenant, self.uid, self.factor_total, self.factor_counts)


class AdminUserPage(Record):
    """One page of :meth:`Admin.list_users`: iterate it for its users.

    Attributes:
        users: the users (a tuple of :class:`AdminUser`), ordered by tenant
            (the project first) then uid.
        next_cursor: pass it as ``cursor`` for the next page; None when this page is the last.
    """

    __slots__ = ("users", "next_cursor")

    users: Tuple[AdminUser, ...]
    next_cursor: Optional[str]

    def __init__(self, users: Tuple[AdminUser, ...], next_cursor: Optional[str]) -> None:
        self._set(users=tuple(users), next_cursor=next_cursor)

    def __iter__(self) -> Iterator[AdminUser]:
        return iter(self.users)

    def __len__(self) -> int:
        return len(self.users)


class AdminFactor(Record):
    """A factor and who has it (:meth:`Admin.factor`, :meth:`Admin.unenroll`, :meth:`Admin.rename`).

    Attributes:
        tenant: the tenant, or None for the project.
        uid: the user who has (or had) the factor.
        info: the factor, a :class:`libmfa.MultiFactorInfo` (its phone number
            masked unless shown on request).
    """

    __slots__ = ("tenant", "uid", "info")

    tenant: Optional[str]
    uid: str
    info: MultiFactorInfo

    def __init__(self, tenant: Optional[str], uid: str, info: MultiFactorInfo) -> None:
        self._set(tenant=tenant, uid=uid, info=info)


class AdminStatsRow(Record):
    """One tenant's count of one factor kind (:attr:`AdminStats.rows`).

    Attributes:
        tenant: the tenant, or None for the project.
        factor_id: ``"totp"``, ``"phone"`` or ``"recovery"``.
        kind: the kind, ``FACTOR_*``.
        factors: factors of this kind in this tenant.
        users: users with at least one factor of this kind in this tenant.
    """

    __slots__ = ("tenant", "factor_id", "kind", "factors", "users")

    tenant: Optional[str]
    factor_id: str
    kind: int
    factors: int
    users: int

    def __init__(self, tenant: Optional[str], factor_id: str, kind: int, factors: int, users: int) -> None:
        self._set(tenant=tenant, factor_id=factor_id, kind=kind, factors=factors, users=users)


class AdminStats(Record):
    """Users and factors, counted per tenant and kind (:meth:`Admin.stats`).

    Attributes:
        rows: per tenant (the project first) and factor id, a tuple of :class:`AdminStatsRow`.
        tenant_users: users with at least one factor, per tenant (None for the
            project), in the same order: a tuple of ``(tenant, users)`` pairs.
        total_users: users with at least one factor, over every tenant.
        total_factors: factors, over every tenant and kind.
    """

    __slots__ = ("rows", "tenant_users", "total_users", "total_factors")

    rows: Tuple[AdminStatsRow, ...]
    tenant_users: Tuple[Tuple[Optional[str], int], ...]
    total_users: int
    total_factors: int

    def __init__(self, rows: Tuple[AdminStatsRow, ...], tenant_users: Tuple[Tuple[Optional[str], int], ...],
                 total_users: int, total_factors: int) -> None:
        self._set(rows=tuple(rows), tenant_users=tuple(tenant_users), total_users=total_users,
                  total_factors=total_factors)


class ImportLine(Record):
    """What an import did with one line. Nothing secret is in it: no secret, no code, not the line's text.

    Attributes:
        line: the line number, from 1.
        uid: the user the line is about, or None when it could not be read.
        outcome: ``IMPORT_IMPORTED``, ``IMPORT_ALREADY_IMPORTED``,
            ``IMPORT_UNSUPPORTED``, ``IMPORT_FAILED`` or ``IMPORT_NOTE``.
        outcome_name: the outcome's name: ``"IMPORTED"``, ``"ALREADY_IMPORTED"``,
            ``"UNSUPPORTED"``, ``"FAILED"``, ``"NOTE"``.
        reason: why, in words, for people.
        enrollment_id: the factor stored or found, or None.
        serial: the serial number of the hardware token the line is about, or None.
    """

    __slots__ = ("line", "uid", "outcome", "outcome_name", "reason", "enrollment_id", "serial")

    line: int
    uid: Optional[str]
    outcome: int
    outcome_name: str
    reason: str
    enrollment_id: Optional[str]
    serial: Optional[str]

    def __init__(self, line: int, uid: Optional[str], outcome: int, outcome_name: str, reason: str,
                 enrollment_id: Optional[str], serial: Optional[str] = None) -> None:
        self._set(line=line, uid=uid, outcome=outcome, outcome_name=outcome_name, reason=reason,
                  enrollment_id=enrollment_id, serial=serial)

    @classmethod
    def _from_c(cls, fields: _ffi.mfa_import_line) -> ImportLine:
        """A copy of a borrowed ``mfa_import_line``."""
        return cls(int(fields.line), _memory.optional(fields.uid), int(fields.outcome),
                   _memory.required(fields.outcome_name), _memory.required(fields.reason),
                   _memory.optional(fields.enrollment_id), _memory.optional(fields.serial))


class ImportSummary(Record):
    """The totals of an import (:meth:`Admin.import_factors`, :meth:`Admin.import_google_authenticator`).

    Attributes:
        lines: lines read (blank lines and comments included; a PSKC file's key packages).
        imported: factors stored, and hardware tokens stored unassigned.
        already_imported: lines whose factor the user already had.
        unsupported: lines naming something libmfa does not do (a key of an unknown algorithm).
        failed: malformed or refused lines.
        recovery_codes: recovery codes stored (google-authenticator scratch codes).
        stopped: whether the progress callback stopped the import (the
            batches before are stored; run it again to go on).
        reports: the line reports (:class:`ImportLine`), in line order, when
            the call was given no ``report`` callback; else empty.
    """

    __slots__ = ("lines", "imported", "already_imported", "unsupported", "failed", "recovery_codes", "stopped",
                 "reports")

    lines: int
    imported: int
    already_imported: int
    unsupported: int
    failed: int
    recovery_codes: int
    stopped: bool
    reports: Tuple[ImportLine, ...]

    def __init__(self, lines: int, imported: int, already_imported: int, unsupported: int, failed: int,
                 recovery_codes: int, stopped: bool, reports: Tuple[ImportLine, ...] = ()) -> None:
        self._set(lines=lines, imported=imported, already_imported=already_imported, unsupported=unsupported,
                  failed=failed, recovery_codes=recovery_codes, stopped=stopped, reports=tuple(reports))


class HardwareToken(Record):
    """A hardware token as :meth:`Admin.list_tokens` lists it: unassigned, or a user's factor.

    Attributes:
        serial: the serial number (a YubiKey imported without one: its public id).
        factor_id: what it makes: ``"hotp"``, ``"totp"`` or ``"yubico_otp"``.
        kind: the factor kind (``FACTOR_*``).
        tenant: the tenant, or None for the project.
        public_id: a YubiKey's public id (modhex), else None.
        issuer: the issuer or manufacturer the import named, or None.
        uid: the user who has it as a factor, or None while it is unassigned.
        enrollment_id: the factor it became, or None while it is unassigned.
        time: Unix time of the import (unassigned) or of the enrollment (assigned).
    """

    __slots__ = ("serial", "factor_id", "kind", "tenant", "public_id", "issuer", "uid", "enrollment_id", "time")

    serial: str
    factor_id: str
    kind: int
    tenant: Optional[str]
    public_id: Optional[str]
    issuer: Optional[str]
    uid: Optional[str]
    enrollment_id: Optional[str]
    time: int

    def __init__(self, serial: str, factor_id: str, kind: int, tenant: Optional[str], public_id: Optional[str],
                 issuer: Optional[str], uid: Optional[str], enrollment_id: Optional[str], time: int) -> None:
        self._set(serial=serial, factor_id=factor_id, kind=kind, tenant=tenant, public_id=public_id, issuer=issuer,
                  uid=uid, enrollment_id=enrollment_id, time=time)

    @property
    def assigned(self) -> bool:
        """Whether it is a user's factor."""
        return self.uid is not None


class HardwareTokenPage(Record):
    """One page of :meth:`Admin.list_tokens`.

    Attributes:
        tokens: the tokens (:class:`HardwareToken`), by tenant (the project first) then serial.
        next_cursor: pass it back for the next page; None when this page is the last.
    """

    __slots__ = ("tokens", "next_cursor")

    tokens: Tuple[HardwareToken, ...]
    next_cursor: Optional[str]

    def __init__(self, tokens: Tuple[HardwareToken, ...], next_cursor: Optional[str]) -> None:
        self._set(tokens=tuple(tokens), next_cursor=next_cursor)

    def __iter__(self) -> Iterator[HardwareToken]:
        return iter(self.tokens)

    def __len__(self) -> int:
        return len(self.tokens)


class KeyRotationResult(Record):
    """How a batched key rotation ended (:meth:`Admin.rotate_keys`).

    Attributes:
        rotated: records re-encrypted by this run.
        remaining: records still not under the current key (0 when it
            finished; after a stop, what the next run will do).
        stopped: whether the progress callback stopped the run before the end.
    """

    __slots__ = ("rotated", "remaining", "stopped")

    rotated: int
    remaining: int
    stopped: bool

    def __init__(self, rotated: int, remaining: int, stopped: bool) -> None:
        self._set(rotated=rotated, remaining=remaining, stopped=stopped)


class SealCheck(Record):
    """What :meth:`Admin.check_seals` found.

    Attributes:
        checked: sealed records read.
        failed: records that did not open with the context's keys (their key
            is missing, or they were altered or moved).
        failed_ids: the ids of the first of them (at most 100), a tuple of str.
        stopped: whether the progress callback stopped the check before the end.
    """

    __slots__ = ("checked", "failed", "failed_ids", "stopped")

    checked: int
    failed: int
    failed_ids: Tuple[str, ...]
    stopped: bool

    def __init__(self, checked: int, failed: int, failed_ids: Tuple[str, ...], stopped: bool) -> None:
        self._set(checked=checked, failed=failed, failed_ids=tuple(failed_ids), stopped=stopped)


# --- Copies of the C results ----------------------------------------------------------------


def _admin_user(fields: _ffi.mfa_admin_user) -> AdminUser:
    counts = tuple((_memory.required(fields.kinds[index].factor_id), int(fields.kinds[index].count))
                   for index in range(fields.kind_count))
    return AdminUser(_memory.optional(fields.tenant), _memory.required(fields.uid), int(fields.factor_total), counts)


def _admin_factor(fields: _ffi.mfa_admin_factor) -> AdminFactor:
    return AdminFactor(_memory.optional(fields.tenant), _memory.required(fields.uid), factor_info(fields.info))


def _factor_list(fields: _ffi.mfa_factor_list) -> List[MultiFactorInfo]:
    return [factor_info(fields.items[index]) for index in range(fields.count)]


def _stats(fields: _ffi.mfa_admin_stats) -> AdminStats:
    rows = tuple(
        AdminStatsRow(_memory.optional(row.tenant), _memory.required(row.factor_id), int(row.kind), int(row.factors),
                      int(row.users))
        for row in (fields.rows[index] for index in range(fields.row_count)))
    tenants = tuple((_memory.optional(fields.tenants[index].tenant), int(fields.tenants[index].users))
                    for index in range(fields.tenant_count))
    return AdminStats(rows, tenants, int(fields.total_users), int(fields.total_factors))


def _summary(fields: _ffi.mfa_import_summary, reports: Tuple[ImportLine, ...]) -> ImportSummary:
    return ImportSummary(int(fields.lines), int(fields.imported), int(fields.already_imported),
                         int(fields.unsupported), int(fields.failed), int(fields.recovery_codes),
                         bool(fields.stopped), reports)


# --- Arguments ------------------------------------------------------------------------------


def _actor(actor: object) -> bytes:
    """An actor as bytes: 1 to ACTOR_MAX_BYTES bytes of UTF-8."""
    raw = _args.text(actor, "actor")
    if not 1 <= len(raw) <= _ffi.MFA_ACTOR_MAX_BYTES:
        raise _args.invalid("actor must be 1 to %d bytes, got %d" % (_ffi.MFA_ACTOR_MAX_BYTES, len(raw)))
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        raise _args.invalid("actor is not valid UTF-8") from None
    return raw


def _enrollment_id(value: object) -> bytes:
    """An enrollment id from a str, bytes, a MultiFactorInfo or an AdminFactor."""
    if isinstance(value, AdminFactor):
        value = value.info
    if isinstance(value, MultiFactorInfo):
        value = value.uid
    _args.text_or_bytes(value, "enrollment_id")
    return _args.text(value, "enrollment_id")


def _flags(show_phone_numbers: object) -> int:
    if not isinstance(show_phone_numbers, bool):
        raise TypeError("show_phone_numbers must be a bool, not %s" % type(show_phone_numbers).__name__)
    return _ffi.MFA_ADMIN_SHOW_PHONE_NUMBERS if show_phone_numbers else 0


def _import_text(text: object) -> bytes:
    """An import's text as bytes (str is encoded as UTF-8; NUL bytes are text like any other)."""
    if isinstance(text, str):
        try:
            data = text.encode("utf-8")
        except UnicodeEncodeError:
            raise _args.invalid("text is not encodable as UTF-8") from None
    elif isinstance(text, (bytes, bytearray)):
        data = bytes(text)
    elif isinstance(text, memoryview):
        data = text.tobytes()
    else:
        raise TypeError("text must be str or bytes, not %s" % type(text).__name__)
    if len(data) > _ffi.MFA_IMPORT_MAX_BYTES:
        raise _args.invalid("text is longer than %d bytes" % _ffi.MFA_IMPORT_MAX_BYTES)
    return data


def _format(value: object) -> int:
    """An import format as its ``MFA_IMPORT_*`` number, from a name or the number."""
    if isinstance(value, str):
        number = _FORMATS.get(value.lower())
        if number is None:
            raise _args.invalid("unknown import format %r (use otpauth, users_file or csv)" % value)
        return number
    return _args.int32(value, "format")


def _finish(status: int, err: ctypes.c_void_p, failure: _callbacks.Failure) -> None:
    """After a call with Python callbacks: the exception a callback raised, else the status's."""
    if failure.error is not None:
        take_message(err)
        failure.raise_if_any()
    check(status, err)


def _callable(function: object, what: str) -> None:
    if function is not None and not callable(function):
        raise TypeError("%s must be callable or None" % what)


class _ImportCall:
    """The options and callbacks of one import, kept alive for the C call."""

    def __init__(self, actor: bytes, tenant: OptionalText, batch_size: object, report: Report,
                 progress: Progress) -> None:
        _callable(report, "report")
        _callable(progress, "progress")
        self.failure = _callbacks.Failure()
        self.collected: List[ImportLine] = []
        self.report_fn = _callbacks.import_report(report if report is not None else self.collected.append,
                                                  ImportLine._from_c, self.failure)
        self.progress_fn = _callbacks.progress(progress, self.failure)
        self.options = _ffi.mfa_import_options()
        check(lib.mfa_import_options_init(ctypes.byref(self.options), _ffi.MFA_IMPORT_OPTIONS_VERSION))
        self.options.actor = actor
        self.options.tenant = _args.optional_text(tenant, "tenant")
        self.options.batch_size = _args.int32(batch_size, "batch_size")
        self.options.report = self.report_fn
        self.options.progress = self.progress_fn
        self.reports_kept = report is None

    def reports(self) -> Tuple[ImportLine, ...]:
        return tuple(self.collected) if self.reports_kept else ()


# --- The calls ------------------------------------------------------------------------------


class Admin:
    """The administrative calls on one :class:`libmfa.Context`, made by one ``actor``.

    Made by :meth:`libmfa.Context.admin` (or ``Admin(ctx, actor)``). No call
    checks a user's sign-in: the host decides who may use it. The calls that
    change something record ``actor`` in their audit events
    (:attr:`libmfa.AuditEvent.actor`): ``UNENROLL`` (detail ``"ADMIN"``),
    ``FACTOR_RENAMED``, ``USER_RESET``, ``USER_DELETED``, ``ENROLL`` (detail
    ``"IMPORTED"``) and ``KEYS_ROTATED``.

    Thread-safe as its context is. Callbacks (``report``, ``progress``) run
    on the calling thread and must not call back into the context.

    Args:
        context: the context.
        actor: who makes the calls, 1 to :data:`libmfa.ACTOR_MAX_BYTES` bytes of UTF-8.

    Raises:
        TypeError: a context that is not a :class:`libmfa.Context`, an actor
            that is not str or bytes.
        InvalidArgumentError: an empty, overlong or non-UTF-8 actor.
    """

    __slots__ = ("_context", "_actor")

    def __init__(self, context: Context, actor: Text) -> None:
        from .context import Context

        if not isinstance(context, Context):
            raise TypeError("context must be a libmfa.Context, not %s" % type(context).__name__)
        _lib.require(_ADMIN_FUNCTIONS, "administration")
        self._context = context
        self._actor = _actor(actor)

    @property
    def context(self) -> Context:
        """The context the calls go to."""
        return self._context

    @property
    def actor(self) -> str:
        """Who makes the calls, as the audit events record it."""
        return self._actor.decode("utf-8")

    def __repr__(self) -> str:
        return "<libmfa.Admin actor=%r on %r>" % (self.actor, self._context)

    # --- users and factors ----------------------------------------------------------------

    def list_users(self, tenant: Union[OptionalText, _AllTenants] = ALL_TENANTS, factor_id: OptionalText = None,
                   limit: int = 100, cursor: OptionalText = None) -> AdminUserPage:
        """One page of the users that have second factors, ordered by tenant (the project first) then uid.

        Args:
            tenant: :data:`ALL_TENANTS` (the default) for the project and
                every tenant, None (or ``""``) for the project only, or a tenant.
            factor_id: ``"totp"``, ``"phone"`` or ``"recovery"`` for the users
                with a factor of that kind, or None for every user.
            limit: users per page, 1 to :data:`libmfa.ADMIN_PAGE_MAX`.
            cursor: None for the first page, else the ``next_cursor`` of the
                page before (opaque; it carries nothing secret and grants nothing).

        Returns:
            An :class:`AdminUserPage`.

        Raises:
            InvalidArgumentError: a limit out of range, an unknown factor id,
                a cursor libmfa did not make, a bad tenant.
            TypeError, StorageError.
        """
        if isinstance(tenant, _AllTenants):
            raw_tenant: Optional[bytes] = None
        else:
            raw_tenant = b"" if tenant is None else _args.text(tenant, "tenant")
        raw_factor = _args.optional_text(factor_id, "factor_id")
        raw_limit = _args.int32(limit, "limit")
        raw_cursor = _args.optional_text(cursor, "cursor")
        out = ctypes.POINTER(_ffi.mfa_admin_user_page)()
        err = ctypes.c_void_p()
        try:
            with self._context._use() as handle:
                check(lib.mfa_admin_list_users(handle, ctypes.byref(out), raw_tenant, raw_factor, raw_limit,
                                               raw_cursor, ctypes.byref(err)), err)
            page = out.contents
            users = tuple(_admin_user(page.users[index]) for index in range(page.count))
            return AdminUserPage(users, _memory.optional(page.next_cursor))
        finally:
            lib.mfa_admin_user_page_free(out)

    def users(self, tenant: Union[OptionalText, _AllTenants] = ALL_TENANTS, factor_id: OptionalText = None,
              page_size: int = 100) -> Iterator[AdminUser]:
        """Every user that has second factors: :meth:`list_users`, page after page.

        A generator: each page is read when the one before is used up, so
        users added or removed meanwhile may or may not be seen (none is seen twice).

        Raises:
            The errors of :meth:`list_users`, when the page is read.
        """
        cursor: Optional[str] = None
        while True:
            page = self.list_users(tenant, factor_id, page_size, cursor)
            for user in page.users:
                yield user
            if page.next_cursor is None:
                return
            cursor = page.next_cursor

    def user_factors(self, uid: Text, tenant: OptionalText = None,
                     show_phone_numbers: bool = False) -> List[MultiFactorInfo]:
        """One user's factors, oldest first (an empty list for a user with none).

        Args:
            uid: the user.
            tenant: the user's tenant, or None for the project.
            show_phone_numbers: show phone numbers in full (masked by default, as in hints).

        Raises:
            InvalidArgumentError: a bad uid or tenant.
            CryptoError: a phone number that does not decrypt with the context's keys.
            TypeError, StorageError.
        """
        raw_uid = _args.text(uid, "uid")
        raw_tenant = _args.optional_text(tenant, "tenant")
        flags = _flags(show_phone_numbers)
        out = ctypes.POINTER(_ffi.mfa_factor_list)()
        err = ctypes.c_void_p()
        try:
            with self._context._use() as handle:
                check(lib.mfa_admin_user_factors(handle, ctypes.byref(out), raw_tenant, raw_uid, flags,
                                                 ctypes.byref(err)), err)
            return _factor_list(out.contents)
        finally:
            lib.mfa_factor_list_free(out)

    def factor(self, enrollment_id: Union[Text, MultiFactorInfo], show_phone_numbers: bool = False) -> AdminFactor:
        """One factor, found by its enrollment id alone, with the user who has it.

        Raises:
            MFAEnrollmentNotFoundError: no factor has this id.
            InvalidArgumentError, CryptoError, TypeError, StorageError.
        """
        raw_id = _enrollment_id(enrollment_id)
        flags = _flags(show_phone_numbers)
        out = ctypes.POINTER(_ffi.mfa_admin_factor)()
        err = ctypes.c_void_p()
        try:
            with self._context._use() as handle:
                check(lib.mfa_admin_factor_get(handle, ctypes.byref(out), raw_id, flags, ctypes.byref(err)), err)
            return _admin_factor(out.contents)
        finally:
            lib.mfa_admin_factor_free(out)

    def unenroll(self, enrollment_id: Union[Text, MultiFactorInfo, AdminFactor]) -> AdminFactor:
        """Remove one factor, whoever has it, and revoke that user's credentials and tokens.

        As the user's own unenroll does, with no sign-in: credentials and
        libmfa tokens issued to the user before are refused
        (:class:`libmfa.UserTokenExpiredError`). Audited: ``UNENROLL``,
        detail ``"ADMIN"``, with the actor.

        Args:
            enrollment_id: the factor's id, or the factor (a
                :class:`libmfa.MultiFactorInfo` or an :class:`AdminFactor`).

        Returns:
            The removed factor, with its owner.

        Raises:
            MFAEnrollmentNotFoundError: no factor has this id.
            InvalidArgumentError, TypeError, StorageError.
        """
        raw_id = _enrollment_id(enrollment_id)
        out = ctypes.POINTER(_ffi.mfa_admin_factor)()
        err = ctypes.c_void_p()
        try:
            with self._context._use() as handle:
                check(lib.mfa_admin_unenroll(handle, ctypes.byref(out), raw_id, self._actor, ctypes.byref(err)), err)
            return _admin_factor(out.contents)
        finally:
            lib.mfa_admin_factor_free(out)

    def rename(self, enrollment_id: Union[Text, MultiFactorInfo, AdminFactor],
               display_name: OptionalText) -> AdminFactor:
        """Rename a factor (None or ``""`` removes its name; at most 256 bytes).

        Audited: ``FACTOR_RENAMED``, with the actor.

        Returns:
            The factor as it is now, with its owner.

        Raises:
            MFAEnrollmentNotFoundError: no factor has this id.
            InvalidArgumentError: a name over 256 bytes or not UTF-8.
            TypeError, StorageError.
        """
        raw_id = _enrollment_id(enrollment_id)
        raw_name = _args.optional_text(display_name, "display_name")
        out = ctypes.POINTER(_ffi.mfa_admin_factor)()
        err = ctypes.c_void_p()
        try:
            with self._context._use() as handle:
                check(lib.mfa_admin_rename(handle, ctypes.byref(out), raw_id, raw_name, self._actor,
                                           ctypes.byref(err)), err)
            return _admin_factor(out.contents)
        finally:
            lib.mfa_admin_factor_free(out)

    def reset_user(self, uid: Text, tenant: OptionalText = None) -> List[MultiFactorInfo]:
        """Reset a user who lost their second factors.

        Removes every factor (and any enrollment or SMS code in flight),
        clears their backoff and revokes their credentials and tokens, in one
        transaction: a sign-in in progress, enrollment sessions and
        credentials issued before are refused (``UserTokenExpiredError``,
        whatever the reset removed with them); the user signs in with the
        first factor alone and enrolls again. Audited: ``UNENROLL`` (detail
        ``"ADMIN"``) per factor and ``USER_RESET``, with the actor.

        A user with nothing to reset (no factor and no enrollment or SMS
        code in flight: a uid never seen, a user deleted, or reset with
        nothing enrolled or started since) raises, and nothing is written or
        audited; ``Context.revoke_tokens`` revokes such a user's tokens.

        Returns:
            The removed factors (phone numbers left out).

        Raises:
            MFAEnrollmentNotFoundError: nothing to reset (nothing is written).
            InvalidArgumentError, TypeError, StorageError.
        """
        return self._removal(lib.mfa_admin_reset_user, uid, tenant)

    def delete_user(self, uid: Text, tenant: OptionalText = None) -> List[MultiFactorInfo]:
        """Delete everything stored about a user, for an erasure request.

        Factors, enrollments and SMS codes in flight, SMS send records,
        backoff and sign-in times go. Only a revocation marker (tenant, uid,
        a counter and the time) stays, so that sessions and credentials
        issued before stay refused. Audited: ``USER_DELETED``, with the actor.

        A user of whom nothing but that marker is stored (a uid never seen,
        a user deleted before, or reset before with nothing stored since)
        raises, and nothing is written or audited: a second delete finds
        nothing.

        Returns:
            The removed factors (phone numbers left out).

        Raises:
            MFAEnrollmentNotFoundError: nothing to delete (nothing is written).
            InvalidArgumentError, TypeError, StorageError.
        """
        return self._removal(lib.mfa_admin_delete_user, uid, tenant)

    def _removal(self, function: Callable[..., int], uid: Text, tenant: OptionalText) -> List[MultiFactorInfo]:
        raw_uid = _args.text(uid, "uid")
        raw_tenant = _args.optional_text(tenant, "tenant")
        out = ctypes.POINTER(_ffi.mfa_factor_list)()
        err = ctypes.c_void_p()
        try:
            with self._context._use() as handle:
                check(function(handle, ctypes.byref(out), raw_tenant, raw_uid, self._actor, ctypes.byref(err)), err)
            return _factor_list(out.contents)
        finally:
            lib.mfa_factor_list_free(out)

    def remembered_devices(self, uid: Text, tenant: OptionalText = None) -> List[RememberedDevice]:
        """A user's remembered devices that have not expired, the most recently used first.

        Raises:
            InvalidArgumentError, TypeError, StorageError.
        """
        from . import devices

        return devices.listed(self._context, uid, tenant)

    def revoke_remembered_devices(self, uid: Text, device_id: OptionalText = None,
                                  tenant: OptionalText = None) -> int:
        """Forget one of a user's remembered devices (``device_id``), or all of them (None).

        Their tokens no longer stand in for a second factor. Audited:
        ``DEVICE_REVOKED`` per device (detail ``"ADMIN"``), with the actor.

        Returns:
            How many were forgotten.

        Raises:
            DeviceNotFoundError: the user has no device with this id.
            InvalidArgumentError, TypeError, StorageError.
        """
        from . import devices

        return devices.revoke(self._context, uid, device_id, tenant, actor=self._actor)

    def stats(self) -> AdminStats:
        """Users and factors, counted per tenant and kind.

        Raises:
            StorageError.
        """
        out = ctypes.POINTER(_ffi.mfa_admin_stats)()
        err = ctypes.c_void_p()
        try:
            with self._context._use() as handle:
                check(lib.mfa_admin_stats_get(handle, ctypes.byref(out), ctypes.byref(err)), err)
            return _stats(out.contents)
        finally:
            lib.mfa_admin_stats_free(out)

    # --- imports --------------------------------------------------------------------------

    def import_factors(self, text: ImportText, format: Union[str, int], tenant: OptionalText = None,
                       batch_size: int = _ffi.MFA_IMPORT_BATCH_DEFAULT, report: Report = None,
                       progress: Progress = None) -> ImportSummary:
        """Import TOTP factors users already have in another system, one per line of ``text``.

        Lines end at LF, CR LF or a lone CR, and a leading byte order mark
        is skipped; CSV follows RFC 4180 (quoted fields hold commas, line
        breaks and doubled quotes; a header naming the columns sets their
        order). Every line with something to say is reported (an
        :class:`ImportLine` with its number, outcome and reason), and every
        line that names a factor gets exactly one outcome; a text that names
        none is one ``FAILED`` line 1. A bad line does not stop the import,
        and no report holds a secret, a code or the line's text (a uid that
        may be a secret, such as a swapped column, is reported as None). Lines
        are stored ``batch_size`` at a time, each batch one transaction.
        Re-running an import stores nothing twice (``ALREADY_IMPORTED``). The
        configuration's factor limit applies per line; imports do not revoke
        the users' tokens. Each factor stored is audited (``ENROLL``, detail
        ``"IMPORTED"``, with the actor).

        Args:
            text: the file's text (str, or UTF-8 bytes; at most
                :data:`libmfa.IMPORT_MAX_BYTES`).
            format: ``"otpauth"`` (``otpauth://totp/...`` URIs; the account
                name is the uid, the issuer the factor's name), ``"users_file"``
                (pam_oath / liboath: ``HOTP/T30/6 alice - <hex secret>``) or
                ``"csv"`` (``uid,secret,issuer,digits,period,algorithm``), or
                ``IMPORT_OTPAUTH``, ``IMPORT_USERS_FILE``, ``IMPORT_CSV``.
            tenant: the tenant of every user in the text, or None for the project.
            batch_size: lines per transaction, 1 to :data:`libmfa.IMPORT_BATCH_MAX`.
            report: called with each :class:`ImportLine`, in line order; None
                keeps them in the summary's ``reports``.
            progress: called after each batch with ``(lines done, lines in
                all)``; return False to stop there (the summary says
                ``stopped``; run the import again to go on).

        If ``report`` or ``progress`` raises, the import stops after the
        batch in progress (what was stored stays stored) and the exception
        is raised.

        Returns:
            An :class:`ImportSummary`.

        Raises:
            InvalidArgumentError: an unknown format, text that is not UTF-8 or
                too long, a bad tenant or batch size.
            TypeError, StorageError (the batches before are stored: run it again to go on).
        """
        number = _format(format)
        data = _import_text(text)
        call = _ImportCall(self._actor, tenant, batch_size, report, progress)
        out = _ffi.mfa_import_summary()
        err = ctypes.c_void_p()
        with self._context._use() as handle:
            status = lib.mfa_import(handle, ctypes.byref(out), number, data, len(data), ctypes.byref(call.options),
                                    ctypes.byref(err))
        _finish(status, err, call.failure)
        return _summary(out, call.reports())

    def import_google_authenticator(self, text: ImportText, uid: Text, tenant: OptionalText = None,
                                    report: Report = None) -> ImportSummary:
        """Import one user's google-authenticator-libpam file (``~/.google_authenticator``).

        Its TOTP secret becomes a factor, its 8-digit scratch codes the
        user's recovery codes (replacing an earlier set), and each option
        line is reported as it maps onto libmfa (``IMPORT_NOTE``). A file
        without ``TOTP_AUTH`` is counter-based: ``IMPORT_UNSUPPORTED``, and
        nothing is stored. Re-running it stores nothing twice. One file is one
        transaction.

        Args:
            text: the file's text (str or UTF-8 bytes).
            uid: the user the file belongs to.
            tenant: the user's tenant, or None for the project.
            report: as for :meth:`import_factors`.

        Returns:
            An :class:`ImportSummary`.

        Raises:
            InvalidArgumentError: a bad uid or tenant, text that is not UTF-8.
            TypeError, StorageError.
        """
        raw_uid = _args.text(uid, "uid")
        data = _import_text(text)
        call = _ImportCall(self._actor, tenant, _ffi.MFA_IMPORT_BATCH_DEFAULT, report, None)
        out = _ffi.mfa_import_summary()
        err = ctypes.c_void_p()
        with self._context._use() as handle:
            status = lib.mfa_import_google_authenticator(handle, ctypes.byref(out), raw_uid, data, len(data),
                                                         ctypes.byref(call.options), ctypes.byref(err))
        _finish(status, err, call.failure)
        return _summary(out, call.reports())

    def import_pskc(self, data: ImportText, key: Optional[bytes] = None, password: OptionalText = None,
                    tenant: OptionalText = None, ignore_users: bool = False,
                    batch_size: int = _ffi.MFA_IMPORT_BATCH_DEFAULT, report: Report = None,
                    progress: Progress = None) -> ImportSummary:
        """Import the keys of a PSKC 1.0 file (RFC 6030), as token vendors deliver their seeds.

        HOTP, TOTP and Yubico OTP keys: each becomes the factor of its
        ``UserId``, or, without one (or with ``ignore_users``), is stored
        unassigned under its serial number, to be assigned with
        :meth:`assign_token` or claimed by its user with a code. The XML is
        read as hostile: a file that declares a DTD or uses an entity (XXE, a
        billion laughs) is refused unread (:class:`libmfa.InvalidPSKCError`).
        Encrypted values need the file's pre-shared ``key`` (16, 24 or 32
        bytes) or its ``password`` (PBKDF2), never both; each is checked
        against its MAC. Each key package gets one :class:`ImportLine`, on
        the line of its ``Key`` element, with its ``serial``. Re-running it
        stores nothing twice.

        Args:
            data: the file (bytes, or str), at most 64 MiB.
            key: the pre-shared key, or None.
            password: the password, or None.
            tenant: the tenant of every key, or None for the project.
            ignore_users: store every key unassigned, whatever its UserId.
            batch_size: key packages per transaction.
            report, progress: as for :meth:`import_factors` (``lines`` counts the key packages).

        Returns:
            An :class:`ImportSummary`.

        Raises:
            InvalidPSKCError: not a PSKC 1.0 container, XML that is not
                well-formed or holds a DTD or an entity.
            PSKCKeyMismatchError: encrypted and no key or password given, or the one given opens nothing.
            InvalidArgumentError, TypeError, StorageError.
        """
        raw = _import_text(data)
        if key is not None and not isinstance(key, (bytes, bytearray, memoryview)):
            raise TypeError("key must be bytes or None, not %s" % type(key).__name__)
        raw_key = bytes(key) if key is not None else None
        raw_password = _args.optional_text(password, "password")
        if not isinstance(ignore_users, bool):
            raise TypeError("ignore_users must be a bool, not %s" % type(ignore_users).__name__)
        flags = _ffi.MFA_PSKC_IGNORE_USERS if ignore_users else 0
        call = _ImportCall(self._actor, tenant, batch_size, report, progress)
        out = _ffi.mfa_import_summary()
        err = ctypes.c_void_p()
        with self._context._use() as handle:
            status = lib.mfa_import_pskc(handle, ctypes.byref(out), raw, len(raw), raw_key,
                                         len(raw_key) if raw_key is not None else 0, raw_password, flags,
                                         ctypes.byref(call.options), ctypes.byref(err))
        _finish(status, err, call.failure)
        return _summary(out, call.reports())

    # --- hardware tokens ------------------------------------------------------------------

    def import_token(self, kind: str, secret: bytes, serial: OptionalText = None, user: Optional[User] = None,
                     tenant: OptionalText = None, display_name: OptionalText = None, algorithm: str = "SHA1",
                     digits: int = 6, period: int = 30, counter: int = 0, window: Optional[int] = None,
                     public_id: OptionalText = None, private_id: Optional[bytes] = None) -> Optional[MultiFactorInfo]:
        """Import one hardware token: as ``user``'s factor, or (``user`` None) unassigned under its serial.

        Args:
            kind: ``"hotp"``, ``"totp"`` or ``"yubico_otp"``.
            secret: the HMAC key (HOTP, TOTP: 10 to 128 bytes) or the AES-128 key (YubiKey: 16 bytes).
            serial: the serial number (needed for a token stored unassigned; a YubiKey defaults to its public id).
            user: the user (only ``uid`` and ``tenant`` are read), or None.
            tenant: the tenant of an unassigned token.
            display_name: the factor's name.
            algorithm, digits: HOTP and TOTP codes.
            period: TOTP's time step in seconds.
            counter: HOTP: the counter of the token's next code.
            window: the token's own window (TOTP: +/- steps; HOTP: look-ahead), 0 to 10; None for the default.
            public_id: a YubiKey's public id (modhex).
            private_id: a YubiKey's private id (6 bytes).

        Returns:
            The new factor, or None for a token stored unassigned.

        Raises:
            SecondFactorExistsError: the user has this key, or the serial or public id is in the store.
            InvalidArgumentError, SecondFactorLimitExceededError, TypeError, StorageError.
        """
        number = _TOKEN_KINDS.get(kind) if isinstance(kind, str) else None
        if number is None:
            raise _args.invalid("kind must be hotp, totp or yubico_otp")
        raw_secret = _args.secret(secret, "secret")
        secret_buffer = (ctypes.c_uint8 * max(len(raw_secret), 1)).from_buffer_copy(raw_secret.ljust(1, b"\0"))
        seed = _ffi.mfa_token_seed()
        check(lib.mfa_token_seed_init(ctypes.byref(seed), _ffi.MFA_TOKEN_SEED_VERSION))
        seed.kind = number
        seed.secret = ctypes.cast(secret_buffer, ctypes.POINTER(ctypes.c_uint8))
        seed.secret_len = len(raw_secret)
        seed.algorithm = _args.algorithm(algorithm)
        seed.digits = _args.int32(digits, "digits")
        seed.period = _args.int64(period, "period")
        seed.counter = _args.uint64(counter, "counter")
        seed.window = -1 if window is None else _args.int32(window, "window")
        seed.serial = _args.optional_text(serial, "serial")
        seed.public_id = _args.optional_text(public_id, "public_id")
        raw_private = _args.secret(private_id, "private_id") if private_id is not None else None
        private_buffer = None
        if raw_private is not None:
            private_buffer = (ctypes.c_uint8 * max(len(raw_private), 1)).from_buffer_copy(raw_private.ljust(1, b"\0"))
            seed.private_id = ctypes.cast(private_buffer, ctypes.POINTER(ctypes.c_uint8))
            seed.private_id_len = len(raw_private)
        c_owner = c_user(user) if user is not None else None
        out = ctypes.POINTER(_ffi.mfa_factor_info)()
        err = ctypes.c_void_p()
        try:
            with self._context._use() as handle:
                check(lib.mfa_token_import(handle, ctypes.byref(out), ctypes.byref(seed),
                                           ctypes.byref(c_owner) if c_owner is not None else None,
                                           _args.optional_text(tenant, "tenant"),
                                           _args.optional_text(display_name, "display_name"), self._actor,
                                           ctypes.byref(err)), err)
            return factor_info(out.contents) if out else None
        finally:
            lib.mfa_factor_info_free(out)
            ctypes.memset(secret_buffer, 0, ctypes.sizeof(secret_buffer))
            if private_buffer is not None:
                ctypes.memset(private_buffer, 0, ctypes.sizeof(private_buffer))

    def list_tokens(self, tenant: Union[OptionalText, _AllTenants] = ALL_TENANTS, assigned: bool = False,
                    limit: int = 100, cursor: OptionalText = None) -> HardwareTokenPage:
        """One page of hardware tokens, by tenant then serial: the unassigned, and with ``assigned`` users' too.

        Raises:
            InvalidArgumentError: a limit out of range, a bad tenant or cursor.
            TypeError, StorageError.
        """
        if isinstance(tenant, _AllTenants):
            raw_tenant: Optional[bytes] = None
        else:
            raw_tenant = b"" if tenant is None else _args.text(tenant, "tenant")
        if not isinstance(assigned, bool):
            raise TypeError("assigned must be a bool, not %s" % type(assigned).__name__)
        out = ctypes.POINTER(_ffi.mfa_token_list)()
        err = ctypes.c_void_p()
        try:
            with self._context._use() as handle:
                check(lib.mfa_admin_tokens_list(handle, ctypes.byref(out), raw_tenant,
                                                _ffi.MFA_TOKENS_ASSIGNED if assigned else 0,
                                                _args.int32(limit, "limit"), _args.optional_text(cursor, "cursor"),
                                                ctypes.byref(err)), err)
            page = out.contents
            tokens = tuple(HardwareToken(
                _memory.required(item.serial), _memory.required(item.factor_id), int(item.kind),
                _memory.optional(item.tenant), _memory.optional(item.public_id), _memory.optional(item.issuer),
                _memory.optional(item.uid), _memory.optional(item.enrollment_id), int(item.time))
                for item in (page.items[index] for index in range(page.count)))
            return HardwareTokenPage(tokens, _memory.optional(page.next_cursor))
        finally:
            lib.mfa_token_list_free(out)

    def assign_token(self, serial: Text, uid: Text, tenant: OptionalText = None,
                     display_name: OptionalText = None) -> MultiFactorInfo:
        """Assign the unassigned token ``serial`` (a YubiKey's serial or public id) to the user ``uid``.

        It becomes the user's factor and leaves the inventory, in one
        transaction. Audited (``TOKEN_ASSIGNED`` and ``ENROLL`` detail
        ``"ASSIGNED"``, with the actor).

        Raises:
            TokenNotFoundError: no unassigned token of the tenant has this serial.
            SecondFactorLimitExceededError, InvalidArgumentError, TypeError, StorageError.
        """
        out = ctypes.POINTER(_ffi.mfa_factor_info)()
        err = ctypes.c_void_p()
        try:
            with self._context._use() as handle:
                check(lib.mfa_admin_token_assign(handle, ctypes.byref(out), _args.text(serial, "serial"),
                                                 _args.text(uid, "uid"), _args.optional_text(tenant, "tenant"),
                                                 _args.optional_text(display_name, "display_name"), self._actor,
                                                 ctypes.byref(err)), err)
            return factor_info(out.contents)
        finally:
            lib.mfa_factor_info_free(out)

    def remove_token(self, serial: Text, tenant: OptionalText = None) -> None:
        """Remove the unassigned token ``serial`` from the inventory (audited ``TOKEN_REMOVED``).

        Raises:
            TokenNotFoundError, InvalidArgumentError, TypeError, StorageError.
        """
        err = ctypes.c_void_p()
        with self._context._use() as handle:
            check(lib.mfa_admin_token_remove(handle, _args.text(serial, "serial"),
                                             _args.optional_text(tenant, "tenant"), self._actor,
                                             ctypes.byref(err)), err)

    def resync_hotp(self, enrollment_id: Union[Text, MultiFactorInfo, AdminFactor], code: Text,
                    next_code: Text) -> None:
        """Bring an HOTP factor's counter forward with two consecutive codes from its token.

        The pair may lie up to the configuration's ``hotp.resyncWindow``
        counters ahead; the counter only moves forward; no failure is
        counted. Audited (``TOKEN_RESYNCED``, detail ``"ADMIN"``, with the actor).

        Raises:
            InvalidVerificationCodeError: no such pair within the window (or below the counter).
            MFAEnrollmentNotFoundError, InvalidArgumentError (not an HOTP factor), TypeError, StorageError.
        """
        err = ctypes.c_void_p()
        with self._context._use() as handle:
            check(lib.mfa_admin_hotp_resync(handle, _enrollment_id(enrollment_id), _args.code(code, "code"),
                                            _args.code(next_code, "next_code"), self._actor, ctypes.byref(err)),
                  err)

    # --- keys -----------------------------------------------------------------------------

    def rotate_keys(self, batch_size: int = 500, progress: Progress = None) -> KeyRotationResult:
        """Re-encrypt every stored secret that is not under the current master key, in batches.

        Each batch is its own short transaction, so a large store is never
        locked for long; interrupting it loses nothing, and running it again
        resumes with exactly the records not under the current key. Keep the
        previous keys in the context's options until the tokens they sealed
        have expired (10 minutes by default). Audited: ``KEYS_ROTATED``, with the actor.

        Args:
            batch_size: records per transaction, 1 to :data:`libmfa.ROTATION_BATCH_MAX`.
            progress: called after each batch with ``(records done, total)``;
                return False to stop there. If it raises, the run stops and
                the exception is raised.

        Returns:
            A :class:`KeyRotationResult`.

        Raises:
            CryptoError: a record's key was not given, or it does not decrypt
                for its row (the batches before stay done).
            InvalidArgumentError, TypeError, StorageError.
        """
        _callable(progress, "progress")
        raw_batch = _args.int32(batch_size, "batch_size")
        failure = _callbacks.Failure()
        progress_fn = _callbacks.progress(progress, failure)
        out = _ffi.mfa_rotation_result()
        err = ctypes.c_void_p()
        with self._context._use() as handle:
            status = lib.mfa_rotate_keys_batched(handle, ctypes.byref(out), raw_batch, self._actor, progress_fn,
                                                 None, ctypes.byref(err))
        _finish(status, err, failure)
        return KeyRotationResult(int(out.rotated), int(out.remaining), bool(out.stopped))

    def rewrap_keys(self, key_label: Text) -> int:
        """Re-wrap the store's data keys under the key provider's key ``key_label`` (rotate the HSM key).

        Each data key is unwrapped with the HSM key it is wrapped under now,
        wrapped under ``key_label``, checked, and all are stored in one
        transaction: no sealed record is touched, and contexts already open
        go on signing users in meanwhile. Contexts opened later unwrap with
        the new key; delete the old one from the token only after every store
        it wrapped is re-wrapped. Audited: ``KEYS_ROTATED``, with the actor.

        Returns:
            The number of data keys re-wrapped.

        Raises:
            InvalidArgumentError: the context was opened without an HSM; a bad label.
            KeyProviderKeyNotFoundError: the token holds no key ``key_label``.
            KeyProviderLoginError, KeyProviderUnavailableError, KeyMismatchError,
            StorageError: another process re-wrapped meanwhile (nothing changed).
        """
        raw_label = _args.text(key_label, "key_label")
        count = ctypes.c_int64(0)
        err = ctypes.c_void_p()
        with self._context._use() as handle:
            status = lib.mfa_keys_rewrap(handle, raw_label, self._actor, ctypes.byref(count), ctypes.byref(err))
        check(status, err)
        return int(count.value)

    def check_seals(self, batch_size: int = 1000, progress: Progress = None) -> SealCheck:
        """Open every sealed record (factor secrets, pending secrets, SMS codes) with the context's keys.

        Nothing is written. After a key rotation, a check on a context opened
        with the new key alone proves that nothing still needs an old one.
        Every row is checked whatever its seal format; a format libmfa cannot
        read counts as failed.

        Args:
            batch_size: records per read, 1 to :data:`libmfa.ROTATION_BATCH_MAX`.
            progress: as for :meth:`rotate_keys`.

        Returns:
            A :class:`SealCheck`.

        Raises:
            InvalidArgumentError, TypeError, StorageError.
        """
        _callable(progress, "progress")
        raw_batch = _args.int32(batch_size, "batch_size")
        failure = _callbacks.Failure()
        progress_fn = _callbacks.progress(progress, failure)
        out = ctypes.POINTER(_ffi.mfa_seal_check)()
        err = ctypes.c_void_p()
        try:
            with self._context._use() as handle:
                status = lib.mfa_check_seals(handle, ctypes.byref(out), raw_batch, progress_fn, None,
                                             ctypes.byref(err))
            _finish(status, err, failure)
            fields = out.contents
            ids = tuple(_memory.required(fields.failed_ids[index]) for index in range(fields.failed_id_count))
            return SealCheck(int(fields.checked), int(fields.failed), ids, bool(fields.stopped))
        finally:
            lib.mfa_seal_check_free(out)


__all__ = [
    "ALL_TENANTS",
    "Admin",
    "AdminFactor",
    "AdminStats",
    "AdminStatsRow",
    "AdminUser",
    "AdminUserPage",
    "ImportLine",
    "ImportSummary",
    "KeyRotationResult",
    "SealCheck",
]
