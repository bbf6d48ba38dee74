#!/usr/bin/env python3
"""Runs the code blocks of README.md, so that the README cannot drift from the code.

A fenced block is run when the line before it (blank lines aside) is a marker:

    <!-- readme-test: c expect="signed in with totp" -->
    ```c
    ...
    ```

Kinds and what is done with each, every block in a new empty folder:

* ``c``: compiled with gcc ``-std=c99 -Wall -Wextra -pedantic -Werror`` against
  ``include/`` and the built library, then run;
* ``python``: run with the repository's ``python/`` package and the built
  library (``LIBMFA_LIBRARY``);
* ``swift-manifest`` and ``swift``: the manifest becomes the ``Package.swift``
  of a small package beside a folder named ``libmfa`` that is the repository,
  the ``swift`` block its ``Sources/app/main.swift``; it is built (without a
  warning) and run;
* ``sh``: an operator's shell commands, run with ``bash -euo pipefail`` in
  order, every ``sh`` block in one folder of their own (a later block sees
  what an earlier one made), with the built ``mfactl`` and ``mfa-enroll``
  first on the ``PATH``. The system folders the PAM section names,
  ``/etc/libmfa`` and ``/var/lib/libmfa``, are that folder's ``etc-libmfa``
  and ``var-lib-libmfa``: the commands run as written without touching
  the machine.

``expect``, if given, must appear in what the program prints. Blocks without
a marker are illustrations and are left alone.

usage: run_readme.py LIBRARY [--only c|python|swift|sh]
"""

import argparse
import os
import pathlib
import re
import shlex
import subprocess
import sys
import tempfile

REPO = pathlib.Path(__file__).resolve().parents[2]
KINDS = {"c": "c", "python": "python", "swift": "swift", "swift-manifest": "swift", "sh": "sh"}
#: The system folders of the README's shell blocks, and their names in the blocks' own folder.
SH_FOLDERS = {"/etc/libmfa": "etc-libmfa", "/var/lib/libmfa": "var-lib-libmfa"}
MARKER = re.compile(r'^<!-- readme-test: (?P<kind>[a-z-]+)(?: expect="(?P<expect>[^"]*)")? -->$')
FENCE = re.compile(r"^```(?P<lang>[a-z]*)\s*$")


class ReadmeError(Exception):
    """A marker without its block, a block in the wrong language, a failed run."""


class Block:
    """One marked code block: its kind, the text it must print, its code and its line."""

    def __init__(self, kind, expect, code, line):
        self.kind = kind
        self.expect = expect
        self.code = code
        self.line = line

    def __repr__(self):
        return "Block(%s, line %d)" % (self.kind, self.line)


def extract(text):
    """The marked blocks of a Markdown text, in order; ReadmeError on a bad marker."""
    lines = text.split("\n")
    blocks = []
    index = 0
    while index < len(lines):
        match = MARKER.match(lines[index].strip())
        index += 1
        if not match:
            if lines[index - 1].lstrip().startswith("<!-- readme-test"):
                raise ReadmeError("line %d: malformed marker: %s" % (index, lines[index - 1]))
            continue
        kind, marker_line = match.group("kind"), index
        if kind not in KINDS:
            raise ReadmeError("line %d: unknown kind %r (known: %s)" % (marker_line, kind, ", ".join(KINDS)))
        while index < len(lines) and not lines[index].strip():
            index += 1
        fence = FENCE.match(lines[index]) if index < len(lines) else None
        if not fence:
            raise ReadmeError("line %d: the marker is not followed by a code block" % marker_line)
        if fence.group("lang") != KINDS[kind]:
            raise ReadmeError("line %d: a %s block is marked %s" % (marker_line, fence.group("lang"), kind))
        start = index + 1
        index = start
        while index < len(lines) and lines[index].strip() != "```":
            index += 1
        if index == len(lines):
            raise ReadmeError("line %d: the code block is not closed" % start)
        blocks.append(Block(kind, match.group("expect"), "\n".join(lines[start:index]) + "\n", start + 1))
        index += 1
    return blocks


def run(command, cwd, env=None, what=""):
    """Run ``command``; return its output, or raise ReadmeError with it."""
    done = subprocess.run(command, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, check=False)
    if done.returncode != 0:
        raise ReadmeError("%s failed (exit %d): %s\n%s" % (what, done.returncode, shlex.join(map(str, command)),
                                                           done.stdout))
    return done.stdout


