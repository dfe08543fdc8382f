"""The page's stored history is read entry by entry, in Chromium: what the browser holds
under ``capsa.history`` is not ours, so an entry the page cannot read is dropped, the
page starts whatever is stored, and the button that forgets the history always works."""

from __future__ import annotations

import json

from tests.test_web_browser import HAND, browser, open_page, server  # noqa: F401 - fixtures

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
