"""The Gradio front end: formatting helpers, build_demo without a server, then the real app on
loopback through gradio_client and plain HTTP."""

from __future__ import annotations

import json
import re
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

import httpx
import pytest
from conftest import free_port

from assistant.answer import Answer, Citation, ToolCall
from assistant.store import Store
from assistant.web import build_demo, create_app, server_config
from assistant.web.auth import ConsoleAuth
from assistant.web.chat import ChatPage, trim_messages
from assistant.web.render import (
    answer_messages,
    citation_url,
    drop_query_param,
    escape_markdown,
    greeting,
    parse_origins,
    render_answer,
    render_working,
    security_headers,
    starter_questions,
    strip_lines,
    user_message,
)

ADMIN_PASSWORD = "correct horse battery staple"
XSS = '<img src=x onerror=alert(1)> ![x](http://evil.example/x.png) <script>alert(2)</script>'


# -- helpers shared with test_browser.py ------------------------------------------------------

@contextmanager
def serve(app, port: int | None = None, settings=None, log_level: str = "warning"
          ) -> Iterator[str]:
    """Run an ASGI app in a thread on loopback, configured as `launch` serves it (timeouts
    included); yield its base URL."""
    import uvicorn

    from assistant.config import Settings

    port = port or free_port()
    config = server_config(app, settings or Settings.from_env({}), host="127.0.0.1", port=port,
                           log_level=log_level)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the app did not start")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)


def gradio_event(base: str, session: str, fn_index: int, data: list, event_data=None,
                 timeout: float = 60) -> list[dict]:
    """Run one event the way the browser does (queue/join + SSE); return its messages."""
    with httpx.Client(base_url=base, timeout=timeout) as http:
        joined = http.post("/gradio_api/queue/join", json={
            "data": data, "fn_index": fn_index, "session_hash": session,
            "event_data": event_data, "trigger_id": None})
        joined.raise_for_status()
        event_id = joined.json()["event_id"]
        messages = []
        with http.stream("GET", "/gradio_api/queue/data",
                         params={"session_hash": session}) as stream:
            for line in stream.iter_lines():
                if not line.startswith("data:"):
                    continue
                message = json.loads(line[5:])
                if message.get("event_id") not in (None, event_id):
                    continue
                messages.append(message)
                if message.get("msg") == "process_completed":
                    assert message.get("success"), message
                    return messages
    raise AssertionError(f"no process_completed for {event_id}: {messages}")


def dependency(config: dict, elem_id: str | None, event: str, kind: str | None = None) -> int:
    """Return the fn_index of the event `event` on the component with this elem_id or type."""
    ids = {c["id"] for c in config["components"]
           if (elem_id and c.get("props", {}).get("elem_id") == elem_id)
           or (kind and c["type"] == kind)}
    for dep in config["dependencies"]:
        if any(target[0] in ids and target[1] == event for target in dep["targets"]):
            return dep["id"]
    raise LookupError(f"no {event} event on {elem_id or kind}")


# -- pure formatting helpers -----------------------------------------------------------------

def _cited_answer(site: str = "") -> Answer:
    return Answer(
        text="NVLink links GPUs directly. [1] It works inside a server. [2]",
        citations=[Citation(1, "nvlink", "NVLink", f"{site}/glossary/nvlink#definition",
                            "Definition"),
                   Citation(2, "nvlink", "NVLink", f"{site}/glossary/nvlink#how-it-works",
                            "How it works")],
        suggestions=["Is NVLink faster than PCIe?"], subject="nvlink")


@pytest.mark.parametrize("text", [
    XSS, "<a href='http://evil.example'>x</a>", "[click](http://evil.example)",
    "http://evil.example/x.png", "www.evil.example", "me@evil.example",
    "`code` **bold** # heading $$x$$", "&lt;img src=x&gt;", "<svg onload=alert(1)>",
])
def test_escape_markdown_leaves_no_markup(text):
    out = escape_markdown(text)
    bare = re.sub(r"\\.", "", out)  # what Markdown sees outside backslash escapes
    for bad in ("<", ">", "!", "[", "](", "http://", "www.", "@", "$$", "**", "`"):
        assert bad not in bare, (bad, out)
    assert "&lt;" in out or "<" not in text


