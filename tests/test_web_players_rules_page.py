"""The players' rules of each game in a real browser (issue 34, item 9): the page's link
"Rules of this game" follows the game and the language chosen, and leads to that game's
page in that language, and back; on a phone every game's page, in every language, fits
the screen's width and is a few screens long.

The browser, the server and the page helpers are tests/test_web_browser.py's.
"""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import expect

from solver.engine.rules import PRESETS
from tests.test_web_browser import Watch, open_page
from tests.test_web_table import SIZES, catalogue, size  # noqa: F401

ROOT = Path(__file__).resolve().parent.parent
LANGS = ("en", "zh-Hans", "zh-Hant", "id", "vi", "fil", "hr", "bn")
#: The longest a game's page may be on a phone: a few screens.
SCREENS = 6


def test_the_link_goes_to_this_games_rules_in_this_language(browser, server, size):  # noqa: F811
    width, height = size
    phone = width < 500
    ctx, page, watch = open_page(browser, server, locale="zh-CN",
                                 viewport={"width": width, "height": height},
                                 has_touch=phone, is_mobile=phone)  # fmt: skip
    link = page.locator("#game-rules-link")
    # a first visit in 中文 starts at 十三水 (docs/serve.md)
    expect(link).to_have_attribute("href", "/rules/shisanshui?lang=zh-Hans")
    expect(link).to_have_text(catalogue("zh-Hans")["rules.p.link"])
    expect(link).to_be_visible()
    box, menu = link.bounding_box(), page.locator("#rules").bounding_box()
    assert box["x"] + box["width"] <= width and box["y"] - (menu["y"] + menu["height"]) < 80
    assert box["height"] >= 44  # a target a finger finds
    page.select_option("#rules", "pusoy")
    expect(link).to_have_attribute("href", "/rules/pusoy?lang=zh-Hans")
    page.select_option("#lang", "fil")
    expect(link).to_have_attribute("href", "/rules/pusoy?lang=fil")
    fil = catalogue("fil")
    expect(link).to_have_text(fil["rules.p.link"])
    link.click()
    page.wait_for_selector("h1")
    assert page.url == server.url.rstrip("/") + "/rules/pusoy?lang=fil"
    title = fil["rules.p.title"].replace("{game}", fil["rules.p.game.pusoy"])
    assert page.inner_text("h1") == title
    assert page.evaluate("document.documentElement.lang") == "fil"
    assert page.get_attribute("#full-rules", "href") == "/rules"
    page.click("#back-link")
    page.wait_for_selector("body[data-ready=true]")
    page.evaluate("document.querySelector('#table-settings').open = true")  # folded on a phone
    assert page.input_value("#rules") == "pusoy" and page.input_value("#lang") == "fil"
    expect(page.locator("#game-rules-link")).to_have_attribute("href", "/rules/pusoy?lang=fil")
    # an uploaded ruleset has no players' page: the link is hidden, and back with a preset
    page.set_input_files("#rules-file", str(ROOT / "docs" / "examples" / "house.toml"))
    expect(page.locator("#rules-summary")).to_contain_text("house.toml")
    expect(page.locator("#game-rules-link")).to_be_hidden()
    page.select_option("#rules", "capsa")
    expect(page.locator("#game-rules-link")).to_have_attribute("href", "/rules/capsa?lang=fil")
    ctx.close()
    assert watch.problems == []


def test_on_a_phone_every_games_rules_fit_in_a_few_screens(browser, server):  # noqa: F811
    width, height = SIZES["phone"]
    ctx = browser.new_context(viewport={"width": width, "height": height},
                              has_touch=True, is_mobile=True)  # fmt: skip
    page = ctx.new_page()
    watch = Watch(page, server.url)
    tallest = 0
    for name in PRESETS:
        for lang in LANGS:
            res = page.goto(f"{server.url.rstrip('/')}/rules/{name}?lang={lang}")
            assert res is not None and res.status == 200
            page.wait_for_selector("h1")
            wide, tall = page.evaluate(
                "[document.documentElement.scrollWidth, document.documentElement.scrollHeight]"
            )
            assert wide <= width, (name, lang, wide)
            assert tall < SCREENS * height, (name, lang, tall)
            tallest = max(tallest, tall)
            for sel in ("#back-link", "#full-rules"):  # both within reach on the screen's width
                box = page.locator(sel).bounding_box()
                assert box is not None and 0 <= box["x"] and box["x"] + box["width"] <= width
            assert page.locator("#back-link").bounding_box()["height"] >= 44
    assert tallest > 2 * height  # measured: the longest (十三水's 13 special hands) is long
    ctx.close()
    assert watch.problems == []
