"""The page of `capsa serve` in a real browser: headless Chromium driven by Playwright.

The real `capsa serve` runs in a subprocess; Debian's headless Chromium
(``/usr/bin/chromium-headless-shell``, else ``/usr/bin/chromium``, or
``CAPSA_CHROMIUM``) is launched by Playwright with a fresh, empty profile (never a
browser downloaded by ``playwright install``); the server once a test process, shared by
every page test, the browser once a file (tests/web_fixtures.py). `.ci/run` installs
Chromium when it is missing, and these tests fail, not skip, when it cannot start; a
developer without Chromium may skip them on purpose with ``CAPSA_SKIP_BROWSER=1``.

Each test fails if the page logs an error, raises, or asks anything of another host.
``CAPSA_SCREENSHOT=docs/serve.png`` writes the screenshot of docs/serve.md and the README,
``CAPSA_SCREENSHOT_ZH=docs/serve-zh.png`` the page in 简体中文 (both need a CJK font:
fonts-noto-cjk).
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
from tests.web_fixtures import SHARED
from tests.web_server import capsa_command

HAND = "As Ks Qs Js Ts 9h 9d 9c 2s 3d 4c 5h 7d"
SORTED = "As Ks Qs Js Ts 9h 9d 9c 7d 5h 4c 3d 2s"
ROWS = ("front", "middle", "back")
SUIT = {"♠": "s", "♥": "h", "♦": "d", "♣": "c"}
SYMBOL = {v: k for k, v in SUIT.items()}


def as_symbols(cards: str) -> str:
    """Cards with suit symbols: read the same in every language (in Vietnamese c is cơ)."""
    return " ".join(c[:-1].replace("T", "10") + SYMBOL[c[-1]] for c in cards.split())


class Watch:
    """What a page did that it should not: errors, and requests to other hosts."""

    def __init__(self, page, base: str) -> None:
        self.problems: list[str] = []
        self.api_calls: list[str] = []

        def console(m) -> None:  # noqa: ANN001 - playwright.sync_api.ConsoleMessage
            if m.type in ("error", "warning"):
                self.problems.append(f"console {m.type}: {m.text}")

        def request(r) -> None:  # noqa: ANN001 - playwright.sync_api.Request
            if not r.url.startswith(base):
                self.problems.append(f"request to another host: {r.url}")
            elif "/api/" in r.url:
                self.api_calls.append(r.url.removeprefix(base))

        self._page = page
        self._listening = {
            "pageerror": lambda e: self.problems.append(f"page error: {e}"),
            "console": console,
            "request": request,
        }
        for event, listener in self._listening.items():
            page.on(event, listener)

    def stop(self) -> None:
        """Stop watching (a shared page goes on to the next test: what it does there is
        that test's)."""
        for event, listener in self._listening.items():
            self._page.remove_listener(event, listener)
        self._listening = {}


#: At most this many pages are kept for the next test (tests/web_fixtures.py's ``SHARED``).
_KEPT = 32


class Lease:
    """The context of a page a test borrows: ``close()`` gives the page back, cleaned (its
    site's storage and cookies cleared, routes removed, left on the site's icon, which runs
    no script), for the next test with the same options; a test that does anything else
    with the context itself (another page, a CDP session, a permission) gets it closed for
    good instead."""

    def __init__(self, key: tuple, ctx, page, watch: Watch, base: str) -> None:
        self._key, self._ctx, self._page, self._watch, self._base = key, ctx, page, watch, base
        self._whole = True

    def __getattr__(self, name: str):  # noqa: ANN204 - the real context's attributes
        self._whole = False
        return getattr(self._ctx, name)

    def close(self) -> None:
        self._watch.stop()
        page, ctx = self._page, self._ctx
        try:
            if not self._whole or page.is_closed() or len(ctx.pages) != 1:
                raise RuntimeError("not as lent")
            page.unroute_all(behavior="ignoreErrors")
            if not page.url.startswith(self._base):
                raise RuntimeError("left the site: its storage is out of reach")
            # away from the page first, to a page of the site that runs no script (the
            # icon): the page's scripts stop (a language whose catalogue was still loading
            # stored itself after a clear), then its site's storage is cleared from there;
            # the icon stays until the next test loads the page (two navigations to a blank
            # page around it cost a tenth of a page test's CPU: docs/architecture.md#tests)
            page.goto(self._base.rstrip("/") + "/static/favicon.svg")
            page.evaluate("() => { localStorage.clear(); sessionStorage.clear(); }")
            ctx.clear_cookies()
        except Exception:  # noqa: BLE001 - not fit to lend again: closed for good
            ctx.close()
            return
        kept = SHARED.setdefault(self._key, (ctx, page))
        if kept[0] is not ctx:
            ctx.close()  # another of the same options is kept already
        while len(SHARED) > _KEPT:
            SHARED.pop(next(iter(SHARED)))[0].close()  # the least recently lent


def open_page(browser, server, advanced=True, **context):
    """A page, ready; ``advanced``: with the table's settings (folded on a phone) and the
    solver's options (under "Advanced") unfolded, as the tests that set the ruleset,
    policy, samples or seed need them.

    The page is one a test before lent back (``Lease``) when one with the same options is
    free: loaded again from the server with its storage and cookies cleared, as a first
    visit sees it; a test that needs a browser context of its own makes one."""
    options = {"viewport": {"width": 1100, "height": 900}, **context}
    key = (id(browser), server.url, json.dumps(options, sort_keys=True))
    kept = SHARED.pop(key, None)
    if kept is not None and kept[0].browser is browser and not kept[1].is_closed():
        ctx, page = kept
    else:
        ctx = browser.new_context(**options)
        page = ctx.new_page()
        page.set_default_timeout(120_000)
    watch = Watch(page, server.url)
    page.goto(server.url)
    page.wait_for_selector("body[data-ready=true]")
    if advanced:  # the table's settings too (folded on a phone), and the solver's
        page.evaluate("document.querySelector('#table-settings').open = true")
        page.evaluate("document.querySelector('#advanced').open = true")
    return Lease(key, ctx, page, watch, server.url), page, watch


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
        rank = face.locator(".rank").inner_text().replace("10", "T")  # a ten is drawn 10
        suit = SUIT[face.locator(".suit").inner_text()]
        out.append(rank + suit)
    return " ".join(out)


def by_shape(text: str) -> str:
    """Cards as the page lays them out: the most cards of a rank first (quads, trips,
    pairs), then higher ranks, then suits s > h > d > c; a five-card A-2-3-4-5 with the
    ace last."""
    cards = text.split()
    ranks = "23456789TJQKA"
    count = {c[0]: sum(d[0] == c[0] for d in cards) for c in cards}
    wheel = len(cards) == 5 and {c[0] for c in cards} == set("A2345")

    def key(c: str) -> tuple[int, int, int]:
        r = -1 if wheel and c[0] == "A" else ranks.index(c[0])
        return (-count[c[0]], -r, -"cdhs".index(c[1]))

    return " ".join(sorted(cards, key=key))


def test_the_shape_order_groups_made_hands():
    assert by_shape("As Ks 9h 9d 9c") == "9h 9d 9c As Ks"
    assert by_shape("Kh Kd 5s 5c 5h") == "5s 5h 5c Kh Kd"
    assert by_shape("5d 4c 3h 2s Ac") == "5d 4c 3h 2s Ac"


def signed(x: float) -> str:
    return f"{x:+.3f}".replace("-", "−")


def signed_either_way(x: float) -> set[str]:
    """What the page may write for ``x`` to three decimals: ``signed(x)``, and where the
    shortest decimal of ``x`` is a tie at the fourth (5.4445), also that tie rounded away
    from zero. Python rounds the double's exact value (5.44449999... gives 5.444); the
    browser's ``Intl.NumberFormat`` rounds its shortest decimal half away from zero (5.445).
    A random deal met such a value in one CI run in several."""
    from decimal import ROUND_HALF_UP, Decimal

    d = Decimal(repr(x))
    shown = {signed(x)}
    if d.as_tuple().exponent == -4 and d.as_tuple().digits[-1] == 5:  # 5.4445: a tie
        shown.add(signed(float(d.quantize(Decimal("0.001"), rounding=ROUND_HALF_UP))))
    return shown


def place(page, row: str, cards: str, drag: bool = False) -> None:
    """Choose a row, then tap (or drag) each card into it."""
    page.click(f'.row-target[data-row="{row}"]')
    for c in cards.split():
        if drag:  # pressed, moved in steps (as a hand does), released on the row
            page.evaluate(
                "scrollTo(0, document.querySelector('#pool').getBoundingClientRect().top"
                " + scrollY - 80)"
            )
            page.hover(f'#pool [data-card="{c}"]')
            page.mouse.down()
            box = page.locator(f'.cards[data-row="{row}"]').bounding_box()
            page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2, steps=8)
            page.mouse.up()
        else:
            page.click(f'#pool [data-card="{c}"]')


