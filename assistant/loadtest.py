"""A bounded load test on loopback: the app's `ask` endpoints beside a trivial echo Gradio app.

Every simulated visitor connects from its own loopback address (127.0.x.y: all of 127/8 is
this machine), so the per-visitor limits stay on, as in production. Measured, each as
sessions x questions at once:
- the echo app (a Gradio API that returns its input), the floor of any Gradio answer;
- the app's Gradio `ask` endpoint (`/gradio_api/call/ask`, the two-step HTTP API);
- the app's JSON API (`POST /api/ask`);
- the Gradio endpoint again while one noisy client sends 1,000 requests from one address.

Only loopback targets are accepted. Every loop is bounded in count and time.
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
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from .bench import QUESTIONS

REPO = Path(__file__).resolve().parent.parent
REPORT = REPO / "evals" / "LOADTEST.md"
LOOPBACK = {"127.0.0.1", "localhost", "::1"}

# A Gradio app that only echoes, queued like the chat (same queue size and concurrency).
_ECHO_APP = """
import sys, gradio as gr
def echo(question: str, history: list | None = None, page: str = "") -> dict:
    return {"answer": question}
with gr.Blocks() as demo:
    gr.api(echo, api_name="echo")
demo.queue(max_size=64, default_concurrency_limit=4)
demo.launch(server_name="127.0.0.1", server_port=int(sys.argv[1]), quiet=True)
"""

Result = tuple[float, bool, str]  # milliseconds, ok, error


class NotLoopback(ValueError):
    """The target is not on this machine."""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_until_up(proc: subprocess.Popen, url: str, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the server exited: {proc.stderr.read()[-2000:]}")
        try:
            urllib.request.urlopen(url + "config", timeout=2).read()
            return
        except OSError:
            time.sleep(0.5)
    proc.kill()
    raise RuntimeError(f"nothing answered on {url} within {timeout_s:.0f} s")


def start_app(env_overrides: dict[str, str] | None = None, timeout_s: float = 120
              ) -> tuple[subprocess.Popen, str]:
    """Start `python app.py` on a free loopback port; return the process and its URL."""
    port = _free_port()
    env = {**os.environ, "GRADIO_SERVER_NAME": "127.0.0.1", "GRADIO_SERVER_PORT": str(port),
           **(env_overrides or {})}
    proc = subprocess.Popen([sys.executable, str(REPO / "app.py")], env=env, cwd=REPO,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    url = f"http://127.0.0.1:{port}/"
    _wait_until_up(proc, url, timeout_s)
    return proc, url


def start_echo_app(timeout_s: float = 60) -> tuple[subprocess.Popen, str]:
    """Start the trivial echo Gradio app in its own process; return it and its URL."""
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-c", _ECHO_APP, str(port)], cwd=REPO,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    url = f"http://127.0.0.1:{port}/"
    _wait_until_up(proc, url, timeout_s)
    return proc, url


def address(group: int, visitor: int) -> str:
    """Return the loopback address visitor `visitor` of scenario `group` connects from."""
    return f"127.{10 + group}.{visitor // 250}.{visitor % 250 + 2}"


def gradio_call(http: Any, api: str, question: str) -> Result:
    """Ask through Gradio's two-step HTTP API (POST call/<api>, then read the event stream)."""
    t = time.perf_counter()
    try:
        posted = http.post(f"gradio_api/call/{api}", json={"data": [question, [], ""]})
        if posted.status_code != 200:
            return (time.perf_counter() - t) * 1000, False, f"HTTP {posted.status_code}"
        stream = http.get(f"gradio_api/call/{api}/{posted.json()['event_id']}").text
        ok = "event: complete" in stream and '"answer"' in stream
        return (time.perf_counter() - t) * 1000, ok, "" if ok else stream[-200:]
    except Exception as exc:  # counted as an error, reported, never raised
        return (time.perf_counter() - t) * 1000, False, f"{type(exc).__name__}: {exc}"


def json_call(http: Any, question: str) -> Result:
    """Ask through the JSON API."""
    t = time.perf_counter()
    try:
        response = http.post("api/ask", json={"question": question})
        ok = response.status_code == 200 and bool(response.json().get("answer"))
        return (time.perf_counter() - t) * 1000, ok, "" if ok else f"HTTP {response.status_code}"
    except Exception as exc:
        return (time.perf_counter() - t) * 1000, False, f"{type(exc).__name__}: {exc}"


