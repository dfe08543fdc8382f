"""The web API with jokers (issue #32): every endpoint that names a table takes ``jokers``
(0, 1, 2; any other value one 400, and so is a joker asked of a ruleset that ranks the
suits), seats the table and then gives it its jokers (``NAME-jokers-N``,
``shisanshui-5-jokers-N``), reads ``X`` in hands and settings and writes it so. The
answers are the library's (``solve`` at the same table) and the oracle's
(tests/reference.py, which tries every card for every joker). Starlette's TestClient, in
process.

The presets' tables with jokers ship (tests/test_shipped_tables.py); where a test's
cache has none (``small_field_tables``: two rounds of 300 hands, a second) they are
trained small, which changes what the field plays, not how the API seats, reads and
writes a table.
"""

from __future__ import annotations

import contextlib
from collections import Counter

import numpy as np
import pytest
from starlette.testclient import TestClient

from evaluator import JOKER_FACE, JOKER_IDS, format_cards
from solver.apps.web import create_app
from solver.engine.compiled import compile_rules
from solver.engine.rules import PRESETS
from solver.engine.seating import seated, with_jokers
from solver.strategy.solving.solve import solve
from tests import reference as ref

HAND = "X As Ks Qs Js 9h 9d 9c 2s 3d 4c 5h 7d"
PLAYED = "X 9h 9d | 5h 4c 3d 2s 7d | As Ks Qs Js 9c"


def table(name: str, jokers: int, players: int = 4):
    """The ruleset the API plays for ``rules``, ``players``, ``jokers``."""
    return with_jokers(seated(PRESETS[name], players), jokers)


@contextlib.contextmanager
def small_field_tables(*rulesets):
    """Small field tables for rulesets that ship none, in this test process's cache
    (tests/conftest.py gives it a folder of its own, which a `capsa serve` the tests start
    inherits), removed afterwards; tables already there are left alone."""
    from solver.strategy.field_model.field import field_cache_path, save_field
    from solver.strategy.field_model.train import train
    from solver.strategy.field_model.trained import forget_fields

    written = []
    for r in rulesets:
        cr = compile_rules(r)
        path = field_cache_path(cr)
        if not path.exists():
            save_field(train(cr, rounds=2, hands_per_round=300, tol=1.0, min_rounds=1), path)
            written.append(path)
    try:
        yield
    finally:
        for path in written:
            path.unlink(missing_ok=True)
        forget_fields()


@pytest.fixture(scope="module")
def client():
    with small_field_tables(*(table("shisanshui", j, p) for j, p in ((1, 4), (2, 4), (1, 5)))):
        with TestClient(create_app()) as c:
            yield c


def bodies(jokers) -> dict[str, dict]:
    """A request of every endpoint that names a table, asking for ``jokers``."""
    at = {"rules": "shisanshui", "players": 4, "jokers": jokers}
    return {
        "/api/solve": {"hand": HAND, "policy": "field", **at},
        "/api/check": {"hand": HAND, "played": PLAYED, "policy": "field", **at},
        "/api/natural": {"hand": HAND, **at},
        "/api/rows": {"settings": [PLAYED], **at},
        "/api/table": {"hand": HAND, "played": PLAYED, "opponents": "greedy", "seed": 1, **at},
        "/api/deal": {"seed": 1, **at},
    }


def test_each_ruleset_says_whether_it_plays_jokers(client):
    """Up to two jokers under every preset without a suit order; none under capsa and
    pusoy, which rank the suits, and why; an uploaded ruleset with a joker of its own
    says so, and its decks deal it."""
    data = client.get("/api/rules").json()
    by_name = {r["name"]: r for r in data["rulesets"]}
    for name, r in by_name.items():
        assert r["jokers"] == 0, name
        if PRESETS[name].suit_order is None:
            assert (r["max_jokers"], r["jokers_refused"]) == (2, None), name
        else:
            assert r["max_jokers"] == 0, name
            assert "ranks the suits" in r["jokers_refused"] and name in r["jokers_refused"]
    assert {n for n, r in by_name.items() if not r["max_jokers"]} == {"capsa", "pusoy"}
    assert data["table"]["deck"]["jokers"] == 0
    told = client.post("/api/rules", json={"rules": 'base = "chinese-1-6"\njokers = 1\n'})
    assert told.status_code == 200, told.text
    own = told.json()
    assert (own["jokers"], own["max_jokers"], own["decks"]["4"]) == (1, 2, "X")


