"""A learned page ranking: what visitors' labelled questions teach about which page answers.

The hybrid retriever ranks pages with hand-set weights (RRF, term lifts, FAQ lifts). On
questions written by strangers, those weights put the right page first less often than on
the questions they were tuned on. The `Reranker` learns instead, from questions labelled with
the page that answers them (the golden set and the blind-written dev split; never the sealed
test split):

- a memory of those questions (their vectors and answering pages): a new question close in
  meaning to labelled ones votes for their pages, the way a visitor's "IB vs ethernet for
  training?" resembles questions already answered by infiniband-vs-roce;
- LambdaRank boosted trees over a few features of each retrieved page (its fused score and rank,
  similarity, term match, the memory's vote, the nearest FAQ question of the page), fitted
  on how the retriever ranked the labelled questions.

A neighbour with the very same text as the question is left out: repeats are the answer
cache's job, and leaving it out keeps golden and dev figures honest (leave-one-out).

Trained on the first start (about half a minute on 2 cores) and cached under the data
directory with a key made of RERANKER_VERSION, the labelled files, the corpus and the
embedding model, so nothing retrains unless one of them changed.

Example:
    >>> reranker = Reranker.load_or_train(assistant, [GOLDEN, DEV])
    >>> retrieval = reranker.rerank(retrieval)
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    import numpy as np

    from .chain import Assistant
    from .retrieve import Retrieval

from .trees import Trees

log = logging.getLogger(__name__)

RRF_K = 60  # retrieve.RRF_K

RERANKER_VERSION = "5"
#: Labelled questions nearest in meaning that vote, and the similarity below which none does.
NEIGHBOURS = 8
VOTE_FLOOR = 0.55
#: The trees: LambdaRank (LightGBM), which learns which of one question's pages goes first
#: rather than each page's probability alone. Five-fold CV by round (whole writing rounds
#: held out, 5,052 labelled questions): hit@1 0.9394 with the classifier trees this replaced
#: (depth 3, 200 rounds), 0.9433 with these; golden with the trees fitted on dev alone
#: 0.894 -> 0.909. The RANK_TREES shape of the sentence order scored 0.9414 and memorised
#: golden (0.979 in-sample): small trees generalize better here.
PAGE_TREES: dict[str, Any] = {"n_estimators": 200, "learning_rate": 0.05, "num_leaves": 8,
                              "max_depth": 3, "min_child_samples": 40}
FEATURES = ("fused", "lift", "similarity", "similarity_gap", "similarity_rank", "vote",
            "nearest", "faq_similarity", "lesson")
SEALED = "test.jsonl"
_EVALS = Path(__file__).resolve().parent.parent / "evals"
#: The labelled questions learned from: golden and the blind-written dev split (not test).
LABELLED = (_EVALS / "golden.jsonl", _EVALS / "dev.jsonl")


class PageScorer(Protocol):
    """What the chain needs from a learned ranking."""

    def rerank(self, retrieval: Retrieval) -> Retrieval:
        """Return the retrieval with its pages in the learned order."""


@dataclass(frozen=True)
class Labelled:
    """One labelled question: its text, the pages that answer it, what retrieval found."""

    text: str
    sources: tuple[str, ...]
    retrieval: Retrieval


def _norm(text: str) -> str:
    return " ".join(re.findall(r"[a-z0-9]+", text.lower()))


class Memory:
    """The labelled questions' vectors and pages; a new question's neighbours vote."""

    def __init__(self, texts: list[str], slugs: list[str], vectors: np.ndarray):
        self.texts = [_norm(t) for t in texts]
        self.slugs = slugs
        self.vectors = vectors
        self._last: tuple[Any, list[tuple[int, float]]] | None = None

    def neighbours(self, vector: Any, text: str) -> list[tuple[int, float]]:
        """The labelled questions nearest in meaning (index, similarity), best first: at most
        NEIGHBOURS, none under VOTE_FLOOR, the question itself (the same words) left out.
        The last question's are remembered: the page and the sentence rankings both ask."""
        import numpy as np

        key = (np.asarray(vector, dtype=np.float32).tobytes(), text)
        known = self._last
        if known is not None and known[0] == key:
            return known[1]
        out: list[tuple[int, float]] = []
        if len(self.slugs):
            sims = self.vectors @ np.asarray(vector, dtype=np.float32)
            same = _norm(text)
            for i in np.argsort(-sims):
                sim = float(sims[int(i)])
                if sim < VOTE_FLOOR or len(out) >= NEIGHBOURS:
                    break
                if self.texts[int(i)] != same:  # the question itself: a repeat, not evidence
                    out.append((int(i), sim))
        self._last = (key, out)
        return out

    def votes(self, vector: Any, text: str) -> tuple[dict[str, float], dict[str, float]]:
        """Return (summed similarity of the neighbours per page, the nearest one's per page)."""
        vote: dict[str, float] = {}
        nearest: dict[str, float] = {}
        for i, sim in self.neighbours(vector, text):
            slug = self.slugs[i]
            vote[slug] = vote.get(slug, 0.0) + sim
            if not nearest:
                nearest[slug] = sim  # the single nearest labelled question's page
        return vote, nearest


