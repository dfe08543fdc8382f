"""The page as a card table (issue 34), in a real browser: hand names, numbers, cards,
the game of the language, naturals, Check typed in. Each test runs at a desktop size
(1280 × 900) and a phone size (375 × 812), in the languages the issue names.

The browser, the server and the page helpers are tests/test_web_browser.py's.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.sync_api import expect

import evaluator as ev
from solver.engine.rules import preset
from tests import reference as ref
from tests.test_web_browser import (  # noqa: F401 - the fixtures are used by name
    FOULED,
    HAND,
    ROWS,
    browser,
    open_page,
    server,
    shown_cards,
)

SIZES = {"desktop": (1280, 900), "phone": (375, 812)}
I18N = Path(__file__).resolve().parent.parent / "solver" / "apps" / "web" / "static" / "i18n"
LOCALE_LANG = {"en-US": "en", "zh-CN": "zh-Hans", "vi-VN": "vi", "id-ID": "id", "fil-PH": "fil"}


def catalogue(lang: str) -> dict[str, str]:
    return json.loads((I18N / f"{lang}.json").read_text(encoding="utf-8"))


@pytest.fixture(params=list(SIZES))
def size(request):
    return SIZES[request.param]


def table_page(browser, server, size, locale="en-US"):  # noqa: F811 - the fixture, passed on
    width, height = size
    phone = width < 500
    ctx, page, watch = open_page(browser, server, viewport={"width": width, "height": height},
                                 locale=locale, has_touch=phone, is_mobile=phone)  # fmt: skip
    return ctx, page, watch


def hand_class(cards: str) -> str:
    """The oracle's name of a row's hand, as the catalogues key it."""
    ids = ref.ref_cards(cards)
    if ref.ref_is_royal(ids):
        return "royal_flush"
    name = ref.ref_category3(ids) if len(ids) == 3 else ref.ref_category5(ids)
    return name.replace(" ", "_")


def units_text(x: float) -> str:
    return f"{x:+.0f}".replace("-", "−")


# --------------------------------------------------------------------------- 1. hand names


@pytest.mark.parametrize("locale", ["en-US", "zh-CN", "vi-VN"])
def test_every_row_is_named_in_the_players_words(browser, server, size, locale):  # noqa: F811
    lang = LOCALE_LANG[locale]
    words = catalogue(lang)
    ctx, page, watch = table_page(browser, server, size, locale)
    page.select_option("#rules", "shisanshui")
    page.select_option("#policy", "field")
    page.fill("#hand-input", HAND)
    page.click("#solve")
    page.wait_for_selector("#answer .timing")
    rules = preset("shisanshui")
    best = {r: page.get_attribute(f'#answer table.setting tr[data-row="{r}"]', "data-cards")
            for r in ROWS}  # fmt: skip
    for r in ROWS:
        name = page.locator(f'#answer table.setting tr[data-row="{r}"] .hand-name')
        want = words[f"hand.{hand_class(best[r])}"]
        units = ref.ref_row_royalty(r, ref.ref_cards(best[r]), rules)
        assert name.inner_text() == (f"{want} {units_text(units)}" if units else want), r
    # the royalties part says where they come from: "back: royal flush +5"
    back_units = ref.ref_row_royalty("back", ref.ref_cards(best["back"]), rules)
    assert back_units > 0
    source = words["royalty.source"].format(
        row=words["row.back"], hand=words[f"hand.{hand_class(best['back'])}"],
        units=units_text(back_units))  # fmt: skip
    assert source in page.inner_text('#answer table.parts tr[data-part="royalties"]')
    alts = page.locator("#answer table.alts tbody tr")
    assert alts.count() >= 2
    for i in range(alts.count()):
        for j in range(3):
            cell = alts.nth(i).locator("td").nth(j)
            cards = " ".join(cell.locator(".cardline").get_attribute("data-cards").split())
            assert words[f"hand.{hand_class(cards)}"] in cell.locator(".hand-name").inner_text()
    ctx.close()
    assert watch.problems == []


@pytest.mark.parametrize("locale", ["en-US", "zh-CN", "vi-VN"])
def test_rows_are_named_while_set_and_a_foul_names_its_rows(browser, server, size, locale):  # noqa: F811
    lang = LOCALE_LANG[locale]
    words = catalogue(lang)
    ctx, page, watch = table_page(browser, server, size, locale)
    page.select_option("#policy", "field")
    page.fill("#hand-input", HAND)
    page.click("#tab-check")
    tap = page.tap if size[0] < 500 else page.click
    tap('.row-target[data-row="front"]')
    for c in FOULED["front"].split():
        tap(f'#pool [data-card="{c}"]')
    front_name = words[f"hand.{hand_class(FOULED['front'])}"]
    expect(page.locator('.slot[data-row="front"] .row-hand')).to_have_text(front_name)
    expect(page.locator("#foul-warning")).to_have_text("")
    tap('.row-target[data-row="middle"]')
    for c in FOULED["middle"].split():
        tap(f'#pool [data-card="{c}"]')
    middle_name = words[f"hand.{hand_class(FOULED['middle'])}"]
    expect(page.locator('.slot[data-row="middle"] .row-hand')).to_have_text(middle_name)
    expect(page.locator("#foul-warning")).to_have_text("")  # AKQ high is below trips
    tap('.row-target[data-row="back"]')
    for c in FOULED["back"].split():
        tap(f'#pool [data-card="{c}"]')
    back_name = words[f"hand.{hand_class(FOULED['back'])}"]
    assert not ref.ref_is_legal(*(ev.parse_cards(FOULED[r]).tolist() for r in ROWS))
    warning = words["board.foul"].format(row=words["row.middle"], hand=middle_name,
                                         over=words["row.back"], other=back_name)  # fmt: skip
    expect(page.locator("#foul-warning")).to_have_text(warning)
    assert page.get_attribute("#foul-warning", "data-row") == "middle"
    tap("#check")
    verdict = page.locator("#check-result .verdict")
    verdict.wait_for()
    why = words["check.fouledRow"].format(row=words["row.middle"], hand=middle_name,
                                          over=words["row.back"], other=back_name)  # fmt: skip
    assert why in verdict.inner_text()
    compare = page.locator('#check-result table.compare tr[data-row="back"] td').nth(0)
    assert compare.locator(".hand-name").inner_text() == back_name
    assert shown_cards(compare) != ""
    # a card taken back: the row is no longer named, the warning goes
    tap(f'.cards[data-row="back"] [data-card="{FOULED["back"].split()[0]}"]')
    expect(page.locator('.slot[data-row="back"] .row-hand')).to_have_text("")
    expect(page.locator("#foul-warning")).to_have_text("")
    ctx.close()
    assert watch.problems == []
