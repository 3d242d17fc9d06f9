"""Grounded, extractive answers: quoted sentences, each with a citation, or an honest refusal."""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from functools import cache, cached_property
from importlib import resources
from typing import TYPE_CHECKING, Any

from .answer import Answer, Citation
from .corpus import FACT_KEYS, FACT_LABELS, Chunk, Corpus, Page
from .intent import Intent, Shape, classify, has_unit
from .polarity import opening, reading, without_opening
from .retrieve import MEASURES
from .text import stands_alone

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
    if bool(wa and wb) and len(wa & wb) / len(wa | wb) > 0.6:
        return True
    # The same figures on the same page ("400 Gb/s ... 50 GB/s" said twice in other words).
    na, nb = _figures(a.text), _figures(b.text)
    fewer, more = sorted((na, nb), key=len)
    return a.slug == b.slug and len(fewer) >= 2 and fewer <= more


def _figures(text: str) -> frozenset[str]:
    return frozenset(n.replace(",", "") for n in re.findall(r"\d[\d,.]*\d|\d", text))


def lead_sentence(page: Page, retriever: Retriever) -> Chunk | None:
    """Return the sentence that answers "what is X?" for a page: its definition's first."""
    sentences = retriever.sentences_of_page(page.slug)
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


# --- answering by intent ---------------------------------------------------------------------

#: Cosine similarity between a visitor's question and an FAQ question (MiniLM): at or above
#: FAQ_CERTAIN the same question whatever the wording; from FAQ_SAME, the same question when
#: they also share a content word or neither has one; from FAQ_NEAR, only when they share one.
FAQ_CERTAIN = 0.93
FAQ_SAME = 0.80
FAQ_NEAR = 0.70
#: Share of content words (Jaccard) two questions must share below FAQ_SAME.
FAQ_OVERLAP = 0.34
#: Two questions with the same terms and exactly the same content words match from here.
FAQ_SAME_WORDS = 0.60
#: How much a sentence's fit to the intent weighs against its similarity to the question.
INTENT_BONUS = 0.12
_POLAR = re.compile(r"^(yes|no|it\s+depends)\b", re.I)
_CAUSAL = re.compile(r"\b(because|since|so\s+that|due\s+to|which\s+means|as\s+a\s+result|"
                     r"the\s+reason|causes?|leads?\s+to|stalls?|prevents?|avoids?|without|"
                     r"in\s+order\s+to|needs?|requires?)\b", re.I)
_CHOOSING = re.compile(r"\b(choose|chooses|pick|prefer|better\s+(fit|choice)|best|when\s+\w+|"
                       r"if\s+\w+|suits?|worth|unless|rule\s+of\s+thumb)\b", re.I)
_COSTLY = re.compile(r"\$\s?\d|\b(costs?|price[sd]?|pricing|expensive|cheaper|percent|share|"
                     r"budget|dollars?)\b|%", re.I)
_IMPERATIVE = re.compile(r"^(set|enable|configure|map|mark|check|run|use|turn|trust|assign|"
                         r"choose|pick|verify|measure|start|apply|keep|give|put|make|confirm|"
                         r"disable|tune|raise|lower|match|list|count|multiply|divide|add)\b", re.I)
_HOW_SECTIONS = ("How it works",)
#: A worked example's set-up ("Assume 2 microseconds per message ...") is not an answer.
_SETUP = re.compile(r"^(assume|suppose|imagine|consider|say|take|picture|let)\b", re.I)
#: Weight of a sentence naming the question's terms and words, against its similarity.
COVERAGE_BONUS = 0.10
_CHOICE_SECTIONS = ("takeaway", "checklist", "when to", "choosing", "decision")


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
        for hit in self.retrieval.hits[:3]:
            if hit.slug not in slugs:
                slugs.append(hit.slug)
        return slugs[:4]


@dataclass(frozen=True)
class Candidate:
    """A quotable sentence with its similarity to the question and its score for the intent."""

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
        if not stands_alone(sentence.text) or _SETUP.match(sentence.text):
            continue
        score = sim + bonus.get(sentence.slug, 0.0)
        score += 0.03 if sentence.chunk_id in top_chunks else 0.0
        out.append(Candidate(sentence, sim, score))
    out.sort(key=lambda c: c.score, reverse=True)
    return out


def _names(page: Page) -> re.Pattern[str]:
    return _names_rx(page.slug, page.title, page.aliases)


