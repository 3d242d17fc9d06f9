"""The log's SQLite file: schema, migrations, one locked connection, the private salt.

`LogDatabase` is the plumbing the log's tables share (questions and feedback in `store`,
support requests in `handoff_log`, staff answers in `staff_log`): the file is created
readable by its owner only (0600), opened in WAL mode on first use, and written one
transaction at a time. Visitor IPs are never stored: only a salted hash, so that repeat askers
can be counted without knowing who they are. The salt is random per data dir and lives in a
file beside the database, private too.

Example:
    >>> db = LogDatabase(settings.log_db)       # nothing is opened yet
    >>> db.journal_mode()
    'wal'
"""

from __future__ import annotations

import hmac
import logging
import os
import secrets
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .redact import redact, redact_json

log = logging.getLogger(__name__)

SALT_FILE = ".ip-salt"
SCHEMA_VERSION = 6

_SCHEMA = """
CREATE TABLE IF NOT EXISTS questions (
    id          INTEGER PRIMARY KEY,
    created     TEXT NOT NULL,
    session     TEXT NOT NULL DEFAULT '',
    ip_hash     TEXT NOT NULL DEFAULT '',
    page        TEXT NOT NULL DEFAULT '',
    question    TEXT NOT NULL,
    question_chars INTEGER NOT NULL DEFAULT 0,
    answer      TEXT NOT NULL,
    kind        TEXT NOT NULL,
    refused     INTEGER NOT NULL DEFAULT 0,
    confidence  REAL NOT NULL DEFAULT 0,
    subject     TEXT NOT NULL DEFAULT '',
    citations   TEXT NOT NULL DEFAULT '[]',
    tools       TEXT NOT NULL DEFAULT '[]',
    total_ms    REAL NOT NULL DEFAULT 0,
    timings     TEXT NOT NULL DEFAULT '{}',
    intent      TEXT NOT NULL DEFAULT '',
    gap         TEXT NOT NULL DEFAULT ''
);
CREATE TABLE IF NOT EXISTS staff_faq (
    id          INTEGER PRIMARY KEY,
    question    TEXT NOT NULL,
    answer      TEXT NOT NULL,
    slug        TEXT NOT NULL,
    author      TEXT NOT NULL DEFAULT '',
    created     TEXT NOT NULL,
    updated     TEXT NOT NULL,
    status      TEXT NOT NULL DEFAULT 'draft'
                CHECK (status IN ('draft', 'published', 'retired'))
);
CREATE TABLE IF NOT EXISTS handoffs (
    id          INTEGER PRIMARY KEY,
    created     TEXT NOT NULL,
    question    TEXT NOT NULL,
    conversation TEXT NOT NULL DEFAULT '[]',
    email       TEXT,
    session     TEXT NOT NULL DEFAULT '',
    page        TEXT NOT NULL DEFAULT '',
    status      TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'answered')),
    reply       TEXT NOT NULL DEFAULT '',
    answered_by TEXT NOT NULL DEFAULT '',
    answered_at TEXT NOT NULL DEFAULT '',
    webhook_status TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS handoffs_created ON handoffs(created);
CREATE INDEX IF NOT EXISTS questions_created ON questions(created);
CREATE INDEX IF NOT EXISTS questions_subject ON questions(subject);
CREATE TABLE IF NOT EXISTS feedback (
    id          INTEGER PRIMARY KEY,
    question_id INTEGER NOT NULL UNIQUE REFERENCES questions(id) ON DELETE CASCADE,
    rating      INTEGER NOT NULL CHECK (rating IN (-1, 1)),
    comment     TEXT NOT NULL DEFAULT '',
    created     TEXT NOT NULL,
    updated     TEXT NOT NULL
);
"""

def _migrate(conn: sqlite3.Connection) -> None:
    """Bring a log written by an older version up to this schema (columns only added)."""
    have = {row[1] for row in conn.execute("PRAGMA table_info(questions)")}
    for column in ("intent", "gap"):
        if column not in have:
            conn.execute(f"ALTER TABLE questions ADD COLUMN {column} TEXT NOT NULL DEFAULT ''")
    if "question_chars" not in have:
        conn.execute("ALTER TABLE questions ADD COLUMN question_chars INTEGER NOT NULL DEFAULT 0")
    if conn.execute("PRAGMA user_version").fetchone()[0] < 6:
        _redact_old(conn)


#: What visitors typed, by table, that versions before schema 6 stored unredacted.
VISITOR_TEXT = {"questions": ("question", "answer"), "feedback": ("comment",),
                "handoffs": ("question",)}


def _redact_old(conn: sqlite3.Connection) -> None:
    """Redact personal data from rows stored before redaction existed (once, at schema 6)."""
    changed = 0
    conn.execute("BEGIN IMMEDIATE")
    try:
        for table, columns in VISITOR_TEXT.items():
            for column in columns:
                rows = conn.execute(f"SELECT id, {column} FROM {table}").fetchall()
                for key, text in rows:
                    if (clean := redact(text)) != (text or ""):
                        conn.execute(f"UPDATE {table} SET {column} = ? WHERE id = ?",
                                     (clean, key))
                        changed += 1
        for key, text in conn.execute("SELECT id, conversation FROM handoffs").fetchall():
            if (clean := redact_json(text or "[]")) != text:
                conn.execute("UPDATE handoffs SET conversation = ? WHERE id = ?", (clean, key))
                changed += 1
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    if changed:
        log.info("redacted personal data from %d rows an older version stored", changed)


