"""Grounded, extractive answers: quoted sentences, each with a citation, or an honest refusal."""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any

from .answer import Answer, Citation
from .corpus import Chunk, Corpus, Page, is_table_row
from .draft import SENTENCE_FLOOR, Candidate, Draft, candidates, with_choices
from .faq import (
    FAQMatch,
    asked_like_another,
    denied_of_every,
    faq_match,
    faq_sentences,
    polar_neighbour,
)
from .intent import Intent
from .leads import LEADS, _same_phrase, asked_phrase
from .polarity import (
    POLAR_OPENING,
    YES_NO_OPENING,
    asks_identity,
    judged_words,
    opening,
    other_option,
    other_ratio,
    other_vendors,
    without_opening,
)
from .staff import SUPPORT_NOTE
from .text import stands_alone
from .verdict import Verdict, asks_of_other_terms, reading, settle, turns_away
from .words import residual_words

if TYPE_CHECKING:
    from .retrieve import Retrieval, Retriever

MAX_EXTRA_SENTENCES = 3
SENTENCE_WINDOW = 0.12  # supporting sentences stay within this of the best one
WINDOW_SLACK = 0.04  # ... the first of them a little further, when the lead scores far ahead
DUPLICATE_SIMILARITY = 0.85  # two sentences this close say the same thing
SUMMARY_SIMILARITY = 0.75  # ... and a page's summary this close to another of its sentences

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


def repeats(retriever: Retriever, a: Chunk, b: Chunk, meaning: bool = True) -> bool:
    # A page's summary restates its definition; so do some FAQ answers. Compare meanings
    # (not for the sentence that follows its lead in the text: an explanation is close in
    # meaning to what it explains, and says something new).
    if a.slug == b.slug and {a.section, b.section} == {"Summary", "Definition"}:
        return True
    if (a.slug == b.slug and "Summary" in (a.section, b.section)
            and retriever.sentence_similarity(a, b) > SUMMARY_SIMILARITY):
        # ...and the page's other restatements ("what is a queue pair?" in its FAQ)
        return True
    if meaning and retriever.sentence_similarity(a, b) > DUPLICATE_SIMILARITY:
        return True
    wa, wb = _words(a.text), _words(b.text)
    if bool(wa and wb) and len(wa & wb) / len(wa | wb) > 0.6:
        return True
    # The same figures on the same page ("400 Gb/s ... 50 GB/s" said twice in other words).
    na, nb = _figures(a.text), _figures(b.text)
    fewer, more = sorted((na, nb), key=len)
    if a.slug == b.slug and len(fewer) >= 2 and fewer <= more:
        return True
    # Two of the same measured figures ("400 Gb/s" and "100 Gb/s"): a table row restating
    # the sentence before it.
    return a.slug == b.slug and len(_measured(a.text) & _measured(b.text)) >= 2


_MEASURED = re.compile(r"(\d[\d,.]*)\s*(Gb/s|GB/s|Tb/s|TB/s|GT/s|kW|W|µs|ms|ns|%|KB|MB|GB|TB)\b")


def _measured(text: str) -> frozenset[tuple[str, str]]:
    return frozenset((n.replace(",", ""), u) for n, u in _MEASURED.findall(text))


def _figures(text: str) -> frozenset[str]:
    return frozenset(n.replace(",", "") for n in re.findall(r"\d[\d,.]*\d|\d", text))


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
        if sim < SENTENCE_FLOOR or any(repeats(retriever, sentence, t) for t in taken):
            continue
        chosen.append((sentence, sim))
        taken.append(sentence)
    order = {slug: i for i, slug in enumerate(slugs)}
    chosen.sort(key=lambda t: (t[0].slug != lead_slug, order.get(t[0].slug, 99), t[0].position))
    return chosen


# --- answering by intent ---------------------------------------------------------------------


def rule_choices(draft: Draft, pool: list[Candidate]
                 ) -> tuple[Chunk | None, FAQMatch | None, list[Chunk]]:
    """What the rules would quote: the intent's lead picker's sentence, and the FAQ entry
    that asks the question with the sentences of its answer that lead."""
    intent = draft.shape.intent
    faq = faq_match(draft)
    if faq is not None and intent is Intent.DEFINITION and draft.subject:
        # "What is NVLink" is answered by NVLink's definition; an FAQ only when it asks the
        # same thing ("what is a pipeline bubble") or X is not the subject's own term.
        if not (_same_phrase(faq.question, draft.question)
                or residual_words(asked_phrase(draft.question), draft.retriever)):
            faq = None
    lead = LEADS[intent](draft, pool) if pool else None
    return lead, faq, faq_sentences(draft, faq) if faq is not None else []


