"""A bounded load test on loopback: concurrent sessions against the app's `ask` endpoint.

Only loopback addresses are accepted as targets. Every loop is bounded in count and time.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import socket
import statistics
import subprocess
import sys
import threading
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from .bench import QUESTIONS

REPO = Path(__file__).resolve().parent.parent
REPORT = REPO / "evals" / "LOADTEST.md"
LOOPBACK = {"127.0.0.1", "localhost", "::1"}


class NotLoopback(ValueError):
    """The target is not on this machine."""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_app(env_overrides: dict[str, str] | None = None, timeout_s: float = 120
              ) -> tuple[subprocess.Popen, str]:
    """Start `python app.py` on a free loopback port; return the process and its URL."""
    port = _free_port()
    env = {**os.environ, "GRADIO_SERVER_NAME": "127.0.0.1", "GRADIO_SERVER_PORT": str(port),
           **(env_overrides or {})}
    proc = subprocess.Popen([sys.executable, str(REPO / "app.py")], env=env, cwd=REPO,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    url = f"http://127.0.0.1:{port}/"
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the app exited: {proc.stderr.read()[-2000:]}")
        try:
            urllib.request.urlopen(url + "config", timeout=2).read()
            return proc, url
        except OSError:
            time.sleep(0.5)
    proc.kill()
    raise RuntimeError(f"the app did not answer on {url} within {timeout_s:.0f} s")


def _session(url: str, questions: list[str], deadline: float) -> list[tuple[float, bool, str]]:
    from gradio_client import Client

    out = []
    client = Client(url, verbose=False)
    for q in questions:
        if time.monotonic() > deadline:
            out.append((0.0, False, "time budget exhausted"))
            continue
        t = time.perf_counter()
        try:
            data = client.predict(q, [], "", api_name="/ask")
            ok = isinstance(data, dict) and "answer" in data and bool(data["answer"])
            out.append(((time.perf_counter() - t) * 1000, ok, "" if ok else str(data)[:200]))
        except Exception as exc:  # counted as an error, reported, never raised
            out.append(((time.perf_counter() - t) * 1000, False, f"{type(exc).__name__}: {exc}"))
    return out


def echo_app_round_trip(runs: int = 30) -> dict[str, Any]:
    """Time gradio_client round trips to a trivial echo app: the floor of any Gradio answer."""
    import gradio as gr
    from gradio_client import Client

    with gr.Blocks() as echo:
        box = gr.Textbox()
        box.submit(lambda text: {"answer": text}, box, gr.JSON(), api_name="echo")
    echo.queue()
    port = _free_port()
    echo.launch(server_name="127.0.0.1", server_port=port, prevent_thread_lock=True,
                quiet=True)
    try:
        client = Client(f"http://127.0.0.1:{port}/", verbose=False)
        times = []
        for i in range(runs):
            t = time.perf_counter()
            client.predict(QUESTIONS[i % len(QUESTIONS)], api_name="/echo")
            times.append((time.perf_counter() - t) * 1000)
    finally:
        echo.close()
    return _summary([(ms, True, "") for ms in times])


def _summary(results: list[tuple[float, bool, str]]) -> dict[str, Any]:
    ok = sorted(ms for ms, good, _ in results if good)
    errors = [msg for _, good, msg in results if not good]
    p95 = ok[min(len(ok) - 1, int(round(0.95 * (len(ok) - 1))))] if ok else 0.0
    return {"requests": len(results), "errors": len(errors), "error_samples": errors[:5],
            "p50_ms": round(statistics.median(ok), 1) if ok else None,
            "p95_ms": round(p95, 1) if ok else None}


def run_loadtest(url: str, sessions: int = 50, per_session: int = 5, single_runs: int = 30,
                 budget_s: float = 600) -> dict[str, Any]:
    """Measure one user alone, then `sessions` users at once; return both summaries."""
    host = urlparse(url).hostname or ""
    if host not in LOOPBACK and not host.startswith("127."):
        raise NotLoopback(f"{url} is not a loopback address; this tool only loads this machine")
    deadline = time.monotonic() + budget_s
    echo = echo_app_round_trip(single_runs)
    single = _session(url, [QUESTIONS[i % len(QUESTIONS)] for i in range(single_runs)], deadline)
    plans = [[QUESTIONS[(s * per_session + i) % len(QUESTIONS)] for i in range(per_session)]
             for s in range(sessions)]
    started = time.perf_counter()
    results: list[tuple[float, bool, str]] = []
    lock = threading.Lock()
    with ThreadPoolExecutor(max_workers=sessions) as pool:
        for rows in pool.map(lambda p: _session(url, p, deadline), plans):
            with lock:
                results.extend(rows)
    wall = time.perf_counter() - started
    single_s, load_s = _summary(single), _summary(results)
    return {"url": url, "sessions": sessions, "questions_per_session": per_session,
            "echo_app": echo, "single_user": single_s, "concurrent": load_s,
            "single_p50_ratio_to_echo": round(single_s["p50_ms"] / echo["p50_ms"], 2)
            if single_s["p50_ms"] and echo["p50_ms"] else None,
            "throughput_rps": round(len(results) / wall, 1), "wall_s": round(wall, 1),
            "p50_ratio_to_single": round(load_s["p50_ms"] / single_s["p50_ms"], 2)
            if load_s["p50_ms"] and single_s["p50_ms"] else None}


def write_report(result: dict[str, Any], path: Path = REPORT) -> Path:
    """Write the load test's figures as Markdown."""
    s, c = result["single_user"], result["concurrent"]
    lines = [
        "# Load test",
        "",
        f"Generated {dt.datetime.now().isoformat(timespec='minutes')} by `make loadtest` "
        f"(`python -m assistant loadtest`) against the app on {result['url']} "
        f"(2 cores, extractive mode, rate limit off for the run).",
        "",
        "| | requests | errors | p50 ms | p95 ms |",
        "|---|---|---|---|---|",
        f"| trivial echo Gradio app, one user (the floor) | {result['echo_app']['requests']} | "
        f"0 | {result['echo_app']['p50_ms']} | {result['echo_app']['p95_ms']} |",
        f"| one user, sequential | {s['requests']} | {s['errors']} | {s['p50_ms']} | "
        f"{s['p95_ms']} |",
        f"| {result['sessions']} sessions x {result['questions_per_session']} questions, "
        f"concurrent | {c['requests']} | {c['errors']} | {c['p50_ms']} | {c['p95_ms']} |",
        "",
        f"Throughput under load: {result['throughput_rps']} answers/s over {result['wall_s']} s; "
        f"concurrent p50 is {result['p50_ratio_to_single']}x the single-user p50. "
        f"One user's HTTP round trip (gradio_client, `ask` endpoint) is "
        f"{result['single_p50_ratio_to_echo']}x the echo app's (target: at most 1.5x).",
    ]
    if c["error_samples"]:
        lines += ["", "Errors:", *[f"- {e}" for e in c["error_samples"]]]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def main(url: str | None, sessions: int, per_session: int) -> dict[str, Any]:
    """Start the app if no URL is given, run the load test, write the report."""
    proc = None
    if url is None:
        proc, url = start_app({"ASSISTANT_RATE_LIMIT": "0"})
    try:
        result = run_loadtest(url, sessions=sessions, per_session=per_session)
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait(timeout=30)
    write_report(result)
    print(json.dumps(result, indent=2))
    return result
