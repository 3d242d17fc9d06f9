"""The glossary site's pages, rendered from the parsed corpus with Jinja2 and markdown-it-py.

A page's sections get the anchors the assistant's citations use (`corpus.anchor`, the same
function `Page.section_url` calls), so a page and its citations cannot disagree. `Site` renders
for the running app (site-relative URLs, the widget on the same origin) or for a static host
(`static=True`: directory URLs ending in "/", the widget and calculator API on the assistant's
URL). Rendering needs the corpus only: no model, no index.

Example:
    >>> site = Site(load_corpus("corpus"))
    >>> html = site.page("nvlink")                    # str, or None for an unknown slug
    >>> 'id="definition"' in html
    True
    >>> files = Site(corpus, assistant_url="https://assistant.example", static=True).files()
"""

from __future__ import annotations

import datetime as dt
import difflib
import functools
import hashlib
import re
import tomllib
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any
from urllib.parse import urlencode, urlsplit

from jinja2 import Environment, PackageLoader, select_autoescape
from markdown_it import MarkdownIt
from markupsafe import Markup

from assistant import calculators as calc
from assistant.corpus import FACT_KEYS, FACT_LABELS, FAQ_SECTION, Corpus, Page, anchor
from assistant.quantities import json_safe

from .anchors import StaffAnswer, faq_anchors, support_anchor
from .forms import CalculatorForm, Outcome

SITE_NAME = "AI Compute Glossary"
TAGLINE = "Networking for AI compute, explained: InfiniBand, RoCE, NVLink, NCCL and what they cost."
#: Where the site's CSS, JS and icon are served, in the app and in the static export.
ASSETS = "site-assets"
ASSET_FILES = ("site.css", "site.js", "search.js", "chat.js", "widget-bridge.js",
               "favicon.svg")
#: Assets of the chat pages only (served by the app, not written by the static export).
CHAT_ASSETS = ("chat.js", "widget-bridge.js")
KIND_PATHS = {"glossary": "glossary", "lesson": "learn"}


@dataclass(frozen=True)
class Section:
    """One `##` section of a page: its anchor (as cited), heading and HTML body."""

    anchor: str
    title: str
    html: Markup


def calculator_slug(name: str) -> str:
    """Return the URL slug of a calculator: its tool name with hyphens."""
    return name.replace("_", "-")


def _calculation_words() -> dict[str, str]:
    # The chat's own words for a calculation (prompts/templates.toml), read without importing
    # compose (and LangChain with it): the site build needs neither.
    text = resources.files("assistant").joinpath("prompts/templates.toml").read_text("utf-8")
    return tomllib.loads(text)["calculation"]


@functools.cache
def asset_text(name: str) -> str:
    """Return the text of a file shipped in assistant/site/assets."""
    return resources.files("assistant.site").joinpath("assets", name).read_text("utf-8")


def asset_version(name: str) -> str:
    """Return the short content hash of an asset, the `v=` of its URL."""
    return hashlib.sha256(asset_text(name).encode()).hexdigest()[:10]


