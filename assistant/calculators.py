"""Exact, validated cost calculators for GPU clusters: rental, training, serving, quotes.

Every function is pure: it checks its inputs, does float arithmetic, and returns a frozen
dataclass holding the raw figures (never rounded), the formula with the inputs filled in,
and one line of working per step. Money is rounded to cents only when it is formatted.

Example:
    >>> r = gpu_hour_cost(256, 7.0, 100)
    >>> r.total_cost
    179200.0
    >>> r.formula
    '256 GPUs × $7.00/GPU-hour × 100 h = $179,200'
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

# Limits beyond which an input is a typo or an attack, not a real cluster. They are shared
# with the LangChain tool schemas (assistant/tools.py) so both layers reject the same values.
MAX_GPUS = 10_000_000
MAX_PRICE_PER_GPU_HOUR = 100_000.0
MAX_HOURS = 876_000.0  # 100 years
MAX_PARAMETERS = 1e15
MAX_TOKENS = 1e18
MAX_PEAK_TFLOPS = 1e6
MAX_PCT = 1000.0
# Not in the brief's list; chosen as "absurd" for a single deployment (a billion tokens/s).
MAX_TOKENS_PER_SECOND = 1e9
MAX_QUOTES = 10
MIN_QUOTES = 2
MAX_QUOTE_NAME_CHARS = 80

HOURS_PER_DAY = 24.0
HOURS_PER_WEEK = 168.0
# A month is an average month: 365 days × 24 h / 12 = 730 h (cloud bills use the same figure).
HOURS_PER_MONTH = 730.0
HOURS_PER_YEAR = 8760.0
SECONDS_PER_HOUR = 3600.0
# 6 FLOPs per parameter per token: forward (2) plus backward (4) pass of a dense transformer.
FLOPS_PER_PARAMETER_TOKEN = 6.0


class CalculatorError(ValueError):
    """An input cannot be used; the message names the input and the value received.

    `input` is the input's name as a path ("gpus", "quotes.1.hours") for programs.
    """

    def __init__(self, message: str, input: str | None = None) -> None:  # noqa: A002
        super().__init__(message)
        self.input = input


class MissingInput(CalculatorError):  # noqa: N818 - the brief fixes this name
    """Required inputs were not given; `names` lists them in the order to ask for them."""

    def __init__(self, names: Sequence[str]) -> None:
        self.names: list[str] = list(names)
        super().__init__("missing input(s): " + ", ".join(self.names),
                         self.names[0] if self.names else None)


# ---------------------------------------------------------------------------------------
# Formatting
# ---------------------------------------------------------------------------------------

def _cents(x: float) -> Decimal:
    # Decimal(repr) rounds half up on the written value, so 0.125 -> 0.13 rather than
    # following the binary float's representation error.
    return Decimal(repr(float(x))).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)


def format_money(x: float) -> str:
    """Format dollars: cents below $1,000 or when not whole, no cents for whole thousands."""
    if not math.isfinite(x):
        return f"${x}"
    cents = _cents(x)
    sign = "-" if cents < 0 else ""
    cents = abs(cents)
    if cents >= 1000 and cents == cents.to_integral_value():
        return f"{sign}${int(cents):,}"
    return f"{sign}${cents:,.2f}"


def _format_price(x: float) -> str:
    # A rate such as $0.125/GPU-hour would lose its last digit as cents; keep up to four
    # decimals for rates only, since they are inputs the user typed.
    if math.isfinite(x) and abs(x) < 100 and _cents(x) != Decimal(repr(float(x))).normalize():
        text = f"{x:,.4f}".rstrip("0")
        return f"-${text[1:]}" if text.startswith("-") else f"${text}"
    return format_money(x)


def format_number(x: float) -> str:
    """Format hours or GPU-hours with thousands separators and at most one decimal."""
    if not math.isfinite(x):
        return str(x)
    if x != 0 and abs(x) < 1:
        # One decimal would print small durations as "0"; three significant figures don't.
        return f"{x:.3g}"
    rounded = round(x, 1)
    if rounded == int(rounded):
        return f"{int(rounded):,}"
    return f"{rounded:,.1f}"


_SCALES = ((1e12, "trillion"), (1e9, "billion"), (1e6, "million"))


def format_count(x: float) -> str:
    """Format a large count (parameters, tokens) in words, e.g. 7e9 -> "7 billion"."""
    if not math.isfinite(x):
        return str(x)
    if abs(x) >= 1e15:
        return f"{x:.3g}"
    for scale, word in _SCALES:
        if abs(x) >= scale:
            return f"{x / scale:.4g} {word}"
    return format_number(x)


def _format_sci(x: float) -> str:
    # "4.2e+22" -> "4.2e22": shorter, and reads the same in chat and JSON.
    return re.sub(r"e\+?(-?)0*(\d)", r"e\1\2", f"{x:.4g}")


def _format_pct(fraction: float) -> str:
    return f"{fraction * 100:.4g}%"


def _gpus_text(gpus: int) -> str:
    return f"{gpus:,} GPU" if gpus == 1 else f"{gpus:,} GPUs"


# ---------------------------------------------------------------------------------------
# Validation
# ---------------------------------------------------------------------------------------

def _number(name: str, value: Any, key: str | None = None) -> float:
    # bool is an int subclass; True GPUs is a bug in the caller, not one GPU.
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise CalculatorError(f"{name} must be a number (got {value!r})", key or name)
    if isinstance(value, float) and not math.isfinite(value):
        raise CalculatorError(f"{name} must be a finite number (got {value})", key or name)
    return float(value)


def _positive(name: str, value: Any, limit: float, unit: str = "",
              key: str | None = None) -> float:
    x = _number(name, value, key)
    if x <= 0:
        raise CalculatorError(f"{name} must be a positive number (got {value!r})", key or name)
    if x > limit:
        raise CalculatorError(
            f"{name} must be at most {limit:,.0f}{unit} (got {value!r}); check the amount",
            key or name)
    return x


def _whole(name: str, value: Any, limit: int, key: str | None = None) -> int:
    x = _number(name, value, key)
    if x <= 0 or not x.is_integer():
        raise CalculatorError(f"{name} must be a positive whole number (got {value!r})",
                              key or name)
    if x > limit:
        raise CalculatorError(
            f"{name} must be at most {limit:,} (got {value!r}); check the amount", key or name)
    return int(x)


def _fraction(name: str, value: Any) -> float:
    x = _number(name, value)
    if not 0 < x <= 1:
        raise CalculatorError(
            f"{name} must be a fraction above 0 and at most 1, e.g. 0.4 for 40% "
            f"(got {value!r})", name)
    return x


def _pct(name: str, value: Any) -> float:
    x = _number(name, value)
    if not 0 <= x <= MAX_PCT:
        raise CalculatorError(
            f"{name} must be a percentage from 0 to {MAX_PCT:,.0f} (got {value!r})", name)
    return x


def _finite_result(what: str, value: float, inputs: Sequence[str]) -> float:
    # Inputs within their limits can still multiply out to infinity; say which ones.
    if not math.isfinite(value):
        raise CalculatorError(
            f"{what} is too large to compute from {', '.join(inputs)}; check them", inputs[0])
    return value


class _Result:
    """Shared JSON conversion for the result dataclasses."""

    def to_dict(self) -> dict[str, Any]:
        """Return the result as plain JSON-safe types."""
        return dataclasses.asdict(self)  # type: ignore[call-overload]


# ---------------------------------------------------------------------------------------
# GPU-hour cost
# ---------------------------------------------------------------------------------------

@dataclass(frozen=True)
class GpuHourCost(_Result):
    """Cost of renting `gpus` GPUs for `hours` at a price per GPU-hour."""

    gpus: int
    price_per_gpu_hour: float
    hours: float
    cost_per_hour: float
    gpu_hours: float
    total_cost: float
    formula: str
    summary: str
    working: list[str] = field(default_factory=list)


def gpu_hour_cost(gpus: int, price_per_gpu_hour: float, hours: float) -> GpuHourCost:
    """Compute the cost of `gpus` GPUs for `hours` at `price_per_gpu_hour` dollars."""
    g = _whole("gpus", gpus, MAX_GPUS)
    p = _positive("price_per_gpu_hour", price_per_gpu_hour, MAX_PRICE_PER_GPU_HOUR, " dollars")
    h = _positive("hours", hours, MAX_HOURS, " h")
    cost_per_hour = g * p
    gpu_hours = g * h
    total = gpu_hours * p
    price = f"{_format_price(p)}/GPU-hour"
    return GpuHourCost(
        gpus=g, price_per_gpu_hour=p, hours=h,
        cost_per_hour=cost_per_hour, gpu_hours=gpu_hours, total_cost=total,
        formula=f"{_gpus_text(g)} × {price} × {format_number(h)} h = {format_money(total)}",
        summary=(f"{format_money(total)} in total ({format_number(gpu_hours)} GPU-hours, "
                 f"{format_money(cost_per_hour)} per hour)"),
        working=[
            f"Cost per hour: {_gpus_text(g)} × {price} = {format_money(cost_per_hour)}/h",
            f"GPU-hours: {_gpus_text(g)} × {format_number(h)} h = "
            f"{format_number(gpu_hours)} GPU-hours",
            f"Total: {format_number(gpu_hours)} GPU-hours × {price} = {format_money(total)}",
        ],
    )


# ---------------------------------------------------------------------------------------
# Training cost
# ---------------------------------------------------------------------------------------

@dataclass(frozen=True)
class TrainingCost(_Result):
    """Training run cost and time, before and after a slowdown and overhead.

    `*_hours` are wall-clock hours (None when the GPU count is unknown); `*_gpu_hours`
    are GPU-hours; costs are None when no price was given.
    """

    mode: str  # "hours" (gpus × hours given) or "model" (6 × parameters × tokens)
    gpus: int | None
    price_per_gpu_hour: float | None
    slowdown_pct: float
    overhead_pct: float
    multiplier: float
    total_flops: float | None
    baseline_hours: float | None
    baseline_gpu_hours: float
    baseline_cost: float | None
    hours_with_slowdown: float | None
    gpu_hours_with_slowdown: float
    cost_with_slowdown: float | None
    extra_hours: float | None
    extra_gpu_hours: float
    extra_cost: float | None
    formula: str
    summary: str
    working: list[str] = field(default_factory=list)


_MODEL_INPUTS = ("parameters", "tokens", "peak_tflops_per_gpu", "mfu")


def training_cost(
    gpus: int | None = None,
    price_per_gpu_hour: float | None = None,
    hours: float | None = None,
    parameters: float | None = None,
    tokens: float | None = None,
    peak_tflops_per_gpu: float | None = None,
    mfu: float | None = None,
    slowdown_pct: float = 0,
    overhead_pct: float = 0,
) -> TrainingCost:
    """Compute a training run's GPU-hours and cost, with a slowdown and overhead applied."""
    g = None if gpus is None else _whole("gpus", gpus, MAX_GPUS)
    p = (None if price_per_gpu_hour is None else
         _positive("price_per_gpu_hour", price_per_gpu_hour, MAX_PRICE_PER_GPU_HOUR,
                   " dollars"))
    slow = _pct("slowdown_pct", slowdown_pct)
    over = _pct("overhead_pct", overhead_pct)
    model_given = {"parameters": parameters, "tokens": tokens,
                   "peak_tflops_per_gpu": peak_tflops_per_gpu, "mfu": mfu}
    working: list[str] = []
    total_flops: float | None = None

    if hours is not None:
        # An explicit duration wins over a model-size estimate: it is what the user measured.
        h = _positive("hours", hours, MAX_HOURS, " h")
        if g is None:
            raise MissingInput(["gpus"])
        mode = "hours"
        base_hours: float | None = h
        base_gpu_hours = g * h
        working.append(f"Baseline: {_gpus_text(g)} × {format_number(h)} h = "
                       f"{format_number(base_gpu_hours)} GPU-hours")
        if any(v is not None for v in model_given.values()):
            working.append("Hours were given, so the model-size inputs are not used.")
    else:
        missing = [name for name, v in model_given.items() if v is None]
        if len(missing) == len(_MODEL_INPUTS):
            raise MissingInput((["gpus"] if g is None else []) + ["hours"])
        if missing:
            raise MissingInput(missing)
        mode = "model"
        n = _positive("parameters", parameters, MAX_PARAMETERS)
        d = _positive("tokens", tokens, MAX_TOKENS)
        peak = _positive("peak_tflops_per_gpu", peak_tflops_per_gpu, MAX_PEAK_TFLOPS,
                         " TFLOPS")
        u = _fraction("mfu", mfu)
        inputs = ("parameters", "tokens", "peak_tflops_per_gpu", "mfu")
        total_flops = _finite_result("training FLOPs", FLOPS_PER_PARAMETER_TOKEN * n * d,
                                     inputs)
        sustained = peak * 1e12 * u
        gpu_seconds = _finite_result("GPU-seconds", total_flops / sustained, inputs)
        base_gpu_hours = gpu_seconds / SECONDS_PER_HOUR
        working += [
            f"Training FLOPs: 6 × {format_count(n)} parameters × {format_count(d)} tokens = "
            f"{_format_sci(total_flops)} FLOPs",
            f"Sustained per GPU: {peak:,.4g} TFLOPS peak × {_format_pct(u)} MFU = "
            f"{_format_sci(sustained)} FLOP/s",
            f"GPU-seconds: {_format_sci(total_flops)} FLOPs ÷ {_format_sci(sustained)} FLOP/s"
            f" = {_format_sci(gpu_seconds)} GPU-seconds",
            f"GPU-hours: {_format_sci(gpu_seconds)} GPU-seconds ÷ 3,600 s/h = "
            f"{format_number(base_gpu_hours)} GPU-hours",
        ]
        if g is None:
            base_hours = None
            working.append("No GPU count given, so no wall-clock time: GPU-hours is the answer.")
        else:
            base_hours = base_gpu_hours / g
            working.append(f"Wall-clock: {format_number(base_gpu_hours)} GPU-hours ÷ "
                           f"{_gpus_text(g)} = {format_number(base_hours)} h")

    multiplier = (1 + slow / 100) * (1 + over / 100)
    working.append(
        f"Slowdown {slow:g}% and overhead {over:g}% stretch time multiplicatively: "
        f"(1 + {slow / 100:g}) × (1 + {over / 100:g}) = × {multiplier:.6g}")
    gpu_hours_slow = base_gpu_hours * multiplier
    hours_slow = None if base_hours is None else base_hours * multiplier
    if hours_slow is not None and base_hours is not None:
        working.append(f"Wall-clock with slowdown: {format_number(base_hours)} h × "
                       f"{multiplier:.6g} = {format_number(hours_slow)} h")
    working.append(f"GPU-hours with slowdown: {format_number(base_gpu_hours)} × "
                   f"{multiplier:.6g} = {format_number(gpu_hours_slow)} GPU-hours")

    base_cost = cost_slow = extra_cost = None
    if p is not None:
        price = f"{_format_price(p)}/GPU-hour"
        base_cost = base_gpu_hours * p
        cost_slow = _finite_result("cost", gpu_hours_slow * p,
                                   ("price_per_gpu_hour", "slowdown_pct", "overhead_pct"))
        extra_cost = cost_slow - base_cost
        working += [
            f"Baseline cost: {format_number(base_gpu_hours)} GPU-hours × {price} = "
            f"{format_money(base_cost)}",
            f"Cost with slowdown: {format_number(gpu_hours_slow)} GPU-hours × {price} = "
            f"{format_money(cost_slow)}",
            f"Extra cost: {format_money(cost_slow)} − {format_money(base_cost)} = "
            f"{format_money(extra_cost)}",
        ]
    elif mode == "model":
        working.append("No price per GPU-hour given, so no cost: GPU-hours is the answer.")
    else:
        working.append("No price per GPU-hour given, so no cost.")

    extra_hours = None if hours_slow is None or base_hours is None else hours_slow - base_hours
    extra_gpu_hours = gpu_hours_slow - base_gpu_hours

    if mode == "hours":
        assert g is not None and base_hours is not None
        lhs = f"{_gpus_text(g)} × {format_number(base_hours)} h"
    else:
        lhs = (f"6 × {format_count(float(parameters))} × {format_count(float(tokens))} ÷ "
               f"({float(peak_tflops_per_gpu):,.4g} TFLOPS × {_format_pct(float(mfu))}) "
               f"÷ 3,600")
    if multiplier != 1:
        lhs += f" × {multiplier:.6g}"
    if cost_slow is not None and multiplier == 1:
        formula = (f"{lhs} × {_format_price(float(p))}/GPU-hour = {format_money(cost_slow)}")
        summary = f"{format_money(cost_slow)} ({format_number(gpu_hours_slow)} GPU-hours"
        summary += "" if hours_slow is None else f", {format_number(hours_slow)} h wall-clock"
        summary += ")"
    elif cost_slow is not None:
        formula = (f"{lhs} × {_format_price(float(p))}/GPU-hour = {format_money(cost_slow)}"
                   f" (baseline {format_money(float(base_cost))}, extra "
                   f"{format_money(float(extra_cost))})")
        summary = (f"{format_money(cost_slow)} with the slowdown vs "
                   f"{format_money(float(base_cost))} without: "
                   f"{format_money(float(extra_cost))} more")
    else:
        formula = f"{lhs} = {format_number(gpu_hours_slow)} GPU-hours"
        summary = f"{format_number(gpu_hours_slow)} GPU-hours"
        if hours_slow is not None:
            summary += f" ({format_number(hours_slow)} h wall-clock)"

    return TrainingCost(
        mode=mode, gpus=g, price_per_gpu_hour=p, slowdown_pct=slow, overhead_pct=over,
        multiplier=multiplier, total_flops=total_flops,
        baseline_hours=base_hours, baseline_gpu_hours=base_gpu_hours, baseline_cost=base_cost,
        hours_with_slowdown=hours_slow, gpu_hours_with_slowdown=gpu_hours_slow,
        cost_with_slowdown=cost_slow, extra_hours=extra_hours,
        extra_gpu_hours=extra_gpu_hours, extra_cost=extra_cost,
        formula=formula, summary=summary, working=working,
    )


