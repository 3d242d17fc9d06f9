"""Fast stand-ins for tests: a deterministic embedder and an in-memory vector index.

With them an `Assistant` is built from the real corpus in about a second, with no model, no
Chroma and no files written, so tests of the chain, the composer and the LLM mode run in
milliseconds. What they cannot show is how the real embedding model ranks meaning: tests of
that use the real model and Chroma (the `model` marker, see tests/conftest.py).

They live in the package, not under tests/, because they are the second implementation of
`index.VectorIndex` (a change to the protocol must keep them working) and because a plugin's
or a subprocess's tests can import them without the repository's tests folder on the path.
Importing this module loads nothing heavy.

Example:
    >>> from assistant.testing import fake_assistant
    >>> bot = fake_assistant()                      # the real corpus, hashed embeddings
    >>> bot.ask("what is nvlink?").citations[0].slug
    'nvlink'
"""

from __future__ import annotations

import hashlib
import math
import re
import time
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from langchain_core.embeddings import Embeddings

from .corpus import Chunk, Corpus, chunk_page, load_corpus
from .index import IndexNotReady, Manifest

if TYPE_CHECKING:
    from .chain import Assistant
    from .config import Settings

#: The name the fake embedder's vectors are recorded under in a manifest.
HASH_MODEL = "hashed-bag-of-words"

_WORD = re.compile(r"[a-z0-9]+")
# Words that carry no topic: without them two texts are close only when they share a subject.
_STOP = frozenset("""a an and are as at be been but by can could do does did for from had has
have how i if in into is it its me my no not of on or our should so than that the their them
then there these they this those to was we were what when where which who why will with would
you your""".split())


@lru_cache(maxsize=65536)
def _slot(word: str, dim: int) -> tuple[int, float]:
    # blake2b, not hash(): the same word lands in the same slot in every process.
    digest = hashlib.blake2b(word.encode(), digest_size=8).digest()
    value = int.from_bytes(digest, "big")
    return value % dim, 1.0 if value >> 63 else -1.0


class HashEmbeddings(Embeddings):
    """A deterministic embedder: a hashed bag of content words, normalised.

    Texts sharing content words are close, texts sharing none are orthogonal; a text with no
    content word is the zero vector. Plural "s" is dropped so "frames" meets "frame".

    Example:
        >>> e = HashEmbeddings()
        >>> a, b = e.embed_query("PFC pause frames"), e.embed_query("a pause frame")
        >>> round(sum(x * y for x, y in zip(a, b, strict=True)), 2)
        0.82
    """

    def __init__(self, dim: int = 512):
        self.dim = dim

    def words(self, text: str) -> list[str]:
        """Return the content words of a text, as the embedder counts them."""
        out = []
        for word in _WORD.findall(text.lower()):
            if word in _STOP:
                continue
            out.append(word[:-1] if len(word) > 3 and word.endswith("s") else word)
        return out

    def embed_query(self, text: str) -> list[float]:
        """Embed one text."""
        vector = [0.0] * self.dim
        for word in self.words(text):
            slot, sign = _slot(word, self.dim)
            vector[slot] += sign
        norm = math.sqrt(sum(v * v for v in vector))
        return [v / norm for v in vector] if norm else vector

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embed many texts."""
        return [self.embed_query(t) for t in texts]


class InMemoryIndex:
    """A `VectorIndex` held in memory: every unit of a corpus, embedded once.

    Example:
        >>> corpus = load_corpus(Path("corpus"))                   # doctest: +SKIP
        >>> index = InMemoryIndex.from_corpus(corpus)              # doctest: +SKIP
        >>> Retriever(index, corpus).retrieve("nvlnk").slugs[0]    # doctest: +SKIP
        'nvlink'
    """

    def __init__(self, units: Iterable[Chunk], embeddings: Embeddings, model: str = HASH_MODEL,
                 pages: dict[str, str] | None = None):
        import numpy as np

        self.embeddings = embeddings
        self.units = sorted(units, key=lambda u: u.id)
        vectors = embeddings.embed_documents([u.embed_text for u in self.units])
        self.matrix = (np.asarray(vectors, dtype=np.float32) if vectors
                       else np.zeros((0, 1), dtype=np.float32))
        self._chunk_rows = np.asarray([i for i, u in enumerate(self.units) if u.unit == "chunk"],
                                      dtype=np.int64)
        self._manifest = Manifest(model, dict(pages or {}), built_at=time.time())

    @classmethod
    def from_corpus(cls, corpus: Corpus, embeddings: Embeddings | None = None,
                    model: str = HASH_MODEL) -> InMemoryIndex:
        """Cut every page of a corpus into units and embed them (HashEmbeddings by default)."""
        return cls([u for page in corpus for u in chunk_page(page)],
                   embeddings or HashEmbeddings(), model,
                   {page.slug: page.content_hash for page in corpus})

    def manifest(self) -> Manifest | None:
        """Return what the index holds."""
        return self._manifest

    def check_ready(self) -> Manifest:
        """Return the manifest, or raise IndexNotReady for an empty index."""
        if not self.units:
            raise IndexNotReady("The in-memory index is empty: build it from a corpus.")
        return self._manifest

    def embed_query(self, text: str) -> list[float]:
        """Embed a question with the index's embedder."""
        return self.embeddings.embed_query(text)

    def search_vector(self, vector: list[float], k: int) -> list[tuple[Chunk, float]]:
        """Return the k chunks nearest to a vector, with cosine similarity, best first."""
        import numpy as np

        if not len(self._chunk_rows):
            return []
        sims = self.matrix[self._chunk_rows] @ np.asarray(vector, dtype=np.float32)
        # A stable sort: ties keep id order, so results never depend on the run.
        order = np.argsort(-sims, kind="stable")[:k]
        return [(self.units[int(self._chunk_rows[i])], float(sims[i])) for i in order]

    def snapshot(self) -> tuple[list[Chunk], Any]:
        """Return every unit, sorted by id, and the matrix of their vectors."""
        return list(self.units), self.matrix

    def add_units(self, units: list[Chunk]) -> None:
        """Upsert units (a staff FAQ entry) and bump built_at."""
        ids = {u.id for u in units}
        self._rebuild([u for u in self.units if u.id not in ids] + list(units))

    def remove_chunk(self, chunk_id: str) -> None:
        """Delete a chunk and its question and sentence units; bump built_at."""
        self._rebuild([u for u in self.units
                       if u.id != chunk_id and u.chunk_id != chunk_id])

    def _rebuild(self, units: list[Chunk]) -> None:
        self.__init__(units, self.embeddings, self._manifest.embedding_model,
                      self._manifest.pages)


def fake_assistant(settings: Settings | None = None, corpus: Corpus | None = None,
                   llm: Any = None) -> Assistant:
    """Build an Assistant over the corpus with an in-memory index and hashed embeddings.

    `settings` defaults to the defaults (not the environment), so tests see the same values
    on every machine; `llm` is a chat model for the LLM mode (a fake one, in tests).
    """
    from .chain import Assistant
    from .config import Settings
    from .retrieve import Retriever

    settings = settings or Settings.from_env({})
    corpus = corpus if corpus is not None else load_corpus(Path(settings.corpus_dir))
    index = InMemoryIndex.from_corpus(corpus)
    retriever = Retriever(index, corpus, mode=settings.retriever)
    return Assistant(settings, corpus, index, retriever, llm=llm)
