"""Known answers to the cent, validation errors that name the input, and properties."""

from __future__ import annotations

import json
import math
import pkgutil
from pathlib import Path

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from assistant import calculators
from assistant.calculators import (
    CalculatorError,
    MissingInput,
    compare_cluster_quotes,
    format_money,
    format_number,
    gpu_hour_cost,
    serving_cost,
    training_cost,
    validate_input,
)
from assistant.calculators.allreduce import allreduce_time
from assistant.calculators.power import power_cost
from assistant.corpus import load_corpus


def cents(x: float) -> float:
    return round(x, 2)


# --- known answers ------------------------------------------------------------------------

def test_gpu_hour_cost_brief_example():
    r = gpu_hour_cost(256, 7.0, 100)
    assert (r.cost_per_hour, r.gpu_hours, r.total_cost) == (1792.0, 25600.0, 179200.0)
    assert r.formula == "256 GPUs × $7.00/GPU-hour × 100 h = $179,200"
    assert r.working == [
        "Cost per hour: 256 GPUs × $7.00/GPU-hour = $1,792/h",
        "GPU-hours: 256 GPUs × 100 h = 25,600 GPU-hours",
        "Total: 25,600 GPU-hours × $7.00/GPU-hour = $179,200",
    ]


@pytest.mark.parametrize(("gpus", "price", "hours", "total"), [
    (256, 7.0, 100, 179_200.00),
    (1, 2.49, 1, 2.49),
    (8, 1.85, 72, 1_065.60),           # 8 × 1.85 = 14.80/h × 72 h
    (1024, 2.10, 336, 722_534.40),     # 1024 × 336 = 344,064 GPU-hours × 2.10
    (3, 0.35, 2, 2.10),
    (512, 5.0, 130, 332_800.00),
])
def test_gpu_hour_cost_table(gpus, price, hours, total):
    assert cents(gpu_hour_cost(gpus, price, hours).total_cost) == total


def test_gpu_hour_cost_independent_arithmetic():
    # Computed here step by step rather than copied from the implementation.
    gpus, price, hours = 64, 3.25, 250
    per_hour = gpus * price           # 208.0
    expected = per_hour * hours       # 52,000
    r = gpu_hour_cost(gpus, price, hours)
    assert r.cost_per_hour == per_hour == 208.0
    assert r.total_cost == expected == 52_000.0
    assert r.gpu_hours == 16_000


def test_training_cost_slowdown_brief_example():
    r = training_cost(gpus=256, price_per_gpu_hour=7.0, hours=100, slowdown_pct=30)
    assert r.mode == "hours"
    assert r.baseline_hours == 100
    assert r.baseline_gpu_hours == 25_600
    assert r.baseline_cost == 179_200
    assert r.hours_with_slowdown == pytest.approx(130)
    assert r.gpu_hours_with_slowdown == pytest.approx(33_280)
    assert cents(r.cost_with_slowdown) == 232_960.00
    assert cents(r.extra_cost) == 53_760.00
    assert r.extra_hours == pytest.approx(30)
    assert "$232,960" in r.formula and "$53,760" in r.formula
    assert any("multiplicatively" in line for line in r.working)


def test_training_cost_slowdown_and_overhead_multiply():
    r = training_cost(gpus=100, price_per_gpu_hour=2.0, hours=10, slowdown_pct=10,
                      overhead_pct=20)
    # 1.1 × 1.2 = 1.32, not 1 + 0.1 + 0.2 = 1.3
    assert r.multiplier == pytest.approx(1.32)
    assert cents(r.cost_with_slowdown) == cents(100 * 10 * 1.32 * 2.0) == 2_640.00
    assert cents(r.extra_cost) == 640.00


def test_training_cost_from_model_size():
    r = training_cost(parameters=7e9, tokens=1e12, peak_tflops_per_gpu=989, mfu=0.4)
    expected = 6 * 7e9 * 1e12 / (989e12 * 0.4) / 3600
    assert r.mode == "model"
    assert r.baseline_gpu_hours == pytest.approx(expected, rel=1e-12)
    assert round(r.baseline_gpu_hours, 1) == 29_491.1
    assert r.total_flops == pytest.approx(4.2e22)
    assert r.baseline_hours is None and r.baseline_cost is None and r.cost_with_slowdown is None
    assert "GPU-hours is the answer" in " ".join(r.working)


def test_training_cost_from_model_size_with_gpus_and_price():
    r = training_cost(gpus=256, price_per_gpu_hour=2.5, parameters=7e9, tokens=1e12,
                      peak_tflops_per_gpu=989, mfu=0.4)
    gpu_hours = 6 * 7e9 * 1e12 / (989e12 * 0.4) / 3600
    assert r.baseline_hours == pytest.approx(gpu_hours / 256)
    assert cents(r.baseline_cost) == cents(gpu_hours * 2.5) == 73_727.67
    assert r.extra_cost == 0


