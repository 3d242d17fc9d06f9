"""/llms.txt and /llms-full.txt: grouped links to every page with its summary, every page as
Markdown, every link resolving on the app and in the static export."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from conftest import CORPUS
from fastapi import FastAPI
from fastapi.testclient import TestClient

from assistant import calculators as calc
from assistant.corpus import load_corpus
from assistant.site import SITE_NAME, Site, build_site, mount_site
from assistant.site.llms import llms_full, llms_txt, page_markdown

BASE = "http://testserver"
LINK = re.compile(r"\[([^\]]+)\]\(([^)\s]+)\)|<(https?://[^>\s]+)>|^Page: (\S+)", re.M)


@pytest.fixture(scope="module")
def corpus():
    return load_corpus(CORPUS)


@pytest.fixture(scope="module")
def client(corpus):
    app = FastAPI()
    mount_site(app, corpus)
    with TestClient(app, follow_redirects=False) as http:
        yield http


def links(text: str) -> list[str]:
    """Every URL of a Markdown text: [x](url), <url> and the `Page:` lines."""
    return [m.group(2) or m.group(3) or m.group(4) for m in LINK.finditer(text)]


def own(urls: list[str]) -> list[str]:
    """The links to this site (sources on other hosts are not ours to check)."""
    return [u for u in urls if u.startswith(BASE) or u.startswith("/")]


def test_llms_txt_lists_every_page_with_its_summary_by_group(client, corpus):
    response = client.get("/llms.txt")
    assert response.status_code == 200 and response.headers["content-type"].startswith(
        "text/plain")
    text = response.text
    lines = text.splitlines()
    assert lines[0] == f"# {SITE_NAME}" and lines[2].startswith("> ")
    headings = [line for line in lines if line.startswith("## ")]
    assert headings == ["## Glossary", "## Lessons", "## Calculators"]
    groups = dict(zip(["glossary", "lesson", "calculators"],
                      re.split(r"^## .+$", text, flags=re.M)[1:], strict=True))
    for page in corpus:
        entry = f"- [{page.title}]({BASE}{page.url}): {page.summary}"
        assert entry in groups[page.kind].splitlines(), page.slug
    for spec in calc.REGISTRY.values():
        assert f"[{spec.label}]({BASE}/calculators/" in groups["calculators"]
    assert len(own(links(text))) == len(corpus) + len(calc.REGISTRY) + 1  # + llms-full.txt


def test_every_link_of_llms_txt_and_llms_full_resolves_on_the_app(client):
    for name in ("/llms.txt", "/llms-full.txt"):
        text = client.get(name).text
        urls = own(links(text))
        assert urls, name
        for url in set(urls):
            path = urlsplit(url).path
            assert client.get(path).status_code == 200, (name, url)
    index = client.get("/llms.txt").text
    assert f"{BASE}/llms-full.txt" in index


def test_llms_full_is_every_page_as_clean_markdown(client, corpus):
    text = client.get("/llms-full.txt").text
    site = Site(corpus)
    for page in corpus:
        assert page_markdown(site, page, BASE).strip() in text, page.slug
        assert f"# {page.title}\n" in text
        for item in page.faq:
            assert f"**{item.q}**" in text
    nvlink = page_markdown(site, corpus.get("nvlink"), BASE)
    assert "## Definition\n\n" in nvlink and "## Facts\n\n- " in nvlink
    assert not re.search(r"<(div|p|a|span|table)\b", text)  # Markdown, not rendered HTML
    for spec in calc.REGISTRY.values():
        assert f"# {spec.label}\n" in text
        for field in spec.inputs.model_fields:
            assert f"`{field}`" in text


def _file_of(out: Path, path: str, base_path: str) -> Path:
    rel = path[len(base_path):].strip("/") if base_path else path.strip("/")
    candidate = out / rel
    return candidate if candidate.is_file() else candidate / "index.html"


@pytest.mark.parametrize("base_path", ["", "/docs"])
def test_the_static_export_has_them_and_every_link_resolves(tmp_path, corpus, base_path):
    out = tmp_path / "public"
    build_site(corpus, out, "https://assistant.example.com", base_path=base_path)
    for name in ("llms.txt", "llms-full.txt"):
        text = (out / name).read_text(encoding="utf-8")
        urls = own(links(text))
        assert urls and all(u.startswith(base_path + "/") for u in urls)
        for url in set(urls):
            path = urlsplit(url).path
            assert _file_of(out, path, base_path).is_file(), (name, url)
    assert (out / "llms.txt").read_text(encoding="utf-8") == llms_txt(
        Site(corpus, static=True, base_path=base_path,
             assistant_url="https://assistant.example.com"))
    assert (out / "llms-full.txt").read_text(encoding="utf-8") == llms_full(
        Site(corpus, static=True, base_path=base_path,
             assistant_url="https://assistant.example.com"))


@pytest.mark.integration
def test_the_app_serves_them_past_the_edge(fake_bot, tmp_path):
    from assistant.store import Store
    from assistant.web import create_app

    with TestClient(create_app(fake_bot, Store(tmp_path / "log.sqlite3"))) as http:
        for name in ("/llms.txt", "/llms-full.txt"):
            response = http.get(name)
            assert response.status_code == 200 and response.text.startswith(f"# {SITE_NAME}")
