"""Take the README's screenshots of the widget and the site.

Run from the repository root after `make index`:
    .venv/bin/python docs/screenshots.py
It starts the app on loopback (its own question log in .data/screenshots.sqlite3), drives
Debian's Chromium with Playwright, and writes into docs/:

    widget.png            the chat at / answering "is roce the same thing as infiniband?"
    widget-yes-no.png     the widget answering a yes/no question
    widget-quantity.png   the widget answering a quantity question
    site.png              the NVLink page, the assistant docked beside it, "is it expensive?"
    site-search.png       the site search finding "infinband", its first row asking the assistant
    site-phone.png        a phone, after a citation: the cited question in view, the assistant
                          minimised to a bar with the conversation kept
"""

from __future__ import annotations

import re
import socket
import sys
import threading
import time
from pathlib import Path

DOCS = Path(__file__).resolve().parent
QUESTIONS = {"widget-yes-no.png": "Does NCCL work over RoCE?",
             "widget-quantity.png": "What is the bandwidth of an NDR InfiniBand port?"}
ARGS = ["--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--no-first-run"]
ANSWERED = "#chat button[aria-label='Dislike']"
WAIT = 60_000


def _ask(target, question: str) -> None:
    target.locator("#question textarea").fill(question)
    target.locator("#question textarea").press("Enter")
    target.locator(ANSWERED).last.wait_for(timeout=WAIT)


def _widget_shots(browser, base: str) -> None:
    for name, question in QUESTIONS.items():
        page = browser.new_page(viewport={"width": 520, "height": 760})
        page.goto(f"{base}/widget", wait_until="load")
        page.wait_for_selector("#chat")
        _ask(page, question)
        time.sleep(0.5)
        page.screenshot(path=str(DOCS / name))
        print(DOCS / name)
        page.close()
    page = browser.new_page(viewport={"width": 1000, "height": 900})
    page.goto(f"{base}/", wait_until="load")
    page.wait_for_selector("#chat")
    _ask(page, "is roce the same thing as infiniband?")
    time.sleep(0.5)
    page.screenshot(path=str(DOCS / "widget.png"))
    print(DOCS / "widget.png")
    page.close()


def _site_shots(browser, base: str) -> None:
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.goto(f"{base}/glossary/nvlink", wait_until="load")
    page.locator("#ask-launcher").click()
    frame = page.frame_locator("#ask-panel iframe")
    frame.locator("#chat h3", has_text="NVLink").wait_for(timeout=WAIT)
    _ask(frame, "is it expensive?")
    time.sleep(0.8)
    page.screenshot(path=str(DOCS / "site.png"))
    print(DOCS / "site.png")
    page.close()

    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.goto(f"{base}/glossary/", wait_until="load")
    page.keyboard.press("Control+k")
    page.keyboard.type("infinband", delay=40)
    page.get_by_role("option", name=re.compile("^InfiniBand")).first.wait_for(timeout=WAIT)
    time.sleep(0.3)
    page.screenshot(path=str(DOCS / "site-search.png"))
    print(DOCS / "site-search.png")
    page.close()

    context = browser.new_context(viewport={"width": 360, "height": 740}, is_mobile=True)
    page = context.new_page()
    page.goto(f"{base}/glossary/nvlink", wait_until="load")
    page.locator("#ask-launcher").click()
    frame = page.frame_locator("#ask-panel iframe")
    frame.locator("#chat h3", has_text="NVLink").wait_for(timeout=WAIT)
    _ask(frame, "How fast is NVLink 6?")
    frame.locator("#chat a[href*='/learn/nvlink-vs-infiniband#faq-']").first.click()
    page.wait_for_url(re.compile("nvlink-vs-infiniband"), timeout=WAIT)
    time.sleep(1.5)
    page.screenshot(path=str(DOCS / "site-phone.png"))
    print(DOCS / "site-phone.png")
    context.close()


def main() -> None:
    import uvicorn
    from playwright.sync_api import sync_playwright

    sys.path.insert(0, str(DOCS.parent))
    from assistant.chain import Assistant
    from assistant.config import Settings
    from assistant.store import Store
    from assistant.web import create_app, server_config

    bot = Assistant()
    settings = Settings.from_env()
    store = Store(DOCS.parent / ".data" / "screenshots.sqlite3")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(server_config(create_app(bot, store, settings=settings), settings,
                                          host="127.0.0.1", port=port, log_level="warning"))
    threading.Thread(target=server.run, daemon=True).start()
    while not server.started:
        time.sleep(0.05)
    base = f"http://127.0.0.1:{port}"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
        _widget_shots(browser, base)
        _site_shots(browser, base)
        browser.close()
    server.should_exit = True


if __name__ == "__main__":
    main()
