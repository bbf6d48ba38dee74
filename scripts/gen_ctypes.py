#!/usr/bin/env python3
"""Generates python/libmfa/_ffi.py, the ctypes layer of the Python binding,
from the C headers include/mfa_types.h and include/mfa.h.

The headers are written once; this script turns them into Python: every
integer and string ``#define`` and every ``mfa_status`` value as a module
constant, every struct as a ``ctypes.Structure`` (field types, order and
typed attributes), every callback typedef as a ``ctypes.CFUNCTYPE``, the
signature table of every function (``SIGNATURES``: name -> restype,
argtypes) and, for type checkers only, a ``Library`` protocol with one typed
method per function. The headers' comments (``/** ... */`` and ``///``)
become the docstrings and comments of what they describe.

The parser is small and strict: it knows the regular shape the two headers
have (doc comment, then one declaration), and stops with a message at
anything else, so a header change it does not understand cannot slip
through as a wrong binding.

    scripts/gen_ctypes.py            rewrite python/libmfa/_ffi.py
    scripts/gen_ctypes.py --check    exit 1 (with a diff) if _ffi.py is stale

Tests/python/test_ffi_generated.py runs the check in the test command.
"""

import difflib
import os
import re
import sys
import textwrap

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TYPES_HEADER = os.path.join(ROOT, "include", "mfa_types.h")
API_HEADER = os.path.join(ROOT, "include", "mfa.h")
OUTPUT = os.path.join(ROOT, "python", "libmfa", "_ffi.py")

WIDTH = 100

#: C scalar types and their ctypes names.
SCALARS = {
    "int": "ctypes.c_int",
    "int32_t": "ctypes.c_int32",
    "int64_t": "ctypes.c_int64",
    "uint32_t": "ctypes.c_uint32",
    "uint64_t": "ctypes.c_uint64",
    "uint8_t": "ctypes.c_uint8",
    "size_t": "ctypes.c_size_t",
    "bool": "ctypes.c_bool",
    "unsigned char": "ctypes.c_ubyte",
    "double": "ctypes.c_double",
}


class HeaderError(Exception):
    """Something in a header that this generator does not understand."""


# --- Reading the headers -----------------------------------------------------------------


def comment_text(raw):
    """The text of a C comment without its delimiters and leading stars, as lines."""
    body = raw[3:-2] if raw.startswith("/**") else raw[2:-2]
    lines = []
    for line in body.split("\n"):
        line = line.strip()
        if line.startswith("*"):
            line = line[1:]
            if line.startswith(" "):
                line = line[1:]
        lines.append(line.rstrip())
    while lines and not lines[0].strip():
        lines.pop(0)
    while lines and not lines[-1].strip():
        lines.pop()
    return lines


def words_of(spelling):
    """A C type spelling as words, with '*' as a word of its own."""
    return spelling.replace("*", " * ").split()


class CType:
    """A C type: its base name (``char``, ``mfa_user``), its number of pointers
    and whether the pointed-to value is const."""

    def __init__(self, spelling):
        words = [w for w in words_of(spelling) if w not in ("MFA_NULLABLE", "MFA_NONNULL")]
        self.const = "const" in words
        self.stars = words.count("*")
        base = [w for w in words if w not in ("const", "*")]
        self.base = " ".join(base)
        self.spelling = " ".join(w for w in words if w)
        if not self.base:
            raise HeaderError("no type in %r" % spelling)

    def c(self):
        """The type as C, e.g. ``char const *``."""
        return self.spelling.replace("* *", "**")

    def declare(self, name):
        """A declaration of ``name`` with this type, e.g. ``char const *name``."""
        spelling = self.c()
        return spelling + name if spelling.endswith("*") else spelling + " " + name


def split_declarator(text):
    """``const char *name`` -> (CType, "name"); the name is the last identifier."""
    text = " ".join(text.split())
    match = re.match(r"^(.*?)([A-Za-z_]\w*)$", text)
    if not match or not match.group(1).strip():
        raise HeaderError("cannot read the declaration %r" % text)
    return CType(match.group(1)), match.group(2)


class Define:
    def __init__(self, name, value, doc):
        self.name, self.value, self.doc = name, value, doc


class Enum:
    def __init__(self, name, members, doc):
        self.name, self.members, self.doc = name, members, doc  # members: [(name, value, doc)]


