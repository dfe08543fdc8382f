"""Setting the cards on the board (issue 34, item 2): swapping any two rows, and drag and
drop as well as tap, in a real browser at a desktop size (1280 × 900) and a phone size
(375 × 812, touch). A drag by mouse events at both sizes; at the phone size a drag by
real touch input too (the Chrome DevTools Protocol's Input.dispatchTouchEvent: a press
held past the page's 120 ms delay, then moves), the page not scrolling away as the drag
begins, and a quick tap still a tap.

What "swap" means (docs/serve.md, "Swap"): the middle and the back (five cards each)
exchange their cards. The front holds three: swapped with a five-card row, that row
takes the front's cards, and the front the first three of the other row as the page lays
it out (its made part first, so a pair or trips stays together); the other two go back to
the cards to place.

The browser, the server and the page helpers are tests/test_web_browser.py's.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.test_web_browser import ROWS, by_shape
from tests.test_web_table import SIZES, size, table_page  # noqa: F401

# a hand whose rows differ in every way: the back a flush, the middle two pair, the front
# a pair of aces (a foul: the front's pair beats nothing, so no check is needed)
HAND = "2h 5h 8h Jh Kh 9s 9d 7c 7s 3c As Ad Qc"
ROWS_OF = {"front": "As Ad Qc", "middle": "9s 9d 7c 7s 3c", "back": "2h 5h 8h Jh Kh"}
SIZE = {"front": 3, "middle": 5, "back": 5}


def board(page) -> dict[str, list[str]]:
    got = {r: (page.get_attribute(f'.cards[data-row="{r}"]', "data-cards") or "").split()
           for r in ROWS}  # fmt: skip
    got["pool"] = (page.get_attribute("#pool", "data-cards") or "").split()
    return got


def set_rows(page, tap, rows: dict[str, str]) -> None:
    for r in ROWS:
        tap(f'.row-target[data-row="{r}"]')
        for c in rows[r].split():
            tap(f'#pool [data-card="{c}"]')


def check_page(browser, server, size, locale="en-US"):  # noqa: F811
    ctx, page, watch = table_page(browser, server, size, locale)
    tap = page.tap if size[0] < 500 else page.click
    tap("#tab-check")
    page.fill("#hand-input", HAND)
    expect(page.locator("#pool button")).to_have_count(13)
    return ctx, page, watch, tap


def expected_swap(rows: dict[str, list[str]], a: str, b: str) -> dict[str, list[str]]:
    """The swap as docs/serve.md defines it, from the rows' cards."""
    out = {r: sorted(v) for r, v in rows.items()}
    small, big = (a, b) if SIZE[a] <= SIZE[b] else (b, a)
    laid = by_shape(" ".join(rows[big])).split()
    out[big] = sorted(rows[small])
    out[small] = sorted(laid[: SIZE[small]])
    out["pool"] = sorted(rows.get("pool", []) + laid[SIZE[small] :])
    return out


@pytest.mark.parametrize("pair", ["middle back", "front middle", "front back"])
@pytest.mark.parametrize("locale", ["en-US", "hr-HR", "bn-BD"])
@pytest.mark.sampled  # tests/sampling.py: every value once by default, all under -m slow
def test_any_two_rows_swap(browser, server, size, pair, locale):  # noqa: F811
    ctx, page, watch, tap = check_page(browser, server, size, locale)
    set_rows(page, tap, ROWS_OF)
    before = board(page)
    a, b = pair.split()
    button = page.locator(f'.swap-pair[data-swap="{pair}"]')
    box = button.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= size[0]  # on the screen, not cut
    if size[0] < 500:
        assert box["height"] >= 44
    words = page.evaluate("[t('row.' + arguments[0]), t('row.' + arguments[1])]".replace(
        "arguments[0]", f"'{a}'").replace("arguments[1]", f"'{b}'"))  # fmt: skip
    assert button.inner_text() == f"{words[0]} ↔ {words[1]}"  # the rows in the page's words
    tap(f'.swap-pair[data-swap="{pair}"]')
    after = {r: sorted(v) for r, v in board(page).items()}
    assert after == expected_swap(before, a, b)
    if pair == "front middle":  # the middle's two pair: the front keeps a pair, 9 9 7
        assert sorted(after["front"]) == sorted(["9s", "9d", "7s"])
        assert sorted(after["pool"]) == sorted(["7c", "3c"])
    # swapped back, equal rows come back as they were
    if pair == "middle back":
        tap(f'.swap-pair[data-swap="{pair}"]')
        assert {r: sorted(v) for r, v in board(page).items()} == {
            r: sorted(v) for r, v in before.items()}  # fmt: skip
    assert page.evaluate("document.scrollingElement.scrollWidth") <= size[0]
    ctx.close()
    assert watch.problems == []


