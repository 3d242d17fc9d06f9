"""All-reduce time: how long a ring all-reduce takes, and its algorithm and bus bandwidth.

A ring all-reduce of S bytes over N GPUs has every GPU send 2(N-1)/N × S in 2(N-1) steps, so

    time = 2(N-1)/N × S ÷ bandwidth per GPU + 2(N-1) × latency per step

algbw = S ÷ time, and busbw = algbw × 2(N-1)/N, which nccl-tests reports so that it can be
compared with the link speed. A tree needs about 2 × log2(N) steps instead of 2(N-1); the
lesson (how-all-reduce-works) gives the tree's step count but not its data volume, so the tree
is shown for its latency only.

Example:
    >>> r = allreduce_time(buffer_gb=10, gpus=8, link_gbps=400)
    >>> round(r.total_seconds, 2), round(r.busbw_gb_per_s, 1)
    (0.35, 50.0)
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Annotated, Any

from pydantic import Field

from assistant.calculators._base import (
    MAX_GPUS,
    Calculator,
    Inputs,
    Prompt,
    Result,
    Unit,
    check,
    finite_result,
    format_count,
)
from assistant.wording import (
    MONEY_KINDS,
    Quantity,
    Rule,
    Source,
    Wording,
    num,
    q,
    rx,
    scaled,
    to_float,
)

MAX_BUFFER_GB = 1e6  # a petabyte: no gradient buffer is bigger
MAX_LINK_GBPS = 1e5  # 100 Tb/s per GPU
MAX_LATENCY_US = 1e6  # a second per step
BITS_PER_BYTE = 8.0


class AllreduceTimeInput(Inputs):
    """Inputs of allreduce_time."""

    buffer_gb: Annotated[float, Unit(" GB")] = Field(
        gt=0, le=MAX_BUFFER_GB,
        description="Size of the buffer every GPU all-reduces, in gigabytes (1 GB = 1e9 "
                    "bytes), e.g. 10 for 10 GB of gradients.")
    gpus: int = Field(ge=2, le=MAX_GPUS, description="GPUs taking part (at least 2).")
    link_gbps: Annotated[float, Unit(" Gb/s")] = Field(
        gt=0, le=MAX_LINK_GBPS,
        description="Bandwidth of each GPU in each direction, in gigabits per second, e.g. "
                    "400 for one 400 Gb/s adapter per GPU.")
    latency_us: Annotated[float, Unit(" µs")] = Field(
        default=0, ge=0, le=MAX_LATENCY_US,
        description="Latency of each step in microseconds, e.g. 5; 0 leaves latency out.")


@dataclass(frozen=True)
class AllreduceTime(Result):
    """Time of a ring all-reduce, with algorithm and bus bandwidth, and a tree's latency.

    Sizes in GB (1e9 bytes), bandwidths in GB/s, times in seconds.
    """

    buffer_gb: float
    gpus: int
    link_gbps: float
    latency_us: float
    bandwidth_gb_per_s: float
    ring_factor: float
    sent_per_gpu_gb: float
    ring_steps: int
    transfer_seconds: float
    latency_seconds: float
    total_seconds: float
    algbw_gb_per_s: float
    busbw_gb_per_s: float
    tree_steps: int
    tree_latency_seconds: float
    formula: str
    summary: str
    working: list[str] = field(default_factory=list)


def format_seconds(s: float) -> str:
    """A duration in the unit that reads best: "0.35 s", "10.2 ms", "40 µs"."""
    if s == 0 or not math.isfinite(s):
        return f"{s:g} s"
    if s >= 36000:
        return f"{s:,.0f} s ({s / 3600:,.3g} h)"  # not "1.68e+04 s"
    if s >= 3600:  # "how many seconds (and roughly minutes)": both, beside the hours
        return f"{s:,.0f} s ({s / 60:,.0f} min, {s / 3600:,.3g} h)"
    if s >= 100:
        return f"{s:,.0f} s ({s / 60:,.3g} min)"
    if s >= 0.1:
        return f"{s:,.3g} s"
    if s >= 1e-4:
        return f"{s * 1e3:.3g} ms"
    return f"{s * 1e6:.3g} µs"


def format_duration(s: float) -> str:
    """`format_seconds`, with the milliseconds beside a time under ten seconds that reads
    in seconds ("0.159 s (158.8 ms)"): collective and transfer times are often asked in ms."""
    said = format_seconds(s)
    if math.isfinite(s) and 0.1 <= s < 10:
        said += f" ({s * 1e3:,.4g} ms)"
    return said


def format_size(gb: float) -> str:
    """A size given in GB, in the unit that reads best: "17.5 GB", "2 MB"."""
    if gb >= 1000:
        return f"{gb:,.0f} GB"  # "10,000 GB", not "1e+04 GB"
    if gb >= 1 or gb == 0:
        return f"{gb:,.4g} GB"
    if gb >= 1e-3:
        return f"{gb * 1e3:.4g} MB"
    return f"{gb * 1e6:.4g} KB"


def _rate(gb_per_s: float) -> str:
    return f"{gb_per_s:,.3g} GB/s"


def _working(r: dict[str, Any], n: int) -> list[str]:
    lines = [
        f"Bandwidth per GPU: {r['link_gbps']:,g} Gb/s ÷ 8 bits per byte = "
        f"{_rate(r['bandwidth_gb_per_s'])} in each direction",
        f"Ring factor: 2 × ({n:,} − 1) ÷ {n:,} = {r['ring_factor']:.4g}",
        f"Data each GPU sends: {r['ring_factor']:.4g} × {format_size(r['buffer_gb'])} = "
        f"{format_size(r['sent_per_gpu_gb'])}",
        f"Transfer time: {format_size(r['sent_per_gpu_gb'])} ÷ {_rate(r['bandwidth_gb_per_s'])} "
        f"= {format_seconds(r['transfer_seconds'])}",
    ]
    if r["latency_us"]:
        lines.append(f"Latency: 2 × ({n:,} − 1) = {r['ring_steps']:,} steps × "
                     f"{r['latency_us']:g} µs = {format_seconds(r['latency_seconds'])}")
    else:
        lines.append("No latency per step given, so latency is left out, as in the lesson's "
                     "large-buffer estimate.")
    lines += [
        f"Total: {format_seconds(r['transfer_seconds'])} + "
        f"{format_seconds(r['latency_seconds'])} = {format_seconds(r['total_seconds'])}"
        + (f" ({r['total_seconds']:.3g} s)" if 0 < r["total_seconds"] < 0.1 else ""),
        f"Algorithm bandwidth (algbw): {format_size(r['buffer_gb'])} ÷ "
        f"{format_seconds(r['total_seconds'])} = {_rate(r['algbw_gb_per_s'])}",
        f"Bus bandwidth (busbw): {_rate(r['algbw_gb_per_s'])} × {r['ring_factor']:.4g} = "
        f"{_rate(r['busbw_gb_per_s'])}, to compare with the link's "
        f"{_rate(r['bandwidth_gb_per_s'])}",
    ]
    if r["latency_us"]:
        lines.append(
            f"Tree, for comparison: about 2 × ⌈log2 {n:,}⌉ = {r['tree_steps']:,} steps, so "
            f"{format_seconds(r['tree_latency_seconds'])} of latency instead of the ring's "
            f"{format_seconds(r['latency_seconds'])} (the lesson gives a tree's step count, "
            f"not its data volume, so only its latency is compared)")
    return lines


def allreduce_time(buffer_gb: float, gpus: int, link_gbps: float,
                   latency_us: float = 0) -> AllreduceTime:
    """Compute a ring all-reduce's time from buffer size, GPU count, bandwidth and latency."""
    size = check(AllreduceTimeInput, "buffer_gb", buffer_gb)
    n = check(AllreduceTimeInput, "gpus", gpus)
    link = check(AllreduceTimeInput, "link_gbps", link_gbps)
    lat = check(AllreduceTimeInput, "latency_us", latency_us)
    bandwidth = link / BITS_PER_BYTE
    factor = 2 * (n - 1) / n
    steps = 2 * (n - 1)
    r: dict[str, Any] = {
        "buffer_gb": size, "gpus": n, "link_gbps": link, "latency_us": lat,
        "bandwidth_gb_per_s": bandwidth, "ring_factor": factor,
        "sent_per_gpu_gb": factor * size, "ring_steps": steps,
        "transfer_seconds": finite_result("all-reduce time", factor * size / bandwidth,
                                          ("buffer_gb", "link_gbps")),
        "latency_seconds": steps * lat * 1e-6,
        "tree_steps": 2 * math.ceil(math.log2(n)),
    }
    r["tree_latency_seconds"] = r["tree_steps"] * lat * 1e-6
    r["total_seconds"] = r["transfer_seconds"] + r["latency_seconds"]
    r["algbw_gb_per_s"] = finite_result("algorithm bandwidth", size / r["total_seconds"],
                                        ("buffer_gb", "link_gbps"))
    r["busbw_gb_per_s"] = r["algbw_gb_per_s"] * factor
    formula = (f"2 × ({n:,} − 1) ÷ {n:,} × {format_size(size)} ÷ {_rate(bandwidth)}"
               + (f" + {steps:,} × {lat:g} µs" if lat else "")
               + f" = {format_seconds(r['total_seconds'])}")
    summary = (f"{format_duration(r['total_seconds'])} for a ring all-reduce of "
               f"{format_size(size)} on {n:,} GPUs (algbw {_rate(r['algbw_gb_per_s'])}, "
               f"busbw {_rate(r['busbw_gb_per_s'])})")
    return AllreduceTime(**r, formula=formula, summary=summary, working=_working(r, n))


