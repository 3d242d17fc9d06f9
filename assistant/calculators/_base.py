"""What every calculator shares: limits, errors, formatting, validation and the spec class.

A calculator is one module of this package that defines a pure function, a pydantic input
model, a result dataclass, and `CALCULATOR`, a `Calculator` saying everything else about it
once: its label, the lesson it cites, the question to ask for each missing input, the words
and amounts that select it in chat, and the wording rules for its own amounts. Validation
reads the bounds of the input model, so the tool schema and the calculator reject the same
values with the same limits.
"""

from __future__ import annotations

import dataclasses
import math
import re
import types
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from typing import Any, NamedTuple, Union, get_args, get_origin

import annotated_types as at
from pydantic import BaseModel, ConfigDict

from assistant.wording import CORE_INPUTS, HOURS_PER_MONTH, Rule, Wording, count

# Limits beyond which an input is a typo or an attack, not a real cluster. The input models
# use them as bounds, so the tool schema and the calculator reject the same values.
MAX_GPUS = 10_000_000
MAX_PRICE_PER_GPU_HOUR = 100_000.0
#: "$3.20 per GPU", "$1.65 a gpu": an amount written per GPU (a money_other's text ends so).
PER_GPU = re.compile(r"(?:per|/|a|an|each)\s?(?:gpu|card)s?$", re.I)
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


def format_price(x: float) -> str:
    """Format a rate the user typed, keeping up to four decimals ($0.125/GPU-hour)."""
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


def format_sci(x: float) -> str:
    """Format in short scientific notation: 4.2e+22 -> "4.2e22"."""
    return re.sub(r"e\+?(-?)0*(\d)", r"e\1\2", f"{x:.4g}")


def format_pct(fraction: float) -> str:
    """Format a fraction as a percentage: 0.4 -> "40%"."""
    return f"{fraction * 100:.4g}%"


def gpus_text(gpus: int) -> str:
    """ "1 GPU", "256 GPUs"."""
    return f"{gpus:,} GPU" if gpus == 1 else f"{gpus:,} GPUs"


# ---------------------------------------------------------------------------------------
# Input models and validation
# ---------------------------------------------------------------------------------------

class Inputs(BaseModel):
    """Base of the input models: NaN/inf and unknown keys are rejected, so a typo is named."""

    model_config = ConfigDict(allow_inf_nan=False, extra="forbid")


@dataclass(frozen=True)
class Unit:
    """Field metadata: the unit an error message gives the limit in; "%" for percentages."""

    text: str


def _number(name: str, value: Any, key: str) -> float:
    # bool is an int subclass; True GPUs is a bug in the caller, not one GPU.
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise CalculatorError(f"{name} must be a number (got {value!r})", key)
    if isinstance(value, float) and not math.isfinite(value):
        raise CalculatorError(f"{name} must be a finite number (got {value})", key)
    return float(value)


def _whole(name: str, value: Any, low: float, limit: float, key: str) -> int:
    x = _number(name, value, key)
    if x < low or not x.is_integer():
        what = "positive whole number" if low <= 1 else f"whole number of at least {low:g}"
        raise CalculatorError(f"{name} must be a {what} (got {value!r})", key)
    if x > limit:
        raise CalculatorError(
            f"{name} must be at most {limit:,} (got {value!r}); check the amount", key)
    return int(x)


def _positive(name: str, value: Any, limit: float, unit: str, key: str) -> float:
    x = _number(name, value, key)
    if x <= 0:
        raise CalculatorError(f"{name} must be a positive number (got {value!r})", key)
    if x > limit:
        raise CalculatorError(
            f"{name} must be at most {limit:,.0f}{unit} (got {value!r}); check the amount", key)
    return x


def _between(name: str, value: Any, low: float, limit: float, unit: str, key: str) -> float:
    x = _number(name, value, key)
    if not low <= x <= limit:
        what = "a percentage from" if unit == "%" else "from"
        unit = "" if unit == "%" else unit
        top = f"{limit:,.0f}" if float(limit).is_integer() and limit < 1e12 else f"{limit:.4g}"
        raise CalculatorError(
            f"{name} must be {what} {low:g} to {top}{unit} (got {value!r})", key)
    return x


def _fraction(name: str, value: Any, key: str) -> float:
    x = _number(name, value, key)
    if not 0 < x <= 1:
        raise CalculatorError(
            f"{name} must be a fraction above 0 and at most 1, e.g. 0.4 for 40% "
            f"(got {value!r})", key)
    return x


