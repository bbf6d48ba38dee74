"""Accounts: email, password hash (Argon2id), email verification.

Passwords are hashed with argon2-cffi's ``PasswordHasher`` (Argon2id with the
parameters RFC 9106 recommends for memory-constrained servers: 64 MiB, 3
passes, 4 lanes); the hash carries its parameters, and a hash made with
older parameters is replaced at the next successful sign-in. An unknown
email costs the same hash as a wrong password, so response times do not tell
which emails have accounts.
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass
from typing import Optional

import argon2

from . import database

HASHER = argon2.PasswordHasher()
#: Verified against when the email is unknown, so that both cases cost one hash.
_DUMMY_HASH = HASHER.hash(secrets.token_urlsafe(16))

MIN_PASSWORD = 8
MAX_PASSWORD = 1024
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")


class AccountError(ValueError):
    """A sign-up that cannot be accepted (the message says why, for the user)."""


@dataclass
class Account:
    """One user of the application."""

    uid: str
    email: str
    email_verified: bool


def normalize_email(email: str) -> str:
    """The email as stored: trimmed, lower case."""
    return email.strip().lower()


def create(email: str, password: str, now: int) -> Account:
    """A new account with an unverified email; AccountError if the input is not acceptable."""
    email = normalize_email(email)
    if len(email) > 254 or not _EMAIL.match(email):
        raise AccountError("Enter a valid email address.")
    if len(password) < MIN_PASSWORD:
        raise AccountError("Choose a password of at least %d characters." % MIN_PASSWORD)
    if len(password) > MAX_PASSWORD:
        raise AccountError("Choose a password of at most %d characters." % MAX_PASSWORD)
    uid = secrets.token_urlsafe(16)
    inserted = database.get().insert_unique(
        "INSERT INTO web_accounts (uid, email, password_hash, email_verified, created_at) VALUES (?, ?, ?, 0, ?)",
        (uid, email, HASHER.hash(password), now))
    if not inserted:
        raise AccountError("An account with this email already exists. Sign in instead.")
    return Account(uid, email, False)


def find(uid: str) -> Optional[Account]:
    """The account with this uid, or None."""
    row = database.get().one("SELECT uid, email, email_verified FROM web_accounts WHERE uid = ?", (uid,))
    return Account(row[0], row[1], bool(row[2])) if row else None


def authenticate(email: str, password: str) -> Optional[Account]:
    """The account if ``password`` is its password, else None (same cost either way)."""
    db = database.get()
    row = db.one("SELECT uid, email, email_verified, password_hash FROM web_accounts WHERE email = ?",
                 (normalize_email(email),))
    if len(password) > MAX_PASSWORD:
        row = None  # no account has such a password; it still costs one hash
    try:
        HASHER.verify(row[3] if row else _DUMMY_HASH, password[:MAX_PASSWORD + 1])
    except argon2.exceptions.VerificationError:
        return None
    except argon2.exceptions.InvalidHashError:
        return None
    if row is None:
        return None
    if HASHER.check_needs_rehash(row[3]):
        db.execute("UPDATE web_accounts SET password_hash = ? WHERE uid = ?", (HASHER.hash(password), row[0]))
    return Account(row[0], row[1], bool(row[2]))


def check_password(account: Account, password: str) -> bool:
    """Whether ``password`` is the account's password (for step-up)."""
    found = authenticate(account.email, password)
    return found is not None and found.uid == account.uid


def mark_verified(uid: str, email: str) -> bool:
    """Mark the email verified if it is still the account's email; whether it was."""
    changed = database.get().execute("UPDATE web_accounts SET email_verified = 1 WHERE uid = ? AND email = ?",
                                     (uid, email))
    return changed > 0
