"""The page as a card table (issue 34), in a real browser: hand names, numbers, cards,
the game of the language, naturals, Check typed in, in the languages the issue names.
A test runs at a desktop size (1280 × 900) and a phone size (375 × 812), but for one
whose claim the page's width does not touch (``DESKTOP``).

The browser, the server and the page helpers are tests/test_web_browser.py's.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.sync_api import expect

import evaluator as ev
from solver.engine.rules import preset
from tests import reference as ref
from tests.test_web_browser import FOULED, HAND, ROWS, as_symbols, open_page, shown_cards

SIZES = {"desktop": (1280, 900), "phone": (375, 812)}
#: The one size of a test whose claim the width does not touch: what the page says (its
#: words, its numbers, the cards it reads), not where, how big, or by a tap. At a phone's
#: width the page hides its tagline and the answer's table heads and folds the table's
#: settings (``max-width: 40rem`` in style.css and app.js), and a touch screen's board
#: help is its own; a test that reads none of these runs once (each says why), which
#: spares a page load and its solve (docs/architecture.md#tests).
DESKTOP = SIZES["desktop"]
I18N = Path(__file__).resolve().parent.parent / "solver" / "apps" / "web" / "static" / "i18n"
LOCALE_LANG = {"en-US": "en", "zh-CN": "zh-Hans", "vi-VN": "vi", "id-ID": "id", "fil-PH": "fil",
               "hr-HR": "hr", "bn-BD": "bn"}  # fmt: skip


def catalogue(lang: str) -> dict[str, str]:
    return json.loads((I18N / f"{lang}.json").read_text(encoding="utf-8"))


@pytest.fixture(params=list(SIZES))
def size(request):
    return SIZES[request.param]


def table_page(browser, server, size, locale="en-US"):  # noqa: F811 - the fixture, passed on
    width, height = size
    phone = width < 500
    ctx, page, watch = open_page(browser, server, viewport={"width": width, "height": height},
                                 locale=locale, has_touch=phone, is_mobile=phone)  # fmt: skip
    return ctx, page, watch


def solve_mc(page, hand: str, samples: int) -> dict:
    """Solve a hand by Monte Carlo with seed 1 as a player does; the answer's data."""
    page.fill("#hand-input", as_symbols(hand))
    page.fill("#samples", str(samples))
    page.fill("#seed", "1")
    page.click("#solve")
    page.wait_for_selector("#answer .timing")
    return page.evaluate("state.answer.data")


def hand_class(cards: str) -> str:
    """The oracle's name of a row's hand, as the catalogues key it."""
    ids = ref.ref_cards(cards)
    if ref.ref_is_royal(ids):
        return "royal_flush"
    name = ref.ref_category3(ids) if len(ids) == 3 else ref.ref_category5(ids)
    return name.replace(" ", "_")


def units_text(x: float, lang: str = "en") -> str:
    """A whole number of units as the page writes it: signed, in the language's digits
    (Bengali's ০-৯)."""
    text = f"{x:+.0f}".replace("-", "−")
    return text.translate(str.maketrans("0123456789", "০১২৩৪৫৬৭৮৯")) if lang == "bn" else text


# --------------------------------------------------------------------------- 1. hand names


