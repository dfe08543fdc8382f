"""A typed hand never changes meaning silently (issue 53, item 9), in a real browser at a
desktop size (1280 × 900) and a phone size (375 × 812). In Tiếng Việt the suit letters
are b ♠, c ♥ (cơ), r ♦, t ♣, but many players type the English ones, where c is ♣: a
hand written in English letters (s, h, d) is read as English and the read line says how
its c was read, in the page's letters and symbols; a hand mixing both ways is refused in
one line; an error writes a card in the page's own letters.

The browser, the server and the page helpers are tests/test_web_browser.py's.
"""

from __future__ import annotations

from tests.test_web_browser import HAND
from tests.test_web_table import catalogue, size, table_page  # noqa: F401

VI_LETTER = {"s": "b", "h": "c", "d": "r", "c": "t"}  # docs/serve.md#cards
SYMBOL = {"s": "♠", "h": "♥", "d": "♦", "c": "♣"}
ORDER = "23456789TJQKA"


def _sorted(cards: str) -> str:
    """Cards as the page keeps them (#picked's data-cards): highest first, s > h > d > c."""
    return " ".join(sorted(cards.split(), key=lambda c: (ORDER.index(c[0]), "cdhs".index(c[1])),
                           reverse=True))  # fmt: skip


def _vi(cards: str) -> str:
    return " ".join(c[0].replace("T", "10") + VI_LETTER[c[1]] for c in cards.split())


def _symbols(cards: str) -> str:
    return " ".join(c[0].replace("T", "10") + SYMBOL[c[1]] for c in cards.split())


def _typed(page, text: str) -> None:
    page.fill("#hand-input", text)
    page.dispatch_event("#hand-input", "input")


def test_a_hand_in_english_letters_is_read_as_english_and_said_so(browser, server, size):  # noqa: F811
    vi = catalogue("vi")
    ctx, page, watch = table_page(browser, server, size, "vi-VN")
    trap = HAND.upper()  # "AS KS … 9H 9D 9C … 4C": the hand
    _typed(page, trap)
    assert page.get_attribute("#picked", "data-cards") == _sorted(HAND)  # 9♣ and 4♣, not ♥
    assert page.get_attribute("#hand-status", "data-ok") == "true"
    read = page.inner_text("#hand-read")
    # what was read: in the page's letters (9t: tép) and in symbols, and how c was read
    assert _vi(HAND) in read and _symbols(HAND) in read, read
    note = vi["hand.readEnglish"].replace("{letter}", "c").replace("{suit}", "♣")
    assert note.split("(")[0] in read, read
    # the same letter in a hand written the Vietnamese way: cơ, and said so
    _typed(page, _vi(HAND))
    assert page.get_attribute("#picked", "data-cards") == _sorted(HAND)
    read = page.inner_text("#hand-read")
    assert vi["hand.readOwn"].replace("{letter}", "c").replace("{suit}", "♥").split("(")[0] in read
    ctx.close()
    assert watch.problems == []


def test_a_mixed_hand_is_refused_and_errors_use_the_pages_letters(browser, server, size):  # noqa: F811
    vi = catalogue("vi")
    ctx, page, watch = table_page(browser, server, size, "vi-VN")
    mixed = "Ab Kb Qb Jb 10b 9h 9r 9c 2s 3r 4t 5c 7r"  # b, r, t and s, h: which is c?
    _typed(page, mixed)
    said = (vi["hand.ambiguous"].replace("{letter}", "c").replace("{own}", "♥")
            .replace("{english}", "♣"))  # fmt: skip
    assert page.inner_text("#hand-status") == said
    assert page.get_attribute("#hand-status", "data-ok") == "false"
    # a card twice: written as the page writes it (Ab, A♠), never in English letters (As)
    _typed(page, "Ab Ab Kb Qb Jb 10b 9c 9r 9t 2b 3r 4t 5c")
    status = page.inner_text("#hand-status")
    assert status == vi["hand.duplicate"].replace("{card}", "Ab (A♠)"), status
    # Check's typed setting: English letters read as English there too, and said so
    page.click("#tab-check")
    _typed(page, _vi(HAND))
    rows = ("2S 3D 4C", "AS KS QS JS 7D", "9H 9D 9C TS 5H")
    page.fill("#played-input", " | ".join(rows))
    page.dispatch_event("#played-input", "input")
    status = page.inner_text("#played-status")
    assert page.get_attribute("#played-status", "data-ok") == "true", status
    assert "4♣" in status and "9♣" in status and "9♥" in status
    assert vi["hand.readEnglish"].split("{letter}")[1].split("{suit}")[0] in status
    ctx.close()
    assert watch.problems == []
