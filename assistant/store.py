"""The question and feedback log behind the support console: SQLite in WAL mode.

Visitor IPs are never stored: only a salted hash, so that repeat askers can be counted without
knowing who they are. The salt is random per data dir and lives in a file beside the database;
both are readable by their owner only (0600). Questions are stored cleaned and capped (the first
`max_question_chars` characters and the original length), and deleted after the retention
period by `purge()`.
"""

from __future__ import annotations

import dataclasses
import hmac
import json
import logging
import os
import re
import secrets
import sqlite3
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .inputs import clean_text
from .views import (  # noqa: F401 (the row types and CSV helpers are part of this API)
    VIEWS,
    FeedbackRow,
    Gap,
    HandoffRow,
    QuestionRow,
    StaffEntryRow,
    TermCount,
    View,
    csv_columns,
    csv_text,
    rows_to_csv,
    rows_to_table,
    view,
)

if TYPE_CHECKING:
    from .answer import Answer
    from .handoff import Handoff, HandoffRequest
    from .staff import StaffEntry

log = logging.getLogger(__name__)

#: Answers below this confidence count as gaps in the corpus.
LOW_CONFIDENCE = 0.45
#: rapidfuzz token_set_ratio (0-100) at which two gap questions count as the same question.
SIMILAR_WORDING = 82
SALT_FILE = ".ip-salt"
SCHEMA_VERSION = 5
#: Rows a CSV export reads from SQLite at a time.
EXPORT_BATCH = 500

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


def _private(path: Path, create: bool = True) -> None:
    """Make a file readable by its owner only, creating it (empty) if asked."""
    try:
        if create:
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600))
        if path.exists() and path.stat().st_mode & 0o077:
            os.chmod(path, 0o600)
    except OSError:  # a read-only data dir still answers; logging then fails and says so
        log.warning("could not make %s private", path)


# -- the store -------------------------------------------------------------------------------

