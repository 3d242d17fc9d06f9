"""The vector index: what retrieval needs from one (`VectorIndex`), and the Chroma one.

`Index` is Chroma with incremental ingest and the manifest that guards it. Another store is
one class with the five methods of `VectorIndex`; `assistant.testing.InMemoryIndex` is one.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from .config import Settings
from .corpus import Chunk, Corpus, chunk_page
from .embedding import QueryBatcher, backend_id, build_embeddings, resolve_model

if TYPE_CHECKING:
    from langchain_chroma import Chroma
    from langchain_core.embeddings import Embeddings

log = logging.getLogger(__name__)

#: Units embedded per step of ingest's progress bar (sorted by length across the whole
#: ingest first, so a step pads little), and rows per Chroma upsert.
_EMBED_STEP = 512
_UPSERT_ROWS = 1000

__all__ = ["Index", "IndexNotReady", "Manifest", "OverlayIndex", "VectorIndex",
           "resolve_model"]


class IndexNotReady(RuntimeError):
    """The index is missing, empty, or was built with another embedding model."""


@dataclass(frozen=True)
class Manifest:
    """What the index holds: the embedding model and backend, and a content hash per page."""

    embedding_model: str
    pages: dict[str, str]
    built_at: float = 0.0
    #: What computed the vectors (embedding.backend_id); "" for an index of no backend.
    embedding_backend: str = ""

    @classmethod
    def from_metadata(cls, meta: dict[str, Any] | None) -> Manifest | None:
        """Read the manifest stored in the collection's metadata, if there is one."""
        if not meta or "manifest" not in meta:
            return None
        # Indexes built before the backend was recorded were all built with torch.
        return cls(embedding_model=str(meta.get("embedding_model", "")),
                   pages=json.loads(meta["manifest"]),
                   built_at=float(meta.get("built_at", 0.0)),
                   embedding_backend=str(meta.get("embedding_backend", "torch")))

    def to_metadata(self) -> dict[str, Any]:
        """Return the collection metadata that records this manifest."""
        return {"embedding_model": self.embedding_model, "manifest": json.dumps(self.pages),
                "built_at": self.built_at, "embedding_backend": self.embedding_backend}


@dataclass
class IngestReport:
    """What an ingest did."""

    added: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    unchanged: int = 0
    units_embedded: int = 0
    units_reused: int = 0  # vectors of unchanged text kept from the index
    rebuilt: bool = False
    seconds: float = 0.0

    def summary(self) -> str:
        """Return one line for the terminal."""
        verb = "rebuilt" if self.rebuilt else "updated"
        return (f"index {verb}: {len(self.added)} added, {len(self.changed)} changed, "
                f"{len(self.deleted)} deleted, {self.unchanged} unchanged; "
                f"{self.units_embedded} passages embedded"
                + (f" ({self.units_reused} unchanged kept)" if self.units_reused else "")
                + f" in {self.seconds:.1f} s")


@runtime_checkable
class VectorIndex(Protocol):
    """What retrieval reads from a vector index; Chroma's `Index` is one, `InMemoryIndex` another.

    The index holds every unit `corpus.chunk_page` cuts (section and FAQ chunks, sentences,
    FAQ questions), each with a normalised vector, so a dot product is a cosine similarity.
    Filling it (ingest) is the store's own business: retrieval only reads.

    Example:
        >>> isinstance(Index(Settings.from_env()), VectorIndex)
        True
    """

    def manifest(self) -> Manifest | None:
        """Return what the index holds, or None if it was never built."""

    def check_ready(self) -> Manifest:
        """Return the manifest, or raise IndexNotReady saying how to build the index."""

    def embed_query(self, text: str) -> list[float]:
        """Embed a question with the model the index was built with (normalised)."""

    def search_vector(self, vector: list[float], k: int) -> list[tuple[Chunk, float]]:
        """Return the k section and FAQ chunks nearest to a vector, with cosine similarity."""

    def snapshot(self) -> tuple[list[Chunk], Any]:
        """Return every unit, sorted by id, and a matrix of their vectors (one row each)."""


#: The mark in every staff FAQ unit id (see staff.py); ingest never deletes such ids.
STAFF_MARK = "::staff::"


