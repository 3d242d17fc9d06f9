"""A bounded load test on loopback: the app's two `ask` routes beside an echo twin of each.

Every simulated visitor connects from its own loopback address (127.0.x.y: all of 127/8 is
this machine), so the per-visitor limits stay on, as in production. Each run starts, in their
own processes, the app and two twins that do nothing but echo: a Gradio app with the chat's
queue settings (the floor of `/gradio_api/call/ask`) and a FastAPI app (the floor of
`POST /api/ask`). Measured, each as sessions x questions at once:
- each twin, and the app's Gradio `ask` and JSON routes;
- the same with one visitor asking in turn (the cost of each path without queueing);
- the Gradio route again while one noisy client sends 1,000 requests from one address.

The questions are visitors' questions: a share `mix` are the chips an empty chat offers
(repeated, as widget traffic is), the rest distinct single-turn questions from evals/golden
and dev (never the sealed test split), none asked twice in a run, so a cache only helps with
what really repeats. `--baseline DIR` also starts another checkout of the app (an older
commit, say) in the same run, for before/after ratios measured side by side.

Only loopback targets are accepted. Every loop is bounded in count and time.
"""

from __future__ import annotations

import datetime as dt
import itertools
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

REPO = Path(__file__).resolve().parent.parent
REPORT = REPO / "evals" / "LOADTEST.md"
LOOPBACK = {"127.0.0.1", "localhost", "::1"}
#: Where the visitors' questions come from (the sealed test split is never read).
QUESTION_FILES = (REPO / "evals" / "golden.jsonl", REPO / "evals" / "dev.jsonl")

# A Gradio app that only echoes, queued like the chat (same queue size and concurrency).
_ECHO_APP = """
import sys, gradio as gr
def echo(question: str, history: list | None = None, page: str = "") -> dict:
    return {"answer": question}
with gr.Blocks() as demo:
    gr.api(echo, api_name="ask")
demo.queue(max_size=64, default_concurrency_limit=4)
demo.launch(server_name="127.0.0.1", server_port=int(sys.argv[1]), quiet=True)
"""
# A FastAPI app that only echoes, served by uvicorn like the app.
_ECHO_API = """
import sys, uvicorn
from fastapi import FastAPI
app = FastAPI()
@app.post("/api/ask")
def ask(body: dict) -> dict:
    return {"answer": str(body.get("question", ""))}
@app.get("/config")
def config() -> dict:
    return {}
uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
"""

Result = tuple[float, bool, str]  # milliseconds, ok, error
Ask = tuple[str, str]  # question, page slug ("" for none)


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


def _start(args: list[str], env: dict[str, str], cwd: Path, timeout_s: float
           ) -> tuple[subprocess.Popen, str]:
    port = _free_port()
    proc = subprocess.Popen([*args, str(port)], env={**env, "GRADIO_SERVER_PORT": str(port)},
                            cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True)
    url = f"http://127.0.0.1:{port}/"
    _wait_until_up(proc, url, timeout_s)
    return proc, url


def start_app(env_overrides: dict[str, str] | None = None, timeout_s: float = 180,
              app_dir: Path = REPO) -> tuple[subprocess.Popen, str]:
    """Start `python app.py` of a checkout on a free loopback port; return it and its URL."""
    env = {**os.environ, "GRADIO_SERVER_NAME": "127.0.0.1", **(env_overrides or {})}
    return _start([sys.executable, str(Path(app_dir) / "app.py")], env, Path(app_dir),
                  timeout_s)


def start_echo_app(timeout_s: float = 60) -> tuple[subprocess.Popen, str]:
    """Start the Gradio echo twin in its own process; return it and its URL."""
    return _start([sys.executable, "-c", _ECHO_APP], dict(os.environ), REPO, timeout_s)


def start_echo_api(timeout_s: float = 60) -> tuple[subprocess.Popen, str]:
    """Start the FastAPI echo twin in its own process; return it and its URL."""
    return _start([sys.executable, "-c", _ECHO_API], dict(os.environ), REPO, timeout_s)


