"""The orchestrator: an Assistant made of named parts, and the path a question takes.

`Assistant._path` reads top to bottom: clean the input, work out what the question is about,
then either calculate or retrieve and compose. Each step is a plain method with typed inputs
and outputs; the route is decided once, in `_path`.
"""

from __future__ import annotations

import logging
import re
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .answer import Answer, ToolCall
from .cache import AnswerCache
from .comparison import compose_comparison
from .compose import (
    CitationList,
    Draft,
    compose_answer,
    compose_refusal,
    follow_ups,
    is_manipulation,
    templates,
)
from .config import Settings
from .followup import FollowUps
from .inputs import Message, clean_history, clean_text
from .intent import Intent, Shape, classify, negated, plainly
from .leads import lead_sentence
from .learned import YES_NO_AT, NoLearning
from .rerank import defined_first
from .scope import in_scope
from .text import MARKER, numbers_in

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

    from .corpus import Corpus
    from .index import VectorIndex
    from .learned import Learning
    from .retrieve import Retrieval, Retriever

log = logging.getLogger(__name__)

#: A message that continues the previous question rather than asking a new one.
_CONTINUES = re.compile(r"^\s*(and|so|ok(ay)?|then|but|also|what\s+about|how\s+about|what\s+if|"
                        r"same\b|is\s+it|does\s+it|can\s+it|do\s+they|are\s+they)\b", re.I)
_DEFINE = re.compile(r"\b(what\s+(is|are)|what's|whats|explain|define|tell\s+me\s+about)"
                     r"(\s+(an?|the))?\s*$", re.I)


@dataclass(frozen=True)
class Question:
    """A question as the assistant understood it: cleaned, with its subject worked out."""

    text: str
    history: list[Message]
    page: str | None  # the corpus page the visitor is reading, if it is one
    terms: list[str]  # slugs named in the question
    subject: str | None  # what the question is about: a named term, or the previous one
    compare: list[str]  # the two slugs of an "X vs Y" question, else empty


@dataclass
class Turn:
    """What one question produced on the extractive path."""

    answer: Answer
    question: Question | None = None  # None when the input was declined before reading
    retrieval: Retrieval | None = None  # None when nothing was retrieved (see _path)
    timings: dict[str, float] = field(default_factory=dict)


