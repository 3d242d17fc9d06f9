"""Cluster quote comparison: quotes side by side by total cost, gpus × price × hours.

Example:
    >>> r = compare_cluster_quotes(256, [
    ...     {"name": "A", "price_per_gpu_hour": 6.5, "hours": 130},
    ...     {"name": "B", "price_per_gpu_hour": 7.0, "hours": 100}])
    >>> r.cheapest, r.difference
    ('B', 37120.0)
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any

from pydantic import Field

from assistant.calculators._base import (
    MAX_GPUS,
    MAX_HOURS,
    MAX_PRICE_PER_GPU_HOUR,
    MAX_QUOTE_NAME_CHARS,
    MAX_QUOTES,
    MIN_QUOTES,
    PER_GPU,
    Calculator,
    CalculatorError,
    Inputs,
    MissingInput,
    Prompt,
    Result,
    Unit,
    check,
    format_money,
    format_number,
    format_price,
    gpus_text,
)
from assistant.wording import Quantity, Rule, Wording, count, q, rx, to_float


class QuoteInput(Inputs):
    """One cluster quote."""

    name: str = Field(min_length=1, max_length=MAX_QUOTE_NAME_CHARS,
                      description="Unique name of the quote, e.g. 'A' or a provider.")
    price_per_gpu_hour: Annotated[float, Unit(" dollars")] = Field(
        gt=0, le=MAX_PRICE_PER_GPU_HOUR, description="Price in US dollars per GPU-hour.")
    hours: Annotated[float, Unit(" h")] = Field(gt=0, le=MAX_HOURS,
                                                description="Hours the job runs there.")
    gpus: int | None = Field(default=None, gt=0, le=MAX_GPUS,
                             description="GPUs for this quote, if not the shared count.")


class CompareClusterQuotesInput(Inputs):
    """Inputs of compare_cluster_quotes."""

    gpus: int | None = Field(default=None, gt=0, le=MAX_GPUS,
                             description="GPUs for every quote that gives no count of its own.")
    quotes: list[QuoteInput] = Field(min_length=MIN_QUOTES, max_length=MAX_QUOTES,
                                     description="From 2 to 10 quotes with unique names.")


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
class QuoteComparison(Result):
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


def _quote_cost(i: int, quote: Any, shared: int | None, seen: set[str]) -> QuoteCost:
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
    values = {}
    for key in ("gpus", "price_per_gpu_hour", "hours"):
        value = _quote_field(quote, key)
        if key == "gpus" and own is None:
            values[key] = shared
            continue
        values[key] = check(QuoteInput, key, value, label=f"{key} for quote {name!r}",
                            key=f"{path}.{key}")
    g, p, h = values["gpus"], values["price_per_gpu_hour"], values["hours"]
    return QuoteCost(name=name, gpus=g, price_per_gpu_hour=p, hours=h, gpu_hours=g * h,
                     total_cost=g * h * p, more_than_cheapest=0.0)


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
    shared = None if gpus is None else check(CompareClusterQuotesInput, "gpus", gpus)
    seen: set[str] = set()
    costs = [_quote_cost(i, quote, shared, seen) for i, quote in enumerate(quotes)]
    cheapest = min(costs, key=lambda x: x.total_cost)
    dearest = max(costs, key=lambda x: x.total_cost)
    costs = [dataclasses.replace(x, more_than_cheapest=x.total_cost - cheapest.total_cost)
             for x in costs]
    diff = dearest.total_cost - cheapest.total_cost
    working = [f"{x.name}: {gpus_text(x.gpus)} × {format_price(x.price_per_gpu_hour)}"
               f"/GPU-hour × {format_number(x.hours)} h = {format_money(x.total_cost)}"
               for x in costs]
    if diff == 0:
        working.append(f"All quotes cost the same: {format_money(cheapest.total_cost)}")
        summary = f"All quotes cost {format_money(cheapest.total_cost)}"
    else:
        working += [f"{x.name} costs {format_money(x.more_than_cheapest)} more than "
                    f"{cheapest.name}" for x in costs if x.name != cheapest.name]
        summary = (f"{cheapest.name} is cheapest at {format_money(cheapest.total_cost)}, "
                   f"{format_money(diff)} less than {dearest.name} "
                   f"({format_money(dearest.total_cost)})")
    formula = (" vs ".join(f"{x.name} {format_money(x.total_cost)}" for x in costs)
               + f" → {cheapest.name} cheaper by {format_money(diff)}")
    return QuoteComparison(
        quotes=costs, cheapest=cheapest.name, dearest=dearest.name,
        cheapest_cost=cheapest.total_cost, dearest_cost=dearest.total_cost, difference=diff,
        formula=formula, summary=summary, working=working,
    )


# -- Wording: which price, duration and GPU count belongs to which quote --------------------

_MARKER = rx(
    r"\b(?:cluster|provider|quote|option|vendor|offer|cloud|deal|bid|supplier)\s"
    # "cluster A" is a name but "a cluster a lot bigger" is not: a one-letter "a" counts as a
    # name only when a price, a verb or punctuation follows.
    r"(?P<name>an?(?=\s?(?:at|@|for|with|on|is|was|were|costs?|charges?|offers|quotes|vs|and|"
    r"or)\b|"
    r"\s?[:,;$@)]|$)|(?!(?:at|for|with|on|is|and|vs|or|of|the|a|an|to|costs?|charges?|"
    r"quotes?|offers?|asks?)\b)"
    r"[a-z0-9][a-z0-9_.-]{0,29})")
_SEPARATOR = rx(r"\b(?:vs\.?|versus|compared\s(?:to|with)|against|or|with|and|while|whereas|"
                r"but)\b|;")
_NOT_NAMES = {"compare", "with", "and", "or", "vs", "the", "what", "which", "how", "is", "at",
              "for", "a", "an", "i", "if", "then", "on", "cost", "price", "gpus", "gpu"}
_CAPITALISED_NAME = re.compile(
    r"\b([A-Z][A-Za-z0-9_-]{1,30})(?:\s(?:at|@|is|charges|costs|quotes|offers|for))?\s?:?\s?$")
_COMPARE_WORD = rx(r"\b(?:compar\w+|vs|versus|cheaper|cheapest|dearer|dearest|quotes|wins)\b")


#: A quote named by one letter and a colon, an equals sign, a bracket or a price verb: "a: 512
#: gpus @ 1.99/hr", "a = 512 gpus @ 1.99/hr", "a) 256 gpus at $3/hr", "x charges 3.99/gpu-hr".
_LETTER_MARKER = rx(r"(?:^|(?<=[\s.;,(]))(?P<name>[a-z])"
                    r"(?=\s?[:=)]\s|\s(?:charges?|quotes?|asks)\b)")


_FIRST_LETTER = rx(r"\b(?:cluster|provider|quote|option|vendor|offer|cloud|deal|bid|supplier)"
                   r"\s(?P<name>a)\b")


def _markers(lower: str) -> list[re.Match[str]]:
    seen: set[str] = set()
    kept = []
    found = sorted([*_MARKER.finditer(lower), *_LETTER_MARKER.finditer(lower)],
                   key=lambda m: m.start())
    if "b" in {m.group("name") for m in found} and "a" not in {m.group("name") for m in found}:
        # "quote a 128 gpus @ 4.10 48h, quote b ...": beside a quote b, "quote a" is a name
        found = sorted([*found, *_FIRST_LETTER.finditer(lower)], key=lambda m: m.start())
    if len([m for m in found if len(m.group("name")) == 1]) < 2:
        found = list(_MARKER.finditer(lower))  # one lettered name is no comparison
    for m in found:
        name = m.group("name").rstrip(".-")
        if name and name not in seen:
            seen.add(name)
            kept.append(m)
    return kept


# "cluster B is 6.40 and takes 120 hrs": a bare number right after a quote's name, followed
# by nothing that makes it another amount, is that quote's price.
_BARE_PRICE = rx(r"\s?(?:is|at|@|:|-|=|charges?|costs?|quotes?|offers?)?\s?"
                 r"(?:about\s|around\s|~\s?)?\$?(?P<n>\d+(?:\.\d+)?)"
                 r"(?=\s?(?:[,;.)!?]|$|(?:and|but|or|vs|versus|while|whereas|with|which|if|"
                 r"so|then)\b))")
# "b: 384 gpus @ 2.40, 12 days": a bare amount after "@" or "at" in a quote's part, followed by
# no unit ("at 2.90 and it finishes in 2.5 days", "@ 2.90 done in 9 days"), is its price.
_AT_PRICE = rx(r"(?:@|\bat)\s?\$?(?P<n>\d+(?:\.\d+)?)(?!\.?\d|\s?(?:%|(?!(?:and|but|or|vs|"
               r"while|whereas|with|which|then|so|done|finish\w*|complet\w*|tak(?:es|ing)|for|"
               r"in)\b)[a-z]))")


def _bare_prices(w: Wording, markers: list[re.Match[str]], taken: list[Quantity]
                 ) -> list[Quantity]:
    found = []
    for i, m in enumerate(markers):
        end = markers[i + 1].start() if i + 1 < len(markers) else len(w.lower)
        if any(m.end() <= x.start < end for x in taken):
            continue
        hit = _BARE_PRICE.match(w.unread, m.end()) or _AT_PRICE.search(w.unread, m.end(), end)
        if hit is not None:
            found.append(Quantity("price", float(hit.group("n")), hit.start("n"), hit.end("n"),
                                  w.lower[hit.start("n"):hit.end("n")]))
    return found


def _prices(w: Wording, markers: list[re.Match[str]]) -> list[Quantity]:
    prices = [x for x in w.found if x.kind in ("price", "at_price")]
    if len(prices) < 2 and (len(markers) >= 2 or _COMPARE_WORD.search(w.lower)):
        # "$6.50 for 130 h vs $7 for 100 h", "$3.20 per GPU": prices once quotes are compared
        prices = [x for x in w.found if x.kind in ("price", "at_price", "money")
                  or (x.kind == "money_other" and PER_GPU.search(x.text))]
    if len(prices) < len(markers):
        prices += _bare_prices(w, markers, prices)
    # "z is 128 at 2.10 but 520 hrs" beside other prices, or in quotes compared
    if len(prices) >= 2 or (prices and _COMPARE_WORD.search(w.lower)):
        prices += [Quantity("price", float(m.group("n")), m.start("n"), m.end("n"), m.group("n"))
                   for m in _AT_PRICE.finditer(w.unread)
                   if not any(p.start <= m.start("n") < p.end for p in prices)]
    return sorted(prices, key=lambda x: x.start)


def _crossings(a: int, b: int, cuts: list[int]) -> int:
    lo, hi = min(a, b), max(a, b)
    return sum(1 for c in cuts if lo <= c < hi)


def _nearest(x: Quantity, prices: list[Quantity], cuts: list[int]) -> int:
    def distance(i: int) -> tuple[int, int]:
        p = prices[i]
        gap = p.start - x.end if p.start >= x.end else x.start - p.end
        return (_crossings(x.start, p.start, cuts), max(gap, 0))
    return min(range(len(prices)), key=distance)


def _name_before(price: Quantity, original: str, markers: list[re.Match[str]],
                 separators: list[int]) -> tuple[int, str] | None:
    """Where the name of the quote a price belongs to starts, and the name."""
    before = [m for m in markers if m.end() <= price.start]
    if before and not any(before[-1].end() <= c < price.start for c in separators):
        m = before[-1]
        name = original[m.start("name"):m.end("name")].rstrip(".-")
        # "option 1" reads better as "Option 1" than as "1"; "cluster A" stays "A".
        return m.start(), (f"{m.group(0).split()[0].capitalize()} {name}" if name.isdigit()
                           else name)
    window = max(0, price.start - 40)
    hit = _CAPITALISED_NAME.search(original[window:price.start])
    if hit and hit.group(1).lower() not in _NOT_NAMES:
        return window + hit.start(1), hit.group(1)
    letter = _LETTER_NAME.search(original[window:price.start])
    if letter and len(set(_LETTER_PRICED.findall(original))) >= 2:
        return window + letter.start(1), letter.group(1)
    return None


# "A $2.10/h for 500h, B $1.90/h for 560h": capital letters that each label a price are the
# quotes' names (one alone, "A $2 GPU-hour", is an article).
_LETTER_PRICED = re.compile(r"(?:^|[\s:,;(])([A-HJ-Z])\s?[:=-]?\s?(?:at\s|@\s?)?\$?\d")
_LETTER_NAME = re.compile(r"(?:^|[\s:,;(])([A-HJ-Z])\s?[:=-]?\s?(?:at\s|@\s?)?$")


def _name_starts(named: list[tuple[int, str] | None]) -> list[int] | None:
    """Where each quote's name starts, if every price follows its own name, in order."""
    if any(n is None for n in named):
        return None
    starts = [n[0] for n in named if n is not None]
    if any(b <= a for a, b in zip(starts, starts[1:], strict=False)):
        return None
    return starts