class Struct:
    def __init__(self, name, fields, doc):
        self.name, self.fields, self.doc = name, fields, doc  # fields: [(name, CType, doc)]


class Callback:
    def __init__(self, name, result, params, doc):
        self.name, self.result, self.params, self.doc = name, result, params, doc  # params: [(CType, name)]


class Section:
    def __init__(self, title):
        self.title = title


class Function:
    def __init__(self, name, result, params, doc, section):
        self.name, self.result, self.params, self.doc, self.section = name, result, params, doc, section


def parse_members(body, what):
    """The ``/** doc */ type name;`` members of a struct body."""
    members = []
    doc = []
    position = 0
    while True:
        match = re.compile(r"\s*").match(body, position)
        position = match.end()
        if position >= len(body):
            break
        if body.startswith("/*", position):
            end = body.index("*/", position) + 2
            doc = comment_text(body[position:end])
            position = end
            continue
        end = body.find(";", position)
        if end < 0:
            raise HeaderError("%s: a member without ';' at %r" % (what, body[position:position + 40]))
        declaration = body[position:end]
        if "(" in declaration or "[" in declaration or "," in declaration:
            raise HeaderError("%s: unsupported member %r" % (what, declaration.strip()))
        ctype, name = split_declarator(declaration)
        if not doc:
            raise HeaderError("%s.%s has no doc comment" % (what, name))
        members.append((name, ctype, doc))
        doc = []
        position = end + 1
    return members


def parse_enum_members(body, what):
    """The ``/** doc */ NAME = value,`` members of an enum body."""
    members = []
    doc = []
    for token in re.finditer(r"/\*.*?\*/|([A-Z_][A-Z0-9_]*)\s*=\s*(-?\d+)\s*,?|(\S)", body, re.S):
        if token.group(0).startswith("/*"):
            doc = comment_text(token.group(0))
        elif token.group(1):
            if not doc:
                raise HeaderError("%s.%s has no doc comment" % (what, token.group(1)))
            members.append((token.group(1), int(token.group(2)), doc))
            doc = []
        else:
            raise HeaderError("%s: unexpected %r" % (what, token.group(0)))
    return members


def parse_types(text):
    """(file comment lines, items) of mfa_types.h; items are Define, Enum,
    Struct, Callback and Section objects in the header's order."""
    items = []
    file_doc = None
    doc = []
    position = 0
    banner = re.compile(r"/\* -{10,} \*/\s*/\* (.*?)\s*\*/\s*/\* -{10,} \*/")
    while True:
        position = re.compile(r"\s*").match(text, position).end()
        if position >= len(text):
            break
        match = banner.match(text, position)
        if match:
            items.append(Section(match.group(1)))
            position = match.end()
            continue
        if text.startswith("/*", position):
            end = text.index("*/", position) + 2
            raw = text[position:end]
            if file_doc is None and not raw.startswith("/**"):
                file_doc = comment_text(raw)
            elif raw.startswith("/**"):
                doc = comment_text(raw)
            elif not raw.startswith("/* MFA_TYPES_H"):
                raise HeaderError("a plain comment where a doc comment was expected: %r" % raw[:60])
            position = end
            continue
        if text.startswith("#", position):
            end = position
            while True:  # a directive continues past lines ending with a backslash
                newline = text.find("\n", end)
                newline = len(text) if newline < 0 else newline
                if not text[end:newline].rstrip().endswith("\\"):
                    break
                end = newline + 1
            line = text[position:newline].replace("\\\n", " ")
            position = newline
            define = re.match(r"#define\s+(MFA_\w+)\s+(.+)$", line.strip())
            if define:
                if not doc:
                    raise HeaderError("%s has no doc comment" % define.group(1))
                items.append(Define(define.group(1), " ".join(define.group(2).split()), doc))
            elif not re.match(r"#(ifndef|endif|include|define MFA_TYPES_H\s*$)", line.strip()):
                raise HeaderError("unsupported directive %r" % line.strip())
            doc = []
            continue
        if text.startswith("typedef", position):
            end = statement_end(text, position)
            statement = text[position:end]
            position = end + 1
            items.append(parse_typedef(statement, doc))
            doc = []
            continue
        raise HeaderError("unexpected text in mfa_types.h: %r" % text[position:position + 60])
    return file_doc or [], items