@pytest.mark.parametrize("locale", ["en-US", "zh-CN", "vi-VN", "hr-HR", "bn-BD"])
def test_every_row_is_named_in_the_players_words(browser, server, locale):  # noqa: F811
    """Each row of the best setting and of every runner-up is named in the language's
    words, a paid royalty beside its name and in the royalties' part. One size
    (``DESKTOP``): the names are in the tables' rows, which the page writes alike at
    every width (the phone hides only their heads)."""
    words = catalogue(LOCALE_LANG[locale])
    ctx, page, watch = table_page(browser, server, DESKTOP, locale)
    page.select_option("#rules", "shisanshui")
    page.select_option("#policy", "field")
    page.fill("#hand-input", as_symbols(HAND))
    page.click("#solve")
    page.wait_for_selector("#answer .timing")
    rules = preset("shisanshui")
    best = {r: page.get_attribute(f'#answer table.setting tr[data-row="{r}"]', "data-cards")
            for r in ROWS}  # fmt: skip
    for r in ROWS:
        name = page.locator(f'#answer table.setting tr[data-row="{r}"] .hand-name')
        want = words[f"hand.{hand_class(best[r])}"]
        units = ref.ref_row_royalty(r, ref.ref_cards(best[r]), rules)
        shown = f"{want} {units_text(units, LOCALE_LANG[locale])}" if units else want
        assert name.inner_text() == shown, r
    # the royalties part says where they come from: "back: royal flush +5"
    back_units = ref.ref_row_royalty("back", ref.ref_cards(best["back"]), rules)
    assert back_units > 0
    source = words["royalty.source"].format(
        row=words["row.back"], hand=words[f"hand.{hand_class(best['back'])}"],
        units=units_text(back_units, LOCALE_LANG[locale]))  # fmt: skip
    assert source in page.inner_text('#answer table.parts tr[data-part="royalties"]')
    alts = page.locator("#answer table.alts tbody tr")
    assert alts.count() >= 2
    for i in range(alts.count()):
        for j in range(3):
            cell = alts.nth(i).locator("td").nth(j)
            cards = " ".join(cell.locator(".cardline").get_attribute("data-cards").split())
            assert words[f"hand.{hand_class(cards)}"] in cell.locator(".hand-name").inner_text()
    ctx.close()
    assert watch.problems == []


@pytest.mark.parametrize("locale", ["en-US", "zh-CN", "vi-VN", "hr-HR", "bn-BD"])
@pytest.mark.sampled  # tests/sampling.py: every value once by default, all under -m slow
def test_rows_are_named_while_set_and_a_foul_names_its_rows(browser, server, size, locale):  # noqa: F811
    words = catalogue(LOCALE_LANG[locale])
    ctx, page, watch = table_page(browser, server, size, locale)
    page.select_option("#policy", "field")
    page.fill("#hand-input", as_symbols(HAND))
    page.click("#tab-check")
    tap = page.tap if size[0] < 500 else page.click
    tap('.row-target[data-row="front"]')
    for c in FOULED["front"].split():
        tap(f'#pool [data-card="{c}"]')
    front_name = words[f"hand.{hand_class(FOULED['front'])}"]
    expect(page.locator('.slot[data-row="front"] .row-hand')).to_have_text(front_name)
    expect(page.locator("#foul-warning")).to_have_text("")
    tap('.row-target[data-row="middle"]')
    for c in FOULED["middle"].split():
        tap(f'#pool [data-card="{c}"]')
    middle_name = words[f"hand.{hand_class(FOULED['middle'])}"]
    expect(page.locator('.slot[data-row="middle"] .row-hand')).to_have_text(middle_name)
    expect(page.locator("#foul-warning")).to_have_text("")  # AKQ high is below trips
    tap('.row-target[data-row="back"]')
    for c in FOULED["back"].split():
        tap(f'#pool [data-card="{c}"]')
    back_name = words[f"hand.{hand_class(FOULED['back'])}"]
    assert not ref.ref_is_legal(*(ev.parse_cards(FOULED[r]).tolist() for r in ROWS))
    warning = words["board.foul"].format(row=words["row.middle"], hand=middle_name,
                                         over=words["row.back"], other=back_name)  # fmt: skip
    expect(page.locator("#foul-warning")).to_have_text(warning)
    assert page.get_attribute("#foul-warning", "data-row") == "middle"
    tap("#check")
    verdict = page.locator("#check-result .verdict")
    verdict.wait_for()
    game = page.input_value("#rules")  # Mậu Binh in Tiếng Việt: a foul pays a flat 6
    flat = page.evaluate(f"state.rulesets.get('{game}').rules.foul_penalty")
    key = "check.fouledRow" if flat is False else "check.fouledRowFlat"
    unit = words.get(f"unit.{game}", words["unit.generic"])
    why = words[key].format(row=words["row.middle"], hand=middle_name, over=words["row.back"],
                            other=back_name, n=flat, unit=unit)  # fmt: skip
    assert why in verdict.inner_text()
    compare = page.locator('#check-result table.compare tr[data-row="back"] td').nth(0)
    assert compare.locator(".hand-name").inner_text() == back_name
    assert shown_cards(compare) != ""
    # a card taken back: the row is no longer named, the warning goes
    tap(f'.cards[data-row="back"] [data-card="{FOULED["back"].split()[0]}"]')
    expect(page.locator('.slot[data-row="back"] .row-hand')).to_have_text("")
    expect(page.locator("#foul-warning")).to_have_text("")
    ctx.close()
    assert watch.problems == []