def authored_depends(faq: FAQMatch | None) -> bool:
    """True if the answer of the FAQ matched to the question opens with "It depends", or,
    asked near word for word, with no Yes or No at all: "Is NVLink expensive?" is answered
    "NVLink is not bought on its own ...", which no reading may turn into a No."""
    if faq is None or not faq.sentences or not faq.same_qualifiers:
        return False
    first = faq.sentences[0].text
    if POLAR_OPENING.match(first):
        return not YES_NO_OPENING.match(first)
    return faq.similarity >= AUTHORED_PLAIN_AT


def against_faq(faq: FAQMatch | None, settled: Verdict) -> bool:
    """True if a verdict says the opposite of the Yes or No (hedged or not: "Yes, but
    rarely") that opens the answer of the FAQ matched to the question ("can an NVLink domain
    go past one rack?" is not answered No by a common mistake the FAQ's "Yes, but" allows)."""
    if faq is None or not faq.sentences:
        return False
    if authored_depends(faq):
        return True  # the FAQ asked says "It depends": no reading says a plain Yes or No
    authored = YES_NO_OPENING.match(faq.sentences[0].text)
    word = settled.word or (YES_NO_OPENING.match(settled.sentence.text) or [""])[0]
    return bool(authored and word) and authored.group(0).lower() != str(word).lower()


def borrowed_polar_faq(draft: Draft) -> FAQMatch | None:
    """Another FAQ whose authored Yes or No answers this yes/no question as asked: by the
    rules (faq.polar_neighbour), else by the matcher learned from labelled pairs."""
    near = polar_neighbour(draft)
    if near is None and draft.learning is not None:
        near = draft.learning.polar_faq(draft)
    # what a thing is ("Is InfiniBand the same thing as Ethernet?") does not say what it
    # does ("is infiniband faster than ethernet?")
    if near is not None and asks_identity(near.question) != asks_identity(draft.question):
        return None
    return near


def _said_of_another(draft: Draft, lead: Chunk, verdict: str) -> bool:
    """True if the Yes or No that would open the answer was said of something other than
    what is asked: of every one of a kind, of what the visitor compares with, of another
    ratio than the one the visitor claims, of an alternative question's other option, or of
    other vendors' products."""
    asked_of = draft.retriever.faq_question_of(lead.chunk_id) or ""
    said = opening(verdict, lead.text) if verdict else lead.text
    return (denied_of_every(draft.question, asked_of, said)
            or asked_like_another(draft.question, asked_of, said)
            or other_ratio(draft.question, f"{asked_of} {said}")
            or other_option(draft.question, asked_of)
            or other_vendors(draft.question, asked_of))