class Store:
    """The question/feedback log: one SQLite file, opened on first use.

    Example:
        >>> store = Store(settings.log_db)
        >>> qid = store.log("what is nvlink?", answer, session="abc", ip="203.0.113.9")
        >>> store.feedback(qid, -1, "too short")
        >>> store.gaps()[:3]
    """

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

    # -- writes ----------------------------------------------------------------------------

    def log(self, question: str, answer: Answer, session: str = "", ip: str | None = None,
            page: str | None = None) -> int | None:
        """Record a question and its answer; return its id, or None if logging failed.

        The question is cleaned as answering cleans it, and only its first
        `max_question_chars` characters are kept, with its length as asked.
        """
        try:
            text = clean_text(question)[:self.max_question_chars]
            length = len(question) if isinstance(question, str) else len(text)
            ip_hash = self.hash_ip(ip)
            citations = json.dumps([c.to_json() for c in answer.citations], ensure_ascii=False)
            tools = json.dumps([dataclasses.asdict(t) for t in answer.tool_calls],
                               ensure_ascii=False, default=str)
            timings = {k: round(v, 2) for k, v in answer.timings_ms.items()}
            with self._write() as conn:
                cursor = conn.execute(
                    "INSERT INTO questions (created, session, ip_hash, page, question, "
                    "question_chars, answer, kind, refused, confidence, subject, citations, "
                    "tools, total_ms, timings, intent, gap) "
                    "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                    (_now(), session or "", ip_hash, clean_text(page)[:200], text, length,
                     _encodable(answer.text),
                     answer.kind, int(answer.refused), float(answer.confidence),
                     answer.subject or "", citations, tools,
                     float(answer.timings_ms.get("total", 0.0)), json.dumps(timings),
                     answer.intent, answer.gap or off_subject(answer)))
                return int(cursor.lastrowid)
        except Exception:  # logging must never break answering
            log.exception("could not log a question to %s", self.path)
            return None

    def feedback(self, question_id: int, rating: int, comment: str | None = None) -> bool:
        """Record a visitor's rating (+1/-1) of an answer; a later call replaces it.

        A comment of None keeps the comment already given. Returns False if it was not stored.
        """
        if rating not in (1, -1):
            raise ValueError("rating must be +1 or -1")
        if comment is not None:
            comment = _encodable(comment)[:self.max_question_chars]
        try:
            now = _now()
            with self._write() as conn:
                cursor = conn.execute(
                    "INSERT INTO feedback (question_id, rating, comment, created, updated) "
                    "SELECT id, ?, ?, ?, ? FROM questions WHERE id = ? "
                    "ON CONFLICT(question_id) DO UPDATE SET rating = excluded.rating, "
                    "comment = CASE WHEN ? IS NULL THEN feedback.comment "
                    "ELSE excluded.comment END, updated = excluded.updated",
                    (rating, (comment or "").strip(), now, now, int(question_id), comment))
                return cursor.rowcount > 0
        except Exception:
            log.exception("could not store feedback in %s", self.path)
            return False

    def clear_feedback(self, question_id: int) -> None:
        """Forget the rating of an answer (the visitor took their thumb back)."""
        try:
            with self._write() as conn:
                conn.execute("DELETE FROM feedback WHERE question_id = ?", (int(question_id),))
        except Exception:
            log.exception("could not clear feedback in %s", self.path)

    def purge(self, days: int, now: datetime | None = None) -> int:
        """Delete questions (with their feedback) and support requests (with their emails)
        older than `days` days; return how many questions and requests went.

        `days` of 0 keeps everything.
        """
        if days <= 0:
            return 0
        cutoff = ((now or datetime.now(UTC)) - timedelta(days=days)).isoformat(
            timespec="seconds")
        with self._write() as conn:
            deleted = conn.execute("DELETE FROM questions WHERE created < ?",
                                   (cutoff,)).rowcount
            # Feedback goes with its question (ON DELETE CASCADE); this catches any orphan.
            conn.execute("DELETE FROM feedback WHERE question_id NOT IN "
                         "(SELECT id FROM questions)")
            handoffs = conn.execute("DELETE FROM handoffs WHERE created < ?",
                                    (cutoff,)).rowcount
        if deleted or handoffs:
            log.info("deleted %d questions and %d support requests older than %d days from %s",
                     deleted, handoffs, days, self.path)
        return int(deleted) + int(handoffs)

    # -- support requests (handoffs) ---------------------------------------------------------

    def add_handoff(self, request: HandoffRequest, webhook_status: str = "") -> Handoff:
        """Store a checked visitor request (see handoff.validate) as an open one; return it."""
        conversation = json.dumps([dataclasses.asdict(m) for m in request.conversation],
                                  ensure_ascii=False)
        with self._write() as conn:
            cursor = conn.execute(
                "INSERT INTO handoffs (created, question, conversation, email, session, page, "
                "webhook_status) VALUES (?,?,?,?,?,?,?)",
                (_now(), _encodable(request.question), _encodable(conversation),
                 request.email, request.session, request.page, webhook_status))
        handoff = self.handoff(int(cursor.lastrowid))
        assert handoff is not None
        return handoff

    def handoff(self, handoff_id: int) -> Handoff | None:
        """Return one support request, or None."""
        rows = self._read("SELECT * FROM handoffs WHERE id = ?", (int(handoff_id),))
        return _handoff(rows[0]) if rows else None

    def handoffs(self, status: str | None = None, limit: int = 1000) -> list[Handoff]:
        """Return support requests (of one status if given), newest first."""
        if status is None:
            rows = self._read("SELECT * FROM handoffs ORDER BY id DESC LIMIT ?", (limit,))
        else:
            rows = self._read("SELECT * FROM handoffs WHERE status = ? ORDER BY id DESC "
                              "LIMIT ?", (status, limit))
        return [_handoff(r) for r in rows]

    def answer_handoff(self, handoff_id: int, reply: str, by: str) -> Handoff:
        """Mark a request answered with the reply staff sent; raise ValueError if unfit."""
        from .handoff import MAX_REPLY

        reply = _encodable(str(reply or "")).strip()
        if not reply:
            raise ValueError("Write the reply you sent.")
        if len(reply) > MAX_REPLY:
            raise ValueError(f"The reply is longer than {MAX_REPLY} characters.")
        with self._write() as conn:
            changed = conn.execute(
                "UPDATE handoffs SET status = 'answered', reply = ?, answered_by = ?, "
                "answered_at = ? WHERE id = ?",
                (reply, clean_text(by or "")[:100], _now(), int(handoff_id))).rowcount
        if not changed:
            raise ValueError(f"There is no request {int(handoff_id)}.")
        handoff = self.handoff(handoff_id)
        assert handoff is not None
        return handoff

    def set_webhook_status(self, handoff_id: int, status: str) -> None:
        """Record what the webhook made of a request."""
        with self._write() as conn:
            conn.execute("UPDATE handoffs SET webhook_status = ? WHERE id = ?",
                         (_encodable(status)[:300], int(handoff_id)))

    def delete_handoff(self, handoff_id: int) -> bool:
        """Delete one support request; return whether there was one."""
        with self._write() as conn:
            return conn.execute("DELETE FROM handoffs WHERE id = ?",
                                (int(handoff_id),)).rowcount > 0

    def forget_email(self, email: str) -> int:
        """Delete a person's email from every support request (a request to be forgotten).

        The address goes from the email column and from any text of the requests it was
        typed into (question, conversation, reply), whatever its case; the requests stay,
        anonymous. Return how many requests changed.
        """
        address = clean_text(email)
        if not address or "@" not in address:
            raise ValueError("Give the email address whose data should be deleted.")
        pattern = re.compile(re.escape(address), re.IGNORECASE)
        changed = 0
        with self._write() as conn:
            rows = conn.execute(
                "SELECT id, email, question, conversation, reply FROM handoffs "
                "WHERE email = ? COLLATE NOCASE OR question LIKE ? ESCAPE '\\' "
                "OR conversation LIKE ? ESCAPE '\\' OR reply LIKE ? ESCAPE '\\'",
                (address, *[f"%{_like(address)}%"] * 3)).fetchall()
            for r in rows:
                email_of = None if (r["email"] or "").lower() == address.lower() else r["email"]
                conn.execute(
                    "UPDATE handoffs SET email = ?, question = ?, conversation = ?, reply = ? "
                    "WHERE id = ?",
                    (email_of, *(pattern.sub(FORGOTTEN, r[c])
                                 for c in ("question", "conversation", "reply")), r["id"]))
                changed += 1
        return changed

    def handoff_rows(self, limit: int = 200) -> list[HandoffRow]:
        """Return the support requests as inbox rows, newest first."""
        return [HandoffRow(
            id=h.id, status=h.status, created=h.created, question=h.question,
            email=h.email or "",
            conversation="\n".join(f"{m.role}: {m.content}" for m in h.conversation),
            page=h.page, reply=h.reply, answered_by=h.answered_by, answered_at=h.answered_at,
            webhook_status=h.webhook_status) for h in self.handoffs(limit=limit)]

    # -- views -----------------------------------------------------------------------------

    def count(self) -> int:
        """Return how many questions are logged."""
        return int(self._read("SELECT COUNT(*) FROM questions")[0][0])

    def recent(self, limit: int = 100, before: int | None = None) -> list[QuestionRow]:
        """Return the latest questions with their answers, cited pages and timing.

        `before` (a question id) pages back through the log: only older questions.
        """
        rows = self._read(
            "SELECT q.*, COALESCE(f.rating, 0) AS rating FROM questions q "
            "LEFT JOIN feedback f ON f.question_id = q.id WHERE q.id < ? "
            "ORDER BY q.id DESC LIMIT ?", (before if before is not None else 2**62, limit))
        return [QuestionRow(
            id=r["id"], created=r["created"], question=r["question"], answer=r["answer"],
            kind=r["kind"], refused=bool(r["refused"]), confidence=round(r["confidence"], 3),
            subject=r["subject"], cited="; ".join(_cited_titles(r["citations"])),
            total_ms=round(r["total_ms"], 1), page=r["page"], rating=r["rating"],
            question_chars=r["question_chars"] or len(r["question"])) for r in rows]

    def gaps(self, limit: int = 100, threshold: float = LOW_CONFIDENCE,
             similarity: int = SIMILAR_WORDING, scan: int = 5000) -> list[Gap]:
        """Return refused, low-confidence and clarify questions by wording, most asked first.

        Only the latest `scan` such questions are grouped.
        """
        rows = self._read(
            "SELECT q.question, q.kind, q.confidence, q.created, q.refused, q.gap, q.page, "
            "COALESCE(f.rating, 0) AS rating FROM questions q "
            "LEFT JOIN feedback f ON f.question_id = q.id "
            "WHERE q.kind != 'message' AND (q.refused = 1 OR q.kind = 'clarify' "
            "OR q.confidence < ? OR q.gap != '' OR f.rating = -1) "
            "ORDER BY q.id DESC LIMIT ?", (threshold, scan))
        gaps = group_gaps([(r["question"], gap_reason(r, threshold), r["confidence"],
                            r["created"], r["page"]) for r in rows], similarity)[:limit]
        staff = {normalise(e.question): e.status for e in self.staff_entries()
                 if e.status != "retired"}
        return [dataclasses.replace(g, staff=_staff_status(g, staff)) for g in gaps]

    # -- staff FAQ entries -------------------------------------------------------------------

    def add_staff_entry(self, question: str, answer: str, slug: str, author: str,
                        corpus: Any) -> StaffEntry:
        """Validate and store a draft staff FAQ entry; raise StaffEntryError if it is unfit."""
        from .staff import validate

        question, answer, slug = validate(question, answer, slug, corpus)
        now = _now()
        with self._write() as conn:
            cursor = conn.execute(
                "INSERT INTO staff_faq (question, answer, slug, author, created, updated, "
                "status) VALUES (?,?,?,?,?,?, 'draft')",
                (_encodable(question), _encodable(answer), slug,
                 clean_text(author or "")[:100], now, now))
        entry = self.staff_entry(int(cursor.lastrowid))
        assert entry is not None
        return entry

    def staff_entry(self, entry_id: int) -> StaffEntry | None:
        """Return one staff FAQ entry, or None."""
        rows = self._read("SELECT * FROM staff_faq WHERE id = ?", (int(entry_id),))
        return _staff(rows[0]) if rows else None

    def staff_entries(self, status: str | None = None, limit: int = 1000) -> list[StaffEntry]:
        """Return staff FAQ entries (of one status if given), newest first."""
        if status is None:
            rows = self._read("SELECT * FROM staff_faq ORDER BY id DESC LIMIT ?", (limit,))
        else:
            rows = self._read("SELECT * FROM staff_faq WHERE status = ? ORDER BY id DESC "
                              "LIMIT ?", (status, limit))
        return [_staff(r) for r in rows]

    def set_staff_status(self, entry_id: int, status: str) -> StaffEntry:
        """Set an entry's status (draft, published or retired) and return it."""
        with self._write() as conn:
            conn.execute("UPDATE staff_faq SET status = ?, updated = ? WHERE id = ?",
                         (status, _now(), int(entry_id)))
        entry = self.staff_entry(entry_id)
        if entry is None:
            raise ValueError(f"no staff entry {entry_id}")
        return entry

    def delete_staff_entry(self, entry_id: int) -> None:
        """Delete a staff FAQ entry (unpublish it first)."""
        with self._write() as conn:
            conn.execute("DELETE FROM staff_faq WHERE id = ?", (int(entry_id),))

    def staff_rows(self, limit: int = 200) -> list[StaffEntryRow]:
        """Return the staff FAQ entries as console rows, newest first."""
        return [StaffEntryRow(id=e.id, status=e.status, question=e.question, answer=e.answer,
                              slug=e.slug, author=e.author, created=e.created)
                for e in self.staff_entries(limit=limit)]

    def feedback_rows(self, limit: int = 100) -> list[FeedbackRow]:
        """Return the latest feedback, dislikes and likes, with comments and the answer given."""
        rows = self._read(
            "SELECT f.question_id, f.updated, f.rating, f.comment, q.question, q.answer, "
            "q.subject FROM feedback f JOIN questions q ON q.id = f.question_id "
            "ORDER BY f.updated DESC, f.id DESC LIMIT ?", (limit,))
        return [FeedbackRow(question_id=r["question_id"], created=r["updated"],
                            rating=r["rating"], comment=r["comment"], question=r["question"],
                            answer=r["answer"], subject=r["subject"]) for r in rows]

    def top_terms(self, limit: int = 50) -> list[TermCount]:
        """Return the most asked-about terms (the answers' subjects), most asked first."""
        rows = self._read(
            "SELECT q.subject, COUNT(*) AS asks, "
            "SUM(CASE WHEN f.rating = 1 THEN 1 ELSE 0 END) AS likes, "
            "SUM(CASE WHEN f.rating = -1 THEN 1 ELSE 0 END) AS dislikes, "
            "MAX(q.created) AS last_asked FROM questions q "
            "LEFT JOIN feedback f ON f.question_id = q.id WHERE q.subject != '' "
            "GROUP BY q.subject ORDER BY asks DESC, last_asked DESC LIMIT ?", (limit,))
        return [TermCount(subject=r["subject"], asks=r["asks"], likes=r["likes"],
                          dislikes=r["dislikes"], last_asked=r["last_asked"]) for r in rows]

    def rows(self, name: str, limit: int = 200) -> list[Any]:
        """Return the rows of one view (see VIEWS), newest or most frequent first."""
        return getattr(self, view(name).fetch)(limit=limit)

    def iter_csv(self, name: str, private: bool = False) -> Iterator[str]:
        """Yield every row of one view as CSV text, a batch at a time (for a streamed download).

        A view's private columns (the inbox's emails) are left out unless `private` is set.
        The latest questions are read EXPORT_BATCH rows at a time, so a large log is never
        held in memory at once; the other views are of bounded size.
        """
        spec = view(name)
        names = csv_columns(spec, private)
        yield csv_text([], names, header=True)
        if name != "recent":
            rows = rows_to_table(self.rows(name, limit=100_000))
            for i in range(0, len(rows), EXPORT_BATCH):
                yield csv_text(rows[i:i + EXPORT_BATCH], names)
            return
        before = None
        while batch := self.recent(limit=EXPORT_BATCH, before=before):
            yield csv_text(rows_to_table(batch), names)
            before = batch[-1].id

    def export_csv(self, name: str, path: str | os.PathLike[str],
                   private: bool = False) -> Path:
        """Write one view (see VIEWS) to a CSV file and return its path (emails only if
        `private`)."""
        view(name)  # an unknown view fails before the file is created
        out = Path(path)
        with open(out, "w", encoding="utf-8", newline="") as f:
            f.writelines(self.iter_csv(name, private))
        return out