# ---------------------------------------------------------------------------------------
# Serving cost
# ---------------------------------------------------------------------------------------

@dataclass(frozen=True)
class ServingCost(_Result):
    """Cost per million generated tokens of an inference deployment."""

    price_per_gpu_hour: float
    tokens_per_second: float
    utilization: float
    gpus: int
    cost_per_hour: float
    tokens_per_hour: float
    cost_per_million_tokens: float
    monthly_tokens: float | None
    monthly_cost: float | None
    always_on_monthly_cost: float
    monthly_capacity_tokens: float
    formula: str
    summary: str
    working: list[str] = field(default_factory=list)


def serving_cost(
    price_per_gpu_hour: float,
    tokens_per_second: float,
    utilization: float = 1.0,
    gpus: int = 1,
    monthly_tokens: float | None = None,
) -> ServingCost:
    """Compute the cost per million tokens of a deployment of `gpus` GPUs.

    `tokens_per_second` is the throughput of the whole deployment (all `gpus` together),
    not of one GPU; `utilization` is the fraction of time it is busy (0 < u <= 1).
    """
    p = _positive("price_per_gpu_hour", price_per_gpu_hour, MAX_PRICE_PER_GPU_HOUR,
                  " dollars")
    tps = _positive("tokens_per_second", tokens_per_second, MAX_TOKENS_PER_SECOND,
                    " tokens/s")
    u = _fraction("utilization", utilization)
    g = _whole("gpus", gpus, MAX_GPUS)
    m = None if monthly_tokens is None else _positive("monthly_tokens", monthly_tokens,
                                                      MAX_TOKENS)
    cost_per_hour = p * g
    tokens_per_hour = tps * SECONDS_PER_HOUR * u
    per_million = _finite_result("cost per million tokens",
                                 cost_per_hour / tokens_per_hour * 1e6,
                                 ("tokens_per_second", "price_per_gpu_hour", "gpus"))
    always_on = cost_per_hour * HOURS_PER_MONTH
    capacity = tokens_per_hour * HOURS_PER_MONTH
    working = [
        f"Deployment cost per hour: {_gpus_text(g)} × {_format_price(p)}/GPU-hour = "
        f"{_format_price(cost_per_hour)}/h",
        f"Tokens per hour: {tps:,.6g} tokens/s × 3,600 s/h × {_format_pct(u)} utilization = "
        f"{format_number(tokens_per_hour)} tokens/h",
        f"Cost per million tokens: {_format_price(cost_per_hour)}/h ÷ "
        f"{format_number(tokens_per_hour)} tokens/h × 1,000,000 = {format_money(per_million)}"
        f" (exactly {per_million:.6g})",
    ]
    monthly_cost = None
    if m is not None:
        monthly_cost = _finite_result("monthly cost", m / 1e6 * per_million,
                                      ("monthly_tokens", "tokens_per_second"))
        working.append(f"Monthly: {format_count(m)} tokens ÷ 1,000,000 × "
                       f"${per_million:,.6g} per million = {format_money(monthly_cost)}")
        if m > capacity:
            working.append(
                f"Note: {format_count(m)} tokens a month is {m / capacity:.3g}× what this "
                f"deployment serves in a month ({format_count(capacity)} tokens at "
                f"{_format_pct(u)} utilization); it needs that many times the GPUs.")
    working.append(
        f"Always-on: {_format_price(cost_per_hour)}/h × {HOURS_PER_MONTH:g} h/month = "
        f"{format_money(always_on)} per month (a dedicated deployment bills this whatever the "
        f"traffic)")
    formula = (f"({_format_price(p)}/GPU-hour × {_gpus_text(g)}) ÷ ({tps:,.6g} tokens/s × "
               f"3,600 s/h × {_format_pct(u)}) × 1,000,000 = {format_money(per_million)} "
               f"per million tokens")
    summary = f"{format_money(per_million)} per million tokens"
    if monthly_cost is not None:
        summary += f", {format_money(monthly_cost)} a month"
    return ServingCost(
        price_per_gpu_hour=p, tokens_per_second=tps, utilization=u, gpus=g,
        cost_per_hour=cost_per_hour, tokens_per_hour=tokens_per_hour,
        cost_per_million_tokens=per_million, monthly_tokens=m, monthly_cost=monthly_cost,
        always_on_monthly_cost=always_on, monthly_capacity_tokens=capacity,
        formula=formula, summary=summary, working=working,
    )