def test_training_cost_hours_win_over_model_size():
    r = training_cost(gpus=8, hours=10, price_per_gpu_hour=1.0, parameters=7e9)
    assert r.mode == "hours" and r.baseline_cost == 80
    assert any("model-size inputs are not used" in line for line in r.working)


@pytest.mark.parametrize(("kwargs", "names"), [
    ({}, ["gpus", "hours"]),
    ({"gpus": 8}, ["hours"]),
    ({"hours": 10}, ["gpus"]),
    ({"parameters": 7e9}, ["tokens", "peak_tflops_per_gpu", "mfu"]),
    ({"parameters": 7e9, "tokens": 1e12, "mfu": 0.4}, ["peak_tflops_per_gpu"]),
])
def test_training_cost_missing_inputs(kwargs, names):
    with pytest.raises(MissingInput) as info:
        training_cost(**kwargs)
    assert info.value.names == names
    assert isinstance(info.value, CalculatorError)
    assert all(name in str(info.value) for name in names)


def test_serving_cost_brief_example():
    r = serving_cost(2.0, 1000)
    assert r.cost_per_million_tokens == pytest.approx(2 / 3.6)
    assert format_money(r.cost_per_million_tokens) == "$0.56"
    assert "$0.56" in r.formula


@pytest.mark.parametrize(("kwargs", "per_million", "monthly"), [
    # (2.49 × 8) / (2500 × 3600 × 0.4) × 1e6 = 19.92 / 3.6e6 × 1e6 = 5.5333…
    ({"price_per_gpu_hour": 2.49, "tokens_per_second": 2500, "utilization": 0.4, "gpus": 8,
      "monthly_tokens": 1e10}, 5.53, 55_333.33),
    # 5 / (1e4 × 3600) × 1e6 = 0.1388…
    ({"price_per_gpu_hour": 5.0, "tokens_per_second": 10_000}, 0.14, None),
    ({"price_per_gpu_hour": 2.0, "tokens_per_second": 1000, "utilization": 0.5,
      "monthly_tokens": 1e9}, 1.11, 1_111.11),
])
def test_serving_cost_table(kwargs, per_million, monthly):
    r = serving_cost(**kwargs)
    assert cents(r.cost_per_million_tokens) == per_million
    assert (None if r.monthly_cost is None else cents(r.monthly_cost)) == monthly


def test_serving_cost_always_on_and_capacity():
    r = serving_cost(2.0, 1000, monthly_tokens=1e10)
    assert r.always_on_monthly_cost == 2.0 * 730
    assert r.monthly_capacity_tokens == 1000 * 3600 * 730
    assert any("needs that many times the GPUs" in line for line in r.working)


def test_compare_brief_example():
    r = compare_cluster_quotes(256, [
        {"name": "A", "price_per_gpu_hour": 6.50, "hours": 130},
        {"name": "B", "price_per_gpu_hour": 7.0, "hours": 100},
    ])
    totals = {q.name: q.total_cost for q in r.quotes}
    assert totals == {"A": 216_320.0, "B": 179_200.0}
    assert (r.cheapest, r.dearest, r.difference) == ("B", "A", 37_120.0)
    assert {q.name: q.more_than_cheapest for q in r.quotes} == {"A": 37_120.0, "B": 0.0}
    assert r.formula == "A $216,320 vs B $179,200 → B cheaper by $37,120"


def test_compare_per_quote_gpus_and_ties():
    r = compare_cluster_quotes(None, [
        {"name": "X", "price_per_gpu_hour": 2.0, "hours": 10, "gpus": 100},
        {"name": "Y", "price_per_gpu_hour": 1.0, "hours": 20, "gpus": 100},
        {"name": "Z", "price_per_gpu_hour": 1.0, "hours": 10, "gpus": 300},
    ])
    assert [q.total_cost for q in r.quotes] == [2000.0, 2000.0, 3000.0]
    assert r.cheapest == "X" and r.dearest == "Z" and r.difference == 1000.0


def test_results_are_json_safe():
    results = [
        gpu_hour_cost(256, 7, 100),
        training_cost(gpus=256, price_per_gpu_hour=7, hours=100, slowdown_pct=30),
        training_cost(parameters=7e9, tokens=1e12, peak_tflops_per_gpu=989, mfu=0.4),
        serving_cost(2, 1000, monthly_tokens=1e9),
        compare_cluster_quotes(8, [{"name": "A", "price_per_gpu_hour": 1, "hours": 1},
                                   {"name": "B", "price_per_gpu_hour": 2, "hours": 1}]),
    ]
    for r in results:
        d = r.to_dict()
        assert json.loads(json.dumps(d, allow_nan=False)) == d
        assert isinstance(d["formula"], str) and all(isinstance(x, str) for x in d["working"])


# --- formatting ---------------------------------------------------------------------------

@pytest.mark.parametrize(("x", "text"), [
    (0.5556, "$0.56"), (1.39, "$1.39"), (7, "$7.00"), (0, "$0.00"), (0.125, "$0.13"),
    (99.999, "$100.00"), (500, "$500.00"), (179_200, "$179,200"), (1792.0, "$1,792"),
    (179_200.5, "$179,200.50"), (999.999, "$1,000"), (-5, "-$5.00"), (1_234_567.891,
                                                                      "$1,234,567.89"),
])
def test_format_money(x, text):
    assert format_money(x) == text


