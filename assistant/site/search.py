"""The site search's index: one small JSON file built with the pages, searched in the browser.

Every glossary page, lesson and calculator is one entry: its title, aliases, summary, its
sections' headings and its FAQ questions (published staff answers' too), each with the anchor
it links to. The app serves it at /search-index.json and the static export writes it beside
the pages, so the static site searches with no server (assets/search.js does the matching:
typo-tolerant, as you type).

Example:
    >>> entries = search_index(Site(load_corpus("corpus")))
    >>> entries[0]["t"], entries[0]["u"]
    ('AI factory', '/glossary/ai-factory')
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from assistant import calculators as calc

from .anchors import faq_anchors, support_anchor

if TYPE_CHECKING:
    from .pages import Site

#: Where the index is served (the app) and written (the static export), from the site's root.
SEARCH_INDEX = "search-index.json"
KIND_LABELS = {"glossary": "Glossary", "lesson": "Lesson"}


def search_index(site: Site) -> list[dict[str, Any]]:
    """Return one entry per page and calculator: t(itle), u(rl), k(ind), a(liases),
    s(ummary), h(eadings) and q(uestions), the last two as [text, anchor] pairs."""
    entries = []
    for page in sorted(site.corpus, key=lambda p: p.title.casefold()):
        questions = [[item.q, a] for a, item in zip(faq_anchors(page), page.faq, strict=True)]
        questions += [[e.question, support_anchor(e.id)] for e in site.staff_of(page.slug)]
        entries.append({
            "t": page.title, "u": site.page_url(page), "k": KIND_LABELS.get(page.kind, ""),
            "a": list(page.aliases), "s": page.summary,
            "h": [[s.title, s.anchor] for s in site.sections(page) if s.anchor != "intro"],
            "q": questions})
    for spec in calc.REGISTRY.values():
        title = f"{spec.label[:1].upper()}{spec.label[1:]} calculator"
        entries.append({"t": title, "u": site.calculator_url(spec.name), "k": "Calculator",
                        "a": [], "s": site.calculator_blurb(spec), "h": [], "q": []})
    return entries


def search_json(site: Site) -> str:
    """Return the index as compact JSON."""
    return json.dumps(search_index(site), ensure_ascii=False, separators=(",", ":"))
