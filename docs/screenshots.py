"""Take the README's screenshots: the widget answering a yes/no and a quantity question.

Run from the repository root after `make index`:
    .venv/bin/python docs/screenshots.py
It starts the app on loopback, drives Debian's Chromium with Playwright, and writes
docs/widget-yes-no.png and docs/widget-quantity.png.
"""

from __future__ import annotations

import socket
import sys
import threading
import time
from pathlib import Path

DOCS = Path(__file__).resolve().parent
QUESTIONS = {"widget-yes-no.png": "Does NCCL work over RoCE?",
             "widget-quantity.png": "What is the bandwidth of an NDR InfiniBand port?"}


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
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium",
                                    args=["--no-sandbox", "--headless", "--disable-gpu"])
        for name, question in QUESTIONS.items():
            page = browser.new_page(viewport={"width": 520, "height": 760})
            page.goto(f"http://127.0.0.1:{port}/widget", wait_until="load")
            page.wait_for_selector("#chat")
            page.locator("#question textarea").fill(question)
            page.locator("#question textarea").press("Enter")
            page.locator("#chat button[aria-label='Dislike']").first.wait_for(timeout=60_000)
            time.sleep(0.5)
            page.screenshot(path=str(DOCS / name))
            print(DOCS / name)
        browser.close()
    server.should_exit = True


if __name__ == "__main__":
    main()
