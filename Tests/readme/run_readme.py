#!/usr/bin/env python3
"""Runs the runnable code blocks of README.md and of the documentation site's
pages (docs/**/*.md), so that neither can drift from the code.

A fenced block is run when the line before it (blank lines aside) is a marker:

    <!-- runnable: c expect="signed in with totp" -->
    ```c
    ...
    ```

Kinds and what is done with each, every C and Python block in a new empty
folder:

* ``c``: compiled with gcc ``-std=c99 -Wall -Wextra -pedantic -Werror`` against
  ``include/`` and the built library, then run;
* ``python``: run with the repository's ``python/`` package and the built
  library (``LIBMFA_LIBRARY``);
* ``swift-manifest`` and ``swift``: the manifest becomes the ``Package.swift``
  of a small package beside a folder named ``libmfa`` that is the repository,
  each ``swift`` block in turn its ``Sources/app/main.swift``; it is built
  (without a warning) and run. README.md marks one manifest; a page may mark
  its own (it must then precede the page's Swift blocks), else README's is
  used. Every Swift block is built in one package folder, so libmfa is
  compiled once per run;
* ``sh``: an operator's shell commands, run with ``bash -euo pipefail`` in
  order, the ``sh`` blocks of one file in one folder of their own (a later
  block sees what an earlier one made), with the built ``mfactl`` and
  ``mfa-enroll`` first on the ``PATH``. The system folders of the PAM guide,
  ``/etc/libmfa`` and ``/var/lib/libmfa``, are that folder's ``etc-libmfa``
  and ``var-lib-libmfa``: the commands run as written without touching the
  machine.

``expect``, if given, must appear in what the program prints. Blocks without
a marker are illustrations and are left alone.

usage: run_readme.py LIBRARY [--only c|python|swift|sh] [FILE...]
    (FILE: Markdown files to run instead of README.md and docs/)
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
#: The system folders of the shell blocks, and their names in the blocks' own folder.
SH_FOLDERS = {"/etc/libmfa": "etc-libmfa", "/var/lib/libmfa": "var-lib-libmfa"}
MARKER = re.compile(r'^<!-- runnable: (?P<kind>[a-z-]+)(?: expect="(?P<expect>[^"]*)")? -->$')
FENCE = re.compile(r"^```(?P<lang>[a-z]*)\s*$")


class ReadmeError(Exception):
    """A marker without its block, a block in the wrong language, a failed run."""


class Block:
    """One marked code block: its kind, the text it must print, its code, its file and its line."""

    def __init__(self, kind, expect, code, line, source="README.md"):
        self.kind = kind
        self.expect = expect
        self.code = code
        self.line = line
        self.source = source

    @property
    def where(self):
        """``FILE line N``, for messages."""
        return "%s line %d" % (self.source, self.line)

    def __repr__(self):
        return "Block(%s, %s)" % (self.kind, self.where)


def extract(text, source="README.md"):
    """The marked blocks of a Markdown text, in order; ReadmeError on a bad marker."""
    lines = text.split("\n")
    blocks = []
    index = 0
    while index < len(lines):
        match = MARKER.match(lines[index].strip())
        index += 1
        if not match:
            if lines[index - 1].lstrip().startswith(("<!-- runnable", "<!-- readme-test")):
                raise ReadmeError("%s line %d: malformed marker (<!-- runnable: KIND [expect=\"...\"] -->): %s"
                                  % (source, index, lines[index - 1]))
            continue
        kind, marker_line = match.group("kind"), index
        if kind not in KINDS:
            raise ReadmeError("%s line %d: unknown kind %r (known: %s)" % (source, marker_line, kind, ", ".join(KINDS)))
        while index < len(lines) and not lines[index].strip():
            index += 1
        fence = FENCE.match(lines[index]) if index < len(lines) else None
        if not fence:
            raise ReadmeError("%s line %d: the marker is not followed by a code block" % (source, marker_line))
        if fence.group("lang") != KINDS[kind]:
            raise ReadmeError("%s line %d: a %s block is marked %s" % (source, marker_line, fence.group("lang"), kind))
        start = index + 1
        index = start
        while index < len(lines) and lines[index].strip() != "```":
            index += 1
        if index == len(lines):
            raise ReadmeError("%s line %d: the code block is not closed" % (source, start))
        blocks.append(Block(kind, match.group("expect"), "\n".join(lines[start:index]) + "\n", start + 1, source))
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
        raise ReadmeError("%s: the output lacks %r:\n%s" % (block.where, block.expect, output))


def run_c(block, library, folder):
    """Compile the block strictly against the built library and run it."""
    source = folder / "app.c"
    source.write_text(block.code)
    libdir = str(pathlib.Path(library).parent)
    run(["gcc", "-std=c99", "-Wall", "-Wextra", "-pedantic", "-Werror", "-I", str(REPO / "include"),
         str(source), "-L", libdir, "-lmfa", "-Wl,-rpath," + libdir, "-o", str(folder / "app")],
        folder, what="%s: compiling" % block.where)
    return run([str(folder / "app")], folder, what="%s: running" % block.where)


def run_python(block, library, folder):
    """Run the block with the repository's package and the built library."""
    (folder / "app.py").write_text(block.code)
    env = dict(os.environ, LIBMFA_LIBRARY=str(library), PYTHONPATH=str(REPO / "python"))
    return run([sys.executable, "app.py"], folder, env, what="%s: running" % block.where)


