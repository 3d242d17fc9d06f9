"""The stance of a sentence towards a yes/no question: does it say Yes or No to it?

A learned reading, for the sentence the answer leads with when no rule, authored FAQ answer
or labelled neighbour has settled the word ("is a passive dac basically zero power?" led by
"A passive DAC cable draws essentially no power, ..."). Gradient-boosted trees over a few
features of the question and the sentence (negations on each side and whether they agree,
the question's words inside a denied span, hedges, a named mistake, how the question is
asked, the embedding similarity), fitted on the corpus's FAQ questions with their authored
Yes or No (the first answer sentence without its opener) and on each labelled yes/no
question with the sentence of its pages that holds a key fact and is closest to it.

A stance alone is not trusted with the word: `learned.Learned.stance` lends it only when the
trees are STANCE_AT sure and the nearest labelled yes/no question (at least STANCE_NEAR
similar) was answered the same word, and `verdict.stood` asks it only of a first message
with no turning word, led by a sentence that names no mistake and opens with no word of its
own. Prototyped on evals/holdout.py's held-out answers, the trees alone at 0.97 filled 42
unanswered questions right and 3 wrong; with the neighbour's agreement, 33 right and 0
wrong at 0.95. As built, held out: dev yes/no 0.704 -> 0.714 and golden 0.697 -> 0.717,
wrong polarity 0 in each.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .polarity import MISTAKE, NEGATION, NEGATION_REACH, ONLY, framed_alike, turning_words
from .words import content_stems, stems_of

if TYPE_CHECKING:
    from .chain import Assistant
    from .corpus import Chunk
    from .trees import Trees

#: How sure the trees must be of Yes (or of No: 1 - STANCE_AT).
#: Held out (evals/holdout.py, with the gates of verdict.stood): 0.8 gave dev +12 words and
#: golden +2 with 0 wrong; 0.85 without the gates 1 wrong, 0.8 without them 4 wrong.
STANCE_AT = 0.8
#: How similar the nearest labelled yes/no question must be to vouch for the word.
STANCE_NEAR = 0.7
#: The booster's shape (prototyped with LightGBM's 200 rounds of 8 leaves at 0.05).
STANCE_TREES = {"max_depth": 3, "max_iter": 200, "learning_rate": 0.05, "min_samples_leaf": 10}

_HEDGE = re.compile(r"\b(but|although|though|as\s+long\s+as|only\s+if|unless|depends|usually|"
                    r"mostly|often|can\s+also|may|might|typically|some)\b", re.I)
_MAIN = re.compile(r"[,;:]|\s(?:because|while|but|although|so|since|as)\s", re.I)
_NEED = re.compile(r"\b(need\w*|requir\w*|must|have\s+to)\b", re.I)
_SAME = re.compile(r"\b(same|differen\w*|identical)\b", re.I)
_CHECKS = re.compile(r"\b(right|correct|true|yeah|ok|okay|fine)\s*\?", re.I)
_ABSENCE = re.compile(r"\b(zero|without|no|none|skip\w*|avoid\w*|pointless|still|too|also|even)\b",
                      re.I)
_AUXILIARIES = ("can", "does", "do", "is", "are", "will", "should", "would", "could", "isnt",
                "doesnt")

STANCE_FEATURES = (
    "negations_disagree", "main_clause_negations_disagree", "question_absence_word",
    "question_words_shared", "sentence_negations", "question_turning_words",
    "main_clause_negations", "question_words_denied", "names_a_mistake", "sentence_only",
    "question_only", "hedges", "question_needs", "sentence_needs", "question_same",
    "framed_alike", "similarity", "question_number", "sentence_number", "question_checks",
    "question_length", "sentence_length", *(f"opens_{a}" for a in _AUXILIARIES))


def stance_features(question: str, sentence: str, similarity: float) -> list[float]:
    """The features of a question and a sentence (without any Yes/No opener of its own)."""
    asked = content_stems(question)
    negations = len(NEGATION.findall(sentence))
    turned = len(turning_words(question))
    main = len(NEGATION.findall(_MAIN.split(sentence, maxsplit=1)[0]))
    denied = sum(len(asked & stems_of(" ".join(sentence[m.end():].split()[:NEGATION_REACH])))
                 for m in NEGATION.finditer(sentence))
    first = question.strip().lower().split()[:1]
    return [
        float((turned > 0) != (negations > 0)), float((turned > 0) != (main > 0)),
        float(bool(_ABSENCE.search(question))),
        len(asked & content_stems(sentence)) / (len(asked) or 1), float(negations),
        float(turned), float(main), float(denied), float(bool(MISTAKE.search(sentence))),
        float(bool(ONLY.search(sentence))), float(bool(ONLY.search(question))),
        float(len(_HEDGE.findall(sentence))), float(bool(_NEED.search(question))),
        float(bool(_NEED.search(sentence))), float(bool(_SAME.search(question))),
        float(framed_alike(question, sentence)), float(similarity),
        float(bool(re.search(r"\d", question))), float(bool(re.search(r"\d", sentence))),
        float(bool(_CHECKS.search(question))), float(len(question.split())),
        float(len(sentence.split())), *(float(first == [a]) for a in _AUXILIARIES)]


def _similarity(retriever: Any, sentence: Chunk, vector: Any) -> float:
    """The embedding similarity of an indexed sentence to a question vector."""
    return next((sim for s, sim in retriever.sentences_for([sentence.slug], vector)
                 if s.id == sentence.id), 0.0)


def stance_of(trees: Trees, question: str, sentence: Chunk, retriever: Any,
              vector: Any) -> float:
    """The trees' probability that the sentence says Yes to the question."""
    from .polarity import without_opening

    row = stance_features(question, without_opening(sentence.text),
                          _similarity(retriever, sentence, vector))
    return float(trees.proba([row])[0])


