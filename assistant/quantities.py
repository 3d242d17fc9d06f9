"""Turn a cost question in plain words into a typed calculator request, and run it.

Numbers are read with regular expressions and converted with float(); nothing the user
types is ever evaluated. The pipeline is:

    detect(question, previous) -> CalcRequest | None   # None: not a calculation
    run(request) -> CalcOutcome                         # result, error or missing inputs

Example:
    >>> req = detect("What do 256 H100s cost for 100 hours at $7 per GPU-hour?")
    >>> req.tool, req.args
    ('gpu_hour_cost', {'gpus': 256, 'price_per_gpu_hour': 7.0, 'hours': 100.0})
    >>> run(req).result.total_cost
    179200.0
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from assistant.calculators import (
    CALCULATORS,
    HOURS_PER_DAY,
    HOURS_PER_MONTH,
    HOURS_PER_WEEK,
    HOURS_PER_YEAR,
    CalculatorError,
    MissingInput,
    validate_input,
)

#: Only this much of a question is read; longer text is cut (the chat caps questions anyway).
MAX_CHARS = 2000

TOOLS = ("gpu_hour_cost", "training_cost", "serving_cost", "compare_cluster_quotes")

#: The inputs each calculator takes, used to carry inputs over between follow-ups.
ACCEPTS: dict[str, tuple[str, ...]] = {
    "gpu_hour_cost": ("gpus", "price_per_gpu_hour", "hours"),
    "training_cost": ("gpus", "price_per_gpu_hour", "hours", "parameters", "tokens",
                      "peak_tflops_per_gpu", "mfu", "slowdown_pct", "overhead_pct"),
    "serving_cost": ("price_per_gpu_hour", "tokens_per_second", "utilization", "gpus",
                     "monthly_tokens"),
    "compare_cluster_quotes": ("gpus", "quotes"),
}

_MODEL_INPUTS = ("parameters", "tokens", "peak_tflops_per_gpu", "mfu")

_QUESTIONS = {
    "gpus": "How many GPUs?",
    "price_per_gpu_hour": "What price per GPU-hour should I use?",
    "hours": "How many hours will the job run?",
    "tokens_per_second": "What throughput in tokens per second?",
    "parameters": "How many parameters does the model have (e.g. 7B)?",
    "tokens": "How many training tokens (e.g. 1T tokens)?",
    "peak_tflops_per_gpu": ("What peak TFLOPS per GPU should I use "
                            "(e.g. 989 TFLOPS for an H100 at BF16)?"),
    "mfu": "What MFU (model FLOPs utilization) should I assume, e.g. 40%?",
    "slowdown_pct": "How much longer does the job run, e.g. 30% longer?",
    "overhead_pct": "How much overhead should I add, e.g. 5%?",
    "utilization": "What utilization should I assume, e.g. 50%?",
    "quotes": ("Which quotes should I compare? Give each a price per GPU-hour and hours, e.g. "
               "'cluster A at $6.50 for 130 hours vs cluster B at $7 for 100 hours'."),
}


@dataclass(frozen=True)
class Quantity:
    """One amount found in a question: what it is, its value, and where it was."""

    kind: str
    value: float
    start: int
    end: int
    text: str
    per_gpu: bool = False  # throughput written "per GPU"


@dataclass(frozen=True)
class CalcRequest:
    """A calculation the user asked for: which calculator, its inputs, what is missing."""

    tool: str
    args: dict[str, Any] = field(default_factory=dict)
    missing: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def question_for_missing(self) -> str | None:
        """Return a question asking for the first missing input, or None if none is."""
        if not self.missing:
            return None
        name = self.missing[0]
        return _QUESTIONS.get(name, f"What value should I use for {name}?")


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
            "args": _json_safe(self.args),
            "result": None if self.result is None else self.result.to_dict(),
            "error": self.error,
            "missing": list(self.missing),
            "question": self.question,
            "notes": list(self.notes),
        }


def _json_safe(value: Any) -> Any:
    # Parsed args can hold inf ("1e309 GPUs"); strict JSON has no infinity, so say it in text.
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, dict):
        return {str(k): _json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_json_safe(v) for v in value]
    return value


def run(request: CalcRequest) -> CalcOutcome:
    """Run the calculator a request names; report missing inputs or a named error."""
    base = {"tool": request.tool, "args": request.args, "notes": list(request.notes)}
    if request.missing:
        # Say "gpus must be positive (got 0)" now rather than first asking for the price.
        for name, value in request.args.items():
            try:
                validate_input(name, value)
            except CalculatorError as e:
                return CalcOutcome(**base, error=str(e), missing=list(request.missing))
        return CalcOutcome(**base, missing=list(request.missing))
    fn = CALCULATORS.get(request.tool)
    if fn is None:
        return CalcOutcome(**base, error=f"tool must be one of {', '.join(TOOLS)} "
                                         f"(got {request.tool!r})")
    unknown = sorted(set(request.args) - set(ACCEPTS[request.tool]))
    if unknown:
        return CalcOutcome(**base, error=f"{request.tool} does not take {', '.join(unknown)}")
    try:
        result = fn(**request.args)
    except MissingInput as e:
        return CalcOutcome(**base, missing=e.names)
    except CalculatorError as e:
        return CalcOutcome(**base, error=str(e))
    except TypeError as e:
        # Only a hand-built request can get here (detect() builds args from ACCEPTS).
        return CalcOutcome(**base, error=f"{request.tool} inputs are not usable: {e}")
    return CalcOutcome(**base, result=result)


# ---------------------------------------------------------------------------------------
# Regular expressions. All work on lower-cased text with whitespace runs collapsed, and use
# re.ASCII so \d is 0-9 only. None has nested unbounded repeats, so time stays linear.
# ---------------------------------------------------------------------------------------

_BODY = r"(?:\d{1,3}(?:,\d{3})+(?!\d)|\d+)(?:\.\d+)?(?:e[+-]?\d+)?"


def _num(name: str) -> str:
    # A minus sign counts only when it starts a word ("-5 GPUs", "(-5"), so hyphenated
    # names ("Llama-3-8B") don't turn into negatives. A number glued to a word, a dot or an
    # operator ("h100", "9**9") is not a number.
    return (rf"(?P<{name}>(?:(?:^|(?<=[\s(\[:=,~]))-(?=\d){_BODY})"
            rf"|(?<![\w.*^/\-]){_BODY})")


_SCALE_WORDS = {
    "k": 1e3, "thousand": 1e3,
    "m": 1e6, "mn": 1e6, "mm": 1e6, "million": 1e6,
    "b": 1e9, "bn": 1e9, "billion": 1e9,
    "t": 1e12, "tn": 1e12, "trillion": 1e12,
}
_SCALE = r"\s?(?:thousand|million|billion|trillion|mn|mm|bn|tn|k|m|b|t)\b"
_MONEY_SCALE = r"\s?(?:thousand|million|billion|mn|bn|k|m|b)\b"
_GPU = (r"(?:nvidia\s)?(?:gpus?|h100s?|h200s?|h800s?|a100s?|a10g?s?|b200s?|gb200s?|l40s?|"
        r"l4s?|mi300x?s?|mi250x?s?|tpus?|accelerators?)\b")
_GPU_OR_CARD = r"(?:gpu|h100|h200|h800|a100|a10g?|b200|gb200|l40s?|l4|mi300x?|mi250x?|tpu|" \
               r"card|chip|accelerator|device)s?"
_HOUR = r"(?:hours?|hrs?|h)\b"
_PCT = r"\s?(?:%|percent\b|per\s?cent\b|pct\b)"
# "MFU of 40%", "MFU is only 30%", "MFU: 40%", "MFU=0.4". Bounded, so it stays linear.
_CONNECT = (r"(?:\s?(?:of|by|=|:|is|at|around|about|roughly|approximately|~|only|just|was|"
            r"be|will|would|to)){0,3}\s?")

_MONEY = (rf"(?:(?:(?:^|(?<=[\s(\[:=,~]))(?P<neg>-))?(?<![\w$])(?:\$|usd\s?|us\$\s?)\s?"
          rf"(?P<neg2>-)?(?P<m1>{_BODY})(?P<s1>{_MONEY_SCALE})?"
          rf"|{_num('m2')}(?P<s2>{_MONEY_SCALE})?\s?(?:dollars?|usd|bucks)\b)")
_PER = r"\s?(?:/|per|an?|each|every)\s?"
_RATE_GPU_HOUR = (rf"{_PER}(?:{_GPU_OR_CARD}(?:\s?(?:/|per|an?|-)\s?|[\s-]?))?{_HOUR}"
                  rf"(?:\s?(?:/|per|each|an?)\s?{_GPU_OR_CARD}\b)?")
_RATE_OTHER = (r"\s?(?:/|per|an?|each|every)\s?(?:1m|1k|million|thousand|m|k|mtok)?\s?"
               r"(?:tokens?|toks?|months?|mo|days?|weeks?|wk|years?|yr|gpus?|nodes?|"
               r"requests?|queries|query|users?|seats?|tb|gb)\b")
_PRICE_CONTEXT = re.compile(
    r"(?:\bat|@|\bprice[ds]?(?:\s(?:of|is|at))?|\brate(?:\s(?:of|is))?|\bcharges?|"
    r"\bcharging|:|=|"
    # "if a GPU-hour is $2", "a GPU hour costs $2", "GPU-hours go for $2"
    r"\b(?:gpu|h100|h200|h800|a100|b200|gb200|card|chip|accelerator)s?[\s-]?(?:hours?|hrs?|h)"
    r"\s(?:is|are|costs?|runs?|goes\sfor|go\sfor|will\sbe|would\sbe|is\spriced\sat))"
    r"\s?(?:about|around|roughly|~|only|just)?\s?-?$", re.ASCII)

_SUPERSEDED = re.compile(
    r"(?:instead\sof|rather\sthan|not|than|from|was|were)\s?(?:the\s|a\s|an\s)?$", re.ASCII)

_WORD_NUMBERS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
    "a couple of": 2, "half a": 0.5, "half an": 0.5,
}
_DURATION_UNITS = r"(?P<u>hours?|hrs?|h|minutes?|mins?|days?|weeks?|wks?|months?|years?|yrs?)\b"


def _unit_hours(unit: str) -> float:
    if unit.startswith("min"):
        return 1 / 60
    if unit.startswith("d"):
        return HOURS_PER_DAY
    if unit.startswith("w"):
        return HOURS_PER_WEEK
    if unit.startswith("mo"):
        return HOURS_PER_MONTH
    if unit.startswith("y"):
        return HOURS_PER_YEAR
    return 1.0


def _to_float(text: str | None) -> float:
    # The regex guarantees digits, commas, one dot, an optional exponent and sign; float()
    # turns that into a number (or inf for "1e309"), which is parsing, not evaluating.
    return float((text or "").replace(",", "").replace(" ", ""))


def _scaled(value: float, scale: str | None) -> float:
    factor = _SCALE_WORDS.get((scale or "").strip(), 1.0)
    if factor == 1.0 or not math.isfinite(value):
        return value
    # Decimal keeps 2.5 × 1e3 exactly 2500 rather than picking up float noise.
    return float(Decimal(repr(value)) * Decimal(repr(factor)))


def _percent(value: float) -> float:
    return float(Decimal(repr(value)) / 100) if math.isfinite(value) else value


def _count(value: float) -> float | int:
    # GPU counts become ints when whole, so "2.5 GPUs" stays 2.5 for the calculator to reject.
    return int(value) if math.isfinite(value) and float(value).is_integer() else value


Handler = Callable[[re.Match[str], str], list[Quantity] | None]


def _q(kind: str, value: float, m: re.Match[str], text: str, **kw: Any) -> list[Quantity]:
    return [Quantity(kind, value, m.start(), m.end(), text[m.start():m.end()], **kw)]


def _money_value(m: re.Match[str]) -> float:
    if m.group("m1") is not None:
        value = _scaled(_to_float(m.group("m1")), m.group("s1"))
        negative = bool(m.group("neg")) != bool(m.group("neg2"))
        return -value if negative else value
    return _scaled(_to_float(m.group("m2")), m.group("s2"))


def _price(m: re.Match[str], text: str) -> list[Quantity]:
    return _q("price", _money_value(m), m, text)


def _money_other(m: re.Match[str], text: str) -> list[Quantity]:
    return _q("money_other", _money_value(m), m, text)


def _bare_money(m: re.Match[str], text: str) -> list[Quantity]:
    before = text[max(0, m.start() - 30):m.start()]
    kind = "at_price" if _PRICE_CONTEXT.search(before) else "money"
    return _q(kind, _money_value(m), m, text)


def _throughput(m: re.Match[str], text: str) -> list[Quantity]:
    value = _scaled(_to_float(m.group("n")), m.group("sc"))
    return _q("tokens_per_second", value, m, text, per_gpu=bool(m.group("pergpu")))


def _monthly(m: re.Match[str], text: str) -> list[Quantity]:
    value = _scaled(_to_float(m.group("n")), m.group("sc"))
    unit = (m.group("u") or m.group("ly") or "month")
    if unit.startswith("d"):
        value *= HOURS_PER_MONTH / HOURS_PER_DAY
    elif unit.startswith("w"):
        value *= HOURS_PER_MONTH / HOURS_PER_WEEK
    return _q("monthly_tokens", value, m, text)


def _peak(m: re.Match[str], text: str) -> list[Quantity]:
    value = _to_float(m.group("n"))
    if m.group("u").startswith("p"):
        value = float(Decimal(repr(value)) * 1000) if math.isfinite(value) else value
    return _q("peak_tflops_per_gpu", value, m, text)


def _fraction_handler(kind: str) -> Handler:
    def handle(m: re.Match[str], text: str) -> list[Quantity]:
        value = _to_float(m.group("n"))
        # "40%" becomes 0.4; a bare number ("MFU of 0.4") is taken as written, so "MFU of 40"
        # reaches the calculator as 40 and is rejected by name rather than guessed at.
        if m.group("pc"):
            value = _percent(value)
        return _q(kind, value, m, text)
    return handle


def _pct_handler(kind: str) -> Handler:
    def handle(m: re.Match[str], text: str) -> list[Quantity]:
        return _q(kind, _to_float(m.group("n")), m, text)
    return handle


def _times_slowdown(m: re.Match[str], text: str) -> list[Quantity]:
    factor = _to_float(m.group("n"))
    value = float((Decimal(repr(factor)) - 1) * 100) if math.isfinite(factor) else factor
    return _q("slowdown_pct", value, m, text)


def _consume(kind: str) -> Handler:
    def handle(m: re.Match[str], text: str) -> list[Quantity]:
        return _q(kind, _to_float(m.group("n")), m, text)
    return handle


def _nodes_times_gpus(m: re.Match[str], text: str) -> list[Quantity]:
    return _q("gpus", _count(_to_float(m.group("n")) * _to_float(m.group("g"))), m, text)


def _gpus(m: re.Match[str], text: str) -> list[Quantity]:
    return _q("gpus", _count(_to_float(m.group("n"))), m, text)


def _scaled_handler(kind: str) -> Handler:
    def handle(m: re.Match[str], text: str) -> list[Quantity]:
        return _q(kind, _scaled(_to_float(m.group("n")), m.group("sc")), m, text)
    return handle


def _duration(m: re.Match[str], text: str) -> list[Quantity]:
    return _q("hours", _to_float(m.group("n")) * _unit_hours(m.group("u")), m, text)


def _word_duration(m: re.Match[str], text: str) -> list[Quantity]:
    count = _WORD_NUMBERS[re.sub(r"\s+", " ", m.group("w"))]
    return _q("hours", count * _unit_hours(m.group("u")), m, text)


def _rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.ASCII)


# Order matters: each rule masks what it matched, so "$3 an hour" is a price before "an
# hour" could be read as a duration, and "10B tokens a month" is traffic, not training data.
_RULES: list[tuple[re.Pattern[str], Handler]] = [
    (_rx(_MONEY + _RATE_GPU_HOUR), _price),
    (_rx(_MONEY + _RATE_OTHER), _money_other),
    (_rx(_MONEY), _bare_money),
    # "NaN dollars an hour": the rate phrase without a readable amount must not leave
    # "an hour" behind to be read as a one-hour job.
    (_rx(rf"(?:\$|dollars?|usd|bucks){_RATE_GPU_HOUR}"), lambda m, text: []),
    (_rx(rf"{_num('n')}(?P<sc>{_SCALE})?\s?(?:(?:output|generated|generation)\s)?"
         r"(?:tokens?|toks?)\s?(?:/\s?s(?:ec(?:ond)?)?\b|per\s(?:s|sec|second)\b|"
         r"(?:a|each|every)\ssecond\b)"
         rf"(?P<pergpu>\s?(?:per|/|each|a|on\s(?:one|a|each))\s?{_GPU_OR_CARD}\b)?"),
     _throughput),
    (_rx(rf"{_num('n')}(?P<sc>{_SCALE})?\s?(?:tps|tok/s)\b"
         rf"(?P<pergpu>\s?(?:per|/|each|a)\s?{_GPU_OR_CARD}\b)?"), _throughput),
    (_rx(rf"{_num('n')}(?P<sc>{_SCALE})?\s?(?:tokens?|toks?)\s?"
         r"(?:(?:a|per|each|every|/|in\sa)\s?(?P<u>month|mo|day|week)\b|(?P<ly>monthly|daily|"
         r"weekly)\b)"), _monthly),
    (_rx(rf"{_num('n')}\s?(?:(?:dense|sparse|peak|bf16|fp16|fp8|fp32|tf32)\s){{0,3}}"
         r"(?P<u>tflop/s|tflops?|teraflop/s|teraflops?|pflop/s|pflops?|petaflop/s|petaflops?)"
         r"(?=[^a-z0-9]|$)"), _peak),
    (_rx(rf"{_num('n')}(?P<pc>{_PCT})\s?(?:mfu|model\sflops?\sutili[sz]ation)\b"),
     _fraction_handler("mfu")),
    (_rx(rf"\b(?:mfu|model\sflops?\sutili[sz]ation){_CONNECT}{_num('n')}(?P<pc>{_PCT})?"),
     _fraction_handler("mfu")),
    (_rx(rf"{_num('n')}(?P<pc>{_PCT})\s?(?:gpu\s)?(?:utili[sz]ation|utili[sz]ed|util|busy)\b"),
     _fraction_handler("utilization")),
    (_rx(rf"\butili[sz]ation{_CONNECT}{_num('n')}(?P<pc>{_PCT})?"),
     _fraction_handler("utilization")),
    (_rx(rf"{_num('n')}{_PCT}\s?(?:(?:network|communication|comms?|interconnect|straggler)\s)?"
         r"(?:longer|slower|slow-?downs?|increase\sin\s(?:run\s?)?time|"
         r"(?:more|extra|additional)\s(?:run[\s-]?time|(?:(?:wall[\s-]?clock|training|run)"
         r"[\s-]?)?(?:time|hours)))\b"), _pct_handler("slowdown_pct")),
    # "comms stalls add 20% to the runtime", "adds 15% to the job"
    (_rx(r"\b(?:adds?|adding|added|tacks?\son)\s(?:(?:another|an\sextra|a\sfurther|about|"
         rf"around|roughly|~)\s)?{_num('n')}{_PCT}\s?(?:(?:more|extra)\s)?(?:onto|on\sto|to|on)\s"
         r"(?:(?:the|its|our|my|your|each|every)\s)?(?:(?:total|overall|training|job|"
         r"wall[\s-]?clock)\s)?(?:run[\s-]?times?|times?|hours|jobs?|runs?|duration|training|"
         r"wall[\s-]?clock|schedule)\b"), _pct_handler("slowdown_pct")),
    # "stretches the runtime by 20%", "the run time goes up by 20%"
    (_rx(r"\b(?:(?:increases?|increasing|extends?|extending|stretch(?:es)?|stretching|"
         r"inflates?|lengthens?|pushes|push)\s(?:(?:the|its|our|my|your)\s)?"
         r"(?:(?:total|overall|training|job)\s)?(?:run[\s-]?times?|time|hours|job|run|duration|"
         r"wall[\s-]?clock)(?:\sout)?|(?:run[\s-]?times?|time|hours|duration|wall[\s-]?clock)\s"
         r"(?:goes\sup|go\sup|increases?|grows?|rises?|is\sup|jumps?|would\sincrease|"
         rf"will\sincrease))\sby\s{_num('n')}{_PCT}"), _pct_handler("slowdown_pct")),
    (_rx(rf"\b(?:slow-?down|slower|longer){_CONNECT}{_num('n')}{_PCT}"),
     _pct_handler("slowdown_pct")),
    (_rx(rf"{_num('n')}\s?(?:x|×|times)\s?(?:as\slong|longer|slower|the\stime)\b"),
     _times_slowdown),
    (_rx(rf"{_num('n')}{_PCT}\s?(?:[a-z-]+\s)?overheads?\b"), _pct_handler("overhead_pct")),
    (_rx(rf"\boverheads?{_CONNECT}{_num('n')}{_PCT}"), _pct_handler("overhead_pct")),
    (_rx(rf"{_num('n')}(?P<sc>{_SCALE})?\s?{_GPU_OR_CARD}[\s-]?{_HOUR}"), _consume("gpu_hours")),
    (_rx(rf"{_num('n')}\s?(?:nodes?|servers?|machines?|hosts?)\s?(?:of|with|x|×|\*|each\swith)"
         rf"\s?{_num('g')}\s?(?:x\s?)?{_GPU}(?:\seach)?"), _nodes_times_gpus),
    (_rx(rf"{_num('n')}\s?(?:x\s?)?{_GPU}\s?(?:per|/|a|each|in\seach)\s?"
         r"(?:node|server|machine|host)\b"), _consume("gpus_per_node")),
    (_rx(rf"{_num('n')}\s?(?:nodes?|servers?|machines?)\b"), _consume("nodes")),
    (_rx(rf"{_num('n')}\s?(?:x\s?|×\s?)?-?\s?{_GPU}"
         r"(?![\s-]?(?:hours?|hrs?|h|days?|months?|weeks?|years?)\b)"), _gpus),
    (_rx(rf"{_num('n')}(?P<sc>{_SCALE})?[\s-]?(?:param(?:eter)?s?|weights)\b"),
     _scaled_handler("parameters")),
    (_rx(rf"{_num('n')}(?P<sc>\s?(?:billion|million|trillion|bn|b|m|t))\b[\s-]?"
         r"(?:(?:dense|moe|[a-z0-9.-]+\s))?(?:models?|llms?|networks?|transformers?)\b"),
     _scaled_handler("parameters")),
    (_rx(rf"{_num('n')}(?P<sc>{_SCALE})?\s?(?:training\s|train\s|of\s)?(?:tokens?|toks?)\b"),
     _scaled_handler("tokens")),
    # Bare sizes: "7B" is a model size, "15T" a token count (the usual way each is written).
    (_rx(rf"{_num('n')}(?P<sc>b|bn)\b"), _scaled_handler("parameters")),
    (_rx(rf"{_num('n')}(?P<sc>t|tn)\b"), _scaled_handler("tokens")),
    (_rx(rf"{_num('n')}[\s-]?{_DURATION_UNITS}"), _duration),
    (_rx(r"\b(?P<w>a\scouple\sof|half\san?|an?|one|two|three|four|five|six|seven|eight|nine|"
         rf"ten|eleven|twelve)[\s-]{_DURATION_UNITS}"), _word_duration),
]

_ARG_OF = {
    "price": "price_per_gpu_hour", "at_price": "price_per_gpu_hour",
    "gpus": "gpus", "hours": "hours", "slowdown_pct": "slowdown_pct",
    "overhead_pct": "overhead_pct", "parameters": "parameters", "tokens": "tokens",
    "monthly_tokens": "monthly_tokens", "tokens_per_second": "tokens_per_second",
    "peak_tflops_per_gpu": "peak_tflops_per_gpu", "mfu": "mfu", "utilization": "utilization",
}


def _normalize(text: str) -> tuple[str, str]:
    """Return (text, lower-case text) with the same length, whitespace runs collapsed."""
    text = text[:MAX_CHARS].translate({0x2212: "-", 0x2013: "-", 0x2014: "-"})
    text = re.sub(r"\s+", " ", text).strip()
    # Lower-case one character at a time so positions line up with the original text
    # (a few characters, like "İ", lower-case to two).
    lower = "".join(c.lower() if len(c.lower()) == 1 else c for c in text)
    return text, lower


def _scan_lower(lower: str) -> list[Quantity]:
    work = lower
    found: list[Quantity] = []
    for rx, handler in _RULES:
        spans = []
        for m in rx.finditer(work):
            quantities = handler(m, lower)
            if quantities is None:
                continue
            found.extend(quantities)
            spans.append(m.span())
        for a, b in spans:
            work = work[:a] + "#" * (b - a) + work[b:]
    found.sort(key=lambda q: q.start)
    return found


def scan(text: str) -> list[Quantity]:
    """Find the amounts in a text (prices, GPUs, durations, sizes, rates), in order."""
    return _scan_lower(_normalize(text)[1])


# ---------------------------------------------------------------------------------------
# Intent and tool choice
# ---------------------------------------------------------------------------------------

# A calculation needs a cost intent: money words, "per million tokens", GPU-hours asked for.
# "how many"/"how long" with a GPU count or a data size is a networking question, not one.
_INTENT = _rx(
    r"\b(?:costs?|costing|price[sd]?|pricing|pay|paying|spend|spending|spent|bill|billed|"
    r"billing|budget|expensive|cheap|cheaper|cheapest|dearer|dearest|afford|dollars?|usd|"
    r"how\smany\sgpu[\s-]?hours|gpu[\s-]?hours|per\smillion|"
    r"how\smuch(?!\s(?:[a-z]+\s)?(?:memory|vram|ram|hbm|bandwidth|power|energy|storage|disk|"
    r"data|space|faster|better|bigger|larger|smaller|slower|latency|time|throughput|traffic|"
    r"speed|compute|flops?|gpus?|network|networking)\b))\b")
# Words that ask for a figure without naming money: enough only when the question also gives
# a model size, token count, peak TFLOPS or MFU ("How long to train 70B on 15T tokens ...").
_WEAK_INTENT = _rx(
    r"\b(?:calculate|calculation|calc|estimate|estimated|work\sout|total|compare|comparison|"
    r"versus|vs|how\slong|how\smany\s(?:hours|days|weeks)|wall[\s-]?clock|time\sto\strain)\b")
# After a calculation, a question on one of these topics is a new question, not a follow-up,
# even when it names a GPU count ("how many switches for 1024 GPUs?").
_OTHER_TOPIC = _rx(
    r"\b(?:switch(?:es)?|bandwidth|latency|all-?reduce|all-?gather|nccl|topology|ports?|"
    r"links?|cables?|optics|transceivers?|racks?|nvl\d+|enough|fit|fits|memory|vram|hbm|"
    r"gb/s|gbps|tb/s|tbps|"
    # "how many GPUs do I need": the calculators size no clusters.
    r"how\smany\s(?!(?:gpu[\s-]?)?hours\b)[a-z0-9-]+(?:\s[a-z0-9-]+)?\s(?:do|does|would|will|"
    r"can|could|should)\s(?:i|we|you|it|they)\s(?:need|want|require|use|get))\b")
_FOLLOWUP = _rx(r"^(?:and|what\sif|what\sabout|how\sabout|with|at|for|now|then|instead|same|"
                r"but|ok|okay|so|try)\b|\b(?:instead|what\sif|what\sabout|how\sabout)\b")
_SERVING = _rx(
    r"\b(?:per\s(?:1m|one\smillion|a\smillion|million|1,000,000|mtok|1k|thousand)\s"
    r"(?:output\s|input\s|generated\s)?tokens?|per\stokens?|serving|serve|inference\scosts?|"
    r"cost\sof\sinference|throughput|tokens?\sper\ssecond)\b")
_SLOW_WORD = _rx(r"\b(?:slow-?down|slower|longer|overhead)\b")
_MARKER = _rx(
    r"\b(?:cluster|provider|quote|option|vendor|offer|cloud|deal|bid|supplier)\s"
    # "cluster A" is a name but "a cluster a lot bigger" is not: a one-letter "a" counts as a
    # name only when a price, a verb or punctuation follows.
    r"(?P<name>an?(?=\s?(?:at|@|for|with|on|is|costs?|charges?|offers|quotes|vs|and|or)\b|"
    r"\s?[:,;$@)]|$)|(?!(?:at|for|with|on|is|and|vs|or|of|the|a|an|to|costs?|charges?)\b)"
    r"[a-z0-9][a-z0-9_.-]{0,29})")
_SEPARATOR = _rx(r"\b(?:vs\.?|versus|compared\s(?:to|with)|against|or|with|and|while|whereas|"
                 r"but)\b|;")
_NOT_NAMES = {"compare", "with", "and", "or", "vs", "the", "what", "which", "how", "is", "at",
              "for", "a", "an", "i", "if", "then", "on", "cost", "price", "gpus", "gpu"}
_CAPITALISED_NAME = re.compile(
    r"\b([A-Z][A-Za-z0-9_-]{1,30})(?:\s(?:at|@|is|charges|costs|quotes|offers|for))?\s?:?\s?$")

_BARE_ANSWER = _rx(
    rf"^(?:(?:about|around|roughly|say|use|assume|make\sit|let'?s\ssay)\s)?"
    rf"(?P<neg>-)?(?P<dollar>\$)?\s?(?P<n>{_BODY})(?P<sc>{_SCALE})?(?P<pc>{_PCT})?\s?[.!?]?$")


_COMPARE_WORD = _rx(r"\b(?:compare|comparison|vs|versus|cheaper|cheapest|dearer|dearest)\b")


def _price_quantities(found: list[Quantity], lower: str, markers: int) -> list[Quantity]:
    prices = [q for q in found if q.kind in ("price", "at_price")]
    if len(prices) < 2 and (markers >= 2 or _COMPARE_WORD.search(lower)):
        # "$6.50 for 130 h vs $7 for 100 h": bare amounts are prices once quotes are compared.
        prices = [q for q in found if q.kind in ("price", "at_price", "money")]
    return prices


def _markers(lower: str) -> list[re.Match[str]]:
    seen: set[str] = set()
    kept = []
    for m in _MARKER.finditer(lower):
        name = m.group("name").rstrip(".-")
        if name and name not in seen:
            seen.add(name)
            kept.append(m)
    return kept


def _pick_tool(lower: str, found: list[Quantity], markers: int) -> str | None:
    kinds = {q.kind for q in found}
    if kinds & {"tokens_per_second", "monthly_tokens"} or _SERVING.search(lower):
        return "serving_cost"
    prices = _price_quantities(found, lower, markers)
    if len(prices) >= 2:
        return "compare_cluster_quotes"
    if kinds & {"slowdown_pct", "overhead_pct", "parameters", "tokens", "peak_tflops_per_gpu",
                "mfu"} or _SLOW_WORD.search(lower):
        return "training_cost"
    return None


def _first(found: list[Quantity], kinds: set[str], lower: str) -> Quantity | None:
    candidates = [q for q in found if q.kind in kinds]
    # "130 hours instead of 100 hours": the amount after "instead of" is the old one.
    current = [q for q in candidates
               if not _SUPERSEDED.search(lower[max(0, q.start - 20):q.start])]
    pool = current or candidates
    if not pool:
        return None
    # A rate quoted per GPU-hour beats a bare "at $7" when both appear.
    return min(pool, key=lambda q: (q.kind == "at_price", q.start))


def _simple_args(tool: str, found: list[Quantity], lower: str) -> tuple[dict[str, Any],
                                                                        list[str]]:
    args: dict[str, Any] = {}
    notes: list[str] = []
    for arg in ACCEPTS[tool]:
        kinds = {k for k, a in _ARG_OF.items() if a == arg}
        q = _first(found, kinds, lower)
        if q is not None:
            args[arg] = q.value
    if "gpus" in args:
        args["gpus"] = _count(args["gpus"])
    elif "gpus" in ACCEPTS[tool]:
        per_node = _first(found, {"gpus_per_node"}, lower)
        nodes = _first(found, {"nodes"}, lower)
        if per_node and nodes:
            args["gpus"] = _count(per_node.value * nodes.value)
            notes.append(f"{_count(nodes.value)} nodes × {_count(per_node.value)} GPUs per node"
                         f" = {args['gpus']} GPUs")
    tps = _first(found, {"tokens_per_second"}, lower)
    if tool == "serving_cost" and tps is not None and tps.per_gpu:
        gpus = args.get("gpus", 1)
        if isinstance(gpus, int) and gpus > 1:
            args["tokens_per_second"] = tps.value * gpus
            notes.append(f"Throughput given per GPU: {tps.value:g} tokens/s × {gpus} GPUs = "
                         f"{tps.value * gpus:g} tokens/s for the deployment")
    if any(q.kind == "hours" and "month" in q.text for q in found):
        notes.append(f"A month is taken as {HOURS_PER_MONTH:g} hours (365 days × 24 h ÷ 12).")
    return args, notes


def _crossings(a: int, b: int, cuts: list[int]) -> int:
    lo, hi = min(a, b), max(a, b)
    return sum(1 for c in cuts if lo <= c < hi)


def _nearest(q: Quantity, prices: list[Quantity], cuts: list[int]) -> int:
    def distance(i: int) -> tuple[int, int]:
        p = prices[i]
        gap = p.start - q.end if p.start >= q.end else q.start - p.end
        return (_crossings(q.start, p.start, cuts), max(gap, 0))
    return min(range(len(prices)), key=distance)


def _quote_name(price: Quantity, original: str, markers: list[re.Match[str]],
                separators: list[int]) -> str | None:
    before = [m for m in markers if m.end() <= price.start]
    if before:
        m = before[-1]
        if not any(m.end() <= c < price.start for c in separators):
            name = original[m.start("name"):m.end("name")].rstrip(".-")
            # "option 1" reads better as "Option 1" than as "1"; "cluster A" stays "A".
            return f"{m.group(0).split()[0].capitalize()} {name}" if name.isdigit() else name
    hit = _CAPITALISED_NAME.search(original[max(0, price.start - 40):price.start])
    if hit and hit.group(1).lower() not in _NOT_NAMES:
        return hit.group(1)
    return None


def _name_starts(prices: list[Quantity], original: str, markers: list[re.Match[str]],
                 separators: list[int]) -> list[int] | None:
    """Where each quote's name starts, if every price follows its own name, in order."""
    starts: list[int] = []
    for price in prices:
        start = None
        before = [m for m in markers if m.end() <= price.start]
        if before and not any(before[-1].end() <= c < price.start for c in separators):
            start = before[-1].start()
        else:
            window = max(0, price.start - 40)
            hit = _CAPITALISED_NAME.search(original[window:price.start])
            if hit and hit.group(1).lower() not in _NOT_NAMES:
                start = window + hit.start(1)
        if start is None:
            return None
        starts.append(start)
    if any(b <= a for a, b in zip(starts, starts[1:], strict=False)):
        return None
    return starts


