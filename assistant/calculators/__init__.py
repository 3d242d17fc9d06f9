"""Exact, validated calculators for GPU clusters, one module per calculator.

Every calculator is pure: it checks its inputs, does float arithmetic, and returns a frozen
dataclass holding the raw figures (never rounded), the formula with the inputs filled in, and
one line of working per step. Money is rounded to cents only when it is formatted.

Each module of this package whose name does not start with "_" is one calculator and ends
with `CALCULATOR`, a `Calculator` declaring everything else about it (see _base.py). They are
found with pkgutil, so adding a calculator is adding a module: `REGISTRY` maps tool names to
specs in tool order, and the LangChain tools (assistant/tools.py), the wording parser
(assistant/quantities.py) and the chat read it.

Example:
    >>> r = gpu_hour_cost(256, 7.0, 100)
    >>> r.total_cost
    179200.0
    >>> REGISTRY["gpu_hour_cost"].lesson
    'estimating-training-cost'
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Mapping
from typing import Any

from assistant.calculators._base import (
    FLOPS_PER_PARAMETER_TOKEN,
    MAX_GPUS,
    MAX_HOURS,
    MAX_PARAMETERS,
    MAX_PCT,
    MAX_PEAK_TFLOPS,
    MAX_PRICE_PER_GPU_HOUR,
    MAX_QUOTE_NAME_CHARS,
    MAX_QUOTES,
    MAX_TOKENS,
    MAX_TOKENS_PER_SECOND,
    MIN_QUOTES,
    SECONDS_PER_HOUR,
    SHARED_PROMPTS,
    Calculator,
    CalculatorError,
    MissingInput,
    Prompt,
    check,
    format_count,
    format_money,
    format_number,
    is_number_input,
)

# The first four calculators' names, importable from the package as before the split.
from assistant.calculators.gpu_hour import GpuHourCost, gpu_hour_cost
from assistant.calculators.quotes import QuoteComparison, QuoteCost, compare_cluster_quotes
from assistant.calculators.serving import ServingCost, serving_cost
from assistant.calculators.training import TrainingCost, training_cost
from assistant.wording import HOURS_PER_DAY, HOURS_PER_MONTH, HOURS_PER_WEEK, HOURS_PER_YEAR

__all__ = [
    "CALCULATORS", "FLOPS_PER_PARAMETER_TOKEN", "HOURS_PER_DAY", "HOURS_PER_MONTH",
    "HOURS_PER_WEEK", "HOURS_PER_YEAR", "MAX_GPUS", "MAX_HOURS", "MAX_PARAMETERS", "MAX_PCT",
    "MAX_PEAK_TFLOPS", "MAX_PRICE_PER_GPU_HOUR", "MAX_QUOTES", "MAX_QUOTE_NAME_CHARS",
    "MAX_TOKENS", "MAX_TOKENS_PER_SECOND", "MIN_QUOTES", "REGISTRY", "SECONDS_PER_HOUR",
    "Calculator", "CalculatorError", "GpuHourCost", "MissingInput", "Prompt", "QuoteComparison",
    "QuoteCost", "ServingCost", "TrainingCost", "compare_cluster_quotes", "describe_inputs",
    "fallback", "format_count", "format_money", "format_number", "get", "gpu_hour_cost",
    "price_units", "serving_cost", "training_cost", "validate_input",
]


def _discover() -> dict[str, Calculator]:
    specs: list[Calculator] = []
    for info in pkgutil.iter_modules(__path__):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        spec = getattr(module, "CALCULATOR", None)
        if not isinstance(spec, Calculator):
            raise TypeError(f"{module.__name__} must define CALCULATOR, a Calculator")
        specs.append(spec)
    specs.sort(key=lambda s: (s.order, s.name))
    registry: dict[str, Calculator] = {}
    for spec in specs:
        if spec.name in registry:
            raise ValueError(f"two calculators are named {spec.name!r}")
        registry[spec.name] = spec
    fallbacks = [s.name for s in specs if s.fallback]
    if len(fallbacks) != 1:
        raise ValueError(f"exactly one calculator must be the fallback (got {fallbacks})")
    return registry


#: Every calculator by tool name, in tool order.
REGISTRY: Mapping[str, Calculator] = _discover()
#: Each calculator's pure function by tool name.
CALCULATORS = {name: spec.function for name, spec in REGISTRY.items()}


def get(name: str) -> Calculator | None:
    """The calculator with this tool name, or None."""
    return REGISTRY.get(name) if isinstance(name, str) else None


def fallback() -> Calculator:
    """The calculator a money question gets when no other one is selected."""
    return next(spec for spec in REGISTRY.values() if spec.fallback)


def price_units() -> dict[str, tuple[str, float]]:
    """Prices in other units than the GPU-hour that some calculator takes, by unit."""
    units: dict[str, tuple[str, float]] = {}
    for spec in REGISTRY.values():
        units.update({k.casefold(): v for k, v in spec.price_units.items()})
    return units


def validate_input(name: str, value: Any, tool: str | None = None) -> None:
    """Raise CalculatorError if one named input is unusable; unknown names pass.

    The bounds are those of `tool`'s input model, or of the first calculator taking `name`.
    """
    specs = [REGISTRY[tool]] if tool in REGISTRY else list(REGISTRY.values())
    for spec in specs:
        if is_number_input(spec.inputs, name):
            check(spec.inputs, name, value)
            return


def describe_inputs(tool: str, args: Mapping[str, Any]) -> str:
    """Say in words which inputs of a calculation are known so far."""
    spec = get(tool)
    parts = []
    for name, value in args.items():
        fmt = (spec.prompt(name) if spec else SHARED_PROMPTS.get(name, Prompt(""))).known
        if not fmt or not isinstance(value, int | float) or isinstance(value, bool):
            continue
        try:
            parts.append(fmt.format(v=value, p=value * 100))
        except (ValueError, OverflowError):
            continue
    return ", ".join(parts)