@pytest.mark.parametrize("bad", [3, -1, True, "1", 1.5, [1]])
def test_a_bad_jokers_value_is_one_400_on_every_endpoint(client, bad):
    for path, body in bodies(bad).items():
        got = client.post(path, json=body)
        assert got.status_code == 400, (path, got.text)
        error = got.json()["error"]
        assert error.startswith("jokers must be 0, 1 or 2") and "\n" not in error, path


def test_a_ruleset_that_ranks_the_suits_plays_no_jokers(client):
    """capsa with a joker is one 400 naming its suit order, on every endpoint; with 0
    jokers it plays as before; a GET deal reads jokers from the query."""
    for path, body in bodies(1).items():
        got = client.post(path, json={**body, "rules": "capsa"})
        assert got.status_code == 400, (path, got.text)
        assert "'capsa' ranks the suits (suit_order 'shcd')" in got.json()["error"], path
    plain = client.post("/api/deal", json={"seed": 5, "rules": "capsa"}).json()
    zero = client.post("/api/deal", json={"seed": 5, "rules": "capsa", "jokers": 0}).json()
    assert zero["hand"] == plain["hand"] and zero["rules"] == "capsa"
    got = client.get("/api/deal?seed=5&rules=capsa&jokers=2")
    assert got.status_code == 400 and "suit order" in got.json()["error"]


def test_a_deal_holds_the_tables_jokers(client):
    """Deals at a table of two jokers hold none, one or two X (the same for a seed, by
    POST and GET); at five players with a joker the hand is of the 66-card deck."""
    held = Counter()
    for seed in range(30):
        d = client.post("/api/deal", json={"seed": seed, "rules": "shisanshui", "jokers": 2})
        d = d.json()
        assert (d["rules"], d["players"], d["jokers"]) == ("shisanshui-jokers-2", 4, 2)
        cards = d["hand"].split()
        assert len(cards) == 13 and len(set(cards) - {"X"}) == 13 - cards.count("X")
        held[cards.count("X")] += 1
        again = client.get(f"/api/deal?seed={seed}&rules=shisanshui&jokers=2").json()
        assert again["hand"] == d["hand"]
    assert set(held) == {0, 1, 2}
    five = client.post(
        "/api/deal", json={"seed": 2, "rules": "shisanshui", "players": 5, "jokers": 1}
    ).json()
    assert five["rules"] == "shisanshui-5-jokers-1" and five["jokers"] == 1
    assert client.post("/api/deal", json={"seed": 2}).json().keys() == {"hand", "seed"}


def _oracle_key(ids, wheel):
    return ref.ref_key5(ids, wheel) if len(ids) == 5 else ref.ref_key3(ids)


def _random_settings(rng: np.random.Generator, n: int) -> list[str]:
    """Settings of random hands holding one joker (in the front, the middle or the back)
    or two (the front and the back)."""
    out = []
    for i in range(n):
        k = 1 + (i % 4 == 0)
        cards = rng.choice(52, 13 - k, replace=False).tolist()
        cards.insert((0, 3, 8)[i % 3] if k == 1 else 0, JOKER_FACE)
        if k == 2:
            cards.insert(8, JOKER_FACE)
        out.append(" | ".join(format_cards(cards[a:b]) for a, b in ((0, 3), (3, 8), (8, 13))))
    return out


