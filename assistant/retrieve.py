"""Hybrid retrieval: dense + BM25 (bm25s) fused by reciprocal rank, lifted by term match."""

from __future__ import annotations

import re
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever

from .corpus import Chunk, Corpus
from .index import STAFF_MARK
from .terms import TermMatch, TermMatcher
from .text import term_key

if TYPE_CHECKING:
    import numpy as np

    from .index import VectorIndex

RRF_K = 60
DEPTH = 30  # candidates taken from each list before fusion
EXACT_LIFT = 3.0 / RRF_K  # a named term outranks any fused score
FUZZY_LIFT = 3.0 / RRF_K  # a typo names a term as surely as the spelling does
SUBJECT_LIFT = 2.0 / RRF_K  # the term the conversation is about
PAGE_LIFT = 1.5 / RRF_K  # the page the visitor is reading
#: Pages that name a measure rather than a thing ("the bandwidth of NVLink"); named beside a
#: thing, they get this share of a term's lift, so the thing's page ranks first.
MEASURES = frozenset({"bandwidth", "latency"})
MEASURE_SHARE = 0.5
FAQ_ASKED = 0.80  # a page whose own FAQ asks the question this closely ...
FAQ_LIFT = 2.5 / RRF_K  # ... is lifted like the page being read

_WORD = re.compile(r"[a-z0-9]+")




@dataclass(frozen=True)
class Passage:
    """A retrieved chunk with its fused score and its cosine similarity to the question."""

    chunk: Chunk
    score: float
    similarity: float


@dataclass(frozen=True)
class Hit:
    """One page in the ranking, with its best passages."""

    slug: str
    title: str
    url: str
    kind: str
    score: float
    similarity: float
    passages: tuple[Passage, ...]
    term_match: bool = False


@dataclass
class Retrieval:
    """Everything retrieval found for one question."""

    query: str
    hits: list[Hit]
    terms: list[TermMatch]
    vector: Any
    best_similarity: float
    timings_ms: dict[str, float] = field(default_factory=dict)

    @property
    def slugs(self) -> list[str]:
        """Page slugs in rank order."""
        return [h.slug for h in self.hits]


def _by_vector(slot: list[tuple[Any, ...]], qv: Any, make: Callable[[], Any]) -> Any:
    """What `make` gave for this very vector object, if it is one of the last four (the
    stages pass one array along, so an identity test finds it without hashing its bytes),
    else a new one; the tuple in `slot` is swapped in whole, so concurrent questions never
    see half of one."""
    recent = slot[0]
    for i in range(0, len(recent), 2):
        if recent[i] is qv:
            return recent[i + 1]
    value = make()
    slot[0] = (qv, value, *recent[:6])
    return value


