"""The console's outcome figures: is the assistant working? Read from the log's tables.

Over the last 7 days (and, for the trend, each of the last 4 weeks), from the `questions`,
`feedback` and `handoffs` tables of the question log (read-only; nothing here writes):

- questions per day;
- the share answered, refused (the assistant declined: outside the glossary) and clarifying
  (it asked for a missing input); "other" is the rest (empty or too long input);
- thumbs up and down on those answers, and the share of ratings that are up;
- conversations, and the share that ended in "Ask support" (a support request from the same
  conversation; a request or question without one, from the APIs, counts as its own
  conversation). The **deflection rate** is 1 minus that share: the conversations support
  never had to see, as kapa.ai (deflection) and Intercom Fin (resolution without a handover)
  count theirs;
- the answer cache's hit rate, when /healthz reports hit and miss counts (else left out);
- the questions that went unanswered this week (refused, or answered off-subject or
  unsettled), grouped by wording *and* by the page the visitor was on, so "is it expensive?"
  says what "it" was.

Example:
    >>> figures = compute(store.path, corpus=assistant.corpus)
    >>> figures.deflection, figures.to_json()["per_day"][-1]
"""

from __future__ import annotations

import dataclasses
import html
import sqlite3
from collections import Counter
from collections.abc import Callable, Mapping
from contextlib import closing
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from .gaps import normalise
from .views import csv_text

DAYS = 7
WEEKS = 4
TOP = 10
#: Log entries that are not questions the assistant worked on.
OTHER_KINDS = ("message", "rate_limited", "busy")
#: Sessions of the APIs: each question there is its own conversation.
NO_CONVERSATION = ("", "api", "mcp")


@dataclass(frozen=True)
class Outcomes:
    """What became of the questions of one period (a day or a week)."""

    start: str  # ISO date of the first day
    questions: int = 0
    answered: int = 0
    refused: int = 0
    clarifying: int = 0
    other: int = 0
    thumbs_up: int = 0
    thumbs_down: int = 0
    conversations: int = 0
    escalated: int = 0  # conversations that ended in "Ask support"

    def share(self, name: str) -> float | None:
        """Return a count's share of the questions (None without questions)."""
        return getattr(self, name) / self.questions if self.questions else None

    @property
    def up_share(self) -> float | None:
        """The share of ratings that are thumbs up (None without ratings)."""
        rated = self.thumbs_up + self.thumbs_down
        return self.thumbs_up / rated if rated else None

    @property
    def support_share(self) -> float | None:
        """The share of conversations that ended in "Ask support"."""
        return min(1.0, self.escalated / self.conversations) if self.conversations else None

    @property
    def deflection(self) -> float | None:
        """1 - support_share: the conversations support never had to see."""
        share = self.support_share
        return None if share is None else 1.0 - share

    def to_json(self) -> dict[str, Any]:
        """Return the counts with the shares worked out."""
        return {**dataclasses.asdict(self),
                "answered_share": _round(self.share("answered")),
                "refused_share": _round(self.share("refused")),
                "clarifying_share": _round(self.share("clarifying")),
                "up_share": _round(self.up_share),
                "support_share": _round(self.support_share),
                "deflection": _round(self.deflection)}


@dataclass(frozen=True)
class Unanswered:
    """A question that went unanswered, with how often and on which page it was asked."""

    question: str  # the latest wording
    count: int
    page: str  # slug of the page the visitor was on ("" if none)
    page_title: str
    last_asked: str
    reason: str  # refusal, off-subject, unsettled


@dataclass(frozen=True)
class Overview:
    """Every figure of the Overview tab; see the module docstring."""

    now: str
    week: Outcomes  # the last 7 days
    per_day: list[Outcomes]  # the last 28 days, oldest first
    weeks: list[Outcomes]  # the last 4 weeks, oldest first
    unanswered: list[Unanswered]
    cache: dict[str, Any] | None = None  # {"hits", "misses", "hit_rate"} when reported
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """Return the figures for GET /admin/api/overview."""
        return {"now": self.now, "week": self.week.to_json(),
                "per_day": [d.to_json() for d in self.per_day],
                "weeks": [w.to_json() for w in self.weeks],
                "unanswered": [dataclasses.asdict(u) for u in self.unanswered],
                "cache": self.cache}

    def to_csv(self) -> str:
        """Return one CSV row per day of the last 4 weeks, with its counts and shares."""
        rows = [d.to_json() for d in self.per_day]
        return csv_text(rows, list(rows[0]) if rows else ["start"], header=True)


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def _iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="seconds")


