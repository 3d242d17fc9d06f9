"""LLM answers with the extractive guarantees: given passages, tools, verified sentences.

The model sees numbered passages and may call the calculator tools and a glossary search.
Its text streams sentence by sentence, and each sentence is shown only after it passes the
checks in verify.py. Any failure (a bad citation, an unknown figure, a leak, a timeout after
two retries) ends the LLM attempt and the visitor gets the extractive answer instead.
"""

from __future__ import annotations

import json
import logging
import secrets
import time
from collections.abc import Generator, Iterator
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from .answer import Answer, Citation, ToolCall
from .compose import CitationList, templates
from .text import MARKER, complete_prefix, markers_in, numbers_in
from .verify import Verifier, flatten_numbers

log = logging.getLogger(__name__)

MAX_TOOL_CALLS = 3  # per turn, over all steps
MAX_STEPS = 3
RETRIES = 2
BACKOFF_S = 0.5
PASSAGES_PER_PAGE = 2
PAGES = 4


class LLMFailed(Exception):
    """The LLM's answer cannot be shown; the message says why (it goes to the log)."""


def is_retryable(exc: BaseException) -> bool:
    """Return True for timeouts, rate limits and server errors, which deserve a retry."""
    status = getattr(exc, "status_code", None) or getattr(
        getattr(exc, "response", None), "status_code", None)
    if isinstance(status, int) and (status == 429 or status >= 500):
        return True
    name = type(exc).__name__
    return isinstance(exc, (TimeoutError, ConnectionError)) or any(
        word in name for word in ("Timeout", "RateLimit", "InternalServer", "Connection",
                                  "ServiceUnavailable", "Overloaded"))


@dataclass
class Passages:
    """The passages given to the model, numbered as the citations will be."""

    items: list[tuple[str, str, str]] = field(default_factory=list)  # slug, section, text

    def add(self, slug: str, section: str, text: str) -> int:
        """Number a passage (once) and return its number."""
        for i, item in enumerate(self.items):
            if item[0] == slug and item[2] == text:
                return i + 1
        self.items.append((slug, section, text))
        return len(self.items)

    def render(self, titles: dict[str, str], start: int = 1) -> str:
        """Return the passages from number `start` on, as the prompt lists them."""
        return "\n".join(f"[{i}] {titles.get(slug, slug)} - {section}: {text}"
                         for i, (slug, section, text) in enumerate(self.items, 1) if i >= start)