@pytest.mark.parametrize("name", ["chinese-1-6", "shisanshui"])
def test_rows_name_a_joker_row_as_the_oracle(client, name):
    """Random rows with one joker or two: the class and the royalty are the oracle's, and
    the cards the jokers stand for make the row the oracle makes of it, at the ruleset's
    wheel (beside 2 3 4 5 a joker is a 6 where the wheel is lowest, an ace where it ranks
    second: shisanshui); a card the row does not hold is preferred to a copy."""
    rules = table(name, 2)
    settings = _random_settings(np.random.default_rng(7), 24)
    fixed = [
        "2s 3d 4d | X 4c 5h 2c 3h | As Ks Qs Js X",
        "Ah Ad X | Ac As Kd Kc X | 2c 3c 4c 5c 6c",
        "2c 3d 4h | Ah Ad Ac As X | Ks Qs 8s 4s X",  # copies: an ace, the K♠ (flush, a pair)
    ]
    d = client.post("/api/rows", json={"rules": name, "jokers": 2, "settings": settings + fixed})
    assert d.status_code == 200, d.text
    d = d.json()
    assert d["rules"] == f"{name}-jokers-2"
    for setting, named in zip(settings + fixed, d["settings"], strict=True):
        for row, text in zip(("front", "middle", "back"), setting.split(" | "), strict=True):
            entry = named[row]
            ids = ref.ref_deck_cards(text, "", 2)
            key = _oracle_key(ids, rules.wheel)
            want = "royal_flush" if ref.ref_is_royal(ids) else ref.ALL_CATEGORY_NAMES[key[0]]
            assert entry["class"] == want.replace(" ", "_"), (setting, row)
            assert entry["royalty"] == ref.ref_row_royalty(row, ids, rules), (setting, row)
            if "X" not in text.split():
                assert entry["jokers"] is None
                continue
            stand = ref.ref_cards(entry["jokers"])
            assert len(stand) == text.split().count("X")
            real = [c for c in ids if not ref.is_joker(c)]
            swapped = (*real, *(c + ref.FACES * (3 + j) for j, c in enumerate(stand)))
            assert _oracle_key(swapped, rules.wheel) == key, (setting, row, entry["jokers"])
    straight, full, copies = d["settings"][-3:]
    assert straight["back"]["jokers"] == "Ts" and straight["back"]["class"] == "royal_flush"
    assert straight["middle"]["jokers"] == ("6s" if rules.wheel == "low" else "As")
    assert (full["front"]["jokers"], full["middle"]["jokers"]) == ("As", "Ah")
    assert full["middle"]["class"] == "full_house" and full["front"]["royalty"] > 0
    assert copies["middle"]["class"] == "five_of_a_kind" and copies["middle"]["jokers"][0] == "A"
    assert (copies["back"]["class"], copies["back"]["jokers"]) == ("flush", "Ks")


def test_a_front_of_both_jokers_is_named_where_the_ruleset_pays_it(client):
    """十三水 with two jokers pays a front of both (对鬼冲前) 20 and ranks it above every
    front: named two_jokers, no card it stands for; a middle of two pair under it is a
    foul, told at once on the board (no back yet) and by the whole setting; without
    that line (chinese-1-6) the front is three of a kind."""
    rules = table("shisanshui", 2)
    good = "X X 2c | Kd Kh Kc 7s 7d | As Ah Ad Ac 2d"
    bad = "X X 2c | Kd Kh Qc Qs 5d | As Ah Ad Ac 2d"
    body = {
        "rules": "shisanshui",
        "jokers": 2,
        "settings": [good, bad, bad.rsplit("|", 1)[0] + "|"],
    }
    d = client.post("/api/rows", json=body).json()["settings"]
    for named in d:
        assert named["front"] == {"cards": "X X 2c", "class": "two_jokers", "royalty": 20.0,
                                  "jokers": None}  # fmt: skip
    oracle = [ref._hand_summary(tuple(ref.ref_deck_cards(r, "", 2) for r in x.split(" | ")),
                                rules) for x in (good, bad)]  # fmt: skip
    assert (oracle[0][0], oracle[0][2][0], oracle[1][0]) == (True, 20.0, False)  # legal, paid
    assert d[0]["foul"] is None
    assert d[1]["foul"] == d[2]["foul"] == {"row": "front", "over": "middle"}
    plain = client.post("/api/rows", json={**body, "rules": "chinese-1-6"}).json()["settings"]
    assert plain[0]["front"]["class"] == "three_of_a_kind" and plain[0]["front"]["jokers"]


def test_a_front_of_both_jokers_fouls_as_three_of_its_third_card(client):
    """Under shisanshui's two_jokers_foul = "third_card" the page's rows tell the foul as
    the server checks it (docs/rules.md#jokers): ``X X 5c`` over three sixes is legal,
    on the board (no back yet) and whole, and ``X X 7c`` over them fouls; the oracle
    says the same of the whole settings."""
    rules = table("shisanshui", 2)
    good = "X X 5c | 6c 6d 6h Kd Qd | 7c 8d 9h Ts Jc"
    bad = "X X 7c | 6c 6d 6h Kd Qd | 5c 8d 9h Ts Jc"
    body = {"rules": "shisanshui", "jokers": 2,
            "settings": [good, good.rsplit("|", 1)[0] + "|", bad, bad.rsplit("|", 1)[0] + "|"]}
    d = client.post("/api/rows", json=body).json()["settings"]
    assert [x["front"]["class"] for x in d] == ["two_jokers"] * 4
    assert d[0]["foul"] is None and d[1]["foul"] is None
    assert d[2]["foul"] == d[3]["foul"] == {"row": "front", "over": "middle"}
    oracle = [ref._hand_summary(tuple(ref.ref_deck_cards(r, "", 2) for r in x.split(" | ")),
                                rules)[0] for x in (good, bad)]  # fmt: skip
    assert oracle == [True, False]


