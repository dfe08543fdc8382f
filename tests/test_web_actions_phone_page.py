"""On a phone (375 × 812) Solve and Check are in reach beside the 52-card picker (issue
53): an action bar along the screen's foot holds the tab's button wherever the player is
in the picker, so nobody scrolls past the 52 cards to act (before: Check's button sat at
about 1,558 px, below the picker, and Solve's just below the fold). The button is the
one under the finger (nothing covers it), it works from there, and the bar hides
nothing for good: the page's foot scrolls clear of it.

The browser, the server and the page helpers are tests/test_web_browser.py's.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.test_web_browser import HAND, as_symbols
from tests.test_web_table import SIZES, table_page

#: Whether the element is on screen and is what a tap at its centre reaches.
REACHABLE = """(sel) => {
  const el = document.querySelector(sel);
  const r = el.getBoundingClientRect();
  if (r.top < 0 || r.bottom > innerHeight || r.width === 0) return false;
  const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  return hit === el || el.contains(hit);
}"""


def reachable_beside_the_picker(page, button: str) -> None:
    """The button is in reach at the page's top and with the picker's last cards in view."""
    page.evaluate("window.scrollTo(0, 0)")
    assert page.evaluate(REACHABLE, button), f"{button} at the top"
    box = page.locator("#picker").bounding_box()
    page.evaluate("(y) => window.scrollTo(0, y)", box["y"] + box["height"] - 812 + 40)
    assert page.evaluate(REACHABLE, button), f"{button} beside the picker's last cards"


@pytest.mark.parametrize("locale", ["en-US", "zh-CN", "vi-VN"])
def test_solve_and_check_are_in_reach_beside_the_picker(browser, server, locale):  # noqa: F811
    ctx, page, watch = table_page(browser, server, SIZES["phone"], locale)
    page.select_option("#policy", "field")
    page.fill("#hand-input", as_symbols(HAND))
    reachable_beside_the_picker(page, "#solve")
    page.tap("#solve")
    page.wait_for_selector("#answer .timing")
    page.tap("#tab-check")
    reachable_beside_the_picker(page, "#check")
    # the page's foot scrolls clear of the bar: its last line is not covered
    page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
    last = page.locator("body > footer")
    box = last.bounding_box()
    bar = page.locator("#check").bounding_box()
    assert box["y"] + box["height"] <= bar["y"] + 1
    page.tap("#hint")
    expect(page.locator("#pool button")).to_have_count(0)
    page.tap("#check")
    page.wait_for_selector("#check-result .verdict")
    ctx.close()
    assert watch.problems == []
