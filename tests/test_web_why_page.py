"""A runner-up's "why" is a sentence in the page's language (issue 53): what it gets less
(or more) of than the best setting, how much, and from which part of the value, in the
table's unit and the language's digits, at 1280 × 900 (the width does not touch it:
``tests.test_web_table.DESKTOP``) (before: numbers only, "bonus −0.347" under Capsa
Susun for a royal flush split into two straights).

The browser, the server and the page helpers are tests/test_web_browser.py's.
"""

from __future__ import annotations

import pytest

from tests.test_web_browser import HAND, as_symbols
from tests.test_web_table import DESKTOP, LOCALE_LANG, catalogue, local_number, table_page

PARTS = ("rows", "bonus", "royalties", "naturals")


def sentence(alt: dict, best: dict, rules: str, words: dict, lang: str) -> str:
    """The part that tells the runner-up from the best most, said as the catalogue says it."""
    part = max(PARTS, key=lambda p: abs(alt["ev_parts"][p] - best[p]))  # the first of equals
    diff = alt["ev_parts"][part] - best[part]
    if abs(diff) < 0.0005:
        return ""
    unit = words.get(f"unit.{rules}", words["unit.generic"])
    text = words["alt.whyLess" if diff < 0 else "alt.whyMore"]
    return (text.replace("{n}", local_number(abs(diff), 3, lang))
            .replace("{part}", words[f"parts.{part}"]).replace("{unit}", unit))  # fmt: skip


TABLES = [("en-US", "capsa"), ("zh-CN", "shisanshui"), ("vi-VN", "mau-binh"), ("bn-BD", "capsa")]


@pytest.mark.parametrize(("locale", "rules"), TABLES)
def test_why_is_a_sentence(browser, server, locale, rules):  # noqa: F811
    """Each runner-up's "why" is the catalogue's sentence for the part that tells it
    from the best. One size (``DESKTOP``): the sentence is in the runners-up's cells, which
    the page writes alike at every width (a runner-up's block on a phone:
    tests/test_web_table_words_page.py)."""
    lang = LOCALE_LANG[locale]
    words = catalogue(lang)
    ctx, page, watch = table_page(browser, server, DESKTOP, locale)
    page.select_option("#rules", rules)
    page.select_option("#policy", "field")
    page.fill("#hand-input", as_symbols(HAND))
    page.click("#solve")
    page.wait_for_selector("#answer .timing")
    d = page.evaluate("state.answer.data")
    whys = page.locator("#answer table.alts td.why")
    assert whys.count() == len(d["alternatives"]) > 0
    said = 0
    for i, alt in enumerate(d["alternatives"]):
        want = sentence(alt, d["ev_parts"], rules, words, lang)
        assert whys.nth(i).inner_text() == want
        said += bool(want)
        assert "−" not in want  # the sentence says less or more, not a sign
    assert said
    ctx.close()
    assert watch.problems == []
