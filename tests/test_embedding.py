"""The embedding path: the batcher of concurrent questions (no model needed), the ONNX export
checked against torch, serving without torch, and an index keyed by its backend."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from typing import Any

import pytest
from conftest import REPO

from assistant.embedding import QueryBatcher

# -- the batcher -------------------------------------------------------------------------------


class SlowModel:
    """Embeds a text as [its length, batch size], taking `seconds` per forward pass."""

    def __init__(self, seconds: float = 0.0, fail: bool = False):
        self.seconds = seconds
        self.fail = fail
        self.batches: list[list[str]] = []

    def __call__(self, texts: list[str]) -> list[list[float]]:
        self.batches.append(list(texts))
        time.sleep(self.seconds)
        if self.fail:
            raise RuntimeError("model failed")
        return [[float(len(t)), float(len(texts))] for t in texts]


def ask_at_once(batcher: QueryBatcher, texts: list[str], gap_s: float = 0.0) -> dict[str, Any]:
    out: dict[str, Any] = {}

    def one(text: str) -> None:
        try:
            out[text] = batcher.embed(text)
        except Exception as exc:
            out[text] = exc

    threads = []
    for text in texts:
        threads.append(threading.Thread(target=one, args=(text,)))
        threads[-1].start()
        time.sleep(gap_s)
    for thread in threads:
        thread.join(timeout=10)
    return out


def test_questions_arriving_during_a_forward_pass_share_the_next_one():
    model = SlowModel(seconds=0.3)
    batcher = QueryBatcher(model, wait_ms=0)
    first = threading.Thread(target=batcher.embed, args=("first",))
    first.start()
    time.sleep(0.1)  # the first pass is running
    got = ask_at_once(batcher, ["a", "bb", "ccc"])
    first.join()
    assert model.batches[0] == ["first"]
    assert sorted(model.batches[1]) == ["a", "bb", "ccc"]
    assert got == {"a": [1.0, 3.0], "bb": [2.0, 3.0], "ccc": [3.0, 3.0]}  # each its own
    assert batcher.stats() == {"batches": 2, "questions": 4, "max_batch": 3,
                               "mean_batch": 2.0, "sizes": {"1": 1, "3": 1}}


def test_a_question_alone_never_waits():
    batcher = QueryBatcher(SlowModel(), wait_ms=500)
    start = time.perf_counter()
    for text in ("one", "two", "three"):  # a visitor asking in turn
        batcher.embed(text)
    assert time.perf_counter() - start < 0.3
    assert batcher.stats()["sizes"] == {"1": 3}


def test_under_load_an_idle_model_waits_a_little_for_company():
    model = SlowModel(seconds=0.1)
    batcher = QueryBatcher(model, wait_ms=300)
    ask_at_once(batcher, ["x", "y"], gap_s=0.02)  # y arrives during x's pass: contention
    model.batches.clear()
    start = time.perf_counter()
    ask_at_once(batcher, ["p", "q"], gap_s=0.05)  # q comes 50 ms after p found it idle
    assert model.batches == [["p", "q"]]
    assert time.perf_counter() - start < 0.3 + 0.1 + 0.2  # at most the wait, then one pass


def test_a_failed_pass_fails_each_of_its_questions_and_nobody_hangs():
    model = SlowModel(seconds=0.2, fail=True)
    batcher = QueryBatcher(model, wait_ms=0)
    got = ask_at_once(batcher, ["a", "b", "c"], gap_s=0.02)
    assert all(isinstance(v, RuntimeError) for v in got.values()) and len(got) == 3
    model.fail = False
    assert batcher.embed("again") == [5.0, 1.0]


# -- the ONNX path (the real model) ------------------------------------------------------------

@pytest.mark.model
def test_the_onnx_export_gives_the_torch_vectors(settings):
    import numpy as np

    from assistant.embedding import OnnxEmbeddings, ensure_export, torch_embeddings

    texts = ["what is infiniband?", "x", "RoCE needs a lossless fabric. " * 60,
             "Is NVLink faster than PCIe Gen5 for tensor parallelism across eight GPUs?"]
    onnx = OnnxEmbeddings(ensure_export(settings), threads=1, batch_size=2)
    want = np.asarray(torch_embeddings(settings).embed_documents(texts))
    got = onnx.encode(texts)  # longest first, two per pass: padding and truncation both
    assert np.abs(got - want).max() < 1e-4
    assert np.allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-5)
    assert np.abs(np.asarray(onnx.embed_query(texts[0])) - want[0]).max() < 1e-4


@pytest.mark.model
def test_the_export_is_made_once_and_kept(settings, tmp_path):
    from assistant.embedding import ensure_export, export_dir

    fresh = settings.replace(model_cache=str(tmp_path / "models"))
    folder = ensure_export(fresh)
    assert folder == export_dir(fresh) and folder.parent == tmp_path / "models"
    made = (folder / "model.onnx").stat().st_mtime_ns
    assert ensure_export(fresh) == folder
    assert (folder / "model.onnx").stat().st_mtime_ns == made
    assert json.loads((folder / "embedder.json").read_text())["max_length"] == 256
    assert [p.name for p in tmp_path.joinpath("models").iterdir()] == [folder.name]


@pytest.mark.model
def test_the_int8_model_is_made_once_next_to_the_export_and_stays_close(settings):
    import numpy as np

    from assistant.embedding import INT8_MIN_COSINE, OnnxEmbeddings, ensure_export, ensure_int8

    folder = ensure_int8(settings)
    assert folder.name == ensure_export(settings).name + "-int8"
    made = (folder / "model.onnx").stat().st_mtime_ns
    assert ensure_int8(settings) == folder and (folder / "model.onnx").stat().st_mtime_ns == made
    # int8 weights: about a quarter of the float file
    assert (folder / "model.onnx").stat().st_size < 0.4 * (
        ensure_export(settings) / "model.onnx").stat().st_size
    texts = ["what is infiniband?", "does roce need pfc?", "RoCE needs a lossless fabric. " * 20]
    want = OnnxEmbeddings(ensure_export(settings)).encode(texts)
    got = OnnxEmbeddings(folder).encode(texts)
    assert (want * got).sum(axis=1).min() >= INT8_MIN_COSINE
    assert np.allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-5)
    # A text's vector never depends on the texts embedded with it (a question's, on who
    # else asked at that moment): the served int8 model embeds one text per pass.
    from assistant.embedding import build_embeddings
    served = build_embeddings(settings.replace(embedding_backend="onnx-int8"))
    together = np.asarray(served.embed_documents([texts[0], texts[2], texts[1]]))
    assert np.array_equal(together[0], np.asarray(served.embed_query(texts[0])))


@pytest.mark.model
def test_a_served_answer_never_imports_torch_and_holds_blas_to_one_thread(built):
    # A process of its own: this one has imported torch for other tests.
    code = ("import sys, json\nfrom assistant.chain import Assistant\n"
            "bot = Assistant.from_settings()\nanswer = bot.ask('what is rdma?')\n"
            "print(json.dumps({'torch': 'torch' in sys.modules,\n"
            "  'st': 'sentence_transformers' in sys.modules,\n"
            "  'cited': bool(answer.citations),\n"
            "  'blas': sorted({i['num_threads'] for i in __import__('threadpoolctl')"
            ".threadpool_info() if i['user_api'] == 'blas'})}))")
    env = {**os.environ, "ASSISTANT_DATA_DIR": str(built.data_dir),
           "ASSISTANT_CORPUS_DIR": str(built.corpus_dir)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, cwd=REPO, timeout=300, check=True)
    assert json.loads(out.stdout.strip().splitlines()[-1]) == {
        "torch": False, "st": False, "cited": True,
        "blas": [1]}  # numpy's BLAS held to ASSISTANT_TORCH_THREADS: idle threads spin


@pytest.mark.model
def test_an_index_is_searched_only_with_the_backend_it_was_built_with(small_settings,
                                                                     small_corpus):
    from assistant.corpus import load_corpus
    from assistant.index import Index, IndexNotReady

    corpus = load_corpus(small_corpus)
    by_torch = Index(small_settings.replace(embedding_backend="torch"))
    by_torch.ingest(corpus, progress=False)
    assert by_torch.check_ready().embedding_backend == "torch"
    by_onnx = Index(small_settings)
    with pytest.raises(IndexNotReady, match="'torch' embedding backend.*ingest"):
        by_onnx.check_ready()
    report = by_onnx.ingest(corpus, progress=False)
    assert report.rebuilt and report.units_reused == 0  # no torch vector is kept
    assert by_onnx.check_ready().embedding_backend == by_onnx.backend
    assert by_onnx.ingest(corpus, progress=False).units_embedded == 0
    # an int8 index recorded before its vectors were made one text per pass is rebuilt
    if small_settings.embedding_backend == "onnx-int8":
        from dataclasses import replace

        from assistant.index import Manifest

        old = Manifest.from_metadata(by_onnx.collection.metadata)
        by_onnx.collection.modify(metadata=replace(old, embedding_backend="onnx-int8")
                                  .to_metadata())
        with pytest.raises(IndexNotReady, match="'onnx-int8' embedding backend"):
            by_onnx.check_ready()
        assert by_onnx.ingest(corpus, progress=False).rebuilt
    hits = by_onnx.search_vector(by_onnx.embed_query("RDMA over Ethernet on UDP port 4791"), 3)
    assert hits[0][0].slug == "roce"


@pytest.mark.model
def test_an_edited_page_re_embeds_only_its_new_text(small_settings, small_corpus):
    import numpy as np

    from assistant.corpus import chunk_page, load_corpus, read_page
    from assistant.index import Index

    index = Index(small_settings)
    index.ingest(load_corpus(small_corpus), progress=False)
    path = small_corpus / "glossary" / "roce.md"
    path.write_text(path.read_text().replace("## Example\n",
                                             "## Example\nRoCE test sentence added here.\n"))
    edited = index.ingest(load_corpus(small_corpus), progress=False)
    units = chunk_page(read_page(path))
    assert edited.units_embedded + edited.units_reused == len(units)
    # The new sentence and the section chunk that holds it; every other vector is kept.
    assert edited.units_embedded == 2 and "2 passages embedded" in edited.summary()
    got = index.sentences.get(where={"slug": "roce"}, include=["documents", "embeddings"])
    for doc, vector in zip(got["documents"], got["embeddings"], strict=True):
        unit = next(u for u in units if u.text == doc and u.unit != "chunk")
        want = index.embeddings.embed_query(unit.embed_text)
        assert np.abs(np.asarray(vector) - np.asarray(want)).max() < 1e-5
