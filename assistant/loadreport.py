"""The load test's report: medians over runs, the issue's table, the ratios judged.

Example:
    >>> print(report(runs, "2026-11-26T10:00"))     # runs from loadtest.main  # doctest: +SKIP
"""

from __future__ import annotations

import statistics
from typing import Any

#: The table's rows: (key, label).
ROUTES = (("echo_gradio", "Gradio echo twin (does nothing)"),
          ("gradio_ask", "our Gradio `ask`"),
          ("echo_api", "FastAPI echo twin `POST /api/ask` (does nothing)"),
          ("json_api", "our `POST /api/ask`"))


def _ratio(a: float | None, b: float | None) -> float | None:
    return round(a / b, 2) if a and b else None


def medians(runs: list[dict[str, Any]], section: str = "rows") -> dict[str, dict[str, Any]]:
    """Return, per row, the median (and the range) of answers/s, p50 and p95 over runs."""
    out: dict[str, dict[str, Any]] = {}
    for key in runs[0][section]:
        cells = [r[section][key] for r in runs if key in r[section]]
        row: dict[str, Any] = {"runs": len(cells),
                               "errors": sum(c["errors"] for c in cells)}
        for field in ("throughput_rps", "p50_ms", "p95_ms", "mean_batch", "cache_hits"):
            values = [c[field] for c in cells if c.get(field) is not None]
            if values:
                row[field] = round(statistics.median(values), 2)
                row[f"{field}_range"] = (min(values), max(values))
        sizes = [c["batch_sizes"] for c in cells if c.get("batch_sizes")]
        if sizes:
            row["max_batch"] = max(max(s) for s in sizes)
        out[key] = row
    return out


def _cell(row: dict[str, Any], field: str, scale: float = 1.0, digits: int = 1) -> str:
    if field not in row:
        return "-"
    lo, hi = row[f"{field}_range"]
    median = f"{row[field] / scale:.{digits}f}"
    return median if len(set((lo, hi))) == 1 else (
        f"{median} ({lo / scale:.{digits}f}-{hi / scale:.{digits}f})")


def _label(key: str) -> str:
    label, _, route = key.rpartition(":")
    name = next((text for k, text in ROUTES if k == route), route)
    return f"{label}: {name}" if label else name


def table(rows: dict[str, dict[str, Any]]) -> list[str]:
    """Return the issue's table: answers/s, p50 and p95 per route, medians over the runs."""
    lines = ["| endpoint | answers/s | p50 s | p95 s | errors | cache hits | query batch "
             "mean (max) |", "|---|---|---|---|---|---|---|"]
    for key, row in rows.items():
        batch = (f"{row['mean_batch']:.2f} ({row['max_batch']})" if "mean_batch" in row
                 else "-")
        lines.append(f"| {_label(key)} | {_cell(row, 'throughput_rps')} | "
                     f"{_cell(row, 'p50_ms', 1000, 2)} | {_cell(row, 'p95_ms', 1000, 2)} | "
                     f"{row['errors']} | {_cell(row, 'cache_hits', digits=0)} | {batch} |")
    return lines


def ratios(rows: dict[str, dict[str, Any]]) -> list[str]:
    """Return the ratios the targets are judged on, from the medians of one set of runs."""
    def rate(key: str) -> float | None:
        return rows.get(key, {}).get("throughput_rps")

    def p95(key: str) -> float | None:
        return rows.get(key, {}).get("p95_ms")

    lines = [f"- JSON API / Gradio route, answers/s: "
             f"{_ratio(rate('json_api'), rate('gradio_ask'))}×",
             f"- our `POST /api/ask` / its echo twin, answers/s: "
             f"{_ratio(rate('json_api'), rate('echo_api'))}×; our Gradio `ask` / its echo twin: "
             f"{_ratio(rate('gradio_ask'), rate('echo_gradio'))}×"]
    for label in sorted({k.split(':')[0] for k in rows if ':' in k}):
        for route in ("json_api", "gradio_ask"):
            other = f"{label}:{route}"
            if other in rows:
                lines.append(f"- {_label(route)} / {label}: answers/s "
                             f"**{_ratio(rate(route), rate(other))}×**, p95 "
                             f"{_ratio(p95(route), p95(other))}×")
    return lines


def report(runs: list[list[dict[str, Any]]], started: str) -> str:
    """Return the Markdown report of several runs (each a list of one result per mix)."""
    first = runs[0][0]
    n, k = first["sessions"], first["questions_per_session"]
    lines = ["# Load test", "",
             f"Generated {started} by `python -m assistant loadtest` ({len(runs)} run(s); "
             f"medians, with the range over the runs in brackets). Each row is {n} visitors × "
             f"{k} questions at once, every visitor from its own loopback address, against "
             f"{_apps(first)} in extractive mode "
             "with the default limits, and an echo twin of each route started in the same run "
             "(in their own processes, the Gradio one with the chat's queue settings). The "
             "machine has 2 cores shared with the clients and with other work: read the ratios, "
             "not the absolute times. Cache hits and query batch sizes are the app's own "
             "counts (/healthz) over each row.", ""]
    for i, result in enumerate(runs[0]):
        per_mix = [run[i] for run in runs]
        mix = result["mix"]
        chips = f" ({len(result['chips'])} chips)" if result["chips"] else ""
        lines += [f"## {mix:.0%} repeated chip questions{chips}", "", *table(medians(per_mix)),
                  "", *ratios(medians(per_mix)), "", "One visitor asking 15 questions in turn:",
                  "", *table(medians(per_mix, "single")), ""]
        noisy = [r for r in per_mix if "with_noise" in r]
        if noisy:
            quiet = statistics.median(r["rows"]["gradio_ask"]["p95_ms"] for r in noisy)
            loud = statistics.median(r["with_noise"]["p95_ms"] for r in noisy)
            lines += [f"While one client sends {noisy[0]['noise']['requests']:,} requests from "
                      f"one address, the visitors' Gradio p95 is {_ratio(loud, quiet)}× the "
                      f"quiet one (target at most 1.5×); the noisy client's replies by status: "
                      f"{[r['noise']['replies'] for r in noisy]}.", ""]
        for key, row in per_mix[0]["rows"].items():
            if row["error_samples"]:
                lines += [f"Errors ({_label(key)}):", *[f"- {e}" for e in row["error_samples"]],
                          ""]
    return "\n".join(lines)


def _apps(result: dict[str, Any]) -> str:
    commits = result.get("commits", {})
    return ", ".join(f"{label} ({url}" + (f", commit {commits[label]}" if commits.get(label)
                                          else "") + ")"
                     for label, url in result["apps"].items())
