"""The lead of an answer, by intent: the sentence that answers what was asked (`LEADS`),
and `settle`, which finds the sentence that says yes or no."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING

from .corpus import FACT_LABELS, Chunk, Page
from .draft import (
    Candidate,
    Draft,
    _best,
    _fit_by,
    _subject_page,
    names_page,
)
from .intent import UNIT_PATTERNS, Intent, has_unit
from .retrieve import MEASURES
from .text import numbers_in, stands_alone
from .words import (
    _STOP_WORDS,
    model_fit,
    models,
    residual_words,
    stem,
    stems_of,
    without_models,
)

if TYPE_CHECKING:
    from .retrieve import Retriever

_TOKEN = re.compile(r"[a-z0-9]+")


def lead_sentence(page: Page, retriever: Retriever) -> Chunk | None:
    """Return the sentence that answers "what is X?" for a page: its definition's first."""
    sentences = retriever.sentences_of_page(page.slug)
    for section in ("Definition", "Summary"):
        found = [s for s in sentences if s.section == section]
        if found:
            return min(found, key=lambda s: s.position)
    return min(sentences, key=lambda s: s.position) if sentences else None


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


_CHOICE_SECTIONS = ("takeaway", "checklist", "when to", "choosing", "decision")


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
    if narrower and lead is not None and not (
            frozenset(stem(w) for w in narrower.split()) <= stems_of(lead.text)):
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
    for size, head in _heads(sentence):
        missing = words - head
        # all the words, or all but one of three or more ("OSFP 800G module" is said as
        # "An OSFP 800G transceiver is a pluggable module")
        if size <= 10 and (not missing or (len(missing) == 1 and len(words) >= 3)):
            return True
    return False


@lru_cache(maxsize=1 << 15)
def _heads(sentence: str) -> tuple[tuple[int, frozenset[str]], ...]:
    """Each defining verb's head (the words before it, or the four after "called") as its
    length and stems, once per corpus sentence."""
    out = []
    for match in _DEFINES.finditer(sentence):
        if match.group(0).lower() == "called":
            head = _TOKEN.findall(sentence[match.end():].lower())[:4]
        else:
            head = _TOKEN.findall(sentence[:match.start()].lower())
        out.append((len(head), frozenset(stem(w) for w in head)))
    return tuple(out)


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


#: Words of a quantity question that ask for the measure ("how many watts", "did it have"):
#: the unit check stands for them, so they do not choose between sentences.
_MEASURE_WORDS = frozenset(stem(w) for w in """many much have has had total number amount
    bandwidth bandwith speed rate throughput gbps tbps watts power capacity size latency delay
    long far reach big large fast figure value take takes across often""".split())


def _nearness(sentence: str, asked: frozenset[str], units: tuple[str, ...]) -> float:
    """1 when a figure in the asked unit sits within a few words of an asked word ("EDR ...
    100 Gb/s"), less the further apart they are, 0 when the sentence has no such pair."""
    if not asked:
        return 0.0
    lowered = sentence.lower()
    spots = [m.start() for m in _TOKEN.finditer(lowered) if stem(m.group()) in asked]
    figures = [m.start() for u in units if u in UNIT_PATTERNS
               for m in UNIT_PATTERNS[u][1].finditer(sentence)]
    if not spots or not figures:
        return 0.0
    gap = min(len(_TOKEN.findall(lowered[min(a, b):max(a, b)])) for a in spots for b in figures)
    return 1.0 if gap <= 6 else 0.5 if gap <= 12 else 0.0


