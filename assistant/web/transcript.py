"""A conversation as the visitor's browser keeps it, and the conversation shown again from it.

After each answer the chat hands its page a transcript (JSON); the page's script keeps it in
the tab's session storage and hands it back when the visitor opens another page of the site
in the same tab, and the chat shows the conversation again (`ChatPage.on_restore`). Nothing in
it is trusted: it is validated here, capped in size, and every answer is rendered again from
its text and citations through the same escaping as a new answer, linking only our own pages.

Example:
    >>> text = dump(conversation, [saved_turn("what is nvlink?", answer)])
    >>> transcript = load(text)                      # None if it is not a transcript
    >>> answer_of(transcript.turns[0], corpus).citations[0].title
    'NVLink'
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from ..answer import Answer, Citation, ToolCall

if TYPE_CHECKING:
    from ..corpus import Corpus

#: Turns a transcript keeps (the oldest go first), and its longest JSON, well under the
#: request cap (ASSISTANT_MAX_REQUEST_BYTES, 64 KiB) it is sent back through.
MAX_TURNS = 20
MAX_CHARS = 48_000
_TEXT = 8000


class _Strict(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class SavedCitation(_Strict):
    """A source of a kept answer: the page section, and the passage quoted from it."""

    n: int = Field(ge=1, le=99)
    slug: str = Field(max_length=120)
    section: str = Field(default="", max_length=200)
    passage: str = Field(default="", max_length=2000)


class SavedCall(_Strict):
    """A calculator a kept answer called, with its inputs (shown in the working's fold)."""

    name: str = Field(max_length=64)
    args: dict[str, Any] = Field(default_factory=dict)

    @field_validator("args")
    @classmethod
    def _small(cls, value: dict[str, Any]) -> dict[str, Any]:
        if len(json.dumps(value, default=str)) > 2000:
            raise ValueError("too many inputs")
        return value


class SavedAnswer(_Strict):
    """What a kept answer needs to be shown again."""

    text: str = Field(max_length=_TEXT)
    kind: str = Field(default="answer", max_length=20)
    citations: list[SavedCitation] = Field(default_factory=list, max_length=40)
    suggestions: list[str] = Field(default_factory=list, max_length=8)
    working: list[str] = Field(default_factory=list, max_length=60)
    tool_calls: list[SavedCall] = Field(default_factory=list, max_length=5)

    @field_validator("suggestions", "working")
    @classmethod
    def _short_lines(cls, value: list[str]) -> list[str]:
        return [line[:500] for line in value]


class SavedTurn(_Strict):
    """One question and its answer."""

    q: str = Field(max_length=2000)
    a: SavedAnswer


class Transcript(_Strict):
    """A conversation: its id (the log's session) and its last turns."""

    v: Literal[1] = 1
    conversation: str = Field(pattern=r"^[0-9a-f]{32}$")
    answers: int = Field(default=0, ge=0)
    turns: list[SavedTurn] = Field(default_factory=list, max_length=MAX_TURNS)


def saved_turn(question: str, answer: Answer) -> dict[str, Any]:
    """Return one turn as the transcript keeps it (a plain dict, for the session state)."""
    return SavedTurn(q=question[:2000], a=SavedAnswer(
        text=answer.text[:_TEXT], kind=answer.kind[:20],
        citations=[SavedCitation(n=c.n, slug=c.slug[:120], section=c.section[:200],
                                 passage=c.passage[:2000]) for c in answer.citations[:40]],
        suggestions=list(answer.suggestions[:8]), working=list(answer.working[:60]),
        tool_calls=[SavedCall(name=t.name[:64], args=t.args) for t in answer.tool_calls[:5]
                    if len(json.dumps(t.args, default=str)) <= 2000],
    )).model_dump()


def dump(conversation: str, turns: list[dict[str, Any]], answers: int = 0) -> str:
    """Return the transcript's JSON: the newest turns that fit in MAX_CHARS ("" for none).

    `answers` counts the answers given so far: the transcript changes with every answer, even
    one that repeats the last ("Try again"), and the page script reads that as "answered".
    """
    kept = list(turns[-MAX_TURNS:])
    while kept:
        text = json.dumps({"v": 1, "conversation": conversation, "answers": answers,
                           "turns": kept},
                          ensure_ascii=False, separators=(",", ":"), default=str)
        if len(text) <= MAX_CHARS:
            return text
        kept = kept[1:]
    return ""


def load(text: Any) -> Transcript | None:
    """Return the transcript a page handed back, or None if it is not one."""
    if not isinstance(text, str) or not text or len(text) > MAX_CHARS:
        return None
    try:
        return Transcript.model_validate_json(text)
    except (ValidationError, ValueError):
        return None


def answer_of(turn: SavedTurn, corpus: Corpus) -> Answer:
    """Return the answer of a kept turn, its sources named from our own corpus."""
    a = turn.a
    citations = [Citation(n=c.n, slug=c.slug, title=page.title, url="", section=c.section,
                          passage=c.passage)
                 for c in a.citations if (page := corpus.get(c.slug)) is not None]
    return Answer(text=a.text, citations=citations, kind=a.kind,
                  suggestions=list(a.suggestions), working=list(a.working),
                  tool_calls=[ToolCall(t.name, dict(t.args), {}) for t in a.tool_calls])
