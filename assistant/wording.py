"""How amounts are written in a question: numbers, money, GPU counts, durations and rates.

The lowest layer of the calculators' wording parser. Each `Rule` is a regular expression and
a handler that turns a match into typed `Quantity` objects; `scan` runs the rules in order and
masks what each one matched, so "$3 an hour" is a price before "an hour" could be read as a
duration. This module holds the amounts every calculator shares; each calculator module adds
rules for its own amounts (its `rules`), and assistant/quantities.py puts them together.

Numbers are read with regexes and float(), never evaluated; patterns use re.ASCII (\\d is 0-9)
on lower-cased, collapsed text, with no nested unbounded repeats, so time stays linear.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, NamedTuple

from .numberwords import in_digits

#: Only this much of a question is read; longer text is cut (the chat caps questions anyway).
MAX_CHARS = 2000

HOURS_PER_DAY = 24.0
HOURS_PER_WEEK = 168.0
# A month is an average month: 365 days × 24 h / 12 = 730 h (cloud bills use the same figure).
HOURS_PER_MONTH = 730.0
HOURS_PER_YEAR = 8760.0


@dataclass(frozen=True)
class Quantity:
    """One amount found in a question: what it is, its value, and where it was."""

    kind: str
    value: float
    start: int
    end: int
    text: str
    per_gpu: bool = False  # throughput written "per GPU"
    unit: str = ""  # for kind "rate": the unit a price is quoted in ("kWh", "node-hour")
    per_node: float | None = None  # for "4 nodes of 8 GPUs": the 8


class Source(NamedTuple):
    """The text a handler reads: lower-cased, and the original with the same positions."""

    lower: str
    original: str


Handler = Callable[[re.Match[str], Source], list[Quantity] | None]


@dataclass(frozen=True)
class Rule:
    """A pattern and its handler; rules run by `order`, lowest first, across all modules."""

    order: int
    pattern: re.Pattern[str]
    handler: Handler


def rx(pattern: str) -> re.Pattern[str]:
    """Compile a pattern the way every rule is compiled (ASCII classes)."""
    return re.compile(pattern, re.ASCII)


# ---------------------------------------------------------------------------------------
# Pieces of patterns
# ---------------------------------------------------------------------------------------

BODY = r"(?:\d{1,3}(?:,\d{3})+(?!\d)|\d+)(?:\.\d+)?(?:e[+-]?\d+)?"


def num(name: str) -> str:
    """A named group matching one written number (digits, commas, decimals, exponent)."""
    # A minus sign counts only when it starts a word ("-5 GPUs", "(-5"), so hyphenated
    # names ("Llama-3-8B") don't turn into negatives. A number glued to a word, a dot or an
    # operator ("h100", "9**9") is not a number.
    return (rf"(?P<{name}>(?:(?:^|(?<=[\s(\[:=,~]))-(?=\d){BODY})"
            rf"|(?<![\w.*^/\-]){BODY})")


_SCALE_WORDS = {
    "k": 1e3, "thousand": 1e3,
    "m": 1e6, "mn": 1e6, "mm": 1e6, "million": 1e6,
    "b": 1e9, "bn": 1e9, "billion": 1e9,
    "t": 1e12, "tn": 1e12, "trillion": 1e12,
}
SCALE = r"\s?(?:thousand|million|billion|trillion|mn|mm|bn|tn|k|m|b|t)\b"
_MONEY_SCALE = r"\s?(?:thousand|million|billion|mn|bn|k|m|b)\b"
GPU = (r"(?:nvidia\s)?(?:gpus?|h100s?|h200s?|h800s?|a100s?|a10g?s?|b200s?|gb200s?|l40s?|"
       r"l4s?|mi300x?s?|mi250x?s?|tpus?|accelerators?)\b")
GPU_OR_CARD = (r"(?:gpu|h100|h200|h800|a100|a10g?|b200|gb200|l40s?|l4|mi300x?|mi250x?|tpu|"
               r"card|chip|accelerator|device)s?")
NODE = r"(?:nodes?|servers?|machines?|hosts?|instances?|boxes|box|vms?)"
#: What holds GPUs, for power and for "each": a server, a node, a rack, a DGX.
SERVER = r"(?:nodes?|servers?|machines?|hosts?|boxes|box|racks?|systems?|dgx|hgx|chassis)"
_HOUR = r"(?:hours?|hrs?|h)\b"
PCT = r"\s?(?:%|percent\b|per\s?cent\b|pct\b)"
# "MFU of 40%", "MFU is only 30%", "MFU: 40%", "MFU=0.4". Bounded, so it stays linear.
CONNECT = (r"(?:\s?(?:of|by|=|:|is|at|around|about|roughly|approximately|~|only|just|was|"
           r"be|were|will|would|to|maybe|probably|say|like|near|nearly|assume|assuming)){0,3}\s?")

_MONEY = (rf"(?:(?:(?:^|(?<=[\s(\[:=,~]))(?P<neg>-))?(?<![\w$])(?:\$|usd\s?|us\$\s?)\s?"
          rf"(?P<neg2>-)?(?P<m1>{BODY})(?P<s1>{_MONEY_SCALE})?"
          rf"|{num('m2')}(?P<s2>{_MONEY_SCALE})?\s?(?:(?:dollars?|usd|bucks)\b|\$(?!\w))"
          rf"|{num('m3')}\s?(?:cents?\b|¢|c(?=\s?(?:/|per|a)\s?kwh)))")
_PER = r"\s?(?:/|per|an?|each|every)\s?"
_RATE_GPU_HOUR = (rf"{_PER}(?:{GPU_OR_CARD}(?:\s?(?:/|per|an?|-)\s?|[\s-]?))?{_HOUR}"
                  rf"(?:\s?(?:/|per|each|an?)\s?{GPU_OR_CARD}\b)?")
# Prices in a unit that is not a GPU-hour. A calculator may take one (its `price_units`);
# any other is refused by name rather than read as a price per GPU-hour.
_RATE_UNIT = (r"\s?(?:/|per|an?|each|every)\s?(?P<unit>"
              r"(?:kwh|kw\s?h|kilowatt[\s-]?hours?|mwh|megawatt[\s-]?hours?|kw|kilowatts?)\b|"
              rf"{NODE}(?:[\s-]?{_HOUR}|\s?(?:/|per|an?)\s?{_HOUR})|"
              r"(?!(?:" + GPU_OR_CARD + r")-)[a-z]+-(?:hours?|hrs?)\b)")
_RATE_OTHER = (r"\s?(?:/|per|an?|each|every)\s?(?:1m|1k|million|thousand|m|k|mtok)?\s?"
               r"(?:tokens?|toks?|months?|mo|days?|weeks?|wk|years?|yr|gpus?|nodes?|"
               r"requests?|queries|query|users?|seats?|tb|gb)\b")
_PRICE_CONTEXT = re.compile(
    r"(?:\bat|@|\bprice[ds]?(?:\s(?:of|is|at))?|\brate(?:\s(?:of|is))?|\bcharges?|"
    r"\bcharging|\bcosts?|\bcosting|\bpays?|\bpaying|:|=|"
    # "if a GPU-hour is $2", "a GPU hour costs $2", "GPU-hours go for $2"
    r"\b(?:gpu|h100|h200|h800|a100|b200|gb200|card|chip|accelerator)s?[\s-]?(?:hours?|hrs?|h)"
    r"\s(?:is|are|costs?|runs?|goes\sfor|go\sfor|will\sbe|would\sbe|is\spriced\sat))"
    r"\s?(?:about|around|roughly|~|only|just)?\s?-?$", re.ASCII)

_SUPERSEDED = re.compile(
    r"(?:instead\sof|rather\sthan|not|than|from|was|were)\s?(?:the\s|a\s|an\s)?$", re.ASCII)

_WORD_NUMBERS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
    "a couple of": 2, "half a": 0.5, "half an": 0.5, "the": 1,
}
_DURATION_UNITS = r"(?P<u>hours?|hrs?|h|minutes?|mins?|days?|weeks?|wks?|months?|years?|yrs?)\b"


# ---------------------------------------------------------------------------------------
# Values
# ---------------------------------------------------------------------------------------

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


def to_float(text: str | None) -> float:
    """Turn matched digits into a float (inf for "1e309"); parsing, not evaluating."""
    # The regex guarantees digits, commas, one dot, an optional exponent and sign.
    return float((text or "").replace(",", "").replace(" ", ""))


def scaled(value: float, scale: str | float | None) -> float:
    """Multiply by a scale word ("k", "billion") or factor, exactly in decimal."""
    factor = scale if isinstance(scale, float) else _SCALE_WORDS.get((scale or "").strip(), 1.0)
    if factor == 1.0 or not math.isfinite(value):
        return value
    # Decimal keeps 2.5 × 1e3 exactly 2500 rather than picking up float noise.
    return float(Decimal(repr(value)) * Decimal(repr(factor)))


def percent(value: float) -> float:
    """Turn a percentage into a fraction exactly: 40 -> 0.4."""
    return float(Decimal(repr(value)) / 100) if math.isfinite(value) else value


def count(value: float) -> float | int:
    """GPU counts become ints when whole, so "2.5 GPUs" stays 2.5 for the calculator to reject."""
    return int(value) if math.isfinite(value) and float(value).is_integer() else value


def q(kind: str, value: float, m: re.Match[str], src: Source, **kw: Any) -> list[Quantity]:
    """One Quantity for a whole match."""
    return [Quantity(kind, value, m.start(), m.end(), src.lower[m.start():m.end()], **kw)]


# ---------------------------------------------------------------------------------------
# Handlers
# ---------------------------------------------------------------------------------------

def _money_value(m: re.Match[str]) -> float:
    if m.group("m3") is not None:
        return percent(to_float(m.group("m3")))  # "12 cents" is $0.12, exactly
    if m.group("m1") is not None:
        value = scaled(to_float(m.group("m1")), m.group("s1"))
        negative = bool(m.group("neg")) != bool(m.group("neg2"))
        return -value if negative else value
    return scaled(to_float(m.group("m2")), m.group("s2"))


def _kind(kind: str) -> Handler:
    def handle(m: re.Match[str], src: Source) -> list[Quantity]:
        return q(kind, _money_value(m), m, src)
    return handle


def _bare_money(m: re.Match[str], src: Source) -> list[Quantity]:
    before = src.lower[max(0, m.start() - 30):m.start()]
    kind = "at_price" if _PRICE_CONTEXT.search(before) else "money"
    return q(kind, _money_value(m), m, src)


def _unit_name(unit: str) -> str:
    unit = re.sub(r"[\s-]+", " ", unit).strip()
    if unit.startswith(("kilowatt h", "kw h")) or unit == "kwh":
        return "kWh"
    if unit.startswith("megawatt") or unit == "mwh":
        return "MWh"
    if unit.startswith(("kw", "kilowatt")):
        return "kW"
    word = re.match(r"[a-z]*", unit)
    if word and re.fullmatch(NODE, word.group(0)):
        return "node-hour"
    return unit.replace(" ", "-").rstrip("s")


def _rate(m: re.Match[str], src: Source) -> list[Quantity]:
    return q("rate", _money_value(m), m, src, unit=_unit_name(m.group("unit")))


def consume(kind: str) -> Handler:
    """A handler reading group "n" as it is written."""
    def handle(m: re.Match[str], src: Source) -> list[Quantity]:
        return q(kind, to_float(m.group("n")), m, src)
    return handle


def scaled_handler(kind: str) -> Handler:
    """A handler reading group "n" times the scale word in group "sc"."""
    def handle(m: re.Match[str], src: Source) -> list[Quantity]:
        return q(kind, scaled(to_float(m.group("n")), m.group("sc")), m, src)
    return handle


def fraction_handler(kind: str) -> Handler:
    """A handler for a fraction: "40%" is 0.4, a bare number is taken as written."""
    def handle(m: re.Match[str], src: Source) -> list[Quantity]:
        value = to_float(m.group("n"))
        # "MFU of 40" reaches the calculator as 40 and is rejected by name, not guessed at.
        if m.group("pc"):
            value = percent(value)
        return q(kind, value, m, src)
    return handle


def _nodes_times_gpus(m: re.Match[str], src: Source) -> list[Quantity]:
    per_node = to_float(m.group("g"))
    return q("gpus", count(to_float(m.group("n")) * per_node), m, src, per_node=per_node)


def _gpus(m: re.Match[str], src: Source) -> list[Quantity]:
    return q("gpus", count(scaled(to_float(m.group("n")), m.group("sc"))), m, src)


_PER_GPU_UNIT = re.compile(rf"\b{GPU_OR_CARD}\b", re.ASCII)


def _bare_rate(m: re.Match[str], src: Source) -> list[Quantity] | None:
    # Without "$" a number per hour is a price when it is written like one: per GPU-hour
    # ("5.80/gpu-hr"), with cents ("2.49 an hour"), or after "at", "price is" ("at 3 an
    # hour"); "restarts 3 per hour" is not.
    before = src.lower[max(0, m.start() - 30):m.start()]
    unit = src.lower[m.end("n"):m.end()]
    if "." in m.group("n") or _PER_GPU_UNIT.search(unit) or _PRICE_CONTEXT.search(before):
        return consume("price")(m, src)
    return None


def _at_each(m: re.Match[str], src: Source) -> list[Quantity]:
    # "4 GPUs @ 2.2 apiece": a price per GPU with no unit of time is, like "at $7", a price
    # per GPU-hour; the amount starts at the number, not at "@".
    value = to_float(m.group("n"))
    return [Quantity("at_price", value, m.start("n"), m.end(), src.lower[m.start("n"):m.end()])]


# ---------------------------------------------------------------------------------------
# What an amount is per: "700 W each" after "1,000 GPUs" is per GPU
# ---------------------------------------------------------------------------------------

_PER_THING = re.compile(
    rf"\s?(?:per|/|a|an|each|for\s(?:each|every|one|a))\s?(?:(?P<gpu>{GPU_OR_CARD})|"
    rf"(?P<node>{SERVER}))\b", re.ASCII)
_EACH = re.compile(r"\s?(?:each|apiece|a\spiece|per\s(?:piece|unit|one))\b", re.ASCII)
_COUNTED = re.compile(rf"\b(?:(?P<gpu>{GPU_OR_CARD})|(?P<node>{SERVER}))\b", re.ASCII)


def bound_to(src: Source, start: int, end: int) -> str | None:
    """What the amount at start:end is per: "gpu", "node", or None when the text does not say.

    "700 W per GPU", "700 W a card" say it; "700 W each" and "2.2 apiece" mean each of the
    nearest counted thing before the amount ("1,000 GPUs drawing 700 W each": per GPU,
    "32 servers at 10 kW each": per server).
    """
    after = src.lower[end:end + 40]
    m = _PER_THING.match(after)
    if m is None and _EACH.match(after):
        m = next(reversed(list(_COUNTED.finditer(src.lower[max(0, start - 120):start]))),
                 None)
    if m is None:
        return None
    return "gpu" if m.group("gpu") else "node"


def _duration(m: re.Match[str], src: Source) -> list[Quantity]:
    return q("hours", to_float(m.group("n")) * _unit_hours(m.group("u")), m, src)


def _word_duration(m: re.Match[str], src: Source) -> list[Quantity]:
    number = _WORD_NUMBERS[re.sub(r"\s+", " ", m.group("w"))]
    return q("hours", number * _unit_hours(m.group("u")), m, src)


def _period(m: re.Match[str], src: Source) -> list[Quantity]:
    unit = m.group("u") or {"daily": "day", "weekly": "week", "monthly": "month",
                            "yearly": "year", "annually": "year"}[m.group("adv")]
    return q("hours", _unit_hours(unit), m, src)


# Orders leave room for the calculators' rules: their own amounts come between the money
# rules (10-19) and the GPU counts (50-59), and between those and the durations (90+).
CORE_RULES: tuple[Rule, ...] = (
    Rule(10, rx(_MONEY + _RATE_GPU_HOUR), _kind("price")),
    Rule(11, rx(_MONEY + _RATE_UNIT), _rate),
    Rule(12, rx(_MONEY + _RATE_OTHER), _kind("money_other")),
    Rule(13, rx(_MONEY), _bare_money),
    # "NaN dollars an hour": no readable amount, and no "an hour" left for a one-hour job.
    Rule(14, rx(rf"(?:\$|dollars?|usd|bucks){_RATE_GPU_HOUR}"), lambda m, src: []),
    # "2.49 an hour", "5.80/gpu-hr", "1.85/gpu/hr": a rate per GPU-hour needs no "$".
    Rule(15, rx(rf"{num('n')}{_RATE_GPU_HOUR}"), _bare_rate),
    # "4 GPUs @ 2.2 apiece", "at 3 per GPU": a bare amount each GPU pays.
    Rule(16, rx(rf"(?:\bat|@)\s?(?:about\s|around\s|~\s?)?{num('n')}\s?(?:each|apiece|"
                rf"a\spiece|(?:per|a|an|/)\s?{GPU_OR_CARD}\b)"), _at_each),
    Rule(50, rx(rf"{num('n')}(?P<sc>{SCALE})?\s?{GPU_OR_CARD}[\s-]?{_HOUR}"),
         consume("gpu_hours")),
    Rule(51, rx(rf"{num('n')}\s?(?:(?:dgx|hgx)[\s-]?)?(?:{GPU}\s)?(?:nodes?|servers?|machines?|"
                r"hosts?|systems?)\s?(?:of|with|w/|x|×|\*|,?\s?each(?:\s(?:with|has|having))?|\(|"
                rf",(?=\s?\d+\s?{GPU}\seach))\s?{num('g')}\s?(?:x\s?)?{GPU}(?:\seach)?"),
         _nodes_times_gpus),
    # "64 nodes of 8 at $2.60", "32 nodes x8 @ $2.25": GPUs per node without the word
    Rule(51, rx(rf"{num('n')}\s?(?:nodes?|servers?|machines?|hosts?|boxes)\s?(?:of|x|×)\s?"
                rf"(?P<g>\d{{1,2}})(?=\s?(?:@|at\b|,|;|\)|for\b|on\b|each\b|\.(?!\d)|$))"),
         _nodes_times_gpus),
    # "2 8-gpu boxes", "4 x 8-gpu servers": servers counted, each of so many GPUs
    Rule(51, rx(rf"{num('n')}\s(?:x\s|×\s)?{num('g')}[\s-]?{GPU}\s?(?:boxes|box|servers?|nodes?|"
                r"machines?|hosts?)\b"), _nodes_times_gpus),
    # "8 servers, one gpu each": as many GPUs as servers
    Rule(51, rx(rf"{num('n')}\s?(?:nodes?|servers?|machines?|hosts?),?\s(?:with\s)?(?:one|a|"
                rf"a\ssingle|1)\s{GPU}\s?(?:each|apiece|per\s(?:node|server|machine|host))\b"),
         lambda m, src: q("gpus", count(to_float(m.group("n"))), m, src, per_node=1.0)),
    Rule(52, rx(rf"{num('n')}\s?(?:x\s?)?{GPU}\s?(?:per|/|a|each|in\seach)\s?"
                r"(?:node|server|machine|host|instance|box|system|chassis)\b"),
         consume("gpus_per_node")),
    Rule(53, rx(rf"{num('n')}\s?(?:nodes?|servers?|machines?|boxes)\b"), consume("nodes")),
    Rule(54, rx(rf"{num('n')}(?P<sc>\s?(?:k|thousand)\b)?\s?(?:x\s?|×\s?)?-?\s?"
                rf"(?:{GPU}|(?:gpu\s)?(?:cards?|chips?)\b)"
                r"(?![\s-]?(?:hours?|hrs?|h|days?|months?|weeks?|years?)\b)"), _gpus),
    # "60%" that no rule above claimed: which input it is depends on the calculation (a
    # follow-up "what about 60%?" after a serving cost is its utilization).
    Rule(89, rx(rf"{num('n')}{PCT}"), consume("percent")),
    Rule(90, rx(rf"{num('n')}[\s-]?{_DURATION_UNITS}"), _duration),
    Rule(91, rx(r"\b(?P<w>a\scouple\sof|half\san?|an?|the(?=\s(?:full|whole|entire)\s)|one|two|"
                r"three|four|five|six|seven|eight|nine|ten|eleven|twelve)[\s-]"
                rf"(?:(?:full|whole|entire)\s)?{_DURATION_UNITS}"), _word_duration),
    # "cost per month", "monthly": one such period (what no rate above claimed as its unit).
    Rule(92, rx(r"\b(?:per|each|every)\s(?P<u>day|week|month|year)\b|"
                r"\b(?P<adv>daily|weekly|monthly|yearly|annually)\b"), _period),
)

#: Kinds of amount that are money, whatever they are a price of.
MONEY_KINDS = frozenset({"price", "at_price", "money", "money_other", "rate"})
#: Kinds the shared rules find whose input name differs from the kind.
CORE_INPUTS: Mapping[str, str] = {"price": "price_per_gpu_hour",
                                  "at_price": "price_per_gpu_hour"}


# ---------------------------------------------------------------------------------------
# Scanning
# ---------------------------------------------------------------------------------------

def normalize(text: str) -> tuple[str, str]:
    """Return (text, lower-case text) with the same length, whitespace runs collapsed."""
    text = text[:MAX_CHARS].translate({0x2212: "-", 0x2013: "-", 0x2014: "-"})
    text = re.sub(r"\s+", " ", text).strip()
    # Lower-case one character at a time so positions line up with the original text
    # (a few characters, like "İ", lower-case to two).
    lower = "".join(c.lower() if len(c.lower()) == 1 else c for c in text)
    # "two gb200 nvl72 racks", "a dozen nodes", "ten days": a count in words is read as its
    # digits, padded with zeros to the words' length so positions still line up.
    lower = in_digits(lower, _COUNTED_IN_WORDS)
    lower = _ONE_PER_SERVER.sub("001", lower)  # "one gpu per node" counts GPUs node by node
    return text, lower


_ONE_PER_SERVER = re.compile(rf"\bone(?=\s{GPU}\s(?:per|each|in\seach|/)\s?{SERVER})", re.ASCII)
_COUNTED_IN_WORDS = (rf"{GPU}|{SERVER}\b|(?:links?|nics?|ports?|tokens?|toks?)\b|"
                     r"(?:hours?|hrs?|days?|weeks?|months?|years?)\b")


def scan(src: Source, rules: Sequence[Rule]) -> tuple[list[Quantity], str]:
    """Run the rules in order; return the amounts by position and the text left unread."""
    work = src.lower
    found: list[Quantity] = []
    for rule in sorted(rules, key=lambda r: r.order):
        spans = []
        for m in rule.pattern.finditer(work):
            quantities = rule.handler(m, src)
            if quantities is None:
                continue
            found.extend(quantities)
            spans.append(m.span())
        for a, b in spans:
            work = work[:a] + "#" * (b - a) + work[b:]
    found.sort(key=lambda x: x.start)
    return found, work


@dataclass
class Wording:
    """A question read into amounts: what calculators look at to choose and fill inputs."""

    original: str
    lower: str
    unread: str  # the lower-case text with every amount masked by "#"
    found: list[Quantity]
    notes: list[str] = field(default_factory=list)  # how amounts were converted
    problems: list[str] = field(default_factory=list)  # amounts that cannot be used, why

    def kinds(self) -> set[str]:
        """The kinds of amount found."""
        return {x.kind for x in self.found}

    def first(self, kinds: Iterable[str]) -> Quantity | None:
        """The amount of these kinds that is meant: not one superseded, a rate before "at"."""
        wanted = set(kinds)
        candidates = [x for x in self.found if x.kind in wanted]
        # "130 hours instead of 100 hours": the amount after "instead of" is the old one.
        current = [x for x in candidates
                   if not _SUPERSEDED.search(self.lower[max(0, x.start - 20):x.start])]
        pool = current or candidates
        if not pool:
            return None
        # A rate quoted per GPU-hour beats a bare "at $7" when both appear.
        return min(pool, key=lambda x: (x.kind == "at_price", x.start))


# ---------------------------------------------------------------------------------------
# Words about the question as a whole
# ---------------------------------------------------------------------------------------

# A money question: money words, "per million tokens", GPU-hours asked for. "How much" is
# money unless it asks how much of something else ("how much memory").
MONEY_INTENT = rx(
    r"\b(?:costs?|costing|price[sd]?|pricing|pay|paying|spend|spending|spent|bill|billed|"
    r"billing|budget|expensive|cheap|cheaper|cheapest|dearer|dearest|afford|dollars?|usd|"
    r"how\smany\sgpu[\s-]?hours|gpu[\s-]?hours|per\smillion|"
    r"how\smuch(?!\s(?:[a-z]+\s)?(?:memory|vram|ram|hbm|bandwidth|power|energy|storage|disk|"
    r"data|space|faster|better|bigger|larger|smaller|slower|latency|time|throughput|traffic|"
    r"speed|compute|flops?|gpus?|network|networking)\b))\b")
# Words that ask for a figure without naming money: a calculator may count them as a
# calculation when its own amounts are there ("How long to train 70B on 15T tokens ...").
WEAK_INTENT = rx(
    r"\b(?:calculate|calculation|calc|estimate|estimated|work\sout|total|compare|comparison|"
    r"versus|vs|how\slong|how\smany\s(?:hours|days|weeks)|wall[\s-]?clock|time\sto\strain)\b")
# After a calculation, a question on one of these topics is a new question, not a follow-up,
# even when it names a GPU count ("how many switches for 1024 GPUs?").
OTHER_TOPIC = rx(
    r"\b(?:switch(?:es)?|bandwidth|latency|all-?reduce|all-?gather|nccl|topology|ports?|"
    r"links?|cables?|optics|transceivers?|racks?|nvl\d+|enough|fit|fits|memory|vram|hbm|"
    r"gb/s|gbps|tb/s|tbps|"
    # "how many GPUs do I need": the calculators size no clusters.
    r"how\smany\s(?!(?:gpu[\s-]?)?hours\b)[a-z0-9-]+(?:\s[a-z0-9-]+)?\s(?:do|does|would|will|"
    r"can|could|should)\s(?:i|we|you|it|they)\s(?:need|want|require|use|get))\b")
# What else a question may price ("how much is InfiniBand for 16 GPUs?"): the network and
# its parts, which the lessons price, not the GPU-rental calculator.
NETWORK_GEAR = rx(r"\b(?:infiniband|ib|ethernet|roce(?:v2)?|networks?|networking|fabrics?|nics?|"
                  r"nvlink|spectrum-?x|optics?|transceivers?|cables?|cabling|switch(?:es)?|"
                  r"connect(?:s|ed|ing|ion)?|interconnects?|wire|wiring)\b")
FOLLOWUP = rx(r"^(?:and|what\sif|what\sabout|how\sabout|with|at|for|now|then|instead|same|"
              r"but|ok|okay|so|try)\b|\b(?:instead|what\sif|what\sabout|how\sabout)\b")
# "burns per hour", "hourly burn", "what is that an hour": a rate is asked for, not a total.
# Read on the unread text, so "$3 an hour" (a price) does not count.
HOURLY = rx(r"\bhourly\b|\b(?:per|an|each|every|a)\s(?:single\s)?hour\b|/\s?h(?:ou)?r?\b")
BARE_ANSWER = rx(
    rf"^(?:(?:about|around|roughly|say|use|assume|make\sit|let'?s\ssay)\s)?"
    rf"(?P<neg>-)?(?P<dollar>\$)?\s?(?P<n>{BODY})(?P<sc>{SCALE})?(?P<pc>{PCT})?\s?[.!?]?$")