@pytest.mark.parametrize(("x", "text"), [
    (25_600, "25,600"), (29_491.93, "29,491.9"), (130.0, "130"), (115.2, "115.2"),
    (1_000_000.04, "1,000,000"), (0.05, "0.05"),
])
def test_format_number(x, text):
    assert format_number(x) == text


# --- validation ---------------------------------------------------------------------------

BASE_GPU = {"gpus": 256, "price_per_gpu_hour": 7.0, "hours": 100}
BASE_SERVE = {"price_per_gpu_hour": 2.0, "tokens_per_second": 1000}
BASE_MODEL = {"parameters": 7e9, "tokens": 1e12, "peak_tflops_per_gpu": 989, "mfu": 0.4}


@pytest.mark.parametrize(("fn", "base", "name", "bad"), [
    (gpu_hour_cost, BASE_GPU, "gpus", 0),
    (gpu_hour_cost, BASE_GPU, "gpus", -5),
    (gpu_hour_cost, BASE_GPU, "gpus", 2.5),
    (gpu_hour_cost, BASE_GPU, "gpus", math.nan),
    (gpu_hour_cost, BASE_GPU, "gpus", math.inf),
    (gpu_hour_cost, BASE_GPU, "gpus", 10_000_001),
    (gpu_hour_cost, BASE_GPU, "gpus", True),
    (gpu_hour_cost, BASE_GPU, "gpus", "256"),
    (gpu_hour_cost, BASE_GPU, "price_per_gpu_hour", 0),
    (gpu_hour_cost, BASE_GPU, "price_per_gpu_hour", -7),
    (gpu_hour_cost, BASE_GPU, "price_per_gpu_hour", math.nan),
    (gpu_hour_cost, BASE_GPU, "price_per_gpu_hour", 100_000.01),
    (gpu_hour_cost, BASE_GPU, "hours", 0),
    (gpu_hour_cost, BASE_GPU, "hours", -math.inf),
    (gpu_hour_cost, BASE_GPU, "hours", 876_001),
    (training_cost, {**BASE_GPU, "slowdown_pct": 30}, "slowdown_pct", -1),
    (training_cost, {**BASE_GPU, "slowdown_pct": 30}, "slowdown_pct", 1000.5),
    (training_cost, {**BASE_GPU, "slowdown_pct": 30}, "slowdown_pct", math.nan),
    (training_cost, BASE_GPU, "overhead_pct", -0.1),
    (training_cost, BASE_GPU, "overhead_pct", 1001),
    (training_cost, BASE_MODEL, "parameters", 0),
    (training_cost, BASE_MODEL, "parameters", 1.1e15),
    (training_cost, BASE_MODEL, "tokens", -1e12),
    (training_cost, BASE_MODEL, "tokens", 1.1e18),
    (training_cost, BASE_MODEL, "peak_tflops_per_gpu", 0),
    (training_cost, BASE_MODEL, "peak_tflops_per_gpu", 1.1e6),
    (training_cost, BASE_MODEL, "mfu", 0),
    (training_cost, BASE_MODEL, "mfu", 1.01),
    (training_cost, BASE_MODEL, "mfu", 40),
    (training_cost, {**BASE_MODEL, "gpus": 8}, "gpus", 0.5),
    (serving_cost, BASE_SERVE, "tokens_per_second", 0),
    (serving_cost, BASE_SERVE, "tokens_per_second", math.inf),
    (serving_cost, BASE_SERVE, "utilization", 0),
    (serving_cost, BASE_SERVE, "utilization", 1.5),
    (serving_cost, BASE_SERVE, "utilization", 50),
    (serving_cost, BASE_SERVE, "gpus", 0),
    (serving_cost, BASE_SERVE, "monthly_tokens", -1),
    (serving_cost, BASE_SERVE, "price_per_gpu_hour", -2),
])
def test_validation_errors_name_the_input(fn, base, name, bad):
    with pytest.raises(CalculatorError) as info:
        fn(**{**base, name: bad})
    message = str(info.value)
    assert message.startswith(name), message
    assert "got" in message
    assert info.value.input == name
    # validate_input agrees with the calculator (the parser uses it to report early).
    with pytest.raises(CalculatorError):
        validate_input(name, bad)


def test_gpus_message_matches_brief():
    with pytest.raises(CalculatorError, match=r"^gpus must be a positive whole number \(got 0\)$"):
        gpu_hour_cost(0, 7, 100)


def test_accepts_boundaries():
    assert gpu_hour_cost(10_000_000, 100_000, 876_000).total_cost == 10_000_000 * 100_000 * 876_000
    assert gpu_hour_cost(256.0, 7, 100).gpus == 256  # whole float is a whole number
    assert training_cost(**BASE_MODEL, slowdown_pct=1000).multiplier == 11
    assert serving_cost(2, 1000, utilization=1).utilization == 1


