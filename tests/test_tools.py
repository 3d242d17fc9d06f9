"""The calculators as LangChain tools: names, schemas, invocation, errors, standard suites."""

from __future__ import annotations

import json
from typing import Any

import pytest
from langchain_core.messages import ToolCall, ToolMessage
from langchain_core.tools import BaseTool
from langchain_tests.integration_tests import ToolsIntegrationTests
from langchain_tests.unit_tests import ToolsUnitTests

from assistant import calculators as calc
from assistant import tools
from assistant.tools import (
    all_tools,
    compare_cluster_quotes_tool,
    gpu_hour_cost_tool,
    make_tool,
    serving_cost_tool,
    tool_schemas,
    training_cost_tool,
)

NAMES = ["gpu_hour_cost", "training_cost", "serving_cost", "compare_cluster_quotes"]

# Each calculator declares a valid call; the standard suites below run on every one of them.
EXAMPLES: dict[str, dict[str, Any]] = {name: dict(spec.example)
                                       for name, spec in calc.REGISTRY.items()}


def test_names_are_exact():
    names = [t.name for t in all_tools()]
    assert names == list(calc.REGISTRY) and names[:4] == NAMES
    assert [s["function"]["name"] for s in tool_schemas()] == names
    assert [f().name for f in (gpu_hour_cost_tool, training_cost_tool, serving_cost_tool,
                               compare_cluster_quotes_tool)] == NAMES


def test_every_calculator_has_a_tool_factory_and_an_example():
    for name, spec in calc.REGISTRY.items():
        assert getattr(tools, f"{name}_tool")().name == name
        assert spec.example, f"{name} declares no example call"
    with pytest.raises(KeyError, match="no calculator named"):
        make_tool("rm_rf")
    with pytest.raises(AttributeError):
        tools.rm_rf_tool  # noqa: B018


def test_openai_schemas_carry_bounds_and_descriptions():
    schemas = {s["function"]["name"]: s["function"] for s in tool_schemas()}
    for schema in schemas.values():
        assert schema["description"] and not schema["description"].startswith(" ")
        assert "\n    " not in schema["description"]  # docstring indentation removed
        for prop in schema["parameters"]["properties"].values():
            assert prop.get("description"), prop
    gpu = schemas["gpu_hour_cost"]["parameters"]
    assert gpu["required"] == ["gpus", "price_per_gpu_hour", "hours"]
    assert gpu["properties"]["gpus"] == {
        "description": "Number of GPUs (whole number).", "exclusiveMinimum": 0,
        "maximum": calc.MAX_GPUS, "type": "integer"}
    assert gpu["properties"]["price_per_gpu_hour"]["maximum"] == calc.MAX_PRICE_PER_GPU_HOUR
    assert gpu["properties"]["hours"]["maximum"] == calc.MAX_HOURS
    training = schemas["training_cost"]["parameters"]["properties"]
    mfu = training["mfu"]["anyOf"][0]
    assert (mfu["exclusiveMinimum"], mfu["maximum"]) == (0, 1)
    assert "fraction" in training["mfu"]["description"]
    assert training["slowdown_pct"]["maximum"] == calc.MAX_PCT
    assert training["parameters"]["anyOf"][0]["maximum"] == calc.MAX_PARAMETERS
    assert training["tokens"]["anyOf"][0]["maximum"] == calc.MAX_TOKENS
    assert training["peak_tflops_per_gpu"]["anyOf"][0]["maximum"] == calc.MAX_PEAK_TFLOPS
    serving = schemas["serving_cost"]["parameters"]
    assert serving["required"] == ["price_per_gpu_hour", "tokens_per_second"]
    assert serving["properties"]["utilization"]["maximum"] == 1
    assert "whole deployment" in serving["properties"]["tokens_per_second"]["description"]
    quotes = schemas["compare_cluster_quotes"]["parameters"]["properties"]["quotes"]
    assert (quotes["minItems"], quotes["maxItems"]) == (2, 10)


