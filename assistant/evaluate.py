"""Evaluation: answer the golden questions, write the answers, score them deterministically."""

from __future__ import annotations

import datetime as dt
import json
import re
import statistics
import time
import tomllib
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from .answer import Answer
from .text import dangling_reason, numbers_in, split_sentences, strip_markers

REPO = Path(__file__).resolve().parent.parent
DEFAULT_GOLDEN = REPO / "evals" / "golden.jsonl"
THRESHOLDS = REPO / "evals" / "thresholds.toml"
REPORT = REPO / "evals" / "REPORT.md"
METRICS = ("hit_at_1", "hit_at_5", "mrr", "cited_expected", "tool_accuracy", "number_accuracy",
           "refusal_accuracy", "false_refusals", "out_of_scope_declined", "nugget_recall",
           "answer_first", "yes_no_accuracy", "wrong_polarity", "dangling", "latency_ms_p50",
           "latency_ms_p95")
#: The three question sets: golden (regression, tuned on), dev (blind-written, tune on it) and
#: test (blind-written, sealed: scored once at the end of a piece of work, never tuned on).
SPLITS = {"golden": DEFAULT_GOLDEN, "dev": REPO / "evals" / "dev.jsonl",
          "test": REPO / "evals" / "test.jsonl"}
#: Metrics whose golden-minus-test difference is reported as the generalization gap.
GAP_METRICS = ("hit_at_1", "answer_first", "nugget_recall", "yes_no_accuracy")

class GoldenError(ValueError):
    """A golden file line is malformed; the message names the line."""


@dataclass(frozen=True)
class Expect:
    """What a correct answer to a golden question does."""

    sources: tuple[str, ...] = ()
    tool: str | None = None
    numbers: tuple[float, ...] = ()
    refuse: bool = False
    #: key facts, each a tuple of acceptable phrasings matched case-insensitively
    nuggets: tuple[tuple[str, ...], ...] = ()
    yes_no: str | None = None  # "yes" or "no": the word a right answer opens with


@dataclass(frozen=True)
class StaffAnswer:
    """A staff FAQ answer published (in memory only) before a golden question is asked."""

    question: str
    answer: str
    slug: str


@dataclass(frozen=True)
class GoldenItem:
    """One golden question with its history, page context and expectations."""

    id: str
    question: str
    expect: Expect
    history: tuple[dict[str, str], ...] = ()
    page: str | None = None
    staff: StaffAnswer | None = None  # asked of staff.preview(assistant, ...) when set


@dataclass
class EvalResult:
    """The metrics and the per-question rows of one run."""

    metrics: dict[str, Any]
    rows: list[dict[str, Any]] = field(default_factory=list)


def load_golden(path: Path) -> list[GoldenItem]:
    """Read a golden JSONL file; raise GoldenError naming the line on malformed input."""
    items: list[GoldenItem] = []
    seen: set[str] = set()
    for no, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            raw = json.loads(line)
            exp = raw["expect"]
            item = GoldenItem(
                id=str(raw["id"]), question=str(raw["question"]),
                history=tuple({"role": str(m["role"]), "content": str(m["content"])}
                              for m in raw.get("history") or []),
                page=raw.get("page"), staff=_staff(raw.get("staff")),
                expect=Expect(sources=tuple(exp.get("sources") or ()), tool=exp.get("tool"),
                              numbers=tuple(float(n) for n in exp.get("numbers") or ()),
                              refuse=bool(exp.get("refuse", False)),
                              nuggets=_nuggets(exp.get("nuggets")),
                              yes_no=_yes_no(exp.get("yes_no"))))
        except (ValueError, KeyError, TypeError) as exc:
            raise GoldenError(f"{path}:{no}: {exc.__class__.__name__}: {exc}") from exc
        if item.id in seen:
            raise GoldenError(f"{path}:{no}: duplicate id {item.id!r}")
        seen.add(item.id)
        items.append(item)
    return items


def number_present(expected: float, found: list[float]) -> bool:
    """True if a found number is within 1% or 0.01 (whichever is larger) of the expected."""
    tolerance = max(abs(expected) * 0.01, 0.01)
    return any(abs(x - expected) <= tolerance for x in found)