def compose_answer(draft: Draft) -> Answer:
    """Answer from the corpus, leading with the sentence that answers what was asked."""
    cites = CitationList(draft.corpus, draft.site_url)
    intent = draft.shape.intent
    pool = candidates(draft)
    lead, faq, faq_lead = rule_choices(draft, pool)
    quoted: list[Chunk] = list(faq_lead) or ([lead] if lead is not None else [])
    # "and on ethernet?": a message with no claim of its own leaves what is asked in the
    # conversation, and a Yes or No matched through it may answer the previous question
    claims = bool(draft.words) or len(draft.terms) >= 2
    # ...unless its answer turns against what this question adds to it ("does PUE include
    # the GPUs' power?" answers Yes, "... not how efficiently the GPUs compute")
    turned = faq is not None and (turns_away(draft.question, faq.question, faq.sentences)
                                  or asks_of_other_terms(draft, faq.slug, faq.question))
    answered = intent is Intent.YES_NO and faq is not None and faq.polar and claims \
        and not turned and judged_words(draft.question) == judged_words(faq.question)
    # An authored "It depends" for the question asked leaves no plain Yes or No to borrow
    # from a farther FAQ ("does Ultra Ethernet work with the NICs I have?" is not "are there
    # Ultra Ethernet NICs?").
    depends = authored_depends(faq)
    if intent is Intent.YES_NO and not answered and not depends and claims:
        near = borrowed_polar_faq(draft)
        # (judged alike, as a matched FAQ must be: "is that considered good?" is not "Should
        # MFU be calculated against the sparse peak?", nor "enough to judge" a plain ask)
        if near is not None and not turns_away(draft.question, near.question, near.sentences) \
                and not asks_of_other_terms(draft, near.slug, near.question) \
                and judged_words(draft.question) == judged_words(near.question):
            faq, faq_lead, answered = near, faq_sentences(draft, near), True
            quoted = list(faq_lead)
    ranked = _learned_order(draft, pool, lead, faq_lead)
    # "What is NVLink?" and nothing more: the page's definition leads, whatever the ranker
    # makes of sentences that only name the term ("UALink is ... an alternative to NVLink").
    bare = (intent is Intent.DEFINITION and lead is not None and not draft.words
            and _names_page(asked_phrase(draft.question), draft.corpus.pages[lead.slug]))
    # The FAQ asked word for word (a follow-up chip, a visitor reading the page) leads with
    # its own answer, whatever the ranker makes of the rest.
    verbatim = faq is not None and faq_lead and faq.similarity >= VERBATIM_AT
    if ranked and not answered and not bare and not verbatim:
        best = ranked[0][0]
        quoted = list(faq_lead) if best in faq_lead else [best]
    gap = ""
    verdict = ""
    how = "faq" if answered else ""
    if intent is Intent.YES_NO and not answered:
        # Yes or No only when a quoted sentence says it; otherwise what the corpus says.
        settled = reading(draft, pool, ranked) if quoted else settle(draft, pool)
        if settled is not None and not turned and against_faq(faq, settled):
            settled = None  # another reading may not overrule the matched FAQ's own answer
        if settled is not None:
            verdict, sentence, how = settled
            quoted[:1] = [sentence]
            answered = True
        else:
            gap = "yes/no question the corpus does not settle"
    if answered and quoted and _said_of_another(draft, quoted[0], verdict):
        answered, verdict, how = False, "", ""
        gap = "yes/no question the corpus does not settle"
    if len(quoted) == 1:
        follower = next_sentence(draft, pool, quoted[0])
        if follower is not None:
            quoted.append(follower)
    # Up to four sentences. The learned order fills them whatever the intent (dev: key facts
    # anywhere 0.855 -> 0.862 against stopping at three when the lead had no follower); the
    # rules' order keeps its shorter answers for everything but definitions.
    room = max(0, 4 - len(quoted))
    limit = 2 if intent is not Intent.DEFINITION else MAX_EXTRA_SENTENCES
    extra = (_learned_supporting(draft, ranked, quoted, room) if ranked
             else _supporting(draft, pool, quoted, min(limit, room)))
    parts = []
    for i, sentence in enumerate(quoted + extra):
        n = cites.cite(sentence.slug, sentence.section, sentence.text)
        # A Yes/No/It depends stays only where it answers this question: the first sentence
        # of a settled answer; elsewhere it answered another question and is dropped.
        # ...and the matched FAQ's own "It depends" stays where that FAQ's answer leads.
        own = depends and faq is not None and sentence is faq.sentences[0]
        text = (opening(verdict, without_opening(sentence.text) if verdict else sentence.text)
                if i == 0 and (answered or own)
                else without_opening(sentence.text))
        parts.append(f"{text} [{n}]")
    if not parts:
        return Answer(text="", retrieved=draft.retrieval.slugs, kind="answer")
    main = quoted[0].slug if quoted else (draft.subject or draft.retrieval.slugs[0])
    pointer = draft.corpus.pages[main]
    n = cites.cite(pointer.slug, "Summary")
    text = " ".join(parts) + f"\n\n{templates()['answer']['more']}: {pointer.title} [{n}]"
    note = _support_note(faq, quoted)
    text = _with_note(text, note)
    said = {s.id for s in quoted}  # ids: comparing whole sentences field by field was slow
    sims = [c.similarity for c in pool if c.sentence.id in said]
    confidence = max(sims + [faq.similarity if faq else 0.0], default=0.0) or \
        draft.retrieval.best_similarity
    return Answer(text=text, citations=cites.build(), retrieved=draft.retrieval.slugs,
                  kind="answer", subject=draft.subject or main, confidence=confidence,
                  suggestions=follow_ups(draft.corpus, draft.subject or main),
                  intent=intent.value, gap=gap, faq=faq.ref if faq else "",
                  note=note, polarity=how)