def statement_end(text, position):
    """The index of the ';' that ends the statement at ``position`` (outside braces and comments)."""
    depth = 0
    index = position
    while index < len(text):
        if text.startswith("/*", index):
            index = text.index("*/", index) + 2
            continue
        char = text[index]
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
        elif char == ";" and depth == 0:
            return index
        index += 1
    raise HeaderError("a statement without its ';'")


def parse_typedef(statement, doc):
    """A typedef of an enum, a struct or a function pointer."""
    aggregate = re.match(r"typedef\s+(enum|struct)\s+(\w+)\s*\{(.*)\}\s*(\w+)\s*$", statement, re.S)
    if aggregate:
        kind, tag, body, name = aggregate.groups()
        if tag != name:
            raise HeaderError("typedef %s %s names it %s" % (kind, tag, name))
        if not doc:
            raise HeaderError("%s has no doc comment" % name)
        if kind == "enum":
            return Enum(name, parse_enum_members(body, name), doc)
        return Struct(name, parse_members(body, name), doc)
    pointer = re.match(r"typedef\s+(.+?)\(\s*\*\s*(\w+)\s*\)\s*\((.*)\)\s*$", statement, re.S)
    if pointer:
        result, name, params = pointer.groups()
        if not doc:
            raise HeaderError("%s has no doc comment" % name)
        return Callback(name, CType(result), parameters(params, name), doc)
    raise HeaderError("unsupported typedef %r" % " ".join(statement.split())[:80])


def parameters(text, what):
    """A parameter list as [(CType, name)]; ``void`` is the empty list."""
    text = " ".join(text.split())
    if text == "void":
        return []
    out = []
    for part in text.split(","):
        ctype, name = split_declarator(part)
        out.append((ctype, name))
    if not out:
        raise HeaderError("%s: no parameters" % what)
    return out


def parse_api(text):
    """The functions of mfa.h in order, each with its /// doc and its section title."""
    functions = []
    section = None
    doc = []
    lines = text.split("\n")
    index = 0
    in_block = False
    while index < len(lines):
        line = lines[index].strip()
        index += 1
        title = re.match(r"^/\* (\S.*?)\s*\*/$", line)
        if title and not re.match(r"^-+$", title.group(1)) and not in_block:
            section = title.group(1)
            continue
        if line.startswith("/*") and "*/" not in line:
            in_block = True
            continue
        if in_block:
            in_block = "*/" not in line
            continue
        if line.startswith("///"):
            doc.append(line[3:][1:] if line[3:].startswith(" ") else line[3:])
            continue
        match = re.match(r"^(.+?)\b(mfa_\w+)\((.*)\)(\s+MFA_\w+)*;$", line)
        if match:
            if not doc:
                raise HeaderError("%s has no /// doc" % match.group(2))
            result = CType(match.group(1))
            functions.append(Function(match.group(2), result, parameters(match.group(3), match.group(2)), doc,
                                      section))
            doc = []
            continue
        if doc:
            raise HeaderError("a /// doc not followed by a declaration: %r" % line)
    if not functions:
        raise HeaderError("no function in mfa.h")
    return functions


# --- Writing Python ----------------------------------------------------------------------


