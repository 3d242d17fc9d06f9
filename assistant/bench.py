"""Benchmarks on the real corpus: latency against the embedding floor, ingest, cold start, RSS.

Figures are medians (and p95) of many runs in one process, reported next to the bare
query-embedding time measured in the same run, because the machines are shared and noisy.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

QUESTIONS = [
    "what is infiniband?", "is roce the same thing as infiniband?", "whats nvlnk",
    "how does pfc cause pause storms", "what does a slow network do to training cost?",
    "nccl ring vs tree", "why rail optimized topology", "what is oversubscription 2:1",
    "how fast is pcie gen5", "what is the nvl72 rack", "explain dcqcn", "what is mfu",
    "data parallel vs tensor parallel", "what is a queue pair", "ultra ethernet uec 1.0",
    "gpudirect storage", "what limits all-reduce", "infinband speeds", "what is sharp",
    "how do I bake bread",
]

# Peak RSS comes from VmHWM: ru_maxrss survives exec, so a child would report its parent's.
_COLD = """
import time, json, sys
t0 = time.perf_counter()
from assistant.chain import Assistant
bot = Assistant.from_settings()
t1 = time.perf_counter()
answer = bot.ask("what is infiniband?")
t2 = time.perf_counter()
print(json.dumps({"start_s": t1 - t0, "first_answer_s": t2 - t0,
                  "peak_rss_mb": next(int(l.split()[1]) for l in open("/proc/self/status")
                                      if l.startswith("VmHWM")) / 1024,
                  "torch_loaded": "torch" in sys.modules,
                  "ok": bool(answer.citations)}))
"""


def _stats(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]
    return {"p50": round(statistics.median(ordered), 2), "p95": round(p95, 2),
            "runs": len(ordered)}


def _memory_mb(pid: int) -> dict[str, float]:
    """Return a process's resident memory now and at its peak, in MB."""
    status = Path(f"/proc/{pid}/status").read_text().splitlines()
    fields = {line.split(":")[0]: int(line.split()[1]) for line in status
              if line.startswith(("VmRSS", "VmHWM"))}
    return {"rss_mb": round(fields["VmRSS"] / 1024), "peak_rss_mb": round(fields["VmHWM"] / 1024)}


def served(settings: Any, questions: int = 500, workers: int = 4, app_dir: Path | None = None
           ) -> dict[str, Any]:
    """Start the app as `make run` does; time its start to the first answer over HTTP, then
    ask `questions` distinct visitor questions (4 at a time, each visitor from its own
    loopback address) and read its memory. `app_dir`: another checkout to start instead."""
    from concurrent.futures import ThreadPoolExecutor

    import httpx

    from .loadtest import address, start_app, visitor_questions

    # A copy of the data dir, so the 500 questions stay out of the real question log.
    tmp = tempfile.mkdtemp(prefix="assistant-bench-")
    for part in ("chroma", "learned"):
        if (Path(settings.data_dir) / part).is_dir():
            shutil.copytree(Path(settings.data_dir) / part, Path(tmp) / part)
    env = {"ASSISTANT_DATA_DIR": tmp, "ASSISTANT_CORPUS_DIR": str(settings.corpus_dir),
           "ASSISTANT_MODEL_CACHE": str(settings.model_cache_dir)}
    t0 = time.perf_counter()
    proc, url = start_app(env, app_dir=app_dir) if app_dir else start_app(env)
    try:
        with httpx.Client(base_url=url, timeout=120, verify=False) as http:
            first = http.post("api/ask", json={"question": "what is infiniband?"}).json()
        result: dict[str, Any] = {"first_answer_s": round(time.perf_counter() - t0, 2),
                                  "first_ok": bool(first.get("citations")),
                                  "after_first": _memory_mb(proc.pid)}
        pool = visitor_questions()
        asks = [pool[i % len(pool)] for i in range(questions)]

        def visitor(v: int) -> int:
            mine = asks[v::50]
            transport = httpx.HTTPTransport(local_address=address(60, v), verify=False)
            with httpx.Client(base_url=url, transport=transport, timeout=120,
                              verify=False) as http:
                return sum(http.post("api/ask", json={"question": q}).status_code == 200
                           for q in mine)

        t1 = time.perf_counter()
        with ThreadPoolExecutor(max_workers=workers) as threads:
            answered = sum(threads.map(visitor, range(50)))
        result.update({"questions": questions, "answered": answered,
                       "seconds": round(time.perf_counter() - t1, 1),
                       f"after_{questions}": _memory_mb(proc.pid)})
        return result
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        shutil.rmtree(tmp, ignore_errors=True)


def cold_start(settings: Any, app_dir: Path | None = None) -> dict[str, Any]:
    """Time a new process from import to its first answer; read its peak memory."""
    env = {**os.environ, "ASSISTANT_DATA_DIR": str(settings.data_dir),
           "ASSISTANT_CORPUS_DIR": str(settings.corpus_dir)}
    t0 = time.perf_counter()
    # From the checkout's own folder, so that `python -c` imports its package.
    out = subprocess.run([sys.executable, "-c", _COLD], capture_output=True, text=True,
                         env=env, check=True, cwd=app_dir or Path(__file__).parent.parent)
    result = json.loads(out.stdout.strip().splitlines()[-1])
    result["process_wall_s"] = time.perf_counter() - t0
    return {k: round(v, 2) if isinstance(v, float) else v for k, v in result.items()}