# --------------------------------------------------------------------------- solve


def test_pick_13_cards_solve_and_see_the_cli_answer(page, server, tmp_path, record_property):
    for c in HAND.split():
        page.click(f'#picker button[data-card="{c}"]')
    assert page.inner_text("#hand-status") == "13 cards: ready"
    assert page.get_attribute("#picked", "data-cards") == SORTED
    assert shown_cards(page.locator("#picked")) == by_shape(SORTED)
    assert page.input_value("#hand-input") == SORTED.replace("T", "10")  # a ten as players write it
    page.fill("#samples", "3000")
    page.fill("#seed", "1")
    page.click("#solve")
    page.wait_for_selector("#answer .timing")
    want = cli("solve", HAND, "--seed", "1", "--samples", "3000")
    for r in ROWS:
        row = page.locator(f'#answer table.setting tr[data-row="{r}"]')
        assert shown_cards(row) == by_shape(want[r]), r
        assert row.get_attribute("data-cards") == want[r]
        bar = row.locator(".bar").get_attribute("aria-label")
        st = want["row_stats"][r]
        assert bar == f"win {st['win']:.1%}, tie {st['tie']:.1%}, loss {st['loss']:.1%}"
    assert page.inner_text("#answer .ev-value") == signed(want["ev"])
    assert page.inner_text("#answer .ev-total") == signed(want["ev_total"])
    ev_line = page.inner_text("#answer .ev")
    assert "units per opponent" in ev_line and "for the table (3 opponents)" in ev_line
    assert "±" not in ev_line
    # the estimate's margin said plainly, and the seed, only under "Advanced" (issue 53)
    assert page.get_attribute("#answer details.how-more", "open") is None
    margin = page.text_content("#answer details.how-more .margin")
    se = want["stderr"]
    assert f"about {se:.3f} units per opponent ({3 * se:.3f} for the table)" in margin
    assert "seed 1" in page.text_content("#answer details.how-more .how")
    assert page.inner_text("#answer .advice") == "Play this setting"
    assert "Surrender costs 3 per opponent: not recommended." in page.inner_text("#answer")
    alts = page.locator("#answer table.alts tbody tr")
    assert alts.count() == len(want["alternatives"]) == 3
    for i, alt in enumerate(want["alternatives"]):
        cells = alts.nth(i).locator("td")
        assert [shown_cards(cells.nth(j)) for j in range(3)] == [by_shape(alt[r]) for r in ROWS]
        assert cells.nth(4).inner_text().startswith(signed(alt["diff"]))
    timing = page.locator("#answer .timing")
    record_property("server_ms", timing.get_attribute("data-server-ms"))
    record_property("page_ms", timing.get_attribute("data-page-ms"))
    shot = Path(os.environ.get("CAPSA_SCREENSHOT") or tmp_path / "serve.png")
    page.screenshot(path=str(shot), full_page=True)
    data = shot.read_bytes()
    assert data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) > 20_000
    assert page.watch.api_calls == ["api/rules", "api/solve", "api/rows"]


