"""Power cost: the electricity a GPU cluster uses and what it costs, per hour and per GPU-hour.

    facility kW = GPUs × all-in kW per GPU × PUE        (also the kWh used every hour)
    cost = facility kW × hours × price per kWh;  per GPU-hour = kW per GPU × PUE × price

The power per GPU is its all-in share of the server (watts per server ÷ GPUs per server when
that is what is known). A PUE of 1.0 counts only the IT power; the working says so. Method
and figures from the lesson power-and-facility-cost.

Example:
    >>> r = power_cost(gpus=256, watts_per_gpu=1000, pue=1.3, price_per_kwh=0.10, hours=100)
    >>> round(r.cost_per_hour, 2), round(r.cost_per_gpu_hour, 2), round(r.total_cost, 2)
    (33.28, 0.13, 3328.0)
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Annotated, Any

from pydantic import Field

from assistant.calculators._base import (
    MAX_GPUS,
    MAX_HOURS,
    Calculator,
    Inputs,
    MissingInput,
    Prompt,
    Result,
    Unit,
    check,
    finite_result,
    format_money,
    format_number,
    format_price,
    gpus_text,
)
from assistant.wording import (
    CONNECT,
    GPU,
    GPU_OR_CARD,
    SERVER,
    Quantity,
    Rule,
    Source,
    Wording,
    bound_to,
    consume,
    count,
    num,
    q,
    rx,
    scaled,
    to_float,
)

MAX_WATTS_PER_GPU = 20_000.0  # 20 kW for one GPU's share is a typo, not a server
MAX_WATTS_PER_SERVER = 2_000_000.0  # 2 MW: more than any rack
MAX_GPUS_PER_SERVER = 1_000
MAX_PUE = 5.0
MAX_PRICE_PER_KWH = 10.0  # dollars


class PowerCostInput(Inputs):
    """Inputs of power_cost: watts per GPU, or watts per server and GPUs per server."""

    gpus: int | None = Field(default=None, gt=0, le=MAX_GPUS,
                             description="GPUs in the cluster; without it, figures are for "
                                         "one GPU.")
    watts_per_gpu: Annotated[float | None, Unit(" W")] = Field(
        default=None, gt=0, le=MAX_WATTS_PER_GPU,
        description="All-in average power of one GPU in watts, its share of the server "
                    "included, e.g. 1000 for an H100-class GPU.")
    watts_per_server: Annotated[float | None, Unit(" W")] = Field(
        default=None, gt=0, le=MAX_WATTS_PER_SERVER,
        description="Power of one server or rack in watts, e.g. 10200 for a DGX H100; used "
                    "with gpus_per_server when watts_per_gpu is not given.")
    gpus_per_server: int | None = Field(default=None, gt=0, le=MAX_GPUS_PER_SERVER,
                                        description="GPUs in one server or rack, e.g. 8.")
    servers: int | None = Field(default=None, gt=0, le=MAX_GPUS,
                                description="Servers or racks counted, when their power is "
                                            "given per server and their GPUs are not.")
    pue: float = Field(default=1.0, ge=1, le=MAX_PUE,
                       description="Power usage effectiveness of the site, e.g. 1.3; 1.0 "
                                   "counts the IT power only.")
    price_per_kwh: Annotated[float | None, Unit(" dollars")] = Field(
        default=None, gt=0, le=MAX_PRICE_PER_KWH,
        description="Electricity price in US dollars per kWh, e.g. 0.10; without it only "
                    "energy is computed.")
    hours: Annotated[float | None, Unit(" h")] = Field(
        default=None, gt=0, le=MAX_HOURS,
        description="Hours the GPUs run; without it, figures are per hour.")


@dataclass(frozen=True)
class PowerCost(Result):
    """Power drawn, energy used and its cost; costs are None without a price per kWh."""

    gpus: int | None
    gpus_counted: int  # the GPUs the figures are for: gpus, one server's, or 1
    watts_per_gpu: float
    pue: float
    price_per_kwh: float | None
    hours: float | None
    it_kw: float
    facility_kw: float
    kwh_per_gpu_hour: float
    cost_per_gpu_hour: float | None
    cost_per_hour: float | None
    energy_kwh: float | None
    total_cost: float | None
    formula: str
    summary: str
    working: list[str] = field(default_factory=list)
    per: str = "GPU"  # what gpus_counted and the per-hour figures count: "GPU" or "server"


def _counted(n: int, unit: str) -> str:
    """ "8 GPUs", "1 server"."""
    return gpus_text(n) if unit == "GPU" else f"{n:,} {unit}" + ("" if n == 1 else "s")


def _kw(x: float) -> str:
    return f"{x:,.4g} kW"


def _watts(gpu: Any, server: Any, per_server: Any, working: list[str]
           ) -> tuple[float, int | None]:
    """The all-in watts of one GPU, and the GPUs in a server when that was the basis."""
    if gpu is not None:
        w = check(PowerCostInput, "watts_per_gpu", gpu)
        if server is not None:
            working.append("Watts per GPU were given, so the watts per server are not used.")
        return w, None
    if server is None:
        raise MissingInput(["watts_per_gpu"])
    s = check(PowerCostInput, "watts_per_server", server)
    if per_server is None:
        raise MissingInput(["gpus_per_server"])
    n = check(PowerCostInput, "gpus_per_server", per_server)
    w = s / n
    working.append(f"Power per GPU: {s:,g} W per server ÷ {gpus_text(n)} per server = "
                   f"{w:,.4g} W")
    return w, n


def _energy_lines(r: dict[str, Any], n: int, pue: float) -> list[str]:
    lines = [f"IT power: {_counted(n, r['per'])} × {_kw(r['kw_per_gpu'])} = "
             f"{_kw(r['it_kw'])}",
             f"From the grid with PUE {pue:g}: {_kw(r['it_kw'])} × {pue:g} = "
             f"{_kw(r['facility_kw'])}, so {format_number(r['facility_kw'])} kWh every hour"]
    if pue == 1:
        lines.append("A PUE of 1.0 counts the IT power only; a site's cooling and power "
                     "overhead multiplies it by the site's PUE, about 1.1 to 1.6.")
    if r["energy_kwh"] is not None:
        lines.append(f"Energy: {_kw(r['facility_kw'])} × {format_number(r['hours'])} h = "
                     f"{format_number(r['energy_kwh'])} kWh")
    return lines


def _cost_lines(r: dict[str, Any], pue: float) -> list[str]:
    price = r["price_per_kwh"]
    if price is None:
        return ["No electricity price given, so energy only."]
    rate = f"{format_price(price)}/kWh"
    lines = [f"Cost per hour: {format_number(r['facility_kw'])} kWh × {rate} = "
             f"{format_money(r['cost_per_hour'])}/h",
             f"Per {r['per']}-hour: {_kw(r['kw_per_gpu'])} × {pue:g} × {rate} = "
             f"{r['kwh_per_gpu_hour']:,.4g} kWh and {format_price(r['cost_per_gpu_hour'])}"]
    if r["total_cost"] is not None:
        lines.append(f"Total: {format_number(r['energy_kwh'])} kWh × {rate} = "
                     f"{format_money(r['total_cost'])}")
    return lines


def _headline(r: dict[str, Any], n: int, pue: float) -> tuple[str, str]:
    lhs = f"{_counted(n, r['per'])} × {_kw(r['kw_per_gpu'])} × PUE {pue:g}"
    hours = r["hours"]
    if r["price_per_kwh"] is None:
        if hours is None:
            return (f"{lhs} = {_kw(r['facility_kw'])}",
                    f"{_kw(r['facility_kw'])} from the grid, {format_number(r['facility_kw'])}"
                    f" kWh every hour")
        return (f"{lhs} × {format_number(hours)} h = {format_number(r['energy_kwh'])} kWh",
                f"{format_number(r['energy_kwh'])} kWh over {format_number(hours)} h "
                f"({_kw(r['facility_kw'])} from the grid)")
    lhs += f" × {format_price(r['price_per_kwh'])}/kWh"
    per_gpu_hour = f"{format_price(r['cost_per_gpu_hour'])} per {r['per']}-hour"
    if hours is None:
        return (f"{lhs} = {format_money(r['cost_per_hour'])} per hour",
                f"{format_money(r['cost_per_hour'])} per hour of electricity "
                f"({format_number(r['facility_kw'])} kWh; {per_gpu_hour})")
    return (f"{lhs} × {format_number(hours)} h = {format_money(r['total_cost'])}",
            f"{format_money(r['total_cost'])} of electricity for {format_number(hours)} h "
            f"({format_number(r['energy_kwh'])} kWh; {format_money(r['cost_per_hour'])} per "
            f"hour, {per_gpu_hour})")


def power_cost(gpus: int | None = None, watts_per_gpu: float | None = None,
               watts_per_server: float | None = None, gpus_per_server: int | None = None,
               pue: float = 1.0, price_per_kwh: float | None = None,
               hours: float | None = None, servers: int | None = None) -> PowerCost:
    """Compute the power, energy and electricity cost of `gpus` GPUs (or of one GPU), or of
    `servers` servers when only each server's power is known."""
    g = None if gpus is None else check(PowerCostInput, "gpus", gpus)
    working: list[str] = []
    per = "GPU"
    if servers is not None and g is None and watts_per_gpu is None and gpus_per_server is None:
        # "8 servers at 6.5 kW each": the whole servers are counted
        g = check(PowerCostInput, "servers", servers)
        w, server, per = check(PowerCostInput, "watts_per_server", watts_per_server), None, "server"
        working.append("No GPUs per server given, so the figures count whole servers.")
    else:
        w, server = _watts(watts_per_gpu, watts_per_server, gpus_per_server, working)
    u = check(PowerCostInput, "pue", pue)
    p = None if price_per_kwh is None else check(PowerCostInput, "price_per_kwh", price_per_kwh)
    h = None if hours is None else check(PowerCostInput, "hours", hours)
    # Without a GPU count the answer is for what the power was given for: a GPU or a server.
    n = g if g is not None else server or 1
    r: dict[str, Any] = {"gpus": g, "price_per_kwh": p, "hours": h, "kw_per_gpu": w / 1000,
                         "per": per}
    r["it_kw"] = n * r["kw_per_gpu"]
    r["facility_kw"] = r["it_kw"] * u
    r["kwh_per_gpu_hour"] = r["kw_per_gpu"] * u
    r["energy_kwh"] = None if h is None else r["facility_kw"] * h
    r["cost_per_hour"] = None if p is None else r["facility_kw"] * p
    r["cost_per_gpu_hour"] = None if p is None else r["kwh_per_gpu_hour"] * p
    r["total_cost"] = (None if p is None or h is None else
                       finite_result("electricity cost", r["facility_kw"] * h * p,
                                     ("gpus", "hours", "price_per_kwh")))
    if g is None:
        working.append("No GPU count given, so the figures are for one "
                       + (f"server of {gpus_text(n)}." if server else "GPU."))
    working += _energy_lines(r, n, u) + _cost_lines(r, u)
    formula, summary = _headline(r, n, u)
    return PowerCost(
        gpus=g if per == "GPU" else None, gpus_counted=n, watts_per_gpu=w, pue=u,
        price_per_kwh=p, hours=h, it_kw=r["it_kw"],
        facility_kw=r["facility_kw"], kwh_per_gpu_hour=r["kwh_per_gpu_hour"],
        cost_per_gpu_hour=r["cost_per_gpu_hour"], cost_per_hour=r["cost_per_hour"],
        energy_kwh=r["energy_kwh"], total_cost=r["total_cost"], formula=formula,
        summary=summary, working=working, per=per,
    )


