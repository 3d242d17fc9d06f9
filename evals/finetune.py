"""Fine-tuning the embedding model: does in-domain training put visitors' questions on the
right page? (Issue 22's first candidate; measured, not shipped.)

Trains the packaged MiniLM with in-batch negatives (a plain torch loop: no `datasets` or
`accelerate` needed) on golden + one half of dev (each question to the passage of its first
source page that holds most of its key facts) + the corpus's FAQ questions (to their answer
passages), then scores a plain dense search (the page of the nearest passages) on the other
half of dev, against the packaged model. Needs a built index (`make index`):

    python evals/finetune.py base                     # the packaged model on dev half B
    python evals/finetune.py train A 2 2e-5 [OUT]     # train on half A: 2 epochs, lr 2e-5

2026-11-26, 2 cores: 1,029 pairs, 2 epochs in 377 s; dev half B (287 questions) hit@1
0.815 -> 0.826, hit@5 0.965 -> 0.969. Three questions' worth, for six minutes of training on
every first start and a re-embedded index: not shipped.
"""

from __future__ import annotations

import json
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

HERE = Path(__file__).resolve().parent
BATCH = 32
SCALE = 20.0  # cosine similarities times this are the logits of the in-batch softmax


def _items(name: str) -> list[dict]:
    """Single-turn, answerable, non-calculator questions of a labelled file."""
    out = []
    for line in (HERE / name).read_text(encoding="utf-8").splitlines():
        item = json.loads(line) if line.strip() else {}
        expect = item.get("expect", {})
        if (expect.get("sources") and not expect.get("refuse") and not item.get("history")
                and not expect.get("tool")):
            out.append(item)
    return out


def _positive(item: dict, page_chunks: dict) -> object | None:
    """The passage of the first source page naming most of the question's key facts."""
    candidates = page_chunks.get(item["expect"]["sources"][0], [])

    def facts(chunk: object) -> int:
        text = chunk.text.lower()
        return sum(any(a.lower() in text for a in alts) for alts in item["expect"]["nuggets"])

    return max(candidates, key=lambda c: (facts(c), -candidates.index(c)), default=None)


def _score(model: object, units: list, questions: list[dict]) -> tuple[float, float]:
    """Right page first and in the first five pages, for a plain dense search."""
    import numpy as np

    vectors = model.encode([u.embed_text for u in units], batch_size=64,
                           normalize_embeddings=True)
    asked = model.encode([q["question"] for q in questions], batch_size=64,
                         normalize_embeddings=True)
    first = five = 0
    for row, item in zip(asked @ vectors.T, questions, strict=True):
        pages: list[str] = []
        for j in np.argsort(-row):
            if units[j].slug not in pages:
                pages.append(units[j].slug)
            if len(pages) == 5:
                break
        sources = set(item["expect"]["sources"])
        first += pages[0] in sources
        five += bool(sources & set(pages))
    return round(first / len(questions), 3), round(five / len(questions), 3)


def main(argv: list[str]) -> None:
    import torch
    from sentence_transformers import SentenceTransformer

    from assistant.config import Settings
    from assistant.embedding import resolve_model
    from assistant.index import Index

    torch.manual_seed(0)
    torch.set_num_threads(2)
    settings = Settings.from_env()
    chunks, _ = Index(settings).snapshot()
    units = [c for c in chunks if c.unit in ("chunk", "question")]
    by_id = {c.id: c for c in chunks}
    page_chunks: dict[str, list] = {}
    for c in chunks:
        if c.unit == "chunk":
            page_chunks.setdefault(c.slug, []).append(c)
    dev = _items("dev.jsonl")
    random.Random(7).shuffle(dev)
    half_a, half_b = dev[:len(dev) // 2], dev[len(dev) // 2:]
    if len(argv) > 1 and argv[1] == "B":
        half_a, half_b = half_b, half_a
    pairs = []
    for item in _items("golden.jsonl") + half_a:
        if (passage := _positive(item, page_chunks)) is not None:
            pairs.append((item["question"], passage.embed_text, passage.id))
    for c in chunks:
        if c.unit == "question" and c.chunk_id in by_id:
            answer = by_id[c.chunk_id]
            pairs.append((c.text, answer.embed_text, answer.id))
    print(f"{len(pairs)} pairs, {len(half_b)} held-out questions", flush=True)
    model = SentenceTransformer(resolve_model(settings.embedding_model), device="cpu")
    if not argv or argv[0] == "base":
        print("packaged model, held-out half: hit@1, hit@5 =", _score(model, units, half_b))
        return
    epochs = int(argv[2]) if len(argv) > 2 else 2
    rate = float(argv[3]) if len(argv) > 3 else 2e-5
    optimizer = torch.optim.AdamW(model.parameters(), lr=rate)
    steps = epochs * -(-len(pairs) // BATCH)
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda s: min(1.0, (s + 1) / (0.1 * steps)) * max(0.0, (steps - s) / steps))
    model.train()
    started = time.time()
    for epoch in range(epochs):
        order = list(range(len(pairs)))
        random.Random(epoch).shuffle(order)
        for start in range(0, len(order), BATCH):
            batch = [pairs[k] for k in order[start:start + BATCH]]
            encode = getattr(model, "preprocess", None) or model.tokenize
            q = model(encode([b[0] for b in batch]))["sentence_embedding"]
            p = model(encode([b[1] for b in batch]))["sentence_embedding"]
            q = torch.nn.functional.normalize(q, dim=-1)
            p = torch.nn.functional.normalize(p, dim=-1)
            ids = [b[2] for b in batch]
            # Two questions with the same passage in one batch are no negatives of each other.
            same = torch.tensor([[a == b and i != j for j, b in enumerate(ids)]
                                 for i, a in enumerate(ids)])
            logits = (q @ p.T * SCALE).masked_fill(same, -1e4)
            loss = torch.nn.functional.cross_entropy(logits, torch.arange(len(batch)))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            schedule.step()
        print(f"epoch {epoch}: loss {loss.item():.3f}, {time.time() - started:.0f} s", flush=True)
    model.eval()
    print("fine-tuned, held-out half: hit@1, hit@5 =", _score(model, units, half_b),
          f"({epochs} epochs, lr {rate})")
    if len(argv) > 4:
        model.save(argv[4])


if __name__ == "__main__":
    main(sys.argv[1:])