# ---------------------------------------------------------------------------------------
# Wording: "10 GB", "400 Gb/s" (bits) or "50 GB/s" (bytes), "5 µs"
# ---------------------------------------------------------------------------------------

_BANDWIDTH = rx(
    rf"{num('n')}\s?(?P<u>(?P<p>[gt])(?:b/s|bps|bit/s|bits/s)|"
    r"(?P<w>giga|tera)(?P<k>bits?|bytes?)\s?(?:per\s|/\s?)s(?:ec(?:ond)?)?\b)"
    r"(?=[^a-z0-9]|$)")
# "400G links", "a 100 gbit link", "800G NICs", "what about 800G?": a link speed written
# short is in bits.
_LINK_WORD = (r"(?:(?:ib|infiniband|ethernet|eth|roce|rdma|ndr|xdr|hdr)\s)?(?:links?|nics?|ports?|"
              r"adapters?|networks?|networking|fabric|hcas?|connections?|interconnect|cards?|"
              r"uplinks?|rails?|ib|infiniband|ethernet|roce|ndr|xdr|hdr)\b|"
              # "400G per GPU", "800g each": a speed given to each GPU
              r"(?:per|a|an|each|for\s+each)\s(?:gpu|nic|card|port|link|node|server)s?\b|each\b")
