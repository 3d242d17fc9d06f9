"""Staff answers in the log: the `staff_faq` table behind the console's Staff answers tab.

An entry is checked by `staff.validate` before it is stored as a draft; publishing it into the
index is `staff.publish`, which sets its status here.

Example:
    >>> entries = StaffLog(settings.log_db)
    >>> entry = entries.add_staff_entry("Is InfiniBand expensive?", "InfiniBand ...",
    ...                                 "infiniband", "ana", corpus)          # doctest: +SKIP
    >>> entries.staff_entry(entry.id).status                                 # doctest: +SKIP
    'draft'
"""

from __future__ import annotations

import sqlite3
from typing import Any

from .inputs import clean_text
from .logdb import LogDatabase, encodable, now, row_id
from .staff import StaffEntry, validate
from .views import StaffEntryRow


class StaffLog(LogDatabase):
    """The staff FAQ entries of the log (see `staff` for what an entry is)."""

    def add_staff_entry(self, question: str, answer: str, slug: str, author: str,
                        corpus: Any) -> StaffEntry:
        """Validate and store a draft staff FAQ entry; raise StaffEntryError if it is unfit."""
        question, answer, slug = validate(question, answer, slug, corpus)
        stamp = now()
        with self._write() as conn:
            cursor = conn.execute(
                "INSERT INTO staff_faq (question, answer, slug, author, created, updated, "
                "status) VALUES (?,?,?,?,?,?, 'draft')",
                (encodable(question), encodable(answer), slug,
                 clean_text(author or "")[:100], stamp, stamp))
        entry = self.staff_entry(int(cursor.lastrowid))
        assert entry is not None
        return entry

    def staff_entry(self, entry_id: int) -> StaffEntry | None:
        """Return one staff FAQ entry, or None."""
        key = row_id(entry_id)
        if key is None:
            return None
        rows = self._read("SELECT * FROM staff_faq WHERE id = ?", (key,))
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
        key = row_id(entry_id)
        if key is not None:
            with self._write() as conn:
                conn.execute("UPDATE staff_faq SET status = ?, updated = ? WHERE id = ?",
                             (status, now(), key))
        entry = self.staff_entry(entry_id)
        if entry is None:
            raise ValueError(f"no staff entry {entry_id}")
        return entry

    def delete_staff_entry(self, entry_id: int) -> None:
        """Delete a staff FAQ entry (unpublish it first)."""
        key = row_id(entry_id)
        if key is None:
            return
        with self._write() as conn:
            conn.execute("DELETE FROM staff_faq WHERE id = ?", (key,))

    def staff_rows(self, limit: int = 200) -> list[StaffEntryRow]:
        """Return the staff FAQ entries as console rows, newest first."""
        return [StaffEntryRow(id=e.id, status=e.status, question=e.question, answer=e.answer,
                              slug=e.slug, author=e.author, created=e.created)
                for e in self.staff_entries(limit=limit)]


def _staff(row: sqlite3.Row) -> StaffEntry:
    return StaffEntry(id=row["id"], question=row["question"], answer=row["answer"],
                      slug=row["slug"], author=row["author"], created=row["created"],
                      status=row["status"])