def _owner(x: Quantity, prices: list[Quantity], cuts: list[int],
           starts: list[int] | None) -> int:
    # "quote A $4.50/hr and the job takes 10 days, quote B $4/hr but takes 12 days": what
    # lies between a quote's name and the next quote's name belongs to that quote.
    if starts is not None and x.start >= starts[0]:
        return max(i for i, s in enumerate(starts) if s <= x.start)
    return _nearest(x, prices, cuts)


def _share(kind: str, w: Wording, quotes: list[dict[str, Any]], owner: Any) -> Any:
    """One amount of a kind is shared by every quote; several go to the quote they follow."""
    found = [x for x in w.found if x.kind == kind]
    value = (lambda x: count(x.value)) if kind == "gpus" else (lambda x: x.value)
    if len(found) == 1:
        return value(found[0])
    for x in found:
        quotes[owner(x)].setdefault(kind, value(x))
    return None


def _in_order(w: Wording, kind: str, prices: list[Quantity], after: bool) -> list[float] | None:
    """One amount of a kind in each quote's stretch of text (after its price up to the next
    price, or before it back to the previous one), in order; None unless every quote has
    exactly one and there are as many as quotes."""
    found = [x for x in w.found if x.kind == kind]
    if len(found) != len(prices) or len(prices) < 2:
        return None
    edges = [p.start for p in prices] + [len(w.lower)] if after else \
        [0] + [p.end for p in prices]
    values = []
    for i, price in enumerate(prices):
        lo, hi = (price.end, edges[i + 1]) if after else (edges[i], price.start)
        inside = [x for x in found if lo <= x.start < hi]
        if len(inside) != 1:
            return None
        values.append(inside[0].value)
    return values


