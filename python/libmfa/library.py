"""Facts about the loaded shared library."""

from . import _lib


def version():
    """The loaded library's version as MAJOR * 10000 + MINOR * 100 + PATCH."""
    return _lib.lib.mfa_version()


def version_string():
    """The loaded library's version as "MAJOR.MINOR.PATCH"."""
    return _lib.lib.mfa_version_string().decode("ascii")


def library_path():
    """The path (or name) of the shared library that was loaded."""
    return _lib.path
