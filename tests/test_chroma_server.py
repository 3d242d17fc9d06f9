"""Several processes on one index: Chroma's own server (`chroma run`) on loopback."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from assistant.chain import Assistant
from assistant.corpus import load_corpus
from assistant.index import Index, IndexNotReady

pytestmark = pytest.mark.integration


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def chroma_server(tmp_path):
    port = _free_port()
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


def test_ingest_and_answer_through_a_chroma_server(server_settings, small_corpus):
    with pytest.raises(IndexNotReady, match="Chroma server"):
        Index(server_settings).check_ready()
    report = Index(server_settings).ingest(load_corpus(small_corpus), progress=False)
    assert report.rebuilt and len(report.added) == 3
    assert not server_settings.chroma_dir.exists(), "nothing should be written locally"
    answer = Assistant(server_settings).ask("is rocev2 routable?")
    assert answer.retrieved[0] == "roce" and answer.citations
    again = Index(server_settings).ingest(load_corpus(small_corpus), progress=False)
    assert again.units_embedded == 0


def test_a_process_with_another_model_refuses_to_start(server_settings, small_corpus):
    Index(server_settings).ingest(load_corpus(small_corpus), progress=False)
    with pytest.raises(IndexNotReady, match="another|built with"):
        Assistant(server_settings.replace(embedding_model="other/model"))


_WORKER = """
import json, sys, time
from assistant.chain import Assistant
from assistant.config import Settings
bot = Assistant(Settings.from_env())
out = open(sys.argv[1], "w")
end = time.monotonic() + float(sys.argv[2])
while time.monotonic() < end:
    for q, slug in (("is rocev2 routable?", "roce"), ("whats nvlnk", "nvlink"),
                    ("what is infiniband", "infiniband")):
        a = bot.ask(q)
        out.write(json.dumps({"q": q, "ok": bool(a.retrieved) and a.retrieved[0] == slug
                              and bool(a.citations), "kind": a.kind}) + "\\n")
        out.flush()
"""


def test_two_app_processes_answer_while_a_reingest_runs(server_settings, small_corpus,
                                                        tmp_path):
    index = Index(server_settings)
    index.ingest(load_corpus(small_corpus), progress=False)
    env = {**os.environ, "CHROMA_HOST": "127.0.0.1",
           "CHROMA_PORT": str(server_settings.chroma_port),
           "ASSISTANT_CORPUS_DIR": str(small_corpus),
           "ASSISTANT_DATA_DIR": str(server_settings.data_dir)}
    outs = [tmp_path / f"worker{i}.jsonl" for i in range(2)]
    workers = [subprocess.Popen([sys.executable, "-c", _WORKER, str(out), "25"], env=env)
               for out in outs]
    try:
        # Wait until both workers answer, then change two pages and re-ingest under them.
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline and not all(
                o.exists() and o.stat().st_size for o in outs):
            time.sleep(0.5)
        for slug in ("roce", "nvlink"):
            path = small_corpus / "glossary" / f"{slug}.md"
            path.write_text(path.read_text().replace(
                "## Example\n", f"## Example\nThe {slug} page was edited during the test.\n"))
        report = index.ingest(load_corpus(small_corpus), progress=False)
        assert sorted(report.changed) == ["nvlink", "roce"]
        for w in workers:
            assert w.wait(timeout=120) == 0
    finally:
        for w in workers:
            if w.poll() is None:
                w.kill()
    rows = [json.loads(line) for out in outs for line in out.read_text().splitlines()]
    assert len(rows) > 20
    bad = [r for r in rows if not r["ok"]]
    assert not bad, bad[:5]