def _session(url: str, source: str, questions: list[str], call: Callable[..., Result],
             deadline: float) -> list[Result]:
    import httpx

    out = []
    transport = httpx.HTTPTransport(local_address=source)
    with httpx.Client(base_url=url, transport=transport, timeout=120) as http:
        for q in questions:
            if time.monotonic() > deadline:
                out.append((0.0, False, "time budget exhausted"))
                continue
            out.append(call(http, q))
    return out


def run_load(url: str, call: Callable[..., Result], group: int, sessions: int,
             per_session: int, deadline: float) -> dict[str, Any]:
    """Run `sessions` visitors at once, each asking `per_session` questions in turn."""
    plans = [[QUESTIONS[(s * per_session + i) % len(QUESTIONS)] for i in range(per_session)]
             for s in range(sessions)]
    started = time.perf_counter()
    results: list[Result] = []
    lock = threading.Lock()
    with ThreadPoolExecutor(max_workers=sessions) as pool:
        for rows in pool.map(lambda s: _session(url, address(group, s), plans[s], call,
                                                deadline), range(sessions)):
            with lock:
                results.extend(rows)
    wall = time.perf_counter() - started
    return {**_summary(results), "wall_s": round(wall, 1),
            "throughput_rps": round(len(results) / wall, 1)}


def _noisy(url: str, requests: int, stop: threading.Event) -> dict[str, int]:
    """One client firing `requests` questions at once from one address; count the replies."""
    import httpx

    codes: dict[str, int] = {}
    lock = threading.Lock()
    transport = httpx.HTTPTransport(local_address=address(9, 0))

    def fire(i: int) -> None:
        if stop.is_set():
            return
        try:
            code = str(http.post("gradio_api/call/ask", json={
                "data": [QUESTIONS[i % len(QUESTIONS)], [], ""]}).status_code)
        except Exception as exc:
            code = type(exc).__name__
        with lock:
            codes[code] = codes.get(code, 0) + 1

    with httpx.Client(base_url=url, transport=transport, timeout=60,
                      limits=httpx.Limits(max_connections=50)) as http:
        with ThreadPoolExecutor(max_workers=50) as pool:
            list(pool.map(fire, range(requests)))
    return codes


def _summary(results: list[Result]) -> dict[str, Any]:
    ok = sorted(ms for ms, good, _ in results if good)
    errors = [msg for _, good, msg in results if not good]
    p95 = ok[min(len(ok) - 1, int(round(0.95 * (len(ok) - 1))))] if ok else 0.0
    return {"requests": len(results), "errors": len(errors), "error_samples": errors[:5],
            "p50_ms": round(statistics.median(ok), 1) if ok else None,
            "p95_ms": round(p95, 1) if ok else None}


def _ratio(a: float | None, b: float | None) -> float | None:
    return round(a / b, 2) if a and b else None


def run_loadtest(url: str, echo_url: str, sessions: int = 50, per_session: int = 5,
                 noisy_requests: int = 1000, budget_s: float = 900) -> dict[str, Any]:
    """Measure the echo app, the Gradio endpoint, the JSON API and the noisy client."""
    for target in (url, echo_url):
        host = urlparse(target).hostname or ""
        if host not in LOOPBACK and not host.startswith("127."):
            raise NotLoopback(f"{target} is not a loopback address; this tool only loads "
                              "this machine")
    deadline = time.monotonic() + budget_s
    # One visitor asking in turn: the cost of each path without queueing (15 questions stay
    # under the default 20 a minute).
    single = {name: run_load(target, call, 4 + i, 1, 15, deadline) for i, (name, target, call)
              in enumerate((("echo", echo_url, lambda http, q: gradio_call(http, "echo", q)),
                            ("gradio_ask", url, lambda http, q: gradio_call(http, "ask", q)),
                            ("json_api", url, json_call)))}
    echo = run_load(echo_url, lambda http, q: gradio_call(http, "echo", q), 0, sessions,
                    per_session, deadline)
    gradio = run_load(url, lambda http, q: gradio_call(http, "ask", q), 1, sessions,
                      per_session, deadline)
    api = run_load(url, json_call, 2, sessions, per_session, deadline)
    stop = threading.Event()
    noise: dict[str, dict[str, int]] = {}
    noisy = threading.Thread(target=lambda: noise.update(
        codes=_noisy(url, noisy_requests, stop)))
    noisy.start()
    time.sleep(0.5)  # the noise is under way when the visitors arrive
    with_noise = run_load(url, lambda http, q: gradio_call(http, "ask", q), 3, sessions,
                          per_session, deadline)
    stop.set()
    noisy.join(timeout=120)
    return {"url": url, "sessions": sessions, "questions_per_session": per_session,
            "single": single, "echo": echo, "gradio_ask": gradio, "json_api": api,
            "with_noise": with_noise,
            "noise": {"requests": noisy_requests, "replies": noise.get("codes", {})},
            "p95_ratio_to_echo": _ratio(gradio["p95_ms"], echo["p95_ms"]),
            "json_api_throughput_ratio": _ratio(api["throughput_rps"],
                                                gradio["throughput_rps"]),
            "p95_ratio_with_noise": _ratio(with_noise["p95_ms"], gradio["p95_ms"])}


