"""Serving cost: the cost per million generated tokens of an inference deployment.

cost per million = (price × gpus) / (tokens_per_second × 3600 × utilization) × 1e6

Example:
    >>> round(serving_cost(2.0, 1000).cost_per_million_tokens, 2)
    0.56
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Annotated, Any

from pydantic import Field

from assistant.calculators._base import (
    MAX_GPUS,
    MAX_PRICE_PER_GPU_HOUR,
    MAX_TOKENS,
    MAX_TOKENS_PER_SECOND,
    PER_GPU,
    SECONDS_PER_HOUR,
    Calculator,
    Inputs,
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
    gpus_text,
)
from assistant.labels import loose_share
from assistant.wording import (
    CONNECT,
    GPU_OR_CARD,
    HOURS_PER_DAY,
    HOURS_PER_MONTH,
    HOURS_PER_WEEK,
    PCT,
    SCALE,
    Quantity,
    Rule,
    Source,
    Wording,
    bound_to,
    fraction_handler,
    num,
    q,
    rx,
    scaled,
    to_float,
)

_FRACTION = "a fraction above 0 and at most 1 (0.4 means 40%)"


class ServingCostInput(Inputs):
    """Inputs of serving_cost."""

    price_per_gpu_hour: Annotated[float, Unit(" dollars")] = Field(
        gt=0, le=MAX_PRICE_PER_GPU_HOUR, description="Price in US dollars per GPU-hour.")
    tokens_per_second: Annotated[float, Unit(" tokens/s")] = Field(
        gt=0, le=MAX_TOKENS_PER_SECOND,
        description="Tokens per second of the whole deployment (all its GPUs together).")
    utilization: float = Field(default=1.0, gt=0, le=1,
                               description=f"Fraction of time the deployment is busy, as "
                                           f"{_FRACTION}.")
    gpus: int = Field(default=1, gt=0, le=MAX_GPUS, description="GPUs in the deployment.")
    monthly_tokens: float | None = Field(default=None, gt=0, le=MAX_TOKENS,
                                         description="Tokens served per month, for a monthly "
                                                     "cost.")


@dataclass(frozen=True)
class ServingCost(Result):
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


def _monthly(m: float | None, per_million: float, capacity: float, u: float,
             working: list[str]) -> float | None:
    if m is None:
        return None
    monthly_cost = finite_result("monthly cost", m / 1e6 * per_million,
                                 ("monthly_tokens", "tokens_per_second"))
    working.append(f"Monthly: {format_count(m)} tokens ÷ 1,000,000 × "
                   f"${per_million:,.6g} per million = {format_money(monthly_cost)}")
    if m > capacity:
        working.append(
            f"Note: {format_count(m)} tokens a month is {m / capacity:.3g}× what this "
            f"deployment serves in a month ({format_count(capacity)} tokens at "
            f"{format_pct(u)} utilization); it needs that many times the GPUs.")
    return monthly_cost


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
    p = check(ServingCostInput, "price_per_gpu_hour", price_per_gpu_hour)
    tps = check(ServingCostInput, "tokens_per_second", tokens_per_second)
    u = check(ServingCostInput, "utilization", utilization)
    g = check(ServingCostInput, "gpus", gpus)
    m = None if monthly_tokens is None else check(ServingCostInput, "monthly_tokens",
                                                  monthly_tokens)
    cost_per_hour = p * g
    tokens_per_hour = tps * SECONDS_PER_HOUR * u
    per_million = finite_result("cost per million tokens",
                                cost_per_hour / tokens_per_hour * 1e6,
                                ("tokens_per_second", "price_per_gpu_hour", "gpus"))
    always_on = cost_per_hour * HOURS_PER_MONTH
    capacity = tokens_per_hour * HOURS_PER_MONTH
    working = [
        f"Deployment cost per hour: {gpus_text(g)} × {format_price(p)}/GPU-hour = "
        f"{format_price(cost_per_hour)}/h",
        f"Tokens per hour: {tps:,.6g} tokens/s × 3,600 s/h × {format_pct(u)} utilization = "
        f"{format_number(tokens_per_hour)} tokens/h",
        f"Cost per million tokens: {format_price(cost_per_hour)}/h ÷ "
        f"{format_number(tokens_per_hour)} tokens/h × 1,000,000 = {format_money(per_million)}"
        f" (exactly {per_million:.6g})",
    ]
    monthly_cost = _monthly(m, per_million, capacity, u, working)
    working.append(
        f"Always-on: {format_price(cost_per_hour)}/h × {HOURS_PER_MONTH:g} h/month = "
        f"{format_money(always_on)} per month (a dedicated deployment bills this whatever the "
        f"traffic)")
    formula = (f"({format_price(p)}/GPU-hour × {gpus_text(g)}) ÷ ({tps:,.6g} tokens/s × "
               f"3,600 s/h × {format_pct(u)}) × 1,000,000 = {format_money(per_million)} "
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
# Wording
# ---------------------------------------------------------------------------------------

def _throughput(m: re.Match[str], src: Source) -> list[Quantity]:
    value = scaled(to_float(m.group("n")), m.group("sc"))
    # "400 tokens/s each" after "8 GPUs" is per GPU too.
    per_gpu = bool(m.group("pergpu")) or bound_to(src, m.start(), m.end()) == "gpu"
    return q("tokens_per_second", value, m, src, per_gpu=per_gpu)


def _monthly_tokens(m: re.Match[str], src: Source) -> list[Quantity]:
    value = scaled(to_float(m.group("n")), m.group("sc"))
    unit = (m.groupdict().get("u") or m.groupdict().get("ly") or "month")
    if unit.startswith("d"):
        value *= HOURS_PER_MONTH / HOURS_PER_DAY
    elif unit.startswith("w"):
        value *= HOURS_PER_MONTH / HOURS_PER_WEEK
    return q("monthly_tokens", value, m, src)


RULES = (
    Rule(20, rx(rf"{num('n')}(?P<sc>{SCALE})?\s?(?:(?:output|generated|generation)\s)?"
                r"(?:tokens?|toks?)\s?(?:/\s?s(?:ec(?:ond)?)?\b|per\s(?:s|sec|second)\b|"
                r"(?:a|each|every)\ssecond\b)"
                rf"(?P<pergpu>\s?(?:per|/|each|a|on\s(?:one|a|each))\s?{GPU_OR_CARD}\b)?"),
         _throughput),
    Rule(21, rx(rf"{num('n')}(?P<sc>{SCALE})?\s?(?:tps|tok/s)\b"
                rf"(?P<pergpu>\s?(?:per|/|each|a)\s?{GPU_OR_CARD}\b)?"), _throughput),
    Rule(22, rx(rf"{num('n')}(?P<sc>{SCALE})?\s?(?:tokens?|toks?)\s?"
                r"(?:(?:a|per|each|every|/|in\sa)\s?(?P<u>month|mo|day|week)\b|"
                r"(?P<ly>monthly|daily|weekly)\b)"), _monthly_tokens),
    # "70% utilization", "0.65 util", "35% utilzation" (a bare share is taken as written)
    Rule(33, rx(rf"{num('n')}(?P<pc>{PCT})?\s?(?:gpu\s)?(?:util[a-z]*|busy)\b"),
         fraction_handler("utilization")),
    # "utilization 50%", and "busy ~50% of the time" (a percent only)
    Rule(35, rx(rf"\b(?:busy|utili[sz]ed){CONNECT}{num('n')}(?P<pc>{PCT})"),
         fraction_handler("utilization")),
    Rule(34, rx(rf"\b(?:util[a-z]*){CONNECT}{num('n')}"
                rf"(?P<pc>{PCT})?"),
         fraction_handler("utilization")),
    # "the monthly bill for 5 billion tokens", "monthly cost at 2b tokens"
    Rule(23, rx(rf"\b(?:monthly|a\smonth(?:ly)?|per\smonth)\s(?:bill|cost|spend|total)?\s?"
                rf"(?:(?:would\s|will\s)?(?:be|is)\s)?(?:for|of|at|with)\s{num('n')}(?P<sc>{SCALE})?\s?(?:tokens?|toks?)\b"),
         _monthly_tokens),
    # "utilization averages 55%", "utilization is pretty good, around 70%"
    loose_share(86, r"utili[sz]ation|util|busy", "utilization"),
    # "about half utilized", "fully busy": a share said in words
    Rule(36, rx(r"\b(?P<w>half|fully)\s(?:utili[sz]ed|busy|loaded)\b"),
         lambda m, src: q("utilization", 0.5 if m.group("w") == "half" else 1.0, m, src)),
    # "a tp=8 node", "tp8": tensor parallel over that many GPUs
    Rule(37, rx(r"\btp\s?=?\s?(?P<n>\d{1,3})\b"),
         lambda m, src: q("gpus", float(m.group("n")), m, src)),
)

_SERVING = rx(
    r"\b(?:per\s(?:1m|one\smillion|a\smillion|million|1,000,000|mtok|1k|thousand)\s"
    r"(?:output\s|input\s|generated\s)?tokens?|per\stokens?|serving|serve|inference\scosts?|"
    r"cost\sof\sinference|throughput|tokens?\sper\ssecond)\b")


_EACH_GPU = rx(r"\s?(?:per|/|a|an|each)\s?(?:gpu|card)\b(?![\s-]?(?:hours?|hrs?|h)\b)")


class _ServingCost(Calculator):
    def read(self, w: Wording) -> tuple[dict[str, Any], list[str]]:
        args, notes = super().read(w)
        tps = w.first({"tokens_per_second"})
        gpus = args.get("gpus", 1)
        if tps is not None and tps.per_gpu and isinstance(gpus, int) and gpus > 1:
            args["tokens_per_second"] = tps.value * gpus
            notes.append(f"Throughput given per GPU: {tps.value:g} tokens/s × {gpus} GPUs = "
                         f"{tps.value * gpus:g} tokens/s for the deployment")
        if "price_per_gpu_hour" not in args:
            # "$2.50 per card": a GPU's price with no unit of time is its hourly rental
            per_gpu = [x for x in w.found if (x.kind == "money_other" and PER_GPU.search(x.text))
                       or (x.kind == "money" and _EACH_GPU.match(w.lower, x.end))]
            if len(per_gpu) == 1:
                args["price_per_gpu_hour"] = per_gpu[0].value
                notes.append(f"{per_gpu[0].text} is read as a price per GPU-hour.")
        return args, notes


CALCULATOR = _ServingCost(
    name="serving_cost",
    function=serving_cost,
    inputs=ServingCostInput,
    result=ServingCost,
    label="serving cost",
    lesson="estimating-serving-cost",
    description=(
        "Cost per million tokens of an inference deployment.\n\n"
        "cost per million = (price × gpus) / (tokens_per_second × 3600 × utilization) × 1e6, "
        "where tokens_per_second is the whole deployment's throughput. With monthly_tokens, "
        "also the monthly cost. Returns the figures, formula and working, or {\"error\": ...}."),
    prompts={
        "tokens_per_second": Prompt("What throughput in tokens per second?",
                                    "{v:,g} tokens/s"),
        "utilization": Prompt("What utilization should I assume, e.g. 50%?",
                              "{p:g}% utilization"),
        "monthly_tokens": Prompt("How many tokens a month?", "{v:,.0f} tokens a month"),
    },
    required=("price_per_gpu_hour", "tokens_per_second"),
    rules=RULES,
    words=_SERVING,
    picked_by=frozenset({"tokens_per_second", "monthly_tokens"}),
    priority=40,
    example={"price_per_gpu_hour": 2.0, "tokens_per_second": 1000},
    order=30,
)