# --------------------------------------------------------------------------- 4. numbers


def local_number(x: float, digits: int, lang: str) -> str:
    """x as the language's locale writes it: vi, id and hr group by '.' and mark decimals
    by ','; bn writes the Bengali digits (০-৯), grouped by ',' (below a lakh as en)."""
    text = f"{x:,.{digits}f}"
    if lang in ("vi", "id", "hr"):
        text = text.translate(str.maketrans({",": ".", ".": ","}))
    if lang == "bn":
        assert abs(x) < 100_000  # the lakh's grouping (1,00,000) is not written here
        text = text.translate(str.maketrans("0123456789", "০১২৩৪৫৬৭৮৯"))
    return text


@pytest.mark.parametrize(("locale", "chosen"), [("vi-VN", None), ("id-ID", None), ("en-US", "vi"),
                                                ("vi-VN", "en"), ("hr-HR", None), ("bn-BD", None),
                                                ("en-US", "hr"), ("en-US", "bn")])  # fmt: skip
def test_one_number_format_the_page_languages(browser, server, locale, chosen):  # noqa: F811
    """The answer's figures in the language's number format (or the chosen language's).
    One size (``DESKTOP``): one formatter writes them at every width, into the answer's
    lines and cells, which the phone's layout keeps."""
    ctx, page, watch = table_page(browser, server, DESKTOP, locale)
    if chosen:
        page.select_option("#lang", chosen)
    lang = chosen or LOCALE_LANG[locale]
    d = solve_mc(page, HAND, 3000)
    assert local_number(3000, 0, lang) in page.text_content("#answer .how")
    sign = "+" if d["ev"] >= 0 else "−"
    assert page.inner_text("#answer .ev-value") == sign + local_number(abs(d["ev"]), 3, lang)
    margin = page.text_content("#answer .margin")  # under "Advanced" (issue 53)
    assert f" {local_number(d['stderr'], 3, lang)} " in margin
    win = d["row_stats"]["middle"]["win"]
    bar = page.inner_text('#answer table.setting tr[data-row="middle"] .bar-text')
    assert f"{local_number(100 * win, 1, lang)}%" in bar
    royalties = page.inner_text('#answer table.parts tr[data-part="royalties"] td')
    assert royalties == "+" + local_number(d["ev_parts"]["royalties"], 3, lang)
    ctx.close()
    assert watch.problems == []


# --------------------------------------------------------------------------- 5. cards


