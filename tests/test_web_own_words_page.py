"""The page says nothing in English or in the solver's internal names outside English
(issue 53, item 5), in a real browser at a desktop size (1280 × 900) and a phone size
(375 × 812), or at the first alone where the width does not touch the claim
(``tests.test_web_table.DESKTOP``): the ruleset menu names each game in the page's
language, the opponents are "typical players" in each language's words (never
"field"), a special hand is named in the language alone, a bigger table is its game's
name with its players, and the suits are ranked with their symbols.

The browser, the server and the page helpers are tests/test_web_browser.py's.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.test_web_browser import HAND, as_symbols
from tests.test_web_table import DESKTOP, LOCALE_LANG, catalogue, size, table_page  # noqa: F401

LOCALES = ["zh-CN", "vi-VN", "hr-HR", "fil-PH", "bn-BD", "id-ID", "en-US"]
INTERNAL = ("field", "greedy", "safe", "mc")  # the menus' values, the solver's names


def _options(page, sel: str) -> list[tuple[str, str]]:
    js = "(s) => [...document.querySelectorAll(s + ' option')].map((o) => [o.value, o.textContent])"
    return [tuple(x) for x in page.evaluate(js, sel)]


def _solve(page) -> None:
    """Solve, and wait for the answer of the table chosen (not the one shown before)."""
    page.click("#solve")
    ready = (
        "!!(state.answer && state.answer.data && document.querySelector('#answer .timing')"
        " && !document.querySelector('#answer .answer.stale'))"
    )
    for _ in range(600):  # the page's CSP forbids wait_for_function's eval
        if page.evaluate(ready):
            return
        page.wait_for_timeout(200)
    raise AssertionError("no answer")


def _everything_said(page) -> str:
    """The page's text as a player can meet it: what is shown, what is folded (the
    glossary, the solver's words under "Advanced") and every menu's choices."""
    page.evaluate("document.querySelectorAll('details').forEach((d) => { d.open = true; })")
    menus = page.evaluate(
        "[...document.querySelectorAll('select option')].map((o) => o.textContent).join('\\n')"
    )
    return page.inner_text("body") + "\n" + menus


@pytest.mark.parametrize("locale", LOCALES)
def test_the_games_are_named_in_the_pages_language(browser, server, locale):  # noqa: F811
    """One size (``DESKTOP``): the names are the catalogue's, in the menu's options and
    the settings' lines, which the page writes alike at every width."""
    lang = LOCALE_LANG[locale]
    words, en = catalogue(lang), catalogue("en")
    ctx, page, watch = table_page(browser, server, DESKTOP, locale=locale)
    options = _options(page, "#rules")
    assert len(options) >= 8
    for value, text in options:
        name = words[f"rules.p.game.{value}"]
        assert name in text, (value, text)
        assert f"({value})" not in text and f"（{value}）" not in text, text
        english = en[f"rules.p.game.{value}"]
        if lang != "en" and english not in name:  # not the English name beside it
            assert english not in text, text
    # the chosen game's name in the settings' summary and in the folded line
    game = page.input_value("#rules")
    assert page.inner_text("#rules-summary .game-name") == words[f"rules.p.game.{game}"]
    assert page.inner_text("#table-line").startswith(words[f"rules.p.game.{game}"])
    ctx.close()
    assert watch.problems == []


@pytest.mark.parametrize("locale", LOCALES)
@pytest.mark.sampled  # tests/sampling.py: every value once by default, all under -m slow
def test_no_internal_name_or_english_word_is_shown(browser, server, size, locale):  # noqa: F811
    """Not "field 玩家（field）", "igrači polja (field)", "五对三条 (Five pairs and trips)":
    the opponents in the players' words, special hands in the language alone."""
    lang = LOCALE_LANG[locale]
    words = catalogue(lang)
    ctx, page, watch = table_page(browser, server, size, locale=locale)
    page.select_option("#rules", "shisanshui")  # a game with special hands
    english = page.evaluate("[...state.naturals.values()].map((n) => n.english)")
    assert english
    naturals = page.inner_text("#rules-naturals")
    assert naturals.startswith(words["rules.naturals"])
    for name in page.evaluate("state.rulesets.get('shisanshui').naturals.map((n) => n.name)"):
        assert words[f"natural.{name}"] in naturals, name
    if lang != "en":  # no English name in brackets ("Dragon" is Filipino players' own word)
        assert not [e for e in english if f"({e})" in naturals or f"（{e}）" in naturals], naturals
    for sel in ("#policy", "#opponents"):  # the menus say the players' words, no value
        for value, text in _options(page, sel):
            assert f"({value})" not in text and f"（{value}）" not in text, text
    page.select_option("#policy", "field")
    page.fill("#hand-input", as_symbols(HAND))
    _solve(page)
    said = _everything_said(page)
    for name in INTERNAL if lang != "en" else ("field", "mc"):  # greedy, safe: English words
        assert not re.search(rf"\b{name}\b", said, re.IGNORECASE), (name, locale)
    if lang == "hr":  # the football pitch's players ("ispod polja", below the box, is right)
        assert not re.search(r"(igrači|modelom?|strategija|tablice) polja", said)
    ctx.close()
    assert watch.problems == []


