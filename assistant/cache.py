"""The answer cache: finished answers to questions asked without history, per process.

A widget's traffic repeats itself (the suggested-question chips, the same FAQ asked by many
visitors), and an extractive answer depends only on the question, the page being read and
what the process answers from. So an answer is kept under the normalised question and page,
and every entry is dropped at once when the fingerprint of what it was built from changes:
the retriever's snapshot of the index (a re-ingest, here or in another process sharing the
Chroma server, or a staff answer published or withdrawn), the corpus, the settings and the
learned parts. A question with history is never cached (its answer depends on the turns
before), nor a message (empty or too long input, an error) nor, in LLM mode, anything
(those answers stream and vary).

The cache sits inside `Assistant.ask`/`stream`, so a cached answer is still admitted by the
edge (rate and concurrency limits) and logged by the caller like any other.

Example:
    >>> cache = AnswerCache(size=1024)
    >>> answer = cache.answer(bot, "what is nvlink?", None, None,
    ...                       lambda: bot.turn("what is nvlink?").answer)   # doctest: +SKIP
    >>> cache.stats()["misses"]                                             # doctest: +SKIP
    1
"""

from __future__ import annotations

import copy
import hashlib
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .inputs import clean_text

if TYPE_CHECKING:
    from .answer import Answer
    from .chain import Assistant

#: Answers of these kinds depend on more than the question (or are cheap): never cached.
UNCACHED_KINDS = frozenset({"message", "rate_limited", "busy"})


def question_key(question: Any) -> str:
    """Return the question as the cache compares it: cleaned, white space collapsed.

    Case and punctuation are kept: the term matcher reads case ("ZeRO" is a page, "zero"
    a word) and the question mark can change how a question is read.
    """
    return clean_text(question)


def fingerprint(assistant: Assistant) -> tuple[Any, ...]:
    """Return what an answer was built from: settings, corpus, index snapshot, learned parts."""
    corpus = hashlib.sha256()
    for page in sorted(assistant.corpus, key=lambda p: p.slug):
        corpus.update(f"{page.slug}:{page.content_hash};".encode())
    return (assistant.settings, corpus.hexdigest(), assistant.retriever.generation,
            id(assistant.retriever), id(assistant.learning), id(assistant.index))


class AnswerCache:
    """A bounded LRU of finished answers, emptied when the answers' fingerprint changes.

    Thread-safe. Two identical questions arriving together may both be answered (the
    second one's answer then replaces the first in the cache): no lock is held while
    answering.
    """

    def __init__(self, size: int):
        self.size = max(0, int(size))
        self._entries: OrderedDict[tuple[str, str | None], Answer] = OrderedDict()
        self._lock = threading.Lock()
        self._fingerprint: tuple[Any, ...] | None = None
        self.hits = 0
        self.misses = 0
        self.bypassed = 0  # questions with history, or the cache is off
        self.invalidations = 0

    def answer(self, assistant: Assistant, question: Any, history: Any, page: Any,
               compute: Callable[[], Answer]) -> Answer:
        """Return the cached answer to this question on this page, or compute and keep it."""
        text = question_key(question) if isinstance(question, str) else ""
        if not self.size or history or not text:
            with self._lock:
                self.bypassed += 1
            return compute()
        start = time.perf_counter()
        key = (text, page if isinstance(page, str) and page in assistant.corpus.pages else None)
        current = fingerprint(assistant)
        with self._lock:
            if current != self._fingerprint:
                if self._fingerprint is not None:
                    self.invalidations += 1
                self._entries.clear()
                self._fingerprint = current
            cached = self._entries.get(key)
            if cached is not None:
                self._entries.move_to_end(key)
                self.hits += 1
            else:
                self.misses += 1
        if cached is not None:
            hit = copy.deepcopy(cached)
            took = (time.perf_counter() - start) * 1000
            hit.timings_ms = {"cache": took, "total": took}
            return hit
        answer = compute()
        if answer.kind not in UNCACHED_KINDS and not answer.note.startswith("fallback"):
            with self._lock:
                if self._fingerprint == current:
                    self._entries[key] = copy.deepcopy(answer)
                    self._entries.move_to_end(key)
                    while len(self._entries) > self.size:
                        self._entries.popitem(last=False)
        return answer

    def clear(self) -> None:
        """Forget every answer."""
        with self._lock:
            self._entries.clear()

    def stats(self) -> dict[str, Any]:
        """Return the counts /healthz shows: hits, misses, bypassed, size, invalidations."""
        with self._lock:
            looked_up = self.hits + self.misses
            return {"hits": self.hits, "misses": self.misses, "bypassed": self.bypassed,
                    "entries": len(self._entries), "size": self.size,
                    "invalidations": self.invalidations,
                    "hit_rate": round(self.hits / looked_up, 3) if looked_up else 0.0}


def perf_stats(assistant: Assistant) -> dict[str, Any]:
    """Return the answer cache's counts (the console's Overview reads them) and the query
    batches' sizes, for /healthz."""
    out: dict[str, Any] = {"cache": assistant.answers.stats()}
    batcher = getattr(assistant.index, "__dict__", {}).get("batcher")
    if batcher is not None:  # only once the embedding model is loaded
        out["query_batches"] = batcher.stats()
    return out
