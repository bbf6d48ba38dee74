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
``MFA_WEB_MASTER_KEY``     libmfa's 32-byte master key, base64 (production: required without an HSM)
``MFA_WEB_MASTER_KEY_ID``  its id (default ``web-1``)
``MFA_WEB_HSM_MODULE``     instead of a master key, the PKCS#11 module of the HSM whose
                           AES key wraps the store's data keys (docs/guides/hsm.md)
``MFA_WEB_HSM_TOKEN``      with it: the token's label (or ``MFA_WEB_HSM_SLOT``, its
``MFA_WEB_HSM_SLOT``       slot id)
``MFA_WEB_HSM_KEY``        with it: the label of the token's AES key
``MFA_WEB_HSM_PIN_FILE``   with it: a file (the server's user's alone) whose first line
                           is the token's PIN; the PIN itself is never a setting
``MFA_WEB_ISSUER``         the name authenticator apps and security keys show (default
                           ``libmfa example``)
``MFA_WEB_URL``            the address people open the application at: its host is
                           WebAuthn's relying party id, its origin the one origin
                           security keys and passkeys answer for (production:
                           required, ``https://``; development: ``http://localhost:<port>``)
``MFA_WEB_METRICS_TOKEN``  the bearer token Prometheus sends to read ``/metrics`` (at
                           least 16 characters); without it ``/metrics`` is off in
                           production and open in development
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
import urllib.parse
from dataclasses import dataclass, field
from typing import Any, Dict, Mapping, Optional

#: The folder of this example (``examples/web``).
EXAMPLE_DIR = pathlib.Path(__file__).resolve().parents[1]

#: The MFA configuration the application applies to the project at start-up
#: (``Context.update_config``: only these fields change; an operator's other
#: settings stay).
DEFAULT_MFA_CONFIG: Dict[str, Any] = {
    "state": "ENABLED",
    "providers": {"totp": "ENABLED", "phone": "ENABLED", "recovery": "ENABLED", "webauthn": "ENABLED",
                  "email": "ENABLED", "hotp": "ENABLED", "yubico_otp": "ENABLED"},
    # A key that can keep the credential (a passkey) is asked to; others still register.
    # A passkey registered as such (from the account page) signs its user in without a password.
    "webauthn": {"residentKey": "preferred", "passkeySignIn": True},
    # "Remember this browser for 30 days" under the second factor's form.
    "rememberedDevices": {"state": "ENABLED", "days": 30},
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
    #: libmfa's master key, or None with an HSM (:attr:`hsm_module`).
    master_key: Optional[bytes]
    master_key_id: str = "web-1"
    #: The HSM's PKCS#11 module (``MFA_WEB_HSM_MODULE``), or None for :attr:`master_key`.
    hsm_module: Optional[str] = None
    #: The HSM token's label (``MFA_WEB_HSM_TOKEN``), or None for :attr:`hsm_slot`.
    hsm_token: Optional[str] = None
    #: The HSM token's slot id (``MFA_WEB_HSM_SLOT``), or None.
    hsm_slot: Optional[int] = None
    #: The label of the token's AES key (``MFA_WEB_HSM_KEY``).
    hsm_key: Optional[str] = None
    #: The file holding the token's PIN (``MFA_WEB_HSM_PIN_FILE``).
    hsm_pin_file: Optional[str] = None
    issuer: str = "libmfa example"
    #: The application's own address (``MFA_WEB_URL``); None leaves WebAuthn off.
    url: Optional[str] = None
    #: The bearer token of ``/metrics`` (``MFA_WEB_METRICS_TOKEN``), or None.
    metrics_token: Optional[str] = None
    mfa_config: Dict[str, Any] = field(default_factory=lambda: dict(DEFAULT_MFA_CONFIG))

    def __post_init__(self) -> None:
        if self.hsm_module is None:
            if self.master_key is None:
                raise SettingsError("a master key (MFA_WEB_MASTER_KEY) or an HSM (MFA_WEB_HSM_MODULE) is needed")
            if self.hsm_token or self.hsm_slot is not None or self.hsm_key or self.hsm_pin_file:
                raise SettingsError("MFA_WEB_HSM_TOKEN, MFA_WEB_HSM_SLOT, MFA_WEB_HSM_KEY and MFA_WEB_HSM_PIN_FILE "
                                    "need MFA_WEB_HSM_MODULE")
        else:
            if self.master_key is not None:
                raise SettingsError("MFA_WEB_MASTER_KEY and MFA_WEB_HSM_MODULE exclude each other: the HSM holds "
                                    "the key")
            if (self.hsm_token is None) == (self.hsm_slot is None):
                raise SettingsError("MFA_WEB_HSM_MODULE needs one of MFA_WEB_HSM_TOKEN or MFA_WEB_HSM_SLOT")
            if not self.hsm_key or not self.hsm_pin_file:
                raise SettingsError("MFA_WEB_HSM_MODULE needs MFA_WEB_HSM_KEY and MFA_WEB_HSM_PIN_FILE")
        if self.url is not None:
            self.url = public_url(self.url, self.development)
        if self.metrics_token is not None and (len(self.metrics_token) < 16 or not self.metrics_token.isprintable()
                                               or self.metrics_token != self.metrics_token.strip()):
            raise SettingsError("MFA_WEB_METRICS_TOKEN must be at least 16 printable characters, without spaces "
                                "around it")

    @property
    def key_options(self) -> Dict[str, Any]:
        """libmfa.Context's keyword arguments for the key: the master key and its id, or the HSM's."""
        if self.hsm_module is None:
            return {"master_key": self.master_key, "key_id": self.master_key_id}
        return {"hsm_module": self.hsm_module, "hsm_token": self.hsm_token, "hsm_slot": self.hsm_slot,
                "hsm_key": self.hsm_key, "hsm_pin_file": self.hsm_pin_file}

    @property
    def origin(self) -> Optional[str]:
        """The application's origin (``scheme://host[:port]``), or None without :attr:`url`."""
        return self.url.rstrip("/") if self.url else None

    @property
    def webauthn_config(self) -> Dict[str, Any]:
        """libmfa's ``webauthn`` section for this address: the relying party is the application itself.

        Only the relying party's fields: an operator's ``userVerification``,
        ``residentKey`` or ``attestation`` in the store stay as they are. Without
        :attr:`url`, the ``webauthn`` provider is turned off instead.
        """
        if self.url is None:
            return {"providers": {"webauthn": "DISABLED"}}
        host = urllib.parse.urlsplit(self.url).hostname or ""
        return {"webauthn": {"rpId": host, "rpName": self.issuer, "origins": [self.origin]}}

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
        hsm_module = env.get("MFA_WEB_HSM_MODULE") or None
        # With an HSM no master key is made: the HSM's key wraps libmfa's data keys (one given too is refused).
        master_key = None if hsm_module and not env.get("MFA_WEB_MASTER_KEY") else _key(env, "MFA_WEB_MASTER_KEY", instance, development, 32, exact=True)
        slot_text = env.get("MFA_WEB_HSM_SLOT") or None
        if slot_text is not None and not (slot_text.isascii() and slot_text.isdigit() and len(slot_text) <= 18):
            raise SettingsError("MFA_WEB_HSM_SLOT is a decimal slot id")
        url = env.get("MFA_WEB_URL")
        if not url:
            if not development:
                raise SettingsError("MFA_WEB_URL is required in production: the https:// address people open "
                                    "the application at (WebAuthn's relying party)")
            url = "http://localhost:%s" % env.get("MFA_WEB_PORT", "5000")
        return cls(
            development=development,
            instance=instance,
            store=store,
            secret_key=secret_key,
            master_key=master_key,
            master_key_id=env.get("MFA_WEB_MASTER_KEY_ID", "web-1"),
            hsm_module=hsm_module,
            hsm_token=env.get("MFA_WEB_HSM_TOKEN") or None,
            hsm_slot=int(slot_text) if slot_text is not None else None,
            hsm_key=env.get("MFA_WEB_HSM_KEY") or None,
            hsm_pin_file=env.get("MFA_WEB_HSM_PIN_FILE") or None,
            issuer=env.get("MFA_WEB_ISSUER", "libmfa example"),
            url=url,
            metrics_token=env.get("MFA_WEB_METRICS_TOKEN") or None,
        )


def public_url(url: str, development: bool) -> str:
    """``url`` as an origin with a trailing slash (``https://auth.example.com/``), or SettingsError.

    WebAuthn needs a secure context: ``https://``, or ``http://localhost`` in
    development. The host must be a domain name (an IP address cannot be a
    relying party id).
    """
    try:
        parts = urllib.parse.urlsplit(url)
        port = parts.port
    except ValueError:
        raise SettingsError("MFA_WEB_URL is not a URL: %r" % url) from None
    host = parts.hostname or ""
    secure = parts.scheme == "https" or (development and parts.scheme == "http" and host == "localhost")
    if not secure:
        raise SettingsError("MFA_WEB_URL must be https://%s" % ("... (or http://localhost:<port> in development)"
                                                                 if development else "..."))
    if (not host or host != host.lower() or host.replace(".", "").isdigit() or ":" in host
            or parts.path not in ("", "/") or parts.query or parts.fragment or parts.username or parts.password):
        raise SettingsError("MFA_WEB_URL must be the application's origin with a lower-case domain name, "
                            "such as https://auth.example.com/, not %r" % url)
    # A browser never writes the scheme's default port in an origin (libmfa refuses such an origin).
    default = 443 if parts.scheme == "https" else 80
    return "%s://%s%s/" % (parts.scheme, host, "" if port in (None, default) else ":%d" % port)


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
