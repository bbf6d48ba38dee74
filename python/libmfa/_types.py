"""ctypes mirrors of the structs and callback types in ``include/mfa_types.h``.

Field names, order and C types follow the header exactly; the tests compile
a C program against the header and compare every size and offset.
"""

import ctypes

_i32 = ctypes.c_int32
_i64 = ctypes.c_int64
_str = ctypes.c_char_p  # const char *: NUL-terminated UTF-8 (or NULL)


class mfa_totp_params(ctypes.Structure):
    """``mfa_totp_params``: how a TOTP code is computed."""

    _fields_ = [
        ("version", ctypes.c_uint32),
        ("algorithm", _i32),
        ("digits", _i32),
        ("period", _i64),
        ("t0", _i64),
    ]


class mfa_key_uri(ctypes.Structure):
    """``mfa_key_uri``: an otpauth:// key URI as plain fields."""

    _fields_ = [
        ("version", ctypes.c_uint32),
        ("type", _i32),
        ("issuer", _str),
        ("account", _str),
        ("secret", ctypes.POINTER(ctypes.c_uint8)),
        ("secret_len", ctypes.c_size_t),
        ("algorithm", _i32),
        ("digits", _i32),
        ("period", _i64),
        ("counter", ctypes.c_uint64),
    ]


class mfa_ctx(ctypes.Structure):
    """``mfa_ctx``: the engine's opaque context; only pointers to it are used."""

    _fields_ = [("opaque_reserved_", ctypes.c_ubyte)]


class mfa_audit_event(ctypes.Structure):
    """``mfa_audit_event``: one audit event, borrowed for the callback's duration."""

    _fields_ = [
        ("kind", _i32),
        ("kind_name", _str),
        ("tenant", _str),
        ("uid", _str),
        ("factor_id", _str),
        ("enrollment_id", _str),
        ("time", _i64),
        ("detail", _str),
    ]


#: ``int64_t (*mfa_clock_fn)(void *context)``.
mfa_clock_fn = ctypes.CFUNCTYPE(_i64, ctypes.c_void_p)
#: ``int (*mfa_random_fn)(void *context, uint8_t *out, size_t len)``.
mfa_random_fn = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(ctypes.c_uint8), ctypes.c_size_t)
#: ``void (*mfa_audit_fn)(void *context, const mfa_audit_event *event)``.
mfa_audit_fn = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.POINTER(mfa_audit_event))
#: ``mfa_sms_sender_fn``: sends one SMS; 0 when sent.
mfa_sms_sender_fn = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p)
#: ``mfa_app_verifier_fn``: checks an app credential; 0 when genuine.
mfa_app_verifier_fn = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int32)


class mfa_master_key(ctypes.Structure):
    """``mfa_master_key``: a master key and its id."""

    _fields_ = [("id", _str), ("key", ctypes.POINTER(ctypes.c_uint8))]


class mfa_options(ctypes.Structure):
    """``mfa_options``: how to open a context."""

    _fields_ = [
        ("version", ctypes.c_uint32),
        ("store", _str),
        ("master_key", mfa_master_key),
        ("previous_keys", ctypes.POINTER(mfa_master_key)),
        ("previous_key_count", ctypes.c_size_t),
        ("clock", mfa_clock_fn),
        ("clock_context", ctypes.c_void_p),
        ("random", mfa_random_fn),
        ("random_context", ctypes.c_void_p),
        ("audit", mfa_audit_fn),
        ("audit_context", ctypes.c_void_p),
        ("sms_sender", mfa_sms_sender_fn),
        ("sms_sender_context", ctypes.c_void_p),
        ("sms_outbox", _str),
        ("app_verifier", mfa_app_verifier_fn),
        ("app_verifier_context", ctypes.c_void_p),
    ]


class mfa_user(ctypes.Structure):
    """``mfa_user``: a user as the host knows them after the first factor."""

    _fields_ = [
        ("version", ctypes.c_uint32),
        ("uid", _str),
        ("tenant", _str),
        ("email", _str),
        ("email_verified", _i32),
        ("provider", _str),
        ("auth_time", _i64),
    ]


class mfa_factor_info(ctypes.Structure):
    """``mfa_factor_info``: one enrolled second factor."""

    _fields_ = [
        ("uid", _str),
        ("factor_id", _str),
        ("display_name", _str),
        ("enrollment_time", _i64),
        ("phone_number", _str),
    ]


class mfa_factor_list(ctypes.Structure):
    """``mfa_factor_list``: a list of factors in one allocation."""

    _fields_ = [("count", ctypes.c_size_t), ("items", ctypes.POINTER(mfa_factor_info))]


class mfa_totp_secret(ctypes.Structure):
    """``mfa_totp_secret``: a fresh TOTP secret waiting for enrollment."""

    _fields_ = [
        ("shared_secret_key", _str),
        ("algorithm", _i32),
        ("digits", _i32),
        ("period", _i64),
        ("deadline", _i64),
        ("session_info", _str),
    ]


class mfa_resolver(ctypes.Structure):
    """``mfa_resolver``: the answer to a first-factor sign-in that needs a second factor."""

    _fields_ = [
        ("session", _str),
        ("uid", _str),
        ("tenant", _str),
        ("hint_count", ctypes.c_size_t),
        ("hints", ctypes.POINTER(mfa_factor_info)),
    ]


class mfa_sign_in_result(ctypes.Structure):
    """``mfa_sign_in_result``: a finished sign-in."""

    _fields_ = [
        ("uid", _str),
        ("tenant", _str),
        ("factor_id", _str),
        ("enrollment_id", _str),
        ("time", _i64),
    ]


#: Every struct mirrored here, by its C name.
STRUCTS = {
    cls.__name__: cls
    for cls in (
        mfa_totp_params,
        mfa_key_uri,
        mfa_ctx,
        mfa_audit_event,
        mfa_master_key,
        mfa_options,
        mfa_user,
        mfa_factor_info,
        mfa_factor_list,
        mfa_totp_secret,
        mfa_resolver,
        mfa_sign_in_result,
    )
}
