"""The question/feedback log: WAL, round trips, privacy, gaps, CSV, threads."""

from __future__ import annotations

import csv
import io
import json
import sqlite3
import threading

import pytest

from assistant.answer import Answer, Citation, ToolCall
from assistant.store import (
    FORGOTTEN,
    SALT_FILE,
    FeedbackRow,
    Gap,
    QuestionRow,
    Store,
    TermCount,
    rows_to_csv,
)


def _answer(text="NVLink links GPUs. [1]", *, kind="answer", confidence=0.8, subject="nvlink",
            refused=False) -> Answer:
    cites = [Citation(1, subject or "nvlink", "NVLink", "/glossary/nvlink#definition",
                      "Definition")] if not refused else []
    return Answer(text=text, citations=cites, kind=kind, confidence=confidence,
                  subject=subject, refused=refused, timings_ms={"total": 12.5, "retrieve": 3.0},
                  tool_calls=[ToolCall("gpu_hour_cost", {"gpus": 8}, {"cost": 16.0})])


@pytest.fixture
def store(tmp_path):
    s = Store(tmp_path / "data" / "log.sqlite3")
    yield s
    s.close()


def test_creating_a_store_touches_no_file(tmp_path):
    Store(tmp_path / "nowhere" / "log.sqlite3")
    assert not (tmp_path / "nowhere").exists()


