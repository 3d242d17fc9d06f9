"""The calculator pages as a visitor uses them (issue 24): the quote comparison opens with
usable rows and calculates with its defaults, offers "Add a quote" up to its maximum, reads
"60%", says nothing about prices where there are none, and the open assistant leaves the
result visible on a desktop screen."""

from __future__ import annotations

import pytest
from test_browser import _shot
from test_site_browser import PANEL_FRAME, _page, app, chromium, static_port

pytestmark = [pytest.mark.browser, pytest.mark.integration]


def test_the_quote_comparison_calculates_with_its_defaults_and_adds_rows(app, chromium,
                                                                          capsys):
    base, _ = app
    page, watch = _page(chromium, base + "/calculators/compare-cluster-quotes")
    values = page.eval_on_selector_all("#calc-form input", "els => els.map(e => e.value)")
    assert not [v for v in values if "Undefined" in v], values
    page.get_by_role("button", name="Calculate").click()
    result = page.locator("#calc-result")
    result.wait_for()
    assert "quote" in result.inner_text().lower()
    assert page.locator("#calc-errors").is_hidden()
    # Two example quotes, and a button to add more up to the stated maximum of ten.
    rows = page.locator("fieldset.row:visible")
    assert rows.count() == 2
    add = page.get_by_role("button", name="Add a quote")
    for _ in range(8):
        add.click()
    assert rows.count() == 10
    assert add.is_hidden()
    assert page.evaluate("document.activeElement.id") == "f-quotes-9-name"
    page.locator("#f-quotes-2-name").fill("C")
    page.locator("#f-quotes-2-price-per-gpu-hour").fill("5")
    page.locator("#f-quotes-2-hours").fill("150")
    page.get_by_role("button", name="Calculate").click()
    page.wait_for_function("() => document.getElementById('calc-result').innerText.includes('C ')")
    _shot(page, "calculator-quotes.png", capsys)
    assert not watch.remote and not watch.dialogs
    page.context.close()


def test_a_percentage_is_read_and_prices_are_named_only_where_given(app, chromium):
    base, _ = app
    page, _ = _page(chromium, base + "/calculators/serving-cost")
    page.get_by_label("Utilization").fill("60%")
    page.get_by_role("button", name="Calculate").click()
    page.locator("#calc-result").get_by_text("60%").first.wait_for()
    assert "Prices" in page.locator("[data-part='note']").inner_text()
    page.goto(base + "/calculators/allreduce-time", wait_until="load")
    page.get_by_role("button", name="Calculate").click()
    note = page.locator("[data-part='note']")
    note.wait_for()
    page.wait_for_function(
        "() => document.querySelector(\"[data-part='note']\").textContent.length > 0")
    assert "Prices" not in note.inner_text(), note.inner_text()
    page.context.close()


@pytest.mark.parametrize("width", [1280, 1440])
def test_the_open_assistant_leaves_the_result_in_view_on_a_desktop(app, chromium, capsys,
                                                                   width):
    base, _ = app
    page, _ = _page(chromium, base + "/calculators/gpu-hour-cost",
                    viewport={"width": width, "height": 800})
    page.get_by_role("button", name="Calculate").click()
    page.locator("#calc-result").get_by_text("in total").wait_for()
    page.locator("#ask-launcher").click()
    page.frame_locator(PANEL_FRAME).locator("#chat").wait_for()
    page.wait_for_timeout(300)
    panel = page.locator("#ask-panel").bounding_box()
    result = page.locator("#calc-result").bounding_box()
    assert result["x"] + result["width"] <= panel["x"] + 1, (result, panel)
    _shot(page, f"calculator-with-assistant-{width}.png", capsys, full_page=False)
    page.context.close()
