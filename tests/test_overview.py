"""The console's outcome figures: rows seeded into a real log, every figure checked, as the
Overview tab's HTML, as JSON and CSV behind the sign-in."""

from __future__ import annotations

import csv
import io
import sqlite3
from contextlib import closing
from datetime import UTC, datetime

import pytest
from fastapi.testclient import TestClient

from assistant import overview
from assistant.answer import Answer
from assistant.store import Store

NOW = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)
TITLES = {"nvlink": "NVLink", "infiniband": "InfiniBand"}

ANSWERED = Answer(text="NVLink links GPUs.", kind="answer")
REFUSED = Answer(text="The glossary does not cover that.", kind="refusal", refused=True)
CLARIFY = Answer(text="How many GPUs?", kind="clarify")
MESSAGE = Answer(text="That question is too long.", kind="message")
OFF = Answer(text="Ethernet carries frames.", kind="answer", gap="off-subject")

# (created, session, question, answer, page, rating)
QUESTIONS = [
    ("2026-10-28T09:00:00+00:00", "s0", "too old to count", REFUSED, "", 0),
    ("2026-10-29T09:00:00+00:00", "s0", "who won the match?", REFUSED, "", 0),
    ("2026-11-12T09:00:00+00:00", "s4", "what is nvlink?", ANSWERED, "", 1),
    ("2026-11-12T09:05:00+00:00", "s4", "and roce?", ANSWERED, "", 0),
    ("2026-11-20T08:00:00+00:00", "mcp", "what is ethernet good for?", OFF, "", 0),
    ("2026-11-21T08:00:00+00:00", "api", "what is pfc?", ANSWERED, "", 0),
    ("2026-11-21T08:01:00+00:00", "api", "x" * 50, MESSAGE, "", 0),
    ("2026-11-22T08:00:00+00:00", "s3", "Is it expensive?", REFUSED, "nvlink", 0),
    ("2026-11-22T08:01:00+00:00", "s3", "is it expensive", REFUSED, "infiniband", 0),
    ("2026-11-23T08:00:00+00:00", "s2", "what does it cost?", CLARIFY, "", 0),
    ("2026-11-23T08:01:00+00:00", "s2", "what is nccl?", ANSWERED, "", -1),
    ("2026-11-24T10:00:00+00:00", "s1", "what is nvlink?", ANSWERED, "nvlink", 1),
    ("2026-11-24T10:01:00+00:00", "s1", "is it expensive?", REFUSED, "nvlink", 0),
]
HANDOFFS = [("2026-11-24T10:02:00+00:00", "s1"), ("2026-11-20T09:00:00+00:00", "api"),
            ("2026-10-01T09:00:00+00:00", "s9")]


@pytest.fixture
def log(tmp_path):
    store = Store(tmp_path / "log.sqlite3")
    for created, session, question, answer, page, rating in QUESTIONS:
        qid = store.log(question, answer, session=session, page=page)
        if rating:
            store.feedback(qid, rating)
        with closing(sqlite3.connect(store.path)) as conn, conn:
            conn.execute("UPDATE questions SET created = ? WHERE id = ?", (created, qid))
    with closing(sqlite3.connect(store.path)) as conn, conn:
        conn.executemany("INSERT INTO handoffs (created, question, session) VALUES (?, 'help', ?)",
                         HANDOFFS)
    return store


def test_every_figure_of_the_week(log):
    week = overview.compute(log.path, now=NOW, titles=TITLES).week
    assert week.start == "2026-11-19"
    assert (week.questions, week.answered, week.refused, week.clarifying, week.other) == (
        9, 4, 3, 1, 1)
    assert week.share("answered") == pytest.approx(4 / 9)
    assert (week.thumbs_up, week.thumbs_down, week.up_share) == (1, 1, 0.5)
    # s1, s2, s3, and the 3 API/MCP questions on their own; s1 and the API request asked support
    assert (week.conversations, week.escalated) == (6, 2)
    assert week.support_share == pytest.approx(2 / 6)
    assert week.deflection == pytest.approx(4 / 6)
    assert week.to_json()["deflection"] == 0.6667


