"""The log's rows and views: typed rows, the one registry of views, CSV rendering.

The support console shows one tab per view and offers each as a CSV download; both read
`VIEWS`, and `Store.rows(view)` / `Store.iter_csv(view)` fetch them.
"""

from __future__ import annotations

import csv
import dataclasses
import io
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

# -- rows ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class QuestionRow:
    """One logged question with its answer, the pages it cited and how long it took."""

    id: int
    created: str
    question: str
    answer: str
    kind: str
    refused: bool
    confidence: float
    subject: str
    cited: str  # the cited pages' titles, "; "-separated
    total_ms: float
    page: str
    rating: int  # +1, -1, or 0 without feedback
    question_chars: int = 0  # the question's length as asked (the log keeps the first part)


@dataclass(frozen=True)
class Gap:
    """Questions the corpus did not answer well, grouped by similar wording."""

    question: str  # the most recent wording
    count: int
    last_asked: str
    kinds: str  # e.g. "refusal, clarify"
    confidence: float  # the best confidence in the group
    examples: list[str] = field(default_factory=list)  # other wordings, most recent first
    staff: str = ""  # the status of a staff answer to it ("draft", "published"), if any
    pages: str = ""  # the pages the visitors were on ("nvlink, roce"): what "it" was


@dataclass(frozen=True)
class StaffEntryRow:
    """An answer written by support staff, as the console lists it."""

    id: int
    status: str
    question: str
    answer: str
    slug: str
    author: str
    created: str


@dataclass(frozen=True)
class HandoffRow:
    """A visitor's request to a person, as the console's inbox lists it."""

    id: int
    status: str  # "open" or "answered"
    created: str
    question: str
    email: str  # the address to reply to ("" without one); left out of CSVs unless asked
    conversation: str  # the conversation before it, one "role: text" line per message
    page: str
    reply: str
    answered_by: str
    answered_at: str
    webhook_status: str


@dataclass(frozen=True)
class FeedbackRow:
    """A thumbs up or down, with the visitor's comment and what they were told."""

    question_id: int
    created: str
    rating: int
    comment: str
    question: str
    answer: str
    subject: str


@dataclass(frozen=True)
class TermCount:
    """How often a term was the subject of a question, and how the answers were rated."""

    subject: str
    asks: int
    likes: int
    dislikes: int
    last_asked: str


@dataclass(frozen=True)
class View:
    """One view of the log: a console tab with its table, and a CSV export."""

    name: str
    label: str
    row_type: type
    fetch: str  # the Store method returning its rows, called as fetch(limit=n)
    columns: tuple[tuple[str, str], ...]  # (field shown in the console, column width)
    #: Fields a CSV export leaves out unless asked for (personal data: emails).
    private: tuple[str, ...] = ()


#: The one list of views: the console's tabs and the CSV exports both read it.
VIEWS: dict[str, View] = {v.name: v for v in (
    View("recent", "Latest questions", QuestionRow, "recent",
         (("id", "50px"), ("created", "110px"), ("question", "20%"), ("answer", "32%"),
          ("kind", "90px"), ("confidence", "90px"), ("cited", "12%"), ("total_ms", "80px"),
          ("page", "90px"), ("rating", "60px"))),
    View("gaps", "Gaps", Gap, "gaps",
         (("count", "70px"), ("question", "28%"), ("pages", "110px"), ("examples", "26%"),
          ("kinds", "110px"),
          ("confidence", "90px"), ("last_asked", "110px"), ("staff", "90px"))),
    View("feedback", "Feedback", FeedbackRow, "feedback_rows",
         (("created", "110px"), ("rating", "60px"), ("comment", "22%"), ("question", "20%"),
          ("answer", "30%"), ("subject", "100px"), ("question_id", "80px"))),
    View("terms", "Most asked terms", TermCount, "top_terms",
         (("subject", "30%"), ("asks", "15%"), ("likes", "15%"), ("dislikes", "15%"),
          ("last_asked", "25%"))),
    View("staff", "Staff answers", StaffEntryRow, "staff_rows",
         (("id", "50px"), ("status", "90px"), ("question", "25%"), ("answer", "40%"),
          ("slug", "120px"), ("author", "90px"), ("created", "110px"))),
    View("inbox", "Inbox", HandoffRow, "handoff_rows",
         (("id", "50px"), ("status", "80px"), ("created", "110px"), ("question", "22%"),
          ("email", "150px"), ("conversation", "25%"), ("page", "90px"), ("reply", "18%"),
          ("answered_by", "90px"), ("webhook_status", "110px")),
         private=("email",)),
)}


def csv_columns(spec: View, private: bool = False) -> list[str]:
    """Return the columns of a view's CSV: every field, the private ones only if asked."""
    return [f.name for f in dataclasses.fields(spec.row_type)
            if private or f.name not in spec.private]


def view(name: str) -> View:
    """Return a view by name, or raise ValueError naming the views there are."""
    if name not in VIEWS:
        raise ValueError(f"unknown view {name!r}; one of {', '.join(VIEWS)}")
    return VIEWS[name]


# -- CSV --------------------------------------------------------------------------------------

_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _csv_cell(value: Any) -> Any:
    if isinstance(value, list):
        value = " | ".join(str(v) for v in value)
    if isinstance(value, bool):
        return int(value)
    # Visitors wrote these cells and staff open them in spreadsheets: no formulas.
    if isinstance(value, str) and value.startswith(_FORMULA_START):
        return "'" + value
    return value


def csv_text(dicts: list[dict[str, Any]], names: list[str], header: bool = False) -> str:
    """Render row dicts as CSV lines in the given column order, with the header if asked."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=names, lineterminator="\n",
                            extrasaction="ignore")  # columns left out stay out
    if header:
        writer.writeheader()
    for d in dicts:
        writer.writerow({k: _csv_cell(v) for k, v in d.items()})
    return buffer.getvalue()


def rows_to_csv(rows: Sequence[Any], row_type: type | None = None) -> str:
    """Render dataclass rows (or dicts) as CSV text with a header line.

    `row_type` (a dataclass) gives the header when there are no rows.
    """
    dicts = rows_to_table(rows)
    if dicts:
        names = list(dicts[0])
    elif row_type is not None and dataclasses.is_dataclass(row_type):
        names = [f.name for f in dataclasses.fields(row_type)]
    else:
        return ""
    return csv_text(dicts, names, header=True)


def rows_to_table(rows: Sequence[Any]) -> list[dict[str, Any]]:
    """Return rows as plain dicts, for a table or JSON."""
    return [dataclasses.asdict(r) if dataclasses.is_dataclass(r) else dict(r) for r in rows]