def test_overflowing_combination_is_reported():
    with pytest.raises(CalculatorError, match="too large") as info:
        training_cost(parameters=1e15, tokens=1e18, peak_tflops_per_gpu=1e-300, mfu=1e-10)
    assert info.value.input == "parameters"


Q = {"name": "A", "price_per_gpu_hour": 1.0, "hours": 1.0}


@pytest.mark.parametrize(("gpus", "quotes", "needle", "path"), [
    (8, [Q], "quotes must have from 2 to 10", "quotes"),
    (8, [{**Q, "name": f"Q{i}"} for i in range(11)], "quotes must have from 2 to 10", "quotes"),
    (8, [Q, {**Q, "name": "a"}], "name of quote 2 must be unique", "quotes.1.name"),
    (8, [Q, {**Q, "name": " "}], "name of quote 2", "quotes.1.name"),
    (8, [Q, {**Q, "name": "B", "price_per_gpu_hour": -1}], "price_per_gpu_hour for quote 'B'",
     "quotes.1.price_per_gpu_hour"),
    (8, [Q, {**Q, "name": "B", "hours": 0}], "hours for quote 'B'", "quotes.1.hours"),
    (8, [Q, {**Q, "name": "B", "gpus": 1.5}], "gpus for quote 'B'", "quotes.1.gpus"),
    (0, [Q, {**Q, "name": "B"}], "gpus must be a positive whole number", "gpus"),
    (8, "AB", "quotes must be a list", "quotes"),
])
def test_compare_validation(gpus, quotes, needle, path):
    with pytest.raises(CalculatorError, match=needle) as info:
        compare_cluster_quotes(gpus, quotes)
    assert info.value.input == path


def test_compare_needs_gpus_somewhere():
    with pytest.raises(MissingInput) as info:
        compare_cluster_quotes(None, [Q, {**Q, "name": "B"}])
    assert info.value.names == ["gpus"]


# --- properties ---------------------------------------------------------------------------

gpus_st = st.integers(min_value=1, max_value=100_000)
price_st = st.floats(min_value=0.01, max_value=1_000, allow_nan=False)
hours_st = st.floats(min_value=0.01, max_value=10_000, allow_nan=False)
factor_st = st.integers(min_value=2, max_value=50)


@given(gpus_st, price_st, hours_st, factor_st)
def test_gpu_hour_cost_linear_in_gpus(g, p, h, k):
    assume(g * k <= 10_000_000)
    assert gpu_hour_cost(g * k, p, h).total_cost == pytest.approx(
        k * gpu_hour_cost(g, p, h).total_cost, rel=1e-12)


@given(gpus_st, price_st, hours_st, st.floats(min_value=0.1, max_value=50))
def test_gpu_hour_cost_linear_in_price(g, p, h, k):
    assert gpu_hour_cost(g, p * k, h).total_cost == pytest.approx(
        k * gpu_hour_cost(g, p, h).total_cost, rel=1e-12)


@given(gpus_st, price_st, hours_st, st.floats(min_value=0.1, max_value=50))
def test_gpu_hour_cost_linear_in_hours(g, p, h, k):
    assert gpu_hour_cost(g, p, h * k).total_cost == pytest.approx(
        k * gpu_hour_cost(g, p, h).total_cost, rel=1e-12)


@given(gpus_st, price_st, hours_st)
def test_gpu_hour_cost_matches_plain_arithmetic(g, p, h):
    r = gpu_hour_cost(g, p, h)
    assert r.total_cost == pytest.approx(g * p * h, rel=1e-12)
    assert r.cost_per_hour * h == pytest.approx(r.total_cost, rel=1e-12)


pct_st = st.floats(min_value=0, max_value=1000, allow_nan=False)


@given(gpus_st, price_st, hours_st, pct_st, pct_st, pct_st)
def test_training_cost_monotone_in_slowdown(g, p, h, s1, s2, overhead):
    lo, hi = sorted((s1, s2))
    a = training_cost(gpus=g, price_per_gpu_hour=p, hours=h, slowdown_pct=lo,
                      overhead_pct=overhead)
    b = training_cost(gpus=g, price_per_gpu_hour=p, hours=h, slowdown_pct=hi,
                      overhead_pct=overhead)
    assert a.cost_with_slowdown <= b.cost_with_slowdown
    assert a.extra_cost >= -1e-6 * a.baseline_cost  # a slowdown never saves money
    assert b.cost_with_slowdown >= b.baseline_cost


tps_st = st.floats(min_value=1, max_value=1e6, allow_nan=False)
util_st = st.floats(min_value=0.01, max_value=1, allow_nan=False)


@given(price_st, tps_st, tps_st, util_st)
def test_serving_cost_decreases_with_throughput(p, t1, t2, u):
    lo, hi = sorted((t1, t2))
    slow = serving_cost(p, lo, utilization=u).cost_per_million_tokens
    fast = serving_cost(p, hi, utilization=u).cost_per_million_tokens
    assert fast <= slow
    if hi >= lo * 1.001:
        assert fast < slow


