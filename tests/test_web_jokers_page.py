"""The page with jokers (issue #32), in a real browser at a desktop size (1280 × 900) and a
phone size (375 × 812): the jokers menu beside the players follows the ruleset (0 to 2
under 十三水, none under capsa), the picker gets a joker button a joker of the deck
(reached by the keyboard, a touch target as big as the other cards), the typed box
reads X and says when the table deals fewer jokers, the answer draws the joker and says
what it stands for, and Practice deals the table's jokers and plays the hand.

The browser, the server and the page helpers are tests/test_web_browser.py's; the
field tables of the tables with jokers are small ones (tests/test_web_jokers_api.py).
"""

from __future__ import annotations

from collections import Counter

import pytest
from playwright.sync_api import expect

from tests.test_web_big_tables_page import no_sideways_scroll, options
from tests.test_web_browser import ROWS, as_symbols
from tests.test_web_jokers_api import small_field_tables, table
from tests.test_web_practice import post
from tests.test_web_table import size, table_page  # noqa: F401 - the fixture, by name

#: A hand with a joker: the joker makes the royal flush (T♠) in the back.
HAND = "X As Ks Qs Js 9h 9d 9c 2s 3d 4c 5h 7d"


@pytest.fixture(scope="module", autouse=True)
def tables():
    with small_field_tables(table("shisanshui", 1), table("shisanshui", 2)):
        yield


def test_a_hand_with_a_joker_picked_and_solved(browser, server, size):  # noqa: F811
    """Under 十三水 with one joker the picker has one joker button, as big as the other
    cards and reached from the clubs by the arrow keys; a hand holding it is picked,
    solved (field) at shisanshui-jokers-1, and the answer draws the joker and names the
    card it stands for; its link asks for the joker again; typed, a second X is named;
    at 0 jokers the button goes and the joker is refused; capsa, which ranks suits, shows
    no jokers menu."""
    ctx, page, watch = table_page(browser, server, size)
    tap = page.tap if size[0] < 500 else page.click
    page.select_option("#rules", "shisanshui")
    assert page.is_visible("#jokers") and options(page, "#jokers") == ["0", "1", "2"]
    page.select_option("#jokers", "1")
    joker = page.locator('#picker [data-card="X"]')
    expect(joker).to_have_count(1)
    expect(page.locator('#picker [data-card="X2"]')).to_have_count(0)
    assert joker.get_attribute("aria-label") == "joker"
    box, ace = joker.bounding_box(), page.locator('#picker [data-card="As"]').bounding_box()
    assert (box["width"], box["height"]) == (ace["width"], ace["height"])
    if size[0] < 500:
        assert min(box["width"], box["height"]) >= 44
    page.focus('#picker [data-card="Ac"]')  # the last suit's first card; down: the joker
    page.keyboard.press("ArrowDown")
    assert page.evaluate("document.activeElement.dataset.card") == "X"
    page.keyboard.press("Enter")
    for c in HAND.split()[1:]:
        tap(f'#picker [data-card="{c}"]')
    assert page.get_attribute("#hand-status", "data-ok") == "true"
    assert page.get_attribute("#picked", "data-cards").split()[0] == "X"
    page.select_option("#policy", "field")
    tap("#solve")
    page.wait_for_selector("#answer .timing")
    d = page.evaluate("state.answer.data")
    assert (d["rules"], d["players"], d["policy"]) == ("shisanshui-jokers-1", 4, "field")
    rows = {r: d[r].split() for r in ROWS}
    assert Counter(sum(rows.values(), [])) == Counter(HAND.split())
    (where,) = [r for r in ROWS if "X" in rows[r]]
    drawn = page.locator(f'#answer table.setting tr[data-row="{where}"] .card.joker')
    expect(drawn).to_have_count(1)
    assert drawn.get_attribute("data-card") == "X" and drawn.inner_text().split() == ["★", "JOKER"]
    named = post(page, "/api/rows", {"rules": "shisanshui", "players": 4, "jokers": 1,
                                     "settings": [" | ".join(d[r] for r in ROWS)]})  # fmt: skip
    stands = named["settings"][0][where]["jokers"]
    tag = page.locator(f'#answer table.setting tr[data-row="{where}"] .hand-name')
    assert tag.get_attribute("data-jokers") == stands
    assert "joker as" in tag.inner_text()
    no_sideways_scroll(page, size[0])
    # the answer's link asks for the joker again
    link = page.evaluate("state.answer.link")
    assert "jokers=1" in link
    page.select_option("#jokers", "2")
    page.evaluate("(link) => openLink(link)", link)
    page.wait_for_function("state.answer && !document.querySelector('#answer .stale-note')")
    assert page.input_value("#jokers") == "1"
    assert page.evaluate("state.answer.data.rules") == "shisanshui-jokers-1"
    # typed: x and 🃏 read as jokers; a second one is more than the table deals
    page.fill("#hand-input", "x " + as_symbols(" ".join(HAND.split()[1:])))
    assert page.get_attribute("#hand-status", "data-ok") == "true"
    page.fill("#hand-input", "🃏 x " + as_symbols(" ".join(HAND.split()[2:])))
    assert page.get_attribute("#hand-status", "data-ok") == "false"
    assert "2 jokers (X): this table deals 1" in page.inner_text("#hand-status")
    page.select_option("#jokers", "0")  # 52 cards: no joker
    expect(page.locator("#picker .picker-row.jokers")).to_have_count(0)
    assert "this table deals none" in page.inner_text("#hand-status")
    page.select_option("#rules", "capsa")
    assert page.is_hidden("#jokers")
    ctx.close()
    assert watch.problems == []


