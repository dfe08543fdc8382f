"""The showdown's points row by row on the page (issue 53, item 6), in a real browser at
1280 × 900 and 375 × 812: beside each row's result (你赢 / bạn thua), what that row pays
the player (+1, −1, +3, in the language's digits), and under the rows what the pair
pays beyond them, named in the table's words (你打枪 +9 · 全垒打 +18); the rows and what
follows them add up to the pair's figure. The figures are the server's (POST /api/table,
checked against the oracle in tests/test_web_row_points.py).

The browser, the server and the page helpers are tests/test_web_browser.py's.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.test_web_browser import ROWS
from tests.test_web_practice import post
from tests.test_web_table import LOCALE_LANG, catalogue, size, table_page  # noqa: F401


def signed(x: float, lang: str) -> str:
    """A whole or decimal figure as the page writes a row's points: signed, the digits it
    has, the language's decimal mark and digits."""
    text = f"{x:+.3f}".rstrip("0").rstrip(".").replace("-", "−")
    if lang in ("vi", "id", "hr"):
        text = text.replace(".", ",")
    return text.translate(str.maketrans("0123456789", "০১২৩৪৫৬৭৮৯")) if lang == "bn" else text


def check_pairs(page, d: dict, lang: str) -> list[str]:
    """Every pair on the page as the server settled it: each row's points beside its
    result, the extras under the rows; the kinds of the extras shown."""
    words = catalogue(lang)
    seats = page.locator("#showdown .seat[data-units]")
    kinds = []
    for i, p in enumerate(d["pairs"]):
        seat = seats.nth(i)
        if p["row_units"] is not None:
            for row, x in zip(ROWS, p["row_units"], strict=True):
                cell = seat.locator(f'tr[data-row="{row}"] td.row-units')
                assert cell.inner_text() == signed(x, lang), (i, row)
        extras = seat.locator(".pair-extras .extra")
        shown = [e for e in p["extras"] if e["kind"] not in ("natural", "surrender")]
        assert extras.count() == len(shown)
        for k, e in enumerate(shown):
            item = extras.nth(k)
            assert item.get_attribute("data-kind") == e["kind"]
            assert item.inner_text().endswith(signed(e["units"], lang))
            if e["kind"] == "scoop":
                word = "table.scoopYou" if p["scoop"] == "you" else "table.scoopThem"
                assert item.inner_text().startswith(words[word])
            kinds.append(e["kind"])
        paid = sum(p["row_units"] or []) + sum(e["units"] for e in p["extras"])
        assert paid == pytest.approx(p["units"], abs=1e-9)
    return kinds


GAMES = [("zh-CN", "shisanshui"), ("vi-VN", "mau-binh"), ("en-US", "chinese-2-4"),
         ("bn-BD", "capsa")]  # fmt: skip


@pytest.mark.parametrize(("locale", "rules"), GAMES)
@pytest.mark.sampled  # tests/sampling.py: every value once by default, all under -m slow
def test_each_row_shows_what_it_pays(browser, server, size, locale, rules):  # noqa: F811
    """A practice hand set by the hint and checked: each row's points and the rest."""
    ctx, page, watch = table_page(browser, server, size, locale)
    tap = page.tap if size[0] < 500 else page.click
    page.select_option("#rules", rules)
    page.select_option("#players", "4")
    page.select_option("#policy", "field")
    tap("#tab-practice")
    expect(page.locator("#pool button")).to_have_count(13)
    tap("#hint")
    expect(page.locator("#pool button")).to_have_count(0)
    tap("#check")
    page.wait_for_selector("#showdown .table-result")
    d = page.evaluate("state.table")
    assert any(p["row_units"] for p in d["pairs"])
    check_pairs(page, d, LOCALE_LANG[locale])
    right = page.evaluate(RIGHT)
    assert right <= size[0]  # nothing in the showdown past the screen's edge
    ctx.close()
    assert watch.problems == []


#: The rightmost edge of anything in the showdown.
RIGHT = ("Math.max(...[...document.querySelectorAll('#showdown *')]"
         ".map((e) => e.getBoundingClientRect().right))")  # fmt: skip
STRONG = "Qh Qd Qc | Ah Ad Ac Kh Kd | As Ks Qs Js Ts"


@pytest.mark.parametrize("locale", ["zh-CN", "vi-VN"])
@pytest.mark.sampled  # tests/sampling.py: every value once by default, all under -m slow
def test_a_scoop_and_the_home_run_follow_the_rows(browser, server, size, locale):  # noqa: F811
    """十三水 at three players, a hand that scoops both opponents: each pair's rows, then
    你打枪 / bạn bắt sập 3 chi and 全垒打 / sập làng with what each adds."""
    ctx, page, watch = table_page(browser, server, size, locale)
    page.select_option("#rules", "shisanshui")
    page.select_option("#players", "3")
    (page.tap if size[0] < 500 else page.click)("#tab-practice")
    expect(page.locator("#pool button")).to_have_count(13)
    hand = STRONG.replace("|", "").split()
    for seed in range(200):
        body = {"hand": " ".join(hand), "played": STRONG, "rules": "shisanshui", "players": 3,
                "seed": seed}  # fmt: skip
        if post(page, "/api/table", body)["home_run"] == 0:
            break
    else:
        pytest.fail("no deal of 200 where the hand scoops both opponents")
    page.evaluate("([hand, seed]) => { state.dealt = { hand, seed, scored: false }; }",
                  [hand, seed])  # fmt: skip
    page.evaluate("(played) => playTable(played)", STRONG)
    page.wait_for_selector("#showdown .table-result")
    d = page.evaluate("state.table")
    kinds = check_pairs(page, d, LOCALE_LANG[locale])
    assert kinds == ["scoop", "home_run"] * 2
    ctx.close()
    assert watch.problems == []
