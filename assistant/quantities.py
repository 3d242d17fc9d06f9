"""Turn a question in plain words into a typed calculator request, and run it.

Which calculators exist, what selects each, the inputs it takes and the question to ask for
each missing one all come from the registry (assistant/calculators); the shared amounts are
read by assistant/wording.py and each calculator's own amounts by its rules. Numbers are read
with regular expressions and converted with float(); nothing the user types is evaluated.

    detect(question, previous) -> CalcRequest | None   # None: not a calculation
    run(request) -> CalcOutcome                         # result, error or missing inputs

A price in a unit no calculator takes ("$0.12 per kWh" with no power calculator, "$20 per
node-hour" without the GPUs per node) is refused by name, never read as a GPU-hour price.

Example:
    >>> req = detect("What do 256 H100s cost for 100 hours at $7 per GPU-hour?")
    >>> req.tool, req.args
    ('gpu_hour_cost', {'gpus': 256, 'price_per_gpu_hour': 7.0, 'hours': 100.0})
    >>> run(req).result.total_cost
    179200.0
"""

from __future__ import annotations

import dataclasses
import math
import re
from dataclasses import dataclass, field
from typing import Any

from . import calculators as calc
from .calculators import CalculatorError, MissingInput
from .calculators._base import format_price, number_kind
from .labels import RULES as LABEL_RULES
from .wording import (
    BARE_ANSWER,
    CORE_RULES,
    FOLLOWUP,
    MAX_CHARS,
    MONEY_INTENT,
    MONEY_KINDS,
    NETWORK_GEAR,
    OTHER_TOPIC,
    Quantity,
    Source,
    Wording,
    count,
    percent,
    scaled,
    to_float,
)
from .wording import normalize as _normalize
from .wording import scan as scan_with

__all__ = ["MAX_CHARS", "CalcOutcome", "CalcRequest", "Quantity", "amount", "detect", "run",
           "scan"]

_RULES = tuple(sorted((*CORE_RULES, *LABEL_RULES,
                       *(r for s in calc.REGISTRY.values() for r in s.rules)),
                      key=lambda r: r.order))


@dataclass(frozen=True)
class CalcRequest:
    """A calculation the user asked for: which calculator, its inputs, what is missing.

    `error` is set when the question holds an amount that cannot be used (a price per kWh
    that no calculator takes); the chat then says so instead of calculating.
    """

    tool: str
    args: dict[str, Any] = field(default_factory=dict)
    missing: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    error: str | None = None

    def question_for_missing(self) -> str | None:
        """Return a question asking for the first missing input, or None if none is."""
        if not self.missing:
            return None
        spec = calc.get(self.tool) or calc.fallback()
        return spec.prompt(self.missing[0]).question


@dataclass(frozen=True)
class CalcOutcome:
    """What running a request gave: a result, an error naming the input, or missing inputs."""

    tool: str
    args: dict[str, Any]
    result: Any | None = None
    error: str | None = None
    missing: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def question(self) -> str | None:
        """The question to ask for the first missing input, if any."""
        return CalcRequest(self.tool, self.args, self.missing).question_for_missing()

    def to_dict(self) -> dict[str, Any]:
        """Return the outcome as JSON-safe types (the shape of tool_calls[].result)."""
        return {
            "tool": self.tool,
            "args": json_safe(self.args),
            "result": None if self.result is None else self.result.to_dict(),
            "error": self.error,
            "missing": list(self.missing),
            "question": self.question,
            "notes": list(self.notes),
        }


def json_safe(value: Any) -> Any:
    """Return a value strict JSON can hold (infinity and NaN said as text)."""
    # Parsed args can hold inf ("1e309 GPUs"); strict JSON has no infinity, so say it in text.
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, dict):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_safe(v) for v in value]
    return value