def _quote_args(w: Wording) -> dict[str, Any]:
    markers = _markers(w.lower)
    prices = _prices(w, markers)
    gpus = [x for x in w.found if x.kind == "gpus"]
    if len(prices) < 2:
        return {"gpus": count(gpus[0].value)} if gpus else {}
    separators = [m.start() for m in _SEPARATOR.finditer(w.lower)]
    cuts = sorted(separators + [m.start() for m in markers])
    named = [_name_before(p, w.original, markers, separators) for p in prices]
    starts = _name_starts(named)
    quotes: list[dict[str, Any]] = [{"price_per_gpu_hour": p.value} for p in prices]

    def owner(x: Quantity) -> int:
        return _owner(x, prices, cuts, starts)

    # Without names, each quote written as "price ... hours" ("cloud1 is $1.99/gpu-hr and
    # would take 45 days, cloud2 is $2.35/gpu-hr but 36 days") or "gpus ... price" owns
    # the amount in its own stretch of the text, when every quote has exactly one; failing
    # that, the other way round ("1.89/gpu-hr ... 400 hours on 128 gpus; 2.19/gpu-hr ...").
    ordered = {} if starts is not None else {
        kind: _in_order(w, kind, prices, after) or _in_order(w, kind, prices, not after)
        for kind, after in (("hours", True), ("gpus", False))}
    for kind, values in ordered.items():
        for quote, value in zip(quotes, values or (), strict=False):
            quote[kind] = count(value) if kind == "gpus" else value
    hours = None if ordered.get("hours") else _share("hours", w, quotes, owner)
    if hours is not None:
        for quote in quotes:
            quote["hours"] = hours
    args: dict[str, Any] = {}
    shared_gpus = None if ordered.get("gpus") else _share("gpus", w, quotes, owner)
    if shared_gpus is not None:
        args["gpus"] = shared_gpus
    used: set[str] = set()
    for i, (quote, name_at) in enumerate(zip(quotes, named, strict=True), start=1):
        name = name_at[1] if name_at else ""
        if not name or name.casefold() in used:
            name = f"Quote {i}"
        used.add(name.casefold())
        # Name first, so tool_calls read naturally.
        quotes[i - 1] = {"name": name, **quote}
    args["quotes"] = quotes
    return args