class Site:
    """Renders every page of the glossary site from a corpus; see the module docstring."""

    def __init__(self, corpus: Corpus, *, assistant_url: str = "", static: bool = False,
                 base_path: str = "", staff: Callable[[], Sequence[StaffAnswer]] | None = None):
        self.corpus = corpus
        #: The published staff answers, read when a page is rendered (the log's, in the app).
        self.staff = staff or (lambda: ())
        self.assistant_url = assistant_url.rstrip("/")
        self.static = static
        self.base = "/" + base_path.strip("/") if base_path.strip("/") else ""
        self.env = Environment(loader=PackageLoader("assistant.site", "templates"),
                               autoescape=select_autoescape(["html"]), trim_blocks=True,
                               lstrip_blocks=True, keep_trailing_newline=True)
        self.env.filters["sentence"] = _sentence
        self.md = MarkdownIt("commonmark", {"html": False}).enable("table")
        self.forms = {name: CalculatorForm(spec) for name, spec in calc.REGISTRY.items()}
        self._by_name = self._names()

    # -- URLs -------------------------------------------------------------------------------

    def url(self, path: str) -> str:
        """Return the link to a site path ("/glossary/nvlink"), as this site serves it."""
        path, _, fragment = path.partition("#")
        if self.static and not path.endswith("/") and "." not in path.rsplit("/", 1)[-1]:
            path += "/"
        return self.base + path + (f"#{fragment}" if fragment else "")

    def page_url(self, page: Page, section: str = "") -> str:
        """Return the link to a page, or to one of its sections."""
        return self.url(page.section_url(section) if section else page.url)

    def calculator_url(self, name: str) -> str:
        """Return the link to a calculator's page."""
        return self.url(f"/calculators/{calculator_slug(name)}")

    def widget_url(self, slug: str | None = None) -> str:
        """Return the widget's URL in the context of a page (the iframe's src)."""
        query = f"?{urlencode({'page': slug})}" if slug else ""
        return f"{self.assistant_url}/widget{query}"

    def api_url(self, name: str) -> str:
        """Return the calculator API the page's script sends a form to (GET, JSON back)."""
        return f"{self.assistant_url}/api/calculators/{calculator_slug(name)}"

    def asset_url(self, name: str) -> str:
        """Return an asset's URL, versioned by its content so caches never serve it stale."""
        return f"{self.base}/{ASSETS}/{name}?v={asset_version(name)}"

    @property
    def assistant_origin(self) -> str:
        """Return the origin of the assistant ("" when it is this site's)."""
        parts = urlsplit(self.assistant_url)
        return f"{parts.scheme}://{parts.netloc}" if parts.netloc else ""

    # -- content ----------------------------------------------------------------------------

    def _names(self) -> dict[str, Page]:
        names: dict[str, Page] = {}
        for page in self.corpus:
            for name in (page.title, page.slug, *page.aliases):
                names.setdefault(name.casefold(), page)
        return names

    def sections(self, page: Page) -> list[Section]:
        """Return a page's `##` sections with their anchors and rendered bodies."""
        parts = re.split(r"^##[ \t]+(.+?)[ \t]*$", page.body, flags=re.M)
        out = []
        if parts[0].strip():
            out.append(Section("intro", "Intro", self.markdown(parts[0])))
        for title, body in zip(parts[1::2], parts[2::2], strict=True):
            if title == "Related terms":
                body = self._link_terms(body)
            out.append(Section(anchor(title), title, self.markdown(body)))
        return out

    def _link_terms(self, body: str) -> str:
        # "- NVSwitch: the switch chip ..." links NVSwitch when it names a page.
        def link(m: re.Match[str]) -> str:
            page = self._by_name.get(m.group(2).strip().casefold())
            if page is None:
                return m.group(0)
            return f"{m.group(1)}[{m.group(2)}]({self.page_url(page)}):"
        return re.sub(r"^([-*+] )([^:\n\[\]]+):", link, body, flags=re.M)

    def markdown(self, text: str) -> Markup:
        """Render corpus Markdown (raw HTML is shown as text); tables scroll on a phone."""
        html = self.md.render(text)
        html = html.replace("<table>", '<div class="table-wrap"><table>').replace(
            "</table>", "</table></div>")
        return Markup(html)  # noqa: S704 - markdown-it escapes text; html is off

    def facts(self, page: Page) -> list[tuple[str, str]]:
        """Return a page's facts as (label, phrase) rows, in the corpus's key order."""
        keys = [k for k in FACT_KEYS if k in page.facts] + [
            k for k in page.facts if k not in FACT_KEYS]
        return [(FACT_LABELS.get(k, k.replace("_", " ").capitalize()), page.facts[k])
                for k in keys]

    def related(self, page: Page) -> list[Page]:
        """Return the pages a page lists as related, then those that list it (both ways)."""
        slugs = list(page.related) + sorted(
            p.slug for p in self.corpus if page.slug in p.related and p.slug not in page.related)
        return [p for s in slugs if (p := self.corpus.get(s)) is not None and p.slug != page.slug]

    def calculators_for(self, page: Page) -> list[calc.Calculator]:
        """Return the calculators whose working a lesson explains."""
        return [spec for spec in calc.REGISTRY.values() if spec.lesson == page.slug]

    def pages_of(self, kind: str) -> list[Page]:
        """Return the pages of one kind, sorted by title."""
        return sorted((p for p in self.corpus if p.kind == kind),
                      key=lambda p: p.title.casefold())

    # -- pages ------------------------------------------------------------------------------

    def _render(self, template: str, *, title: str, section: str, widget_page: str | None,
                description: str = TAGLINE, **context: Any) -> str:
        widget_title = (self.corpus.pages[widget_page].title
                        if widget_page in self.corpus.pages else None)
        return self.env.get_template(template).render(
            site=self, site_name=SITE_NAME, tagline=TAGLINE, title=title, nav=section,
            description=description, widget_src=self.widget_url(widget_page),
            widget_title=widget_title, csp=self.meta_csp() if self.static else "",
            **context)

    def page(self, slug: str) -> str | None:
        """Return the HTML of a glossary or lesson page, or None if there is no such page."""
        page = self.corpus.get(slug)
        if page is None:
            return None
        updated = _date(page.updated)
        return self._render(
            "page.html", title=page.title, description=page.summary,
            section="learn" if page.kind == "lesson" else "glossary", widget_page=page.slug,
            page=page, sections=self.sections(page), facts=self.facts(page),
            related=self.related(page), calculators=self.calculators_for(page),
            updated=updated, faq_anchor=anchor(FAQ_SECTION),
            faq=list(zip(faq_anchors(page), page.faq, strict=True)),
            support=[(support_anchor(e.id), e) for e in self.staff_of(page.slug)])

    def staff_of(self, slug: str) -> list[StaffAnswer]:
        """Return the published staff answers of a page, oldest first."""
        return sorted((e for e in self.staff() if e.slug == slug), key=lambda e: e.id)

    def glossary_index(self) -> str:
        """Return the A-Z index of glossary terms with their summaries and a filter box."""
        groups: dict[str, list[Page]] = {}
        for page in self.pages_of("glossary"):
            letter = page.title[:1].upper()
            groups.setdefault(letter if letter.isalpha() else "#", []).append(page)
        return self._render("glossary_index.html", title="Glossary A–Z", section="glossary",
                            widget_page=None, groups=groups,
                            description="Every term of the AI compute networking glossary, "
                                        "A to Z, with a one-line summary.")

    def learn_index(self) -> str:
        """Return the list of lessons."""
        return self._render("learn_index.html", title="Lessons", section="learn",
                            widget_page=None, lessons=self.pages_of("lesson"),
                            description="Longer explanations: how the network shapes the "
                                        "speed and cost of AI training and serving.")

    def calculators_index(self) -> str:
        """Return the list of calculators, one per registered calculator."""
        return self._render("calculators_index.html", title="Calculators",
                            section="calculators", widget_page=None,
                            specs=list(calc.REGISTRY.values()),
                            description="Cost and time calculators that show their working.")

    def calculator_spec(self, slug: str) -> calc.Calculator | None:
        """Return the calculator a URL slug names, if any."""
        return calc.get(slug.replace("-", "_"))

    def calculator(self, slug: str, data: Mapping[str, Any] | None = None
                   ) -> tuple[str, int] | None:
        """Return a calculator's page and status: the form, and its result when submitted.

        `data` is the submitted form (None: the blank form with the example's values); a bad
        input gives status 422 and a message naming the field.
        """
        spec = self.calculator_spec(slug)
        if spec is None:
            return None
        form = self.forms[spec.name]
        outcome = form.submit(data) if data else None
        status = 422 if outcome is not None and not outcome.ok else 200
        lesson = self.corpus.get(spec.lesson)
        html = self._render(
            "calculator.html", title=f"{_sentence(spec.label)} calculator",
            description=self.calculator_blurb(spec), section="calculators",
            widget_page=lesson.slug if lesson else None, spec=spec, form=form,
            values=outcome.values if outcome else form.defaults(), outcome=outcome,
            view=self.result_view(spec.name, outcome) if outcome and outcome.ok else None,
            lesson=lesson, blurb=self.calculator_blurb(spec),
            # Without script, a static page's form is answered by the assistant's own page.
            action=self.assistant_url + f"/calculators/{calculator_slug(spec.name)}"
            if self.static else "")
        return html, status

    def calculator_blurb(self, spec: calc.Calculator) -> str:
        """Return what a calculator does in one paragraph (its description's first)."""
        return " ".join(spec.description.split("\n\n")[0].split())

    def result_view(self, name: str, outcome: Outcome) -> dict[str, Any]:
        """Return what a page shows of a result: the chat's summary, method and working."""
        words = _calculation_words()
        result = outcome.result
        # "Prices ... are the inputs you gave" only where a price is one of them.
        priced = any("price" in f.name for f in self.forms[name].all_fields())
        return {"summary": result.summary, "method": words["method"],
                "formula": result.formula, "working": list(result.working),
                "note": words["note"] if priced else words["note_no_prices"],
                "question": self.forms[name].question(outcome.args)}

    def api(self, slug: str, data: Mapping[str, Any]) -> tuple[dict[str, Any], int] | None:
        """Run a calculator for the page's script; return JSON and a status, None if unknown."""
        spec = self.calculator_spec(slug)
        if spec is None:
            return None
        outcome = self.forms[spec.name].submit(data)
        if not outcome.ok:
            errors = outcome.errors or {"": "Fill in the form."}
            return {"ok": False, "errors": errors}, 422
        view = self.result_view(spec.name, outcome)
        return {"ok": True, **view, "tool": spec.name,
                "figures": json_safe(outcome.result.to_dict())}, 200

    def not_found(self, path: str = "") -> str:
        """Return the friendly 404 page, suggesting pages whose slug is close to the path."""
        wanted = path.rstrip("/").rsplit("/", 1)[-1].casefold()
        names = {**{p.slug: p for p in self.corpus}, **self._by_name}
        close = difflib.get_close_matches(wanted, list(names), n=3, cutoff=0.6) if wanted else []
        suggestions = list({names[c].slug: names[c] for c in close}.values())
        return self._render("not_found.html", title="Page not found", section="",
                            widget_page=None, suggestions=suggestions)

    # -- the whole site ---------------------------------------------------------------------

    def paths(self) -> Iterator[str]:
        """Yield the path of every page of the site."""
        yield "/glossary/"
        yield "/learn/"
        yield "/calculators/"
        for page in sorted(self.corpus, key=lambda p: p.url):
            yield page.url
        for name in calc.REGISTRY:
            yield f"/calculators/{calculator_slug(name)}"

    def render_path(self, path: str) -> str | None:
        """Return the HTML of a site path, or None if the site has no such page."""
        if path in ("/glossary/", "/glossary"):
            return self.glossary_index()
        if path in ("/learn/", "/learn"):
            return self.learn_index()
        if path in ("/calculators/", "/calculators"):
            return self.calculators_index()
        m = re.fullmatch(r"/(glossary|learn|calculators)/([a-z0-9_-]+)/?", path)
        if not m:
            return None
        if m.group(1) == "calculators":
            found = self.calculator(m.group(2))
            return found[0] if found else None
        page = self.corpus.get(m.group(2))
        if page is None or KIND_PATHS.get(page.kind) != m.group(1):
            return None
        return self.page(page.slug)

    def files(self) -> dict[str, bytes]:
        """Return every file of the static site by its relative path."""
        out: dict[str, bytes] = {}
        for path in self.paths():
            html = self.render_path(path)
            assert html is not None, path
            out[path.strip("/") + "/index.html"] = html.encode()
        out["index.html"] = out["glossary/index.html"]
        from .search import SEARCH_INDEX, search_json  # search builds on this module

        out[SEARCH_INDEX] = search_json(self).encode()
        out["404.html"] = self.not_found().encode()
        for name in ASSET_FILES:
            if name not in CHAT_ASSETS:
                out[f"{ASSETS}/{name}"] = asset_text(name).encode()
        return out

    def meta_csp(self) -> str:
        """Return the content security policy a static page carries in a <meta> tag."""
        other = f" {self.assistant_origin}" if self.assistant_origin else ""
        return (f"default-src 'self'; script-src 'self'; style-src 'self'; "
                f"img-src 'self' data:; frame-src 'self'{other}; connect-src 'self'{other}; "
                f"form-action 'self'{other}; base-uri 'none'; object-src 'none'")


#: The content security policy of the pages the app serves: nothing from other hosts, no
#: inline script or style, and only this site may frame them.
PAGE_CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
            "frame-src 'self'; connect-src 'self'; form-action 'self'; base-uri 'none'; "
            "object-src 'none'; frame-ancestors 'self'")


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:]


def _date(value: str) -> tuple[str, str] | None:
    try:
        day = dt.date.fromisoformat(value)
    except ValueError:
        return None
    return value, f"{day.day} {day:%B %Y}"
