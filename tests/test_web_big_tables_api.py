"""The web API at five and six players (issue #31): the rulesets say how many they seat,
POST /api/table seats the preset's bigger table and settles it as the oracle does
(tests/reference.py, the home run over 4 and 5 opponents), /api/deal deals the seated
table's deck, /api/rows and /api/natural read hands holding both copies of a card.
Starlette's TestClient, in process.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from starlette.testclient import TestClient

from evaluator import format_cards
from solver.apps.web import create_app
from solver.engine.rules import PRESETS
from solver.engine.seating import seated
from tests import reference as ref
from tests.test_big_tables import deal, some_setting

#: (extra_suits, players): the shisanshui preset's bigger tables.
TABLES = [("h", 5), ("hc", 6)]


@pytest.fixture(scope="module")
def client():
    with TestClient(create_app()) as c:
        yield c


def test_each_ruleset_says_how_many_players_it_seats(client):
    """shisanshui seats 2 to 6 (65 cards at five, 78 at six), every other preset 2 to 4;
    the global table shape keeps its bounds for the pages that read it."""
    data = client.get("/api/rules").json()
    by_name = {r["name"]: r for r in data["rulesets"]}
    shi = by_name["shisanshui"]
    assert shi["max_players"] == 6
    assert shi["decks"] == {"2": "", "3": "", "4": "", "5": "h", "6": "hc"}
    for name in ("chinese-1-6", "capsa", "mau-binh", "pusoy"):
        assert by_name[name]["max_players"] == 4, name
        assert by_name[name]["decks"] == {"2": "", "3": "", "4": ""}, name
    assert (data["table"]["min_players"], data["table"]["max_players"]) == (2, 4)
    # an uploaded ruleset that adds a suit itself seats what its deck deals
    toml = 'base = "chinese-1-6"\nextra_suits = "h"\nplayers = 5\n'
    told = client.post("/api/rules", json={"rules": toml})
    assert told.status_code == 200, told.text
    assert told.json()["max_players"] == 5 and told.json()["decks"]["5"] == "h"


def _opponent_entry(seat: dict, deck: ref.RefDeck, rules) -> object:
    """What a seat of the answer showed, as the oracle takes it (deck ids with copies)."""
    if seat["action"] == "surrender":
        return ref.SURRENDER
    if seat["action"] == "declare":
        found = ref.ref_naturals(deck.cards(seat["cards"]), rules)
        assert found and found[0][0] == seat["natural"]["name"]
        return ("declare", found[0])
    ids = deck.cards(" ".join(seat["rows"][r]["cards"] for r in ("front", "middle", "back")))
    return ids[:3], ids[3:8], ids[8:]


@pytest.mark.parametrize(("extra", "players"), TABLES)
def test_the_practice_table_at_five_and_six_is_the_oracles(client, extra, players):
    """A hand holding both copies of two cards, set and played at the preset's table of
    5 and 6: the opponents are dealt from that deck (their cards and the player's no more
    often than it holds them), the answer's units are settle_table's and the oracle's
    seat by seat, the pairs add up to them, the home run is the oracle's."""
    rules = seated(PRESETS["shisanshui"], players)
    deck = ref.RefDeck(extra)
    rng = np.random.default_rng(50 + players)
    homeruns = 0
    for t in range(40):
        mine = deal(extra, players, rng)[0]
        played = some_setting(mine, rng, rules, legal=t % 4 != 3)
        body = {"hand": format_cards(mine, extra), "rules": "shisanshui", "players": players,
                "played": " | ".join(format_cards(r, extra) for r in played), "seed": t,
                "opponents": "greedy" if t % 2 else "field"}  # fmt: skip
        got = client.post("/api/table", json=body)
        assert got.status_code == 200, got.text
        d = got.json()
        assert (d["rules"], d["players"], len(d["seats"])) == (f"shisanshui-{players}", players,
                                                              players)  # fmt: skip
        held = Counter(c for s in d["seats"] for c in s["cards"].split())
        assert all(n <= (2 if c[1] in extra else 1) for c, n in held.items())
        assert sum(held.values()) == 13 * players
        assert Counter(d["seats"][0]["cards"].split()) == Counter(body["hand"].split())
        entries = [played, *(_opponent_entry(s, deck, rules) for s in d["seats"][1:])]
        want = ref.ref_settle_table(entries, rules)
        assert [s["units"] for s in d["seats"]] == pytest.approx(want, abs=1e-9)
        assert d["units"] == pytest.approx(want[0], abs=1e-9)
        assert sum(p["units"] for p in d["pairs"]) == pytest.approx(d["units"], abs=1e-9)
        home = ref._home_run_player([ref._table_entry(e, rules) for e in entries], rules)
        assert d["home_run"] == home
        homeruns += home is not None
    assert homeruns >= 1  # the home run over 4 or 5 opponents is among them