def run(request: CalcRequest) -> CalcOutcome:
    """Run the calculator a request names; report missing inputs or a named error."""
    base = {"tool": request.tool, "args": request.args, "notes": list(request.notes)}
    if request.error:
        return CalcOutcome(**base, error=request.error, missing=list(request.missing))
    if request.missing:
        # Say "gpus must be positive (got 0)" now rather than first asking for the price.
        for name, value in request.args.items():
            try:
                calc.validate_input(name, value, request.tool)
            except CalculatorError as e:
                return CalcOutcome(**base, error=str(e), missing=list(request.missing))
        return CalcOutcome(**base, missing=list(request.missing))
    spec = calc.get(request.tool)
    if spec is None:
        return CalcOutcome(**base, error=f"tool must be one of {', '.join(calc.REGISTRY)} "
                                         f"(got {request.tool!r})")
    unknown = sorted(set(request.args) - set(spec.input_names))
    if unknown:
        return CalcOutcome(**base, error=f"{request.tool} does not take {', '.join(unknown)}")
    try:
        result = spec.function(**request.args)
    except MissingInput as e:
        return CalcOutcome(**base, missing=e.names)
    except CalculatorError as e:
        return CalcOutcome(**base, error=str(e))
    except TypeError as e:
        # Only a hand-built request can get here (detect() builds args from the input model).
        return CalcOutcome(**base, error=f"{request.tool} inputs are not usable: {e}")
    return CalcOutcome(**base, result=result)


# ---------------------------------------------------------------------------------------
# Reading a question
# ---------------------------------------------------------------------------------------

def _gpus_per_node(found: list[Quantity]) -> float | None:
    for x in found:
        if x.kind == "gpus_per_node":
            return x.value
    return next((x.per_node for x in found if x.per_node), None)


def _resolve_rate(x: Quantity, w: Wording, per_node: float | None) -> Quantity:
    """A price in another unit: claimed by a calculator, converted, or refused by name."""
    written = w.original[x.start:x.end]
    claim = calc.price_units().get(x.unit.casefold())
    if claim is not None:
        kind, factor = claim
        return dataclasses.replace(x, kind=kind, value=scaled(x.value, factor))
    if x.unit == "node-hour" and per_node and math.isfinite(x.value):
        value = x.value / per_node
        w.notes.append(f"{written} ÷ {count(per_node)} GPUs per node = "
                       f"{format_price(value)} per GPU-hour")
        return dataclasses.replace(x, kind="price", value=value)
    if x.unit == "node-hour":
        w.problems.append(
            f"{written} is a price per node-hour, and without the number of GPUs per node I "
            f"cannot turn it into a price per GPU-hour; ask again with it (for example "
            f"'nodes of 8 GPUs at {written}') or with the price per GPU-hour")
    else:
        w.problems.append(f"{written} is a price per {x.unit}, not per GPU-hour, and none of "
                          f"my calculators takes a price per {x.unit}")
    return x


def read(question: str) -> Wording:
    """Read a question into amounts, resolving prices quoted in other units than GPU-hours."""
    original, lower = _normalize(question)
    found, unread = scan_with(Source(lower, original), _RULES)
    w = Wording(original, lower, unread, found)
    per_node = _gpus_per_node(found)
    w.found = [_resolve_rate(x, w, per_node) if x.kind == "rate" else x for x in found]
    w.found = _restated(w)
    return w


def _restated(w: Wording) -> list[Quantity]:
    """'node is $56/hr for 8 gpus, so $7 per gpu-hour': a price for a group of GPUs restated
    per GPU is one price (per GPU-hour), not two to compare."""
    prices = [x for x in w.found if x.kind == "price"]
    gpus = [x.value for x in w.found if x.kind == "gpus"]
    if len(prices) != 2 or len(gpus) != 1:
        return w.found
    group, one = sorted(prices, key=lambda x: -x.value)
    if not gpus[0] > 1 or abs(group.value - one.value * gpus[0]) >= 0.005:
        return w.found
    w.notes.append(f"{group.text} for {count(gpus[0])} GPUs is {one.text}.")
    return [x for x in w.found if x is not group]


def scan(text: str) -> list[Quantity]:
    """Find the amounts in a text (prices, GPUs, durations, sizes, rates), in order."""
    return read(text).found


# ---------------------------------------------------------------------------------------
# Choosing a calculator
# ---------------------------------------------------------------------------------------