_SHORT_LINK = rx(rf"{num('n')}\s?(?:(?P<p>[gt])(?:bits?|bit/s|b?e)?\b\s?"
                 # "a 1.6t long-haul link": one word may describe the link
                 rf"(?=(?:[a-z][a-z-]*\s)?(?:{_LINK_WORD})|[?.!]?$)|"
                 # "100gbe" is Ethernet at that speed wherever it stands; "over 200g" a link
                 r"(?P<p2>[gt])(?:bits?|be)\b)")
# "over 200g", and "32 gpus on 400g." (a speed that ends the clause)
_OVER_LINK = rx(rf"(?<=\bover\s){num('n')}\s?(?P<p>[gt])\b|(?:(?<=\bon\s)|(?<=\bwith\s))"
                rf"{num('n2')}\s?(?P<p3>[gt])(?=\s?[.,;?!)]|$)")
# "NDR ib", "on XDR": an InfiniBand generation names its port speed (infiniband-generations)
_GENERATION = rx(r"\b(?P<gen>edr|hdr|ndr|xdr)\b(?![\s-]?\d)")
_GENERATION_GBPS = {"edr": 100.0, "hdr": 200.0, "ndr": 400.0, "xdr": 800.0}
# "link is 200g", "nics are 400g": the speed named after the link
_LINK_IS = rx(r"\b(?:links?|nics?|ports?|uplinks?|network|fabric|connection)\s(?:is|are|runs?\sat|"
              rf"at)\s(?:(?:a|an|only|just)\s)?{num('n')}\s?(?P<p>[gt])(?:bits?|bps|be)?\b"
              r"(?!\s?(?:/|bytes?))")
_SIZE = rx(rf"{num('n')}\s?(?P<u>(?P<p>[kmgt])(?P<i>i)?b|(?P<w>kilo|mega|giga|tera)(?:bytes?))"
           r"\b(?!\s?/\s?s(?:ec)?\b|ps)")