def test_12_or_14_cards_or_a_duplicate_are_clear_errors(page):
    hand = page.locator("#hand-input")
    status = page.locator("#hand-status")
    hand.fill(HAND.rsplit(" ", 1)[0])
    assert status.inner_text() == "12 cards: pick 1 more (a hand is 13 cards)"
    assert "bad" in status.get_attribute("class")
    page.click("#solve")
    assert page.inner_text("#solve-error") == (
        "Cannot solve: 12 cards: pick 1 more (a hand is 13 cards)."
    )
    hand.fill(HAND + " 6d")
    assert status.inner_text() == "14 cards: remove 1 (a hand is 13 cards)"
    assert page.locator("#picker button[aria-pressed=true]").count() == 14
    hand.fill(HAND.replace("Ks", "As"))
    assert status.inner_text() == "duplicate card As (A♠): each card can be in the hand once"
    hand.fill(HAND.replace("7d", "7x"))
    assert status.inner_text().startswith('"7x" is not a card: a card is a rank')
    page.click("#solve")
    assert page.inner_text("#solve-error").startswith('Cannot solve: "7x" is not a card')
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
        by_shape(want[r]) for r in ROWS
    ]
    assert "house, 4 players" in page.text_content("#answer .how")
    assert "Surrender costs 1 per opponent" in page.inner_text("#answer")


