#!/usr/bin/env python3
"""Writes mfactl's man page (roff) from its own help.

    scripts/gen_manpage.py MFACTL OUT.1

MFACTL is the built mfactl binary; its `--experimental-dump-help` (the
command tree swift-argument-parser describes, with every subcommand's
abstract, discussion, arguments and options) is what the page is made of,
so the page says exactly what `--help` says.
"""
import datetime
import json
import subprocess
import sys


def roff(text):
    """Escapes text for roff: backslashes, and a leading dot or quote."""
    text = text.replace("\\", "\\e").replace("-", "\\-")
    lines = []
    for line in text.split("\n"):
        if line.startswith((".", "'")):
            line = "\\&" + line
        lines.append(line)
    return "\n".join(lines)


def synopsis(path, command):
    parts = ["mfactl"] + path
    for argument in command.get("arguments", []):
        preferred = argument.get("preferredName", {}).get("name")
        if not argument.get("shouldDisplay", True) or preferred in ("help", "version"):
            continue
        if argument["kind"] == "positional":
            name = "<%s>" % argument["valueName"]
        else:
            name = "--" + argument["preferredName"]["name"] if argument["preferredName"]["kind"] == "long" \
                else "-" + argument["preferredName"]["name"]
            if argument["kind"] == "option":
                name += " <%s>" % argument["valueName"]
        if argument.get("isOptional"):
            name = "[%s]" % name
        if argument.get("isRepeating"):
            name += " ..."
        parts.append(name)
    return " ".join(parts)


def options(command, out):
    for argument in command.get("arguments", []):
        preferred = argument.get("preferredName", {}).get("name")
        if not argument.get("shouldDisplay", True) or preferred in ("help", "version"):
            continue
        if argument["kind"] == "positional":
            label = "\\fI<%s>\\fR" % roff(argument["valueName"])
        else:
            label = ", ".join(
                "\\fB%s%s\\fR" % ("\\-\\-" if n["kind"] == "long" else "\\-", roff(n["name"]))
                for n in argument.get("names", []))
            if argument["kind"] == "option":
                label += " \\fI<%s>\\fR" % roff(argument["valueName"])
        out.append(".TP\n" + label)
        text = argument.get("abstract", "")
        if "defaultValue" in argument:
            text += " (default: %s)" % argument["defaultValue"]
        out.append(roff(text))


def leaves(command, path):
    subcommands = [s for s in command.get("subcommands", []) if s["commandName"] != "help"]
    if not subcommands:
        yield path, command
    for sub in subcommands:
        yield from leaves(sub, path + [sub["commandName"]])


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: gen_manpage.py MFACTL OUT.1")
    tree = json.loads(subprocess.run([sys.argv[1], "--experimental-dump-help"], check=True,
                                     capture_output=True, text=True).stdout)["command"]
    today = datetime.date.today().isoformat()
    out = ['.TH MFACTL 1 "%s" "libmfa" "libmfa manual"' % today, ".SH NAME",
           "mfactl \\- %s" % roff(tree["abstract"]), ".SH SYNOPSIS", ".B mfactl",
           "\\fI<command>\\fR [\\fIoptions\\fR]", ".SH DESCRIPTION"]
    for paragraph in tree.get("discussion", "").split("\n\n"):
        out += [roff(paragraph), ".PP"]
    out.append(".SH COMMANDS")
    for path, command in leaves(tree, []):
        out.append(".SS %s" % roff("mfactl " + " ".join(path)))
        out.append(roff(command.get("abstract", "")))
        if command.get("discussion"):
            out += [".PP", roff(command["discussion"])]
        out += [".PP", ".nf", roff(synopsis(path, command)), ".fi"]
        options(command, out)
    out += [".SH ENVIRONMENT", ".TP", "\\fBMFA_STORE\\fR", "The store, when \\-\\-store is not given.",
            ".TP", "\\fBMFA_MASTER_KEY\\fR",
            "The master key as a key file's text (64 hex characters, <id>:<hex> or <id> <hex>), when "
            "\\-\\-key\\-file is not given.",
            ".TP", "\\fBMFA_MASTER_KEY_ID\\fR", "The id of a key given without one, when \\-\\-key\\-id is not given.",
            ".TP", "\\fBMFA_PREVIOUS_KEYS\\fR", "Earlier keys, id:hex,id:hex.",
            ".SH SEE ALSO", ".BR pam_mfa (8),", ".BR mfa\\-enroll (8),",
            "the libmfa README: the C header mfa.h, the Python package libmfa."]
    with open(sys.argv[2], "w", encoding="utf-8") as handle:
        handle.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