def outcome_of(row: Mapping[str, Any]) -> str:
    """Return what became of one logged question: answered, refused, clarifying or other."""
    if row["kind"] in OTHER_KINDS:
        return "other"
    if row["refused"]:
        return "refused"
    if row["kind"] == "clarify":
        return "clarifying"
    return "answered"


def _as_dict(cursor: sqlite3.Cursor, row: tuple) -> dict[str, Any]:
    return {col[0]: value for col, value in zip(cursor.description, row, strict=True)}


def _read(db: Path, since: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    if not Path(db).exists():
        return [], []
    with closing(sqlite3.connect(f"file:{Path(db).as_posix()}?mode=ro", uri=True)) as conn:
        conn.row_factory = _as_dict
        questions = conn.execute(
            "SELECT q.id, q.created, q.session, q.page, q.question, q.kind, q.refused, q.gap, "
            "f.rating FROM questions q LEFT JOIN feedback f ON f.question_id = q.id "
            "WHERE q.created >= ? ORDER BY q.id DESC", (since,)).fetchall()
        for q in questions:  # once per row: a row is counted in its day and its week
            q["outcome"] = outcome_of(q)
        handoffs = conn.execute("SELECT created, session FROM handoffs WHERE created >= ?",
                                (since,)).fetchall()
    return questions, handoffs


def tally(start: str, questions: list[Any], handoffs: list[Any]) -> Outcomes:
    """Count the outcomes of one period's questions and support requests."""
    outcomes = Counter(q["outcome"] for q in questions)
    ratings = Counter(q["rating"] for q in questions if q["rating"])
    sessions = {q["session"] for q in questions if q["session"] not in NO_CONVERSATION}
    loose = sum(q["session"] in NO_CONVERSATION for q in questions)
    asked = {h["session"] for h in handoffs if h["session"] in sessions}
    loose_handoffs = sum(h["session"] not in sessions for h in handoffs)
    return Outcomes(start=start, questions=len(questions), answered=outcomes["answered"],
                    refused=outcomes["refused"], clarifying=outcomes["clarifying"],
                    other=outcomes["other"], thumbs_up=ratings[1], thumbs_down=ratings[-1],
                    conversations=len(sessions) + loose,
                    escalated=len(asked) + loose_handoffs)


def unanswered(questions: list[Any], titles: Mapping[str, str], top: int = TOP
               ) -> list[Unanswered]:
    """Group the refused and off-subject questions by wording and page, most asked first."""
    groups: dict[tuple[str, str], list[Any]] = {}
    for q in questions:  # newest first
        if q["kind"] in OTHER_KINDS or not (q["refused"] or q["gap"]):
            continue
        groups.setdefault((normalise(q["question"]), q["page"] or ""), []).append(q)
    found = [Unanswered(question=rows[0]["question"], count=len(rows), page=page,
                        page_title=titles.get(page, page), last_asked=rows[0]["created"],
                        reason="refusal" if rows[0]["refused"] else rows[0]["gap"])
             for (_, page), rows in groups.items()]
    found.sort(key=lambda u: u.last_asked, reverse=True)
    return sorted(found, key=lambda u: -u.count)[:top]  # stable: newest first among equals


def cache_figures(health: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """Return the answer cache's hits, misses and hit rate from /healthz, if it reports them.

    Reads `{"cache": {"hits": n, "misses": m}}` or `{"cache_hits": n, "cache_misses": m}`;
    anything else (no cache, another shape) gives None and the tab leaves the figure out.
    """
    if not isinstance(health, Mapping):
        return None
    cache = health.get("cache")
    source = cache if isinstance(cache, Mapping) else {
        "hits": health.get("cache_hits"), "misses": health.get("cache_misses")}
    hits, misses = source.get("hits"), source.get("misses")
    if not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0
               for v in (hits, misses)):
        return None
    total = hits + misses
    return {"hits": hits, "misses": misses, "hit_rate": _round(hits / total) if total else None}


def compute(db: Path | str, now: datetime | None = None, titles: Mapping[str, str] | None = None,
            health: Callable[[], Mapping[str, Any]] | None = None) -> Overview:
    """Work out every figure from the log at `db` as of `now` (default: now, UTC).

    `titles` maps page slugs to titles (for the unanswered questions); `health` returns
    what /healthz says (for the cache's hit rate).
    """
    now = (now or datetime.now(UTC)).astimezone(UTC)
    first = (now - timedelta(days=DAYS * WEEKS - 1)).replace(hour=0, minute=0, second=0,
                                                             microsecond=0)
    questions, handoffs = _read(Path(db), _iso(first))
    by_day: dict[str, tuple[list[Any], list[Any]]] = {}  # one pass over the rows
    for q in questions:
        by_day.setdefault(q["created"][:10], ([], []))[0].append(q)
    for h in handoffs:
        by_day.setdefault(h["created"][:10], ([], []))[1].append(h)
    days = [(first + timedelta(days=i)).date().isoformat() for i in range(DAYS * WEEKS)]
    per_day = [tally(day, *by_day.get(day, ([], []))) for day in days]
    weeks = []
    for w in range(WEEKS):
        span = days[w * DAYS:(w + 1) * DAYS]
        weeks.append(tally(span[0], [q for d in span for q in by_day.get(d, ([], []))[0]],
                           [h for d in span for h in by_day.get(d, ([], []))[1]]))
    recent = [q for d in days[-DAYS:] for q in by_day.get(d, ([], []))[0]]
    recent.sort(key=lambda q: q["id"], reverse=True)  # newest first, as unanswered() expects
    try:
        cache = cache_figures(health() if health else None)
    except Exception:  # a health check that fails must not take the figures down
        cache = None
    return Overview(now=_iso(now), week=weeks[-1], per_day=per_day, weeks=weeks,
                    unanswered=unanswered(recent, titles or {}), cache=cache)


def health_of(app: Any) -> Callable[[], Mapping[str, Any]] | None:
    """Return the app's /healthz handler (called in-process), or None if it has none."""
    for route in getattr(app, "routes", []):
        if getattr(route, "path", None) == "/healthz" and callable(getattr(route, "endpoint",
                                                                           None)):
            return route.endpoint
    return None


# -- the tab ---------------------------------------------------------------------------------

def _pct(value: float | None) -> str:
    return "–" if value is None else f"{value:.0%}"


def bars_svg(days: list[Outcomes], width: int = 560, height: int = 120) -> str:
    """Return questions per day as an inline SVG bar chart (refused in a second colour)."""
    top = max([d.questions for d in days] + [1])
    step = width / max(len(days), 1)
    room = height - 32  # 16 px for the dates below, 16 for the scale above
    bars = []
    for i, d in enumerate(days):
        h = d.questions / top * room
        r = d.refused / top * room
        x = i * step + 1
        bars.append(f'<rect x="{x:.1f}" y="{height - 16 - h:.1f}" width="{step - 2:.1f}" '
                    f'height="{h:.1f}" fill="#3b82f6"><title>{d.start}: {d.questions} '
                    f'questions, {d.refused} refused</title></rect>'
                    f'<rect x="{x:.1f}" y="{height - 16 - r:.1f}" width="{step - 2:.1f}" '
                    f'height="{r:.1f}" fill="#f97316"/>')
    labels = "".join(f'<text x="{i * step + 1:.1f}" y="{height - 3}" font-size="10" '
                     f'fill="currentColor">{d.start[5:]}</text>'
                     for i, d in enumerate(days) if i % DAYS == 0)
    return (f'<svg class="overview-chart" id="overview-days" role="img" viewBox="0 0 {width} '
            f'{height}" width="{width}" height="{height}" aria-label="Questions per day, last '
            f'{len(days)} days (orange: refused)">{"".join(bars)}{labels}'
            f'<text x="{width - 4}" y="12" font-size="10" text-anchor="end" '
            f'fill="currentColor">max {top}/day</text></svg>')


def trend_svg(weeks: list[Outcomes], width: int = 560, height: int = 140) -> str:
    """Return the weekly answered share and deflection rate as an inline SVG line chart."""
    step = width / max(len(weeks), 1)
    lines = []
    for name, colour, label in (("answered_share", "#3b82f6", "answered"),
                                ("deflection", "#16a34a", "deflection")):
        points = [(i * step + step / 2, w.to_json()[name]) for i, w in enumerate(weeks)]
        shown = [(x, height - 20 - v * (height - 40)) for x, v in points if v is not None]
        if len(shown) > 1:
            lines.append(f'<polyline fill="none" stroke="{colour}" stroke-width="2" points="'
                         + " ".join(f"{x:.1f},{y:.1f}" for x, y in shown) + '"/>')
        lines += [f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" fill="{colour}"><title>{label}: '
                  f'{(height - 20 - y) / (height - 40):.0%}</title></circle>' for x, y in shown]
    end = width - 4
    legend = (f'<text x="{end}" y="12" font-size="11" text-anchor="end" fill="#3b82f6">'
              f'answered</text><text x="{end}" y="26" font-size="11" text-anchor="end" '
              f'fill="#16a34a">deflection</text>')
    labels = legend + "".join(f'<text x="{i * step + step / 2:.1f}" y="{height - 4}" '
                              f'font-size="10" text-anchor="middle" fill="currentColor">'
                              f'week of {w.start[5:]} ({w.questions})</text>'
                              for i, w in enumerate(weeks))
    return (f'<svg class="overview-chart" id="overview-trend" role="img" viewBox="0 0 {width} '
            f'{height}" width="{width}" height="{height}" aria-label="Answered share (blue) and '
            f'deflection rate (green) per week, last {len(weeks)} weeks">'
            f'<line x1="0" y1="20" x2="{width}" y2="20" stroke="#9ca3af" stroke-dasharray="3"/>'
            f'<text x="2" y="14" font-size="10" fill="currentColor">100%</text>'
            f'{"".join(lines)}{labels}</svg>')


def render_html(figures: Overview) -> str:
    """Return the Overview tab as HTML: headline figures, charts and unanswered questions."""
    w = figures.week
    cards = [("Questions (7 days)", str(w.questions), "questions"),
             ("Answered", _pct(w.share("answered")), "answered"),
             ("Refused", _pct(w.share("refused")), "refused"),
             ("Clarifying", _pct(w.share("clarifying")), "clarifying"),
             ("Thumbs up", f"{_pct(w.up_share)} ({w.thumbs_up} up, {w.thumbs_down} down)",
              "thumbs"),
             ("Ended in Ask support", f"{_pct(w.support_share)} of {w.conversations} "
              "conversations", "support"),
             ("Deflection", _pct(w.deflection), "deflection")]
    if figures.cache is not None:
        cards.append(("Cache hit rate", f"{_pct(figures.cache['hit_rate'])} "
                      f"({figures.cache['hits']} hits)", "cache"))
    # A table lays the cards out in a row with the console's own styles (no CSS to add).
    heads = "".join(f"<th>{label}</th>" for label, _, _ in cards)
    cells = "".join(f'<td id="overview-{key}"><strong>{html.escape(value)}</strong></td>'
                    for _, value, key in cards)
    rows = "".join(
        f"<tr><td>{u.count}</td><td>{html.escape(u.question)}</td>"
        f"<td>{html.escape(u.page_title) or '–'}</td><td>{html.escape(u.reason)}</td>"
        f"<td>{html.escape(u.last_asked[:16].replace('T', ' '))}</td></tr>"
        for u in figures.unanswered) or '<tr><td colspan="5">None this week.</td></tr>'
    return (f'<div id="overview-figures"><table id="overview-cards"><thead><tr>{heads}</tr>'
            f"</thead><tbody><tr>{cells}</tr></tbody></table>"
            f"<h3>Questions per day</h3>{bars_svg(figures.per_day)}"
            f"<h3>Last {len(figures.weeks)} weeks</h3>{trend_svg(figures.weeks)}"
            f"<h3>Top unanswered questions this week</h3>"
            f'<table id="overview-unanswered"><thead><tr><th>asked</th><th>question</th>'
            f"<th>page the visitor was on</th><th>why</th><th>last asked</th></tr></thead>"
            f"<tbody>{rows}</tbody></table>"
            f'<p><a href="api/overview.csv">Download per-day figures (CSV)</a> · '
            f'<a href="api/overview">JSON</a> · as of {figures.now} (UTC)</p></div>')
