"""The page of `capsa serve` in a real browser: headless Chromium driven by Playwright.

The real `capsa serve` runs in a subprocess; Debian's Chromium (``/usr/bin/chromium``, or
``CAPSA_CHROMIUM``) is launched by Playwright with a fresh, empty profile (never a
browser downloaded by ``playwright install``). `.ci/run` installs Chromium when it is
missing, and these tests fail, not skip, when it cannot start; a developer without
Chromium may skip them on purpose with ``CAPSA_SKIP_BROWSER=1``.

Each test fails if the page logs an error, raises, or asks anything of another host.
``CAPSA_SCREENSHOT=docs/serve.png`` writes the screenshot of docs/serve.md and the README.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import httpx2 as httpx
import pytest
from playwright.sync_api import expect

import evaluator as ev
from tests import reference as ref
from tests.web_server import capsa_command, serve

CHROMIUM = os.environ.get("CAPSA_CHROMIUM", "/usr/bin/chromium")
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
HAND = "As Ks Qs Js Ts 9h 9d 9c 2s 3d 4c 5h 7d"
SORTED = "As Ks Qs Js Ts 9h 9d 9c 7d 5h 4c 3d 2s"
ROWS = ("front", "middle", "back")
SUIT = {"♠": "s", "♥": "h", "♦": "d", "♣": "c"}


@pytest.fixture(scope="module")
def browser():
    if os.environ.get("CAPSA_SKIP_BROWSER") == "1":
        pytest.skip("CAPSA_SKIP_BROWSER=1: the browser tests are skipped on request")
    if not Path(CHROMIUM).exists():
        pytest.fail(
            f"Chromium not found at {CHROMIUM}: install it (apt-get install -y chromium; .ci/run "
            "does), point CAPSA_CHROMIUM at it, or set CAPSA_SKIP_BROWSER=1 to skip these tests",
            pytrace=False,
        )
    from playwright.sync_api import sync_playwright

    expect.set_options(timeout=120_000)
    pw = sync_playwright().start()
    try:
        b = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
    except Exception as exc:  # noqa: BLE001 - say why, and fail
        pw.stop()
        pytest.fail(f"Chromium at {CHROMIUM} did not start: {exc}", pytrace=False)
    yield b
    b.close()
    pw.stop()


@pytest.fixture(scope="module")
def server():
    s = serve()
    yield s
    s.stop()


class Watch:
    """What a page did that it should not: errors, and requests to other hosts."""

    def __init__(self, page, base: str) -> None:
        self.problems: list[str] = []
        self.api_calls: list[str] = []
        page.on("pageerror", lambda e: self.problems.append(f"page error: {e}"))
        page.on(
            "console",
            lambda m: (
                m.type in ("error", "warning")
                and self.problems.append(f"console {m.type}: {m.text}")
            ),
        )

        def request(r) -> None:  # noqa: ANN001 - playwright.sync_api.Request
            if not r.url.startswith(base):
                self.problems.append(f"request to another host: {r.url}")
            elif "/api/" in r.url:
                self.api_calls.append(r.url.removeprefix(base))

        page.on("request", request)


def open_page(browser, server, **context):
    ctx = browser.new_context(**{"viewport": {"width": 1100, "height": 900}, **context})
    page = ctx.new_page()
    page.set_default_timeout(120_000)
    watch = Watch(page, server.url)
    page.goto(server.url)
    page.wait_for_selector("body[data-ready=true]")
    return ctx, page, watch


@pytest.fixture
def page(browser, server):
    ctx, page, watch = open_page(browser, server)
    page.watch = watch
    yield page
    ctx.close()
    assert watch.problems == []


def cli(*args: str) -> dict:
    res = subprocess.run([*capsa_command(), *args, "--format", "json"], capture_output=True,
                         text=True, timeout=600)  # fmt: skip
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout)


def api(server, path: str, body: dict) -> dict:
    res = httpx.post(server.url + path, json=body, timeout=120)
    assert res.status_code == 200, res.text
    return res.json()


def shown_cards(locator) -> str:
    """The cards a locator shows, read from what is drawn: rank and suit symbol."""
    faces = locator.locator(".card")
    out = []
    for i in range(faces.count()):
        face = faces.nth(i)
        rank = face.locator(".rank").inner_text()
        suit = SUIT[face.locator(".suit").inner_text()]
        out.append(rank + suit)
    return " ".join(out)


def signed(x: float) -> str:
    return f"{x:+.3f}".replace("-", "−")


def place(page, row: str, cards: str, drag: bool = False) -> None:
    """Choose a row, then tap (or drag) each card into it."""
    page.click(f'.row-target[data-row="{row}"]')
    for c in cards.split():
        if drag:
            page.drag_and_drop(f'#pool [data-card="{c}"]', f'.cards[data-row="{row}"]')
        else:
            page.click(f'#pool [data-card="{c}"]')


# --------------------------------------------------------------------------- solve


def test_pick_13_cards_solve_and_see_the_cli_answer(page, server, tmp_path, record_property):
    for c in HAND.split():
        page.click(f'#picker button[data-card="{c}"]')
    assert page.inner_text("#hand-status") == "13 cards: ready"
    assert page.get_attribute("#picked", "data-cards") == SORTED
    assert shown_cards(page.locator("#picked")) == SORTED
    assert page.input_value("#hand-input") == SORTED
    page.fill("#samples", "3000")
    page.fill("#seed", "1")
    page.click("#solve")
    page.wait_for_selector("#answer .timing")
    want = cli("solve", HAND, "--seed", "1", "--samples", "3000")
    for r in ROWS:
        row = page.locator(f'#answer table.setting tr[data-row="{r}"]')
        assert shown_cards(row) == want[r], r
        assert row.get_attribute("data-cards") == want[r]
        bar = row.locator(".bar").get_attribute("aria-label")
        st = want["row_stats"][r]
        assert bar == f"win {st['win']:.1%}, tie {st['tie']:.1%}, loss {st['loss']:.1%}"
    assert page.inner_text("#answer .ev-value") == signed(want["ev"])
    assert page.inner_text("#answer .ev-total") == signed(want["ev_total"])
    ev_line = page.inner_text("#answer .ev")
    assert f"± {want['stderr']:.3f} units per opponent" in ev_line
    assert f"± {3 * want['stderr']:.3f} for the table (3 opponents)" in ev_line
    assert page.inner_text("#answer .advice") == "Play this setting"
    assert "Surrender costs 3 per opponent: not recommended." in page.inner_text("#answer")
    alts = page.locator("#answer table.alts tbody tr")
    assert alts.count() == len(want["alternatives"]) == 3
    for i, alt in enumerate(want["alternatives"]):
        cells = alts.nth(i).locator("td")
        assert [shown_cards(cells.nth(j)) for j in range(3)] == [alt[r] for r in ROWS]
        assert cells.nth(4).inner_text().startswith(signed(alt["diff"]))
    timing = page.locator("#answer .timing")
    record_property("server_ms", timing.get_attribute("data-server-ms"))
    record_property("page_ms", timing.get_attribute("data-page-ms"))
    shot = Path(os.environ.get("CAPSA_SCREENSHOT") or tmp_path / "serve.png")
    page.screenshot(path=str(shot), full_page=True)
    data = shot.read_bytes()
    assert data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) > 20_000
    assert page.watch.api_calls == ["api/rules", "api/solve"]


def test_12_or_14_cards_or_a_duplicate_are_clear_errors(page):
    hand = page.locator("#hand-input")
    status = page.locator("#hand-status")
    hand.fill(HAND.rsplit(" ", 1)[0])
    assert status.inner_text() == "12 cards: pick 1 more (a hand is 13 cards)"
    assert "bad" in status.get_attribute("class")
    page.click("#solve")
    assert page.inner_text("#error") == "Cannot solve: 12 cards: pick 1 more (a hand is 13 cards)."
    hand.fill(HAND + " 6d")
    assert status.inner_text() == "14 cards: remove 1 (a hand is 13 cards)"
    assert page.locator("#picker button[aria-pressed=true]").count() == 14
    hand.fill(HAND.replace("Ks", "As"))
    assert status.inner_text() == "duplicate card As: each card can be in the hand once"
    hand.fill(HAND.replace("7d", "7x"))
    assert status.inner_text().startswith('"7x" is not a card: a card is a rank')
    page.click("#solve")
    assert page.inner_text("#error").startswith('Cannot solve: "7x" is not a card')
    hand.fill("as,KS,Q♠ js 10s 9h9d9c 2s 3d 4c 5h 7d")  # the CLI's spellings
    assert status.inner_text() == "13 cards: ready"
    assert page.get_attribute("#picked", "data-cards") == SORTED
    page.click('#picker button[data-card="As"]')  # a tap drops a picked card
    assert status.inner_text() == "12 cards: pick 1 more (a hand is 13 cards)"
    assert page.watch.api_calls == ["api/rules"]  # nothing was sent to solve


def test_an_uploaded_ruleset_is_offered_and_used(page, tmp_path):
    path = tmp_path / "house.toml"
    path.write_text('base = "chinese-2-4"\nname = "house"\nsurrender_cost = 1\n')
    page.set_input_files("#rules-file", str(path))
    expect(page.locator("#rules")).to_have_value(re.compile("^upload:"))
    assert page.inner_text("#rules-summary").startswith("house: 2-4 scoring")
    page.fill("#hand-input", HAND)
    page.select_option("#policy", "field")
    page.click("#solve")
    page.wait_for_selector("#answer .timing")
    want = cli("solve", HAND, "--rules", str(path), "--policy", "field")
    assert [shown_cards(page.locator(f'#answer tr[data-row="{r}"]')) for r in ROWS] == [
        want[r] for r in ROWS
    ]
    assert "house, 4 players" in page.inner_text("#answer .how")
    assert "Surrender costs 1 per opponent" in page.inner_text("#answer")


def test_the_special_hands_of_a_ruleset_are_named(page, tmp_path):
    """An uploaded ruleset's naturals are listed strongest first by the names players
    know, and a special hand's advice names it (docs/rules.md#natural-names)."""
    path = tmp_path / "regional.toml"
    path.write_text("[naturals]\nall_low = 12\nroyal_dragon = 108\nsix_pairs = 4\n")
    page.set_input_files("#rules-file", str(path))
    expect(page.locator("#rules")).to_have_value(re.compile("^upload:"))
    assert page.inner_text("#rules-naturals") == (
        "Naturals, strongest first: All low (全小) 12 · Royal dragon (至尊清龙, rồng cuốn) 108"
        " · Six pairs (六对半, lục phé bôn) 4"
    )
    low = "2c 2d 3h 3s 4c 4d 5h 5s 6c 6d 7h 7s 8h"  # all low, and six pairs too
    page.fill("#hand-input", low)
    page.select_option("#policy", "field")
    page.click("#solve")
    page.wait_for_selector("#answer .timing")
    want = cli("solve", low, "--rules", str(path), "--policy", "field")
    assert want["natural"]["name"] == "all_low" and want["action"] == "declare"
    assert page.inner_text("#answer .advice") == "Declare the natural: All low (全小)"


