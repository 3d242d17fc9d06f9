"""The learned parts of answering, behind one small interface (`Learning`).

Three models, each fitted on labelled questions (the golden set and the blind-written dev
split, never the sealed test split) and the corpus's own FAQ pairs, on CPU, in about a minute:

- **pages** (rerank.py): which retrieved page answers, from the retriever's scores and a
  memory of labelled questions;
- **question kind**: whether a message asks a yes/no question, from its embedding and a few
  wording cues, so that "leaf-spine and clos, same thing?" or a question after its context
  ("we have 64 ports. do we need a spine?") is answered yes or no like "is X Y?";
- **sentences**: which candidate sentence holds what was asked (gradient-boosted trees over
  features.SENTENCE_FEATURES, labelled by the key facts of each labelled question). The rule
  pickers' choices are among the features, so the model learns when to follow them.
- **FAQ pairs**: whether a corpus FAQ question asks the visitor's yes/no question, so that its
  authored Yes or No answers it however it is worded (gradient-boosted trees over
  faq.PAIR_FEATURES, labelled by each labelled yes/no question's word and pages);
- **inert turning words** (faq.inert_turns): which turning words ("more", "lossless"), present
  in one of a visitor's question and an FAQ question only, never turned the FAQ's Yes or No
  on the labelled questions the pair model trusts (cross-fitted), so the pair matcher may
  lend the FAQ's word across them; negations never become inert (polarity.NEGATING).

Trained on the first start and cached under the data directory, keyed by LEARNED_VERSION,
the labelled files, the corpus, the embedding model and the retrieval mode; a second start
loads them. The trees are stored as arrays and evaluated here (no pickle is ever loaded).

Example:
    >>> learned = Learned.load_or_train(assistant)          # trains once, then loads
    >>> learned.yes_no("leaf-spine and clos, same thing?", vector)
    0.93
"""

from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from .features import QUESTION_CUES, SENTENCE_FEATURES, Idf, question_cues, sentence_features
from .rerank import LABELLED, RERANKER_VERSION, Reranker, cache_key, labelled_items
from .trees import SENTENCE_TREES, Trees

if TYPE_CHECKING:

    from .chain import Assistant
    from .corpus import Chunk
    from .draft import Candidate, Draft
    from .faq import FAQMatch, Turn
    from .retrieve import Retrieval

log = logging.getLogger(__name__)

LEARNED_VERSION = "25"
#: Candidates per question the sentence model scores (compose.LEARNED_POOL).
POOL = 30
#: A message at or above this probability asks a yes/no question; KIND_C is the detector's
#: inverse regularisation. Five-fold CV over golden + dev (6,123 questions), C 2 -> 8: labelled
#: yes/no questions the rules or the detector miss 70 -> 59, unlabelled ones taken for yes/no
#: 5.3% -> 5.2%; held out (evals/holdout.py) dev yes/no 0.7388 -> 0.7433, wrong polarity
#: unchanged. A threshold of 0.4 gained more (0.7461) but gave a wrong word ("is all-to-all
#: rougher on the fabric than allreduce?" led by an MoE sizing mistake's No).
YES_NO_AT = 0.5
KIND_C = 8.0
CUE_WEIGHT = 3.0  # the wording cues against the 384 embedding dimensions
#: A first message this similar to a labelled out-of-scope question, and DECLINED_MARGIN
#: closer to it than to the corpus, is declined (`Learned.declined_before`). Leave-one-out
#: over golden + dev's first messages: declined 121 -> 153 of 168 out-of-scope questions,
#: 0 of 2,500 in-scope ones; a margin of 0 declined in-scope ones at 0.55 and with the raw
#: embedding.
DECLINED_AT = 0.6
DECLINED_MARGIN = 0.1
#: A labelled yes/no question this similar lends its word (`Learned.polar_memory`), unless
#: one this similar says the other. Chosen on held-out dev (evals/holdout.py; wrong polarity
#: 0 in each): 0.92 / 0.85 yes/no 0.580, 0.88 / 0.85 0.606, 0.84 / 0.80 0.631, 0.80 / 0.75
#: 0.636; 0.75 / 0.70 gave 0.640 with three wrong words ("if our ib subnet manager crashes
#: does traffic keep flowing?" took "... dies, does traffic stop?"'s No), so 0.84 keeps a margin.
POLAR_AT = 0.84
POLAR_DOUBT = 0.80


