"""The glossary site without a model: every page renders from the corpus, every anchor a
citation can use exists, links resolve (related ones both ways), calculator forms agree with
the calculators, and the static export rewrites only what changed."""

from __future__ import annotations

import json
import re
from html import unescape
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urlencode, urlsplit

import pytest
from conftest import CORPUS
from fastapi import FastAPI
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from assistant import calculators as calc
from assistant import quantities
from assistant.calculators._base import number_kind
from assistant.corpus import chunk_page, load_corpus
from assistant.site import CalculatorForm, Site, build_site, calculator_slug, mount_site
from assistant.site.export import MANIFEST

ASSISTANT = "https://assistant.example.com"


class Parsed(HTMLParser):
    """The ids, links, scripts and inline styles of one HTML page."""

    def __init__(self, html: str):
        super().__init__()
        self.ids: list[str] = []
        self.links: list[str] = []
        self.inline_scripts = 0
        self.styles = 0
        self.asks: list[str] = []
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids.append(a["id"])
        if tag == "a" and a.get("href"):
            self.links.append(a["href"])
        if tag == "script" and not a.get("src"):
            self.inline_scripts += 1
        if "style" in a or tag == "style":
            self.styles += 1
        if a.get("data-ask"):
            self.asks.append(a["data-ask"])


@pytest.fixture(scope="module")
def corpus():
    return load_corpus(CORPUS)


@pytest.fixture(scope="module")
def site(corpus):
    return Site(corpus)


@pytest.fixture(scope="module")
def client(corpus):
    app = FastAPI()
    mount_site(app, corpus)
    with TestClient(app, follow_redirects=False) as http:
        yield http


def _get(client, url: str):
    return client.get(url, follow_redirects=True)


# -- pages ---------------------------------------------------------------------------------

def test_every_page_renders_with_its_parts(site, corpus):
    for page in corpus:
        html = site.page(page.slug)
        parsed = Parsed(html)
        assert f"<h1>{_esc(page.title)}</h1>" in html, page.slug
        assert _esc(page.summary) in html, page.slug
        for item in page.faq:
            assert item.q in parsed.asks, (page.slug, item.q)  # a button that asks the widget
            assert _esc(item.a) in html, (page.slug, item.q)
        for value in page.facts.values():
            assert f"<td>{_esc(value)}</td>" in html, (page.slug, value)
        for source in page.sources:
            assert _esc(source.title) in html, (page.slug, source.title)
        assert f'datetime="{page.updated}"' in html, page.slug
        assert "data-widget-src=\"/widget?page=" + page.slug + '"' in html


def test_every_cited_section_has_its_anchor(client, corpus):
    """For every page and every section a citation can name, the cited URL is served and its
    anchor is an id on the page (the URLs come from compose.CitationList, as in answers)."""
    from assistant.compose import CitationList

    dead = []
    pages: dict[str, Parsed] = {}
    for page in corpus:
        for section in sorted({c.section for c in chunk_page(page)}):
            cites = CitationList(corpus)
            cites.cite(page.slug, section)
            url = cites.build()[0].url
            path, _, fragment = url.partition("#")
            if path not in pages:
                response = client.get(path)
                if response.status_code != 200:
                    dead.append(f"{url}: HTTP {response.status_code}")
                    continue
                pages[path] = Parsed(response.text)
            if fragment and fragment not in pages[path].ids:
                dead.append(f"{url}: no id {fragment!r}")
    assert not dead, "\n".join(dead)
    assert len(pages) == len(corpus)


def test_ids_are_unique_and_pages_need_nothing_from_other_hosts(client, site):
    for path in site.paths():
        response = client.get(path)
        assert response.status_code == 200, path
        parsed = Parsed(response.text)
        duplicates = {i for i in parsed.ids if parsed.ids.count(i) > 1}
        assert not duplicates, (path, duplicates)
        # The CSP allows only our own script and style: none inline.
        assert parsed.inline_scripts == 0 and parsed.styles == 0, path
        external = [u for u in re.findall(r'(?:src|href)="(https?://[^"]+)"', response.text)]
        allowed = {s.url for p in site.corpus for s in p.sources if s.url}
        assert set(external) <= allowed, (path, set(external) - allowed)


