"""The typed answer every front end receives: text, citations, tool calls, timings."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from .text import markers_in


@dataclass(frozen=True)
class Citation:
    """A numbered source: the page and section a sentence of the answer was taken from."""

    n: int
    slug: str
    title: str
    url: str
    section: str
    passage: str = ""

    def to_json(self) -> dict[str, Any]:
        """Return the citation as the `ask --json` contract names it."""
        return {"n": self.n, "slug": self.slug, "title": self.title, "url": self.url,
                "section": self.section}


@dataclass(frozen=True)
class ToolCall:
    """A calculator the assistant called, with its inputs and result."""

    name: str
    args: dict[str, Any]
    result: dict[str, Any]


@dataclass
class Answer:
    """What the assistant says to one question.

    `kind` is one of: answer, comparison, calculation, clarify (an input is missing),
    refusal (outside the corpus), message (empty or too long input), rate_limited (the
    visitor asked too often; HTTP 429 from the APIs) or busy (the server is at capacity).
    """

    text: str
    citations: list[Citation] = field(default_factory=list)
    tool_calls: list[ToolCall] = field(default_factory=list)
    refused: bool = False
    retrieved: list[str] = field(default_factory=list)
    timings_ms: dict[str, float] = field(default_factory=dict)
    kind: str = "answer"
    subject: str | None = None
    suggestions: list[str] = field(default_factory=list)
    working: list[str] = field(default_factory=list)
    confidence: float = 0.0
    note: str = ""
    intent: str = ""  # the kind of question (intent.Intent), for the console and the evals
    gap: str = ""  # why this answer counts as a gap in the corpus, if it does
    faq: str = ""  # "slug#i" when a corpus FAQ answered the question
    polarity: str = ""  # what gave a Yes/No opener: faq, or a reading (verdict.Verdict.how)

    def to_json(self) -> dict[str, Any]:
        """Return exactly the `ask --json` object."""
        return {
            "answer": self.text,
            "citations": [c.to_json() for c in self.citations],
            "tool_calls": [asdict(t) for t in self.tool_calls],
            "refused": self.refused,
            "retrieved": list(self.retrieved),
            "timings_ms": {k: round(v, 2) for k, v in self.timings_ms.items()},
            "kind": self.kind,
        }

    def markers(self) -> set[int]:
        """Return the citation numbers used in the text."""
        return set(markers_in(self.text))

    def citation_problems(self) -> list[str]:
        """List broken citations: markers without a source, sources never cited."""
        listed = {c.n for c in self.citations}
        used = self.markers()
        problems = [f"[{n}] has no citation" for n in sorted(used - listed)]
        problems += [f"citation {n} is never used" for n in sorted(listed - used)]
        return problems