@cache
def _names_rx(slug: str, title: str, aliases: tuple[str, ...]) -> re.Pattern[str]:
    names = sorted({n for n in (title, slug.replace("-", " "), *aliases) if len(n) >= 2},
                   key=len, reverse=True)
    return re.compile(r"(?<![\w-])(" + "|".join(re.escape(n) for n in names) + r")(?![\w-])",
                      re.I)


def names_page(sentence: str, page: Page | None) -> bool:
    """Return True if a sentence names the page's term (title, slug or an alias)."""
    return page is not None and bool(_names(page).search(sentence))


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


#: "what is X" / "what does X mean": the X asked about.
_ASKED = re.compile(r"^(so\s+|and\s+|ok(ay)?,?\s+)?(what\s*(is|are|'s|s)|whats|define|"
                    r"what\s+does|what\s+do|explain|meaning\s+of)\s+(an?\s+|the\s+)?(?P<x>.+?)"
                    r"(\s+(mean|means|stand\s+for))?\s*\??$", re.I)
_DEFINES = re.compile(r"\b(is|are|means|refers\s+to|called|stands\s+for|(appears|happens|"
                      r"occurs)\s+when)\b", re.I)


def asked_phrase(question: str) -> str:
    """Return the X of "what is X?" (the whole question when it is not of that form)."""
    match = _ASKED.match(" ".join(question.split()))
    if not match:
        return question
    # "incast in a GPU cluster": the thing is "incast"; the rest is where it happens.
    return re.split(r"\s+(in|on|for|with|at|inside|between|during|when)\s+", match.group("x"),
                    maxsplit=1)[0]


def _same_phrase(a: str, b: str) -> bool:
    """True if two "what is X" questions ask about the same X."""
    def x(q: str) -> str:
        return " ".join(w for w in _TOKEN.findall(asked_phrase(q).lower())
                        if w not in ("a", "an", "the"))
    return bool(_ASKED.match(" ".join(a.split()))) and x(a) == x(b)


def lead_definition(draft: Draft, pool: list[Candidate]) -> Chunk | None:
    """"What is X": the first sentence of X's definition, when X is a glossary term; when X
    is something a page explains without being its term ("what is a pipeline bubble", "what
    is incast"), the sentence that says what X is."""
    page = _subject_page(draft)
    own = residual_words(asked_phrase(draft.question), draft.retriever)
    if own:
        defining = [c for c in pool if _says_what(c.sentence.text, own)]
        best = _best(draft, defining, lambda c: 1.0 if c.sentence.section in
                     ("Definition", "Summary", "FAQ") else 0.0)
        if best is not None:
            return best.sentence
    if page is None:
        best = pool[0] if pool else None
        return best.sentence if best else None
    lead = lead_sentence(page, draft.retriever)
    narrower = _narrower_name(asked_phrase(draft.question), page)
    if narrower and lead is not None and narrower not in lead.text.lower():
        # "what is 3D parallelism": an alias naming a part of the page's subject is answered
        # by the sentence that says what that part is, when the page has one.
        words = frozenset(stem(w) for w in narrower.split())
        naming = [c for c in pool if _says_what(c.sentence.text, words)]
        best = _best(draft, naming, lambda c: 0.0)
        if best is not None:
            return best.sentence
    return lead


def _says_what(sentence: str, words: frozenset[str]) -> bool:
    """True if a sentence says what the thing named by `words` is: the words come before
    its defining verb, within the first ten words ("Incast is congestion that ...", "A
    pipeline bubble is ..."), or the sentence gives it as a name ("... called incast")."""
    for match in _DEFINES.finditer(sentence):
        if match.group(0).lower() == "called":
            head = _TOKEN.findall(sentence[match.end():].lower())[:4]
        else:
            head = _TOKEN.findall(sentence[:match.start()].lower())
        missing = words - {stem(w) for w in head}
        # all the words, or all but one of three or more ("OSFP 800G module" is said as
        # "An OSFP 800G transceiver is a pluggable module")
        if len(head) <= 10 and (not missing or (len(missing) == 1 and len(words) >= 3)):
            return True
    return False


