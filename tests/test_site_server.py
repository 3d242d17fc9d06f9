"""The site served by the real app on loopback: no dead citation for any golden question,
the calculator API across origins, and the security headers on the new routes."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest
from test_security import _ask_http
from test_ui import serve

from assistant.store import Store
from assistant.web import create_app

pytestmark = pytest.mark.integration

GOLDEN = Path(__file__).resolve().parent.parent / "evals" / "golden.jsonl"
STATIC_HOST = "http://127.0.0.1:9"  # an origin allowed to embed the widget


class _Ids(HTMLParser):
    def __init__(self, html: str):
        super().__init__()
        self.ids: set[str] = set()
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        for key, value in attrs:
            if key == "id" and value:
                self.ids.add(value)


@pytest.fixture(scope="module")
def live(bot, tmp_path_factory):
    store = Store(tmp_path_factory.mktemp("site") / "log.sqlite3")
    settings = bot.settings.replace(allowed_origins=STATIC_HOST, rate_limit_per_minute=10_000)
    with serve(create_app(bot, store, settings=settings)) as base:
        yield base


def _golden() -> list[dict]:
    return [json.loads(line) for line in GOLDEN.read_text(encoding="utf-8").splitlines()
            if line.strip()]


def test_no_dead_citation_for_any_golden_question(bot, live):
    """Every citation URL the answers to the golden set carry is served (HTTP 200) and its
    anchor is an id on the page; a failure lists each dead link and the question behind it."""
    cited: dict[str, str] = {}  # url -> first question citing it
    for item in _golden():
        answer = bot.ask(item["question"], history=item.get("history") or [],
                         page=item.get("page"))
        for c in answer.citations:
            cited.setdefault(c.url, item["question"])
    # The app's own API gives the same URLs (a few, over HTTP).
    with httpx.Client(base_url=live, timeout=60) as http:
        for question in ("What is NVLink?", "is roce the same thing as infiniband?",
                         "256 GPUs at $7 per GPU-hour for 100 hours?"):
            for c in _ask_http(http, question)["citations"]:
                cited.setdefault(c["url"], question)
        pages: dict[str, set[str] | None] = {}
        dead = []
        for url, question in sorted(cited.items()):
            parts = urlsplit(url)
            if parts.path not in pages:
                response = http.get(parts.path)
                pages[parts.path] = _Ids(response.text).ids if response.status_code == 200 \
                    else None
                if response.status_code != 200:
                    dead.append(f"{url}: HTTP {response.status_code} (asked: {question!r})")
                    continue
            ids = pages[parts.path]
            if ids is not None and parts.fragment and parts.fragment not in ids:
                dead.append(f"{url}: no #{parts.fragment} on the page (asked: {question!r})")
    assert not dead, "dead citations:\n" + "\n".join(dead)
    assert len(cited) > 100  # the golden set cites most pages and many sections


def test_site_routes_do_not_shadow_the_chat(live):
    with httpx.Client(base_url=live, timeout=30) as http:
        assert http.get("/").status_code == 200
        assert http.get("/widget/?page=nvlink").status_code == 200
        assert http.get("/healthz").json()["ok"]
        page = http.get("/glossary/nvlink")
        assert page.status_code == 200 and 'data-widget-src="/widget?page=nvlink"' in page.text
        assert http.get("/glossary/nvlnk").status_code == 404


def test_new_routes_carry_the_security_headers(live):
    with httpx.Client(base_url=live, timeout=30) as http:
        for path in ("/glossary/", "/glossary/nvlink", "/learn/estimating-training-cost",
                     "/calculators/", "/calculators/gpu-hour-cost", "/glossary/nope"):
            response = http.get(path)
            csp = response.headers["content-security-policy"]
            assert "frame-ancestors 'self'" in csp and "script-src 'self'" in csp, path
            assert STATIC_HOST not in csp, path  # pages are not for framing elsewhere
            assert response.headers["x-content-type-options"] == "nosniff", path
        # The widget may be framed by the static host, and loads the bridge script.
        widget = http.get("/widget/?page=nvlink")
        assert f"frame-ancestors 'self' {STATIC_HOST}" in widget.headers[
            "content-security-policy"]
        assert "/site-assets/widget-bridge.js" in http.get("/widget/config").text


def test_calculator_api_answers_the_static_host_only(live):
    query = {"gpus": "256", "price_per_gpu_hour": "7", "hours": "100"}
    with httpx.Client(base_url=live, timeout=30) as http:
        ok = http.get("/api/calculators/gpu-hour-cost", params=query,
                      headers={"Origin": STATIC_HOST})
        assert ok.status_code == 200 and ok.json()["formula"].endswith("= $179,200")
        assert ok.headers["access-control-allow-origin"] == STATIC_HOST
        evil = http.get("/api/calculators/gpu-hour-cost", params=query,
                        headers={"Origin": "http://evil.example"})
        assert "access-control-allow-origin" not in evil.headers
        bad = http.get("/api/calculators/gpu-hour-cost", params={**query, "hours": "1e308"})
        assert bad.status_code == 422
        assert bad.json()["errors"]["hours"].startswith("Hours must be at most")
