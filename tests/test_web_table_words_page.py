"""The page in each table's own words (issue 53), in a real browser at a desktop size
(1280 × 900) and a phone size (375 × 812): the header's Rules link opens the players'
page of the game chosen, in the page's language (the developers' specification stays
at the page's foot); the runners-up read as blocks on a phone; every number of units is
in the table's unit (水, chi, …), the solver's words under "Advanced"; a row's chance to
win is said beside the best setting's, not as points lost.

The browser, the server and the page helpers are tests/test_web_browser.py's.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.test_web_browser import HAND, ROWS, as_symbols
from tests.test_web_table import (  # noqa: F401
    LOCALE_LANG,
    SIZES,
    catalogue,
    local_number,
    size,
    table_page,
)


def test_the_headers_rules_link_opens_this_games_rules_in_this_language(browser, server, size):  # noqa: F811
    width, _ = size
    ctx, page, watch = table_page(browser, server, size, locale="zh-CN")
    head = page.locator("header #rules-link")
    zh = catalogue("zh-Hans")
    expect(head).to_have_text(zh["nav.rules"])
    expect(head).to_be_visible()
    # a first visit in 中文 starts at 十三水 (docs/serve.md): its players' page, in 中文
    expect(head).to_have_attribute("href", "/rules/shisanshui?lang=zh-Hans")
    page.select_option("#rules", "mau-binh")
    page.select_option("#lang", "vi")
    expect(head).to_have_attribute("href", "/rules/mau-binh?lang=vi")
    expect(head).to_have_text(catalogue("vi")["nav.rules"])
    head.click()
    page.wait_for_selector("h1")
    assert page.url == server.url.rstrip("/") + "/rules/mau-binh?lang=vi"
    vi = catalogue("vi")
    assert page.inner_text("h1") == vi["rules.p.title"].replace(
        "{game}", vi["rules.p.game.mau-binh"]
    )
    assert page.evaluate("document.documentElement.lang") == "vi"
    # the developers' specification: a link at the foot of the players' page, in English
    spec = page.locator("#full-rules")
    assert spec.get_attribute("href") == "/rules"
    box = spec.bounding_box()
    assert box is not None and box["x"] + box["width"] <= width
    page.click("#back-link")
    page.wait_for_selector("body[data-ready=true]")
    expect(page.locator("header #rules-link")).to_have_attribute("href", "/rules/mau-binh?lang=vi")
    # and at the foot of the page itself, least prominent: the specification as it is
    foot = page.locator("footer #spec-link")
    assert foot.get_attribute("href") == "/rules"
    expect(foot).to_have_text(vi["glossary.more"])
    foot.click()
    page.wait_for_selector("h1")
    assert page.url == server.url.rstrip("/") + "/rules"
    assert page.inner_text("h1") == "The game capsa plays"
    ctx.close()
    assert watch.problems == []


def _lines(boxes: list[dict]) -> int:
    """How many lines boxes laid out in a row take (tops more than half a box apart)."""
    tops: list[float] = []
    for b in sorted(boxes, key=lambda b: b["y"]):
        if not tops or b["y"] - tops[-1] > b["height"] / 2:
            tops.append(b["y"])
    return len(tops)


def _apart(a: dict, b: dict) -> bool:
    """Two boxes do not overlap."""
    return (
        a["x"] + a["width"] <= b["x"] + 0.5
        or b["x"] + b["width"] <= a["x"] + 0.5
        or a["y"] + a["height"] <= b["y"] + 0.5
        or b["y"] + b["height"] <= a["y"] + 0.5
    )


def test_each_runner_up_is_a_readable_block(browser, server, size):  # noqa: F811
    width, _ = size
    phone = width < 500
    ctx, page, watch = table_page(browser, server, size, locale="vi-VN")
    page.select_option("#rules", "mau-binh")
    page.select_option("#policy", "field")
    page.fill("#hand-input", as_symbols(HAND))
    page.click("#solve")
    page.wait_for_selector("#answer .timing")
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    alts = page.locator("#answer table.alts tbody tr")
    assert alts.count() >= 2
    blocks = []
    for i in range(alts.count()):
        tr = alts.nth(i)
        block = tr.bounding_box()
        assert block is not None and block["x"] >= 0 and block["x"] + block["width"] <= width
        blocks.append(block)
        cells = tr.locator("td")
        boxes = []  # each part of the block: a row's cell, the value's cells
        for j, row in enumerate(ROWS):
            cell = cells.nth(j)
            box = cell.bounding_box()
            assert box is not None, (i, row)  # a box of its own, not its parts in the grid
            line = cell.locator(".cardline")
            cards = [
                line.locator(".card").nth(k).bounding_box()
                for k in range(line.locator(".card").count())
            ]
            assert len(cards) == (3 if row == "front" else 5)
            assert _lines(cards) == 1, (i, row, cards)  # every card of the row on one line
            assert all(c["x"] + c["width"] <= width for c in cards)
            assert all(_apart(a, b) for k, a in enumerate(cards) for b in cards[k + 1 :])
            if phone:  # the row's name beside its cards: on their line, left of the first
                label = page.evaluate("(td) => getComputedStyle(td, '::before').content",
                                      cell.element_handle())  # fmt: skip
                assert label.strip('"') == catalogue("vi")[f"row.{row}"]
                first = min(cards, key=lambda c: c["x"])
                assert first["x"] - box["x"] >= 30 and abs(first["y"] - box["y"]) < first["height"]
            else:  # the row's name over its column
                head = page.locator("#answer table.alts thead th").nth(j)
                assert head.inner_text() == catalogue("vi")[f"row.{row}"]
            # the hand's name inside its own row's block, under or beside its cards
            name = cell.locator(".hand-name")
            if name.count():
                nb = name.bounding_box()
                assert (
                    box["y"] <= nb["y"] and nb["y"] + nb["height"] <= box["y"] + box["height"] + 0.5
                )
                assert all(_apart(nb, c) for c in cards)
            boxes.append(box)
        for j in (3, 4):  # the value and "against the best", each beside its label, one line
            cell = cells.nth(j)
            box = cell.bounding_box()
            assert box is not None
            if phone:  # its name (::before) and its value on one line
                height = page.evaluate("(td) => parseFloat(getComputedStyle(td).lineHeight) || 20",
                                       cell.element_handle())  # fmt: skip
                assert box["height"] < 1.8 * height, (i, j, box)
            else:  # the value on one line, under its column's name
                rects = page.evaluate(
                    "(td) => { const r = document.createRange(); r.selectNodeContents(td);"
                    " return [...r.getClientRects()].map((b) => ({x: b.x, y: b.y, width: b.width,"
                    " height: b.height})); }", cell.element_handle())  # fmt: skip
                assert rects and _lines(rects) == 1, (i, j, rects)
            boxes.append(box)
        assert all(_apart(a, b) for k, a in enumerate(boxes) for b in boxes[k + 1 :]), boxes
        assert [b["y"] for b in boxes[:3]] == sorted(b["y"] for b in boxes[:3])
    assert all(_apart(a, b) for k, a in enumerate(blocks) for b in blocks[k + 1 :])
    ctx.close()
    assert watch.problems == []


def _said(template: str, unit: str) -> re.Pattern[str]:
    """A catalogue's message as the page writes it: its numbers any, its unit ``unit``."""
    text = re.escape(template).replace(re.escape("{unit}"), re.escape(unit))
    return re.compile(re.sub(r"\\\{[a-z]+\\\}", r"[−+]?[\\d.,]+", text))