def _narrower_name(phrase: str, page: Page) -> str:
    """The asked name when it is an alias of the page that is more than a spelling or an
    abbreviation of its title ("3D parallelism" of Distributed training), else ""."""
    said = " ".join(w for w in _TOKEN.findall(phrase.lower()) if w not in ("a", "an", "the"))
    compact = said.replace(" ", "")
    title = re.sub(r"[^a-z0-9]", "", page.title.lower())
    for alias in page.aliases:
        if " ".join(_TOKEN.findall(alias.lower())) != said:
            continue
        if alias.isupper() or compact in title or title in compact or len(compact) < 5:
            return ""
        return said
    return ""


#: Facts-table rows that answer a quantity question, by the kind of quantity asked.
FACT_FOR_UNIT = {"bandwidth": "typical_bandwidth", "latency": "latency"}
MEASURE_PAGES = MEASURES  # pages that name a measure (retrieve.py)


def lead_quantity(draft: Draft, pool: list[Candidate]) -> Chunk | None:
    """A quantity: the sentence that names the subject and a number in the asked unit."""
    units = draft.shape.units
    things = [draft.corpus.pages[s] for s in sorted(draft.terms - MEASURE_PAGES)]
    with_unit = [c for c in pool if has_unit(c.sentence.text, units)]
    # The question's other words pick the figure: "on Blackwell", "EDR", "Gen6", "links".
    asked = draft.words | draft.qualifiers
    def share(c: Candidate) -> float:
        return len(asked & stems_of(c.sentence.text)) / len(asked) if asked else 0.0
    shares = {id(c): share(c) for c in with_unit}
    most = max(shares.values(), default=0.0)
    if most > 0:
        with_unit = [c for c in with_unit if shares[id(c)] == most]
    best = _best(draft, with_unit, lambda c: float(any(names_page(c.sentence.text, p)
                                                       for p in things)))
    if best is not None and (not things or any(names_page(best.sentence.text, p)
                                               for p in things)):
        return best.sentence
    fact = fact_sentence(things, units)
    if fact is not None:
        return fact
    return best.sentence if best else lead_general(draft, pool)


def fact_sentence(pages: list[Page], units: tuple[str, ...]) -> Chunk | None:
    """Quote a facts-table row ("Typical bandwidth of InfiniBand: 400 Gb/s ...") as a lead."""
    for page in pages:
        for unit in units:
            key = FACT_FOR_UNIT.get(unit)
            value = page.facts.get(key) if key else None
            if value:
                text = f"{FACT_LABELS[key]} of {page.title}: {value}."
                return Chunk(id=f"{page.slug}::facts::{key}", slug=page.slug, title=page.title,
                             kind=page.kind, url=page.url, section="Summary", text=text,
                             unit="sentence", chunk_id=f"{page.slug}::facts")
    return None


def _fit_by(pattern: re.Pattern[str]):
    return lambda c: 1.0 if pattern.search(c.sentence.text) else 0.0


def lead_cause(draft: Draft, pool: list[Candidate]) -> Chunk | None:
    """"Why": the sentence that gives a cause."""
    best = _best(draft, pool, _fit_by(_CAUSAL))
    return best.sentence if best else None


def lead_mechanism(draft: Draft, pool: list[Candidate]) -> Chunk | None:
    """"How does X work": the best sentence of how it works."""
    best = _best(draft, pool, lambda c: 1.0 if c.sentence.section in _HOW_SECTIONS else 0.0)
    return best.sentence if best else None


def lead_choice(draft: Draft, pool: list[Candidate]) -> Chunk | None:
    """"Which should I use": a sentence that says when to choose what."""
    def fit(c: Candidate) -> float:
        section = c.sentence.section.lower()
        return (0.6 * bool(_CHOOSING.search(c.sentence.text))
                + 0.6 * any(k in section for k in _CHOICE_SECTIONS))
    best = _best(draft, pool, fit)
    return best.sentence if best else None


def lead_procedure(draft: Draft, pool: list[Candidate]) -> Chunk | None:
    """"How do I configure X": a step, preferably from a lesson."""
    def fit(c: Candidate) -> float:
        return (0.7 * bool(_IMPERATIVE.search(c.sentence.text))
                + 0.5 * (c.sentence.kind == "lesson"))
    best = _best(draft, pool, fit)
    return best.sentence if best else None


def lead_cost(draft: Draft, pool: list[Candidate]) -> Chunk | None:
    """A cost question with nothing to calculate: a sentence about cost or price."""
    best = _best(draft, pool, _fit_by(_COSTLY))
    return best.sentence if best else None