def test_a_joker_too_many_is_refused_naming_it(client):
    """A joker at a table without one, and two at a table of one, are 422 naming the
    row; the jokers count over the whole setting."""
    base = {"rules": "shisanshui", "settings": ["X 2c 3d | | "]}
    none = client.post("/api/rows", json=base)
    assert none.status_code == 422 and "settings[0] front" in none.json()["error"]
    two = client.post("/api/rows", json={**base, "jokers": 1, "settings": ["X 2c 3d | X | "]})
    assert two.status_code == 422 and "settings[0] middle: 2 jokers 'X'" in two.json()["error"]
    hand = client.post(
        "/api/natural", json={"hand": HAND.replace("7d", "X"), "rules": "shisanshui", "jokers": 1}
    )
    assert hand.status_code == 422 and "jokers" in hand.json()["error"]


def test_a_natural_a_joker_completes(client):
    """Twelve ranks and a joker are a dragon at a table with a joker (the joker is the
    ace); the same twelve cards and a 2d are none."""
    dragon = "X Ks Qh Jd Tc 9s 8h 7d 6c 5s 4h 3d 2c"  # as the server writes it: X first
    got = client.post("/api/natural", json={"hand": dragon, "rules": "shisanshui", "jokers": 1})
    assert got.status_code == 200, got.text
    d = got.json()
    assert (d["rules"], d["hand"], d["natural"]["name"]) == (
        "shisanshui-jokers-1",
        dragon,
        "dragon",
    )
    plain = dragon.replace("X", "2d")  # a pair of deuces, no ace
    d = client.post("/api/natural", json={"hand": plain, "rules": "shisanshui", "jokers": 1})
    assert d.json()["natural"] is None


@pytest.mark.parametrize(
    ("players", "options"),
    [
        (4, {"policy": "field"}),
        (4, {"policy": "mc", "samples": 400, "seed": 3}),
        (5, {"policy": "field"}),
    ],
)
def test_solve_and_check_with_a_joker_are_the_librarys(client, players, options):
    """/api/solve and /api/check at a table with a joker answer what ``solve`` answers at
    that table (seated, then given its joker: shisanshui-5-jokers-1 at five), the joker
    written X in the rows."""
    hand = "X As Ks Qs Js 9h 9d 9c Ah Ah 4c 5h 7d" if players == 5 else HAND  # A♥ twice at 5
    body = {"hand": hand, "rules": "shisanshui", "players": players, "jokers": 1, **options}
    got = client.post("/api/solve", json=body)
    assert got.status_code == 200, got.text
    rules = table("shisanshui", 1, players)
    want = solve(hand, rules, players=players, **options).to_dict()
    assert got.json() == want
    assert want["rules"] == ("shisanshui-jokers-1" if players == 4 else "shisanshui-5-jokers-1")
    rows = " ".join(want[r] for r in ("front", "middle", "back")).split()
    assert Counter(rows) == Counter(hand.split()) and rows.count("X") == 1
    played = " | ".join(want[r] for r in ("front", "middle", "back"))
    check = client.post("/api/check", json={**body, "played": played})
    assert check.status_code == 200, check.text
    assert check.json()["played"]["loss"] == pytest.approx(0.0, abs=1e-9)


def test_solve_against_given_opponents_is_the_oracles_without_field_tables(
    client, monkeypatch, tmp_path
):
    """Given opponents a hand with two jokers is solved exactly with no field tables at
    all (an empty cache): the best setting's value and each runner-up's are the oracle's
    settlement against those opponents, and none of them beats the best."""
    monkeypatch.setenv("CAPSA_CACHE_DIR", str(tmp_path))
    rules = table("chinese-1-6", 2)
    hand = "X X Ah Kd Qs Js 9h 9d 7c 5c 4s 3h 2d"
    opponents = [
        "Ac Ad 4h | Kh Kc 8s 8d 6h | Qh Qc Qd Ts Tc",
        "7s 6s 2s | Jh Jc Td 9s 8h | As Ks 5s 3s 2c",
    ]
    body = {"hand": hand, "rules": "chinese-1-6", "jokers": 2, "against": opponents, "top": 4}
    got = client.post("/api/solve", json=body)
    assert got.status_code == 200, got.text
    d = got.json()
    assert (d["rules"], d["players"], d["policy"]) == ("chinese-1-6-jokers-2", 3, "exact")
    opp = [tuple(ref.ref_cards(r) for r in o.split(" | ")) for o in opponents]
    best = None
    for answer in (d, *d["alternatives"]):
        mine = tuple(ref.ref_deck_cards(answer[r], "", 2) for r in ("front", "middle", "back"))
        value = sum(ref.ref_settle(mine, o, rules) for o in opp) / len(opp)
        assert answer["ev"] == pytest.approx(value, abs=1e-6), answer
        best = value if best is None else best
        assert value <= best + 1e-9