# ---------------------------------------------------------------------------------------
# Wording: "700 W per GPU", "10.2 kW per server", "256 H100s at 700 W", "PUE of 1.3",
# "$0.12 per kWh" (claimed through price_units), "12 cents per kWh"
# ---------------------------------------------------------------------------------------

_SERVER = SERVER
_WATTS = rx(
    rf"{num('n')}\s?(?P<sc>kilo|mega|k|m)?(?P<u>watts?|w)\b(?!/)"
    rf"(?:\s?(?:all[\s-]in\s)?(?:per|/|a|an|each|for\s(?:each|every|one|a|the(?:\swhole)?))\s?"
    rf"(?:(?P<gpu>{GPU_OR_CARD})|"
    rf"(?P<srv>{_SERVER}))\b|[\s-](?P<srv2>server|node|rack|system|dgx|hgx)\b|"
    # "a 1,000 W all-in GPU", "a 350 W PCIe card": the GPU's own, up to two words on
    rf"\s(?:(?:all-in|pcie|sxm\d?|oam|nvidia|gpu)\s){{0,2}}(?P<gpu2>{GPU_OR_CARD})\b)?")
_EASE = r"(?:about\s|around\s|roughly\s|~\s?)?"
# "256 H100s at 700 W", "each GPU draws 700 W": the power of each GPU. "a DGX H100 at
# 10.2 kW", "NVL72 rack at 120 kW": the power of each server.
# ("4 NVL72 racks, each pulls about 120 kW": the same, said of each one)
_SERVER_BEFORE = rx(rf"{_SERVER}(?:\s[a-z0-9-]+)?(?:,?\s(?:and\s)?each)?\s(?:at|@|rated\sat|"
                    rf"draws?|drawing|uses?|using|pulls?|pulling|consumes?|burns?|of|with|each\sat|x|×)\s{_EASE}$")
