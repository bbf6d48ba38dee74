"""Loading the library: lookup order, version, and the signature table."""

import ctypes
import os
import re
import shutil
import subprocess
import sys

import pytest

import libmfa
from libmfa import _ffi, _lib
from libmfa._ffi import STRUCTS

from shared import REPO, TYPES_HEADER, header_defines

PACKAGE_DIR = REPO / "python" / "libmfa"


def run_python(code, env, cwd):
    """Run ``code`` in a fresh interpreter; return (returncode, stdout, stderr)."""
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, cwd=str(cwd), capture_output=True, text=True, timeout=60
    )
    return done.returncode, done.stdout, done.stderr


def clean_env(**extra):
    """The current environment without LIBMFA_LIBRARY or PYTHONPATH, plus ``extra``."""
    env = {k: v for k, v in os.environ.items() if k not in ("LIBMFA_LIBRARY", "PYTHONPATH")}
    env.update(extra)
    return env


def test_version_matches_header():
    defines = header_defines()
    expected = defines["VERSION_MAJOR"] * 10000 + defines["VERSION_MINOR"] * 100 + defines["VERSION_PATCH"]
    header_string = re.search(r'#define MFA_VERSION_STRING "([^"]+)"', TYPES_HEADER.read_text()).group(1)
    assert libmfa.version() == expected
    assert libmfa.version_string() == header_string
    assert libmfa.__version__ == header_string


def test_loaded_the_library_named_by_the_environment():
    assert libmfa.library_path() == os.environ["LIBMFA_LIBRARY"]


def test_bad_environment_path_is_an_import_error_naming_it(tmp_path):
    missing = str(tmp_path / "nowhere" / "libmfa.so")
    code, _, err = run_python("import libmfa", clean_env(LIBMFA_LIBRARY=missing, PYTHONPATH=str(REPO / "python")), tmp_path)
    assert code != 0
    assert "ImportError" in err
    assert missing in err
    assert "LIBMFA_LIBRARY" in err


def test_library_next_to_the_package_is_found(tmp_path):
    package = tmp_path / "libmfa"
    shutil.copytree(PACKAGE_DIR, package, ignore=shutil.ignore_patterns("__pycache__", "*.so*"))
    shutil.copy(os.environ["LIBMFA_LIBRARY"], package / "libmfa.so")
    code, out, err = run_python(
        "import libmfa; print(libmfa.library_path()); print(libmfa.TOTP(b'12345678901234567890', digits=8).at(59))",
        clean_env(PYTHONPATH=str(tmp_path)),
        tmp_path,
    )
    assert code == 0, err
    assert out.split() == [str(package / "libmfa.so"), "94287082"]


def test_nothing_found_lists_every_place_tried(tmp_path):
    package = tmp_path / "libmfa"
    shutil.copytree(PACKAGE_DIR, package, ignore=shutil.ignore_patterns("__pycache__", "*.so*"))
    script = "import ctypes.util\nctypes.util.find_library = lambda name: None\nimport libmfa\n"
    code, _, err = run_python(script, clean_env(PYTHONPATH=str(tmp_path)), tmp_path)
    assert code != 0
    assert "ImportError" in err
    assert str(package / "libmfa.so") in err
    assert str(package / "libmfa.so.0") in err
    assert 'find_library("mfa")' in err
    assert "LIBMFA_LIBRARY" in err


def header_declarations():
    """{name: (return type, [parameter types])} for every function in include/mfa.h.

    Types are C spellings with the nullability macros and parameter names
    removed, e.g. ``"uint8_t * *"`` or ``"char const *"``.
    """
    text = (REPO / "include" / "mfa.h").read_text()
    text = re.sub(r"\bMFA_(NULLABLE|NONNULL)\b", "", text)
    found = {}
    for result, name, params in re.findall(r"^([A-Za-z][^(\n]*?)\b(mfa_\w+)\(([^)]*)\)", text, re.MULTILINE):
        types = []
        for param in params.split(","):
            words = param.replace("*", " * ").split()
            if words == ["void"] or not words:
                continue
            if words[-1] != "*":
                words = words[:-1]  # the parameter's name
            types.append(" ".join(words))
        found[name] = (" ".join(result.replace("*", " * ").split()), types)
    return found


SCALARS = {
    "int32_t": ctypes.c_int32,
    "int64_t": ctypes.c_int64,
    "uint32_t": ctypes.c_uint32,
    "uint64_t": ctypes.c_uint64,
    "size_t": ctypes.c_size_t,
    "bool": ctypes.c_bool,
}


def ctypes_for(spelling):
    """The ctypes type the binding's conventions give a C type (None for void)."""
    words = [w for w in spelling.split() if w != "const"]
    base, stars = words[0], words.count("*")
    if base in ("char", "uint8_t"):
        return {1: ctypes.c_char_p, 2: ctypes.POINTER(ctypes.c_void_p)}[stars]
    if base == "void":
        return {0: None, 1: ctypes.c_void_p}[stars]
    if base.endswith("_fn") and stars == 0:  # a callback typedef: its CFUNCTYPE in _ffi
        return getattr(_ffi, base)
    target = SCALARS[base] if base in SCALARS else STRUCTS[base]
    for _ in range(stars):
        target = ctypes.POINTER(target)
    return target


