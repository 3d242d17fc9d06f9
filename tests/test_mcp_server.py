"""The MCP server with the SDK's own client: over streamable HTTP on the running app (/mcp),
over stdio (`python -m assistant mcp` in a subprocess), and in-process for the details."""

from __future__ import annotations

import os
import sqlite3
import sys
from contextlib import closing

import anyio
import httpx
import pytest
from conftest import CORPUS, REPO, TEST_DATA
from mcp import Client, MCPError, StdioServerParameters
from test_ui import serve

from assistant import calculators as calc
from assistant.mcp_server import GlossaryMcp, one_line
from assistant.store import Store
from assistant.web import create_app

OUTSIDE = "what is the capital of France?"


def run(coro_fn, *args):
    """Run one async test body."""
    return anyio.run(coro_fn, *args)


def sessions(log) -> set[str]:
    """The sessions the questions of a log came from."""
    with closing(sqlite3.connect(log)) as conn:
        return {row[0] for row in conn.execute("SELECT session FROM questions")}


async def check_tools(client: Client) -> None:
    tools = {t.name: t for t in (await client.list_tools()).tools}
    assert {"ask", "search_glossary", "get_page", *calc.REGISTRY} == set(tools)
    for name, spec in calc.REGISTRY.items():  # generated from the registry, schema included
        assert tools[name].input_schema["properties"].keys() == spec.inputs.model_fields.keys()
        assert tools[name].description == one_line(spec.description)
    for tool in tools.values():
        assert tool.input_schema["type"] == "object"
        assert tool.description and "\n" not in tool.description


async def check_calls(client: Client, bot, base: str) -> None:
    result = await client.call_tool("ask", {"question": "what is nvlink?"})
    assert not result.is_error
    data = result.structured_content
    expected = bot.ask("what is nvlink?").to_json()
    assert data["answer"] == expected["answer"] and not data["refused"]
    assert [c["url"] for c in data["citations"]] == [
        base + c["url"] for c in expected["citations"]]
    assert data["citations"] and data["citations"][0]["url"].startswith(base + "/glossary/")

    refused = await client.call_tool("ask", {"question": OUTSIDE})
    assert not refused.is_error  # an answer, not a failure: the refusal is in the object
    assert refused.structured_content["refused"] is True
    assert refused.structured_content["kind"] == "refusal"

    cost = await client.call_tool("gpu_hour_cost", {"gpus": 8, "price_per_gpu_hour": 2,
                                                    "hours": 10})
    assert not cost.is_error and cost.structured_content["total_cost"] == 160.0

    bad = await client.call_tool("gpu_hour_cost", {"gpus": -8, "price_per_gpu_hour": 2,
                                                   "hours": 10})
    assert bad.is_error
    assert "gpus" in bad.content[0].text and "greater than 0" in bad.content[0].text


# -- streamable HTTP on the app ---------------------------------------------------------------

@pytest.fixture(scope="module")
def app_url(fake_bot, tmp_path_factory):
    log = tmp_path_factory.mktemp("mcp") / "log.sqlite3"
    store = Store(log)
    settings = fake_bot.settings.replace(mcp=1, rate_limit_per_minute=1000,
                                         max_request_bytes=8192)
    with serve(create_app(fake_bot, store, settings=settings)) as base:
        yield base, log


@pytest.mark.integration
def test_http_lists_and_calls_the_tools(app_url, fake_bot):
    base, log = app_url

    async def body():
        async with Client(base + "/mcp") as client:
            await check_tools(client)
            await check_calls(client, fake_bot, base)
            pages = (await client.list_resources()).resources
            assert "glossary://page/nvlink" in {str(r.uri) for r in pages}
            text = (await client.read_resource("glossary://page/nvlink")).contents[0].text
            assert text.startswith("# NVLink") and f"{base}/glossary/nvlink" in text

    run(body)
    assert sessions(log) == {"mcp"}  # logged like the API's questions


@pytest.mark.integration
def test_http_refuses_an_oversized_request(app_url):
    base, _ = app_url

    async def body():
        async with Client(base + "/mcp") as client:
            with pytest.raises(MCPError, match="error response"):  # the 413, as the SDK says it
                await client.call_tool("ask", {"question": "x" * 10_000})
    run(body)
    raw = httpx.post(base + "/mcp", content=b"{" + b" " * 9000 + b"}",
                     headers={"content-type": "application/json"})
    assert raw.status_code == 413 and "8,192" in raw.json()["detail"]


@pytest.mark.integration
def test_http_is_held_to_the_question_limits(fake_bot, tmp_path):
    settings = fake_bot.settings.replace(mcp=1, rate_limit_per_minute=1)
    with serve(create_app(fake_bot, Store(tmp_path / "log.sqlite3"), settings=settings)) as base:
        async def body():
            async with Client(base + "/mcp") as client:
                first = await client.call_tool("ask", {"question": "what is roce?"})
                second = await client.call_tool("ask", {"question": "what is roce?"})
                cost = await client.call_tool("gpu_hour_cost", {
                    "gpus": 1, "price_per_gpu_hour": 1, "hours": 1})
            return first, second, cost

        first, second, cost = run(body)
    assert not first.is_error
    assert second.is_error and second.structured_content["kind"] == "rate_limited"
    assert second.structured_content["retry_after_s"] >= 1
    assert not cost.is_error  # calculators are not questions