_CONTRAST = re.compile(r"\b(while|whereas|but|unlike|rather\s+than|instead\s+of|than|"
                       r"differs?|difference|in\s+contrast)\b", re.I)
_SIDES = re.compile(r"^(?:(?:whats|what's|what\s+is|what)\s+(?:the\s+)?difference\s+between\s+)?"
                    r"(?P<a>.+?)"
                    r"\s+(?:vs\.?|versus|or|and|compared\s+(?:to|with))\s+(?P<b>.+?)"
                    r"(?:\s*[,?]|\s+(?:whats|what's|what|which|how)\b|$)", re.I)


def comparison_sides(question: str) -> list[frozenset[str]]:
    """The two things a "X vs Y" question compares, as word stems ("DDP vs FSDP")."""
    match = _SIDES.search(" ".join(question.split()))
    if not match:
        return []
    sides = []
    for part in (match.group("a"), match.group("b")):
        words = {stem(w) for w in _TOKEN.findall(part.lower()) if w not in _STOP_WORDS}
        if words:
            sides.append(frozenset(words))
    return sides if len(sides) == 2 else []


def lead_comparison(draft: Draft, pool: list[Candidate]) -> Chunk | None:
    """"X vs Y": a sentence that names both, preferably one that contrasts them."""
    pages = [draft.corpus.get(s) for s in draft.compare[:2]]
    if len(pages) == 2:
        both = [c for c in pool if all(names_page(c.sentence.text, p) for p in pages)]
    else:  # two things inside one page ("DDP vs FSDP", "strong vs weak scaling")
        sides = comparison_sides(draft.question)
        def names_both(c: Candidate) -> bool:
            stems = stems_of(c.sentence.text)
            return all(side & stems for side in sides)
        both = [c for c in pool if names_both(c)] if sides else pool
    best = _best(draft, both or pool, _fit_by(_CONTRAST))
    return best.sentence if best else None


#: A sentence must be at least this close to a yes/no question to settle it.
SETTLE_FLOOR = 0.5


#: Judgement words a yes/no question can ask about. Stemming maps "expensive" to "cost" so
#: that retrieval finds cost sentences, but a sentence that states a cost does not say it is
#: expensive: to answer Yes or No it must use a word of the same judgement.
_JUDGEMENTS = (
    (re.compile(r"\b(expensive|costly|pricey|pricy)\b", re.I),
     re.compile(r"\b(expensive|costly|cost\s+more|premium|pricey)\b", re.I)),
    (re.compile(r"\b(cheap|cheaper|inexpensive|affordable)\b", re.I),
     re.compile(r"\b(cheap\w*|inexpensive|affordable|cost\s+less|lower[- ]cost|(lowers?|"
                r"reduces?|cuts?|spreads?)\s+(the\s+)?(\w+\s+)?cost)", re.I)),
    (re.compile(r"\bslow(s|ing)?\s+(\w+\s+)?down\b|\b(is|are|get|gets|become|run|runs)\s+"
                r"(\w+\s+){0,2}(slow|slower)\b", re.I),
     re.compile(r"\b(slow\w*|throttl\w*|bottleneck\w*|limits?|congest\w*)\b", re.I)),
    (re.compile(r"\b(make|makes|is|are|run|runs|get|gets)\s+(\w+\s+){0,3}(fast|faster|"
                r"quicker)\b", re.I),
     re.compile(r"\b(fast\w*|quick\w*|speeds?\s+up|higher\s+throughput)\b", re.I)),
    (re.compile(r"\b(same|identical|different|differ)\b", re.I),
     re.compile(r"\b(same|identical|different|differs?|distinct|another\s+name|unlike|"
                r"rather\s+than|instead\s+of|confus\w*)\b", re.I)),
)


_UNIVERSAL = re.compile(r"\b(all|every|each|any|always)\b", re.I)


#: Opposites: a sentence that says "below" where the question says "above" answers another
#: question (and its Yes or No would be the wrong way round).
_OPPOSITES = tuple((re.compile(rf"\b({a})\b", re.I), re.compile(rf"\b({b})\b", re.I)) for a, b in (
    ("above", "below"), ("more", "less|fewer"), ("higher", "lower"), ("before", "after"),
    ("faster", "slower"), ("larger|bigger", "smaller"), ("increases?", "decreases?|reduces?"),
    ("over", "under"), ("inside", "outside"), ("always", "never")))


