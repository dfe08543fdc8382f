"""The page's stored history is read entry by entry, in Chromium: what the browser holds
under ``capsa.history`` is not ours, so an entry the page cannot read is dropped, the
page starts whatever is stored, and the button that forgets the history always works."""

from __future__ import annotations

import json

from playwright.sync_api import expect

from tests.test_web_browser import HAND, open_page

KEY = "capsa.history"


def _good(server) -> dict:  # noqa: F811 - the fixture's value
    return {"hand": HAND, "rules": "chinese-1-6", "policy": "field", "seed": 1,
            "action": "play", "ev": 1.25, "link": f"{server.url}#hand=x",
            "played": None}  # fmt: skip


def test_the_page_starts_whatever_its_stored_history_holds(browser, server):  # noqa: F811
    """Probe 12: ``[null]``, or an entry whose hand is a number, stopped the page
    ("Cannot read properties of null") and the history could not be forgotten."""
    ctx, page, watch = open_page(browser, server)
    good = _good(server)
    bad = [None, {**good, "hand": 5}, 7, "text", [1], {**good, "link": "https://elsewhere.example/"},
           {**good, "link": "javascript:alert(1)"}, {**good, "ev": "x"}, {**good, "action": 3},
           {**good, "played": {"loss": "x"}}, {**good, "hand": "As Ks"}, {"link": "#"}]  # fmt: skip
    page.evaluate("([k, v]) => localStorage.setItem(k, v)", [KEY, json.dumps([*bad, good])])
    page.reload()
    page.wait_for_selector("body[data-ready=true]")
    links = page.locator("#history-list .history-link")
    assert links.count() == 1 and links.get_attribute("href") == good["link"]
    for stored in ("[null]", json.dumps([{**good, "hand": 5}]), "{", "42"):
        page.evaluate("([k, v]) => localStorage.setItem(k, v)", [KEY, stored])
        page.reload()
        page.wait_for_selector("body[data-ready=true]")
        assert page.locator("#history-list .history-link").count() == 0
        assert page.locator("#history-list li.note").count() == 1
    # forgetting works, and clears what the browser holds
    page.evaluate("([k, v]) => localStorage.setItem(k, v)", [KEY, json.dumps([None, good])])
    page.reload()
    page.wait_for_selector("body[data-ready=true]")
    page.click("#history summary")
    page.click("#history-clear")
    assert page.evaluate("(k) => localStorage.getItem(k)", KEY) is None
    assert page.locator("#history-list .history-link").count() == 0
    ctx.close()
    assert watch.problems == []


def test_two_answers_for_one_hand_are_told_apart_in_the_history(browser, server):  # noqa: F811
    """Issue 34, item 11: the history drew a hand as letters and showed only its rules,
    so the same hand solved by Monte Carlo and by the field model looked alike. Each
    entry now draws the hand as cards and says the game, the players and how it was
    solved, as the answer does."""
    from tests.test_web_table import as_symbols

    ctx, page, watch = open_page(browser, server)
    page.fill("#hand-input", as_symbols(HAND))
    page.fill("#samples", "200")
    page.fill("#seed", "1")
    page.click("#solve")
    page.wait_for_selector("#answer .timing")
    page.select_option("#policy", "field")
    page.click("#solve")
    expect(page.locator("#history-list .history-link")).to_have_count(2)
    page.click("#history summary")
    entries = page.locator("#history-list li")
    texts = [entries.nth(i).locator(".history-table").inner_text() for i in range(2)]
    assert texts[0] != texts[1]
    assert "as most players set" in texts[0]
    assert "Monte Carlo, 200 opponent hands, seed 1" in texts[1]
    for i in range(2):
        assert "4 players" in texts[i] and "Chinese poker, 1-6" in texts[i]
        cards = entries.nth(i).locator(".history-link .card")
        assert cards.count() == 13
        shown = sorted(cards.nth(j).get_attribute("data-card") for j in range(13))
        assert shown == sorted(HAND.split())
        box = entries.nth(i).locator(".history-link").bounding_box()
        assert box["height"] >= 44
    # an entry stored before these were kept still shows (what it has)
    old = {"hand": HAND, "rules": "chinese-1-6", "policy": "mc", "seed": 1, "action": "play",
           "ev": 1.0, "link": f"{server.url}#hand=y", "played": None}  # fmt: skip
    page.evaluate("([k, v]) => localStorage.setItem(k, v)", [KEY, json.dumps([old])])
    page.goto(server.url)  # no answer's link in the address: nothing solved again
    page.wait_for_selector("body[data-ready=true]")
    assert page.locator("#history-list .history-link").count() == 1
    assert page.locator("#history-list .history-table").text_content() == "Chinese poker, 1-6"
    ctx.close()
    assert watch.problems == []
