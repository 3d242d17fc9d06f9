"""The Gradio front end: the visitor chat, its compact embeddable form, and the support console.

A thin shell over `Assistant`: the formatting helpers at the top are pure functions (answer ->
safe Markdown), `build_demo` and `build_admin` wire components to them, `create_app` mounts
everything in one FastAPI app and `launch` serves it.

Example:
    >>> demo = build_demo(Assistant())              # a gr.Blocks, nothing served yet
    >>> app = create_app(Assistant())               # FastAPI: /, /widget, /admin, /glossary/...
"""

from __future__ import annotations

import logging
import re
import tempfile
import uuid
from collections.abc import Iterator
from contextvars import ContextVar
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

import gradio as gr
from fastapi import FastAPI, Request
from fastapi.middleware.cors import CORSMiddleware
from fastapi.responses import RedirectResponse

from .answer import Answer
from .compose import templates
from .limits import LoginGuard, RateLimiter, client_ip
from .store import Store, rows_to_csv, rows_to_table

if TYPE_CHECKING:
    from .chain import Assistant
    from .config import Settings
    from .corpus import Corpus

log = logging.getLogger(__name__)

TITLE = "Glossary assistant"
ADMIN_USER = "admin"
STARTERS = 4  # suggested questions shown in an empty chat
# The widget's chat takes the iframe's height less the question row, so that the page itself
# never scrolls (static/compact.css shortens it further while the comment row is open).
COMPACT_CHAT_HEIGHT = "calc(100vh - 92px)"

# -- safe Markdown ---------------------------------------------------------------------------

# Markdown punctuation that could start a link, an image, code, a heading, emphasis or LaTeX.
# `<`, `>` and `&` become entities instead: a backslash before them would show up.
_MD_ALL = set("\\`*_{}[]()#+-!|~:/@$")
# Answers keep their own structure: lists, tables and emphasis from the corpus.
_MD_ANSWER = _MD_ALL - set("*_|-+")
_MARKER = re.compile(r"\[(\d+)\]")
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


def citation_url(corpus: Corpus, slug: str, section: str, site_url: str = "") -> str | None:
    """Return the link to a cited page section, built from the corpus (None for unknown pages)."""
    page = corpus.get(slug)
    if page is None:
        return None
    url = site_url.rstrip("/") + page.section_url(section)
    # Only our own pages: an absolute URL must sit under site_url, a relative one on this site.
    if site_url and not url.startswith(site_url.rstrip("/") + "/"):
        return None
    if not site_url and not url.startswith("/"):
        return None
    return quote(url, safe=":/#?&=%-._~")


def _link(text: str, url: str) -> str:
    return f"[{text}]({url})"


def render_answer(answer: Answer, corpus: Corpus, site_url: str = "") -> str:
    """Render an answer as safe Markdown: escaped text, linked [n] markers, a Sources list."""
    urls: dict[int, str] = {}
    sources: list[str] = []
    for c in answer.citations:
        url = citation_url(corpus, c.slug, c.section, site_url)
        title = escape_markdown(c.title)
        section = escape_markdown(c.section) if c.section and c.section != "Summary" else ""
        label = f"{title} — {section}" if section else title
        if url:
            urls[c.n] = url
            sources.append(f"{c.n}. {_link(label, url)}")
        else:
            sources.append(f"{c.n}. {label}")

    body = strip_lines(answer.text, [f"- {step}" for step in answer.working]
                       + [f"- {q}" for q in answer.suggestions])
    parts = []
    last = 0
    for match in _MARKER.finditer(body):
        parts.append(escape_markdown(body[last:match.start()], structure=True))
        n = int(match.group(1))
        mark = f"\\[{n}\\]"
        parts.append(_link(mark, urls[n]) if n in urls else mark)
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
    from . import calculators

    names = ", ".join(spec.label if (spec := calculators.get(c.name)) else
                      c.name.replace("_", " ") for c in answer.tool_calls)
    return f"Worked calculation ({names})" if names else "Worked calculation"