def _solve(page) -> None:
    """Solve, and wait for the answer of the table chosen (not the one shown before)."""
    page.click("#solve")
    ready = (
        "!!(state.answer && state.answer.data && state.answer.data.rules ==="
        " document.querySelector('#rules').value && document.querySelector('#answer .timing')"
        " && !document.querySelector('#answer .answer.stale'))"
    )
    for _ in range(600):  # the page's CSP forbids wait_for_function's eval
        if page.evaluate(ready):
            return
        page.wait_for_timeout(200)
    raise AssertionError("no answer for the table chosen")


def test_the_result_is_in_the_tables_unit(browser, server, size):  # noqa: F811
    """十三水 in 中文 counts 水, Mậu Binh in Tiếng Việt chi, a game without a word of its
    own the language's unit: in Solve, Check, the showdown and the rules page alike; the
    estimate's margin and the seed only under "Advanced"."""
    ctx, page, watch = table_page(browser, server, size, locale="zh-CN")
    zh = catalogue("zh-Hans")
    assert page.input_value("#rules") == "shisanshui"  # a first visit in 中文 (docs/serve.md)
    page.fill("#hand-input", as_symbols(HAND))
    page.fill("#samples", "300")
    page.fill("#seed", "7")
    _solve(page)
    per = zh["answer.units"].replace("{unit}", "水")
    assert per in page.inner_text("#answer .ev")
    assert zh["answer.units"].replace("{unit}", "分") not in page.inner_text("#answer")
    assert page.inner_text("#answer table.alts thead th >> nth=3") == per
    # the solver's words under "Advanced", folded: the margin said plainly, the seed
    more = page.locator("#answer details.how-more")
    assert more.get_attribute("open") is None
    expect(more.locator(".how")).to_be_hidden()
    expect(more.locator(".margin")).to_be_hidden()
    assert "7" in more.locator(".how").text_content()
    assert _said(zh["answer.margin"], "水").search(more.locator(".margin").text_content())
    assert "±" not in page.inner_text("#answer .ev")
    # Check: what a setting gives up, in 水
    page.click("#tab-check")
    rows = ("2s 3d 4c", "As Ks Qs Js 7d", "9h 9d 9c Ts 5h")  # fouled nowhere, worse than the best
    page.fill("#played-input", " | ".join(as_symbols(r) for r in rows))
    page.press("#played-input", "Enter")
    page.wait_for_selector("#check-result .verdict")
    assert _said(zh["check.costs"], "水").fullmatch(page.inner_text("#check-result .verdict"))
    assert per in page.inner_text("#check-result .ev")
    # the rules page of the game: its amounts in 水
    page.click("header #rules-link")
    page.wait_for_selector("h1")
    assert zh["rules.p.intro"].replace("{unit}", "水") in page.inner_text("main")
    assert page.inner_text("table.bonus-rows th >> nth=-1") == "水"
    page.go_back()
    page.wait_for_selector("body[data-ready=true]")
    # a game without a word of its own in 中文: the language's unit
    page.evaluate("document.querySelector('#table-settings').open = true")
    page.evaluate("document.querySelector('#advanced').open = true")
    page.click("#tab-solve")
    page.select_option("#rules", "chinese-1-6")
    page.select_option("#policy", "field")
    page.fill("#hand-input", as_symbols(HAND))
    _solve(page)
    assert zh["answer.units"].replace("{unit}", zh["unit.generic"]) in page.inner_text(
        "#answer .ev"
    )
    # Mậu Binh in Tiếng Việt: chi, in Solve and in the showdown
    page.select_option("#lang", "vi")
    page.select_option("#rules", "mau-binh")
    vi = catalogue("vi")
    _solve(page)
    assert vi["answer.units"].replace("{unit}", "chi") in page.inner_text("#answer .ev")
    page.click("#tab-practice")
    before = page.get_attribute("#pool", "data-cards")
    page.click("#deal")
    expect(page.locator("#pool")).not_to_have_attribute("data-cards", before or "")
    expect(page.locator("#pool button")).to_have_count(13)  # the dealt hand, not the last one
    page.click("#hint")
    expect(page.locator("#pool button")).to_have_count(0)
    page.click("#check")
    page.wait_for_selector("#showdown .table-result")
    total = page.inner_text("#showdown .table-total")
    assert _said(vi["table.units"], "chi").search(total), total
    ctx.close()
    assert watch.problems == []