def test_signature_table_covers_exactly_the_header():
    declared = header_declarations()
    assert len(declared) >= 17
    assert set(_lib.SIGNATURES) == set(declared)


@pytest.mark.parametrize("name", sorted(header_declarations()))
def test_signature_types_match_the_header(name):
    result, params = header_declarations()[name]
    assert name in _lib.SIGNATURES, "%s is in include/mfa.h but not in libmfa/_lib.py SIGNATURES" % name
    restype, argtypes = _lib.SIGNATURES[name]
    assert restype is ctypes_for(result), result
    assert len(argtypes) == len(params)
    for position, (spelling, actual) in enumerate(zip(params, argtypes)):
        assert actual is ctypes_for(spelling), "argument %d: %s" % (position, spelling)
    if name not in _lib.missing:
        function = getattr(_lib.lib, name)
        assert function.argtypes == argtypes and function.restype is restype


def test_only_optional_functions_may_be_missing():
    assert _lib.REQUIRED <= set(_lib.SIGNATURES)
    assert set(_lib.missing) <= set(_lib.SIGNATURES) - _lib.REQUIRED


def test_every_header_struct_is_mirrored():
    text = TYPES_HEADER.read_text()
    assert set(re.findall(r"typedef struct (mfa_\w+) \{", text)) == set(STRUCTS)


def test_struct_layouts_match_the_c_compiler(tmp_path):
    lines = ["#include <stdio.h>", "#include <stddef.h>", '#include "mfa.h"', "int main(void) {"]
    for name, cls in STRUCTS.items():
        lines.append('    printf("%s %%zu\\n", sizeof(%s));' % (name, name))
        for field, _ in cls._fields_:
            lines.append(
                '    printf("%s.%s %%zu %%zu\\n", offsetof(%s, %s), sizeof(((%s *)0)->%s));'
                % (name, field, name, field, name, field)
            )
    lines += ["    return 0;", "}"]
    source = tmp_path / "layout.c"
    source.write_text("\n".join(lines) + "\n")
    compiler = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    assert compiler, "a C compiler is needed to check the struct layouts"
    subprocess.run(
        [compiler, "-std=c99", "-I", str(REPO / "include"), str(source), "-o", str(tmp_path / "layout")],
        check=True,
        capture_output=True,
    )
    output = subprocess.run([str(tmp_path / "layout")], check=True, capture_output=True, text=True).stdout
    measured = dict(line.split(" ", 1) for line in output.splitlines())
    for name, cls in STRUCTS.items():
        assert int(measured[name]) == ctypes.sizeof(cls), name
        for field, _ in cls._fields_:
            descriptor = getattr(cls, field)
            assert measured[name + "." + field] == "%d %d" % (descriptor.offset, descriptor.size), name + "." + field


def test_public_names():
    assert sorted(set(libmfa.__all__)) == sorted(libmfa.__all__)
    for name in libmfa.__all__:
        assert hasattr(libmfa, name), name
    for name in dir(libmfa.constants):
        if name.isupper():
            assert name in libmfa.__all__ and getattr(libmfa, name) == getattr(libmfa.constants, name)
    for name in ("HOTP", "TOTP", "KeyURI", "MFAError", "build_uri", "parse_uri", "random_secret",
                 "base32_encode", "base32_decode", "version", "version_string", "check", "Status"):
        assert name in libmfa.__all__
        assert getattr(libmfa, name).__doc__


def test_import_loads_no_heavy_standard_modules(tmp_path):
    """`import libmfa` stays cheap (bench/import_time.sh measures it): the modules that
    cost the most at import are loaded only when a call needs them."""
    heavy = ("dataclasses", "inspect", "typing", "logging", "json", "datetime", "threading", "re", "contextlib")
    code = ("import sys; sys.path.insert(0, %r); import libmfa; "
            "print(' '.join(name for name in %r if name in sys.modules))" % (str(REPO / "python"), heavy))
    done = subprocess.run([sys.executable, "-S", "-c", code], env=clean_env(LIBMFA_LIBRARY=os.environ["LIBMFA_LIBRARY"]),
                          cwd=str(tmp_path), capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == []


def test_the_package_is_typed():
    assert (PACKAGE_DIR / "py.typed").exists()


def test_names_from_before_the_engine_package_still_import():
    from libmfa.models import PhoneAuthCredential, TOTPSecret
    from libmfa.phone import PhoneAuthProvider, read_outbox

    assert (TOTPSecret, PhoneAuthCredential) == (libmfa.TOTPSecret, libmfa.PhoneAuthCredential)
    assert (PhoneAuthProvider, read_outbox) == (libmfa.PhoneAuthProvider, libmfa.read_outbox)
    with pytest.raises(AttributeError):
        libmfa.models.NoSuchName  # noqa: B018