def answer_messages(answer: Answer, corpus: Corpus, site_url: str = "") -> list[dict[str, Any]]:
    """Return the chat messages that show an answer: the calculation fold, then the answer."""
    messages: list[dict[str, Any]] = []
    working = render_working(answer)
    if working:
        messages.append({"role": "assistant", "content": working,
                         "metadata": {"title": working_title(answer), "status": "done"}})
    message: dict[str, Any] = {"role": "assistant",
                               "content": render_answer(answer, corpus, site_url)}
    if answer.suggestions:
        message["options"] = [{"value": q, "label": q} for q in answer.suggestions]
    messages.append(message)
    return messages


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


def security_headers(path: str, origins: list[str]) -> dict[str, str]:
    """Return the headers every response gets: who may frame it, and no remote images."""
    ancestors = "'self'" if path.startswith("/admin") else " ".join(["'self'", *origins])
    return {
        "content-security-policy": f"frame-ancestors {ancestors}; img-src 'self' data: blob:",
        "x-content-type-options": "nosniff",
        "referrer-policy": "strict-origin-when-cross-origin",
    }


# The client of the request being served, set by the _Edge middleware: Gradio calls the auth
# function with the user name and password only, and failed logins are counted per client.
_CLIENT: ContextVar[str] = ContextVar("assistant_client", default="")


def check_admin(password: str, guard: LoginGuard | None = None):
    """Return Gradio's auth callable for the console: user "admin" and the given password.

    Passwords are compared in constant time, and a client is locked out for a while after
    repeated failures (see limits.LoginGuard).
    """
    guard = guard or LoginGuard(password)

    def auth(username: str, given: str) -> bool:
        return bool(password) and guard.check(str(username), str(given), _CLIENT.get())

    return auth


def static_path(name: str) -> Path:
    """Return the path of a file shipped in assistant/static."""
    return Path(str(resources.files("assistant").joinpath("static", name)))


def page_options(compact: bool = False) -> dict[str, Any]:
    """Return the look of a page, for mount_gradio_app() or Blocks.launch()."""
    return {"theme": gr.themes.Default(primary_hue="blue"),
            "css_paths": [static_path("widget.css")]
            + ([static_path("compact.css")] if compact else []),
            "footer_links": [] if compact else ["api"],
            "run_history": False, "ssr_mode": False}


# -- the visitor chat ------------------------------------------------------------------------

def _request_ip(request: gr.Request | None, settings: Settings) -> str:
    if request is None:
        return ""
    host = request.client.host if getattr(request, "client", None) else ""
    headers = getattr(request, "headers", None) or {}
    return client_ip(host, headers.get("x-forwarded-for"), settings.trusted_proxies)


def _limited() -> Answer:
    return Answer(text=templates()["messages"]["rate_limited"], kind="message")


