"""The banker's table played (docs/rules.md#the-bankers-table): ``capsa solve --seat``
and ``capsa batch --seat`` (in the test's process, ``helpers.capsa_in``), the API's
``seat``, and the practice table's banker, each against the oracle (tests/reference.py)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from starlette.testclient import TestClient

import evaluator as ev
from solver.apps.web import create_app
from solver.engine.rules import PRESETS
from tests import reference as R
from tests.helpers import capsa_in
from tests.test_web_showdown import entry, random_setting

BANKER = PRESETS["shisanshui-banker"]
HAND = "As Ks Qs Js Ts 9h 9d 9c 2s 3d 4c 5h 7d"
#: Two players' settings (none shares a card with HAND).
OPPONENTS = ("2c 3c 4d | 6c 6d 8h Jd Qc | 7c 7h 7s Kd 4h",
             "5c 6h 8c | Tc Td 2h 3h 4s | Ac Ad Ah Kc Kh")  # fmt: skip


def rows(text: str) -> tuple[tuple[int, ...], ...]:
    f, m, b = (tuple(int(c) for c in ev.parse_cards(x)) for x in text.split("|"))
    return f, m, b


def test_solve_as_the_banker_and_as_a_player(tmp_path):
    """``--against`` at both seats: the banker meets both players at their multiples
    (``--stakes``), a player the banker alone; each value is the oracle's."""
    against = tmp_path / "table.txt"
    against.write_text("\n".join(OPPONENTS) + "\n")
    res = capsa_in("solve", HAND, "-r", "shisanshui-banker", "--seat", "banker", "--against",
                   str(against), "--stakes", "2,3", "-k", "0", "-f", "json")  # fmt: skip
    assert res.returncode == 0, res.stderr
    d = json.loads(res.stdout)
    mine = rows(" | ".join(d[r] for r in ("front", "middle", "back")))
    table = [mine, *(rows(o) for o in OPPONENTS)]
    want = R.ref_table_units(table, BANKER, multiples=[1, 2, 3])[0][1:]
    assert d["ev_staked"] == pytest.approx(sum(want))
    assert d["ev_by_opponent"] == pytest.approx([want[0] / 2, want[1] / 3])
    assert max(abs(x) for x in d["ev_by_opponent"]) == 8  # the cap, met
    # the best setting against both is the oracle's best of all 72,072 splits
    best = R.ref_best_setting(ev.parse_hand(HAND).tolist(), [rows(o) for o in OPPONENTS],
                              BANKER, stakes=[2, 3])  # fmt: skip
    assert d["ev_staked"] == pytest.approx(best.value)
    # a player: the banker's setting alone, at the player's own multiple
    one = tmp_path / "banker.txt"
    one.write_text(OPPONENTS[1] + "\n")
    res = capsa_in("solve", HAND, "-r", "shisanshui-banker", "--against", str(one), "-k", "0")
    assert res.returncode == 0, res.stderr
    assert "as a player (vs the banker)" in res.stdout
    res = capsa_in("solve", HAND, "-r", "shisanshui-banker", "--against", str(one), "-f", "json")
    d = json.loads(res.stdout)
    mine = rows(" | ".join(d[r] for r in ("front", "middle", "back")))
    assert d["ev_total"] == d["ev"] == R.ref_settle(mine, rows(OPPONENTS[1]), BANKER)


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["-r", "shisanshui", "--seat", "banker"], "seat: ruleset 'shisanshui' seats no banker"),
        (["-r", "shisanshui-banker", "--seat", "dealer"], "seat must be one of player, banker"),
        (["-r", "shisanshui-banker", "--against", "TWO"],
         "against: a player settles with the banker alone: give the banker's setting, not 2"),
    ],
)  # fmt: skip
def test_bad_seats_are_one_line_exit_2(tmp_path, args, says):
    two = tmp_path / "two.txt"
    two.write_text("\n".join(OPPONENTS) + "\n")
    args = [str(two) if a == "TWO" else a for a in args]
    res = capsa_in("solve", HAND, *args, "--policy", "greedy")
    assert res.returncode == 2 and res.stdout == "", res.stderr
    assert res.stderr.startswith(f"capsa: error: {says}"), res.stderr
    assert len(res.stderr.strip().splitlines()) == 1