def _nuggets(raw: Any) -> tuple[tuple[str, ...], ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list) or not all(isinstance(f, list) and f and all(
            isinstance(p, str) and p.strip() for p in f) for f in raw):
        raise ValueError("nuggets must be a list of non-empty lists of phrasings")
    return tuple(tuple(p.strip().lower() for p in fact) for fact in raw)


def _staff(raw: Any) -> StaffAnswer | None:
    if raw is None:
        return None
    if not isinstance(raw, dict) or set(raw) != {"question", "answer", "slug"}:
        raise ValueError("staff must be an object with question, answer and slug")
    return StaffAnswer(str(raw["question"]), str(raw["answer"]), str(raw["slug"]))


def _yes_no(raw: Any) -> str | None:
    if raw is None:
        return None
    if raw not in ("yes", "no"):
        raise ValueError(f"yes_no must be 'yes' or 'no', not {raw!r}")
    return raw


def first_sentence(text: str) -> str:
    """Return the first sentence of an answer, without citation markers."""
    first = strip_markers(text).strip().split("\n\n", 1)[0]
    parts = split_sentences(first) or [first]
    return parts[0]


def nugget_hits(nuggets: Any, text: str) -> list[bool]:
    """Return, per key fact, whether any of its phrasings occurs in the text. A phrasing that
    starts or ends with a digit matches whole numbers only: "8" is not found in "800" or
    "1.8", and "48" not in "2,048" (a bare-number fact would otherwise hold almost anywhere)."""
    lowered = strip_markers(text).lower()
    return [any(_phrasing(p).search(lowered) for p in fact) for fact in nuggets]


@lru_cache(maxsize=8192)
def _phrasing(phrase: str) -> re.Pattern[str]:
    """A nugget phrasing as a pattern: lower-case, with number edges."""
    phrase = phrase.lower()
    pattern = re.escape(phrase)
    if phrase[:1].isdigit():
        pattern = r"(?<![\d.,])" + pattern
    if phrase[-1:].isdigit():
        pattern += r"(?!\d|[.,]\d)"
    return re.compile(pattern)


def opens_with(text: str) -> str | None:
    """Return "yes", "no" or "depends" when an answer opens with that word, else None."""
    match = re.match(r"\W*(yes|no|it\s+depends)\b", strip_markers(text), re.I)
    if not match:
        return None
    word = match.group(1).lower()
    return "depends" if word.startswith("it") else word


def dangling_quotes(answer: Answer) -> list[str]:
    """Return the quoted sentences of an answer that cannot stand alone (in LLM mode, the
    model's own sentences: its citations point at whole passages, not at quotes)."""
    if answer.note == "llm":
        return [s for s in split_sentences(strip_markers(answer.text)) if dangling_reason(s)]
    out = []
    for citation in answer.citations:
        for sentence in split_sentences(citation.passage):
            if dangling_reason(sentence):
                out.append(sentence)
    return out


def answer_row(item: GoldenItem, answer: Answer, latency_ms: float) -> dict[str, Any]:
    """Return the JSONL record of one answered golden question."""
    return {"id": item.id, "question": item.question, "page": item.page,
            "staff": item.staff.slug if item.staff else None,
            "expect": {"sources": list(item.expect.sources), "tool": item.expect.tool,
                       "numbers": list(item.expect.numbers), "refuse": item.expect.refuse,
                       "nuggets": [list(f) for f in item.expect.nuggets],
                       "yes_no": item.expect.yes_no},
            "answer": answer.text, "kind": answer.kind, "refused": answer.refused,
            "intent": answer.intent, "faq": answer.faq, "gap": answer.gap, "note": answer.note,
            "polarity": answer.polarity,
            "dangling": dangling_quotes(answer),
            "retrieved": list(answer.retrieved),
            "cited": [c.slug for c in answer.citations],
            "tool_calls": [{"name": t.name, "args": t.args, "result": t.result}
                           for t in answer.tool_calls],
            "latency_ms": round(latency_ms, 2)}


