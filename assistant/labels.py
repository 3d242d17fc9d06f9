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

from .wording import Handler, Quantity, Rule, Source, count, num, q, rx, scaled, to_float

__all__ = ["RULES"]

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
