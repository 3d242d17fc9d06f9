"""The golden set against the floors in evals/thresholds.toml, and the scoring rules."""

import json

import pytest

from assistant.evaluate import (
    DEFAULT_GOLDEN,
    GoldenError,
    below_thresholds,
    load_golden,
    load_thresholds,
    nugget_hits,
    number_present,
    run_eval,
    score,
)
from assistant.text import numbers_in

pytestmark = pytest.mark.eval


def test_golden_set_meets_every_floor(bot, tmp_path):
    result = run_eval(bot, DEFAULT_GOLDEN, tmp_path / "answers.jsonl")
    problems = below_thresholds(result.metrics, load_thresholds())
    assert not problems, "\n".join(problems) + f"\n{result.metrics}"
    assert (tmp_path / "answers.jsonl").read_text().count("\n") == result.metrics["n"]


def test_dev_split_never_opens_with_the_wrong_word(bot):
    from assistant.evaluate import SPLITS

    result = run_eval(bot, SPLITS["dev"])
    problems = below_thresholds(result.metrics, load_thresholds()["dev"])
    assert not problems, "\n".join(problems)


def test_golden_set_has_what_the_issue_asks_for():
    items = load_golden(DEFAULT_GOLDEN)
    assert len(items) >= 150
    assert sum(1 for i in items if i.expect.refuse) >= 20
    assert sum(1 for i in items if i.history) >= 10
    assert sum(1 for i in items if i.expect.numbers) >= 15


def test_numbers_count_in_any_written_form():
    found = numbers_in("It costs $179,200 (25,600 GPU-hours), or $0.56 per million.")
    assert number_present(179200, found) and number_present(25600, found)
    assert number_present(0.556, numbers_in("$0.56")) and not number_present(0.60, found)
    assert number_present(179200, numbers_in("179200"))


def test_a_bare_number_fact_matches_whole_numbers_only():
    text = "An 800G port, 2,048 GPUs, 1.5x the traffic and 8 W per optic [1]."
    assert nugget_hits([["8"], ["48"], ["5"], ["800g"]], text) == [True, False, False, True]
    assert nugget_hits([["8"], ["1.5"], ["2,048 gpus"]], "800G, 1.5x, 2,048 GPUs") == [
        False, True, True]


def test_scoring_is_deterministic_and_counts_ranks():
    rows = [
        {"expect": {"sources": ["a"], "tool": None, "numbers": [], "refuse": False},
         "retrieved": ["a", "b"], "cited": ["a"], "tool_calls": [], "answer": "x",
         "refused": False, "latency_ms": 10},
        {"expect": {"sources": ["a"], "tool": None, "numbers": [], "refuse": False},
         "retrieved": ["b", "a"], "cited": ["b"], "tool_calls": [], "answer": "x",
         "refused": True, "latency_ms": 30},
        {"expect": {"sources": [], "tool": None, "numbers": [], "refuse": True},
         "retrieved": [], "cited": [], "tool_calls": [], "answer": "no",
         "refused": True, "latency_ms": 20},
    ]
    m = score(rows)
    assert (m["hit_at_1"], m["hit_at_5"], m["mrr"]) == (0.5, 1.0, 0.75)
    assert m["cited_expected"] == 0.5 and m["false_refusals"] == 1
    assert m["refusal_accuracy"] == round(2 / 3, 4) and m["latency_ms_p50"] == 20


def test_malformed_golden_lines_are_named(tmp_path):
    bad = tmp_path / "g.jsonl"
    bad.write_text('{"id": "a", "question": "q", "expect": {}}\n{"id": "b"}\n')
    with pytest.raises(GoldenError, match=r"g.jsonl:2"):
        load_golden(bad)


def test_hybrid_beats_dense_and_bm25_baselines(bot, built):
    from assistant.chain import Assistant

    hybrid = run_eval(bot, DEFAULT_GOLDEN).metrics
    for mode in ("dense", "bm25"):
        bot_in_mode = Assistant.from_settings(built.replace(retriever=mode))
        baseline = run_eval(bot_in_mode, DEFAULT_GOLDEN).metrics
        assert hybrid["mrr"] > baseline["mrr"], (mode, hybrid["mrr"], baseline["mrr"])
        assert hybrid["hit_at_1"] > baseline["hit_at_1"], (mode, hybrid, baseline)


def test_a_staff_item_is_asked_with_its_answer_published_in_memory(fake_bot, tmp_path):
    from assistant import staff

    golden = tmp_path / "g.jsonl"
    item = {"id": "s", "question": "How much does an InfiniBand port cost?",
            "staff": {"question": "How much does an InfiniBand port cost?",
                      "answer": "An InfiniBand port usually costs more than an Ethernet port "
                                "of the same speed.", "slug": "infiniband"},
            "expect": {"sources": ["infiniband"],
                       "nuggets": [["costs more than an ethernet port"],
                                   ["answered by support"]]}}
    golden.write_text(json.dumps(item) + "\n")
    [loaded] = load_golden(golden)
    assert loaded.staff.slug == "infiniband"
    units = len(fake_bot.index.units)
    row = run_eval(fake_bot, golden).rows[0]
    assert row["answer"].startswith("An InfiniBand port usually costs more")
    assert staff.SUPPORT_NOTE in row["answer"] and row["staff"] == "infiniband"
    assert row["cited"][0] == "infiniband"
    # Nothing was published for real: the assistant asked next does not know the answer.
    assert len(fake_bot.index.units) == units
    assert staff.SUPPORT_NOTE not in fake_bot.ask(item["question"]).text

    golden.write_text(json.dumps({**item, "staff": {"question": "q"}}) + "\n")
    with pytest.raises(GoldenError, match="staff must be"):
        load_golden(golden)


def test_the_golden_set_has_a_staff_answer_reaching_a_visitor():
    items = [i for i in load_golden(DEFAULT_GOLDEN) if i.staff]
    assert items and all(["answered by support"] in [list(n) for n in i.expect.nuggets]
                         for i in items)


def test_scoring_works_every_answer_out_never_a_cached_one(tmp_path):
    from assistant.config import Settings
    from assistant.testing import fake_assistant

    bot = fake_assistant(Settings.from_env({}, data_dir=tmp_path, answer_cache_size=64))
    questions = tmp_path / "q.jsonl"
    questions.write_text('{"id": "a", "question": "what is rdma", "expect": {}}\n'
                         '{"id": "b", "question": "what is rdma", "expect": {}}\n')
    bot.ask("what is rdma")
    assert bot.ask("what is rdma") and bot.answers.stats()["hits"] == 1  # the cache is on
    run_eval(bot, questions)
    assert bot.answers.stats()["hits"] == 1