def test_escape_markdown_keeps_answer_structure():
    table = "| | A | B |\n|---|---|---|\n| Layer | L1 | L2 |\n\n- step one\n- step two"
    assert escape_markdown(table, structure=True) == table
    assert escape_markdown("**bold** 400 Gb/s <b>", structure=True) == (
        "**bold** 400 Gb\\/s &lt;b&gt;")


def test_render_answer_links_markers_and_lists_sources(bot):
    md = render_answer(_cited_answer(), bot.corpus)
    # Each marker's link names its source (the page script makes that its accessible name).
    assert '[\\[1\\]](/glossary/nvlink#definition "Source 1: NVLink — Definition")' in md
    assert '[\\[2\\]](/glossary/nvlink#how-it-works "Source 2: NVLink — How it works")' in md
    assert "**Sources**" in md
    assert "1. [NVLink — Definition](/glossary/nvlink#definition)" in md


def test_render_answer_prefixes_site_url_and_only_links_our_pages(bot):
    site = "https://glossary.example"
    answer = _cited_answer(site)
    md = render_answer(answer, bot.corpus, site)
    assert f"]({site}/glossary/nvlink#definition)" in md
    # A citation of a page the corpus does not have is shown, but not linked.
    answer.citations.append(Citation(3, "evil", "Evil", "http://evil.example/", "Definition"))
    answer.text += " More. [3]"
    md = render_answer(answer, bot.corpus, site)
    assert "evil.example" not in md and "3. Evil — Definition" in md
    # Links always come from the corpus, whatever URL the citation carried.
    assert citation_url(bot.corpus, "nvlink", "How it works", site) == (
        f"{site}/glossary/nvlink#how-it-works")
    assert citation_url(bot.corpus, "nope", "Definition") is None


def test_render_answer_escapes_html_in_answer_text(bot):
    answer = Answer(text=f"You asked {XSS}. [1]", citations=_cited_answer().citations[:1])
    md = render_answer(answer, bot.corpus)
    assert "<img" not in md and "<script" not in md and "![x]" not in md
    assert "&lt;img src=x onerror=alert\\(1\\)&gt;" in md


def test_calculation_working_shows_in_a_fold(bot):
    answer = Answer(
        text="About $3,686 for the run. [1]\n\nMethod: gpus x hours x price [1]\n\n"
             "- 256 GPUs x 7.2 h = 1,843 GPU-hours\n- 1,843 x $2.00 = $3,686\n\nNote.",
        citations=[Citation(1, "estimating-training-cost", "Estimating training cost",
                            "/lessons/estimating-training-cost", "Summary")],
        kind="calculation",
        tool_calls=[ToolCall("training_cost", {"gpus": 256, "price": 2.0}, {"cost": 3686})],
        working=["256 GPUs x 7.2 h = 1,843 GPU-hours", "1,843 x $2.00 = $3,686"])
    fold, main = answer_messages(answer, bot.corpus)
    assert fold["metadata"]["title"] == "Worked calculation (training cost)"
    assert fold["metadata"]["status"] == "done"
    assert "1\\. 256 GPUs x 7.2 h = 1,843 GPU-hours\n2\\. 1,843 x \\$2.00" in fold["content"]
    assert "**training\\_cost**(gpus = 256, price = 2.0)" in fold["content"]
    assert "GPU-hours" not in main["content"]  # the steps are in the fold, not repeated
    assert "\\$3,686" in main["content"]
    assert render_working(Answer(text="x")) is None


def test_answer_messages_offer_follow_ups_as_options(bot):
    [message] = answer_messages(_cited_answer(), bot.corpus)
    assert message["options"] == [{"value": "Is NVLink faster than PCIe?",
                                   "label": "Is NVLink faster than PCIe?"}]
    refusal = Answer(text="Outside.\n\nYou could ask:\n- What is InfiniBand?",
                     suggestions=["What is InfiniBand?"], refused=True, kind="refusal")
    [message] = answer_messages(refusal, bot.corpus)
    assert "What is InfiniBand" not in message["content"]  # shown as a chip instead
    assert strip_lines("a\n- b\nc", ["- b"]) == "a\nc"


def test_user_message_is_text():
    assert user_message(XSS)["content"] == escape_markdown(XSS)
    assert user_message(XSS)["role"] == "user"


