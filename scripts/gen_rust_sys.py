#!/usr/bin/env python3
"""Generates the Rust binding's raw layer from the C headers include/mfa_types.h
and include/mfa.h, with the parser of scripts/gen_ctypes.py:

* bindings/rust/mfa-sys/src/lib.rs: every integer and string ``#define`` and
  every ``mfa_status`` value as a constant, every struct as a ``#[repr(C)]``
  struct, every callback typedef as an ``Option<unsafe extern "C" fn>``, and
  every function of mfa.h as an ``extern "C"`` declaration, each with the
  header's documentation;
* bindings/rust/mfa-sys/tests/layout.rs: a test that compiles a C program
  printing the size and alignment of every struct and the offset of every
  field, compares them with Rust's, and takes the address of every function
  (so that linking fails if the library lacks one);
* bindings/rust/mfa/src/generated.rs: the safe crate's enums that follow the
  header: ``Error`` (one variant per status name), ``FactorKind``
  (``MFA_FACTOR_*``) and ``AuditKind`` (``MFA_AUDIT_*``).

A header change that adds functions, structs, statuses or kinds needs only
this script run again; a shape the parser does not know stops it with a
message.

    scripts/gen_rust_sys.py            rewrite the three files
    scripts/gen_rust_sys.py --check    exit 1 (with a diff) if one is stale

bindings/rust/mfa-sys/tests/header.rs runs the check in ``cargo test``.
"""

import difflib
import importlib.util
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TYPES_HEADER = os.path.join(ROOT, "include", "mfa_types.h")
API_HEADER = os.path.join(ROOT, "include", "mfa.h")
SYS_LIB = os.path.join(ROOT, "bindings", "rust", "mfa-sys", "src", "lib.rs")
SYS_LAYOUT = os.path.join(ROOT, "bindings", "rust", "mfa-sys", "tests", "layout.rs")
SAFE_GENERATED = os.path.join(ROOT, "bindings", "rust", "mfa", "src", "generated.rs")