def _owner(q: Quantity, prices: list[Quantity], cuts: list[int],
           starts: list[int] | None) -> int:
    # "quote A $4.50/hr and the job takes 10 days, quote B $4/hr but takes 12 days": what
    # lies between a quote's name and the next quote's name belongs to that quote.
    if starts is not None and q.start >= starts[0]:
        return max(i for i, s in enumerate(starts) if s <= q.start)
    return _nearest(q, prices, cuts)


def _compare_args(original: str, lower: str, found: list[Quantity]
                  ) -> tuple[dict[str, Any], list[str]]:
    markers = _markers(lower)
    prices = sorted(_price_quantities(found, lower, len(markers)), key=lambda q: q.start)
    args: dict[str, Any] = {}
    notes: list[str] = []
    gpus = [q for q in found if q.kind == "gpus"]
    if len(prices) < 2:
        if gpus:
            args["gpus"] = _count(gpus[0].value)
        return args, notes
    separators = [m.start() for m in _SEPARATOR.finditer(lower)]
    cuts = sorted(separators + [m.start() for m in markers])
    starts = _name_starts(prices, original, markers, separators)
    quotes: list[dict[str, Any]] = [{"price_per_gpu_hour": p.value} for p in prices]
    hours = [q for q in found if q.kind == "hours"]
    if len(hours) == 1:
        for quote in quotes:
            quote["hours"] = hours[0].value
    else:
        for h in hours:
            quotes[_owner(h, prices, cuts, starts)].setdefault("hours", h.value)
    if len(gpus) == 1:
        args["gpus"] = _count(gpus[0].value)
    else:
        for g in gpus:
            quotes[_owner(g, prices, cuts, starts)].setdefault("gpus", _count(g.value))
    used: set[str] = set()
    for i, (quote, price) in enumerate(zip(quotes, prices, strict=True), start=1):
        name = _quote_name(price, original, markers, separators)
        if not name or name.casefold() in used:
            name = f"Quote {i}"
        used.add(name.casefold())
        quote["name"] = name
        # Keep the key order readable in tool_calls: name first.
        quote_sorted = {"name": name, **{k: v for k, v in quote.items() if k != "name"}}
        quote.clear()
        quote.update(quote_sorted)
    args["quotes"] = quotes
    return args, notes