def _judges_alike(question: str, sentence: str) -> bool:
    """True unless the question asks for a judgement the sentence does not make, or the
    sentence says the opposite word ("below" for "above")."""
    if not all(says.search(sentence) for asks, says in _JUDGEMENTS if asks.search(question)):
        return False
    for a, b in _OPPOSITES:
        for mine, other in ((a, b), (b, a)):
            if (mine.search(question) and not other.search(question)
                    and other.search(sentence) and not mine.search(sentence)):
                return False
    return True


def settle(draft: Draft, pool: list[Candidate]) -> tuple[str, Chunk] | None:
    """Find the quoted sentence that says yes or no to the question (polarity.py)."""
    if not draft.words and len(draft.terms) < 2:
        return None  # "do I need one?": no claim beyond the subject to say yes or no to

    ranked = sorted((c for c in pool if c.similarity >= SETTLE_FLOOR),
                    key=lambda c: c.score + COVERAGE_BONUS * coverage(draft, c.sentence.text),
                    reverse=True)
    for rank, c in enumerate(ranked[:8]):
        # The sentence must name the question's terms; a clause of it, the claim's words.
        named = coverage_parts(draft, c.sentence.text)[0]
        if named < 0.66:
            continue
        if not _judges_alike(draft.question, c.sentence.text):
            continue
        word = reading(c.sentence.text, lambda text: coverage_parts(draft, text)[1],
                       draft.shape.negated, closest=rank < 3,
                       universal=bool(_UNIVERSAL.search(draft.question)),
                       terms_carry=named == 1.0 and len(draft.terms) >= 2
                       and len(draft.words) <= 1)
        if word is not None:
            return word, c.sentence
    return None


def lead_yes_no(draft: Draft, pool: list[Candidate]) -> Chunk | None:
    """A yes/no question not settled by an FAQ: the best sentence, marked unsettled later."""
    return lead_general(draft, pool)


def lead_general(draft: Draft, pool: list[Candidate]) -> Chunk | None:
    """Anything else: the sentence closest to the question."""
    best = _best(draft, pool, lambda c: 0.0)
    return best.sentence if best else None


#: The composing table: the sentence that leads an answer, by intent.
LEADS = {
    Intent.DEFINITION: lead_definition,
    Intent.YES_NO: lead_yes_no,
    Intent.QUANTITY: lead_quantity,
    Intent.CAUSE: lead_cause,
    Intent.MECHANISM: lead_mechanism,
    Intent.COMPARISON: lead_comparison,
    Intent.CHOICE: lead_choice,
    Intent.PROCEDURE: lead_procedure,
    Intent.COST: lead_cost,
    Intent.GENERAL: lead_general,
}


@dataclass(frozen=True)
class FAQMatch:
    """An FAQ entry whose question means what the visitor asked."""

    slug: str
    index: int
    question: str
    similarity: float
    sentences: tuple[Chunk, ...]

    @property
    def polar(self) -> bool:
        """True if the answer opens with Yes, No or It depends."""
        return bool(self.sentences) and bool(_POLAR.match(self.sentences[0].text))


def faq_match(draft: Draft) -> FAQMatch | None:
    """Return the corpus FAQ entry that asks the visitor's question, if there is one.

    Embeddings of short questions are dominated by the term they name ("how does DCQCN
    work" is 0.89 from "what does DCQCN stand for"), so closeness in meaning must agree
    with the wording: the same terms, the same kind of question, and shared content words.
    """
    for question, sim in draft.retriever.faq_questions(draft.retrieval.vector, limit=3):
        if sim < FAQ_SAME_WORDS:
            break
        theirs = {m.slug for m in draft.retriever.terms.find(question.text)
                  if draft.corpus.pages[m.slug].kind == "glossary"}
        if theirs - draft.terms - {question.slug} or draft.terms - theirs - {question.slug}:
            continue
        if not _same_kind(draft.shape.intent, classify(question.text).intent):
            continue
        words = residual_words(question.text, draft.retriever)
        union = words | draft.words
        overlap = len(words & draft.words) / len(union) if union else 1.0
        # The same terms and the same words ask the same thing, even when an abbreviation
        # ("IB") keeps the embeddings apart.
        same_words = bool(words) and words == draft.words
        if not (sim >= FAQ_CERTAIN or (sim >= FAQ_SAME and overlap >= 0.2)
                or (sim >= FAQ_NEAR and overlap >= FAQ_OVERLAP)
                or (sim >= FAQ_SAME_WORDS and same_words)):
            continue
        sentences = tuple(draft.retriever.sentences_of_chunk(question.chunk_id))
        if sentences and _POLAR.match(sentences[0].text) and not (
                sim >= FAQ_SAME or same_words) or not _addresses(draft, words, sentences):
            continue  # a Yes or No borrowed from a merely related question misleads
        if sentences:
            index = int(question.chunk_id.rsplit("::", 1)[-1])
            return FAQMatch(question.slug, index, question.text, sim, sentences)
    return None