@pytest.mark.integration
@pytest.mark.parametrize(("trusted", "refused"), [("127.0.0.1", [False, False, True]),
                                                  ("", [False, True, True])])
def test_http_reads_x_forwarded_for_only_from_a_trusted_proxy(fake_bot, tmp_path, trusted,
                                                                refused):
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    settings = fake_bot.settings.replace(mcp=1, rate_limit_per_minute=1, trusted_proxies=trusted)
    with serve(create_app(fake_bot, Store(tmp_path / "log.sqlite3"), settings=settings)) as base:
        async def ask_as(ip):
            async with httpx2.AsyncClient(headers={"x-forwarded-for": ip}, timeout=60) as http:
                async with Client(streamable_http_client(base + "/mcp", http_client=http)) as c:
                    return await c.call_tool("ask", {"question": "what is roce?"})

        results = [run(ask_as, ip) for ip in ("203.0.113.1", "203.0.113.2", "203.0.113.1")]
    # Behind the trusted proxy each visitor has a limit of their own; otherwise the proxy is
    # one client, as for /api/ask.
    assert [r.is_error for r in results] == refused


@pytest.mark.integration
def test_mcp_is_off_by_default(fake_bot, tmp_path):
    with serve(create_app(fake_bot, Store(tmp_path / "log.sqlite3"))) as base:
        assert httpx.post(base + "/mcp", json={}).status_code == 404


# -- stdio -----------------------------------------------------------------------------------

@pytest.mark.model
@pytest.mark.integration
def test_stdio_lists_and_calls_the_tools(built, bot, tmp_path):
    data = tmp_path / "data"  # the test index, with this test's own question log beside it
    data.mkdir()
    # and its model export and learned parts, which `bot` made: the server loads them instead
    # of making its own under the rest of the suite on a 2-core machine
    for part in ("chroma", "models", "learned"):
        (data / part).symlink_to(TEST_DATA / part)
    env = {**os.environ, "ASSISTANT_CORPUS_DIR": str(CORPUS), "ASSISTANT_DATA_DIR": str(data),
           "ASSISTANT_SITE_URL": "https://glossary.example", "ASSISTANT_MAX_REQUEST_BYTES": "8192",
           "PYTHONPATH": str(REPO)}
    params = StdioServerParameters(command=sys.executable, args=["-m", "assistant", "mcp"],
                                   env=env, cwd=str(REPO))

    async def body():
        async with Client(params, read_timeout_seconds=120) as client:
            await check_tools(client)
            await check_calls(client, bot, "https://glossary.example")
            big = await client.call_tool("ask", {"question": "x" * 9000})
            assert big.is_error and "Request too large" in big.content[0].text
            missing = await client.call_tool("get_page", {"slug": "no-such-page"})
            assert missing.is_error and "search_glossary" in missing.content[0].text

    run(body)
    assert sessions(data / "log.sqlite3") == {"mcp"}


# -- in-process: the details -----------------------------------------------------------------

def test_get_page_gives_the_sections_with_their_urls(fake_bot):
    glossary = GlossaryMcp(fake_bot, settings=fake_bot.settings.replace(
        site_url="https://g.example"))

    async def body():
        async with Client(glossary.server()) as client:
            page = await client.call_tool("get_page", {"slug": "roce"})
            found = await client.call_tool("search_glossary", {"query": "lossless ethernet"})
            unknown = await client.call_tool("no_such_tool", {})
            extra = await client.call_tool("get_page", {"slug": "roce", "x": 1})
        return page, found, unknown, extra

    page, found, unknown, extra = run(body)
    data = page.structured_content
    assert data["url"] == "https://g.example/glossary/roce"
    assert {"anchor": "definition", "title": "Definition",
            "url": "https://g.example/glossary/roce#definition"} in data["sections"]
    assert "## Definition" in data["markdown"] and "## FAQ" in data["markdown"]
    results = found.structured_content["results"]
    assert results and all(r["url"].startswith("https://g.example/") and r["summary"]
                           for r in results)
    assert unknown.is_error and "get_page" in unknown.content[0].text
    assert extra.is_error and "x: Extra inputs are not permitted" in extra.content[0].text


def test_a_new_calculator_needs_no_mcp_code(fake_bot, monkeypatch):
    spec = calc.REGISTRY["gpu_hour_cost"]
    clone = type(spec)(**{**{f: getattr(spec, f) for f in spec.__dataclass_fields__},
                          "name": "gpu_hour_cost_copy"})
    monkeypatch.setattr(calc, "REGISTRY", {**calc.REGISTRY, "gpu_hour_cost_copy": clone})
    assert "gpu_hour_cost_copy" in GlossaryMcp(fake_bot).tools
