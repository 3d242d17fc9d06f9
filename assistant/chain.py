"""The orchestrator: clean the input, resolve the subject, calculate or retrieve, compose.

The steps are LangChain runnables composed with LCEL, so that callbacks and tracing work as in
any LangChain app; each step is a plain method with a typed input and output.
"""

from __future__ import annotations

import logging
import re
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from .answer import Answer, ToolCall
from .compose import (CitationList, Draft, compose_answer, compose_comparison, compose_refusal,
                      follow_ups, is_manipulation, lead_sentence, templates, wants_comparison)
from .intent import Intent, classify
from .config import Settings
from .corpus import load_corpus
from .index import Index
from .models import build_chat_model
from .inputs import Message, clean_history, clean_text
from .retrieve import Retrieval, Retriever
from .text import MARKER

log = logging.getLogger(__name__)

_PRONOUN = re.compile(r"\b(it|its|it's|they|them|their|this|that|these|those|one|ones|he|she)\b",
                      re.I)
# "does RoCE need one too?": an object "one" stands for the previous turn's thing, never for
# the term named in the same clause.
_ONE = re.compile(r"\b(need|needs|have|has|use|uses|require|requires|run|runs|get|want)"
                  r"\s+(one|ones)\b(?!\s+of\b)", re.I)
_DEFINE = re.compile(r"\b(what\s+(is|are)|what's|whats|explain|define|tell\s+me\s+about)"
                     r"(\s+(an?|the))?\s*$", re.I)


@dataclass
class Turn:
    """One question on its way through the pipeline."""

    question: str
    history: list[Message]
    page: str | None
    started: float
    answer: Answer | None = None  # set when an early step already has the answer
    terms: list[str] = field(default_factory=list)  # slugs named in the question
    subject: str | None = None
    compare: list[str] = field(default_factory=list)
    calc: Any = None  # quantities.CalcRequest
    retrieval: Retrieval | None = None
    timings: dict[str, float] = field(default_factory=dict)


