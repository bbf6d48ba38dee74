"""MkDocs hooks of libmfa's documentation site (mkdocs.yml).

The API references that scripts/docs.sh builds (Doxygen for C, pdoc for
Python, DocC for Swift) are added to the site's files under ``api/``, so that
they are copied into the built site, served by ``mkdocs serve``, and the
pages' links to them are checked by strict mode like any other link. Their
folder is ``MFA_DOCS_API`` (scripts/docs.sh sets it), else build/docs/api.
"""

from __future__ import annotations

import os
import pathlib

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files

REPO = pathlib.Path(__file__).resolve().parents[1]


def on_files(files: Files, config) -> Files:
    """Add every file of the built API references to the site, under api/."""
    api = pathlib.Path(os.environ.get("MFA_DOCS_API") or REPO / "build" / "docs" / "api")
    for language in ("c", "python", "swift"):
        if not (api / language).is_dir():
            raise PluginError("no %s API reference in %s: build the site with scripts/docs.sh" % (language, api))
    for path in sorted(api.rglob("*")):
        if path.is_file():
            files.append(File.generated(config, "api/" + path.relative_to(api).as_posix(), abs_src_path=str(path)))
    return files