def _missing(tool: str, args: dict[str, Any], slow_word: str | None) -> list[str]:
    if tool == "gpu_hour_cost":
        required = ["gpus", "price_per_gpu_hour", "hours"]
    elif tool == "serving_cost":
        required = ["price_per_gpu_hour", "tokens_per_second"]
    elif tool == "training_cost":
        if "hours" in args or not any(k in args for k in _MODEL_INPUTS):
            # A slowdown question is about money, so ask for the price; from model size,
            # GPU-hours alone answer the question, so price and GPUs stay optional.
            required = ["gpus", "price_per_gpu_hour", "hours"]
        else:
            required = list(_MODEL_INPUTS)
        if slow_word and "slowdown_pct" not in args and "overhead_pct" not in args:
            required.append("overhead_pct" if slow_word == "overhead" else "slowdown_pct")
    else:
        quotes = args.get("quotes") or []
        if len(quotes) < 2:
            return ["quotes"] + ([] if "gpus" in args else ["gpus"])
        required = []
        if "gpus" not in args and any("gpus" not in q for q in quotes):
            required.append("gpus")
        if any("hours" not in q for q in quotes):
            required.append("hours")
        return required
    return [name for name in required if name not in args]


def _build(tool: str, original: str, lower: str, found: list[Quantity]
           ) -> tuple[dict[str, Any], list[str]]:
    if tool == "compare_cluster_quotes":
        return _compare_args(original, lower, found)
    return _simple_args(tool, found, lower)