class Reranker:
    """Boosted trees over retrieved pages' features, with the labelled-question memory."""

    def __init__(self, memory: Memory, trees: Trees | None, faq: Any = None):
        self.memory = memory
        self.trees = trees  # None: nothing learned, the retriever's order stays
        self._faq = faq  # retriever.faq_questions, for the FAQ feature

    # -- features and ranking -------------------------------------------------------------

    def features(self, retrieval: Retrieval) -> list[list[float]]:
        """One row of FEATURES per retrieved page."""
        hits = retrieval.hits
        if not hits:
            return []
        vote, nearest = self.memory.votes(retrieval.vector, retrieval.query)
        total = sum(vote.values()) or 1.0
        faq: dict[str, float] = {}
        if self._faq is not None:
            for q, sim in self._faq(retrieval.vector, limit=20):
                faq[q.slug] = max(faq.get(q.slug, 0.0), sim)
        fused = [_fused(h) for h in hits]
        top_fused = max(fused) or 1.0
        sims = [h.similarity for h in hits]
        by_sim = sorted(range(len(hits)), key=lambda i: -sims[i])
        sim_rank = {i: r for r, i in enumerate(by_sim)}
        # The lift is what term, subject, page and FAQ matches added to the fused score, in
        # units of one term's lift (retrieve.EXACT_LIFT).
        return [[fused[i] / top_fused, (h.score - fused[i]) * RRF_K / 3.0, sims[i],
                 sims[i] - max(sims), 1.0 / (sim_rank[i] + 1), vote.get(h.slug, 0.0) / total,
                 nearest.get(h.slug, 0.0), faq.get(h.slug, 0.0), float(h.kind == "lesson")]
                for i, h in enumerate(hits)]

    def scores(self, retrieval: Retrieval) -> list[float]:
        """The model's score of each retrieved page (higher ranks first; not a probability)."""
        rows = self.features(retrieval)
        if self.trees is None or not rows:
            return [0.0] * len(rows)
        return self.trees.proba(rows)

    def rerank(self, retrieval: Retrieval) -> Retrieval:
        """Return the retrieval with its pages in the learned order (stable on ties)."""
        if len(retrieval.hits) < 2:
            return retrieval
        scores = self.scores(retrieval)
        order = sorted(range(len(scores)), key=lambda i: (-scores[i], i))
        return replace(retrieval, hits=[retrieval.hits[i] for i in order])

    # -- training ---------------------------------------------------------------------------

    @classmethod
    def fit(cls, labelled: list[Labelled], faq: Any = None, seed: int = 0) -> Reranker:
        """Fit the memory and the trees on labelled questions."""
        import numpy as np

        usable = [x for x in labelled if x.retrieval.hits and x.sources]
        memory = Memory([x.text for x in usable], [x.sources[0] for x in usable],
                        np.asarray([x.retrieval.vector for x in usable], dtype=np.float32)
                        if usable else np.zeros((0, 1), dtype=np.float32))
        probe = cls(memory, None, faq)
        rows, labels, groups = [], [], []
        for n, x in enumerate(usable):
            for hit, row in zip(x.retrieval.hits, probe.features(x.retrieval), strict=True):
                rows.append(row)
                labels.append(int(hit.slug in x.sources))
                groups.append(n)
        if len(set(labels)) < 2:
            return probe  # nothing to learn from: keeps the retriever's order
        return cls(memory, Trees.fit_ranker(rows, labels, groups, seed, shape=PAGE_TREES), faq)

    @classmethod
    def load_or_train(cls, assistant: Assistant, files: tuple[Path, ...] = LABELLED
                      ) -> Reranker | None:
        """Load the cached model for these labelled files, corpus and model, or train it."""
        files = tuple(Path(f) for f in files if Path(f).is_file())
        if any(f.name == SEALED for f in files):
            raise ValueError("the sealed test split is never trained on")
        if not files:
            return None
        faq = assistant.retriever.faq_questions
        path = cache_key(assistant, files, "reranker", RERANKER_VERSION)
        if path.is_file():
            try:
                return cls.from_json(json.loads(path.read_text()), faq)
            except (ValueError, KeyError, TypeError):
                log.warning("the cached reranker %s is unreadable; training again", path)
        labelled = [Labelled(item.question, item.expect.sources,
                             assistant.turn(item.question, list(item.history),
                                            item.page).retrieval)
                    for item in labelled_items(files)]
        reranker = cls.fit([x for x in labelled if x.retrieval is not None], faq)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(reranker.to_json()))
        return reranker

    def to_json(self) -> dict[str, Any]:
        """The model and its memory as JSON (vectors as lists)."""
        return {"version": RERANKER_VERSION, "features": list(FEATURES),
                "trees": self.trees.to_json() if self.trees else None,
                "texts": self.memory.texts,
                "slugs": self.memory.slugs, "vectors": self.memory.vectors.tolist()}

    @classmethod
    def from_json(cls, data: dict[str, Any], faq: Any = None) -> Reranker:
        """Rebuild a reranker from `to_json`."""
        import numpy as np

        if data["version"] != RERANKER_VERSION or data["features"] != list(FEATURES):
            raise ValueError("a reranker of another version")
        memory = Memory([], list(data["slugs"]), np.asarray(data["vectors"], dtype=np.float32))
        memory.texts = list(data["texts"])
        return cls(memory, Trees.from_json(data["trees"]) if data["trees"] else None, faq)


