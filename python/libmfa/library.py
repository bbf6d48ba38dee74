"""Facts about the loaded shared library."""

from __future__ import annotations

from . import _lib


def version() -> int:
    """The loaded library's version as MAJOR * 10000 + MINOR * 100 + PATCH."""
    return _lib.lib.mfa_version()


def version_string() -> str:
    """The loaded library's version as "MAJOR.MINOR.PATCH"."""
    return _lib.lib.mfa_version_string().decode("ascii")


def library_path() -> str:
    """The path (or name) of the shared library that was loaded."""
    return _lib.path