@given(price_st, tps_st, util_st, util_st)
def test_serving_cost_decreases_with_utilization(p, t, u1, u2):
    lo, hi = sorted((u1, u2))
    busy = serving_cost(p, t, utilization=hi).cost_per_million_tokens
    idle = serving_cost(p, t, utilization=lo).cost_per_million_tokens
    assert busy <= idle
    if hi >= lo * 1.001:
        assert busy < idle


quote_st = st.tuples(price_st, hours_st, st.one_of(st.none(), gpus_st))


@given(gpus_st, st.lists(quote_st, min_size=2, max_size=10))
def test_compare_picks_the_true_minimum(g, raw):
    quotes = [{"name": f"q{i}", "price_per_gpu_hour": p, "hours": h, "gpus": qg}
              for i, (p, h, qg) in enumerate(raw)]
    totals = [(qg or g) * p * h for p, h, qg in raw]
    r = compare_cluster_quotes(g, quotes)
    by_name = {q.name: q.total_cost for q in r.quotes}
    assert by_name[r.cheapest] == pytest.approx(min(totals), rel=1e-12)
    assert by_name[r.dearest] == pytest.approx(max(totals), rel=1e-12)
    assert r.difference == pytest.approx(max(totals) - min(totals), rel=1e-9, abs=1e-9)
    assert all(q.more_than_cheapest >= 0 for q in r.quotes)
    # The first of any tied cheapest quotes is named.
    assert r.cheapest == f"q{min(range(len(raw)), key=lambda i: by_name[f'q{i}'])}"


# --- the registry -------------------------------------------------------------------------

REPO = Path(__file__).resolve().parent.parent


def test_registry_finds_every_calculator_module_in_tool_order():
    names = list(calculators.REGISTRY)
    assert names[:4] == ["gpu_hour_cost", "training_cost", "serving_cost",
                         "compare_cluster_quotes"]
    modules = {info.name for info in pkgutil.iter_modules(calculators.__path__)
               if not info.name.startswith("_")}
    assert len(modules) == len(names)
    assert calculators.CALCULATORS["gpu_hour_cost"] is gpu_hour_cost
    assert calculators.fallback().name == "gpu_hour_cost"


@pytest.mark.parametrize("name", list(calculators.REGISTRY))
def test_each_calculator_declares_itself_completely(name):
    spec = calculators.REGISTRY[name]
    pages = load_corpus(REPO / "corpus").pages
    # The lesson it cites exists: a typo is caught here, not answered with another page.
    assert spec.lesson in pages, spec.lesson
    assert spec.label and spec.description and spec.example
    for field_name, info in spec.inputs.model_fields.items():
        assert info.description, f"{name}.{field_name} has no description"
    for prompt_name in spec.prompts:
        assert prompt_name in spec.input_names, prompt_name
    result = spec.function(**spec.example)
    assert isinstance(result, spec.result)
    d = result.to_dict()
    assert json.loads(json.dumps(d, allow_nan=False)) == d
    assert result.summary and result.formula and result.working


def test_validate_input_uses_the_named_calculators_bounds():
    with pytest.raises(CalculatorError, match="utilization"):
        validate_input("utilization", 1.5, "serving_cost")
    validate_input("no_such_input", 1.5, "serving_cost")
    validate_input("quotes", "not a number", "compare_cluster_quotes")


# --- all-reduce time (numbers from corpus/lessons/how-all-reduce-works.md) ------------------

def test_allreduce_lesson_worked_example():
    # 10 GB of gradients on 8 GPUs with one 400 Gb/s adapter each: 50 GB/s per direction.
    r = allreduce_time(buffer_gb=10, gpus=8, link_gbps=400)
    assert r.bandwidth_gb_per_s == 50
    assert r.ring_factor == 1.75
    assert r.sent_per_gpu_gb == pytest.approx(17.5)
    assert r.total_seconds == pytest.approx(0.35)
    # nccl-tests would report algbw 10 GB ÷ 0.35 s ≈ 28.6 GB/s and busbw 28.6 × 1.75 = 50.
    assert round(r.algbw_gb_per_s, 1) == 28.6
    assert r.busbw_gb_per_s == pytest.approx(50)
    assert r.summary == ("0.35 s (350 ms) for a ring all-reduce of 10 GB on 8 GPUs "
                         "(algbw 28.6 GB/s, busbw 50 GB/s)")
    assert r.formula == "2 × (8 − 1) ÷ 8 × 10 GB ÷ 50 GB/s = 0.35 s"
    assert "Data each GPU sends: 1.75 × 10 GB = 17.5 GB" in r.working


@pytest.mark.parametrize(("gpus", "factor", "sent", "seconds"), [
    # The lesson's table: ring time at 50 GB/s for a 10 GB buffer.
    (2, 1.00, 10.0, 0.20), (8, 1.75, 17.5, 0.35), (64, 1.97, 19.7, 0.39),
    (1024, 2.00, 20.0, 0.40),
])
def test_allreduce_lesson_table(gpus, factor, sent, seconds):
    r = allreduce_time(10, gpus, 400)
    assert round(r.ring_factor, 2) == factor
    assert round(r.sent_per_gpu_gb, 1) == sent
    assert round(r.total_seconds, 2) == seconds