def test_the_presets_menu_says_what_players_call_the_game(page):
    """docs/rules.md#presets: the menu lists every preset by the game it plays
    ("十三水", in the page's language, not its menu value), the server's default first;
    choosing one shows its rules."""
    labels = page.locator("#rules option").all_inner_texts()
    assert labels == [
        "Chinese poker, 1-6, this server's default",
        "Chinese poker, 2-4",
        "Chinese poker, a unit a row",
        "Capsa Susun",
        "十三水",
        "Mậu Binh",
        "Mậu Binh (rule texts)",
        "Pusoy",
        "十三水, 水庄 (banker)",
    ]
    page.select_option("#rules", "mau-binh")
    summary = page.inner_text("#rules-summary")
    assert summary.startswith("Mậu Binh: per-row scoring, scoop x2")
    assert page.inner_text("#rules-naturals").startswith(
        "Naturals, strongest first: Dragon (一条龙, sảnh rồng) 64 · Three flushes"
    )


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
    assert page.inner_text("#check-result .played-loss") == signed(-p["loss"])
    assert page.inner_text("#check-result .played-ev") == signed(p["ev"])
    better = f"{p['rank'] - 1:,} of the {p['of']:,} settings scored are better"  # not "rank 92"
    assert better in page.inner_text("#check-result .ev")
    for r in ROWS:
        row = page.locator(f'#check-result table.compare tr[data-row="{r}"]')
        assert row.get_attribute("data-differs") == str(p["rows"][r]["differs"]).lower()
        cells = row.locator("td")
        assert shown_cards(cells.nth(0)) == by_shape(p[r])
        assert shown_cards(cells.nth(1)) == by_shape(want[r])


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
    assert page.inner_text("#check-result .played-loss") == "+0.000"
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
    # Enter on each card in turn fills front, middle, back in the order the cards are laid
    # out (by shape: the trips first), so the rows are out of order.
    tab_to(page, "#pool button")
    for _ in range(13):
        kb.press("Enter")
    assert focused(page) == "check"
    assert page.get_attribute('.cards[data-row="front"]', "data-cards") == "9h 9d 9c"
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
    tab_to(page, '#pool button[data-card="9h"]', key="Shift+Tab")
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
    assert page.inner_text("#check-result .played-loss") == signed(-want["played"]["loss"])


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
        loss = want["played"]["loss"]  # a random deal's: a tie to round may come up
        assert page.inner_text("#check-result .played-loss") in signed_either_way(-loss)
        assert [shown_cards(page.locator(f'#check-result tr[data-row="{r}"] td').nth(1))
                for r in ROWS] == [by_shape(want[r]) for r in ROWS]  # fmt: skip
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


