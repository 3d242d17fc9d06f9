"""The widget in a real browser: Debian's Chromium driven by Playwright against the app on
loopback. Screenshots go to tests/screenshots/."""

from __future__ import annotations

import functools
import http.server
import json
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from test_ui import XSS, free_port, serve

from assistant.store import Store
from assistant.web import create_app

pytestmark = [pytest.mark.browser, pytest.mark.integration]

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--no-first-run"]
SHOTS = Path(__file__).resolve().parent / "screenshots"
LOCAL = {"127.0.0.1", "localhost", "::1"}
ANSWER_LINK = "#chat a[href*='/glossary/']"
TIMEOUT = 30_000


@pytest.fixture(scope="module")
def host_port() -> int:
    """The port of the site that embeds the widget (another origin than the app's)."""
    return free_port()


@pytest.fixture(scope="module")
def app(bot, tmp_path_factory, host_port):
    """The app on loopback, allowing the embedding site's origin to frame the widget."""
    if not Path(CHROMIUM).exists():
        pytest.skip("Debian's Chromium is not installed (make browser)")
    store = Store(tmp_path_factory.mktemp("browser") / "log.sqlite3")
    settings = bot.settings.replace(allowed_origins=f"http://127.0.0.1:{host_port}",
                                    rate_limit_per_minute=1000)
    with serve(create_app(bot, store, settings=settings)) as base:
        yield base, store


@pytest.fixture(scope="module")
def host_page(app, host_port, tmp_path_factory):
    """A tiny site on another loopback port whose page embeds the widget in an iframe."""
    base, _ = app
    root = tmp_path_factory.mktemp("site")
    (root / "index.html").write_text(
        "<!doctype html><html><head><meta charset='utf-8'><title>NVLink</title></head><body>"
        "<h1>NVLink</h1><p>A glossary page with the assistant beside it.</p>"
        f"<iframe id='assistant' src='{base}/widget?page=nvlink' title='Ask the glossary' "
        "style='width:400px;height:600px;border:1px solid #ccc'></iframe></body></html>",
        encoding="utf-8")
    handler = functools.partial(_QuietHandler, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", host_port), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{host_port}/index.html"
    server.shutdown()
    server.server_close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):  # keep the test output clean
        pass


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    SHOTS.mkdir(exist_ok=True)
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield chromium
        chromium.close()


#: Reports every content security policy violation of every frame to the console.
CSP_REPORTER = """document.addEventListener("securitypolicyviolation", (e) => console.error(
    "CSP violation: " + e.violatedDirective + " " + e.blockedURI + " " + e.sourceFile));"""


class Watch:
    """What a page did that it must not: dialogs opened, requests to other hosts, anything
    its content security policy refused (the browser's own report, or the event's)."""

    def __init__(self, page):
        self.dialogs: list[str] = []
        self.remote: list[str] = []
        self.csp: list[str] = []
        page.on("dialog", self._dialog)
        page.context.on("request", self._request)
        page.context.add_init_script(CSP_REPORTER)
        page.on("console", self._console)

    def _console(self, message):
        text = message.text
        if "Content Security Policy" in text or text.startswith("CSP violation"):
            self.csp.append(text)

    def _dialog(self, dialog):
        self.dialogs.append(dialog.message)
        dialog.dismiss()

    def _request(self, request):
        parts = urlsplit(request.url)
        if parts.scheme in ("http", "https", "ws", "wss") and parts.hostname not in LOCAL:
            self.remote.append(request.url)


def _open(browser, url: str, **context_options):
    context = browser.new_context(**{"viewport": {"width": 1000, "height": 900},
                                     **context_options})
    context.set_default_timeout(TIMEOUT)
    page = context.new_page()
    watch = Watch(page)
    page.goto(url, wait_until="load")
    page.wait_for_selector("#chat")
    return page, watch


def _ask(page_or_frame, question: str) -> None:
    page_or_frame.locator("#question textarea").fill(question)
    page_or_frame.locator("#question textarea").press("Enter")


def _shot(page, name: str, capsys, full_page: bool = True) -> Path:
    path = SHOTS / name
    page.screenshot(path=str(path), full_page=full_page)
    with capsys.disabled():
        print(f"\nscreenshot: {path}  (folder: {SHOTS})")
    return path