_QUOTE_KINDS = {"hours": {"hours"}, "price": {"price", "at_price", "money"}, "gpus": {"gpus"}}
_MARKER_WORD = (r"(?:cluster|provider|quote|option|vendor|offer|cloud|deal|bid|supplier)")


def _named_quote(w: Wording, quotes: Sequence[Mapping[str, Any]]) -> int | None:
    """The quote a follow-up names ("B's job", "quote 2", "Lambda"), if one."""
    for i, quote in enumerate(quotes):
        name = str(quote.get("name") or "")
        if not name:
            continue
        word = re.escape(name.lower())
        if re.search(rf"\b{_MARKER_WORD}\s{word}\b|\b{word}'s\b", w.lower):
            return i
        # A one-letter name counts alone only as a capital that is not the article "A" (or
        # "I"), unless a lower-case word comes before it ("what if A knocks its price down")
        if len(name) > 1 and re.search(rf"\b{word}\b", w.lower) or (
                len(name) == 1 and re.search(rf"\b{re.escape(name)}\b", w.original)
                and (name not in "AI" or re.search(rf"\b[a-z]+\s{re.escape(name)}\s[a-z]",
                                                   w.original))):
            return i
    return None


class _CompareQuotes(Calculator):
    def reads(self, kind: str) -> bool:
        return kind in ("price", "at_price", "money", "hours") or super().reads(kind)

    def selects(self, w: Wording) -> bool:
        return len(_prices(w, _markers(w.lower))) >= 2

    def read(self, w: Wording) -> tuple[dict[str, Any], list[str]]:
        notes = [f"{x.text} is read as a price per GPU-hour, like the other quotes."
                 for x in _prices(w, _markers(w.lower)) if x.kind == "money_other"]
        return _quote_args(w), notes

    @property
    def money_kind(self) -> str | None:
        return "price"

    def changes(self, w: Wording, previous: Mapping[str, Any] | None = None) -> bool:
        # "same but B's job takes 140 hours": an amount for one quote, named.
        quotes = (previous or {}).get("quotes") or []
        return super().changes(w, previous) or (
            bool(w.kinds() & {"hours", "price", "at_price", "money"})
            and _named_quote(w, quotes) is not None)

    def carry(self, previous: Mapping[str, Any], args: Mapping[str, Any], w: Wording
              ) -> dict[str, Any]:
        merged = super().carry(previous, args, w)
        quotes = list(previous.get("quotes") or [])
        target = _named_quote(w, quotes) if len(args.get("quotes") or []) < 2 else None
        if target is None:
            return merged
        changed = dict(quotes[target])
        for kind, key in (("hours", "hours"), ("price", "price_per_gpu_hour"),
                          ("gpus", "gpus")):
            x = w.first(_QUOTE_KINDS[kind])
            if x is not None:
                changed[key] = count(x.value) if key == "gpus" else x.value
        if "gpus" in changed and "gpus" in args:
            merged.pop("gpus")  # the count was this quote's, not every quote's
            if "gpus" in previous:
                merged["gpus"] = previous["gpus"]
        quotes[target] = changed
        merged["quotes"] = quotes
        return merged

    def missing(self, args: Mapping[str, Any], w: Wording) -> list[str]:
        quotes = args.get("quotes") or []
        if len(quotes) < 2:
            return ["quotes"] + ([] if "gpus" in args else ["gpus"])
        required = []
        if "gpus" not in args and any("gpus" not in x for x in quotes):
            required.append("gpus")
        if any("hours" not in x for x in quotes):
            required.append("hours")
        return required