class Writer:
    """Maps C types to ctypes expressions, knowing the structs and callbacks seen so far."""

    def __init__(self):
        self.structs = set()
        self.callbacks = set()

    def field(self, ctype, where):
        """The ctypes type of a struct field or a callback parameter."""
        base, stars = ctype.base, ctype.stars
        if stars == 0:
            if base in SCALARS:
                return SCALARS[base]
            if base in self.structs or base in self.callbacks:
                return base
        if base == "char" and stars == 1:
            return "ctypes.c_char_p"
        if base == "char" and stars == 2:
            return "ctypes.POINTER(ctypes.c_char_p)"
        if base == "void" and stars == 1:
            return "ctypes.c_void_p"
        if stars == 1 and (base in SCALARS or base in self.structs):
            inner = SCALARS.get(base, base)
            return "ctypes.POINTER(%s)" % inner
        if stars == 2 and base in SCALARS:
            return "ctypes.POINTER(ctypes.POINTER(%s))" % SCALARS[base]
        raise HeaderError("%s: unsupported type %r" % (where, ctype.c()))

    def result(self, ctype, where):
        """The ctypes restype of a function or callback (None for void)."""
        if ctype.base == "void" and ctype.stars == 0:
            return "None"
        if ctype.base == "char" and ctype.stars == 1:
            return "ctypes.c_char_p"
        if ctype.stars == 0 and ctype.base in SCALARS:
            return SCALARS[ctype.base]
        raise HeaderError("%s: unsupported result type %r" % (where, ctype.c()))

    def argument(self, ctype, where):
        """The ctypes argtype of a function parameter, by the binding's conventions:
        ``char``/``uint8_t`` pointers are ``c_char_p`` (bytes pass without a copy,
        buffers from create_string_buffer too), the ``**`` outputs libmfa
        allocates are ``POINTER(c_void_p)`` (the address survives for mfa_free);
        a callback is its ``CFUNCTYPE``."""
        base, stars = ctype.base, ctype.stars
        if base in ("char", "uint8_t") and stars == 1:
            return "ctypes.c_char_p"
        if base in ("char", "uint8_t") and stars == 2:
            return "ctypes.POINTER(ctypes.c_void_p)"
        if base == "void" and stars == 1:
            return "ctypes.c_void_p"
        if stars == 0 and base in SCALARS:
            return SCALARS[base]
        if stars == 0 and base in self.callbacks:
            return base  # a CFUNCTYPE object, or None for NULL
        if base in SCALARS or base in self.structs:
            inner = SCALARS.get(base, base)
            for _ in range(stars):
                inner = "ctypes.POINTER(%s)" % inner
            if stars:
                return inner
        raise HeaderError("%s: unsupported parameter type %r" % (where, ctype.c()))

    def python_field(self, ctype):
        """The Python type of a struct field as read, when it is simple (else None)."""
        if ctype.stars == 0 and ctype.base in SCALARS:
            return {"bool": "bool", "double": "float"}.get(ctype.base, "int")
        if ctype.base == "char" and ctype.stars == 1:
            return "Optional[bytes]"
        return None

    def python_argument(self, ctype):
        """The Python type of a function parameter for the Library protocol."""
        if ctype.stars == 0 and ctype.base in SCALARS:
            return "int"
        if ctype.base in ("char", "uint8_t") and ctype.stars == 1:
            return "_InBytes" if ctype.const else "_OutBuffer"
        return "Any"

    def python_result(self, ctype):
        """The Python type of a function's result for the Library protocol."""
        if ctype.base == "void" and ctype.stars == 0:
            return "None"
        if ctype.base == "char" and ctype.stars == 1:
            return "bytes"
        return "int"


def comment(lines, prefix="#", indent="", width=WIDTH):
    """Doc lines as Python comments, re-wrapped paragraph by paragraph (indented lines kept)."""
    out = []
    for paragraph in paragraphs(lines):
        if paragraph and paragraph[0].startswith(" "):
            out += [(indent + prefix + " " + line).rstrip() for line in paragraph]
            continue
        text = " ".join(line.strip() for line in paragraph)
        if not text:
            out.append(indent + prefix)
            continue
        out += textwrap.wrap(text, width - len(indent) - len(prefix) - 1, initial_indent=indent + prefix + " ",
                             subsequent_indent=indent + prefix + " ", break_on_hyphens=False)
    return out


def paragraphs(lines):
    """Lines grouped into paragraphs: blank lines separate; indented lines
    (code, tables) are kept as they are, one group each run."""
    groups = []
    current = []
    preformatted = False
    for line in lines:
        if not line.strip():
            if current:
                groups.append(current)
            groups.append([])
            current = []
            preformatted = False
            continue
        indented = line.startswith(" ")
        if current and indented != preformatted:
            groups.append(current)
            current = []
        preformatted = indented
        current.append(line)
    if current:
        groups.append(current)
    while groups and not groups[-1]:
        groups.pop()
    return groups


def docstring(lines, indent):
    """Doc lines as a docstring body (re-wrapped like comments), quoted."""
    body = [line[2:] if line.startswith("# ") else line[1:] for line in comment(lines, "#", "", WIDTH - len(indent))]
    text = "\n".join((indent + line) if line else "" for line in body).strip()
    text = text.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    if "\n" in text:
        return '%s"""%s\n%s"""' % (indent, text, indent)
    return '%s"""%s"""' % (indent, text)


