"""Calculations through the chat: the page each calculator cites, refusals by name, rates.

On `fake_bot`: a calculation is read from the wording and needs no ranking by meaning.
"""

from __future__ import annotations

import dataclasses

import pytest

from assistant import calculators


@pytest.mark.parametrize(("question", "tool"), [
    ("How much does it cost to run 256 H100s for 100 hours at $7 per GPU-hour?",
     "gpu_hour_cost"),
    ("How much does a 30% slowdown cost on 256 GPUs for 100 hours at $7/GPU-hour?",
     "training_cost"),
    ("What is the cost per million tokens at $2/hr and 1,000 tokens/s?", "serving_cost"),
    ("compare cluster A at $6.50 for 130 hours with cluster B at $7 for 100 hours on 256 GPUs",
     "compare_cluster_quotes"),
])
def test_each_calculation_cites_the_page_its_calculator_declares(fake_bot, question, tool):
    answer = fake_bot.ask(question)
    assert answer.kind == "calculation"
    assert [c.name for c in answer.tool_calls] == [tool]
    assert [c.slug for c in answer.citations] == [calculators.REGISTRY[tool].lesson]


def test_a_missing_lesson_is_cited_by_nobody_not_replaced(fake_bot, monkeypatch):
    spec = calculators.REGISTRY["serving_cost"]
    monkeypatch.setitem(calculators.REGISTRY, "serving_cost",
                        dataclasses.replace(spec, lesson="no-such-lesson"))
    answer = fake_bot.ask("What is the cost per million tokens at $2/hr and 1,000 tokens/s?")
    assert answer.kind == "calculation" and answer.citations == []
    assert "estimating-training-cost" not in answer.retrieved


def test_hourly_burn_is_answered_with_the_rate(fake_bot):
    answer = fake_bot.ask("What does a cluster of 512 GPUs at $2.50 per GPU-hour burn per hour?")
    assert answer.kind == "calculation"
    assert answer.text.startswith("$1,280 per hour")


def test_a_price_in_an_unknown_unit_is_refused_by_name(fake_bot):
    answer = fake_bot.ask("What do 256 GPUs cost for 100 hours at $0.50 per core-hour?")
    assert answer.kind == "clarify" and not answer.tool_calls
    assert "$0.50 per core-hour is a price per core-hour, not per GPU-hour" in answer.text


def test_allreduce_time_from_chat_wording(fake_bot):
    answer = fake_bot.ask("how long does an all-reduce of 10 GB take on 8 GPUs at 400 Gb/s")
    assert answer.kind == "calculation"
    assert [c.name for c in answer.tool_calls] == ["allreduce_time"]
    assert answer.text.startswith("0.35 s (350 ms) for a ring all-reduce of 10 GB on 8 GPUs "
                                  "(algbw 28.6 GB/s, busbw 50 GB/s)")
    assert [c.slug for c in answer.citations] == ["how-all-reduce-works"]


def test_the_kwh_question_is_answered_by_the_power_calculator(fake_bot):
    answer = fake_bot.ask("256 H100s at 700 W for 100 hours at $0.12 per kWh")
    assert answer.kind == "calculation"
    assert [c.name for c in answer.tool_calls] == ["power_cost"]
    assert answer.text.startswith("$2,150.40 of electricity for 100 h")
    assert "0.12 per GPU-hour" not in answer.text
    assert [c.slug for c in answer.citations] == ["power-and-facility-cost"]


def test_a_missing_price_is_asked_for_after_what_the_rest_works_out_to(fake_bot):
    answer = fake_bot.ask("What would 256 GPUs for 100 hours cost?")
    assert answer.kind == "clarify" and not answer.tool_calls
    first, _, rest = answer.text.partition("[1]")
    assert "25,600 GPU-hours" in first
    assert "price per GPU-hour" in rest and rest.strip().endswith("?")


def test_nothing_is_worked_out_before_the_inputs_allow_it(fake_bot):
    answer = fake_bot.ask("How much would 256 GPUs cost?")
    assert answer.kind == "clarify"
    assert "GPU-hours" not in answer.text.split("[1]")[0]


# --- the question as it is written (issue 22, section 4) ----------------------------------

def _history(*turns):
    roles = ("user", "assistant")
    return [{"role": roles[i % 2], "content": text} for i, text in enumerate(turns)]