def _fused(hit: Any) -> float:
    """A page's fused score before lifts (as retrieve.Retriever.retrieve computes it)."""
    p = hit.passages
    return (p[0].score + 0.25 * (p[1].score if len(p) > 1 else 0.0)) if p else 0.0


def labelled_items(files: tuple[Path, ...] | list[Path]) -> list[Any]:
    """The labelled questions of these files that a page answers (no refusals, tools, staff)."""
    from .evaluate import load_golden

    items = []
    for f in files:
        items += [i for i in load_golden(f) if i.expect.sources and not i.expect.refuse
                  and not i.expect.tool and i.staff is None]
    return items


def cache_key(assistant: Assistant, files: tuple[Path, ...], name: str, version: str) -> Path:
    """Where a learned part is cached: keyed by its version, the labelled files, the corpus,
    the embedding model and backend and the retrieval mode (any change retrains it)."""
    digest = hashlib.sha256(version.encode())
    for f in files:
        digest.update(f.read_bytes())
    for page in sorted(assistant.corpus, key=lambda p: p.slug):
        digest.update(page.content_hash.encode())
    digest.update(str(assistant.settings.embedding_model).encode())
    digest.update(assistant.settings.embedding_backend.encode())
    digest.update(assistant.settings.retriever.encode())
    return Path(assistant.settings.data_dir) / "learned" / f"{name}-{digest.hexdigest()[:16]}.json"


def defined_first(retrieval: Retrieval, text: str, terms: list[str], follow_up: bool,
                  retriever: Any) -> Retrieval:
    """A bare "what is X?" naming one glossary term by its own name and nothing else opens on
    X's glossary page, whatever the learned order says: labelled neighbours such as "whats
    the catch with roce operationally" (a lesson) had put a lesson before RoCE's own page.
    An alias naming a part of the term ("PFC watchdog") or a number keeps the order."""
    from .intent import Intent, classify
    from .words import residual_words

    if len(terms) != 1 or follow_up or len(retrieval.hits) < 2 or re.search(r"\d", text):
        return retrieval
    slug = terms[0]
    at = next((i for i, h in enumerate(retrieval.hits) if h.slug == slug), None)
    if not at or retrieval.hits[at].kind != "glossary" \
            or classify(text).intent is not Intent.DEFINITION or residual_words(text, retriever):
        return retrieval
    page = retriever.corpus.pages[slug]
    names = {page.title, slug, *(a for a in page.aliases if " " not in a.strip())}
    plain = {re.sub(r"[^a-z0-9]", "", n.lower()) for n in names}
    if any(re.sub(r"[^a-z0-9]", "", m.said.lower()) not in plain
           for m in retriever.terms.find(text)):
        return retrieval
    return replace(retrieval, hits=[retrieval.hits[at], *retrieval.hits[:at],
                                    *retrieval.hits[at + 1:]])