@pytest.mark.parametrize("name", list(calc.REGISTRY))
def test_invoke_with_dict_matches_calculator(name):
    out = make_tool(name).invoke(EXAMPLES[name])
    expected = calc.CALCULATORS[name](**EXAMPLES[name]).to_dict()
    assert out == expected
    json.dumps(out, allow_nan=False)


def test_invoke_known_figures():
    assert gpu_hour_cost_tool().invoke(EXAMPLES["gpu_hour_cost"])["total_cost"] == 179_200
    t = training_cost_tool().invoke(EXAMPLES["training_cost"])
    assert round(t["extra_cost"], 2) == 53_760
    s = serving_cost_tool().invoke(EXAMPLES["serving_cost"])
    assert round(s["cost_per_million_tokens"], 2) == 0.56
    c = compare_cluster_quotes_tool().invoke(EXAMPLES["compare_cluster_quotes"])
    assert (c["cheapest"], c["difference"]) == ("B", 37_120)


def test_invoke_with_tool_call_gives_json_tool_message():
    msg = gpu_hour_cost_tool().invoke(ToolCall(name="gpu_hour_cost", id="1", type="tool_call",
                                               args=EXAMPLES["gpu_hour_cost"]))
    assert isinstance(msg, ToolMessage) and msg.status == "success"
    assert json.loads(msg.content)["formula"] == "256 GPUs × $7.00/GPU-hour × 100 h = $179,200"


@pytest.mark.parametrize(("name", "args", "input_name"), [
    ("gpu_hour_cost", {"gpus": 0, "price_per_gpu_hour": 7, "hours": 100}, "gpus"),
    ("gpu_hour_cost", {"gpus": 2.5, "price_per_gpu_hour": 7, "hours": 100}, "gpus"),
    ("gpu_hour_cost", {"gpus": 8, "price_per_gpu_hour": float("nan"), "hours": 1},
     "price_per_gpu_hour"),
    ("gpu_hour_cost", {"gpus": 8, "price_per_gpu_hour": 7, "hours": 1e9}, "hours"),
    ("gpu_hour_cost", {"gpus": 8, "price_per_gpu_hour": 7}, "hours"),
    ("training_cost", {"gpus": 8, "hours": 10, "slowdown_pct": -5}, "slowdown_pct"),
    ("training_cost", {"parameters": 7e9, "tokens": 1e12, "peak_tflops_per_gpu": 989,
                       "mfu": 40}, "mfu"),
    ("serving_cost", {"price_per_gpu_hour": 2, "tokens_per_second": 1000, "utilization": 1.5},
     "utilization"),
    ("compare_cluster_quotes", {"gpus": 8, "quotes": [
        {"name": "A", "price_per_gpu_hour": 1, "hours": 1}]}, "quotes"),
    ("compare_cluster_quotes", {"gpus": 8, "quotes": [
        {"name": "A", "price_per_gpu_hour": 1, "hours": 1},
        {"name": "B", "price_per_gpu_hour": -1, "hours": 1}]}, "quotes.1.price_per_gpu_hour"),
])
def test_schema_errors_come_back_as_error_dicts(name, args, input_name):
    out = make_tool(name).invoke(args)
    assert set(out) == {"error", "input"}
    assert out["input"] == input_name
    assert input_name in out["error"]


@pytest.mark.parametrize(("name", "args", "input_name", "needle"), [
    # These pass the schema and are caught by the calculator.
    ("training_cost", {"gpus": 8}, "hours", "missing input(s): hours"),
    ("training_cost", {"parameters": 7e9}, "tokens", "missing input(s): tokens"),
    ("compare_cluster_quotes", {"gpus": 8, "quotes": [
        {"name": "A", "price_per_gpu_hour": 1, "hours": 1},
        {"name": "a", "price_per_gpu_hour": 2, "hours": 1}]}, "quotes.1.name", "unique"),
    ("compare_cluster_quotes", {"quotes": [
        {"name": "A", "price_per_gpu_hour": 1, "hours": 1},
        {"name": "B", "price_per_gpu_hour": 2, "hours": 1}]}, "gpus", "missing input(s): gpus"),
    ("training_cost", {"parameters": 1e15, "tokens": 1e18, "peak_tflops_per_gpu": 1e-300,
                       "mfu": 1e-10}, "parameters", "too large"),
])
def test_calculator_errors_come_back_as_error_dicts(name, args, input_name, needle):
    out = make_tool(name).invoke(args)
    assert out == {"error": out["error"], "input": input_name}
    assert needle in out["error"]


