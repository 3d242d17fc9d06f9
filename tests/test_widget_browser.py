"""The widget as a visitor uses it (issue 24), in Debian's Chromium against the app on
loopback: the start of an answer in view, signs of work on a slow network, the comment box,
one "New chat", follow-up chips, the rate limit as a notice, copy as clean text, try again,
the thank-you without an email, and names a screen reader reads. Screenshots go to
tests/screenshots/."""

from __future__ import annotations

import re

import pytest
from test_browser import (
    ANSWER_LINK,
    _ask,
    _open,
    _open_host,
    _shot,
    _wait_for,
    app,
    browser,
    console_app,
    host_page,
    host_port,
    strict_app,
)

pytestmark = [pytest.mark.browser, pytest.mark.integration]

WIDGET = (400, 600)


def _widget(browser, base: str, page: str = "nvlink", size=WIDGET, **options):
    width, height = size
    tab, watch = _open(browser, f"{base}/widget?page={page}",
                       viewport={"width": width, "height": height}, **options)
    tab.locator("#chat.greeted, .greeted #chat, #chat .greeted").first.wait_for(state="attached")
    return tab, watch


def _answered(tab) -> None:
    """Wait until the last answer is complete (its thumbs are shown)."""
    tab.locator("#chat button[aria-label='Dislike']").last.wait_for()


def _box(tab, selector: str) -> dict:
    return tab.locator(selector).first.bounding_box()


def test_the_start_of_a_long_answer_is_in_view(app, browser, capsys):
    base, _ = app
    tab, _ = _widget(browser, base)
    _ask(tab, "What is NVLink?")
    _answered(tab)
    _ask(tab, "compare infiniband and roce")
    tab.locator("#chat table").first.wait_for()
    _answered(tab)
    tab.wait_for_timeout(400)
    chat = _box(tab, "#chat .bubble-wrap")
    answer = tab.locator("#chat .message-row.bot-row").last.bounding_box()
    assert answer["height"] > chat["height"], "the answer should be longer than the view"
    # The answer's first line is in view, not its end.
    assert chat["y"] <= answer["y"] <= chat["y"] + chat["height"] - 40, (chat, answer)
    _shot(tab, "widget-answer-start.png", capsys, full_page=False)
    tab.context.close()


def test_a_slow_network_shows_the_question_a_typing_indicator_and_waits(app, browser, capsys):
    base, store = app
    tab, _ = _widget(browser, base)
    cdp = tab.context.new_cdp_session(tab)
    cdp.send("Network.enable")
    cdp.send("Network.emulateNetworkConditions", {"offline": False, "latency": 2500,
                                                  "downloadThroughput": -1,
                                                  "uploadThroughput": -1})
    before = len(store.recent(50))
    box = tab.locator("#question textarea")
    box.fill("What is RoCE?")
    box.press("Enter")
    tab.wait_for_timeout(600)  # far less than the network's 2.5 s each way
    chat = tab.locator("#chat")
    assert "What is RoCE?" in chat.inner_text()
    assert tab.locator("#chat .pending-typing, #chat .typing").first.is_visible()
    assert tab.locator("#ask").is_disabled()
    _shot(tab, "widget-slow-network.png", capsys, full_page=False)
    box.press("Enter")  # a second Enter sends nothing
    tab.locator("#ask").click(force=True)
    _wait_for(lambda: len(store.recent(50)) > before, timeout=30)
    _answered(tab)
    _wait_for(lambda: tab.locator("#ask").is_enabled(), timeout=30)
    tab.wait_for_timeout(1500)
    assert [r.question for r in store.recent(50)][: len(store.recent(50)) - before] == [
        "What is RoCE?"]
    assert tab.locator("#chat .pending-typing").count() == 0
    tab.context.close()


def test_the_comment_box_leaves_the_question_box_in_the_frame(app, browser, capsys):
    base, _ = app
    for size in (WIDGET, (360, 600)):
        tab, _ = _widget(browser, base, size=size)
        _ask(tab, "What is RoCE?")
        _answered(tab)
        tab.locator("#chat button[aria-label='Dislike']").last.click()
        tab.locator("#comment textarea").wait_for()
        tab.wait_for_timeout(300)
        height = size[1]
        for selector in ("#comment textarea", "#question textarea", "#ask"):
            box = _box(tab, selector)
            assert box and box["y"] >= 0 and box["y"] + box["height"] <= height, (selector, box)
        assert tab.evaluate("document.documentElement.scrollHeight") <= height
        _shot(tab, f"widget-comment-{size[0]}.png", capsys, full_page=False)
        tab.context.close()


