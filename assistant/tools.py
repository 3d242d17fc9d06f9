"""The four cost calculators as LangChain tools, for a chat model that calls tools.

Each tool has a pydantic v2 argument schema whose bounds match the calculator limits, and
returns the result's `to_dict()`. Bad inputs come back as `{"error": ..., "input": ...}`
(naming the input) instead of raising, so a model can read the message and try again.

Example:
    >>> tool = gpu_hour_cost_tool()
    >>> tool.invoke({"gpus": 256, "price_per_gpu_hour": 7, "hours": 100})["total_cost"]
    179200.0
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from langchain_core.tools import BaseTool, StructuredTool
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from assistant import calculators as calc

_FRACTION = "a fraction above 0 and at most 1 (0.4 means 40%)"


class _Schema(BaseModel):
    # Reject NaN/inf in the schema too, and unknown keys, so a model's typo is reported.
    model_config = ConfigDict(allow_inf_nan=False, extra="forbid")


class GpuHourCostInput(_Schema):
    """Inputs of gpu_hour_cost."""

    gpus: int = Field(gt=0, le=calc.MAX_GPUS, description="Number of GPUs (whole number).")
    price_per_gpu_hour: float = Field(gt=0, le=calc.MAX_PRICE_PER_GPU_HOUR,
                                      description="Price in US dollars per GPU per hour.")
    hours: float = Field(gt=0, le=calc.MAX_HOURS,
                         description="Wall-clock hours the GPUs are rented.")


class TrainingCostInput(_Schema):
    """Inputs of training_cost: either gpus + hours, or parameters + tokens + peak + mfu."""

    gpus: int | None = Field(default=None, gt=0, le=calc.MAX_GPUS,
                             description="Number of GPUs; needed with hours, optional with "
                                         "model size (gives wall-clock hours).")
    price_per_gpu_hour: float | None = Field(
        default=None, gt=0, le=calc.MAX_PRICE_PER_GPU_HOUR,
        description="Price in US dollars per GPU-hour; without it only hours are computed.")
    hours: float | None = Field(default=None, gt=0, le=calc.MAX_HOURS,
                                description="Baseline wall-clock hours of the run (with gpus).")
    parameters: float | None = Field(default=None, gt=0, le=calc.MAX_PARAMETERS,
                                     description="Model parameters, e.g. 7e9 for a 7B model.")
    tokens: float | None = Field(default=None, gt=0, le=calc.MAX_TOKENS,
                                 description="Training tokens, e.g. 1e12 for 1T tokens.")
    peak_tflops_per_gpu: float | None = Field(
        default=None, gt=0, le=calc.MAX_PEAK_TFLOPS,
        description="Peak dense TFLOPS of one GPU, e.g. 989 for an H100 at BF16.")
    mfu: float | None = Field(default=None, gt=0, le=1,
                              description=f"Model FLOPs utilization as {_FRACTION}.")
    slowdown_pct: float = Field(default=0, ge=0, le=calc.MAX_PCT,
                                description="Percent longer the run takes, e.g. 30 for 30%.")
    overhead_pct: float = Field(default=0, ge=0, le=calc.MAX_PCT,
                                description="Extra percent of time for overhead, applied "
                                            "multiplicatively with the slowdown.")


class ServingCostInput(_Schema):
    """Inputs of serving_cost."""

    price_per_gpu_hour: float = Field(gt=0, le=calc.MAX_PRICE_PER_GPU_HOUR,
                                      description="Price in US dollars per GPU-hour.")
    tokens_per_second: float = Field(
        gt=0, le=calc.MAX_TOKENS_PER_SECOND,
        description="Tokens per second of the whole deployment (all its GPUs together).")
    utilization: float = Field(default=1.0, gt=0, le=1,
                               description=f"Fraction of time the deployment is busy, as "
                                           f"{_FRACTION}.")
    gpus: int = Field(default=1, gt=0, le=calc.MAX_GPUS, description="GPUs in the deployment.")
    monthly_tokens: float | None = Field(default=None, gt=0, le=calc.MAX_TOKENS,
                                         description="Tokens served per month, for a monthly "
                                                     "cost.")


class QuoteInput(_Schema):
    """One cluster quote."""

    name: str = Field(min_length=1, max_length=calc.MAX_QUOTE_NAME_CHARS,
                      description="Unique name of the quote, e.g. 'A' or a provider.")
    price_per_gpu_hour: float = Field(gt=0, le=calc.MAX_PRICE_PER_GPU_HOUR,
                                      description="Price in US dollars per GPU-hour.")
    hours: float = Field(gt=0, le=calc.MAX_HOURS, description="Hours the job runs there.")
    gpus: int | None = Field(default=None, gt=0, le=calc.MAX_GPUS,
                             description="GPUs for this quote, if not the shared count.")


class CompareClusterQuotesInput(_Schema):
    """Inputs of compare_cluster_quotes."""

    gpus: int | None = Field(default=None, gt=0, le=calc.MAX_GPUS,
                             description="GPUs for every quote that gives no count of its own.")
    quotes: list[QuoteInput] = Field(min_length=calc.MIN_QUOTES, max_length=calc.MAX_QUOTES,
                                     description="From 2 to 10 quotes with unique names.")


def _error(e: calc.CalculatorError) -> dict[str, Any]:
    return {"error": str(e), "input": e.input}


def _validation_error(e: ValidationError) -> dict[str, Any]:
    # LangChain types this hook as returning str, but passes its value through as the tool
    # content unchanged; a dict keeps schema errors the same shape as calculator errors.
    parts = []
    first = ""
    for err in e.errors():
        loc = ".".join(str(p) for p in err.get("loc", ()))
        first = first or loc
        parts.append(f"{loc}: {err.get('msg', 'invalid')} (got {err.get('input')!r})")
    return {"error": "; ".join(parts) or str(e), "input": first}


def _call(fn: Callable[..., Any], **kwargs: Any) -> dict[str, Any]:
    try:
        return fn(**kwargs).to_dict()
    except calc.CalculatorError as e:
        return _error(e)


def _gpu_hour_cost(gpus: int, price_per_gpu_hour: float, hours: float) -> dict[str, Any]:
    """Cost of renting GPUs: gpus × price per GPU-hour × hours.

    Returns cost_per_hour, gpu_hours and total_cost in US dollars, with the formula and
    working, or {"error": ...} naming a bad input.
    """
    return _call(calc.gpu_hour_cost, gpus=gpus, price_per_gpu_hour=price_per_gpu_hour,
                 hours=hours)


def _training_cost(
    gpus: int | None = None,
    price_per_gpu_hour: float | None = None,
    hours: float | None = None,
    parameters: float | None = None,
    tokens: float | None = None,
    peak_tflops_per_gpu: float | None = None,
    mfu: float | None = None,
    slowdown_pct: float = 0,
    overhead_pct: float = 0,
) -> dict[str, Any]:
    """GPU-hours and cost of a training run, before and after a slowdown or overhead.

    Give either gpus and hours, or parameters, tokens, peak_tflops_per_gpu and mfu
    (GPU-hours = 6 × parameters × tokens / (peak TFLOPS × 1e12 × mfu) / 3600). slowdown_pct
    and overhead_pct stretch the time multiplicatively. Returns baseline and slowed-down
    hours, GPU-hours and cost (cost only with a price), or {"error": ...}.
    """
    return _call(calc.training_cost, gpus=gpus, price_per_gpu_hour=price_per_gpu_hour,
                 hours=hours, parameters=parameters, tokens=tokens,
                 peak_tflops_per_gpu=peak_tflops_per_gpu, mfu=mfu,
                 slowdown_pct=slowdown_pct, overhead_pct=overhead_pct)


def _serving_cost(
    price_per_gpu_hour: float,
    tokens_per_second: float,
    utilization: float = 1.0,
    gpus: int = 1,
    monthly_tokens: float | None = None,
) -> dict[str, Any]:
    """Cost per million tokens of an inference deployment.

    cost per million = (price × gpus) / (tokens_per_second × 3600 × utilization) × 1e6,
    where tokens_per_second is the whole deployment's throughput. With monthly_tokens, also
    the monthly cost. Returns the figures, formula and working, or {"error": ...}.
    """
    return _call(calc.serving_cost, price_per_gpu_hour=price_per_gpu_hour,
                 tokens_per_second=tokens_per_second, utilization=utilization, gpus=gpus,
                 monthly_tokens=monthly_tokens)


def _compare_cluster_quotes(quotes: list[QuoteInput] | list[dict[str, Any]],
                            gpus: int | None = None) -> dict[str, Any]:
    """Compare 2 to 10 cluster quotes by total cost (gpus × price per GPU-hour × hours).

    Returns each quote's total, the cheapest and dearest names, the difference between them
    and each quote's excess over the cheapest, or {"error": ...}.
    """
    plain = [q.model_dump() if isinstance(q, BaseModel) else q for q in quotes]
    return _call(calc.compare_cluster_quotes, gpus=gpus, quotes=plain)


_SPECS: dict[str, tuple[Callable[..., dict[str, Any]], type[BaseModel]]] = {
    "gpu_hour_cost": (_gpu_hour_cost, GpuHourCostInput),
    "training_cost": (_training_cost, TrainingCostInput),
    "serving_cost": (_serving_cost, ServingCostInput),
    "compare_cluster_quotes": (_compare_cluster_quotes, CompareClusterQuotesInput),
}


def make_tool(name: str) -> StructuredTool:
    """Build the LangChain tool for one calculator by its name."""
    func, schema = _SPECS[name]
    return StructuredTool.from_function(
        func=func,
        name=name,
        # The docstring is the description; cleandoc drops its indentation, which would
        # otherwise reach the model as stray spaces.
        description=inspect.cleandoc(func.__doc__ or name),
        args_schema=schema,
        handle_validation_error=_validation_error,  # type: ignore[arg-type]
    )


def gpu_hour_cost_tool() -> StructuredTool:
    """Build the gpu_hour_cost tool."""
    return make_tool("gpu_hour_cost")


def training_cost_tool() -> StructuredTool:
    """Build the training_cost tool."""
    return make_tool("training_cost")


def serving_cost_tool() -> StructuredTool:
    """Build the serving_cost tool."""
    return make_tool("serving_cost")


def compare_cluster_quotes_tool() -> StructuredTool:
    """Build the compare_cluster_quotes tool."""
    return make_tool("compare_cluster_quotes")


def all_tools() -> list[BaseTool]:
    """Build the four calculator tools."""
    return [make_tool(name) for name in _SPECS]


def tool_schemas() -> list[dict[str, Any]]:
    """Return the tools as OpenAI-style function schemas."""
    return [convert_to_openai_tool(t) for t in all_tools()]