def _money_kinds() -> set[str]:
    return set(MONEY_KINDS) | {kind for kind, _ in calc.price_units().values()}


def _intent(w: Wording) -> bool:
    """Whether the question asks for a calculation: money, or a calculator's own wording."""
    return (bool(MONEY_INTENT.search(w.lower)) or bool(_money_kinds() & w.kinds())
            or any(spec.intends(w) for spec in calc.REGISTRY.values()))


def _pick(w: Wording) -> calc.Calculator | None:
    # The highest-priority calculator the question selects; one that reads none of its
    # amounts yields to one that reads two kinds of them ("for disaggregated serving we ship
    # a 500 MB kv cache over a 50 Gbps link ...": "serving" selects the serving cost, the
    # size and the link a transfer; "kv cache per token for an 8b model" stays unread).
    specs = sorted(calc.REGISTRY.values(), key=lambda s: -s.priority)
    chosen = [spec for spec in specs if spec.selects(w)]
    if chosen and not any(chosen[0].reads(x.kind) for x in w.found):
        reading = [spec for spec in chosen
                   if len({x.kind for x in w.found if spec.reads(x.kind)}) >= 2]
        return (reading or chosen)[0]
    return chosen[0] if chosen else None


def _is_input(kind: str) -> bool:
    return any(spec.input_of(kind) for spec in calc.REGISTRY.values())


def _request(spec: calc.Calculator, w: Wording, previous: CalcRequest | None = None
             ) -> CalcRequest:
    args, notes = spec.read(w)
    notes = w.notes + notes
    if previous is not None:
        args = spec.carry(previous.args, args, w)
        notes = list(dict.fromkeys(previous.notes + notes))
    error = "; ".join([*w.problems, *spec.problems(w)]) or None
    return CalcRequest(spec.name, args, spec.missing(args, w), notes, error)


def _prices_something_else(w: Wording) -> bool:
    """Whether the question asks the price of something other than renting GPUs.

    "How much is InfiniBand for 16 GPUs?" names GPUs and money, but no price per GPU-hour
    and no duration: it asks what the network costs, which the lessons answer.
    """
    return (not w.kinds() & {"price", "at_price", "hours", "gpu_hours"}
            and bool(OTHER_TOPIC.search(w.lower) or NETWORK_GEAR.search(w.lower)))


_RELATIVE = re.compile(r"\b(?P<f>double|twice|triple|halve|half)\s(?:the\s|our\s|my\s)?"
                       r"(?P<what>gpus?|gpu\scount|hours?|time|duration|price|rate)\b")
_RELATIVE_FACTORS = {"double": 2, "twice": 2, "triple": 3, "halve": 0.5, "half": 0.5}
_RELATIVE_INPUTS = {"gpu": ("gpus", "gpus"), "hour": ("hours", "hours"),
                    "time": ("hours", "hours"), "duration": ("hours", "hours"),
                    "price": ("price_per_gpu_hour", "at_price"),
                    "rate": ("price_per_gpu_hour", "at_price")}


def _as_follow_up(w: Wording, before: calc.Calculator, previous_args: dict[str, Any]
                  ) -> Wording:
    """Read a bare amount of money in a follow-up as the previous calculator's price.

    "What if power was 12 cents?" after an electricity cost is a price per kWh; "what
    about $5?" after a GPU-rental cost a price per GPU-hour; "and at 60%?" after a serving
    cost its utilization.
    """
    short = len(re.findall(r"[a-z]+", w.unread)) <= 6
    if not (FOLLOWUP.search(w.lower) or short):
        return w
    kind = before.money_kind
    bare = {"money"} if kind == "price" else {"money", "at_price"} if kind else set()
    pct = before.percent_input(previous_args)
    found = []
    for x in w.found:
        if x.kind in bare:
            x = dataclasses.replace(x, kind="at_price" if kind == "price" else kind)
        elif x.kind == "percent" and pct is not None:
            # "what about 60%?": a fraction input takes 0.6, a percentage input 60.
            value = percent(x.value) if number_kind(before.inputs, pct) == "fraction" else x.value
            x = dataclasses.replace(x, kind=pct, value=value)
        found.append(x)
    # "double the gpus", "half the hours": the previous amount, scaled
    for hit in _RELATIVE.finditer(w.lower):
        name, amount_kind = _RELATIVE_INPUTS[hit.group("what").split()[0].rstrip("s")]
        if isinstance(previous_args.get(name), (int, float)):
            value = previous_args[name] * _RELATIVE_FACTORS[hit.group("f")]
            found.append(Quantity(amount_kind, count(value) if name == "gpus" else value,
                                  hit.start(), hit.end(), hit.group(0)))
    if kind == "price" and not any(x.kind in MONEY_KINDS for x in found):
        # "what if B dropped to 1.75?" after prices per GPU-hour: a bare decimal after "to"
        # or "at" is the new price.
        hit = _BARE_DECIMAL.search(w.lower)
        if hit is not None:
            found.append(Quantity("at_price", float(hit.group(1)), hit.start(1), hit.end(1),
                                  hit.group(1)))
    return dataclasses.replace(w, found=found)