def test_error_reaches_a_model_as_tool_message():
    msg = gpu_hour_cost_tool().invoke(ToolCall(
        name="gpu_hour_cost", id="7", type="tool_call",
        args={"gpus": -1, "price_per_gpu_hour": 7, "hours": 1}))
    assert msg.status == "error"
    assert json.loads(msg.content)["input"] == "gpus"


def test_extra_arguments_are_rejected_by_name():
    out = gpu_hour_cost_tool().invoke({**EXAMPLES["gpu_hour_cost"], "shell": "rm -rf /"})
    assert out["input"] == "shell"


def test_allreduce_time_tool_gives_time_algbw_and_busbw():
    schema = {s["function"]["name"]: s["function"] for s in tool_schemas()}["allreduce_time"]
    props = schema["parameters"]["properties"]
    assert schema["parameters"]["required"] == ["buffer_gb", "gpus", "link_gbps"]
    assert props["gpus"]["minimum"] == 2 and "Gb/s" in props["link_gbps"]["description"]
    out = make_tool("allreduce_time").invoke({"buffer_gb": 10, "gpus": 8, "link_gbps": 400})
    assert round(out["total_seconds"], 2) == 0.35 and round(out["busbw_gb_per_s"], 6) == 50
    assert make_tool("allreduce_time").invoke(
        {"buffer_gb": 10, "gpus": 1, "link_gbps": 400})["input"] == "gpus"


def test_power_cost_tool_gives_energy_cost_and_cost_per_gpu_hour():
    schema = {s["function"]["name"]: s["function"] for s in tool_schemas()}["power_cost"]
    props = schema["parameters"]["properties"]
    assert "required" not in schema["parameters"] or not schema["parameters"]["required"]
    assert props["pue"]["minimum"] == 1 and "kWh" in props["price_per_kwh"]["description"]
    out = make_tool("power_cost").invoke({"gpus": 256, "watts_per_gpu": 700,
                                          "price_per_kwh": 0.12, "hours": 100})
    assert round(out["total_cost"], 2) == 2150.4 and round(out["energy_kwh"], 6) == 17_920
    assert round(out["cost_per_gpu_hour"], 6) == 0.084
    assert make_tool("power_cost").invoke({"gpus": 8}) == {
        "error": "missing input(s): watts_per_gpu", "input": "watts_per_gpu"}


# --- LangChain standard suites ------------------------------------------------------------

class _Params:
    name = ""

    @property
    def tool_constructor(self) -> BaseTool:
        return make_tool(self.name)

    @property
    def tool_constructor_params(self) -> dict[str, Any]:
        return {}

    @property
    def tool_invoke_params_example(self) -> dict[str, Any]:
        return EXAMPLES[self.name]


def _suite(base: type, name: str) -> type:
    title = "".join(part.capitalize() for part in name.split("_"))
    kind = "Unit" if base is ToolsUnitTests else "Integration"
    return type(f"Test{title}{kind}", (_Params, base), {"name": name})


# One unit and one integration suite per calculator in the registry: TestGpuHourCostUnit, ...
# The integration suite's async tests run through pytest-asyncio's auto mode (pyproject).
for _name in calc.REGISTRY:
    for _base in (ToolsUnitTests, ToolsIntegrationTests):
        _cls = _suite(_base, _name)
        globals()[_cls.__name__] = _cls