_GPU_BEFORE = rx(rf"(?:\b{GPU_OR_CARD}(?:\s(?:at|@|x|×|\*|rated\sat)|,?\s(?:and\s)?each\s(?:draws?|"
                 rf"drawing|uses?|using|pulls?|pulling|consumes?|burns?|at|rated\sat))|"
                 rf"(?:each|every|per|one|a|an|the)\s"
                 rf"{GPU_OR_CARD}\s(?:draws?|uses?|consumes?|is\srated\sat|runs?\sat|at|of))"
                 rf"\s{_EASE}$")


# "a node draws 14.3 kW for 8 GPUs", "120 kW for its 72 GPUs", "10.2kw per 8 gpus": the power
# of a server or rack and the GPUs it holds.
_FOR_GPUS = rx(rf"\s(?:for|across|powering|feeding|per)\s(?:its|the|all|all\sits|those|our|their)?"
               rf"\s?(?P<g>\d{{1,4}})\s?(?:x\s?)?{GPU}")


def _watts_amount(m: re.Match[str], src: Source) -> list[Quantity]:
    factor = {"k": 1e3, "kilo": 1e3, "m": 1e6, "mega": 1e6}.get(m.group("sc") or "", 1.0)
    value = scaled(to_float(m.group("n")), factor)
    before = src.lower[max(0, m.start() - 40):m.start()]
    if m.group("srv") or m.group("srv2") or _SERVER_BEFORE.search(before) or (
            _FOR_GPUS.match(src.lower, m.end())):
        kind = "watts_per_server"
    elif m.group("gpu") or m.group("gpu2") or _GPU_BEFORE.search(before):
        kind = "watts_per_gpu"
    else:
        # "1,000 GPUs drawing 700 W each": each of the nearest counted thing. Else whose
        # power it is was not said: refused by name, not guessed.
        per = bound_to(src, m.start(), m.end())
        kind = {"gpu": "watts_per_gpu", "node": "watts_per_server"}.get(per or "", "watts")
    return q(kind, value, m, src)