@pytest.mark.parametrize("locale", ["zh-CN", "vi-VN", "en-US"])
def test_a_bigger_table_is_its_games_name_and_its_players(browser, server, locale):  # noqa: F811
    """十三水 at five players is "十三水，5 人", not "shisanshui-5, 5 人". One size
    (``DESKTOP``): the answer's words, alike at every width."""
    lang = LOCALE_LANG[locale]
    words = catalogue(lang)
    ctx, page, watch = table_page(browser, server, DESKTOP, locale=locale)
    page.select_option("#rules", "shisanshui")
    page.select_option("#players", "5")
    page.select_option("#policy", "field")
    page.fill("#hand-input", as_symbols(HAND))
    _solve(page)
    assert page.evaluate("state.answer.data.rules") != "shisanshui"  # the server's table name
    how = page.locator("#answer details.how-more .how").text_content()
    said = words["how.rules"].replace("{rules}", words["rules.p.game.shisanshui"])
    assert said.replace("{players}", "5") in how, how
    assert "shisanshui-" not in how
    ctx.close()
    assert watch.problems == []


@pytest.mark.parametrize("locale", ["fil-PH", "id-ID", "en-US"])
def test_the_suit_order_is_said_with_the_suits_symbols(browser, server, locale):  # noqa: F811
    """Pusoy ranks d > c > h > s: the summary says ♦ > ♣ > ♥ > ♠, not its letters. One size
    (``DESKTOP``): the summary's words, alike at every width."""
    ctx, page, watch = table_page(browser, server, DESKTOP, locale=locale)
    for game in ("pusoy", "capsa"):
        page.select_option("#rules", game)
        order = page.evaluate(f"state.rulesets.get('{game}').rules.suit_order")
        symbols = " > ".join({"s": "♠", "h": "♥", "d": "♦", "c": "♣"}[s] for s in order)
        summary = page.inner_text("#rules-summary")
        assert symbols in summary, summary
        assert ">".join(order) not in summary
    ctx.close()
    assert watch.problems == []


def test_the_hints_are_named_by_what_differs(browser, server):  # noqa: F811
    """Three suggestions with the same hands ("对子 · 对子 · 两对" three times) are told
    apart by the cards of the rows each sets otherwise. One size (``DESKTOP``): the hints' words,
    alike at every width."""
    words = catalogue("zh-Hans")
    ctx, page, watch = table_page(browser, server, DESKTOP, locale="zh-CN")
    page.select_option("#rules", "shisanshui")
    page.select_option("#policy", "field")
    page.click("#tab-check")
    hand = "6s Tc 5d 5s Kh 9d Td Ad Kd 8h Qs 4h Ah"  # its three suggestions: the same hands
    page.fill("#hand-input", as_symbols(hand))
    page.click("#hint")
    choices = page.locator("#hint-choices .hint-choice")
    expect(choices).to_have_count(3)
    texts = [  # each without its number ("推荐 1：") and its value
        choices.nth(i).inner_text().removeprefix(choices.nth(i).locator("strong").inner_text())
        .removesuffix(choices.nth(i).locator(".note").inner_text()).strip()
        for i in range(3)
    ]  # fmt: skip
    hands = [t.split(" — ")[0] for t in texts]
    assert len(set(hands)) == 1, hands  # the hand this test needs: alike by their hands
    assert len(set(texts)) == 3, texts
    assert all(any(words[f"row.{r}"] in t for r in ("front", "middle", "back")) for t in texts)
    ctx.close()
    assert watch.problems == []


def test_a_seat_is_numbered_in_the_languages_digits(browser, server):  # noqa: F811
    """বাংলা: "প্রতিপক্ষ ১", not "প্রতিপক্ষ 1" beside "+৫.২৬৮". One size (``DESKTOP``): the
    seats' headings, alike at every width."""
    words = catalogue("bn")
    ctx, page, watch = table_page(browser, server, DESKTOP, locale="bn-BD")
    page.select_option("#policy", "field")
    page.click("#tab-practice")
    expect(page.locator("#pool button")).to_have_count(13)
    page.click("#hint")
    expect(page.locator("#pool button")).to_have_count(0)
    page.click("#check")
    page.wait_for_selector("#showdown .table-result")
    heads = page.locator("#showdown .seat h4")
    for i in range(1, heads.count()):
        said = words["table.opponent"].replace("{n}", "০১২৩৪৫৬৭৮৯"[i])
        assert heads.nth(i).inner_text().startswith(said), heads.nth(i).inner_text()
    assert not re.search(r"[0-9]", page.inner_text("#showdown .seat h4 >> nth=1"))
    ctx.close()
    assert watch.problems == []


def test_traditional_chinese_names_the_game_as_taiwan_and_hong_kong_do(browser, server):  # noqa: F811
    """十三支 in Taiwan, 十三張 in Hong Kong: 繁體中文 says the regions' names, not 十三水. One size
    (``DESKTOP``): the catalogue's name, at every width."""
    ctx, page, watch = table_page(browser, server, DESKTOP, locale="zh-TW")
    assert page.input_value("#rules") == "shisanshui"
    called = page.inner_text("#rules-summary .game-name")
    assert "十三支" in called and "十三張" in called and "十三水" not in called, called
    ctx.close()
    assert watch.problems == []
