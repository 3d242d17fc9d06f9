"""Amounts written as labelled fields (assistant/labels.py), read by the calculators."""

from __future__ import annotations

import pytest

from assistant.quantities import detect


@pytest.mark.parametrize(("question", "tool", "args"), [
    ("quick one - gpus: 256 / price: 2.10 / hours: 500. total cost pls",
     "gpu_hour_cost", {"gpus": 256, "price_per_gpu_hour": 2.1, "hours": 500.0}),
    ("gpus: 384 / hours: 1.2k / price 3.10 / network slowdown 8% -> total + extra?",
     "training_cost", {"gpus": 384, "price_per_gpu_hour": 3.1, "hours": 1200.0,
                       "slowdown_pct": 8.0}),
    ("gpus: 2k / watts: 1.4kW each / pue: 1.15 / power: $0.08/kWh / duration: 90 days",
     "power_cost", {"gpus": 2000, "watts_per_gpu": 1400.0, "pue": 1.15, "price_per_kwh": 0.08,
                    "hours": 2160.0}),
    ("size: 8GB / gpus: 64 / link: 200gbps per gpu / latency 10us. ring all-reduce time?",
     "allreduce_time", {"buffer_gb": 8.0, "gpus": 64, "link_gbps": 200.0, "latency_us": 10.0}),
    ("size: 750 GB / link: 200 Gb/s / eff: 85% - transfer time?",
     "transfer_time", {"size_gb": 750.0, "link_gbps": 200.0, "efficiency": 0.85}),
])
def test_labelled_fields_are_read(question, tool, args):
    req = detect(question)
    assert (req.tool, req.args, req.missing) == (tool, args, [])


def test_a_count_before_its_label_is_not_a_label():
    # "64 gpus: 2.80/hr w/ 200h, ...": the count comes first and a list of quotes follows
    req = detect("got 3 offers for 64 gpus: 2.80/hr w/ 200h, 3.15/hr w/ 170h, 2.55/hr w/ 230h. "
                 "which is cheapest")
    assert req.tool == "compare_cluster_quotes" and req.args["gpus"] == 64
    assert [x["price_per_gpu_hour"] for x in req.args["quotes"]] == [2.8, 3.15, 2.55]
