"""What the composer knows about one question (`Draft`), its candidate sentences and how
much of the question a sentence names."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache, cached_property, lru_cache
from typing import TYPE_CHECKING, NamedTuple

from .corpus import Chunk, Corpus, Page
from .intent import Shape
from .text import stands_alone
from .words import residual_words, stem, stems_of

if TYPE_CHECKING:
    from .learned import Learning
    from .retrieve import Retrieval, Retriever

_TOKEN = re.compile(r"[a-z0-9]+")


SENTENCE_FLOOR = 0.30  # cosine similarity a supporting sentence must reach


#: How much a sentence's fit to the intent weighs against its similarity to the question.
INTENT_BONUS = 0.12


#: A worked example's set-up ("Assume 2 microseconds per message ...") is not an answer.
_SETUP = re.compile(r"^(assume|suppose|imagine|consider|say|take|picture|let)\b", re.I)


#: Weight of a sentence naming the question's terms and words, against its similarity.
COVERAGE_BONUS = 0.10


@dataclass
class Draft:
    """What the composer knows about one question."""

    question: str
    shape: Shape
    retrieval: Retrieval
    retriever: Retriever
    corpus: Corpus
    subject: str | None
    compare: list[str] = field(default_factory=list)
    site_url: str = ""
    learning: Learning | None = None  # the learned parts (learned.py); None = rules only
    conversation: bool = False  # asked after other questions (its "that" may point back)

    @cached_property
    def terms(self) -> frozenset[str]:
        """Glossary pages the question names (or, for "is it ...?", the subject)."""
        named = {m.slug for m in self.retriever.terms.find(self.question)
                 if self.corpus.pages[m.slug].kind == "glossary"}
        if self.subject and self.corpus.pages[self.subject].kind == "glossary":
            named.add(self.subject)  # "does it work on RoCE too?" is still about SHARP
        return frozenset(named)

    @cached_property
    def qualifiers(self) -> frozenset[str]:
        """Words of a named alias beyond its page's title: "Gen6" of "PCIe Gen6", "EDR" of
        "EDR InfiniBand" (the alias names the term, and also which one is meant)."""
        out: set[str] = set()
        for match in self.retriever.terms.find(self.question):
            page = self.corpus.pages.get(match.slug)
            if page is None:
                continue
            title = {stem(w) for w in _TOKEN.findall(page.title.lower())}
            out |= {stem(w) for w in match.said.split() if stem(w) not in title}
        return frozenset(out)

    @cached_property
    def words(self) -> frozenset[str]:
        """The question's content words once the terms it names are taken out."""
        return residual_words(self.question, self.retriever)

    @property
    def focus(self) -> list[str]:
        """Pages the answer should come from: the subject(s) first, then the top hits."""
        slugs = [s for s in [self.subject, *self.compare] if s]
        for hit in self.retrieval.hits[:5]:
            if hit.slug not in slugs:
                slugs.append(hit.slug)
        return slugs[:6]


class Candidate(NamedTuple):
    """A quotable sentence with its similarity to the question and its score for the intent
    (a named tuple: a question makes about 230 of them, a third of the time a dataclass took)."""

    sentence: Chunk
    similarity: float
    score: float


def candidates(draft: Draft) -> list[Candidate]:
    """Score every quotable sentence of the focus pages against the question."""
    slugs = draft.focus
    bonus = {slug: 0.04 * max(0, 2 - i) for i, slug in enumerate(slugs)}
    if draft.subject:
        bonus[draft.subject] = max(bonus.get(draft.subject, 0.0), 0.06)
    top_chunks = {p.chunk.id for h in draft.retrieval.hits[:3] for p in h.passages[:2]}
    out = []
    for sentence, sim in draft.retriever.sentences_for(slugs, draft.retrieval.vector):
        if not _quotable(sentence.text):
            continue
        score = sim + bonus.get(sentence.slug, 0.0)
        score += 0.03 if sentence.chunk_id in top_chunks else 0.0
        out.append(Candidate(sentence, sim, score))
    out.sort(key=lambda c: c.score, reverse=True)
    return out


