"""Shared fixtures: offline environment, a real Chroma index of the real corpus, temp corpora,
and a fast Assistant over the real corpus with an in-memory index (`fake_bot`).

The network is blocked for every test by pytest-socket (see addopts in pyproject.toml):
only loopback connections are allowed, for the Gradio, Chroma and LLM servers tests start.

Tiers (markers in pyproject.toml): a test that asks for the real index (`built`, `bot`) is
marked `model` here, so `make test-fast` (`-m "not model and not integration"`) never loads
the embedding model; a test of the fast tier that loads it anyway fails and says so.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from assistant.cli import OFFLINE_ENV

for _key, _value in OFFLINE_ENV.items():
    os.environ.setdefault(_key, _value)

REPO = Path(__file__).resolve().parent.parent
CORPUS = REPO / "corpus"
# The index of the real corpus is cached between runs; ingest is incremental, so a run after
# a corpus edit re-embeds only what changed (and the ingest tests prove that this is safe).
TEST_DATA = REPO / ".data" / "test-index"


#: Fixtures that need the embedding model and the real Chroma index.
MODEL_FIXTURES = frozenset({"built"})


def pytest_collection_modifyitems(items):
    for item in items:
        if MODEL_FIXTURES & set(item.fixturenames):
            item.add_marker(pytest.mark.model)


@pytest.fixture(autouse=True)
def _fast_tier_loads_no_model(request):
    """Fail a test outside the model and integration tiers that loads the embedding model."""
    loaded = "sentence_transformers" in sys.modules
    yield
    slow = request.node.get_closest_marker("model") or request.node.get_closest_marker(
        "integration")
    if not (loaded or slow) and "sentence_transformers" in sys.modules:
        pytest.fail("this test loads the embedding model: mark it `model` (or use fake_bot)")


@pytest.fixture(scope="session")
def settings():
    """Settings pointing at the real corpus and a test-only index."""
    from assistant.config import Settings

    return Settings.from_env({}, corpus_dir=CORPUS, data_dir=TEST_DATA)


@pytest.fixture(scope="session")
def built(settings):
    """The real corpus, ingested into the test index."""
    from assistant.corpus import load_corpus
    from assistant.index import Index

    Index(settings.replace(torch_threads=0)).ingest(load_corpus(settings.corpus_dir),
                                                    progress=False)
    return settings


@pytest.fixture(scope="session")
def bot(built):
    """One warm Assistant over the real corpus, shared by the tests that only ask."""
    from assistant.chain import Assistant

    # No answer cache on the shared bots: tests patch code between questions, and the cache
    # assumes the code is fixed for the life of the process (tests/test_cache.py tests it).
    return Assistant.from_settings(built.replace(answer_cache_size=0))


@pytest.fixture(scope="session")
def fake_bot():
    """An Assistant over the real corpus with an in-memory index and hashed embeddings.

    No model, no Chroma, about a second to build: for tests of the chain's mechanics (input
    handling, subjects and follow-ups, routes, citations, calculations, the LLM mode with
    fake chat models). How well meaning is ranked is tested with `bot`.
    """
    from assistant.config import Settings
    from assistant.testing import fake_assistant

    return fake_assistant(Settings.from_env({}, corpus_dir=CORPUS, data_dir=TEST_DATA,
                                            answer_cache_size=0))


@pytest.fixture
def small_corpus(tmp_path):
    """A copy of three real pages in a temp folder, safe to edit."""
    root = tmp_path / "corpus"
    (root / "glossary").mkdir(parents=True)
    (root / "lessons").mkdir()
    for slug in ("infiniband", "roce", "nvlink"):
        shutil.copy(CORPUS / "glossary" / f"{slug}.md", root / "glossary" / f"{slug}.md")
    return root


@pytest.fixture
def small_settings(tmp_path, small_corpus):
    """Settings over the small corpus with a fresh on-disk index."""
    from assistant.config import Settings

    # The ONNX export of the model is shared with the test index: made once, not per test.
    return Settings.from_env({}, corpus_dir=small_corpus, data_dir=tmp_path / "data",
                             torch_threads=0, model_cache=str(TEST_DATA / "models"))


def free_port() -> int:
    """Return a free TCP port on loopback."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def chroma_server(tmp_path):
    port = free_port()
    chroma = shutil.which("chroma", path=str(Path(sys.executable).parent)) or "chroma"
    log = open(tmp_path / "chroma.log", "w")
    proc = subprocess.Popen([chroma, "run", "--path", str(tmp_path / "server-data"),
                             "--host", "127.0.0.1", "--port", str(port)],
                            stdout=log, stderr=subprocess.STDOUT,
                            env={**os.environ, "ANONYMIZED_TELEMETRY": "False"})
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v2/heartbeat", timeout=1)
            break
        except OSError:
            if proc.poll() is not None:
                pytest.fail((tmp_path / "chroma.log").read_text())
            time.sleep(0.3)
    else:
        proc.kill()
        pytest.fail("chroma run did not start")
    yield port
    proc.terminate()
    proc.wait(timeout=20)
    log.close()


@pytest.fixture
def server_settings(small_settings, chroma_server):
    return small_settings.replace(chroma_host="127.0.0.1", chroma_port=chroma_server)
