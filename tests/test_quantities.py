"""Wording -> typed inputs: every phrasing in the brief, follow-ups, and hostile text."""

from __future__ import annotations

import builtins
import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assistant import quantities
from assistant.calculators import HOURS_PER_MONTH
from assistant.quantities import CalcOutcome, CalcRequest, detect, read, run, scan

# --- single wordings ----------------------------------------------------------------------

WORDINGS = [
    ("$7 per GPU-hour", "price", 7.0),
    ("$7/GPU-hour", "price", 7.0),
    ("$2.50/hr", "price", 2.5),
    ("1.8 dollars an hour", "price", 1.8),
    ("$3 an hour", "price", 3.0),
    ("$7 per GPU per hour", "price", 7.0),
    ("$2.49/GPU/hr", "price", 2.49),
    ("1,024 GPUs", "gpus", 1024),
    ("256 H100s", "gpus", 256),
    ("256 gpus", "gpus", 256),
    ("8x H100", "gpus", 8),
    ("4 nodes of 8 GPUs", "gpus", 32),
    ("for 100 hours", "hours", 100.0),
    ("100 h", "hours", 100.0),
    ("a 100-hour run", "hours", 100.0),
    ("for 3 days", "hours", 72.0),
    ("a week", "hours", 168.0),
    ("2 weeks", "hours", 336.0),
    ("for a month", "hours", HOURS_PER_MONTH),
    ("for 90 minutes", "hours", 1.5),
    ("30% longer", "slowdown_pct", 30.0),
    ("30% slower", "slowdown_pct", 30.0),
    ("a 30% slowdown", "slowdown_pct", 30.0),
    ("a 30% network slowdown", "slowdown_pct", 30.0),
    ("a network slowdown of 30%", "slowdown_pct", 30.0),
    ("runs 1.3x as long", "slowdown_pct", 30.0),
    ("takes 1.3 times as long", "slowdown_pct", 30.0),
    ("5% overhead", "overhead_pct", 5.0),
    ("7B", "parameters", 7e9),
    ("a 7B model", "parameters", 7e9),
    ("70 billion parameters", "parameters", 7e10),
    ("70B params", "parameters", 7e10),
    ("1T tokens", "tokens", 1e12),
    ("2 trillion tokens", "tokens", 2e12),
    ("15T tokens", "tokens", 1.5e13),
    ("989 TFLOPS", "peak_tflops_per_gpu", 989.0),
    ("1 PFLOPS", "peak_tflops_per_gpu", 1000.0),
    ("40% MFU", "mfu", 0.4),
    ("MFU of 0.4", "mfu", 0.4),
    ("MFU of 40%", "mfu", 0.4),
    ("2,500 tokens/s", "tokens_per_second", 2500.0),
    ("2500 tokens per second", "tokens_per_second", 2500.0),
    ("2.5k tok/s", "tokens_per_second", 2500.0),
    ("at 40% utilization", "utilization", 0.4),
    ("utilization of 50%", "utilization", 0.5),
    ("10 billion tokens a month", "monthly_tokens", 1e10),
    ("1B tokens per month", "monthly_tokens", 1e9),
]


@pytest.mark.parametrize(("text", "kind", "value"), WORDINGS)
def test_each_wording_parses_alone(text, kind, value):
    found = scan(text)
    assert [(q.kind, q.value) for q in found] == [(kind, value)]
    if kind == "gpus":
        assert isinstance(found[0].value, int)


def test_b_is_parameters_and_t_is_tokens_in_one_sentence():
    found = {q.kind: q.value for q in scan("a 7B model trained on 15T tokens")}
    assert found == {"parameters": 7e9, "tokens": 1.5e13}
    found = {q.kind: q.value for q in scan("70 billion parameters on 2 trillion tokens")}
    assert found == {"parameters": 7e10, "tokens": 2e12}


def test_rates_are_not_durations():
    # "an hour" belongs to the price, "a month" to the traffic: neither is a job length.
    assert [q.kind for q in scan("$3 an hour")] == ["price"]
    assert [q.kind for q in scan("10 billion tokens a month")] == ["monthly_tokens"]
    assert [q.kind for q in scan("25,600 GPU-hours")] == ["gpu_hours"]


def test_daily_traffic_becomes_monthly():
    [q] = scan("1B tokens a day")
    assert q.kind == "monthly_tokens"
    assert q.value == pytest.approx(1e9 * HOURS_PER_MONTH / 24)


def test_model_names_are_not_numbers():
    assert scan("H100 vs A100 vs B200") == []
    assert scan("Llama-3-8B") == []


# --- whole questions ----------------------------------------------------------------------

QUESTIONS = [
    ("How much does it cost to run 256 H100s for 100 hours at $7 per GPU-hour?",
     "gpu_hour_cost", {"gpus": 256, "price_per_gpu_hour": 7.0, "hours": 100.0}),
    ("What would 1,024 GPUs cost for a week at $2.50/hr?",
     "gpu_hour_cost", {"gpus": 1024, "price_per_gpu_hour": 2.5, "hours": 168.0}),
    ("Cost of 256 gpus for 3 days at 1.8 dollars an hour",
     "gpu_hour_cost", {"gpus": 256, "price_per_gpu_hour": 1.8, "hours": 72.0}),
    ("how much: 64 nodes with 8 H100s each for 2 weeks at $2.49/GPU-hour",
     "gpu_hour_cost", {"gpus": 512, "price_per_gpu_hour": 2.49, "hours": 336.0}),
    ("How much does a 30% slowdown cost on 256 GPUs for 100 hours at $7/GPU-hour?",
     "training_cost", {"gpus": 256, "price_per_gpu_hour": 7.0, "hours": 100.0,
                       "slowdown_pct": 30.0}),
    ("If the job runs 1.3x as long, what does it cost? 256 GPUs, 100 h, $7/GPU-hour",
     "training_cost", {"gpus": 256, "price_per_gpu_hour": 7.0, "hours": 100.0,
                       "slowdown_pct": 30.0}),
    ("Estimate the cost with 5% overhead: 256 gpus for 100 hours at $7 per GPU-hour",
     "training_cost", {"gpus": 256, "price_per_gpu_hour": 7.0, "hours": 100.0,
                       "overhead_pct": 5.0}),
    ("How many GPU-hours to train a 7B model on 1T tokens at 989 TFLOPS and 40% MFU?",
     "training_cost", {"parameters": 7e9, "tokens": 1e12, "peak_tflops_per_gpu": 989.0,
                       "mfu": 0.4}),
    ("How long to train 70 billion parameters on 15T tokens at 1 PFLOPS with MFU of 0.4 on "
     "1,024 GPUs?",
     "training_cost", {"parameters": 7e10, "tokens": 1.5e13, "peak_tflops_per_gpu": 1000.0,
                       "mfu": 0.4, "gpus": 1024}),
    ("What is the cost per million tokens at $2/hr and 1,000 tokens/s?",
     "serving_cost", {"price_per_gpu_hour": 2.0, "tokens_per_second": 1000.0}),
    ("Serving cost at 2.5k tok/s on 8 GPUs at $2.49/GPU-hour, at 40% utilization, for "
     "10 billion tokens a month?",
     "serving_cost", {"price_per_gpu_hour": 2.49, "tokens_per_second": 2500.0,
                      "utilization": 0.4, "gpus": 8, "monthly_tokens": 1e10}),
    ("inference cost for 1B tokens per month at 2500 tokens per second and $3 an hour",
     "serving_cost", {"price_per_gpu_hour": 3.0, "tokens_per_second": 2500.0,
                      "monthly_tokens": 1e9}),
    # counts in words, nodes "of 8", fractions and "pct" (the sixteenth round's dev wordings)
    ("We got a dozen nodes (8 gpus each) for ten days. price is $3.15 per gpu-hour. total?",
     "gpu_hour_cost", {"gpus": 96, "price_per_gpu_hour": 3.15, "hours": 240.0}),
    ("We need forty gpus for six weeks at $2.75/gpu-hr, what's the total?",
     "gpu_hour_cost", {"gpus": 40, "price_per_gpu_hour": 2.75, "hours": 1008.0}),
    ("our fleet is 400 gpus serving half a million tokens/s combined. $1.90/gpu-hr, 70 pct "
     "utilization. cost per million?",
     "serving_cost", {"price_per_gpu_hour": 1.9, "tokens_per_second": 500000.0,
                      "utilization": 0.7, "gpus": 400}),
    ("4.5k tokens per sec per gpu, 2.80/gpu/hr, 0.65 util. $ per million tokens?",
     "serving_cost", {"price_per_gpu_hour": 2.8, "tokens_per_second": 4500.0,
                      "utilization": 0.65}),
    ("we ran 1,024 gpus for 18 days at $2.35/hr. if the run ends up 0.2 slower, extra cost?",
     "training_cost", {"gpus": 1024, "price_per_gpu_hour": 2.35, "hours": 432.0,
                       "slowdown_pct": 20.0}),
    ("NDR ib, 32 gpus with one nic each. allreduce of 4gb with 6 microsec latency per step?",
     "allreduce_time", {"buffer_gb": 4.0, "gpus": 32, "link_gbps": 400.0, "latency_us": 6.0}),
    ("what if we only get 60 pct of a 25gbps link for a 12 gb file? how many seconds",
     "transfer_time", {"size_gb": 12.0, "link_gbps": 25.0, "efficiency": 0.6}),
    ("small lab: 8 servers, 6.5kw per server, pue 1.6, 22 cents per kwh. cost for 100 hours?",
     "power_cost", {"watts_per_server": 6500.0, "pue": 1.6, "price_per_kwh": 0.22,
                    "hours": 100.0, "servers": 8}),
    ("64 gpus at 700w, pue 1.1, .21/kwh, 100 hour job - energy cost?",
     "power_cost", {"gpus": 64, "watts_per_gpu": 700.0, "pue": 1.1, "price_per_kwh": 0.21,
                    "hours": 100.0}),
    ("2048 gpus for 300 hours at 2.10/gpu-hr, plus a 10% slowdwn from the cross-dc links?",
     "training_cost", {"gpus": 2048, "price_per_gpu_hour": 2.1, "hours": 300.0,
                       "slowdown_pct": 10.0}),
    ("what if pue were 1.1: 750 gpus at 1,100 w per gpu, $0.09 per kwh, for a year?",
     "power_cost", {"gpus": 750, "watts_per_gpu": 1100.0, "pue": 1.1, "price_per_kwh": 0.09,
                    "hours": 8760.0}),
]


@pytest.mark.parametrize(("question", "tool", "args"), QUESTIONS)
def test_questions_pick_tool_and_args(question, tool, args):
    req = detect(question)
    assert req is not None
    assert req.tool == tool
    assert req.args == args
    assert req.missing == []
    outcome = run(req)
    assert outcome.error is None and outcome.result is not None


def test_brief_totals_through_the_parser():
    r = run(detect("How much does it cost to run 256 H100s for 100 hours at $7 per GPU-hour?"))
    assert r.result.total_cost == 179_200
    r = run(detect("What does a 30% slowdown cost on 256 GPUs for 100 h at $7/GPU-hour?"))
    assert round(r.result.cost_with_slowdown, 2) == 232_960
    assert round(r.result.extra_cost, 2) == 53_760
    r = run(detect("What is the cost per million tokens at $2/hr and 1,000 tokens/s?"))
    assert r.result.formula.endswith("= $0.56 per million tokens")


def test_month_is_a_documented_constant():
    req = detect("What do 8 GPUs cost for a month at $2/GPU-hour?")
    assert req.args["hours"] == 730
    assert any("730 hours" in note for note in req.notes)


NOT_CALCULATIONS = [
    "what is InfiniBand?",
    "is InfiniBand expensive?",
    "What is a GPU-hour?",
    "What is MFU? Is 40% MFU good?",
    "How much memory does a 70B model need?",
    "Why is 400 Gb/s InfiniBand expensive?",
    "What's the difference between H100 and A100 pricing?",
    "Explain NVLink",
    # one GPU and nothing else asks for the price, which a calculation could only ask back
    "how much does 1 h100 cost per hour to rent roughly",
    "",
]