def test_starter_questions_come_from_the_corpus_faqs(bot):
    faqs = {item.q for page in bot.corpus for item in page.faq}
    general = starter_questions(bot.corpus)
    assert len(general) == 4 and set(general) <= faqs
    nvlink = starter_questions(bot.corpus, "nvlink")
    assert nvlink == [item.q for item in bot.corpus.pages["nvlink"].faq[:4]]
    assert starter_questions(bot.corpus, "no-such-page") == general


def test_greeting_names_the_page():
    assert "NVLink" in greeting("NVLink")
    assert "<" not in greeting("<b>x</b>")
    assert greeting(None).startswith("### Ask the glossary")


def test_embedding_and_security_headers():
    assert parse_origins(" https://a.example/, https://b.example ") == [
        "https://a.example", "https://b.example"]
    csp = security_headers("/widget/", ["https://a.example"])["content-security-policy"]
    assert "frame-ancestors 'self' https://a.example" in csp and "img-src 'self'" in csp
    admin = security_headers("/admin/", ["https://a.example"])["content-security-policy"]
    assert "frame-ancestors 'self';" in admin
    assert drop_query_param(b"page=nvlink&__theme=dark", "page") == b"__theme=dark"


def test_admin_auth_compares_user_and_password():
    auth = ConsoleAuth("s3cret")
    token, _ = auth.login("admin", "s3cret", "ip1")
    assert auth.user(token) == "admin"
    assert all(auth.login(user, given, "ip2")[0] is None
               for user, given in (("admin", "s3cret "), ("root", "s3cret"), ("admin", "")))
    assert ConsoleAuth("").login("admin", "", "ip3")[0] is None
    # Repeated failures lock the client out, even with the right password afterwards.
    auth = ConsoleAuth("s3cret")
    for _ in range(5):
        assert auth.login("admin", "guess", "ip4") == (None, 0.0)
    token, wait = auth.login("admin", "s3cret", "ip4")
    assert token is None and wait > 0


def test_console_sessions_expire_and_end_at_sign_out():
    now = [1000.0]
    auth = ConsoleAuth("s3cret", session_s=8 * 3600, clock=lambda: now[0])
    token, _ = auth.login("admin", "s3cret", "ip1")
    now[0] += 8 * 3600 - 1
    assert auth.user(token) == "admin"
    now[0] += 2
    assert auth.user(token) is None, "a session must end after 8 hours"
    token, _ = auth.login("admin", "s3cret", "ip1")
    auth.logout(token)
    assert auth.user(token) is None and auth.user(None) is None and auth.user("forged") is None


def test_session_state_is_capped(bot, tmp_path):
    messages = [{"role": "user", "content": str(i)} for i in range(100)]
    qids = {i: i * 10 for i in range(100)}
    kept, renumbered = trim_messages(messages, qids, keep=60)
    assert len(kept) == 60 and kept[0]["content"] == "40"
    assert renumbered[0] == 400 and max(renumbered) == 59
    page = ChatPage(bot, Store(tmp_path / "log.sqlite3"), bot.settings)
    state = page.new_state()
    for i in range(40):
        *_, (_, _, state) = page.turn(f"what is nvlink? {'x' * 5000} {i}", state, None, None)
    assert len(state["messages"]) <= 60
    assert len(state["history"]) <= bot.settings.max_history_turns
    assert all(len(m["content"]) <= bot.settings.max_history_chars for m in state["history"])
    assert len(str(state)) < 200_000, "a long conversation must not grow without bound"


def test_handlers_return_the_clients_lease(bot, tmp_path):
    import gradio as gr

    from assistant.limits import Admission, ConcurrencyCap, RateLimiter

    gate = Admission(RateLimiter(0), ConcurrencyCap(1))
    page = ChatPage(bot, Store(tmp_path / "log.sqlite3"), bot.settings, gate)
    assert gate.admit("") is None  # what the edge does for a request without a client
    assert page.ask("what is nvlink?")["citations"]
    assert gate.concurrency.in_flight("") == 0
    assert gate.admit("") is None
    list(page.turn("what is roce?", None, None, None))
    assert gate.concurrency.in_flight("") == 0
    assert gate.admit("") is None
    with pytest.raises(gr.Error, match="page must be a string"):
        page.ask("what is roce?", page=["nvlink"])  # type: ignore[arg-type]
    assert gate.concurrency.in_flight("") == 0