@dataclass(frozen=True)
class _Snapshot:
    """Everything a query reads, built together from one index snapshot and never mutated."""

    chunks: list[Chunk]
    chunk_by_id: dict[str, Chunk]
    sentences: list[Chunk]
    sentence_row: dict[str, int]
    sentence_matrix: Any
    rows_by_chunk: dict[str, tuple[int, ...]]
    rows_by_slug: dict[str, tuple[int, ...]]
    #: Each page's sentence rows, first and one past the last: the rows are sorted by page,
    #: so a page's sentences are one block of the matrix.
    slug_span: dict[str, tuple[int, int]]
    questions: list[Chunk]
    question_matrix: Any
    #: Per question, True when the corpus wrote it (False for a staff entry): the tie-break
    #: of `faq_questions`, computed once per snapshot instead of on every call.
    question_by_corpus: Any
    tokenizer: Any
    bm25: Any
    terms: TermMatcher
    built_at: float | None
    #: Per question vector (its bytes), the page blocks of similarities read so far.
    _sims: dict[bytes, Any] = field(default_factory=dict, compare=False, repr=False)
    #: The last few (vector object, result) pairs of `page_sims` and `faq_order`: the
    #: stages pass one array along, so an identity test finds it without hashing its bytes
    #: (one tuple swapped in whole, so concurrent questions never see half of one).
    _recent: list[tuple[Any, ...]] = field(default_factory=lambda: [()], compare=False,
                                           repr=False)
    _faq_recent: list[tuple[Any, ...]] = field(default_factory=lambda: [()], compare=False,
                                               repr=False)

    @classmethod
    def build(cls, index: VectorIndex, corpus: Corpus) -> _Snapshot:
        import bm25s
        import numpy as np
        from bm25s.tokenization import Tokenizer

        manifest = index.check_ready()
        units, matrix = index.snapshot()
        # One order whatever the store's history: a re-ingest appends changed pages at the
        # end of the collection, and the order breaks ties (candidates, training rows), so
        # an index built over time and a fresh one must list the units alike.
        order = sorted(range(len(units)), key=lambda i: (units[i].slug, units[i].position,
                                                         units[i].unit, units[i].id))
        units = [units[i] for i in order]
        if len(order):
            matrix = matrix[np.asarray(order)]
        width = matrix.shape[1] if matrix.ndim == 2 else 1
        chunks = [u for u in units if u.unit == "chunk"]
        sentence_rows = [i for i, u in enumerate(units) if u.unit == "sentence"]
        question_rows = [i for i, u in enumerate(units) if u.unit == "question"]
        sentences = [units[i] for i in sentence_rows]
        by_chunk: dict[str, list[int]] = defaultdict(list)
        by_slug: dict[str, list[int]] = defaultdict(list)
        for row, sentence in enumerate(sentences):
            by_chunk[sentence.chunk_id].append(row)
            by_slug[sentence.slug].append(row)
        tokenizer = Tokenizer(stopwords="en", stemmer=None)
        ids = tokenizer.tokenize([f"{c.title} {c.text}" for c in chunks], return_as="ids",
                                 show_progress=False)
        bm25 = bm25s.BM25()
        bm25.index(ids, show_progress=False)
        vocabulary = {w for c in chunks for w in _WORD.findall(c.text.lower())}
        # Words the prose itself writes in lower case, at least twice ("zero", not a slug).
        counts = Counter(w for u in sentences for w in
                         re.findall(r"(?<![\w/.-])[a-z][a-z0-9]*(?![\w/-])", u.text))
        plain = frozenset(w for w, n in counts.items() if n >= 2)
        return cls(
            chunks=chunks, chunk_by_id={c.id: c for c in chunks}, sentences=sentences,
            sentence_row={u.id: row for row, u in enumerate(sentences)},
            sentence_matrix=matrix[sentence_rows] if sentence_rows else np.zeros((0, width)),
            rows_by_chunk={k: tuple(sorted(v, key=lambda r: sentences[r].position))
                           for k, v in by_chunk.items()},
            rows_by_slug={k: tuple(v) for k, v in by_slug.items()},
            slug_span={k: (v[0], v[-1] + 1) for k, v in by_slug.items()},
            questions=[units[i] for i in question_rows],
            question_matrix=matrix[question_rows] if question_rows else np.zeros((0, width)),
            question_by_corpus=np.array([STAFF_MARK not in units[i].chunk_id
                                         for i in question_rows], dtype=bool),
            tokenizer=tokenizer, bm25=bm25, terms=TermMatcher(corpus, vocabulary, plain),
            built_at=manifest.built_at)

    def page_sims(self, qv: Any, slug: str) -> tuple[int, np.ndarray]:
        """(a page's first sentence row, its sentences' similarities to a question vector).
        A page's block is multiplied when a question first reads it, so a question reads
        the few pages its ranking touches, not the whole sentence matrix (4.9 MB, which the
        embedding model's run has pushed out of the cache: about 0.3 ms a question)."""
        import numpy as np

        def blocks_of_vector() -> dict[str, Any]:
            vector = np.asarray(qv, dtype=np.float32)
            key = vector.tobytes()
            blocks = self._sims.get(key)
            if blocks is None:
                if len(self._sims) >= 16:  # concurrent questions each keep theirs a moment
                    self._sims.clear()
                blocks = self._sims[key] = {"": vector}
            return blocks

        blocks = _by_vector(self._recent, qv, blocks_of_vector)
        found = blocks.get(slug)
        if found is None:
            first, end = self.slug_span.get(slug, (0, 0))
            found = blocks[slug] = (first, self.sentence_matrix[first:end] @ blocks[""])
        return found

    def faq_order(self, qv: Any) -> tuple[Any, Any]:
        """(every FAQ question's similarity to a question vector, their indices best first;
        on a tie, a support staff entry first: it was written to replace that answer)."""
        import numpy as np

        def order() -> tuple[Any, Any]:
            sims = self.question_matrix @ np.asarray(qv, dtype=np.float32)
            return sims, np.lexsort((self.question_by_corpus, -sims))

        return _by_vector(self._faq_recent, qv, order)

    def chunk_similarity(self, chunk_id: str, qv: np.ndarray) -> float:
        rows = self.rows_by_chunk.get(chunk_id)
        if not rows:
            return 0.0
        first, sims = self.page_sims(qv, self.sentences[rows[0]].slug)
        return float(max(sims[r - first] for r in rows))

    def pages_asking(self, qv: np.ndarray, threshold: float) -> set[str]:
        """Return the pages with an FAQ question at least `threshold` close to the query."""
        if not len(self.questions):
            return set()
        sims = self.question_matrix @ qv
        return {self.questions[int(i)].slug for i in (sims >= threshold).nonzero()[0]}

    def page_passages(self, slug: str, qv: np.ndarray) -> list[Passage]:
        scored = [Passage(c, 0.0, self.chunk_similarity(c.id, qv))
                  for c in self.chunks if c.slug == slug]
        scored.sort(key=lambda p: p.similarity, reverse=True)
        return scored[:4]


