"""The site as a visitor uses it (issue 24), in Debian's Chromium: a citation keeps the
conversation and opens the cited page with the panel docked (desktop) or minimised (phone),
citations on another site open in a new tab unless the owner says otherwise, FAQ citations
land on their question, a shared link asks again, the site search (typos, as you type, "Ask
the assistant", Ctrl+K, the static export with no server), published staff answers on their
page, and the keyboard's way to the assistant."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from test_browser import _wait_for, console_app
from test_site_browser import (
    CHAT_LINK,
    PANEL_FRAME,
    _ask,
    _in_view,
    _open_widget,
    _page,
    _shot,
    app,
    chromium,
    static_port,
    static_site,
)

pytestmark = [pytest.mark.browser, pytest.mark.integration]

FAQ_QUESTION = "How fast is NVLink 6?"
# A question whose answer cites another page (a lesson), so a citation click navigates.
CROSS_PAGE_QUESTION = "Does NVLink replace InfiniBand?"


def _answer_in(frame) -> None:
    """Wait for the answer (its thumbs); on a timeout, say what the visitor saw instead.

    CI once (stop 31) waited 30 s for "is roce lossless?" with no answer and no notice on a
    shared machine; it did not happen again in 30 local runs, nor with the question sent
    the instant the panel opens, nor after 20 visitors left mid-answer. The wait is 60 s and
    a failure now prints the chat, the notice and the question row.
    """
    try:
        frame.locator("#chat button[aria-label='Dislike']").last.wait_for(timeout=60_000)
    except Exception as error:
        seen = {part: frame.locator(part).first.inner_text(timeout=2000)
                if frame.locator(part).count() else "(absent)"
                for part in ("#chat", "#chat-notice", "#ask-row")}
        raise AssertionError(f"no answer within 60 s; the widget showed {seen}") from error


def _visible_part(page, selector: str) -> dict:
    return page.locator(selector).first.bounding_box()


@pytest.mark.parametrize("width, height", [(1280, 800), (360, 740)])
def test_a_citation_keeps_the_conversation_and_leaves_the_cited_section_in_view(
        app, chromium, capsys, width, height):
    base, _ = app
    page, watch = _page(chromium, base + "/glossary/nvlink",
                        viewport={"width": width, "height": height}, is_mobile=width < 400)
    frame = _open_widget(page, "NVLink")
    _ask(frame, CROSS_PAGE_QUESTION)
    _answer_in(frame)
    link = frame.locator("#chat a[href*='/learn/nvlink-vs-infiniband#']").first
    href = link.get_attribute("href")
    link.click()
    target = urlsplit(href)
    page.wait_for_url(re.compile(re.escape(target.path) + "$|" + re.escape(target.path) + "#"))
    assert page.url == base + target.path + "#" + target.fragment
    # Scrolled to the top of the view (waiting out a smooth scroll).
    page.wait_for_function("id => { const r = document.getElementById(id)"
                           ".getBoundingClientRect(); return r.top >= -2 && r.top < 120; }",
                           arg=target.fragment, timeout=5000)
    page.wait_for_timeout(300)
    cited = page.locator(f"[id='{target.fragment}']").bounding_box()
    panel = page.locator("#ask-panel")
    panel.wait_for()
    box = panel.bounding_box()
    if width > 1000:  # docked beside the page: nothing of the page is covered
        assert cited["x"] + cited["width"] <= box["x"] + 1, (cited, box)
        frame = page.frame_locator(PANEL_FRAME)
    else:  # minimised to a bar under the cited section
        assert box["height"] < 80, box
        assert cited["y"] + 40 < box["y"], (cited, box)
        _shot(page, f"site-citation-minimised-{width}.png", capsys, full_page=False)
        page.locator(".ask-min").click()
        frame = page.frame_locator(PANEL_FRAME)
    # The conversation came along.
    frame.locator("#chat .message-row.user-row", has_text=CROSS_PAGE_QUESTION).wait_for()
    frame.locator(CHAT_LINK).first.wait_for()
    _shot(page, f"site-citation-kept-{width}.png", capsys, full_page=False)
    # ...and goes on: the next question is asked in it.
    _ask(frame, "Is NVLink faster than PCIe?")
    frame.locator("#chat .message-row.user-row").nth(1).wait_for()
    assert not watch.remote and not watch.dialogs
    page.context.close()


def test_a_faq_citation_lands_on_its_question(app, chromium):
    base, _ = app
    page, _ = _page(chromium, base + "/glossary/infiniband")
    frame = _open_widget(page, "InfiniBand")
    _ask(frame, FAQ_QUESTION)
    _answer_in(frame)
    link = frame.locator("#chat a[href*='/glossary/nvlink#faq-how-fast-is-nvlink-6']").first
    assert (link.get_attribute("aria-label") or "").startswith("Source 1: NVLink — FAQ: ")
    link.click()
    page.wait_for_url(base + "/glossary/nvlink#faq-how-fast-is-nvlink-6")
    assert _in_view(page, "faq-how-fast-is-nvlink-6")
    assert page.locator("#faq-how-fast-is-nvlink-6").inner_text().strip() == FAQ_QUESTION
    page.context.close()


def test_a_shared_link_opens_the_site_asking_the_question(app, chromium):
    base, store = app
    page, _ = _page(chromium, base + "/glossary/roce")
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=base)
    frame = _open_widget(page, "RoCE")
    _ask(frame, "is roce lossless?")
    _answer_in(frame)
    frame.get_by_role("button", name="Share").click()
    frame.locator("#chat-notice").get_by_text("Link copied").wait_for()
    link = frame.locator("#chat-notice").inner_text().split("Link copied: ")[1].strip()
    parts = urlsplit(link)
    assert parts.path == "/glossary/roce" and parse_qs(parts.query) == {
        "ask": ["is roce lossless?"]}
    assert page.evaluate("() => navigator.clipboard.readText()") == link
    page.context.close()

    asked = len([r for r in store.recent(100) if r.question == "is roce lossless?"])
    fresh, _ = _page(chromium, link)
    frame = fresh.frame_locator(PANEL_FRAME)
    frame.locator(CHAT_LINK).first.wait_for()
    _wait_for(lambda: len([r for r in store.recent(100)
                           if r.question == "is roce lossless?"]) == asked + 1)
    assert store.recent(1)[0].page == "roce"
    assert "ask=" not in fresh.url  # asked once, not again on reload
    fresh.context.close()


def test_site_search_finds_with_typos_as_you_type_and_asks_the_assistant(app, chromium,
                                                                         capsys):
    base, store = app
    page, watch = _page(chromium, base + "/calculators/gpu-hour-cost")
    page.locator("h1").click()
    page.keyboard.press("Control+k")
    box = page.get_by_role("combobox", name="Search the glossary")
    assert page.evaluate("document.activeElement.id") == "search-box"
    box.press_sequentially("infinband", delay=30)
    results = page.get_by_role("listbox", name="Search results")
    results.get_by_role("option", name=re.compile("^InfiniBand")).first.wait_for()
    options = results.get_by_role("option")
    assert options.first.inner_text().startswith("Ask the assistant: infinband")
    _shot(page, "site-search-typo.png", capsys, full_page=False)
    # A FAQ question is found, and its result links the question itself.
    box.fill("")
    box.press_sequentially("nvlink 6 fast", delay=20)
    hit = results.get_by_role("option", name=re.compile(FAQ_QUESTION)).first
    hit.wait_for()
    hit.click()
    page.wait_for_url(base + "/glossary/nvlink#faq-how-fast-is-nvlink-6")
    page.wait_for_load_state("load")
    # The first row asks the assistant.
    page.keyboard.press("Control+k")
    page.keyboard.type("is roce routable")
    results.get_by_role("option", name=re.compile("^Ask the assistant")).wait_for()
    page.keyboard.press("Enter")
    frame = page.frame_locator(PANEL_FRAME)
    frame.locator(CHAT_LINK).first.wait_for()
    _wait_for(lambda: store.recent(1)[0].question == "is roce routable")
    assert not watch.remote and not watch.dialogs
    page.context.close()


def test_the_static_export_searches_with_no_server(app, static_site, chromium):
    page, watch = _page(chromium, static_site + "/glossary/")
    requests = []
    page.on("request", lambda r: requests.append(r.url))
    page.get_by_role("combobox", name="Search the glossary").press_sequentially(
        "rocev2", delay=30)
    page.get_by_role("option", name=re.compile("^RoCE")).first.wait_for()
    assert [u for u in requests if "search-index" in u] == [
        static_site + "/search-index.json"]
    assert not watch.remote
    page.context.close()


def test_the_keyboard_reaches_the_assistant_and_stays_in_its_panel(app, chromium):
    base, _ = app
    page, _ = _page(chromium, base + "/glossary/infiniband")
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.textContent") == "Skip to the assistant"
    page.keyboard.press("Enter")
    page.locator("#ask-panel").wait_for()
    frame = page.frame_locator(PANEL_FRAME)
    frame.locator("#chat h3", has_text="InfiniBand").wait_for()
    page.wait_for_function("() => document.activeElement.tagName === 'IFRAME'")
    focused = "() => document.activeElement && document.activeElement.id"
    inner = page.frames[1]
    _wait_for(lambda: inner.evaluate("() => document.activeElement.closest('#question')"
                                     " !== null"))
    page.keyboard.press("Tab")
    assert inner.evaluate(focused) == "ask"
    page.keyboard.press("Tab")  # past the widget's last control: back to the panel's top
    page.wait_for_function("() => document.activeElement.tagName === 'BUTTON'"
                           " && document.activeElement.closest('#ask-panel') !== null")
    page.context.close()


STAFF_Q = "Can a NVLink cable be longer than two metres?"
STAFF_A = ("NVLink copper cables in an NVL72 rack are shorter than two metres. Longer "
           "NVLink runs need optical links, which NVIDIA uses in larger NVLink domains.")


def test_a_published_staff_answer_is_on_its_page_and_cited_there(console_app, chromium,
                                                                  tmp_path):
    from assistant.corpus import load_corpus
    from assistant.site import build_site

    base, store = console_app
    with httpx.Client(base_url=base, timeout=30) as http:
        http.post("/admin/login", data={"username": "admin", "password": "s3cret-pass"})
        # A change needs the console's origin and the session's CSRF token (test_auth.py).
        guard = {"origin": base.rstrip("/"), "x-csrf-token": http.get("/admin/csrf").json()[
            "token"]}
        entry = http.post("/admin/staff", json={"question": STAFF_Q, "answer": STAFF_A,
                                                "slug": "nvlink", "publish": True},
                          headers=guard).json()
    anchor = f"from-support-{entry['id']}"
    page, _ = _page(chromium, base + "/glossary/nvlink")
    item = page.locator(f"#{anchor}")
    assert STAFF_Q in item.inner_text() and "from support" in item.inner_text().lower()
    assert STAFF_A[:40] in page.locator(f"#{anchor} + dd").inner_text()
    frame = _open_widget(page, "NVLink")
    _ask(frame, STAFF_Q)
    link = frame.locator(f"#chat a[href$='#{anchor}']").first
    link.wait_for()
    link.click()
    page.wait_for_url(base + f"/glossary/nvlink#{anchor}")
    assert _in_view(page, anchor)
    page.context.close()
    # The static export shows it too.
    report = build_site(load_corpus("corpus"), tmp_path / "public", base,
                        staff=store.staff_entries(status="published"))
    assert report.written
    html = (tmp_path / "public" / "glossary" / "nvlink" / "index.html").read_text()
    assert f'id="{anchor}"' in html and STAFF_Q in html