class Learning(Protocol):
    """What the answer path asks of the learned parts."""

    def rank_pages(self, retrieval: Retrieval) -> Retrieval:
        """Return the retrieval with its pages in the learned order."""

    def yes_no(self, question: str, vector: Any) -> float | None:
        """Probability that a message asks a yes/no question (None: no opinion)."""

    def rank_sentences(self, draft: Draft, pool: list[Candidate], lead: Chunk | None,
                       faq: list[Chunk]) -> list[tuple[float, float]] | None:
        """Per candidate, (its place in the learned order, higher first; the probability
        that it holds what was asked). None: no opinion."""

    def polar_faq(self, draft: Draft) -> FAQMatch | None:
        """The FAQ entry whose Yes or No answers a yes/no question (None: no opinion)."""

    def lends_lead(self, draft: Draft, lead: Chunk) -> bool:
        """Whether the FAQ answer the sentence ranker leads with keeps its Yes or No."""

    def polar_memory(self, draft: Draft) -> tuple[str, frozenset[str]] | None:
        """The Yes or No of a labelled question asked the same way, and the sentences that
        answered it (None: no opinion)."""

    def declined_before(self, vector: Any, relevance: float) -> bool:
        """True if a first message is closer to a labelled out-of-scope question than to
        the corpus (`relevance`: how close the corpus comes)."""


class NoLearning:
    """The rule path only: every learned part keeps the rules' order (a fake for tests)."""

    def rank_pages(self, retrieval: Retrieval) -> Retrieval:
        """Keep the retriever's order."""
        return retrieval

    def yes_no(self, question: str, vector: Any) -> float | None:
        """No opinion: the wording rules decide."""
        return None

    def rank_sentences(self, draft: Draft, pool: list[Candidate], lead: Chunk | None,
                       faq: list[Chunk]) -> list[tuple[float, float]] | None:
        """No opinion: the rule pickers decide."""
        return None

    def polar_faq(self, draft: Draft) -> FAQMatch | None:
        """No opinion: the rules' FAQ matches alone."""
        return None

    def lends_lead(self, draft: Draft, lead: Chunk) -> bool:
        """No opinion: the rules' reading of the lead alone."""
        return False

    def polar_memory(self, draft: Draft) -> tuple[str, frozenset[str]] | None:
        """No opinion: the rules' readings alone."""
        return None

    def declined_before(self, vector: Any, relevance: float) -> bool:
        """No opinion: the relevance floor alone judges scope."""
        return False


@dataclass(frozen=True)
class Linear:
    """A logistic model: weights, bias."""

    weights: list[float]
    bias: float

    def proba(self, row: Any) -> float:
        """Probability of the positive class for one feature row."""
        import numpy as np

        z = float(np.dot(self.weights, row)) + self.bias
        return float(1.0 / (1.0 + np.exp(-z)))