def test_a_copy_too_many_is_refused_naming_the_card(client):
    """Both copies of A♥ are a hand at five; a third, or a second A♠ (a suit dealt once),
    is refused with 422 naming the card; at four players (52 cards) a second A♥ is."""
    hand = "Ah Ah Ad Ac As Kh Kd Kc Ks Qs Qd Jc 2c"
    played = "Qs Qd Jc | Kh Kd Kc Ks 2c | Ah Ah Ad Ac As"
    base = {"hand": hand, "played": played, "rules": "shisanshui", "players": 5, "seed": 1,
            "opponents": "greedy"}  # fmt: skip
    ok = client.post("/api/table", json=base)
    assert ok.status_code == 200, ok.text
    assert ok.json()["seats"][0]["rows"]["back"] == {
        "cards": "As Ah Ah Ad Ac", "class": "five_of_a_kind", "royalty": 10.0}
    for bad, card in (("Ah Ah Ah Ac As Kh Kd Kc Ks Qs Qd Jc 2c", "Ah"),
                      ("Ah Ah Ad As As Kh Kd Kc Ks Qs Qd Jc 2c", "As")):  # fmt: skip
        refused = client.post("/api/table", json={**base, "hand": bad})
        assert refused.status_code == 422, refused.text
        assert f"'{card}'" in refused.json()["error"]
    wrong = played.replace("Ad Ac", "Ah Ac")  # three A♥ in the setting
    refused = client.post("/api/table", json={**base, "played": wrong})
    assert refused.status_code == 422 and "Ah" in refused.json()["error"]
    four = client.post("/api/table", json={**base, "players": 4})
    assert four.status_code == 422 and "duplicate card 'Ah'" in four.json()["error"]
    other = client.post("/api/table", json={**base, "rules": "chinese-1-6"})
    assert other.status_code == 422 and "extra_suits" in other.json()["error"]


def test_a_deal_at_five_players_is_of_the_65_card_deck(client):
    """/api/deal with the preset and 5 (or 6) players deals the seated table's deck: some
    hands hold both copies of a heart (a club too at six), never of another suit, and the
    seed deals the same hand again; without them the 52-card deal is what it was."""
    doubled = {5: set(), 6: set()}
    for players in (5, 6):
        for seed in range(40):
            body = {"seed": seed, "rules": "shisanshui", "players": players}
            d = client.post("/api/deal", json=body).json()
            assert (d["rules"], d["players"]) == (f"shisanshui-{players}", players)
            cards = d["hand"].split()
            assert len(cards) == 13
            twice = {c for c, n in Counter(cards).items() if n == 2}
            assert all(n <= 2 for n in Counter(cards).values())
            doubled[players] |= {c[1] for c in twice}
            again = client.get(f"/api/deal?seed={seed}&rules=shisanshui&players={players}")
            assert again.json()["hand"] == d["hand"]
    assert doubled == {5: {"h"}, 6: {"h", "c"}}
    plain = client.post("/api/deal", json={"seed": 3}).json()
    assert set(plain) == {"hand", "seed"} and len(set(plain["hand"].split())) == 13
    four = client.post("/api/deal", json={"seed": 3, "rules": "shisanshui", "players": 4})
    assert four.json()["hand"] == plain["hand"]  # the 52-card deck deals as before
    refused = client.post("/api/deal", json={"seed": 3, "rules": "capsa", "players": 5})
    assert refused.status_code == 422 and "extra_suits" in refused.json()["error"]


def test_rows_and_naturals_with_copies_at_the_seated_table(client):
    """/api/rows names five of a kind and a flush holding a pair at five players, and an
    A♥ in two rows; /api/natural reads a hand holding both copies; a third copy is
    refused naming the row."""
    body = {"rules": "shisanshui", "players": 5,
            "settings": ["2c 3d 4s | Kh Kh Qh Jh 9h | Ah Ah Ad Ac As", "Ah | Ah | "]}  # fmt: skip
    d = client.post("/api/rows", json=body).json()
    assert d["rules"] == "shisanshui-5"
    whole, part = d["settings"]
    assert whole["back"] == {"cards": "Ah Ah Ad Ac As", "class": "five_of_a_kind",
                             "royalty": 10.0}  # fmt: skip
    assert whole["middle"]["class"] == "flush" and whole["foul"] is None
    assert part["front"]["cards"] == part["middle"]["cards"] == "Ah"
    refused = client.post("/api/rows", json={**body, "settings": ["Ah Ah | Ah | "]})
    assert refused.status_code == 422 and "Ah" in refused.json()["error"]
    four = client.post("/api/rows", json={**body, "players": 4})
    assert four.status_code == 422
    hand = "Ah Ah Ad Ac As Kh Kd Kc Ks Qs Qd Jc 2c"
    nat = client.post("/api/natural", json={"hand": hand, "rules": "shisanshui", "players": 5})
    assert nat.status_code == 200, nat.text
    assert nat.json()["rules"] == "shisanshui-5"
    assert Counter(nat.json()["hand"].split())["Ah"] == 2