# -- the app without a server ----------------------------------------------------------------

def test_build_demo_works_without_a_server(bot, tmp_path):
    import gradio as gr

    demo = build_demo(bot, store=Store(tmp_path / "log.sqlite3"))
    assert isinstance(demo, gr.Blocks) and not demo.is_running
    config = demo.get_config_file()
    names = {d.get("api_name") for d in config["dependencies"]
             if d.get("api_visibility") == "public"}
    assert {"ask", "chat"} <= names
    [chatbot] = [c for c in config["components"] if c["type"] == "chatbot"]
    assert chatbot["props"]["sanitize_html"] is True
    assert chatbot["props"]["examples"]
    assert not (tmp_path / "log.sqlite3").exists()  # the store opens on first write
    widget = build_demo(bot, store=Store(tmp_path / "log.sqlite3"), compact=True)
    assert isinstance(widget, gr.Blocks)


def test_admin_is_not_mounted_without_a_password(bot, tmp_path):
    from fastapi.testclient import TestClient

    app = create_app(bot, Store(tmp_path / "log.sqlite3"),
                     settings=bot.settings.replace(admin_password=""))
    client = TestClient(app)
    assert client.get("/admin/config").status_code == 404
    assert client.get("/admin/gradio_api/info").status_code == 404


# -- the real app on loopback ----------------------------------------------------------------

@pytest.fixture(scope="module")
def live(bot, tmp_path_factory):
    """The whole app (chat, widget, console, the glossary site) on a free loopback port."""
    tmp = tmp_path_factory.mktemp("ui")
    store = Store(tmp / "log.sqlite3")
    settings = bot.settings.replace(admin_password=ADMIN_PASSWORD, rate_limit_per_minute=1000,
                                    allowed_origins="http://127.0.0.1:9")
    with serve(create_app(bot, store, settings=settings)) as base:
        yield base, store


def _client(url: str, **kwargs):
    from gradio_client import Client

    return Client(url, verbose=False, **kwargs)


def test_ask_endpoint_returns_the_answer_json(live):
    base, store = live
    before = store.count()
    result = _client(base + "/").predict("is it expensive?", [], "nvlink", api_name="/ask")
    assert set(result) == {"answer", "citations", "tool_calls", "refused", "retrieved",
                           "timings_ms", "kind"}
    assert result["citations"] and result["citations"][0]["slug"] == "nvlink"
    assert result["citations"][0]["url"].startswith("/glossary/nvlink")
    assert result["refused"] is False and "total" in result["timings_ms"]
    assert store.count() == before + 1


def test_ask_endpoint_over_plain_http(live):
    base, _ = live
    history = [{"role": "user", "content": "what is nvlink?"},
               {"role": "assistant", "content": "NVLink links GPUs."}]
    with httpx.Client(base_url=base, timeout=60) as http:
        event = http.post("/gradio_api/call/ask",
                          json={"data": ["does it work between servers too?", history, ""]})
        event.raise_for_status()
        stream = http.get(f"/gradio_api/call/ask/{event.json()['event_id']}").text
    lines = stream.splitlines()
    assert "event: complete" in lines, stream
    data = json.loads(lines[lines.index("event: complete") + 1][len("data:"):])
    result = data[0]
    assert result["retrieved"][0] == "nvlink"
    assert set(result) >= {"answer", "citations", "tool_calls", "refused", "retrieved",
                           "timings_ms"}


def test_chat_streams_partial_updates(live):
    base, store = live
    job = _client(base + "/").submit("What is NVLink?", api_name="/chat")
    updates = list(job)
    assert len(updates) >= 3, updates  # the question, pieces of the answer, the final answer
    final_messages, box = job.result()
    assert box == ""
    assert final_messages[0]["role"] == "user"
    content = final_messages[-1]["content"]
    text = content[0]["text"] if isinstance(content, list) else content
    assert "(/glossary/nvlink#definition)" in text and "**Sources**" in text
    # The partial updates show a growing answer before the cited one.
    partial = [u[0][-1]["content"] for u in updates[:-1] if len(u[0]) >= 2]
    assert partial
    assert store.recent(1)[0].question == "What is NVLink?"