class Learned:
    """The fitted parts; each may be None (that part then keeps the rules' choice)."""

    def __init__(self, pages: Reranker | None = None, kind: Linear | None = None,
                 sentences: Trees | None = None, idf: Idf | None = None,
                 faq_questions: Any = None, pairs: Trees | None = None,
                 order: Trees | None = None):
        self.pages, self.kind, self.sentences, self.idf = pages, kind, sentences, idf
        self._faq_questions = faq_questions
        self.pairs = pairs
        self.order = order  # LambdaRank trees: which candidate goes first (None: by proba)
        #: per labelled question (normalised words), the sentences of its pages that hold one
        #: of its key facts: a new question's labelled neighbours say which sentences answered
        self.answered: dict[str, frozenset[str]] = {}
        #: per labelled yes/no first message (normalised words): its Yes or No and its words
        self.polar: dict[str, tuple[str, str]] = {}
        self.declined: Any = None  # unit vectors of the labelled out-of-scope questions
        #: signed turning words that turned no labelled question (inert_turns)
        self.inert: frozenset[str] = frozenset()

    def rank_pages(self, retrieval: Retrieval) -> Retrieval:
        """Return the retrieval with its pages in the learned order."""
        return self.pages.rerank(retrieval) if self.pages is not None else retrieval

    def yes_no(self, question: str, vector: Any) -> float | None:
        """Probability that a message asks a yes/no question."""
        if self.kind is None or vector is None:
            return None
        return self.kind.proba(question_row(question, vector))

    def rank_sentences(self, draft: Draft, pool: list[Candidate], lead: Chunk | None,
                       faq: list[Chunk]) -> list[tuple[float, float]] | None:
        """Per candidate, (its place in the learned order; the probability that it holds
        what was asked): the ranker orders, the classifier's probability gates what is
        quoted (compose.LEARNED_FLOOR, verdict.DENY_AT)."""
        if self.sentences is None or self.idf is None or not pool:
            return None
        sims = {}
        if self._faq_questions is not None:
            sims = {q.chunk_id: s for q, s in self._faq_questions(draft.retrieval.vector,
                                                                   limit=60)}
        rows = sentence_features(draft, pool, lead, [s.id for s in faq], sims, self.idf,
                                 self.memory(draft))
        proba = self.sentences.proba(rows)
        order = self.order.proba(rows) if self.order is not None else proba
        return list(zip(order, proba, strict=True))

    def memory(self, draft: Draft) -> dict[str, tuple[float, float]]:
        """Per sentence id, what the question's labelled neighbours (the page ranking's
        memory) say of it: the similarity of the nearest one it answered, and the sum over
        those it answered. Five-fold CV by question over golden + dev (three shuffles), with
        the memory of the training folds only: top candidate holds a key fact 0.870 ->
        0.907."""
        if self.pages is None or not self.answered:
            return {}
        memory = self.pages.memory
        out: dict[str, tuple[float, float]] = {}
        for i, sim in memory.neighbours(draft.retrieval.vector, draft.retrieval.query):
            for sentence in self.answered.get(memory.texts[i], ()):
                best, total = out.get(sentence, (0.0, 0.0))
                out[sentence] = (max(best, sim), total + sim)
        return out

    def polar_memory(self, draft: Draft) -> tuple[str, frozenset[str]] | None:
        """The Yes or No of the nearest labelled yes/no question, when it is at least
        POLAR_AT similar, asked the same way round with the same qualifiers, and no labelled
        question at POLAR_DOUBT or more says the other word; with the sentences that held its
        key facts. The judgement-word, qualifier and turning checks made the lower
        thresholds safe: leave-one-out over golden + dev's 927 yes/no first messages before
        them gave 4 wrong words at 0.85."""
        from .polarity import judged_words, same_qualifiers, turned_alike

        if self.pages is None or not self.polar:
            return None
        memory = self.pages.memory
        near = [(self.polar[memory.texts[i]], sim) for i, sim in memory.neighbours(
            draft.retrieval.vector, draft.retrieval.query) if memory.texts[i] in self.polar]
        if not near or near[0][1] < POLAR_AT:
            return None
        word = near[0][0][0]
        if any(w != word for (w, _), sim in near if sim >= POLAR_DOUBT):
            return None
        q = draft.question
        # the nearest one asked the same way: a neighbour judging "good enough" does not
        # answer "enough", but one a little farther that asks "enough" does
        text = next((t for (_, t), sim in near if sim >= POLAR_AT and turned_alike(q, t)
                     and same_qualifiers(q, t) and same_qualifiers(t, q)
                     and judged_words(q) == judged_words(t)), None)
        if text is None:
            return None
        from .rerank import _norm

        return word, self.answered.get(_norm(text), frozenset())

    def polar_faq(self, draft: Draft) -> FAQMatch | None:
        """The FAQ entry the pair model says asks this yes/no question, or None."""
        from .faq import learned_neighbour

        return learned_neighbour(draft, self)

    def lends_lead(self, draft: Draft, lead: Chunk) -> bool:
        """Whether the FAQ answer the ranker leads with keeps its Yes or No (faq.pair_lends)."""
        from .faq import pair_lends

        return pair_lends(draft, self, lead)

    def declined_before(self, vector: Any, relevance: float) -> bool:
        """True if the message is at least DECLINED_AT similar to a labelled question that
        was to be declined, and that much (DECLINED_MARGIN) closer to it than the corpus
        comes: "is the rtx 4090 good for 4k gaming?" after "is an rtx 4090 good for 4k
        gaming?", "does hpe slingshot do adaptive routing?" after three Slingshot questions."""
        import numpy as np

        if self.declined is None or vector is None or not len(self.declined):
            return False
        v = np.asarray(vector, dtype=np.float32)
        nearest = float(np.max(self.declined @ (v / (np.linalg.norm(v) or 1.0))))
        return nearest >= DECLINED_AT and nearest >= relevance + DECLINED_MARGIN

    # -- training ----------------------------------------------------------------------------

    @classmethod
    def load_or_train(cls, assistant: Assistant, files: tuple[Path, ...] = LABELLED) -> Learned:
        """Load the cached parts for these labelled files, corpus and model, or train them."""
        files = tuple(Path(f) for f in files if Path(f).is_file())
        retriever = assistant.retriever
        learned = cls(idf=Idf(retriever.sentences), faq_questions=retriever.faq_questions)
        learned.pages = Reranker.load_or_train(assistant, files)
        if not files:
            return learned
        assistant.learning = learned  # the sentence rows are drawn with pages and kinds on,
        # so a new page ranking (RERANKER_VERSION) retrains these parts too
        path = cache_key(assistant, files, "learned", f"{LEARNED_VERSION}-{RERANKER_VERSION}")
        data = _read(path)
        if data is None:
            data = {"version": LEARNED_VERSION, "kind": _fit_kind(assistant, files),
                    "answered": answered_sentences(assistant, files),
                    "polar": polar_questions(files)}
            learned.kind = Linear(**data["kind"])
            learned.answered = {k: frozenset(v) for k, v in data["answered"].items()}
            rows, labels, groups = sentence_rows(assistant, files, learned)
            data["sentences"] = (Trees.fit(rows, labels, shape=SENTENCE_TREES).to_json()
                                 if len(set(labels)) > 1 else None)
            data["order"] = (Trees.fit_ranker(rows, labels, groups).to_json()
                             if len(set(labels)) > 1 else None)
            rows, labels, turns = pair_rows(assistant, files)
            data["pairs"] = Trees.fit(rows, labels).to_json() if len(set(labels)) > 1 \
                else None
            from .faq import inert_turns

            data["inert"] = inert_turns(rows, labels, turns)
            data["declined"] = declined_vectors(assistant, files)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(data))
        learned.kind = Linear(**data["kind"])
        learned.sentences = Trees.from_json(data["sentences"]) if data["sentences"] else None
        learned.pairs = Trees.from_json(data["pairs"]) if data.get("pairs") else None
        learned.order = Trees.from_json(data["order"]) if data.get("order") else None
        learned.answered = {k: frozenset(v) for k, v in (data.get("answered") or {}).items()}
        learned.polar = {k: (v[0], v[1]) for k, v in (data.get("polar") or {}).items()}
        learned.declined = _unit_rows(data.get("declined") or [])
        learned.inert = frozenset(data.get("inert") or ())
        return learned