def address(group: int, visitor: int) -> str:
    """Return the loopback address visitor `visitor` of scenario `group` connects from."""
    return f"127.{10 + group}.{visitor // 250}.{visitor % 250 + 2}"


# -- questions ---------------------------------------------------------------------------------

def visitor_questions(files: tuple[Path, ...] = QUESTION_FILES) -> list[str]:
    """Return the distinct single-turn questions of the labelled sets, in file order."""
    seen: dict[str, None] = {}
    for path in files:
        for line in path.read_text(encoding="utf-8").splitlines():
            item = json.loads(line) if line.strip() else {}
            if item.get("question") and not item.get("history"):
                seen.setdefault(item["question"], None)
    return list(seen)


def chip_questions() -> list[str]:
    """Return the questions an empty chat offers as chips (what a widget's visitors repeat)."""
    from .config import Settings
    from .corpus import load_corpus
    from .web.render import starter_questions

    return starter_questions(load_corpus(Settings.from_env().corpus_dir))


def distinct_asks(questions: list[str], pages: list[str]) -> Iterator[Ask]:
    """Yield (question, page) pairs never repeated: each question on no page, then on each
    page in turn (a visitor reading another page asks another question)."""
    for page in ["", *pages]:
        for question in questions:
            yield question, page


def plan(sessions: int, per_session: int, mix: float, chips: list[str],
         fresh: Iterator[Ask], rng: random.Random) -> list[list[Ask]]:
    """Return each session's questions: a share `mix` of chips, the rest never asked before."""
    def one() -> Ask:
        if chips and rng.random() < mix:
            return rng.choice(chips), ""
        ask = next(fresh, None)
        if ask is None:
            raise ValueError("out of distinct questions: ask fewer, or add labelled questions")
        return ask

    return [[one() for _ in range(per_session)] for _ in range(sessions)]


# -- calls -------------------------------------------------------------------------------------

def gradio_call(http: Any, api: str, ask: Ask) -> Result:
    """Ask through Gradio's two-step HTTP API (POST call/<api>, then read the event stream)."""
    t = time.perf_counter()
    try:
        posted = http.post(f"gradio_api/call/{api}", json={"data": [ask[0], [], ask[1]]})
        if posted.status_code != 200:
            return (time.perf_counter() - t) * 1000, False, f"HTTP {posted.status_code}"
        stream = http.get(f"gradio_api/call/{api}/{posted.json()['event_id']}").text
        ok = "event: complete" in stream and '"answer"' in stream
        return (time.perf_counter() - t) * 1000, ok, "" if ok else stream[-200:]
    except Exception as exc:  # counted as an error, reported, never raised
        return (time.perf_counter() - t) * 1000, False, f"{type(exc).__name__}: {exc}"


def json_call(http: Any, ask: Ask) -> Result:
    """Ask through the JSON API."""
    t = time.perf_counter()
    try:
        response = http.post("api/ask", json={"question": ask[0], "page": ask[1]})
        ok = response.status_code == 200 and bool(response.json().get("answer"))
        return (time.perf_counter() - t) * 1000, ok, "" if ok else f"HTTP {response.status_code}"
    except Exception as exc:
        return (time.perf_counter() - t) * 1000, False, f"{type(exc).__name__}: {exc}"


def caller(route: str) -> Callable[[Any, Ask], Result]:
    """Return the call for a route: "gradio" (the `ask` endpoint) or "api" (POST /api/ask)."""
    return json_call if route == "api" else (lambda http, ask: gradio_call(http, "ask", ask))


def _session(url: str, source: str, asks: list[Ask], call: Callable[..., Result],
             deadline: float) -> list[Result]:
    import httpx

    out = []
    # Plain HTTP to loopback (check_loopback): no TLS, so no certificate store either.
    # Loading it cost 18 ms of CPU per visitor, on the cores the server under test uses.
    transport = httpx.HTTPTransport(local_address=source, verify=False)
    with httpx.Client(base_url=url, transport=transport, timeout=120, verify=False) as http:
        for ask in asks:
            if time.monotonic() > deadline:
                out.append((0.0, False, "time budget exhausted"))
                continue
            out.append(call(http, ask))
    return out