def test_wal_mode_is_on(store):
    store.log("what is nvlink?", _answer())
    assert store.journal_mode() == "wal"
    with sqlite3.connect(store.path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_log_and_feedback_round_trip(store):
    qid = store.log("what is nvlink?", _answer(), session="s1", ip="203.0.113.9", page="nvlink")
    assert isinstance(qid, int)
    [row] = store.recent()
    assert isinstance(row, QuestionRow)
    assert (row.id, row.question, row.kind, row.subject, row.page) == (
        qid, "what is nvlink?", "answer", "nvlink", "nvlink")
    assert row.answer == "NVLink links GPUs. [1]"
    assert row.cited == "NVLink" and row.total_ms == 12.5 and row.rating == 0

    assert store.feedback(qid, -1, "too short")
    [fb] = store.feedback_rows()
    assert isinstance(fb, FeedbackRow)
    assert (fb.question_id, fb.rating, fb.comment, fb.question) == (
        qid, -1, "too short", "what is nvlink?")
    # A later thumb replaces the rating; a missing comment keeps the one given.
    assert store.feedback(qid, 1)
    [fb] = store.feedback_rows()
    assert (fb.rating, fb.comment) == (1, "too short")
    assert store.recent()[0].rating == 1
    store.clear_feedback(qid)
    assert store.feedback_rows() == []


def test_feedback_for_an_unknown_question_is_not_stored(store):
    store.log("q", _answer())
    assert store.feedback(999, 1) is False
    with pytest.raises(ValueError):
        store.feedback(1, 5)


def test_ip_is_never_stored_only_a_salted_hash(store, tmp_path):
    ip = "198.51.100.23"
    store.log("what is nvlink?", _answer(), ip=ip)
    store.log("what is roce?", _answer(), ip=ip)
    store.close()
    raw = b"".join(p.read_bytes() for p in store.path.parent.glob("log.sqlite3*"))
    assert ip.encode() not in raw
    with sqlite3.connect(store.path) as conn:
        hashes = [r[0] for r in conn.execute("SELECT ip_hash FROM questions")]
    assert len(set(hashes)) == 1 and hashes[0] and ip not in hashes[0]
    salt = (store.path.parent / SALT_FILE).read_text()
    assert len(salt) >= 32
    # Another data dir has another salt, so its hashes cannot be joined with these.
    other = Store(tmp_path / "other" / "log.sqlite3")
    assert other.hash_ip(ip) != hashes[0]
    assert Store(store.path).hash_ip(ip) == hashes[0]  # same dir: same salt, same hash
    assert store.hash_ip("") == ""


def test_gaps_group_similar_wording_most_frequent_first(store):
    refusal = _answer("That is outside what I cover.", kind="refusal", refused=True,
                      confidence=0.1, subject=None)
    for q in ["How do I configure SR-IOV?", "how do i configure sr-iov", "configure SR-IOV how?"]:
        store.log(q, refusal)
    store.log("What is the price of an H100?", refusal)
    store.log("what is nvlink", _answer(confidence=0.3))  # low confidence counts
    store.log("gpu hours for 8 gpus?", _answer(kind="clarify", confidence=1.0))  # so does clarify
    store.log("what is infiniband?", _answer(confidence=0.9))  # a good answer does not
    store.log("", Answer(text="Please type a question", kind="message"))  # nor an empty one

    gaps = store.gaps()
    assert all(isinstance(g, Gap) for g in gaps)
    assert gaps[0].count == 3 and "sr-iov" in gaps[0].question.lower()
    assert gaps[0].question == "configure SR-IOV how?"  # the latest wording leads
    assert set(gaps[0].examples) == {"How do I configure SR-IOV?", "how do i configure sr-iov"}
    questions = {g.question for g in gaps}
    assert {"What is the price of an H100?", "what is nvlink", "gpu hours for 8 gpus?"} <= questions
    assert "what is infiniband?" not in questions and "" not in questions
    assert sum(g.count for g in gaps) == 6


def test_top_terms_counts_subjects_and_ratings(store):
    a = store.log("what is nvlink", _answer())
    b = store.log("nvlink speed", _answer())
    store.log("what is roce", _answer(subject="roce"))
    store.feedback(a, 1)
    store.feedback(b, -1)
    terms = store.top_terms()
    assert all(isinstance(t, TermCount) for t in terms)
    assert [(t.subject, t.asks, t.likes, t.dislikes) for t in terms] == [
        ("nvlink", 2, 1, 1), ("roce", 1, 0, 0)]


def test_csv_export_of_each_view(store, tmp_path):
    qid = store.log("=HYPERLINK(\"http://evil\")", _answer(kind="refusal", refused=True,
                                                            confidence=0.0, subject=None))
    store.log("what is nvlink", _answer())
    store.feedback(qid, -1, "useless, \"really\"\nsecond line")
    for view in ("recent", "gaps", "feedback", "terms"):
        path = store.export_csv(view, tmp_path / f"{view}.csv")
        rows = list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8"))))
        assert rows, view
    recent = list(csv.DictReader(open(tmp_path / "recent.csv", encoding="utf-8")))
    assert {"id", "question", "answer", "cited", "total_ms", "confidence"} <= set(recent[0])
    # A formula typed by a visitor is not a formula in the spreadsheet.
    assert any(r["question"].startswith("'=HYPERLINK") for r in recent)
    feedback = list(csv.DictReader(open(tmp_path / "feedback.csv", encoding="utf-8")))
    assert feedback[0]["comment"] == "useless, \"really\"\nsecond line"
    assert feedback[0]["rating"] == "-1"
    with pytest.raises(ValueError):
        store.export_csv("passwords", tmp_path / "x.csv")


def test_csv_of_no_rows_still_has_a_header():
    assert rows_to_csv([], Gap).splitlines()[0].startswith("question,count")
    assert rows_to_csv([]) == ""


def test_concurrent_writes_from_threads(store):
    errors: list[BaseException] = []
    ids: list[int] = []
    lock = threading.Lock()

    def worker(n: int) -> None:
        try:
            for i in range(25):
                qid = store.log(f"question {n}-{i}", _answer(), session=f"s{n}", ip=f"10.0.0.{n}")
                assert qid is not None
                assert store.feedback(qid, 1 if i % 2 else -1, f"comment {n}-{i}")
                with lock:
                    ids.append(qid)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert len(set(ids)) == 200 and store.count() == 200
    assert len(store.feedback_rows(limit=1000)) == 200


def test_logging_never_raises(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    broken = Store(blocker / "log.sqlite3")  # its folder cannot be created
    assert broken.log("what is nvlink?", _answer()) is None
    assert broken.feedback(1, 1) is False


def test_the_salt_is_made_once_even_by_racing_stores(tmp_path):
    path = tmp_path / "race" / "log.sqlite3"
    hashes: list[str] = []
    barrier = threading.Barrier(8)

    def worker() -> None:
        store = Store(path)  # each its own lock, as in separate processes
        barrier.wait()
        hashes.append(store.hash_ip("192.0.2.1"))

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(hashes) == 8 and len(set(hashes)) == 1
    assert [p.name for p in path.parent.iterdir()] == [SALT_FILE]  # no temp files left


def test_an_unsettled_yes_no_answer_is_a_gap_even_when_confident(store):
    settled = _answer(confidence=0.9)
    unsettled = _answer(confidence=0.9)
    unsettled.intent, unsettled.gap = "yes_no", "yes/no question the corpus does not settle"
    store.log("does nvlink do X?", unsettled)
    store.log("what is nvlink?", settled)
    assert [g.question for g in store.gaps()] == ["does nvlink do X?"]


def test_a_log_from_the_previous_schema_gains_the_new_columns(tmp_path):
    path = tmp_path / "old.sqlite3"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE questions (id INTEGER PRIMARY KEY, created TEXT NOT NULL, "
                 "session TEXT NOT NULL DEFAULT '', ip_hash TEXT NOT NULL DEFAULT '', "
                 "page TEXT NOT NULL DEFAULT '', question TEXT NOT NULL, answer TEXT NOT NULL, "
                 "kind TEXT NOT NULL, refused INTEGER NOT NULL DEFAULT 0, confidence REAL NOT "
                 "NULL DEFAULT 0, subject TEXT NOT NULL DEFAULT '', citations TEXT NOT NULL "
                 "DEFAULT '[]', tools TEXT NOT NULL DEFAULT '[]', total_ms REAL NOT NULL "
                 "DEFAULT 0, timings TEXT NOT NULL DEFAULT '{}')")
    conn.execute("INSERT INTO questions (created, question, answer, kind) VALUES "
                 "('2026-01-01T00:00:00', 'old q', 'old a', 'answer')")
    conn.commit()
    conn.close()
    s = Store(path)
    try:
        assert s.log("new q", _answer()) is not None
        assert {r.question for r in s.recent()} == {"old q", "new q"}
    finally:
        s.close()


# -- caps, retention and the one registry of views ---------------------------------------------

def test_the_log_keeps_the_cleaned_first_part_and_the_length(tmp_path):
    store = Store(tmp_path / "log.sqlite3", max_question_chars=100)
    store.log("\udfff what\x00 is \ud800 nvlink? " + "x" * 5000, _answer())
    store.log(["not", "a", "string"], _answer())  # a hostile client; still logged, as text
    older, latest = reversed(store.recent())
    assert older.question.startswith("what is nvlink? xx") and len(older.question) == 100
    assert older.question_chars == 5000 + len("\udfff what\x00 is \ud800 nvlink? ")
    assert latest.question == "['not', 'a', 'string']"
    qid = older.id
    store.feedback(qid, -1, "a" * 500 + "\ud800")
    assert store.feedback_rows()[0].comment == "a" * 100


def test_purge_deletes_old_questions_with_their_feedback(store):
    from datetime import UTC, datetime, timedelta

    ids = [store.log(f"q{i}", _answer()) for i in range(4)]
    for qid in ids:
        store.feedback(qid, 1)
    with sqlite3.connect(store.path) as conn:
        conn.execute("UPDATE questions SET created = '2020-01-01T00:00:00+00:00' "
                     "WHERE id IN (?, ?)", ids[:2])
    assert store.purge(0) == 0 and store.count() == 4  # 0 keeps everything
    assert store.purge(90) == 2
    assert [r.id for r in store.recent()] == ids[:1:-1]
    assert sorted(f.question_id for f in store.feedback_rows()) == ids[2:]
    later = datetime.now(UTC) + timedelta(days=91)
    assert store.purge(90, now=later) == 2 and store.count() == 0


def test_the_csv_export_streams_in_batches(store, monkeypatch):
    import assistant.store as store_module

    monkeypatch.setattr(store_module, "EXPORT_BATCH", 7)
    for i in range(30):
        store.log(f"question {i}", _answer())
    parts = list(store.iter_csv("recent"))
    assert len(parts) == 1 + 5  # the header, then 30 rows in batches of 7
    rows = list(csv.DictReader(io.StringIO("".join(parts))))
    assert [r["question"] for r in rows] == [f"question {i}" for i in reversed(range(30))]


def test_the_console_and_the_export_share_one_registry_of_views():
    import dataclasses

    from assistant.views import VIEWS

    assert list(VIEWS) == ["recent", "gaps", "feedback", "terms", "staff", "inbox"]
    for spec in VIEWS.values():
        names = {f.name for f in dataclasses.fields(spec.row_type)}
        assert {column for column, _ in spec.columns} <= names, spec.name
        assert callable(getattr(Store, spec.fetch))


def test_a_gap_names_the_pages_its_questions_were_asked_on(store):
    refused = _answer("Not in the glossary.", kind="refusal", refused=True, subject=None)
    store.log("is it expensive?", refused, page="infiniband")
    store.log("Is it expensive?", refused, page="nvlink")
    store.log("is it expensive", refused, page="nvlink")
    store.log("is it expensive?", refused)
    gap = next(g for g in store.gaps() if "expensive" in g.question)
    assert gap.count == 4 and gap.pages == "nvlink, infiniband"  # what "it" was, newest first
    assert "pages" in store.iter_csv("gaps").__next__()


def test_the_log_imports_requests_and_entries_never_the_other_way():
    """store -> handoff_log/staff_log -> handoff/staff; those two name the log by Protocol."""
    import ast
    from pathlib import Path

    import assistant

    root = Path(assistant.__file__).parent
    for name in ("handoff", "staff"):
        tree = ast.parse((root / f"{name}.py").read_text(encoding="utf-8"))
        imported = {node.module for node in ast.walk(tree)
                    if isinstance(node, ast.ImportFrom) and node.module}
        assert not imported & {"store", "handoff_log", "staff_log", "logdb"}, name
    for name in ("store", "handoff_log", "staff_log", "logdb", "gaps"):
        lines = len((root / f"{name}.py").read_text(encoding="utf-8").splitlines())
        assert lines <= 500, (name, lines)


# -- personal data (issue 21, item 4) ----------------------------------------------------------

LEAK = "ana.leak@example.com"


def _dump(path) -> str:
    """Every text value of every table, lower-cased."""
    with sqlite3.connect(path) as conn:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        return " ".join(str(v) for t in tables for row in conn.execute(f"SELECT * FROM {t}")
                        for v in row).lower()


def test_personal_data_is_redacted_before_it_is_stored(store):
    qid = store.log(f"my email is {LEAK}, what is roce?", _answer(), ip="203.0.113.9")
    store.feedback(qid, -1, "call me on +44 20 7946 0958, key sk-proj-4f9aX2kLmN8pQ7rS1tU3vW5yZ")
    [row] = store.recent()
    assert row.question == "my email is [email], what is roce?"
    assert store.feedback_rows()[0].comment == "call me on [phone], key [key]"
    csv_text = "".join(store.iter_csv("recent"))
    assert "[email]" in csv_text and LEAK not in csv_text
    store.close()
    raw = b"".join(p.read_bytes() for p in store.path.parent.glob("log.sqlite3*"))
    assert LEAK.encode() not in raw and b"7946" not in raw and b"sk-proj" not in raw


def test_forget_matches_any_case_in_every_table(store, fake_bot):
    from assistant.handoff import validate

    qid = store.log("what is roce?", _answer())
    handoff = store.add_handoff(validate("Is RoCE routable?", LEAK.upper()))
    store.answer_handoff(handoff.id, f"Sent to {LEAK.title()}", "admin")
    entry = store.add_staff_entry("Who answers RoCE questions?",
                                  f"Ana answers them at {LEAK.upper()}.", "roce", "admin",
                                  fake_bot.corpus)
    store.close()
    with sqlite3.connect(store.path) as conn:  # rows an older version stored unredacted
        conn.execute("UPDATE questions SET question = ? WHERE id = ?",
                     (f"I am {LEAK.upper()}, what is roce?", qid))
        conn.execute("INSERT INTO feedback (question_id, rating, comment, created, updated) "
                     "VALUES (?, -1, ?, 't', 't')", (qid, f"reply to {LEAK.title()}"))
        conn.execute("UPDATE handoffs SET question = ?, conversation = ? WHERE id = ?",
                     (f"Mail {LEAK}", json.dumps([{"role": "user", "content": LEAK.upper()}]),
                      handoff.id))
    assert LEAK in _dump(store.path)
    assert store.forget_email("ANA.Leak@Example.COM") == 4  # question, feedback, request, entry
    assert LEAK not in _dump(store.path)
    assert store.handoff(handoff.id).email is None
    assert store.recent()[0].question == f"I am {FORGOTTEN}, what is roce?"
    assert store.staff_entry(entry.id).answer == f"Ana answers them at {FORGOTTEN}."
    assert store.forget_email(LEAK) == 0