RULES = (
    Rule(27, _WATTS, _watts_amount),
    Rule(28, rx(rf"\bpue(?:\s(?:down|up))?(?:\sto)?{CONNECT}{num('n')}"), consume("pue")),
    Rule(28, rx(rf"{num('n')}\s?pue\b"), consume("pue")),
    # "0.11/kwh", "0.09 per kwh": a price per kWh written without its dollar sign
    Rule(28, rx(rf"(?<![$\d.]){num('n')}\s?(?:/|per|a)\s?kwh\b"), consume("price_per_kwh")),
    # ".21/kwh": a price under a dollar written without its leading zero
    Rule(28, rx(r"(?<![\w$.])\.(?P<n>\d{1,4})\s?(?:/|per|a)\s?kwh\b"),
         lambda m, src: q("price_per_kwh", to_float("0." + m.group("n")), m, src)),
    Rule(29, rx(rf"{num('n')}\s?(?:x\s?)?{GPU}\s?(?:per|/|a|each|in\seach|in\sa)\s?racks?\b"),
         consume("gpus_per_node")),
    # "32 DGX H100 servers", "4 GB200 NVL72 racks": a count of servers named by their model.
    # ("16 h100 nodes, 8 gpus each" / "of 8 gpus" are GPUs counted node by node: rule 51)
    # "10.2kw per 8-gpu server": each server's GPUs
    Rule(29, rx(rf"\bper\s(?:an?\s)?{num('n')}[\s-]?{GPU}\s?(?:servers?|nodes?|box|boxes|"
                r"systems?|machines?|chassis)\b"), consume("gpus_per_node")),
    # "32 dgx h100s", "16 dgx b200 at 14.3kw": servers counted by their model name alone
    Rule(30, rx(rf"{num('n')}\s(?:dgx|hgx)[\s-]?[a-z]{{0,2}}\d{{3}}s?\b(?!\s?{GPU})(?!\s(?:"
                rf"servers?|nodes?|systems?|boxes),?\s?(?:(?:of|with|each(?:\s(?:with|has|having))?)"
                rf"\s)?\d+\s?{GPU})"), consume("nodes")),
    # ("2 8-gpu boxes" counts GPUs: wording.py's rule reads it)
    Rule(30, rx(rf"{num('n')}\s(?:(?:dgx|hgx|nvl\d+|(?!\d+[\s-]?gpus?\b)[a-z]*\d[a-z0-9-]*)"
                r"\s){1,3}"
                r"(?:servers?|nodes?|racks?|systems?|boxes)\b"
                rf"(?!,?\s?(?:(?:of|with|each(?:\s(?:with|has|having))?)\s)?\d+\s?{GPU}(?:\seach)?)"),
         consume("nodes")),
)