def test_a_natural_is_advised_as_the_cli_advises_it(page):
    dragon = "2c 3d 4h 5s 6c 7d 8h 9s Tc Jd Qh Ks Ac"
    page.fill("#hand-input", dragon)
    page.select_option("#policy", "field")
    page.click("#solve")
    page.wait_for_selector("#answer .timing")
    want = cli("solve", dragon, "--policy", "field")
    assert want["action"] == "declare" and want["natural"]["name"] == "dragon"
    # the page names it as players do (docs/rules.md#natural-names)
    label = "Dragon (一条龙, sảnh rồng)"
    assert page.inner_text("#answer .advice") == f"Declare the natural: {label}"
    natural = page.inner_text("#answer .natural")
    assert natural == (
        f"Natural: {label}. Declaring is worth {signed(want['natural']['ev_declare'])}, "
        f"playing {signed(want['natural']['ev_play'])}: declare it"
    )


# --------------------------------------------------------------------------- check


FOULED = {"front": "As Ks Qs", "middle": "9h 9d 9c 3d 2s", "back": "Js Ts 7d 5h 4c"}
BEST = {"front": "7d 5h 4c", "middle": "9h 9d 9c 3d 2s", "back": "As Ks Qs Js Ts"}


def test_a_fouled_arrangement_is_reported_as_fouled(page, server):
    page.fill("#hand-input", HAND)
    page.select_option("#policy", "field")
    page.click("#tab-check")
    for r in ROWS:
        place(page, r, FOULED[r])
    assert page.get_attribute("#pool", "data-cards") == ""
    page.click("#check")
    verdict = page.locator("#check-result .verdict")
    verdict.wait_for()
    assert verdict.get_attribute("data-fouled") == "true"
    assert verdict.inner_text().startswith("Fouled.")
    assert not ref.ref_is_legal(*(ev.parse_cards(FOULED[r]).tolist() for r in ROWS))
    played = " | ".join(FOULED[r] for r in ROWS)
    want = api(server, "api/check", {"hand": HAND, "policy": "field", "played": played})
    p = want["played"]
    assert p["fouled"]
    assert page.inner_text("#check-result .played-loss") == f"{p['loss']:.3f}"
    assert page.inner_text("#check-result .played-ev") == signed(p["ev"])
    assert f"rank {p['rank']} of {p['of']}" in page.inner_text("#check-result .ev")
    for r in ROWS:
        row = page.locator(f'#check-result table.compare tr[data-row="{r}"]')
        assert row.get_attribute("data-differs") == str(p["rows"][r]["differs"]).lower()
        cells = row.locator("td")
        assert shown_cards(cells.nth(0)) == p[r] and shown_cards(cells.nth(1)) == want[r]


