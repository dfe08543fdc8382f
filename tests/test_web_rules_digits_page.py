"""The players' rules page writes its numbers as its language does (issue 53): বাংলা in
Bengali digits (০-৯), the rows' and the special hands' units, the counts of the deal and
the rules' sentences alike, as the page itself writes them (before: Latin digits); and
the page header's link to the rules is a 44 px target in every language (before: 27 × 19
px in বাংলা), at 1280 × 900 and 375 × 812 (the digits at the first alone:
``tests.test_web_table.DESKTOP``); and বাংলা names three and four of a kind and
the scoop in Bengali words (তিন একই, চার একই, ধবলধোলাই), not English in Bengali letters
(থ্রি অব আ কাইন্ড, স্কুপ).

The browser, the server and the page helpers are tests/test_web_browser.py's.
"""

from __future__ import annotations

import re

import pytest

from solver.engine.rule_values import fmt_units
from solver.engine.rules import PRESETS
from tests.test_web_table import DESKTOP, LOCALE_LANG, size, table_page  # noqa: F401

BENGALI = str.maketrans("0123456789", "০১২৩৪৫৬৭৮৯")


@pytest.mark.parametrize("game", ["shisanshui", "chinese-1-6", "mau-binh", "capsa"])
def test_the_bengali_rules_page_writes_bengali_digits(browser, server, game):  # noqa: F811
    """One size (``DESKTOP``): the rules page's words and digits are its text at every
    width (the header's link, a target to tap, is measured at both below)."""
    ctx, page, watch = table_page(browser, server, DESKTOP, "bn-BD")
    page.goto(f"{server.url.rstrip('/')}/rules/{game}?lang=bn")
    page.wait_for_selector("h1")
    text = page.inner_text("main")
    assert not re.search(r"[0-9]", text), re.findall(r".{0,20}[0-9].{0,20}", text)[:5]
    assert re.search(r"[০-৯]", text)
    rules = PRESETS[game]
    cells = page.locator("table.naturals tbody tr td:last-child").all_inner_texts()
    assert cells == [fmt_units(u).translate(BENGALI) for _, u in rules.naturals]
    cells = page.locator("table.bonus-rows tbody tr td:last-child").all_inner_texts()
    assert sorted(cells) == sorted(fmt_units(u).translate(BENGALI) for *_, u in rules.royalties)
    # Bengali words, not English in Bengali letters (issue 53; a native review is pending)
    hands = page.locator("ol.hands li").all_inner_texts()
    assert "তিন একই" in hands and "চার একই" in hands
    assert "কাইন্ড" not in text and "স্কুপ" not in text and "ধবলধোলাই" in text
    ctx.close()
    assert watch.problems == []


@pytest.mark.parametrize("locale", ["bn-BD", "zh-CN", "en-US"])
@pytest.mark.sampled  # tests/sampling.py: every value once by default, all under -m slow
def test_the_headers_rules_link_is_a_44_px_target(browser, server, size, locale):  # noqa: F811
    ctx, page, watch = table_page(browser, server, size, locale)
    box = page.locator("#rules-link").bounding_box()
    assert box["width"] >= 44 and box["height"] >= 44, (LOCALE_LANG[locale], box)
    assert box["x"] + box["width"] <= size[0]
    ctx.close()
    assert watch.problems == []