def test_widget_page_context_passes_the_page(live, bot):
    base, store = live
    # /widget?page=... is redirected to the mount and served; Gradio must not choke on ?page=.
    with httpx.Client(base_url=base, timeout=30, follow_redirects=True) as http:
        page = http.get("/widget?page=nvlink")
        assert page.status_code == 200 and str(page.url).endswith("/widget/?page=nvlink")
        assert http.get("/?page=nvlink").status_code == 200
        config = http.get("/widget/config").json()
    session = uuid.uuid4().hex
    # The browser forwards the page's query string with every event; so do we.
    on_load = next(d["id"] for d in config["dependencies"]
                   if any(t[1] == "load" for t in d["targets"]))
    with httpx.Client(base_url=base + "/widget", timeout=60) as http:
        joined = http.post("/gradio_api/queue/join?page=nvlink", json={
            "data": [], "fn_index": on_load, "session_hash": session, "trigger_id": None})
        joined.raise_for_status()
        with http.stream("GET", "/gradio_api/queue/data",
                         params={"session_hash": session}) as stream:
            for line in stream.iter_lines():
                if line.startswith("data:") and '"process_completed"' in line:
                    output = json.loads(line[5:])["output"]["data"]
                    break
    chatbot_update = output[2]
    assert "NVLink" in chatbot_update["placeholder"]
    examples = [e["text"] for e in chatbot_update["examples"]]
    assert examples[0] == bot.corpus.pages["nvlink"].faq[0].q
    ask = dependency(config, "question", "submit")
    gradio_event(base + "/widget", session, ask, ["is it expensive?", None, None])
    row = store.recent(1)[0]
    assert row.question == "is it expensive?" and row.page == "nvlink"
    assert row.subject == "nvlink"


def test_thumbs_down_with_a_comment_is_written_to_sqlite(live):
    base, store = live
    with httpx.Client(base_url=base, timeout=30) as http:
        config = http.get("/config").json()
    session = uuid.uuid4().hex
    gradio_event(base, session, dependency(config, "question", "submit"),
                 ["What is RoCE?", None, None])
    qid = store.recent(1)[0].id
    like = dependency(config, "chat", "like")
    # The browser sends the index of the answer's first message and liked=false for a dislike.
    messages = gradio_event(base, session, like, [None],
                            event_data={"index": 1, "value": ["..."], "liked": False})
    outputs = messages[-1]["output"]["data"]
    assert outputs[1]["visible"] is True  # the comment box opens
    [fb] = [f for f in store.feedback_rows() if f.question_id == qid]
    assert (fb.rating, fb.comment) == (-1, "")
    gradio_event(base, session, dependency(config, "comment", "submit"),
                 ["Please say which NICs support it", None])
    [fb] = [f for f in store.feedback_rows() if f.question_id == qid]
    assert (fb.rating, fb.comment) == (-1, "Please say which NICs support it")
    # Taking the thumb back removes the rating.
    gradio_event(base, session, like, [None],
                 event_data={"index": 1, "value": ["..."], "liked": ""})
    assert not [f for f in store.feedback_rows() if f.question_id == qid]


def test_admin_refuses_without_the_password(live):
    base, _ = live
    with httpx.Client(base_url=base, timeout=30) as http:
        assert http.get("/admin/config").status_code == 401
        assert http.get("/admin/gradio_api/info").status_code == 401
        join = http.post("/admin/gradio_api/queue/join",
                         json={"data": [], "fn_index": 0, "session_hash": "x"})
        assert join.status_code == 401
        page = http.get("/admin", follow_redirects=True)  # the login form, without the console
        assert str(page.url).endswith("/admin/login")
        assert 'type="password"' in page.text and "table-recent" not in page.text
        wrong = http.post("/admin/login", data={"username": "admin", "password": "guess"})
        assert wrong.status_code == 401
        assert http.get("/admin/config").status_code == 401
        assert http.get("/admin/export/recent.csv").status_code == 401


