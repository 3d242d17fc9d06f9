"""Grounded, extractive answers: quoted sentences, each with a citation, or an honest refusal."""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any

from .answer import Answer, Citation
from .corpus import FACT_KEYS, FACT_LABELS, Chunk, Corpus, Page

if TYPE_CHECKING:
    from .retrieve import Retrieval, Retriever

MAX_EXTRA_SENTENCES = 3
SENTENCE_FLOOR = 0.30  # cosine similarity a supporting sentence must reach
SENTENCE_WINDOW = 0.12  # supporting sentences stay within this of the best one
DUPLICATE_SIMILARITY = 0.85  # two sentences this close say the same thing

_INJECTION = re.compile(
    r"\b(ignore|disregard|forget|override)\b.{0,40}\b(instructions?|rules|prompt|guidelines)\b"
    r"|\bsystem\s+prompt\b|\byou\s+are\s+now\b|\bjailbreak|\bdeveloper\s+mode\b"
    r"|\breveal\b.{0,30}\b(prompt|instructions|config|secret|key)s?\b|\bpretend\s+(to\s+be|you)\b"
    r"|\bact\s+as\s+(an?\s+)?(?!cache|switch|router|bridge)\w+",
    re.I | re.S)
_COMPARE = re.compile(r"\b(vs\.?|versus|compar\w*|differen\w*|differ|same\s+(thing\s+)?as|"
                      r"better|faster|cheaper|slower|instead\s+of|rather\s+than|or)\b", re.I)
_TOKEN = re.compile(r"[a-z0-9]+")


@cache
def templates() -> dict[str, Any]:
    """Return the answer templates shipped as package data."""
    text = resources.files("assistant").joinpath("prompts/templates.toml").read_text("utf-8")
    return tomllib.loads(text)


def is_manipulation(question: str) -> bool:
    """Return True for attempts to change the assistant's instructions or extract them."""
    return bool(_INJECTION.search(question))


def wants_comparison(question: str) -> bool:
    """Return True when the wording asks to compare things."""
    return bool(_COMPARE.search(question))


@dataclass
class CitationList:
    """Numbers sources in the order they are first cited, one number per page section."""

    corpus: Corpus
    site_url: str = ""
    items: list[Citation] = field(default_factory=list)
    _by_key: dict[tuple[str, str], int] = field(default_factory=dict)
    _passages: dict[int, list[str]] = field(default_factory=dict)

    def cite(self, slug: str, section: str, passage: str = "") -> int:
        """Return the number of a source, adding it (and the quoted passage) if new."""
        key = (slug, section)
        if key not in self._by_key:
            page = self.corpus.pages[slug]
            n = len(self._by_key) + 1
            self._by_key[key] = n
            self._passages[n] = []
            url = self.site_url.rstrip("/") + page.section_url(section)
            self.items.append(Citation(n=n, slug=slug, title=page.title, url=url,
                                       section=section))
        n = self._by_key[key]
        if passage and passage not in self._passages[n]:
            self._passages[n].append(passage)
        return n

    def build(self) -> list[Citation]:
        """Return the citations with the passages they support."""
        return [Citation(c.n, c.slug, c.title, c.url, c.section,
                         " ".join(self._passages[c.n])) for c in self.items]


def _words(text: str) -> set[str]:
    return set(_TOKEN.findall(text.lower()))


def _repeats(retriever: Retriever, a: Chunk, b: Chunk) -> bool:
    # A page's summary restates its definition; so do some FAQ answers. Compare meanings.
    if a.slug == b.slug and {a.section, b.section} == {"Summary", "Definition"}:
        return True
    if retriever.sentence_similarity(a, b) > DUPLICATE_SIMILARITY:
        return True
    wa, wb = _words(a.text), _words(b.text)
    return bool(wa and wb) and len(wa & wb) / len(wa | wb) > 0.6


