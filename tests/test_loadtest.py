"""The load test's plan and report (no server: the run itself is `python -m assistant loadtest`)."""

from __future__ import annotations

import random

import pytest
from typer.testing import CliRunner

from assistant import loadtest
from assistant.cli import app
from assistant.loadreport import medians, report


def test_the_questions_are_visitors_and_never_the_sealed_split():
    assert all("test" not in path.name for path in loadtest.QUESTION_FILES)
    questions = loadtest.visitor_questions()
    assert len(questions) == len(set(questions)) > 400


def test_a_mix_repeats_chips_and_never_repeats_anything_else():
    chips = ["chip one?", "chip two?"]
    pool = [f"question {i}?" for i in range(60)]
    fresh = loadtest.distinct_asks(pool, ["nvlink", "roce"])
    plans = loadtest.plan(50, 5, 0.5, chips, fresh, random.Random(1))
    asks = [ask for session in plans for ask in session]
    repeated = [a for a in asks if a[0] in chips]
    others = [a for a in asks if a[0] not in chips]
    assert len(asks) == 250 and 0.4 < len(repeated) / 250 < 0.6
    assert all(page == "" for _, page in repeated)
    assert len(others) == len(set(others))  # the pool ran out: the same question, on a page
    assert {page for _, page in others} >= {"", "nvlink"}
    none = loadtest.plan(10, 5, 0.0, chips, loadtest.distinct_asks(pool, []),
                         random.Random(1))
    assert not {q for s in none for q, _ in s} & set(chips)
    with pytest.raises(ValueError, match="out of distinct questions"):
        loadtest.plan(50, 5, 0.0, chips, loadtest.distinct_asks(pool, []), random.Random(1))


def test_the_report_gives_medians_ranges_and_ratios():
    def row(rps, p50, p95, **extra):
        return {"requests": 250, "errors": 0, "error_samples": [], "throughput_rps": rps,
                "p50_ms": p50, "p95_ms": p95, **extra}

    runs = [[{"mix": 0.5, "sessions": 50, "questions_per_session": 5, "chips": ["c?"],
              "apps": {"app": "http://127.0.0.1:1/", "baseline": "http://127.0.0.1:2/"},
              "commits": {"baseline": "abc1234"},
              "rows": {"echo_api": row(200, 50, 300), "json_api": row(r, 400, 900,
                                                                       cache_hits=120,
                                                                       mean_batch=1.5,
                                                                       batch_sizes={1: 4,
                                                                                    2: 4}),
                       "baseline:json_api": row(30, 1100, 1500)},
              "single": {"json_api": row(70, 20, 30)}}] for r in (90, 100, 95)]
    assert medians([run[0] for run in runs])["json_api"]["throughput_rps"] == 95
    text = report(runs, "2026-11-26T01:00")
    assert "| our `POST /api/ask` | 95.0 (90.0-100.0) | 0.40 | 0.90 | 0 | 120 | 1.50 (2) |" \
        in text
    assert "our `POST /api/ask` / baseline: answers/s **3.17×**, p95 0.6×" in text
    assert "commit abc1234" in text and "3 run(s)" in text


@pytest.mark.parametrize("mix", ["half", "1.5", ""])
def test_a_bad_mix_is_refused_with_a_message(mix):
    result = CliRunner().invoke(app, ["loadtest", "--mix", mix])
    assert result.exit_code == 2 and "--mix" in result.output
    assert "Traceback" not in result.output
