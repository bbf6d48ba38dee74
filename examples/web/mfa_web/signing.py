"""Signed, expiring tokens (app-check tokens, email links), timed by the application's clock."""

from __future__ import annotations

from typing import Any, Callable

import flask
import itsdangerous


class _ClockSigner(itsdangerous.TimestampSigner):
    """Timestamps (when signing and when checking the age) from the application's clock."""

    def __init__(self, *args: Any, clock: Callable[[], float], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.clock = clock

    def get_timestamp(self) -> int:
        return int(self.clock())


def serializer(salt: str) -> itsdangerous.URLSafeTimedSerializer:
    """A serializer signing with the application's secret key; ``salt`` keeps each use apart."""
    app = flask.current_app
    return itsdangerous.URLSafeTimedSerializer(app.config["MFA_WEB_SECRET"], salt=salt, signer=_ClockSigner,
                                               signer_kwargs={"clock": app.extensions["mfa_web.clock"]})