def _plain_type(annotation: Any) -> Any:
    if get_origin(annotation) in (Union, types.UnionType):
        kept = [a for a in get_args(annotation) if a is not type(None)]
        return kept[0] if len(kept) == 1 else annotation
    return annotation


def _meta(model: type[BaseModel], name: str) -> tuple[Any, dict[str, Any]]:
    info = model.model_fields[name]
    bounds: dict[str, Any] = {"unit": ""}
    for m in info.metadata:
        if isinstance(m, at.Gt):
            bounds["gt"] = m.gt
        elif isinstance(m, at.Ge):
            bounds["ge"] = m.ge
        elif isinstance(m, at.Le):
            bounds["le"] = m.le
        elif isinstance(m, Unit):
            bounds["unit"] = m.text
    return _plain_type(info.annotation), bounds


def number_kind(model: type[BaseModel], name: str) -> str | None:
    """"whole", "fraction" or "number" for a numeric field of an input model, else None."""
    if name not in model.model_fields:
        return None
    kind, b = _meta(model, name)
    if kind is int:
        return "whole"
    if kind is not float:
        return None
    return "fraction" if b.get("gt") == 0 and b.get("le") == 1 else "number"


def is_number_input(model: type[BaseModel], name: str) -> bool:
    """Whether a field of an input model holds one number (not a list or a name)."""
    return number_kind(model, name) is not None


def check(model: type[BaseModel], name: str, value: Any, label: str | None = None,
          key: str | None = None) -> Any:
    """Validate one input against its field in `model`; return it as int or float.

    The bounds come from the field (gt/ge/le), so they are the tool schema's bounds; the
    message names the input (`label`, default its name) and `key` is its path for programs.
    """
    kind, b = _meta(model, name)
    label, key = label or name, key or name
    limit = b.get("le", math.inf)
    if kind is int:
        return _whole(label, value, b.get("ge", 1), limit, key)
    if b.get("gt") == 0 and limit == 1:
        return _fraction(label, value, key)
    if "ge" in b:
        return _between(label, value, b["ge"], limit, b["unit"], key)
    return _positive(label, value, limit, b["unit"], key)


def checked(model: type[BaseModel], given: Mapping[str, Any]) -> dict[str, Any]:
    """Validate every number in `given` that is not None; return them, others as given."""
    return {name: (check(model, name, v) if v is not None and is_number_input(model, name)
                   else v) for name, v in given.items()}


def finite_result(what: str, value: float, inputs: Sequence[str]) -> float:
    """Inputs within their limits can still multiply out to infinity; say which ones."""
    if not math.isfinite(value):
        raise CalculatorError(
            f"{what} is too large to compute from {', '.join(inputs)}; check them", inputs[0])
    return value


class Result:
    """Shared JSON conversion for the result dataclasses."""

    def to_dict(self) -> dict[str, Any]:
        """Return the result as plain JSON-safe types."""
        return dataclasses.asdict(self)  # type: ignore[call-overload]


# ---------------------------------------------------------------------------------------
# The spec
# ---------------------------------------------------------------------------------------

class Prompt(NamedTuple):
    """How the chat asks for an input, and how it says a known one ({v} value, {p} × 100)."""

    question: str
    known: str = ""


#: Prompts for the inputs the shared wording rules find (assistant/wording.py).
SHARED_PROMPTS: Mapping[str, Prompt] = {
    "gpus": Prompt("How many GPUs?", "{v:,.0f} GPUs"),
    "price_per_gpu_hour": Prompt("What price per GPU-hour should I use?",
                                 "${v:,.2f} per GPU-hour"),
    "hours": Prompt("How many hours will the job run?", "{v:,g} hours"),
}