def test_the_best_arrangement_costs_nothing_and_cards_can_be_dragged(page):
    page.fill("#hand-input", HAND)
    page.select_option("#policy", "field")
    page.click("#tab-check")
    place(page, "back", BEST["back"], drag=True)
    place(page, "middle", BEST["middle"])
    place(page, "front", BEST["front"])
    for r in ROWS:
        assert page.get_attribute(f'.cards[data-row="{r}"]', "data-cards") == BEST[r]
    page.click('.cards[data-row="back"] [data-card="As"]')  # a tap takes a card back
    assert page.get_attribute("#pool", "data-cards") == "As"
    assert page.get_attribute('.row-target[data-row="back"]', "aria-pressed") == "true"
    page.click('#pool [data-card="As"]')
    page.click("#check")
    verdict = page.locator("#check-result .verdict")
    verdict.wait_for()
    assert verdict.inner_text() == "That is the best setting."
    assert page.inner_text("#check-result .played-loss") == "0.000"
    assert page.locator("#check-result tr.differs").count() == 0


# --------------------------------------------------------------------------- keyboard


def focused(page) -> str:
    return page.evaluate(
        "(() => { const e = document.activeElement;"
        " return e.id || e.dataset.card || e.dataset.row || e.className || e.tagName; })()"
    )