@pytest.mark.parametrize("question", NOT_CALCULATIONS)
def test_definitions_are_not_calculations(question):
    assert detect(question) is None


# --- quotes -------------------------------------------------------------------------------

def test_compare_named_clusters():
    req = detect("compare cluster A at $6.50 for 130 hours with cluster B at $7 for 100 hours "
                 "on 256 GPUs")
    assert req.tool == "compare_cluster_quotes"
    assert req.args == {"gpus": 256, "quotes": [
        {"name": "A", "price_per_gpu_hour": 6.5, "hours": 130.0},
        {"name": "B", "price_per_gpu_hour": 7.0, "hours": 100.0},
    ]}
    result = run(req).result
    assert (result.cheapest, result.difference) == ("B", 37_120)


def test_compare_providers_with_vs():
    req = detect("provider X: $2.10/GPU-hour for 2 weeks vs provider Y: $1.80/GPU-hour for "
                 "3 weeks, 64 GPUs")
    assert req.args == {"gpus": 64, "quotes": [
        {"name": "X", "price_per_gpu_hour": 2.1, "hours": 336.0},
        {"name": "Y", "price_per_gpu_hour": 1.8, "hours": 504.0},
    ]}


def test_compare_unnamed_quotes_and_hours_before_price():
    req = detect("Which is cheaper on 256 GPUs: for 130 hours at $6.50 or for 100 hours at $7?")
    assert req.tool == "compare_cluster_quotes"
    assert [(q["name"], q["price_per_gpu_hour"], q["hours"]) for q in req.args["quotes"]] == [
        ("Quote 1", 6.5, 130.0), ("Quote 2", 7.0, 100.0)]


def test_unnamed_quotes_with_bare_prices_and_the_time_each_takes():
    """"got three quotes: ... @ 2.60 but it takes 2.5 weeks, or ... @ 2.90 done in 9 days": a
    bare amount after "@" followed by the job's time is that quote's price."""
    req = detect("got three quotes: 64 gpus @ 3.10/hr finishing in 2 weeks, 64 gpus @ 2.60 but "
                 "it takes 2.5 weeks, or 96 gpus @ 2.90 done in 9 days. which one wins")
    assert req.tool == "compare_cluster_quotes"
    assert [(q["price_per_gpu_hour"], q["hours"], q["gpus"]) for q in req.args["quotes"]] == [
        (3.1, 336.0, 64), (2.6, 420.0, 64), (2.9, 216.0, 96)]
    assert run(req).result.cheapest == "Quote 3"


def test_compare_bare_amounts_with_vs_and_per_quote_gpus():
    req = detect("$6.50 for 130 hours vs $7 for 100 hours on 256 GPUs")
    assert [q["name"] for q in req.args["quotes"]] == ["Quote 1", "Quote 2"]
    req = detect("option 1: 128 GPUs at $2/GPU-hour for 10 days; option 2: 256 GPUs at "
                 "$2.20/GPU-hour for 5 days")
    assert req.args == {"quotes": [
        {"name": "Option 1", "price_per_gpu_hour": 2.0, "hours": 240.0, "gpus": 128},
        {"name": "Option 2", "price_per_gpu_hour": 2.2, "hours": 120.0, "gpus": 256},
    ]}
    assert run(req).result.cheapest == "Option 1"


def test_compare_capitalised_provider_names():
    req = detect("Compare CoreWeave at $6.50 for 130 hours with Lambda at $7 for 100 hours on "
                 "256 GPUs")
    assert [q["name"] for q in req.args["quotes"]] == ["CoreWeave", "Lambda"]


def test_compare_nodes_of_eight_and_a_count_before_the_price():
    req = detect("a: 32 nodes x8 @ $2.25, 90h. b: 256 gpus @ $2.05, 105h. c: 256 gpus @ $2.49, "
                 "80h. cheapest one?")
    assert req.tool == "compare_cluster_quotes" and req.missing == []
    assert [x["gpus"] for x in req.args["quotes"]] == [256, 256, 256]
    req = detect("quote one: 2048 gpus at $1.89/gpu-hr, 6 days. quote two: 2048 @ $2.15, 5 days")
    assert [x.get("gpus") for x in req.args["quotes"]] == [2048, 2048]


def test_quotes_named_by_any_capital_and_a_follow_up_naming_a():
    req = detect("two quotes, 1024 gpus each: X 2.40/hr, 21 days; Y 2.75/hr, 17 days")
    assert [x["name"] for x in req.args["quotes"]] == ["X", "Y"]
    first = detect("comparing A: 256 gpus at 2.30/hr taking 500h vs B: 256 gpus at 2.60/hr "
                   "taking 420h")
    after = detect("what if A knocks its price down to 2.05?", first)
    assert after.tool == "compare_cluster_quotes"
    assert [x["price_per_gpu_hour"] for x in after.args["quotes"]] == [2.05, 2.6]


def test_a_follow_up_doubles_or_halves_the_previous_amount():
    first = detect("cost for 32 gpus for a month at 4.10/hr?")
    assert detect("ok double the gpus and make it 3 months", first).args == {
        "gpus": 64, "price_per_gpu_hour": 4.1, "hours": 2190.0}
    assert detect("what if we halve the price?", first).args["price_per_gpu_hour"] == 2.05


def test_servers_times_power_and_bus_bandwidth_select_their_calculators():
    assert detect("128 servers x 14.3kw, pue 1.3, $0.07/kwh, 30 days").args["servers"] == 128
    req = detect("32 gpus, 400 gb/s ib each, 2 GB bucket, 8 us per step, just need the busbw")
    assert req.tool == "allreduce_time" and req.missing == []
    req = detect("allreduce a 2gb buffer over 32 gpus with 200 gbps links each, 10 us/step")
    assert req.args["link_gbps"] == 200.0 and "links" not in req.args


def test_ten_times_faster_is_not_a_count():
    assert scan("nvlink is ten times faster") == []


def test_compare_missing_hours_is_asked():
    req = detect("compare cluster A at $6.50 with cluster B at $7 on 256 GPUs")
    assert req.tool == "compare_cluster_quotes"
    assert req.missing == ["hours"]
    assert req.question_for_missing() == "How many hours will the job run?"


# --- follow-ups ---------------------------------------------------------------------------

BASE = "How much does it cost to run 256 H100s for 100 hours at $7 per GPU-hour?"


@pytest.mark.parametrize(("follow_up", "changed"), [
    ("and what if it took 130 hours instead?", {"hours": 130.0}),
    ("with 512 GPUs?", {"gpus": 512}),
    ("what about $5 per GPU-hour?", {"price_per_gpu_hour": 5.0}),
    ("what if it ran 130 hours instead of 100 hours?", {"hours": 130.0}),
])
def test_follow_up_changes_one_input(follow_up, changed):
    previous = detect(BASE)
    req = detect(follow_up, previous)
    assert req is not None
    assert req.tool == "gpu_hour_cost"
    assert req.args == {**previous.args, **changed}
    assert req.missing == []


def test_follow_up_chain_carries_everything():
    req = detect(BASE)
    for text in ("and what if it took 130 hours instead?", "with 512 GPUs?",
                 "what about $5 per GPU-hour?"):
        req = detect(text, req)
    assert req.args == {"gpus": 512, "price_per_gpu_hour": 5.0, "hours": 130.0}
    assert run(req).result.total_cost == 512 * 5 * 130


def test_follow_up_adds_slowdown_and_switches_to_training():
    req = detect("and with a 30% slowdown?", detect(BASE))
    assert req.tool == "training_cost"
    assert req.args == {"gpus": 256, "price_per_gpu_hour": 7.0, "hours": 100.0,
                        "slowdown_pct": 30.0}


def test_follow_up_on_serving_utilization():
    previous = detect("What is the cost per million tokens at $2/hr and 1,000 tokens/s?")
    req = detect("and at 50% utilization?", previous)
    assert req.tool == "serving_cost"
    assert req.args == {"price_per_gpu_hour": 2.0, "tokens_per_second": 1000.0,
                        "utilization": 0.5}
    assert round(run(req).result.cost_per_million_tokens, 2) == 1.11


def test_follow_up_on_compare_changes_gpus():
    previous = detect("compare cluster A at $6.50 for 130 hours with cluster B at $7 for 100 "
                      "hours on 256 GPUs")
    req = detect("with 512 GPUs?", previous)
    assert req.tool == "compare_cluster_quotes"
    assert req.args["gpus"] == 512 and req.args["quotes"] == previous.args["quotes"]


def test_follow_up_on_model_size_adds_gpus_and_price():
    previous = detect("How many GPU-hours to train a 7B model on 1T tokens at 989 TFLOPS and "
                      "40% MFU?")
    req = detect("on 256 GPUs at $2.50/hr?", previous)
    assert req.tool == "training_cost"
    assert req.args["gpus"] == 256 and req.args["price_per_gpu_hour"] == 2.5
    assert round(run(req).result.baseline_cost, 2) == 73_727.67


def test_unrelated_question_after_a_calculation_is_not_a_follow_up():
    previous = detect(BASE)
    assert detect("What is InfiniBand?", previous) is None
    assert detect("Is 40% MFU good?", previous) is None


def test_complete_new_question_does_not_inherit():
    previous = detect("and with a 30% slowdown?", detect(BASE))
    req = detect("What do 8 GPUs cost for 10 hours at $2/GPU-hour?", previous)
    assert req.tool == "gpu_hour_cost"
    assert req.args == {"gpus": 8, "price_per_gpu_hour": 2.0, "hours": 10.0}


def test_bare_answer_fills_the_missing_input():
    req = detect("What do GPUs cost for 10 hours?")
    assert req.missing == ["gpus", "price_per_gpu_hour"]
    req = detect("256", req)
    assert req.args == {"hours": 10.0, "gpus": 256} and req.missing == ["price_per_gpu_hour"]
    req = detect("$3", req)
    assert req.missing == [] and run(req).result.total_cost == 7_680


# --- missing inputs and questions ---------------------------------------------------------

@pytest.mark.parametrize(("question", "missing", "ask"), [
    ("How much do 256 GPUs cost for 100 hours?", ["price_per_gpu_hour"],
     "What price per GPU-hour should I use?"),
    ("What does it cost at $7 per GPU-hour for 100 hours?", ["gpus"], "How many GPUs?"),
    ("What do 256 GPUs cost at $7/GPU-hour?", ["hours"], "How many hours will the job run?"),
    ("What's the cost per million tokens at $2/hr?", ["tokens_per_second"],
     "What throughput in tokens per second?"),
    ("How much would a 30% slowdown cost?", ["gpus", "price_per_gpu_hour", "hours"],
     "How many GPUs?"),
    ("How many GPU-hours to train a 7B model on 1T tokens?", ["peak_tflops_per_gpu", "mfu"],
     "What peak TFLOPS per GPU should I use (e.g. 989 TFLOPS for an H100 at BF16)?"),
    ("What does the network slowdown cost for 256 GPUs over 100 hours at $7/GPU-hour?",
     ["slowdown_pct"], "How much longer does the job run, e.g. 30% longer?"),
])
def test_missing_inputs_are_asked_for(question, missing, ask):
    req = detect(question)
    assert req.missing == missing
    assert req.question_for_missing() == ask
    outcome = run(req)
    assert outcome.result is None and outcome.error is None
    assert outcome.missing == missing and outcome.question == ask


def test_nothing_missing_means_no_question():
    assert detect(BASE).question_for_missing() is None


# --- hostile amounts ----------------------------------------------------------------------

@pytest.mark.parametrize("question", [
    "How much for __import__('os') GPUs for 10 hours at $2/GPU-hour?",
    "cost of 9**9**9 GPUs for 10 h at $2/hr",
    "How much for 256 GPUs for 10 hours at NaN dollars an hour?",
    "What do 256 GPUs cost for 10 hours at $inf per GPU-hour?",
])
def test_unreadable_amounts_are_asked_for(question):
    req = detect(question)
    assert req is not None and req.missing
    outcome = run(req)
    assert outcome.result is None