def in_view(page, src: str, dst: str) -> None:
    """Scroll so that the card and the row it goes to are both on the screen, as a player
    sees them when dragging (the higher of the two near the top, out of the strip along
    the edge where a drag scrolls the page)."""
    page.evaluate(
        "([a, b]) => { const top = Math.min(...[a, b].map((s) =>"
        " document.querySelector(s).getBoundingClientRect().top + scrollY));"
        " scrollTo(0, top - 80); }",
        [src, dst],
    )
    for sel in (src, dst):
        box = page.locator(sel).bounding_box()
        assert 0 <= box["y"] and box["y"] + box["height"] / 2 <= page.viewport_size["height"], sel


def centre(page, selector: str) -> tuple[float, float]:
    box = page.locator(selector).bounding_box()
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def mouse_drag(page, src: str, dst: str) -> None:
    """A drag by mouse events: press on the card, move in steps, release on the row."""
    in_view(page, src, dst)
    x0, y0 = centre(page, src)
    x1, y1 = centre(page, dst)
    page.mouse.move(x0, y0)
    page.mouse.down()
    page.mouse.move(x0 + 8, y0 + 8, steps=3)
    page.mouse.move(x1, y1, steps=12)
    page.mouse.up()


def test_a_card_is_dragged_to_a_row_between_rows_and_back(browser, server, size):  # noqa: F811
    ctx, page, watch, tap = check_page(browser, server, size)
    drag = mouse_drag
    # from the cards to place into the back
    drag(page, '#pool [data-card="Kh"]', '.cards[data-row="back"]')
    expect(page.locator('.cards[data-row="back"] [data-card="Kh"]')).to_have_count(1)
    assert board(page)["back"] == ["Kh"] and "Kh" not in board(page)["pool"]
    # from the back to the middle
    drag(page, '.cards[data-row="back"] [data-card="Kh"]', '.cards[data-row="middle"]')
    expect(page.locator('.cards[data-row="middle"] [data-card="Kh"]')).to_have_count(1)
    assert board(page)["back"] == [] and board(page)["middle"] == ["Kh"]
    # and back to the cards to place
    drag(page, '.cards[data-row="middle"] [data-card="Kh"]', "#pool")
    expect(page.locator('#pool [data-card="Kh"]')).to_have_count(1)
    assert board(page)["middle"] == [] and len(board(page)["pool"]) == 13
    # a full row takes no more: the front full, a fourth card stays where it was
    tap('.row-target[data-row="front"]')
    for c in ("As", "Ad", "Qc"):
        tap(f'#pool [data-card="{c}"]')
    drag(page, '#pool [data-card="2h"]', '.cards[data-row="front"]')
    page.wait_for_timeout(200)
    assert sorted(board(page)["front"]) == sorted(["As", "Ad", "Qc"])
    assert "2h" in board(page)["pool"]
    # a tap still moves a card (no drag begins on a tap)
    tap('#pool [data-card="2h"]')
    assert "2h" not in board(page)["pool"]
    ctx.close()
    assert watch.problems == []


PHONE = SIZES["phone"]


def touch(cdp, kind: str, x: float | None = None, y: float | None = None) -> None:
    """One touch event through the Chrome DevTools Protocol: real touch input, as a finger
    gives it (not touch events made up in the page)."""
    points = [] if kind == "touchEnd" else [{"x": x, "y": y}]
    cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})