def baseline(settings: Any, app_dir: Path, data_dir: Path, runs: int = 3) -> dict[str, Any]:
    """Cold start and the served app's memory, this checkout and another in turns, `runs`
    times each, with the medians: the before/after of the start and memory targets."""
    theirs = settings.replace(data_dir=Path(data_dir))
    rows: list[dict[str, Any]] = []
    for _ in range(runs):
        for label, s, where in (("this", settings, None), ("baseline", theirs, app_dir)):
            rows.append({"label": label, "load_avg": os.getloadavg(),
                         "cold_start": cold_start(s, where),
                         "served": served(s, app_dir=where)})

    def median(label: str, *path: str) -> float:
        values = []
        for row in rows:
            if row["label"] == label:
                value: Any = row
                for key in path:
                    value = value[key]
                values.append(value)
        return round(statistics.median(values), 2)

    figures = {label: {"first_answer_s": median(label, "cold_start", "first_answer_s"),
                       "peak_rss_mb": median(label, "cold_start", "peak_rss_mb"),
                       "served_first_answer_s": median(label, "served", "first_answer_s"),
                       "rss_after_500_mb": median(label, "served", "after_500", "rss_mb")}
               for label in ("this", "baseline")}
    return {"medians": figures, "runs": rows}


def run_bench(settings: Any, runs: int = 200, cold: bool = True) -> dict[str, Any]:
    """Measure everything the speed targets name; return one JSON-able dict."""
    from .cache import AnswerCache
    from .chain import Assistant
    from .corpus import load_corpus
    from .index import Index

    result: dict[str, Any] = {"machine": {"cpus": os.cpu_count(),
                                          "load_avg": os.getloadavg(),
                                          "torch_threads": settings.torch_threads,
                                          "embedding_backend": settings.embedding_backend}}
    corpus = load_corpus(settings.corpus_dir)
    t0 = time.perf_counter()
    report = Index(settings).ingest(corpus, progress=False)
    result["ingest_noop_s"] = round(time.perf_counter() - t0, 3)
    result["ingest_noop_embedded"] = report.units_embedded

    # Misses: the cache off, so every answer is worked out.
    bot = Assistant.from_settings(settings.replace(answer_cache_size=0))
    questions = [QUESTIONS[i % len(QUESTIONS)] for i in range(runs)]
    for q in QUESTIONS:  # warm every path once
        bot.ask(q)
    embed, direct, retrieve, answer = [], [], [], []
    model = getattr(bot.index, "embeddings", None)
    for i, q in enumerate(questions):
        # Through the batcher, as answers embed, and the model alone (a question alone must
        # not wait), in turns first, so neither gains from the other's warm caches.
        ways = [(bot.index.embed_query, embed)]
        if model is not None:
            ways.insert(i % 2, (model.embed_query, direct))
        for embed_one, times in ways:
            t = time.perf_counter()
            embed_one(q)
            times.append((time.perf_counter() - t) * 1000)
        t = time.perf_counter()
        bot.retriever.retrieve(q, k=5)
        retrieve.append((time.perf_counter() - t) * 1000)
        t = time.perf_counter()
        bot.ask(q)
        answer.append((time.perf_counter() - t) * 1000)
    result["embed_query_ms"] = _stats(embed)
    if direct:
        result["embed_query_unbatched_ms"] = _stats(direct)
    result["retrieve_ms"] = _stats(retrieve)
    result["answer_ms"] = _stats(answer)
    result["answer_p50_over_embed_p50"] = round(result["answer_ms"]["p50"]
                                                / result["embed_query_ms"]["p50"], 2)
    # Hits: the same questions again through a cache that has seen each once.
    bot.answers = AnswerCache(settings.answer_cache_size or 1024)
    for q in QUESTIONS:
        bot.ask(q)
    hits = []
    for q in questions:
        t = time.perf_counter()
        bot.ask(q)
        hits.append((time.perf_counter() - t) * 1000)
    result["cache_hit_ms"] = _stats(hits)
    result["cache_hit_over_miss_p50"] = round(result["cache_hit_ms"]["p50"]
                                              / result["answer_ms"]["p50"], 4)

    with tempfile.TemporaryDirectory() as tmp:
        # A fresh index with the model's export already made (the export is timed apart).
        full = Index(settings.replace(data_dir=Path(tmp), torch_threads=0,
                                      model_cache=str(settings.model_cache_dir)))
        t0 = time.perf_counter()
        built = full.ingest(corpus, progress=False)
        result["ingest_full_s"] = round(time.perf_counter() - t0, 1)
        result["ingest_full_passages"] = built.units_embedded
        result["ingest_passages_per_s"] = round(built.units_embedded
                                                / result["ingest_full_s"], 1)
    if cold:
        result["cold_start"] = cold_start(settings)
        result["served"] = served(settings)
    rss = result.get("served", {}).get("after_500", {}).get("rss_mb")
    result["targets"] = {
        "answer_p95_under_60ms": result["answer_ms"]["p95"] < 60,
        "cache_hit_at_most_0.2x_miss": result["cache_hit_over_miss_p50"] <= 0.2,
        "noop_ingest_under_2s": result["ingest_noop_s"] < 2,
        "cold_start_to_first_answer_at_most_8s": (not cold)
        or result["cold_start"]["first_answer_s"] <= 8,
        "served_first_answer_at_most_8s": (not cold)
        or result["served"]["first_answer_s"] <= 8,
        "rss_after_500_questions_at_most_600mb": (not cold) or (rss is not None
                                                                 and rss <= 600),
    }
    return result