_BARE_DECIMAL = re.compile(r"\b(?:to|at|is|=)\s?(\d{1,4}\.\d{1,3})(?![\d.%]|\s?(?:x|times|%|"
                           r"percent|gpus?|nodes?|servers?|h\b|hrs?|hours?|days?|weeks?|"
                           r"months?|years?|tb|gb|mb|g\b|t\b|kw|w\b))")


# ---------------------------------------------------------------------------------------
# One amount: a form field, or the reply to the question the chat just asked
# ---------------------------------------------------------------------------------------

# Words a reply may wrap an amount in ("about 256", "let's say 40%").
_WRAPPING = re.compile(r"[#\s.,;:!?~()]+|\b(?:about|around|roughly|approx(?:imately)?|say|use|"
                       r"assume|make|it|let'?s)\b", re.ASCII)
_SPACED_THOUSANDS = re.compile(r"(?<=\d)[\s_](?=\d{3}(?!\d))", re.ASCII)


def _feeds(kind: str, name: str) -> bool:
    """Whether an amount of this kind can be the input `name` ("watts" is "watts_per_gpu")."""
    if kind == name or (kind not in MONEY_KINDS and name.startswith(kind + "_")):
        return True
    if kind in ("money", "at_price") and name.startswith("price"):
        return True  # "$7", "12 cents": the field says what it is a price of
    return any(spec.input_of(kind) == name for spec in calc.REGISTRY.values())


def amount(text: str, name: str, kind: str = "number") -> float | int:
    """Read the amount of one input the way the chat reads it; ValueError if it is not one.

    `kind` is the input's number kind ("whole", "fraction" or "number"). The same wording
    rules as a question: "$7", "1,000", "1.5k", "40%" (0.4 for a fraction), "2 weeks" (336
    for hours), "12 cents", "700 W", "400 Gb/s", "7B". Text that holds anything else, or an
    amount of another input ("$7" for GPUs), is not this input's amount.

        >>> amount("2 weeks", "hours"), amount("40%", "mfu", "fraction")
        (336.0, 0.4)
    """
    text = _SPACED_THOUSANDS.sub("", text.strip())
    w = read(text)
    if [x.kind for x in w.found] == ["percent"]:
        w.found = []  # a bare "40%": the field says of what (below)
    if w.found:
        mine = [x for x in w.found if _feeds(x.kind, name)]
        if len(w.found) != 1 or not mine or _WRAPPING.sub("", w.unread):
            raise ValueError(f"not one amount of {name}: {text!r}")
        value = mine[0].value
    elif m := BARE_ANSWER.match(w.lower):
        value = scaled(to_float(m.group("n")), m.group("sc"))
        if m.group("neg"):
            value = -value
        if m.group("pc") and kind == "fraction":
            value = percent(value)
    else:
        value = float(text)  # "nan" and "inf" are numbers, refused by the bounds by name
    return count(value) if kind == "whole" else value


