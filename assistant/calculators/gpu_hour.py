"""GPU-hour cost: what renting GPUs costs, gpus × price per GPU-hour × hours.

Example:
    >>> r = gpu_hour_cost(256, 7.0, 100)
    >>> r.total_cost
    179200.0
    >>> r.formula
    '256 GPUs × $7.00/GPU-hour × 100 h = $179,200'
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Annotated, Any

from pydantic import Field

from assistant.calculators._base import (
    MAX_GPUS,
    MAX_HOURS,
    MAX_PRICE_PER_GPU_HOUR,
    PER_GPU,
    Calculator,
    CalculatorError,
    Inputs,
    Result,
    Unit,
    check,
    format_money,
    format_number,
    format_price,
    gpus_text,
)
from assistant.wording import (
    HOURLY,
    HOURS_PER_DAY,
    Quantity,
    Rule,
    Source,
    Wording,
    consume,
    num,
    q,
    rx,
    scaled,
    to_float,
)
from assistant.wording import _unit_hours as unit_hours


class GpuHourCostInput(Inputs):
    """Inputs of gpu_hour_cost."""

    gpus: int = Field(gt=0, le=MAX_GPUS, description="Number of GPUs (whole number).")
    price_per_gpu_hour: Annotated[float, Unit(" dollars")] = Field(
        gt=0, le=MAX_PRICE_PER_GPU_HOUR, description="Price in US dollars per GPU per hour.")
    hours: Annotated[float, Unit(" h")] = Field(
        gt=0, le=MAX_HOURS, description="Wall-clock hours the GPUs are rented.")


@dataclass(frozen=True)
class GpuHourCost(Result):
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
    g = check(GpuHourCostInput, "gpus", gpus)
    p = check(GpuHourCostInput, "price_per_gpu_hour", price_per_gpu_hour)
    h = check(GpuHourCostInput, "hours", hours)
    cost_per_hour = g * p
    gpu_hours = g * h
    total = gpu_hours * p
    price = f"{format_price(p)}/GPU-hour"
    if h == 1:
        # One hour is how the chat answers "what does it burn per hour?".
        summary = f"{format_money(cost_per_hour)} per hour ({gpus_text(g)} × {price})"
    else:
        summary = (f"{format_money(total)} in total ({format_number(gpu_hours)} GPU-hours, "
                   f"{format_money(cost_per_hour)} per hour)")
    return GpuHourCost(
        gpus=g, price_per_gpu_hour=p, hours=h,
        cost_per_hour=cost_per_hour, gpu_hours=gpu_hours, total_cost=total,
        formula=f"{gpus_text(g)} × {price} × {format_number(h)} h = {format_money(total)}",
        summary=summary,
        working=[
            f"Cost per hour: {gpus_text(g)} × {price} = {format_money(cost_per_hour)}/h",
            f"GPU-hours: {gpus_text(g)} × {format_number(h)} h = "
            f"{format_number(gpu_hours)} GPU-hours",
            f"Total: {format_number(gpu_hours)} GPU-hours × {price} = {format_money(total)}",
        ],
    )




def _schedule(m: re.Match[str], src: Source) -> list[Quantity]:
    # "12 hours a day for 30 days": the hours of each day times the days (or weeks, months);
    # a rule of this module, but like every calculator's rules it reads every question.
    days = to_float(m.group("d")) * unit_hours(m.group("u")) / HOURS_PER_DAY
    return q("hours", scaled(to_float(m.group("n")), days), m, src)


SCHEDULE = Rule(88, rx(rf"{num('n')}\s?(?:hours?|hrs?|h)\s?(?:a|per|each|every|/)\s?day,?\s"
                       rf"(?:for|over|across|x|×)\s{num('d')}\s?(?P<u>days?|weeks?|wks?|months?)"
                       r"\b"), _schedule)


# "$3.50 each per hour", "3.5 apiece an hour": each GPU's price per hour
EACH_PER_HOUR = Rule(9, rx(rf"\$?\s?{num('n')}\s?(?:each|apiece|a\spiece|per\s(?:gpu|card))\s?"
                            r"(?:per|an|a|/)\s?(?:hour|hr|h)\b"), consume("price"))


# "64 h100 at 2.99 for 2 weeks": a bare amount "at" before the duration is the GPU-hour price
# (below $100: "8 nodes at 400 for a week" says 400 of something else)
AT_FOR = Rule(17, rx(rf"(?:\bat|@)\s?\$?{num('n')}(?=\s(?:for|over)\s)"),
              lambda m, src: q("price", to_float(m.group("n")), m, src)
              if to_float(m.group("n")) < 100 else [])


class _GpuHourCost(Calculator):
    def read(self, w: Wording) -> tuple[dict[str, Any], list[str]]:
        args, notes = super().read(w)
        # "What does it burn per hour?": the hourly rate is the answer, not a question back;
        # one hour of running is that rate, and the answer says "per hour".
        if "hours" not in args and HOURLY.search(w.unread):
            args["hours"] = 1.0
        # "for 1000 hours if the rate is $1.65 a gpu": with the hours given apart, an amount
        # per GPU is the price per GPU-hour, and the answer says so.
        if "price_per_gpu_hour" not in args and "hours" in args:
            per_gpu = [x for x in w.found if x.kind == "money_other" and PER_GPU.search(x.text)]
            if len(per_gpu) == 1:
                args["price_per_gpu_hour"] = per_gpu[0].value
                notes = [*notes, f"{per_gpu[0].text} is read as a price per GPU-hour."]
        return args, notes

    def so_far(self, args: Mapping[str, Any]) -> str | None:
        if "price_per_gpu_hour" in args or not {"gpus", "hours"} <= set(args):
            return None
        try:
            g = check(GpuHourCostInput, "gpus", args["gpus"])
            h = check(GpuHourCostInput, "hours", args["hours"])
        except CalculatorError:
            return None
        return (f"{gpus_text(g)} for {format_number(h)} h is {format_number(g * h)} GPU-hours, "
                f"so the cost is {format_number(g * h)} × the price per GPU-hour.")


CALCULATOR = _GpuHourCost(
    name="gpu_hour_cost",
    function=gpu_hour_cost,
    inputs=GpuHourCostInput,
    result=GpuHourCost,
    label="GPU-hour cost",
    lesson="estimating-training-cost",
    description=(
        "Cost of renting GPUs: gpus × price per GPU-hour × hours.\n\n"
        "Returns cost_per_hour, gpu_hours and total_cost in US dollars, with the formula and "
        'working, or {"error": ...} naming a bad input.'),
    required=("gpus", "price_per_gpu_hour", "hours"),
    fallback=True,
    rules=(SCHEDULE, EACH_PER_HOUR, AT_FOR),
    example={"gpus": 256, "price_per_gpu_hour": 7.0, "hours": 100},
    order=10,
)