def test_every_link_on_the_site_resolves(client, site):
    """Crawl from the three indexes: every internal link (related, lesson to calculator,
    breadcrumbs, the 404's suggestions) is served, and every #anchor exists where it points."""
    seen: dict[str, Parsed] = {}
    queue = ["/glossary/", "/learn/", "/calculators/", "/glossary/no-such-term"]
    dead = []
    while queue:
        path = queue.pop()
        if path in seen:
            continue
        response = _get(client, path)
        if response.status_code != 200 and path != "/glossary/no-such-term":
            dead.append(f"{path}: HTTP {response.status_code}")
            continue
        seen[path] = Parsed(response.text)
        for href in seen[path].links:
            parts = urlsplit(href)
            if parts.scheme or not parts.path.startswith("/"):
                if href.startswith("#") and href[1:] not in seen[path].ids:
                    dead.append(f"{path}: {href} has no target")
                continue
            if parts.path not in seen and parts.path != "/widget":  # the app's, not the site's
                queue.append(parts.path)
    for path, parsed in seen.items():
        for href in parsed.links:
            parts = urlsplit(href)
            if parts.path.startswith("/") and parts.fragment and parts.path != "/widget":
                target = seen.get(parts.path) or Parsed(_get(client, parts.path).text)
                if parts.fragment not in target.ids:
                    dead.append(f"{path}: {href} has no target")
    assert not dead, "\n".join(dead)
    assert len([p for p in seen if p.startswith(("/glossary/", "/learn/"))]) >= len(site.corpus)
    assert {f"/calculators/{calculator_slug(n)}" for n in calc.REGISTRY} <= set(seen)


def test_related_links_go_both_ways(site, corpus):
    for page in corpus:
        html = site.page(page.slug)
        related = html.split('<section id="related">', 1)[1].split("</section>", 1)[0]
        for other in site.related(page):
            assert f'href="{other.url}"' in related, (page.slug, other.slug)
            back = site.page(other.slug).split('<section id="related">', 1)[1]
            assert f'href="{page.url}"' in back.split("</section>", 1)[0], (other.slug, page.slug)


def test_lessons_link_the_calculators_that_explain_them(site, corpus):
    # The page a calculator cites links back to it: a lesson, or a glossary term whose page
    # works the example (Bandwidth: 20 GB over 400 Gb/s for the transfer time).
    for spec in calc.REGISTRY.values():
        lesson = corpus.get(spec.lesson)
        assert lesson is not None, spec.name
        assert f'href="/calculators/{calculator_slug(spec.name)}"' in site.page(lesson.slug)
    assert "Turn the page into a number:" in site.page("bandwidth")
    html = site.page("estimating-training-cost")
    assert "Turn the lesson into a number:" in html


def test_the_index_lists_every_term_with_its_summary_and_a_filter(client, corpus):
    html = client.get("/glossary/").text
    assert '<input id="filter" type="search"' in html and '<label for="filter">' in html
    for page in corpus:
        if page.kind == "glossary":
            assert f'href="{page.url}"' in html and _esc(page.summary) in html, page.slug
    titles = re.findall(r'<li data-filter="[^"]*">\s*<a href="[^"]+">([^<]+)</a>', html)
    assert titles == sorted(titles, key=str.casefold)
    lessons = client.get("/learn/").text
    assert all(f'href="{p.url}"' in lessons for p in corpus if p.kind == "lesson")


def test_unknown_pages_get_a_friendly_404(client):
    for path in ("/glossary/nvlnk", "/learn/no-such-lesson", "/calculators/no-such",
                 "/glossary/%3Cscript%3E"):
        response = client.get(path)
        assert response.status_code == 404, path
        assert "We could not find that page" in response.text
        assert "<script>" not in response.text.split("</head>", 1)[1]
    suggestion = client.get("/glossary/nvlnk").text
    assert 'href="/glossary/nvlink"' in suggestion.split("<main", 1)[1]