def declined_vectors(assistant: Assistant, files: tuple[Path, ...]) -> list[list[float]]:
    """The embeddings (as the retriever makes them) of the labelled first messages that are
    to be declined, rounded for the cache."""
    from .evaluate import load_golden

    retriever, index = assistant.retriever, assistant.index
    texts = sorted({item.question for f in files for item in load_golden(f)
                    if item.expect.refuse and not item.history})
    return [[round(float(x), 5) for x in index.embed_query(
        retriever.spelled_out(t, retriever.terms.find(t)))] for t in texts]


def _unit_rows(rows: list[list[float]]) -> Any:
    import numpy as np

    if not rows:
        return None
    m = np.asarray(rows, dtype=np.float32)
    return m / np.maximum(np.linalg.norm(m, axis=1, keepdims=True), 1e-9)


def question_row(question: str, vector: Any) -> list[float]:
    """The question-kind model's input: the embedding, then the weighted wording cues."""
    return [*map(float, vector), *(CUE_WEIGHT * c for c in question_cues(question))]


def _read(path: Path) -> dict[str, Any] | None:
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text())
        if data.get("version") == LEARNED_VERSION and len(data["kind"]["weights"]) > len(
                QUESTION_CUES):
            return data
    except (ValueError, KeyError, TypeError):
        pass
    log.warning("the cached learned parts %s are unreadable; training again", path)
    return None


def _fit_kind(assistant: Assistant, files: tuple[Path, ...]) -> dict[str, Any]:
    """Fit the yes/no detector on labelled questions and the corpus's FAQ questions."""

    import numpy as np
    from sklearn.linear_model import LogisticRegression

    from .evaluate import load_golden

    texts, labels = [], []
    for f in files:
        for item in load_golden(f):
            texts.append(item.question)
            labels.append(int(item.expect.yes_no is not None))
    for page in assistant.corpus:
        for entry in page.faq:
            texts.append(entry.q)
            labels.append(int(bool(re.match(r"(yes|no|it\s+depends)\b", entry.a, re.I))))
    retriever, index = assistant.retriever, assistant.index
    rows = [question_row(t, index.embed_query(retriever.spelled_out(t, retriever.terms.find(t))))
            for t in texts]
    model = LogisticRegression(C=KIND_C, max_iter=5000, random_state=0)
    model.fit(np.asarray(rows), np.asarray(labels))
    return {"weights": [float(w) for w in model.coef_[0]], "bias": float(model.intercept_[0])}