def _answer_to_missing(w: Wording, previous: CalcRequest, spec: calc.Calculator
                       ) -> CalcRequest | None:
    # "How many GPUs?" -> "256", "How many hours?" -> "2 weeks": the reply is the amount.
    if not previous.missing:
        return None
    name = previous.missing[0]
    kind = number_kind(spec.inputs, name)
    if kind is None:
        return None  # "quotes" is not answered by one number
    try:
        value = amount(w.original, name, kind)
    except ValueError:
        return None
    args = {**previous.args, name: value}
    missing = [n for n in previous.missing if n != name]
    return CalcRequest(previous.tool, args, missing, list(previous.notes))


def detect(question: str, previous: CalcRequest | None = None) -> CalcRequest | None:
    """Return the calculation a question asks for, or None if it is not a calculation."""
    if not isinstance(question, str):
        return None
    w = read(question)
    before = calc.get(previous.tool) if previous is not None else None
    if previous is not None and before is not None:
        answer = _answer_to_missing(w, previous, before)
        if answer is not None:
            return answer
        w = _as_follow_up(w, before, previous.args)
    inputs = [x for x in w.found if _is_input(x.kind)]
    if not inputs:
        return None
    if previous is None and _one_amount_asked_of(w, inputs):
        return None
    hint = _pick(w)
    chosen = hint or calc.fallback()
    # With nothing selecting a calculator, the fallback must have something to calculate
    # from: "Why is 400 Gb/s InfiniBand expensive?" names an amount and money, not a sum.
    # Nor is a question a calculation when the calculator its words select reads none of its
    # amounts: "how much KV cache per token for an 8B model" names "per token", not a cost.
    intent = (_intent(w) and any(chosen.reads(x.kind) for x in w.found)
              and not (chosen.fallback and _prices_something_else(w)))
    if previous is None or before is None:
        return _request(chosen, w) if intent else None
    if intent:
        # A complete new question replaces the old one instead of inheriting its inputs.
        alone = _request(chosen, w)
        if alone.error or not alone.missing:
            return alone
    spec = hint or before
    if not spec.changes(w, previous.args):
        # Nothing here feeds the previous calculator (a lone price after a comparison):
        # start again from the fallback, keeping what carries over.
        spec = calc.fallback()
    follow_up = bool(FOLLOWUP.search(w.lower)) or _answers(w, inputs, previous, before)
    if not (intent or before.changes(w, previous.args)
            or (follow_up and spec.changes(w, previous.args))):
        return None
    if not intent and not follow_up and (OTHER_TOPIC.search(w.lower)
                                         or _prices_something_else(w)):
        return None
    return _request(spec, w, previous)


def _one_amount_asked_of(w: Wording, inputs: list[Quantity]) -> bool:
    """True if a first message names one amount only to ask of it: "can the network really
    add 30% to training cost?" (a yes/no question, answered from the corpus, not with a
    calculation asking for the rest), "how much does 1 h100 cost per hour?" (the price
    itself, which a calculation could only ask back)."""
    if len(inputs) != 1:
        return False
    # "my mfu calc came out at 120%, is that possible?": a share alone is judged, not used;
    # "how much does a network engineer make per year?": a period without a number is no
    # amount to calculate from
    return bool(_POLAR_ASK.match(w.lower)) or (inputs[0].kind == "gpus"
                                               and inputs[0].value == 1) or (
        inputs[0].kind in ("mfu", "utilization") and bool(_POLAR_TAIL.search(w.lower))) or (
        inputs[0].kind == "hours" and not re.search(r"\d", inputs[0].text))


_POLAR_TAIL = re.compile(r"\b(?:is|are|was|does|can|could|would|will)\s(?:that|this|it)\b")
_POLAR_ASK = re.compile(r"\s*(?:can|could|does|do|did|is|are|will|would|should|might|may)\b")


def _answers(w: Wording, inputs: list[Quantity], previous: CalcRequest,
             before: calc.Calculator) -> bool:
    """Whether a short reply gives the input just asked for ("400 Gb/s", "10 GB of it")."""
    if not previous.missing or len(re.findall(r"[a-z]+", w.unread)) > 4:
        return False
    return any(before.input_of(x.kind) == previous.missing[0] for x in inputs)