def faq_sentences(draft: Draft, faq: FAQMatch) -> list[Chunk]:
    """The FAQ answer's first two sentences; when the visitor asked about one part of the
    FAQ's question ("NVLink on Blackwell" of "on H100 and on Blackwell"), the sentence that
    names that part leads. A sentence opening with Yes or No always stays first."""
    first = faq.sentences[0]
    chosen = [s for s in faq.sentences[:2] if stands_alone(s.text) or s is first]
    theirs = {m.slug for m in draft.retriever.terms.find(faq.question)}
    asked_part = (draft.words < residual_words(faq.question, draft.retriever)
                  or bool(theirs - draft.terms - {faq.slug}))
    if len(chosen) == 2 and asked_part and not _POLAR.match(first.text):
        if coverage(draft, chosen[1].text) > coverage(draft, chosen[0].text):
            chosen.reverse()
    return chosen


def _addresses(draft: Draft, words: frozenset[str], sentences: tuple[Chunk, ...]) -> bool:
    """True if every content word the visitor added to the FAQ's question is in its answer
    ("is there an NCCL *equivalent* for AMD GPUs" is not "does NCCL work on AMD GPUs")."""
    added = draft.words - words
    if not added:
        return True
    said = frozenset().union(*(stems_of(s.text) for s in sentences))
    return len(added & said) * 2 >= len(added)  # at least half of them


def _same_kind(asked: Intent, faq: Intent) -> bool:
    # A yes/no question needs an FAQ that answers yes or no; a "why" needs a "why".
    for strict in (Intent.YES_NO, Intent.CAUSE):
        if (asked is strict) != (faq is strict):
            return False
    return True


_STOP_WORDS = frozenset("""a an and are as at be but by can could do does did for from how i if
in into is it its me my of on or our so than that the their them then there these they this
to was we what whats when where which who why will with you your vs versus about explain tell
please pls simply simple terms really actually just even still also any anyone anything one
use used using work works working need needs get got would should thing things kind sort mean
means meaning called exactly like too even ever anyway again go goes going""".split())
#: Words visitors use for the corpus's own words ("NIC" where the corpus says adapter).
SYNONYMS = {"nic": "adapter", "card": "adapter", "hca": "adapter", "node": "server",
            "machine": "server", "box": "server", "host": "server", "msg": "message",
            "datacenter": "data", "dc": "data", "big": "large", "huge": "large", "fast": "speed",
            "quick": "speed", "slow": "speed", "cheap": "cost", "expensive": "cost",
            "price": "cost", "pay": "cost", "backup": "standby", "tenant": "customer",
            "client": "customer", "normal": "standard", "module": "transceiver",
            "optic": "transceiver"}


@cache
def _synonyms() -> dict[str, str]:
    return {_stem(k): _stem(v) for k, v in SYNONYMS.items()}


@cache
def _stemmer():
    import snowballstemmer

    return snowballstemmer.stemmer("english")


@cache
def _stem(word: str) -> str:
    word = word.lower()
    if word.endswith("ies") and len(word) > 4:
        word = word[:-3] + "y"
    elif word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        word = word[:-1]  # Snowball keeps "gpus" and "msgs" whole
    short = _stemmer().stemWord(word)
    if short.endswith(("abl", "ibl")) and len(short) > 5:
        short = short[:-3]  # "routable" and "route"
    elif short.endswith("er") and len(short) > 5:
        short = short[:-2]  # "router" and "routed", "faster" and "fast"
    return short


def stem(word: str) -> str:
    """Stem a word for matching a question's words in a sentence: Snowball English with
    plurals, "-able" and "-er" folded, then the visitor's synonym for the corpus's word."""
    short = _stem(word)
    return _synonyms().get(short, short)