class LLMAnswerer:
    """Answers with a chat model, checking every sentence before it is shown.

    Example:
        >>> llm = LLMAnswerer(model, corpus, retriever, tools)   # doctest: +SKIP
        >>> for piece in llm.stream(question, history, retrieval):  # doctest: +SKIP
        ...     print(piece)
    """

    def __init__(self, model: Any, corpus: Any, retriever: Any, tools: list[Any],
                 site_url: str = ""):
        self.model = model
        self.corpus = corpus
        self.retriever = retriever
        self.tools = {t.name: t for t in tools}
        self.site_url = site_url
        self.canary = f"CANARY-{secrets.token_hex(8)}"
        template = resources.files("assistant").joinpath("prompts/system.md").read_text("utf-8")
        self.template = template
        # Distinctive lines of the prompt that must never come back in an answer.
        self.forbidden = ("Rules you always follow", "Confidential marker")
        self.bound = None

    def _model(self, tools: list[Any]) -> Any:
        if self.bound is None:
            try:
                self.bound = self.model.bind_tools(tools)
            except NotImplementedError:
                self.bound = self.model
        return self.bound

    def stream(self, question: str, history: list[Any], retrieval: Any, intent: str = ""
               ) -> Iterator[str | Answer]:
        """Yield verified sentences, then the Answer; raise LLMFailed to fall back."""
        from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

        started = time.perf_counter()
        passages = Passages()
        for hit in retrieval.hits[:PAGES]:
            for p in hit.passages[:PASSAGES_PER_PAGE]:
                passages.add(p.chunk.slug, p.chunk.section, p.chunk.text)
        titles = {p.slug: p.title for p in self.corpus}
        rules = templates()["intent_rules"]
        rule = rules.get(intent, rules["general"])
        messages: list[Any] = [SystemMessage(self._system(passages, titles, rule))]
        for m in history:
            messages.append(HumanMessage(m.content) if m.role == "user" else AIMessage(m.content))
        messages.append(HumanMessage(question))
        allowed = numbers_in(question) + [n for _, _, t in passages.items for n in numbers_in(t)]
        glossary = search_tool(self.retriever, passages, titles)
        model = self._model([*self.tools.values(), glossary])
        calls: list[ToolCall] = []
        shown = ""
        for _step in range(MAX_STEPS):
            verifier = Verifier(len(passages.items), allowed, self.canary, self.forbidden)
            message, buffer, streamed = yield from self._step(model, messages, verifier,
                                                              shown_anything=bool(shown))
            shown += streamed
            tool_calls = getattr(message, "tool_calls", None) or []
            if tool_calls:
                messages.append(message)
                allowed += self._run_tools(tool_calls, glossary, passages, calls, messages)
                # The model's next turn gets the passages a search added.
                messages[0] = SystemMessage(self._system(passages, titles, rule))
                continue
            if buffer.strip().startswith("OUT_OF_SCOPE") and not shown:
                raise LLMFailed("OUT_OF_SCOPE")
            if buffer.strip():
                _fail_on(verifier.check(buffer))
                shown += buffer
                yield buffer
            break
        else:
            raise LLMFailed(f"no final answer after {MAX_STEPS} steps")
        text = shown.strip()
        if not text:
            raise LLMFailed("empty answer")
        yield self._answer(text, passages, calls, retrieval, started)

    def _system(self, passages: Passages, titles: dict[str, str], rule: str) -> str:
        return self.template.format(canary=self.canary, passages=passages.render(titles),
                                    intent_rule=rule)

    def _step(self, model: Any, messages: list[Any], verifier: Verifier, shown_anything: bool
              ) -> Generator[str, None, tuple[Any, str, str]]:
        """Stream one model call, yielding finished sentences once verified; return the
        whole message, the unfinished rest, and the text yielded."""
        message = None
        buffer = streamed = ""
        for chunk in self._stream_with_retry(model, messages, shown_anything=shown_anything):
            message = chunk if message is None else message + chunk
            text = chunk.content if isinstance(chunk.content, str) else ""
            if not text:
                continue
            buffer += text
            if buffer.lstrip().startswith("OUT_OF_SCOPE"):
                continue
            cut = complete_prefix(buffer)
            if cut:
                ready, buffer = buffer[:cut], buffer[cut:]
                _fail_on(verifier.check(ready))
                streamed += ready
                yield ready
        if message is None:
            raise LLMFailed("the model returned nothing")
        return message, buffer, streamed

    def _run_tools(self, tool_calls: list[dict[str, Any]], glossary: Any, passages: Passages,
                   calls: list[ToolCall], messages: list[Any]) -> list[float]:
        """Answer each tool call with a ToolMessage; return the figures the results allow."""
        from langchain_core.messages import ToolMessage

        allowed: list[float] = []
        for call in tool_calls:
            if len(calls) >= MAX_TOOL_CALLS:
                result: Any = {"error": f"at most {MAX_TOOL_CALLS} tool calls per turn"}
            elif call["name"] == glossary.name:
                before = len(passages.items)
                result = glossary.invoke(call["args"])
                allowed += [n for _, _, t in passages.items[before:] for n in numbers_in(t)]
            elif call["name"] in self.tools:
                result = self.tools[call["name"]].invoke(call["args"])
                calls.append(ToolCall(call["name"], dict(call["args"]), result))
                allowed += flatten_numbers(result) + flatten_numbers(call["args"])
            else:
                result = {"error": f"unknown tool {call['name']!r}"}
            messages.append(ToolMessage(json.dumps(result, default=str),
                                        tool_call_id=call.get("id") or call["name"]))
        return allowed

    def _stream_with_retry(self, model: Any, messages: list[Any], shown_anything: bool
                           ) -> Iterator[Any]:
        attempt = 0
        while True:
            produced = False
            try:
                for chunk in model.stream(messages):
                    produced = True
                    yield chunk
                return
            except Exception as exc:
                if produced or shown_anything or attempt >= RETRIES or not is_retryable(exc):
                    raise LLMFailed(f"{type(exc).__name__}: {exc}") from exc
                attempt += 1
                log.warning("LLM call failed (%s), retry %d of %d", exc, attempt, RETRIES)
                time.sleep(BACKOFF_S * 2 ** (attempt - 1))

    def _answer(self, text: str, passages: Passages, calls: list[ToolCall], retrieval: Any,
                started: float) -> Answer:
        # Renumber: only the passages the answer cites become citations, in order of use.
        cites = CitationList(self.corpus, self.site_url)
        mapping: dict[int, int] = {}
        for n in markers_in(text):
            if n not in mapping:
                slug, section, passage = passages.items[n - 1]
                mapping[n] = cites.cite(slug, section, passage)
        text = MARKER.sub(lambda m: f"[{mapping[int(m.group(1))]}]", text)
        citations: list[Citation] = cites.build()
        subject = citations[0].slug if citations else None
        return Answer(text=text, citations=citations, tool_calls=calls,
                      retrieved=retrieval.slugs, kind="calculation" if calls else "answer",
                      subject=subject, confidence=retrieval.best_similarity,
                      working=[], timings_ms={"llm": (time.perf_counter() - started) * 1000},
                      note="llm")


def _fail_on(problems: list[str]) -> None:
    if problems:
        raise LLMFailed("; ".join(problems))


def search_tool(retriever: Any, passages: Passages, titles: dict[str, str]) -> Any:
    """Return a glossary-search tool whose results join the numbered passages."""
    from langchain_core.tools import StructuredTool
    from pydantic import BaseModel, Field

    class SearchArgs(BaseModel):
        query: str = Field(description="What to look up in the glossary, in plain words",
                           min_length=1, max_length=300)

    def search_glossary(query: str) -> list[dict[str, Any]]:
        """Search the glossary and lessons; returns numbered passages to cite as [n]."""
        found = []
        for hit in retriever.retrieve(query, k=3).hits:
            p = hit.passages[0].chunk
            n = passages.add(p.slug, p.section, p.text)
            found.append({"n": n, "title": titles.get(p.slug, p.slug), "text": p.text})
        return found

    return StructuredTool.from_function(search_glossary, args_schema=SearchArgs,
                                        name="search_glossary")

