"""POST /api/table, in process (Starlette's TestClient): the practice showdown.

Every figure is checked against the oracle (tests/reference.py: ``ref_table_units``, the
whole table pair by pair with the home run and the code card), the opponents' settings
against what ``capsa solve`` answers for their hands with the same policy, and bad
requests against the one line they must get.
"""

from __future__ import annotations

import numpy as np
import pytest
from starlette.testclient import TestClient

import evaluator as ev
from solver.apps.web import create_app, warm
from solver.engine.rules import load_rules, preset, rules_from_dict, ruleset_data
from solver.strategy.hands.deal import random_hands
from tests import reference as ref

HAND = "As Ks Qs Js Ts 9h 9d 9c 2s 3d 4c 5h 7d"
BEST = "7d 5h 4c | 9h 9d 9c 3d 2s | As Ks Qs Js Ts"
FOULED = "As Ks Qs | 9h 9d 9c 3d 2s | Js Ts 7d 5h 4c"
DRAGON = "As Kd Qh Jc Ts 9d 8h 7c 6s 5d 4h 3c 2s"
ROWS = ("front", "middle", "back")


@pytest.fixture(scope="module")
def client():
    app = create_app()
    warm(app)
    with TestClient(app) as c:
        yield c


def rules_from_toml(text: str):
    return rules_from_dict(ruleset_data(text))


def table(client, **body) -> dict:
    res = client.post("/api/table", json=body)
    assert res.status_code == 200, res.text
    return res.json()


def entry(seat: dict, rules):
    """A seat of the answer as the oracle takes it."""
    if seat["action"] == "surrender":
        return ref.SURRENDER
    if seat["action"] == "declare":
        natural = ref.ref_best_natural(ev.parse_hand(seat["cards"]).tolist(), rules)
        assert natural is not None and natural[0] == seat["natural"]["name"]
        return ref.ref_declare(natural)
    return tuple(ev.as_cards(seat["rows"][r]["cards"]).tolist() for r in ROWS)


def check_against_the_oracle(d: dict, rules) -> None:
    entries = [entry(s, rules) for s in d["seats"]]
    units = ref.ref_table_units(entries, rules)
    assert [p["units"] for p in d["pairs"]] == pytest.approx(units[0][1:], abs=1e-9)
    assert d["units"] == pytest.approx(sum(units[0]), abs=1e-9)
    assert [s["units"] for s in d["seats"]] == pytest.approx([sum(u) for u in units], abs=1e-9)
    assert d["units"] == pytest.approx(sum(p["units"] for p in d["pairs"]), abs=1e-9)
    cards = [c for s in d["seats"] for c in s["cards"].split()]
    assert len(cards) == 13 * d["players"] == len(set(cards))  # one deck, dealt once


def random_setting(hand: np.ndarray, rng) -> str:
    cards = [ev.format_card(int(c)) for c in rng.permutation(hand)]
    return " | ".join(" ".join(cards[a:b]) for a, b in ((0, 3), (3, 8), (8, 13)))


#: The code card (马牌, docs/rules.md#the-code-card) on a home-run table.
CODE_CARD = 'base = "shisanshui"\ncode_card = "8h"\n'


@pytest.mark.parametrize(
    "rules", ["chinese-1-6", "capsa", "shisanshui", "mau-binh", "pusoy", CODE_CARD]
)
def test_every_pair_and_the_table_are_the_oracles(client, rules):
    """Random hands set at random (fouls included) against dealt opponents: each pair,
    each seat and the table as the oracle settles them, the home run and the code card
    included."""
    r = load_rules(rules) if rules != CODE_CARD else rules_from_toml(rules)
    rng = np.random.default_rng(34)
    hands = random_hands(rng, 12)
    for i, hand in enumerate(hands):
        played = random_setting(hand, rng) if i % 2 else None
        if played is None:  # the field's own setting: legal, and scoops now and then
            body = {"hand": ev.format_cards(hand), "rules": rules, "policy": "field"}
            solved = client.post("/api/solve", json=body).json()
            played = " | ".join(solved[row] for row in ROWS)
        d = table(client, hand=ev.format_cards(hand), played=played, rules=rules, seed=i,
                  players=2 + i % 3)  # fmt: skip
        check_against_the_oracle(d, r)
    assert d["rules"] == r.name


def test_a_home_run_is_shown_and_paid(client):
    """Shisanshui (全垒打, x2 from 2 opponents): queens' trips, a full house and a royal
    flush scoop both opponents; the pairs are doubled as the oracle says."""
    rules = preset("shisanshui")
    strong = "Qh Qd Qc | Ah Ad Ac Kh Kd | As Ks Qs Js Ts"
    hand = strong.replace("|", "")
    for seed in range(200):
        d = table(client, hand=hand, played=strong, rules="shisanshui", seed=seed, players=3)
        if all(p["scoop"] == "you" for p in d["pairs"]):
            break
    else:
        pytest.fail("no table of 200 where the hand scoops both opponents")
    assert d["home_run"] == 0
    check_against_the_oracle(d, rules)
    plain = [ref.ref_settle(entry(d["seats"][0], rules), entry(s, rules), rules)
             for s in d["seats"][1:]]  # fmt: skip
    assert [p["units"] for p in d["pairs"]] == pytest.approx([2 * x for x in plain])


