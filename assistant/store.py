"""The question and feedback log behind the support console, with every table of the log.

`Store` is the one object the app, the console and the CLI hold: questions and their
feedback (here), support requests (`handoff_log.HandoffLog`) and staff answers
(`staff_log.StaffLog`), all in one SQLite file (`logdb.LogDatabase`). Questions are stored
cleaned and capped (the first `max_question_chars` characters and the original length), and
deleted after the retention period by `purge()`; a person's email is deleted from every table
by `forget_email()`.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .gaps import (  # noqa: F401 (the gap rules are part of this API)
    LOW_CONFIDENCE,
    SIMILAR_WORDING,
    gap_reason,
    group_gaps,
    normalise,
    off_subject,
    staff_status,
)
from .handoff_log import HandoffLog
from .inputs import clean_text
from .logdb import SALT_FILE, SCHEMA_VERSION, encodable  # noqa: F401
from .logdb import now as _now
from .redact import redact
from .staff_log import StaffLog
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

log = logging.getLogger(__name__)

#: Rows a CSV export reads from SQLite at a time.
EXPORT_BATCH = 500
#: What an email deleted on request is replaced by in the text it was typed into.
FORGOTTEN = "[email deleted]"
#: Every column of every table a person's email can be in (`email` is emptied, the rest
#: have the address replaced by FORGOTTEN).
FORGETTABLE = {"questions": ("question", "answer"), "feedback": ("comment",),
               "handoffs": ("email", "question", "conversation", "reply"),
               "staff_faq": ("question", "answer")}


# -- the store -------------------------------------------------------------------------------

class Store(HandoffLog, StaffLog):
    """The question/feedback log: one SQLite file, opened on first use.

    Example:
        >>> store = Store(settings.log_db)
        >>> qid = store.log("what is nvlink?", answer, session="abc", ip="203.0.113.9")
        >>> store.feedback(qid, -1, "too short")
        >>> store.gaps()[:3]
    """

    # -- writes ----------------------------------------------------------------------------

    def log(self, question: str, answer: Answer, session: str = "", ip: str | None = None,
            page: str | None = None) -> int | None:
        """Record a question and its answer; return its id, or None if logging failed.

        The question is cleaned as answering cleans it, and only its first
        `max_question_chars` characters are kept, with its length as asked; personal data in
        it (and in the answer, which may echo it) is redacted (see `redact`).
        """
        try:
            text = redact(clean_text(question)[:self.max_question_chars])
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
                     redact(encodable(answer.text)),
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

        A comment of None keeps the comment already given; personal data in a comment is
        redacted. Returns False if it was not stored.
        """
        if rating not in (1, -1):
            raise ValueError("rating must be +1 or -1")
        if comment is not None:
            comment = redact(encodable(comment)[:self.max_question_chars])
        try:
            stamp = _now()
            with self._write() as conn:
                cursor = conn.execute(
                    "INSERT INTO feedback (question_id, rating, comment, created, updated) "
                    "SELECT id, ?, ?, ?, ? FROM questions WHERE id = ? "
                    "ON CONFLICT(question_id) DO UPDATE SET rating = excluded.rating, "
                    "comment = CASE WHEN ? IS NULL THEN feedback.comment "
                    "ELSE excluded.comment END, updated = excluded.updated",
                    (rating, (comment or "").strip(), stamp, stamp, int(question_id), comment))
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

    def forget_email(self, email: str) -> int:
        """Delete a person's email from every table (a request to be forgotten).

        The address goes from the requests' email column and from any text it was typed into
        (questions and answers, comments, requests and replies, staff answers), whatever its
        case; the rows stay, anonymous. Return how many rows changed.
        """
        address = clean_text(email)
        if not address or "@" not in address:
            raise ValueError("Give the email address whose data should be deleted.")
        pattern = re.compile(re.escape(address), re.IGNORECASE)
        folded = address.casefold()
        changed = 0
        with self._write() as conn:
            for table, columns in FORGETTABLE.items():
                found = " OR ".join(f"instr(casefold({c}), ?) > 0" for c in columns)
                rows = conn.execute(f"SELECT * FROM {table} WHERE {found}",
                                    [folded] * len(columns)).fetchall()
                for row in rows:
                    values = [_forget(row[c], c, pattern, folded) for c in columns]
                    conn.execute(f"UPDATE {table} SET "
                                 + ", ".join(f"{c} = ?" for c in columns) + " WHERE id = ?",
                                 (*values, row["id"]))
                    changed += 1
        return changed

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
        return [dataclasses.replace(g, staff=staff_status(g, staff)) for g in gaps]

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

def _forget(value: str | None, column: str, pattern: re.Pattern[str], folded: str) -> Any:
    """Return a column's value with the address gone: an email column that is the address
    becomes NULL (another person's stays), text has it replaced by FORGOTTEN."""
    if column == "email":
        return None if (value or "").casefold() == folded else value
    return pattern.sub(FORGOTTEN, value or "")


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
