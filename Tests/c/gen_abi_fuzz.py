#!/usr/bin/env python3
"""Generates the driver of the all-exports test (abi_all_exports) from the headers.

It reads every function of include/mfa.h and every struct, callback typedef
and version macro of include/mfa_types.h, and writes a C file with, for each
function, the kind of each parameter, a baseline call (arguments that work)
and a thunk that makes the call; and for each struct a function passes in,
its flattened fields, a baseline filling and a setter for one field. The
hand-written Tests/c/abi_fuzz_support.h does the rest (values, store, forked
children). A new export is covered with no edit. A parameter or field of a
C type this script has no values for is still called with what is safe (NULL
for a pointer, the integer extremes for a number), with a note on stderr.

Baselines come from the init functions (mfa_*_init) and from the tables
below, by parameter or field name: a name they do not know gets a plain
value ("x", 0), which still tries every extreme.

    gen_abi_fuzz.py include/mfa.h include/mfa_types.h Tests/c/abi_fuzz_support.h OUTPUT.c
"""
import re
import sys

# Baseline strings by parameter name, then by (function, parameter).
STRING_DEFAULTS = {
    "tenant": "NULL",
    "uid": '"alice"',
    "session": "env->session",
    "session_info": "env->session_info",
    "pending_credential": "env->cred",
    "enrollment_id": "env->eid_totp",
    "verification_id": "env->vid_enroll",
    "phone_number": '"+15105551234"',
    "app_credential": '"good"',
    "code": '"123456"',
    "otp": "env->otp",
    "display_name": '"Phone"',
    "json": r'"{\"state\":\"ENABLED\",\"providers\":{\"totp\":\"ENABLED\",\"phone\":\"ENABLED\"},'
            r'\"testPhoneNumbers\":{\"+15555550100\":\"123456\"}}"',
    "text": "env->uri",
    "uri": "env->uri",
    "account": '"alice@example.com"',
    "issuer": '"ACME"',
    "actor": '"ops:fuzz"',
    "factor_id": '"totp"',
    "cursor": "NULL",
}
FUNCTION_STRING_DEFAULTS = {
    ("mfa_base32_decode", "text"): '"GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"',
    ("mfa_phone_start_sign_in", "enrollment_id"): "env->eid_phone",
    ("mfa_resolve_phone", "verification_id"): "env->vid_sign_in",
    ("mfa_resolve_phone", "code"): "env->code_sign_in",
    ("mfa_phone_enroll", "code"): "env->code_enroll",
    ("mfa_totp_enroll", "otp"): "env->otp_enroll",
    ("mfa_admin_rename", "display_name"): '"Renamed"',
}
# Baseline byte buffers by (function, parameter) (else env->bytes, whose first 32 bytes
# are the master key), each with the length of the parameter that follows it.
FUNCTION_BYTES_DEFAULTS = {
    ("mfa_import", "text"): ("env->import_text", "env->import_text_len"),
    ("mfa_import_google_authenticator", "text"): ("env->ga_text", "env->ga_text_len"),
}
# Baseline numbers by parameter name.
NUMBER_DEFAULTS = {
    "digits": "6",
    "algorithm": "MFA_ALG_SHA1",
    "window": "1",
    "look_ahead": "1",
    "format": "MFA_QR_SVG",
    "flags": "0",
    "status": "MFA_ERR_INVALID_SESSION",
    "counter": "0",
    "unix_time": "env->now",
    "issued_at": "env->now",
    "within_seconds": "600",
    "limit": "100",
    "batch_size": "100",
}
# Baseline numbers by (function, parameter), before NUMBER_DEFAULTS.
FUNCTION_NUMBER_DEFAULTS = {
    ("mfa_import", "format"): "MFA_IMPORT_OTPAUTH",
}
# Baseline fields by "struct.path" ("[]" for the elements of an array field).
FIELD_DEFAULTS = {
    "mfa_options.store": "env->store",
    "mfa_options.master_key.id": '"k1"',
    "mfa_options.master_key.key": "env->bytes",
    "mfa_options.previous_key_count": "1",
    "mfa_options.previous_keys[].id": '"k0"',
    "mfa_options.previous_keys[].key": "FUZZ_OLD_KEY",
    "mfa_options.clock": "fuzz_clock",
    "mfa_options.audit": "fuzz_audit",
    "mfa_options.sms_sender": "fuzz_sms_capture",
    "mfa_options.app_verifier": "fuzz_verifier_accept",
    "mfa_user.uid": '"alice"',
    "mfa_user.email": '"alice@example.com"',
    "mfa_user.email_verified": "1",
    "mfa_user.auth_time": "env->now - 10",
    "mfa_key_uri.account": '"alice@example.com"',
    "mfa_key_uri.issuer": '"ACME"',
    "mfa_key_uri.secret": "env->bytes",
    "mfa_key_uri.secret_len": "20",
    "mfa_totp_secret.shared_secret_key": "env->secret_base32",
    "mfa_totp_secret.algorithm": "MFA_ALG_SHA1",
    "mfa_totp_secret.digits": "6",
    "mfa_totp_secret.period": "30",
    "mfa_totp_secret.deadline": "env->now + 600",
    "mfa_totp_secret.session_info": "env->session_info",
    "mfa_import_options.actor": '"ops:fuzz"',
    "mfa_import_options.report": "fuzz_import_report",
    "mfa_import_options.progress": "fuzz_progress_go_on",
}
# Strings a function documents it does not read, as (function, parameter, field or
# None): no INVALID_ARGUMENT rule for them.
UNREAD_STRINGS = {
    ("mfa_totp_secret_uri", "secret", "session_info"),
}
# Elements given for an array field (pointer + count).
ARRAY_ELEMENTS = 1024