# --------------------------------------------------------------------------- declare, surrender

THREE_FLUSHES = "2h 5h 9h 3s 6s 8s Ts Qs 4c 7c Jc Kc 2c"  # a natural, worth declaring
WEAK = "2c 2h 3d 3s 4d 6d 6h 7c 8d Ts Qh Kh Ac"  # surrender is advised


def test_declaring_the_natural_in_check_costs_nothing(page, server):
    page.fill("#hand-input", THREE_FLUSHES)
    page.select_option("#policy", "field")
    page.click("#tab-check")
    declare = page.locator("#declare")
    expect(declare).to_be_visible()
    assert declare.inner_text() == "Declare Three flushes (三同花, ba thùng)"
    expect(page.locator("#surrender")).to_be_visible()
    declare.click()
    verdict = page.locator("#check-result .verdict")
    verdict.wait_for()
    assert verdict.get_attribute("data-action") == "declare"
    assert verdict.inner_text() == "That is the advice: it costs nothing."
    want = api(server, "api/check", {"hand": THREE_FLUSHES, "policy": "field", "played": "declare"})
    assert want["played"]["loss"] == 0.0 and want["action"] == "declare"
    assert page.inner_text("#check-result .played-loss") == "+0.000"
    assert page.inner_text("#check-result .played-ev") == signed(want["played"]["ev"])
    # a hand without a natural offers no Declare
    page.click("#tab-solve")
    page.fill("#hand-input", HAND)
    page.click("#tab-check")
    expect(page.locator("#declare")).to_be_hidden()


def test_surrendering_when_it_is_advised_costs_nothing(page, server):
    page.fill("#hand-input", WEAK)
    page.select_option("#policy", "field")
    page.click("#tab-check")
    page.click("#surrender")
    page.wait_for_selector("#check-result .verdict[data-action=surrender]")
    want = api(server, "api/check", {"hand": WEAK, "policy": "field", "played": "surrender"})
    assert want["action"] == "surrender" and want["played"]["loss"] == 0.0
    assert page.inner_text("#check-result .played-loss") == "+0.000"
    assert page.inner_text("#check-result .played-ev") == signed(-3.0)
    # under rules without surrender, no Surrender button
    page.select_option("#rules", "shisanshui")
    expect(page.locator("#surrender")).to_be_hidden()


def test_practice_counts_a_declared_natural_as_the_best_choice(browser, server):
    ctx, page, watch = open_page(browser, server)
    body = json.dumps({"hand": THREE_FLUSHES, "seed": 77})
    page.route("**/api/deal", lambda route: route.fulfill(
        status=200, content_type="application/json", body=body))  # fmt: skip
    page.select_option("#policy", "field")
    page.click("#tab-practice")
    expect(page.locator("#pool button")).to_have_count(13)
    page.click("#declare")
    page.wait_for_selector("#check-result .verdict[data-action=declare]")
    score = page.locator("#score .score")
    assert score.get_attribute("data-hands") == "1" and float(score.get_attribute("data-loss")) == 0
    assert "best choice 1 time" in score.inner_text()
    ctx.close()
    assert watch.problems == []


# --------------------------------------------------------------------------- errors, parts