def test_urls_are_forgiving_but_canonical(client):
    assert client.get("/glossary").headers["location"] == "/glossary/"
    assert client.get("/glossary/nvlink/").headers["location"] == "/glossary/nvlink"
    assert client.get("/learn/nvlink").headers["location"] == "/glossary/nvlink"
    moved = client.get("/calculators/gpu_hour_cost?gpus=2")
    assert moved.status_code == 308
    assert moved.headers["location"] == "/calculators/gpu-hour-cost?gpus=2"
    assert client.get("/embed-demo").headers["location"] == "/glossary/nvlink"


def test_pages_carry_security_headers_and_versioned_assets(client):
    response = client.get("/glossary/nvlink")
    csp = response.headers["content-security-policy"]
    assert "script-src 'self'" in csp and "frame-ancestors 'self'" in csp
    assert "default-src 'self'" in csp
    css = re.search(r'href="(/site-assets/site\.css\?v=\w+)"', response.text).group(1)
    asset = client.get(css)
    assert asset.status_code == 200 and asset.headers["content-type"].startswith("text/css")
    assert "immutable" in asset.headers["cache-control"]
    assert client.get("/site-assets/../pyproject.toml").status_code == 404
    assert client.get("/site-assets/nope.js").status_code == 404


def test_markdown_is_rendered_and_raw_html_is_text(tmp_path, small_corpus):
    page = small_corpus / "glossary" / "nvlink.md"
    text = page.read_text(encoding="utf-8")
    page.write_text(text.replace("## Example\n", "## Example\n\n<script>alert(1)</script> "
                                 "[x](javascript:alert(2))\n"), encoding="utf-8")
    html = Site(load_corpus(small_corpus)).page("nvlink")
    assert "<script>alert(1)</script>" not in html and "&lt;script&gt;" in html
    assert 'href="javascript:' not in html
    assert "<table>" in html and '<div class="table-wrap"><table>' in html


# -- calculators ---------------------------------------------------------------------------

def _as_text(value) -> str:
    from assistant.site.forms import format_value

    return format_value(value)


def _example_form(spec) -> dict[str, str]:
    data = {}
    for name, value in spec.example.items():
        if isinstance(value, list):
            for i, item in enumerate(value):
                for key, v in item.items():
                    data[f"{name}.{i}.{key}"] = _as_text(v)
        else:
            data[name] = _as_text(value)
    return data


@pytest.mark.parametrize("name", list(calc.REGISTRY))
def test_every_calculator_has_a_page_with_labelled_fields(client, name):
    spec = calc.REGISTRY[name]
    html = client.get(f"/calculators/{calculator_slug(name)}").text
    form = CalculatorForm(spec)
    for f in form.all_fields():
        assert f'<label for="{f.html_id}">' in html, f.key
        assert f'name="{f.key}"' in html
    for key, value in _example_form(spec).items():
        assert re.search(rf'name="{re.escape(key)}"[^>]*value="{re.escape(value)}"', html,
                         re.S), (key, value)
    assert 'id="calc-result"' in html and "hidden" in html.split('id="calc-result"')[1][:200]


@pytest.mark.parametrize("name", list(calc.REGISTRY))
def test_a_filled_form_gives_the_same_figures_as_the_tool(client, name):
    spec = calc.REGISTRY[name]
    expected = spec.function(**spec.example)
    outcome = CalculatorForm(spec).submit(_example_form(spec))
    assert outcome.ok, outcome.errors
    assert outcome.result.to_dict() == expected.to_dict()
    api = client.get(f"/api/calculators/{calculator_slug(name)}",
                     params=_example_form(spec)).json()
    assert api["ok"] and api["summary"] == expected.summary
    assert api["formula"] == expected.formula and api["working"] == expected.working
    page = client.get(f"/calculators/{calculator_slug(name)}", params=_example_form(spec))
    assert page.status_code == 200
    assert _esc(expected.formula) in page.text
    for step in expected.working:
        assert f"<li>{_esc(step)}</li>" in page.text


