"""The fast stand-ins: the hashed embedder and the in-memory index keep the VectorIndex contract."""

import math
import subprocess
import sys

import pytest

from assistant.index import IndexNotReady, VectorIndex
from assistant.retrieve import Retriever
from assistant.testing import HASH_MODEL, HashEmbeddings, InMemoryIndex


def _cos(a, b):
    return sum(x * y for x, y in zip(a, b, strict=True))


def test_hashed_embeddings_are_normalised_and_lexical():
    e = HashEmbeddings()
    pfc, frame, cake = (e.embed_query(t) for t in ("PFC pause frames", "a pause frame",
                                                   "chocolate cake"))
    assert math.isclose(_cos(pfc, pfc), 1.0, rel_tol=1e-6)
    assert _cos(pfc, frame) > 0.5 and abs(_cos(pfc, cake)) < 0.2
    assert e.embed_query("what is the") == [0.0] * e.dim  # no content word: the zero vector


def test_hashed_embeddings_are_the_same_in_another_process():
    code = ("from assistant.testing import HashEmbeddings; "
            "print(HashEmbeddings().embed_query('RoCE v2 port 4791')[:64])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == str(HashEmbeddings().embed_query("RoCE v2 port 4791")[:64])


def test_the_in_memory_index_keeps_the_vector_index_contract(fake_bot):
    index = fake_bot.index
    assert isinstance(index, InMemoryIndex) and isinstance(index, VectorIndex)
    manifest = index.check_ready()
    assert manifest.embedding_model == HASH_MODEL and set(manifest.pages) == set(
        fake_bot.corpus.pages)
    units, matrix = index.snapshot()
    assert [u.id for u in units] == sorted(u.id for u in units)
    assert matrix.shape[0] == len(units) and {u.unit for u in units} == {
        "chunk", "sentence", "question"}
    hits = index.search_vector(index.embed_query("RDMA over Ethernet UDP port 4791"), k=5)
    assert len(hits) == 5 and all(chunk.unit == "chunk" for chunk, _ in hits)
    sims = [sim for _, sim in hits]
    assert sims == sorted(sims, reverse=True) and hits[0][0].slug == "roce"


def test_an_empty_index_is_not_ready():
    with pytest.raises(IndexNotReady):
        InMemoryIndex([], HashEmbeddings()).check_ready()


def test_the_retriever_runs_on_another_store(fake_bot):
    retriever = Retriever(fake_bot.index, fake_bot.corpus)
    assert retriever.retrieve("whats nvlnk", k=5).slugs[0] == "nvlink"
    assert retriever.maybe_refresh() is False  # the manifest did not change