_LATENCY = rx(rf"{num('n')}\s?(?P<u>µs|μs|us|usecs?|micro-?secs?|microseconds?|ms|msecs?|"
              r"milliseconds?|ns|"
              r"nanoseconds?)\b(?!\s?(?:dollars?|\$))")
_PREFIX = {"k": 1e-6, "m": 1e-3, "g": 1.0, "t": 1e3,
           "kilo": 1e-6, "mega": 1e-3, "giga": 1.0, "tera": 1e3}
_BINARY = {"k": 2**10 / 1e9, "m": 2**20 / 1e9, "g": 2**30 / 1e9, "t": 2**40 / 1e9}


def _bandwidth(m: re.Match[str], src: Source) -> list[Quantity]:
    written = src.original[m.start("u"):m.end("u")]
    prefix = (m.group("p") or m.group("w")[0]).lower()
    # "GB/s" and "gigabytes" are bytes, "Gb/s", "Gbps" and "gigabits" bits; "gb/s" typed in
    # lower case is read as bits (links are quoted in Gb/s) and the answer says so.
    is_bytes = ("byte" in (m.group("k") or "")) or (m.group("p") is not None
                                                    and written[1:2] == "B")
    value = scaled(to_float(m.group("n")), 1000.0 if prefix == "t" else 1.0)
    if is_bytes:
        value = scaled(value, BITS_PER_BYTE)
    return q("link_gbps", value, m, src, unit=written)


def _short_link(m: re.Match[str], src: Source) -> list[Quantity]:
    groups = m.groupdict()
    prefix = groups.get("p") or groups.get("p2") or groups["p3"]
    value = scaled(to_float(groups.get("n") or groups["n2"]), 1000.0 if prefix == "t" else 1.0)
    written = src.original[m.start():m.end()].strip()
    return [Quantity("link_gbps", value, m.start(), m.start() + len(written), written.lower(),
                     unit=f"{prefix.upper()}b/s")]


def _link_is(m: re.Match[str], src: Source) -> list[Quantity]:
    prefix = m.group("p")
    value = scaled(to_float(m.group("n")), 1000.0 if prefix == "t" else 1.0)
    written = src.original[m.start("n"):m.end()].strip()
    return [Quantity("link_gbps", value, m.start("n"), m.end(), written.lower(),
                     unit=f"{prefix.upper()}b/s")]


def _size(m: re.Match[str], src: Source) -> list[Quantity]:
    written = src.original[m.start("u"):m.end("u")]
    key = m.group("p") or m.group("w")
    factor = _BINARY[key] if m.group("i") else _PREFIX[key]
    value = scaled(to_float(m.group("n")), factor)
    if m.group("p") and written.endswith("b") and written[0].isupper():
        value = value / BITS_PER_BYTE  # "10 Gb" of data is gigabits
    return q("buffer_gb", value, m, src, unit=written)


def _generation(m: re.Match[str], src: Source) -> list[Quantity]:
    return q("link_gbps", _GENERATION_GBPS[m.group("gen")], m, src, unit="Gb/s")


def _latency(m: re.Match[str], src: Source) -> list[Quantity]:
    unit = m.group("u")
    if unit.startswith("micro") or unit in ("µs", "μs", "us", "usec"):
        factor = 1.0
    elif unit.startswith("m"):
        factor = 1e3  # milliseconds
    else:
        factor = 1e-3  # nanoseconds
    return q("latency_us", scaled(to_float(m.group("n")), factor), m, src, unit=unit)


_DTYPE = rx(r"\b(?:bf16|fp16|fp32|fp8|float16|float32)\b")
_DTYPE_BYTES = {"bf16": 2.0, "fp16": 2.0, "float16": 2.0, "fp32": 4.0, "float32": 4.0,
                "fp8": 1.0}
# "all-reduce", and its bus bandwidth ("just need the busbw"), which only it gives
_ALLREDUCE = rx(r"\ball[\s-]?reduc(?:e|es|ed|ing)\b|\bbus\s?(?:bw|bandwidth)\b")
_OWN_KINDS = frozenset({"buffer_gb", "link_gbps", "latency_us"})
_TIME_WORDS = rx(r"\b(?:how\s(?:long|fast|quick(?:ly)?)|time|times|takes?|taking|took|duration|"
                 r"seconds?|estimate|calculate|compute|work\sout)\b")