class Index:
    """The Chroma collection behind retrieval, on disk or on a `chroma run` server.

    Example:
        >>> index = Index(Settings.from_env())
        >>> index.ingest(load_corpus(settings.corpus_dir))   # doctest: +SKIP
        >>> index.search_vector(index.embed_query("what is nvlink"), k=5)  # doctest: +SKIP
    """

    def __init__(self, settings: Settings):
        self.settings = settings
        # The section chunks and their vectors as of the last snapshot (see search_vector).
        self._dense: tuple[list[Chunk], Any] | None = None

    # -- heavy parts, built on first use -------------------------------------------------

    @cached_property
    def embeddings(self) -> Embeddings:
        """The embedding model: ONNX Runtime by default, or sentence-transformers on torch."""
        return build_embeddings(self.settings)

    @cached_property
    def batcher(self) -> QueryBatcher:
        """Embeds the questions of concurrent answers in one forward pass (the int8 model
        embeds one text per pass, so its questions queue without waiting for company)."""
        one_at_a_time = getattr(self.embeddings, "batch_size", 32) == 1
        return QueryBatcher(self.embeddings.embed_documents,
                            wait_ms=0.0 if one_at_a_time else self.settings.embed_batch_wait_ms)

    @property
    def backend(self) -> str:
        """What computes this process's vectors (recorded in the manifest at ingest)."""
        return backend_id(self.settings)

    @cached_property
    def client(self):
        """A chromadb client: HTTP when CHROMA_HOST is set, else the on-disk store."""
        import chromadb
        from chromadb.config import Settings as ChromaSettings

        chroma_settings = ChromaSettings(anonymized_telemetry=False)
        if self.settings.chroma_host:
            return chromadb.HttpClient(host=self.settings.chroma_host,
                                       port=self.settings.chroma_port, settings=chroma_settings)
        self.settings.chroma_dir.mkdir(parents=True, exist_ok=True)
        return chromadb.PersistentClient(path=str(self.settings.chroma_dir),
                                         settings=chroma_settings)

    @cached_property
    def store(self) -> Chroma:
        """The langchain-chroma vector store over the collection."""
        from langchain_chroma import Chroma

        return Chroma(collection_name=self.settings.collection, client=self.client,
                      embedding_function=self.embeddings,
                      collection_metadata={"hnsw:space": "cosine"})

    @property
    def collection(self):
        """The raw chromadb collection of section chunks (and the manifest)."""
        return self.store._collection

    @cached_property
    def sentences(self):
        """The chromadb collection of sentence and FAQ-question vectors, kept apart from the
        chunks so that the dense search needs no metadata filter (a filtered query over all
        units took 15 ms, the chunks alone 4 ms)."""
        return self.client.get_or_create_collection(f"{self.settings.collection}-sentences",
                                                    metadata={"hnsw:space": "cosine"})

    def _holding(self, unit: Chunk):
        return self.collection if unit.unit == "chunk" else self.sentences

    # -- manifest --------------------------------------------------------------------------

    def manifest(self) -> Manifest | None:
        """Return the manifest of the collection, or None if the index was never built."""
        try:
            col = self.client.get_collection(self.settings.collection)
        except Exception:  # chromadb raises NotFoundError or ValueError across versions
            return None
        return Manifest.from_metadata(col.metadata)

    def check_ready(self) -> Manifest:
        """Fail fast, with a clear message, if the index cannot serve this configuration."""
        manifest = self.manifest()
        where = (f"the Chroma server at {self.settings.chroma_host}:{self.settings.chroma_port}"
                 if self.settings.chroma_host else str(self.settings.chroma_dir))
        if manifest is None or not manifest.pages:
            raise IndexNotReady(f"No index in {where} (collection "
                                f"{self.settings.collection!r}). Build it with "
                                f"`python -m assistant ingest` (make run does it).")
        if manifest.embedding_model != self.settings.embedding_model:
            raise IndexNotReady(f"The index in {where} was built with the embedding model "
                                f"{manifest.embedding_model!r}, but this process is set to "
                                f"{self.settings.embedding_model!r}. Re-run "
                                f"`python -m assistant ingest` or fix ASSISTANT_EMBEDDING_MODEL.")
        if manifest.embedding_backend != self.backend:
            raise IndexNotReady(f"The index in {where} was built with the "
                                f"{manifest.embedding_backend!r} embedding backend, but this "
                                f"process is set to {self.backend!r}: its question vectors "
                                f"would not be the index's. Re-run `python -m assistant ingest` "
                                f"(make run does it) or fix ASSISTANT_EMBEDDING_BACKEND.")
        return manifest

    # -- ingest ------------------------------------------------------------------------------

    def ingest(self, corpus: Corpus, progress: bool = True, force: bool = False) -> IngestReport:
        """Bring the index in line with the corpus, embedding only pages that changed."""
        start = time.perf_counter()
        report = IngestReport()
        old = self.manifest()
        if (force or old is None or old.embedding_model != self.settings.embedding_model
                or old.embedding_backend != self.backend):
            if old is not None:
                log.info("rebuilding the index (model %s -> %s, backend %s -> %s)",
                         old.embedding_model, self.settings.embedding_model,
                         old.embedding_backend, self.backend)
                self.client.delete_collection(self.settings.collection)
                self._drop_sentences()
                self.__dict__.pop("store", None)
            old = Manifest(self.settings.embedding_model, {}, embedding_backend=self.backend)
            report.rebuilt = True
        pages = dict(old.pages)
        todo = [p for p in corpus if old.pages.get(p.slug) != p.content_hash]
        report.unchanged = len(corpus) - len(todo)
        for page in todo:
            (report.changed if page.slug in old.pages else report.added).append(page.slug)
        report.deleted = sorted(set(old.pages) - set(corpus.pages))
        units = [u for p in todo for u in chunk_page(p)]
        # Upsert before deleting stale ids, so a page never disappears while other
        # processes answer from the same Chroma server.
        if todo or report.deleted:  # a no-op ingest never loads the embedding model
            self._dense = None  # Chroma answers until the next snapshot
            known = {} if report.rebuilt else self._known_vectors([p.slug for p in todo])
            report.units_reused = self._upsert(units, progress, known)
            self._delete_stale(units, [p.slug for p in todo] + report.deleted)
        for page in todo:
            pages[page.slug] = page.content_hash
        for slug in report.deleted:
            pages.pop(slug, None)
        report.units_embedded = len(units) - report.units_reused
        if todo or report.deleted or report.rebuilt:
            manifest = Manifest(self.settings.embedding_model, pages, built_at=time.time(),
                                embedding_backend=self.backend)
            self.collection.modify(metadata=manifest.to_metadata())
        report.seconds = time.perf_counter() - start
        return report

    def _known_vectors(self, slugs: list[str]) -> dict[str, list[float]]:
        """Return the vectors these pages' units have now, by the hash of the text embedded."""
        known: dict[str, list[float]] = {}
        if not slugs:
            return known
        for target in (self.collection, self.sentences):
            got = target.get(where={"slug": {"$in": slugs}}, include=["metadatas", "embeddings"])
            for meta, vector in zip(got["metadatas"], got["embeddings"], strict=True):
                if meta and meta.get("embed_hash"):
                    known[str(meta["embed_hash"])] = list(vector)
        return known

    def _upsert(self, units: list[Chunk], progress: bool,
                known: dict[str, list[float]] | None = None) -> int:
        """Embed units (reusing `known` vectors of unchanged text, the rest longest first)
        and upsert them: chunks to the searched collection, the rest aside. Return how many
        vectors were reused."""
        from tqdm import tqdm

        known = known or {}
        vectors: dict[str, list[float]] = {}
        todo: dict[str, str] = {}  # embed hash -> text, each distinct text embedded once
        for unit in units:
            key = _embed_hash(unit)
            if key in known:
                vectors[key] = known[key]
            else:
                todo.setdefault(key, unit.embed_text)
        reused = sum(1 for u in units if _embed_hash(u) in known)
        order = sorted(todo, key=lambda k: -len(todo[k]))
        bar = tqdm(total=len(order), desc="embedding", unit="passage", disable=not progress,
                   leave=False)
        for start in range(0, len(order), _EMBED_STEP):
            step = order[start:start + _EMBED_STEP]
            for key, vector in zip(step, self.embeddings.embed_documents(
                    [todo[k] for k in step]), strict=True):
                vectors[key] = vector
            bar.update(len(step))
        bar.close()
        for target in (self.collection, self.sentences):
            rows = [u for u in units if self._holding(u) is target]
            for start in range(0, len(rows), _UPSERT_ROWS):
                part = rows[start:start + _UPSERT_ROWS]
                target.upsert(ids=[u.id for u in part],
                              embeddings=[vectors[_embed_hash(u)] for u in part],
                              documents=[u.text for u in part],
                              metadatas=[_metadata(u) for u in part])
        return reused

    def _delete_stale(self, units: list[Chunk], slugs: list[str]) -> None:
        """Delete what these pages had in the index and no longer have."""
        for target in (self.collection, self.sentences):
            fresh_ids = {u.id for u in units if self._holding(u) is target}
            for slug in slugs:
                # Staff FAQ units are no page's content: staff.sync_after_ingest keeps them.
                stale = [i for i in target.get(where={"slug": slug}, include=[])["ids"]
                         if i not in fresh_ids and STAFF_MARK not in i]
                if stale:
                    target.delete(ids=stale)

    def add_units(self, units: list[Chunk]) -> None:
        """Upsert extra units (a staff FAQ entry) and bump built_at so every process follows."""
        self._dense = None
        self._upsert(units, progress=False)
        self._touch()

    def remove_chunk(self, chunk_id: str) -> None:
        """Delete a chunk and its question and sentence units; bump built_at."""
        self._dense = None
        self.collection.delete(ids=[chunk_id])
        self.sentences.delete(where={"chunk_id": chunk_id})
        self._touch()

    def _touch(self) -> None:
        old = self.manifest() or Manifest(self.settings.embedding_model, {},
                                          embedding_backend=self.backend)
        manifest = Manifest(old.embedding_model, dict(old.pages), built_at=time.time(),
                            embedding_backend=old.embedding_backend)
        self.collection.modify(metadata=manifest.to_metadata())

    def _drop_sentences(self) -> None:
        try:
            self.client.delete_collection(f"{self.settings.collection}-sentences")
        except Exception:  # not there yet (chromadb raises NotFoundError or ValueError)
            pass
        self.__dict__.pop("sentences", None)

    # -- reading -----------------------------------------------------------------------------

    def embed_query(self, text: str) -> list[float]:
        """Embed a question (normalised, so a dot product is the cosine similarity), in one
        forward pass with the questions of concurrent answers."""
        return self.batcher.embed(text)

    def search_vector(self, vector: list[float], k: int) -> list[tuple[Chunk, float]]:
        """Return the k nearest section chunks to a vector, with cosine similarity.

        After a snapshot (the retriever takes one at start and at every refresh) this is one
        exact matrix product over the snapshot's chunk vectors, the same ones the rest of
        the ranking reads: about 0.2 ms for the corpus, where Chroma's HNSW query took 5-12
        ms. Before any snapshot, and after this object changed the index, Chroma answers.
        """
        import numpy as np

        if self._dense is None:
            hits = self.store.similarity_search_by_vector_with_relevance_scores(vector, k=k)
            return [(_chunk(doc.metadata, doc.page_content, doc.id), 1.0 - dist)
                    for doc, dist in hits]
        chunks, matrix = self._dense
        if not chunks:
            return []
        sims = matrix @ np.asarray(vector, dtype=np.float32)
        # A stable sort over id-ordered rows: ties keep id order, whatever the run.
        order = np.argsort(-sims, kind="stable")[:k]
        return [(chunks[int(i)], float(sims[i])) for i in order]

    def snapshot(self) -> tuple[list[Chunk], Any]:
        """Return every unit, sorted by id, and a matrix of their vectors (one row each)."""
        import numpy as np

        units, vectors = [], []
        for target in (self.collection, self.sentences):
            got = target.get(include=["documents", "metadatas", "embeddings"])
            for uid, doc, meta, vec in zip(got["ids"], got["documents"], got["metadatas"],
                                           got["embeddings"], strict=True):
                units.append(_chunk(meta, doc, uid))
                vectors.append(vec)
        order = sorted(range(len(units)), key=lambda i: units[i].id)
        units = [units[i] for i in order]
        matrix = np.asarray([vectors[i] for i in order], dtype=np.float32)
        rows = [i for i, u in enumerate(units) if u.unit == "chunk"]
        self._dense = ([units[i] for i in rows], matrix[rows] if rows else matrix[:0])
        return units, matrix


