"""What a played setting cost: solve(..., played=...) against the oracle and brute force."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

import solver
from evaluator import CardParseError, parse_cards
from solver.engine.rules import load_rules
from tests import reference as R
from tests.helpers import capsa_in

HAND = "Ah Kd Qc Jd Ts 9s 9d 7h 6c 5s 4d 3h 2c"
OPPONENTS = [
    "Kh Qd 3c | 8c 8d 8h 2h 2d | As Ks Qs Js 4s",
    "7d 7s 5h | Tc Td 6h 6d 4c | Ac Ad Qh Jh 5c",
]
FOULED = "Ah Kd Qc | 7h 6c 5s 4d 3h | Jd Ts 9s 9d 2c"  # a high front over a pair back


def C(text: str) -> tuple[int, ...]:
    return tuple(parse_cards(text).tolist())


def rows(text: str) -> tuple:
    return tuple(C(r) for r in text.split("|"))


def test_the_best_setting_played_loses_exactly_nothing():
    for policy in ("mc", "field", "greedy"):
        best = solver.solve(HAND, policy=policy, samples=500, seed=4, top=0)
        played = " | ".join(best.setting)
        again = solver.solve(HAND, policy=policy, samples=500, seed=4, top=0, played=played)
        p = again.to_dict()["played"]
        assert again.setting == best.setting and again.ev == best.ev
        assert p["loss"] == 0.0 and p["rank"] == 1 and not p["fouled"]
        assert not any(r["differs"] for r in p["rows"].values())
        assert all(r["win_change"] == 0.0 for r in p["rows"].values())


@pytest.mark.parametrize("preset", ["chinese-1-6", "chinese-2-4", "shisanshui"])
def test_loss_against_known_opponents_is_the_brute_force_difference(preset):
    """With ``against`` every value is exact: the loss is the oracle's best value minus
    the played setting's, per opponent, for a legal and for a fouled played setting.
    (Pairwise: shisanshui's home run from 2 opponents is left out here, its tables are
    tests/test_home_run.py's.)"""
    rules = load_rules(preset)
    if rules.home_run:
        rules = dataclasses.replace(rules, name=f"{preset}-pairs", home_run_multiplier=1)
    opps = [rows(o) for o in OPPONENTS]
    best = R.ref_best_setting(C(HAND), opps, rules)
    for played in ("Ah Kd 2c | Qc Jd Ts 9s 9d | 7h 6c 5s 4d 3h", FOULED):
        sol = solver.solve(HAND, rules=rules, against=OPPONENTS, played=played, top=0)
        p = sol.played
        value = sum(R.ref_settle(rows(played), o, rules) for o in opps) / len(opps)
        assert p["ev"] == pytest.approx(value, abs=1e-6)
        assert p["loss"] == pytest.approx(best.value / len(opps) - value, abs=1e-6)
        assert p["loss_stderr"] == 0.0
        assert p["fouled"] == (played == FOULED)


def test_a_fouled_setting_is_scooped_by_every_opponent():
    """Monte Carlo: the fouled setting's value in every deal is the oracle's settlement of
    a fouled hand (scooped, paying the opponents' royalties), so its ev matches."""
    from solver.engine.compiled import compile_rules
    from solver.strategy.hands.splits import candidates
    from solver.strategy.solving.advice import played_split
    from solver.strategy.solving.scoring import deal_opponents, score_against

    rules = load_rules("chinese-1-6")
    cr = compile_rules(load_rules(rules))
    hand = np.sort(parse_cards(HAND))
    cands = candidates(hand, cr).with_split(played_split(hand, FOULED)[None, :], cr)
    opp = deal_opponents(hand, cr, 3, 5, seed=9)
    scores = score_against(cands, cr, opp)
    assert cands.fouls[-1] and not cands.fouls[:-1].any()
    from solver.strategy.hands.deal import deal_hands

    dealt = deal_hands(np.random.default_rng(9), 5, 3, exclude=hand).reshape(15, 13)
    settings = solver.set_hands(dealt, rules, "field")
    for d in range(5):
        total = 0.0
        for o in range(3):
            s = settings[3 * d + o]
            nat = R.ref_best_natural(dealt[3 * d + o].tolist(), rules)
            if nat is not None:
                total += R.ref_settle_natural(None, nat, rules)
            else:
                opp_rows = (s[:3].tolist(), s[3:8].tolist(), s[8:].tolist())
                total += R.ref_settle(rows(FOULED), opp_rows, rules)
        assert scores.per_unit[-1, d] * 3 == pytest.approx(total)
    sol = solver.solve(HAND, samples=300, seed=2, played=FOULED, top=0)
    assert sol.played["fouled"] and sol.played["rank"] == sol.played["of"]
    assert all(r["loss"] == 1.0 for r in sol.played["rows"].values())
    assert sol.played["loss"] > 6  # a scoop and more


@pytest.mark.parametrize(
    ("played", "message"),
    [
        ("Ah Kd | Qc Jd Ts 9s 9d 7h | 6c 5s 4d 3h 2c", "played front: expected 3 cards, got 2"),
        ("Ah Kd Qc | Jd Ts 9s 9d | 7h 6c 5s 4d 3h 2c", "played middle: expected 5 cards"),
        ("Ah Kd Qc | Jd Ts 9s 9d 7h 6c 5s 4d 3h 2c", "3 rows"),
        ("Ah Kd Ah | Jd Ts 9s 9d 7h | 6c 5s 4d 3h 2c", "duplicate card 'Ah'"),
        ("As Kd Qc | Jd Ts 9s 9d 7h | 6c 5s 4d 3h 2c", "card 'As' is not in the hand"),
        ("Ah Kd Qx | Jd Ts 9s 9d 7h | 6c 5s 4d 3h 2c", "played front: bad card 'Qx'"),
    ],
)
def test_a_played_setting_of_other_cards_is_refused(played, message):
    with pytest.raises(CardParseError, match=message):
        solver.solve(HAND, policy="field", played=played)


def test_cli_played(tmp_path):
    cmd = ["solve", HAND, "--samples", "300", "--seed", "1"]
    run = capsa_in(*cmd, "--played", FOULED, "--format", "json")
    assert run.returncode == 0, run.stderr
    p = json.loads(run.stdout)["played"]
    assert p["fouled"] and p["loss"] > 6
    table = capsa_in(*cmd, "--played", FOULED)
    assert table.returncode == 0 and "played" in table.stdout and "fouled" in table.stdout
    bad = capsa_in(*cmd, "--played", "As Kd Qc | Jd Ts 9s 9d 7h | 6c 5s 4d 3h 2c")
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1
    assert "not in the hand" in bad.stderr


# --------------------------------------------------------------------------- declare, surrender

WEAK = "2c 2h 3d 3s 4d 6d 6h 7c 8d Ts Qh Kh Ac"  # surrender is advised (field and mc)
THREE_FLUSHES = "2h 5h 9h 3s 6s 8s Ts Qs 4c 7c Jc Kc 2c"  # a natural, declared


@pytest.mark.parametrize("policy", ["mc", "field", "greedy"])
def test_declaring_the_advised_natural_costs_nothing(policy):
    sol = solver.solve(THREE_FLUSHES, policy=policy, samples=600, seed=2, played="declare")
    d = sol.to_dict()
    assert d["action"] == "declare"
    p = d["played"]
    assert p["action"] == "declare" and p["loss"] == 0.0 and p["rank"] == 1
    assert p["ev"] == d["natural"]["ev_declare"] and p["rows"] is None and not p["fouled"]
    assert (p["front"], p["middle"], p["back"]) == (d["front"], d["middle"], d["back"])
    if policy == "mc":
        assert p["loss_stderr"] == 0.0


@pytest.mark.parametrize("policy", ["mc", "field"])
def test_surrendering_when_advised_costs_nothing_and_playing_costs_the_difference(policy):
    kw = {"samples": 2000, "seed": 1} if policy == "mc" else {}
    sur = solver.solve(WEAK, policy=policy, played="SURRENDER", **kw).to_dict()
    assert sur["action"] == "surrender"
    p = sur["played"]
    assert p["action"] == "surrender" and p["loss"] == 0.0 and p["ev"] == -3.0
    assert p["front"] is p["middle"] is p["back"] is None
    best = " | ".join(sur[r] for r in ("front", "middle", "back"))
    played = solver.solve(WEAK, policy=policy, played=best, **kw).to_dict()["played"]
    assert played["loss"] == pytest.approx(-3.0 - sur["ev_play"], abs=2e-6)


def test_against_known_opponents_declare_and_surrender_are_exact():
    """The loss is the advice's value minus the chosen action's: exact, from the oracle's
    best setting and the natural's payouts."""
    rules = load_rules("chinese-1-6")
    hand = THREE_FLUSHES
    opponents = [
        "2d 3d 4d | 5d 6c 7d 8d 9d | Td Jd Qd Kd Ad",
        "3h 4h 6h | 7h 8h Jh Qh Kh | 2s 4s 5s 7s 9s",
    ]
    opps = [rows(o) for o in opponents]
    best = R.ref_best_setting(C(hand), opps, rules)
    natural = R.ref_best_natural(C(hand), rules)
    declare = sum(R.ref_settle_natural(natural, None, rules) for _ in opps) / len(opps)
    play = best.value / len(opps)
    want = max(play, declare)
    for word, value in (("declare", declare), ("surrender", -3.0)):
        sol = solver.solve(hand, rules=rules, against=opponents, played=word, top=0)
        p = sol.played
        assert p["ev"] == pytest.approx(value, abs=1e-9)
        assert p["loss"] == pytest.approx(want - value, abs=1e-6) and p["loss_stderr"] == 0.0


def test_mc_declare_instead_of_playing_has_a_paired_error():
    """A hand whose natural is worth less than playing: declaring costs the difference of
    the same deals, with its paired standard error."""
    rules = solver.load_rules("chinese-1-6")
    rich = "As Ks Qs Js Ts Ah Kh Qh Jh 9h Ad Kd Qd"  # three flushes, and better played
    sol = solver.solve(rich, rules=rules, samples=900, seed=3, played="declare").to_dict()
    assert sol["action"] == "play" and sol["natural"]["name"] == "three_flushes"
    p = sol["played"]
    assert p["loss"] == pytest.approx(sol["ev_play"] - sol["natural"]["ev_declare"], abs=2e-6)
    assert p["loss"] > 0 and p["loss_stderr"] is not None and p["rank"] > 1


@pytest.mark.parametrize(
    ("hand", "rules", "word", "message"),
    [
        (HAND, "chinese-1-6", "declare", "played: declare: this hand holds no natural"),
        (HAND, "shisanshui", "surrender", "played: surrender: the rules 'shisanshui' allow no"),
        (HAND, "per-row", "surrender", "allow no surrender"),
    ],
)
def test_declare_and_surrender_the_hand_cannot_make_are_refused(hand, rules, word, message):
    from solver.engine.errors import InputError

    with pytest.raises(InputError, match=message):
        solver.solve(hand, rules=rules, policy="field", played=word)


def test_cli_played_declare_and_surrender():
    cmd = ["solve", WEAK, "--policy", "field"]
    run = capsa_in(*cmd, "--played", "surrender", "--format", "json")
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["played"]["loss"] == 0.0
    table = capsa_in(*cmd, "--played", "surrender")
    assert table.returncode == 0 and "played: surrender" in table.stdout
    bad = capsa_in(*cmd, "--played", "declare")
    assert bad.returncode == 2 and "holds no natural" in bad.stderr


def test_a_batch_line_records_a_declare_or_a_surrender(tmp_path):
    """``HAND | declare`` and ``HAND | surrender`` lines (docs/batch.md): the record's
    played says what it cost; a declare without a natural is a bad line."""
    from solver.apps.batch import run_batch

    src = tmp_path / "in.txt"
    src.write_text(f"a: {THREE_FLUSHES} | declare\nb: {WEAK} | surrender\nc: {HAND} | declare\n")
    out = tmp_path / "out.jsonl"
    bad: list[str] = []
    with out.open("w") as sink:
        run_batch(
            str(src), sink, policy="field", workers=1, on_bad=lambda b: bad.append(b.message())
        )
    recs = [json.loads(x) for x in out.read_text().splitlines()]
    assert [r["id"] for r in recs] == ["a", "b"]
    assert [r["played"]["action"] for r in recs] == ["declare", "surrender"]
    assert all(r["played"]["loss"] == 0.0 for r in recs)
    assert len(bad) == 1 and "line 3 (id c)" in bad[0] and "holds no natural" in bad[0]