#: Link speeds written every way ("400G", "400 Gb/s", "400GbE", "1.6T") become one token.
_SPEED = re.compile(r"(\d+(?:\.\d+)?)\s*(?:(G|g)(?:b/s|bps|bE|be|bit/s)?|(T|t)(?:b/s|bps)?)"
                    r"(?![\w/])")


def _speeds(text: str) -> str:
    return _SPEED.sub(lambda m: f" {m.group(1).replace('.', 'p')}{'g' if m.group(2) else 't'} ",
                      text)


@cache
def stems_of(text: str) -> frozenset[str]:
    """The stems of a text's words, with link speeds in one spelling."""
    return frozenset(stem(w) for w in _TOKEN.findall(_speeds(text).lower()))


def residual_words(text: str, retriever: Retriever) -> frozenset[str]:
    """Return the content words of a question outside the terms it names, crudely stemmed."""
    lowered = text.lower()
    for match in retriever.terms.find(text):
        lowered = lowered.replace(match.said, " ")
    words = {stem(w) for w in _TOKEN.findall(_speeds(lowered)) if w not in _STOP_WORDS
             and len(w) > 1}
    return frozenset(w for w in words if w)


def names_any(text: str, corpus: Corpus, slugs: set[str]) -> bool:
    """Return True if a text names every one of the given pages' terms."""
    return all(names_page(text, corpus.get(s)) for s in slugs)


def compose_answer(draft: Draft) -> Answer:
    """Answer from the corpus, leading with the sentence that answers what was asked."""
    cites = CitationList(draft.corpus, draft.site_url)
    intent = draft.shape.intent
    quoted: list[Chunk] = []
    faq = faq_match(draft)
    if faq is not None and intent is Intent.DEFINITION and draft.subject:
        # "What is NVLink" is answered by NVLink's definition; an FAQ only when it asks the
        # same thing ("what is a pipeline bubble") or X is not the subject's own term.
        if not (_same_phrase(faq.question, draft.question)
                or residual_words(asked_phrase(draft.question), draft.retriever)):
            faq = None
    gap = ""
    if faq is not None:
        quoted.extend(faq_sentences(draft, faq))
    pool = candidates(draft)
    if not quoted:
        lead = LEADS[intent](draft, pool)
        if lead is not None:
            quoted.append(lead)
    verdict = ""
    answered = intent is Intent.YES_NO and faq is not None and faq.polar
    if intent is Intent.YES_NO and not answered:
        # Yes or No only when a quoted sentence says it; otherwise what the corpus says.
        settled = settle(draft, pool)
        if settled is not None:
            verdict, sentence = settled
            quoted[:1] = [sentence]
            answered = True
        else:
            gap = "yes/no question the corpus does not settle"
    if len(quoted) == 1:
        follower = next_sentence(draft, pool, quoted[0])
        if follower is not None:
            quoted.append(follower)
    limit = 2 if intent is not Intent.DEFINITION else MAX_EXTRA_SENTENCES
    room = max(0, 4 - len(quoted))
    extra = _supporting(draft, pool, quoted, min(limit, room))
    parts = []
    for i, sentence in enumerate(quoted + extra):
        n = cites.cite(sentence.slug, sentence.section, sentence.text)
        # A Yes/No/It depends stays only where it answers this question: the first sentence
        # of a settled answer; elsewhere it answered another question and is dropped.
        text = (opening(verdict, sentence.text) if i == 0 and answered
                else without_opening(sentence.text))
        parts.append(f"{text} [{n}]")
    if not parts:
        return Answer(text="", retrieved=draft.retrieval.slugs, kind="answer")
    main = quoted[0].slug if quoted else (draft.subject or draft.retrieval.slugs[0])
    pointer = draft.corpus.pages[main]
    n = cites.cite(pointer.slug, "Summary")
    text = " ".join(parts) + f"\n\n{templates()['answer']['more']}: {pointer.title} [{n}]"
    sims = [c.similarity for c in pool if c.sentence in quoted]
    confidence = max(sims + [faq.similarity if faq else 0.0], default=0.0) or \
        draft.retrieval.best_similarity
    return Answer(text=text, citations=cites.build(), retrieved=draft.retrieval.slugs,
                  kind="answer", subject=draft.subject or main, confidence=confidence,
                  suggestions=follow_ups(draft.corpus, draft.subject or main),
                  intent=intent.value, gap=gap, faq=f"{faq.slug}#{faq.index}" if faq else "")


