"""The ctypes layer (python/libmfa/_ffi.py) is generated from the C headers by
scripts/gen_ctypes.py: regenerating it must give the committed file, and the
generator must refuse what it does not understand instead of guessing."""

import importlib.util
import sys

import pytest

from libmfa import _ffi

from shared import REPO

SCRIPT = REPO / "scripts" / "gen_ctypes.py"


@pytest.fixture(scope="module")
def gen():
    """scripts/gen_ctypes.py as a module."""
    spec = importlib.util.spec_from_file_location("gen_ctypes", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules["gen_ctypes"] = module
    spec.loader.exec_module(module)
    return module


def test_ffi_module_is_what_the_headers_generate(gen):
    committed = (REPO / "python" / "libmfa" / "_ffi.py").read_text(encoding="utf-8")
    assert gen.generate() == committed, "python/libmfa/_ffi.py is stale: run scripts/gen_ctypes.py"


def test_header_docs_become_docstrings_and_comments():
    assert "One enrolled second factor, of any kind" in _ffi.mfa_factor_info.__doc__
    assert "kind                         enroll (mfa_enroll)" in _ffi.mfa_assertion.__doc__
    source = (REPO / "python" / "libmfa" / "_ffi.py").read_text(encoding="utf-8")
    assert "#: Factor kind: a set of single-use recovery codes" in source
    assert "# For a recovery-code set, how many codes are left; -1 for other kinds." in source
    assert "Revokes every credential and libmfa token issued to a user so far" in source  # a /// doc


def test_every_function_has_a_typed_method_for_type_checkers():
    source = (REPO / "python" / "libmfa" / "_ffi.py").read_text(encoding="utf-8")
    for name in _ffi.SIGNATURES:
        assert "        def %s(" % name in source, name


TYPES = """/*
 * the file comment
 */
/** A constant. */
#define MFA_ONE 1
/** A struct. */
typedef struct mfa_thing {
    /** A field. */
    %s
} mfa_thing;
"""
API = """/* -- */
/* Things */
/* -- */

/// Does a thing.
int32_t mfa_thing_do(mfa_thing * MFA_NULLABLE thing) MFA_NOEXCEPT;
"""


def test_generator_reads_a_small_header(gen):
    text = gen.generate_text(TYPES % "int64_t count;", API)
    namespace = {}
    exec(compile(text, "<generated>", "exec"), namespace)
    assert namespace["MFA_ONE"] == 1
    assert [name for name, _ in namespace["mfa_thing"]._fields_] == ["count"]
    restype, argtypes = namespace["SIGNATURES"]["mfa_thing_do"]
    assert argtypes == [namespace["_P"](namespace["mfa_thing"])]


@pytest.mark.parametrize(
    "member,message",
    [
        ("float ratio;", "unsupported type"),
        ("int32_t values[4];", "unsupported member"),
        ("int32_t (*fn)(void);", "unsupported member"),
        ("struct_unknown thing;", "unsupported type"),
    ],
)
def test_generator_refuses_what_it_does_not_know(gen, member, message):
    with pytest.raises(gen.HeaderError, match=message):
        gen.generate_text(TYPES % member, API)


def test_generator_refuses_undocumented_declarations(gen):
    with pytest.raises(gen.HeaderError, match="no doc comment"):
        gen.generate_text(TYPES.replace("/** A constant. */\n", "") % "int64_t count;", API)
    with pytest.raises(gen.HeaderError, match="no /// doc"):
        gen.generate_text(TYPES % "int64_t count;", API.replace("/// Does a thing.\n", ""))
