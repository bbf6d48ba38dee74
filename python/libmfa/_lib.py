"""Loading libmfa and declaring its C interface for ctypes.

The shared library is looked up, in this order:

1. the ``LIBMFA_LIBRARY`` environment variable, the full path of the library.
   When it is set it is the only candidate: a path that does not load is an
   error rather than a silent fallback to some other copy;
2. ``libmfa.so`` or ``libmfa.so.0`` next to this file (inside the package);
3. ``ctypes.util.find_library("mfa")``, the system's search path.

Every function of ``include/mfa.h`` is declared once, in :data:`SIGNATURES`.
Pointer conventions used in that table:

* ``uint8_t const *`` and ``char const *`` inputs are ``c_char_p``: a ``bytes``
  object is passed without a copy, ``None`` becomes ``NULL``;
* writable ``char *`` / ``uint8_t *`` buffers are ``c_char_p`` too and receive
  a ``ctypes.create_string_buffer``;
* ``char **`` / ``uint8_t **`` outputs that libmfa allocates are
  ``POINTER(c_void_p)``, so that the address survives for ``mfa_free``.
"""

import ctypes
import os

from . import _types, constants

#: The ABI major version this binding speaks (the library's SONAME number).
ABI_MAJOR = 0

#: The environment variable that names the library to load.
LIBRARY_ENV = "LIBMFA_LIBRARY"

_HERE = os.path.dirname(os.path.abspath(__file__))
_LOCAL_NAMES = ("libmfa.so", "libmfa.so.0")


_status = ctypes.c_int32
_in = ctypes.c_char_p  # uint8_t const * / char const *
_buf = ctypes.c_char_p  # char * / uint8_t * written by libmfa
_out_alloc = ctypes.POINTER(ctypes.c_void_p)  # char ** / uint8_t ** allocated by libmfa
_err = ctypes.POINTER(ctypes.c_void_p)  # char **err, freed with mfa_free
_size = ctypes.c_size_t
_i32 = ctypes.c_int32
_u32 = ctypes.c_uint32
_i64 = ctypes.c_int64
_u64 = ctypes.c_uint64
_ctx = ctypes.POINTER(_types.mfa_ctx)
_params = ctypes.POINTER(_types.mfa_totp_params)
_uri = ctypes.POINTER(_types.mfa_key_uri)
_user = ctypes.POINTER(_types.mfa_user)
_factor = ctypes.POINTER(_types.mfa_factor_info)
_factor_list = ctypes.POINTER(_types.mfa_factor_list)
_options = ctypes.POINTER(_types.mfa_options)
_resolver = ctypes.POINTER(_types.mfa_resolver)
_result = ctypes.POINTER(_types.mfa_sign_in_result)
_totp_secret = ctypes.POINTER(_types.mfa_totp_secret)
_P = ctypes.POINTER

#: name -> (restype, argtypes) for every function in include/mfa.h.
SIGNATURES = {
    "mfa_base32_decode": (_status, [_out_alloc, _P(_size), _in]),
    "mfa_base32_encode": (_status, [_out_alloc, _in, _size, _i32]),
    "mfa_close": (None, [_ctx]),
    "mfa_config_get_json": (_status, [_ctx, _out_alloc, _in, _err]),
    "mfa_config_set_json": (_status, [_ctx, _in, _in, _err]),
    "mfa_errstr": (ctypes.c_char_p, [_i32]),
    "mfa_factor_info_free": (None, [_factor]),
    "mfa_factor_list_free": (None, [_factor_list]),
    "mfa_factors_list": (_status, [_ctx, _P(_factor_list), _user, _err]),
    "mfa_free": (None, [ctypes.c_void_p]),
    "mfa_hotp_generate": (_status, [_buf, _size, _in, _size, _u64, _i32, _i32]),
    "mfa_hotp_verify": (_status, [_P(_u64), _in, _size, _u64, _i32, _i32, _i32, _in]),
    "mfa_key_uri_build": (_status, [_out_alloc, _uri, _err]),
    "mfa_key_uri_free": (None, [_uri]),
    "mfa_key_uri_init": (_status, [_uri, _u32]),
    "mfa_key_uri_parse": (_status, [_P(_uri), _in, _err]),
    "mfa_open": (_status, [_P(_ctx), _options, _err]),
    "mfa_options_init": (_status, [_options, _u32]),
    "mfa_purge_expired": (_status, [_ctx, _err]),
    "mfa_phone_enroll": (_status, [_ctx, _P(_factor), _user, _in, _in, _in, _err]),
    "mfa_phone_start_enrollment": (_status, [_ctx, _out_alloc, _in, _in, _in, _err]),
    "mfa_phone_start_sign_in": (_status, [_ctx, _out_alloc, _in, _in, _in, _in, _err]),
    "mfa_qr_encode": (_status, [_out_alloc, _P(_size), _in, _i32]),
    "mfa_random_secret": (_status, [_buf, _size]),
    "mfa_resolve_phone": (_status, [_ctx, _P(_result), _in, _in, _in, _in, _err]),
    "mfa_resolve_totp": (_status, [_ctx, _P(_result), _in, _in, _in, _in, _err]),
    "mfa_resolver_free": (None, [_resolver]),
    "mfa_resolver_load": (_status, [_ctx, _P(_resolver), _in, _in, _err]),
    "mfa_rotate_keys": (_status, [_ctx, _P(_size), _err]),
    "mfa_session_new": (_status, [_ctx, _out_alloc, _user, _err]),
    "mfa_sign_in": (_status, [_ctx, _P(_resolver), _user, _err]),
    "mfa_sign_in_result_free": (None, [_result]),
    "mfa_status_name": (ctypes.c_char_p, [_i32]),
    "mfa_step_up_check": (_status, [_ctx, _P(ctypes.c_bool), _in, _in, _i64]),
    "mfa_token_check": (_status, [_ctx, _in, _in, _i64]),
    "mfa_totp_enroll": (_status, [_ctx, _P(_factor), _user, _in, _in, _in, _err]),
    "mfa_totp_generate": (_status, [_buf, _size, _in, _size, _params, _i64]),
    "mfa_totp_generate_secret": (_status, [_ctx, _P(_totp_secret), _in, _err]),
    "mfa_totp_import": (_status, [_ctx, _P(_factor), _user, _in, _size, _params, _in, _err]),
    "mfa_totp_import_uri": (_status, [_ctx, _P(_factor), _user, _in, _in, _err]),
    "mfa_totp_params_init": (_status, [_params, _u32]),
    "mfa_totp_secret_free": (None, [_totp_secret]),
    "mfa_totp_secret_uri": (_status, [_out_alloc, _totp_secret, _in, _in, _err]),
    "mfa_totp_verify": (_status, [_P(_i64), _in, _size, _params, _i64, _i32, _in]),
    "mfa_unenroll": (_status, [_ctx, _user, _in, _err]),
    "mfa_user_init": (_status, [_user, _u32]),
    "mfa_version": (_i32, []),
    "mfa_version_string": (ctypes.c_char_p, []),
}