def _verdict(value: float | None, limit: float, at_most: bool) -> str:
    if value is None:
        return "not measured"
    ok = value <= limit if at_most else value >= limit
    return f"**{value}×** ({'meets' if ok else 'misses'} the target)"


def write_report(result: dict[str, Any], path: Path = REPORT) -> Path:
    """Write the load test's figures as Markdown."""
    n, k = result["sessions"], result["questions_per_session"]
    single = result["single"]
    alone = [("one visitor in turn: echo app", single["echo"]),
             ("one visitor in turn: the app, Gradio endpoint", single["gradio_ask"]),
             ("one visitor in turn: the app, JSON API", single["json_api"])]
    rows = [("trivial echo Gradio app (`/gradio_api/call/echo`)", result["echo"]),
            ("the app, Gradio endpoint (`/gradio_api/call/ask`)", result["gradio_ask"]),
            ("the app, JSON API (`POST /api/ask`)", result["json_api"]),
            ("the app, Gradio endpoint, while one client sends "
             f"{result['noise']['requests']:,} requests", result["with_noise"])]
    lines = [
        "# Load test", "",
        f"Generated {dt.datetime.now().isoformat(timespec='minutes')} by `make loadtest` "
        f"(`python -m assistant loadtest`) against the app on {result['url']} (extractive "
        f"mode, default limits on). Each row is {n} visitors × {k} questions at once, every "
        "visitor from its own loopback address; the echo app runs in its own process with "
        "the chat's queue settings. The machine has 2 cores, shared with other work while "
        "this ran: read the ratios, not the absolute times.", "",
        "| | requests | errors | p50 ms | p95 ms | answers/s |",
        "|---|---|---|---|---|---|",
        *[f"| {label} | {r['requests']} | {r['errors']} | {r['p50_ms']} | {r['p95_ms']} | "
          f"{r['throughput_rps']} |" for label, r in alone + rows], "",
        f"- Gradio endpoint p95 / echo app p95 under the same load: "
        f"{_verdict(result['p95_ratio_to_echo'], 1.5, True)}; target at most 1.5×.",
        f"- JSON API throughput / Gradio endpoint throughput: "
        f"{_verdict(result['json_api_throughput_ratio'], 2.0, False)}; target at least 2×.",
        f"- Visitors' p95 with the noisy client / without: "
        f"{_verdict(result['p95_ratio_with_noise'], 1.5, True)}; target at most 1.5×. "
        f"The noisy client's replies by status: {result['noise']['replies']}.",
    ]
    for label, r in rows:
        if r["error_samples"]:
            lines += ["", f"Errors ({label}):", *[f"- {e}" for e in r["error_samples"]]]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def main(url: str | None, sessions: int, per_session: int) -> dict[str, Any]:
    """Start the app (unless a URL is given) and the echo app, run the test, write the report."""
    procs = []
    try:
        if url is None:
            proc, url = start_app()
            procs.append(proc)
        echo, echo_url = start_echo_app()
        procs.append(echo)
        result = run_loadtest(url, echo_url, sessions=sessions, per_session=per_session)
    finally:
        for proc in procs:
            proc.terminate()
            proc.wait(timeout=30)
    write_report(result)
    print(json.dumps(result, indent=2))
    return result