def test_admin_console_shows_questions_and_exports_csv(live, tmp_path):
    base, store = live
    _client(base + "/").predict("how do I configure sr-iov on a toaster?", [], "",
                                api_name="/ask")
    with httpx.Client(base_url=base, timeout=30) as http:
        login = http.post("/admin/login", data={"username": "admin",
                                                "password": ADMIN_PASSWORD})
        assert login.status_code == 200
        assert http.get("/admin/config").status_code == 200
        # Each view downloads as CSV from the console's own route, streamed from the log.
        export = http.get("/admin/export/recent.csv")
        assert export.status_code == 200 and export.headers["cache-control"] == "no-store"
        assert 'filename="recent.csv"' in export.headers["content-disposition"]
        assert export.text.startswith("id,created,question") and "toaster" in export.text
        for view in ("gaps", "feedback", "terms"):
            assert http.get(f"/admin/export/{view}.csv").status_code == 200
        assert http.get("/admin/export/passwords.csv").status_code == 404
        # Signing out ends the session: the same cookie no longer opens the console.
        assert http.get("/admin/logout").status_code == 303
        assert http.get("/admin/config").status_code == 401
    # A script reads the console's tables through Gradio's API as the page does: with its
    # session, from the console's origin, with the session's CSRF token (see test_auth.py).
    with httpx.Client(base_url=base, timeout=30) as http:
        signed_in = http.post("/admin/login", data={"username": "admin",
                                                    "password": ADMIN_PASSWORD},
                              headers={"accept": "application/json"})
        session = http.cookies["assistant-console"]
    admin = _client(base + "/admin/", download_files=str(tmp_path), headers={
        "Cookie": f"assistant-console={session}", "Origin": base,
        "X-CSRF-Token": signed_in.json()["csrf"]})
    recent, gaps, feedback, terms, staff, inbox = admin.predict(api_name="/refresh")
    assert recent["headers"][:3] == ["id", "created", "question"]
    assert any("toaster" in str(row[2]) for row in recent["data"])
    assert any("toaster" in str(row[1]) for row in gaps["data"])
    assert terms["data"] and terms["headers"][0] == "subject"
    assert staff["headers"][:3] == ["id", "status", "question"] and staff["data"] == []
    assert "email" in inbox["headers"] and inbox["data"] == []


def test_glossary_pages_embed_the_widget_and_security_headers(live):
    base, _ = live
    with httpx.Client(base_url=base, timeout=30) as http:
        # /embed-demo moved to the real page, which carries the widget (tests/test_site*.py).
        page = http.get("/embed-demo", follow_redirects=True)
        assert page.status_code == 200 and str(page.url).endswith("/glossary/nvlink")
        assert 'data-widget-src="/widget?page=nvlink"' in page.text
        widget = http.get("/widget/?page=nvlink")
        csp = widget.headers["content-security-policy"]
        assert "frame-ancestors 'self' http://127.0.0.1:9" in csp
        assert "frame-ancestors 'self';" in http.get("/admin/").headers[
            "content-security-policy"]
        # Only the configured origins may call the API from a browser.
        allowed = http.options("/gradio_api/info", headers={
            "Origin": "http://127.0.0.1:9", "Access-Control-Request-Method": "GET"})
        assert allowed.headers.get("access-control-allow-origin") == "http://127.0.0.1:9"
        evil = http.get("/gradio_api/info", headers={"Origin": "http://evil.example"})
        assert "access-control-allow-origin" not in evil.headers


def test_questions_beyond_the_rate_limit_are_declined(bot, tmp_path):
    store = Store(tmp_path / "log.sqlite3")
    settings = bot.settings.replace(rate_limit_per_minute=2)
    with serve(create_app(bot, store, settings=settings)) as base:
        client = _client(base + "/")
        first = client.predict("what is nvlink?", [], "", api_name="/ask")
        client.predict("what is roce?", [], "", api_name="/ask")
        with httpx.Client(base_url=base, timeout=30) as http:
            third = http.post("/gradio_api/call/ask", json={"data": ["what is pfc?", [], ""]})
            # The widget and the JSON API share the count: same client, same limit.
            widget = http.post("/widget/gradio_api/call/ask", json={"data": ["what is mfu?",
                                                                              [], ""]})
            api = http.post("/api/ask", json={"question": "what is ecn?"})
    assert first["citations"]
    limited = "You are asking faster than I can answer"
    for refused in (third, widget, api):
        assert refused.status_code == 429 and int(refused.headers["retry-after"]) >= 1
        assert refused.json()["answer"].startswith(limited)
        assert refused.json()["kind"] == "rate_limited" and not refused.json()["citations"]
    assert store.count() == 2  # declined questions are not logged
