"""Support requests in the log: the `handoffs` table behind the console's inbox.

Checked requests (see `handoff.validate`) are stored open, answered with the reply staff sent,
deleted one by one, and purged with the rest of the log after the retention period. Deleting
a person's email from every table is `Store.forget_email`.

Example:
    >>> requests = HandoffLog(settings.log_db)
    >>> handoff = requests.add_handoff(validate("Does RoCE need PFC?", "ana@example.com"))
    >>> requests.answer_handoff(handoff.id, "It helps; see the RoCE page.", "admin").status
    'answered'
"""

from __future__ import annotations

import dataclasses
import json
import sqlite3

from .handoff import MAX_REPLY, Handoff, HandoffRequest
from .inputs import Message, clean_text
from .logdb import LogDatabase, encodable, now, row_id
from .redact import redact
from .views import HandoffRow


class HandoffLog(LogDatabase):
    """The support requests of the log (see `handoff` for what a request is)."""

    def add_handoff(self, request: HandoffRequest, webhook_status: str = "") -> Handoff:
        """Store a checked visitor request (see handoff.validate) as an open one; return it.

        Personal data typed into the question or the conversation is redacted (see
        `redact`); the address to reply to is kept, in its own column.
        """
        conversation = json.dumps([{**dataclasses.asdict(m), "content": redact(m.content)}
                                   for m in request.conversation], ensure_ascii=False)
        with self._write() as conn:
            cursor = conn.execute(
                "INSERT INTO handoffs (created, question, conversation, email, session, page, "
                "webhook_status) VALUES (?,?,?,?,?,?,?)",
                (now(), redact(encodable(request.question)), encodable(conversation),
                 request.email, request.session, request.page, webhook_status))
        handoff = self.handoff(int(cursor.lastrowid))
        assert handoff is not None
        return handoff

    def handoff(self, handoff_id: int) -> Handoff | None:
        """Return one support request, or None."""
        key = row_id(handoff_id)
        if key is None:
            return None
        rows = self._read("SELECT * FROM handoffs WHERE id = ?", (key,))
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
        reply = encodable(str(reply or "")).strip()
        if not reply:
            raise ValueError("Write the reply you sent.")
        if len(reply) > MAX_REPLY:
            raise ValueError(f"The reply is longer than {MAX_REPLY} characters.")
        key = row_id(handoff_id)
        changed = 0
        if key is not None:
            with self._write() as conn:
                changed = conn.execute(
                    "UPDATE handoffs SET status = 'answered', reply = ?, answered_by = ?, "
                    "answered_at = ? WHERE id = ?",
                    (reply, clean_text(by or "")[:100], now(), key)).rowcount
        if not changed:
            raise ValueError(f"There is no request {handoff_id}.")
        handoff = self.handoff(handoff_id)
        assert handoff is not None
        return handoff

    def set_webhook_status(self, handoff_id: int, status: str) -> None:
        """Record what the webhook made of a request."""
        with self._write() as conn:
            conn.execute("UPDATE handoffs SET webhook_status = ? WHERE id = ?",
                         (encodable(status)[:300], int(handoff_id)))

    def delete_handoff(self, handoff_id: int) -> bool:
        """Delete one support request; return whether there was one."""
        key = row_id(handoff_id)
        if key is None:
            return False
        with self._write() as conn:
            return conn.execute("DELETE FROM handoffs WHERE id = ?", (key,)).rowcount > 0

    def handoff_rows(self, limit: int = 200) -> list[HandoffRow]:
        """Return the support requests as inbox rows, newest first."""
        return [HandoffRow(
            id=h.id, status=h.status, created=h.created, question=h.question,
            email=h.email or "",
            conversation="\n".join(f"{m.role}: {m.content}" for m in h.conversation),
            page=h.page, reply=h.reply, answered_by=h.answered_by, answered_at=h.answered_at,
            webhook_status=h.webhook_status) for h in self.handoffs(limit=limit)]


def _handoff(row: sqlite3.Row) -> Handoff:
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