def test_practice_at_a_table_of_two_jokers(browser, server, size):  # noqa: F811
    """Practice under 十三水 with two jokers: the hand is dealt from the 54-card deck (the
    seed deals it again), a hand holding a joker is dealt within a few deals, set by the
    hint and played; the showdown is the server's for that deal and draws every joker
    at the table."""
    ctx, page, watch = table_page(browser, server, size)
    tap = page.tap if size[0] < 500 else page.click
    page.select_option("#rules", "shisanshui")
    page.select_option("#jokers", "2")
    page.select_option("#policy", "field")
    tap("#tab-practice")
    expect(page.locator("#pool button")).to_have_count(13)
    for _ in range(30):  # a hand holds a joker 43% of the time
        dealt = page.evaluate("state.dealt")
        if "X" in dealt["hand"]:
            break
        tap("#deal")
        page.wait_for_function("(seed) => state.dealt && state.dealt.seed !== seed",
                               arg=dealt["seed"])  # fmt: skip
    assert dealt["extra"] == "XX" and "X" in dealt["hand"]
    again = post(page, "/api/deal", {"seed": dealt["seed"], "rules": "shisanshui", "jokers": 2})
    faces = (c[:1] if c[0] == "X" else c[:2] for c in dealt["hand"])
    assert Counter(again["hand"].split()) == Counter(faces)
    held = sum(c[0] == "X" for c in dealt["hand"])
    expect(page.locator("#pool .card.joker")).to_have_count(held)
    tap("#hint")
    expect(page.locator("#pool button")).to_have_count(0)
    tap("#check")
    page.wait_for_selector("#showdown .table-result")
    shown = page.evaluate("state.table")
    played = " | ".join(page.get_attribute(f'.cards[data-row="{r}"]', "data-cards") for r in ROWS)
    body = {"hand": again["hand"], "played": played, "seed": dealt["seed"],
            "rules": "shisanshui", "players": 4, "jokers": 2}  # fmt: skip
    assert shown == post(page, "/api/table", body)
    assert (shown["rules"], shown["jokers"]) == ("shisanshui-jokers-2", 2)
    jokers = sum(s["cards"].split().count("X") for s in shown["seats"])
    expect(page.locator("#showdown .card.joker")).to_have_count(jokers)
    no_sideways_scroll(page, size[0])
    ctx.close()
    assert watch.problems == []