class Retriever:
    """Ranks corpus pages for a question; built once, refreshed when the index changes.

    Example:
        >>> r = Retriever(index, corpus)            # doctest: +SKIP
        >>> r.retrieve("whats nvlnk", k=5).slugs[0]  # doctest: +SKIP
        'nvlink'
    """

    def __init__(self, index: VectorIndex, corpus: Corpus, mode: str = "hybrid"):
        self.index = index
        self.corpus = corpus
        self.mode = mode
        self._lock = threading.Lock()  # one refresh at a time; readers never wait
        self._snap: _Snapshot | None = None
        #: Counts refreshes: what a query reads changed when it did (the answer cache's key).
        self.generation = 0
        self.refresh()

    def refresh(self) -> None:
        """Reload the sentence vectors and rebuild BM25 from what the index holds.

        Everything a query reads is built aside and swapped in with one assignment, so a
        question asked during a re-ingest sees the old snapshot or the new one, never a mix.
        """
        with self._lock:
            self._snap = _Snapshot.build(self.index, self.corpus)
            self.generation += 1

    # What a query reads, always from one snapshot.
    @property
    def chunks(self) -> list[Chunk]:
        return self._snap.chunks

    @property
    def sentences(self) -> list[Chunk]:
        return self._snap.sentences

    @property
    def terms(self) -> TermMatcher:
        return self._snap.terms

    @property
    def _built_at(self) -> float | None:
        return self._snap.built_at if self._snap else None

    def sentences_of_chunk(self, chunk_id: str) -> list[Chunk]:
        """Return the sentences of one passage, in page order."""
        snap = self._snap
        return [snap.sentences[i] for i in snap.rows_by_chunk.get(chunk_id, ())]

    def sentences_of_page(self, slug: str) -> list[Chunk]:
        """Return every sentence of one page, in index order."""
        snap = self._snap
        return [snap.sentences[i] for i in snap.rows_by_slug.get(slug, ())]

    def maybe_refresh(self) -> bool:
        """Refresh if another process re-ingested since we loaded; return whether we did."""
        manifest = self.index.manifest()
        if manifest is not None and manifest.built_at != self._built_at:
            self.refresh()
            return True
        return False

    # -- the lists -------------------------------------------------------------------------

    @staticmethod
    def _bm25(snap: _Snapshot, query: str) -> list[tuple[Chunk, float]]:
        q = snap.tokenizer.tokenize([query], update_vocab=False, return_as="ids",
                                    show_progress=False)
        if not q or not any(q[0]):
            return []
        k = min(DEPTH, len(snap.chunks))
        # n_threads=0: bm25s maps in this thread; 1 starts a thread pool for every query
        docs, scores = snap.bm25.retrieve(q, k=k, show_progress=False, n_threads=0)
        return [(snap.chunks[int(d)], float(s)) for d, s in zip(docs[0], scores[0], strict=True)
                if s > 0]

    def spelled_out(self, query: str, terms: list[TermMatch]) -> str:
        """The question as the embedding model should read it: an abbreviation or a typo of
        a glossary term gets the term's title beside it ("why is TP (Tensor parallelism)
        kept inside one node"), since MiniLM knows neither "TP" nor "nvlnk"."""
        out, end = [], 0
        lowered = query.lower()
        for term in sorted(terms, key=lambda t: t.start):
            page = self.corpus.get(term.slug)
            if page is None or page.kind != "glossary":
                continue
            title = re.sub(r"\s*\([^)]*\)", "", page.title)
            said_end = term.start + len(term.said)
            if lowered[term.start:said_end] != term.said:
                continue  # matched across punctuation: leave it
            if term_key(title).replace(" ", "") in term.said.replace(" ", ""):
                continue  # the title is already there ("RoCEv2", "GB200 NVL72")
            out.append(query[end:said_end] + f" ({title})")
            end = said_end
        return "".join(out) + query[end:] if out else query

    def _dense(self, vector: list[float]) -> list[tuple[Chunk, float]]:
        return self.index.search_vector(vector, k=DEPTH)

    # -- the ranking ------------------------------------------------------------------------

    # Complexity 17 and 72 lines: the ranking is one formula (lists, fusion, lifts, hits) read
    # top to bottom; it is being tuned, and is split into signals when they settle.
    def retrieve(self, query: str, k: int = 5, page: str | None = None,  # noqa: C901
                 subjects: tuple[str, ...] = (), vector: Any = None) -> Retrieval:
        """Rank pages for a question; `subjects` are slugs the conversation is about."""
        import numpy as np

        snap = self._snap
        timings: dict[str, float] = {}
        t0 = time.perf_counter()
        terms = snap.terms.find(query) if self.mode == "hybrid" else []
        if vector is None:
            vector = self.index.embed_query(self.spelled_out(query, terms))
        timings["embed"] = (time.perf_counter() - t0) * 1000
        t1 = time.perf_counter()
        dense = self._dense(vector) if self.mode in ("hybrid", "dense") else []
        timings["dense"] = (time.perf_counter() - t1) * 1000
        t2 = time.perf_counter()
        sparse = self._bm25(snap, query) if self.mode in ("hybrid", "bm25") else []
        timings["sparse"] = (time.perf_counter() - t2) * 1000

        fused: dict[str, float] = defaultdict(float)
        similarity: dict[str, float] = {}
        for rank, (chunk, sim) in enumerate(dense):
            fused[chunk.id] += 1.0 / (RRF_K + rank + 1)
            similarity[chunk.id] = sim
        for rank, (chunk, _score) in enumerate(sparse):
            fused[chunk.id] += 1.0 / (RRF_K + rank + 1)
        qv = np.asarray(vector, dtype=np.float32)
        by_page: dict[str, list[Passage]] = defaultdict(list)
        for cid, score in fused.items():
            chunk = snap.chunk_by_id.get(cid) or next(c for c, _ in dense if c.id == cid)
            sim = similarity.get(cid)
            if sim is None:
                sim = snap.chunk_similarity(chunk.id, qv)
            by_page[chunk.slug].append(Passage(chunk, score, sim))
        lifts: dict[str, float] = defaultdict(float)
        named = {t.slug for t in terms}
        for term in terms:
            lift = EXACT_LIFT if term.exact else FUZZY_LIFT
            if term.slug in MEASURES and named - MEASURES:
                lift *= MEASURE_SHARE  # "NVLink bandwidth" is about NVLink, measured
            lifts[term.slug] = max(lifts[term.slug], lift)
        for slug in subjects:
            lifts[slug] = max(lifts[slug], SUBJECT_LIFT)
        if page and self.mode == "hybrid":
            lifts[page] += PAGE_LIFT
        if self.mode == "hybrid":
            for slug in snap.pages_asking(qv, FAQ_ASKED):
                lifts[slug] += FAQ_LIFT
        # A lifted page that neither list found starts from the weakest candidate's score.
        floor = min(fused.values(), default=0.0)
        for slug in lifts:
            if slug not in by_page and slug in self.corpus.pages:
                by_page[slug] = [Passage(p.chunk, floor, p.similarity)
                                 for p in snap.page_passages(slug, qv)]
        hits = []
        for slug, passages in by_page.items():
            meta = self.corpus.get(slug)
            if meta is None or not passages:
                continue  # indexed but deleted from the corpus since: skip until re-ingest
            passages.sort(key=lambda p: p.score, reverse=True)
            top = passages[0].score + 0.25 * (passages[1].score if len(passages) > 1 else 0)
            hits.append(Hit(slug=slug, title=meta.title, url=meta.url, kind=meta.kind,
                            score=top + lifts.get(slug, 0.0),
                            similarity=max(p.similarity for p in passages),
                            passages=tuple(passages[:4]), term_match=slug in lifts))
        hits.sort(key=lambda h: h.score, reverse=True)
        best = max((sim for _, sim in dense), default=0.0)
        if not dense and hits:
            best = max(h.similarity for h in hits)
        timings["fuse"] = (time.perf_counter() - t2) * 1000 - timings["sparse"]
        return Retrieval(query=query, hits=hits[:k], terms=terms, vector=vector,
                         best_similarity=best, timings_ms=timings)

    def sentence_similarity(self, a: Chunk, b: Chunk) -> float:
        """Return the cosine similarity of two indexed sentences."""
        snap = self._snap
        ra, rb = snap.sentence_row.get(a.id), snap.sentence_row.get(b.id)
        if ra is None or rb is None:
            return 0.0
        return float(snap.sentence_matrix[ra] @ snap.sentence_matrix[rb])

    def sentences_for(self, slugs: list[str], vector: Any) -> list[tuple[Chunk, float]]:
        """Score every sentence of the given pages against the question vector."""
        snap = self._snap
        out: list[tuple[Chunk, float]] = []
        for slug in dict.fromkeys(slugs):
            if slug in snap.slug_span:
                first, sims = snap.page_sims(vector, slug)
                out += zip(snap.sentences[first:first + len(sims)], sims.tolist(), strict=True)
        return out

    def faq_question_of(self, chunk_id: str) -> str | None:
        """Return the question of the FAQ entry a chunk answers, or None for other chunks."""
        return next((q.text for q in self._snap.questions if q.chunk_id == chunk_id), None)

    def faq_questions(self, vector: Any, limit: int = 5) -> list[tuple[Chunk, float]]:
        """Return the FAQ questions nearest in meaning to the question vector, best first."""
        snap = self._snap
        if not len(snap.questions):
            return []
        sims, order = snap.faq_order(vector)
        return [(snap.questions[i], float(sims[i])) for i in order[:limit].tolist()]


class HybridRetriever(BaseRetriever):
    """The hybrid ranking as a LangChain retriever: one Document per page, best passage first.

    Example:
        >>> HybridRetriever(engine=retriever, k=3).invoke("what is roce")  # doctest: +SKIP
    """

    engine: Any
    k: int = 5
    page: str | None = None

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun,
                                **kwargs: Any) -> list[Document]:
        k = int(kwargs.get("k", self.k))
        result = self.engine.retrieve(query, k=k, page=kwargs.get("page", self.page))
        docs = []
        for hit in result.hits:
            best = hit.passages[0].chunk
            docs.append(Document(page_content=best.text, id=best.id, metadata={
                "slug": hit.slug, "title": hit.title, "url": hit.url, "kind": hit.kind,
                "section": best.section, "score": hit.score, "similarity": hit.similarity}))
        return docs
