"""Pure rendering helpers: an answer becomes safe Markdown and chat messages.

Nothing here touches Gradio or a request: each function maps values to values, so the chat,
the widget and the tests share them.

Example:
    >>> user_message("<b>hi</b>")["content"]
    '&lt;b&gt;hi&lt;\\/b&gt;'
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from ..corpus import FAQ_SECTION
from ..site.anchors import StaffAnswer, cited_item
from ..text import MARKER

if TYPE_CHECKING:
    from ..answer import Answer, Citation
    from ..corpus import Corpus

STARTERS = 4  # suggested questions shown in an empty chat

# -- safe Markdown ---------------------------------------------------------------------------

# Markdown punctuation that could start a link, an image, code, a heading, emphasis or LaTeX.
# `<`, `>` and `&` become entities instead: a backslash before them would show up.
_MD_ALL = set("\\`*_{}[]()#+-!|~:/@$")
# Answers keep their own structure: lists, tables and emphasis from the corpus.
_MD_ANSWER = _MD_ALL - set("*_|-+")
_WWW = re.compile(r"(?i)\bwww\.")


def escape_markdown(text: str, structure: bool = False) -> str:
    """Return text that Markdown shows literally: no HTML, links, images or autolinks.

    With `structure=True`, lists, tables and emphasis still render (for the corpus's answers).
    """
    special = _MD_ANSWER if structure else _MD_ALL
    out = []
    for ch in str(text):
        if ch == "<":
            out.append("&lt;")
        elif ch == ">":
            out.append("&gt;")
        elif ch == "&":
            out.append("&amp;")
        elif ch in special:
            out.append("\\" + ch)
        else:
            out.append(ch)
    # GFM turns a bare www.example.com into a link.
    return _WWW.sub(lambda m: m.group(0)[:3] + "\\.", "".join(out))


def citation_url(corpus: Corpus, slug: str, section: str, site_url: str = "",
                 fragment: str | None = None) -> str | None:
    """Return the link to a cited page section, built from the corpus (None for unknown pages).

    `fragment` names an anchor inside the section (one FAQ question) instead of its heading.
    """
    page = corpus.get(slug)
    if page is None:
        return None
    path = f"{page.url}#{fragment}" if fragment else page.section_url(section)
    url = site_url.rstrip("/") + path
    # Only our own pages: an absolute URL must sit under site_url, a relative one on this site.
    if site_url and not url.startswith(site_url.rstrip("/") + "/"):
        return None
    if not site_url and not url.startswith("/"):
        return None
    return quote(url, safe=":/#?&=%-._~")


def _link(text: str, url: str, title: str = "") -> str:
    # The title names the source: the page script makes it the marker's accessible name.
    quoted = title.replace("\\", "").replace('"', "'")
    return f'[{text}]({url} "{quoted}")' if title else f"[{text}]({url})"


def source_label(citation: Citation, corpus: Corpus, staff: Sequence[StaffAnswer] = ()
                 ) -> tuple[str, str | None]:
    """Return a source's label as plain text ("NVLink — FAQ: How fast is NVLink 6?") and
    the anchor of the FAQ question (or staff answer) it quotes, if it quotes one."""
    section = citation.section if citation.section and citation.section != "Summary" else ""
    fragment = None
    page = corpus.get(citation.slug)
    if page is not None and citation.section == FAQ_SECTION:
        found = cited_item(page, citation.passage, staff)
        if found:
            fragment, question = found
            support = fragment.startswith("from-support-")
            section = f"{'From support' if support else 'FAQ'}: {question}"
    return (f"{citation.title} — {section}" if section else citation.title), fragment


def render_answer(answer: Answer, corpus: Corpus, site_url: str = "",
                  staff: Sequence[StaffAnswer] = ()) -> str:
    """Render an answer as safe Markdown: escaped text, linked [n] markers, a Sources list.

    A citation of a page's FAQ links the question it quotes (`staff`: the published staff
    answers, which the page shows under its FAQ).
    """
    urls: dict[int, str] = {}
    labels: dict[int, str] = {}
    sources: list[str] = []
    for c in answer.citations:
        plain, fragment = source_label(c, corpus, staff)
        url = citation_url(corpus, c.slug, c.section, site_url, fragment)
        label = escape_markdown(plain)
        labels[c.n] = plain
        if url:
            urls[c.n] = url
            sources.append(f"{c.n}. {_link(label, url)}")
        else:
            sources.append(f"{c.n}. {label}")

    body = strip_lines(answer.text, [f"- {step}" for step in answer.working]
                       + [f"- {q}" for q in answer.suggestions])
    parts = []
    last = 0
    for match in MARKER.finditer(body):
        parts.append(escape_markdown(body[last:match.start()], structure=True))
        n = int(match.group(1))
        mark = f"\\[{n}\\]"
        parts.append(_link(mark, urls[n], f"Source {n}: {labels[n]}") if n in urls else mark)
        last = match.end()
    parts.append(escape_markdown(body[last:], structure=True))
    text = "".join(parts).strip()
    if sources:
        text += "\n\n**Sources**\n\n" + "\n".join(sources)
    return text


def strip_lines(text: str, lines: list[str]) -> str:
    """Remove whole lines (calculation steps, suggested questions) that show elsewhere."""
    if not lines:
        return text
    drop = {line.strip() for line in lines}
    kept = [line for line in text.split("\n") if line.strip() not in drop]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(kept)).strip()


def render_working(answer: Answer) -> str | None:
    """Render a calculation's inputs and steps as safe Markdown, or None without one."""
    if not answer.working and not answer.tool_calls:
        return None
    lines: list[str] = []
    for call in answer.tool_calls:
        args = ", ".join(f"{k} = {v}" for k, v in call.args.items())
        lines.append(f"**{escape_markdown(call.name)}**({escape_markdown(args)})")
    if lines:
        lines.append("")
    lines += [f"{i}\\. {escape_markdown(step, structure=True)}"
              for i, step in enumerate(answer.working, 1)]
    return "\n".join(lines).strip()