def check_output(block, output):
    """Raise ReadmeError unless ``block``'s expected text is in ``output``."""
    if block.expect and block.expect not in output:
        raise ReadmeError("README line %d: the output lacks %r:\n%s" % (block.line, block.expect, output))


def run_c(block, library, folder):
    """Compile the block strictly against the built library and run it."""
    source = folder / "app.c"
    source.write_text(block.code)
    libdir = str(pathlib.Path(library).parent)
    run(["gcc", "-std=c99", "-Wall", "-Wextra", "-pedantic", "-Werror", "-I", str(REPO / "include"),
         str(source), "-L", libdir, "-lmfa", "-Wl,-rpath," + libdir, "-o", str(folder / "app")],
        folder, what="README line %d: compiling" % block.line)
    return run([str(folder / "app")], folder, what="README line %d: running" % block.line)


def run_python(block, library, folder):
    """Run the block with the repository's package and the built library."""
    (folder / "app.py").write_text(block.code)
    env = dict(os.environ, LIBMFA_LIBRARY=str(library), PYTHONPATH=str(REPO / "python"))
    return run([sys.executable, "app.py"], folder, env, what="README line %d: running" % block.line)


def run_sh(block, library, folder):
    """Run the shell block in ``folder`` (shared by every sh block), system folders mapped into it."""
    code = block.code
    for system, local in SH_FOLDERS.items():
        code = code.replace(system, str(folder / local))
    build = pathlib.Path(library).parent
    env = dict(os.environ, LIBMFA_LIBRARY=str(library),
               PATH=os.pathsep.join([str(build), str(build / "pam"), os.environ.get("PATH", "")]))
    env = {key: value for key, value in env.items() if not key.startswith("MFA_")}
    return run(["bash", "-euo", "pipefail", "-c", code], folder, env, what="README line %d: running" % block.line)


def run_swift(manifest, program, folder):
    """Build and run a package made of the manifest and the program, depending on the repository by path.

    ``folder`` (outside the repository: the link must not make a loop) gets
    ``libmfa``, a link to the repository, and ``app``, the package.
    """
    (folder / "libmfa").symlink_to(REPO)
    app = folder / "app"
    (app / "Sources" / "app").mkdir(parents=True)
    (app / "Package.swift").write_text(manifest.code)
    (app / "Sources" / "app" / "main.swift").write_text(program.code)
    build = ["swift", "build", "--package-path", str(app), "--product", "app"]
    output = run(build, app, what="README line %d: swift build" % program.line)
    if "warning:" in output:
        raise ReadmeError("README line %d: the Swift snippet builds with warnings:\n%s" % (program.line, output))
    binary = run(build + ["--show-bin-path"], app, what="swift build --show-bin-path").strip().split("\n")[-1]
    return run([os.path.join(binary, "app")], folder, what="README line %d: running" % program.line)


def main():
    """Run every marked block of README.md; exit 1 on the first failure."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("library", help="the built libmfa.so")
    parser.add_argument("--only", choices=["c", "python", "swift", "sh"], help="run only these blocks")
    args = parser.parse_args()
    library = pathlib.Path(args.library).resolve()
    try:
        blocks = extract((REPO / "README.md").read_text())
        kinds = [block.kind for block in blocks]
        for kind in KINDS:
            if kind not in kinds:
                raise ReadmeError("README.md has no block marked %s" % kind)
        if kinds.count("swift") != 1 or kinds.count("swift-manifest") != 1:
            raise ReadmeError("README.md must mark one swift-manifest block and one swift block")
        manifest = next(block for block in blocks if block.kind == "swift-manifest")
        shell = tempfile.TemporaryDirectory(prefix="libmfa-readme-sh-")
        for block in blocks:
            language = KINDS[block.kind]
            if block.kind == "swift-manifest" or (args.only and args.only != language):
                continue
            if language == "sh":
                output = run_sh(block, library, pathlib.Path(shell.name))
                check_output(block, output)
                print("README line %d: %s block ran%s" % (block.line, block.kind,
                                                         " and printed %r" % block.expect if block.expect else ""))
                continue
            with tempfile.TemporaryDirectory(prefix="libmfa-readme-") as name:
                folder = pathlib.Path(name)
                if language == "c":
                    output = run_c(block, library, folder)
                elif language == "python":
                    output = run_python(block, library, folder)
                else:
                    output = run_swift(manifest, block, folder)
                check_output(block, output)
            print("README line %d: %s block ran%s" % (block.line, block.kind,
                                                     " and printed %r" % block.expect if block.expect else ""))
    except ReadmeError as error:
        print("run_readme: %s" % error, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