def test_a_fouled_setting_loses_every_row_to_every_opponent(client):
    d = table(client, hand=HAND, played=FOULED, seed=5)
    assert d["seats"][0]["rows"]["foul"] == {"row": "middle", "over": "back"}
    for p in d["pairs"]:
        if p["rows"] is not None:
            assert p["rows"] == [-1, -1, -1] and p["scoop"] == "them"
    check_against_the_oracle(d, preset("chinese-1-6"))


def test_declare_and_surrender_are_settled_at_the_table(client):
    d = table(client, hand=DRAGON, played="declare", seed=1)
    me = d["seats"][0]
    assert me["action"] == "declare" and me["natural"]["name"] == "dragon" and me["rows"] is None
    assert all(p["rows"] is None for p in d["pairs"])
    assert d["units"] == pytest.approx(13 * 3)  # no opponent holds a dragon
    d = table(client, hand=HAND, played="surrender", seed=1)
    assert d["seats"][0]["action"] == "surrender"
    assert d["units"] == pytest.approx(-3 * 3)
    check_against_the_oracle(d, preset("chinese-1-6"))


def test_the_opponents_are_dealt_by_the_seed_and_set_by_their_style(client):
    """The same seed deals the same opponents; each opponent's setting is what `capsa
    solve` answers for that hand with the same policy (field, greedy)."""
    for style in ("field", "greedy"):
        a = table(client, hand=HAND, played=BEST, seed=77, opponents=style)
        b = table(client, hand=HAND, played=BEST, seed=77, opponents=style)
        assert a == b and a["opponents"] == style
        for seat in a["seats"][1:]:
            if seat["action"] != "play":
                continue
            want = client.post("/api/solve", json={"hand": seat["cards"], "policy": style}).json()
            assert {r: seat["rows"][r]["cards"] for r in ROWS} == {r: want[r] for r in ROWS}
    other = table(client, hand=HAND, played=BEST, seed=78)
    assert other["seats"][1]["cards"] != a["seats"][1]["cards"]
    assert table(client, hand=HAND, played=BEST)["seed"] >= 0  # a seed picked, and said


def test_each_row_is_named_as_api_rows_names_it(client):
    d = table(client, hand=HAND, played=BEST, rules="chinese-1-6", seed=2)
    shown = [s for s in d["seats"] if s["rows"] is not None]
    assert len(shown) >= 3
    settings = [" | ".join(s["rows"][r]["cards"] for r in ROWS) for s in shown]
    named = client.post("/api/rows", json={"settings": settings}).json()["settings"]
    assert [s["rows"] for s in shown] == named
    assert d["seats"][0]["rows"]["back"] == {"cards": "As Ks Qs Js Ts", "class": "royal_flush",
                                             "royalty": 5.0}  # fmt: skip


@pytest.mark.parametrize(
    ("body", "status", "says"),
    [
        ({"hand": HAND}, 422, "played is missing"),
        ({"played": BEST}, 422, "hand is missing"),
        ({"hand": HAND[:-3], "played": BEST}, 422, "expected 13 cards, got 12"),
        ({"hand": HAND.replace("7d", "7x"), "played": BEST}, 422, "7x"),
        ({"hand": HAND, "played": BEST.replace("As Ks", "As 8s")}, 422, "the hand's 13 cards"),
        ({"hand": HAND, "played": "As Ks | 9h"}, 422, "3 rows"),
        ({"hand": HAND, "played": "declare"}, 422, "holds no natural"),
        ({"hand": HAND, "played": "surrender", "rules": "shisanshui"}, 422, "has no surrender"),
        ({"hand": HAND, "played": BEST, "players": 7}, 422, "from 2 to 6, got 7"),
        ({"hand": HAND, "played": BEST, "players": 5}, 422, "set extra_suits"),  # 52 cards
        ({"hand": HAND, "played": BEST, "players": True}, 422, "players must be"),
        ({"hand": HAND, "played": BEST, "seed": -1}, 422, "seed must be from 0"),
        ({"hand": HAND, "played": BEST, "seed": 2**64}, 422, "seed must be from 0"),
        ({"hand": HAND, "played": BEST, "seed": "1"}, 422, "seed must be a whole number"),
        ({"hand": HAND, "played": BEST, "opponents": "model.npz"}, 422, "not a style"),
        ({"hand": HAND, "played": BEST, "opponents": "field,greedy"}, 422, "one style"),
        ({"hand": HAND, "played": BEST, "rules": "nope"}, 422, "nope"),
        ({"hand": HAND, "played": BEST, "samples": 9}, 400, "unknown option 'samples'"),
        ([HAND], 400, "must be a JSON object"),
    ],
)
def test_a_bad_table_is_one_line(client, body, status, says):
    res = client.post("/api/table", json=body)
    assert res.status_code == status, res.text
    message = res.json()["error"]
    assert says in message and "\n" not in message


def test_a_table_body_is_bounded(client):
    res = client.post("/api/table", content=b'{"hand": "' + b"A" * 70_000 + b'"}',
                      headers={"Content-Type": "application/json"})  # fmt: skip
    assert res.status_code == 413
    res = client.post("/api/table", content=b"[" * 5000 + b"]" * 5000,
                      headers={"Content-Type": "application/json"})  # fmt: skip
    assert res.status_code == 400
    res = client.post("/api/table", content=b"hand=As", headers={"Content-Type": "text/plain"})
    assert res.status_code == 415