@pytest.mark.parametrize(("question", "name", "value"), [
    ("what does 1e309 GPUs cost for 1 h at $2/hr", "gpus", math.inf),
    ("How much do -5 GPUs cost for 10 hours at $2/GPU-hour?", "gpus", -5),
    ("How much do 0 GPUs cost for 10 hours at $2/GPU-hour?", "gpus", 0),
    ("How much do 2.5 GPUs cost for 10 hours at $2/GPU-hour?", "gpus", 2.5),
    ("How much do 8 GPUs cost for -10 hours at $2/GPU-hour?", "hours", -10.0),
    ("How much do 8 GPUs cost for 10 hours at -$2/GPU-hour?", "price_per_gpu_hour", -2.0),
    ("How much do 8 GPUs cost for 10 hours at $-2/GPU-hour?", "price_per_gpu_hour", -2.0),
    ("How much do 20,000,000 GPUs cost for 10 hours at $2/GPU-hour?", "gpus", 20_000_000),
    ("What does training cost at 150% MFU for 7B on 1T tokens at 989 TFLOPS?", "mfu", 1.5),
])
def test_bad_amounts_parse_and_are_rejected_by_name(question, name, value):
    req = detect(question)
    assert req.args[name] == value
    outcome = run(req)
    assert outcome.result is None
    assert outcome.error is not None and outcome.error.startswith(name)
    json.dumps(outcome.to_dict(), allow_nan=False)  # inf is reported as text, not Infinity


def test_bad_amount_reported_before_asking_for_the_rest():
    outcome = run(detect("What do 0 GPUs cost?"))
    assert outcome.error == "gpus must be a positive whole number (got 0)"
    assert outcome.missing == ["price_per_gpu_hour", "hours"]


def test_minus_sign_is_kept():
    assert [q.value for q in scan("-5 GPUs")] == [-5]
    assert [q.value for q in scan("−5 GPUs")] == [-5]  # U+2212 minus sign
    assert [q.value for q in scan("3-5 GPUs")] == []  # a range is not a negative


def test_run_reports_unknown_tool_and_args():
    assert "tool must be one of" in run(CalcRequest("rm -rf", {})).error
    assert "does not take" in run(CalcRequest("gpu_hour_cost", {"shell": 1})).error


def test_outcome_to_dict_is_json():
    outcome = run(detect(BASE))
    assert isinstance(outcome, CalcOutcome)
    d = json.loads(json.dumps(outcome.to_dict(), allow_nan=False))
    assert d["tool"] == "gpu_hour_cost" and d["result"]["total_cost"] == 179_200
    assert d["error"] is None and d["missing"] == [] and d["question"] is None


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300))
def test_detect_never_raises_on_any_text(text):
    req = detect(text)
    if req is not None:
        run(req).to_dict()
        detect(text, req)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([
    "$", "-", "7", "1e309", "9**9", ",", ".", "%", " ", "GPUs", "gpu-hour", "per", "hours",
    "h", "B", "T", "tokens", "/s", "a month", "MFU", "x", "×", "cluster A", "vs", "at",
    "nan", "inf", "cost", "__import__('os')", "(", ")", "1,024", "0.", "e", "week",
]), max_size=40).map("".join))
def test_detect_never_raises_on_near_miss_text(text):
    req = detect(text)
    if req is not None:
        json.dumps(run(req).to_dict(), allow_nan=False)


def test_long_input_is_cut_and_fast():
    text = "1" * 100_000 + " GPUs " + "$7 per GPU-hour " * 2000
    assert detect(text) is None or isinstance(detect(text), CalcRequest)
    assert len(quantities._normalize(text)[0]) <= quantities.MAX_CHARS


def test_eval_and_exec_are_never_called(monkeypatch):
    def forbidden(*args, **kwargs):
        raise AssertionError("eval/exec must not be used")

    monkeypatch.setattr(builtins, "eval", forbidden)
    monkeypatch.setattr(builtins, "exec", forbidden)
    for text in ["How much does 9**9**9 GPUs cost for __import__('os').system('x') hours at "
                 "$eval('1') per GPU-hour?", BASE, "compare cluster A at $1 for 2 h with "
                 "cluster B at $2 for 1 h on 8 GPUs"]:
        req = detect(text)
        if req is not None:
            run(req)
    assert run(detect(BASE)).result.total_cost == 179_200


# --- real visitor wordings ----------------------------------------------------------------

_7B_1T_30 = 6 * 7e9 * 1e12 / (989e12 * 0.3) / 3600  # GPU-hours, 39,321.4
_8B_15T_40 = 6 * 8e9 * 15e12 / (989e12 * 0.4) / 3600  # GPU-hours, 505,561.2

VISITOR_QUESTIONS = [
    ("training run: 128 gpus, 48h, $3 per gpu hour. if comms stalls add 20% to the runtime "
     "what does it cost",
     "training_cost", {"gpus": 128, "hours": 48.0, "price_per_gpu_hour": 3.0,
                       "slowdown_pct": 20.0},
     {"cost_with_slowdown": 128 * 48 * 3 * 1.2, "extra_cost": 128 * 48 * 3 * 0.2}),
    ("same 7b on 1t tokens but mfu only 30% on 989 TFLOPS gpus, gpu hours?",
     "training_cost", {"parameters": 7e9, "tokens": 1e12, "peak_tflops_per_gpu": 989.0,
                       "mfu": 0.3},
     {"gpu_hours_with_slowdown": _7B_1T_30}),
    ("what does it cost to train an 8B model on 15T tokens with 989 TFLOPS GPUs at 40% MFU if "
     "a gpu hour is $2",
     "training_cost", {"parameters": 8e9, "tokens": 15e12, "peak_tflops_per_gpu": 989.0,
                       "mfu": 0.4, "price_per_gpu_hour": 2.0},
     {"gpu_hours_with_slowdown": _8B_15T_40, "cost_with_slowdown": _8B_15T_40 * 2}),
    ("1,024 gpus: quote A $4.50/hr and the job takes 10 days, quote B $4/hr but takes 12 "
     "days. which is cheaper overall",
     "compare_cluster_quotes",
     {"gpus": 1024, "quotes": [{"name": "A", "price_per_gpu_hour": 4.5, "hours": 240.0},
                               {"name": "B", "price_per_gpu_hour": 4.0, "hours": 288.0}]},
     {"cheapest_cost": 1024 * 4.5 * 10 * 24, "dearest_cost": 1024 * 4 * 12 * 24,
      "difference": 1024 * 4 * 12 * 24 - 1024 * 4.5 * 10 * 24}),
    # counts in words, servers named by their model, each server's GPUs after "per"
    ("two gb200 nvl72 racks at 120kw each (72 gpus per rack), pue 1.15, 7 cents per kwh. "
     "grid draw and power bill for 2 weeks?",
     "power_cost", {"gpus": 144, "gpus_per_server": 72, "watts_per_server": 120000.0,
                    "pue": 1.15, "price_per_kwh": 0.07, "hours": 336.0},
     {"total_cost": 276 * 336 * 0.07, "facility_kw": 276}),
    ("32 dgx h100s, 10.2kw per server with 8 gpus each, pue 1.25, $0.08/kwh, for two weeks. "
     "how many kw and what's the power bill?",
     "power_cost", {"gpus": 256, "gpus_per_server": 8, "watts_per_server": 10200.0,
                    "pue": 1.25, "price_per_kwh": 0.08, "hours": 336.0},
     {"total_cost": 408 * 336 * 0.08, "facility_kw": 408}),
    ("our dgx h100 boxes draw 10.2kw per 8-gpu server. 64 gpus total, pue 1.5, $0.08/kwh, "
     "for a full year (8760h). power bill?",
     "power_cost", {"gpus": 64, "gpus_per_server": 8, "watts_per_server": 10200.0,
                    "pue": 1.5, "price_per_kwh": 0.08, "hours": 8760.0},
     {"total_cost": 122.4 * 8760 * 0.08}),
    ("dgx h100 boxes are rated 10.2kw for 8 gpus. we've got 64 gpus in a site with pue 1.4, "
     "paying $0.08/kwh. electricity for running all year, 8760 hours?",
     "power_cost", {"gpus": 64, "gpus_per_server": 8, "watts_per_server": 10200.0,
                    "pue": 1.4, "price_per_kwh": 0.08, "hours": 8760.0},
     {"total_cost": 114.24 * 8760 * 0.08}),
    ("what's the electricity cost per gpu-hour for a b200 pulling ~1000w all-in, pue 1.2, "
     "15 cents/kwh?",
     "power_cost", {"watts_per_gpu": 1000.0, "pue": 1.2, "price_per_kwh": 0.15},
     {"cost_per_gpu_hour": 0.18}),
    # after the twelfth round's scoring: "rated 10.2kw per 8 gpus", "stretch it by about 8%"
    ("our dgx h100 boxes are rated 10.2kw per 8 gpus, we have 256 gpus total, site pue is 1.4 "
     "and power is $0.09/kwh. electricity for a full year (8760h)?",
     "power_cost", {"gpus": 256, "gpus_per_server": 8, "watts_per_server": 10200.0,
                    "pue": 1.4, "price_per_kwh": 0.09, "hours": 8760.0},
     {"total_cost": 456.96 * 8760 * 0.09}),
    ("64 gpus for 9 days at $2.65/gpu-hr, and we expect crashes + checkpoint restarts to "
     "stretch it by about 8%. cost incl the restarts?",
     "training_cost", {"gpus": 64, "hours": 216.0, "price_per_gpu_hour": 2.65,
                       "slowdown_pct": 8.0},
     {"cost_with_slowdown": 39564.288, "gpu_hours_with_slowdown": 14929.92}),
    # a margin "on top", and "no slowdown" said outright
    ("64 gpus for 3 weeks at 1.85 per gpu-hour, and add 10% on top for restarts and network "
     "stalls. total?",
     "training_cost", {"gpus": 64, "hours": 504.0, "price_per_gpu_hour": 1.85,
                       "slowdown_pct": 10.0},
     {"cost_with_slowdown": 65640.96, "gpu_hours_with_slowdown": 35481.6}),
    ("training cost for 1024 gpus over 3 weeks at 2.2 per gpu-hour, assume no slowdown",
     "training_cost", {"gpus": 1024, "hours": 504.0, "price_per_gpu_hour": 2.2,
                       "slowdown_pct": 0.0},
     {"cost_with_slowdown": 1024 * 504 * 2.2}),
    # the link's speed named after it; as many GPUs as servers; "two gpus"
    ("dataset shard is 500gb, link is 200g and we usually get 85% of line rate. transfer time?",
     "transfer_time", {"size_gb": 500.0, "link_gbps": 200.0, "efficiency": 0.85},
     {"seconds": 500 / 21.25}),
    ("gradient all-reduce of 10 gb on 8 servers, one gpu each, only a 200g nic per gpu, "
     "ignore latency. how long?",
     "allreduce_time", {"buffer_gb": 10.0, "gpus": 8, "link_gbps": 200.0}, {"total_seconds": 0.7}),
    ("two gpus in different servers, 100g link each, 1.5gb gradient buffer, ignore latency. "
     "all-reduce time?",
     "allreduce_time", {"buffer_gb": 1.5, "gpus": 2, "link_gbps": 100.0}, {"total_seconds": 0.12}),
    # "$2.50 per card" is a GPU's hourly price
    ("16 h100s serving a 70b model, whole cluster does 20k tokens/s, $2.50 per card, 70% "
     "utilization. we serve 30b tokens a month, what's the monthly cost?",
     "serving_cost", {"gpus": 16, "tokens_per_second": 20000.0, "utilization": 0.7,
                      "monthly_tokens": 3e10, "price_per_gpu_hour": 2.5},
     {"cost_per_million_tokens": 40 / (20000 * 3600 * 0.7) * 1e6}),
    # the thirteenth round's calculator misses (after its scoring): "2.2$", "all-in per gpu",
    # a price per kWh without its dollar sign
    ("how much would 512 gpus cost for a full year if the rate is 2.2$ per gpu hour",
     "gpu_hour_cost", {"gpus": 512, "hours": 8760.0, "price_per_gpu_hour": 2.2},
     {"total_cost": 9867264.0}),
    ("2k gpus, 1275w all-in per gpu, pue 1.3, 0.11/kwh. power bill for a 90 day training run?",
     "power_cost", {"gpus": 2000, "watts_per_gpu": 1275.0, "pue": 1.3, "price_per_kwh": 0.11,
                    "hours": 2160.0},
     {"facility_kw": 3315.0, "total_cost": 787644.0}),
    # an 8-GPU server named by its model, one or many
    ("single dgx b200 box 14.3kw, pue 1.2, 20 cents per kwh, running 24/7. facility kw and "
     "cost for one day?",
     "power_cost", {"gpus": 8, "gpus_per_server": 8, "watts_per_server": 14300.0, "pue": 1.2,
                    "price_per_kwh": 0.2, "hours": 24.0},
     {"facility_kw": 17.16, "total_cost": 82.368}),
    ("we have 32 dgx h100 servers at 10.2 kw each, pue 1.4, electricity 12 cents/kwh. "
     "facility kw and monthly power bill?",
     "power_cost", {"gpus": 256, "gpus_per_server": 8, "watts_per_server": 10200.0, "pue": 1.4,
                    "price_per_kwh": 0.12, "hours": 730.0},
     {"facility_kw": 456.96, "total_cost": 40029.696}),
    # quotes named by one letter, with a colon or a price verb; "@ 2.40" in a quote's part
    ("comparing 2 offers for a 32-gpu finetune: x charges 3.99/gpu-hr and says 36 hours, y "
     "charges 2.99 but says 50 hours. which is cheaper?",
     "compare_cluster_quotes",
     {"gpus": 32, "quotes": [{"name": "x", "price_per_gpu_hour": 3.99, "hours": 36.0},
                             {"name": "y", "price_per_gpu_hour": 2.99, "hours": 50.0}]}, {}),
    ("got 3 quotes. a: 512 gpus @ 1.99/hr, job done in 10 days. b: 384 gpus @ 2.40, 12 days. "
     "c: 1024 gpus @ 2.15, 5 days. cost of each and how much more are the pricier ones vs the "
     "cheapest?",
     "compare_cluster_quotes",
     {"quotes": [{"name": "a", "price_per_gpu_hour": 1.99, "hours": 240.0, "gpus": 512},
                 {"name": "b", "price_per_gpu_hour": 2.4, "hours": 288.0, "gpus": 384},
                 {"name": "c", "price_per_gpu_hour": 2.15, "hours": 120.0, "gpus": 1024}]}, {}),
    # "one gpu per node" counts GPUs node by node
    ("4 nodes with 100 gbps ethernet each, one gpu per node, 2 gb buffer, 20us per-step "
     "latency. ring allreduce time (ms) and bus bandwidth?",
     "allreduce_time", {"buffer_gb": 2.0, "link_gbps": 100.0, "latency_us": 20.0, "gpus": 4},
     {}),
    # "what would the monthly bill be for 5b tokens"
    ("serving a 70b on 8 gpus w/ tensor parallel, the whole group does 2400 tok/s, "
     "$3.20/gpu-hr, about 50% util. cost per 1M tokens, and what would the monthly bill be "
     "for 5b tokens?",
     "serving_cost", {"price_per_gpu_hour": 3.2, "tokens_per_second": 2400.0,
                      "utilization": 0.5, "gpus": 8, "monthly_tokens": 5e9},
     {"monthly_cost": 5e9 / 1e6 * 25.6 / (2400 * 3600 * 0.5) * 1e6}),
    # the fourteenth round's misses: "nodes w/ 8 gpus each", "util is 45%", "costs 2/hr"
    ("16 nodes w/ 8 gpus each for a month, provider charges 2.85/hr per gpu. total cost?",
     "gpu_hour_cost", {"gpus": 128, "price_per_gpu_hour": 2.85, "hours": 730.0},
     {"total_cost": 266304.0}),
    ("cheap cloud at 1.65/hr, model does 1500 tok/s per gpu, realistic util is 45%. "
     "per-million-token cost?",
     "serving_cost", {"price_per_gpu_hour": 1.65, "tokens_per_second": 1500.0,
                      "utilization": 0.45}, {}),
    ("if a gpu costs 2/hr and does 2500 tok/s but we only keep it 35% busy whats the cost per "
     "million tokns",
     "serving_cost", {"price_per_gpu_hour": 2.0, "tokens_per_second": 2500.0,
                      "utilization": 0.35}, {}),
    # the fifteenth round's misses: "2 8-gpu boxes", "add 10% for network slowdown",
    # "utilizaton ~40%", "64 b200 servers at 14.3kw each"
    ("small finetune, need 2 8-gpu boxes for 36 hrs, price is 2.10/gpu/hr. how much is that "
     "roughly", "gpu_hour_cost", {"gpus": 16, "price_per_gpu_hour": 2.1, "hours": 36.0},
     {"total_cost": 1209.6}),
    ("70b params, 1.4T tokens, 1024 h100 (989 tflops dense bf16), mfu around 35%, price "
     "3.10/hr. add 10% for network slowdown. what's the bill and what does the slowdown add",
     "training_cost", {"gpus": 1024, "price_per_gpu_hour": 3.1, "parameters": 70e9,
                       "tokens": 1.4e12, "peak_tflops_per_gpu": 989.0, "mfu": 0.35,
                       "slowdown_pct": 10.0}, {}),
    ("after batching we get 4k tok/s per gpu. gpu is $2.20/hr, utilizaton ~40%, traffic 20B "
     "tokens/mo. whats the per million cost and the monthly bill",
     "serving_cost", {"price_per_gpu_hour": 2.2, "tokens_per_second": 4000.0,
                      "utilization": 0.4, "monthly_tokens": 20e9}, {}),
    ("64 b200 servers at 14.3kw each, pue 1.3, electricity 11 cents/kwh. the training run is "
     "2000 hours, what's the energy cost",
     "power_cost", {"gpus": 512, "gpus_per_server": 8, "watts_per_server": 14300.0,
                    "pue": 1.3, "price_per_kwh": 0.11, "hours": 2000.0},
     {"total_cost": 261747.2}),
]