def tab_to(page, selector: str, key: str = "Tab", most: int = 80) -> None:
    """Press Tab (or Shift+Tab) until the focused element matches ``selector``."""
    for _ in range(most):
        if page.evaluate(f"document.activeElement.matches({json.dumps(selector)})"):
            return
        page.keyboard.press(key)
    raise AssertionError(f"{selector} not reached with {key}; focus is on {focused(page)}")


def grid_path(start: int, card: str) -> list[str]:
    """Arrow keys from picker cell ``start`` to ``card`` (rows s, h, d, c; columns A..2)."""
    row, col = "shdc".index(card[1]), "AKQJT98765432".index(card[0])
    r0, c0 = divmod(start, 13)
    keys = ["ArrowDown" if row > r0 else "ArrowUp"] * abs(row - r0)
    return keys + ["ArrowRight" if col > c0 else "ArrowLeft"] * abs(col - c0)


def test_the_page_works_with_the_keyboard_alone(page, server):
    kb = page.keyboard
    kb.press("Tab")
    assert focused(page) == "skip"
    kb.press("Enter")
    assert focused(page) == "hand-input"
    # Type a hand, choose the field policy, solve with Enter.
    kb.type("2c 3c 4c 5c 6c")
    assert page.inner_text("#hand-status") == "5 cards: pick 8 more (a hand is 13 cards)"
    tab_to(page, "#clear-hand")
    kb.press("Enter")
    assert page.input_value("#hand-input") == "" and focused(page) == "hand-input"
    # Pick the 13 cards in the grid: arrows move, Space picks.
    tab_to(page, "#picker button")
    at = 0
    for c in SORTED.split():
        for key in grid_path(at, c):
            kb.press(key)
        assert focused(page) == c
        kb.press("Space")
        row, col = "shdc".index(c[1]), "AKQJT98765432".index(c[0])
        at = row * 13 + col
    assert page.inner_text("#hand-status") == "13 cards: ready"
    tab_to(page, "#policy")
    kb.press("ArrowDown")
    assert page.input_value("#policy") == "field"
    tab_to(page, "#solve")
    kb.press("Enter")
    page.wait_for_selector("#answer .timing")
    want = cli("solve", HAND, "--policy", "field")
    assert [page.get_attribute(f'#answer tr[data-row="{r}"]', "data-cards") for r in ROWS] == [
        want[r] for r in ROWS
    ]
    # The tabs: arrow keys move between them.
    tab_to(page, "[role=tab][aria-selected=true]", key="Shift+Tab")
    kb.press("ArrowRight")
    assert focused(page) == "tab-check" and page.is_visible("#board-panel")
    # Enter on each card in turn fills front, middle, back in order: the strongest three
    # in front, so the rows are out of order.
    tab_to(page, "#pool button")
    for _ in range(13):
        kb.press("Enter")
    assert focused(page) == "check"
    assert page.get_attribute('.cards[data-row="front"]', "data-cards") == "As Ks Qs"
    kb.press("Enter")
    page.wait_for_selector("#check-result .verdict")
    assert page.get_attribute("#check-result .verdict", "data-fouled") == "true"
    # Put them back and set them properly: B, five cards; M, five cards; the rest in front.
    tab_to(page, "#reset-board")
    kb.press("Enter")
    tab_to(page, "#pool button", key="Shift+Tab")
    tab_to(page, '#pool button[data-card="As"]', key="Shift+Tab")
    kb.press("b")
    for _ in range(5):
        kb.press("Enter")
    kb.press("m")
    for _ in range(5):
        kb.press("Enter")
    for _ in range(3):
        kb.press("Enter")
    rows = {r: page.get_attribute(f'.cards[data-row="{r}"]', "data-cards") for r in ROWS}
    assert rows == {"front": "4c 3d 2s", "middle": "9h 9d 9c 7d 5h", "back": "As Ks Qs Js Ts"}
    assert focused(page) == "check"
    kb.press("Enter")
    page.wait_for_selector("#check-result .verdict[data-fouled=false]")
    played = " | ".join(rows[r] for r in ROWS)
    want = api(server, "api/check", {"hand": HAND, "policy": "field", "played": played})
    assert page.inner_text("#check-result .played-loss") == f"{want['played']['loss']:.3f}"