@pytest.mark.parametrize("locale", ["en-US", "hr-HR"])
@pytest.mark.sampled  # tests/sampling.py: every value once by default, all under -m slow
def test_a_rows_win_chance_is_said_beside_the_bests(browser, server, size, locale):  # noqa: F811
    """Check: each row's chance to win, "4.7% (best 69.9%)" under "your row's win chance",
    not a difference read as points lost ("−65.2 pts", "−90,3 bod.")."""
    width, _ = size
    lang = LOCALE_LANG[locale]
    words = catalogue(lang)
    ctx, page, watch = table_page(browser, server, size, locale=locale)
    page.select_option("#rules", "chinese-1-6")
    page.select_option("#policy", "field")
    page.click("#tab-check")
    page.fill("#hand-input", as_symbols(HAND))
    rows = ("2s 3d 4c", "As Ks Qs Js 7d", "9h 9d 9c Ts 5h")  # fouled nowhere, worse than the best
    page.fill("#played-input", " | ".join(as_symbols(r) for r in rows))
    page.press("#played-input", "Enter")
    page.wait_for_selector("#check-result .verdict")
    played = page.evaluate("state.checked.data.played")
    cells = page.locator("#check-result table.compare td.win-chance")
    assert cells.count() == 3
    pct = lambda x: local_number(100 * x, 1, lang) + "%"  # noqa: E731 - as the page writes it
    changed = 0
    for i, r in enumerate(ROWS):
        row = played["rows"][r]
        cell = cells.nth(i)
        if row["differs"] and row["win_change"]:
            best = row["win"] - row["win_change"]
            said = words["check.winChance"].replace("{p}", pct(row["win"]))
            assert cell.inner_text() == said.replace("{best}", pct(best)), r
            changed += 1
        else:
            assert cell.inner_text() == pct(row["win"]), r
        if width < 500:  # whose chance it is, beside it
            label = page.evaluate(
                "(td) => getComputedStyle(td, '::before').content", cell.element_handle()
            )
            assert label.strip('"').strip() == words["check.colWin"]
        box = cell.bounding_box()
        assert box is not None and box["x"] + box["width"] <= width
    assert changed >= 1  # the setting played changes some row's chance
    if width >= 500:
        head = page.locator("#check-result table.compare thead th")
        assert head.nth(head.count() - 1).inner_text() == words["check.colWin"]
    text = page.inner_text("#check-result table.compare")
    assert "pts" not in text and "bod." not in text and "−" not in text
    ctx.close()
    assert watch.problems == []