def test_each_gpu_draws_what_each_says(fake_bot):
    answer = fake_bot.ask("1,000 GPUs drawing 700 W each at $0.10 per kWh with a PUE of 1.3, "
                          "for a week: electricity cost?")
    assert answer.kind == "calculation"
    assert [c.name for c in answer.tool_calls] == ["power_cost"]
    assert answer.tool_calls[0].args["watts_per_gpu"] == 700
    assert answer.text.startswith("$15,288 of electricity for 168 h")


def test_a_month_of_rental_says_its_hours(fake_bot):
    answer = fake_bot.ask("64 h100s at 2.49 an hour for a month")
    assert answer.kind == "calculation"
    assert answer.text.startswith("$116,332.80 in total (46,720 GPU-hours")
    assert "A month is taken as 730 hours" in answer.text


def test_a_rate_per_gpu_hour_without_a_dollar_sign(fake_bot):
    answer = fake_bot.ask("64 gpus at 2.49 per gpu hour for 720 hours")
    assert answer.kind == "calculation"
    assert answer.tool_calls[0].args == {"gpus": 64, "price_per_gpu_hour": 2.49, "hours": 720.0}


def test_a_link_speed_written_400g(fake_bot):
    answer = fake_bot.ask("all-reduce of 14GB on 16 GPUs with 400G links")
    assert [c.name for c in answer.tool_calls] == ["allreduce_time"]
    assert answer.tool_calls[0].args["link_gbps"] == 400
    assert answer.text.startswith("0.525 s (525 ms) for a ring all-reduce of 14 GB on 16 GPUs")


def test_what_if_power_was_12_cents_reruns_the_power_cost(fake_bot):
    history = _history(
        "1,000 GPUs drawing 700 W each, PUE 1.3, 8 cents per kWh, for a week. electricity?",
        "$12,230.40 of electricity for 168 h")
    answer = fake_bot.ask("what if power was 12 cents?", history=history)
    assert answer.kind == "calculation"
    assert [c.name for c in answer.tool_calls] == ["power_cost"]
    assert answer.tool_calls[0].args["price_per_kwh"] == 0.12
    assert answer.text.startswith("$18,345.60 of electricity")


@pytest.mark.parametrize(("follow_up", "tool", "start"), [
    ("same but 128 gpus", "gpu_hour_cost", "$232,665.60 in total"),
    ("and with 20% slowdown?", "training_cost", "$139,599.36 with the slowdown"),
])
def test_follow_ups_rerun_the_rental_with_the_changed_input(fake_bot, follow_up, tool, start):
    history = _history("64 h100s at 2.49 an hour for a month", "$116,332.80 in total")
    answer = fake_bot.ask(follow_up, history=history)
    assert [c.name for c in answer.tool_calls] == [tool]
    assert answer.text.startswith(start)


def test_the_price_of_infiniband_is_not_a_gpu_rental(fake_bot):
    answer = fake_bot.ask("how much is infiniband for 16 gpus")
    assert answer.kind != "clarify" and not answer.tool_calls
    assert "price per GPU-hour" not in answer.text


def test_a_calculator_short_of_an_input_follows_the_corpus_worked_example(fake_bot):
    # every figure asked is one the corpus works through: its example first, then the
    # calculator's question for the visitor's own figures
    answer = fake_bot.ask("going from pue 1.5 to 1.1 with 1000 gpus saves how much a year?")
    assert answer.kind == "clarify"
    example, _, calculator = answer.text.partition("\n\nMore:")
    assert "lowering pue from 1.5 to 1.1" in example.lower() and "1,000 GPUs" in example
    assert "power cost calculator" in calculator and calculator.strip().endswith("?")


def test_no_worked_example_of_other_figures_comes_before_the_calculator(fake_bot):
    answer = fake_bot.ask("training cost for 1024 gpus at 2.2 per gpu-hour, how much?")
    assert answer.kind == "clarify"
    assert answer.text.startswith("I can work that out")


def test_a_question_that_asks_for_no_amount_is_not_held_by_a_calculator(fake_bot):
    # "cheapest" and 16 GPUs chose the GPU-hour calculator, which asked for a price
    answer = fake_bot.ask("cheapest way to connect 2 servers with 8 gpus each for training?")
    assert answer.kind == "answer" and not answer.tool_calls
    assert "calculator" not in answer.text