_WORDS = rx(r"\b(?:electricity|electric|energy|kwh|pue|power\s(?:costs?|bills?|draw|use|"
            r"usage|consumption|budget)|power\sand\scooling|how\smuch\spower)\b")
_WATT_KINDS = frozenset({"watts", "watts_per_gpu", "watts_per_server"})


#: An 8-GPU server named by its model: "dgx h100", "hgx b200".
_EIGHT_GPU_BOX = rx(r"\b(?:dgx|hgx)[\s-]?(?:a100|h100|h200|h20|b200|b300)\b")

#: Servers named by their GPU ("64 b200 servers", "h100 nodes"): the 8-GPU HGX kind.
_MODEL_SERVERS = rx(r"\b(?:a100|h100|h200|b200|b300)[\s-]?(?:servers?|nodes?|boxes|box)\b")

#: One server named in the singular: "a 8 gpu h100 box", "one nvl72 rack", "a single node".
_ONE_BOX = rx(r"\b(?:a|an|one|single|1)\s(?:[\w-]+\s){0,3}(?:box|server|node|machine|rack|"
              r"system|chassis)\b(?!s)")


#: One GPU named in the singular: "a gpu drawing 1.2kw all-in", "one card at 700 W".
_ONE_GPU = rx(r"\b(?:a|an|one|single|1)\s(?:[\w-]+\s){0,2}(?:gpu|card|accelerator|"
              r"[abh]\d{3}[a-z]?|mi\d{3}[a-z]?)\b(?!s)")


def _one_gpu(w: Wording) -> bool:
    """True when the message speaks of one GPU only: its bare power is that GPU's."""
    return bool(_ONE_GPU.search(w.lower)) and w.first({"gpus"}) is None and not _one_box(w)