def lead_quantity(draft: Draft, pool: list[Candidate]) -> Chunk | None:
    """A quantity: the sentence that names the subject and a number in the asked unit, the
    number said of the model asked about ("Tomahawk 6", not "Tomahawk 5")."""
    units = draft.shape.units
    things = [draft.corpus.pages[s] for s in sorted(draft.terms - MEASURE_PAGES)]
    with_unit = [c for c in pool if has_unit(c.sentence.text, units)]
    named = models(draft.question)
    if named:
        # "how many NICs does a DGX H100 have": the figure may be on a page the question
        # did not retrieve; look for the model's figures across the corpus.
        with_unit += [c for c in _model_candidates(draft, named)
                      if has_unit(c.sentence.text, units)]
    # The question's other words pick the figure: "on Blackwell", "EDR", "Gen6", "links".
    asked = (draft.words | draft.qualifiers) - _MEASURE_WORDS
    # The figures the question gives ("10 GB across 8 GPUs") pick the worked case that
    # uses them.
    given = set(numbers_in(without_models(draft.question)))
    if len(given) >= 2:
        # A worked case with every figure given is the answer whatever unit it states
        # ("how big is the bubble with 4 stages and 16 micro-batches": "... about 16%").
        having = {c.sentence.id for c in with_unit}  # ids: comparing candidates field by
        with_unit += [c for c in pool if c.sentence.id not in having  # field took ~20 ms
                      and given <= set(numbers_in(c.sentence.text))]
    def share(c: Candidate) -> float:
        # The model asked about weighs more than any one word ("NVLink 3 ... per GPU").
        hits = (len(asked & stems_of(c.sentence.text)) + 2 * model_fit(named, c.sentence.text)
                + len(given & set(numbers_in(c.sentence.text))))
        total = len(asked) + 2 * len(named) + len(given)
        return hits / total if total else 0.0
    shares = {id(c): share(c) for c in with_unit}
    most = max(shares.values(), default=0.0)
    if most > 0:
        with_unit = [c for c in with_unit if shares[id(c)] == most]
    # A qualifier ("HDR", "EDR") says which figure is meant better than a common word.
    near = (draft.qualifiers - _MEASURE_WORDS) or asked
    def fit(c: Candidate) -> float:
        return (float(any(names_page(c.sentence.text, p) for p in things))
                + _nearness(c.sentence.text, near, units))
    best = _best(draft, with_unit, fit)
    if best is not None and (not things or any(names_page(best.sentence.text, p)
                                               for p in things)):
        return best.sentence
    fact = fact_sentence(things, units)
    if fact is not None:
        return fact
    return best.sentence if best else lead_general(draft, pool)


def _model_candidates(draft: Draft, named: dict[str, set[str]]) -> list[Candidate]:
    """Sentences outside the focus pages that name an asked model, scored by similarity."""
    return _corpus_candidates(draft, lambda text: model_fit(named, text) > 0)


def _corpus_candidates(draft: Draft, keep) -> list[Candidate]:
    """Sentences of pages outside the focus that `keep`, scored by similarity alone."""
    focus = set(draft.focus)
    slugs = [slug for slug in draft.corpus.pages if slug not in focus and any(
        keep(s.text) for s in draft.retriever.sentences_of_page(slug))]
    return [Candidate(sentence, sim, sim)
            for sentence, sim in draft.retriever.sentences_for(slugs, draft.retrieval.vector)
            if keep(sentence.text) and stands_alone(sentence.text)]


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
    """A cost question with nothing to calculate: a sentence about cost or price; a priced
    item the question names ("a 400G transceiver") wherever the corpus prices it."""
    things = [draft.corpus.pages[s] for s in draft.terms]
    asked = draft.words - _COST_WORDS
    def priced(text: str) -> bool:
        return ("$" in text and bool(asked) and asked <= stems_of(text)
                and all(names_page(text, p) for p in things))
    items = [c for c in pool if priced(c.sentence.text)]
    items += [c for c in _corpus_candidates(draft, priced) if c not in items]
    def head_names(c: Candidate) -> float:
        # The item priced is said first: "400 Gb/s NIC, ConnectX-7 class: ... $2,000", not
        # "400 Gb/s transceiver for a NIC port: ... $600".
        text = c.sentence.text
        head = text.split(":", 1)[0] if ":" in text[:120] else " ".join(text.split()[:8])
        noun = re.split(r",|\(|\s(?:for|with|of|in|on)\s", head, maxsplit=1)[0]
        return 0.5 * priced(head + " $") + 0.5 * priced(noun + " $")
    best = _best(draft, items, head_names) if items else None
    if best is None:
        best = _best(draft, pool, _fit_by(_COSTLY))
    return best.sentence if best else None


#: Words of a cost question that ask for the price, not which thing is priced.
_COST_WORDS = frozenset(stem(w) for w in """cost costs price prices pricing much expensive
    cheap pay buy budget dollars spend typical typically roughly about""".split())


_DRAWBACKS = re.compile(r"\b(downside|drawback|catch|risk\w*|but|however|out\s+of\s+order|"
                        r"reorder\w*|cannot|can't|only|limit\w*|problem\w*|penalt\w*|overhead|"
                        r"harder|complex\w*|costs?\s+more|mistake|fail\w*|lose|loses|lost|"
                        r"drops?|stall\w*|hurt\w*|worse)\b", re.I)


def lead_drawback(draft: Draft, pool: list[Candidate]) -> Chunk | None:
    """"What's the catch": a sentence that states a drawback, limit or risk."""
    best = _best(draft, pool, _fit_by(_DRAWBACKS))
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
    Intent.DRAWBACK: lead_drawback,
    Intent.GENERAL: lead_general,
}