def test_256_gpus_at_7_dollars_for_100_hours(client):
    page = client.get("/calculators/gpu-hour-cost",
                      params={"gpus": "256", "price_per_gpu_hour": "$7", "hours": "100"})
    assert page.status_code == 200
    assert "256 GPUs × $7.00/GPU-hour × 100 h = $179,200" in page.text
    assert "Method" in page.text  # the chat's words for the same working
    assert 'data-ask="What is the GPU-hour cost for 256 GPUs, $7.00 per GPU-hour, 100 hours?"' \
        in page.text


BAD = {"": ("is required",), "-5": ("positive", "from", "at least"),
       "abc": ("must be a number",), "1e308": ("at most", "from"), "nan": ("finite",),
       "inf": ("finite",), "0": ("positive", "from", "at least", "above 0"),
       "2.5e": ("must be a number",)}


@pytest.mark.parametrize("name", list(calc.REGISTRY))
@pytest.mark.parametrize("bad", list(BAD))
def test_bad_inputs_name_the_field_and_never_500(client, name, bad):
    spec = calc.REGISTRY[name]
    form = CalculatorForm(spec)
    good = _example_form(spec)
    for f in form.all_fields():
        if f.kind == "text" or f.key not in good:
            continue  # only fields the example fills (others may be empty by design)
        data = {**good, f.key: bad}
        if bad == "" and not f.required:
            continue
        if bad == "0" and CalculatorForm(spec).submit({**good, f.key: "0"}).ok:
            continue  # 0 is a valid slowdown or latency
        api = client.get(f"/api/calculators/{calculator_slug(name)}", params=data)
        page = client.get(f"/calculators/{calculator_slug(name)}", params=data)
        assert api.status_code == 422 and page.status_code == 422, (f.key, bad, api.text)
        message = api.json()["errors"].get(f.key, "")
        label = form.label(f.key)
        assert message.startswith(label), (f.key, bad, api.json())
        assert any(words in message for words in BAD[bad]), (f.key, bad, message)
        assert f'data-error-for="{f.key}">{_esc(message)}</p>' in page.text
        assert 'aria-invalid="true"' in page.text


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.sampled_from(list(calc.REGISTRY)), st.dictionaries(
    st.sampled_from(["gpus", "hours", "price_per_gpu_hour", "mfu", "quotes.0.hours",
                     "quotes.1.name", "pue", "tokens_per_second", "buffer_gb"]),
    st.text(max_size=30) | st.floats().map(str) | st.integers().map(str), max_size=4))
def test_any_text_gives_a_result_or_a_message(client, name, data):
    response = client.get(f"/api/calculators/{calculator_slug(name)}", params=data)
    assert response.status_code in (200, 422), response.text
    body = response.json()
    assert body["ok"] == (response.status_code == 200)
    if not body["ok"]:
        assert all(isinstance(m, str) and m for m in body["errors"].values())


def test_quote_rows_skip_empty_ones_and_name_the_row(client):
    form = CalculatorForm(calc.REGISTRY["compare_cluster_quotes"])
    # Rows up to the list's maximum: the two examples shown, the rest spare.
    assert len(form.groups) == 1 and len(form.groups[0].rows) == calc.MAX_QUOTES == 10
    assert form.groups[0].shown_rows == 2
    assert "Undefined" not in " ".join(form.defaults().values())
    assert form.submit(form.defaults()).ok
    data = {"gpus": "256", "quotes.0.name": "A", "quotes.0.price_per_gpu_hour": "6.5",
            "quotes.0.hours": "130", "quotes.2.name": "C", "quotes.2.price_per_gpu_hour": "7",
            "quotes.2.hours": "-1"}
    outcome = form.submit(data)
    assert outcome.errors == {"quotes.2.hours": "Hours of quote 3 must be a positive number "
                                                "(got -1.0)"}
    data["quotes.2.hours"] = "100"
    ok = form.submit(data)
    assert ok.ok and ok.result.cheapest == "C"
    same = form.submit({**data, "quotes.2.name": "a"})  # names must differ
    assert "quotes.2.name" in same.errors and "unique" in same.errors["quotes.2.name"]
    one = form.submit({"gpus": "256", "quotes.0.name": "A", "quotes.0.price_per_gpu_hour": "6",
                       "quotes.0.hours": "1"})
    assert one.errors == {"quotes": "Quotes: fill in at least 2 quotes"}