def _load_parser():
    """scripts/gen_ctypes.py as a module: its header parser is shared."""
    path = os.path.join(ROOT, "scripts", "gen_ctypes.py")
    spec = importlib.util.spec_from_file_location("gen_ctypes", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


P = _load_parser()
HeaderError = P.HeaderError

#: C scalar types and their Rust names.
SCALARS = {
    "int": "c_int",
    "int32_t": "i32",
    "int64_t": "i64",
    "uint32_t": "u32",
    "uint64_t": "u64",
    "uint8_t": "u8",
    "size_t": "usize",
    "bool": "bool",
    "unsigned char": "u8",
    "double": "f64",
    "char": "c_char",
    "void": "c_void",
}


#: Rust keywords a C name may be; such names are written raw (r#type).
KEYWORDS = {"as", "box", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern", "false", "fn",
            "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return", "self",
            "static", "struct", "super", "trait", "true", "type", "unsafe", "use", "where", "while", "async",
            "await", "try", "abstract", "become", "do", "final", "macro", "override", "priv", "typeof", "unsized",
            "virtual", "yield"}


def ident(name):
    """A C name as a Rust identifier."""
    return "r#" + name if name in KEYWORDS else name


def doc_lines(lines, prefix="///", indent=""):
    """Header doc lines as Rust doc comments (text kept as written)."""
    out = []
    for line in lines:
        out.append((indent + prefix + (" " + line if line else "")).rstrip())
    return out


class Types:
    """Maps C types to Rust, knowing the structs and callbacks seen so far."""

    def __init__(self):
        self.structs = set()
        self.callbacks = set()

    def rust(self, ctype, where):
        base = ctype.base
        if base in SCALARS:
            inner = SCALARS[base]
        elif base in self.structs:
            inner = base
        elif base in self.callbacks and ctype.stars == 0:
            return base
        else:
            raise HeaderError("%s: unsupported type %r" % (where, ctype.c()))
        if ctype.stars == 0 and base == "void":
            raise HeaderError("%s: a void value" % where)
        for _ in range(ctype.stars):
            inner = ("*const " if ctype.const else "*mut ") + inner
        return inner


def define_value(define, known):
    """(Rust type, value) of a #define, or None for a static initializer."""
    value = define.value
    if value.startswith("{"):
        return None
    if re.match(r'^"[^"\\]*"$', value):
        return "&str", value
    kind = "u32" if re.match(r"^MFA_\w+_VERSION$", define.name) else "i32"
    if re.match(r"^-?\d+$", value):
        return kind, value
    expression = value[1:-1].strip() if value.startswith("(") and value.endswith(")") else value
    for token in re.findall(r"[A-Za-z_]\w*|\S", expression):
        if re.match(r"[A-Za-z_]", token):
            if token not in known:
                raise HeaderError("the define %s uses %s, which is not defined before it" % (define.name, token))
            if known[token] != kind:
                raise HeaderError("the define %s mixes types" % define.name)
        elif not re.match(r"\d|[-+*/()]", token):
            raise HeaderError("unsupported define value %r" % value)
    return kind, expression


SYS_PROLOGUE = """\
//! The raw C interface of libmfa (`include/mfa.h` and `include/mfa_types.h`):
//! constants, status codes, structs, callback types and every function, as
//! the C header declares them. Use the safe crate `mfa` unless you need the
//! C calls themselves.
//!
//! GENERATED by scripts/gen_rust_sys.py from the headers; do not edit:
//! change the headers and run the script (a test regenerates this file and
//! fails on any difference, and another compares every struct's layout with
//! the C compiler's). Names are the C names.
//!
//! From mfa_types.h:
//!
%s

#![allow(non_camel_case_types)]
#![allow(clippy::all)]

pub use std::os::raw::{c_char, c_int, c_void};"""


def generate_sys(types_text, api_text):
    file_doc, items = P.parse_types(types_text)
    functions = P.parse_api(api_text)
    types = Types()
    out = [SYS_PROLOGUE % "\n".join(("//! " + line).rstrip() for line in file_doc)]
    known = {}
    for item in items:
        if isinstance(item, P.Section):
            out += ["", "// --- %s %s" % (item.title, "-" * max(3, 92 - len(item.title)))]
        elif isinstance(item, P.Define):
            value = define_value(item, known)
            if value is None:
                continue
            kind, expression = value
            out.append("")
            out += doc_lines(item.doc)
            out.append("pub const %s: %s = %s;" % (item.name, kind, expression))
            known[item.name] = kind
        elif isinstance(item, P.Enum):
            out.append("")
            out += doc_lines(item.doc)
            out.append("pub type %s = i32;" % item.name)
            for name, number, doc in item.members:
                out += doc_lines(doc)
                out.append("pub const %s: %s = %d;" % (name, item.name, number))
                known[name] = "i32"
        elif isinstance(item, P.Struct):
            out.append("")
            out += doc_lines(item.doc)
            out.append("#[repr(C)]")
            out.append("#[derive(Copy, Clone)]")
            out.append("pub struct %s {" % item.name)
            for name, ctype, doc in item.fields:
                out += doc_lines(doc, "///", "    ")
                out.append("    pub %s: %s," % (ident(name), types.rust(ctype, item.name + "." + name)))
            out.append("}")
            types.structs.add(item.name)
        elif isinstance(item, P.Callback):
            out.append("")
            signature = "%s (*%s)(%s)" % (item.result.c(), item.name,
                                         ", ".join(t.declare(n) for t, n in item.params) or "void")
            out += doc_lines(item.doc + ["", "`" + signature + "`"])
            params = ", ".join("%s: %s" % (ident(n), types.rust(t, item.name + "." + n)) for t, n in item.params)
            result = "" if (item.result.base == "void" and item.result.stars == 0) else \
                " -> " + types.rust(item.result, item.name)
            out.append("pub type %s = Option<unsafe extern \"C\" fn(%s)%s>;" % (item.name, params, result))
            types.callbacks.add(item.name)
    out += ["", "// --- Functions (include/mfa.h) %s" % ("-" * 63), ""]
    out.append('extern "C" {')
    section = None
    for function in functions:
        if function.section != section:
            section = function.section
            out += ["", "    // %s" % section]
        out.append("")
        out += doc_lines(function.doc, "///", "    ")
        params = ", ".join("%s: %s" % (ident(n), types.rust(t, function.name + "(" + n + ")")) for t, n in function.params)
        result = "" if (function.result.base == "void" and function.result.stars == 0) else \
            " -> " + types.rust(function.result, function.name)
        out.append("    pub fn %s(%s)%s;" % (function.name, params, result))
    out.append("}")
    return "\n".join(out).rstrip() + "\n", items, functions


LAYOUT_PROLOGUE = """\
//! Every struct of `mfa_sys` against the C compiler: size, alignment and the
//! offset of every field, from a C program built with `cc` against the
//! headers; and the address of every function, so that linking fails if the
//! library lacks one.
//!
//! GENERATED by scripts/gen_rust_sys.py from the headers; do not edit.

#![allow(clippy::all)]

use std::mem::{align_of, size_of, MaybeUninit};
use std::path::PathBuf;
use std::process::Command;

/// Offset of a field, without `offset_of!` (Rust 1.63).
macro_rules! offset {
    ($t:ty, $f:ident) => {{
        let value = MaybeUninit::<$t>::uninit();
        let base = value.as_ptr();
        #[allow(unused_unsafe)]
        let field = unsafe { std::ptr::addr_of!((*base).$f) };
        field as usize - base as usize
    }};
}

/// The C program: one line per struct ("struct NAME SIZE ALIGN") and per field ("field NAME.FIELD OFFSET SIZE").
const C_PROBE: &str = r#\""""


def generate_layout(items, functions):
    structs = [item for item in items if isinstance(item, P.Struct)]
    c = ["#include <stdio.h>", "#include <stddef.h>", "#include \"mfa.h\"", "#define ALIGN(t) offsetof(struct { char c; t x; }, x)",
         "int main(void) {"]
    for struct in structs:
        c.append('    printf("struct %s %%zu %%zu\\n", sizeof(%s), ALIGN(%s));' % (struct.name, struct.name, struct.name))
        for name, _, _ in struct.fields:
            c.append('    printf("field %s.%s %%zu %%zu\\n", offsetof(%s, %s), sizeof(((%s *)0)->%s));'
                     % (struct.name, name, struct.name, name, struct.name, name))
    c.append("    return 0;")
    c.append("}")
    out = [LAYOUT_PROLOGUE + "\n".join(c) + '\n"#;', ""]
    out.append("/// The same lines, from Rust.")
    out.append("fn rust_layout() -> Vec<String> {")
    out.append("    let mut lines = Vec::new();")
    for struct in structs:
        out.append("    {")
        out.append("        type T = mfa_sys::%s;" % struct.name)
        out.append('        lines.push(format!("struct %s {} {}", size_of::<T>(), align_of::<T>()));' % struct.name)
        for name, _, _ in struct.fields:
            out.append("        let value = MaybeUninit::<T>::uninit();")
            out.append("        #[allow(unused_unsafe)]")
            out.append("        let size = size_of_pointee(unsafe { std::ptr::addr_of!((*value.as_ptr()).%s) });" % ident(name))
            out.append('        lines.push(format!("field %s.%s {} {}", offset!(T, %s), size));'
                       % (struct.name, name, ident(name)))
        out.append("    }")
    out.append("    lines")
    out.append("}")
    out.append("")
    out.append("fn size_of_pointee<U>(_: *const U) -> usize {")
    out.append("    size_of::<U>()")
    out.append("}")
    out.append("")
    out.append("#[test]")
    out.append("fn every_struct_has_the_c_layout() {")
    out.append("    let manifest = PathBuf::from(env!(\"CARGO_MANIFEST_DIR\"));")
    out.append("    let include = manifest.join(\"../../../include\");")
    out.append("    let dir = PathBuf::from(env!(\"CARGO_TARGET_TMPDIR\"));")
    out.append("    let source = dir.join(\"mfa_layout_probe.c\");")
    out.append("    let program = dir.join(\"mfa_layout_probe\");")
    out.append("    std::fs::write(&source, C_PROBE).unwrap();")
    out.append("    let cc = std::env::var(\"CC\").unwrap_or_else(|_| \"cc\".to_string());")
    out.append("    let status = Command::new(&cc)")
    out.append("        .arg(\"-std=c99\")")
    out.append("        .arg(\"-I\")")
    out.append("        .arg(&include)")
    out.append("        .arg(&source)")
    out.append("        .arg(\"-o\")")
    out.append("        .arg(&program)")
    out.append("        .status()")
    out.append("        .expect(\"the C compiler (cc, or $CC) runs\");")
    out.append("    assert!(status.success(), \"the layout probe compiles\");")
    out.append("    let output = Command::new(&program).output().expect(\"the layout probe runs\");")
    out.append("    assert!(output.status.success());")
    out.append("    let c: Vec<String> = String::from_utf8(output.stdout).unwrap().lines().map(str::to_string).collect();")
    out.append("    let rust = rust_layout();")
    out.append("    assert!(c.len() > 50, \"the probe printed every struct\");")
    out.append("    for (c_line, rust_line) in c.iter().zip(rust.iter()) {")
    out.append("        assert_eq!(c_line, rust_line, \"C (left) and Rust (right) disagree\");")
    out.append("    }")
    out.append("    assert_eq!(c.len(), rust.len());")
    out.append("}")
    out.append("")
    out.append("#[test]")
    out.append("fn every_function_is_in_the_library() {")
    out.append("    let addresses: [usize; %d] = [" % len(functions))
    for function in functions:
        out.append("        mfa_sys::%s as *const () as usize," % function.name)
    out.append("    ];")
    out.append("    assert!(addresses.iter().all(|&address| address != 0));")
    out.append("}")
    return "\n".join(out).rstrip() + "\n"


SAFE_PROLOGUE = """\
// The enums of the safe binding that follow the C header: `Error` (one
// variant per status name), `FactorKind` and `AuditKind`.
//
// GENERATED by scripts/gen_rust_sys.py from include/mfa_types.h; do not edit:
// change the header and run the script (a test fails on any difference).
// The module `generated` of the crate; src/lib.rs re-exports its enums."""


def camel(name):
    """INVALID_ARGUMENT -> InvalidArgument."""
    return "".join(part[:1] + part[1:].lower() for part in name.split("_"))


def generate_safe(items):
    statuses = [item for item in items if isinstance(item, P.Enum) and item.name == "mfa_status"]
    if len(statuses) != 1:
        raise HeaderError("mfa_types.h has no mfa_status enum")
    errors = [(name[len("MFA_ERR_"):], number, doc) for name, number, doc in statuses[0].members
              if name.startswith("MFA_ERR_")]
    kinds = [(item.name[len("MFA_FACTOR_"):], item.value, item.doc) for item in items
             if isinstance(item, P.Define) and item.name.startswith("MFA_FACTOR_")]
    audits = [(item.name[len("MFA_AUDIT_"):], item.value, item.doc) for item in items
              if isinstance(item, P.Define) and item.name.startswith("MFA_AUDIT_")]
    out = [SAFE_PROLOGUE, ""]
    out.append("/// A failed libmfa call: one variant per libmfa status name, each with the")
    out.append("/// message libmfa gave (or its short description of the status).")
    out.append("///")
    out.append("/// `name()` is the stable status name (\"INVALID_SESSION\"), `status()` the")
    out.append("/// C status code, `message()` the message. A status this binding does not")
    out.append("/// know (a newer library) is `Unknown`.")
    out.append("#[derive(Clone, Debug, PartialEq, Eq)]")
    out.append("#[non_exhaustive]")
    out.append("pub enum Error {")
    for name, number, doc in errors:
        out += doc_lines(doc + ["", "Status `MFA_ERR_%s` (%d)." % (name, number)], "///", "    ")
        out.append("    %s(String)," % camel(name))
    out.append("    /// A status code this binding does not know, with its message.")
    out.append("    Unknown {")
    out.append("        /// The C status code.")
    out.append("        status: i32,")
    out.append("        /// The message.")
    out.append("        message: String,")
    out.append("    },")
    out.append("}")
    out.append("")
    out.append("impl Error {")
    out.append("    /// The error of a C status code (not `MFA_OK`) with its message.")
    out.append("    pub fn from_status(status: i32, message: String) -> Error {")
    out.append("        match status {")
    for name, number, _ in errors:
        out.append("            %d => Error::%s(message)," % (number, camel(name)))
    out.append("            _ => Error::Unknown { status, message },")
    out.append("        }")
    out.append("    }")
    out.append("")
    out.append("    /// The C status code (`MFA_ERR_*`, negative).")
    out.append("    pub fn status(&self) -> i32 {")
    out.append("        match self {")
    for name, number, _ in errors:
        out.append("            Error::%s(_) => %d," % (camel(name), number))
    out.append("            Error::Unknown { status, .. } => *status,")
    out.append("        }")
    out.append("    }")
    out.append("")
    out.append("    /// The stable status name: \"INVALID_ARGUMENT\", \"INVALID_SESSION\", ... (\"UNKNOWN\" for `Unknown`).")
    out.append("    pub fn name(&self) -> &'static str {")
    out.append("        match self {")
    for name, _, _ in errors:
        out.append("            Error::%s(_) => \"%s\"," % (camel(name), name))
    out.append("            Error::Unknown { .. } => \"UNKNOWN\",")
    out.append("        }")
    out.append("    }")
    out.append("")
    out.append("    /// The message: libmfa's detailed one, or its short description of the status.")
    out.append("    pub fn message(&self) -> &str {")
    out.append("        match self {")
    for name, _, _ in errors:
        out.append("            Error::%s(message) => message," % camel(name))
    out.append("            Error::Unknown { message, .. } => message,")
    out.append("        }")
    out.append("    }")
    out.append("}")
    for enum, members, what, c_prefix in (("FactorKind", kinds, "kind of second factor", "MFA_FACTOR_"),
                                          ("AuditKind", audits, "kind of audit event", "MFA_AUDIT_")):
        out.append("")
        out.append("/// A %s (`%s*`); `Other` holds a number this binding does not know." % (what, c_prefix))
        out.append("#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]")
        out.append("#[non_exhaustive]")
        out.append("pub enum %s {" % enum)
        for name, value, doc in members:
            out += doc_lines(doc + ["", "`%s%s` (%s)." % (c_prefix, name, value)], "///", "    ")
            out.append("    %s," % camel(name))
        out.append("    /// A number this binding does not know (a newer library).")
        out.append("    Other(i32),")
        out.append("}")
        out.append("")
        out.append("impl %s {" % enum)
        out.append("    /// The %s of a C number." % what)
        out.append("    pub fn from_raw(raw: i32) -> %s {" % enum)
        out.append("        match raw {")
        for name, value, _ in members:
            out.append("            %s => %s::%s," % (value, enum, camel(name)))
        out.append("            other => %s::Other(other)," % enum)
        out.append("        }")
        out.append("    }")
        out.append("")
        out.append("    /// The C number (`%s*`)." % c_prefix)
        out.append("    pub fn raw(self) -> i32 {")
        out.append("        match self {")
        for name, value, _ in members:
            out.append("            %s::%s => %s," % (enum, camel(name), value))
        out.append("            %s::Other(raw) => raw," % enum)
        out.append("        }")
        out.append("    }")
        out.append("}")
    return "\n".join(out).rstrip() + "\n"


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def generate():
    """{path: text} of the generated files, from the headers in the repository."""
    sys_text, items, functions = generate_sys(read(TYPES_HEADER), read(API_HEADER))
    return {
        SYS_LIB: sys_text,
        SYS_LAYOUT: generate_layout(items, functions),
        SAFE_GENERATED: generate_safe(items),
    }


def main():
    try:
        files = generate()
    except HeaderError as error:
        sys.exit("gen_rust_sys: %s" % error)
    stale = []
    for path, text in files.items():
        relative = os.path.relpath(path, ROOT)
        if "--check" in sys.argv[1:]:
            current = read(path) if os.path.exists(path) else ""
            if current != text:
                sys.stdout.writelines(difflib.unified_diff(current.splitlines(True), text.splitlines(True),
                                                           relative, "generated"))
                stale.append(relative)
            continue
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        print("wrote", relative)
    if stale:
        sys.exit("%s stale: run scripts/gen_rust_sys.py" % ", ".join(stale))
    if "--check" in sys.argv[1:]:
        print("the Rust binding's generated files are up to date")


if __name__ == "__main__":
    main()