def test_allreduce_latency_dominates_small_buffers_and_tree_cuts_it():
    # 1 MB on 1,024 GPUs at 5 µs per step: 2,046 steps ≈ 10.2 ms of latency, ~40 µs of data;
    # a tree's ~20 steps spend ~0.1 ms.
    r = allreduce_time(0.001, 1024, 400, latency_us=5)
    assert r.ring_steps == 2046
    assert r.latency_seconds == pytest.approx(10.23e-3)
    assert r.transfer_seconds == pytest.approx(40e-6, rel=0.01)
    assert (r.tree_steps, r.tree_latency_seconds) == (20, pytest.approx(0.1e-3))
    assert any("Latency: 2 × (1,024 − 1) = 2,046 steps × 5 µs = 10.2 ms" == line
               for line in r.working)
    assert any(line.startswith("Tree, for comparison") for line in r.working)


def test_allreduce_without_latency_says_it_is_left_out():
    r = allreduce_time(10, 8, 400)
    assert r.latency_seconds == 0 and r.tree_latency_seconds == 0
    assert any("latency is left out" in line for line in r.working)
    assert not any(line.startswith("Tree") for line in r.working)


@pytest.mark.parametrize(("name", "bad", "needle"), [
    ("gpus", 1, "gpus must be a whole number of at least 2 (got 1)"),
    ("gpus", 2.5, "gpus must be a whole number of at least 2"),
    ("buffer_gb", 0, "buffer_gb must be a positive number"),
    ("buffer_gb", math.inf, "buffer_gb must be a finite number"),
    ("link_gbps", -400, "link_gbps must be a positive number"),
    ("link_gbps", 1e6, "link_gbps must be at most 100,000 Gb/s"),
    ("latency_us", -1, "latency_us must be from 0 to 1,000,000 µs"),
    ("latency_us", "5", "latency_us must be a number"),
])
def test_allreduce_validation_names_the_input(name, bad, needle):
    with pytest.raises(CalculatorError) as info:
        allreduce_time(**{"buffer_gb": 10, "gpus": 8, "link_gbps": 400, name: bad})
    assert str(info.value).startswith(needle) and info.value.input == name


size_st = st.floats(min_value=1e-6, max_value=1e4, allow_nan=False)
link_st = st.floats(min_value=1, max_value=1e4, allow_nan=False)
n_st = st.integers(min_value=2, max_value=100_000)
latency_st = st.floats(min_value=0, max_value=1e3, allow_nan=False)


@given(size_st, n_st, link_st)
def test_allreduce_busbw_equals_the_link_without_latency(s, n, link):
    r = allreduce_time(s, n, link)
    assert r.busbw_gb_per_s == pytest.approx(link / 8, rel=1e-9)
    assert r.total_seconds == pytest.approx(2 * (n - 1) / n * s / (link / 8), rel=1e-12)


@given(size_st, n_st, n_st, link_st, latency_st)
def test_allreduce_time_grows_with_gpus_but_stays_under_twice_the_buffer(s, n1, n2, link, lat):
    lo, hi = sorted((n1, n2))
    a, b = allreduce_time(s, lo, link, lat), allreduce_time(s, hi, link, lat)
    assert a.total_seconds <= b.total_seconds * (1 + 1e-12)
    assert b.sent_per_gpu_gb < 2 * s
    assert b.busbw_gb_per_s <= link / 8 * (1 + 1e-9)  # latency only ever lowers busbw


@given(size_st, n_st, link_st, link_st, latency_st)
def test_allreduce_time_falls_with_bandwidth(s, n, l1, l2, lat):
    lo, hi = sorted((l1, l2))
    assert allreduce_time(s, n, hi, lat).total_seconds <= allreduce_time(s, n, lo, lat
                                                                          ).total_seconds


# --- power cost (numbers from corpus/lessons/power-and-facility-cost.md) -------------------

def test_power_lesson_worked_example():
    # 256 H100-class GPUs at 1.0 kW all-in, PUE 1.3, $0.10 per kWh, a 100-hour job.
    r = power_cost(gpus=256, watts_per_gpu=1000, pue=1.3, price_per_kwh=0.10, hours=100)
    assert r.it_kw == 256
    assert r.facility_kw == pytest.approx(332.8)
    assert cents(r.cost_per_hour) == 33.28
    assert cents(r.cost_per_gpu_hour) == 0.13
    assert r.energy_kwh == pytest.approx(33_280)
    assert cents(r.total_cost) == 3_328.00  # 25,600 GPU-hours × $0.13
    assert r.summary == ("$3,328 of electricity for 100 h (33,280 kWh; $33.28 per hour, "
                         "$0.13 per GPU-hour)")
    assert r.formula == "256 GPUs × 1 kW × PUE 1.3 × $0.10/kWh × 100 h = $3,328"
    year = power_cost(gpus=256, watts_per_gpu=1000, pue=1.3, price_per_kwh=0.10, hours=8760)
    assert year.energy_kwh == pytest.approx(2_915_328)
    assert round(year.total_cost, -2) == 291_500