def _one_box(w: Wording) -> bool:
    """True when the message counts GPUs in one server only: its bare power is that server's."""
    return bool(_ONE_BOX.search(w.lower)) and w.first({"nodes"}) is None


def _singular_power(w: Wording, args: dict[str, Any], notes: list[str]) -> None:
    """A bare power beside one server ("a 8 gpu h100 box ... 10.2kw") is that server's, and
    beside one GPU ("a gpu drawing 1.2kw all-in") that GPU's."""
    bare = w.first({"watts"})
    unbound = bare is not None and not w.kinds() & {"watts_per_gpu", "watts_per_server"}
    nvl = re.search(r"\bnvl(\d{1,3})\b", w.lower)  # "one nvl72 rack ~120kw": its 72 GPUs
    counted = "gpus" in args or bool(_EIGHT_GPU_BOX.search(w.lower) or nvl)  # "one dgx box"
    if _one_box(w) and counted and "gpus_per_server" not in args:
        if unbound and bare is not None:
            args["watts_per_server"] = bare.value
            notes.append(f"{w.original[bare.start:bare.end]} is read as the one server's power.")
        if nvl and "gpus" not in args and "watts_per_server" in args:
            args["gpus"] = int(nvl.group(1))
        if "watts_per_server" in args and "gpus" in args:
            args["gpus_per_server"] = args["gpus"]
    elif unbound and bare is not None and _one_gpu(w):
        args["watts_per_gpu"] = bare.value


def _held_gpus(w: Wording, args: dict[str, Any], notes: list[str], nodes: Any) -> None:
    """The GPUs each server holds, when its power is given per server: written beside it
    ("8 GPUs each", "10.2kw for 8 gpus"), or known from its name (NVL72, DGX H100)."""
    per_node = next((x.per_node for x in w.found if x.per_node), None)
    nvl = re.search(r"\bnvl(\d{1,3})\b", w.lower)
    held = next((_FOR_GPUS.match(w.lower, x.end) for x in w.found
                 if x.kind == "watts_per_server"), None)
    if per_node:
        args["gpus_per_server"] = per_node
    elif held:
        args["gpus_per_server"] = int(held.group("g"))
        # "rated 10.2kw for 8 gpus. we've got 64 gpus": the cluster's are the others
        other = next((x for x in w.found if x.kind == "gpus"
                      and not held.start() <= x.start < held.end()), None)
        if other is not None and args.get("gpus") == args["gpus_per_server"]:
            args["gpus"] = count(other.value)
    elif nvl:
        args["gpus_per_server"] = int(nvl.group(1))
        notes.append(f"An NVL{nvl.group(1)} rack holds {nvl.group(1)} GPUs.")
    elif _EIGHT_GPU_BOX.search(w.lower) or _MODEL_SERVERS.search(w.lower):
        args["gpus_per_server"] = 8
        notes.append("A DGX or HGX server of that kind holds 8 GPUs.")
        if "gpus" not in args and nodes is None and _one_box(w):
            args["gpus"] = 8


