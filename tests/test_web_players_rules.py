"""The players' rules of each game (``GET /rules/{game}?lang=xx``,
solver/apps/web/players_rules.py): for every preset in every language of the page, the
preset's own numbers read from its Rules, in the words of that language's catalogue,
escaped; an unknown game or language is a 404 of one line."""

from __future__ import annotations

import dataclasses
import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from solver.apps.web import create_app
from solver.apps.web import players_rules as pr
from solver.engine.rule_values import fmt_units
from solver.engine.rules import PRESETS, Rules

I18N = Path(__file__).resolve().parent.parent / "solver" / "apps" / "web" / "static" / "i18n"
LANGS = ("en", "zh-Hans", "zh-Hant", "id", "vi", "fil", "hr", "bn")
HANDS = ("straight_flush", "four_of_a_kind", "full_house", "flush", "straight",
         "three_of_a_kind", "two_pair", "pair", "high_card")  # fmt: skip


def catalogue(lang: str) -> dict[str, str]:
    return json.loads((I18N / f"{lang}.json").read_text(encoding="utf-8"))


#: Bengali digits: a বাংলা page writes its numbers in them (issue 53).
BENGALI = str.maketrans("0123456789", "০১২৩৪৫৬৭৮৯")


def local(text: str, lang: str) -> str:
    """``text`` with the language's digits, as its page writes every number."""
    return text.translate(BENGALI) if lang == "bn" else text


def fill(text: str, **values: object) -> str:
    for k, v in values.items():
        text = text.replace("{" + k + "}", str(v))
    return text


class Page(HTMLParser):
    """A players' page read back: its text, its tables' cells, its list, its links."""

    def __init__(self, source: str) -> None:
        super().__init__()
        self.text: list[str] = []
        self.tables: dict[str, list[list[str]]] = {}
        self.items: list[str] = []
        self.links: dict[str, str] = {}
        self._table: str | None = None
        self._cell: list[str] | None = None
        self._row: list[str] = []
        self._li: list[str] | None = None
        self._a: tuple[str, list[str]] | None = None
        self.feed(source)

    def handle_starttag(self, tag, attrs):  # noqa: ANN001
        a = dict(attrs)
        if tag == "table":
            self._table = a["class"]
            self.tables[self._table] = []
        elif tag == "tr":
            self._row = []
        elif tag in ("td", "th"):
            self._cell = []
        elif tag == "li":
            self._li = []
        elif tag == "a" and "id" in a:
            self._a = (a["id"], [a["href"]])

    def handle_endtag(self, tag):  # noqa: ANN001
        if tag in ("td", "th") and self._cell is not None:
            self._row.append("".join(self._cell))
            self._cell = None
        elif tag == "tr" and self._table:
            self.tables[self._table].append(self._row)
        elif tag == "table":
            self._table = None
        elif tag == "li" and self._li is not None:
            self.items.append("".join(self._li))
            self._li = None
        elif tag == "a" and self._a is not None:
            self.links[self._a[0]] = self._a[1][0]
            self._a = None

    def handle_data(self, data):  # noqa: ANN001
        self.text.append(data)
        for part in (self._cell, self._li):
            if part is not None:
                part.append(data)

    @property
    def all_text(self) -> str:
        return "".join(self.text)


@pytest.fixture(scope="module")
def client():
    with TestClient(create_app()) as c:
        yield c


def capital(text: str) -> str:
    """A paragraph as the page starts it: with a capital ("chi 1 phải ..." -> "Chi 1 ...")."""
    return text[:1].upper() + text[1:]


def unit_of(name: str, cat: dict[str, str]) -> str:
    """The table's unit: the game's own word in the language (水 at 十三水 in 中文), else
    the language's word for a unit."""
    return cat.get(f"unit.{name}", cat["unit.generic"])


def sentences(r: Rules, cat: dict[str, str]) -> list[str]:
    """The sentences a page of ``r`` must hold, filled from ``r``'s own fields (the
    amounts in the table's unit), each a paragraph."""
    return [capital(fill(s, unit=unit_of(r.name, cat))) for s in _sentences(r, cat)]