@pytest.mark.parametrize(("kw", "pue", "price", "kwh", "per_gpu_hour"), [
    # The lesson's table: kWh and electricity cost per GPU-hour.
    (1.0, 1.3, 0.10, 1.3, 0.13), (1.0, 1.6, 0.15, 1.6, 0.24), (1.0, 1.3, 0.25, 1.3, 0.325),
    (1.67, 1.2, 0.10, 2.0, 0.20),
])
def test_power_lesson_table(kw, pue, price, kwh, per_gpu_hour):
    r = power_cost(watts_per_gpu=kw * 1000, pue=pue, price_per_kwh=price)
    assert round(r.kwh_per_gpu_hour, 1) == kwh
    assert round(r.cost_per_gpu_hour, 3) == pytest.approx(per_gpu_hour, abs=0.005)
    assert r.gpus is None and r.gpus_counted == 1
    assert "figures are for one GPU" in r.working[0]


def test_power_from_server_watts():
    # A DGX H100 at 10.2 kW for 8 GPUs is 1,275 W per GPU.
    assert power_cost(watts_per_server=10_200, gpus_per_server=8).watts_per_gpu == 1275
    # A GB200 NVL72 rack at 120 kW with a PUE of 1.2: 144 kW, $14.40 an hour, ~$126,100 a year.
    r = power_cost(watts_per_server=120_000, gpus_per_server=72, pue=1.2, price_per_kwh=0.10,
                   hours=8760)
    assert r.gpus_counted == 72 and r.facility_kw == pytest.approx(144)
    assert cents(r.cost_per_hour) == 14.40 and round(r.total_cost, -2) == 126_100
    assert "one server of 72 GPUs" in " ".join(r.working)


def test_power_of_whole_servers_when_their_gpus_are_not_known():
    # 8 servers at 6.5 kW, PUE 1.6: 83.2 kW from the grid; 100 h at $0.22 is $1,830.40.
    r = power_cost(servers=8, watts_per_server=6_500, pue=1.6, price_per_kwh=0.22, hours=100)
    assert r.per == "server" and r.gpus is None and r.gpus_counted == 8
    assert r.facility_kw == pytest.approx(83.2) and cents(r.total_cost) == 1830.40
    assert "8 servers × 6.5 kW" in r.formula and "GPU" not in r.summary
    # a GPU count, or the GPUs per server, still decides the basis
    assert power_cost(servers=8, watts_per_server=6_500, gpus_per_server=8).per == "GPU"


def test_power_brief_kwh_question():
    # "256 H100s at 700 W for 100 hours at $0.12 per kWh", no PUE: IT power only, and said so.
    r = power_cost(gpus=256, watts_per_gpu=700, price_per_kwh=0.12, hours=100)
    assert r.it_kw == pytest.approx(179.2) and r.pue == 1
    assert r.energy_kwh == pytest.approx(17_920)
    assert cents(r.total_cost) == 2_150.40 and cents(r.cost_per_hour) == 21.50
    assert r.cost_per_gpu_hour == pytest.approx(0.084)
    assert any("A PUE of 1.0 counts the IT power only" in line for line in r.working)


def test_power_without_price_or_hours():
    energy = power_cost(gpus=256, watts_per_gpu=700, hours=168)
    assert energy.total_cost is None and energy.energy_kwh == pytest.approx(30_105.6)
    assert energy.summary == "30,105.6 kWh over 168 h (179.2 kW from the grid)"
    hourly = power_cost(gpus=256, watts_per_gpu=1000, pue=1.3, price_per_kwh=0.10)
    assert hourly.energy_kwh is None and hourly.total_cost is None
    assert hourly.summary.startswith("$33.28 per hour of electricity")


@pytest.mark.parametrize(("kwargs", "names"), [
    ({"gpus": 8}, ["watts_per_gpu"]),
    ({"watts_per_server": 10_200}, ["gpus_per_server"]),
])
def test_power_missing_inputs(kwargs, names):
    with pytest.raises(MissingInput) as info:
        power_cost(**kwargs)
    assert info.value.names == names


@pytest.mark.parametrize(("name", "bad", "needle"), [
    ("pue", 0.9, "pue must be from 1 to 5"),
    ("pue", math.nan, "pue must be a finite number"),
    ("watts_per_gpu", 0, "watts_per_gpu must be a positive number"),
    ("watts_per_gpu", 50_000, "watts_per_gpu must be at most 20,000 W"),
    ("price_per_kwh", -0.1, "price_per_kwh must be a positive number"),
    ("gpus", 2.5, "gpus must be a positive whole number"),
    ("hours", 0, "hours must be a positive number"),
])
def test_power_validation_names_the_input(name, bad, needle):
    with pytest.raises(CalculatorError) as info:
        power_cost(**{"gpus": 8, "watts_per_gpu": 700, "price_per_kwh": 0.1, "hours": 1,
                      name: bad})
    assert str(info.value).startswith(needle) and info.value.input == name