def working_title(answer: Answer) -> str:
    """Return the heading of the calculation's fold."""
    from .. import calculators

    names = ", ".join(spec.label if (spec := calculators.get(c.name)) else
                      c.name.replace("_", " ") for c in answer.tool_calls)
    return f"Worked calculation ({names})" if names else "Worked calculation"


def answer_messages(answer: Answer, corpus: Corpus, site_url: str = "",
                    staff: Sequence[StaffAnswer] = (), asked: Sequence[str] = ()
                    ) -> list[dict[str, Any]]:
    """Return the chat messages that show an answer: the calculation fold, then the answer.

    Follow-up chips leave out the questions already `asked` in the conversation.
    """
    messages: list[dict[str, Any]] = []
    working = render_working(answer)
    if working:
        messages.append({"role": "assistant", "content": working,
                         "metadata": {"title": working_title(answer), "status": "done"}})
    message: dict[str, Any] = {"role": "assistant",
                               "content": render_answer(answer, corpus, site_url, staff)}
    follow_ups = new_questions(answer.suggestions, asked)
    if follow_ups:
        message["options"] = [{"value": q, "label": q} for q in follow_ups]
    messages.append(message)
    return messages


def _same_question(text: str) -> str:
    return " ".join(re.findall(r"[a-z0-9]+", text.casefold()))


def new_questions(suggestions: Sequence[str], asked: Sequence[str]) -> list[str]:
    """Return the suggestions not yet asked in the conversation (wording and case aside)."""
    seen = {_same_question(q) for q in asked}
    out = []
    for q in suggestions:
        key = _same_question(q)
        if key and key not in seen:
            seen.add(key)
            out.append(q)
    return out


def user_message(question: str) -> dict[str, Any]:
    """Return the chat message that shows the visitor's question as typed, as text."""
    return {"role": "user", "content": escape_markdown(question)}


def starter_questions(corpus: Corpus, page: str | None = None, n: int = STARTERS) -> list[str]:
    """Return questions to offer in an empty chat: the page's FAQs, else the central terms'."""
    current = corpus.get(page) if page else None
    if current is not None and current.faq:
        return [item.q for item in current.faq[:n]]
    # Central terms first: those most often listed as related by other pages.
    links: dict[str, int] = {}
    for p in corpus:
        for slug in p.related:
            links[slug] = links.get(slug, 0) + 1
    ranked = sorted((p for p in corpus if p.faq and p.kind == "glossary"),
                    key=lambda p: (-links.get(p.slug, 0), p.slug))
    return [p.faq[0].q for p in ranked[:n]]


def greeting(title: str | None) -> str:
    """Return the Markdown shown in an empty chat, naming the page being read."""
    if title:
        return (f"### {escape_markdown(title)}\n\nAsk me anything about "
                f"{escape_markdown(title)}, or pick a question below.")
    return ("### Ask the glossary\n\nQuestions about AI compute networking, answered from the "
            "glossary's pages with links to them.")


def parse_origins(allowed_origins: str) -> list[str]:
    """Return the origins allowed to embed the widget, without trailing slashes."""
    return [o.strip().rstrip("/") for o in allowed_origins.split(",") if o.strip()]


def security_headers(path: str, origins: list[str], nonce: str = "") -> dict[str, str]:
    """Return the headers every response gets: its content security policy (who may frame
    it, scripts only from this origin or carrying the nonce; see `policy`), no sniffing."""
    from .policy import content_security_policy

    return {
        "content-security-policy": content_security_policy(path, origins, nonce),
        "x-content-type-options": "nosniff",
        "referrer-policy": "strict-origin-when-cross-origin",
    }


def drop_query_param(query: bytes, name: str) -> bytes:
    """Return a query string without one parameter."""
    key = name.encode() + b"="
    return b"&".join(p for p in query.split(b"&") if p and not p.startswith(key)
                     and p != name.encode())


def static_path(name: str) -> Path:
    """Return the path of a file shipped in assistant/static."""
    return Path(str(resources.files("assistant").joinpath("static", name)))
