"""Gaps in the corpus: which logged questions count as one, and grouping them by wording.

Pure functions over rows of the log (no database here): `gap_reason` says why a question is a
gap, `off_subject` spots an answer whose first sentence misses its subject, and `group_gaps`
folds similar wordings together, most asked first.

Example:
    >>> [g.question for g in group_gaps([("what is sr-iov?", "refusal", 0.1, "2026-01-02"),
    ...                                  ("What is SR-IOV", "refusal", 0.2, "2026-01-01")])]
    ['what is sr-iov?']
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from .views import Gap

if TYPE_CHECKING:
    from .answer import Answer

#: Answers below this confidence count as gaps in the corpus.
LOW_CONFIDENCE = 0.45
#: rapidfuzz token_set_ratio (0-100) at which two gap questions count as the same question.
SIMILAR_WORDING = 82


def gap_reason(row: Any, threshold: float = LOW_CONFIDENCE) -> str:
    """Return why a logged question is a gap: refusal, clarify, low confidence, the
    composer's reason (unsettled, off-subject), thumbs-down; "" when it is not one."""
    if row["refused"]:
        return "refusal"
    if row["kind"] == "clarify":
        return "clarify"
    if row["gap"]:
        return row["gap"]
    if row["confidence"] < threshold:
        return "low confidence"
    if row["rating"] == -1:
        return "thumbs-down"
    return ""


def off_subject(answer: Answer) -> str:
    """Return "off-subject" when an answer's first sentence does not name the question's
    main term (its subject: the page's title or slug), else ""."""
    if answer.kind != "answer" or answer.refused or not answer.subject:
        return ""
    first = re.split(r"(?<=[.!?])\s", answer.text.strip(), maxsplit=1)[0].lower()
    names = {answer.subject.lower(), answer.subject.replace("-", " ").lower()}
    names |= {c.title.lower() for c in answer.citations if c.slug == answer.subject}
    flat = normalise(first)
    if any(name and (name in first or normalise(name) in flat) for name in names):
        return ""
    return "off-subject"


_WORDS = re.compile(r"[^\w\s]+")


def normalise(question: str) -> str:
    """Return a question's wording reduced for comparison: lower case, no punctuation."""
    return " ".join(_WORDS.sub(" ", question.lower()).split())


def staff_status(gap: Gap, staff: dict[str, str]) -> str:
    """Return the status of the staff answer to a gap ("" without one), given the status of
    each staff question by its normalised wording."""
    for wording in [gap.question, *gap.examples]:
        status = staff.get(normalise(wording))
        if status:
            return status
    return ""


def group_gaps(rows: Iterable[tuple], similarity: int = SIMILAR_WORDING) -> list[Gap]:
    """Group (question, kind, confidence, created[, page]) rows, newest first, by similar
    wording; a gap lists the pages its questions were asked on."""
    from rapidfuzz import fuzz, process

    keys: list[str] = []
    groups: list[dict[str, Any]] = []
    for question, kind, confidence, created, *page in rows:
        key = normalise(question)
        match = process.extractOne(key, keys, scorer=fuzz.token_set_ratio,
                                   score_cutoff=similarity) if key and keys else None
        if match is None:
            keys.append(key)
            groups.append({"question": question, "count": 1, "last": created,
                           "kinds": [kind], "confidence": confidence, "examples": [],
                           "pages": [p for p in page if p]})
            continue
        group = groups[match[2]]
        group["pages"] += [p for p in page if p and p not in group["pages"]]
        group["count"] += 1
        group["confidence"] = max(group["confidence"], confidence)
        if kind not in group["kinds"]:
            group["kinds"].append(kind)
        if (question != group["question"] and question not in group["examples"]
                and len(group["examples"]) < 5):
            group["examples"].append(question)
    gaps = [Gap(question=g["question"], count=g["count"], last_asked=g["last"],
                kinds=", ".join(g["kinds"]), confidence=round(g["confidence"], 3),
                examples=g["examples"], pages=", ".join(g["pages"])) for g in groups]
    # Stable sort: equal counts keep the newest-first order of their latest question.
    return sorted(gaps, key=lambda g: -g.count)