watts_st = st.floats(min_value=1, max_value=20_000, allow_nan=False)
pue_st = st.floats(min_value=1, max_value=5, allow_nan=False)
kwh_price_st = st.floats(min_value=0.001, max_value=10, allow_nan=False)


@given(gpus_st, watts_st, pue_st, kwh_price_st, hours_st)
def test_power_cost_matches_plain_arithmetic(g, w, u, p, h):
    r = power_cost(gpus=g, watts_per_gpu=w, pue=u, price_per_kwh=p, hours=h)
    assert r.total_cost == pytest.approx(g * w / 1000 * u * p * h, rel=1e-12)
    assert r.cost_per_gpu_hour * g == pytest.approx(r.cost_per_hour, rel=1e-12)
    assert r.cost_per_hour * h == pytest.approx(r.total_cost, rel=1e-12)
    assert r.facility_kw >= r.it_kw  # a PUE never lowers the power drawn


@given(watts_st, st.integers(min_value=1, max_value=100), pue_st, kwh_price_st)
def test_power_per_server_equals_per_gpu(w, n, u, p):
    by_server = power_cost(gpus=n, watts_per_server=w * n, gpus_per_server=n, pue=u,
                           price_per_kwh=p)
    by_gpu = power_cost(gpus=n, watts_per_gpu=w, pue=u, price_per_kwh=p)
    assert by_server.cost_per_hour == pytest.approx(by_gpu.cost_per_hour, rel=1e-9)


@given(gpus_st, watts_st, pue_st, pue_st, kwh_price_st)
def test_power_cost_grows_with_pue(g, w, u1, u2, p):
    lo, hi = sorted((u1, u2))
    assert (power_cost(gpus=g, watts_per_gpu=w, pue=lo, price_per_kwh=p).cost_per_hour
            <= power_cost(gpus=g, watts_per_gpu=w, pue=hi, price_per_kwh=p).cost_per_hour)


# -- transfer time ----------------------------------------------------------------------------

def test_transfer_time_is_size_over_the_link_in_bytes():
    from assistant.calculators.transfer import transfer_time

    r = transfer_time(size_gb=20, link_gbps=400)
    assert r.seconds == pytest.approx(0.4) and r.rate_gb_per_s == pytest.approx(50)
    # the Bandwidth page's realistic case: 90% of the link
    assert transfer_time(20, 400, efficiency=0.9).seconds == pytest.approx(20 / 45)
    # eight NICs in parallel share the data
    assert transfer_time(1.31, 400, links=8).seconds == pytest.approx(1.31 / 400)


@pytest.mark.parametrize("kwargs", [
    {"size_gb": 0, "link_gbps": 400}, {"size_gb": 20, "link_gbps": -1},
    {"size_gb": 20, "link_gbps": 400, "efficiency": 1.5},
    {"size_gb": float("nan"), "link_gbps": 400}, {"size_gb": "20 GB", "link_gbps": 400},
])
def test_transfer_time_refuses_what_it_cannot_use(kwargs):
    from assistant.calculators.transfer import transfer_time

    with pytest.raises(CalculatorError):
        transfer_time(**kwargs)


@pytest.mark.parametrize("question, tool", [
    ("how long does 20gb take over a 400g link", "transfer_time"),
    ("moving 20 GB at 90% of a 400 Gb/s link takes how long?", "transfer_time"),
    ("how long does a 10 GB all-reduce take on 8 gpus at 400 Gb/s", "allreduce_time"),
])
def test_a_transfer_is_not_an_all_reduce(question, tool):
    from assistant import quantities

    assert quantities.detect(question).tool == tool


@pytest.mark.parametrize("question", [
    "how much would 512 h100s cost per month at $2.20/hr",
    "512 gpus at $2.2/hr monthly",
])
def test_per_month_is_a_month_of_hours(question):
    from assistant import quantities

    request = quantities.detect(question)
    assert request.tool == "gpu_hour_cost" and request.args["hours"] == 730


@pytest.mark.parametrize("seconds, said", [
    (0.35, "0.35 s"), (12.5, "12.5 s"), (1684.2, "1,684 s (28.1 min)"),
    (52631.6, "52,632 s (14.6 h)"), (4571.4, "4,571 s (76 min, 1.27 h)"), (0.002, "2 ms")])
def test_a_long_time_reads_in_seconds_and_a_larger_unit_never_in_e_notation(seconds, said):
    from assistant.calculators.allreduce import format_seconds

    assert format_seconds(seconds) == said


def test_a_large_size_reads_in_whole_gigabytes_never_in_e_notation():
    from assistant.calculators.allreduce import format_size

    assert format_size(10_000) == "10,000 GB" and format_size(1_234.5) == "1,234 GB"
    assert format_size(17.5) == "17.5 GB" and format_size(0.002) == "2 MB"