@pytest.mark.parametrize(("question", "tool", "args", "figures"), VISITOR_QUESTIONS)
def test_visitor_questions(question, tool, args, figures):
    req = detect(question)
    assert req is not None and req.tool == tool
    assert req.args == args
    assert req.missing == []
    result = run(req).result
    for name, value in figures.items():
        assert getattr(result, name) == pytest.approx(value)


def test_visitor_summaries_state_the_headline_figures():
    summaries = [run(detect(q)).result.summary for q, *_ in VISITOR_QUESTIONS]
    assert "$22,118.40" in summaries[0] and "$3,686.40" in summaries[0]
    assert "39,321.4 GPU-hours" in summaries[1]
    # 505,561.17 GPU-hours × $2; the GPU-hours are shown rounded to one decimal.
    assert f"${_8B_15T_40 * 2:,.2f}" in summaries[2] and "505,561.2 GPU-hours" in summaries[2]
    assert all(f in summaries[3] for f in ("$1,105,920", "$1,179,648", "$73,728"))


BASE_RUN = "128 gpus, 48h, $3 per gpu hour, what does it cost if {}"


@pytest.mark.parametrize(("wording", "kind"), [
    ("comms stalls add 20% to the runtime", "slowdown_pct"),
    ("the network adds 20% to the run time", "slowdown_pct"),
    ("stalls add 20% to the time", "slowdown_pct"),
    ("retries add 20% to the hours", "slowdown_pct"),
    ("stragglers add 20% to the job", "slowdown_pct"),
    ("it needs 20% more time", "slowdown_pct"),
    ("it needs 20% extra time", "slowdown_pct"),
    ("it takes 20% longer", "slowdown_pct"),
    ("congestion stretches the runtime by 20%", "slowdown_pct"),
    ("there is 20% overhead from the network", "overhead_pct"),
])
def test_runtime_increase_wordings(wording, kind):
    req = detect(BASE_RUN.format(wording))
    assert req.tool == "training_cost"
    assert req.args == {"gpus": 128, "hours": 48.0, "price_per_gpu_hour": 3.0, kind: 20.0}
    assert run(req).result.cost_with_slowdown == pytest.approx(128 * 48 * 3 * 1.2)


@pytest.mark.parametrize("wording", [
    "mfu only 30%", "mfu is 30%", "mfu at 30%", "at 30% mfu", "mfu: 30%", "mfu=30%",
    "MFU is only 30%",
])
def test_mfu_wordings(wording):
    req = detect(f"gpu hours for 7b on 1t tokens, 989 TFLOPS, {wording}")
    assert req.args == {"parameters": 7e9, "tokens": 1e12, "peak_tflops_per_gpu": 989.0,
                        "mfu": 0.3}
    assert run(req).result.baseline_gpu_hours == pytest.approx(_7B_1T_30)


@pytest.mark.parametrize("wording", [
    "if a gpu hour is $2", "a GPU-hour costs $2", "at $2 a GPU-hour", "at $2 per GPU hour",
])
def test_price_wordings_for_model_size_training(wording):
    req = detect(f"what does it cost to train an 8B model on 15T tokens with 989 TFLOPS GPUs "
                 f"at 40% MFU, {wording}")
    assert req.args["price_per_gpu_hour"] == 2.0 and req.missing == []
    result = run(req).result
    assert result.gpus is None
    assert result.cost_with_slowdown == pytest.approx(_8B_15T_40 * 2)
    assert f"${_8B_15T_40 * 2:,.2f}" in result.summary


def test_quote_durations_belong_to_the_quote_they_follow():
    req = detect("64 GPUs: CoreWeave $2/hr and takes 2 weeks, Lambda $1.80/hr but takes 3 "
                 "weeks, which is cheaper")
    assert [(q["name"], q["hours"]) for q in req.args["quotes"]] == [
        ("CoreWeave", 2 * 168.0), ("Lambda", 3 * 168.0)]
    req = detect("cluster A $2/hr for 100 hours, cluster B $1.80/hr, 5 days, cluster C $2.50/hr "
                 "and it takes 1 week; 64 gpus, cheapest?")
    assert [(q["name"], q["hours"]) for q in req.args["quotes"]] == [
        ("A", 100.0), ("B", 120.0), ("C", 168.0)]


NETWORK_QUESTIONS = [
    "how many switches do i need for 1024 gpus on IB vs roce",
    "how long does it take to allreduce 10GB across 8 gpus",
    "how many GPUs fit in one NVL72 rack",
    "what bandwidth does each of the 8 gpus get",
    "is 400 Gb/s enough for 256 GPUs",
]


@pytest.mark.parametrize("question", NETWORK_QUESTIONS)
def test_networking_questions_are_not_calculations(question):
    assert detect(question) is None
    # Nor are they follow-ups to a cost question that came before.
    assert detect(question, detect(BASE)) is None


# --- prices in other units, hourly rates --------------------------------------------------

@pytest.mark.parametrize(("question", "unit"), [
    ("What do 256 GPUs cost for 100 hours at $0.50 per core-hour?", "core-hour"),
    ("256 GPUs for 100 hours, colocation at $150 per kW, what does it cost?", "kW"),
    ("256 H100s for 100 hours at $0.12 per rack-hour, total cost?", "rack-hour"),
])
def test_a_price_in_an_unknown_unit_is_refused_by_name(question, unit):
    req = detect(question)
    assert req is not None and "price_per_gpu_hour" not in req.args
    outcome = run(req)
    assert outcome.result is None
    assert f"price per {unit}" in outcome.error and "not per GPU-hour" in outcome.error


def test_kwh_is_refused_when_no_calculator_takes_it(monkeypatch):
    # The brief's trap: "$0.12 per kWh" must never become $0.12 per GPU-hour.
    monkeypatch.setattr(quantities.calc, "price_units", lambda: {})
    req = detect("256 H100s at 700 W for 100 hours at $0.12 per kWh")
    assert req.args.get("price_per_gpu_hour") is None
    assert run(req).error.startswith("$0.12 per kWh is a price per kWh, not per GPU-hour")