#: An FAQ asked this closely whose answer opens with no Yes or No lends none to any reading.
AUTHORED_PLAIN_AT = 0.9
#: An FAQ question this similar to the message is the question asked word for word.
VERBATIM_AT = 0.98
#: Candidates the learned model scores (the pool's best by similarity score).
LEARNED_POOL = 30
#: A supporting sentence the learned model scores below this is not quoted.
LEARNED_FLOOR = 0.1


def _names_page(phrase: str, page: Page) -> bool:
    """True if a "what is X" asks for the page's own term (its title, its slug or the
    abbreviation in its title), not for a narrower thing filed under one of its aliases
    ("what is NVLS" asks for NVLink SHARP, not for SHARP)."""
    asked = re.sub(r"[^a-z0-9]+", "", phrase.lower())
    names = {page.slug, page.title, *re.findall(r"\(([^)]+)\)", page.title),
             re.sub(r"\s*\([^)]*\)", "", page.title)}
    return bool(asked) and asked in {re.sub(r"[^a-z0-9]+", "", n.lower()) for n in names}


def _learned_order(draft: Draft, pool: list[Candidate], lead: Chunk | None,
                   faq: list[Chunk]) -> list[tuple[Chunk, float]]:
    """The candidates with the learned model's probability, best first ([] without one)."""
    if draft.learning is None or not pool:
        return []
    scored = with_choices(pool, lead, faq, LEARNED_POOL)
    scores = draft.learning.rank_sentences(draft, scored, lead, faq)
    if scores is None:
        return []
    order = [(c.sentence, p) for c, (_, p) in sorted(
        zip(scored, scores, strict=True), key=lambda t: -t[1][0])]
    asked = {s.id for s in faq}
    return [(s, p) for s, p in order if stands_alone(s.text) or s.id in asked]


def _learned_supporting(draft: Draft, ranked: list[tuple[Chunk, float]], quoted: list[Chunk],
                        limit: int) -> list[Chunk]:
    """Up to `limit` more sentences in the learned order, without repeats or table rows."""
    chosen: list[Chunk] = []
    taken = list(quoted)
    for sentence, p in ranked:
        if len(chosen) >= limit or p < LEARNED_FLOOR:
            break
        if sentence in taken or is_table_row(sentence.id) or "::facts" in sentence.id:
            continue
        if any(repeats(draft.retriever, sentence, t) for t in taken):
            continue
        chosen.append(sentence)
        taken.append(sentence)
    lead_slug = quoted[0].slug if quoted else draft.subject
    order = {slug: i for i, slug in enumerate(draft.focus)}
    chosen.sort(key=lambda s: (s.slug != lead_slug, order.get(s.slug, 99), s.position))
    return chosen


def _support_note(faq, quoted: list) -> str:
    """Return the note that support staff wrote the lead, or "" when the corpus did."""
    if faq is not None and faq.staff and quoted and quoted[0] in faq.sentences:
        return SUPPORT_NOTE
    return ""


def _with_note(text: str, note: str) -> str:
    return f"{text}\n\n*{note}*" if note else text


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
    if (sims.get(after.id, 0.0) < FOLLOW_FLOOR or is_table_row(after.id)
            or repeats(draft.retriever, after, lead, meaning=False)):
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
        if len(chosen) >= limit or c.score < best - SENTENCE_WINDOW - WINDOW_SLACK * (not chosen):
            break
        if c.similarity < SENTENCE_FLOOR or c.sentence in taken or is_table_row(c.sentence.id):
            continue
        if any(repeats(draft.retriever, c.sentence, t) for t in taken):
            continue
        chosen.append(c.sentence)
        taken.append(c.sentence)
    order = {slug: i for i, slug in enumerate(draft.focus)}
    chosen.sort(key=lambda s: (s.slug != lead_slug, order.get(s.slug, 99), s.position))
    return chosen


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