def run_sh(block, library, folder):
    """Run the shell block in ``folder`` (shared by the file's sh blocks), system folders mapped into it."""
    code = block.code
    for system, local in SH_FOLDERS.items():
        code = code.replace(system, str(folder / local))
    build = pathlib.Path(library).parent
    env = dict(os.environ, LIBMFA_LIBRARY=str(library),
               PATH=os.pathsep.join([str(build), str(build / "pam"), os.environ.get("PATH", "")]))
    env = {key: value for key, value in env.items() if not key.startswith("MFA_")}
    return run(["bash", "-euo", "pipefail", "-c", code], folder, env, what="%s: running" % block.where)


def run_swift(manifest, program, folder):
    """Build and run a package made of the manifest and the program, depending on the repository by path.

    ``folder`` (outside the repository: the link must not make a loop) gets
    ``libmfa``, a link to the repository, and ``app``, the package; a later
    call with the same folder rebuilds only the program.
    """
    if not (folder / "libmfa").exists():
        (folder / "libmfa").symlink_to(REPO)
    app = folder / "app"
    (app / "Sources" / "app").mkdir(parents=True, exist_ok=True)
    (app / "Package.swift").write_text(manifest.code)
    (app / "Sources" / "app" / "main.swift").write_text(program.code)
    build = ["swift", "build", "--package-path", str(app), "--product", "app"]
    output = run(build, app, what="%s: swift build" % program.where)
    if "warning:" in output:
        raise ReadmeError("%s: the Swift snippet builds with warnings:\n%s" % (program.where, output))
    binary = run(build + ["--show-bin-path"], app, what="swift build --show-bin-path").strip().split("\n")[-1]
    return run([os.path.join(binary, "app")], folder, what="%s: running" % program.where)


def documents(paths):
    """The Markdown files to run: ``paths`` if given, else README.md and every page under docs/."""
    if paths:
        return [pathlib.Path(path).resolve() for path in paths]
    return [REPO / "README.md"] + sorted((REPO / "docs").rglob("*.md"))


def readme_checks(blocks):
    """README.md must show a block of every language kind (shell blocks are the guides'), and exactly one Swift
    manifest and one Swift program."""
    kinds = [block.kind for block in blocks]
    for kind in (kind for kind in KINDS if kind != "sh"):
        if kind not in kinds:
            raise ReadmeError("README.md has no block marked %s" % kind)
    if kinds.count("swift") != 1 or kinds.count("swift-manifest") != 1:
        raise ReadmeError("README.md must mark one swift-manifest block and one swift block")


def main():
    """Run every marked block of README.md and the site's pages; exit 1 on the first failure."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("library", help="the built libmfa.so")
    parser.add_argument("--only", choices=["c", "python", "swift", "sh"], help="run only these blocks")
    parser.add_argument("files", nargs="*", help="Markdown files (default: README.md and docs/**/*.md)")
    args = parser.parse_intermixed_args()
    library = pathlib.Path(args.library).resolve()
    try:
        readme = extract((REPO / "README.md").read_text())
        readme_checks(readme)
        default_manifest = next(block for block in readme if block.kind == "swift-manifest")
        ran = 0
        with tempfile.TemporaryDirectory(prefix="libmfa-readme-swift-") as swift_name:
            for path in documents(args.files):
                source = str(path.relative_to(REPO)) if path.is_relative_to(REPO) else str(path)
                blocks = readme if source == "README.md" else extract(path.read_text(), source)
                manifest = default_manifest
                shell = None
                for block in blocks:
                    language = KINDS[block.kind]
                    if block.kind == "swift-manifest":
                        manifest = block
                        continue
                    if args.only and args.only != language:
                        continue
                    if language == "swift":
                        output = run_swift(manifest, block, pathlib.Path(swift_name))
                    elif language == "sh":
                        shell = shell or tempfile.TemporaryDirectory(prefix="libmfa-readme-sh-")
                        output = run_sh(block, library, pathlib.Path(shell.name))
                    else:
                        with tempfile.TemporaryDirectory(prefix="libmfa-readme-") as name:
                            runner = run_c if language == "c" else run_python
                            output = runner(block, library, pathlib.Path(name))
                    check_output(block, output)
                    ran += 1
                    print("%s: %s block ran%s" % (block.where, block.kind,
                                                 " and printed %r" % block.expect if block.expect else ""))
                if shell:
                    shell.cleanup()
        print("%d blocks ran" % ran)
    except ReadmeError as error:
        print("run_readme: %s" % error, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
