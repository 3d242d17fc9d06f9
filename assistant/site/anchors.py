"""Anchors below a page's FAQ section: one per question, one per published staff answer.

A citation of a page's FAQ names the section ("FAQ"); the quoted passage says which question
it came from. The page template gives every question (and every "From support" entry) its
own anchor with these functions, and the chat links a citation to the anchor of the question
its passage quotes, so a link and its target cannot disagree.

Example:
    >>> faq_anchors(corpus.pages["nvlink"])[0]
    'faq-how-fast-is-nvlink-on-h100-and-on-blackwell'
    >>> cited_fragment(corpus.pages["nvlink"], "NVLink 6 gives each Rubin GPU 3.6 TB/s ...")
    'faq-how-fast-is-nvlink-6'
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Protocol

from assistant.corpus import Page, anchor

#: Longest anchor made from a question (the words after it add nothing to a URL).
MAX_ANCHOR = 60
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_MARKUP = re.compile(r"[*_`\\]")


class StaffAnswer(Protocol):
    """What a page needs of a published staff answer (assistant.staff.StaffEntry has it)."""

    id: int
    question: str
    answer: str
    slug: str


def faq_anchors(page: Page) -> list[str]:
    """Return the anchor of each of a page's FAQ questions, in order, unique on the page."""
    seen: set[str] = set()
    out = []
    for item in page.faq:
        base = "faq-" + (anchor(item.q)[:MAX_ANCHOR].rstrip("-") or "question")
        name, n = base, 2
        while name in seen:
            name, n = f"{base}-{n}", n + 1
        seen.add(name)
        out.append(name)
    return out


def support_anchor(entry_id: int) -> str:
    """Return the anchor of a published staff answer on its page."""
    return f"from-support-{entry_id}"


def _plain(text: str) -> str:
    return " ".join(_MARKUP.sub("", text).split()).casefold()


def _where(passage: str, answer: str) -> int | None:
    # Where the passage first quotes a sentence of this answer (None: it quotes none).
    found = [passage.find(s) for s in map(_plain, _SENTENCE_END.split(answer)) if len(s) > 12]
    found = [i for i in found if i >= 0]
    return min(found) if found else None


def cited_item(page: Page, passage: str, staff: Iterable[StaffAnswer] = ()
               ) -> tuple[str, str] | None:
    """Return (anchor, question) of the FAQ question or staff answer a passage quotes first.

    None when the passage quotes none of them (the citation then links the FAQ section).
    """
    text = _plain(passage)
    if not text:
        return None
    candidates = [(a, item.q, item.a) for a, item in zip(faq_anchors(page), page.faq,
                                                        strict=True)]
    candidates += [(support_anchor(e.id), e.question, e.answer) for e in staff
                   if e.slug == page.slug]
    best: tuple[int, str, str] | None = None
    for name, question, answer in candidates:
        at = _where(text, answer)
        if at is not None and (best is None or at < best[0]):
            best = (at, name, question)
    return (best[1], best[2]) if best else None


def cited_fragment(page: Page, passage: str, staff: Iterable[StaffAnswer] = ()) -> str | None:
    """Return the anchor of the FAQ question or staff answer a passage quotes first."""
    found = cited_item(page, passage, staff)
    return found[0] if found else None
