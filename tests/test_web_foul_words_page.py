"""A fouled setting explained as the table's rules pay it (issue 53, item 10), in a real
browser at a desktop size (1280 × 900) and a phone size (375 × 812): under Mậu Binh a
binh lủng pays a flat amount to each opponent (docs/rules.md, the players' rules page),
so Check says that, not "every opponent scoops you"; the payment is shown under its own
name, not as a bonus lost; a fouled row's hand carries no royalty.

The browser, the server and the page helpers are tests/test_web_browser.py's.
"""

from __future__ import annotations

import re

import pytest

from tests.test_web_browser import HAND, ROWS, as_symbols
from tests.test_web_table import LOCALE_LANG, catalogue, size, table_page  # noqa: F401

# the royal flush in the middle over a high card at the back, three nines in front: fouled,
# and each of those rows would earn a royalty if it were not
FOULED = ("9h 9d 9c", "As Ks Qs Js Ts", "2s 3d 4c 5h 7d")


def _check_fouled(page) -> dict:
    page.click("#tab-check")
    page.fill("#hand-input", as_symbols(HAND))
    page.fill("#played-input", " | ".join(as_symbols(r) for r in FOULED))
    page.press("#played-input", "Enter")
    page.wait_for_selector("#check-result .verdict")
    return page.evaluate("state.checked.data")


def _filled(template: str, **values: str) -> str:
    for k, v in values.items():
        template = template.replace("{" + k + "}", v)
    return template


@pytest.mark.parametrize(("locale", "game"), [("vi-VN", "mau-binh"), ("en-US", "mau-binh"),
                                              ("zh-CN", "shisanshui")])  # fmt: skip
@pytest.mark.sampled  # tests/sampling.py: every value once by default, all under -m slow
def test_a_foul_is_explained_as_the_rules_pay_it(browser, server, size, locale, game):  # noqa: F811
    lang = LOCALE_LANG[locale]
    words = catalogue(lang)
    ctx, page, watch = table_page(browser, server, size, locale=locale)
    page.select_option("#rules", game)
    page.select_option("#policy", "field")
    data = _check_fouled(page)
    played = data["played"]
    assert played["fouled"]
    penalty = page.evaluate(f"state.rulesets.get('{game}').rules.foul_penalty")
    unit = words.get(f"unit.{game}", words["unit.generic"])
    verdict = page.inner_text("#check-result .verdict")
    assert verdict.startswith(words["check.fouled"])
    scooped = [_filled(words[k].split("):")[-1].split("）：")[-1]) for k in
               ("check.fouledRow", "check.fouledWhy")]  # fmt: skip
    parts = page.locator("#check-result table.parts-lost")
    if penalty is False:  # scooped by everyone: said so, the rows lost as rows
        assert any(s in verdict for s in scooped), verdict
        assert parts.locator('tr[data-part="foul"]').count() == 0
    else:  # a flat payment to each opponent, as the players' rules page says
        flat = words["check.fouledRowFlat"].split("):")[-1].split("）：")[-1]
        assert _filled(flat, n=str(penalty), unit=unit) in verdict, verdict
        assert not any(s in verdict for s in scooped), verdict
        page.goto(f"{server.url}rules/{game}?lang={lang}")
        page.wait_for_selector("h1")
        said = _filled(words["rules.p.foulFlat"], n=str(penalty), unit=unit)
        assert said in page.inner_text("main")
        page.go_back()
        page.wait_for_selector("body[data-ready=true]")
        data = _check_fouled(page)
        played = data["played"]
        parts = page.locator("#check-result table.parts-lost")
        # booked under its own name: the payment, not a bonus lost (the first column: yours)
        foul = parts.locator('tr[data-part="foul"]')
        assert foul.locator("th").inner_text() == words["parts.foul"]
        yours = page.evaluate(
            "[...document.querySelectorAll('#check-result table.parts-lost tr')]"
            ".map((tr) => [tr.dataset.part, tr.querySelectorAll('td')[0]?.textContent])"
        )
        got = {k: v for k, v in yours if k}
        paid = played["ev_parts"]["bonus"]
        assert abs(paid + penalty) < 0.75 * penalty  # about the flat payment, per opponent
        assert re.sub(r"[^\d]", "", got["foul"]) == re.sub(r"[^\d]", "", f"{abs(paid):.3f}")
        assert got["foul"].startswith("−")
        assert re.sub(r"[^\d]", "", got["bonus"]).strip("0") == ""  # no bonus lost
    # a fouled row earns no royalty: its hand named alone
    mine = page.locator("#check-result table.compare tbody tr")
    assert mine.count() == 3
    for i, _row in enumerate(ROWS):
        tag = mine.nth(i).locator("td").first.locator(".hand-name")
        assert tag.count() == 1
        assert not re.search(r"[+−]\d", tag.inner_text()), tag.inner_text()
    ctx.close()
    assert watch.problems == []