def python_value(value, known):
    """A #define's value as Python source, or None when it is not a constant
    (the static initializers ``{ ... }``)."""
    if value.startswith("{"):
        return None
    if re.match(r'^"[^"\\]*"$', value) or re.match(r"^-?\d+$", value):
        return value
    expression = value
    if expression.startswith("(") and expression.endswith(")"):
        expression = expression[1:-1].strip()
    for token in re.findall(r"[A-Za-z_]\w*|\S", expression):
        if re.match(r"[A-Za-z_]", token) and token not in known:
            raise HeaderError("the define %r uses %s, which is not defined before it" % (value, token))
        if not re.match(r"[A-Za-z_]\w*|\d|[-+*/()]", token):
            raise HeaderError("unsupported define value %r" % value)
    return expression


#: Short names for the signature table: (ctypes expression, short name, comment).
SHORT_NAMES = [
    ("ctypes.POINTER(ctypes.c_void_p)", "_out", "char ** / uint8_t **: allocated by libmfa, freed with mfa_free"),
    ("ctypes.c_char_p", "_str", "char const * / uint8_t const * (bytes, no copy) and char * buffers"),
    ("ctypes.c_void_p", "_void_p", "void *"),
    ("ctypes.c_int32", "_i32", "int32_t"),
    ("ctypes.c_int64", "_i64", "int64_t"),
    ("ctypes.c_uint32", "_u32", "uint32_t"),
    ("ctypes.c_uint64", "_u64", "uint64_t"),
    ("ctypes.c_size_t", "_size", "size_t"),
    ("ctypes.POINTER", "_P", "T *"),
]
SHORT_NAMES_SOURCE = ["%s = %s  # %s" % (name, expression, note) for expression, name, note in SHORT_NAMES]


def short(expression):
    """A ctypes expression with the short names of :data:`SHORT_NAMES`."""
    for long, name, _ in SHORT_NAMES:
        expression = expression.replace(long, name)
    return expression


PROLOGUE = '''\
"""libmfa's C interface for ctypes: constants, status codes, structs,
callback types and the signature of every function.

GENERATED by scripts/gen_ctypes.py from include/mfa_types.h and
include/mfa.h; do not edit: change the headers and run the script (a test
regenerates this file and fails on any difference). Names are the C names.

From mfa_types.h:

%s
"""

from __future__ import annotations

import ctypes

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing is not imported at run time
    from typing import Any, Dict, List, Optional, Protocol, Tuple, Union

    _InBytes = Union[bytes, ctypes.c_char_p, ctypes.Array[ctypes.c_char], None]
    _OutBuffer = Union[ctypes.Array[ctypes.c_char], ctypes.c_char_p, None]'''


def section_comment(title):
    """A section heading comment."""
    return ["", "", "# --- %s %s" % (title, "-" * max(3, WIDTH - 7 - len(title)))]