SCALARS = {
    "uint32_t": "K_U32",
    "int32_t": "K_I32",
    "int64_t": "K_I64",
    "uint64_t": "K_U64",
    "size_t": "K_SIZE",
    "bool": "K_BOOL",
}
MEMBER = {
    "K_VERSION": "u32", "K_U32": "u32", "K_I32": "i32", "K_I64": "i64", "K_U64": "u64", "K_SIZE": "size",
    "K_BOOL": "b", "K_STR": "str", "K_BYTES": "bytes", "K_PTR": "ptr", "K_ARRAY": "ptr", "K_STRUCT_IN": "ptr",
    "K_NULL": "ptr",
}
BYTE_TYPES = ("uint8_t", "void", "unsigned char")


class CType:
    """A C type as base name, const-ness of the pointee (or value) and pointer depth."""

    def __init__(self, words):
        self.depth = words.count("*")
        self.const = "const" in words
        names = [w for w in words if w not in ("*", "const")]
        if not names:
            raise ValueError("no type in %r" % words)
        self.base = " ".join(names)

    def spelling(self):
        text = ("const " if self.const else "") + self.base
        return text + (" " + "*" * self.depth if self.depth else "")


def split_declaration(text):
    """(type words, name) of 'char const * MFA_NULLABLE text' or 'const char *issuer'."""
    text = re.sub(r"\bMFA_(NULLABLE|NONNULL)\b", " ", text)
    words = text.replace("*", " * ").split()
    if len(words) < 2 or words[-1] == "*" or not re.match(r"^[A-Za-z_]\w*$", words[-1]):
        raise ValueError("cannot read the declaration %r" % text)
    return CType(words[:-1]), words[-1]


def note(text):
    print("gen_abi_fuzz: note: " + text, file=sys.stderr)


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", " ", text)


def read_types(path):
    text = open(path, encoding="utf-8").read()
    versions = {name: int(value) for name, value in re.findall(r"^#define (MFA_\w+_VERSION) (\d+)", text, re.M)}
    body = strip_comments(text)
    callbacks = set(re.findall(r"typedef[^;]*\(\s*\*\s*(\w+)\s*\)\s*\(", body))
    structs = {}
    for name, fields, alias in re.findall(r"typedef struct (\w+) \{(.*?)\} (\w+);", body, re.S):
        parsed = []
        for declaration in fields.split(";"):
            if declaration.strip():
                ctype, field = split_declaration(declaration)
                parsed.append((field, ctype))
        structs[alias] = parsed
    return structs, callbacks, versions