class Assistant:
    """The glossary assistant: build once, then ask many questions.

    Example:
        >>> bot = Assistant()                         # reads Settings from the environment
        >>> answer = bot.ask("is roce the same thing as infiniband?")
        >>> answer.text, [c.url for c in answer.citations]
    """

    def __init__(self, settings: Settings | None = None, *, retriever: str | None = None,
                 chat_model: Any = None):
        from langchain_core.runnables import RunnableLambda

        self.settings = settings or Settings.from_env()
        if retriever:
            self.settings = self.settings.replace(retriever=retriever)
        self.corpus = load_corpus(self.settings.corpus_dir)
        self.index = Index(self.settings)
        self.retriever = Retriever(self.index, self.corpus, mode=self.settings.retriever)
        self._refresh_lock = threading.Lock()
        self._last_check = time.monotonic()
        self.pipeline = (RunnableLambda(self._prepare, name="prepare")
                         | RunnableLambda(self._calculate, name="calculate")
                         | RunnableLambda(self._retrieve, name="retrieve")
                         | RunnableLambda(self._compose, name="compose"))
        self.llm = None
        model = chat_model if chat_model is not None else build_chat_model(self.settings)
        if model is not None:
            from .generate import LLMAnswerer
            from .tools import all_tools

            self.llm = LLMAnswerer(model, self.corpus, self.retriever, all_tools(),
                                   self.settings.site_url)

    # -- public API --------------------------------------------------------------------------

    def ask(self, question: str, history: list | None = None, page: str | None = None) -> Answer:
        """Answer one question, given the conversation so far and the page being read."""
        if self.llm is not None:
            final = None
            for piece in self.stream(question, history, page):
                final = piece
            assert isinstance(final, Answer)
            return final
        return self._extractive(question, history, page).answer

    def stream(self, question: str, history: list | None = None, page: str | None = None
               ) -> Iterator[str | Answer]:
        """Yield the answer text in pieces as it is produced, then the finished Answer."""
        start = time.perf_counter()
        turn = self._extractive(question, history, page)
        answer = turn.answer
        if self.llm is not None and turn.retrieval is not None and answer.kind in (
                "answer", "comparison", "calculation"):
            from .generate import LLMFailed, is_retryable

            try:
                for piece in self.llm.stream(turn.question, turn.history, turn.retrieval,
                                             intent=answer.intent):
                    if isinstance(piece, Answer):
                        piece.intent = answer.intent
                        piece.timings_ms = {**turn.timings, **piece.timings_ms,
                                            "total": (time.perf_counter() - start) * 1000}
                    yield piece
                return
            except LLMFailed as exc:
                log.warning("LLM answer replaced by the extractive one: %s", exc)
                answer.note = f"fallback: {exc}"
                cause = exc.__cause__
                if cause is not None and is_retryable(cause):
                    answer.text += "\n\n" + templates()["messages"]["llm_unavailable"]
            except Exception as exc:  # a visitor never sees a traceback
                log.exception("LLM mode failed")
                answer.note = f"fallback: {type(exc).__name__}"
        for piece in re.split(r"(?<=\])\s+|\n\n", answer.text):
            if piece:
                yield piece
        yield answer

    def _extractive(self, question: str, history: list | None, page: str | None) -> Turn:
        start = time.perf_counter()
        try:
            self._maybe_refresh()
            turn = self.pipeline.invoke({"question": question, "history": history,
                                         "page": page, "started": start})
        except Exception:  # a visitor never sees a traceback
            log.exception("answering failed")
            turn = Turn(question="", history=[], page=None, started=start,
                        answer=Answer(text=templates()["messages"]["error"], kind="message"))
        turn.answer.timings_ms["total"] = (time.perf_counter() - start) * 1000
        return turn

    def page_title(self, slug: str | None) -> str | None:
        """Return the title of a corpus page, or None for an unknown slug."""
        page = self.corpus.get(slug) if slug else None
        return page.title if page else None

    # -- steps ------------------------------------------------------------------------------

    def _prepare(self, data: dict[str, Any]) -> Turn:
        s = self.settings
        raw = data.get("question")
        raw = raw if isinstance(raw, str) else ("" if raw is None else str(raw))
        history = clean_history(data.get("history"), s.max_history_turns, s.max_history_chars)
        page = data.get("page") if data.get("page") in self.corpus.pages else None
        turn = Turn(question="", history=history, page=page, started=data["started"])
        messages = templates()["messages"]
        if len(raw) > s.max_question_chars:
            turn.answer = Answer(text=messages["too_long"].format(
                length=f"{len(raw):,}", limit=f"{s.max_question_chars:,}"), kind="message")
            return turn
        turn.question = clean_text(raw)
        if not turn.question:
            turn.answer = Answer(text=messages["empty"], kind="message")
            return turn
        if is_manipulation(turn.question):
            turn.answer = compose_refusal(self.corpus, None, manipulation=True)
            return turn
        turn.terms = self._terms(turn.question)
        turn.subject, turn.compare = self._resolve(turn)
        return turn

    def _terms(self, text: str) -> list[str]:
        slugs: list[str] = []
        for match in self.retriever.terms.find(text):
            if match.slug not in slugs:
                slugs.append(match.slug)
        return slugs

    def _resolve(self, turn: Turn) -> tuple[str | None, list[str]]:
        """Work out what the question is about: its own terms, the history's, or the page's."""
        q = turn.question
        pronoun = _PRONOUN.search(q)
        elliptic = bool(pronoun) or len(q.split()) <= 4
        previous = self._previous_subject(turn)
        glossary = [t for t in turn.terms if self.corpus.pages[t].kind == "glossary"]
        compare: list[str] = []
        if wants_comparison(q):
            candidates = list(glossary)
            if len(candidates) == 1 and elliptic and previous and previous not in candidates:
                candidates.insert(0, previous)
            if len(candidates) >= 2:
                compare = candidates[:2]
        named = (glossary or turn.terms or [None])[0]
        if named is None:
            # "does it work between servers too?": the previous turn's term. A longer
            # question with no term keeps the previous term only as a hint (see _retrieve).
            return (previous if elliptic else None), compare
        first_term = min((m.start for m in self.retriever.terms.find(q)), default=len(q))
        # A pronoun that cannot mean the term named here means the previous one: "does it
        # work on RoCE too?" after SHARP ("it" comes before RoCE), "does RoCE need one too?".
        refers_back = (pronoun and pronoun.start() < first_term) or _ONE.search(q)
        if previous and previous not in turn.terms and refers_back:
            return previous, compare
        return named, compare

    def _previous_subject(self, turn: Turn) -> str | None:
        for message in reversed(turn.history):
            if message.role == "user" and (terms := self._terms(message.content)):
                return terms[0]
        for message in reversed(turn.history):
            if terms := self._terms(message.content):
                return terms[0]
        return turn.page

    def _calculate(self, turn: Turn) -> Turn:
        if turn.answer is not None:
            return turn
        from . import quantities

        previous = None
        for message in turn.history:
            if message.role == "user":
                previous = quantities.detect(message.content, previous) or previous
        request = quantities.detect(turn.question, previous)
        if request is None:
            return turn
        turn.calc = request
        t0 = time.perf_counter()
        answer = self._calculation_answer(request)
        turn.timings["calculate"] = (time.perf_counter() - t0) * 1000
        # "What is InfiniBand and what would 256 GPUs cost?": answer both parts.
        concept = [m.slug for m in self.retriever.terms.find(turn.question)
                   if self.corpus.pages[m.slug].kind == "glossary"
                   and _DEFINE.search(turn.question[max(0, m.start - 30):m.start])]
        if concept:
            definition = self._definition(concept[0])
            if definition is not None:
                answer = _merge(definition, answer)
        turn.answer = answer
        return turn

    def _retrieve(self, turn: Turn) -> Turn:
        # In LLM mode a calculation is retrieved for too: the model explains it with tools,
        # and the extractive calculation stays as the fallback.
        if turn.answer is not None and not (self.llm is not None
                                            and turn.answer.kind == "calculation"):
            return turn
        subjects = tuple(s for s in [turn.subject, *turn.compare] if s)
        query = turn.question
        hint = turn.subject
        if hint is None and not turn.terms and turn.history:
            # A follow-up with no term and no pronoun ("how do you make the bubble
            # smaller"): search with the previous term as a hint; scope is still judged on
            # how close the best passage is.
            hint = self._previous_subject(turn)
            subjects = (hint,) if hint else ()
        if hint and hint not in turn.terms:
            query = f"{turn.question} ({self.corpus.pages[hint].title})"
        k = max(self.settings.top_k, 5)
        turn.retrieval = self.retriever.retrieve(query, k=k, page=turn.page, subjects=subjects)
        turn.timings.update(turn.retrieval.timings_ms)
        return turn

    def _compose(self, turn: Turn) -> Turn:
        if turn.answer is not None:
            answer = turn.answer
        else:
            retrieval = turn.retrieval
            assert retrieval is not None
            t0 = time.perf_counter()
            in_scope = bool(turn.terms or turn.subject) or (
                retrieval.best_similarity >= self.settings.min_relevance)
            site = self.settings.site_url
            if not in_scope or not retrieval.hits:
                answer = compose_refusal(self.corpus, retrieval)
            else:
                draft = Draft(question=turn.question,
                              shape=classify(turn.question, comparing=len(turn.compare) >= 2),
                              retrieval=retrieval, retriever=self.retriever,
                              corpus=self.corpus, subject=turn.subject,
                              compare=turn.compare, site_url=site)
                comparing = len(turn.compare) >= 2 and draft.shape.intent in (
                    Intent.COMPARISON, Intent.YES_NO, Intent.CHOICE)
                answer = compose_comparison(draft) if comparing else compose_answer(draft)
                if not answer.text:
                    answer = compose_refusal(self.corpus, retrieval)
            turn.timings["compose"] = (time.perf_counter() - t0) * 1000
        answer.timings_ms.update(turn.timings)
        turn.answer = answer
        return turn

    # -- pieces -----------------------------------------------------------------------------

    def _definition(self, slug: str) -> Answer | None:
        page = self.corpus.pages[slug]
        lead = lead_sentence(page, self.retriever)
        if lead is None:
            return None
        cites = CitationList(self.corpus, self.settings.site_url)
        n = cites.cite(slug, lead.section, lead.text)
        return Answer(text=f"{lead.text} [{n}]", citations=cites.build(), retrieved=[slug],
                      subject=slug)

    def _calculation_answer(self, request: Any) -> Answer:
        from . import calculators, quantities

        t = templates()["calculation"]
        spec = calculators.get(request.tool)
        # Each calculator names the page it cites; a page missing from the corpus is cited
        # by nobody rather than replaced by another one.
        lesson_slug = spec.lesson if spec and spec.lesson in self.corpus.pages else None
        cites = CitationList(self.corpus, self.settings.site_url)
        n = (cites.cite(lesson_slug, "Summary", self.corpus.pages[lesson_slug].summary)
             if lesson_slug else None)
        mark = f" [{n}]" if n else ""
        label = spec.label if spec else request.tool
        outcome = quantities.run(request)
        common = dict(retrieved=[lesson_slug] if lesson_slug else [], subject=lesson_slug,
                      suggestions=follow_ups(self.corpus, lesson_slug))
        if outcome.error or outcome.missing:
            intro = t["clarify_intro"].format(tool_label=label)
            text = f"{intro}{mark}"
            known = calculators.describe_inputs(request.tool, outcome.args)
            if known:
                text += " " + t["understood"].format(inputs=known)
            if outcome.error:
                text += f" {t['error_intro']}: {outcome.error}."
                note = outcome.error
            else:
                text += " " + (outcome.question or "")
                note = "missing: " + ", ".join(outcome.missing)
            return Answer(text=text, citations=cites.build(), kind="clarify", note=note,
                          **common)
        result = outcome.result
        lines = [f"{result.summary}{mark}", "", f"{t['method']}: {result.formula}{mark}"]
        lines += ["", *[f"- {step}" for step in result.working]]
        lines += [f"- {note}" for note in outcome.notes]
        lines += ["", t["note"]]
        call = ToolCall(request.tool, quantities._json_safe(dict(outcome.args)), result.to_dict())
        return Answer(text="\n".join(lines), citations=cites.build(), kind="calculation",
                      tool_calls=[call], working=list(result.working), confidence=1.0,
                      **common)

    def _maybe_refresh(self) -> None:
        # Another process may re-ingest into a shared Chroma server; look every 30 s.
        now = time.monotonic()
        if now - self._last_check < 30:
            return
        with self._refresh_lock:
            if now - self._last_check < 30:
                return
            self._last_check = now
            try:
                self.retriever.maybe_refresh()
            except Exception:
                log.warning("could not check the index for changes", exc_info=True)


def _merge(first: Answer, second: Answer) -> Answer:
    """Join two answers, renumbering the second one's citations after the first's."""
    offset = len(first.citations)

    def shift(match: re.Match) -> str:
        return f"[{int(match.group(1)) + offset}]"

    text = first.text + "\n\n" + MARKER.sub(shift, second.text)
    citations = list(first.citations) + [
        type(c)(c.n + offset, c.slug, c.title, c.url, c.section, c.passage)
        for c in second.citations]
    return Answer(text=text, citations=citations, tool_calls=second.tool_calls,
                  retrieved=first.retrieved + [s for s in second.retrieved
                                               if s not in first.retrieved],
                  kind=second.kind, subject=first.subject, working=second.working,
                  suggestions=second.suggestions, confidence=second.confidence)
