"""Training cost: GPU-hours and cost of a run, before and after a slowdown and overhead.

Either from gpus × hours, or from model size: 6 × parameters × tokens FLOPs at a peak TFLOPS
and an MFU. A slowdown and an overhead stretch the time multiplicatively.

Example:
    >>> r = training_cost(gpus=256, price_per_gpu_hour=7.0, hours=100, slowdown_pct=30)
    >>> round(r.extra_cost, 2)
    53760.0
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Annotated, Any

from pydantic import Field

from assistant.calculators._base import (
    FLOPS_PER_PARAMETER_TOKEN,
    MAX_GPUS,
    MAX_HOURS,
    MAX_PARAMETERS,
    MAX_PCT,
    MAX_PEAK_TFLOPS,
    MAX_PRICE_PER_GPU_HOUR,
    MAX_TOKENS,
    SECONDS_PER_HOUR,
    Calculator,
    Inputs,
    MissingInput,
    Prompt,
    Result,
    Unit,
    check,
    finite_result,
    format_count,
    format_money,
    format_number,
    format_pct,
    format_price,
    format_sci,
    gpus_text,
)
from assistant.labels import loose_share
from assistant.wording import (
    CONNECT,
    PCT,
    SCALE,
    WEAK_INTENT,
    Quantity,
    Rule,
    Source,
    Wording,
    consume,
    fraction_handler,
    num,
    q,
    rx,
    scaled,
    scaled_handler,
    to_float,
)

_FRACTION = "a fraction above 0 and at most 1 (0.4 means 40%)"


class TrainingCostInput(Inputs):
    """Inputs of training_cost: either gpus + hours, or parameters + tokens + peak + mfu."""

    gpus: int | None = Field(default=None, gt=0, le=MAX_GPUS,
                             description="Number of GPUs; needed with hours, optional with "
                                         "model size (gives wall-clock hours).")
    price_per_gpu_hour: Annotated[float | None, Unit(" dollars")] = Field(
        default=None, gt=0, le=MAX_PRICE_PER_GPU_HOUR,
        description="Price in US dollars per GPU-hour; without it only hours are computed.")
    hours: Annotated[float | None, Unit(" h")] = Field(
        default=None, gt=0, le=MAX_HOURS,
        description="Baseline wall-clock hours of the run (with gpus).")
    parameters: float | None = Field(default=None, gt=0, le=MAX_PARAMETERS,
                                     description="Model parameters, e.g. 7e9 for a 7B model.")
    tokens: float | None = Field(default=None, gt=0, le=MAX_TOKENS,
                                 description="Training tokens, e.g. 1e12 for 1T tokens.")
    peak_tflops_per_gpu: Annotated[float | None, Unit(" TFLOPS")] = Field(
        default=None, gt=0, le=MAX_PEAK_TFLOPS,
        description="Peak dense TFLOPS of one GPU, e.g. 989 for an H100 at BF16.")
    mfu: float | None = Field(default=None, gt=0, le=1,
                              description=f"Model FLOPs utilization as {_FRACTION}.")
    slowdown_pct: Annotated[float, Unit("%")] = Field(
        default=0, ge=0, le=MAX_PCT, description="Percent longer the run takes, e.g. 30 for 30%.")
    overhead_pct: Annotated[float, Unit("%")] = Field(
        default=0, ge=0, le=MAX_PCT,
        description="Extra percent of time for overhead, applied multiplicatively with the "
                    "slowdown.")


@dataclass(frozen=True)
class TrainingCost(Result):
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


@dataclass
class _Baseline:
    mode: str
    hours: float | None
    gpu_hours: float
    total_flops: float | None
    lhs: str  # the formula's left-hand side before the slowdown
    working: list[str]


def _from_hours(g: int | None, hours: Any, model_given: bool) -> _Baseline:
    # An explicit duration wins over a model-size estimate: it is what the user measured.
    h = check(TrainingCostInput, "hours", hours)
    if g is None:
        raise MissingInput(["gpus"])
    gpu_hours = g * h
    working = [f"Baseline: {gpus_text(g)} × {format_number(h)} h = "
               f"{format_number(gpu_hours)} GPU-hours"]
    if model_given:
        working.append("Hours were given, so the model-size inputs are not used.")
    return _Baseline("hours", h, gpu_hours, None, f"{gpus_text(g)} × {format_number(h)} h",
                     working)


def _from_model(g: int | None, given: Mapping[str, Any]) -> _Baseline:
    missing = [name for name, v in given.items() if v is None]
    if len(missing) == len(_MODEL_INPUTS):
        raise MissingInput((["gpus"] if g is None else []) + ["hours"])
    if missing:
        raise MissingInput(missing)
    n, d, peak, u = (check(TrainingCostInput, name, given[name]) for name in _MODEL_INPUTS)
    total_flops = finite_result("training FLOPs", FLOPS_PER_PARAMETER_TOKEN * n * d,
                                _MODEL_INPUTS)
    sustained = peak * 1e12 * u
    gpu_seconds = finite_result("GPU-seconds", total_flops / sustained, _MODEL_INPUTS)
    gpu_hours = gpu_seconds / SECONDS_PER_HOUR
    working = [
        f"Training FLOPs: 6 × {format_count(n)} parameters × {format_count(d)} tokens = "
        f"{format_sci(total_flops)} FLOPs",
        f"Sustained per GPU: {peak:,.4g} TFLOPS peak × {format_pct(u)} MFU = "
        f"{format_sci(sustained)} FLOP/s",
        f"GPU-seconds: {format_sci(total_flops)} FLOPs ÷ {format_sci(sustained)} FLOP/s"
        f" = {format_sci(gpu_seconds)} GPU-seconds",
        f"GPU-hours: {format_sci(gpu_seconds)} GPU-seconds ÷ 3,600 s/h = "
        f"{format_number(gpu_hours)} GPU-hours",
    ]
    hours = None if g is None else gpu_hours / g
    if g is None:
        working.append("No GPU count given, so no wall-clock time: GPU-hours is the answer.")
    else:
        working.append(f"Wall-clock: {format_number(gpu_hours)} GPU-hours ÷ "
                       f"{gpus_text(g)} = {format_number(hours)} h")
    lhs = (f"6 × {format_count(n)} × {format_count(d)} ÷ ({peak:,.4g} TFLOPS × "
           f"{format_pct(u)}) ÷ 3,600")
    return _Baseline("model", hours, gpu_hours, total_flops, lhs, working)


def _costs(base: _Baseline, p: float | None, gpu_hours_slow: float
           ) -> tuple[float | None, float | None, float | None]:
    if p is None:
        base.working.append("No price per GPU-hour given, so no cost: GPU-hours is the answer."
                            if base.mode == "model" else "No price per GPU-hour given, so no cost.")
        return None, None, None
    price = f"{format_price(p)}/GPU-hour"
    base_cost = base.gpu_hours * p
    cost_slow = finite_result("cost", gpu_hours_slow * p,
                              ("price_per_gpu_hour", "slowdown_pct", "overhead_pct"))
    extra_cost = cost_slow - base_cost
    if gpu_hours_slow == base.gpu_hours:  # no slowdown: one cost, not three equal ones
        base.working.append(f"Cost: {format_number(base.gpu_hours)} GPU-hours × {price} = "
                            f"{format_money(base_cost)}")
        return base_cost, cost_slow, extra_cost
    base.working.extend([
        f"Baseline cost: {format_number(base.gpu_hours)} GPU-hours × {price} = "
        f"{format_money(base_cost)}",
        f"Cost with slowdown: {format_number(gpu_hours_slow)} GPU-hours × {price} = "
        f"{format_money(cost_slow)}",
        f"Extra cost: {format_money(cost_slow)} − {format_money(base_cost)} = "
        f"{format_money(extra_cost)}",
    ])
    return base_cost, cost_slow, extra_cost


def _wall_clock(hours: float) -> str:
    """ "230.4 h wall-clock, 9.6 days": days too, once the run takes two days or more."""
    days = f", {format_number(round(hours / 24, 2))} days" if hours >= 48 else ""
    return f"{format_number(hours)} h wall-clock{days}"


def _headline(base: _Baseline, p: float | None, multiplier: float, gpu_hours_slow: float,
              hours_slow: float | None, costs: tuple[float | None, ...]) -> tuple[str, str]:
    base_cost, cost_slow, extra_cost = costs
    lhs = base.lhs + (f" × {multiplier:.6g}" if multiplier != 1 else "")
    wall = "" if hours_slow is None else f", {_wall_clock(hours_slow)}"
    if cost_slow is None or p is None:
        formula = f"{lhs} = {format_number(gpu_hours_slow)} GPU-hours"
        summary = f"{format_number(gpu_hours_slow)} GPU-hours"
        if hours_slow is not None:
            summary += f" ({_wall_clock(hours_slow)})"
        return formula, summary
    formula = f"{lhs} × {format_price(p)}/GPU-hour = {format_money(cost_slow)}"
    if multiplier == 1:
        return formula, (f"{format_money(cost_slow)} ({format_number(gpu_hours_slow)} "
                         f"GPU-hours{wall})")
    assert base_cost is not None and extra_cost is not None
    formula += f" (baseline {format_money(base_cost)}, extra {format_money(extra_cost)})"
    return formula, (f"{format_money(cost_slow)} with the slowdown vs "
                     f"{format_money(base_cost)} without: {format_money(extra_cost)} more")


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
    g = None if gpus is None else check(TrainingCostInput, "gpus", gpus)
    p = (None if price_per_gpu_hour is None
         else check(TrainingCostInput, "price_per_gpu_hour", price_per_gpu_hour))
    slow = check(TrainingCostInput, "slowdown_pct", slowdown_pct)
    over = check(TrainingCostInput, "overhead_pct", overhead_pct)
    given = {"parameters": parameters, "tokens": tokens,
             "peak_tflops_per_gpu": peak_tflops_per_gpu, "mfu": mfu}
    base = (_from_hours(g, hours, any(v is not None for v in given.values()))
            if hours is not None else _from_model(g, given))
    multiplier = (1 + slow / 100) * (1 + over / 100)
    gpu_hours_slow = base.gpu_hours * multiplier
    hours_slow = None if base.hours is None else base.hours * multiplier
    if multiplier != 1:
        base.working.append(
            f"Slowdown {slow:g}% and overhead {over:g}% stretch time multiplicatively: "
            f"(1 + {slow / 100:g}) × (1 + {over / 100:g}) = × {multiplier:.6g}")
        if hours_slow is not None and base.hours is not None:
            base.working.append(f"Wall-clock with slowdown: {format_number(base.hours)} h × "
                                f"{multiplier:.6g} = {format_number(hours_slow)} h")
        base.working.append(f"GPU-hours with slowdown: {format_number(base.gpu_hours)} × "
                            f"{multiplier:.6g} = {format_number(gpu_hours_slow)} GPU-hours")
    costs = _costs(base, p, gpu_hours_slow)
    formula, summary = _headline(base, p, multiplier, gpu_hours_slow, hours_slow, costs)
    base_cost, cost_slow, extra_cost = costs
    return TrainingCost(
        mode=base.mode, gpus=g, price_per_gpu_hour=p, slowdown_pct=slow, overhead_pct=over,
        multiplier=multiplier, total_flops=base.total_flops,
        baseline_hours=base.hours, baseline_gpu_hours=base.gpu_hours, baseline_cost=base_cost,
        hours_with_slowdown=hours_slow, gpu_hours_with_slowdown=gpu_hours_slow,
        cost_with_slowdown=cost_slow,
        extra_hours=None if hours_slow is None or base.hours is None else hours_slow - base.hours,
        extra_gpu_hours=gpu_hours_slow - base.gpu_hours, extra_cost=extra_cost,
        formula=formula, summary=summary, working=base.working,
    )


# ---------------------------------------------------------------------------------------
# Wording
# ---------------------------------------------------------------------------------------

def _peak(m: re.Match[str], src: Source) -> list[Quantity]:
    value = to_float(m.group("n"))
    if m.group("u").startswith("p"):
        value = scaled(value, 1000.0)
    return q("peak_tflops_per_gpu", value, m, src)


def _times_slowdown(m: re.Match[str], src: Source) -> list[Quantity]:
    factor = to_float(m.group("n"))
    value = float((Decimal(repr(factor)) - 1) * 100) if math.isfinite(factor) else factor
    return q("slowdown_pct", value, m, src)


_SLOW_WORD = rx(r"\b(?:slow-?do?wn|slower|longer|overhead)\b")
#: What selects this calculator: a slowdown, or a training run's cost asked outright ("a
#: training run on 256 gpus for 9 days at $2.99/gpu-hr": no slowdown, the same figures).
_TRAINING_WORDS = rx(r"\b(?:slow-?do?wn|slower|longer|overhead|training\s(?:run|job)s?)\b")
_MODEL_KINDS = frozenset(_MODEL_INPUTS)

def _fraction_slowdown(m: re.Match[str], src: Source) -> list[Quantity] | None:
    share = to_float(m.group("n"))
    return q("slowdown_pct", float(Decimal(repr(share)) * 100), m, src) if 0 < share < 1 else None


def _no_slowdown(m: re.Match[str], src: Source) -> list[Quantity]:
    return q("slowdown_pct", 0.0, m, src)


RULES = (
    # "assume no slowdown", "ignoring any overhead": none
    Rule(28, rx(r"\b(?:no|without(?:\sany)?|zero|ignor(?:e|ing)(?:\sany|\sthe)?)\s"
                r"(?:slow-?do?wns?|overheads?)\b"), _no_slowdown),
    # "add 10% on top for restarts", "plus 15% extra": a margin on the GPU-hours
    Rule(29, rx(rf"\b(?:add(?:ing)?|plus|with)\s(?:an?\s)?(?:(?:extra|another|further)\s)?"
                rf"{num('n')}{PCT}\s(?:on\stop|extra|more|buffer|margin|contingency)\b"),
         consume("slowdown_pct")),
    # "pad it 20% for restarts", "padding of 15%": a margin on the GPU-hours
    Rule(29, rx(rf"\bpad(?:ding|ded)?\s(?:(?:it|that|this|the\s(?:budget|estimate|run))\s)?"
                rf"(?:by\s|of\s)?{num('n')}{PCT}"), consume("slowdown_pct")),
    # "1.20/hr per card, 64 of them": the cards counted
    Rule(55, rx(rf"{num('n')}\sof\s(?:them|those|these)\b"),
         lambda m, src: q("gpus", to_float(m.group("n")), m, src)),
    Rule(30, rx(rf"{num('n')}\s?(?:(?:dense|sparse|peak|bf16|fp16|fp8|fp32|tf32)\s){{0,3}}"
                r"(?P<u>tflop/s|tflops?|teraflop/s|teraflops?|pflop/s|pflops?|petaflop/s|"
                r"petaflops?)(?=[^a-z0-9]|$)"), _peak),
    Rule(31, rx(rf"{num('n')}(?P<pc>{PCT})\s?(?:mfu|model\sflops?\sutili[sz]ation)\b"),
         fraction_handler("mfu")),
    Rule(32, rx(rf"\b(?:mfu|model\sflops?\sutili[sz]ation){CONNECT}{num('n')}(?P<pc>{PCT})?"),
         fraction_handler("mfu")),
    # "our mfu on similar runs was about 45%": after every tighter rule has read
    loose_share(86, r"mfu|model\sflops?\sutili[sz]ation", "mfu"),
    Rule(35, rx(rf"{num('n')}{PCT}\s?(?:(?:network|communication|comms?|interconnect|"
                r"straggler)\s)?(?:longer|slower|slow-?do?wns?|increase\sin\s(?:run\s?)?time|"
                r"(?:more|extra|additional)\s(?:run[\s-]?time|(?:(?:wall[\s-]?clock|training|"
                r"run)[\s-]?)?(?:time|hours)))\b"), consume("slowdown_pct")),
    # "add 10% for network slowdown", "plus 15% for comms stalls"
    Rule(36, rx(rf"\b(?:add|adding|plus)\s(?:(?:another|an\sextra|about|around|~)\s)?"
                rf"{num('n')}{PCT}\s?for\s(?:the\s|a\s)?(?:(?:network|comms?|communication|"
                r"interconnect)\s)?(?:slow-?do?wns?|stalls?|slowness)\b"), consume("slowdown_pct")),
    # "comms stalls add 20% to the runtime", "adds 15% to the job"
    Rule(36, rx(r"\b(?:adds?|adding|added|tacks?\son)\s(?:(?:another|an\sextra|a\sfurther|"
                rf"about|around|roughly|~)\s)?{num('n')}{PCT}\s?(?:(?:more|extra)\s)?"
                r"(?:onto|on\sto|to|on)\s(?:(?:the|its|our|my|your|each|every)\s)?"
                r"(?:(?:total|overall|training|job|wall[\s-]?clock)\s)?(?:run[\s-]?times?|times?|"
                r"hours|jobs?|runs?|steps?|iterations?|duration|training|wall[\s-]?clock|schedule)\b"),
         consume("slowdown_pct")),
    # "stretches the runtime by 20%", "the run time goes up by 20%", "stretches it 30%"
    Rule(37, rx(r"\b(?:(?:increases?|increasing|extends?|extending|stretch(?:es)?|stretching|"
                r"inflates?|lengthens?|pushes|push)\s(?:(?:the|its|our|my|your)\s)?"
                r"(?:(?:total|overall|training|job)\s)?(?:run[\s-]?times?|time|hours|job|run|"
                r"duration|wall[\s-]?clock|it|that|this)(?:\sout)?|(?:run[\s-]?times?|time|hours|duration|"
                r"wall[\s-]?clock)\s(?:goes\sup|go\sup|increases?|grows?|rises?|is\sup|jumps?|"
                rf"would\sincrease|will\sincrease))\s(?:by\s)?(?:about\s|around\s|roughly\s|~\s?)?"
                rf"{num('n')}{PCT}"),
         consume("slowdown_pct")),
    Rule(38, rx(rf"\b(?:slow-?do?wn|slower|longer){CONNECT}{num('n')}{PCT}"),
         consume("slowdown_pct")),
    # "slows every step by about 15%", "slows the job down by 10%"
    Rule(38, rx(r"\bslows?\s(?:(?:it|things|everything|us)\s|(?:every|each|the|our|my|its)\s)?"
                r"(?:(?:training\s)?(?:step|iteration|job|run|training)s?\s)?(?:down\s)?(?:by\s)?"
                rf"(?:about\s|around\s|roughly\s|"
                rf"~\s?)?{num('n')}{PCT}"), consume("slowdown_pct")),
    Rule(39, rx(rf"{num('n')}\s?(?:x|×|times)\s?(?:as\slong|longer|slower|the\stime)\b"),
         _times_slowdown),
    # "ends up 0.2 slower": a share written as a fraction
    Rule(39, rx(rf"{num('n')}\s(?:slower|longer)\b"), _fraction_slowdown),
    Rule(40, rx(rf"{num('n')}{PCT}\s?(?:[a-z-]+\s)?overheads?\b"), consume("overhead_pct")),
    Rule(41, rx(rf"\boverheads?{CONNECT}{num('n')}{PCT}"), consume("overhead_pct")),
    Rule(60, rx(rf"{num('n')}(?P<sc>{SCALE})?[\s-]?(?:param(?:eter)?s?|weights)\b"),
         scaled_handler("parameters")),
    Rule(61, rx(rf"{num('n')}(?P<sc>\s?(?:billion|million|trillion|bn|b|m|t))\b[\s-]?"
                r"(?:(?:dense|moe|[a-z0-9.-]+\s))?(?:models?|llms?|networks?|transformers?)\b"),
         scaled_handler("parameters")),
    Rule(62, rx(rf"{num('n')}(?P<sc>{SCALE})?\s?(?:training\s|train\s|of\s)?(?:tokens?|toks?)\b"),
         scaled_handler("tokens")),
    # Bare sizes: "7B" is a model size, "15T" a token count (the usual way each is written).
    Rule(63, rx(rf"{num('n')}(?P<sc>b|bn)\b"), scaled_handler("parameters")),
    Rule(64, rx(rf"{num('n')}(?P<sc>t|tn)\b"), scaled_handler("tokens")),
)


# The one GPU whose peak the corpus states (the MFU page): "on H100s at 40% MFU" needs no
# TFLOPS figure; any other GPU's peak is asked for, not guessed.
_H100 = rx(r"\bh[12]00s?\b")
H100_PEAK_TFLOPS = 989.0


class _TrainingCost(Calculator):
    def read(self, w: Wording) -> tuple[dict[str, Any], list[str]]:
        args, notes = super().read(w)
        if ("peak_tflops_per_gpu" not in args and _H100.search(w.lower)
                and any(k in args for k in ("parameters", "tokens", "mfu"))):
            args["peak_tflops_per_gpu"] = H100_PEAK_TFLOPS
            notes = [*notes, "An H100 (or H200) SXM peaks at about 989 TFLOPS dense BF16."]
        return args, notes

    def intends(self, w: Wording) -> bool:
        # "How long to train 70B on 15T tokens at ...": a figure asked for from model size.
        return bool(WEAK_INTENT.search(w.lower)) and bool(_MODEL_KINDS & w.kinds())

    def missing(self, args: Mapping[str, Any], w: Wording) -> list[str]:
        if "hours" in args or not any(k in args for k in _MODEL_INPUTS):
            # A slowdown question is about money, so ask for the price; from model size,
            # GPU-hours alone answer the question, so price and GPUs stay optional.
            required = ["gpus", "price_per_gpu_hour", "hours"]
        else:
            required = list(_MODEL_INPUTS)
        slow = _SLOW_WORD.search(w.lower)
        if slow and "slowdown_pct" not in args and "overhead_pct" not in args:
            required.append("overhead_pct" if slow.group(0) == "overhead" else "slowdown_pct")
        return [name for name in required if name not in args]


CALCULATOR = _TrainingCost(
    name="training_cost",
    function=training_cost,
    inputs=TrainingCostInput,
    result=TrainingCost,
    label="training cost",
    lesson="estimating-training-cost",
    description=(
        "GPU-hours and cost of a training run, before and after a slowdown or overhead.\n\n"
        "Give either gpus and hours, or parameters, tokens, peak_tflops_per_gpu and mfu "
        "(GPU-hours = 6 × parameters × tokens / (peak TFLOPS × 1e12 × mfu) / 3600). "
        "slowdown_pct and overhead_pct stretch the time multiplicatively. Returns baseline and "
        "slowed-down hours, GPU-hours and cost (cost only with a price), or {\"error\": ...}."),
    prompts={
        "parameters": Prompt("How many parameters does the model have (e.g. 7B)?",
                             "{v:,.0f} parameters"),
        "tokens": Prompt("How many training tokens (e.g. 1T tokens)?", "{v:,.0f} tokens"),
        "peak_tflops_per_gpu": Prompt("What peak TFLOPS per GPU should I use "
                                      "(e.g. 989 TFLOPS for an H100 at BF16)?",
                                      "{v:,g} TFLOPS per GPU"),
        "mfu": Prompt("What MFU (model FLOPs utilization) should I assume, e.g. 40%?",
                      "MFU {p:g}%"),
        "slowdown_pct": Prompt("How much longer does the job run, e.g. 30% longer?",
                               "a {v:g}% slowdown"),
        "overhead_pct": Prompt("How much overhead should I add, e.g. 5%?", "{v:g}% overhead"),
    },
    rules=RULES,
    words=_TRAINING_WORDS,
    picked_by=frozenset({"slowdown_pct", "overhead_pct", *_MODEL_INPUTS}),
    priority=20,
    example={"gpus": 256, "price_per_gpu_hour": 7.0, "hours": 100, "slowdown_pct": 30},
    order=20,
)