def test_per_day_and_the_four_weeks(log):
    figures = overview.compute(log.path, now=NOW, titles=TITLES)
    days = {d.start: d for d in figures.per_day}
    assert len(figures.per_day) == 28 and figures.per_day[0].start == "2026-10-29"
    assert "2026-10-28" not in days and figures.per_day[-1].start == "2026-11-25"
    assert days["2026-11-24"].questions == 2 and days["2026-11-24"].escalated == 1
    assert days["2026-11-21"].questions == 2 and days["2026-11-21"].other == 1
    assert sum(d.questions for d in figures.per_day) == len(QUESTIONS) - 1
    weeks = [(w.start, w.questions, w.answered, w.refused, w.deflection) for w in figures.weeks]
    assert weeks == [("2026-10-29", 1, 0, 1, 1.0), ("2026-11-05", 0, 0, 0, None),
                     ("2026-11-12", 2, 2, 0, 1.0), ("2026-11-19", 9, 4, 3, pytest.approx(4 / 6))]


def test_top_unanswered_this_week_say_which_page_it_was(log):
    found = overview.compute(log.path, now=NOW, titles=TITLES).unanswered
    assert [(u.question, u.count, u.page_title, u.reason) for u in found] == [
        ("is it expensive?", 2, "NVLink", "refusal"),  # the latest wording of the two
        ("is it expensive", 1, "InfiniBand", "refusal"),
        ("what is ethernet good for?", 1, "", "off-subject")]
    assert "who won the match?" not in {u.question for u in found}  # weeks ago


def test_the_cache_hit_rate_is_read_from_healthz_when_there(log):
    def with_cache():
        return {"ok": True, "cache": {"hits": 3, "misses": 1}}

    def broken():
        raise RuntimeError("down")

    assert overview.compute(log.path, now=NOW, health=with_cache).cache == {
        "hits": 3, "misses": 1, "hit_rate": 0.75}
    assert overview.cache_figures({"cache_hits": 0, "cache_misses": 0})["hit_rate"] is None
    for health in (lambda: {"ok": True, "pages": 70}, broken,
                   lambda: {"cache": {"hits": "3", "misses": 1}}, None):
        assert overview.compute(log.path, now=NOW, health=health).cache is None
    html = overview.render_html(overview.compute(log.path, now=NOW, health=with_cache))
    assert 'id="overview-cache"' in html and "75%" in html
    assert 'id="overview-cache"' not in overview.render_html(overview.compute(log.path, now=NOW))


def test_the_tab_shows_the_figures_and_draws_the_charts(log):
    figures = overview.compute(log.path, now=NOW, titles=TITLES)
    html = overview.render_html(figures)
    for key, shown in (("questions", "9"), ("answered", "44%"), ("refused", "33%"),
                       ("clarifying", "11%"), ("thumbs", "50% (1 up, 1 down)"),
                       ("support", "33% of 6 conversations"), ("deflection", "67%")):
        assert f'<td id="overview-{key}"><strong>{shown}</strong></td>' in html, key
    assert html.count("<svg") == 2 and "http" not in html.split("<svg")[1]  # drawn here
    assert html.count("<rect") == 2 * 28
    assert "<td>is it expensive?</td><td>NVLink</td>" in html


def test_an_empty_log_gives_dashes_not_errors(tmp_path):
    figures = overview.compute(tmp_path / "none.sqlite3", now=NOW)
    assert figures.week.questions == 0 and figures.week.deflection is None
    assert "None this week." in overview.render_html(figures)


def test_the_csv_has_a_row_per_day(log):
    rows = list(csv.DictReader(io.StringIO(overview.compute(log.path, now=NOW).to_csv())))
    assert len(rows) == 28
    day = next(r for r in rows if r["start"] == "2026-11-22")
    assert (day["questions"], day["refused"], day["refused_share"]) == ("2", "2", "1.0")


@pytest.mark.integration
def test_the_json_and_csv_routes_need_a_sign_in(fake_bot, log):
    from assistant.web import create_app

    settings = fake_bot.settings.replace(admin_password="s3cret-pass")
    with TestClient(create_app(fake_bot, log, settings=settings)) as http:
        assert http.get("/admin/api/overview").status_code == 401
        assert http.get("/admin/api/overview.csv").status_code == 401
        http.post("/admin/login", data={"username": "admin", "password": "s3cret-pass"})
        data = http.get("/admin/api/overview").json()
        assert data == overview.compute(log.path, now=datetime.fromisoformat(data["now"]),
                                        titles={p.slug: p.title for p in fake_bot.corpus},
                                        health=lambda: http.get("/healthz").json()).to_json()
        table = http.get("/admin/api/overview.csv")
        assert table.headers["content-type"].startswith("text/csv")
        assert table.text.splitlines()[0].startswith("start,questions,answered")
