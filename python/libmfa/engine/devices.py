"""Remembered devices ("remember this device for 30 days"): :class:`RememberedDevice`,
:class:`DeviceToken` and the calls behind :meth:`libmfa.Context.remember_device`,
:meth:`libmfa.Context.sign_in` (with ``device_token``),
:meth:`libmfa.Context.remembered_devices` and
:meth:`libmfa.Context.revoke_remembered_devices`.

After a sign-in passed a second factor, the host may ask for a device token
(``resolver.remember_device(label)``) and keep it on that device alone (an
HttpOnly cookie). At the next sign-in the host passes it with the first
factor: ``ctx.sign_in(user, device_token=token)`` then returns a
:class:`libmfa.SignInResult` whose ``factor_id`` is ``"remembered_device"``
instead of raising :class:`libmfa.SecondFactorRequired`, as long as the
device is remembered (``rememberedDevices`` in the configuration: off by
default, 30 days, sliding or not, at most 10 per user). Any other token is
ignored (and audited): the sign-in asks for the second factor as usual.
libmfa stores only a keyed hash of each token.
"""

from __future__ import annotations

import ctypes

from .. import _args, _ffi, _lib, _memory
from .._lib import lib
from .._record import Record
from ..errors import check

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import List, Optional

    from .._typing import OptionalText, Text
    from .context import Context

#: The C functions of remembered devices (checked when first used).
_DEVICE_FUNCTIONS = ("mfa_device_remember", "mfa_device_token_free", "mfa_sign_in_remembered", "mfa_devices_list",
                     "mfa_remembered_device_list_free", "mfa_devices_revoke", "mfa_admin_devices_revoke")


class RememberedDevice(Record):
    """A device whose user passed a second factor on it and asked to be remembered there.

    Attributes:
        id: the device's id (22 URL-safe characters; not secret, the token is).
        tenant: the tenant, or None for the project.
        uid: the user.
        label: the host's name for it ("Firefox on Linux"), or None.
        created_at: when it was remembered (Unix seconds).
        last_used_at: when its token last stood in for a second factor.
        expires_at: when it stops being remembered, unless used before (sliding) or revoked.
    """

    __slots__ = ("id", "tenant", "uid", "label", "created_at", "last_used_at", "expires_at")

    id: str
    tenant: Optional[str]
    uid: str
    label: Optional[str]
    created_at: int
    last_used_at: int
    expires_at: int

    def __init__(self, id: str, tenant: Optional[str], uid: str, label: Optional[str], created_at: int,
                 last_used_at: int, expires_at: int) -> None:
        self._set(id=id, tenant=tenant, uid=uid, label=label, created_at=created_at, last_used_at=last_used_at,
                  expires_at=expires_at)

    @classmethod
    def _from_fields(cls, fields: _ffi.mfa_remembered_device) -> RememberedDevice:
        return cls(_memory.required(fields.device_id), _memory.optional(fields.tenant),
                   _memory.required(fields.uid), _memory.optional(fields.label), int(fields.created_at),
                   int(fields.last_used_at), int(fields.expires_at))


class DeviceToken(Record):
    """A device token and the device it names (:meth:`libmfa.Context.remember_device`).

    Attributes:
        token: opaque, secret, long-lived (left out of ``repr``). Hand it to the
            device alone; libmfa never shows it again.
        device: the :class:`RememberedDevice`.
    """

    __slots__ = ("token", "device")
    _hidden = frozenset(["token"])

    token: str
    device: RememberedDevice

    def __init__(self, token: str, device: RememberedDevice) -> None:
        self._set(token=token, device=device)


def remember(context: Context, pending_credential: Text, tenant: OptionalText, label: OptionalText) -> DeviceToken:
    """``mfa_device_remember``: see :meth:`libmfa.Context.remember_device`."""
    _lib.require(_DEVICE_FUNCTIONS, "remembered devices")
    raw = _args.text(pending_credential, "pending_credential")
    raw_tenant = _args.optional_text(tenant, "tenant")
    raw_label = _args.optional_text(label, "label")
    out = ctypes.POINTER(_ffi.mfa_device_token)()
    err = ctypes.c_void_p()
    try:
        with context._use() as handle:
            check(lib.mfa_device_remember(handle, ctypes.byref(out), raw, raw_tenant, raw_label, ctypes.byref(err)),
                  err)
        fields = out.contents
        return DeviceToken(_memory.required(fields.token), RememberedDevice._from_fields(fields.device))
    finally:
        lib.mfa_device_token_free(out)


def listed(context: Context, uid: Text, tenant: OptionalText) -> List[RememberedDevice]:
    """``mfa_devices_list``: see :meth:`libmfa.Context.remembered_devices`."""
    _lib.require(_DEVICE_FUNCTIONS, "remembered devices")
    raw_uid = _args.text(uid, "uid")
    raw_tenant = _args.optional_text(tenant, "tenant")
    out = ctypes.POINTER(_ffi.mfa_remembered_device_list)()
    err = ctypes.c_void_p()
    try:
        with context._use() as handle:
            check(lib.mfa_devices_list(handle, ctypes.byref(out), raw_tenant, raw_uid, ctypes.byref(err)), err)
        items = out.contents
        return [RememberedDevice._from_fields(items.items[index]) for index in range(items.count)]
    finally:
        lib.mfa_remembered_device_list_free(out)


def revoke(context: Context, uid: Text, device_id: OptionalText, tenant: OptionalText,
           actor: Optional[bytes] = None) -> int:
    """``mfa_devices_revoke`` (or, with an actor, ``mfa_admin_devices_revoke``): how many were forgotten."""
    _lib.require(_DEVICE_FUNCTIONS, "remembered devices")
    raw_uid = _args.text(uid, "uid")
    raw_tenant = _args.optional_text(tenant, "tenant")
    raw_id = _args.optional_text(device_id, "device_id")
    count = ctypes.c_size_t(0)
    err = ctypes.c_void_p()
    with context._use() as handle:
        if actor is None:
            status = lib.mfa_devices_revoke(handle, ctypes.byref(count), raw_tenant, raw_uid, raw_id,
                                            ctypes.byref(err))
        else:
            status = lib.mfa_admin_devices_revoke(handle, ctypes.byref(count), raw_tenant, raw_uid, raw_id, actor,
                                                  ctypes.byref(err))
        check(status, err)
    return int(count.value)


__all__ = ["DeviceToken", "RememberedDevice"]