def build_demo(assistant: Assistant, store: Store | None = None, *, compact: bool = False,
               settings: Settings | None = None, limiter: RateLimiter | None = None
               ) -> gr.Blocks:
    """Build the visitor chat (compact=True: the iframe widget) as a gr.Blocks, not launched.

    `settings` (default: the assistant's) configure serving; `limiter` is shared by the chat,
    the widget and the API so that a client's questions are counted once.
    """
    settings = settings or assistant.settings
    store = store if store is not None else Store(settings.log_db)
    limiter = limiter or RateLimiter(settings.rate_limit_per_minute)
    corpus = assistant.corpus
    site = settings.site_url

    def new_state() -> dict[str, Any]:
        # Everything a conversation needs, per browser tab (gr.State is per session).
        return {"messages": [], "history": [], "qids": {}, "conversation": uuid.uuid4().hex}

    def turn(question: str, state: dict[str, Any], page: str | None,
             request: gr.Request | None) -> Iterator[tuple[Any, ...]]:
        state = state or new_state()
        question = question if isinstance(question, str) else ""
        if not question.strip():  # Enter on an empty box: nothing to answer
            yield state["messages"], "", state
            return
        messages = list(state["messages"]) + [user_message(question)]
        base = len(messages)
        ip = _request_ip(request, settings)
        if not limiter.allow(f"chat:{state['conversation']}", f"ip:{ip}" if ip else ""):
            messages += answer_messages(_limited(), corpus, site)
            yield messages, question, {**state, "messages": messages}  # keep their question
            return
        yield messages + [{"role": "assistant", "content": "…"}], "", state
        answer: Answer | None = None
        pieces: list[str] = []
        for piece in assistant.stream(question, history=state["history"], page=page):
            if isinstance(piece, Answer):
                answer = piece
                break
            pieces.append(piece)
            shown = escape_markdown(" ".join(pieces), structure=True)
            yield messages + [{"role": "assistant", "content": shown}], "", state
        if answer is None:  # stream() always ends with the Answer; be safe anyway
            answer = assistant.ask(question, history=state["history"], page=page)
        qid = store.log(question, answer, session=state["conversation"], ip=ip, page=page)
        shown_answer = answer_messages(answer, corpus, site)
        messages += shown_answer
        qids = dict(state["qids"])
        if qid is not None:
            for index in range(base, len(messages)):
                qids[index] = qid
        state = {**state, "messages": messages, "qids": qids,
                 "history": state["history"] + [{"role": "user", "content": question},
                                                {"role": "assistant", "content": answer.text}]}
        yield messages, "", state

    def respond(message: str, state: dict[str, Any], page: str | None,
                request: gr.Request) -> Iterator[tuple[Any, ...]]:
        yield from turn(message, state, page, request)

    def respond_chip(state: dict[str, Any], page: str | None, evt: gr.SelectData,
                     request: gr.Request) -> Iterator[tuple[Any, ...]]:
        value = evt.value
        question = value.get("text", "") if isinstance(value, dict) else str(value or "")
        yield from turn(question, state, page, request)

    def on_load(request: gr.Request) -> tuple[Any, ...]:
        slug = request.query_params.get("page") if request else None
        page = slug if slug in corpus.pages else None
        title = assistant.page_title(page)
        examples = [{"text": q} for q in starter_questions(corpus, page)]
        # "greeted" tells a framing page's script that the page context is set (site.js).
        return page, new_state(), gr.Chatbot(placeholder=greeting(title), examples=examples,
                                             elem_classes=["greeted"])

    def on_like(state: dict[str, Any], evt: gr.LikeData) -> tuple[Any, ...]:
        index = evt.index[0] if isinstance(evt.index, (list, tuple)) else evt.index
        qid = (state or {}).get("qids", {}).get(index)
        if qid is None:
            return None, gr.update(visible=False)
        if evt.liked is True or evt.liked is False:
            rating = 1 if evt.liked else -1
            store.feedback(qid, rating)
            return {"qid": qid, "rating": rating}, gr.update(visible=True)
        store.clear_feedback(qid)  # the thumb was taken back
        return None, gr.update(visible=False)

    def on_comment(comment: str, pending: dict[str, Any] | None) -> tuple[Any, ...]:
        if pending and comment.strip():
            store.feedback(pending["qid"], pending["rating"],
                           comment.strip()[:settings.max_question_chars])
            gr.Info("Thank you: the team reads every comment.")
        return None, "", gr.update(visible=False)

    def on_new_chat() -> tuple[Any, ...]:
        return [], "", new_state(), None, "", gr.update(visible=False)

    def ask(question: str, history: list | None = None, page: str = "",
            request: gr.Request = None) -> dict:  # type: ignore[assignment]
        """Answer one question: history is a list of {role, content}; page a glossary slug."""
        slug = page if page in corpus.pages else None
        ip = _request_ip(request, settings)
        # Scripts have no session: the API is limited per client IP at the base rate.
        if not limiter.allow(f"api:{ip}"):
            return _limited().to_json()
        answer = assistant.ask(question, history=history or [], page=slug)
        store.log(question if isinstance(question, str) else "", answer, session="api", ip=ip,
                  page=slug)
        return answer.to_json()

    with gr.Blocks(title=TITLE, fill_height=compact, fill_width=compact) as demo:
        page_state = gr.State(None)
        chat_state = gr.State(None)
        pending = gr.State(None)
        # "New chat" sits in the chat's own toolbar: on a phone the input row has no room.
        new = gr.Button("New chat", size="sm", elem_id="new-chat", render=False)
        chatbot = gr.Chatbot(
            value=[], show_label=False, elem_id="chat",
            height=COMPACT_CHAT_HEIGHT if compact else 560,
            scale=1 if compact else None, min_height=200, placeholder=greeting(None),
            examples=[{"text": q} for q in starter_questions(corpus)],
            feedback_options=("Like", "Dislike"), sanitize_html=True, allow_tags=False,
            render_markdown=True, latex_delimiters=[], buttons=["copy", new],
            allow_file_downloads=False, autoscroll=True, layout="bubble")
        with gr.Row(visible=False, elem_id="comment-row", equal_height=True) as comment_row:
            comment = gr.Textbox(show_label=False, scale=4, min_width=120, max_lines=3,
                                 placeholder="What was wrong or missing? (optional)",
                                 elem_id="comment")
            send_comment = gr.Button("Send", scale=0, min_width=70, elem_id="send-comment")
        with gr.Row(equal_height=True, elem_id="ask-row"):
            box = gr.Textbox(show_label=False, scale=4, min_width=120, max_lines=4,
                             placeholder="Ask about a term…", elem_id="question",
                             submit_btn=False, autofocus=not compact)
            send = gr.Button("Ask", variant="primary", scale=0, min_width=64, elem_id="ask")

        chat_outputs = [chatbot, box, chat_state]
        # api_name="chat": the streaming endpoint a client can call with just the question.
        box.submit(respond, [box, chat_state, page_state], chat_outputs, api_name="chat",
                   show_progress="hidden")
        send.click(respond, [box, chat_state, page_state], chat_outputs,
                   api_visibility="private", show_progress="hidden")
        chatbot.example_select(respond_chip, [chat_state, page_state], chat_outputs,
                               api_visibility="private", show_progress="hidden")
        chatbot.option_select(respond_chip, [chat_state, page_state], chat_outputs,
                              api_visibility="private", show_progress="hidden")
        chatbot.like(on_like, [chat_state], [pending, comment_row], api_visibility="private")
        comment.submit(on_comment, [comment, pending], [pending, comment, comment_row],
                       api_visibility="private")
        send_comment.click(on_comment, [comment, pending], [pending, comment, comment_row],
                           api_visibility="private")
        new_outputs = [chatbot, box, chat_state, pending, comment, comment_row]
        new.click(on_new_chat, None, new_outputs, api_visibility="private")
        chatbot.clear(on_new_chat, None, new_outputs, api_visibility="private")
        demo.load(on_load, None, [page_state, chat_state, chatbot], api_visibility="private")
        gr.api(ask, api_name="ask")

    demo.queue(max_size=settings.queue_size, default_concurrency_limit=settings.concurrency)
    demo.limiter = limiter  # type: ignore[attr-defined]  # create_app shares it with the widget
    return demo