def test_a_table_with_jokers_not_trained_says_how_to_train_it(client, monkeypatch, tmp_path):
    """Every preset's tables ship (tests/test_shipped_tables.py); an uploaded ruleset
    with jokers has none until trained: a field answer there is one 422 naming the
    command that trains it."""
    monkeypatch.setenv("CAPSA_CACHE_DIR", str(tmp_path))
    house = 'base = "chinese-2-4"\nscoop_multiplier = 3\n'
    for players, jokers in ((4, 2), (3, 1)):
        body = {"hand": HAND, "rules": house, "players": players, "jokers": jokers,
                "policy": "field"}  # fmt: skip
        got = client.post("/api/solve", json=body)
        assert got.status_code == 422, got.text
        assert f"`capsa train --rules FILE --jokers {jokers}`" in got.json()["error"]


def _seat_entry(seat: dict, rules, extra: str) -> object:
    """What a seat showed, as the oracle takes it (its jokers the deck's joker ids)."""
    if seat["action"] == "declare":
        cards = ref.ref_deck_cards(seat["cards"], extra, 2)
        if any(ref.is_joker(c) for c in cards):
            return None  # the oracle's naturals know no jokers
        found = ref.ref_naturals(cards, rules)
        assert found and found[0][0] == seat["natural"]["name"]
        return ("declare", found[0])
    rows = (seat["rows"][r]["cards"] for r in ("front", "middle", "back"))
    return tuple(ref.ref_deck_cards(r, extra, 2) for r in rows)


@pytest.mark.parametrize(("jokers", "players"), [(1, 4), (2, 4), (1, 5)])
def test_the_practice_table_with_jokers_is_the_oracles(client, jokers, players):
    """A hand holding the table's jokers, set and played: the opponents are dealt from
    the rest of that deck (no joker more than it holds, every card of the table dealt
    once), and the answer's units are the oracle's seat by seat."""
    rules = table("shisanshui", jokers, players)
    extra = "h" if players == 5 else ""
    rng = np.random.default_rng(10 * jokers + players)
    checked = 0
    for t in range(6):
        mine = (*JOKER_IDS[:jokers], *rng.choice(52, 13 - jokers, replace=False).tolist())
        played = " | ".join(format_cards(r) for r in _setting(mine, rng, rules))
        body = {
            "hand": format_cards(mine),
            "played": played,
            "rules": "shisanshui",
            "players": players,
            "jokers": jokers,
            "seed": t,
            "opponents": "field" if t % 2 else "greedy",
        }
        got = client.post("/api/table", json=body)
        assert got.status_code == 200, got.text
        d = got.json()
        assert (d["rules"], d["players"], d["jokers"]) == (rules.name, players, jokers)
        held = Counter(c for s in d["seats"] for c in s["cards"].split())
        assert held["X"] == jokers and sum(held.values()) == 13 * players
        assert all(n <= (2 if c[-1] in extra else 1) for c, n in held.items() if c != "X")
        entries = [
            tuple(ref.ref_deck_cards(r, "", jokers) for r in played.split(" | ")),
            *(_seat_entry(s, rules, extra) for s in d["seats"][1:]),
        ]
        if None in entries:
            continue
        want = ref.ref_settle_table(entries, rules)
        assert [s["units"] for s in d["seats"]] == pytest.approx(want, abs=1e-9)
        assert sum(p["units"] for p in d["pairs"]) == pytest.approx(d["units"], abs=1e-9)
        checked += 1
    assert checked >= 4


def _setting(hand: tuple[int, ...], rng: np.random.Generator, rules) -> list[list[int]]:
    """A random setting of ``hand`` (ids, jokers among them), the back the stronger five."""
    order = rng.permutation(13)
    f, m, b = ([hand[p] for p in order[s]] for s in (slice(0, 3), slice(3, 8), slice(8, 13)))
    if ref.ref_key5(m, rules.wheel) > ref.ref_key5(b, rules.wheel):
        m, b = b, m
    return [f, m, b]