def lead_sentence(page: Page, retriever: Retriever) -> Chunk | None:
    """Return the sentence that answers "what is X?" for a page: its definition's first."""
    sentences = [s for s in retriever.sentences if s.slug == page.slug]
    for section in ("Definition", "Summary"):
        found = [s for s in sentences if s.section == section]
        if found:
            return min(found, key=lambda s: s.position)
    return min(sentences, key=lambda s: s.position) if sentences else None


def supporting_sentences(retrieval: Retrieval, retriever: Retriever, lead_slug: str | None,
                         exclude: list[Chunk], limit: int = MAX_EXTRA_SENTENCES,
                         pages: list[str] | None = None) -> list[tuple[Chunk, float]]:
    """Pick the sentences of the top pages that best answer the question, without repeats."""
    slugs = pages or [h.slug for h in retrieval.hits[:3]]
    if not slugs:
        return []
    rank_bonus = {slug: 0.04 * max(0, 2 - i) for i, slug in enumerate(slugs)}
    top_chunks = {p.chunk.id for h in retrieval.hits[:3] for p in h.passages[:2]}
    scored = []
    for sentence, sim in retriever.sentences_for(slugs, retrieval.vector):
        score = sim + rank_bonus.get(sentence.slug, 0.0)
        score += 0.03 if sentence.chunk_id in top_chunks else 0.0
        score += 0.02 if sentence.slug == lead_slug else 0.0
        scored.append((sentence, sim, score))
    if not scored:
        return []
    scored.sort(key=lambda t: t[2], reverse=True)
    best = scored[0][2]
    chosen: list[tuple[Chunk, float]] = []
    taken = list(exclude)
    for sentence, sim, score in scored:
        if len(chosen) >= limit or score < best - SENTENCE_WINDOW:
            break
        if sim < SENTENCE_FLOOR or any(_repeats(retriever, sentence, t) for t in taken):
            continue
        chosen.append((sentence, sim))
        taken.append(sentence)
    order = {slug: i for i, slug in enumerate(slugs)}
    chosen.sort(key=lambda t: (t[0].slug != lead_slug, order.get(t[0].slug, 99), t[0].position))
    return chosen


def compose_answer(retrieval: Retrieval, retriever: Retriever, corpus: Corpus,
                   subject: str | None, site_url: str = "") -> Answer:
    """Answer from the corpus: the subject's definition, then the best supporting sentences."""
    cites = CitationList(corpus, site_url)
    parts: list[str] = []
    quoted: list[Chunk] = []
    lead_page = corpus.get(subject) if subject else None
    if lead_page is not None:
        lead = lead_sentence(lead_page, retriever)
        if lead is not None:
            n = cites.cite(lead.slug, lead.section, lead.text)
            parts.append(f"{lead.text} [{n}]")
            quoted.append(lead)
    limit = MAX_EXTRA_SENTENCES if parts else MAX_EXTRA_SENTENCES + 1
    pages = None
    if lead_page is not None:
        others = [h.slug for h in retrieval.hits if h.slug != lead_page.slug][:2]
        pages = [lead_page.slug, *others]
    chosen = supporting_sentences(retrieval, retriever, subject, quoted, limit, pages)
    for sentence, _sim in chosen:
        n = cites.cite(sentence.slug, sentence.section, sentence.text)
        parts.append(f"{sentence.text} [{n}]")
    confidence = max([s for _, s in chosen], default=retrieval.best_similarity)
    main = subject or (retrieval.hits[0].slug if retrieval.hits else None)
    return Answer(text=" ".join(parts), citations=cites.build(), retrieved=retrieval.slugs,
                  kind="answer", subject=main, confidence=confidence,
                  suggestions=follow_ups(corpus, main))


