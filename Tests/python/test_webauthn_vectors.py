"""Test vectors no one here wrote: the registration and authentication
responses of real authenticators that py_webauthn's own test suite checks
(its source distribution from PyPI, fetched by scripts/setup.sh into
build/vectors/; nothing of it is committed here).

The suite's test files are read with ``ast``: each call to
``verify_registration_response`` / ``verify_authentication_response`` whose
arguments are plain literals (a credential JSON, a challenge, rp id,
origin, public key, sign count) is one vector, expected to pass unless the
call sits in an ``assertRaises`` block. libmfa's stateless verifier must
give the same verdict for every vector of the formats and algorithms it
supports (none, packed, fido-u2f, tpm, android-key, apple; ES256, EdDSA,
RS256, ES384, ES512, PS256), and refuse the others (android-safetynet,
post-quantum keys) as INVALID_ARGUMENT. The real devices' tpm (Windows
Hello on four TPMs), android-key (Pixels) and apple (an iPhone) statements
must verify byte for byte. Vectors that need a py_webauthn-only argument
(its own root certificates, optional user presence, a chosen algorithm
list) are left out and counted.
"""

import ast
import base64
import glob
import json
import os
import tarfile

import pytest

from shared import REPO

import libmfa

SDIST = "webauthn-3.0.1.tar.gz"
SUPPORTED_FORMATS = {"none", "packed", "fido-u2f", "tpm", "android-key", "apple"}
SUPPORTED_ALGORITHMS = (-7, -8, -257, -35, -36, -37)
SUPPORTED_ARGUMENTS = {"credential", "expected_challenge", "expected_origin", "expected_rp_id",
                       "require_user_verification", "credential_public_key", "credential_current_sign_count"}


def b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def sdist_tests():
    """The test files of py_webauthn's sdist, extracted once into build/vectors/."""
    archive = REPO / "build" / "vectors" / SDIST
    if not archive.exists():
        pytest.fail("%s is missing: scripts/setup.sh fetches it from PyPI" % archive)
    target = REPO / "build" / "vectors" / "webauthn"
    if not target.exists():
        with tarfile.open(archive) as tar:
            members = [m for m in tar.getmembers() if "/tests/" in m.name and m.name.endswith(".py")]
            tar.extractall(target, members=members, filter="data")
    return sorted(glob.glob(str(target / "*" / "tests" / "test_verify_*_response*.py")))


class Literals(ast.NodeVisitor):
    """The vectors of one test file."""

    def __init__(self):
        self.vectors = []

    def visit_FunctionDef(self, node):
        names = {}
        self._walk(node.body, names, raises=False, where=node.name)

    def _value(self, node, names):
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            return names.get(node.id, ValueError)
        if isinstance(node, ast.List):
            items = [self._value(item, names) for item in node.elts]
            return ValueError if ValueError in items else items
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "base64url_to_bytes"
                and len(node.args) == 1):
            text = self._value(node.args[0], names)
            return unb64(text) if isinstance(text, str) else ValueError
        return ValueError

    def _walk(self, body, names, raises, where):
        for statement in body:
            if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and \
                    isinstance(statement.targets[0], ast.Name):
                names[statement.targets[0].id] = self._value(statement.value, names)
            if isinstance(statement, ast.With):
                inner = raises or any(isinstance(item.context_expr, ast.Call)
                                      and getattr(item.context_expr.func, "attr", "").startswith("assertRaises")
                                      for item in statement.items)
                self._walk(statement.body, names, inner, where)
                continue
            for node in ast.walk(statement):
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in (
                        "verify_registration_response", "verify_authentication_response"):
                    arguments = {k.arg: self._value(k.value, names) for k in node.keywords}
                    self.vectors.append((where, node.func.id, arguments, raises))


def vectors():
    found = []
    for path in sdist_tests():
        tree = ast.parse(open(path, encoding="utf-8").read())
        visitor = Literals()
        visitor.visit(tree)
        for where, function, arguments, raises in visitor.vectors:
            found.append(("%s::%s" % (os.path.basename(path), where), function, arguments, raises))
    return found


