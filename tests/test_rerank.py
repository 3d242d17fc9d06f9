"""The learned page order: features, fitting, the labelled-question memory, the cache."""

from pathlib import Path

import numpy as np
import pytest

from assistant.corpus import Chunk
from assistant.rerank import FEATURES, Labelled, Memory, Reranker
from assistant.retrieve import Hit, Passage, Retrieval


def _hit(slug: str, score: float, sim: float, lift: float = 0.0) -> Hit:
    chunk = Chunk(id=f"{slug}::0", slug=slug, title=slug, section="Summary", text="x",
                  url=f"/glossary/{slug}", kind="glossary")
    return Hit(slug=slug, title=slug, url=f"/glossary/{slug}", kind="glossary",
               score=score + lift, similarity=sim,
               passages=(Passage(chunk, score, sim),), term_match=lift > 0)


def _retrieval(query: str, vector, hits) -> Retrieval:
    return Retrieval(query=query, hits=hits, terms=[], vector=vector, best_similarity=0.5)


def _unit(i: int, n: int = 8) -> np.ndarray:
    v = np.zeros(n, dtype=np.float32)
    v[i % n] = 1.0
    return v


def _examples(count: int = 40) -> list[Labelled]:
    """The retriever ranks a named term's page first; the closer page answers."""
    out = []
    for i in range(count):
        named, answering = f"term{i % 5}", f"lesson{i % 5}"
        hits = [_hit(named, 0.03, 0.55, lift=0.05), _hit(answering, 0.03, 0.80),
                _hit("other", 0.02, 0.40)]
        out.append(Labelled(f"question {i}", (answering,), _retrieval(f"q{i}", _unit(i), hits)))
    return out


def test_fit_learns_to_put_the_answering_page_first():
    reranker = Reranker.fit(_examples())
    fresh = _retrieval("new", _unit(3), [_hit("term9", 0.03, 0.5, lift=0.05),
                                         _hit("lesson9", 0.03, 0.78), _hit("x", 0.01, 0.3)])
    assert fresh.hits[0].slug == "term9"
    assert reranker.rerank(fresh).slugs[0] == "lesson9"
    assert len(reranker.features(fresh)[0]) == len(FEATURES)


def test_nothing_to_learn_keeps_the_retrievers_order():
    same = [Labelled("q", ("a",), _retrieval("q", _unit(0), [_hit("a", 0.03, 0.5)]))]
    reranker = Reranker.fit(same)
    r = _retrieval("q2", _unit(1), [_hit("b", 0.03, 0.5), _hit("c", 0.02, 0.6)])
    assert reranker.rerank(r).slugs == ["b", "c"]


def test_memory_votes_for_neighbours_pages_but_not_for_the_same_question():
    vectors = np.stack([_unit(0), _unit(0) * 0.9 + _unit(1) * 0.1, _unit(2)])
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    memory = Memory(["what is ib", "whats infiniband", "what is pfc"],
                    ["infiniband", "infiniband", "priority-flow-control"], vectors)
    vote, nearest = memory.votes(_unit(0), "What is IB?")  # same text as the first: left out
    assert set(vote) == {"infiniband"} and vote["infiniband"] < 1.0
    assert set(nearest) == {"infiniband"}
    assert memory.votes(_unit(5), "unrelated") == ({}, {})


def test_json_round_trip_scores_the_same():
    reranker = Reranker.fit(_examples())
    again = Reranker.from_json(reranker.to_json())
    r = _examples(1)[0].retrieval
    assert again.scores(r) == pytest.approx(reranker.scores(r))
    with pytest.raises(ValueError):
        Reranker.from_json({**reranker.to_json(), "version": "0"})


def test_the_sealed_split_is_never_trained_on(tmp_path):
    sealed = tmp_path / "test.jsonl"
    sealed.write_text("")
    with pytest.raises(ValueError, match="sealed"):
        Reranker.load_or_train(object(), (sealed,))


@pytest.mark.model
def test_trained_once_then_loaded_from_the_cache(built, tmp_path):
    from assistant.chain import Assistant

    bot = Assistant.from_settings(built.replace(data_dir=built.data_dir))
    assert bot.learning.pages is not None
    cached = list((Path(built.data_dir) / "learned").glob("reranker-*.json"))
    assert cached
    stamp = cached[0].stat().st_mtime_ns

    def no_turns(*args, **kwargs):
        raise AssertionError("retrained although the cache was valid")

    again = Assistant.from_settings(built)
    again.turn = no_turns  # type: ignore[method-assign]
    assert Reranker.load_or_train(again) is not None
    assert cached[0].stat().st_mtime_ns == stamp
    assert bot.ask("what udp port does rocev2 use").retrieved