class _PowerCost(Calculator):
    def selects(self, w: Wording) -> bool:
        kinds = w.kinds()
        if kinds & {"price_per_kwh", "pue"} or self.words and self.words.search(w.lower):
            return True
        # Watts beside a price per GPU-hour is a rental question that mentions power.
        return bool(kinds & _WATT_KINDS) and not kinds & {"price", "at_price"}

    def intends(self, w: Wording) -> bool:
        # "How much energy do 256 GPUs at 700 W use in a week?" asks for no money.
        return bool(w.kinds() & _WATT_KINDS) and bool(self.words and self.words.search(w.lower))

    def problems(self, w: Wording) -> list[str]:
        bare = w.first({"watts"})
        if (bare is None or w.kinds() & {"watts_per_gpu", "watts_per_server"} or _one_box(w)
                or _one_gpu(w)):
            return []
        written = w.original[bare.start:bare.end]
        return [f"{written} does not say whose power it is: each GPU's, each server's or the "
                f"whole cluster's; say for example '700 W per GPU' or '10.2 kW per server'"]

    def read(self, w: Wording) -> tuple[dict[str, Any], list[str]]:
        args, notes = super().read(w)
        _singular_power(w, args, notes)
        counted, nodes = w.first({"gpus"}), w.first({"nodes"})
        if ("watts_per_server" in args and "gpus_per_server" not in args and counted
                and nodes and re.match(r"\s?(?:each|apiece)\b", w.lower[counted.end:])):
            # "32 boxes, 10.2 kW per server, 8 GPUs each": each server's GPUs
            args["gpus_per_server"] = args.pop("gpus")
        if "watts_per_server" in args and "gpus_per_server" not in args:
            _held_gpus(w, args, notes, nodes)
        if ("watts_per_server" in args and "gpus_per_server" not in args and "gpus" not in args
                and nodes is not None):
            args["servers"] = count(nodes.value)  # "8 servers, 6.5kw per server": whole ones
        if "price_per_kwh" not in args:
            # "power at 7 cents": a bare amount under a dollar, with power, is a kWh's price
            bare = [x for x in w.found if x.kind in ("at_price", "money") and 0 < x.value < 1]
            if len(bare) == 1:
                args["price_per_kwh"] = bare[0].value
                notes.append(f"{bare[0].text} is read as the electricity price per kWh.")
        if "gpus_per_server" in args:
            args["gpus_per_server"] = count(args["gpus_per_server"])
            nodes = w.first({"nodes"})
            if "gpus" not in args and nodes is not None:
                args["gpus"] = count(nodes.value * args["gpus_per_server"])
                notes.append(f"{count(nodes.value)} servers × {args['gpus_per_server']} GPUs "
                             f"per server = {args['gpus']} GPUs")
        return args, notes

    def missing(self, args: Any, w: Wording) -> list[str]:
        if "watts_per_gpu" in args:
            return []
        if "watts_per_server" in args:
            return [] if {"gpus_per_server", "servers"} & set(args) else ["gpus_per_server"]
        return ["watts_per_gpu"]


CALCULATOR = _PowerCost(
    name="power_cost",
    function=power_cost,
    inputs=PowerCostInput,
    result=PowerCost,
    label="power cost",
    lesson="power-and-facility-cost",
    description=(
        "Electricity of a GPU cluster: power drawn (GPUs × kW per GPU × PUE), energy over the "
        "hours, its cost at a price per kWh, and the electricity cost per GPU-hour.\n\n"
        "Give watts_per_gpu (all-in, its share of the server) or watts_per_server with "
        "gpus_per_server. Without gpus the figures are for one GPU, without hours per hour, "
        "without a price energy only. Returns the figures, formula and working, or "
        "{\"error\": ...}."),
    prompts={
        "watts_per_gpu": Prompt("How many watts does each GPU draw, all-in with its share of "
                                "the server (e.g. 1,000 W for an H100-class GPU)?",
                                "{v:,g} W per GPU"),
        "watts_per_server": Prompt("How many watts does each server draw (e.g. 10,200 W for a "
                                   "DGX H100)?", "{v:,g} W per server"),
        "gpus_per_server": Prompt("How many GPUs does each server hold, e.g. 8?",
                                  "{v:,.0f} GPUs per server"),
        "pue": Prompt("What PUE does the site run at, e.g. 1.3?", "PUE {v:g}"),
        "price_per_kwh": Prompt("What electricity price per kWh should I use, e.g. $0.10?",
                                "${v:,.2f} per kWh"),
    },
    rules=RULES,
    words=_WORDS,
    priority=45,
    price_units={"kwh": ("price_per_kwh", 1.0), "mwh": ("price_per_kwh", 0.001)},
    kinds={"gpus_per_node": "gpus_per_server"},
    example={"gpus": 256, "watts_per_gpu": 1000, "pue": 1.3, "price_per_kwh": 0.10,
             "hours": 100},
    order=60,
)
