"""The stored audit trail: :meth:`Context.audit_records`, :meth:`Context.verify_audit_trail`.

With the project configuration's ``"auditTrail": {"store": true}`` every
audit event is stored in the transaction of the write it records, in the
chain of the context that wrote it (``audit_chain``), MACed under a key
derived from the master key and chained to the event before it, so that an
event deleted, inserted, altered or moved is found by
:meth:`Context.verify_audit_trail`. ``retentionDays`` and ``maxEvents``
bound it (:meth:`Context.purge_audit_trail`, :meth:`Context.purge_expired`).
"""

from __future__ import annotations

import ctypes

from .. import _args, _ffi
from .._lib import lib
from .._memory import required
from .._record import Record
from ..errors import check

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Iterator, List, Optional, Tuple, Union

    from .._typing import OptionalText
    from .context import Context

    Kind = Union[int, str, None]


class AuditRecord(Record):
    """One stored audit event.

    Attributes:
        chain: the chain it is in (the ``audit_chain`` of the context that wrote it).
        seq: its number in the chain, from 1.
        key_id: the id of the master key its MAC was made with.
        kind: ``AUDIT_*`` (int), or 0 for a kind this libmfa does not know.
        kind_name: the kind's name (``"SIGN_IN_FAILURE"``...), as stored.
        tenant: the tenant, or None for the project.
        uid: the user, or None.
        factor_id: the factor id, or None.
        enrollment_id: the enrollment id, or None.
        time: Unix time of the event.
        detail: the outcome or other detail.
        actor: who made the administrative call, or None.
    """

    __slots__ = ("chain", "seq", "key_id", "kind", "kind_name", "tenant", "uid", "factor_id", "enrollment_id",
                 "time", "detail", "actor")

    chain: str
    seq: int
    key_id: str
    kind: int
    kind_name: str
    tenant: Optional[str]
    uid: Optional[str]
    factor_id: Optional[str]
    enrollment_id: Optional[str]
    time: int
    detail: str
    actor: Optional[str]

    def __init__(self, chain: str, seq: int, key_id: str, kind: int, kind_name: str, tenant: Optional[str],
                 uid: Optional[str], factor_id: Optional[str], enrollment_id: Optional[str], time: int,
                 detail: str, actor: Optional[str]) -> None:
        self._set(chain=chain, seq=seq, key_id=key_id, kind=kind, kind_name=kind_name, tenant=tenant, uid=uid,
                  factor_id=factor_id, enrollment_id=enrollment_id, time=time, detail=detail, actor=actor)

    @property
    def position(self) -> Tuple[int, str, int]:
        """``(time, chain, seq)``: where the record is in the trail's order (``after=`` of the next page)."""
        return (self.time, self.chain, self.seq)


class AuditChainVerification(Record):
    """What :meth:`Context.verify_audit_trail` found in one chain.

    Attributes:
        chain: the chain's name.
        anchor_seq: the first event kept (after purges).
        head_seq: the last event, as the chain's head says.
        verified: events whose MAC and link were checked.
        unchecked: events not checked: their key is not among the context's keys.
        missing_keys: the ids of those keys.
        broken_at: the event where the chain breaks (the first one missing,
            altered, inserted or out of place), or None if it is whole.
        problem: what is wrong there, or None.
    """

    __slots__ = ("chain", "anchor_seq", "head_seq", "verified", "unchecked", "missing_keys", "broken_at", "problem")

    chain: str
    anchor_seq: int
    head_seq: int
    verified: int
    unchecked: int
    missing_keys: Tuple[str, ...]
    broken_at: Optional[int]
    problem: Optional[str]

    def __init__(self, chain: str, anchor_seq: int, head_seq: int, verified: int, unchecked: int,
                 missing_keys: Tuple[str, ...], broken_at: Optional[int], problem: Optional[str]) -> None:
        self._set(chain=chain, anchor_seq=anchor_seq, head_seq=head_seq, verified=verified, unchecked=unchecked,
                  missing_keys=missing_keys, broken_at=broken_at, problem=problem)

    @property
    def intact(self) -> bool:
        """Whether the chain is whole (some events may be unchecked)."""
        return self.broken_at is None


class AuditVerification(Record):
    """What :meth:`Context.verify_audit_trail` found.

    Attributes:
        intact: whether every chain is whole.
        verified: events checked, over every chain.
        unchecked: events not checked for want of their key.
        chains: each chain's :class:`AuditChainVerification`, by name.
    """

    __slots__ = ("intact", "verified", "unchecked", "chains")

    intact: bool
    verified: int
    unchecked: int
    chains: Tuple[AuditChainVerification, ...]

    def __init__(self, intact: bool, verified: int, unchecked: int,
                 chains: Tuple[AuditChainVerification, ...]) -> None:
        self._set(intact=intact, verified=verified, unchecked=unchecked, chains=chains)


def _kind(kind: Kind) -> Tuple[int, Optional[bytes]]:
    """``(kind, kind_name)`` of the query from an ``AUDIT_*`` int or a kind's name."""
    if kind is None:
        return 0, None
    if isinstance(kind, bool) or not isinstance(kind, (int, str)):
        raise TypeError("kind must be an AUDIT_* int or a kind's name, not %s" % type(kind).__name__)
    if isinstance(kind, int):
        return kind, None
    return 0, _args.text(kind, "kind")


