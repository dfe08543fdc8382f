"""Practice at a table (issue 34, item 2) and the small things a player meets on the way,
in a real browser at a desktop size and a phone size: the showdown row by row in the
table's words, the hint's three suggestions, help that names no key on a touch screen,
a check's place among the settings in plain words, the ruleset's newer keys in its
summary line, and an uploaded ruleset that needs training naming its own file.

The browser, the server and the page helpers are tests/test_web_browser.py's.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.test_web_browser import ROWS, as_symbols, open_page
from tests.test_web_table import DESKTOP, SIZES, catalogue, size, table_page  # noqa: F401

ROOT = Path(__file__).resolve().parent.parent
LANG = {"en-US": "en", "zh-CN": "zh-Hans", "vi-VN": "vi", "id-ID": "id", "fil-PH": "fil"}


def post(page, path: str, body: dict) -> dict:
    """What the server answers the page's own origin (the page's fetch)."""
    return page.evaluate(
        "async ([path, body]) => (await (await fetch(path, {method: 'POST',"
        " headers: {'Content-Type': 'application/json'}, body: JSON.stringify(body)})).json())",
        [path, body],
    )


def practice_hand(page, tap) -> None:
    tap("#tab-practice")
    expect(page.locator("#pool button")).to_have_count(13)
    page.select_option("#policy", "field")  # the check answers at once


@pytest.mark.parametrize("locale", ["en-US", "zh-CN", "vi-VN"])
@pytest.mark.sampled  # tests/sampling.py: every value once by default, all under -m slow
def test_practice_is_a_showdown_row_by_row(browser, server, size, locale):  # noqa: F811
    ctx, page, watch = table_page(browser, server, size, locale)
    tap = page.tap if size[0] < 500 else page.click
    words = catalogue(LANG[locale])
    practice_hand(page, tap)
    tap("#hint")
    expect(page.locator("#pool button")).to_have_count(0)
    tap("#check")
    page.wait_for_selector("#showdown .table-result")
    page.wait_for_selector("#check-result .verdict")
    shown = page.evaluate("state.table")
    dealt = page.evaluate("state.dealt")
    played = " | ".join(page.get_attribute(f'.cards[data-row="{r}"]', "data-cards") for r in ROWS)
    body = {"hand": " ".join(dealt["hand"]), "played": played, "seed": dealt["seed"]}
    body |= {"rules": page.input_value("#rules"), "players": int(page.input_value("#players"))}
    want = post(page, "/api/table", body)
    assert shown == want  # the table the page shows is the server's for this deal
    assert want["seats"][0]["rows"]["front"]["cards"].split() == played.split("|")[0].split()
    seats = page.locator("#showdown .seat[data-units]")
    assert seats.count() == want["players"] - 1
    for i, pair in enumerate(want["pairs"]):
        seat = seats.nth(i)
        assert float(seat.get_attribute("data-units")) == pytest.approx(pair["units"])
        if pair["rows"] is None:
            continue
        for row, sign in zip(ROWS, pair["rows"], strict=True):
            cell = seat.locator(f'tr[data-row="{row}"] td.result')
            word = {1: "table.win", 0: "table.tie", -1: "table.loss"}[sign]
            assert cell.inner_text() == words[word]
        scoop = {"you": words["table.scoopYou"], "them": words["table.scoopThem"]}
        if pair["scoop"]:
            assert scoop[pair["scoop"]] in seat.inner_text()
    total = page.locator("#showdown .table-total")
    assert float(total.get_attribute("data-units")) == pytest.approx(want["units"])
    # the table's unit (issue 53): the game's own word (水, chi), else the language's
    unit_word = words.get(f"unit.{page.input_value('#rules')}", words["unit.generic"])
    assert unit_word in total.inner_text()
    # the next hand beside the result, in the screen
    nxt = page.locator("#showdown .next-hand").bounding_box()
    box = total.bounding_box()
    assert abs(nxt["y"] - box["y"]) < 120 and 0 <= nxt["y"] <= size[1] - nxt["height"]
    score = page.locator("#score .score-table")
    assert float(score.get_attribute("data-units")) == pytest.approx(want["units"])
    page.locator("#showdown .next-hand").click()
    expect(page.locator("#showdown .table-result")).to_have_count(0)
    ctx.close()
    assert watch.problems == []


@pytest.mark.parametrize("locale", ["en-US", "vi-VN"])
@pytest.mark.sampled  # tests/sampling.py: every value once by default, all under -m slow
def test_the_hint_offers_three_suggestions(browser, server, size, locale):  # noqa: F811
    ctx, page, watch = table_page(browser, server, size, locale)
    tap = page.tap if size[0] < 500 else page.click
    practice_hand(page, tap)
    for _ in range(20):  # about 1 deal in 25 has fewer than two other shapes to offer
        hand = page.get_attribute("#pool", "data-cards")
        want = post(page, "/api/solve", {"hand": hand, "rules": page.input_value("#rules"),
                                         "policy": "field", "top": 2})  # fmt: skip
        if len(want["alternatives"]) == 2:
            break
        tap("#deal")
        expect(page.locator("#pool")).not_to_have_attribute("data-cards", hand)
    tap("#hint")
    choices = page.locator("#hint-choices .hint-choice")
    expect(choices).to_have_count(3)
    settings = [want, *want["alternatives"]]
    assert [choices.nth(i).get_attribute("data-setting") for i in range(3)] == [
        " | ".join(s[r] for r in ROWS) for s in settings
    ]
    words = catalogue(LANG[locale])
    assert words["board.suggestion"].replace("{n}", "2") in choices.nth(1).inner_text()
    for i in range(3):
        box = choices.nth(i).bounding_box()
        assert box["height"] >= 44 and box["x"] + box["width"] <= size[0]
    choices.nth(1).click()
    for r in ROWS:
        laid = page.get_attribute(f'.cards[data-row="{r}"]', "data-cards").split()
        assert sorted(laid) == sorted(settings[1][r].split())
    ctx.close()
    assert watch.problems == []


@pytest.mark.parametrize("locale", ["en-US", "zh-CN", "id-ID"])
@pytest.mark.sampled  # tests/sampling.py: every value once by default, all under -m slow
def test_help_on_a_touch_screen_names_no_key(browser, server, size, locale):  # noqa: F811
    ctx, page, watch = table_page(browser, server, size, locale)
    words = catalogue(LANG[locale])
    page.locator("#tab-practice").click()
    help_text = page.inner_text("#board-help")
    if size[0] < 500:  # the phone is a touch screen
        assert help_text == words["board.helpTouch"]
        assert "F, M, B" not in help_text
    else:
        assert help_text == words["board.help"]
    ctx.close()
    assert watch.problems == []


def test_a_checks_place_is_said_plainly(browser, server, size):  # noqa: F811
    ctx, page, watch = table_page(browser, server, size)
    practice_hand(page, page.click)
    for _ in range(20):  # about 1 deal in 130 is a natural best declared: its hint says so
        hand = page.get_attribute("#pool", "data-cards")
        want = post(page, "/api/solve", {"hand": hand, "rules": page.input_value("#rules"),
                                         "policy": "field"})  # fmt: skip
        if want["action"] == "play":
            break
        page.click("#deal")
        expect(page.locator("#pool")).not_to_have_attribute("data-cards", hand)
    page.click("#hint")
    expect(page.locator("#pool button")).to_have_count(0)
    page.click("#check")
    page.wait_for_selector("#check-result .verdict")
    text = page.inner_text("#check-result .ev")
    assert "rank" not in text
    assert "no setting of the" in text and "scored is better" in text  # the hint is the best
    ctx.close()
    assert watch.problems == []


def test_a_naturals_hint_says_to_declare_it(browser, server):  # noqa: F811
    """Six pairs under ``chinese-1-6``: declaring (3 units from each opponent) is worth
    more than any setting played, so the answer's rows are the natural's cards
    (docs/solve.md). The hint lays them and says to declare the natural, naming it; its
    first suggestion is the declaring, named so, not rows to play; and Declare, checked,
    is the advice. Before, the hint said "the best setting is on the board" and Check
    then ranked those rows, played, 100th of 120. One size (``DESKTOP``): the hint's
    words, alike at every width."""
    words = catalogue("en")
    ctx, page, watch = table_page(browser, server, DESKTOP)
    page.select_option("#policy", "field")
    page.click("#tab-check")
    hand = "2h 2s 5c 5d 7h 7s 9h 9s Th Ts Jc Qc Qs"
    want = post(page, "/api/solve", {"hand": hand, "rules": "chinese-1-6", "policy": "field"})
    assert want["action"] == "declare" and want["natural"]["name"] == "six_pairs"
    page.fill("#hand-input", as_symbols(hand))
    page.click("#hint")
    note = page.locator("#hint-note")
    name = words["board.hintDeclare"].split("{name}")
    expect(note).to_contain_text(name[0])
    assert "Six pairs" in note.inner_text() and words["board.hintUsed"] not in note.inner_text()
    first = page.locator("#hint-choices .hint-choice").first
    assert first.get_attribute("data-action") == "declare"
    assert words["board.declareName"].replace("{name}", "Six pairs") in first.inner_text()
    assert first.get_attribute("data-setting") == " | ".join(want[r] for r in ROWS)
    for r in ROWS:  # the natural's cards laid
        laid = page.get_attribute(f'.cards[data-row="{r}"]', "data-cards").split()
        assert sorted(laid) == sorted(want[r].split())
    page.click("#declare")
    verdict = page.locator("#check-result .verdict")
    expect(verdict).to_have_attribute("data-action", "declare")
    expect(verdict).to_have_class(re.compile(r"\bbest\b"))
    ctx.close()
    assert watch.problems == []


def test_the_summary_names_the_newer_keys(browser, server, size):  # noqa: F811
    ctx, page, watch = table_page(browser, server, size)
    words = catalogue("en")
    page.select_option("#rules", "mau-binh-rules")
    summary = page.inner_text("#rules-summary")
    for key in ("rules.royaltyRow", "rules.naturalTies"):
        assert words[key] in summary
    said = words["rules.foulPenalty"].replace("{n}", "3").replace("{unit}", words["unit.generic"])
    assert said in summary
    page.select_option("#rules", "mau-binh")  # docs/rules.md#the-mau-binh-preset
    summary = page.inner_text("#rules-summary")
    for key in ("rules.royaltyRow", "rules.naturalDifference", "rules.equalRows"):
        assert words[key] in summary
    unit = words.get("unit.mau-binh", words["unit.generic"])
    assert words["rules.foulPenalty"].replace("{n}", "6").replace("{unit}", unit) in summary
    page.select_option("#rules", "chinese-1-6")
    summary = page.inner_text("#rules-summary")
    for key in ("rules.royaltyRow", "rules.naturalTies", "rules.royaltiesDealt"):
        assert words[key] not in summary
    ctx.close()
    assert watch.problems == []


def test_an_upload_that_needs_training_names_its_file(browser, server, size):  # noqa: F811
    ctx, page, watch = table_page(browser, server, size)
    page.set_input_files("#rules-file", str(ROOT / "docs" / "examples" / "house.toml"))
    expect(page.locator("#rules-summary")).to_contain_text("capsa train --rules house.toml")
    assert "FILE" not in page.inner_text("#rules-summary")
    ctx.close()
    assert watch.problems == []


@pytest.mark.parametrize("locale", ["en-US", "vi-VN", "zh-CN"])
@pytest.mark.sampled  # tests/sampling.py: every value once by default, all under -m slow
def test_on_a_phone_the_settings_fold_behind_one_line(browser, server, size, locale):  # noqa: F811
    """At phone size the table's settings start folded behind a line naming the game,
    the players and the opponents; the cards are in the first screen; at desktop size
    they are open."""
    width, height = size
    phone = width < 500
    ctx, page, watch = open_page(browser, server, advanced=False, locale=locale,
                                 viewport={"width": width, "height": height},
                                 has_touch=phone, is_mobile=phone)  # fmt: skip
    words = catalogue(LANG[locale])
    settings = page.locator("#table-settings")
    assert settings.evaluate("el => el.open") is (not phone)
    line = page.inner_text("#table-line")
    game = page.evaluate("state.rulesets.get(document.querySelector('#rules').value)")
    assert (game["game"] or game["name"]) in line
    assert words["table.players.other"].replace("{n}", str(game["players"])) in line
    assert words["table.opponentsAre"].split("{who}")[0].strip() in line
    if phone:
        expect(page.locator("#rules")).to_be_hidden()
        box = page.locator("#table-settings > summary").bounding_box()
        assert box["height"] >= 44
        page.tap("#tab-practice")
        expect(page.locator("#pool button")).to_have_count(13)
        last = page.locator("#pool button").last.bounding_box()
        assert last["y"] + last["height"] <= height
        page.tap("#table-settings > summary")
        expect(page.locator("#rules")).to_be_visible()
        page.select_option("#players", "3")
        assert words["table.players.other"].replace("{n}", "3") in page.inner_text("#table-line")
    ctx.close()
    assert watch.problems == []
