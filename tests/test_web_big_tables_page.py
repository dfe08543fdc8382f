"""The page at five and six players (issue #31), in a real browser at a desktop size
(1280 × 900) and a phone size (375 × 812): the players menu follows the ruleset (2 to 6
under 十三水, 2 to 4 under the others), the card picker shows the second copies of the
suits the table deals twice, the typed box takes a card twice when the deck holds it
twice, the answer draws both copies, and Practice at six deals from the 78-card deck and
shows five opponents without a horizontal scroll on a phone.

The browser, the server and the page helpers are tests/test_web_browser.py's.
"""

from __future__ import annotations

from collections import Counter

from playwright.sync_api import expect

from tests.test_web_browser import ROWS, as_symbols
from tests.test_web_practice import post
from tests.test_web_table import size, table_page  # noqa: F401 - the fixture, by name

#: Both copies of A♥ and three more aces and four kings: five of a kind at five players.
HAND = "Ah Ah Ad Ac As Kh Kd Kc Ks Qs Qd Jc 2c"


def options(page, sel: str) -> list[str]:
    return page.eval_on_selector_all(f"{sel} option", "els => els.map(e => e.value)")


def no_sideways_scroll(page, width: int) -> None:
    assert page.evaluate("document.scrollingElement.scrollWidth") <= width


def test_the_players_menu_follows_the_ruleset(browser, server, size):  # noqa: F811
    """Six players at most under shisanshui, four under chinese-1-6; a count the new
    ruleset cannot seat (a link's 6 under chinese-1-6) falls back to its most."""
    ctx, page, watch = table_page(browser, server, size)
    page.select_option("#rules", "shisanshui")
    assert options(page, "#players") == ["2", "3", "4", "5", "6"]
    page.select_option("#players", "6")
    expect(page.locator("#picker .picker-row")).to_have_count(6)  # ♠ ♥ ♥2 ♦ ♣ ♣2
    page.select_option("#rules", "chinese-1-6")
    assert options(page, "#players") == ["2", "3", "4"]
    assert page.input_value("#players") == "4"
    expect(page.locator("#picker .picker-row")).to_have_count(4)
    page.evaluate("playersMenu(state.rulesets.get('chinese-1-6'), '6')")
    assert page.input_value("#players") == "4"
    no_sideways_scroll(page, size[0])
    ctx.close()
    assert watch.problems == []


def test_both_copies_of_a_card_picked_and_solved_at_five(browser, server, size):  # noqa: F811
    """At five players under 十三水 the picker has a row of second hearts, each marked 2;
    a hand holding both A♥ is picked there, read, solved (field) at the seated table,
    and the answer draws both copies; a third A♥ typed is named; at four players the
    second A♥ is a duplicate."""
    ctx, page, watch = table_page(browser, server, size)
    tap = page.tap if size[0] < 500 else page.click
    page.select_option("#rules", "shisanshui")
    assert "5" in options(page, "#players")  # at once, not after select_option's wait
    page.select_option("#players", "5")
    copies = page.locator("#picker .picker-row.copies button")
    expect(copies).to_have_count(13)
    second = page.locator('#picker [data-card="Ah2"]')
    assert second.locator(".copy-mark").inner_text() == "2"
    assert "second copy" in second.get_attribute("aria-label")
    picks = ["Ah", "Ah2", *HAND.split()[2:]]
    for c in picks:
        tap(f'#picker [data-card="{c}"]')
    assert page.get_attribute("#hand-status", "data-ok") == "true"
    assert Counter(page.get_attribute("#picked", "data-cards").split())["Ah"] == 2
    for c in ("Ah", "Ah2"):
        assert page.get_attribute(f'#picker [data-card="{c}"]', "aria-pressed") == "true"
    page.select_option("#policy", "field")
    tap("#solve")
    page.wait_for_selector("#answer .timing")
    d = page.evaluate("state.answer.data")
    assert (d["rules"], d["players"], d["policy"]) == ("shisanshui-5", 5, "field")
    held = Counter(" ".join(d[r] for r in ROWS).split())
    assert held == Counter(HAND.split())
    drawn = page.locator('#answer table.setting .card[data-card^="Ah"]')
    expect(drawn).to_have_count(2)  # both copies drawn as cards
    no_sideways_scroll(page, size[0])
    # typed: a third A♥ is one too many, named at once; two are a hand at five
    page.fill("#hand-input", as_symbols(HAND.replace("Ad", "Ah")))
    assert page.get_attribute("#hand-status", "data-ok") == "false"
    assert "Ah" in page.inner_text("#hand-status")
    page.fill("#hand-input", as_symbols(HAND))
    assert page.get_attribute("#hand-status", "data-ok") == "true"
    page.select_option("#players", "4")  # 52 cards: one A♥
    expect(page.locator("#picker .picker-row.copies")).to_have_count(0)
    assert page.get_attribute("#hand-status", "data-ok") == "false"
    assert "Ah" in page.inner_text("#hand-status")
    ctx.close()
    assert watch.problems == []


def test_practice_at_six_shows_five_opponents(browser, server, size):  # noqa: F811
    """Practice at six players under 十三水: the hand is dealt from the 78-card deck, the
    showdown is the server's for that deal, five opponents are shown, each with its
    rows, and a phone's screen is not scrolled sideways."""
    ctx, page, watch = table_page(browser, server, size)
    tap = page.tap if size[0] < 500 else page.click
    page.select_option("#rules", "shisanshui")
    assert "6" in options(page, "#players")  # at once, not after select_option's wait
    page.select_option("#players", "6")
    page.select_option("#policy", "field")
    tap("#tab-practice")
    expect(page.locator("#pool button")).to_have_count(13)
    dealt = page.evaluate("state.dealt")
    assert dealt["extra"] == "hc"
    again = post(page, "/api/deal", {"seed": dealt["seed"], "rules": "shisanshui", "players": 6})
    assert Counter(again["hand"].split()) == Counter(c[:2] for c in dealt["hand"])
    tap("#hint")
    expect(page.locator("#pool button")).to_have_count(0)
    tap("#check")
    page.wait_for_selector("#showdown .table-result")
    shown = page.evaluate("state.table")
    played = " | ".join(page.get_attribute(f'.cards[data-row="{r}"]', "data-cards") for r in ROWS)
    body = {"hand": " ".join(c[:2] for c in dealt["hand"]), "played": played,
            "seed": dealt["seed"], "rules": "shisanshui", "players": 6}  # fmt: skip
    assert shown == post(page, "/api/table", body)
    assert (shown["rules"], shown["players"]) == ("shisanshui-6", 6)
    seats = page.locator("#showdown .seat[data-units]")
    expect(seats).to_have_count(5)
    assert page.locator("#showdown .seat .card").count() == 13 * 6
    no_sideways_scroll(page, size[0])
    ctx.close()
    assert watch.problems == []