def records(context: Context, tenant: OptionalText = None, uid: OptionalText = None, kind: Kind = None,
            since: Optional[int] = None, until: Optional[int] = None, chain: OptionalText = None,
            after_seq: Optional[int] = None, after: Optional[Tuple[int, str, int]] = None, limit: int = 100,
            latest: bool = False) -> List[AuditRecord]:
    """See :meth:`Context.audit_records`."""
    query = _ffi.mfa_trail_query()
    check(lib.mfa_trail_query_init(ctypes.byref(query), _ffi.MFA_TRAIL_QUERY_VERSION))
    query.tenant = _args.optional_text(tenant, "tenant")
    query.uid = _args.optional_text(uid, "uid")
    query.kind, query.kind_name = _kind(kind)
    if since is not None:
        query.since = _args.int64(since, "since")
    if until is not None:
        query.until = _args.int64(until, "until")
    query.chain = _args.optional_text(chain, "chain")
    if after_seq is not None:
        query.after_seq = _args.int64(after_seq, "after_seq")
    if after is not None:
        if not isinstance(after, tuple) or len(after) != 3:
            raise TypeError("after must be a (time, chain, seq) tuple, as AuditRecord.position")
        query.after_time = _args.int64(after[0], "after time")
        query.after_chain = _args.text(after[1], "after chain")
        query.after_seq = _args.int64(after[2], "after seq")
    if isinstance(limit, bool) or not isinstance(limit, int):
        raise TypeError("limit must be an int")
    if not 1 <= limit <= _ffi.MFA_TRAIL_READ_MAX:
        raise _args.invalid("limit must be 1 to %d" % _ffi.MFA_TRAIL_READ_MAX)
    query.limit = limit
    query.latest = 1 if latest else 0
    out = ctypes.POINTER(_ffi.mfa_trail_record_list)()
    err = ctypes.c_void_p()
    try:
        with context._use() as handle:
            check(lib.mfa_trail_read(handle, ctypes.byref(out), ctypes.byref(query), ctypes.byref(err)), err)
        listed = out.contents
        return [_record(listed.records[index]) for index in range(listed.count)]
    finally:
        lib.mfa_trail_record_list_free(out)


def every(context: Context, tenant: OptionalText = None, uid: OptionalText = None, kind: Kind = None,
          since: Optional[int] = None, until: Optional[int] = None, page: int = 1000) -> Iterator[AuditRecord]:
    """See :meth:`Context.audit_trail`."""
    after: Optional[Tuple[int, str, int]] = None
    while True:
        batch = records(context, tenant=tenant, uid=uid, kind=kind, since=since, until=until, after=after,
                        limit=page)
        yield from batch
        if len(batch) < page:
            return
        after = batch[-1].position


def _record(record: _ffi.mfa_trail_record) -> AuditRecord:
    event = record.event

    def optional(value: Optional[bytes]) -> Optional[str]:
        return required(value) or None

    return AuditRecord(chain=required(record.chain), seq=int(record.seq), key_id=required(record.key_id),
                       kind=int(event.kind), kind_name=required(event.kind_name), tenant=optional(event.tenant),
                       uid=optional(event.uid), factor_id=optional(event.factor_id),
                       enrollment_id=optional(event.enrollment_id), time=int(event.time),
                       detail=required(event.detail), actor=optional(event.actor))


def verify(context: Context) -> AuditVerification:
    """See :meth:`Context.verify_audit_trail`."""
    out = ctypes.POINTER(_ffi.mfa_trail_verification)()
    err = ctypes.c_void_p()
    try:
        with context._use() as handle:
            check(lib.mfa_trail_verify(handle, ctypes.byref(out), ctypes.byref(err)), err)
        found = out.contents
        chains = []
        for index in range(found.chain_count):
            chain = found.chains[index]
            keys = tuple(required(chain.missing_keys[k]) for k in range(chain.missing_key_count))
            chains.append(AuditChainVerification(
                chain=required(chain.chain), anchor_seq=int(chain.anchor_seq), head_seq=int(chain.head_seq),
                verified=int(chain.verified), unchecked=int(chain.unchecked), missing_keys=keys,
                broken_at=int(chain.broken_at) if chain.broken else None,
                problem=required(chain.problem) if chain.broken else None))
        return AuditVerification(intact=bool(found.intact), verified=int(found.verified),
                                 unchecked=int(found.unchecked), chains=tuple(chains))
    finally:
        lib.mfa_trail_verification_free(out)


def purge(context: Context) -> int:
    """See :meth:`Context.purge_audit_trail`."""
    deleted = ctypes.c_int64(0)
    err = ctypes.c_void_p()
    with context._use() as handle:
        check(lib.mfa_trail_purge(handle, ctypes.byref(deleted), ctypes.byref(err)), err)
    return int(deleted.value)


__all__ = ["AuditChainVerification", "AuditRecord", "AuditVerification"]