def _embed_hash(unit: Chunk) -> str:
    """Key a unit's vector by the text embedded, so an unchanged sentence is not embedded
    again when its page changes (the backend is the manifest's: a change rebuilds)."""
    return hashlib.sha256(unit.embed_text.encode()).hexdigest()[:24]


def _metadata(unit: Chunk) -> dict[str, Any]:
    return {"slug": unit.slug, "title": unit.title, "kind": unit.kind, "url": unit.url,
            "section": unit.section, "unit": unit.unit, "chunk_id": unit.chunk_id or unit.id,
            "position": unit.position, "embed_hash": _embed_hash(unit)}


def _chunk(meta: dict[str, Any], text: str, uid: str | None) -> Chunk:
    return Chunk(id=uid or "", slug=meta["slug"], title=meta["title"], kind=meta["kind"],
                 url=meta["url"], section=meta["section"], text=text, unit=meta["unit"],
                 chunk_id=meta.get("chunk_id", ""), position=int(meta.get("position", 0)))


class OverlayIndex:
    """A `VectorIndex` that holds extra units in memory over another index it never writes.

    For a throwaway publish (the evaluator's staff answers): retrieval sees the base index
    plus the added units, while every other reader of the base index sees it unchanged.

    Example:
        >>> overlay = OverlayIndex(bot.index)
        >>> staff.publish(store, overlay, Retriever(overlay, bot.corpus), bot.corpus, 1)
    """

    def __init__(self, base: VectorIndex):
        self.base = base
        self.extra: dict[str, tuple[Chunk, list[float]]] = {}
        self._touched = 0.0

    def manifest(self) -> Manifest | None:
        """Return the base index's manifest, its built_at bumped by any change here."""
        base = self.base.manifest()
        if base is None:
            return None
        return Manifest(base.embedding_model, base.pages, max(base.built_at, self._touched),
                        base.embedding_backend)

    def check_ready(self) -> Manifest:
        """Return the manifest, or raise IndexNotReady as the base index does."""
        self.base.check_ready()
        manifest = self.manifest()
        assert manifest is not None
        return manifest

    def embed_query(self, text: str) -> list[float]:
        """Embed with the base index's model."""
        return self.base.embed_query(text)

    def search_vector(self, vector: list[float], k: int) -> list[tuple[Chunk, float]]:
        """Return the k nearest chunks of the base index and the added ones together."""
        import numpy as np

        query = np.asarray(vector, dtype=np.float32)
        own = [(unit, float(np.dot(np.asarray(v, dtype=np.float32), query)))
               for unit, v in self.extra.values() if unit.unit == "chunk"]
        return sorted(self.base.search_vector(vector, k) + own, key=lambda h: -h[1])[:k]

    def snapshot(self) -> tuple[list[Chunk], Any]:
        """Return the base index's units and the added ones, sorted by id, with vectors."""
        import numpy as np

        units, matrix = self.base.snapshot()
        if not self.extra:
            return units, matrix
        added = list(self.extra.values())
        every = list(units) + [u for u, _ in added]
        vectors = np.vstack([np.asarray(matrix, dtype=np.float32),
                             np.asarray([v for _, v in added], dtype=np.float32)])
        order = sorted(range(len(every)), key=lambda i: every[i].id)
        return [every[i] for i in order], vectors[order]

    def add_units(self, units: list[Chunk]) -> None:
        """Embed and hold extra units (a staff FAQ entry)."""
        for unit in units:
            self.extra[unit.id] = (unit, self.embed_query(unit.embed_text))
        self._touched = time.time()

    def remove_chunk(self, chunk_id: str) -> None:
        """Forget an added chunk and its question and sentence units."""
        self.extra = {i: (u, v) for i, (u, v) in self.extra.items()
                      if i != chunk_id and u.chunk_id != chunk_id}
        self._touched = time.time()
