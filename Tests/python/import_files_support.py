"""Helpers of the importer tests on operators' files (test_admin_import_files.py,
test_mfactl_import_files.py): base32 text, and a pam_oath login through liboath
itself (Debian's liboath0, installed with oathtool), which rewrites the users
file's line with the code it accepted and its local time, as pam_oath does."""

import base64
import ctypes
import ctypes.util
import os
import time

import pytest


def b32(raw):
    return base64.b32encode(raw).decode().rstrip("=")


def liboath():
    lib = ctypes.CDLL(ctypes.util.find_library("oath") or "liboath.so.0")
    lib.oath_init.restype = ctypes.c_int
    lib.oath_authenticate_usersfile.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t,
                                                ctypes.c_char_p, ctypes.POINTER(ctypes.c_long)]
    lib.oath_authenticate_usersfile.restype = ctypes.c_int
    assert lib.oath_init() == 0
    return lib


def pam_oath_login(users_file, user, code):
    """What pam_oath does on a login (window 5, no password check): 0 (OATH_OK) when the code is right,
    and the users file's line then holds the code and the local time."""
    last = ctypes.c_long(0)
    return liboath().oath_authenticate_usersfile(str(users_file).encode(), user.encode(), code.encode(), 5, None,
                                                 ctypes.byref(last))


@pytest.fixture
def local_time_far_east():
    """liboath writes local time: 13 hours east of UTC here, far from the UTC libmfa reads it as."""
    saved = os.environ.get("TZ")
    os.environ["TZ"] = "XST-13"
    time.tzset()
    yield
    if saved is None:
        del os.environ["TZ"]
    else:
        os.environ["TZ"] = saved
    time.tzset()
