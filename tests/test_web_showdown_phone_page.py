"""The practice showdown on a phone is one table (issue 53, item 7), in a real browser at
375 × 812: each row's cards on one line, five cards overlapping with every rank and
suit left in sight, and the seats of four players on one screen (before: the five-card
rows wrapped 4 + 1 or 3 + 2 and four players took about 1,700 px); each row's result
said as the player's ("你赢", not "赢" beside the opponent's row: issue 53, item 6). A
seat whose dealt hand declares a natural shows it, named, with its 13 cards, in place of
rows (a Mậu Binh deal does so now and then: a CI run met one).

The browser, the server and the page helpers are tests/test_web_browser.py's.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.test_web_table import LOCALE_LANG, SIZES, catalogue, table_page


def _box(locator) -> dict:
    box = locator.bounding_box()
    assert box is not None
    return box


YOU = {"zh-CN": "你", "vi-VN": "bạn", "en-US": "you"}  # whose result a row's word is


@pytest.mark.parametrize(("locale", "players"), [("zh-CN", 4), ("vi-VN", 4), ("en-US", 3)])
def test_the_phone_showdown_is_one_table(browser, server, locale, players):  # noqa: F811
    width, height = SIZES["phone"]
    ctx, page, watch = table_page(browser, server, SIZES["phone"], locale)
    words = catalogue(LOCALE_LANG[locale])
    page.select_option("#players", str(players))
    page.select_option("#policy", "field")
    page.tap("#tab-practice")
    expect(page.locator("#pool button")).to_have_count(13)
    page.tap("#hint")
    expect(page.locator("#pool button")).to_have_count(0)
    page.tap("#check")
    page.wait_for_selector("#showdown .table-result")
    seats = page.locator("#showdown .seat")
    assert seats.count() == players
    shown = 0  # seats that show rows: a dealt hand may declare a natural instead
    for i in range(players):
        rows = seats.nth(i).locator("table.showdown-rows tbody tr")
        if rows.count() == 0:  # a natural, named, and its cards: no rows to lay out
            declared = seats.nth(i).locator("p.declared")
            expect(declared).to_have_count(1)
            assert declared.locator(".card").count() == 13
            continue
        shown += 1
        assert rows.count() == 3
        for r in range(3):
            row = rows.nth(r)
            cards = row.locator(".card")
            boxes = [_box(cards.nth(k)) for k in range(cards.count())]
            assert len(boxes) == (3 if r == 0 else 5)
            assert max(b["y"] for b in boxes) - min(b["y"] for b in boxes) < 1  # one line
            boxes.sort(key=lambda b: b["x"])
            for k in range(len(boxes) - 1):  # overlapping, each face in sight
                a, b = boxes[k], boxes[k + 1]
                assert a["x"] + a["width"] > b["x"] + 1, (i, r, k)
            for k in range(cards.count() - 1):
                face = cards.nth(k)
                nxt = _box(cards.nth(k + 1))
                for part in (".rank", ".suit"):
                    p = _box(face.locator(part))
                    assert p["x"] + p["width"] <= nxt["x"] + 0.5, (i, r, k, part)
            last = _box(row)
            assert last["x"] >= 0 and last["x"] + last["width"] <= width
            result = row.locator("td.result")
            if result.count():  # the row's result on the cards' line, said as yours
                said = result.inner_text()
                assert said in (words["table.win"], words["table.loss"], words["table.tie"])
                assert YOU[locale] in said or said == words["table.tie"], said
                rb, cb = _box(result), boxes[0]
                assert abs((rb["y"] + rb["height"] / 2) - (cb["y"] + cb["height"] / 2)) < 8
    assert shown >= 2, shown  # a deal where two seats declare at once is very rare
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    first, last = _box(seats.first), _box(seats.last)
    span = last["y"] + last["height"] - first["y"]
    assert span <= height, span  # every seat on one screen (about 580 px at four players)
    ctx.close()
    assert watch.problems == []