def generate_text(types_text, api_text):
    """The source of _ffi.py for the given header texts."""
    file_doc, items = parse_types(types_text)
    functions = parse_api(api_text)
    writer = Writer()
    out = [PROLOGUE % "\n".join(("    " + line).rstrip() for line in file_doc).replace("\\", "\\\\")]
    known = set()
    struct_names = []
    after_class = False
    for item in items:
        if isinstance(item, Define) and item.value.startswith("{"):
            continue  # a static initializer: Python has the init functions
        if after_class and not isinstance(item, (Section, Struct)):
            out.append("")  # two blank lines after a class
        after_class = isinstance(item, Struct)
        if isinstance(item, Section):
            out += section_comment(item.title)
        elif isinstance(item, Define):
            value = python_value(item.value, known)
            if value is None:
                continue
            out.append("")
            out += comment(item.doc, "#:")
            out.append("%s = %s" % (item.name, value))
            known.add(item.name)
        elif isinstance(item, Enum):
            out.append("")
            out += comment(["``%s``: %s" % (item.name, item.doc[0])] + item.doc[1:])
            for name, value, doc in item.members:
                out += comment(doc, "#:")
                out.append("%s = %d" % (name, value))
                known.add(name)
        elif isinstance(item, Struct):
            out += ["", ""]
            out.append("class %s(ctypes.Structure):" % item.name)
            out.append(docstring(item.doc, "    "))
            typed = [(name, writer.python_field(ctype)) for name, ctype, _ in item.fields]
            if any(kind for _, kind in typed):
                out.append("")
                out += ["    %s: %s" % (name, kind) for name, kind in typed if kind]
            out.append("")
            out.append("    _fields_ = [")
            for name, ctype, doc in item.fields:
                out += comment(doc, "#", "        ")
                out.append('        ("%s", %s),' % (name, writer.field(ctype, item.name + "." + name)))
            out.append("    ]")
            writer.structs.add(item.name)
            struct_names.append(item.name)
        elif isinstance(item, Callback):
            out.append("")
            signature = "%s (*%s)(%s)" % (item.result.c(), item.name,
                                         ", ".join(t.declare(n) for t, n in item.params) or "void")
            out += comment(item.doc + ["", "``" + signature + "``"], "#:")
            arguments = [writer.result(item.result, item.name)]
            arguments += [writer.field(t, item.name + "." + n) for t, n in item.params]
            out.append("%s = ctypes.CFUNCTYPE(%s)" % (item.name, ", ".join(arguments)))
            writer.callbacks.add(item.name)

    out += section_comment("Every struct, by its C name")
    out.append("")
    out.append("STRUCTS: Dict[str, type[ctypes.Structure]] = {")
    out += ['    "%s": %s,' % (name, name) for name in struct_names]
    out.append("}")

    out += section_comment("Functions (include/mfa.h)")
    out.append("")
    out += SHORT_NAMES_SOURCE
    out.append("")
    out += comment(["Every function of mfa.h, in the header's order: name -> (restype, argtypes)."], "#:")
    out.append("SIGNATURES: Dict[str, Tuple[Any, List[Any]]] = {")
    section = None
    for function in functions:
        if function.section != section:
            section = function.section
            out.append("    # %s" % section)
        prototype = "%s(%s)" % (function.result.declare(function.name),
                                   ", ".join(t.declare(n) for t, n in function.params) or "void")
        out += comment([prototype], "#", "    ")
        restype = short(writer.result(function.result, function.name))
        argtypes = [short(writer.argument(t, function.name + "(" + n + ")")) for t, n in function.params]
        line = '    "%s": (%s, [%s]),' % (function.name, restype, ", ".join(argtypes))
        if len(line) > WIDTH:
            out.append('    "%s": (' % function.name)
            out.append("        %s," % restype)
            out.append("        [")
            out += ["            %s," % argtype for argtype in argtypes]
            out.append("        ],")
            out.append("    ),")
        else:
            out.append(line)
    out.append("}")

    out += section_comment("The functions as typed methods, for type checkers only")
    out.append("")
    out.append("if TYPE_CHECKING:")
    out.append("")
    out.append("    class Library(Protocol):")
    out.append('        """The loaded library: every function of mfa.h with its documentation."""')
    for function in functions:
        out.append("")
        params = ["self"] + ["%s: %s" % (n, writer.python_argument(t)) for t, n in function.params]
        head = "        def %s(%s) -> %s:" % (function.name, ", ".join(params), writer.python_result(function.result))
        if len(head) > WIDTH + 20:
            out.append("        def %s(" % function.name)
            out += ["            %s," % p for p in params]
            out.append("        ) -> %s:" % writer.python_result(function.result))
        else:
            out.append(head)
        out.append(docstring(function.doc, "            "))
        out.append("            ...")
    return "\n".join(out).rstrip() + "\n"


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def generate():
    """The source of _ffi.py from the headers in the repository."""
    return generate_text(read(TYPES_HEADER), read(API_HEADER))


def main():
    try:
        text = generate()
    except HeaderError as error:
        sys.exit("gen_ctypes: %s" % error)
    relative = os.path.relpath(OUTPUT, ROOT)
    if "--check" in sys.argv[1:]:
        current = read(OUTPUT) if os.path.exists(OUTPUT) else ""
        if current != text:
            sys.stdout.writelines(difflib.unified_diff(current.splitlines(True), text.splitlines(True),
                                                       relative, "generated"))
            sys.exit("%s is stale: run scripts/gen_ctypes.py" % relative)
        print("%s is up to date" % relative)
        return
    with open(OUTPUT, "w", encoding="utf-8") as f:
        f.write(text)
    print("wrote", relative)


if __name__ == "__main__":
    main()