@pytest.mark.parametrize(
    ("locale", "typed", "read"),
    [
        # in Vietnamese c is cơ (hearts), b bích, r rô, t tép / ch chuồn (clubs)
        ("vi-VN", "Ab Kb Qb Jb 10b 9c 9r 9t 2b 3r 4ch 5c 7r", HAND),
        # in Indonesian w wajik (diamonds), k keriting (clubs); a king of clubs is Kk
        ("id-ID", "As Ks Qs Js 10s 9h 9w 9k 2s 3w 4k 5h 7w", HAND),
        # in Chinese the suit's name comes first
        (
            "zh-CN",
            "黑桃A 黑桃K 黑桃Q 黑桃J 黑桃10 红桃9 方块9 梅花9 黑桃2 方块3 梅花4 红心5 方块7",
            HAND,
        ),
        ("en-US", "As Ks Qs Js 10s 9h 9d 9c 2s 3d 4c 5h 7d", HAND),
        # in Croatian p pik (spades), h herc, k karo (diamonds), t tref (clubs)
        ("hr-HR", "Ap Kp Qp Jp 10p 9h 9k 9t 2p 3k 4t 5h 7k", HAND),
        # Bengali players write the English letters (ইস্কাপন s, হরতন h, রুইতন d, চিড়িতন c)
        ("bn-BD", "As Ks Qs Js 10s 9h 9d 9c 2s 3d 4c 5h 7d", HAND),
    ],
)
def test_cards_are_read_as_the_languages_players_write_them(browser, server, locale,  # noqa: F811
                                                            typed, read):  # fmt: skip
    """A hand typed as the language's players write it is read, shown and solved.
    One size (``DESKTOP``): reading is the page's parser, the same at every width (the
    picker by tap on a phone: tests/test_web_board.py, test_web_browser.py)."""
    ctx, page, watch = table_page(browser, server, DESKTOP, locale)
    page.fill("#hand-input", typed)
    assert page.get_attribute("#hand-status", "data-ok") == "true"
    want = sorted(read.split(), key=lambda c: -(ev.RANKS.index(c[0]) * 4 + ev.SUITS.index(c[1])))
    assert page.get_attribute("#picked", "data-cards") == " ".join(want)
    # what was read is shown at once, in the order typed, as symbols: 10♠, never T
    shown = page.inner_text("#hand-read")
    assert as_symbols(read) in shown
    # every ten is drawn 10, on the picker and on the cards picked
    for sel in ("#picker", "#picked"):
        assert page.locator(f'{sel} [data-card="Ts"] .rank').inner_text() == "10"
    # the hand written back by the page reads the same in this language
    page.click('#picker [data-card="2s"]')
    page.click('#picker [data-card="2s"]')
    assert page.get_attribute("#picked", "data-cards") == " ".join(want)
    assert page.get_attribute("#hand-status", "data-ok") == "true"
    page.select_option("#policy", "field")
    page.click("#solve")
    page.wait_for_selector("#answer .timing")
    assert page.evaluate("state.answer.data.hand") == " ".join(want)
    ctx.close()
    assert watch.problems == []


def test_a_vietnamese_c_is_hearts_and_the_page_says_what_it_read(browser, server):  # noqa: F811
    """One size (``DESKTOP``): what is read and said is the parser's, at every width."""
    ctx, page, watch = table_page(browser, server, DESKTOP, "vi-VN")
    page.fill("#hand-input", "Ac 10t Kr")
    assert "Ac 10t Kr = A♥ 10♣ K♦" in page.inner_text("#hand-read")  # its letters, its symbols
    assert page.get_attribute("#picked", "data-cards") == "Ah Kd Tc"
    page.select_option("#lang", "en")  # the same cards, written in English letters
    assert page.input_value("#hand-input") == "Ah Kd 10c"
    assert page.inner_text("#hand-read").endswith("A♥ K♦ 10♣")  # English: the symbols
    ctx.close()
    assert watch.problems == []


# --------------------------------------------------------------------------- 6. the game


def option_fits(page, sel: str) -> bool:
    """Whether the chosen option's text fits in its menu (measured in the menu's font)."""
    return page.evaluate(
        """(sel) => {
            const el = document.querySelector(sel);
            const cs = getComputedStyle(el);
            const ctx = document.createElement("canvas").getContext("2d");
            ctx.font = `${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`;
            const text = el.options[el.selectedIndex].textContent;
            const pad = parseFloat(cs.paddingLeft) + parseFloat(cs.paddingRight);
            const room = el.clientWidth - pad - 20;
            return ctx.measureText(text).width <= room;
        }""",
        sel,
    )


