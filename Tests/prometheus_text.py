"""A strict reader of Prometheus' text exposition format (version 0.0.4), for the tests.

:func:`parse` reads what ``Context.metrics_text()`` and the web example's
``/metrics`` serve, by the format's grammar: ``# HELP`` (with ``\\\\`` and
``\\n`` escapes) and ``# TYPE`` before each family's series, metric and label
names of the allowed characters, label values with only the three escapes
(``\\\\``, ``\\"``, ``\\n``), a histogram's ``_bucket`` / ``_sum`` / ``_count``
series, numbers as Go's ``strconv.ParseFloat`` reads them. Anything else
raises ValueError. :func:`promtool` lints the same text with Prometheus' own
``promtool check metrics`` (Debian's ``prometheus`` package).
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

_NAME = re.compile(r"[a-zA-Z_:][a-zA-Z0-9_:]*")
_LABEL = re.compile(r"[a-zA-Z_][a-zA-Z0-9_]*")
_NUMBER = re.compile(r"[+-]?(?:Inf|NaN|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)")
_TYPES = ("counter", "gauge", "histogram", "summary", "untyped")


@dataclass
class Family:
    """One family: its name, help, type and series (name, labels, value)."""

    name: str
    help: str
    type: str = "untyped"
    series: List[Tuple[str, Dict[str, str], float]] = field(default_factory=list)


def _unescape(text: str, quote: bool) -> str:
    out = []
    index = 0
    while index < len(text):
        char = text[index]
        if char == "\\":
            if index + 1 >= len(text):
                raise ValueError("a trailing backslash in %r" % text)
            following = text[index + 1]
            if following == "\\":
                out.append("\\")
            elif following == "n":
                out.append("\n")
            elif following == '"' and quote:
                out.append('"')
            else:
                raise ValueError("an unknown escape \\%s in %r" % (following, text))
            index += 2
            continue
        if char == "\n" or (quote and char == '"'):
            raise ValueError("an unescaped %r in %r" % (char, text))
        out.append(char)
        index += 1
    return "".join(out)


def _series(line: str) -> Tuple[str, Dict[str, str], float]:
    match = _NAME.match(line)
    if not match:
        raise ValueError("no metric name: %r" % line)
    name, index = match.group(0), match.end()
    labels: Dict[str, str] = {}
    if index < len(line) and line[index] == "{":
        index += 1
        while line[index] != "}":
            label = _LABEL.match(line, index)
            if not label or line[label.end():label.end() + 2] != '="':
                raise ValueError("a malformed label in %r" % line)
            index = label.end() + 2
            start = index
            while line[index] != '"':
                index += 2 if line[index] == "\\" else 1
            if label.group(0) in labels:
                raise ValueError("label %s twice in %r" % (label.group(0), line))
            labels[label.group(0)] = _unescape(line[start:index], quote=True)
            index += 1
            if line[index] == ",":
                index += 1
            elif line[index] != "}":
                raise ValueError("a malformed label list in %r" % line)
        index += 1
    if line[index:index + 1] != " ":
        raise ValueError("no value in %r" % line)
    number = line[index + 1:]
    if not _NUMBER.fullmatch(number):
        raise ValueError("a malformed value in %r" % line)
    return name, labels, float(number.replace("Inf", "inf"))


def parse(text: str) -> Dict[str, Family]:
    """The families of ``text``, by name (ValueError for anything the format does not allow)."""
    families: Dict[str, Family] = {}
    current: Optional[Family] = None
    if text and not text.endswith("\n"):
        raise ValueError("the text does not end with a line feed")
    for line in text.split("\n")[:-1] if text else []:
        if line.startswith("# HELP "):
            name, _, help_text = line[7:].partition(" ")
            if not _NAME.fullmatch(name) or name in families:
                raise ValueError("a bad or repeated HELP line: %r" % line)
            current = families[name] = Family(name, _unescape(help_text, quote=False))
        elif line.startswith("# TYPE "):
            parts = line[7:].split(" ")
            if current is None or len(parts) != 2 or parts[0] != current.name or parts[1] not in _TYPES:
                raise ValueError("a TYPE line out of place: %r" % line)
            current.type = parts[1]
        elif line.startswith("#") or not line:
            raise ValueError("an unexpected line: %r" % line)
        else:
            name, labels, value = _series(line)
            allowed = ({current.name + suffix for suffix in ("_bucket", "_sum", "_count")}
                       if current is not None and current.type == "histogram"
                       else {current.name} if current is not None else set())
            if name not in allowed:
                raise ValueError("%s outside its family" % name)
            assert current is not None
            current.series.append((name, labels, value))
    return families


def value(families: Dict[str, Family], name: str, **labels: str) -> Optional[float]:
    """The value of the series ``name`` with exactly ``labels``, or None."""
    family_name = re.sub(r"_(bucket|sum|count)$", "", name) if name not in families else name
    family = families.get(family_name)
    for series_name, series_labels, number in family.series if family else []:
        if series_name == name and series_labels == labels:
            return number
    return None


def promtool(text: str) -> subprocess.CompletedProcess:  # type: ignore[type-arg]
    """``promtool check metrics`` on ``text``: its exit status and what it printed."""
    return subprocess.run(["promtool", "check", "metrics"], input=text, capture_output=True, text=True,
                          timeout=60)
