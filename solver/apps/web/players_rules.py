"""The players' rules of a game: ``GET /rules/{game}?lang=xx``, one short page per preset
(and the server's default ruleset) in each of the page's languages (docs/serve.md).

Every fact on it is read from the game's ``Rules``: the players and the deck, the wheel,
the suit order, the scoring and its scoop, the bonus rows (royalties) with their units,
the special hands (naturals) with their payouts and how two of them settle, the foul,
surrender, the home run and the code card; a change of a preset changes its page. The
words come from the page's catalogues (``static/i18n/LANG.json``): the hand, natural and
suit names the page already uses, and the ``rules.p.*`` sentences, each language in its
players' words (十三水's 头道 and 打枪, Mậu Binh's binh lủng and sập làng ...). Every
string is escaped. The full specification (``/rules``, docs/rules.md) is one link away.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import quote as url_quote

from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, Response

from solver.engine.inputs import TooLarge, quote, read_bounded
from solver.engine.rule_values import ROWS, fmt_units
from solver.engine.rules import PRESET_GAMES, PRESETS, Rules

__all__ = [
    "LANGUAGES",
    "catalogue",
    "language_of",
    "page_html",
    "players_page",
    "scoring_units",
    "unit_word",
]

STATIC = Path(__file__).parent / "static"
#: The page's languages, as its menu offers them (static/index.html, docs/serve.md).
LANGUAGES: tuple[str, ...] = ("en", "zh-Hans", "zh-Hant", "id", "vi", "fil", "hr", "bn")
LANGUAGE_NAMES = {
    "en": "English", "zh-Hans": "简体中文", "zh-Hant": "繁體中文", "id": "Bahasa Indonesia",
    "vi": "Tiếng Việt", "fil": "Filipino", "hr": "Hrvatski", "bn": "বাংলা",
}  # fmt: skip
#: A catalogue is read up to this size (they are about 30 kB).
MAX_CATALOGUE = 512 * 1024
#: The most of an Accept-Language header that is read.
MAX_ACCEPT = 1000
#: The five-card hands, strongest first (docs/rules.md#five-card-rows).
HANDS = (
    "straight_flush", "four_of_a_kind", "full_house", "flush", "straight",
    "three_of_a_kind", "two_pair", "pair", "high_card",
)  # fmt: skip
#: Each row's name on this page (the players' words: 头道, chi 3 ...).
ROW_KEYS = {"front": "rules.p.front", "middle": "rules.p.middle", "back": "rules.p.back"}


def scoring_units(scoring: str) -> tuple[int, int]:
    """What a scoring system adds to the rows (docs/rules.md#scoring-systems), as the
    settlement kernel pays it: ``(scoop bonus, majority bonus)``; 1-6 pays 3 more for a
    scoop, 2-4 1 more to whoever wins more rows (a scoop too), per-row nothing."""
    return {"per-row": (0, 0), "1-6": (3, 0), "2-4": (0, 1)}[scoring]


@lru_cache(maxsize=len(LANGUAGES))
def catalogue(lang: str) -> dict[str, str]:
    """The page's catalogue of ``lang`` (a language of ``LANGUAGES``), read once."""
    path = STATIC / "i18n" / f"{lang}.json"
    data = json.loads(read_bounded(path, MAX_CATALOGUE, f"catalogue {path.name}").decode("utf-8"))
    if not isinstance(data, dict):
        raise ValueError(f"catalogue {path.name} is not an object of messages")
    return data


#: The languages that mark decimals with a comma (the page's locales: vi-VN, id-ID, hr-HR).
DECIMAL_COMMA = ("vi", "id", "hr")
_FIGURE = re.compile(r"[+\-−]?\d+(?:\.\d+)?")
_BENGALI = str.maketrans("0123456789", "০১২৩৪৫৬৭৮৯")


class Words:
    """A language's messages, filled and escaped: ``w("key", n=3)``."""

    def __init__(self, lang: str, unit: str | None = None) -> None:
        self.lang = lang
        self.messages = catalogue(lang)
        #: the table's unit ({unit}): its players' word, else the language's (unit_word)
        self.unit = self.messages["unit.generic"] if unit is None else unit

    def text(self, key: str, **values: Any) -> str:
        """The message, its {placeholders} filled ({unit}: the table's), its numbers in
        the language's decimal mark and digits (``number``); plain text (not escaped)."""
        text = self.messages[key].replace("{unit}", str(values.pop("unit", self.unit)))
        for name, value in values.items():
            text = text.replace("{" + name + "}", self.number(value))
        return self.digits(text)

    def number(self, value: Any) -> str:
        """A figure (a number, or ``fmt_units``' text of one) as the language writes it:
        a decimal comma in Tiếng Việt, Bahasa Indonesia and hrvatski, Bengali digits in
        বাংলা (as the page's Intl.NumberFormat writes them); any other value as it is."""
        text = str(value)
        if not _FIGURE.fullmatch(text):
            return text
        if self.lang in DECIMAL_COMMA:
            text = text.replace(".", ",")
        return self.digits(text)

    def digits(self, text: str) -> str:
        """``text`` with its digits the language's (০-৯ in বাংলা), else as it is."""
        return text.translate(_BENGALI) if self.lang == "bn" else text

    def __call__(self, key: str, **values: Any) -> str:
        return html.escape(self.text(key, **values))


#: The page's languages by their tags in lower case: a language tag is not case-sensitive
#: (RFC 5646, 2.1.1: ``zh-hans``, ``ZH-HANS`` and ``zh-Hans`` are one tag).
_BY_TAG = {lang.lower(): lang for lang in LANGUAGES}


def language_of(asked: str | None, accept: str | None) -> str | None:
    """The page's language: ``asked`` (``?lang=``, in any case) when given (None when it
    is not one of ``LANGUAGES``), else the first of Accept-Language the page speaks (as
    the page picks it from the browser: zh-TW/HK/MO and Hant traditional, tl Filipino),
    else English. An empty ``?lang=`` is no ``lang``."""
    if asked is not None and asked.strip():
        return _BY_TAG.get(asked.strip().lower())
    for part in (accept or "")[:MAX_ACCEPT].split(","):
        tag = part.split(";")[0].strip().lower()
        if tag.startswith("zh"):
            return "zh-Hant" if any(x in tag for x in ("hant", "-tw", "-hk", "-mo")) else "zh-Hans"
        found = next((lang for lang, prefixes in _PREFIXES if tag.startswith(prefixes)), None)
        if found:
            return found
    return "en"


_PREFIXES = (("id", ("id", "in")), ("vi", ("vi",)), ("fil", ("fil", "tl")), ("hr", ("hr",)),
             ("bn", ("bn",)), ("en", ("en",)))  # fmt: skip


# --------------------------------------------------------------------------- sections


def _p(*sentences: str) -> str:
    """Paragraphs, each starting with a capital (a row's or a bonus's name may start it)."""
    return "".join(f"<p>{s[:1].upper()}{s[1:]}</p>" for s in sentences if s)


def _deal(r: Rules, w: Words, rows: dict[str, str]) -> str:
    foul = (
        w("rules.p.foulFlat", n=fmt_units(r.foul_penalty))
        if r.foul_penalty is not None
        else w("rules.p.foul")
    )
    return f"<h2>{w('rules.p.h.deal')}</h2>" + _p(
        w("rules.p.deal", players=r.players, cards=r.deck.size, **rows),
        w("rules.p.order", **rows),
        foul + (" " + w("rules.p.equalRowsFoul") if r.equal_rows_foul else ""),
    )


def _hands(r: Rules, w: Words, rows: dict[str, str]) -> str:
    items = "".join(f"<li>{w('hand.' + h)}</li>" for h in HANDS)
    wheel = w("rules.p.wheelSecond") if r.wheel == "second" else w("rules.p.wheelLow")
    if r.suit_order:
        order = " > ".join(w.text("suit." + s) for s in r.suit_order)
        suits = w("rules.p.suits", order=order)
    else:
        suits = w("rules.p.noSuits")
    return f'<h2>{w("rules.p.h.hands")}</h2><ol class="hands">{items}</ol>' + _p(
        w("rules.p.frontHands", **rows), wheel, suits
    )


def _scoring(r: Rules, w: Words) -> str:
    scoop_bonus, majority = scoring_units(r.scoring)
    scoop = w.text("glossary.scoop")
    plain = 3 + scoop_bonus + majority  # three plain rows won, with the scoring's bonus
    lines = [w("rules.p.rows")]
    if scoop_bonus:
        lines.append(w("rules.p.bonus16", scoop=scoop, bonus=scoop_bonus, total=plain))
    elif majority:
        two = 2 - 1 + majority
        lines.append(w("rules.p.bonus24", scoop=scoop, bonus=majority, two=two, total=plain))
    if r.scoop_multiplier != 1:
        total = fmt_units(plain * r.scoop_multiplier)
        lines.append(w("rules.p.scoopX", scoop=scoop, n=fmt_units(r.scoop_multiplier), total=total))
    elif not (scoop_bonus or majority or r.scoop_bonus):
        lines.append(w("rules.p.noScoopBonus", scoop=scoop, total=plain))
    if r.scoop_bonus:  # docs/rules.md#the-bankers-table: a scoop's added units
        total = fmt_units(plain * r.scoop_multiplier + r.scoop_bonus)
        lines.append(w("rules.p.scoopAdd", scoop=scoop, n=fmt_units(r.scoop_bonus), total=total))
    if r.banker:
        lines.append(w("rules.p.banker"))
    if r.pair_cap is not None:
        lines.append(w("rules.p.pairCap", scoop=scoop, n=fmt_units(r.pair_cap)))
    if r.home_run:
        m, n = r.home_run_min_opponents, fmt_units(r.home_run_multiplier)
        lines.append(w("rules.p.homeRun", m=m, n=n))
    if r.code_card is not None:
        card = r.code_card[0] + "♣♦♥♠"["cdhs".index(r.code_card[1])]
        lines.append(w("rules.p.codeCard", card=card, n=fmt_units(r.code_card_multiplier)))
    return f"<h2>{w('rules.p.h.score')}</h2>" + _p(*lines)


def _table(head: tuple[str, ...], rows: Sequence[tuple[str, ...]], cls: str) -> str:
    """A table: the last column the units (right-aligned)."""
    th = "".join(f"<th>{h}</th>" for h in head)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
    return f'<table class="{cls}"><thead><tr>{th}</tr></thead><tbody>{body}</tbody></table>'


def _bonus_rows(r: Rules, w: Words, rows: dict[str, str]) -> str:
    head = f"<h2>{w('rules.p.h.bonus')}</h2>"
    if not r.royalties:
        return head + _p(w("rules.p.noBonus"))
    if r.royalty_replaces_row:
        lines = [w("rules.p.bonusWhole")]
    elif r.royalty_mode == "always":
        lines = [w("rules.p.bonusAlways")]
    else:
        lines = [w("rules.p.bonusWinner")]
    if r.royalty_mode == "cancel":
        lines.append(w("rules.p.bonusCancel"))
    if r.one_royalty_per_hand:
        lines.append(w("rules.oneRoyalty"))
    if r.royalties_dealt:
        lines.append(w("rules.royaltiesDealt"))
    table = [
        (html.escape(rows[row]), w("hand." + hand), w.number(fmt_units(units)))
        for row in ROWS
        for rr, hand, units in r.royalties
        if rr == row
    ]
    heads = (w("rules.p.colRow"), w("rules.p.colHand"), w("rules.p.colUnits"))
    return head + _p(*lines) + _table(heads, table, "bonus-rows")


def _naturals(r: Rules, w: Words) -> str:
    head = f"<h2>{w('rules.p.h.naturals')}</h2>"
    if not r.naturals:
        return head + _p(w("rules.p.noNaturals"))
    ties = w(
        {"payout": "rules.p.natPayout", "difference": "rules.p.natDifference"}.get(
            r.natural_ties, "rules.p.natOrder"
        )
    )
    table = [
        (
            f"<b>{w('natural.' + name)}</b><br><small>{w(f'rules.p.nat.{name}')}</small>",
            w.number(fmt_units(units)),
        )
        for name, units in r.naturals
    ]  # each special hand by its name, and what it is (rules.p.nat.NAME)
    heads = (w("rules.p.colHand"), w("rules.p.colUnits"))
    return head + _p(w("rules.p.naturals"), ties) + _table(heads, table, "naturals")


def _surrender(r: Rules, w: Words) -> str:
    if r.surrender_cost is None:
        line = w("rules.p.noSurrender")
    else:
        line = w("rules.p.surrender", n=fmt_units(r.surrender_cost))
    return f"<h2>{w('rules.p.h.surrender')}</h2>" + _p(line)


# --------------------------------------------------------------------------- the page


def game_title(r: Rules, w: Words) -> str:
    """What players of the language call the game (a preset's ``rules.p.game.NAME``),
    else the ruleset's name; plain text."""
    if PRESETS.get(r.name) == r:
        key = f"rules.p.game.{r.name}"
        return w.text(key) if key in w.messages else PRESET_GAMES[r.name]
    return r.name


def unit_word(r: Rules, lang: str) -> str:
    """The table's unit in ``lang``, as its players count it: a preset's own word
    (``unit.NAME``: 水 at 十三水 in 中文, chi at Mậu Binh in Tiếng Việt), else the
    language's word for a unit (``unit.generic``); the page's app.js chooses the same."""
    messages = catalogue(lang)
    key = f"unit.{r.name}"
    if PRESETS.get(r.name) == r and key in messages:
        return messages[key]
    return messages["unit.generic"]


def page_html(r: Rules, lang: str) -> str:
    """The players' page of ruleset ``r`` in ``lang`` (one of ``LANGUAGES``)."""
    w = Words(lang, unit_word(r, lang))
    rows = {row: w.text(key) for row, key in ROW_KEYS.items()}
    title = html.escape(w.text("rules.p.title", game=game_title(r, w)))
    name = html.escape(r.name)
    path = html.escape("/rules/" + url_quote(r.name, safe=""))
    langs = " · ".join(
        f'<a href="{path}?lang={code}" hreflang="{code}" lang="{code}"'
        + (' aria-current="page"' if code == lang else "")
        + f">{html.escape(LANGUAGE_NAMES[code])}</a>"
        for code in LANGUAGES
    )
    body = (
        _p(w("rules.p.intro"))
        + _deal(r, w, rows)
        + _hands(r, w, rows)
        + _scoring(r, w)
        + _bonus_rows(r, w, rows)
        + _naturals(r, w)
        + _surrender(r, w)
    )
    return (
        f'<!doctype html>\n<html lang="{html.escape(lang)}">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{title}</title>\n"
        '<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">\n'
        '<link rel="stylesheet" href="/static/style.css">\n</head>\n'
        f'<body class="rules-page players-rules" data-game="{name}">\n'
        '<header class="players-top"><div class="top"><div class="brand">'
        '<span class="logo" aria-hidden="true">♠</span> capsa</div>'
        f'<div class="top-links"><a href="/" id="back-link">← {w("rules.p.backLink")}</a></div>'
        "</div></header>\n"
        f'<main class="rules-text">\n<h1>{title}</h1>\n{body}\n'
        f'<p class="full"><a href="/rules" id="full-rules">{w("glossary.more")}</a></p>\n'
        f'<nav class="langs" aria-label="{w("lang.label")}">{langs}</nav>\n'
        "</main>\n</body>\n</html>\n"
    )


def _not_found(message: str) -> Response:
    return PlainTextResponse(message + "\n", status_code=404)


async def players_page(request: Request) -> Response:
    """``GET /rules/{game}``: the players' page of a preset (or of the server's default
    ruleset) in ``?lang=`` or the browser's language; 404 and one line otherwise."""
    game = request.path_params["game"]
    catalog = request.app.state.web.catalog
    default = catalog.default
    rules = PRESETS.get(game) or (default if game == default.name else None)
    if rules is None:
        games = ", ".join(dict.fromkeys([default.name, *PRESETS]))
        return _not_found(f"no such game: {quote(game[:80])}; the games are {games}")
    lang = language_of(request.query_params.get("lang"), request.headers.get("accept-language"))
    if lang is None:
        asked = quote(request.query_params["lang"][:40])
        return _not_found(f"no such language: {asked}; the languages are {', '.join(LANGUAGES)}")
    try:
        page = page_html(rules, lang)
    except TooLarge as exc:  # a catalogue past its bound: the install is broken
        return PlainTextResponse(f"{exc}\n", status_code=500)
    return HTMLResponse(page, headers={"Cache-Control": "no-cache", "Content-Language": lang})