def _sentences(r: Rules, cat: dict[str, str]) -> list[str]:
    rows = {row: cat[f"rules.p.{row}"] for row in ("front", "middle", "back")}
    out = [
        fill(cat["rules.p.deal"], players=r.players, cards=r.deck.size, **rows),
        fill(cat["rules.p.order"], **rows),
        cat["rules.p.wheelSecond" if r.wheel == "second" else "rules.p.wheelLow"],
    ]
    if r.foul_penalty is not None:
        out.append(fill(cat["rules.p.foulFlat"], n=fmt_units(r.foul_penalty)))
        if r.equal_rows_foul:  # docs/rules.md#equal-rows-foul
            out.append(cat["rules.p.equalRowsFoul"])
    else:
        out.append(cat["rules.p.foul"])
    if r.suit_order:
        order = " > ".join(cat[f"suit.{s}"] for s in r.suit_order)
        out.append(fill(cat["rules.p.suits"], order=order))
    else:
        out.append(cat["rules.p.noSuits"])
    if r.surrender_cost is not None:
        out.append(fill(cat["rules.p.surrender"], n=fmt_units(r.surrender_cost)))
    else:
        out.append(cat["rules.p.noSurrender"])
    if r.home_run:
        n, m = fmt_units(r.home_run_multiplier), r.home_run_min_opponents
        out.append(fill(cat["rules.p.homeRun"], n=n, m=m))
    scoop, majority = pr.scoring_units(r.scoring)  # the settlement's (tested below)
    plain, word = 3 + scoop + majority, cat["glossary.scoop"]
    if scoop:
        out.append(fill(cat["rules.p.bonus16"], scoop=word, bonus=scoop, total=plain))
    if majority:
        two = 2 - 1 + majority
        out.append(fill(cat["rules.p.bonus24"], scoop=word, bonus=majority, two=two, total=plain))
    if r.scoop_multiplier != 1:
        n, total = fmt_units(r.scoop_multiplier), fmt_units(plain * r.scoop_multiplier)
        out.append(fill(cat["rules.p.scoopX"], scoop=word, n=n, total=total))
    if r.scoop_bonus:  # docs/rules.md#the-bankers-table: what the settlement adds (below)
        total = fmt_units(plain * r.scoop_multiplier + r.scoop_bonus)
        n = fmt_units(r.scoop_bonus)
        out.append(fill(cat["rules.p.scoopAdd"], scoop=word, n=n, total=total))
    if r.banker:
        out.append(cat["rules.p.banker"])
    if r.pair_cap is not None:
        out.append(fill(cat["rules.p.pairCap"], scoop=word, n=fmt_units(r.pair_cap)))
    if r.naturals:
        ties = {"payout": "rules.p.natPayout", "difference": "rules.p.natDifference"}.get(
            r.natural_ties, "rules.p.natOrder"
        )
        out.append(cat[ties])
    return out


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("name", list(PRESETS))
def test_every_game_has_its_rules_in_every_language(client, name, lang):
    r, cat = PRESETS[name], catalogue(lang)
    res = client.get(f"/rules/{name}", params={"lang": lang})
    assert res.status_code == 200, res.text
    assert res.headers["content-type"].startswith("text/html")
    assert res.headers["content-language"] == lang
    assert "default-src 'self'" in res.headers["content-security-policy"]
    assert f'<html lang="{lang}">' in res.text
    page = Page(res.text)
    text = page.all_text
    title = fill(cat["rules.p.title"], game=cat[f"rules.p.game.{name}"])
    assert local(title, lang) in text
    # the amounts in the table's unit (issue 53): the column of units is headed by it
    unit = unit_of(name, cat)
    assert local(fill(cat["rules.p.intro"], unit=unit), lang) in text
    for table in page.tables.values():
        assert table[0][-1] == unit, (name, lang, table[0])
    for sentence in sentences(r, cat):
        assert local(sentence, lang) in text, (name, lang, sentence)
    # the hands by the language's names, strongest first
    assert page.items == [cat[f"hand.{h}"] for h in HANDS]
    # the bonus rows: each royalty line of the preset, its row, hand and units
    rows = {row: cat[f"rules.p.{row}"] for row in ("front", "middle", "back")}
    if r.royalties:
        want = [[local(x, lang) for x in (rows[row], cat[f"hand.{hand}"], fmt_units(u))]
                for row, hand, u in r.royalties]  # fmt: skip
        assert page.tables["bonus-rows"][1:] == want
        whole = "rules.p.bonusWhole" if r.royalty_replaces_row else "rules.p.bonusWinner"
        assert local(cat[whole], lang) in text
    else:
        assert "bonus-rows" not in page.tables
        assert local(cat["rules.p.noBonus"], lang) in text
    # the special hands: each natural of the preset, strongest first, and what it pays
    if r.naturals:
        # each by its name and what it is
        want = [
            [local(cat[f"natural.{n}"] + cat[f"rules.p.nat.{n}"], lang), local(fmt_units(u), lang)]
            for n, u in r.naturals
        ]
        assert page.tables["naturals"][1:] == want
    else:
        assert cat["rules.p.noNaturals"] in text
    # nothing left untranslated or unfilled; the way back and the full specification
    assert not re.search(
        r"\{[a-z_]+\}|rules\.p\.|\b(?:hand|natural|suit|glossary)\.[a-z_]{2,}", text
    )
    if lang != "en":
        english = catalogue("en")
        assert english["rules.p.h.hands"] not in text and english["rules.p.rows"] not in text
    assert page.links["back-link"] == "/" and page.links["full-rules"] == "/rules"
    assert cat["glossary.more"] in text