# ---------------------------------------------------------------------------------------
# Cluster quote comparison
# ---------------------------------------------------------------------------------------

@dataclass(frozen=True)
class QuoteCost:
    """One quote's total and how much more it costs than the cheapest."""

    name: str
    gpus: int
    price_per_gpu_hour: float
    hours: float
    gpu_hours: float
    total_cost: float
    more_than_cheapest: float


@dataclass(frozen=True)
class QuoteComparison(_Result):
    """Quotes side by side; the cheapest is the first with the lowest total."""

    quotes: list[QuoteCost]
    cheapest: str
    dearest: str
    cheapest_cost: float
    dearest_cost: float
    difference: float
    formula: str
    summary: str
    working: list[str] = field(default_factory=list)


def _quote_field(quote: Any, key: str) -> Any:
    # Quotes arrive as dicts from the parser and as pydantic models from the tool layer.
    if isinstance(quote, Mapping):
        return quote.get(key)
    return getattr(quote, key, None)


def compare_cluster_quotes(gpus: int | None = None, quotes: Sequence[Any] = ()
                           ) -> QuoteComparison:
    """Compare cluster quotes (name, price_per_gpu_hour, hours, optional gpus) by total cost.

    `gpus` applies to every quote that does not give its own `gpus`.
    """
    if isinstance(quotes, str | bytes) or not isinstance(quotes, Sequence):
        raise CalculatorError(f"quotes must be a list of quotes (got {quotes!r})", "quotes")
    if not MIN_QUOTES <= len(quotes) <= MAX_QUOTES:
        raise CalculatorError(
            f"quotes must have from {MIN_QUOTES} to {MAX_QUOTES} entries (got {len(quotes)})",
            "quotes")
    shared = None if gpus is None else _whole("gpus", gpus, MAX_GPUS)
    costs: list[QuoteCost] = []
    seen: set[str] = set()
    for i, quote in enumerate(quotes):
        # Keys follow pydantic's error locations ("quotes.1.hours") so both layers agree.
        path = f"quotes.{i}"
        raw_name = _quote_field(quote, "name")
        name = raw_name.strip() if isinstance(raw_name, str) else ""
        if not name or len(name) > MAX_QUOTE_NAME_CHARS:
            raise CalculatorError(
                f"name of quote {i + 1} must be 1 to {MAX_QUOTE_NAME_CHARS} characters "
                f"(got {raw_name!r})", f"{path}.name")
        if name.casefold() in seen:
            raise CalculatorError(
                f"name of quote {i + 1} must be unique (got {name!r} twice)", f"{path}.name")
        seen.add(name.casefold())
        own = _quote_field(quote, "gpus")
        if own is None and shared is None:
            raise MissingInput(["gpus"])
        g = shared if own is None else _whole(f"gpus for quote {name!r}", own, MAX_GPUS,
                                              f"{path}.gpus")
        assert g is not None
        p = _positive(f"price_per_gpu_hour for quote {name!r}",
                      _quote_field(quote, "price_per_gpu_hour"), MAX_PRICE_PER_GPU_HOUR,
                      " dollars", f"{path}.price_per_gpu_hour")
        h = _positive(f"hours for quote {name!r}", _quote_field(quote, "hours"), MAX_HOURS,
                      " h", f"{path}.hours")
        costs.append(QuoteCost(name=name, gpus=g, price_per_gpu_hour=p, hours=h,
                               gpu_hours=g * h, total_cost=g * h * p, more_than_cheapest=0.0))
    cheapest = min(costs, key=lambda q: q.total_cost)
    dearest = max(costs, key=lambda q: q.total_cost)
    costs = [dataclasses.replace(q, more_than_cheapest=q.total_cost - cheapest.total_cost)
             for q in costs]
    diff = dearest.total_cost - cheapest.total_cost
    working = [f"{q.name}: {_gpus_text(q.gpus)} × {_format_price(q.price_per_gpu_hour)}"
               f"/GPU-hour × {format_number(q.hours)} h = {format_money(q.total_cost)}"
               for q in costs]
    if diff == 0:
        working.append(f"All quotes cost the same: {format_money(cheapest.total_cost)}")
        summary = f"All quotes cost {format_money(cheapest.total_cost)}"
    else:
        working += [f"{q.name} costs {format_money(q.more_than_cheapest)} more than "
                    f"{cheapest.name}" for q in costs if q.name != cheapest.name]
        summary = (f"{cheapest.name} is cheapest at {format_money(cheapest.total_cost)}, "
                   f"{format_money(diff)} less than {dearest.name} "
                   f"({format_money(dearest.total_cost)})")
    formula = (" vs ".join(f"{q.name} {format_money(q.total_cost)}" for q in costs)
               + f" → {cheapest.name} cheaper by {format_money(diff)}")
    return QuoteComparison(
        quotes=costs, cheapest=cheapest.name, dearest=dearest.name,
        cheapest_cost=cheapest.total_cost, dearest_cost=dearest.total_cost, difference=diff,
        formula=formula, summary=summary, working=working,
    )


