"""The answer cache: what it keys on, what empties it, what bypasses it, and that a cached
answer is still admitted and logged. The in-memory index and hashed embeddings stand in for
the model; the re-ingest test uses the real model and Chroma."""

from __future__ import annotations

import dataclasses
import time

import pytest
from conftest import CORPUS, TEST_DATA

from assistant import staff
from assistant.cache import AnswerCache, question_key
from assistant.config import Settings
from assistant.store import Store
from assistant.testing import fake_assistant

QUESTION = "what is nvlink?"


@pytest.fixture
def cached_bot():
    """An Assistant of its own with a small answer cache."""
    return fake_assistant(Settings.from_env({}, corpus_dir=CORPUS, data_dir=TEST_DATA,
                                            answer_cache_size=8))


def counts(bot) -> tuple[int, int, int]:
    stats = bot.answers.stats()
    return stats["hits"], stats["misses"], stats["bypassed"]


def test_a_repeated_question_is_answered_from_the_cache(cached_bot):
    first = cached_bot.ask(QUESTION)
    again = cached_bot.ask(f"  {QUESTION}\n")  # white space does not make a new question
    assert counts(cached_bot) == (1, 1, 0)
    assert again.text == first.text and again.citations == first.citations
    assert set(again.timings_ms) == {"cache", "total"}
    assert list(cached_bot.stream(QUESTION))[-1].text == first.text  # the chat's path too
    assert counts(cached_bot) == (2, 1, 0)


def test_case_and_page_make_another_question(cached_bot):
    assert question_key(" What  is\tZeRO? ") == "What is ZeRO?"
    cached_bot.ask(QUESTION)
    cached_bot.ask(QUESTION.upper())
    cached_bot.ask(QUESTION, page="nvlink")
    cached_bot.ask(QUESTION, page="no-such-page")  # an unknown page is no page
    assert counts(cached_bot) == (1, 3, 0)


def test_a_question_with_history_is_never_cached(cached_bot):
    history = [{"role": "user", "content": "what is infiniband?"},
               {"role": "assistant", "content": "InfiniBand is a network."}]
    cached_bot.ask("is it expensive?", history=history)
    cached_bot.ask("is it expensive?", history=history)
    assert counts(cached_bot) == (0, 0, 2)
    assert cached_bot.answers.stats()["entries"] == 0


def test_an_answer_changed_by_its_reader_does_not_change_the_cache(cached_bot):
    first = cached_bot.ask(QUESTION)
    text = first.text
    first.text, first.note = "changed", "changed"
    first.citations.clear()
    again = cached_bot.ask(QUESTION)
    assert again.text == text and again.citations and again.note != "changed"


def test_messages_and_errors_are_not_cached(cached_bot, monkeypatch):
    cached_bot.ask("")
    cached_bot.ask("")
    assert cached_bot.answers.stats()["entries"] == 0

    def broken(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(cached_bot, "_path", broken)
    failed = cached_bot.ask(QUESTION)
    assert failed.kind == "message"
    monkeypatch.undo()
    assert cached_bot.ask(QUESTION).kind == "answer"  # the error was not kept
    assert counts(cached_bot)[0] == 0


def test_the_cache_is_bounded_least_recently_used_first(cached_bot):
    cached_bot.answers = AnswerCache(2)
    for q in ("what is nvlink?", "what is roce?", "what is nvlink?", "what is rdma?"):
        cached_bot.ask(q)
    assert cached_bot.answers.stats()["entries"] == 2
    cached_bot.ask("what is nvlink?")  # kept: used more recently than roce
    cached_bot.ask("what is roce?")  # evicted
    assert counts(cached_bot) == (2, 4, 0)


def test_size_zero_turns_the_cache_off(cached_bot):
    cached_bot.answers = AnswerCache(0)
    cached_bot.ask(QUESTION)
    cached_bot.ask(QUESTION)
    assert counts(cached_bot) == (0, 0, 2)


def test_a_staff_publish_empties_the_cache(cached_bot, tmp_path):
    store = Store(tmp_path / "log.sqlite3")
    question = "How much does an InfiniBand port cost?"
    before = cached_bot.ask(question)
    entry = store.add_staff_entry(question, "An InfiniBand port usually costs more than an "
                                  "Ethernet port of the same speed.", "infiniband", "ana",
                                  cached_bot.corpus)
    staff.publish(store, cached_bot.index, cached_bot.retriever, cached_bot.corpus, entry.id)
    after = cached_bot.ask(question)
    assert counts(cached_bot) == (0, 2, 0)
    assert cached_bot.answers.stats()["invalidations"] == 1
    assert after.text != before.text and after.note == staff.SUPPORT_NOTE
    staff.unpublish(store, cached_bot.index, cached_bot.retriever, entry.id)
    assert cached_bot.ask(question).note != staff.SUPPORT_NOTE


def test_a_re_ingest_seen_by_the_refresh_check_empties_the_cache(cached_bot):
    cached_bot.ask(QUESTION)
    # Another process re-ingested: the index's built_at moved on. The check runs every
    # 30 s, also before a cache look-up.
    index = cached_bot.index
    index._manifest = dataclasses.replace(index._manifest, built_at=time.time() + 1)
    cached_bot.ask(QUESTION)
    assert counts(cached_bot) == (1, 1, 0)  # not checked yet: within the 30 s
    cached_bot._last_check -= 31
    cached_bot.ask(QUESTION)
    assert counts(cached_bot) == (1, 2, 0)


def test_a_settings_or_corpus_change_empties_the_cache(cached_bot):
    cached_bot.ask(QUESTION)
    cached_bot.settings = cached_bot.settings.replace(min_relevance=0.5)
    cached_bot.ask(QUESTION)
    page = cached_bot.corpus.pages["nvlink"]
    cached_bot.corpus.pages["nvlink"] = dataclasses.replace(page, content_hash="edited")
    try:
        cached_bot.ask(QUESTION)
    finally:
        cached_bot.corpus.pages["nvlink"] = page
    assert counts(cached_bot) == (0, 3, 0)
    assert cached_bot.answers.stats()["invalidations"] == 2


def test_the_llm_mode_is_not_cached():
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage

    llm = GenericFakeChatModel(messages=iter([AIMessage("x")] * 4))
    bot = fake_assistant(Settings.from_env({}, corpus_dir=CORPUS, data_dir=TEST_DATA),
                         llm=llm)
    bot.ask(QUESTION)
    bot.ask(QUESTION)
    assert counts(bot) == (0, 0, 0)


@pytest.mark.integration
def test_a_cached_answer_is_still_admitted_and_logged(cached_bot, tmp_path):
    from fastapi.testclient import TestClient

    from assistant.web import create_app

    store = Store(tmp_path / "log.sqlite3")
    settings = cached_bot.settings.replace(rate_limit_per_minute=3)
    with TestClient(create_app(cached_bot, store, settings=settings)) as http:
        replies = [http.post("/api/ask", json={"question": QUESTION}) for _ in range(4)]
        health = http.get("/healthz").json()
    assert [r.status_code for r in replies] == [200, 200, 200, 429]
    assert replies[2].json()["answer"] == replies[0].json()["answer"]
    assert health["cache"]["hits"] == 2 and health["cache"]["misses"] == 1
    assert store.count() == 3  # every answer, cached or not, is in the console's counts
    assert [row.question for row in store.recent()] == [QUESTION] * 3