def _clip(box: dict, view: dict) -> dict | None:
    x, y = max(box["x"], view["x"]), max(box["y"], view["y"])
    right = min(box["x"] + box["width"], view["x"] + view["width"])
    bottom = min(box["y"] + box["height"], view["y"] + view["height"])
    if right <= x or bottom <= y:
        return None
    return {"x": x, "y": y, "width": right - x, "height": bottom - y}


# The colour a bubble shows: the first element in it (itself included) with a background.
_BACKGROUND = """e => { for (const el of [e, ...e.querySelectorAll('*')]) {
    const c = getComputedStyle(el).backgroundColor;
    if (c !== 'rgba(0, 0, 0, 0)' && c !== 'transparent') return c; } return ''; }"""


def _overlap(a: dict, b: dict) -> bool:
    return not (a["x"] + a["width"] <= b["x"] or b["x"] + b["width"] <= a["x"]
                or a["y"] + a["height"] <= b["y"] or b["y"] + b["height"] <= a["y"])


def test_one_new_chat_and_nothing_over_the_answers(app, browser, capsys):
    base, _ = app
    tab, _ = _widget(browser, base)
    _ask(tab, "What is NVLink?")
    _answered(tab)
    new_chat = tab.get_by_role("button", name="New chat")
    new_chat.first.wait_for()
    assert new_chat.count() == 1
    assert tab.get_by_role("button", name="Clear").count() == 0
    bubbles = tab.locator("#chat .message")
    view = _box(tab, "#chat .bubble-wrap")
    for i in range(bubbles.count()):
        shown = _clip(bubbles.nth(i).bounding_box(), view)  # what of it is on screen
        assert not shown or not _overlap(new_chat.bounding_box(), shown)
    _shot(tab, "widget-one-new-chat.png", capsys, full_page=False)
    new_chat.click()
    tab.locator("#chat button.example").first.wait_for()
    assert tab.locator(ANSWER_LINK).count() == 0
    tab.context.close()


def test_follow_up_chips_are_offers_not_the_question_again(app, browser, capsys):
    base, _ = app
    tab, _ = _widget(browser, base)
    question = "How fast is NVLink 6?"
    _ask(tab, question)
    _answered(tab)
    chips = tab.locator("#chat button.option")
    chips.first.wait_for()
    texts = [chips.nth(i).inner_text().strip() for i in range(chips.count())]
    assert question not in texts, texts
    user = tab.locator("#chat .message-row.user-row").last
    bubble = user.locator(".message").first
    chip = chips.first
    # Offers from the assistant sit on its side and do not look like the visitor's bubbles.
    assert chip.bounding_box()["x"] < bubble.bounding_box()["x"]
    assert chip.evaluate(_BACKGROUND) != user.evaluate(_BACKGROUND)
    _shot(tab, "widget-follow-up-chips.png", capsys, full_page=False)
    tab.context.close()


def test_at_the_rate_limit_the_conversation_stays_and_one_notice_offers_try_again(
        strict_app, browser, capsys):
    base, _ = strict_app
    tab, _ = _widget(browser, base, page="infiniband")
    _ask(tab, "What is InfiniBand?")
    _answered(tab)
    for question in ("is it expensive?", "is it lossless?"):
        _ask(tab, question)
        tab.wait_for_timeout(1500)  # refused at once (HTTP 429) on loopback
        tab.locator("#chat-notice").get_by_text("You are asking faster").wait_for()
    assert tab.locator(ANSWER_LINK).first.is_visible()  # the answer is not hidden
    assert tab.get_by_text("Error", exact=True).count() == 0 or not tab.get_by_text(
        "Error", exact=True).first.is_visible()
    assert tab.locator("#chat-notice:visible").count() == 1
    notice = tab.locator("#chat-notice")
    assert notice.get_attribute("role") == "alert"
    assert notice.get_by_role("button", name="Try again").is_visible()
    assert tab.locator("#question textarea").input_value() == "is it lossless?"
    assert tab.locator("#ask").is_enabled()
    _shot(tab, "widget-rate-limited.png", capsys, full_page=False)
    tab.context.close()