def score(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Compute the metrics from answer rows (pure, deterministic)."""
    with_sources = [r for r in rows if r["expect"]["sources"]]
    ranks = []
    for r in with_sources:
        expected = set(r["expect"]["sources"])
        rank = next((i + 1 for i, s in enumerate(_dedupe(r["retrieved"])) if s in expected), None)
        ranks.append(rank)
    with_tool = [r for r in rows if r["expect"]["tool"]]
    with_numbers = [r for r in rows if r["expect"]["numbers"]]
    in_scope = [r for r in rows if not r["expect"]["refuse"]]
    out_of_scope = [r for r in rows if r["expect"]["refuse"]]
    latencies = sorted(r["latency_ms"] for r in rows)

    def share(hits: int, total: int) -> float:
        return round(hits / total, 4) if total else 1.0

    return {
        "n": len(rows),
        "hit_at_1": share(sum(1 for k in ranks if k == 1), len(ranks)),
        "hit_at_5": share(sum(1 for k in ranks if k is not None and k <= 5), len(ranks)),
        "mrr": round(sum(1 / k for k in ranks if k) / len(ranks), 4) if ranks else 1.0,
        "cited_expected": share(sum(1 for r in with_sources
                                    if set(r["cited"]) & set(r["expect"]["sources"])),
                                len(with_sources)),
        "tool_accuracy": share(sum(1 for r in with_tool if r["expect"]["tool"] in
                                   [t["name"] for t in r["tool_calls"]]), len(with_tool)),
        "number_accuracy": share(sum(1 for r in with_numbers if all(
            number_present(n, numbers_in(r["answer"])) for n in r["expect"]["numbers"])),
            len(with_numbers)),
        "refusal_accuracy": share(sum(1 for r in rows
                                      if r["refused"] == r["expect"]["refuse"]), len(rows)),
        "false_refusals": sum(1 for r in in_scope if r["refused"]),
        # refusal_accuracy counts every row, so a few out-of-scope questions answered hide
        # among many in-scope ones: this is the share of out-of-scope questions declined
        "out_of_scope_declined": share(sum(1 for r in out_of_scope if r["refused"]),
                                       len(out_of_scope)),
        **answer_metrics(rows),
        "latency_ms_p50": round(statistics.median(latencies), 2) if latencies else 0.0,
        "latency_ms_p95": round(_percentile(latencies, 95), 2) if latencies else 0.0,
    }


def answer_metrics(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Score what a visitor reads: key facts present, facts first, yes/no, dangling quotes."""
    with_nuggets = [r for r in rows if r["expect"].get("nuggets")]
    facts = found = first = 0
    for r in with_nuggets:
        hits = nugget_hits(r["expect"]["nuggets"], r["answer"])
        facts += len(hits)
        found += sum(hits)
        first += any(nugget_hits(r["expect"]["nuggets"], first_sentence(r["answer"])))
    polar = [r for r in rows if r["expect"].get("yes_no")]
    right = sum(1 for r in polar if opens_with(r["answer"]) == r["expect"]["yes_no"])
    wrong = sum(1 for r in polar if wrong_polarity(r))
    return {
        "nugget_recall": round(found / facts, 4) if facts else 1.0,
        "answer_first": round(first / len(with_nuggets), 4) if with_nuggets else 1.0,
        "yes_no_accuracy": round(right / len(polar), 4) if polar else 1.0,
        "wrong_polarity": wrong,
        "dangling": sum(1 for r in rows if r.get("dangling")),
    }


def wrong_polarity(r: dict[str, Any]) -> bool:
    """An answer to a yes/no question that opens with the opposite word or "It depends"."""
    expected = r["expect"].get("yes_no")
    opened = opens_with(r["answer"])
    return bool(expected) and opened is not None and opened != expected


def answer_misses(r: dict[str, Any]) -> list[str]:
    """Say what a visitor would miss in one answered row (facts, facts first, yes/no)."""
    reasons = []
    nuggets = r["expect"].get("nuggets") or []
    if nuggets:
        hits = nugget_hits(nuggets, r["answer"])
        missing = [f[0] for f, hit in zip(nuggets, hits, strict=True) if not hit]
        if missing:
            reasons.append(f"key facts missing: {missing}")
        elif not any(nugget_hits(nuggets, first_sentence(r["answer"]))):
            reasons.append("first sentence holds no key fact")
    if r["expect"].get("yes_no") and opens_with(r["answer"]) != r["expect"]["yes_no"]:
        reasons.append(f"{'WRONG POLARITY: ' if wrong_polarity(r) else ''}should open with "
                       f"{r['expect']['yes_no']!r}, opens with {opens_with(r['answer'])!r}")
    if r.get("dangling"):
        reasons.append(f"quotes a sentence that cannot stand alone: {r['dangling'][0][:60]!r}")
    return reasons


def failures(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Return the rows that miss any expectation, with the reason."""
    out = []
    for r in rows:
        reasons = []
        exp = r["expect"]
        if exp["sources"] and not set(exp["sources"]) & set(r["retrieved"][:5]):
            reasons.append("expected page not in top 5")
        elif exp["sources"] and r["retrieved"][:1] and r["retrieved"][0] not in exp["sources"]:
            reasons.append("expected page not first")
        if exp["tool"] and exp["tool"] not in [t["name"] for t in r["tool_calls"]]:
            reasons.append(f"tool {exp['tool']} not called")
        found = numbers_in(r["answer"])
        missing = [n for n in exp["numbers"] if not number_present(n, found)]
        if missing:
            reasons.append(f"numbers missing: {missing}")
        if r["refused"] != exp["refuse"]:
            reasons.append("refused" if r["refused"] else "answered but should refuse")
        reasons += answer_misses(r)
        if reasons:
            out.append({**r, "reasons": reasons})
    return out


def run_eval(assistant: Any, golden: Path = DEFAULT_GOLDEN, out: Path | None = None
             ) -> EvalResult:
    """Answer every golden question with a warm assistant, write JSONL, and score.

    An item with a staff answer is asked of a copy of the assistant that has it published
    in memory (`staff.preview`): nothing is stored and the index is left as it is.
    """
    from .staff import preview

    items = load_golden(golden)
    assistant.ask("warm up")
    rows = []
    for item in items:
        asker = assistant
        if item.staff is not None:
            asker = preview(assistant, item.staff.question, item.staff.answer, item.staff.slug)
            asker.ask("warm up")
        cache = getattr(asker, "answers", None)
        if cache is not None:
            cache.clear()  # every answer worked out: scored and timed, never replayed
        start = time.perf_counter()
        answer = asker.ask(item.question, history=list(item.history), page=item.page)
        rows.append(answer_row(item, answer, (time.perf_counter() - start) * 1000))
    if out is not None:
        out = Path(out)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows),
                       encoding="utf-8")
    return EvalResult(metrics=score(rows), rows=rows)


def run_splits(assistant: Any, names: tuple[str, ...] = tuple(SPLITS),
               out_dir: Path | None = None) -> dict[str, EvalResult]:
    """Answer and score each named split (golden, dev, test) with the same assistant."""
    unknown = [n for n in names if n not in SPLITS]
    if unknown:
        raise ValueError(f"unknown split(s) {unknown}; choose from {list(SPLITS)}")
    return {name: run_eval(assistant, SPLITS[name],
                           out_dir / f"{name}.jsonl" if out_dir else None) for name in names}


def split_table(results: dict[str, EvalResult]) -> list[str]:
    """Return a Markdown table of the splits side by side, with the generalization gap."""
    names = list(results)
    gap = "golden" in results and "test" in results
    head = "| metric | " + " | ".join(names) + (" | gap (golden - test) |" if gap else " |")
    lines = [head, "|---" * (len(names) + 1 + gap) + "|"]
    for metric in ("n", *METRICS):
        cells = [str(results[n].metrics[metric]) for n in names]
        if gap:
            diff = results["golden"].metrics[metric] - results["test"].metrics[metric]
            cells.append(f"{diff:+.4f}" if metric in GAP_METRICS else "")
        lines.append(f"| {metric} | " + " | ".join(cells) + " |")
    return lines


def load_thresholds(path: Path = THRESHOLDS) -> dict[str, float]:
    """Read the metric floors (and ceilings for false_refusals and latency)."""
    return tomllib.loads(Path(path).read_text(encoding="utf-8"))


def below_thresholds(metrics: dict[str, Any], thresholds: dict[str, Any]) -> list[str]:
    """Return a line per metric that misses its floor (or exceeds its ceiling)."""
    problems = []
    for name, floor in thresholds.get("min", {}).items():
        if metrics[name] < floor:
            problems.append(f"{name} = {metrics[name]} is below the floor {floor}")
    for name, ceiling in thresholds.get("max", {}).items():
        if metrics[name] > ceiling:
            problems.append(f"{name} = {metrics[name]} is above the ceiling {ceiling}")
    return problems


def print_report(result: EvalResult) -> None:
    """Print the metrics as a table, then the failed questions."""
    for name in ("n", *METRICS):
        print(f"{name:>18}  {result.metrics[name]}")
    fails = failures(result.rows)
    print(f"\n{len(fails)} question(s) with a miss:")
    for r in fails:
        print(f"- [{r['id']}] {r['question']!r}: {'; '.join(r['reasons'])}")
        expected = "a refusal" if r["expect"]["refuse"] else r["expect"]["sources"]
        print(f"    expected {expected}, got {r['retrieved'][:3]} ({r['kind']})")


def write_report(settings: Any, build: Any, golden: Path = DEFAULT_GOLDEN,
                 path: Path = REPORT) -> Path:
    """Run hybrid, dense and BM25 on the golden set and write the side-by-side report;
    `build(settings)` makes the assistant (Assistant.from_settings)."""
    results: dict[str, EvalResult] = {}
    corpus_size = chunks = 0
    for mode in ("hybrid", "dense", "bm25"):
        bot = build(settings.replace(retriever=mode))
        corpus_size = len(bot.corpus)
        chunks = len(bot.retriever.chunks)
        results[mode] = run_eval(bot, golden, REPO / "evals" / "out" / f"{mode}.jsonl")
    lines = [
        "# Evaluation report",
        "",
        f"Generated {dt.date.today().isoformat()} by `make eval` "
        f"(`python -m assistant eval-report`) on `{Path(golden).name}`: "
        f"{results['hybrid'].metrics['n']} questions, corpus of {corpus_size} pages "
        f"({chunks} section and FAQ chunks). Latency is in-process, warm, on this machine.",
        "",
        "| metric | hybrid (default) | dense only | BM25 only |",
        "|---|---|---|---|",
    ]
    for name in ("n", *METRICS):
        lines.append(f"| {name} | " + " | ".join(str(results[m].metrics[name])
                                                  for m in ("hybrid", "dense", "bm25")) + " |")
    splits = {"golden": results["hybrid"],
              **run_splits(build(settings), ("dev", "test"))}
    lines += ["", "## Golden, dev and the sealed test split (hybrid)", "",
              "Golden is the regression set the answer rules and the learned parts were fitted "
              "on; dev was written blind and is tuned on; test was written blind and is "
              "scored, never tuned on. The gap is golden minus test.", "",
              *split_table(splits)]
    for title, rows in (("the hybrid default misses on golden", results["hybrid"].rows),
                        ("missed on the sealed test split", splits["test"].rows)):
        fails = failures(rows)
        lines += ["", f"## Questions {title} ({len(fails)})", ""]
        lines += [_miss_line(r) for r in fails] or ["None."]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _miss_line(r: dict[str, Any]) -> str:
    return (f"- `{r['id']}` {r['question']!r}: {'; '.join(r['reasons'])}; "
            f"expected {r['expect']['sources']}, retrieved {r['retrieved'][:3]}")


def _dedupe(slugs: list[str]) -> list[str]:
    seen: list[str] = []
    for s in slugs:
        if s not in seen:
            seen.append(s)
    return seen


def _percentile(values: list[float], pct: float) -> float:
    if not values:
        return 0.0
    k = (len(values) - 1) * pct / 100
    lo, hi = int(k), min(int(k) + 1, len(values) - 1)
    return values[lo] + (values[hi] - values[lo]) * (k - lo)