# -- pure helpers ----------------------------------------------------------------------------

def _encodable(text: Any) -> str:
    """Return text SQLite can store: lone surrogates dropped, line breaks kept."""
    return str(text).encode("utf-8", "ignore").decode("utf-8")


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _cited_titles(citations_json: str) -> list[str]:
    try:
        items = json.loads(citations_json)
    except ValueError:
        return []
    titles: list[str] = []
    for item in items:
        title = item.get("title") or item.get("slug") or ""
        if title and title not in titles:
            titles.append(title)
    return titles


#: What an email deleted on request is replaced by in the text it was typed into.
FORGOTTEN = "[email deleted]"


def _like(text: str) -> str:
    """Return text for a LIKE pattern: its own % and _ match only themselves."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _handoff(row: sqlite3.Row) -> Handoff:
    from .handoff import Handoff
    from .inputs import Message

    try:
        conversation = tuple(Message(str(m["role"]), str(m["content"]))
                             for m in json.loads(row["conversation"]))
    except (ValueError, KeyError, TypeError):
        conversation = ()
    return Handoff(id=row["id"], created=row["created"], question=row["question"],
                   conversation=conversation, email=row["email"], session=row["session"],
                   page=row["page"], status=row["status"], reply=row["reply"],
                   answered_by=row["answered_by"], answered_at=row["answered_at"],
                   webhook_status=row["webhook_status"])


def _staff(row: sqlite3.Row) -> StaffEntry:
    from .staff import StaffEntry

    return StaffEntry(id=row["id"], question=row["question"], answer=row["answer"],
                      slug=row["slug"], author=row["author"], created=row["created"],
                      status=row["status"])


def _staff_status(gap: Gap, staff: dict[str, str]) -> str:
    for wording in [gap.question, *gap.examples]:
        status = staff.get(normalise(wording))
        if status:
            return status
    return ""


def gap_reason(row: Any, threshold: float = LOW_CONFIDENCE) -> str:
    """Return why a logged question is a gap: refusal, clarify, low confidence, the
    composer's reason (unsettled, off-subject), thumbs-down; "" when it is not one."""
    if row["refused"]:
        return "refusal"
    if row["kind"] == "clarify":
        return "clarify"
    if row["gap"]:
        return row["gap"]
    if row["confidence"] < threshold:
        return "low confidence"
    if row["rating"] == -1:
        return "thumbs-down"
    return ""