def test_node_hour_price_needs_the_gpus_per_node():
    outcome = run(detect("What do 64 nodes cost for 10 hours at $20 per node-hour?"))
    assert outcome.result is None and "per node-hour" in outcome.error
    assert "GPUs per node" in outcome.error
    for question in ("What do 64 nodes of 8 GPUs cost for 10 hours at $20 per node-hour?",
                     "What do 64 nodes cost for 10 hours at $20/node/hr with 8 GPUs per node?"):
        req = detect(question)
        assert req.args == {"gpus": 512, "price_per_gpu_hour": 2.5, "hours": 10.0}
        assert any("÷ 8 GPUs per node = $2.50 per GPU-hour" in n for n in req.notes)
        assert run(req).result.total_cost == 12_800


@pytest.mark.parametrize("question", [
    "What does a cluster of 512 GPUs at $2.50 per GPU-hour burn per hour?",
    "What's the hourly burn of 512 GPUs at $2.50/GPU-hour?",
    "512 H100s at $2.50 per GPU-hour: what is that per hour?",
    "How much per hour for 512 GPUs at $2.50 a GPU-hour?",
])
def test_hourly_burn_answers_the_rate_without_asking_for_hours(question):
    req = detect(question)
    assert req.tool == "gpu_hour_cost" and req.missing == []
    result = run(req).result
    assert result.cost_per_hour == result.total_cost == 1_280
    assert result.summary == "$1,280 per hour (512 GPUs × $2.50/GPU-hour)"


def test_hourly_question_without_a_price_asks_for_the_price():
    req = detect("How much do 256 GPUs cost per hour?")
    assert req.missing == ["price_per_gpu_hour"]


def test_a_price_an_hour_is_not_an_hourly_question():
    # "$3 an hour" is the price; the job's length is still asked for.
    assert detect("What do 256 GPUs cost at $3 an hour?").missing == ["hours"]


def test_every_calculator_asks_only_for_its_own_inputs():
    # The old parser treated any unknown tool as a quote comparison; each now says its own.
    empty = quantities.read("")
    for name, spec in quantities.calc.REGISTRY.items():
        assert set(spec.missing({}, empty)) <= set(spec.input_names), name
        for missing in spec.missing({}, empty):
            assert "What value should I use" not in spec.prompt(missing).question, (name,
                                                                                   missing)
    assert CalcRequest("no_such_tool", {}, ["gpus"]).question_for_missing() == "How many GPUs?"


def test_a_short_reply_with_the_input_just_asked_for_answers_it():
    # A topic word ("switch") in a reply that gives the GPU count asked for is still an answer.
    previous = detect("What does it cost at $7 per GPU-hour for 100 hours?")
    assert previous.missing == ["gpus"]
    req = detect("256 GPUs on one switch", previous)
    assert req.args == {"price_per_gpu_hour": 7.0, "hours": 100.0, "gpus": 256}
    # A longer question on another topic is not.
    assert detect("how many switches do I need for 1024 GPUs in a fat tree", previous) is None


def test_a_money_question_with_nothing_to_calculate_from_is_not_a_calculation():
    # Utilization is an input (of serving_cost), but nothing here selects serving and the
    # GPU-hour sum has nothing to work from: a question for the lessons.
    assert detect("Is 40% utilization expensive?") is None
    assert detect("What does serving cost at 40% utilization?").tool == "serving_cost"


# --- all-reduce time ----------------------------------------------------------------------

@pytest.mark.parametrize(("text", "kind", "value"), [
    ("10 GB", "buffer_gb", 10.0), ("10GB", "buffer_gb", 10.0), ("1 MB", "buffer_gb", 0.001),
    ("2 GiB", "buffer_gb", 2**31 / 1e9), ("512 MiB", "buffer_gb", 2**29 / 1e9),
    ("400 Gb/s", "link_gbps", 400.0), ("400 Gbps", "link_gbps", 400.0),
    ("50 GB/s", "link_gbps", 400.0), ("3.2 Tb/s", "link_gbps", 3200.0),
    ("400 gigabits per second", "link_gbps", 400.0),
    ("50 gigabytes per second", "link_gbps", 400.0),
    ("5 µs", "latency_us", 5.0), ("5 us", "latency_us", 5.0), ("0.5 ms", "latency_us", 500.0),
    ("800 ns", "latency_us", 0.8), ("5 microseconds", "latency_us", 5.0),
])
def test_allreduce_amounts(text, kind, value):
    assert [(q.kind, q.value) for q in scan(text)] == [(kind, pytest.approx(value))]


@pytest.mark.parametrize("question", [
    "how long does an all-reduce of 10 GB take on 8 GPUs at 400 Gb/s",
    "allreduce 10GB across 8 gpus at 50 GB/s, how long?",
    "All-reduce time for a 10 GB buffer over 8 H100s with 400 Gbps per GPU?",
])
def test_allreduce_questions_reach_the_calculator(question):
    req = detect(question)
    assert req.tool == "allreduce_time" and req.missing == []
    assert req.args == {"buffer_gb": 10.0, "gpus": 8, "link_gbps": 400.0}
    assert round(run(req).result.total_seconds, 2) == 0.35


def test_allreduce_with_latency_and_a_lower_case_unit_says_how_it_read_it():
    req = detect("How long is a 1 MB all-reduce on 1,024 GPUs at 400 gb/s with 5 µs latency "
                 "per step?")
    assert req.args == {"buffer_gb": 0.001, "gpus": 1024, "link_gbps": 400.0,
                        "latency_us": 5.0}
    assert any("read as gigabits per second" in n for n in req.notes)
    assert round(run(req).result.latency_seconds * 1e3, 1) == 10.2


def test_allreduce_asks_for_what_is_missing_and_takes_the_answer():
    req = detect("how long does an all-reduce take at 400 Gb/s on 8 GPUs?")
    assert req.tool == "allreduce_time" and req.missing == ["buffer_gb"]
    assert "How large is the buffer" in req.question_for_missing()
    req = detect("10 GB", req)
    assert req.missing == [] and round(run(req).result.total_seconds, 2) == 0.35
    req = detect("how long does a 10 GB all-reduce take at 50 GB/s per GPU?")
    assert req.missing == ["gpus"]
    assert detect("8", req).args["gpus"] == 8
    # A reply that is only the bandwidth answers the bandwidth question.
    asked = quantities.CalcRequest("allreduce_time", {"buffer_gb": 10.0, "gpus": 8},
                                   ["link_gbps"])
    assert detect("400 Gb/s", asked).args == {"buffer_gb": 10.0, "gpus": 8, "link_gbps": 400.0}


def test_allreduce_follow_ups_keep_the_other_inputs():
    previous = detect("how long does an all-reduce of 10 GB take on 8 GPUs at 400 Gb/s")
    req = detect("and on 1,024 GPUs?", previous)
    assert req.tool == "allreduce_time" and req.args["gpus"] == 1024
    req = detect("what about with 5 µs latency?", req)
    assert req.args == {"buffer_gb": 10.0, "gpus": 1024, "link_gbps": 400.0, "latency_us": 5.0}


@pytest.mark.parametrize("question", [
    # Without a bandwidth the lesson answers (the golden set expects its 0.35 s example).
    "how long does it take to allreduce 10GB across 8 gpus",
    "what is all-reduce?",
    "Is 400 Gb/s enough for an all-reduce?",
])
def test_allreduce_wordings_that_are_not_calculations(question):
    assert detect(question) is None


def test_an_allreduce_cost_question_is_a_cost_calculation():
    req = detect("What does the all-reduce cost on 256 GPUs at $2/GPU-hour for 100 hours?")
    assert req.tool == "gpu_hour_cost"


# --- power cost ---------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "kind", "value"), [
    ("700 W per GPU", "watts_per_gpu", 700.0), ("1 kW per GPU", "watts_per_gpu", 1000.0),
    ("a 700 W GPU", "watts_per_gpu", 700.0), ("10.2 kW per server", "watts_per_server", 10200.0),
    ("a 10.2 kW server", "watts_per_server", 10200.0),
    ("120 kilowatts per rack", "watts_per_server", 120000.0),
    ("PUE of 1.3", "pue", 1.3), ("PUE 1.3", "pue", 1.3), ("a 1.3 PUE", "pue", 1.3),
    ("$0.12 per kWh", "price_per_kwh", 0.12), ("$0.12/kWh", "price_per_kwh", 0.12),
    ("$120 per MWh", "price_per_kwh", 0.12), ("12 cents per kWh", "price_per_kwh", 0.12),
    ("700 W", "watts", 700.0),
])
def test_power_amounts(text, kind, value):
    assert [(q.kind, q.value) for q in scan(text)] == [(kind, pytest.approx(value))]


def test_the_brief_kwh_question_goes_to_power_cost():
    # Before power_cost it was a GPU-hour cost at $0.12 per GPU-hour: silently wrong.
    req = detect("256 H100s at 700 W for 100 hours at $0.12 per kWh")
    assert req.tool == "power_cost" and req.missing == [] and req.error is None
    assert req.args == {"gpus": 256, "watts_per_gpu": 700.0, "price_per_kwh": 0.12,
                        "hours": 100.0}
    result = run(req).result
    assert round(result.total_cost, 2) == 2_150.40
    assert result.summary == ("$2,150.40 of electricity for 100 h (17,920 kWh; $21.50 per "
                              "hour, $0.084 per GPU-hour)")


@pytest.mark.parametrize(("question", "args", "figure", "value"), [
    ("What does electricity cost for 256 GPUs at 1 kW per GPU with a PUE of 1.3 at "
     "$0.10/kWh?",
     {"gpus": 256, "watts_per_gpu": 1000.0, "pue": 1.3, "price_per_kwh": 0.1},
     "cost_per_hour", 33.28),
    ("GB200 NVL72 rack at 120 kW, PUE 1.2, $0.10 per kWh: cost per hour?",
     {"watts_per_server": 120000.0, "gpus_per_server": 72, "pue": 1.2, "price_per_kwh": 0.1},
     "cost_per_hour", 14.40),
    ("electricity for 32 DGX H100 servers at 10.2 kW per server, 8 GPUs per server, "
     "PUE 1.3, 12 cents per kWh, for 100 hours",
     {"gpus": 256, "watts_per_server": 10200.0, "gpus_per_server": 8, "pue": 1.3,
      "price_per_kwh": 0.12, "hours": 100.0},
     "total_cost", 256 * 1.275 * 1.3 * 0.12 * 100),
    ("How much energy do 256 GPUs at 700 W per GPU use in a week?",
     {"gpus": 256, "watts_per_gpu": 700.0, "hours": 168.0}, "energy_kwh", 30_105.6),
])
def test_power_questions(question, args, figure, value):
    req = detect(question)
    assert req.tool == "power_cost" and req.missing == []
    assert req.args == args
    assert getattr(run(req).result, figure) == pytest.approx(value)


def test_watts_that_do_not_say_whose_are_refused_by_name():
    outcome = run(detect("what does power cost for 256 GPUs drawing 180 kW at $0.10/kWh"))
    assert outcome.result is None
    assert outcome.error.startswith("180 kW does not say whose power it is")


def test_power_asks_for_what_is_missing_and_keeps_it_in_follow_ups():
    req = detect("What does electricity cost for 256 GPUs at $0.10 per kWh?")
    assert req.tool == "power_cost" and req.missing == ["watts_per_gpu"]
    assert "How many watts does each GPU draw" in req.question_for_missing()
    req = detect("1000", req)
    assert req.missing == [] and run(req).result.cost_per_hour == pytest.approx(25.6)
    req = detect("and with a PUE of 1.3?", req)
    assert req.args["pue"] == 1.3 and req.args["watts_per_gpu"] == 1000
    req = detect("what about $0.15 per kWh?", req)
    assert req.tool == "power_cost" and req.args["price_per_kwh"] == 0.15
    asked = detect("a server at 10.2 kW for a month at $0.15 per kWh with PUE 1.6")
    assert asked.missing == ["gpus_per_server"]
    assert run(detect("8", asked)).result.watts_per_gpu == 1275
    # a DGX H100 is known to hold 8 GPUs: nothing to ask
    known = detect("a DGX H100 at 10.2 kW for a month at $0.15 per kWh with PUE 1.6")
    assert known.missing == [] and run(known).result.watts_per_gpu == 1275


