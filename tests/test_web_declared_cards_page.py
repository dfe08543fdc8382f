"""A natural declared in Solve is drawn (issue 53): its 13 cards, grouped as the natural
shows them (a dragon 2 to A over three lines, three flushes flush by flush), in the
answer where a played hand's rows would be, at 1280 × 900 and 375 × 812 (before: the
advice named the natural and drew no card).

The browser, the server and the page helpers are tests/test_web_browser.py's.
"""

from __future__ import annotations

import pytest

from tests import reference as ref
from tests.test_web_browser import ROWS, as_symbols
from tests.test_web_table import DRAGON, THREE_FLUSHES, size, table_page  # noqa: F401


@pytest.mark.parametrize(("locale", "rules", "hand", "each"),
                         [("zh-CN", "shisanshui", DRAGON, None),
                          ("vi-VN", "chinese-1-6", THREE_FLUSHES, ref._is_flush)])  # fmt: skip
@pytest.mark.sampled  # tests/sampling.py: every value once by default, all under -m slow
def test_a_declared_natural_draws_its_cards(browser, server, size, locale, rules, hand, each):  # noqa: F811
    ctx, page, watch = table_page(browser, server, size, locale)
    page.select_option("#rules", rules)
    page.select_option("#policy", "field")
    page.fill("#hand-input", as_symbols(hand))
    page.click("#solve")
    page.wait_for_selector("#answer .timing")
    d = page.evaluate("state.answer.data")
    assert d["action"] == "declare"
    groups = page.locator("#answer .natural-cards .natural-group")
    assert groups.count() == 3
    drawn = []
    for i, r in enumerate(ROWS):
        group = groups.nth(i)
        cards = group.locator(".card")
        assert cards.count() == (3 if r == "front" else 5)
        for k in range(cards.count()):
            assert cards.nth(k).is_visible()
            box = cards.nth(k).bounding_box()
            assert box["x"] >= 0 and box["x"] + box["width"] <= size[0]
        text = group.get_attribute("data-cards")
        assert text == d[r]
        if each is not None:  # each group is one of the natural's (a flush)
            assert each(ref.ref_cards(text)), text
        drawn += text.split()
    assert sorted(ref.ref_cards(" ".join(drawn))) == sorted(ref.ref_cards(hand))  # all 13
    ctx.close()
    assert watch.problems == []
