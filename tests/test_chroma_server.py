"""Several processes on one index: Chroma's own server (`chroma run`) on loopback."""

from __future__ import annotations

import pytest

from assistant.chain import Assistant
from assistant.corpus import load_corpus
from assistant.index import Index, IndexNotReady

pytestmark = pytest.mark.integration


def test_ingest_and_answer_through_a_chroma_server(server_settings, small_corpus):
    with pytest.raises(IndexNotReady, match="Chroma server"):
        Index(server_settings).check_ready()
    report = Index(server_settings).ingest(load_corpus(small_corpus), progress=False)
    assert report.rebuilt and len(report.added) == 3
    assert not server_settings.chroma_dir.exists(), "nothing should be written locally"
    answer = Assistant.from_settings(server_settings).ask("is rocev2 routable?")
    assert answer.retrieved[0] == "roce" and answer.citations
    again = Index(server_settings).ingest(load_corpus(small_corpus), progress=False)
    assert again.units_embedded == 0


def test_a_process_with_another_model_refuses_to_start(server_settings, small_corpus):
    Index(server_settings).ingest(load_corpus(small_corpus), progress=False)
    with pytest.raises(IndexNotReady, match="another|built with"):
        Assistant.from_settings(server_settings.replace(embedding_model="other/model"))


