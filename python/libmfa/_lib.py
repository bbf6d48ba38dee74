"""Loading libmfa and declaring its C interface for ctypes.

The shared library is looked up, in this order:

1. the ``LIBMFA_LIBRARY`` environment variable, the full path of the library.
   When it is set it is the only candidate: a path that does not load is an
   error rather than a silent fallback to some other copy. It is read as C's
   ``secure_getenv`` reads it: a process running in secure-execution mode
   (setuid, setgid or with file capabilities) ignores it;
2. ``libmfa.so`` or ``libmfa.so.0`` next to this file (inside the package);
3. ``ctypes.util.find_library("mfa")``, the system's search path.

Every function of ``include/mfa.h`` is declared from :data:`SIGNATURES`, the
table that ``scripts/gen_ctypes.py`` generates from the header into
``libmfa._ffi``. Its pointer conventions:

* ``uint8_t const *`` and ``char const *`` inputs are ``c_char_p``: a ``bytes``
  object is passed without a copy, ``None`` becomes ``NULL``;
* writable ``char *`` / ``uint8_t *`` buffers are ``c_char_p`` too and receive
  a ``ctypes.create_string_buffer``;
* ``char **`` / ``uint8_t **`` outputs that libmfa allocates are
  ``POINTER(c_void_p)``, so that the address survives for ``mfa_free``.
"""

from __future__ import annotations

import ctypes
import os

from . import _ffi
from ._ffi import SIGNATURES

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Iterator, Optional, Tuple

    from ._ffi import Library

#: The ABI major version this binding speaks (the library's SONAME number).
ABI_MAJOR = _ffi.MFA_VERSION_MAJOR

#: The environment variable that names the library to load.
LIBRARY_ENV = "LIBMFA_LIBRARY"

_HERE = os.path.dirname(os.path.abspath(__file__))
_LOCAL_NAMES = ("libmfa.so", "libmfa.so.0")

#: The functions the stateless Python API calls: a library without one of them is refused.
#: (The engine's functions are checked when a :class:`libmfa.Context` is made.)
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


def secure_getenv(name: str) -> Optional[str]:
    """The environment variable ``name`` as glibc's ``secure_getenv`` reads it.

    None if it is unset or empty, and always None in a secure-execution
    process (setuid, setgid, file capabilities), whose caller chose the
    environment. Without glibc's function, a process whose real and
    effective user or group differ is taken for one.
    """
    try:
        function = ctypes.CDLL(None).secure_getenv
    except (OSError, AttributeError):
        if os.getuid() != os.geteuid() or os.getgid() != os.getegid():
            return None
        return os.environ.get(name) or None
    function.restype = ctypes.c_char_p
    function.argtypes = [ctypes.c_char_p]
    value = function(os.fsencode(name))
    return os.fsdecode(value) if value else None


def _candidates() -> Iterator[Tuple[str, Optional[str]]]:
    """The paths (or names) to try, in order, as (description, target) pairs.

    A generator: the system search (``ctypes.util``, which runs ``ldconfig``)
    is imported and run only when the package holds no library, so that
    importing an installed wheel does not pay for it.
    """
    override = secure_getenv(LIBRARY_ENV)
    if override:
        yield LIBRARY_ENV + "=" + override, override
        return
    for path in (os.path.join(_HERE, name) for name in _LOCAL_NAMES):
        yield path, path
    import ctypes.util

    system = ctypes.util.find_library("mfa")
    yield 'find_library("mfa") -> ' + repr(system), system


def _load() -> Tuple[Any, str]:
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


def _declare(cdll: object, where: str) -> Tuple[str, ...]:
    """Apply :data:`SIGNATURES` to ``cdll``; return the names the library lacks.

    A missing function of :data:`REQUIRED` is an ImportError; any other
    missing one (a library older than the header) is only reported.
    """
    absent = []
    for name, (restype, argtypes) in SIGNATURES.items():
        try:
            function = getattr(cdll, name)
        except AttributeError:
            if name in REQUIRED:
                raise ImportError("libmfa: %s has no function %s" % (where, name)) from None
            absent.append(name)
            continue
        function.restype = restype
        function.argtypes = argtypes
    return tuple(absent)


lib: Library
lib, path = _load()
#: Functions of the header that the loaded library does not export (normally empty).
missing = _declare(lib, path)

_loaded_version = lib.mfa_version()
if _loaded_version // 10000 != ABI_MAJOR:
    raise ImportError(
        "libmfa: %s is version %s, this binding needs %d.x"
        % (path, lib.mfa_version_string().decode("ascii", "replace"), ABI_MAJOR)
    )


def require(names: Tuple[str, ...], what: str) -> None:
    """RuntimeError unless the loaded library exports every function in ``names``."""
    absent = [name for name in names if name in missing]
    if absent:
        raise RuntimeError("libmfa: the loaded library lacks the %s functions %s" % (what, ", ".join(absent)))


#: Status codes as plain ints, for the hot paths.
OK = _ffi.MFA_OK
ERR_INVALID_VERIFICATION_CODE = _ffi.MFA_ERR_INVALID_VERIFICATION_CODE
