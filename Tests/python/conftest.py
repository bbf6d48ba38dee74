"""pytest setup: import libmfa from <repo>/python and find a built library.

``LIBMFA_LIBRARY`` is left alone when it is set; otherwise it is pointed at
``<repo>/.build/release/libmfa.so`` (SwiftPM) or ``<repo>/build/libmfa.so``
(CMake), whichever exists first. If neither exists the package's own lookup
(next to the package, then the system path) applies.
"""

import os
import sys

from shared import REPO

sys.path.insert(0, str(REPO / "python"))

if not os.environ.get("LIBMFA_LIBRARY"):
    for candidate in (REPO / ".build" / "release" / "libmfa.so", REPO / "build" / "libmfa.so"):
        if candidate.exists():
            os.environ["LIBMFA_LIBRARY"] = str(candidate)
            break