@pytest.mark.parametrize(
    ("locale", "game", "called"),
    [("zh-CN", "shisanshui", "十三水"), ("zh-TW", "shisanshui", "十三支（十三張）"),
     ("vi-VN", "mau-binh", "Mậu Binh"), ("id-ID", "capsa", "Capsa Susun"),
     ("fil-PH", "pusoy", "Pusoy"), ("en-US", "chinese-1-6", "Chinese poker, 1-6")],
)  # fmt: skip
@pytest.mark.sampled  # tests/sampling.py: every value once by default, all under -m slow
def test_the_game_follows_the_language_then_the_players_choice(browser, server, size, locale,  # noqa: F811
                                                               game, called):  # fmt: skip
    ctx, page, watch = table_page(browser, server, size, locale)
    assert page.input_value("#rules") == game
    summary = page.locator("#rules-summary .game-name")
    assert summary.inner_text() == called  # in the page's language, not its menu value
    assert summary.is_visible()
    if locale != "en-US" or size[0] > 500:  # "..., this server's default" is long on a phone
        assert option_fits(page, "#rules")
    page.fill("#hand-input", as_symbols(HAND))
    page.select_option("#policy", "field")
    page.click("#solve")
    page.wait_for_selector("#answer .timing")
    assert page.evaluate("state.answer.data.rules") == game
    # the player's own choice is kept: over a new visit and over a change of language
    page.select_option("#rules", "per-row")
    page.goto(server.url)  # the page without the answer's link
    page.wait_for_selector("body[data-ready=true]")
    assert page.input_value("#rules") == "per-row"
    page.select_option("#lang", "vi" if locale != "vi-VN" else "en")
    page.wait_for_function("document.documentElement.lang !== ''")
    assert page.input_value("#rules") == "per-row"
    ctx.close()
    assert watch.problems == []


def test_a_language_chosen_on_a_first_visit_brings_its_game(browser, server):  # noqa: F811
    """One size (``DESKTOP``): the game follows the language in the page's state, at
    every width."""
    ctx, page, watch = table_page(browser, server, DESKTOP, "en-US")
    assert page.input_value("#rules") == "chinese-1-6"
    page.select_option("#lang", "vi")
    expect(page.locator("#rules")).to_have_value("mau-binh")
    page.select_option("#lang", "zh-Hans")
    expect(page.locator("#rules")).to_have_value("shisanshui")
    ctx.close()
    assert watch.problems == []


# --------------------------------------------------------------------------- 7. naturals

#: 一条龙 under shisanshui: 52 a seat, fixed (only a royal dragon or another dragon, both
#: rarer than one in 10,000 opponent hands, would change it; five pairs and trips, 6, ties
#: an opponent's special of equal payout, so its value is not fixed there)
DRAGON = "Ah Kd Qc Js Th 9d 8c 7s 6h 5d 4c 3s 2h"
THREE_FLUSHES = "2h 5h 9h 3s 6s 8s Ts Qs 4c 7c Jc Kc 2c"  # worth declaring, but not fixed