def test_training_cost_says_which_inputs_it_needs():
    form = CalculatorForm(calc.REGISTRY["training_cost"])
    outcome = form.submit({"price_per_gpu_hour": "7"})
    assert set(outcome.errors) == {"gpus", "hours"}
    assert outcome.errors["gpus"] == "GPUs is needed for this calculation"


def test_percent_and_money_are_read_as_people_type_them():
    serving = CalculatorForm(calc.REGISTRY["serving_cost"])
    outcome = serving.submit({"price_per_gpu_hour": "$2.00", "tokens_per_second": "1,000",
                              "utilization": "40%"})
    assert outcome.ok and outcome.args["utilization"] == 0.4


@pytest.mark.parametrize("name", list(calc.REGISTRY))
def test_ask_about_this_asks_the_chat_for_the_same_calculation(name):
    """The question "Ask about this" puts in the widget is read back by the chat's parser as
    the same calculator with the same inputs."""
    spec = calc.REGISTRY[name]
    form = CalculatorForm(spec)
    outcome = form.submit(_example_form(spec))
    question = form.question(outcome.args)
    request = quantities.detect(question)
    assert request is not None, question
    assert request.tool == name and not request.missing, (question, request)
    assert quantities.run(request).result.to_dict() == outcome.result.to_dict(), question


# -- the static export ---------------------------------------------------------------------

def test_static_build_writes_the_site_then_rewrites_only_what_changed(tmp_path, small_corpus):
    out = tmp_path / "public"
    first = build_site(load_corpus(small_corpus), out, ASSISTANT)
    assert not first.unchanged and not first.removed
    expected = {"index.html", "404.html", "glossary/index.html", "glossary/nvlink/index.html",
                "learn/index.html", "calculators/index.html", "site-assets/site.css",
                *(f"calculators/{calculator_slug(n)}/index.html" for n in calc.REGISTRY)}
    assert expected <= set(first.written)
    mtimes = {p: p.stat().st_mtime_ns for p in out.rglob("*") if p.is_file()}

    second = build_site(load_corpus(small_corpus), out, ASSISTANT)
    assert second.written == [] and second.removed == []
    assert {p: p.stat().st_mtime_ns for p in out.rglob("*") if p.is_file()} == mtimes

    page = small_corpus / "glossary" / "roce.md"
    page.write_text(page.read_text(encoding="utf-8").replace(
        "## Example\n", "## Example\n\nA new sentence about RoCE for the test.\n"),
        encoding="utf-8")
    third = build_site(load_corpus(small_corpus), out, ASSISTANT)
    assert third.written == ["glossary/roce/index.html", "llms-full.txt"]

    (small_corpus / "glossary" / "nvlink.md").unlink()
    fourth = build_site(load_corpus(small_corpus), out, ASSISTANT)
    assert fourth.removed == ["glossary/nvlink/index.html"]
    assert not (out / "glossary" / "nvlink").exists()
    assert "nvlink" not in (out / MANIFEST).read_text()


def test_static_build_never_deletes_files_it_did_not_write(tmp_path, small_corpus):
    out = tmp_path / "public"
    (out / "glossary").mkdir(parents=True)
    (out / "CNAME").write_text("glossary.example.com")
    (out / MANIFEST).write_text(json.dumps(["../outside.txt", "CNAME/../../x"]))
    (tmp_path / "outside.txt").write_text("keep me")
    build_site(load_corpus(small_corpus), out, ASSISTANT)
    assert (out / "CNAME").exists() and (tmp_path / "outside.txt").exists()