def test_the_api_takes_the_seat():
    with TestClient(create_app()) as client:
        body = {"hand": HAND, "rules": "shisanshui-banker", "seat": "banker",
                "against": list(OPPONENTS), "top": 0}  # fmt: skip
        got = client.post("/api/solve", json=body)
        assert got.status_code == 200, got.text
        assert len(got.json()["ev_by_opponent"]) == 2
        got = client.post("/api/solve", json={**body, "seat": "player"})
        assert got.status_code == 422 and "the banker alone" in got.json()["error"]
        got = client.post("/api/solve", json={**body, "rules": "shisanshui"})
        assert got.status_code == 422 and "seats no banker" in got.json()["error"]


def test_the_practice_table_seats_a_banker():
    """POST /api/table at shisanshui-banker: the deal's number seats the banker; a player
    settles with it alone (a pair without it pays 0), as the oracle settles the table."""
    rng = np.random.default_rng(52)
    seen = set()
    with TestClient(create_app()) as client:
        for seed in range(8):
            hand = rng.permutation(52)[:13].astype(np.uint8)
            body = {"hand": ev.format_cards(hand), "played": random_setting(hand, rng),
                    "rules": "shisanshui-banker", "players": 4, "seed": seed,
                    "opponents": "greedy"}  # fmt: skip
            res = client.post("/api/table", json=body)
            assert res.status_code == 200, res.text
            d = res.json()
            b = d["banker"]
            seen.add(b)
            entries = [entry(s, BANKER) for s in d["seats"]]
            units = R.ref_table_units(entries, BANKER, banker=b)
            assert [p["units"] for p in d["pairs"]] == pytest.approx(units[0][1:], abs=1e-9)
            assert [s["units"] for s in d["seats"]] == pytest.approx([sum(u) for u in units])
            if b != 0:
                assert all(p["units"] == 0 for p in d["pairs"] if p["seat"] != b)
        res = client.post("/api/table", json={**body, "rules": "shisanshui"}).json()
        assert res["banker"] is None
    assert len(seen) > 1  # the banker moves with the deal


def test_a_duel_seats_the_banker_first():
    """``capsa duel``'s duplicate deals at a banker's table
    (docs/rules.md#the-bankers-table): seat 0 of every game is the banker, so A is the
    banker once a deal and a player against B's banker in the other games; each game is
    the oracle's table."""
    from solver.apps import duel as du
    from solver.engine.compiled import compile_rules
    from solver.strategy.field_model.setting import set_hands
    from solver.strategy.hands.deal import deal_hands

    hands = deal_hands(np.random.default_rng(5), 6, 4)
    flat = hands.reshape(-1, 13)
    a = set_hands(flat, BANKER, "greedy")
    rng = np.random.default_rng(6)  # B: the cards in a random order (fouls and all)
    b = np.stack([rng.permutation(h) for h in flat]).astype(np.uint8)
    s = du.score_duplicate(a, b, hands, compile_rules(BANKER))
    split = lambda x: (tuple(x[:3].tolist()), tuple(x[3:8].tolist()), tuple(x[8:].tolist()))  # noqa: E731
    for d in range(6):
        games = []
        for g in range(4):  # A in seat g, B elsewhere
            table = [split(a[4 * d + j] if j == g else b[4 * d + j]) for j in range(4)]
            games.append(R.ref_settle_table(table, BANKER)[g])
        assert s["x"][d] == pytest.approx(sum(games) / 4)
    same = du.score_duplicate(a, a, hands, compile_rules(BANKER))
    assert not same["x"].any()  # a strategy against itself: exactly 0


def test_mc_and_field_at_both_seats():
    """Monte Carlo (dealt opponents) and the field at shisanshui-banker's 4 players: a
    player's value is for one opponent, the banker's for three; pairwise, the per-opponent
    value is the same setting's at both seats (the field's, exactly)."""
    answers = {}
    for seat in ("player", "banker"):
        for policy in ("field", "mc"):
            res = capsa_in("solve", HAND, "-r", "shisanshui-banker", "--seat", seat, "--policy",
                           policy, "-n", "400", "-s", "3", "--no-pool", "-k", "0",
                           "-f", "json")  # fmt: skip
            assert res.returncode == 0, res.stderr
            answers[seat, policy] = d = json.loads(res.stdout)
            n = 1 if seat == "player" else 3
            assert len(d["ev_by_opponent"]) == n and d["players"] == 4
            assert d["ev_total"] == pytest.approx(d["ev"] * n, abs=1e-5)
    player, banker = answers["player", "field"], answers["banker", "field"]
    assert player["ev"] == banker["ev"] and player["back"] == banker["back"]