@pytest.mark.parametrize(
    ("locale", "rules", "hand", "fixed"),
    [("en-US", "shisanshui", DRAGON, 52), ("zh-CN", "shisanshui", DRAGON, 52),
     ("vi-VN", "chinese-1-6", THREE_FLUSHES, None)],
)  # fmt: skip
def test_a_declared_natural_is_a_payment_not_a_play(browser, server, locale, rules,  # noqa: F811
                                                    hand, fixed):  # fmt: skip
    """A declared natural's answer is its payment; the rows are folded under "if you
    played it". One size (``DESKTOP``): the fold is the answer's own ``details``, built
    alike at every width (the phone hides only the tables' heads)."""
    words = catalogue(LOCALE_LANG[locale])
    ctx, page, watch = table_page(browser, server, DESKTOP, locale)
    page.select_option("#rules", rules)
    d = solve_mc(page, hand, 2000)
    assert d["action"] == "declare" and d["stderr"] > 0
    line = page.inner_text("#answer .ev")
    assert "±" not in line  # the playing setting's error is not the payment's
    if fixed is not None:
        assert d["ev"] == fixed
        unit = words.get(f"unit.{rules}", words["unit.generic"])  # the table's (issue 53)
        assert words["answer.declaredFixed"].format(units=fixed, unit=unit) in line
    else:
        assert d["ev"] != 3 and words["answer.declaredPaid"] in line
    # the rows and the parts of the value are shown only as "if you played it", folded
    played = page.locator("#answer details.if-played")
    assert played.get_attribute("open") is None
    assert not page.is_visible("#answer table.setting")
    assert not page.is_visible("#answer table.parts")
    assert page.locator("#answer > .answer > table.setting").count() == 0
    played.locator("summary").click()
    assert page.is_visible("#answer details.if-played table.setting")
    total = page.inner_text('#answer details.if-played table.parts tr[data-part="total"] td')
    assert total.replace(",", ".") == f"{d['ev_play']:+.3f}".replace("-", "−")
    ctx.close()
    assert watch.problems == []


# --------------------------------------------------------------------------- 8, 9. Check typed in


@pytest.mark.parametrize(
    ("locale", "typed"),
    [
        ("en-US", "As Ks Qs | 9h 9d 9c 3d 2s | Js 10s 7d 5h 4c"),
        ("vi-VN", "Ab Kb Qb | 9c 9r 9t 3r 2b | Jb 10b 7r 5c 4t"),
        (
            "zh-CN",
            "黑桃A 黑桃K 黑桃Q | 红桃9 方块9 梅花9 方块3 黑桃2 | 黑桃J 黑桃10 方块7 红桃5 梅花4",
        ),
    ],
)
def test_check_reads_a_typed_setting_and_a_loss_is_negative(browser, server, locale, typed):  # noqa: F811
    """One size (``DESKTOP``): the typed setting is read by the parser, and the loss
    signed by the formatter, alike at every width."""
    ctx, page, watch = table_page(browser, server, DESKTOP, locale)
    page.click("#tab-check")
    page.fill("#played-input", typed)
    assert page.get_attribute("#played-status", "data-ok") == "true"
    assert page.get_attribute("#picked", "data-cards") == page.evaluate(
        "sortCards(parseCards(" + json.dumps(as_symbols(HAND)) + ").cards).join(' ')"
    )
    for r in ROWS:
        assert page.get_attribute(f'.cards[data-row="{r}"]', "data-cards").split() == sorted(
            FOULED[r].split(), key=lambda c: -(ev.RANKS.index(c[0]) * 4 + ev.SUITS.index(c[1]))
        )
    page.press("#played-input", "Enter")  # one key, not 27 clicks
    page.wait_for_selector("#check-result .verdict")
    p = page.evaluate("state.checked.data.played")
    assert p["fouled"] and p["loss"] > 0
    # one sign for what a setting gives up: negative, in the line and part by part
    assert page.inner_text("#check-result .played-loss").startswith("−")
    total = page.inner_text('#check-result table.parts-lost tr[data-part="total"] .part-lost')
    assert total.startswith("−")
    ctx.close()
    assert watch.problems == []