def test_a_failed_solve_clears_the_old_answer_and_says_why_beside_solve(browser, server):
    ctx, page, watch = open_page(browser, server)
    page.fill("#hand-input", HAND)
    page.select_option("#policy", "field")
    page.click("#solve")
    page.wait_for_selector("#answer .timing")
    # the answer scrolls into view (it starts below the fold)
    box = page.locator("#answer .answer").bounding_box()
    assert -1 <= box["y"] < 900
    # another hand typed: the answer is greyed out, marked as for other cards
    page.fill("#hand-input", HAND.replace("7d", "8d"))
    expect(page.locator("#answer .answer.stale")).to_have_count(1)
    assert "other cards or options" in page.inner_text("#answer .stale-note")
    # a solve the server refuses: the old answer goes, the error is beside the button
    page.select_option("#policy", "mc")
    page.fill("#samples", "999999")
    page.click("#solve")
    error = page.locator("#solve-error")
    expect(error).to_contain_text("samples must be at most 20,000 on this server")
    assert page.locator("#answer .answer").count() == 0 and page.is_hidden("#share")
    button, err = page.locator("#solve").bounding_box(), error.bounding_box()
    assert abs(err["y"] - button["y"]) < 60  # on the Solve button's line
    # a bad ruleset upload: said beside the rules, the answer shown is greyed out
    page.fill("#samples", "300")
    page.click("#solve")
    page.wait_for_selector("#answer .timing")
    page.set_input_files("#rules-file", files=[{"name": "bad.toml", "mimeType": "text/plain",
                                                 "buffer": b"scoring = 'nine'\n"}])  # fmt: skip
    expect(page.locator("#rules-status")).to_contain_text("bad.toml: rules:")
    expect(page.locator("#answer .answer.stale")).to_have_count(1)
    ctx.close()
    # the two refusals (422) are the browser's own console lines, and nothing else
    refused = "the server responded with a status of 422"
    assert len(watch.problems) == 2 and all(refused in p for p in watch.problems), watch.problems


def test_the_value_parts_are_shown_and_check_shows_what_was_given_up(page, server):
    page.fill("#hand-input", HAND)
    page.select_option("#policy", "field")
    page.click("#solve")
    page.wait_for_selector("#answer .timing")
    want = api(server, "api/solve", {"hand": HAND, "policy": "field"})
    for part in ("rows", "bonus", "royalties", "naturals"):
        cell = page.locator(f'#answer table.parts tr[data-part="{part}"] td')
        assert cell.inner_text() == signed(want["ev_parts"][part]), part
    assert page.inner_text('#answer table.parts tr[data-part="total"] td') == signed(
        want["ev_play"]
    )
    # a runner-up that breaks the royal flush says, in a sentence, it gives up royalties
    whys = page.locator("#answer table.alts td.why").all_inner_texts()
    said = " units less from royalties than the best setting."
    assert any(w.startswith("It gets ") and w.endswith(said) for w in whys), whys
    # Check: the royal flush broken up, the royalties given up
    page.click("#tab-check")
    played = {"front": "Ts 9h 9d", "middle": "9c 7d 5h 3d 2s", "back": "As Ks Qs Js 4c"}
    for r in ROWS:
        place(page, r, played[r])
    page.click("#check")
    page.wait_for_selector("#check-result table.parts-lost")
    check = api(server, "api/check", {"hand": HAND, "policy": "field",
                                      "played": " | ".join(played[r] for r in ROWS)})  # fmt: skip
    lost = check["ev_parts"]["royalties"] - check["played"]["ev_parts"]["royalties"]
    cell = page.locator('#check-result table.parts-lost tr[data-part="royalties"] .part-lost')
    assert cell.inner_text() == signed(-lost) and lost > 4  # a loss is negative everywhere


# --------------------------------------------------------------------------- share, languages