def test_the_scoop_in_the_page_is_what_the_settlement_pays():
    """``scoring_units`` is the settlement kernel's: a scoop and a two-to-one win of
    plain rows (no royalty, no natural) settle as the page says under every preset."""
    from solver.engine.settlement import settle

    a = "Kc Kd 2h | Ac Ad 3h 3s 4c | 5c 6d 7h 8s 9c"  # pair, two pair, straight
    b = "Qc Qd 2s | Kh Ks 4d 4h 5d | 2d 3c 4s 5h 6s"  # each row lower
    b21 = "Kc Kd 2s | Kh Ks 4d 4h 5d | 2d 3c 4s 5h 6s"  # a higher front
    a21 = "Qc Qd 2h | Ac Ad 3h 3s 4c | 5c 6d 7h 8s 9c"
    for name, r in PRESETS.items():
        scoop, majority = pr.scoring_units(r.scoring)
        want = (3 + scoop + majority) * r.scoop_multiplier + r.scoop_bonus
        assert settle(a, b, r) == want, name
        assert settle(a21, b21, r) == 2 - 1 + majority, name


def test_a_changed_ruleset_changes_its_page():
    base = PRESETS["mau-binh"]
    house = dataclasses.replace(
        base, name="house", foul_penalty=7, surrender_cost=None, scoop_multiplier=5,
        royalties=(("front", "three_of_a_kind", 11),), naturals=(("dragon", 99),),
    )  # fmt: skip
    page = Page(pr.page_html(house, "vi"))
    cat = catalogue("vi")
    unit = cat["unit.generic"]  # a house ruleset, no game's own word: the language's
    assert fill(cat["rules.p.foulFlat"], n=7, unit=unit) in page.all_text
    assert page.tables["bonus-rows"][1:] == [
        [cat["rules.p.front"], cat["hand.three_of_a_kind"], "11"]
    ]
    assert page.tables["naturals"][1:] == [
        [cat["natural.dragon"] + cat["rules.p.nat.dragon"], "99"]
    ]
    scooped = capital(
        fill(cat["rules.p.scoopX"], scoop=cat["glossary.scoop"], n=5, total=15, unit=unit)
    )
    assert scooped in page.all_text  # three plain rows, scooped: 3 x 5
    assert cat["rules.p.noSurrender"] in page.all_text


def test_everything_on_the_page_is_escaped(monkeypatch):
    evil = "<script>alert(1)</script>&"
    cat = {
        k: v + evil if not k.startswith("rules.p.game") else v for k, v in catalogue("en").items()
    }
    monkeypatch.setattr(pr, "catalogue", lambda lang: cat)
    r = dataclasses.replace(PRESETS["chinese-1-6"], name='a"<u>')
    source = pr.page_html(r, "en")
    assert "<script>" not in source and "<u>" not in source
    assert "&lt;script&gt;alert(1)&lt;/script&gt;&amp;" in source
    assert "a&quot;&lt;u&gt;" in source
    assert evil in Page(source).all_text