# --------------------------------------------------------------------------- a phone


def test_practice_on_a_phone_sized_window(browser, server, tmp_path):
    width = 375
    ctx, page, watch = open_page(
        browser, server, viewport={"width": width, "height": 740}, has_touch=True, is_mobile=True
    )

    def fits() -> None:
        assert page.evaluate("document.scrollingElement.scrollWidth") <= width

    # The picker fits: 13 columns of tappable cards.
    fits()
    boxes = [page.locator("#picker button").nth(i).bounding_box() for i in range(52)]
    assert all(b["x"] >= 0 and b["x"] + b["width"] <= width and b["width"] >= 20 for b in boxes)
    page.tap("#tab-practice")
    expect(page.locator("#pool button")).to_have_count(13)
    assert not page.is_visible("#hand-panel") and page.is_visible("#score")
    page.select_option("#policy", "field")
    total = 0.0
    for hand_no in (1, 2):
        hand = page.get_attribute("#pool", "data-cards")
        cards = hand.split()
        assert len(set(cards)) == 13
        # Tap a row, then its cards: the top five at the back, the next five in the
        # middle; the last three go to the front by themselves.
        page.tap('.row-target[data-row="back"]')
        for c in cards[:5]:
            page.tap(f'#pool [data-card="{c}"]')
        page.tap('.row-target[data-row="middle"]')
        for c in cards[5:10]:
            page.tap(f'#pool [data-card="{c}"]')
        for c in cards[10:]:
            page.tap(f'#pool [data-card="{c}"]')
        played = " | ".join(" ".join(x) for x in (cards[10:], cards[5:10], cards[:5]))
        page.tap("#check")
        page.wait_for_selector("#check-result .verdict")
        fits()
        want = api(server, "api/check", {"hand": hand, "policy": "field", "played": played})
        loss = want["played"]["loss"]
        assert page.inner_text("#check-result .played-loss") == f"{loss:.3f}"
        assert [shown_cards(page.locator(f'#check-result tr[data-row="{r}"] td').nth(1))
                for r in ROWS] == [want[r] for r in ROWS]  # fmt: skip
        total += loss
        score = page.locator("#score .score")
        assert score.get_attribute("data-hands") == str(hand_no)
        assert float(score.get_attribute("data-loss")) == pytest.approx(total, abs=1e-6)
        page.tap("#deal")
        expect(page.locator("#pool")).not_to_have_attribute("data-cards", hand)
        expect(page.locator("#pool button")).to_have_count(13)
    for sel in ("#deal", "#check", "#reset-board", '.row-target[data-row="back"]'):
        b = page.locator(sel).bounding_box()
        assert b["x"] >= 0 and b["x"] + b["width"] <= width, sel
    page.screenshot(path=str(tmp_path / "phone.png"), full_page=True)
    ctx.close()
    assert watch.problems == []