# -- the support console ---------------------------------------------------------------------

_VIEWS = {  # view: (tab label, columns, column widths)
    "recent": ("Latest questions",
               ["id", "created", "question", "answer", "kind", "confidence", "cited",
                "total_ms", "page", "rating"],
               ["50px", "110px", "20%", "32%", "90px", "90px", "12%", "80px", "90px", "60px"]),
    "gaps": ("Gaps", ["count", "question", "examples", "kinds", "confidence", "last_asked"],
             ["70px", "30%", "35%", "110px", "90px", "110px"]),
    "feedback": ("Feedback",
                 ["created", "rating", "comment", "question", "answer", "subject",
                  "question_id"],
                 ["110px", "60px", "22%", "20%", "30%", "100px", "80px"]),
    "terms": ("Most asked terms", ["subject", "asks", "likes", "dislikes", "last_asked"],
              ["30%", "15%", "15%", "15%", "25%"]),
}


def console_rows(store: Store, view: str, limit: int = 200) -> list[Any]:
    """Return the rows of one console view, newest or most frequent first."""
    fetch = {"recent": store.recent, "gaps": store.gaps, "feedback": store.feedback_rows,
             "terms": store.top_terms}[view]
    return fetch(limit=limit)


def console_table(rows: list[Any], columns: list[str], clip: int = 300) -> list[list[Any]]:
    """Return rows as table cells in the given column order, long text clipped."""
    table = []
    for row in rows_to_table(rows):
        cells = []
        for name in columns:
            value = row.get(name, "")
            if isinstance(value, list):
                value = " | ".join(value)
            if isinstance(value, str) and len(value) > clip:
                value = value[:clip - 1] + "…"
            cells.append(value)
        table.append(cells)
    return table