@pytest.mark.parametrize(
    ("typed", "says"),
    [
        ("As Ks Qs | 9h 9d 9c 3d 2s", "three rows"),
        ("As Ks | 9h 9d 9c 3d 2s | Js 10s 7d 5h 4c", "front: 3 cards, not 2"),
        ("As Ks Zz | 9h 9d 9c 3d 2s | Js 10s 7d 5h 4c", 'front: "Zz" is not a card'),
        ("As Ks Qs | 9h 9d 9c 3d 2s | As 10s 7d 5h 4c", "duplicate card As (A♠)"),
    ],
)
def test_a_bad_typed_setting_is_one_line_naming_the_row(browser, server, typed, says):  # noqa: F811
    """One size (``DESKTOP``): the message is the parser's, one line (no line break in
    its text) at every width."""
    ctx, page, watch = table_page(browser, server, DESKTOP)
    page.click("#tab-check")
    page.fill("#played-input", typed)
    status = page.locator("#played-status")
    assert status.get_attribute("data-ok") == "false" and says in status.inner_text()
    assert "\n" not in status.inner_text()
    ctx.close()
    assert watch.problems == []


@pytest.mark.parametrize("locale", ["en-US", "zh-CN", "vi-VN", "id-ID", "fil-PH"])
@pytest.mark.sampled  # tests/sampling.py: every value once by default, all under -m slow
def test_the_solvers_options_are_under_advanced(browser, server, size, locale):  # noqa: F811
    width, height = size
    phone = width < 500
    ctx, page, watch = open_page(browser, server, advanced=False, locale=locale,
                                 viewport={"width": width, "height": height},
                                 has_touch=phone, is_mobile=phone)  # fmt: skip
    for sel in ("#policy", "#samples", "#seed", "#opponents"):
        assert not page.is_visible(sel), sel
    if phone:  # the table's settings are folded behind their line (tests/test_web_practice.py)
        assert not page.is_visible("#rules")
        page.tap("#table-settings > summary")
    assert page.is_visible("#rules") and page.is_visible("#players")
    page.click("#advanced summary")
    assert page.is_visible("#policy") and page.is_visible("#samples")
    ctx.close()
    assert watch.problems == []


# --------------------------------------------------------------------------- 3. phone first

ALL_LOCALES = ["en-US", "zh-CN", "zh-TW", "vi-VN", "id-ID", "fil-PH", "hr-HR", "bn-BD"]


@pytest.mark.parametrize("locale", ALL_LOCALES)
def test_on_a_phone_nothing_is_cut_and_every_target_is_44_px(browser, server, locale):  # noqa: F811
    width, height = SIZES["phone"]
    ctx, page, watch = table_page(browser, server, SIZES["phone"], locale)
    for mode in ("solve", "check", "practice"):
        page.tap(f"#tab-{mode}")
        if mode == "practice":
            expect(page.locator("#pool button")).to_have_count(13)
        assert page.evaluate("document.scrollingElement.scrollWidth") <= width, mode
        for tab in ("solve", "check", "practice"):  # no tab cut to "Lat…"
            fits = page.evaluate(
                "(id) => { const el = document.getElementById(id);"
                " const r = el.getBoundingClientRect();"
                " return el.scrollWidth <= el.clientWidth"
                " && r.right <= innerWidth && r.left >= 0; }",
                f"tab-{tab}",
            )
            assert fits, (mode, tab)
    page.tap("#tab-solve")
    for sel in ("#picker button", "[role=tab]", "#solve", "#random-hand"):
        for box in (
            page.locator(sel).nth(i).bounding_box() for i in range(page.locator(sel).count())
        ):
            assert box["width"] >= 44 and box["height"] >= 44, sel
    page.tap("#tab-practice")
    for box in (page.locator("#pool button").nth(i).bounding_box() for i in range(13)):
        assert box["width"] >= 44 and box["height"] >= 44
    ctx.close()
    assert watch.problems == []