def declared_names(text):
    """What Tests/c/check_exports.sh counts: the functions declared in mfa.h."""
    names = set()
    for line in text.splitlines():
        if re.match(r"^[a-z]", line) and re.search(r"\bmfa_[a-z0-9_]+\(", line):
            names.add(re.sub(r"^.*\b(mfa_[a-z0-9_]+)\(.*$", r"\1", line))
    return names


def read_functions(path):
    lines = open(path, encoding="utf-8").read().splitlines()
    functions = []
    docs = []
    for line in lines:
        if line.startswith("///"):
            docs.append(line)
            continue
        match = re.match(r"^([a-z][^(]*?)\b(mfa_[a-z0-9_]+)\((.*)\)\s*(MFA_NOEXCEPT)?.*;\s*$", line)
        if match:
            result, name, params = match.group(1), match.group(2), match.group(3)
            parsed = []
            if params.strip() != "void":
                for param in params.split(","):
                    parsed.append(split_declaration(param))
            functions.append({
                "name": name,
                "result": re.sub(r"\bMFA_(NULLABLE|NONNULL)\b", "", result).split(),
                "nonnull": "MFA_NONNULL" in result,
                "params": parsed,
                "docs": "\n".join(docs),
            })
        docs = []
    return functions


class Generator:
    def __init__(self, functions, structs, callbacks, versions, support):
        self.functions = functions
        self.structs = structs
        self.callbacks = callbacks
        self.versions = versions
        self.support = support
        self.needed = []  # structs functions pass in, in the order first needed
        self.out = []

    def version_macro(self, struct):
        macro = "MFA_" + struct[len("mfa_"):].upper() + "_VERSION"
        return macro if macro in self.versions else None

    def fns(self, typedef):
        return "&fuzz_fns_" + typedef if ("FUZZ_FNS(%s," % typedef) in self.support else "&fuzz_fns_none"

    def init_function(self, struct):
        for f in self.functions:
            if f["name"] == struct + "_init" and f["params"]:
                first = f["params"][0][0]
                if first.base == struct and first.depth == 1 and not first.const:
                    return f
        return None

    def need(self, struct):
        if struct not in self.needed:
            self.needed.append(struct)

    # -- struct fields ------------------------------------------------------

    def array_count(self, struct, field):
        names = [f for f, _ in self.structs[struct]]
        stem = field[:-1] if field.endswith("s") else field
        for candidate in (stem + "_count", field + "_count"):
            if candidate in names:
                return candidate
        return None

    def field_kind(self, struct, path, name, ctype):
        """The kind of one leaf field (and its extra: version macro or callbacks)."""
        if ctype.depth == 0:
            if ctype.base in self.callbacks:
                return "K_FN", self.fns(ctype.base)
            if name == "version" and ctype.base == "uint32_t":
                return "K_VERSION", self.version_macro(struct)
            if ctype.base in SCALARS:
                return SCALARS[ctype.base], None
            note("%s.%s: %s is tried with the int64_t values" % (struct, path, ctype.spelling()))
            return "K_I64", None
        if ctype.depth == 1:
            if ctype.base == "char" and ctype.const:
                return "K_STR", None
            if ctype.base in BYTE_TYPES and ctype.const:
                return "K_BYTES", None
            if ctype.base == "void":
                return "K_PTR", None
        note("%s.%s: %s is tried with NULL only" % (struct, path, ctype.spelling()))
        return "K_NULL", None

    def flatten(self, top, struct, prefix, access, default_prefix):
        """[(path, C lvalue, kind, extra, default key)] of the leaves of `struct`, reached by `access`."""
        leaves = []
        for name, ctype in self.structs[struct]:
            path = prefix + name
            key = default_prefix + name
            lvalue = access + name
            if ctype.depth == 0 and ctype.base in self.structs:
                leaves += self.flatten(top, ctype.base, path + ".", lvalue + ".", key + ".")
            elif ctype.depth == 1 and ctype.base in self.structs:
                # An array (with a count field) or a single struct: ARRAY_ELEMENTS filled elements.
                leaves.append((path, lvalue, "K_ARRAY", ctype.base, key))
                element = "((%s *)%s)[0]." % (ctype.base, lvalue)
                leaves += self.flatten(top, ctype.base, path + "[0].", element, key + "[].")
            else:
                kind, extra = self.field_kind(struct, path, name, ctype)
                leaves.append((path, lvalue, kind, extra, key))
        return leaves

    def emit_struct(self, struct):
        leaves = self.flatten(struct, struct, "", "s->", struct + ".")
        out = self.out
        out.append("/* %s */" % struct)
        out.append("static void fill_%s(void *pointer, fuzz_env *env) {" % struct)
        out.append("    %s *s = pointer;" % struct)
        out.append("    (void)env;")
        out.append("    memset(s, 0, sizeof *s);")
        init = self.init_function(struct)
        if init:
            args = "s" + (", %s" % self.version_macro(struct) if len(init["params"]) == 2 else "")
            out.append('    if (%s(%s) != MFA_OK) fuzz_die("%s failed");' % (init["name"], args, init["name"]))
        self.emit_defaults(struct, struct, "s->", struct + ".", "    ")
        out.append("}")
        out.append("")
        out.append("static void set_%s(void *pointer, size_t field, const fuzz_value *v) {" % struct)
        out.append("    %s *s = pointer;" % struct)
        out.append("    switch (field) {")
        for index, (path, lvalue, kind, extra, _) in enumerate(leaves):
            if kind == "K_FN":
                typedef = self.leaf_type(struct, path).base
                value = "(%s)v->fn" % typedef
            elif kind == "K_NULL":
                value = "(%s)v->ptr" % self.leaf_type(struct, path).spelling()
            else:
                value = "v->" + MEMBER[kind]
            out.append("    case %d: %s = %s; break;" % (index, lvalue, value))
        out.append("    default: break;")
        out.append("    }")
        out.append("}")
        out.append("")
        out.append("static const fuzz_field fields_%s[] = {" % struct)
        for path, lvalue, kind, extra, _ in leaves:
            version = extra if kind == "K_VERSION" and extra else "0"
            fns = extra if kind == "K_FN" else "NULL"
            out.append('    {"%s", %s, %s, %s},' % (path, kind, version, fns))
        out.append("};")
        out.append("")
        out.append('static const fuzz_struct struct_%s = {"%s", sizeof(%s), %d, fields_%s, fill_%s, set_%s};'
                   % (struct, struct, struct, len(leaves), struct, struct, struct))
        out.append("")
        return leaves

    def leaf_type(self, struct, path):
        parts = path.replace("[0]", "").split(".")
        current = struct
        ctype = None
        for part in parts:
            ctype = dict(self.structs[current])[part]
            current = ctype.base
        return ctype

    def emit_defaults(self, struct, top, access, key_prefix, indent):
        for name, ctype in self.structs[struct]:
            key = key_prefix + name
            lvalue = access + name
            if ctype.depth == 0 and ctype.base in self.structs:
                self.emit_defaults(ctype.base, top, lvalue + ".", key + ".", indent)
            elif ctype.depth == 1 and ctype.base in self.structs:
                element = ctype.base
                self.out.append(indent + "{")
                self.out.append(indent + "    %s *items = fuzz_guarded(%d * sizeof(%s));"
                                % (element, ARRAY_ELEMENTS, element))
                self.out.append(indent + "    for (size_t i = 0; i < %d; i++) {" % ARRAY_ELEMENTS)
                self.emit_defaults(element, top, "items[i].", key + "[].", indent + "        ")
                self.out.append(indent + "    }")
                self.out.append(indent + "    %s = items;" % lvalue)
                self.out.append(indent + "}")
            elif key in FIELD_DEFAULTS:
                self.out.append(indent + "%s = %s;" % (lvalue, FIELD_DEFAULTS[key]))

    # -- functions ----------------------------------------------------------

    def param_kind(self, function, index, name, ctype, free):
        """(kind, C expression of the argument from the call's slot, baseline statement, extra)."""
        slot = "c->v[%d]" % index
        if ctype.depth == 0:
            if ctype.base in self.callbacks:
                return "K_FN", "(%s)%s.fn" % (ctype.base, slot), "%s.fn = NULL;" % slot, self.fns(ctype.base)
            if name == "version" and ctype.base == "uint32_t":
                previous = [p for p in function["params"][:index] if p[0].base in self.structs]
                macro = self.version_macro(previous[-1][0].base) if previous else None
                if macro:
                    return "K_VERSION", slot + ".u32", "%s.u32 = %s;" % (slot, macro), macro
            if ctype.base not in SCALARS:
                note("%s: parameter %s: %s is tried with the int64_t values"
                     % (function["name"], name, ctype.spelling()))
            kind = SCALARS.get(ctype.base, "K_I64")
            member = MEMBER[kind]
            value = FUNCTION_NUMBER_DEFAULTS.get((function["name"], name), NUMBER_DEFAULTS.get(name))
            if value is None and kind == "K_SIZE" and index > 0:
                before = self.kinds[index - 1]
                bytes_default = FUNCTION_BYTES_DEFAULTS.get((function["name"], function["params"][index - 1][1]))
                if before == "K_BYTES":
                    value = bytes_default[1] if bytes_default else "20"
                elif before == "K_OUTBUF":
                    value = "MFA_CODE_BUFFER_SIZE" if name.endswith("size") else "20"
            if value is None:
                value = "0" if kind != "K_BOOL" else "false"
            return kind, "%s.%s" % (slot, member), "%s.%s = %s;" % (slot, member, value), None
        else:
            cast = "(%s)" % ctype.spelling()
            if free:
                return "K_PTR", cast + slot + ".ptr", "%s.ptr = NULL;" % slot, None
            if ctype.depth >= 2:
                return "K_OUT", cast + slot + ".ptr", "%s.ptr = fuzz_guarded(FUZZ_OUT_BYTES);" % slot, None
            if ctype.base == "mfa_ctx" and not ctype.const:
                return "K_CTX", cast + slot + ".ptr", "%s.ptr = env->ctx;" % slot, None
            if ctype.base == "char" and ctype.const:
                value = FUNCTION_STRING_DEFAULTS.get((function["name"], name), STRING_DEFAULTS.get(name, '"x"'))
                return "K_STR", slot + ".str", "%s.str = %s;" % (slot, value), None
            if ctype.base in BYTE_TYPES + ("char",) and ctype.const:
                buffer = FUNCTION_BYTES_DEFAULTS.get((function["name"], name), ("env->bytes", None))[0]
                return "K_BYTES", slot + ".bytes", "%s.bytes = %s;" % (slot, buffer), None
            if ctype.base in BYTE_TYPES + ("char",):
                return "K_OUTBUF", cast + slot + ".ptr", "%s.ptr = env->outbuf;" % slot, None
            if ctype.base in self.structs and ctype.const:
                self.need(ctype.base)
                fill = "%s.ptr = fuzz_guarded(sizeof(%s)); fill_%s(%s.ptr, env);" % (
                    slot, ctype.base, ctype.base, slot)
                return "K_STRUCT_IN", cast + slot + ".ptr", fill, "&struct_" + ctype.base
            if ctype.base in self.structs:
                return "K_STRUCT_OUT", cast + slot + ".ptr", "%s.ptr = fuzz_guarded(sizeof(%s));" % (
                    slot, ctype.base), None
            if not ctype.const:
                # A number or anything else libmfa writes: zeroed storage.
                return "K_OUT", cast + slot + ".ptr", "%s.ptr = fuzz_guarded(FUZZ_OUT_BYTES);" % slot, None
            # An array of some other type that libmfa reads: zeroed memory.
            note("%s: parameter %s: %s is given zeroed memory or NULL" % (function["name"], name, ctype.spelling()))
            return "K_BYTES", cast + slot + ".bytes", "%s.bytes = env->zeros;" % slot, None

    def emit_function(self, function):
        name = function["name"]
        params = function["params"]
        if len(params) > 16:
            raise SystemExit("gen_abi_fuzz: %s has more than 16 parameters" % name)
        result = " ".join(function["result"])
        free = result == "void" and len(params) == 1 and params[0][0].depth == 1
        self.kinds = []
        entries = []
        baseline = []
        arguments = []
        for index, (ctype, pname) in enumerate(params):
            kind, argument, statement, extra = self.param_kind(function, index, pname, ctype, free)
            self.kinds.append(kind)
            arguments.append(argument)
            baseline.append("    " + statement)
            struct = extra if kind == "K_STRUCT_IN" else "NULL"
            version = extra if kind == "K_VERSION" else "0"
            fns = extra if kind == "K_FN" else "NULL"
            unread = 1 if (name, pname, None) in UNREAD_STRINGS else 0
            fields = " ".join(f for (fn, p, f) in sorted(UNREAD_STRINGS, key=str) if fn == name and p == pname and f)
            unread_fields = '" %s "' % fields if fields else "NULL"
            entries.append('{"%s", %s, %s, %s, %s, %d, %s}' % (pname, kind, struct, version, fns, unread,
                                                                 unread_fields))
        flags = []
        if result == "int32_t" and "MFA_OK" in function["docs"]:
            flags.append("F_STATUS")
        if free:
            flags.append("F_FREE")
        if "K_CTX" in self.kinds:
            flags.append("F_CTX")
        call = "%s(%s)" % (name, ", ".join(arguments))
        body = ["static int32_t call_%s(const fuzz_call *c) {" % name]
        if not params:
            body.append("    (void)c;")
        if result == "void":
            body += ["    %s;" % call, "    return 0;"]
        elif "F_STATUS" in flags:
            body.append("    return %s;" % call)
        elif function["nonnull"]:
            body += ["    const void *result = %s;" % call, "    return result ? 0 : FUZZ_RESULT_NULL;"]
        else:
            body += ["    %s result = %s;" % (result, call), "    (void)result;", "    return 0;"]
        body.append("}")
        self.functions_code.append("static void baseline_%s(fuzz_call *c, fuzz_env *env) {" % name)
        self.functions_code.append("    (void)c;")
        self.functions_code.append("    (void)env;")
        self.functions_code += baseline
        self.functions_code.append("}")
        self.functions_code += body
        self.functions_code.append("")
        self.table.append('    {"%s", %s, %d, {%s}, baseline_%s, call_%s},'
                          % (name, " | ".join(flags) or "0", len(params),
                             ", ".join(entries) or '{"", K_PTR, NULL, 0, NULL, 0, NULL}', name, name))

    def generate(self, declared):
        self.functions_code = []
        self.table = []
        self.need("mfa_options")
        for function in self.functions:
            self.emit_function(function)
        # Structs pass in, and what their fields need, before the functions.
        emitted = set()
        for struct in self.needed:
            if struct in emitted:
                continue
            emitted.add(struct)
            self.emit_struct(struct)
        head = [
            "/*",
            " * GENERATED by Tests/c/gen_abi_fuzz.py from include/mfa.h and include/mfa_types.h",
            " * at build time: do not edit. The test itself is in abi_fuzz_support.h.",
            " */",
            "#define _POSIX_C_SOURCE 200809L",
            "#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */",
            '#include "abi_fuzz_support.h"',
            "",
        ]
        tail = [
            "static const fuzz_func fuzz_function_table[] = {",
        ] + self.table + [
            "};",
            "",
            "static const fuzz_func *fuzz_functions(size_t *count) {",
            "    *count = sizeof fuzz_function_table / sizeof fuzz_function_table[0];",
            "    return fuzz_function_table;",
            "}",
            "",
            "static const fuzz_struct *fuzz_options_struct(void) {",
            "    return &struct_mfa_options;",
            "}",
            "",
            "static size_t fuzz_declared_count(void) {",
            "    return %d;" % declared,
            "}",
            "",
            "int main(int argc, char **argv) {",
            "    (void)fuzz_fns_none;",
        ] + [
            "    return fuzz_main(argc, argv);",
            "}",
        ]
        return "\n".join(head + self.out + self.functions_code + tail) + "\n"


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    header, types, support_path, output = sys.argv[1:]
    text = open(header, encoding="utf-8").read()
    functions = read_functions(header)
    declared = declared_names(text)
    names = {f["name"] for f in functions}
    if names != declared:
        sys.exit("gen_abi_fuzz: could not read the declarations of %s" % sorted(declared ^ names))
    structs, callbacks, versions = read_types(types)
    support = open(support_path, encoding="utf-8").read()
    generator = Generator(functions, structs, callbacks, versions, support)
    code = generator.generate(len(declared))
    with open(output, "w", encoding="utf-8") as f:
        f.write(code)


if __name__ == "__main__":
    main()
