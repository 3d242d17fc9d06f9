"""What the learned parts see: a question's cues and each candidate sentence's features.

Pure functions of the text, the draft and the rule pickers' choices, shared by training
(learned.py, over labelled questions) and answering, so that both compute the same numbers.
The rule pickers (leads.py) and the FAQ match (faq.py) are features here, not verdicts: the
model learns from labelled questions when to follow them and when a sentence that scores
better on the question's own rare words, figures and section answers better.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from functools import lru_cache
from typing import TYPE_CHECKING

from .intent import Intent, has_unit
from .polarity import POLAR_OPENING, first_generation, generations, qualifiers
from .text import numbers_in
from .words import stems_of

if TYPE_CHECKING:
    from .corpus import Chunk
    from .draft import Candidate, Draft

_TOKEN = re.compile(r"[a-z0-9]+")
_MISTAKE = re.compile(r"\bmistake\b", re.I)
_MONEY = re.compile(r"\$\s?\d")
_SECTIONS = ("Definition", "Summary", "FAQ", "How it works", "Why it matters")
#: Words that fit an intent's answer ("because" for why, "choose" for which ...).
_CUES = {
    Intent.CAUSE: re.compile(r"\b(because|since|so\s+that|due\s+to|which\s+means|as\s+a\s+"
                             r"result|causes?|leads?\s+to|prevents?|needs?|requires?)\b", re.I),
    Intent.CHOICE: re.compile(r"\b(choose|chooses|pick|prefer|better\s+(fit|choice)|best|"
                              r"suits?|worth|unless|rule\s+of\s+thumb)\b", re.I),
    Intent.COST: re.compile(r"\$\s?\d|\b(costs?|price[sd]?|expensive|cheaper|budget)\b|%", re.I),
    Intent.PROCEDURE: re.compile(r"^(set|enable|configure|map|mark|check|run|use|turn|assign|"
                                 r"verify|measure|apply|keep|confirm|disable|tune|match)\b", re.I),
    Intent.DRAWBACK: re.compile(r"\b(downside|drawback|risk\w*|but|however|cannot|only|limit\w*|"
                                r"problem\w*|overhead|harder|complex\w*|mistake|fail\w*|"
                                r"drops?|stall\w*|worse)\b", re.I),
    Intent.COMPARISON: re.compile(r"\b(while|whereas|but|unlike|rather\s+than|instead\s+of|"
                                  r"than|differs?|difference)\b", re.I),
}

SENTENCE_FEATURES = (
    "similarity", "score", "similarity_gap", "score_gap", "rank", "word_cover", "idf_cover",
    "rarest_shared", "bigrams", "numbers_shared", "question_numbers", "page_first",
    "page_second", "page_later", "subject_page", "lesson", *(f"section_{s}" for s in _SECTIONS),
    "rule_lead", "faq_lead", "faq_sentence", "faq_similarity", "first_in_passage", "has_number",
    "has_unit", "mistake", "opens_polar", "same_qualifiers", "qualifiers_shared", "has_money",
    "length", "intent_cue",
    "definition_asked", "question_terms", "negated",
    *(f"intent_{i.value}" for i in Intent), "memory_best", "memory_sum", "other_generation")
#: Features also given relative to the rest of the question's candidates: the gap to the
#: best candidate's value and the rank among them. Five-fold CV by question over golden + dev
#: (three shuffles): the top candidate holds a key fact 0.839 -> 0.850; more of them (units,
#: numbers, length, similarity) added nothing.
RELATIVE = ("word_cover", "idf_cover", "rarest_shared", "bigrams", "numbers_shared",
            "faq_similarity", "intent_cue", "qualifiers_shared")
_RELATIVE_AT = tuple(SENTENCE_FEATURES.index(name) for name in RELATIVE)
SENTENCE_FEATURES = (*SENTENCE_FEATURES, *(f"{name}_{how}" for name in RELATIVE
                                           for how in ("gap", "rank")))

_AUX = re.compile(r"^(is|are|was|were|does|do|did|can|could|should|would|will|has|have|had|"
                  r"must|may|might|isn'?t|isnt|aren'?t|doesn'?t|doesnt|don'?t|dont|can'?t|"
                  r"won'?t|shouldn'?t)\b", re.I)
_WH = re.compile(r"\b(what|how|why|which|when|where|who)\b", re.I)
QUESTION_CUES = ("starts_aux", "clause_aux", "last_clause_aux", "has_or", "question_mark",
                 "tag", "equals", "judgement", "starts_wh", "has_wh")


class Idf:
    """Inverse document frequency of word stems over the corpus's sentences."""

    def __init__(self, sentences: list[Chunk]):
        df: Counter[str] = Counter()
        for sentence in sentences:
            df.update(stems_of(sentence.text))
        n = max(len(sentences), 1)
        self.unseen = math.log(n + 1)
        self.weights = {w: math.log((n + 1) / (k + 0.5)) for w, k in df.items()}

    def __call__(self, word: str) -> float:
        return self.weights.get(word, self.unseen)