def compose_comparison(slugs: list[str], retrieval: Retrieval, retriever: Retriever,
                       corpus: Corpus, site_url: str = "") -> Answer:
    """Answer "X vs Y": both definitions, a side-by-side from their facts, the lesson if any."""
    t = templates()["comparison"]
    cites = CitationList(corpus, site_url)
    parts: list[str] = []
    quoted: list[Chunk] = []
    pages = [corpus.pages[s] for s in slugs[:2]]
    for page in pages:
        lead = lead_sentence(page, retriever)
        if lead is not None:
            n = cites.cite(page.slug, lead.section, lead.text)
            parts.append(f"{lead.text} [{n}]")
            quoted.append(lead)
    chosen = supporting_sentences(retrieval, retriever, None, quoted, limit=2,
                                  pages=[p.slug for p in pages])
    for sentence, _sim in chosen:
        n = cites.cite(sentence.slug, sentence.section, sentence.text)
        parts.append(f"{sentence.text} [{n}]")
    text = " ".join(parts)
    rows = [k for k in FACT_KEYS if any(k in p.facts for p in pages)]
    if len(pages) == 2 and rows and all(p.facts for p in pages):
        marks = "".join(f"[{cites.cite(p.slug, 'Summary')}]" for p in pages)
        header = f"| | {_cell(pages[0].title)} | {_cell(pages[1].title)} |"
        table = [header, "|---|---|---|"]
        for key in rows:
            table.append(f"| {FACT_LABELS[key]} | {_cell(pages[0].facts.get(key, '-'))} | "
                         f"{_cell(pages[1].facts.get(key, '-'))} |")
        text += f"\n\n{t['table_intro']} {marks}:\n\n" + "\n".join(table)
    lesson = covering_lesson(corpus, [p.slug for p in pages])
    if lesson is not None:
        n = cites.cite(lesson.slug, "Summary", lesson.summary)
        text += f"\n\n{t['lesson'].format(title=lesson.title)} [{n}]."
    return Answer(text=text, citations=cites.build(), retrieved=retrieval.slugs,
                  kind="comparison", subject=pages[0].slug,
                  confidence=max(retrieval.best_similarity, 0.5),
                  suggestions=follow_ups(corpus, lesson.slug if lesson else pages[0].slug))


def covering_lesson(corpus: Corpus, slugs: list[str]) -> Page | None:
    """Return the lesson that compares these pages, if the corpus has one."""
    titles = [corpus.pages[s].title.lower() for s in slugs]
    for page in corpus:
        if page.kind != "lesson":
            continue
        name = page.title.lower()
        if all(t in name for t in titles) or all(s in page.slug for s in slugs):
            return page
    return None


def _cell(text: str) -> str:
    return text.replace("|", "/").replace("\n", " ")


def compose_refusal(corpus: Corpus, retrieval: Retrieval | None, manipulation: bool = False
                    ) -> Answer:
    """Decline in one sentence and suggest three questions the corpus does cover."""
    t = templates()["refusal"]
    first = t["manipulation"] if manipulation else t["outside"]
    questions = suggested_questions(corpus, retrieval)
    text = f"{first}\n\n{t['suggest']}\n" + "\n".join(f"- {q}" for q in questions)
    return Answer(text=text, refused=True, kind="refusal",
                  retrieved=retrieval.slugs if retrieval else [], suggestions=questions,
                  confidence=retrieval.best_similarity if retrieval else 0.0)


def suggested_questions(corpus: Corpus, retrieval: Retrieval | None, n: int = 3) -> list[str]:
    """Return covered questions: the nearest pages' FAQs when somewhat close, else defaults."""
    questions: list[str] = []
    if retrieval is not None and retrieval.best_similarity >= 0.2:
        for hit in retrieval.hits:
            page = corpus.get(hit.slug)
            if page and page.faq:
                questions.append(page.faq[0].q)
            if len(questions) == n:
                return questions
    for q in templates()["refusal"]["fallback_questions"]:
        if q not in questions and len(questions) < n:
            questions.append(q)
    return questions


def follow_ups(corpus: Corpus, slug: str | None, n: int = 3) -> list[str]:
    """Return the FAQ questions of a page, offered as follow-up chips."""
    page = corpus.get(slug) if slug else None
    return [item.q for item in page.faq[:n]] if page else []