def attestation_format(credential):
    from fido2 import cbor

    try:
        return cbor.decode(unb64(json.loads(credential)["response"]["attestationObject"]))["fmt"]
    except Exception:  # noqa: BLE001 - malformed on purpose
        return None


def key_algorithm(arguments):
    from fido2 import cbor

    try:
        return cbor.decode(arguments["credential_public_key"]).get(3)
    except Exception:  # noqa: BLE001 - not a COSE key
        return None


def urlsafe(credential):
    """The credential with its binary fields in base64url: py_webauthn's TPM vectors write them in standard
    base64 (``+`` and ``/``), which its decoder takes and a browser's toJSON() never writes. The bytes are
    the same; libmfa reads base64url only."""
    document = json.loads(credential)

    def convert(value):
        if isinstance(value, dict):
            return {key: convert(item) for key, item in value.items()}
        if isinstance(value, str) and ("+" in value or "/" in value):
            return value.replace("+", "-").replace("/", "_")
        return value

    return json.dumps(convert(document))


def libmfa_verdict(function, arguments):
    arguments = dict(arguments, credential=urlsafe(arguments["credential"]))
    origins = arguments["expected_origin"]
    origins = origins if isinstance(origins, list) else [origins]
    challenge = b64(arguments["expected_challenge"])
    uv = bool(arguments.get("require_user_verification", False))
    for origin in origins:
        try:
            if function == "verify_registration_response":
                libmfa.webauthn.verify_registration(arguments["credential"], challenge, arguments["expected_rp_id"],
                                                    origin, uv)
            else:
                count, _ = libmfa.webauthn.verify_assertion(arguments["credential"], challenge,
                                                            arguments["expected_rp_id"], origin,
                                                            arguments["credential_public_key"], uv)
                current = arguments["credential_current_sign_count"]
                if (count or current) and count <= current:
                    return "CREDENTIAL_CLONED"
            return "OK"
        except libmfa.OriginMismatchError:
            continue
        except libmfa.MFAError as error:
            return libmfa.status_name(error.status)
    return "ORIGIN_MISMATCH"


def test_libmfa_agrees_with_the_vectors_of_py_webauthn():
    checked, skipped, unsupported, disagreements = [], [], [], []
    for where, function, arguments, raises in vectors():
        if ValueError in arguments.values() or not set(arguments) <= SUPPORTED_ARGUMENTS \
                or not isinstance(arguments.get("credential"), str):
            skipped.append(where)
            continue
        verdict = libmfa_verdict(function, arguments)
        fmt = attestation_format(arguments["credential"]) if function == "verify_registration_response" else None
        if fmt is not None and fmt not in SUPPORTED_FORMATS:
            assert verdict == "INVALID_ARGUMENT", (where, fmt, verdict)
            unsupported.append((where, fmt))
            continue
        if function == "verify_authentication_response" and key_algorithm(arguments) not in SUPPORTED_ALGORITHMS:
            assert verdict == "INVALID_ARGUMENT", (where, verdict)
            unsupported.append((where, "key algorithm %s" % key_algorithm(arguments)))
            continue
        checked.append((where, verdict, fmt))
        if (verdict == "OK") == raises:
            disagreements.append((where, verdict, "expected to raise" if raises else "expected to pass"))
    assert disagreements == []
    passed = [c for c in checked if c[1] == "OK"]
    by_format = {fmt: sorted(w for w, v, f in passed if f == fmt) for fmt in ("tpm", "android-key", "apple")}
    print("real devices' statements verified: %s" % {fmt: len(found) for fmt, found in by_format.items()})
    assert len(by_format["tpm"]) >= 4 and len(by_format["android-key"]) >= 2 and len(by_format["apple"]) >= 1, by_format
    formats = {attestation_format(a["credential"]) for w, f, a, r in vectors()
               if f == "verify_registration_response" and isinstance(a.get("credential"), str)}
    print("py_webauthn vectors: %d checked (%d pass), %d unsupported formats or keys, %d skipped"
          % (len(checked), len(passed), len(unsupported), len(skipped)))
    assert len(passed) >= 10 and {"none", "packed", "fido-u2f"} <= formats