def _answer_to_missing(lower: str, previous: CalcRequest) -> CalcRequest | None:
    # "How many GPUs?" -> "256": a bare number answers the question we just asked.
    m = _BARE_ANSWER.match(lower)
    if m is None or not previous.missing or previous.missing[0] == "quotes":
        return None
    name = previous.missing[0]
    value = _scaled(_to_float(m.group("n")), m.group("sc"))
    if m.group("neg"):
        value = -value
    if m.group("pc") and name in ("mfu", "utilization"):
        value = _percent(value)
    if name == "gpus":
        value = _count(value)
    args = {**previous.args, name: value}
    slow = "slowdown_pct" if "slowdown_pct" in previous.missing else None
    missing = [n for n in _missing(previous.tool, args, slow) if n != name]
    return CalcRequest(previous.tool, args, missing, list(previous.notes))


def detect(question: str, previous: CalcRequest | None = None) -> CalcRequest | None:
    """Return the calculation a question asks for, or None if it is not a calculation."""
    if not isinstance(question, str):
        return None
    original, lower = _normalize(question)
    if previous is not None and previous.tool in ACCEPTS:
        answer = _answer_to_missing(lower, previous)
        if answer is not None:
            return answer
    found = _scan_lower(lower)
    inputs = [q for q in found if q.kind in _ARG_OF]
    if not inputs:
        return None
    markers = _markers(lower)
    hint = _pick_tool(lower, found, len(markers))
    intent = bool(_INTENT.search(lower)) or any(
        q.kind in ("price", "at_price", "money", "money_other") for q in found) or (
        bool(_WEAK_INTENT.search(lower)) and any(q.kind in _MODEL_INPUTS for q in found))
    slow = _SLOW_WORD.search(lower)
    slow_word = slow.group(0) if slow else None

    if previous is None or previous.tool not in ACCEPTS:
        if not intent:
            return None
        tool = hint or "gpu_hour_cost"
        args, notes = _build(tool, original, lower, found)
        return CalcRequest(tool, args, _missing(tool, args, slow_word), notes)

    if intent:
        # A complete new question replaces the old one instead of inheriting its inputs.
        alone = hint or "gpu_hour_cost"
        args, notes = _build(alone, original, lower, found)
        if not _missing(alone, args, slow_word):
            return CalcRequest(alone, args, [], notes)

    tool = hint or previous.tool

    def fits(name: str) -> bool:
        return any(_ARG_OF[q.kind] in ACCEPTS[name] for q in inputs)

    if not fits(tool):
        # Nothing here feeds the previous calculator (a lone price after a comparison):
        # start again from the GPU-hour sum, keeping what carries over.
        tool = "gpu_hour_cost"
    if not (intent or fits(previous.tool) or (_FOLLOWUP.search(lower) and fits(tool))):
        return None
    if not intent and not _FOLLOWUP.search(lower) and _OTHER_TOPIC.search(lower):
        return None
    args, notes = _build(tool, original, lower, found)
    carried = {k: v for k, v in previous.args.items() if k in ACCEPTS[tool]}
    merged = {**carried, **args}
    return CalcRequest(tool, merged, _missing(tool, merged, slow_word),
                       list(dict.fromkeys(previous.notes + notes)))