class _AllreduceTime(Calculator):
    def selects(self, w: Wording) -> bool:
        # An all-reduce with its own amounts, and no money: "what does the all-reduce cost"
        # is a cost question for another calculator.
        kinds = w.kinds()
        return (bool(self.words and self.words.search(w.lower)) and bool(_OWN_KINDS & kinds)
                and not MONEY_KINDS & kinds)

    def intends(self, w: Wording) -> bool:
        # "How long does an all-reduce of 10 GB take on 8 GPUs at 400 Gb/s?" needs no money
        # word; without a bandwidth, or without asking for a time ("is 400 Gb/s enough for
        # an all-reduce?"), it is a question for the lesson, not a calculation.
        # A question that gives every input ("2 gpus doing a 4GB allreduce over a 100 gbit
        # link") asks for the figure too.
        kinds = w.kinds()
        sized = "buffer_gb" in kinds or ("parameters" in kinds and bool(_DTYPE.search(w.lower)))
        every = sized and {"gpus", "link_gbps"} <= kinds
        return (self.selects(w) and "link_gbps" in kinds
                and (every or bool(_TIME_WORDS.search(w.lower))))

    def read(self, w: Wording) -> tuple[dict[str, Any], list[str]]:
        args, notes = super().read(w)
        params, dtype = w.first({"parameters"}), _DTYPE.search(w.lower)
        if "buffer_gb" not in args and params is not None and dtype is not None:
            # "a 7B model, bf16 grads": the gradients are parameters × bytes per value.
            width = _DTYPE_BYTES[dtype.group(0)]
            args["buffer_gb"] = params.value * width / 1e9
            notes.append(f"Gradients: {format_count(params.value)} parameters × {width:g} bytes "
                         f"({dtype.group(0)}) = {format_size(args['buffer_gb'])}")
        link = w.first({"link_gbps"})
        if link is not None and link.unit in ("gb/s", "tb/s"):
            notes.append(f"{link.text} is read as gigabits per second (Gb/s); write GB/s for "
                         f"gigabytes per second.")
        elif link is not None and link.unit in ("Gb/s", "Tb/s") and "/" not in link.text:
            notes.append(f"{link.text} is read as a link speed of {link.value:,g} Gb/s per GPU.")
        return args, notes


CALCULATOR = _AllreduceTime(
    name="allreduce_time",
    function=allreduce_time,
    inputs=AllreduceTimeInput,
    result=AllreduceTime,
    label="all-reduce time",
    lesson="how-all-reduce-works",
    description=(
        "Time of a ring all-reduce: 2(N-1)/N × buffer ÷ per-GPU bandwidth + 2(N-1) × latency "
        "per step.\n\nlink_gbps is each GPU's bandwidth in one direction in Gb/s (400 for a "
        "400 Gb/s adapter). Returns the time in seconds, the algorithm bandwidth (buffer ÷ time) "
        "and bus bandwidth (algbw × 2(N-1)/N, comparable with the link speed), a tree's latency "
        "for comparison, the formula and working, or {\"error\": ...}."),
    prompts={
        "buffer_gb": Prompt("How large is the buffer every GPU all-reduces, e.g. 10 GB of "
                            "gradients?", "{v:,g} GB"),
        "link_gbps": Prompt("What bandwidth does each GPU have in each direction, e.g. "
                            "400 Gb/s?", "{v:,g} Gb/s per GPU"),
        "latency_us": Prompt("What latency per step should I use, e.g. 5 µs?",
                             "{v:,g} µs per step"),
    },
    required=("buffer_gb", "gpus", "link_gbps"),
    rules=(Rule(23, _SHORT_LINK, _short_link), Rule(24, _BANDWIDTH, _bandwidth),
           Rule(25, _OVER_LINK, _short_link), Rule(22, _LINK_IS, _link_is),
           Rule(25, _SIZE, _size),
           Rule(26, _LATENCY, _latency), Rule(27, _GENERATION, _generation)),
    words=_ALLREDUCE,
    priority=50,
    example={"buffer_gb": 10, "gpus": 8, "link_gbps": 400},
    order=50,
)