#: The sentence after the lead follows it when at least this close to the question.
FOLLOW_FLOOR = 0.30


def next_sentence(draft: Draft, pool: list[Candidate], lead: Chunk) -> Chunk | None:
    """The sentence after the lead in its passage, when it is quotable and on the question:
    the lead's own explanation ("A common mistake is assuming SHARP is on." -> "SHARP needs
    switches that support it and an aggregation manager.")."""
    sims = {c.sentence.id: c.similarity for c in pool}
    following = [s for s in draft.retriever.sentences_of_chunk(lead.chunk_id)
                 if s.position > lead.position]
    if not following:
        return None
    after = following[0]
    if sims.get(after.id, 0.0) < FOLLOW_FLOOR or _repeats(draft.retriever, after, lead):
        return None
    return after


def _supporting(draft: Draft, pool: list[Candidate], quoted: list[Chunk], limit: int
                ) -> list[Chunk]:
    """Up to `limit` more sentences close to the question and to the lead, without repeats."""
    if limit <= 0 or not pool:
        return []
    lead_slug = quoted[0].slug if quoted else draft.subject
    best = pool[0].score
    chosen: list[Chunk] = []
    taken = list(quoted)
    for c in pool:
        if len(chosen) >= limit or c.score < best - SENTENCE_WINDOW:
            break
        if c.similarity < SENTENCE_FLOOR or c.sentence in taken:
            continue
        if any(_repeats(draft.retriever, c.sentence, t) for t in taken):
            continue
        chosen.append(c.sentence)
        taken.append(c.sentence)
    order = {slug: i for i, slug in enumerate(draft.focus)}
    chosen.sort(key=lambda s: (s.slug != lead_slug, order.get(s.slug, 99), s.position))
    return chosen


def compose_comparison(draft: Draft) -> Answer:
    """Answer "X vs Y": the sentence that compares them (or the FAQ that asks it), both
    definitions, a side-by-side from their facts, and the lesson if there is one."""
    t = templates()["comparison"]
    cites = CitationList(draft.corpus, draft.site_url)
    parts: list[str] = []
    quoted: list[Chunk] = []
    pages = [draft.corpus.pages[s] for s in draft.compare[:2]]
    faq = faq_match(draft)
    pool = candidates(draft)
    verdict = ""
    settled = None
    if draft.shape.intent is Intent.YES_NO and not (faq is not None and faq.polar):
        settled = settle(draft, pool)
    if settled is not None:
        verdict, sentence = settled
        quoted.append(sentence)
    elif faq is not None:
        quoted.append(faq.sentences[0])
    else:
        lead = lead_comparison(draft, pool)
        if lead is not None:
            quoted.append(lead)
    for page in pages:
        lead = lead_sentence(page, draft.retriever)
        if lead is not None and not any(_repeats(draft.retriever, lead, q) for q in quoted):
            quoted.append(lead)
    answered = draft.shape.intent is Intent.YES_NO and (
        settled is not None or (faq is not None and faq.polar))
    for i, sentence in enumerate(quoted[:3]):
        n = cites.cite(sentence.slug, sentence.section, sentence.text)
        text = (opening(verdict, sentence.text) if i == 0 and answered
                else without_opening(sentence.text))
        parts.append(f"{text} [{n}]")
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
    lesson = covering_lesson(draft.corpus, [p.slug for p in pages])
    if lesson is not None:
        n = cites.cite(lesson.slug, "Summary", lesson.summary)
        text += f"\n\n{t['lesson'].format(title=lesson.title)} [{n}]."
    retrieval = draft.retrieval
    return Answer(text=text, citations=cites.build(), retrieved=retrieval.slugs,
                  kind="comparison", subject=pages[0].slug,
                  confidence=max(retrieval.best_similarity, 0.5),
                  suggestions=follow_ups(draft.corpus, lesson.slug if lesson else pages[0].slug),
                  intent=draft.shape.intent.value, faq=f"{faq.slug}#{faq.index}" if faq else "",
                  gap="yes/no question the corpus does not settle"
                  if draft.shape.intent is Intent.YES_NO and not (faq and faq.polar)
                  and settled is None else "")


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