def _drafts(assistant: Assistant, files: tuple[Path, ...], wanted: Any) -> Any:
    """Each labelled question `wanted(item)` keeps, with the draft the answer path makes of
    it (questions it answers without retrieving, such as calculations, are left out)."""
    for item in labelled_items(files):
        if not wanted(item):
            continue
        turn = assistant.turn(item.question, list(item.history), item.page)
        if turn.question is None or turn.retrieval is None or not turn.retrieval.hits:
            continue
        yield item, assistant.draft(turn.question, turn.retrieval)


def answered_sentences(assistant: Assistant, files: tuple[Path, ...]) -> dict[str, list[str]]:
    """Per labelled question with key facts (its words normalised as the page ranking's
    memory keeps them), the sentences of its answering pages that hold one of them."""
    from .evaluate import nugget_hits
    from .rerank import _norm

    out: dict[str, set[str]] = {}
    for item in labelled_items(files):
        if not item.expect.nuggets:
            continue
        found = out.setdefault(_norm(item.question), set())
        for slug in item.expect.sources:
            found.update(s.id for s in assistant.retriever.sentences_of_page(slug)
                         if any(nugget_hits(item.expect.nuggets, s.text)))
    return {k: sorted(v) for k, v in out.items() if v}


def polar_questions(files: tuple[Path, ...]) -> dict[str, list[str]]:
    """Per labelled yes/no first message (normalised words): its Yes or No and its words. A
    wording labelled both ways is left out."""
    from .rerank import _norm

    out: dict[str, list[str]] = {}
    clash: set[str] = set()
    for item in labelled_items(files):
        if item.expect.yes_no and not item.history:
            key = _norm(item.question)
            if key in out and out[key][0] != item.expect.yes_no:
                clash.add(key)
            out.setdefault(key, [item.expect.yes_no, item.question])
    return {k: v for k, v in out.items() if k not in clash}


def sentence_rows(assistant: Assistant, files: tuple[Path, ...], learned: Learned
                  ) -> tuple[list[list[float]], list[int], list[int]]:
    """Feature rows of the candidates of every labelled question with key facts, labelled 1
    when the sentence holds one of them, and each row's question (its number)."""
    from .compose import rule_choices
    from .draft import candidates, with_choices
    from .evaluate import nugget_hits

    rows: list[list[float]] = []
    labels: list[int] = []
    groups: list[int] = []
    for n, (item, draft) in enumerate(_drafts(assistant, files,
                                              lambda i: bool(i.expect.nuggets))):
        pool = candidates(draft)
        lead, _faq, faq_sentences = rule_choices(draft, pool)
        pool = with_choices(pool, lead, faq_sentences, POOL)
        sims = {q.chunk_id: s for q, s in assistant.retriever.faq_questions(
            draft.retrieval.vector, limit=60)}
        rows += sentence_features(draft, pool, lead, [s.id for s in faq_sentences], sims,
                                  learned.idf, learned.memory(draft))
        labels += [int(any(nugget_hits(item.expect.nuggets, c.sentence.text))) for c in pool]
        groups += [n] * len(pool)
    assert not rows or len(rows[0]) == len(SENTENCE_FEATURES)
    return rows, labels, groups


def pair_rows(assistant: Assistant, files: tuple[Path, ...]
              ) -> tuple[list[list[float]], list[int], list[Turn]]:
    """Feature rows of the FAQ questions nearest each labelled yes/no question, labelled 1
    when the FAQ is on one of the pages that answer it and its Yes or No is the right one;
    with each row's Turn."""
    from .faq import HEDGED, PAIR_FEATURES, Turn, polar_pairs
    from .intent import Intent
    from .polarity import turn_difference

    rows: list[list[float]] = []
    labels: list[int] = []
    turns: list[Turn] = []
    for n, (item, draft) in enumerate(_drafts(assistant, files,
                                              lambda i: bool(i.expect.yes_no))):
        if draft.shape.intent is not Intent.YES_NO:
            continue
        for question, _sim, sentences, row in polar_pairs(draft):
            word = "yes" if sentences[0].text[:3].lower() == "yes" else "no"
            rows.append(row)
            labels.append(int(question.slug in item.expect.sources
                              and word == item.expect.yes_no))
            turns.append(Turn(n, turn_difference(draft.question, question.text),
                              word == item.expect.yes_no,
                              bool(HEDGED.match(sentences[0].text))))
    assert not rows or len(rows[0]) == len(PAIR_FEATURES)
    return rows, labels, turns