@lru_cache(maxsize=1 << 15)
def _quotable(sentence: str) -> bool:
    return stands_alone(sentence) and not _SETUP.match(sentence)


def _names(page: Page) -> re.Pattern[str]:
    return _names_rx(page.slug, page.title, page.aliases)


@cache
def _names_rx(slug: str, title: str, aliases: tuple[str, ...]) -> re.Pattern[str]:
    names = sorted({n for n in (title, slug.replace("-", " "), *aliases) if len(n) >= 2},
                   key=len, reverse=True)
    # A plural names the term too ("standby subnet managers").
    return re.compile(r"(?<![\w-])(" + "|".join(re.escape(n) for n in names)
                      + r")(?:s|es)?(?![\w-])", re.I)


def names_page(sentence: str, page: Page | None) -> bool:
    """Return True if a sentence names the page's term (title, slug or an alias)."""
    return page is not None and _names_in(sentence, page.slug, page.title, page.aliases)


@lru_cache(maxsize=1 << 16)
def _names_in(sentence: str, slug: str, title: str, aliases: tuple[str, ...]) -> bool:
    # Remembered: the rule pickers ask this of the same corpus sentences for every
    # candidate of every question (about 150 times an answer; a third of a millisecond)
    return bool(_names_rx(slug, title, aliases).search(sentence))


def coverage_parts(draft: Draft, text: str) -> tuple[float, float]:
    """Shares (0..1) of the question's terms and of its content words that a text names;
    1.0 for a part the question does not have."""
    terms = words = 1.0
    if draft.terms:
        pages = [draft.corpus.pages[s] for s in draft.terms]
        terms = sum(names_page(text, p) for p in pages) / len(pages)
    if draft.words:
        words = len(draft.words & stems_of(text)) / len(draft.words)
    return terms, words


def coverage(draft: Draft, text: str) -> float:
    """How much of the question a text names: the mean of the two shares."""
    return sum(coverage_parts(draft, text)) / 2


def about_terms(draft: Draft, pool: list[Candidate]) -> list[Candidate]:
    """The candidates about a term the question names (from its page or naming it); all of
    them when none is: a question about TP is answered by a sentence about TP."""
    if not draft.terms:
        return pool
    pages = [draft.corpus.pages[s] for s in draft.terms]
    named = [c for c in pool if c.sentence.slug in draft.terms
             or any(names_page(c.sentence.text, p) for p in pages)]
    return named or pool


def _best(draft: Draft, pool: list[Candidate], fit) -> Candidate | None:
    """Return the candidate with the best similarity plus intent fit (fit returns 0..1)."""
    scored = [(c.score + INTENT_BONUS * fit(c)
               + COVERAGE_BONUS * coverage(draft, c.sentence.text), c)
              for c in about_terms(draft, [c for c in pool if c.similarity >= SENTENCE_FLOOR])]
    return max(scored, key=lambda t: t[0])[1] if scored else None


def _subject_page(draft: Draft) -> Page | None:
    return draft.corpus.get(draft.subject) if draft.subject else None


def _fit_by(pattern: re.Pattern[str]):
    return lambda c: 1.0 if pattern.search(c.sentence.text) else 0.0


def names_any(text: str, corpus: Corpus, slugs: set[str]) -> bool:
    """Return True if a text names every one of the given pages' terms."""
    return all(names_page(text, corpus.get(s)) for s in slugs)


def with_choices(pool: list[Candidate], lead: Chunk | None, faq: list[Chunk], size: int
                 ) -> list[Candidate]:
    """The pool's best `size` candidates, plus the rule lead and FAQ sentences if outside."""
    top = pool[:size]
    known = {c.sentence.id: c for c in pool}
    for chunk in [c for c in (lead, *faq) if c is not None]:
        if all(c.sentence.id != chunk.id for c in top):
            top.append(known.get(chunk.id) or Candidate(chunk, 0.0, 0.0))
    return top
