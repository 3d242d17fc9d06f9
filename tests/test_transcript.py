"""The conversation the visitor's tab keeps: dumped after each answer, validated and shown
again on the next page, never trusted."""

from __future__ import annotations

import json

import pytest

from assistant.store import Store
from assistant.web.chat import ChatPage
from assistant.web.transcript import MAX_CHARS, dump, load


@pytest.fixture
def chat(fake_bot, tmp_path):
    return ChatPage(fake_bot, Store(tmp_path / "log.sqlite3"), fake_bot.settings, compact=True)


def _answered(chat, questions, page="nvlink"):
    state = chat.new_state()
    for q in questions:
        *_, (_, _, state) = chat.turn(q, state, page, None)
    return state, chat.after_answer(state)[-1]


def test_a_transcript_comes_back_as_the_same_conversation(chat):
    state, transcript = _answered(chat, ["What is NVLink?", "is it expensive?"])
    data = json.loads(transcript)
    assert [t["q"] for t in data["turns"]] == ["What is NVLink?", "is it expensive?"]
    assert data["conversation"] == state["conversation"] and data["answers"] == 2
    messages, restored, again = chat.on_restore(transcript, chat.new_state())
    assert [m["content"] for m in messages] == [m["content"] for m in state["messages"]]
    assert restored["history"] == state["history"]
    assert restored["conversation"] == state["conversation"]
    assert json.loads(again)["turns"] == data["turns"]
    # The next question joins the kept conversation (the log's session).
    *_, (_, _, after) = chat.turn("does it work between servers?", restored, "nvlink", None)
    assert after["conversation"] == state["conversation"] and len(after["turns"]) == 3


@pytest.mark.parametrize("text", [
    "", "not json", "[]", json.dumps({"v": 2, "conversation": "0" * 32, "turns": []}),
    json.dumps({"v": 1, "conversation": "../../etc", "turns": []}),
    json.dumps({"v": 1, "conversation": "a" * 32, "turns": [{"q": "x" * 5000, "a": {}}]}),
    "x" * (MAX_CHARS + 1), None, 42,
])
def test_anything_else_is_ignored(chat, text):
    assert load(text) is None
    state = chat.new_state()
    chatbot, kept, _ = chat.on_restore(text, state)
    assert kept is state and not isinstance(chatbot, list)


def test_kept_answers_are_rendered_again_safely(chat):
    evil = {"v": 1, "conversation": "b" * 32, "turns": [{"q": "<img src=x onerror=alert(1)>",
            "a": {"text": "Look [here](http://evil.example) <script>x</script> [1]",
                  "citations": [{"n": 1, "slug": "nvlink", "section": "Definition"},
                                {"n": 2, "slug": "nope", "section": "x"}]}}]}
    messages, _, _ = chat.on_restore(json.dumps(evil), chat.new_state())
    shown = "\n".join(m["content"] for m in messages)
    assert "<img" not in shown and "<script" not in shown and "](http://evil" not in shown
    assert "(/glossary/nvlink#definition" in shown and "nope" not in shown


def test_the_transcript_keeps_the_newest_turns_that_fit():
    turn = {"q": "q", "a": {"text": "y" * 5000}}
    text = dump("c" * 32, [turn] * 40, 40)
    assert len(text) <= MAX_CHARS and load(text) is not None
    assert 1 <= len(json.loads(text)["turns"]) < 40


def test_an_ongoing_conversation_is_not_replaced(chat):
    state, transcript = _answered(chat, ["What is NVLink?"])
    other, _ = _answered(chat, ["What is RoCE?"])
    chatbot, kept, _ = chat.on_restore(transcript, other)
    assert kept is other