def test_watts_beside_a_gpu_hour_price_stay_a_rental_question():
    req = detect("256 GPUs at $2/GPU-hour for 100 hours, each GPU draws 700 W")
    assert req.tool == "gpu_hour_cost" and run(req).result.total_cost == 51_200


def test_a_question_whose_amounts_no_selected_calculator_reads_is_not_a_calculation():
    from assistant.quantities import detect
    assert detect("how much kv cache per token for a llama 3 8b size model") is None
    assert detect("what does a million tokens cost at $2/hr and 1000 tok/s").tool == "serving_cost"


# --- the question as it is written (issue 22, section 4) ----------------------------------

@pytest.mark.parametrize(("text", "kind", "value"), [
    ("2.49 an hour", "price", 2.49),                  # a rate per hour needs no "$"
    ("5.80/gpu-hr", "price", 5.8),
    ("1.85/gpu/hr", "price", 1.85),
    ("2.49 per gpu hour", "price", 2.49),
    ("85 cents an hour", "price", 0.85),              # cents are money
    ("12 cents per kwh", "price_per_kwh", 0.12),      # through power's price units
    ("8 cents", "money", 0.08),
    ("1.5k gpus", "gpus", 1500),                      # a scale on a GPU count
    ("32 cards", "gpus", 32),
    ("400G links", "link_gbps", 400.0),               # a link speed written short is bits
    ("a 100 gbit link", "link_gbps", 100.0),
    ("800G NICs", "link_gbps", 800.0),
    ("1.6T ports", "link_gbps", 1600.0),
    ("utilization 60%", "utilization", 0.6),
    ("60% utilization", "utilization", 0.6),
])
def test_amounts_as_visitors_write_them(text, kind, value):
    assert [(q.kind, q.value) for q in scan(text)] == [(kind, pytest.approx(value))]


def test_a_size_in_gib_is_not_a_link_speed():
    # "2 GiB" must not become "2 G" + "ib" (an InfiniBand link).
    assert [q.kind for q in scan("2 GiB")] == ["buffer_gb"]


@pytest.mark.parametrize(("text", "kind"), [
    # "each" / "apiece" bind to the nearest counted thing before the amount.
    ("1,000 GPUs drawing 700 W each", "watts_per_gpu"),
    ("64 gpus at 1000W apiece", "watts_per_gpu"),
    ("32 servers at 10 kW each", "watts_per_server"),
    ("8 racks drawing 120 kW each", "watts_per_server"),
    # "per card" / "a GPU" say it outright; "<count> cards at" is per card.
    ("700 W per card", "watts_per_gpu"),
    ("700 W a GPU", "watts_per_gpu"),
    ("500 h100 pcie cards at 350W", "watts_per_gpu"),
    # Nothing says whose: still refused by name, not guessed.
    ("256 GPUs drawing 180 kW", "watts"),
])
def test_each_binds_to_the_nearest_counted_thing(text, kind):
    assert [q.kind for q in scan(text) if q.kind.startswith("watts")] == [kind]


def test_tokens_per_second_each_is_per_gpu():
    req = detect("serving cost on 8 gpus at $2/gpu-hour doing 400 tokens/s each")
    assert req.tool == "serving_cost" and req.args["tokens_per_second"] == 3200
    assert any("per GPU" in n for n in req.notes)


def test_a_bare_price_apiece_is_a_price_per_gpu():
    req = detect("4 gpus @ 2.2 apiece, 4.8k tok/s total, fully busy. cost per 1m tokens")
    assert req.tool == "serving_cost"
    # "fully busy" is read (utilization 1.0, also the default)
    assert req.args == {"price_per_gpu_hour": 2.2, "tokens_per_second": 4800.0, "gpus": 4,
                        "utilization": 1.0}
    assert run(req).result.cost_per_million_tokens == pytest.approx(0.509259, rel=1e-5)


@pytest.mark.parametrize(("question", "tool", "args"), [
    ("64 h100s at 2.49 an hour for a month", "gpu_hour_cost",
     {"gpus": 64, "price_per_gpu_hour": 2.49, "hours": HOURS_PER_MONTH}),
    ("64 gpus at 2.49 per gpu hour for 720 hours", "gpu_hour_cost",
     {"gpus": 64, "price_per_gpu_hour": 2.49, "hours": 720.0}),
    ("how much for 16 gpus at 2.5 an hour for 10 days", "gpu_hour_cost",
     {"gpus": 16, "price_per_gpu_hour": 2.5, "hours": 240.0}),
    ("i need 32 cards for 36 hrs, price is 1.85/gpu/hr. total??", "gpu_hour_cost",
     {"gpus": 32, "price_per_gpu_hour": 1.85, "hours": 36.0}),
    ("1.5k gpus for 2 weeks at $2.20/gpu-hr with a 12% slowdown", "training_cost",
     {"gpus": 1500, "price_per_gpu_hour": 2.2, "hours": 336.0, "slowdown_pct": 12.0}),
    ("1,000 gpus drawing 700 w each, pue 1.3, 12 cents per kwh, for a week. electricity cost?",
     "power_cost", {"gpus": 1000, "watts_per_gpu": 700.0, "pue": 1.3, "price_per_kwh": 0.12,
                    "hours": 168.0}),
    ("all-reduce of 14GB on 16 GPUs with 400G links", "allreduce_time",
     {"buffer_gb": 14.0, "gpus": 16, "link_gbps": 400.0}),
    ("2 gpus doing a 4GB allreduce over a 100 gbit link", "allreduce_time",
     {"buffer_gb": 4.0, "gpus": 2, "link_gbps": 100.0}),
    ("cheap l4 card at 85 cents an hour gets ~400 tokens/s, utilization 80%, cost per mil "
     "tokens", "serving_cost",
     {"price_per_gpu_hour": 0.85, "tokens_per_second": 400.0, "utilization": 0.8}),
])
def test_questions_as_written(question, tool, args):
    req = detect(question)
    assert req is not None and req.tool == tool
    assert req.args == args and req.missing == [] and req.error is None
    assert run(req).result is not None


def test_a_month_is_said_in_the_working():
    req = detect("64 h100s at 2.49 an hour for a month")
    assert run(req).result.total_cost == pytest.approx(64 * 2.49 * 730)
    assert "A month is taken as 730 hours (365 days × 24 h ÷ 12)." in req.notes


def test_a_short_link_speed_is_said_in_the_working():
    req = detect("all-reduce of 14GB on 16 GPUs with 400G links")
    assert "400g is read as a link speed of 400 Gb/s per GPU." in req.notes


@pytest.mark.parametrize("question", [
    "how much is infiniband for 16 gpus",
    "what does the network cost for 256 gpus",
    "how much are the switches for 1024 H100s",
    # the cost of connecting GPUs (asked as a visitor, 2026-11-27), not of renting them
    "what's the cheapest way to connect 16 gpus across 2 servers",
    "how much does it cost to wire up 64 gpus",
])
def test_the_price_of_the_network_is_not_gpu_rental(question):
    assert detect(question) is None
    assert detect(question, detect(BASE)) is None


def test_gpu_rental_with_a_network_word_and_a_price_is_still_rental():
    req = detect("what do 16 gpus on infiniband cost for 100 hours at $2/gpu-hour")
    assert req.tool == "gpu_hour_cost" and req.missing == []


POWER = ("1,000 gpus drawing 700 w each, pue 1.3, 12 cents per kwh, for a week. "
         "electricity cost?")


@pytest.mark.parametrize(("follow_up", "changed"), [
    ("what if power was 8 cents?", {"price_per_kwh": 0.08}),
    ("and at $0.08?", {"price_per_kwh": 0.08}),
    ("same but 128 gpus", {"gpus": 128}),
    ("what if pue was 1.1?", {"pue": 1.1}),
])
def test_power_follow_ups_change_one_input(follow_up, changed):
    previous = detect(POWER)
    req = detect(follow_up, previous)
    assert req.tool == "power_cost"
    assert req.args == {**previous.args, **changed}


def test_a_bare_price_in_a_follow_up_is_the_previous_calculators_price():
    previous = detect("64 h100s at 2.49 an hour for a month")
    for text in ("what if it was $3?", "what about 1.99 an hour?"):
        req = detect(text, previous)
        assert req.tool == "gpu_hour_cost" and req.missing == []
        assert req.args["gpus"] == 64 and req.args["hours"] == HOURS_PER_MONTH
    assert detect("same but 128 gpus", previous).args["gpus"] == 128
    req = detect("and with 20% slowdown?", previous)
    assert req.tool == "training_cost" and req.args["slowdown_pct"] == 20


QUOTES = ("512 gpu job. cluster A is 5.80/gpu-hr but the job takes 150 hours, cluster B is "
          "6.40 and takes 120 hrs. which one wins?")


def test_a_bare_number_after_a_quotes_name_is_its_price():
    req = detect(QUOTES)
    assert req.tool == "compare_cluster_quotes"
    assert req.args == {"gpus": 512, "quotes": [
        {"name": "A", "price_per_gpu_hour": 5.8, "hours": 150.0},
        {"name": "B", "price_per_gpu_hour": 6.4, "hours": 120.0}]}


def test_a_price_per_gpu_beside_hourly_quotes_is_per_gpu_hour():
    req = detect("quote 1: 64 gpus at $3/hr each for 300 hrs; quote 2: 128 gpus at $3.20 per "
                 "gpu for 140 hrs. cheaper one?")
    assert [(q["price_per_gpu_hour"], q["gpus"]) for q in req.args["quotes"]] == [
        (3.0, 64), (3.2, 128)]
    assert run(req).result.difference == pytest.approx(256)


@pytest.mark.parametrize(("follow_up", "quote", "changed"), [
    ("same but B's job takes 140 hours", 1, {"hours": 140.0}),
    ("same but cluster A takes 100 hours", 0, {"hours": 100.0}),
    ("what if quote B was $6?", 1, {"price_per_gpu_hour": 6.0}),
])
def test_a_follow_up_changes_the_quote_it_names(follow_up, quote, changed):
    previous = detect(QUOTES)
    req = detect(follow_up, previous)
    assert req.tool == "compare_cluster_quotes"
    expected = [dict(q) for q in previous.args["quotes"]]
    expected[quote].update(changed)
    assert req.args == {"gpus": 512, "quotes": expected}


# --- one amount parser for the chat and the calculator pages ------------------------------

@pytest.mark.parametrize(("text", "name", "kind", "value"), [
    ("256", "gpus", "whole", 256), ("1,024", "gpus", "whole", 1024),
    ("1.5k", "gpus", "whole", 1500), ("1 000", "gpus", "whole", 1000),
    ("$7", "price_per_gpu_hour", "number", 7.0),
    ("$7/GPU-hour", "price_per_gpu_hour", "number", 7.0),
    ("2.49 an hour", "price_per_gpu_hour", "number", 2.49),
    ("12 cents", "price_per_kwh", "number", 0.12),
    ("$0.12/kWh", "price_per_kwh", "number", 0.12),
    ("2 weeks", "hours", "number", 336.0), ("a month", "hours", "number", HOURS_PER_MONTH),
    ("40%", "mfu", "fraction", 0.4), ("0.4", "mfu", "fraction", 0.4),
    ("60 percent", "utilization", "fraction", 0.6),
    ("utilization 60%", "utilization", "fraction", 0.6),
    ("20%", "slowdown_pct", "number", 20.0),
    ("700 W", "watts_per_gpu", "number", 700.0), ("10.2 kW", "watts_per_server", "number", 10200),
    ("400 Gb/s", "link_gbps", "number", 400.0), ("14GB", "buffer_gb", "number", 14.0),
    ("7B", "parameters", "number", 7e9), ("-5", "gpus", "whole", -5),
    ("about 256", "gpus", "whole", 256),
])
def test_one_amount_parser(text, name, kind, value):
    assert quantities.amount(text, name, kind) == pytest.approx(value)


@pytest.mark.parametrize(("text", "name"), [
    ("abc", "gpus"), ("$7", "gpus"), ("2 weeks", "gpus"), ("256 gpus for 2 weeks", "gpus"),
    ("$7/GPU-hour", "price_per_kwh"), ("2.5e", "hours"), ("", "hours"),
])
def test_one_amount_parser_refuses_what_is_not_the_input(text, name):
    with pytest.raises(ValueError):
        quantities.amount(text, name)


