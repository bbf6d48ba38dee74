"""The application's settings, read from the environment (or given by a test).

=========================  ==========================================================
``MFA_WEB_ENV``            ``development`` (outboxes, ``/dev/outbox``, keys made on
                           first run, cookies without ``Secure``) or ``production``
                           (the default: every key must be given, cookies ``Secure``)
``MFA_WEB_INSTANCE``       the folder for local state: SQLite files, development keys
                           and outboxes (default ``examples/web/instance``)
``MFA_WEB_STORE``          libmfa's store: an SQLite path (default
                           ``<instance>/mfa.sqlite3``) or a ``postgres://`` URL; with a
                           URL, the application's own tables live in that database too
``MFA_WEB_SECRET_KEY``     signs app-check tokens and email links (production: required)
``MFA_WEB_MASTER_KEY``     libmfa's 32-byte master key, base64 (production: required)
``MFA_WEB_MASTER_KEY_ID``  its id (default ``web-1``)
``MFA_WEB_ISSUER``         the name authenticator apps show (default ``libmfa example``)
``MFA_WEB_HOST``,          where ``run.py`` listens (default ``127.0.0.1``, ``5000``)
``MFA_WEB_PORT``
=========================  ==========================================================
"""

from __future__ import annotations

import base64
import binascii
import os
import pathlib
import secrets
from dataclasses import dataclass, field
from typing import Any, Dict, Mapping, Optional

#: The folder of this example (``examples/web``).
EXAMPLE_DIR = pathlib.Path(__file__).resolve().parents[1]

#: The MFA configuration the application applies to the project at start-up
#: (``Context.update_config``: only these fields change; an operator's other
#: settings stay).
DEFAULT_MFA_CONFIG: Dict[str, Any] = {
    "state": "ENABLED",
    "providers": {"totp": "ENABLED", "phone": "ENABLED", "recovery": "ENABLED"},
}


class SettingsError(RuntimeError):
    """A setting is missing or malformed."""


@dataclass
class Settings:
    """Everything the application needs to know at start-up."""

    development: bool
    instance: pathlib.Path
    store: str
    secret_key: bytes
    master_key: bytes
    master_key_id: str = "web-1"
    issuer: str = "libmfa example"
    mfa_config: Dict[str, Any] = field(default_factory=lambda: dict(DEFAULT_MFA_CONFIG))

    @property
    def postgres(self) -> bool:
        """Whether the stores are on PostgreSQL."""
        return self.store.startswith(("postgres://", "postgresql://"))

    @property
    def database(self) -> str:
        """Where the application's own tables live: the PostgreSQL URL, or an SQLite file."""
        return self.store if self.postgres else str(self.instance / "web.sqlite3")

    @property
    def sms_outbox(self) -> pathlib.Path:
        """The development SMS outbox (one JSON line per message, written by libmfa)."""
        return self.instance / "sms-outbox.jsonl"

    @property
    def mail_outbox(self) -> pathlib.Path:
        """The development mail outbox (one JSON line per message)."""
        return self.instance / "mail-outbox.jsonl"

    @classmethod
    def from_env(cls, environ: Optional[Mapping[str, str]] = None) -> Settings:
        """The settings of the environment (see the module's table)."""
        env = os.environ if environ is None else environ
        mode = env.get("MFA_WEB_ENV", "production")
        if mode not in ("development", "production"):
            raise SettingsError("MFA_WEB_ENV must be 'development' or 'production', not %r" % mode)
        development = mode == "development"
        instance = pathlib.Path(env.get("MFA_WEB_INSTANCE") or EXAMPLE_DIR / "instance").resolve()
        instance.mkdir(parents=True, exist_ok=True)
        store = env.get("MFA_WEB_STORE") or str(instance / "mfa.sqlite3")
        secret_key = _key(env, "MFA_WEB_SECRET_KEY", instance, development, 32)
        master_key = _key(env, "MFA_WEB_MASTER_KEY", instance, development, 32, exact=True)
        return cls(
            development=development,
            instance=instance,
            store=store,
            secret_key=secret_key,
            master_key=master_key,
            master_key_id=env.get("MFA_WEB_MASTER_KEY_ID", "web-1"),
            issuer=env.get("MFA_WEB_ISSUER", "libmfa example"),
        )


def _key(env: Mapping[str, str], name: str, instance: pathlib.Path, development: bool, size: int,
         exact: bool = False) -> bytes:
    """A key from ``name`` (base64); in development, made once and kept in the instance folder."""
    text = env.get(name)
    if text is None and development:
        path = instance / name.lower().replace("mfa_web_", "").replace("_", "-")
        if not path.exists():
            descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(descriptor, "w") as handle:
                handle.write(base64.b64encode(secrets.token_bytes(size)).decode("ascii"))
        text = path.read_text().strip()
    if text is None:
        raise SettingsError("%s is required in production (%d random bytes, base64)" % (name, size))
    try:
        key = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise SettingsError("%s must be base64" % name) from None
    if (exact and len(key) != size) or len(key) < size:
        raise SettingsError("%s must hold %s%d bytes, not %d" % (name, "" if exact else "at least ", size, len(key)))
    return key