def test_static_pages_point_at_the_running_assistant(tmp_path, small_corpus):
    out = tmp_path / "public"
    build_site(load_corpus(small_corpus), out, ASSISTANT + "/")
    html = (out / "glossary" / "nvlink" / "index.html").read_text(encoding="utf-8")
    assert f'data-widget-src="{ASSISTANT}/widget?page=nvlink"' in html
    csp = unescape(re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"',
                             html).group(1))
    assert f"frame-src 'self' {ASSISTANT}" in csp and f"connect-src 'self' {ASSISTANT}" in csp
    infiniband = (out / "glossary" / "infiniband" / "index.html").read_text(encoding="utf-8")
    assert 'href="/glossary/roce/"' in infiniband  # folder URLs: no redirect on a static host
    calculator = (out / "calculators" / "gpu-hour-cost" / "index.html").read_text()
    assert f'data-api="{ASSISTANT}/api/calculators/gpu-hour-cost"' in calculator
    assert f'action="{ASSISTANT}/calculators/gpu-hour-cost"' in calculator
    nested = tmp_path / "nested"
    build_site(load_corpus(small_corpus), nested, ASSISTANT, base_path="/docs/")
    assert 'href="/docs/glossary/roce/"' in (nested / "glossary/infiniband/index.html").read_text()


def test_site_build_command(tmp_path, small_corpus, monkeypatch):
    from assistant.cli import app

    monkeypatch.setenv("ASSISTANT_CORPUS_DIR", str(small_corpus))
    runner = CliRunner()
    bad = runner.invoke(app, ["site", "build", str(tmp_path / "x"), "--assistant-url", "ftp://x"])
    assert bad.exit_code == 2 and "--assistant-url must be an http(s) URL" in bad.output
    ok = runner.invoke(app, ["site", "build", str(tmp_path / "out"),
                             "--assistant-url", ASSISTANT])
    assert ok.exit_code == 0, ok.output
    assert "ASSISTANT_ALLOWED_ORIGINS" in ok.output
    assert (tmp_path / "out" / "glossary" / "infiniband" / "index.html").is_file()


def _esc(text: str) -> str:
    return (text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&#34;").replace("'", "&#39;"))


def test_form_values_survive_an_error(client):
    page = client.get("/calculators/gpu-hour-cost",
                      params={"gpus": "lots", "price_per_gpu_hour": "7", "hours": "100"}).text
    assert 'value="lots"' in page and "GPUs must be a number (got &#39;lots&#39;)" in page


def test_calculator_query_is_not_echoed_as_markup(client):
    payload = '"><script>alert(1)</script>'
    page = client.get("/calculators/gpu-hour-cost" + "?" + urlencode({"gpus": payload})).text
    assert "<script>alert(1)" not in page


def test_site_package_data_is_listed_for_setuptools():
    text = (Path(__file__).resolve().parent.parent / "pyproject.toml").read_text()
    assert '"assistant.site.templates"' in text and '"assistant.site.assets"' in text
    assets = Path(__file__).resolve().parent.parent / "assistant" / "site" / "assets"
    assert {p.name for p in assets.iterdir()} >= {"site.css", "site.js", "widget-bridge.js",
                                                   "favicon.svg"}


@pytest.mark.parametrize(("name", "key", "text", "value"), [
    ("gpu_hour_cost", "gpus", "1.5k", 1500),
    ("gpu_hour_cost", "hours", "2 weeks", 336.0),
    ("gpu_hour_cost", "price_per_gpu_hour", "2.49 an hour", 2.49),
    ("power_cost", "price_per_kwh", "12 cents", 0.12),
    ("power_cost", "watts_per_gpu", "700 W", 700.0),
    ("serving_cost", "utilization", "60%", 0.6),
    ("serving_cost", "utilization", "utilization 60%", 0.6),
    ("allreduce_time", "link_gbps", "400 Gb/s", 400.0),
])
def test_form_fields_read_amounts_with_the_chats_parser(name, key, text, value):
    spec = calc.REGISTRY[name]
    outcome = CalculatorForm(spec).submit({**_example_form(spec), key: text})
    assert outcome.ok, outcome.errors
    assert outcome.args[key] == pytest.approx(value)
    assert quantities.amount(text, key, number_kind(spec.inputs, key)) == outcome.args[key]
