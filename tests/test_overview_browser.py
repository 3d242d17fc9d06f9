"""The console's Overview tab in Debian's Chromium: the figures of seeded rows, the charts drawn
on the server (inline SVG, nothing loaded from elsewhere), the CSV link."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from test_browser import CHROMIUM, _open_host, _shot, browser  # noqa: F401 - a fixture
from test_ui import serve

from assistant import overview
from assistant.answer import Answer
from assistant.store import Store
from assistant.web import create_app

pytestmark = [pytest.mark.browser, pytest.mark.integration]


@pytest.fixture(scope="module")
def seeded_console(tmp_path_factory):
    """The app with the console on, over a log with a week of questions, ratings and a
    support request."""
    if not Path(CHROMIUM).exists():
        pytest.skip("Debian's Chromium is not installed (make browser)")
    from conftest import CORPUS, TEST_DATA

    from assistant.config import Settings
    from assistant.testing import fake_assistant

    bot = fake_assistant(Settings.from_env({}, corpus_dir=CORPUS, data_dir=TEST_DATA))
    store = Store(tmp_path_factory.mktemp("overview") / "log.sqlite3")
    now = datetime.now(UTC)
    seeded = [(1, "a", "what is nvlink?", Answer(text="NVLink links GPUs.", kind="answer"), 1),
              (1, "a", "is it expensive?", Answer(text="No.", kind="refusal", refused=True), 0),
              (2, "b", "what is roce?", Answer(text="RoCE is RDMA.", kind="answer"), -1),
              (9, "c", "what is pfc?", Answer(text="PFC pauses.", kind="answer"), 0)]
    for days_ago, session, question, answer, rating in seeded:
        qid = store.log(question, answer, session=session, page="nvlink")
        if rating:
            store.feedback(qid, rating)
        with closing(sqlite3.connect(store.path)) as conn, conn:
            conn.execute("UPDATE questions SET created = ? WHERE id = ?",
                         ((now - timedelta(days=days_ago)).isoformat(timespec="seconds"), qid))
    with closing(sqlite3.connect(store.path)) as conn, conn:
        conn.execute("INSERT INTO handoffs (created, question, session) VALUES (?, 'help', 'a')",
                     ((now - timedelta(days=1)).isoformat(timespec="seconds"),))
    settings = bot.settings.replace(admin_password="s3cret-pass")
    with serve(create_app(bot, store, settings=settings)) as base:
        yield base, store


def test_the_overview_tab_renders_the_figures(seeded_console, browser, capsys):  # noqa: F811
    base, store = seeded_console
    page, watch = _open_host(browser, base + "/admin")
    page.set_viewport_size({"width": 1280, "height": 900})  # every tab in the bar
    page.fill("input[name=password]", "s3cret-pass")
    page.click("button[type=submit]")
    page.locator("#table-recent").wait_for()
    page.get_by_role("tab", name="Overview").click()
    figures = page.locator("#overview-figures")
    figures.wait_for()
    week = overview.compute(store.path).week
    assert (week.questions, week.refused, week.conversations, week.escalated) == (3, 1, 2, 1)
    cards = {key: page.locator(f"#overview-{key} strong").inner_text()
             for key in ("questions", "answered", "refused", "thumbs", "support", "deflection")}
    assert cards == {"questions": "3", "answered": "67%", "refused": "33%",
                     "thumbs": "50% (1 up, 1 down)", "support": "50% of 2 conversations",
                     "deflection": "50%"}
    for chart in ("#overview-days", "#overview-trend"):
        box = page.locator(chart).bounding_box()
        assert box and box["width"] > 300 and box["height"] > 80  # drawn, not sanitised away
    assert page.locator("#overview-days rect").count() == 56
    row = page.locator("#overview-unanswered tbody tr").first.inner_text()
    assert "is it expensive?" in row and "NVLink" in row
    assert not watch.remote and not watch.dialogs
    _shot(page, "console-overview.png", capsys)
    with page.expect_download() as download:
        page.get_by_text("Download per-day figures (CSV)").click()
    assert Path(download.value.path()).read_text(encoding="utf-8").startswith("start,questions")
    page.context.close()