def _candidates():
    """The paths (or names) to try, in order, as (description, target) pairs.

    A generator: the system search (``ctypes.util``, which runs ``ldconfig``)
    is imported and run only when the package holds no library, so that
    importing an installed wheel does not pay for it.
    """
    override = os.environ.get(LIBRARY_ENV)
    if override:
        yield LIBRARY_ENV + "=" + override, override
        return
    for path in (os.path.join(_HERE, name) for name in _LOCAL_NAMES):
        yield path, path
    import ctypes.util

    system = ctypes.util.find_library("mfa")
    yield 'find_library("mfa") -> ' + repr(system), system


def _load():
    """Load the first candidate that exists and return (CDLL, path)."""
    tried = []
    for description, target in _candidates():
        if target is None:
            tried.append(description)
            continue
        if os.sep in target and not os.path.exists(target):
            tried.append(description + " (no such file)")
            continue
        try:
            return ctypes.CDLL(target), target
        except OSError as error:
            tried.append(description + " (" + str(error) + ")")
    raise ImportError(
        "libmfa: cannot load the shared library; tried:\n  "
        + "\n  ".join(tried)
        + "\nSet " + LIBRARY_ENV + " to the full path of libmfa.so."
    )


#: The functions the Python API calls: a library without one of them is refused.
REQUIRED = frozenset(
    [
        "mfa_base32_decode",
        "mfa_base32_encode",
        "mfa_errstr",
        "mfa_free",
        "mfa_hotp_generate",
        "mfa_hotp_verify",
        "mfa_key_uri_build",
        "mfa_key_uri_free",
        "mfa_key_uri_init",
        "mfa_key_uri_parse",
        "mfa_random_secret",
        "mfa_status_name",
        "mfa_totp_generate",
        "mfa_totp_params_init",
        "mfa_totp_verify",
        "mfa_version",
        "mfa_version_string",
    ]
)


def _declare(cdll, where):
    """Apply :data:`SIGNATURES` to ``cdll``; return the names the library lacks.

    A missing function of :data:`REQUIRED` is an ImportError; any other
    missing one (a library older than the header) is only reported.
    """
    missing = []
    for name, (restype, argtypes) in SIGNATURES.items():
        try:
            function = getattr(cdll, name)
        except AttributeError:
            if name in REQUIRED:
                raise ImportError("libmfa: %s has no function %s" % (where, name)) from None
            missing.append(name)
            continue
        function.restype = restype
        function.argtypes = argtypes
    return tuple(missing)


lib, path = _load()
#: Functions of the header that the loaded library does not export (normally empty).
missing = _declare(lib, path)

_loaded_version = lib.mfa_version()
if _loaded_version // 10000 != ABI_MAJOR:
    raise ImportError(
        "libmfa: %s is version %s, this binding needs %d.x"
        % (path, lib.mfa_version_string().decode("ascii", "replace"), ABI_MAJOR)
    )

#: Status codes as plain ints, for the hot paths.
OK = int(constants.Status.OK)
ERR_INVALID_VERIFICATION_CODE = int(constants.Status.INVALID_VERIFICATION_CODE)