def test_a_shared_link_reproduces_the_answer(browser, server):
    """Solve with no seed: the link carries the seed the server picked; the link opened
    elsewhere (a fresh browser) shows the same answer, and so does a reload."""
    ctx, page, watch = open_page(browser, server)
    page.fill("#hand-input", HAND)
    page.fill("#samples", "500")
    page.fill("#seed", "")
    page.click("#solve")
    page.wait_for_selector("#answer .timing")
    seed = re.search(r"seed=(\d+)", page.url).group(1)
    first = page.inner_text("#answer .ev")
    rows = [page.get_attribute(f'#answer tr[data-row="{r}"]', "data-cards") for r in ROWS]
    assert f"seed {seed}" in page.text_content("#answer .how")
    link = page.url
    ctx2 = browser.new_context(viewport={"width": 1100, "height": 900})
    other = ctx2.new_page()
    other.goto(link)
    other.wait_for_selector("body[data-ready=true]")
    other.wait_for_selector("#answer .timing")
    assert other.inner_text("#answer .ev") == first
    assert [other.get_attribute(f'#answer tr[data-row="{r}"]', "data-cards") for r in ROWS] == rows
    assert other.input_value("#seed") == seed
    ctx2.close()
    page.reload()
    page.wait_for_selector("#answer .timing")
    assert page.inner_text("#answer .ev") == first
    # the answer is in the recent answers, and the copy button copies the link
    assert page.locator("#history-list .history-link").count() == 1
    ctx.close()
    assert watch.problems == []


def test_copy_the_link(browser, server):
    ctx, page, watch = open_page(browser, server, permissions=["clipboard-read", "clipboard-write"])
    page.fill("#hand-input", HAND)
    page.select_option("#policy", "field")
    page.click("#solve")
    page.wait_for_selector("#answer .timing")
    page.click("#copy-link")
    expect(page.locator("#share-status")).to_have_text("Copied.")
    assert page.evaluate("navigator.clipboard.readText()") == page.url
    page.click("#copy-answer")
    text = page.evaluate("navigator.clipboard.readText()")
    assert text.startswith(f"capsa: {SORTED}") and text.endswith(page.url)
    assert "Play this setting" in text
    ctx.close()
    assert watch.problems == []


@pytest.mark.parametrize(
    ("locale", "solve", "rows", "advice"),
    [
        ("zh-CN", "求解", ("头墩", "中墩", "尾墩"), "按这个摆法打"),
        ("zh-TW", "求解", ("頭墩", "中墩", "尾墩"), "按這個擺法打"),
        ("id-ID", "Cari solusi", ("kepala", "badan", "kaki"), "Mainkan susunan ini"),
        ("vi-VN", "Giải", ("chi 3", "chi 2", "chi 1"), "Chơi cách xếp này"),
        ("hr-HR", "Riješi", ("prednji", "srednji", "stražnji"), "Igraj ovaj raspored"),
        ("bn-BD", "সমাধান", ("সামনের সারি", "মাঝের সারি", "পেছনের সারি"), "এই সাজানো খেলুন"),
    ],
)
def test_the_page_speaks_the_browsers_language(browser, server, locale, solve, rows, advice):
    ctx, page, watch = open_page(browser, server, locale=locale)
    assert page.inner_text("#tab-solve") == solve
    page.fill("#hand-input", as_symbols(HAND))
    page.select_option("#policy", "field")
    page.click("#solve")
    page.wait_for_selector("#answer .timing")
    assert page.inner_text("#answer .advice") == advice
    names = [page.inner_text(f'#answer tr[data-row="{r}"] th') for r in ROWS]
    assert [n.lower() for n in names] == [r.lower() for r in rows]
    if locale == "zh-CN" and os.environ.get("CAPSA_SCREENSHOT_ZH"):  # docs/serve.md's second
        page.evaluate("window.scrollTo(0, 0)")
        page.screenshot(path=os.environ["CAPSA_SCREENSHOT_ZH"], full_page=True)
    ctx.close()
    assert watch.problems == []