def health(url: str) -> dict[str, Any]:
    """Return what the app's /healthz says ({} for a twin, or an app without one)."""
    try:
        return json.loads(urllib.request.urlopen(url + "healthz", timeout=5).read())
    except (OSError, ValueError):
        return {}


def run_load(url: str, call: Callable[..., Result], group: int, plans: list[list[Ask]],
             deadline: float) -> dict[str, Any]:
    """Run one visitor per plan at once, each asking its questions in turn."""
    before = health(url)
    started = time.perf_counter()
    results: list[Result] = []
    with ThreadPoolExecutor(max_workers=len(plans)) as pool:
        for rows in pool.map(lambda s: _session(url, address(group, s), plans[s], call,
                                                deadline), range(len(plans))):
            results.extend(rows)
    wall = time.perf_counter() - started
    return {**_summary(results), "wall_s": round(wall, 1),
            "throughput_rps": round(len(results) / wall, 1),
            **_served(before, health(url))}


def _served(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """What the app's counters say happened between two /healthz reads."""
    out: dict[str, Any] = {}
    if "cache" in after:
        out["cache_hits"] = after["cache"]["hits"] - before.get("cache", {}).get("hits", 0)
    sizes_after = after.get("query_batches", {}).get("sizes", {})
    if sizes_after:
        sizes_before = before.get("query_batches", {}).get("sizes", {})
        sizes = {int(k): v - sizes_before.get(k, 0) for k, v in sizes_after.items()}
        sizes = {k: v for k, v in sorted(sizes.items()) if v}
        batches = sum(sizes.values())
        if batches:
            out["batch_sizes"] = sizes
            out["mean_batch"] = round(sum(k * v for k, v in sizes.items()) / batches, 2)
    return out


def _noisy(url: str, requests: int, stop: threading.Event) -> dict[str, int]:
    """One client firing `requests` questions at once from one address; count the replies."""
    import httpx

    codes: dict[str, int] = {}
    lock = threading.Lock()
    transport = httpx.HTTPTransport(local_address=address(9, 0), verify=False)

    def fire(i: int) -> None:
        if stop.is_set():
            return
        try:
            code = str(http.post("gradio_api/call/ask", json={
                "data": [f"noise {i}: what is rdma?", [], ""]}).status_code)
        except Exception as exc:
            code = type(exc).__name__
        with lock:
            codes[code] = codes.get(code, 0) + 1

    with httpx.Client(base_url=url, transport=transport, timeout=60, verify=False,
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


def check_loopback(*urls: str) -> None:
    """Raise NotLoopback unless every URL is on this machine."""
    for target in urls:
        host = urlparse(target).hostname or ""
        if host not in LOOPBACK and not host.startswith("127."):
            raise NotLoopback(f"{target} is not a loopback address; this tool only loads "
                              "this machine")


def run_loadtest(apps: dict[str, str], echo_gradio: str, echo_api: str, mix: float,
                 fresh: dict[str, Iterator[Ask]], sessions: int = 50, per_session: int = 5,
                 noisy_requests: int = 0, budget_s: float = 900, seed: int = 25,
                 groups: Iterator[int] | None = None) -> dict[str, Any]:
    """Measure the twins and each app (`apps`: label -> URL, "app" first) at one mix.

    `fresh` holds each app's supply of questions never asked and `groups` the numbers of
    the visitors' address blocks; share both across the mixes of a run, so that no app
    hears a question twice unless it is a chip, and no visitor comes back.
    """
    check_loopback(echo_gradio, echo_api, *apps.values())
    rng = random.Random(f"{seed}:{mix}")
    chips = chip_questions() if mix > 0 else []
    twin = distinct_asks(visitor_questions(), [])
    deadline = time.monotonic() + budget_s
    groups = groups if groups is not None else itertools.count(20)
    targets = [("echo_gradio", echo_gradio, "gradio", twin)]
    targets += [(_key(label, "gradio_ask"), url, "gradio", fresh[label])
                for label, url in apps.items()]
    targets += [("echo_api", echo_api, "api", twin)]
    targets += [(_key(label, "json_api"), url, "api", fresh[label])
                for label, url in apps.items()]
    # One visitor asking in turn: the cost of each path without queueing (15 questions stay
    # under the default 20 a minute).
    single = {key: run_load(url, caller(route), next(groups),
                            plan(1, 15, mix, chips, supply, rng), deadline)
              for key, url, route, supply in targets}
    rows = {key: run_load(url, caller(route), next(groups),
                          plan(sessions, per_session, mix, chips, supply, rng), deadline)
            for key, url, route, supply in targets}
    result: dict[str, Any] = {"mix": mix, "sessions": sessions,
                              "questions_per_session": per_session, "apps": dict(apps),
                              "chips": chips, "single": single, "rows": rows}
    if noisy_requests:
        stop = threading.Event()
        noise: dict[str, dict[str, int]] = {}
        noisy = threading.Thread(target=lambda: noise.update(
            codes=_noisy(apps["app"], noisy_requests, stop)))
        noisy.start()
        time.sleep(0.5)  # the noise is under way when the visitors arrive
        result["with_noise"] = run_load(apps["app"], caller("gradio"), next(groups),
                                        plan(sessions, per_session, mix, chips, fresh["app"],
                                             rng), deadline)
        stop.set()
        noisy.join(timeout=120)
        result["noise"] = {"requests": noisy_requests, "replies": noise.get("codes", {})}
    return result


def _key(label: str, route: str) -> str:
    return route if label == "app" else f"{label}:{route}"


def main(url: str | None, sessions: int, per_session: int, mixes: tuple[float, ...] = (0.0, 0.5),
         runs: int = 1, baseline: Path | None = None, baseline_data: Path | None = None,
         noise: bool = True, report_path: Path | None = REPORT) -> list[list[dict[str, Any]]]:
    """Start the app (unless a URL is given), the twins and any baseline; run the test `runs`
    times at each mix; print the report and write it to `report_path`."""
    started = dt.datetime.now().isoformat(timespec="minutes")
    everything: list[list[dict[str, Any]]] = []
    pool = visitor_questions()
    pages = _pages()
    for _ in range(runs):
        procs: list[subprocess.Popen] = []
        try:
            apps: dict[str, str] = {}
            if url is None:
                proc, apps["app"] = start_app()
                procs.append(proc)
            else:
                apps["app"] = url
            if baseline is not None:
                env = {"ASSISTANT_DATA_DIR": str(baseline_data)} if baseline_data else {}
                proc, apps["baseline"] = start_app(env, app_dir=baseline)
                procs.append(proc)
            echo_gradio_proc, echo_gradio = start_echo_app()
            echo_api_proc, echo_api = start_echo_api()
            procs += [echo_gradio_proc, echo_api_proc]
            fresh = {label: distinct_asks(pool, pages) for label in apps}
            commits = {label: _commit(baseline if label == "baseline" else REPO)
                       for label in apps}
            groups = itertools.count(20)
            everything.append([
                run_loadtest(apps, echo_gradio, echo_api, mix, fresh, sessions, per_session,
                             noisy_requests=1000 if noise and i == len(mixes) - 1 else 0,
                             groups=groups) | {"commits": commits}
                for i, mix in enumerate(sorted(mixes))])
        finally:
            for proc in procs:
                proc.terminate()
                proc.wait(timeout=30)
    from .loadreport import report

    text = report(everything, started)
    if report_path is not None:
        report_path.write_text(text + "\n", encoding="utf-8")
    print(text)
    return everything


def _pages() -> list[str]:
    from .config import Settings
    from .corpus import load_corpus

    return sorted(p.slug for p in load_corpus(Settings.from_env().corpus_dir))


def _commit(checkout: Path | None) -> str:
    """Return the short commit of a checkout ("" when it is not a git work tree)."""
    try:
        out = subprocess.run(["git", "-C", str(checkout), "rev-parse", "--short", "HEAD"],
                             capture_output=True, text=True, timeout=10)
    except OSError:
        return ""
    return out.stdout.strip() if out.returncode == 0 else ""
