"""Amounts written as labelled fields: "gpus: 256 / price: 2.10 / hours: 500".

People paste inputs the way a form or a spreadsheet shows them, the label first and the
amount after it. These rules read a GPU count, hours, a price per GPU-hour and watts per GPU
written that way; every other labelled amount ("size: 750 GB", "link: 200 Gb/s",
"latency 10us", "eff: 85%") carries its own unit, which the other rules read anyway.

    >>> from assistant.quantities import scan
    >>> [(x.kind, x.value) for x in scan("gpus: 2k / hours: 1.2k / price: 2.10")]
    [('gpus', 2000), ('hours', 1200.0), ('price', 2.1)]
"""

from __future__ import annotations

import re

from .wording import (
    PCT,
    Handler,
    Quantity,
    Rule,
    Source,
    count,
    fraction_handler,
    num,
    q,
    rx,
    scaled,
    to_float,
)

__all__ = ["RULES", "loose_share"]

_SEP = r"\s?[:=]\s?"
_K = r"(?P<sc>\s?(?:k|thousand)\b)?"
# ...and no unit after it: "hours: 90 days" is read by the duration rules
_BARE = r"(?!\d|[.,]\d|\s?(?:%|[a-z]))"


def _scaled(kind: str, whole: bool = False) -> Handler:
    def handle(m: re.Match[str], src: Source) -> list[Quantity]:
        value = scaled(to_float(m.group("n")), m.groupdict().get("sc"))
        return q(kind, count(value) if whole else value, m, src)
    return handle


RULES: tuple[Rule, ...] = (
    # "gpus: 256", "num_gpus=2k", "gpu count: 64"
    # (not "64 gpus: 2.80/hr ...", where the count comes first and a list follows)
    Rule(5, rx(rf"(?<!\d\s)(?<!\d)\b(?:gpus?|num_gpus|gpu\scount|accelerators?|cards)"
               rf"{_SEP}{num('n')}{_K}"
                rf"(?![\d.,]|\s?(?:x\b|×|per\b|each\b|nodes?\b|servers?\b))"),
         _scaled("gpus", whole=True)),
    # "hours: 500", "hrs: 1.2k", "runtime: 36"
    Rule(6, rx(rf"\b(?:hours?|hrs?|runtime|run\stime|job\shours){_SEP}{num('n')}{_K}{_BARE}"),
         _scaled("hours")),
    # "price: 2.10", "price 3.10", "rate=1.85": a price per GPU-hour said bare
    Rule(7, rx(rf"\b(?:price|rate|gpu[\s-]?hour\sprice|price\sper\sgpu[\s-]?h(?:ou)?r)"
                rf"(?:{_SEP}|\s)\$?{num('n')}{_BARE}"), _scaled("price")),
)


#: Words that name another share: a percent after them is theirs, not the one named before.
_OTHER_SHARE = (r"(?:slow\w*|overhead|efficien\w*|pue|util\w*|mfu|faster|loss\w*|drop\w*|"
                r"discount\w*|off|more|less|cheaper|higher|lower|over|under|plus|minus)\b")


def loose_share(order: int, names: str, kind: str) -> Rule:
    """A share named a few words before its percent: "our mfu on similar runs was about 45%",
    "utilization averages 55%", "utilization is pretty good, around 70%". Up to five words in
    between, none a number, an amount already read (masked) or another share's name; the
    percent sign is required. Give it a late `order`, so every tighter rule reads first."""
    gap = rf"(?:[\s,]+(?!{_OTHER_SHARE})[a-z'-]+){{1,5}}?"
    return Rule(order, rx(rf"\b(?:{names})\b{gap}[\s,]+(?:~\s?)?{num('n')}(?P<pc>{PCT})"),
                fraction_handler(kind))