class Assistant:
    """The glossary assistant, made of named parts: build once, then ask many questions.

    The parts: `settings` (limits, scope threshold, site URL), `corpus` (the pages),
    `index` (any `VectorIndex`: Chroma's `Index`, or `testing.InMemoryIndex`), `retriever`
    (the hybrid ranking over that index and corpus) and `llm` (a LangChain chat model for the
    LLM mode; None answers extractively). `Assistant.from_settings()` builds them all from
    the settings; `Assistant()` and `Assistant(settings)` are shortcuts for it.

    Example:
        >>> bot = Assistant.from_settings()           # reads Settings from the environment
        >>> answer = bot.ask("is roce the same thing as infiniband?")
        >>> answer.text, [c.url for c in answer.citations]
        >>> index = InMemoryIndex.from_corpus(bot.corpus)              # another store
        >>> Assistant(bot.settings, bot.corpus, index, Retriever(index, bot.corpus))
    """

    def __init__(self, settings: Settings | None = None, corpus: Corpus | None = None,
                 index: VectorIndex | None = None, retriever: Retriever | None = None,
                 llm: BaseChatModel | None = None):
        if isinstance(retriever, str):
            raise TypeError("retriever is the Retriever part; for a retrieval mode use "
                            "Assistant.from_settings(settings.replace(retriever=mode))")
        parts = (corpus, index, retriever)
        shortcut = all(part is None for part in parts)
        if shortcut:
            settings, corpus, index, retriever = _parts(settings)
            llm = llm if llm is not None else _chat_model(settings)
        elif any(part is None for part in parts) or settings is None:
            raise TypeError("pass settings, corpus, index and retriever together, or only "
                            "settings (see Assistant.from_settings)")
        self.settings: Settings = settings
        self.corpus: Corpus = corpus
        self.index: VectorIndex = index
        self.retriever: Retriever = retriever
        self.llm = llm
        #: The LLM mode's writer: answers with `llm`, checked sentence by sentence.
        self.llm_answerer = None
        if llm is not None:
            from .generate import LLMAnswerer
            from .tools import all_tools

            self.llm_answerer = LLMAnswerer(llm, corpus, retriever, all_tools(),
                                            settings.site_url)
        #: The learned parts (learned.py): page order, yes/no questions, answering sentences.
        #: NoLearning keeps the rules' choices everywhere.
        self.learning: Learning = NoLearning()
        self._refresh_lock = threading.Lock()
        self._last_check = time.monotonic()
        #: Finished answers to questions without history (cache.py).
        self.answers = AnswerCache(settings.answer_cache_size)
        if shortcut:
            self._learn()

    @classmethod
    def from_settings(cls, settings: Settings | None = None, *,
                      llm: BaseChatModel | None = None) -> Assistant:
        """Build every part from the settings (the environment's when none are given)."""
        settings, corpus, index, retriever = _parts(settings)
        bot = cls(settings, corpus, index, retriever,
                  llm if llm is not None else _chat_model(settings))
        bot._learn()
        return bot

    def _learn(self) -> None:
        """Load the learned parts (trained on first use), when the settings want them; then
        hold numpy's BLAS (and any BLAS the training loaded) to the serving threads."""
        from .embedding import limit_blas_threads

        if self.settings.learned_rank and self.settings.retriever == "hybrid":
            from .learned import Learned

            self.learning = Learned.load_or_train(self, self.settings.labelled_files())
        limit_blas_threads(self.settings.torch_threads)

    # -- public API --------------------------------------------------------------------------

    def ask(self, question: str, history: list | None = None, page: str | None = None) -> Answer:
        """Answer one question, given the conversation so far and the page being read."""
        if self.llm_answerer is not None:
            final = None
            for piece in self.stream(question, history, page):
                final = piece
            assert isinstance(final, Answer)
            return final
        return self._cached_turn(question, history, page).answer

    def stream(self, question: str, history: list | None = None, page: str | None = None
               ) -> Iterator[str | Answer]:
        """Yield the answer text in pieces as it is produced, then the finished Answer."""
        start = time.perf_counter()
        turn = self._cached_turn(question, history, page)
        answer = turn.answer
        if self.llm_answerer is not None and turn.retrieval is not None and answer.kind in (
                "answer", "comparison", "calculation"):
            from .generate import LLMFailed, is_retryable

            q = turn.question
            try:
                for piece in self.llm_answerer.stream(q.text, q.history, turn.retrieval,
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

    def turn(self, question: str, history: list | None = None, page: str | None = None
             ) -> Turn:
        """Answer without the LLM; return the answer with what it was built from."""
        start = time.perf_counter()
        try:
            self._maybe_refresh()
            turn = self._path(question, history, page)
        except Exception:  # a visitor never sees a traceback
            log.exception("answering failed")
            turn = Turn(Answer(text=templates()["messages"]["error"], kind="message"))
        turn.answer.timings_ms.update(turn.timings)
        turn.answer.timings_ms["total"] = (time.perf_counter() - start) * 1000
        return turn

    def _cached_turn(self, question: str, history: list | None, page: str | None) -> Turn:
        """`turn`, through the answer cache (cache.py) in the extractive mode."""
        if self.llm_answerer is not None:
            return self.turn(question, history, page)
        self._maybe_refresh()  # a cached answer must not outlive a re-ingest elsewhere
        return Turn(self.answers.answer(self, question, history, page,
                                        lambda: self.turn(question, history, page).answer))

    def page_title(self, slug: str | None) -> str | None:
        """Return the title of a corpus page, or None for an unknown slug."""
        page = self.corpus.get(slug) if slug else None
        return page.title if page else None

    # -- the path ----------------------------------------------------------------------------

    def _path(self, raw: Any, history: Any, page: Any) -> Turn:
        """The question's path, top to bottom."""
        s, messages = self.settings, templates()["messages"]
        raw = raw if isinstance(raw, str) else ("" if raw is None else str(raw))
        history = clean_history(history, s.max_history_turns, s.max_history_chars)
        page = page if page in self.corpus.pages else None
        # 1. Inputs that are declined before any work: too long, empty, manipulation.
        if len(raw) > s.max_question_chars:
            return Turn(Answer(text=messages["too_long"].format(
                length=f"{len(raw):,}", limit=f"{s.max_question_chars:,}"), kind="message"))
        text = clean_text(raw)
        if not text:
            return Turn(Answer(text=messages["empty"], kind="message"))
        if is_manipulation(text):
            return Turn(compose_refusal(self.corpus, None, manipulation=True))
        text = plainly(text)  # "explain ecn like im 5" asks what "explain ecn" does
        # 2. What it is about: the terms it names, the subject, the two sides of a comparison.
        question = self._understand(text, history, page)
        # 3. The route, decided once: a calculation is answered by its calculator. In LLM mode
        #    a finished calculation is retrieved for too, so the model can explain it with the
        #    tools (the extractive calculation stays as the fallback).
        timings: dict[str, float] = {}
        calculation = self._calculate(question, timings)
        if calculation is not None and not (self.llm_answerer is not None
                                            and calculation.kind == "calculation") and not (
                self.llm_answerer is None and calculation.kind == "clarify"):
            return Turn(calculation, question, None, timings)
        # 4. Retrieve, then compose an answer from what was found (or decline). "And for
        #    800G?" asks the previous question again of the new attribute.
        if calculation is None:
            question = self._ask_again(question)
        retrieval = self._retrieve(question, timings)
        if calculation is not None:
            if calculation.kind == "clarify" and self.llm_answerer is None:
                # "how many gpu hours to train a 7b on 1T tokens on h100s": a calculator
                # short of an input (the MFU) still asks for it, after the corpus's worked
                # example of those very figures, when it has one
                # ...and a question that asks for no amount at all ("cheapest way to connect
                # 2 servers with 8 gpus each?") is answered from the corpus alone
                found = self._compose(question, retrieval, timings)
                if found.kind == "answer" and found.intent not in _AMOUNTS \
                        and not _HOW_MUCH.search(question.text):
                    return Turn(found, question, retrieval, timings)
                if found.kind == "answer" and _works_example(question.text, found.text):
                    calculation = _merge(found, calculation)
            return Turn(calculation, question, retrieval, timings)
        return Turn(self._compose(question, retrieval, timings), question, retrieval, timings)

    def _understand(self, text: str, history: list[Message], page: str | None) -> Question:
        """Find the terms a question names and resolve its subject and comparison."""
        follow = FollowUps(self.corpus, self.retriever.terms)
        terms = follow.terms(text)
        subject, compare = follow.resolve(text, terms, history, page)
        return Question(text=text, history=history, page=page, terms=terms, subject=subject,
                        compare=compare)

    def _ask_again(self, q: Question) -> Question:
        """"And for 800g?": the previous question asked of the new attribute (followup.py)."""
        text = FollowUps(self.corpus, self.retriever.terms).ask_again(q.text, q.history)
        if text is None:
            return q
        again = self._understand(text, q.history, q.page)
        return Question(text=again.text, history=q.history, page=q.page, terms=again.terms,
                        subject=again.subject or q.subject, compare=again.compare)

    def _calculate(self, q: Question, timings: dict[str, float]) -> Answer | None:
        """Answer a calculation (or ask for what it lacks); None when it is not one."""
        from . import quantities

        previous = None
        for message in q.history:
            if message.role == "user":
                previous = quantities.detect(message.content, previous) or previous
        request = quantities.detect(q.text, previous)
        if request is None:
            return None
        t0 = time.perf_counter()
        answer = self._calculation_answer(request)
        timings["calculate"] = (time.perf_counter() - t0) * 1000
        # "What is InfiniBand and what would 256 GPUs cost?": answer both parts.
        concept = [m.slug for m in self.retriever.terms.find(q.text)
                   if self.corpus.pages[m.slug].kind == "glossary"
                   and _DEFINE.search(q.text[max(0, m.start - 30):m.start])]
        if concept:
            definition = self._definition(concept[0])
            if definition is not None:
                answer = _merge(definition, answer)
        return answer

    def _retrieve(self, q: Question, timings: dict[str, float]) -> Retrieval:
        """Rank pages for the question, with its subject (or the previous one) as a hint."""
        subjects = tuple(s for s in [q.subject, *q.compare] if s)
        query = q.text
        hint = q.subject
        if hint is None and not q.terms and q.history:
            # A follow-up with no term and no pronoun ("how do you make the bubble
            # smaller"): search with the previous term as a hint; scope is still judged on
            # how close the best passage is.
            hint = FollowUps(self.corpus, self.retriever.terms).previous_subject(
                q.history, q.page)
            subjects = (hint,) if hint else ()
        if hint and hint not in q.terms:
            query = f"{q.text} ({self.corpus.pages[hint].title})"
        previous = next((m.content for m in reversed(q.history) if m.role == "user"), None)
        if previous and (not q.terms or _CONTINUES.match(q.text)):
            # "and the ethernet version?" after "what does a 256-GPU 400G IB fabric cost":
            # the follow-up is searched together with the question it continues
            query = f"{previous} {query}"
        k = max(self.settings.top_k, 5)
        retrieval = self.retriever.retrieve(query, k=k, page=q.page, subjects=subjects)
        t0 = time.perf_counter()
        retrieval = defined_first(self.learning.rank_pages(retrieval), q.text, q.terms,
                                  bool(q.history), self.retriever)
        retrieval.timings_ms["rerank"] = (time.perf_counter() - t0) * 1000
        timings.update(retrieval.timings_ms)
        return retrieval

    def _compose(self, q: Question, retrieval: Retrieval, timings: dict[str, float]) -> Answer:
        """Answer from the retrieved passages, or decline when the question is out of scope."""
        t0 = time.perf_counter()
        if not in_scope(self, q, retrieval) or not retrieval.hits:
            answer = compose_refusal(self.corpus, retrieval)
        else:
            draft = self.draft(q, retrieval)
            comparing = len(q.compare) >= 2 and draft.shape.intent in (
                Intent.COMPARISON, Intent.YES_NO, Intent.CHOICE)
            answer = compose_comparison(draft) if comparing else compose_answer(draft)
            if not answer.text:
                answer = compose_refusal(self.corpus, retrieval)
        timings["compose"] = (time.perf_counter() - t0) * 1000
        return answer

    def draft(self, q: Question, retrieval: Retrieval) -> Draft:
        """What the composer knows about a question: its shape (a yes/no question when the
        learned detector says so, whatever its wording), what was retrieved, its subject."""
        shape = classify(q.text, comparing=len(q.compare) >= 2)
        p = self.learning.yes_no(q.text, retrieval.vector)
        if shape.intent is not Intent.YES_NO and p is not None and p >= YES_NO_AT:
            shape = Shape(Intent.YES_NO, shape.units, negated=negated(q.text))
        return Draft(question=q.text, shape=shape, retrieval=retrieval,
                     retriever=self.retriever, corpus=self.corpus, subject=q.subject,
                     compare=q.compare, site_url=self.settings.site_url,
                     learning=self.learning, conversation=bool(q.history))

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
            # What the given inputs already work out to leads; else what was understood.
            so_far = spec.so_far(outcome.args) if spec and outcome.missing else None
            intro = so_far or t["clarify_intro"].format(tool_label=label)
            text = f"{intro}{mark}"
            known = calculators.describe_inputs(request.tool, outcome.args)
            if known and not so_far:
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
        # "Prices ... are the inputs you gave" only where a price is one of them.
        priced = spec is not None and any("price" in name for name in spec.input_names)
        lines += ["", t["note"] if priced else t["note_no_prices"]]
        call = ToolCall(request.tool, quantities.json_safe(dict(outcome.args)), result.to_dict())
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


#: The intents of a question that asks for an amount (a calculator may answer it).
_AMOUNTS = frozenset({Intent.COST.value, Intent.QUANTITY.value, Intent.YES_NO.value,
                      Intent.COMPARISON.value})


_HOW_MUCH = re.compile(r"\bhow\s+(much|many|long)\b", re.I)


def _works_example(question: str, answer: str) -> bool:
    """True if an answer states every figure of the question: it works that example."""
    asked = set(numbers_in(question))
    return bool(asked) and asked <= set(numbers_in(answer))


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


def _parts(settings: Settings | None) -> tuple[Settings, Corpus, VectorIndex, Retriever]:
    """Build the corpus, the Chroma index and the retriever the settings name."""
    from .corpus import load_corpus
    from .index import Index
    from .retrieve import Retriever

    settings = settings or Settings.from_env()
    corpus = load_corpus(settings.corpus_dir)
    index = Index(settings)
    return settings, corpus, index, Retriever(index, corpus, mode=settings.retriever)


def _chat_model(settings: Settings) -> BaseChatModel | None:
    from .models import build_chat_model

    return build_chat_model(settings)