def test_copy_puts_clean_text_with_numbered_absolute_sources(app, browser):
    base, _ = app
    tab, _ = _widget(browser, base)
    tab.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=base)
    _ask(tab, "How fast is NVLink on H100 and on Blackwell?")
    _answered(tab)
    tab.locator("#chat .message-row.bot-row").last.hover()
    tab.locator("#chat button[aria-label='Copy message']").last.click()
    copied = _wait_for(lambda: tab.evaluate("() => navigator.clipboard.readText()"))
    assert "\\" not in copied and "](" not in copied, copied
    assert "900 GB/s" in copied
    assert re.search(r"\[1\]", copied)
    sources = copied.split("Sources:")[1]
    # Each source numbered, titled and absolute (the lead may come from another page).
    assert re.search(rf"\[\d\] NVLink — FAQ: .+: {re.escape(base)}/glossary/nvlink#faq-", sources)
    assert all(re.fullmatch(r"\[\d+\] .+: http://\S+", line)
               for line in sources.strip().splitlines()), sources
    tab.context.close()


def test_try_again_asks_the_last_question_again_in_place(app, browser):
    base, store = app
    tab, _ = _widget(browser, base)
    _ask(tab, "What is RDMA?")
    _answered(tab)
    count = len([r for r in store.recent(50) if r.question == "What is RDMA?"])
    tab.get_by_role("button", name="Try again").click()  # waits until it is shown
    _wait_for(lambda: len([r for r in store.recent(50) if r.question == "What is RDMA?"])
              == count + 1)
    _answered(tab)
    tab.wait_for_timeout(500)
    users = tab.locator("#chat .message-row.user-row")
    assert users.count() == 1  # the answer was replaced, not repeated
    tab.context.close()


def test_names_a_screen_reader_reads(app, browser):
    base, _ = app
    tab, _ = _widget(browser, base)
    assert tab.get_by_role("textbox", name="Your question").count() == 1
    _ask(tab, "What is NVLink?")
    _answered(tab)
    marker = tab.locator("#chat a", has_text=re.compile(r"^\[1\]$")).first
    name = marker.get_attribute("aria-label") or ""
    assert name.startswith("Source 1: NVLink"), name
    tab.locator("#chat button[aria-label='Dislike']").last.click()
    tab.locator("#comment textarea").wait_for()
    assert tab.get_by_role("textbox", name="What was wrong or missing? (optional)").count() == 1
    tab.context.close()


def test_the_thank_you_without_an_email_says_no_reply_can_come(console_app, browser, capsys):
    base, _ = console_app
    tab, _ = _widget(browser, base)
    _ask(tab, "What is NVLink?")
    _answered(tab)
    tab.locator("#ask-support").click()
    tab.locator("#handoff-question textarea").wait_for()
    tab.locator("#handoff-send").click()
    thanks = tab.locator("#handoff-thanks")
    thanks.get_by_text("Thank you").wait_for()
    assert "cannot reply" in thanks.inner_text()
    _shot(tab, "widget-thanks-no-email.png", capsys, full_page=False)
    tab.context.close()


def test_on_another_site_citations_open_in_a_new_tab_unless_the_owner_says(
        app, host_page, browser):
    base, _ = app
    page, _ = _open_host(browser, host_page)
    frame = page.frame_locator("#assistant")
    frame.locator("#chat h3", has_text="NVLink").wait_for()
    _ask(frame, "What is NVLink?")
    link = frame.locator(ANSWER_LINK).first
    link.wait_for()
    with page.context.expect_page() as popup:
        link.click()
    opened = popup.value
    opened.wait_for_load_state("load")
    assert opened.url.startswith(base + "/glossary/nvlink")
    assert page.url == host_page  # the embedding page stays
    opened.close()
    # The owner's choice: ?links=top opens citations in the embedding page's window.
    page.evaluate("src => { document.getElementById('assistant').src = src; }",
                  f"{base}/widget?page=nvlink&links=top")
    frame = page.frame_locator("#assistant")
    frame.locator("#chat .message-row.user-row", has_text="What is NVLink?").wait_for()
    link = frame.locator(ANSWER_LINK).first
    href = link.get_attribute("href")
    link.click()
    page.wait_for_url(base + href if href.startswith("/") else href)
    page.context.close()