def stance_rows(assistant: Assistant, files: tuple[Path, ...]
                ) -> tuple[list[list[float]], list[int]]:
    """Feature rows labelled 1 for Yes and 0 for No: every corpus FAQ whose answer opens
    with a plain (unhedged) Yes or No, with its first answer sentence; every labelled yes/no
    first message, with the key-fact sentence of its pages closest to it."""
    from .evaluate import nugget_hits
    from .faq import HEDGED
    from .polarity import YES_NO_OPENING, without_opening
    from .rerank import labelled_items

    retriever, index = assistant.retriever, assistant.index

    def vector(text: str) -> Any:
        return index.embed_query(retriever.spelled_out(text, retriever.terms.find(text)))

    rows: list[list[float]] = []
    labels: list[int] = []

    def add(question: str, sentence: Chunk, qv: Any, word: str) -> None:
        rows.append(stance_features(question, without_opening(sentence.text),
                                    _similarity(retriever, sentence, qv)))
        labels.append(int(word.lower() == "yes"))

    for page in assistant.corpus:
        for i, entry in enumerate(page.faq):
            first = retriever.sentences_of_chunk(f"{page.slug}::faq::{i}")[:1]
            opening = YES_NO_OPENING.match(entry.a)
            if first and opening and not HEDGED.match(entry.a):
                add(entry.q, first[0], vector(entry.q), opening.group(1))
    for item in labelled_items(files):
        if not item.expect.yes_no or item.history or not item.expect.nuggets:
            continue
        qv = vector(item.question)
        held = [(sim, s) for s, sim in retriever.sentences_for(list(item.expect.sources), qv)
                if any(nugget_hits(item.expect.nuggets, s.text))]
        if held:
            add(item.question, max(held, key=lambda h: h[0])[1], qv, item.expect.yes_no)
    assert not rows or len(rows[0]) == len(STANCE_FEATURES)
    return rows, labels