@pytest.mark.parametrize("locale", ["en-US", "vi-VN", "fil-PH"])
def test_on_a_phone_the_cards_come_first_and_the_next_is_beside_the_result(browser, server,  # noqa: F811
                                                                          locale):  # fmt: skip
    width, height = SIZES["phone"]
    ctx, page, watch = table_page(browser, server, SIZES["phone"], locale)
    page.tap("#tab-practice")
    expect(page.locator("#pool button")).to_have_count(13)
    first = page.locator("#pool button").first.bounding_box()
    assert first["y"] + first["height"] <= height  # the dealt hand in the first screen
    assert page.locator("#rows").bounding_box()["y"] < height
    page.select_option("#policy", "field")
    cards = page.get_attribute("#pool", "data-cards").split()
    for row, part in (("back", cards[:5]), ("middle", cards[5:10]), ("front", cards[10:])):
        page.tap(f'.row-target[data-row="{row}"]')
        for c in part:
            page.tap(f'#pool [data-card="{c}"]')
    page.tap("#check")
    page.wait_for_selector("#check-result .verdict")
    # the first result is the showdown at the table (POST /api/table), the next hand beside it
    verdict = page.locator("#showdown .table-total").bounding_box()
    nxt = page.locator("#showdown .next-hand")
    box = nxt.bounding_box()
    assert abs(box["y"] - verdict["y"]) < height / 2  # beside the result, not a screen away
    assert 0 <= box["y"] and box["y"] + box["height"] <= height
    nxt.tap()
    expect(page.locator("#pool")).not_to_have_attribute("data-cards", " ".join(cards))
    ctx.close()
    assert watch.problems == []


@pytest.mark.parametrize("locale", ["en-US", "zh-CN"])
def test_the_words_explained_work_on_tap(browser, server, locale):  # noqa: F811
    ctx, page, watch = table_page(browser, server, SIZES["phone"], locale)
    term = page.locator("#rules-summary .term").first
    term.tap()
    tip = page.locator("#rules-summary .term-tip").first
    expect(tip).to_be_visible()
    assert tip.inner_text() == page.text_content("#g-unit")
    term.tap()
    expect(page.locator("#rules-summary .term-tip")).to_have_count(0)
    ctx.close()
    assert watch.problems == []


# --------------------------------------------------------------------------- 2. Practice, in part


@pytest.mark.parametrize("locale", ["en-US", "vi-VN"])
@pytest.mark.sampled  # tests/sampling.py: every value once by default, all under -m slow
def test_practice_has_a_hint_a_sort_by_suit_and_a_swap(browser, server, size, locale):  # noqa: F811
    ctx, page, watch = table_page(browser, server, size, locale)
    tap = page.tap if size[0] < 500 else page.click
    tap("#tab-practice")
    expect(page.locator("#pool button")).to_have_count(13)
    hand = page.get_attribute("#pool", "data-cards")
    tap("#sort-pool")
    order = [page.locator("#pool button").nth(i).get_attribute("data-card") for i in range(13)]
    suits = [c[1] for c in order]
    assert suits == sorted(suits, key=lambda s: -ev.SUITS.index(s))  # grouped, ♠ ♥ ♦ ♣
    tap("#hint")
    expect(page.locator("#pool button")).to_have_count(0)
    rules = page.input_value("#rules")
    best = {r: page.get_attribute(f'.cards[data-row="{r}"]', "data-cards") for r in ROWS}
    want = page.evaluate(
        "async ([hand, rules]) => (await (await fetch('/api/solve', {method: 'POST',"
        " headers: {'Content-Type': 'application/json'},"
        " body: JSON.stringify({hand, rules, policy: 'field'})})).json())",
        [hand, rules],
    )
    assert best == {r: want[r] for r in ROWS}
    assert page.inner_text("#hint-note") != ""
    tap('.swap-pair[data-swap="middle back"]')
    assert page.get_attribute('.cards[data-row="middle"]', "data-cards") == want["back"]
    assert page.get_attribute('.cards[data-row="back"]', "data-cards") == want["middle"]
    ctx.close()
    assert watch.problems == []
