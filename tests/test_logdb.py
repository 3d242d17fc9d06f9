"""The log's SQLite file: ids SQLite can hold, and what an older version left behind."""

from __future__ import annotations

import json
import sqlite3

import pytest

from assistant.logdb import MAX_ROW_ID, row_id
from assistant.store import Store


@pytest.mark.parametrize(("value", "expected"), [
    (7, 7), ("12", 12), (3.0, 3), (0, 0), (MAX_ROW_ID, MAX_ROW_ID),
    (MAX_ROW_ID + 1, None), (99999999999999999999999, None), ("99999999999999999999999", None),
    (float("inf"), None), (float("nan"), None), (1e400, None), (-1, None), (2.5, None),
    ("x", None), (None, None), ([1], None),
])
def test_row_ids_sqlite_can_hold(value, expected):
    assert row_id(value) == expected


def test_a_log_from_before_redaction_is_redacted_when_opened(tmp_path):
    path = tmp_path / "log.sqlite3"
    Store(path).count()  # the current schema, then made to look like version 5's data
    with sqlite3.connect(path) as conn:
        conn.execute("INSERT INTO questions (created, question, answer, kind) VALUES "
                     "('2026-01-01T00:00:00', 'I am ana@example.com, call +1 415 555 0100', "
                     "'a', 'answer')")
        conn.execute("INSERT INTO feedback (question_id, rating, comment, created, updated) "
                     "VALUES (1, -1, 'bo@example.com here', 't', 't')")
        conn.execute("INSERT INTO handoffs (created, question, conversation, email) VALUES "
                     "('t', 'reply to cy@example.com', ?, 'cy@example.com')",
                     (json.dumps([{"role": "user", "content": "I am cy@example.com"}]),))
        conn.execute("PRAGMA user_version=5")
    store = Store(path)
    assert store.recent()[0].question == "I am [email], call [phone]"
    assert store.feedback_rows()[0].comment == "[email] here"
    [handoff] = store.handoffs()
    assert handoff.question == "reply to [email]"
    assert handoff.conversation[0].content == "I am [email]"
    assert handoff.email == "cy@example.com"  # the address to reply to is kept