@dataclass(frozen=True)
class Calculator:
    """Everything about one calculator. Subclass to change how it reads a question.

    `price_units` claims prices quoted in another unit ({"kwh": ("price_per_kwh", 1.0)});
    `kinds` maps an amount's kind to an input when the names differ.
    """

    name: str
    function: Callable[..., Any]
    inputs: type[BaseModel]
    result: type
    label: str
    lesson: str  # slug of the corpus page the answer cites
    description: str  # what a chat model reads about the tool
    prompts: Mapping[str, Prompt] = field(default_factory=dict)
    required: tuple[str, ...] = ()
    rules: tuple[Rule, ...] = ()
    words: re.Pattern[str] | None = None  # words that select it
    picked_by: frozenset[str] = frozenset()  # kinds of amount that select it
    priority: int = 0  # the highest-priority calculator that selects a question gets it
    fallback: bool = False  # the calculator for a money question nothing else selects
    price_units: Mapping[str, tuple[str, float]] = field(default_factory=dict)
    kinds: Mapping[str, str] = field(default_factory=dict)
    example: Mapping[str, Any] = field(default_factory=dict)  # a valid call, for docs and tests
    order: int = 100  # position in the tool list

    @property
    def input_names(self) -> tuple[str, ...]:
        """The inputs it takes, in the input model's order."""
        return tuple(self.inputs.model_fields)

    def input_of(self, kind: str) -> str | None:
        """The input an amount of this kind fills, if it takes one."""
        name = self.kinds.get(kind) or CORE_INPUTS.get(kind) or kind
        return name if name in self.inputs.model_fields else None

    @property
    def money_kind(self) -> str | None:
        """The kind of amount its one price is read as ("price", "price_per_kwh"), if any."""
        for kind, _ in self.price_units.values():
            return kind
        return "price" if self.input_of("price") else None

    def percent_input(self, given: Mapping[str, Any]) -> str | None:
        """The input a bare "60%" of a follow-up changes: its only percentage input, or the
        only one of them given before; None when that is ambiguous."""
        names = [n for n in self.input_names if number_kind(self.inputs, n) == "fraction"
                 or _meta(self.inputs, n)[1]["unit"] == "%"]
        if len(names) == 1:
            return names[0]
        named = [n for n in names if n in given]
        return named[0] if len(named) == 1 else None

    def changes(self, w: Wording, previous: Mapping[str, Any] | None = None) -> bool:
        """Whether the amounts of a follow-up change one of its inputs (`previous` ones)."""
        return any(self.input_of(x.kind) for x in w.found)

    def carry(self, previous: Mapping[str, Any], args: Mapping[str, Any], w: Wording
              ) -> dict[str, Any]:
        """The inputs of a follow-up: the previous ones it takes, changed by the new ones."""
        return {**{k: v for k, v in previous.items() if k in self.input_names}, **args}

    def reads(self, kind: str) -> bool:
        """Whether an amount of this kind is something this calculator calculates from."""
        return self.input_of(kind) is not None

    def prompt(self, name: str) -> Prompt:
        """How to ask for an input and how to say it."""
        return (self.prompts.get(name) or SHARED_PROMPTS.get(name)
                or Prompt(f"What value should I use for {name}?"))

    def selects(self, w: Wording) -> bool:
        """Whether the question's words or amounts select this calculator."""
        return bool(self.picked_by & w.kinds()) or bool(self.words and self.words.search(w.lower))

    def intends(self, w: Wording) -> bool:
        """Whether the question asks for this calculation even without money words."""
        return False

    def so_far(self, args: Mapping[str, Any]) -> str | None:
        """What the inputs given already work out to, said before asking for the rest
        ("256 GPUs for 100 hours is 25,600 GPU-hours"), or None."""
        return None

    def read(self, w: Wording) -> tuple[dict[str, Any], list[str]]:
        """The inputs a question gives, and notes on how they were read."""
        return simple_args(w, self.input_names, self.input_of)

    def problems(self, w: Wording) -> list[str]:
        """Amounts in the question this calculator cannot use, each named and why."""
        return []

    def missing(self, args: Mapping[str, Any], w: Wording) -> list[str]:
        """The inputs still needed, in the order to ask for them."""
        return [name for name in self.required if name not in args]


def simple_args(w: Wording, inputs: Iterable[str], input_of: Callable[[str], str | None]
                ) -> tuple[dict[str, Any], list[str]]:
    """Fill each input with the first amount of a kind that feeds it; GPUs from nodes too."""
    names = list(inputs)
    args: dict[str, Any] = {}
    notes: list[str] = []
    for arg in names:
        x = w.first({k for k in w.kinds() if input_of(k) == arg})
        if x is not None:
            args[arg] = x.value
    if "gpus" in args:
        args["gpus"] = count(args["gpus"])
    elif "gpus" in names:
        per_node = w.first({"gpus_per_node"})
        nodes = w.first({"nodes"})
        if per_node and nodes:
            args["gpus"] = count(per_node.value * nodes.value)
            notes.append(f"{count(nodes.value)} nodes × {count(per_node.value)} GPUs per node"
                         f" = {args['gpus']} GPUs")
    if "hours" in args and any(x.kind == "hours" and "month" in x.text for x in w.found):
        notes.append(f"A month is taken as {HOURS_PER_MONTH:g} hours (365 days × 24 h ÷ 12).")
    return args, notes