def _private(path: Path, create: bool = True) -> None:
    """Make a file readable by its owner only, creating it (empty) if asked."""
    try:
        if create:
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600))
        if path.exists() and path.stat().st_mode & 0o077:
            os.chmod(path, 0o600)
    except OSError:  # a read-only data dir still answers; logging then fails and says so
        log.warning("could not make %s private", path)


class LogDatabase:
    """The SQLite file under the log: opened on first use, one connection under a lock."""

    def __init__(self, path: str | os.PathLike[str], max_question_chars: int = 1000):
        self.path = Path(path)
        self.max_question_chars = max_question_chars
        self._conn: sqlite3.Connection | None = None
        self._salt: bytes | None = None
        # One connection, used under a lock: writes are serialised by SQLite anyway, and the
        # console's reads are rare and small.
        self._lock = threading.RLock()

    # -- connection ------------------------------------------------------------------------

    def _connect(self) -> sqlite3.Connection:
        if self._conn is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            _private(self.path)  # before SQLite creates it, which would honour the umask
            conn = sqlite3.connect(self.path, timeout=30, isolation_level=None,
                                   check_same_thread=False)
            conn.row_factory = sqlite3.Row
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute("PRAGMA foreign_keys=ON")
            conn.execute("PRAGMA busy_timeout=30000")
            # Case-insensitive matching of any script, not only ASCII (SQLite's LIKE).
            conn.create_function("casefold", 1, _casefold, deterministic=True)
            conn.executescript(_SCHEMA)
            _migrate(conn)
            conn.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
            for suffix in ("-wal", "-shm"):  # SQLite copies the database's mode; make sure
                _private(self.path.with_name(self.path.name + suffix), create=False)
            self._conn = conn
        return self._conn

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """Run the block as one transaction (BEGIN IMMEDIATE so writers queue, not fail)."""
        with self._lock:
            conn = self._connect()
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise

    def _read(self, sql: str, params: Sequence[Any] = ()) -> list[sqlite3.Row]:
        with self._lock:
            return self._connect().execute(sql, params).fetchall()

    def close(self) -> None:
        """Close the connection (it is reopened on next use)."""
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    def journal_mode(self) -> str:
        """Return SQLite's journal mode for the file ("wal")."""
        return str(self._read("PRAGMA journal_mode")[0][0])

    # -- privacy ---------------------------------------------------------------------------

    def _salt_bytes(self) -> bytes:
        if self._salt is not None:  # read without the lock: the access log hashes on the
            return self._salt       # event loop, which must never wait for a log write
        with self._lock:
            if self._salt is None:
                path = self.path.parent / SALT_FILE
                if not path.exists():
                    path.parent.mkdir(parents=True, exist_ok=True)
                    # Written aside, then linked into place: a reader in another thread or
                    # process never sees a half-written salt, and the first writer wins.
                    tmp = path.with_name(f"{SALT_FILE}.{secrets.token_hex(6)}.tmp")
                    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                    with os.fdopen(fd, "w") as f:
                        f.write(secrets.token_hex(32))
                    try:
                        os.link(tmp, path)
                    except FileExistsError:
                        pass
                    finally:
                        tmp.unlink(missing_ok=True)
                _private(path, create=False)
                salt = path.read_text().strip()
                if not salt:  # never hash with an empty salt
                    raise OSError(f"{path} is empty; delete it to make a new salt")
                self._salt = salt.encode()
            return self._salt

    def hash_ip(self, ip: str | None) -> str:
        """Return the salted hash that stands for a visitor IP ("" for none)."""
        if not ip:
            return ""
        return hmac.new(self._salt_bytes(), ip.encode(), "sha256").hexdigest()[:32]


# -- helpers the tables share ------------------------------------------------------------------

#: The largest id SQLite stores (a signed 64-bit integer); a larger one names no row.
MAX_ROW_ID = 2**63 - 1


def row_id(value: Any) -> int | None:
    """Return a whole number that can name a row, or None (too large, not finite, not a
    number): SQLite cannot even be asked about 99999999999999999999999."""
    try:
        number = int(value)
    except (TypeError, ValueError, OverflowError):
        return None
    if isinstance(value, float) and number != value:
        return None
    return number if 0 <= number <= MAX_ROW_ID else None


def encodable(text: Any) -> str:
    """Return text SQLite can store: lone surrogates dropped, line breaks kept."""
    return str(text).encode("utf-8", "ignore").decode("utf-8")


def now() -> str:
    """Return the current time as the log stores it (UTC, ISO 8601, seconds)."""
    return datetime.now(UTC).isoformat(timespec="seconds")


def _casefold(text: Any) -> str | None:
    return text.casefold() if isinstance(text, str) else None