def off_subject(answer: Answer) -> str:
    """Return "off-subject" when an answer's first sentence does not name the question's
    main term (its subject: the page's title or slug), else ""."""
    if answer.kind != "answer" or answer.refused or not answer.subject:
        return ""
    first = re.split(r"(?<=[.!?])\s", answer.text.strip(), maxsplit=1)[0].lower()
    names = {answer.subject.lower(), answer.subject.replace("-", " ").lower()}
    names |= {c.title.lower() for c in answer.citations if c.slug == answer.subject}
    flat = normalise(first)
    if any(name and (name in first or normalise(name) in flat) for name in names):
        return ""
    return "off-subject"


_WORDS = re.compile(r"[^\w\s]+")


def normalise(question: str) -> str:
    """Return a question's wording reduced for comparison: lower case, no punctuation."""
    return " ".join(_WORDS.sub(" ", question.lower()).split())


def group_gaps(rows: Iterable[tuple], similarity: int = SIMILAR_WORDING) -> list[Gap]:
    """Group (question, kind, confidence, created[, page]) rows, newest first, by similar
    wording; a gap lists the pages its questions were asked on."""
    from rapidfuzz import fuzz, process

    keys: list[str] = []
    groups: list[dict[str, Any]] = []
    for question, kind, confidence, created, *page in rows:
        key = normalise(question)
        match = process.extractOne(key, keys, scorer=fuzz.token_set_ratio,
                                   score_cutoff=similarity) if key and keys else None
        if match is None:
            keys.append(key)
            groups.append({"question": question, "count": 1, "last": created,
                           "kinds": [kind], "confidence": confidence, "examples": [],
                           "pages": [p for p in page if p]})
            continue
        group = groups[match[2]]
        group["pages"] += [p for p in page if p and p not in group["pages"]]
        group["count"] += 1
        group["confidence"] = max(group["confidence"], confidence)
        if kind not in group["kinds"]:
            group["kinds"].append(kind)
        if (question != group["question"] and question not in group["examples"]
                and len(group["examples"]) < 5):
            group["examples"].append(question)
    gaps = [Gap(question=g["question"], count=g["count"], last_asked=g["last"],
                kinds=", ".join(g["kinds"]), confidence=round(g["confidence"], 3),
                examples=g["examples"], pages=", ".join(g["pages"])) for g in groups]
    # Stable sort: equal counts keep the newest-first order of their latest question.
    return sorted(gaps, key=lambda g: -g.count)