def build_admin(store: Store) -> gr.Blocks:
    """Build the support console: latest questions, gaps, feedback, terms, with CSV export."""
    export_dir = Path(tempfile.mkdtemp(prefix="assistant-console-"))

    def refresh() -> list[Any]:
        tables, files = [], []
        for view, (_label, columns, _widths) in _VIEWS.items():
            rows = console_rows(store, view)
            tables.append({"headers": columns, "data": console_table(rows, columns)})
            path = export_dir / f"{view}.csv"
            path.write_text(rows_to_csv(store_rows_for_export(store, view)), encoding="utf-8")
            files.append(str(path))
        return tables + files

    tables: list[gr.Dataframe] = []
    downloads: list[gr.DownloadButton] = []
    with gr.Blocks(title=f"{TITLE}: support console") as admin:
        with gr.Row():
            gr.Markdown("## Support console\nWhat visitors ask, what went unanswered and what "
                        "they disliked: fix the corpus where it falls short.")
            refresh_button = gr.Button("Refresh", scale=0, min_width=100, elem_id="refresh")
        for view, (label, columns, widths) in _VIEWS.items():
            with gr.Tab(label, elem_id=f"tab-{view}"):
                tables.append(gr.Dataframe(headers=columns, interactive=False, wrap=True,
                                           column_widths=widths, elem_id=f"table-{view}",
                                           max_height=640, show_search="search"))
                downloads.append(gr.DownloadButton(f"Download {label.lower()} (CSV)",
                                                   elem_id=f"csv-{view}", size="sm"))
        outputs = tables + downloads
        admin.load(refresh, None, outputs, api_name="refresh")
        refresh_button.click(refresh, None, outputs, api_visibility="private")
    admin.queue(max_size=16, default_concurrency_limit=2)
    return admin


def store_rows_for_export(store: Store, view: str) -> list[Any]:
    """Return every row of a view for the CSV export (not clipped)."""
    return console_rows(store, view, limit=100_000)


# -- serving ---------------------------------------------------------------------------------

def drop_query_param(query: bytes, name: str) -> bytes:
    """Return a query string without one parameter."""
    key = name.encode() + b"="
    return b"&".join(p for p in query.split(b"&") if p and not p.startswith(key)
                     and p != name.encode())


class _Edge:
    """ASGI middleware: security headers on every response (streaming-safe), and `?page=`
    kept from Gradio's page routes.

    Gradio's own page route takes a `page` parameter (multipage apps) and fails on ours; the
    browser keeps ?page=<slug> in its address bar and Gradio forwards it with every event, so
    the chat's load handler still reads it from gr.Request.
    """

    def __init__(self, app: Any, origins: list[str], roots: tuple[str, ...],
                 trusted_proxies: str = ""):
        self.app = app
        self.origins = origins
        self.roots = roots
        self.trusted_proxies = trusted_proxies

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = scope.get("path", "")
        if path in self.roots and scope.get("query_string"):
            scope = {**scope, "query_string": drop_query_param(scope["query_string"], "page")}
        extra = [(k.encode(), v.encode()) for k, v in security_headers(path, self.origins).items()]

        async def send_with_headers(message: dict) -> None:
            if message["type"] == "http.response.start":
                names = {k.lower() for k, _ in message.get("headers", [])}
                message["headers"] = list(message.get("headers", [])) + [
                    (k, v) for k, v in extra if k not in names]
            await send(message)

        peer = (scope.get("client") or ("", 0))[0]
        forwarded = dict(scope.get("headers") or []).get(b"x-forwarded-for", b"").decode(
            "latin-1")
        token = _CLIENT.set(client_ip(peer, forwarded or None, self.trusted_proxies))
        try:
            await self.app(scope, receive, send_with_headers)
        finally:
            _CLIENT.reset(token)