def test_a_reply_with_a_unit_answers_the_question_just_asked():
    req = detect("What do 256 GPUs cost at $7/GPU-hour?")
    assert req.missing == ["hours"]
    assert detect("2 weeks", req).args["hours"] == 336
    previous = detect("What is the cost per million tokens at $2/hr and 1,000 tokens/s?")
    asked = CalcRequest("serving_cost", previous.args, ["utilization"])
    assert detect("60%", asked).args["utilization"] == 0.6


def test_a_bare_percentage_in_a_follow_up_is_the_previous_calculations_percentage():
    serving = detect("serving cost at $1.90/gpu-hr, 2500 tokens/sec, 40% util")
    assert detect("what about 60%?", serving).args["utilization"] == 0.6
    training = detect("cost to train 7b params on 1t tokens, 989 tflops, 40% mfu, $7/gpu-hr?")
    assert detect("and at 30%?", training).args["mfu"] == 0.3  # the one given before
    slowed = detect("and with a 30% slowdown?", detect(BASE))
    assert detect("what about 20%?", slowed).args["slowdown_pct"] == 20
    # A rental has no percentage to change: not a calculation.
    assert detect("what about 60%?", detect(BASE)) is None


@pytest.mark.parametrize(("text", "price"), [
    ("at 3 an hour", 3.0), ("price is 2 per hour", 2.0), ("3/gpu-hr", 3.0),
    ("restarts happen 3 per hour", None),  # a count per hour, not a price
])
def test_a_bare_number_per_hour_is_a_price_only_when_written_like_one(text, price):
    assert [q.value for q in scan(text) if q.kind == "price"] == ([price] if price else [])


def test_a_short_link_speed_answers_a_follow_up_and_a_field():
    previous = detect("ring allreduce of 10GB on 16 gpus with 400G links, how long?")
    assert detect("what about 800G?", previous).args == {"buffer_gb": 10.0, "gpus": 16,
                                                         "link_gbps": 800.0}
    assert quantities.amount("400G", "link_gbps") == 400
    # Without a calculation before it, an optic's speed is a question for the lessons.
    assert detect("and for 800g?") is None and detect("how much is a 400G optic?") is None


@pytest.mark.parametrize(("question", "buffer_gb"), [
    ("7b model, bf16 grads, 64 gpus flat ring allreduce. how long at 400g", 14.0),
    ("all-reduce of a 70B model in fp32 on 8 gpus at 400 Gb/s", 280.0),
    ("float32 allreduce of 1B params on 8 gpus at 400 Gb/s", 4.0),
    # A size written out wins over the one worked out from the model.
    ("all reduce 140 GB of gradients (70b in bf16) over 256 gpus w/ 400gbps ib", 140.0),
])
def test_the_gradient_buffer_from_model_size_and_precision(question, buffer_gb):
    req = detect(question)
    assert req.tool == "allreduce_time" and req.missing == []
    assert req.args["buffer_gb"] == pytest.approx(buffer_gb)


# --- wordings blind writers used (dev split, 2026-11-26) -----------------------------------

def test_letter_named_quotes_keep_their_own_hours():
    req = detect("2 quotes: A $2.10/h for 500h, B $1.90/h for 560h on 64 gpus. which is cheaper?")
    assert req is not None and req.tool == "compare_cluster_quotes"
    assert req.args["quotes"] == [
        {"name": "A", "price_per_gpu_hour": 2.1, "hours": 500.0},
        {"name": "B", "price_per_gpu_hour": 1.9, "hours": 560.0}]
    # ...and a follow-up that names one of them changes its price, written bare
    again = detect("what if B dropped to 1.75?", req)
    assert again is not None and again.args["quotes"][1]["price_per_gpu_hour"] == 1.75
    assert again.args["quotes"][0]["price_per_gpu_hour"] == 2.1
    # a whole number after "to" is no price
    more = detect("what if we go to 128 gpus?", req)
    assert more is not None and more.args["gpus"] == 128
    assert [q["price_per_gpu_hour"] for q in more.args["quotes"]] == [2.1, 1.9]


def test_a_lone_article_a_is_no_quote_name():
    req = detect("A $2 per gpu hour cluster vs $2.5 for 100 hours on 8 gpus")
    assert req is not None
    assert [q["name"] for q in req.args["quotes"]] == ["Quote 1", "Quote 2"]


@pytest.mark.parametrize("question", [
    "1 MB allreduce over 1024 gpus, 400G per gpu, 5 us latency per step. time?",
    "512 gpus, 256MB buffer, 400G ndr, 10us per hop latency - ring allreduce time?",
])
def test_a_short_link_speed_given_per_gpu_is_read(question):
    req = detect(question)
    assert req is not None and req.tool == "allreduce_time"
    assert req.args["link_gbps"] == 400.0


def test_an_amount_a_gpu_with_hours_apart_is_the_price_per_gpu_hour():
    req = detect("rough cost of 2,048 gpus for 1000 hours if the rate is $1.65 a gpu?")
    assert req is not None and req.tool == "gpu_hour_cost" and not req.missing
    assert req.args == {"gpus": 2048, "hours": 1000.0, "price_per_gpu_hour": 1.65}
    assert any("per GPU-hour" in n for n in req.notes)


@pytest.mark.parametrize(("question", "tool", "expected"), [
    # a daily schedule: hours a day times the days
    ("16 a100s at 1.29 per card, we only run them 12 hours a day for 30 days. how much total?",
     "gpu_hour_cost", {"hours": 360.0}),
    # filler between a name and its percent; "busy ~50% of the time" is utilization
    ("a 70b run on 15t tokens with 1024 gpus, 989 tflops peak each, mfu maybe 35%, $2 per "
     "gpu-hour. cost?", "training_cost", {"mfu": 0.35}),
    ("8 gpus at 2.49/hr each, the group does 3000 tokens/sec and is busy ~50% of the time. "
     "cost per 1m tokens?", "serving_cost", {"utilization": 0.5}),
    # the corpus states an H100's peak; other GPUs' peaks are asked for
    ("cost to train a 7b model on 1t tokens on h100s at 40% mfu, $7/gpu-hour?",
     "training_cost", {"peak_tflops_per_gpu": 989.0}),
    # several links written as a multiple
    ("sending 140gb of weights to another node over 8x 400g nics, 85% efficiency. how long?",
     "transfer_time", {"links": 8, "link_gbps": 400.0}),
    ("20gb kv cache handoff over a 200g link, assume 95% efficiency. seconds?",
     "transfer_time", {"size_gb": 20.0, "link_gbps": 200.0, "efficiency": 0.95}),
    # a server's or rack's power for the GPUs it holds; cents with power are a kWh price
    ("b200 node draws 14.3kw for 8 gpus. site pue 1.2, power 15c/kwh. electricity a day?",
     "power_cost", {"watts_per_server": 14300.0, "gpus_per_server": 8}),
    ("one nvl72 rack pulling 120kw for its 72 gpus, pue 1.15, $0.11/kwh, 3 weeks?",
     "power_cost", {"watts_per_server": 120000.0, "gpus_per_server": 72}),
    ("one nvl72 rack ~120kw, liquid cooled site with pue 1.2, $0.10/kwh. power from the grid "
     "and cost for a week?",
     "power_cost", {"watts_per_server": 120000.0, "gpus_per_server": 72, "gpus": 72}),
    ("2048 gpus at 1.1kw each all-in, pue 1.5, power at 7 cents, 90 days. electricity cost?",
     "power_cost", {"price_per_kwh": 0.07}),
])
def test_blind_wordings_are_read(question, tool, expected):
    req = detect(question)
    assert req is not None and req.tool == tool and not req.missing, req
    for key, value in expected.items():
        assert req.args[key] == value, (key, req.args)


def test_quotes_without_names_own_the_amounts_in_their_stretch():
    req = detect("1k gpu run, two clouds: cloud1 is $1.99/gpu-hr and would take 45 days, "
                 "cloud2 is $2.35/gpu-hr but 36 days. which wins on total cost?")
    assert [(q["price_per_gpu_hour"], q["hours"]) for q in req.args["quotes"]] == [
        (1.99, 1080.0), (2.35, 864.0)]
    req = detect("comparing 3 vendors. x: 512 gpus at 2.39/hr, 21 days. y: 512 gpus at "
                 "2.10/hr, ~25 days. z: 1024 gpus at 2.60/hr, 11 days. cheapest?")
    assert [(q["gpus"], q["hours"]) for q in req.args["quotes"]] == [
        (512, 504.0), (512, 600.0), (1024, 264.0)]


def test_a_follow_up_spreads_a_transfer_over_more_links():
    first = detect("how long to copy a 500gb checkpoint over a 400g link at 90% efficiency?")
    again = detect("what if we spread it over 4 links?", first)
    assert again is not None and again.tool == "transfer_time" and again.args["links"] == 4


@pytest.mark.parametrize("question", [
    "can the network really add 30% to training cost?? seems like a lot",
    "is 400g enough?",
])
def test_a_yes_no_question_about_one_amount_is_no_calculation(question):
    assert detect(question) is None


def test_a_request_phrased_as_can_you_still_calculates():
    req = detect("can you work out 64 gpus at $2 for a month")
    assert req is not None and req.tool == "gpu_hour_cost" and not req.missing


@pytest.mark.parametrize("question, tool, args", [
    ("small test rig: 4 gpus each on 100gbe, all-reducing 5 gb, no latency. time?",
     "allreduce_time", {"buffer_gb": 5.0, "gpus": 4, "link_gbps": 100.0}),
    ("we have 16 h100 nodes, 8 gpus each, 400g rail optimized. all-reduce of 20gb how long? "
     "assume 5us", "allreduce_time",
     {"buffer_gb": 20.0, "gpus": 128, "link_gbps": 400.0, "latency_us": 5.0}),
    ("1gb buffer all-reduced across 256 gpus, 400g per gpu, 2us latency. time + busbw?",
     "allreduce_time", {"buffer_gb": 1.0, "gpus": 256, "link_gbps": 400.0, "latency_us": 2.0}),
    ("replicating 50 tb between sites over a 1.6t long-haul link, 85% efficient. seconds?",
     "transfer_time", {"size_gb": 50000.0, "link_gbps": 1600.0, "efficiency": 0.85}),
    ("shipping a 500 mb kv cache to a decode node over 200g at 90% efficiency, in ms?",
     "transfer_time", {"size_gb": 0.5, "link_gbps": 200.0, "efficiency": 0.9}),
    ("single h100 at 2/hr pushing 1500 tok/s, about half utilized. per million tokens?",
     "serving_cost", {"price_per_gpu_hour": 2.0, "tokens_per_second": 1500.0,
                      "utilization": 0.5}),
    ("tp=8 node, $2.49/gpu-hr, the node does 3,000 tok/s. cost per 1m tok, and the monthly "
     "bill for 5 billion tokens?", "serving_cost",
     {"price_per_gpu_hour": 2.49, "tokens_per_second": 3000.0, "gpus": 8,
      "monthly_tokens": 5e9}),
    ("one nvl72 rack, 72 gpus, rack pulls 120kw, pue 1.2, 10c/kwh, electricity per day?",
     "power_cost", {"gpus": 72, "pue": 1.2, "price_per_kwh": 0.1, "hours": 24.0,
                    "watts_per_server": 120000.0, "gpus_per_server": 72}),
    ("what does electricity add per gpu-hour for a gpu drawing 1.2kw all-in, pue 1.5, "
     "15 cents/kwh?", "power_cost", {"pue": 1.5, "price_per_kwh": 0.15, "watts_per_gpu": 1200.0}),
    ("a 8 gpu h100 box at 10.2kw, pue 1.4, 12 cents for a year", "power_cost",
     {"gpus": 8, "watts_per_server": 10200.0, "pue": 1.4, "hours": 8760.0,
      "gpus_per_server": 8, "price_per_kwh": 0.12}),
    ("rent 64 h100 at 2.99 for 2 weeks how much", "gpu_hour_cost",
     {"gpus": 64, "price_per_gpu_hour": 2.99, "hours": 336.0}),
    ("whats the hourly burn on 512 gpus at $2.75/gpu-hr, and what's a full week of that?",
     "gpu_hour_cost", {"gpus": 512, "price_per_gpu_hour": 2.75, "hours": 168.0}),
    ("512 gpus for 300 hours at $2.40/gpu-hour, but our network will probably slow things "
     "down ~20%. total cost?", "training_cost",
     {"gpus": 512, "price_per_gpu_hour": 2.4, "hours": 300.0, "slowdown_pct": 20.0}),
    ("64 gpus for 500 hours at $2.20/gpu-hr, and i want to pad it 20% for restarts",
     "training_cost", {"gpus": 64, "price_per_gpu_hour": 2.2, "hours": 500.0,
                       "slowdown_pct": 20.0}),
    ("1b param model on 100b tokens, 312 tflops, 50% mfu, 1.20/hr per card, 64 of them",
     "training_cost", {"gpus": 64, "price_per_gpu_hour": 1.2, "parameters": 1e9,
                       "tokens": 1e11, "peak_tflops_per_gpu": 312.0, "mfu": 0.5}),
])
def test_amounts_written_the_way_visitors_type_them(question, tool, args):
    req = detect(question)
    assert req.tool == tool and req.args == args


