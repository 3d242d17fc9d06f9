"""Accessibility checked by axe-core (bundled by the PyPI package axe-playwright-python, so
nothing is fetched) in Debian's Chromium: no serious or critical violation on the glossary
index, a term page, a lesson, a calculator page and the open widget, light and dark."""

from __future__ import annotations

import pytest
from test_site_browser import PANEL_FRAME, _ask, _open_widget, _page, app, chromium, static_port

pytestmark = [pytest.mark.browser, pytest.mark.integration]

PAGES = ["/glossary/", "/glossary/nvlink", "/learn/estimating-training-cost",
         "/calculators/gpu-hour-cost?gpus=256&price_per_gpu_hour=7&hours=100"]
#: WCAG 2.0-2.2 A and AA, and axe's best practices.
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"]


def _serious(target) -> list[str]:
    from axe_playwright_python.sync_playwright import Axe

    results = Axe().run(target, options={"runOnly": {"type": "tag", "values": TAGS},
                                         "resultTypes": ["violations"]})
    return [f"{v['impact']} {v['id']}: {v['help']} at {[n['target'] for n in v['nodes'][:3]]}"
            for v in results.response["violations"] if v["impact"] in ("serious", "critical")]


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("path", PAGES)
def test_site_pages_have_no_serious_violations(app, chromium, path, scheme):
    base, _ = app
    page, _ = _page(chromium, base + path, color_scheme=scheme)
    if "?" in path:
        page.locator("#calc-result").get_by_text("in total").wait_for()
    page.get_by_role("combobox", name="Search the glossary").fill("nvlink")
    page.get_by_role("listbox", name="Search results").get_by_role("option").first.wait_for()
    assert _serious(page) == []
    page.context.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_open_widget_has_no_serious_violations(app, chromium, scheme):
    base, _ = app
    page, _ = _page(chromium, base + "/glossary/nvlink", color_scheme=scheme)
    frame = _open_widget(page, "NVLink")
    widget = page.frame(url=lambda url: "/widget" in url)
    widget.wait_for_selector("html[data-chat-ready]", state="attached")
    assert _serious(widget) == []  # empty: the greeting and its questions
    _ask(frame, "How fast is NVLink 6?")
    frame.locator("#chat button[aria-label='Dislike']").last.wait_for()
    frame.locator("#support-row").wait_for()
    frame.locator("#chat button[aria-label='Dislike']").last.click()
    frame.locator("#comment textarea").wait_for()
    assert _serious(widget) == []  # an answer, its sources, chips, actions, the comment box
    assert _serious(page) == []
    page.context.close()
