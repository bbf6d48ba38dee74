#!/usr/bin/env python3
"""Run the example web application with Werkzeug's server (development and tests).

    MFA_WEB_ENV=development LIBMFA_LIBRARY=build/libmfa.so python3 examples/web/run.py

``scripts/web.sh`` does exactly this after building libmfa. Listens on
``MFA_WEB_HOST``:``MFA_WEB_PORT`` (127.0.0.1:5000). In production, serve
``mfa_web:create_app()`` with a WSGI server behind HTTPS instead, and pass
your gateways (see ``mfa_web/gateways.py``).
"""

import logging
import os
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
try:
    import libmfa  # noqa: F401  (installed, or from the checkout below)
except ImportError:
    sys.path.insert(1, str(HERE.parents[1] / "python"))

from mfa_web import SettingsError, create_app  # noqa: E402


def main() -> int:
    """Serve until interrupted."""
    host = os.environ.get("MFA_WEB_HOST", "127.0.0.1")
    port = int(os.environ.get("MFA_WEB_PORT", "5000"))
    # Requests, and libmfa's audit events (the mfa_web.audit logger), to stderr.
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    try:
        app = create_app()
    except SettingsError as error:
        print("web: %s" % error, file=sys.stderr)
        return 2
    mode = "development: SMS and email go to /dev/outbox" if app.config["MFA_WEB_DEVELOPMENT"] else "production"
    print("libmfa example auth server on %s (listening on %s:%d; %s)" % (app.config["MFA_WEB_URL"], host, port, mode),
          flush=True)
    app.run(host=host, port=port, threaded=True, debug=False, use_reloader=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