@pytest.mark.parametrize("question", ["is 400g enough for training?",
                                      "we have 400g of optics budget to spend"])
def test_a_short_speed_without_a_link_or_a_sum_is_no_calculation(question):
    assert detect(question) is None


@pytest.mark.parametrize("first, follow_up, changed", [
    ("2 tb over 100gbps at 80% efficiency?", "what if we bond 4 of those links?",
     {"links": 4.0}),
    ("training run on 512 gpus for 200 hours at $2.40/gpu-hr, what does it cost?",
     "what if the network slows it down 25%?", {"slowdown_pct": 25.0}),
    ("cost of 32 gpus at $2.75/hr for a day?", "ok and if we keep them the whole month?",
     {"hours": 730.0}),
    ("20gb over a 400g link at 90%?", "what about over 2 of those links?", {"links": 2.0}),
    ("1000 gpus at 700w each, pue 1.5, 10 cents per kwh for a year",
     "what if we got pue down to 1.15?", {"pue": 1.15}),
])
def test_a_what_if_changes_one_input_of_the_previous_calculation(first, follow_up, changed):
    previous = detect(first)
    again = detect(follow_up, previous)
    assert again.tool == previous.tool and not again.missing
    assert again.args == {**previous.args, **changed}


# --- the nineteenth dev round's calculator wording (cd19/ce19, written blind) -------------

@pytest.mark.parametrize(("text", "kind", "value"), [
    ("our mfu on similar runs was about 45%. price is 2.50", "mfu", 0.45),
    ("traffic is bursty so utilization averages 55%. whats", "utilization", 0.55),
    ("utilization is pretty good, around 70%. expecting", "utilization", 0.7),
])
def test_a_share_named_a_few_words_before_its_percent(text, kind, value):
    from assistant.quantities import scan
    assert [(x.kind, x.value) for x in scan(text)] == [(kind, value)]


def test_a_percent_after_another_shares_name_is_not_taken_loosely():
    from assistant.quantities import scan
    assert [x.kind for x in scan("mfu is low with a 15% slowdown")] == ["slowdown_pct"]
    assert [x.kind for x in scan("utilization drops 20% at night")] == ["percent"]


def test_racks_each_pulling_power_are_each_racks_power():
    req = detect("we're getting 4 GB200 NVL72 racks, each pulls about 120 kW, the hall's PUE "
                 "is 1.25 and we pay 11 cents per kwh. facility power in kW and the energy "
                 "bill for one week?")
    assert req.tool == "power_cost" and not req.missing and req.error is None
    assert run(req).result.facility_kw == pytest.approx(600)


def test_quotes_numbered_in_brackets_keep_their_counts():
    req = detect("comparing 3 offers for a finetune: (1) 256 h100 @ 2.99/hr, 120h; (2) 256 @ "
                 "2.49/hr but 150h bc slower fabric; (3) 384 gpus @ 2.79/hr, 85h. cost of each?")
    assert req.tool == "compare_cluster_quotes" and not req.missing
    assert [x["gpus"] for x in req.args["quotes"]] == [256, 256, 384]


def test_a_total_speed_spelled_out_as_links_times_speed_is_counted_once():
    req = detect("our server has 3.2 Tbps of total network bandwidth (8x400g) and we want to "
                 "push 1.2 TB of checkpoint out of it, at 80% efficiency. how long in seconds")
    assert req.args["link_gbps"] == 400 and req.args["links"] == 8
    assert run(req).result.seconds == pytest.approx(3.75)


def test_a_calculator_a_word_selects_yields_to_one_that_reads_the_amounts():
    req = detect("for disaggregated serving we ship a 500 MB kv cache from the prefill node "
                 "to the decode node over a 50 Gbps link, efficiency about 70%. how many ms")
    assert req.tool == "transfer_time"
    assert run(req).result.seconds == pytest.approx(0.5 * 8 / (50 * 0.7))


def test_a_share_alone_in_a_first_message_is_judged_not_calculated():
    assert detect("my mfu calc came out at 120%, is that possible?") is None
    assert detect("traffic is bursty so utilization averages 55%, is that bad?") is None


def test_quote_a_beside_quote_b_is_a_name_not_an_article():
    # the eighteenth round's sealed split (after its scoring): quote a's 48 h went to quote b
    req = detect("quote a 128 gpus @ 4.10 48h, quote b 128 gpus @ 3.60 60h, quote c 96 gpus @ "
                 "3.20 70h. job cost for each + gap to cheapest")
    assert [(x["name"], x["hours"]) for x in req.args["quotes"]] == [
        ("a", 48), ("b", 60), ("c", 70)]


def test_a_period_without_a_number_is_no_amount_to_calculate_from():
    # a salary asked "per year" is out of scope, not a GPU-hour sum missing its GPUs
    assert detect("how much does a network engineer at meta make per year") is None
    request = detect("how much is 8 h100s per year at 2.10/hr")
    assert request is not None and request.args["hours"] == 8760


def test_gpus_times_watts_is_each_gpus_power():
    request = detect("256 gpus x 700w, old building pue 1.5, 15 cents/kwh, 30 days (720h). "
                     "total facility kw and power cost")
    assert request.tool == "power_cost" and request.error is None
    assert request.args["watts_per_gpu"] == 700


def test_quotes_named_by_a_letter_and_an_equals_sign():
    request = detect("comparing 3 clouds: A = 512 gpus @ 1.99/hr, job takes 300h. B = 384 gpus "
                     "@ 2.40, 360h. C = 512 gpus @ 2.65, 220h. cost of each?")
    assert request.tool == "compare_cluster_quotes"
    assert [q["name"] for q in request.args["quotes"]] == ["A", "B", "C"]
    assert run(request).result.cheapest_cost == 298496


def test_dgx_servers_counted_by_model_name_without_a_plural():
    request = detect("16 dgx b200 at 14.3kw per server, pue 1.3, $0.20/kwh, 100 hour job - "
                     "grid kw + electricity cost?")
    assert request.args["gpus"] == 128 and request.args["gpus_per_server"] == 8
    assert round(run(request).result.total_cost, 2) == 5948.8


def test_a_bare_price_after_at_is_followed_by_a_joining_word():
    # the twentieth round's sealed test, after its scoring
    request = detect("provider x: 64 gpus at $3.10/gpu-hr, job takes 5 days. provider y: 128 "
                     "gpus at 2.90 and it finishes in 2.5 days. which one is cheaper and by how "
                     "much")
    assert request.tool == "compare_cluster_quotes" and not request.missing
    assert [q["price_per_gpu_hour"] for q in request.args["quotes"]] == [3.1, 2.9]


def test_a_misspelt_utilization_is_still_the_utilization():
    request = detect("2 gpus per replica (tp2), $2.10/gpu-hr each, the replica does 2.5k "
                     "tokens/sec, 35% utilzation, we expect 5 billion tokens a month. cost per "
                     "1m and monthly bill")
    assert request.args["utilization"] == 0.35
    assert round(run(request).result.cost_per_million_tokens, 2) == 1.33


def test_a_cluster_that_quotes_is_not_named_quotes():
    request = detect("roce cluster quotes 1.89/gpu-hr and the job would take 400 hours on 128 "
                     "gpus; infiniband one is 2.19/gpu-hr, 330 hours on 128 gpus. cheaper one?")
    assert request.tool == "compare_cluster_quotes"
    assert "quotes" not in [q["name"] for q in request.args["quotes"]]


def test_quotes_whose_gpus_follow_their_price_keep_them():
    request = detect("roce cluster quotes 1.89/gpu-hr and the job would take 400 hours on 128 "
                     "gpus; infiniband one is 2.19/gpu-hr, 330 hours on the same 128 gpus. "
                     "cheaper option + diff?")
    assert request.tool == "compare_cluster_quotes" and not request.missing
    quotes = request.args["quotes"]
    assert [(q["price_per_gpu_hour"], q["hours"]) for q in quotes] == [(1.89, 400), (2.19, 330)]
    assert request.args.get("gpus") == 128 or [q["gpus"] for q in quotes] == [128, 128]


def test_a_bare_amount_after_at_beside_other_quotes_is_a_price():
    request = detect("three offers: neocloud x is 128 gpus at 2.39/hr and needs 400 hrs, "
                     "hyperscaler y is 128 at 3.90/hr and 300 hrs, z is 128 at 2.10 but 520 "
                     "hrs. cheapest?")
    assert request.tool == "compare_cluster_quotes" and not request.missing
    assert [q["price_per_gpu_hour"] for q in request.args["quotes"]] == [2.39, 3.9, 2.1]
    assert [q["hours"] for q in request.args["quotes"]] == [400, 300, 520]


def test_a_group_price_restated_per_gpu_is_one_price():
    request = detect("node is $56/hr for 8 gpus, so $7 per gpu-hour. we need it for 10 days "
                     "straight, total?")
    assert request.tool == "gpu_hour_cost" and not request.missing
    assert request.args["price_per_gpu_hour"] == 7 and request.args["gpus"] == 8
    # two different prices stay two quotes
    assert detect("$56/hr for 8 gpus vs $6 per gpu-hour, 10 days, which is cheaper?"
                  ).tool == "compare_cluster_quotes"


@pytest.mark.parametrize("question, gpus", [
    ("8 h100 nodes, each 8 gpus, 3 weeks at 2.2/hr - cost?", 64),
    ("8 nodes, each with 8 gpus, 3 weeks at 2.2/hr", 64),
    ("4 dgx h100 servers, each with 8 gpus at 700w", 32),
    ("4 dgx h100 servers with 8 gpus each at 700w", 32),
])
def test_gpus_counted_node_by_node_after_each(question, gpus):
    # each of these had read the per-node count as the cluster's (8 GPUs, a wrong total)
    assert [(x.kind, x.value) for x in read(question).found if x.kind in ("gpus", "nodes")] == [
        ("gpus", gpus)]


def test_quotes_named_by_a_letter_and_a_bracket():
    # the twenty-first round's test: "a)" was not read as a name, so one quote was priced
    request = detect("comparing 3 offers: a) 256 gpus at $3/hr, job takes 120 h. b) 384 gpus "
                     "at 2.80, 85 h. c) 128 gpus at 2.50, 250 h. cost of each?")
    assert request.tool == "compare_cluster_quotes" and not request.missing
    quotes = request.args["quotes"]
    assert [(q["name"], q["gpus"], q["price_per_gpu_hour"], q["hours"]) for q in quotes] == [
        ("a", 256, 3.0, 120), ("b", 384, 2.8, 85), ("c", 128, 2.5, 250)]


def test_a_network_that_stretches_the_run_without_by_is_a_slowdown():
    # the twenty-first round's test: "stretches it 30%" was priced without the slowdown
    request = detect("256 gpus at $7/gpu-hr, 100h job. if the network stretches it 30%, how "
                     "much extra does that cost")
    assert request.tool == "training_cost" and request.args["slowdown_pct"] == 30
