import pytest

from assistant.corpus import chunk_page, load_corpus, read_page
from assistant.index import Index, IndexNotReady, OverlayIndex, VectorIndex


def test_the_chroma_index_is_a_vector_index_and_loads_nothing_when_made(small_settings):
    index = Index(small_settings)
    assert isinstance(index, VectorIndex)
    assert not {"embeddings", "client", "store"} & set(vars(index))


def test_missing_index_fails_fast_and_names_the_fix(small_settings):
    with pytest.raises(IndexNotReady, match="python -m assistant ingest"):
        Index(small_settings).check_ready()


@pytest.mark.model
def test_ingest_is_incremental(small_settings, small_corpus):
    index = Index(small_settings)
    first = index.ingest(load_corpus(small_corpus), progress=False)
    assert first.rebuilt and sorted(first.added) == ["infiniband", "nvlink", "roce"]
    total = index.collection.count() + index.sentences.count()
    assert total == first.units_embedded > 0
    # Section chunks (dense search) and sentence/question vectors live apart.
    assert {m["unit"] for m in index.collection.get(include=["metadatas"])["metadatas"]} \
        == {"chunk"}
    assert {m["unit"] for m in index.sentences.get(include=["metadatas"])["metadatas"]} \
        == {"sentence", "question"}

    again = index.ingest(load_corpus(small_corpus), progress=False)
    assert again.units_embedded == 0 and again.unchanged == 3 and not again.rebuilt

    path = small_corpus / "glossary" / "roce.md"
    path.write_text(path.read_text().replace("## Example\n",
                                             "## Example\nRoCE test sentence added here.\n"))
    edited = index.ingest(load_corpus(small_corpus), progress=False)
    assert edited.changed == ["roce"] and edited.unchanged == 2
    # Only the new sentence and its section are embedded: unchanged text keeps its vector.
    assert edited.units_embedded + edited.units_reused == len(chunk_page(read_page(path)))
    assert edited.units_embedded == 2
    docs = index.sentences.get(where={"slug": "roce"}, include=["documents"])["documents"]
    assert "RoCE test sentence added here." in docs
    chunks = index.collection.get(where={"slug": "roce"}, include=["documents"])["documents"]
    assert any("RoCE test sentence added here." in c for c in chunks)

    (small_corpus / "glossary" / "nvlink.md").unlink()
    deleted = index.ingest(load_corpus(small_corpus), progress=False)
    assert deleted.deleted == ["nvlink"] and deleted.units_embedded == 0
    assert index.collection.get(where={"slug": "nvlink"}, include=[])["ids"] == []
    assert index.sentences.get(where={"slug": "nvlink"}, include=[])["ids"] == []
    assert set(index.manifest().pages) == {"infiniband", "roce"}


@pytest.mark.model
def test_another_embedding_model_forces_a_rebuild(small_settings, small_corpus):
    index = Index(small_settings)
    index.ingest(load_corpus(small_corpus), progress=False)
    other = Index(small_settings.replace(embedding_model="some/other-model"))
    with pytest.raises(IndexNotReady, match="built with the embedding model"):
        other.check_ready()
    # A rebuild with the same (packaged) model under a different name still re-embeds all.
    from assistant.index import resolve_model

    renamed = Index(small_settings.replace(embedding_model=resolve_model(
        small_settings.embedding_model)))
    report = renamed.ingest(load_corpus(small_corpus), progress=False)
    assert report.rebuilt and len(report.added) == 3


@pytest.mark.model
def test_search_by_vector_returns_cosine_similarity(small_settings, small_corpus):
    index = Index(small_settings)
    index.ingest(load_corpus(small_corpus), progress=False)
    hits = index.search_vector(index.embed_query("RDMA over Ethernet on UDP port 4791"), k=3)
    assert hits[0][0].slug == "roce"
    assert all(-1.0 <= sim <= 1.0 for _, sim in hits)
    assert hits[0][1] >= hits[-1][1]


def test_overlay_index_adds_units_without_writing_the_base(fake_bot):
    from assistant import staff

    base = fake_bot.index
    before = [u.id for u in base.snapshot()[0]]
    overlay = OverlayIndex(base)
    assert isinstance(overlay, VectorIndex)
    entry = staff.StaffEntry(9, "Is InfiniBand expensive?", "InfiniBand costs more than "
                             "Ethernet.", "infiniband", "ana", "", "published")
    units = staff.staff_units(entry, fake_bot.corpus.pages["infiniband"])
    overlay.add_units(units)
    ids = [u.id for u in overlay.snapshot()[0]]
    assert ids == sorted(ids) and {u.id for u in units} <= set(ids)
    assert len(overlay.snapshot()[1]) == len(ids)
    top = overlay.search_vector(overlay.embed_query(units[0].embed_text), 3)
    assert top[0][0].id == entry.chunk_id
    assert overlay.manifest().built_at >= base.manifest().built_at
    assert [u.id for u in base.snapshot()[0]] == before  # the base never saw them
    overlay.remove_chunk(entry.chunk_id)
    assert [u.id for u in overlay.snapshot()[0]] == before


@pytest.mark.model
def test_search_after_a_snapshot_agrees_with_chroma_and_follows_changes(small_settings,
                                                                        small_corpus):
    index = Index(small_settings)
    index.ingest(load_corpus(small_corpus), progress=False)
    queries = ["RDMA over Ethernet on UDP port 4791", "what is nvlink", "credit-based flow"]
    vectors = [index.embed_query(q) for q in queries]
    by_chroma = [index.search_vector(v, 5) for v in vectors]
    index.snapshot()  # what the retriever does at start and on every refresh
    by_matrix = [index.search_vector(v, 5) for v in vectors]
    for chroma, matrix in zip(by_chroma, by_matrix, strict=True):
        assert [c.id for c, _ in matrix] == [c.id for c, _ in chroma]
        assert all(abs(a - b) < 1e-4 for (_, a), (_, b) in zip(matrix, chroma, strict=True))
    path = small_corpus / "glossary" / "roce.md"
    path.write_text(path.read_text().replace("## Example\n", "## Example\nRoCE zebra.\n"))
    index.ingest(load_corpus(small_corpus), progress=False)
    edited = next(u for u in chunk_page(read_page(path)) if "RoCE zebra." in u.text
                  and u.unit == "chunk")
    top = index.search_vector(index.embed_query(edited.embed_text), 1)[0][0]
    assert top.id == edited.id and "RoCE zebra." in top.text  # not the stale matrix's text