def test_a_page_lent_again_is_a_first_visit(browser, server):
    """A page a test gave back (``Lease``) is the next test's as a first visit sees it:
    the same page, its storage, cookies and routes gone, the page loaded again; a test
    that used the context for more gets a fresh one."""
    options = {"viewport": {"width": 1000, "height": 700}}  # no other test's
    ctx, page, watch = open_page(browser, server, **options)
    page.select_option("#lang", "fil")  # remembered in localStorage
    page.evaluate("() => { sessionStorage.setItem('x', '1'); document.cookie = 'c=1'; }")
    page.route("**/api/rules", lambda route: route.abort())
    # a write still to come as the page is given back (a language's catalogue loading)
    page.evaluate("() => setInterval(() => localStorage.setItem('late', '1'), 0)")
    ctx.close()
    again, page2, watch2 = open_page(browser, server, **options)
    assert page2 is page and watch.problems == []
    assert page2.inner_text("#tab-solve") == "Solve"  # the browser's language, not fil
    assert page2.evaluate("[localStorage.length, sessionStorage.length, document.cookie]") == [
        0, 0, ""]  # fmt: skip
    assert "api/rules" in watch2.api_calls  # not aborted by the last test's route
    again.new_page().close()  # the context itself used: closed for good, not lent again
    again.close()
    third, page3, watch3 = open_page(browser, server, **options)
    assert page3 is not page and page.is_closed()
    third.close()
    assert watch2.problems == watch3.problems == []


def test_the_language_switch_is_remembered(browser, server):
    ctx, page, watch = open_page(browser, server)
    assert page.inner_text("#tab-solve") == "Solve"
    page.select_option("#lang", "fil")
    expect(page.locator("#tab-solve")).to_have_text("Lutasin")
    assert page.evaluate("document.documentElement.lang") == "fil"
    page.reload()
    page.wait_for_selector("body[data-ready=true]")
    assert page.inner_text("#tab-solve") == "Lutasin"
    ctx.close()
    assert watch.problems == []


def test_the_glossary_explains_the_words_and_the_rules_page_is_served(page, server):
    title = page.get_attribute("#rules-summary .term", "title")
    assert title and "unit" in title
    policy = page.get_attribute("#policy", "title")
    assert policy.startswith("Monte Carlo:")
    page.click("#glossary summary")
    assert "royalties (winner)" in page.inner_text("#glossary")
    page.click("footer #spec-link")  # the header's Rules opens the game's players' page
    page.wait_for_selector("h1")
    assert page.inner_text("h1") == "The game capsa plays"
    assert page.locator("#fouls").count() == 1


# --------------------------------------------------------------------------- the phone


def test_on_a_phone_the_runners_up_keep_their_rows_apart_and_menus_fit(browser, server):
    width = 375
    ctx, page, watch = open_page(
        browser, server, viewport={"width": width, "height": 740}, has_touch=True, is_mobile=True
    )
    for sel in ("#rules", "#players", "#policy", "#lang"):
        b = page.locator(sel).bounding_box()
        assert b["x"] >= 0 and b["x"] + b["width"] <= width, sel
    page.fill("#hand-input", HAND)
    page.select_option("#policy", "field")
    page.tap("#solve")
    page.wait_for_selector("#answer .timing")
    assert page.evaluate("document.scrollingElement.scrollWidth") <= width
    alts = page.locator("#answer table.alts tbody tr")
    assert alts.count() == 3
    for i in range(alts.count()):
        lines = alts.nth(i).locator(".cardline")
        boxes = [lines.nth(j).bounding_box() for j in range(3)]
        tops = [b["y"] for b in boxes]
        assert tops[0] + boxes[0]["height"] <= tops[1] and tops[1] + boxes[1]["height"] <= tops[2]
        assert all(b["x"] + b["width"] <= width for b in boxes)
    ctx.close()
    assert watch.problems == []