def test_batch_sets_each_hand_for_the_seat(tmp_path):
    """``capsa batch --seat``: each record is ``capsa solve``'s at that seat (the field's
    answer), the multiples as stakes, and the run file keeps the seat."""
    hands = tmp_path / "hands.txt"
    hands.write_text(f"a: {HAND}\nb: 2c 5d 7h 9s Jc Kd Ah 3s 4d 6h 8c Ts Qd\n")
    out = tmp_path / "out.jsonl"
    res = capsa_in("batch", str(hands), "-o", str(out), "-r", "shisanshui-banker", "--policy",
                   "field", "--seat", "banker", "--players", "3", "--stakes", "2,3")  # fmt: skip
    assert res.returncode == 0, res.stderr
    records = [json.loads(line) for line in out.read_text().splitlines()]
    for rec, cards in zip(records, (HAND, "2c 5d 7h 9s Jc Kd Ah 3s 4d 6h 8c Ts Qd"), strict=True):
        one = capsa_in("solve", cards, "-r", "shisanshui-banker", "--policy", "field", "--seat",
                       "banker", "-p", "3", "--stakes", "2,3", "-k", "0", "-f", "json")  # fmt: skip
        want = json.loads(one.stdout)
        assert [rec[r] for r in ("front", "middle", "back")] == [want[r] for r in
                                                                  ("front", "middle", "back")]
        assert rec["ev_staked"] == pytest.approx(want["ev_staked"])
        assert len(rec["ev_by_opponent"]) == 2
    run = json.loads((tmp_path / "out.jsonl.capsa-run.json").read_text())
    assert run["seat"] == "banker"
    res = capsa_in("batch", str(hands), "-r", "shisanshui", "--seat", "banker", "--policy", "field")
    assert res.returncode == 2 and "seats no banker" in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1


def test_mc_draws_the_banker_from_the_pool(tmp_path, monkeypatch):
    """mc with the opponent pool at shisanshui-banker: a player's one opponent is drawn
    from the pool, and each deal's value is the oracle's settlement (the scoop's +1 and the
    cap included) against the pool hand drawn, as the field set it."""
    from solver.engine.compiled import compile_rules
    from solver.strategy.field_model.setting import set_hands
    from solver.strategy.hands.splits import candidates, split_cards
    from solver.strategy.opposition import pool as PL
    from solver.strategy.solving import scoring as SC
    from solver.strategy.solving.drawn import pool_opponents
    from solver.strategy.solving.solve import solve
    from tests import shared

    cr = compile_rules(BANKER)
    shared.pool(cr, 40_000, tmp_path)
    monkeypatch.setenv("CAPSA_POOL_DIR", str(tmp_path))
    sol = solve(HAND, BANKER, samples=300, seed=4)
    assert sol.pooled and len(sol.ev_by_opponent) == 1
    hand = np.sort(ev.parse_hand(HAND))
    pool = PL.cached_pool(cr)
    opp = pool_opponents(pool, hand, 1, 40, seed=9)
    cards = pool.hands(pool.pick(hand, 40, 9))
    settings = set_hands(cards, BANKER)
    c = candidates(hand, cr)
    scores = SC.score_against(c, cr, opp)
    changed = 0  # deals the banker's keys pay otherwise than 十三水 (a scoop +1, the cap)
    for ci in range(0, len(c), max(1, len(c) // 6)):
        mine = tuple(x.tolist() for x in split_cards(hand, c.split[ci]))
        for d in range(40):
            nat = R.ref_best_natural(cards[d].tolist(), BANKER)
            row = settings[d]
            theirs = (row[:3].tolist(), row[3:8].tolist(), row[8:].tolist())
            want = (R.ref_settle_natural(None, nat, BANKER) if nat is not None else
                    R.ref_settle(mine, theirs, BANKER))  # fmt: skip
            assert scores.per_unit[ci, d] == pytest.approx(want)
            changed += nat is None and want != R.ref_settle(mine, theirs, PRESETS["shisanshui"])
    assert changed > 0
