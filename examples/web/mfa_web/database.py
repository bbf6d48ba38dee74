"""The application's own tables (accounts, sessions, used app-check tokens, audit events).

libmfa keeps the second factors in its store; the application keeps what an
auth server keeps anyway: who its users are, their password hashes, and its
sessions. On SQLite they live in a file of their own beside libmfa's; on
PostgreSQL in the same database as libmfa's tables (names start with
``web_``), so that several servers share them.

One connection per request (``flask.g``), in autocommit mode: every write
here is a single statement.
"""

from __future__ import annotations

import sqlite3
import urllib.parse
from typing import Any, List, Optional, Sequence, Tuple, Type

import flask

SCHEMA = (
    """CREATE TABLE IF NOT EXISTS web_accounts (
        uid TEXT PRIMARY KEY,
        email TEXT NOT NULL UNIQUE,
        password_hash TEXT NOT NULL,
        email_verified INTEGER NOT NULL DEFAULT 0,
        created_at BIGINT NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS web_sessions (
        id_hash TEXT PRIMARY KEY,
        data TEXT NOT NULL,
        expires_at BIGINT NOT NULL)""",
    "CREATE INDEX IF NOT EXISTS web_sessions_expiry ON web_sessions (expires_at)",
    """CREATE TABLE IF NOT EXISTS web_app_checks (
        nonce TEXT PRIMARY KEY,
        expires_at BIGINT NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS web_audit (
        id {serial},
        time BIGINT NOT NULL,
        uid TEXT NOT NULL,
        kind TEXT NOT NULL,
        factor_id TEXT,
        enrollment_id TEXT,
        detail TEXT NOT NULL)""",
    "CREATE INDEX IF NOT EXISTS web_audit_user ON web_audit (uid, time)",
    "CREATE INDEX IF NOT EXISTS web_audit_time ON web_audit (time)",
)

#: An ever-growing row id, in each dialect.
SERIAL = {False: "INTEGER PRIMARY KEY AUTOINCREMENT", True: "BIGSERIAL PRIMARY KEY"}

Row = Tuple[Any, ...]


class Database:
    """Opens connections to the SQLite file or PostgreSQL database named by ``location``."""

    def __init__(self, location: str) -> None:
        self.location = location
        self.postgres = location.startswith(("postgres://", "postgresql://"))
        if self.postgres:
            import psycopg  # only PostgreSQL deployments need the driver

            self._errors: Tuple[Type[BaseException], ...] = (psycopg.errors.UniqueViolation,)
            self._conninfo = _without_libmfa_parameters(location)
        else:
            self._errors = (sqlite3.IntegrityError,)
        with self.connect() as connection:
            if not self.postgres:
                connection.execute("PRAGMA journal_mode=WAL")
            for statement in SCHEMA:
                connection.execute(statement.replace("{serial}", SERIAL[self.postgres]))

    def connect(self) -> Connection:
        """A new connection (close it, or use it in a ``with`` block)."""
        if self.postgres:
            import psycopg

            return Connection(psycopg.connect(self._conninfo, autocommit=True), "%s", self._errors)
        raw = sqlite3.connect(self.location, timeout=10, isolation_level=None, check_same_thread=False)
        raw.execute("PRAGMA busy_timeout=10000")
        return Connection(raw, "?", self._errors)


class Connection:
    """A DB-API connection with ``?`` placeholders on both databases."""

    def __init__(self, raw: Any, placeholder: str, unique_errors: Tuple[Type[BaseException], ...]) -> None:
        self._raw = raw
        self._placeholder = placeholder
        self._unique_errors = unique_errors

    def __enter__(self) -> Connection:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the connection."""
        self._raw.close()

    def execute(self, sql: str, parameters: Sequence[Any] = ()) -> int:
        """Run one statement; return the number of rows it changed."""
        cursor = self._raw.cursor()
        try:
            cursor.execute(self._sql(sql), tuple(parameters))
            return int(cursor.rowcount)
        finally:
            cursor.close()

    def insert_unique(self, sql: str, parameters: Sequence[Any] = ()) -> bool:
        """Run an INSERT; False (nothing inserted) when it breaks a unique constraint."""
        try:
            self.execute(sql, parameters)
        except self._unique_errors:
            return False
        return True

    def one(self, sql: str, parameters: Sequence[Any] = ()) -> Optional[Row]:
        """The first row of a query, or None."""
        rows = self.all(sql, parameters)
        return rows[0] if rows else None

    def all(self, sql: str, parameters: Sequence[Any] = ()) -> List[Row]:
        """Every row of a query."""
        cursor = self._raw.cursor()
        try:
            cursor.execute(self._sql(sql), tuple(parameters))
            return [tuple(row) for row in cursor.fetchall()]
        finally:
            cursor.close()

    def _sql(self, sql: str) -> str:
        return sql if self._placeholder == "?" else sql.replace("?", self._placeholder)


def _without_libmfa_parameters(url: str) -> str:
    """The URL without libmfa's own parameters (``mfa_deadline_ms``), which libpq does not know."""
    parts = urllib.parse.urlsplit(url)
    query = [(name, value) for name, value in urllib.parse.parse_qsl(parts.query, keep_blank_values=True)
             if not name.startswith("mfa_")]
    return urllib.parse.urlunsplit(parts._replace(query=urllib.parse.urlencode(query)))


def get() -> Connection:
    """The connection of the current request (or application context), opened on first use."""
    connection: Optional[Connection] = flask.g.get("db")
    if connection is None:
        database: Database = flask.current_app.extensions["mfa_web.database"]
        connection = database.connect()
        flask.g.db = connection
    return connection


def close(_error: Optional[BaseException] = None) -> None:
    """Close the current context's connection (a teardown handler)."""
    connection: Optional[Connection] = flask.g.pop("db", None)
    if connection is not None:
        connection.close()