CALCULATOR = _CompareQuotes(
    name="compare_cluster_quotes",
    function=compare_cluster_quotes,
    inputs=CompareClusterQuotesInput,
    result=QuoteComparison,
    label="cluster quote comparison",
    lesson="reading-a-cluster-quote",
    description=(
        "Compare 2 to 10 cluster quotes by total cost (gpus × price per GPU-hour × hours).\n\n"
        "Returns each quote's total, the cheapest and dearest names, the difference between "
        "them and each quote's excess over the cheapest, or {\"error\": ...}."),
    prompts={
        "quotes": Prompt("Which quotes should I compare? Give each a price per GPU-hour and "
                         "hours, e.g. 'cluster A at $6.50 for 130 hours vs cluster B at $7 for "
                         "100 hours'."),
    },
    # "quote two: 2048 @ $2.15", "(2) 256 @ 2.49/hr": a count right after a quote's name or
    # number, before its price
    rules=(Rule(55, rx(r"(?<=[:)]\s)(?P<n>\d{1,3}(?:,\d{3})+|\d+)(?=\s?(?:@|at\s)\s?[$#\d])"),
                lambda m, src: q("gpus", count(to_float(m.group("n"))), m, src)),),
    priority=30,
    example={"gpus": 256, "quotes": [
        {"name": "A", "price_per_gpu_hour": 6.5, "hours": 130},
        {"name": "B", "price_per_gpu_hour": 7.0, "hours": 100}]},
    order=40,
)