def test_the_language_comes_from_the_browser_when_not_asked(client):
    for header, lang in (
        ("zh-TW,zh;q=0.9", "zh-Hant"),
        ("zh-CN", "zh-Hans"),
        ("vi-VN,vi;q=0.9,en;q=0.5", "vi"),
        ("tl", "fil"),
        ("de-DE,hr;q=0.8", "hr"),
        ("de-DE", "en"),
    ):
        res = client.get("/rules/capsa", headers={"accept-language": header})
        assert res.status_code == 200 and res.headers["content-language"] == lang, header
    assert client.get("/rules/capsa").headers["content-language"] == "en"


def test_an_unknown_game_or_language_is_a_404_of_one_line(client):
    for path, said in (
        ("/rules/poker", "no such game: 'poker'; the games are chinese-1-6, chinese-2-4"),
        ("/rules/capsa?lang=xx", "no such language: 'xx'; the languages are en, zh-Hans"),
        ("/rules/capsa?lang=" + "<i>" * 50, "no such language:"),
        ("/rules/%3Cscript%3E", "no such game: '<script>'"),
    ):
        res = client.get(path)
        assert res.status_code == 404, path
        assert res.headers["content-type"].startswith("text/plain")
        assert said in res.text and res.text.count("\n") == 1 and "Traceback" not in res.text
        assert len(res.text) < 300


def test_the_servers_own_default_has_its_page():
    r = dataclasses.replace(PRESETS["pusoy"], name="house", surrender_cost=5)
    with TestClient(create_app(r)) as c:
        res = c.get("/rules/house", params={"lang": "fil"})
        assert res.status_code == 200
        fil = catalogue("fil")  # a house ruleset: the language's word for a unit
        assert (
            fill(fil["rules.p.surrender"], n=5, unit=fil["unit.generic"]) in Page(res.text).all_text
        )
        assert "Paano laruin ang house" in res.text
        assert c.get("/rules/pusoy").status_code == 200


@pytest.mark.parametrize("lang", LANGS)
def test_the_rules_no_preset_plays_are_told_too(lang):
    """A house ruleset's page (the server's default may be one): the code card, royalty
    modes cancel and always, one royalty a hand, royalties for the cards dealt, a
    multiplied scoop on 1-6, in the language's words."""
    cat, base = catalogue(lang), PRESETS["chinese-1-6"]
    word = cat["glossary.scoop"]
    cases = (
        ({"code_card": "8h", "code_card_multiplier": 3},
         fill(cat["rules.p.codeCard"], card="8♥", n=3)),
        ({"royalty_mode": "cancel"}, cat["rules.p.bonusCancel"]),
        ({"royalty_mode": "always"}, cat["rules.p.bonusAlways"]),
        ({"one_royalty_per_hand": True}, cat["rules.oneRoyalty"]),
        ({"royalties_dealt": True}, cat["rules.royaltiesDealt"]),
        ({"scoop_multiplier": 2}, fill(cat["rules.p.scoopX"], scoop=word, n=2, total=12)),
        ({"scoring": "per-row", "surrender_cost": None},
         fill(cat["rules.p.noScoopBonus"], scoop=word, total=3)),
    )  # fmt: skip
    for fields, said in cases:
        r = dataclasses.replace(base, name="house", **fields)
        said = fill(said, unit=cat["unit.generic"])  # a house ruleset: the language's unit
        assert local(capital(said), lang) in Page(pr.page_html(r, lang)).all_text, fields


@pytest.mark.parametrize(("lang", "written"), [("en", "1.5"), ("vi", "1,5"), ("hr", "1,5"),
                                               ("bn", "১.৫")])  # fmt: skip
def test_a_fraction_is_written_as_the_language_writes_it(lang, written):
    """A house ruleset's surrender at 1.5 units: the decimal mark and the digits are the
    language's, as the page's own figures are (issue 53)."""
    cat = catalogue(lang)
    r = dataclasses.replace(PRESETS["chinese-1-6"], name="house", surrender_cost=1.5)
    said = capital(fill(cat["rules.p.surrender"], n=written, unit=cat["unit.generic"]))
    assert said in Page(pr.page_html(r, lang)).all_text