_VALIDATORS: dict[str, Callable[[Any], object]] = {
    "gpus": lambda v: _whole("gpus", v, MAX_GPUS),
    "price_per_gpu_hour": lambda v: _positive("price_per_gpu_hour", v, MAX_PRICE_PER_GPU_HOUR,
                                              " dollars"),
    "hours": lambda v: _positive("hours", v, MAX_HOURS, " h"),
    "parameters": lambda v: _positive("parameters", v, MAX_PARAMETERS),
    "tokens": lambda v: _positive("tokens", v, MAX_TOKENS),
    "peak_tflops_per_gpu": lambda v: _positive("peak_tflops_per_gpu", v, MAX_PEAK_TFLOPS,
                                               " TFLOPS"),
    "mfu": lambda v: _fraction("mfu", v),
    "utilization": lambda v: _fraction("utilization", v),
    "slowdown_pct": lambda v: _pct("slowdown_pct", v),
    "overhead_pct": lambda v: _pct("overhead_pct", v),
    "tokens_per_second": lambda v: _positive("tokens_per_second", v, MAX_TOKENS_PER_SECOND,
                                             " tokens/s"),
    "monthly_tokens": lambda v: _positive("monthly_tokens", v, MAX_TOKENS),
}


def validate_input(name: str, value: Any) -> None:
    """Raise CalculatorError if one named input is unusable; unknown names pass."""
    check = _VALIDATORS.get(name)
    if check is not None:
        check(value)


CALCULATORS = {
    "gpu_hour_cost": gpu_hour_cost,
    "training_cost": training_cost,
    "serving_cost": serving_cost,
    "compare_cluster_quotes": compare_cluster_quotes,
}
