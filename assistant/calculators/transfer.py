"""Transfer time: how long a block of data takes over a link.

    time = size ÷ (link speed in Gb/s ÷ 8 bits per byte × efficiency × links)

A 400 Gb/s port moves at most 50 GB/s in each direction, so 20 GB take 0.4 s at full speed
and about 0.44 s at a realistic 90% (the Bandwidth page's worked example). Several links in
parallel (one NIC per GPU of a server, say) share the data evenly.

Example:
    >>> r = transfer_time(size_gb=20, link_gbps=400)
    >>> round(r.seconds, 2)
    0.4
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Annotated, Any

from pydantic import Field

from assistant.calculators._base import (
    Calculator,
    Inputs,
    Prompt,
    Result,
    Unit,
    check,
    finite_result,
)
from assistant.calculators.allreduce import (
    BITS_PER_BYTE,
    MAX_BUFFER_GB,
    MAX_LINK_GBPS,
    format_duration,
    format_seconds,
    format_size,
)
from assistant.wording import _WORD_NUMBERS as WORD_NUMBERS
from assistant.wording import MONEY_KINDS, Quantity, Rule, Source, Wording, percent, rx

MAX_LINKS = 1024


class TransferTimeInput(Inputs):
    """Inputs of transfer_time."""

    size_gb: Annotated[float, Unit(" GB")] = Field(
        gt=0, le=MAX_BUFFER_GB,
        description="Data to move, in gigabytes (1 GB = 1e9 bytes), e.g. 20.")
    link_gbps: Annotated[float, Unit(" Gb/s")] = Field(
        gt=0, le=MAX_LINK_GBPS,
        description="Speed of one link in one direction, in gigabits per second, e.g. 400.")
    efficiency: float = Field(
        default=1.0, gt=0, le=1,
        description="Share of the link speed the transfer reaches, 0 to 1 (0.9 for 90%); "
                    "1 = full speed.")
    links: int = Field(default=1, ge=1, le=MAX_LINKS,
                       description="Links carrying the data in parallel, e.g. 8 NICs.")


@dataclass(frozen=True)
class TransferTime(Result):
    """Time to move data over one or more links. Sizes in GB, rates in GB/s, time in s."""

    size_gb: float
    link_gbps: float
    efficiency: float
    links: int
    rate_gb_per_s: float
    seconds: float
    formula: str
    summary: str
    working: list[str] = field(default_factory=list)


def transfer_time(size_gb: float, link_gbps: float, efficiency: float = 1.0,
                  links: int = 1) -> TransferTime:
    """Compute how long size_gb takes over `links` links of link_gbps at an efficiency."""
    size = check(TransferTimeInput, "size_gb", size_gb)
    link = check(TransferTimeInput, "link_gbps", link_gbps)
    share = check(TransferTimeInput, "efficiency", efficiency)
    n = check(TransferTimeInput, "links", links)
    per_link = link / BITS_PER_BYTE
    rate = per_link * share * n
    seconds = finite_result("transfer time", size / rate, ("size_gb", "link_gbps"))
    working = [f"One link: {link:,g} Gb/s ÷ 8 bits per byte = {per_link:,.4g} GB/s in each "
               f"direction"]
    if share < 1:
        working.append(f"At {share:.0%} of the link speed: {per_link:,.4g} GB/s × {share:g} = "
                       f"{per_link * share:,.4g} GB/s")
    if n > 1:
        working.append(f"{n:,} links in parallel: {per_link * share:,.4g} GB/s × {n:,} = "
                       f"{rate:,.4g} GB/s")
    working.append(f"Time: {format_size(size)} ÷ {rate:,.4g} GB/s = {format_seconds(seconds)}"
                   + (f" ({seconds:.3g} s)" if seconds < 0.1 else ""))
    working.append("Latency and protocol set-up are left out: they matter only for small "
                   "transfers.")
    formula = f"{format_size(size)} ÷ {rate:,.4g} GB/s = {format_seconds(seconds)}"
    links_said = f"{n:,} × " if n > 1 else ""
    summary = (f"{format_duration(seconds)} to move {format_size(size)} over {links_said}"
               f"{link:,g} Gb/s" + (f" at {share:.0%} of the link speed" if share < 1 else ""))
    return TransferTime(size_gb=size, link_gbps=link, efficiency=share, links=n,
                        rate_gb_per_s=rate, seconds=seconds, formula=formula, summary=summary,
                        working=working)


_ALLREDUCE = rx(r"\ball[\s-]?reduc\w*|\ball[\s-]?(?:gather|to[\s-]?all)\b|\bcollective")
_MOVING = rx(r"\b(?:how\s(?:long|fast|quick(?:ly)?)|time|takes?|taking|took|transfer\w*|"
             r"send(?:s|ing)?|sent|move[sd]?|moving|cop(?:y|ying|ies|ied)|push\w*|hand-?offs?|"
             r"replicat\w*|ship(?:s|ping|ped)?|upload\w*|download\w*|"
             r"how\smany\s(?:seconds|ms|milliseconds|minutes)|seconds\?|spread\w*)\b")


# "over 8x 400g nics", "2x 800G ports": that many links in parallel (the speed is read apart)
# ("8x400g" written short: the speed is read with the count, "(8x400g)" has no link word)
_MULTIPLIED = rx(r"\b(?P<n>\d{1,3})\s?[x×]\s?(?:(?P<s>\d+(?:\.\d+)?)\s?(?P<p>[gt])\b|"
                 r"(?=\d+(?:\.\d+)?\s?(?:[gt]b|gbps|gbit|tbps)))")
# "spread it over 4 links", "across 8 nics", "two ports"
# ("across 8 400g nics": the speed between is left to be read as the link's)
_LINKS = rx(r"\b(?:over|across|on|with|using|via|onto|bond|bonding)\s"
            r"(?P<n>\d{1,3}|two|three|four|six|eight)\s"
            # ("with 200 gbps links" is a speed: a unit word between counts nothing)
            r"(?=(?:(?:parallel|separate|bonded|(?![gt]b(?:ps|its?|e)?\b|[gt]bit)[a-z0-9-]+)\s)"
            r"{0,2}(?:links|nics|ports|rails|"
            r"adapters|cards|connections)\b)")


def _count_links(m: re.Match[str], src: Source) -> list[Quantity]:
    raw = m.group("n")
    value = float(WORD_NUMBERS.get(raw.lower(), 0) or raw)
    links = [Quantity("links", value, m.start("n"), m.end("n"), raw)]
    if m.groupdict().get("s"):
        speed = float(m.group("s")) * (1000.0 if m.group("p") == "t" else 1.0)
        written = src.original[m.start("s"):m.end("p")]
        links.append(Quantity("link_gbps", speed, m.start("s"), m.end("p"), written.lower(),
                              unit=f"{m.group('p').upper()}b/s"))
    return links


#: "2 tb over 100gbps at 80% efficiency?", "20gb over a 400g link at 90%?": a size, a link and
#: its efficiency ask for a time.
_EFFICIENCY = rx(r"\befficien(?:cy|t)\b")


class _TransferTime(Calculator):
    def selects(self, w: Wording) -> bool:
        # A size and a link speed, and no collective: an all-reduce is its own calculator.
        kinds = w.kinds()
        return ({"buffer_gb", "link_gbps"} <= kinds and not MONEY_KINDS & kinds
                and not _ALLREDUCE.search(w.lower)
                and bool(_MOVING.search(w.lower) or _EFFICIENCY.search(w.lower)
                         or "percent" in kinds))

    def intends(self, w: Wording) -> bool:
        return self.selects(w)

    def read(self, w: Wording) -> tuple[dict[str, Any], list[str]]:
        args, notes = super().read(w)
        # "at 80%", "80 pct of line rate", "60 percent of a 25gbps link"
        pct = w.first({"percent"})
        if pct is not None and 0 < pct.value <= 100:
            args["efficiency"] = percent(pct.value)
        # "3.2 Tbps of total bandwidth (8x400g)": the count and its speed spell out the total
        speeds = [x.value for x in w.found if x.kind == "link_gbps"]
        links = args.get("links", 1)
        if links > 1 and any(abs(total - links * each) < 1e-6 * total
                             for total in speeds for each in speeds):
            args["link_gbps"] = min(speeds)
        return args, notes


CALCULATOR = _TransferTime(
    name="transfer_time",
    function=transfer_time,
    inputs=TransferTimeInput,
    result=TransferTime,
    label="transfer time",
    lesson="bandwidth",
    description=(
        "Time to move a block of data over a link: size ÷ (link Gb/s ÷ 8 × efficiency × "
        "links).\n\nsize_gb in gigabytes, link_gbps one link's speed in one direction in Gb/s "
        "(400 for a 400 Gb/s port), efficiency 0-1 (default 1), links in parallel (default 1). "
        "Returns the time in seconds with the formula and working, or {\"error\": ...}."),
    prompts={
        "size_gb": Prompt("How much data is moved, e.g. 20 GB?", "{v:,g} GB"),
        "link_gbps": Prompt("How fast is the link in each direction, e.g. 400 Gb/s?",
                            "{v:,g} Gb/s"),
    },
    required=("size_gb", "link_gbps"),
    kinds={"buffer_gb": "size_gb"},
    rules=(Rule(20, _MULTIPLIED, _count_links), Rule(21, _LINKS, _count_links)),
    priority=40,
    example={"size_gb": 20, "link_gbps": 400},
    order=55,
)