def question_cues(question: str) -> list[float]:
    """Cues of a yes/no question in its wording, whatever comes first ("we have 8 servers,
    so 64 ports. do we need a spine?", "leaf-spine and clos, same thing?")."""
    q = " ".join(question.lower().split())
    clauses = [c.strip() for c in re.split(r"[.!?;,]\s*|\s-\s", q) if c.strip()] or [q]
    return [float(bool(_AUX.match(q))), float(any(_AUX.match(c) for c in clauses)),
            float(bool(_AUX.match(clauses[-1]))), float(" or " in q), float(q.endswith("?")),
            float(bool(re.search(r"\b(right|yeah|correct|true|ok|okay|no)\?$", q))),
            float("=" in q),
            float(bool(re.search(r"\b(same thing|good idea|worth it|possible|a thing)\b", q))),
            float(bool(re.match(r"(what|how|why|which|when|where|who)\b", q))),
            float(bool(_WH.search(q)))]


def _bigrams(text: str) -> set[tuple[str, str]]:
    tokens = _TOKEN.findall(text.lower())
    return set(zip(tokens, tokens[1:], strict=False))


@lru_cache(maxsize=1 << 15)
def _sentence_side(text: str) -> tuple:
    """What a row needs of the sentence alone, worked out once per corpus sentence: the
    answer path scores the same few thousand sentences for every question."""
    numbers = frozenset(numbers_in(text))
    return (stems_of(text), numbers, frozenset(_bigrams(text)), qualifiers(text),
            float(bool(numbers)), float(bool(_MISTAKE.search(text))),
            float(bool(POLAR_OPENING.match(text))), float(bool(_MONEY.search(text))),
            min(len(text.split()), 60) / 60)


def _other_generation(asked: set[tuple[str, str]], text: str) -> float:
    """1.0 if the sentence is about another generation of a product the question names by
    generation: "NVLink 6 gives ... twice NVLink 5" for "how fast is nvlink 5?"."""
    if not asked:
        return 0.0
    first = first_generation(text)
    return float(first is not None and first not in asked
                 and any(family == first[0] for family, _ in asked))


@lru_cache(maxsize=1 << 16)
def _cued(intent: Intent, text: str) -> float:
    cue = _CUES.get(intent)
    return float(bool(cue.search(text))) if cue else 0.0


def sentence_features(draft: Draft, pool: list[Candidate], lead: Chunk | None,
                      faq_ids: list[str], faq_similarity: dict[str, float], idf: Idf,
                      memory: dict[str, tuple[float, float]] | None = None
                      ) -> list[list[float]]:
    """One row of SENTENCE_FEATURES per candidate, in the pool's order (`memory`: per
    sentence id, the similarity of the nearest labelled question it answered and the sum
    over those that it answered, of the question's labelled neighbours)."""
    memory = memory or {}
    if not pool:
        return []
    question = draft.question
    q_stems = stems_of(question)
    q_total = math.fsum(idf(w) for w in q_stems) or 1.0  # fsum: the same in any set order
    q_bigrams = _bigrams(question)
    q_numbers = set(numbers_in(question))
    q_quals = qualifiers(question)
    q_gens = generations(question)
    max_sim = max(c.similarity for c in pool)
    max_score = pool[0].score
    focus = draft.focus
    intent = draft.shape.intent
    head = [float(bool(draft.terms)), float(draft.shape.negated),
            *(float(intent is i) for i in Intent)]
    rows = []
    words = draft.words
    units = draft.shape.units
    for i, c in enumerate(pool):
        s = c.sentence
        text = s.text
        stems, numbers, bigrams, quals, has_number, mistake, polar, money, length = (
            _sentence_side(text))
        shared = q_stems & stems
        rank = focus.index(s.slug) if s.slug in focus else 4
        rows.append([
            c.similarity, c.score, c.similarity - max_sim, c.score - max_score, 1.0 / (i + 1),
            len(words & stems) / len(words) if words else 1.0,
            math.fsum(idf(w) for w in shared) / q_total,
            max((idf(w) for w in shared), default=0.0) / idf.unseen,
            float(len(q_bigrams & bigrams)),
            len(q_numbers & numbers) / len(q_numbers) if q_numbers else 0.0,
            float(bool(q_numbers)), float(rank == 0), float(rank == 1), float(rank >= 2),
            float(s.slug == draft.subject), float(s.kind == "lesson"),
            *(float(s.section == name) for name in _SECTIONS),
            float(lead is not None and s.id == lead.id),
            float(bool(faq_ids) and s.id == faq_ids[0]), float(s.id in faq_ids),
            faq_similarity.get(s.chunk_id, 0.0) if s.section == "FAQ" else 0.0,
            float(s.position == 0 or s.id.endswith("::s0")), has_number,
            float(has_unit(text, units)) if units else 0.0,
            mistake, polar, float(q_quals <= quals),
            len(q_quals & quals) / len(q_quals) if q_quals else 0.0,
            money, length, _cued(intent, text),
            float(intent is Intent.DEFINITION and s.section == "Definition"), *head,
            *memory.get(s.id, (0.0, 0.0)), _other_generation(q_gens, text)])
    return _with_relative(rows)


def _with_relative(rows: list[list[float]]) -> list[list[float]]:
    """Append each RELATIVE feature's gap to the best candidate and its rank (1 for the best,
    ties in the pool's order)."""
    extra: list[list[float]] = [[] for _ in rows]
    for j in _RELATIVE_AT:
        values = [row[j] for row in rows]
        best = max(values)
        order = sorted(range(len(rows)), key=lambda i: -values[i])
        for place, i in enumerate(order):
            extra[i] += [values[i] - best, 1.0 / (1 + place)]
    return [row + more for row, more in zip(rows, extra, strict=True)]
