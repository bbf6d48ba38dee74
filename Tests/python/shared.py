"""Paths and readers shared by the Python tests (the vectors file, the C header)."""

import pathlib
import re

REPO = pathlib.Path(__file__).resolve().parents[2]
VECTORS = REPO / "Tests" / "vectors" / "otp_vectors.txt"
TYPES_HEADER = REPO / "include" / "mfa_types.h"


def read_vectors(kind):
    """The lines of one kind ("hotp", "totp", "base32") of the shared vectors file.

    Each entry is the list of fields after the kind, as strings; "-" in a
    base32 line stands for the empty string.
    """
    rows = []
    for line in VECTORS.read_text(encoding="utf-8").splitlines():
        fields = line.split()
        if not fields or fields[0] != kind:
            continue
        rows.append(["" if field == "-" and kind == "base32" else field for field in fields[1:]])
    return rows


def header_defines():
    """``#define MFA_NAME <integer>`` lines of mfa_types.h as {NAME: value}, prefix dropped
    (a negative value is written in parentheses: ``(-7)``)."""
    text = TYPES_HEADER.read_text(encoding="utf-8")
    return {
        name: int(value.strip("()"))
        for name, value in re.findall(r"^#define MFA_([A-Z0-9_]+)\s+(-?\d+|\(-\d+\))\s*$", text, re.MULTILINE)
    }


def header_statuses():
    """The ``mfa_status`` enum of mfa_types.h as {NAME: value}, ``MFA_``/``MFA_ERR_`` dropped."""
    text = TYPES_HEADER.read_text(encoding="utf-8")
    body = re.search(r"typedef enum mfa_status \{(.*?)\} mfa_status;", text, re.DOTALL).group(1)
    body = re.sub(r"/\*.*?\*/", "", body, flags=re.DOTALL)
    return {
        re.sub(r"^MFA_(ERR_)?", "", name): int(value)
        for name, value in re.findall(r"(MFA_[A-Z0-9_]+)\s*=\s*(-?\d+)", body)
    }
