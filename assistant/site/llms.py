"""The site as plain Markdown for language models: each page, `/llms.txt` and `/llms-full.txt`.

`page_markdown` is a page as clean Markdown (title, summary, facts, its `##` sections with the
anchors citations use, the FAQ, the sources): the MCP server's `get_page` and resources return
it, and `/llms-full.txt` is all of them. `/llms.txt` follows the llmstxt.org layout: an H1
title, a one-line summary as a blockquote, then one `##` list of links per kind of page
(glossary, lessons, calculators), each link with its summary. Everything is made from the same
`Site` (and so the same `Page` objects and URLs) as the HTML pages.

Example:
    >>> site = Site(load_corpus("corpus"))
    >>> llms_txt(site, "https://glossary.example").splitlines()[0]
    '# AI Compute Glossary'
"""

from __future__ import annotations

from dataclasses import dataclass

from assistant import calculators as calc
from assistant.corpus import FAQ_SECTION, Page, anchor

from .pages import SITE_NAME, TAGLINE, Site

#: The groups of /llms.txt, in order: heading and page kind ("calculators" is the registry).
GROUPS = (("Glossary", "glossary"), ("Lessons", "lesson"), ("Calculators", "calculators"))
LLMS_TXT = "llms.txt"
LLMS_FULL = "llms-full.txt"


@dataclass(frozen=True)
class PageSection:
    """One `##` section of a page as Markdown, with the anchor its citations use."""

    anchor: str
    title: str
    markdown: str


def sections(page: Page) -> list[PageSection]:
    """Return a page's `##` sections (the text before the first one as "intro")."""
    out: list[PageSection] = []
    title, anchor_, lines = "Intro", "intro", []
    for line in page.body.splitlines():
        if line.startswith("## "):
            if "\n".join(lines).strip():
                out.append(PageSection(anchor_, title, "\n".join(lines).strip()))
            title = line[3:].strip()
            anchor_, lines = anchor(title), []
        else:
            lines.append(line)
    if "\n".join(lines).strip():
        out.append(PageSection(anchor_, title, "\n".join(lines).strip()))
    return out


def absolute(base: str, path: str) -> str:
    """Return `path` on `base` (an origin, maybe with a path); `path` as is without a base."""
    return base.rstrip("/") + path if base and path.startswith("/") else path


def page_markdown(site: Site, page: Page, base: str = "") -> str:
    """Return one page as Markdown: title, summary, link, facts, sections, FAQ and sources."""
    parts = [f"# {page.title}", f"> {page.summary}",
             f"Page: {absolute(base, site.page_url(page))}"]
    facts = site.facts(page)
    if facts:
        parts.append("## Facts\n\n" + "\n".join(f"- {label}: {value}" for label, value in facts))
    for section in sections(page):
        heading = "" if section.anchor == "intro" else f"## {section.title}\n\n"
        parts.append(heading + section.markdown)
    if page.faq:
        parts.append(f"## {FAQ_SECTION}\n\n" + "\n\n".join(
            f"**{item.q}**\n{item.a}" for item in page.faq))
    if page.sources:
        parts.append("## Sources\n\n" + "\n".join(
            f"- {s.title}, {s.publisher} ({s.year})" + (f" <{s.url}>" if s.url else "")
            for s in page.sources))
    return "\n\n".join(parts) + "\n"


def calculator_markdown(site: Site, spec: calc.Calculator, base: str = "") -> str:
    """Return a calculator as Markdown: what it does, its inputs and the lesson it follows."""
    lines = [f"# {spec.label}", "", f"> {site.calculator_blurb(spec)}", "",
             f"Page: {absolute(base, site.calculator_url(spec.name))}", "", "## Inputs", ""]
    for name, info in spec.inputs.model_fields.items():
        required = "required" if info.is_required() else "optional"
        lines.append(f"- `{name}` ({required}): {info.description or name}")
    lesson = site.corpus.get(spec.lesson)
    if lesson is not None:
        lines += ["", f"Method: [{lesson.title}]({absolute(base, site.page_url(lesson))})"]
    return "\n".join(lines) + "\n"


def _links(site: Site, kind: str, base: str) -> list[str]:
    if kind == "calculators":
        return [f"- [{spec.label}]({absolute(base, site.calculator_url(spec.name))}): "
                f"{site.calculator_blurb(spec)}" for spec in calc.REGISTRY.values()]
    return [f"- [{p.title}]({absolute(base, site.page_url(p))}): {p.summary}"
            for p in site.pages_of(kind)]


def llms_txt(site: Site, base: str = "") -> str:
    """Return /llms.txt: title, summary, and every page linked with its summary, by group."""
    parts = [f"# {SITE_NAME}", f"> {TAGLINE}",
             f"Every page as one Markdown file: "
             f"[{LLMS_FULL}]({absolute(base, site.url('/' + LLMS_FULL))})"]
    for heading, kind in GROUPS:
        parts.append(f"## {heading}\n\n" + "\n".join(_links(site, kind, base)))
    return "\n\n".join(parts) + "\n"


def llms_full(site: Site, base: str = "") -> str:
    """Return /llms-full.txt: every page and calculator as Markdown, grouped like /llms.txt."""
    parts = [f"# {SITE_NAME}\n\n> {TAGLINE}"]
    for _, kind in GROUPS:
        if kind == "calculators":
            parts += [calculator_markdown(site, spec, base) for spec in calc.REGISTRY.values()]
        else:
            parts += [page_markdown(site, p, base) for p in site.pages_of(kind)]
    return "\n\n---\n\n".join(p.strip() for p in parts) + "\n"


def llms_files(site: Site, base: str = "") -> dict[str, bytes]:
    """Return /llms.txt and /llms-full.txt by file name, for the static export."""
    return {LLMS_TXT: llms_txt(site, base).encode(), LLMS_FULL: llms_full(site, base).encode()}