def touch_drag(page, cdp, src: str, dst: str) -> None:
    """A finger's drag: press on the card, hold past the page's 120 ms delay, move in
    steps to the row, lift; the page must not scroll away meanwhile. The caret is left in
    the hand's box first, as after typing a hand: the drag then began by scrolling the
    page to that box, at the top (SortableJS clears the selection as a drag begins)."""
    page.focus("#hand-input")
    in_view(page, src, dst)
    x0, y0 = centre(page, src)
    x1, y1 = centre(page, dst)
    scroll = page.evaluate("scrollY")
    touch(cdp, "touchStart", x0, y0)
    page.wait_for_timeout(250)
    steps = 12
    for i in range(1, steps + 1):
        touch(cdp, "touchMove", x0 + (x1 - x0) * i / steps, y0 + (y1 - y0) * i / steps)
        page.wait_for_timeout(16)
        if i == 2:  # the drag has begun: the page stays where it was
            moved = abs(page.evaluate("scrollY") - scroll)
            assert moved <= 40, "the page scrolled as the drag began"
    box = page.locator(dst).bounding_box()  # the row still under the finger
    assert box["y"] <= y1 <= box["y"] + box["height"], "the row moved from under the finger"
    touch(cdp, "touchEnd")
    page.wait_for_timeout(50)
    assert abs(page.evaluate("scrollY") - scroll) <= 40, "the page scrolled as the card was dropped"
    box = page.locator(dst).bounding_box()
    assert 0 <= box["y"] and box["y"] + box["height"] / 2 <= PHONE[1], "the row left the screen"


def test_a_card_is_dragged_by_touch_on_a_phone(browser, server):  # noqa: F811
    ctx, page, watch, tap = check_page(browser, server, PHONE)
    cdp = page.context.new_cdp_session(page)
    # from the cards to place into the back (touch_drag: the page not scrolling away)
    touch_drag(page, cdp, '#pool [data-card="Kh"]', '.cards[data-row="back"]')
    expect(page.locator('.cards[data-row="back"] [data-card="Kh"]')).to_have_count(1)
    assert board(page)["back"] == ["Kh"] and "Kh" not in board(page)["pool"]
    # from the back to the middle
    touch_drag(page, cdp, '.cards[data-row="back"] [data-card="Kh"]', '.cards[data-row="middle"]')
    expect(page.locator('.cards[data-row="middle"] [data-card="Kh"]')).to_have_count(1)
    assert board(page)["back"] == [] and board(page)["middle"] == ["Kh"]
    # a second card: into the front, then from the front back to the cards to place
    touch_drag(page, cdp, '#pool [data-card="As"]', '.cards[data-row="front"]')
    expect(page.locator('.cards[data-row="front"] [data-card="As"]')).to_have_count(1)
    touch_drag(page, cdp, '.cards[data-row="front"] [data-card="As"]', "#pool")
    expect(page.locator('#pool [data-card="As"]')).to_have_count(1)
    assert board(page)["front"] == [] and board(page)["middle"] == ["Kh"]
    assert len(board(page)["pool"]) == 12
    # a quick tap (no hold) still taps: the card goes to the row aimed at, no drag begins
    tap('.row-target[data-row="back"]')
    in_view(page, '#pool [data-card="2h"]', '.cards[data-row="back"]')
    x, y = centre(page, '#pool [data-card="2h"]')
    touch(cdp, "touchStart", x, y)
    touch(cdp, "touchEnd")
    expect(page.locator('.cards[data-row="back"] [data-card="2h"]')).to_have_count(1)
    assert "2h" not in board(page)["pool"]
    expect(page.locator(".sortable-fallback, .drag-chosen")).to_have_count(0)  # no drag
    # and a tap on a card in a row takes it back
    x, y = centre(page, '.cards[data-row="back"] [data-card="2h"]')
    touch(cdp, "touchStart", x, y)
    touch(cdp, "touchEnd")
    expect(page.locator('#pool [data-card="2h"]')).to_have_count(1)
    ctx.close()
    assert watch.problems == []