def _wait_for(predicate, timeout: float = 20.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError("timed out waiting")


def test_citation_link_leads_to_the_glossary_page(app, browser, capsys):
    base, _ = app
    page, watch = _open(browser, base + "/")
    _ask(page, "What is NVLink?")
    link = page.locator(ANSWER_LINK).first
    link.wait_for()
    href = link.get_attribute("href")
    assert href.endswith("/glossary/nvlink#definition"), href
    _shot(page, "answer-with-citations.png", capsys)
    # The glossary itself is not served here: the new page may 404, its URL is what counts.
    if link.get_attribute("target") == "_blank":
        with page.context.expect_page() as popup:
            link.click()
        target = popup.value
        target.wait_for_load_state("load")
        url = target.url
    else:
        with page.expect_navigation(wait_until="load"):
            link.click()
        url = page.url
    assert url == f"{base}/glossary/nvlink#definition"
    assert not watch.remote and not watch.dialogs
    page.context.close()


def test_suggested_question_chip_gets_an_answer_then_follow_ups(app, browser, capsys):
    base, store = app
    page, watch = _open(browser, base + "/")
    chip = page.locator("#chat button.example").first
    chip.wait_for()
    _shot(page, "empty-chat-with-suggestions.png", capsys)
    question = chip.inner_text().strip()
    chip.click()
    page.locator(ANSWER_LINK).first.wait_for()
    assert _wait_for(lambda: store.recent(1) and store.recent(1)[0].question == question)
    follow_up = page.locator("#chat button.option").first
    follow_up.wait_for()
    second = follow_up.inner_text().strip()
    follow_up.click()
    page.locator("#chat .message-row.bot-row, #chat .bot").nth(1).wait_for()
    assert _wait_for(lambda: store.recent(1)[0].question == second)
    _shot(page, "follow-up-chips.png", capsys)
    assert not watch.remote and not watch.dialogs
    page.context.close()


def test_calculation_shows_its_working_in_a_fold(app, browser, capsys):
    base, _ = app
    page, watch = _open(browser, base + "/")
    _ask(page, "How much would 256 GPUs for 10 days at $2 per GPU-hour cost?")
    fold = page.locator("#chat", has_text="Worked calculation").get_by_text(
        "Worked calculation")
    fold.first.wait_for()
    step = page.locator("#chat").get_by_text("61,440 GPU-hours ×", exact=False)
    assert step.count() == 0 or not step.first.is_visible()  # folded until opened
    fold.first.click()
    step.first.wait_for()
    assert "$122,880" in page.locator("#chat").inner_text()
    page.wait_for_timeout(500)  # let the fold finish opening
    _shot(page, "calculation-fold.png", capsys)
    assert not watch.remote
    page.context.close()


def test_thumbs_down_with_a_comment_reaches_the_store(app, browser, capsys):
    base, store = app
    page, _ = _open(browser, base + "/")
    _ask(page, "What is RoCE?")
    page.locator(ANSWER_LINK).first.wait_for()
    qid = _wait_for(lambda: store.recent(1) and store.recent(1)[0].question == "What is RoCE?"
                    and store.recent(1)[0].id)
    page.locator("#chat button[aria-label='Dislike']").last.click()
    comment = page.locator("#comment textarea")
    comment.wait_for()
    assert _wait_for(lambda: [f for f in store.feedback_rows() if f.question_id == qid])
    comment.fill("Which NICs support it?")
    _shot(page, "thumbs-down-comment.png", capsys)
    page.locator("#send-comment").click()
    fb = _wait_for(lambda: [f for f in store.feedback_rows()
                            if f.question_id == qid and f.comment])
    assert (fb[0].rating, fb[0].comment) == (-1, "Which NICs support it?")
    page.locator("#comment-row").wait_for(state="hidden")
    # "New chat" empties the conversation and brings the suggestions back.
    page.locator("#new-chat").click()
    page.locator("#chat button.example").first.wait_for()
    assert page.locator(ANSWER_LINK).count() == 0
    page.context.close()


def test_widget_in_an_iframe_on_another_site(app, host_page, browser, capsys):
    _, store = app
    page, watch = _open_host(browser, host_page)
    frame = page.frame_locator("#assistant")
    frame.locator("#chat").wait_for()
    frame.locator("#chat h3", has_text="NVLink").wait_for()  # greets with the page's title
    _ask(frame, "is it expensive?")
    frame.locator(ANSWER_LINK).first.wait_for()
    row = _wait_for(lambda: store.recent(1) and store.recent(1)[0].question == "is it expensive?"
                    and store.recent(1)[0])
    assert row.page == "nvlink" and row.subject == "nvlink"
    _shot(page, "widget-in-iframe.png", capsys)
    assert not watch.remote and not watch.dialogs and not watch.csp, watch.csp
    page.context.close()


def _open_host(browser, url):
    context = browser.new_context(viewport={"width": 900, "height": 700})
    context.set_default_timeout(TIMEOUT)
    page = context.new_page()
    watch = Watch(page)
    page.goto(url, wait_until="load")
    return page, watch


def test_html_in_a_question_is_text_and_loads_nothing(app, browser, capsys):
    base, _ = app
    page, watch = _open(browser, base + "/")
    question = f"What is {XSS} NVLink?"
    _ask(page, question)
    user = page.locator("#chat .message.user, #chat .user").first
    user.wait_for()
    page.locator("#chat button[aria-label='Dislike']").first.wait_for()  # the answer is in
    text = page.locator("#chat").inner_text()
    assert "<img src=x onerror=alert(1)>" in text
    assert "![x](http://evil.example/x.png)" in text
    assert "<script>alert(2)</script>" in text
    images = page.eval_on_selector_all("#chat img", "els => els.map(e => e.src)")
    assert not [src for src in images if "evil" in src or src.endswith("/x")], images
    page.wait_for_timeout(500)  # give a stray onerror or image load the time to happen
    assert watch.dialogs == []
    assert not watch.remote, watch.remote
    _shot(page, "html-shown-as-text.png", capsys)
    page.context.close()


def test_looks_right_at_360px_and_in_dark_mode(app, browser, capsys):
    base, _ = app
    page, watch = _open(browser, base + "/?page=infiniband",
                        viewport={"width": 360, "height": 740}, is_mobile=True)
    page.locator("#chat h3", has_text="InfiniBand").wait_for()
    _ask(page, "is roce the same thing as infiniband?")
    page.locator(ANSWER_LINK).first.wait_for()
    overflow = page.evaluate("document.documentElement.scrollWidth")
    assert overflow <= 360, f"the page is {overflow}px wide on a 360px screen"
    _shot(page, "mobile-360.png", capsys)
    page.context.close()

    page, watch = _open(browser, base + "/widget?page=nvlink", color_scheme="dark",
                        viewport={"width": 400, "height": 600})
    page.locator("#chat h3", has_text="NVLink").wait_for()
    assert page.evaluate("document.body.classList.contains('dark') || "
                         "!!document.querySelector('.dark')")
    background = page.evaluate("getComputedStyle(document.querySelector('.gradio-container'))"
                               ".backgroundColor")
    assert _luminance(background) < 0.3, background
    _ask(page, "What is NVLink?")
    page.locator(ANSWER_LINK).first.wait_for()
    # The widget fits its 400x600 iframe: the chat scrolls, the page does not.
    assert page.evaluate("document.documentElement.scrollHeight") <= 600
    assert page.evaluate("document.documentElement.scrollWidth") <= 400
    _shot(page, "dark-widget-400x600.png", capsys, full_page=False)
    assert not watch.remote
    page.context.close()


def _luminance(css_color: str) -> float:
    values = [float(v) for v in css_color[css_color.index("(") + 1:-1].split(",")[:3]]
    return sum(values) / (3 * 255)


@pytest.fixture(scope="module")
def strict_app(bot, tmp_path_factory):
    """The app with one question a minute and the console on, for limits and sign-in."""
    if not Path(CHROMIUM).exists():
        pytest.skip("Debian's Chromium is not installed (make browser)")
    store = Store(tmp_path_factory.mktemp("strict") / "log.sqlite3")
    settings = bot.settings.replace(rate_limit_per_minute=1, admin_password="s3cret-pass")
    with serve(create_app(bot, store, settings=settings)) as base:
        yield base, store


def test_a_limited_question_is_explained_and_kept_in_the_box(strict_app, browser, capsys):
    base, store = strict_app
    page, watch = _open(browser, base + "/widget?page=nvlink",
                        viewport={"width": 400, "height": 600})
    _ask(page, "What is NVLink?")
    page.locator(ANSWER_LINK).first.wait_for()
    _ask(page, "is it expensive?")
    page.get_by_text("You are asking faster than I can answer").first.wait_for()
    assert page.locator("#question textarea").input_value() == "is it expensive?"
    _shot(page, "rate-limited-widget.png", capsys, full_page=False)
    assert [r.question for r in store.recent(5)] == ["What is NVLink?"]
    assert not watch.remote
    page.context.close()


def test_console_sign_in_download_and_sign_out(strict_app, browser, capsys):
    base, _ = strict_app
    page, _ = _open_host(browser, base + "/admin")
    page.locator("input[name=password]").wait_for()
    assert page.url.endswith("/admin/login")
    page.fill("input[name=password]", "wrong")
    page.click("button[type=submit]")
    page.get_by_text("Incorrect user name or password").wait_for()
    page.fill("input[name=password]", "s3cret-pass")
    page.click("button[type=submit]")
    page.locator("#table-recent").wait_for()
    assert _wait_for(lambda: "What is NVLink?" in page.locator("#table-recent").inner_text())
    assert "deleted after 90 days" in page.locator("#console-intro").inner_text()
    # The session cookie is HttpOnly: the page's scripts cannot read it.
    assert "assistant-console" not in page.evaluate("document.cookie")
    _shot(page, "console.png", capsys)
    with page.expect_download() as download:
        page.locator("#csv-recent a").click()
    path = download.value.path()
    assert Path(path).read_text(encoding="utf-8").startswith("id,created,question")
    page.locator("#logout").click()
    page.locator("input[name=password]").wait_for()
    page.goto(base + "/admin/", wait_until="load")
    page.locator("input[name=password]").wait_for()  # signed out: the form again
    page.context.close()


# -- the support console closes the loop (staff answers, ask support) --------------------------

STAFF_QUESTION = "How much does an InfiniBand port cost?"
STAFF_ANSWER = ("An InfiniBand port usually costs more than an Ethernet port of the same "
                "speed. Most of the extra cost buys lower latency and lossless transport.")


@pytest.fixture(scope="module")
def console_app(tmp_path_factory):
    """The app over a fast in-memory assistant of its own (publishing changes its index),
    with the console on."""
    if not Path(CHROMIUM).exists():
        pytest.skip("Debian's Chromium is not installed (make browser)")
    from conftest import CORPUS, TEST_DATA

    from assistant.config import Settings
    from assistant.testing import fake_assistant

    bot = fake_assistant(Settings.from_env({}, corpus_dir=CORPUS, data_dir=TEST_DATA))
    store = Store(tmp_path_factory.mktemp("console") / "log.sqlite3")
    settings = bot.settings.replace(admin_password="s3cret-pass", rate_limit_per_minute=1000)
    with serve(create_app(bot, store, settings=settings)) as base:
        yield base, store


def _sign_in(browser, base: str):
    page, watch = _open_host(browser, base + "/admin")
    page.fill("input[name=password]", "s3cret-pass")
    page.click("button[type=submit]")
    page.locator("#table-recent").wait_for()
    return page, watch


def _cell(page, view: str, text: str):
    """Return the shown cell of a console table holding the text (Gradio also keeps a hidden
    copy of each row for measuring widths)."""
    return page.locator(f"#table-{view} [role=gridcell]", has_text=text).first


def _api_ask(base: str, question: str) -> dict:
    import httpx

    response = httpx.post(base + "/api/ask", json={"question": question}, timeout=30)
    response.raise_for_status()
    return response.json()


def test_console_answers_a_gap_and_the_next_visitor_gets_it(console_app, browser, capsys):
    from assistant.answer import Answer

    base, store = console_app
    store.log(STAFF_QUESTION, Answer(text="I could not find that.", kind="refusal",
                                     refused=True))
    assert not _api_ask(base, STAFF_QUESTION)["answer"].startswith(STAFF_ANSWER[:40])
    page, watch = _sign_in(browser, base)
    page.get_by_role("tab", name="Staff answers").click()
    assert page.locator("#staff-page input").input_value() == ""  # no page until one is picked
    page.get_by_role("tab", name="Gaps").click()
    _cell(page, "gaps", STAFF_QUESTION).click()
    page.get_by_role("tab", name="Staff answers").click()
    question = page.locator("#staff-question textarea")
    question.wait_for()
    assert _wait_for(lambda: question.input_value() == STAFF_QUESTION)  # copied from the gap
    page.locator("#staff-answer textarea").fill(STAFF_ANSWER)
    page.locator("#staff-page input").click()
    page.get_by_role("option", name="InfiniBand", exact=True).click()
    page.locator("#staff-publish").click()
    status = page.locator("#staff-status")
    status.get_by_text("(published)").wait_for()
    entry_id = store.staff_entries(status="published")[0].id
    _shot(page, "console-staff-answer.png", capsys)

    answer = _api_ask(base, STAFF_QUESTION)
    assert answer["answer"].startswith(STAFF_ANSWER[:40])
    assert "Answered by support." in answer["answer"]
    first = answer["citations"][0]
    assert (first["slug"], first["section"]) == ("infiniband", "FAQ")

    page.locator("#staff-id input").fill(str(entry_id))
    page.locator("#staff-unpub").click()
    status.get_by_text("is now draft").wait_for()
    after = _api_ask(base, STAFF_QUESTION)
    assert not after["answer"].startswith(STAFF_ANSWER[:40])
    assert "Answered by support." not in after["answer"]
    assert not watch.remote and not watch.dialogs
    page.context.close()


def test_ask_support_from_the_widget_reaches_the_console_inbox(console_app, browser, capsys):
    base, store = console_app
    page, watch = _open(browser, base + "/widget?page=nvlink",
                        viewport={"width": 400, "height": 600})
    _ask(page, "What is NVLink?")
    page.locator(ANSWER_LINK).first.wait_for()
    page.locator("#ask-support").wait_for()  # offered under an answer
    assert page.evaluate("document.documentElement.scrollHeight") <= 600
    page.locator("#ask-support").click()
    question = page.locator("#handoff-question textarea")
    question.wait_for()
    assert question.input_value() == "What is NVLink?"  # the last question, prefilled
    assert "delete it after 90 days" in page.locator("#handoff-consent").inner_text()
    question.fill(f"Which GPUs have NVLink 5? {XSS}")
    page.locator("#handoff-email input").fill("not-an-email")
    page.locator("#handoff-send").click()
    page.locator("#handoff-error").get_by_text("does not look like an email").wait_for()
    assert store.handoffs() == []
    page.locator("#handoff-email input").fill("ana@example.com")
    page.locator("#handoff-send").click()
    page.locator("#handoff-thanks").get_by_text("Thank you").wait_for()
    page.locator("#handoff-form").wait_for(state="hidden")
    _shot(page, "widget-ask-support.png", capsys, full_page=False)
    [handoff] = _wait_for(lambda: store.handoffs())
    assert handoff.email == "ana@example.com" and handoff.page == "nvlink"
    assert handoff.question == f"Which GPUs have NVLink 5? {XSS}"
    assert [m.content for m in handoff.conversation][0] == "What is NVLink?"
    assert not watch.remote and not watch.dialogs
    page.context.close()

    page, watch = _sign_in(browser, base)
    page.get_by_role("tab", name="Inbox").click()
    _cell(page, "inbox", "ana@example.com").wait_for()  # the address to reply to
    _cell(page, "inbox", "Which GPUs have NVLink 5?").click()
    assert _wait_for(lambda: page.locator("#inbox-id input").input_value() == str(handoff.id))
    # The page the visitor was reading is picked for publishing the reply.
    assert _wait_for(lambda: page.locator("#inbox-page input").input_value() == "NVLink")
    page.locator("#inbox-reply textarea").fill("The B200 and GB200 do.")
    page.locator("#inbox-answered").click()
    page.locator("#inbox-status").get_by_text("is answered").wait_for()
    assert store.handoff(handoff.id).reply == "The B200 and GB200 do."
    _shot(page, "console-inbox.png", capsys)
    page.wait_for_timeout(300)  # a stray onerror or script from the request would fire now
    assert not watch.remote and not watch.dialogs
    page.context.close()


# -- CSRF from a sibling origin (issue 21, item 1) ---------------------------------------------

EVIL_ANSWER = "NVLink is sold by Example Corp at no cost."


def _attack_page(base: str, handoff_id: int) -> str:
    """A page that, opened by a signed-in admin, tries every change the console allows:
    auto-submitting text/plain forms (into hidden frames) and no-cors fetches."""
    def form(name: str, action: str, body: str) -> str:
        field, value = body[:-2], body[-2:]  # text/plain sends name=value: split the JSON
        return (f"<iframe name='{name}'></iframe><form target='{name}' method='post' "
                f"enctype='text/plain' action='{base}{action}'><input type='hidden' "
                f"name='{field}' value='{value}'></form>")

    staff = json.dumps({"question": "Is NVLink free?", "answer": EVIL_ANSWER, "slug": "nvlink",
                        "publish": True, "pad": ""})
    forms = [form("f1", "/admin/staff", staff),
             form("f2", f"/admin/inbox/{handoff_id}/delete", '{"x": ""}'),
             form("f3", "/admin/inbox/forget", '{"email": "ana.csrf@example.com", "x": ""}'),
             form("f4", f"/admin/inbox/{handoff_id}/answer", '{"reply": "pwned", "x": ""}')]
    fetches = "".join(
        f"fetch('{base}{path}', {{method: 'POST', mode: 'no-cors', credentials: 'include', "
        f"headers: {{'content-type': 'text/plain'}}, body: {json.dumps(body)}}});"
        for path, body in (("/admin/staff", staff),
                           (f"/admin/inbox/{handoff_id}/delete", "{}")))
    return ("<!doctype html><html><head><meta charset='utf-8'><title>Win a GPU</title></head>"
            "<body><h1>Win a GPU</h1>" + "".join(forms)
            + "<script>for (const f of document.forms) f.submit();" + fetches
            + "document.title = 'sent';</script></body></html>")


@pytest.fixture(scope="module")
def sibling_site(tmp_path_factory):
    """A site on another loopback port: the same site as the app, another origin."""
    root = tmp_path_factory.mktemp("sibling")
    port = free_port()
    handler = functools.partial(_QuietHandler, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield root, f"http://127.0.0.1:{port}"
    server.shutdown()
    server.server_close()


def test_a_page_on_a_sibling_origin_changes_nothing_for_a_signed_in_admin(
        console_app, sibling_site, browser, capsys):
    from assistant.handoff import validate

    base, store = console_app
    root, sibling = sibling_site
    handoff = store.add_handoff(validate("Is RoCE routable?", "ana.csrf@example.com"))
    published = len(store.staff_entries())
    (root / "win.html").write_text(_attack_page(base, handoff.id), encoding="utf-8")
    page, watch = _sign_in(browser, base)  # the admin's cookie is in this browser
    attack = page.context.new_page()
    hits: list[tuple[str, int]] = []
    attack.on("response", lambda r: hits.append((r.url, r.status))
              if "/admin/" in r.url else None)
    attack.goto(f"{sibling}/win.html", wait_until="load")
    _wait_for(lambda: attack.title() == "sent")
    # Playwright's sync API delivers events only while it is called: wait through it.
    _wait_for(lambda: attack.wait_for_timeout(100)
              or len([h for h in hits if h[0].startswith(base)]) >= 4)
    attack.wait_for_timeout(500)
    assert len(store.staff_entries()) == published
    assert not [e for e in store.staff_entries() if "Example Corp" in e.answer]
    after = store.handoff(handoff.id)
    assert after is not None and after.email == "ana.csrf@example.com"
    assert after.status == "open" and after.reply == ""
    refused = {status for url, status in hits if url.startswith(base)}
    assert refused <= {401, 403, 415}, hits
    answer = _api_ask(base, "Is NVLink free?")["answer"]
    assert "Example Corp" not in answer
    # The console itself still makes changes: it sends the token.
    page.get_by_role("tab", name="Inbox").click()
    _cell(page, "inbox", "Is RoCE routable?").click()
    page.locator("#inbox-reply textarea").fill("It is, with RoCEv2.")
    page.locator("#inbox-answered").click()
    page.locator("#inbox-status").get_by_text("is answered").wait_for()
    assert store.handoff(handoff.id).reply == "It is, with RoCEv2."
    assert not watch.dialogs
    attack.close()
    page.context.close()


def test_chat_widget_and_console_run_under_their_policy_without_a_violation(console_app,
                                                                            browser):
    base, store = console_app
    page, watch = _open(browser, base + "/")
    csp = page.evaluate("async () => (await fetch(location.href)).headers.get("
                        "'content-security-policy')")
    assert "script-src 'self' 'nonce-" in csp and "default-src 'self'" in csp
    _ask(page, "What is NVLink?")
    page.locator(ANSWER_LINK).first.wait_for()
    page.locator("#new-chat").click()
    page.context.close()
    widget, widget_watch = _open(browser, base + "/widget?page=nvlink",
                                 viewport={"width": 400, "height": 600})
    _ask(widget, "is it expensive?")
    widget.locator(ANSWER_LINK).first.wait_for()
    widget.context.close()
    console, console_watch = _sign_in(browser, base)
    for tab in ("Gaps", "Staff answers", "Inbox", "Overview"):
        console.get_by_role("tab", name=tab).click()
    console.locator("#overview-figures").wait_for()
    console.locator("#refresh").click()
    console.wait_for_timeout(500)
    console.context.close()
    for seen in (watch, widget_watch, console_watch):
        assert not seen.csp and not seen.dialogs and not seen.remote, seen.csp