def create_app(assistant: Assistant, store: Store | None = None, *,
               settings: Settings | None = None, demo: gr.Blocks | None = None) -> FastAPI:
    """Build the FastAPI app: chat at /, widget at /widget, console at /admin, the site."""
    settings = settings or assistant.settings
    store = store if store is not None else Store(settings.log_db)
    origins = parse_origins(settings.allowed_origins)

    app = FastAPI(title=TITLE, docs_url=None, redoc_url=None, openapi_url=None)
    # With a CORSMiddleware on the parent, Gradio leaves CORS to it: only the listed origins
    # may call the API from a browser (Gradio alone would allow any origin off localhost).
    app.add_middleware(CORSMiddleware, allow_origins=origins, allow_methods=["GET", "POST"],
                       allow_headers=["*"], allow_credentials=False)
    app.add_middleware(_Edge, origins=origins, roots=("/", "/widget/", "/admin/"),
                       trusted_proxies=settings.trusted_proxies)

    # The glossary site (/glossary, /learn, /calculators, the calculator API): before the
    # mount at "/", which would answer those paths itself.
    from .site import mount_site, widget_head

    mount_site(app, assistant.corpus)

    @app.get("/healthz", include_in_schema=False)
    def healthz() -> dict[str, Any]:
        return {"ok": True, "pages": len(assistant.corpus)}

    # /widget?page=x -> /widget/?page=x: a mount only matches below its prefix, and the
    # chat mounted at / would otherwise answer /widget with its own 404.
    @app.get("/widget", include_in_schema=False)
    @app.get("/admin", include_in_schema=False)
    def add_slash(request: Request) -> RedirectResponse:
        query = request.url.query
        return RedirectResponse(request.url.path + "/" + (f"?{query}" if query else ""),
                                status_code=307)

    mount = {"server_name": settings.server_name, "server_port": settings.server_port}
    if settings.admin_password:
        gr.mount_gradio_app(app, build_admin(store), "/admin",
                            auth=check_admin(settings.admin_password),
                            auth_message="Support console: sign in as admin.",
                            **mount, **page_options(compact=True))
    # One count per client for the chat, the widget and the API.
    limiter = getattr(demo, "limiter", None) or RateLimiter(settings.rate_limit_per_minute)
    widget = build_demo(assistant, store, compact=True, settings=settings, limiter=limiter)
    # The widget's head loads the bridge to a framing page (citations open in the host window).
    gr.mount_gradio_app(app, widget, "/widget", **mount, **page_options(compact=True),
                        head=widget_head())
    visitor = demo if demo is not None else build_demo(assistant, store, settings=settings,
                                                       limiter=limiter)
    gr.mount_gradio_app(app, visitor, "/", **mount, **page_options())
    return app


def launch(assistant: Assistant, store: Store | None = None, demo: gr.Blocks | None = None
           ) -> None:
    """Serve the app with uvicorn on settings.server_name:server_port until interrupted."""
    import uvicorn

    s = assistant.settings
    app = create_app(assistant, store, demo=demo)
    print(f"* Chat:    http://{s.server_name}:{s.server_port}/")
    print(f"* Widget:  http://{s.server_name}:{s.server_port}/widget?page=nvlink")
    print(f"* Site:    http://{s.server_name}:{s.server_port}/glossary/nvlink")
    if s.admin_password:
        print(f"* Console: http://{s.server_name}:{s.server_port}/admin (user admin)")
    # X-Forwarded-For is judged by ASSISTANT_TRUSTED_PROXIES, not by uvicorn.
    uvicorn.run(app, host=s.server_name, port=s.server_port, proxy_headers=False,
                log_level="info")
