"""The seed's last two rules in the solver: royalties for the dealt cards (the kernels
against the oracle) and per-opponent stakes (solve against a brute force).

docs/rules.md#royalties-for-dealt-cards and docs/rules.md#stakes.
"""

from __future__ import annotations

import itertools
import json
import random
import re

import numpy as np
import pytest

import solver
from evaluator import parse_cards
from solver.engine.compiled import compile_rules
from solver.engine.errors import InputError
from solver.engine.rules import load_rules, rules_from_dict
from tests import reference as R
from tests.helpers import capsa_in
from tests.rich_hands import rich_pairs


def C(text: str) -> tuple[int, ...]:
    return tuple(parse_cards(text).tolist())


def setting(front: str, middle: str, back: str) -> tuple:
    return (C(front), C(middle), C(back))


def dealt_rules(**over):
    data = {"base": "chinese-1-6", "royalties_dealt": True, **over}
    name = "dealt-" + "-".join(f"{k}={v}" for k, v in sorted(over.items()) if k != "royalties")
    return rules_from_dict(data, name=name)


#: The royalty table with royal flush lines (middle 14, back 7), as a file writes it.
ROYAL_TABLE = {
    "middle": {"full_house": 2, "four_of_a_kind": 8, "straight_flush": 10, "royal_flush": 14},
    "back": {"four_of_a_kind": 4, "straight_flush": 5, "royal_flush": 7},
}

# Every royalty mode, one royalty per hand on and off, the scoop multiplier, a royal line,
# the other wheel and a suit order, under every scoring.
DEALT_RULESETS = [
    dealt_rules(royalty_mode=mode, one_royalty_per_hand=one, scoop_multiplier=mult)
    for mode, one, mult in itertools.product(("winner", "cancel", "always"), (False, True), (1, 2))
] + [
    # shisanshui's scoring, scoop and wheel with its rows paid on top of their unit (its
    # rows at their whole value do not go with dealt royalties,
    # docs/rules.md#a-bonus-row-is-its-whole-value)
    dealt_rules(base="shisanshui", royalty_replaces_row=False),
    dealt_rules(
        base="shisanshui",
        royalty_replaces_row=False,
        one_royalty_per_hand=True,
        royalty_mode="always",
    ),  # fmt: skip
    # the royal flush lines and suit order the shisanshui preset had before issue 20
    dealt_rules(
        base="shisanshui", royalty_replaces_row=False, suit_order="shcd", royalties=ROYAL_TABLE
    ),
    dealt_rules(
        base="shisanshui",
        royalty_replaces_row=False,
        suit_order="shcd",
        royalties=ROYAL_TABLE,
        one_royalty_per_hand=True,
        royalty_mode="always",
    ),  # fmt: skip
    dealt_rules(base="chinese-2-4", wheel="second"),
    dealt_rules(scoring="per-row", suit_order="dhcs", scoop_multiplier=3),
]


@pytest.mark.parametrize("rules", DEALT_RULESETS, ids=lambda r: r.name)
def test_dealt_royalties_settle_as_the_oracle_on_rich_pairs(rules):
    """Pairs rich in quads and straight flushes (broken up or kept whole, some fouled)
    settle exactly as tests/reference.py says, both ways round."""
    rng = random.Random(hash(rules.name) & 0xFFFF)
    paid = 0
    for a, b in rich_pairs(rng, 150, wheel=rules.wheel, suit_order=rules.suit_order):
        want = R.ref_settle(a, b, rules)
        assert solver.settle(a, b, rules) == want, (a, b)
        assert solver.settle(b, a, rules) == -want
        paid += R.ref_dealt_royalties(a[0] + a[1] + a[2], rules)[1] > 0
    assert paid > 50  # the generator did plant combinations


def test_dealt_summaries_carry_the_dealt_royalty():
    r = dealt_rules()
    keys, roy, foul = solver.engine.settlement.summarize(
        ("7c 7d 7h", "3s 4d 5c 6h 7s", "2h 9h Jh Qh Kh"), compile_rules(load_rules(r))
    )
    assert not foul and roy.tolist() == [3.0, 0.0, 0.0, 4.0]  # front trips; the four sevens
    # without the rule the same setting earns the front trips only
    assert solver.engine.settlement.summarize(
        ("7c 7d 7h", "3s 4d 5c 6h 7s", "2h 9h Jh Qh Kh"), compile_rules(load_rules("chinese-1-6"))
    )[1].tolist() == [3.0, 0.0, 0.0, 0.0]
    # quads kept whole in the back earn the dealt 4, not the row's 4 as well
    _, roy, _ = solver.engine.settlement.summarize(
        ("2c 3d 4h", "5s 6c 8d 9h Tc", "Ac Ad Ah As Kd"), compile_rules(load_rules(r))
    )
    assert roy.tolist() == [0.0, 0.0, 0.0, 4.0]


# --------------------------------------------------------------- solve vs brute force

FOUR_SEVENS_HAND = "7c 7d 7h 3s 4d 5c 6h 7s 2h 9h Jh Qh Kh"
OPP_FLUSH_FH = "Ac Kd 2c | As Ks Qs 9s 4s | Tc Td Ts 3c 3d"


def _chosen(sol) -> tuple:
    return tuple(C(getattr(sol, row)) for row in ("front", "middle", "back"))


def _same_setting(a: tuple, b: tuple) -> bool:
    return all(sorted(x) == sorted(y) for x, y in zip(a, b, strict=True))


@pytest.mark.parametrize("dealt", [False, True])
def test_exact_solve_breaks_the_quads_up_only_when_it_pays(dealt):
    """The seed's four sevens against one opponent: without royalties_dealt the quads stay
    in the back (3 units); with it, three sevens go to the front and one to a middle
    straight (6 units). solve(against=...) equals the brute force over 72,072 splits."""
    rules = dealt_rules() if dealt else load_rules("chinese-1-6")
    opp = [tuple(C(r) for r in OPP_FLUSH_FH.split("|"))]
    sol = solver.solve(FOUR_SEVENS_HAND, rules=rules, against=[OPP_FLUSH_FH], top=1)
    best = R.ref_best_setting(C(FOUR_SEVENS_HAND), opp, rules)
    assert sol.ev_play == best.value == (6 if dealt else 3)
    assert R.ref_settle(_chosen(sol), opp[0], rules) == best.value
    if dealt:
        assert _same_setting(_chosen(sol), setting("7c 7d 7h", "3s 4d 5c 6h 7s", "2h 9h Jh Qh Kh"))
    else:  # the four sevens stay together in the back (the kicker may differ: same value)
        assert set(C("7c 7d 7h 7s")) <= set(_chosen(sol)[2])


STAKES_HAND = "Kh 9c 8h 8d 7s 6h 6d 6c 4h 4d 4c 2h 2d"
STAKES_OPPONENTS = [
    "Ac Td 4s | Jh Tc 9s 9h 3d | Ks Qs Qc Ts 2s",
    "Qh 7d 5s | Qd 5d 3s 3c 2c | Ah Ad Jc 8s 6s",
    "Jd 5c 3h | Js Th 8c 7c 5h | As Kd Kc 9d 7h",
]


def test_stakes_change_the_exact_best_setting_as_the_brute_force_does():
    """$100 a unit against the first opponent and $10 against the others: the best
    setting gives up a middle full house for a front pair that scoops the first
    opponent. solve(against, stakes) equals the staked brute force over every split."""
    opps = [tuple(C(r) for r in s.split("|")) for s in STAKES_OPPONENTS]
    rules = load_rules("chinese-1-6")
    plain = solver.solve(STAKES_HAND, rules=rules, against=STAKES_OPPONENTS, top=2)
    staked = solver.solve(
        STAKES_HAND, rules=rules, against=STAKES_OPPONENTS, stakes=[100, 10, 10], top=2
    )
    ref_plain = R.ref_best_setting(C(STAKES_HAND), opps, rules)
    ref_staked = R.ref_best_setting(C(STAKES_HAND), opps, rules, stakes=(100, 10, 10))
    # what the chosen settings win from each opponent, by the oracle (equal-valued
    # settings may differ in which rows hold which cards)
    got_plain = [R.ref_settle(_chosen(plain), o, rules) for o in opps]
    got_staked = [R.ref_settle(_chosen(staked), o, rules) for o in opps]
    assert sum(got_plain) == ref_plain.value == 19
    assert np.dot(got_staked, [100, 10, 10]) == ref_staked.value == 720
    assert sum(got_staked) < sum(got_plain)  # the stakes changed the answer
    assert plain.ev_by_opponent == got_plain == list(ref_plain.units) == [3, 8, 8]
    assert plain.stakes is None and plain.ev_staked is None and plain.ev_total == 19
    assert staked.ev_by_opponent == got_staked == list(ref_staked.units) == [6, 6, 6]
    assert staked.stakes == [100, 10, 10] and staked.ev_staked == ref_staked.value == 720
    assert staked.ev == 6 and staked.ev_total == 18  # units stay units
    d = staked.to_dict()
    assert d["stakes"] == [100, 10, 10] and d["ev_staked"] == 720
    assert d["ev_by_opponent"] == [6, 6, 6]
    # the runners-up are ranked and compared in money under stakes
    for alt in d["alternatives"]:
        assert alt["ev_staked"] <= d["ev_staked"] and alt["diff"] == alt["ev_staked"] - 720
    # equal stakes change only the scale, and the stakes follow the opponents' order
    same = solver.solve(STAKES_HAND, rules=rules, against=STAKES_OPPONENTS, stakes=[7, 7, 7])
    assert _same_setting(_chosen(same), _chosen(plain)) and same.ev_staked == 7 * 19
    moved = solver.solve(STAKES_HAND, rules=rules, against=STAKES_OPPONENTS, stakes=[10, 100, 10])
    assert _same_setting(_chosen(moved), _chosen(plain))


def test_stakes_in_monte_carlo_weigh_the_seats():
    hand = "Ah Kd Qc 9s 9d 7h 6c 5s 4d 3h 2c Jd Ts"
    plain = solver.solve(hand, samples=600, seed=3, top=0)
    ones = solver.solve(hand, samples=600, seed=3, top=0, stakes=[1, 1, 1])
    assert ones.setting == plain.setting and ones.ev == pytest.approx(plain.ev, abs=1e-12)
    assert ones.ev_staked == pytest.approx(plain.ev_total, abs=1e-9)
    big = solver.solve(hand, samples=600, seed=3, top=0, stakes=[50, 1, 1])
    assert big.ev_staked == pytest.approx(np.dot([50, 1, 1], big.ev_by_opponent), abs=1e-6)
    assert np.mean(big.ev_by_opponent) == pytest.approx(big.ev, abs=1e-6)
    # the field policy: every seat meets the same field
    field = solver.solve(hand, policy="field", stakes=[2, 3, 5])
    assert field.ev_by_opponent == [field.ev] * 3
    assert field.ev_staked == pytest.approx(10 * field.ev)


@pytest.mark.parametrize(
    ("stakes", "message"),
    [
        ([1, 1], "give one per opponent (3 opponents), got 2"),
        ([1, 0, 1], "stake 2 must be from 1e-06 to 1,000,000"),
        ([1, -5, 1], "stake 2 must be from 1e-06 to 1,000,000"),
        ([1, float("nan"), 1], "stake 2 must be from 1e-06 to 1,000,000"),
        ([1, "x", 1], "stake 2 must be a number"),
        ([1, 1, 10**9], "stake 3 must be from 1e-06 to 1,000,000"),
    ],
)
def test_bad_stakes_are_input_errors(stakes, message):
    with pytest.raises(InputError, match=re.escape(message)):
        solver.solve(STAKES_HAND, policy="greedy", stakes=stakes)


# ---------------------------------------------------------------------------- the CLI

def test_cli_stakes_and_dealt_rules(tmp_path):
    against = tmp_path / "opps.txt"
    against.write_text("\n".join(STAKES_OPPONENTS) + "\n")
    run = capsa_in("solve", STAKES_HAND, "--against", str(against), "--stakes", "100,10,10",
                   "--format", "json")  # fmt: skip
    assert run.returncode == 0, run.stderr
    d = json.loads(run.stdout)
    assert d["ev_staked"] == 720 and d["stakes"] == [100, 10, 10]
    assert d["ev_by_opponent"] == [6, 6, 6]
    for bad, message in (("100,10", "one per opponent"), ("100,0,1", "from 1e-06 to"),
                         ("1,x,1", "not a number")):  # fmt: skip
        run = capsa_in("solve", STAKES_HAND, "--against", str(against), "--stakes", bad)
        assert run.returncode == 2, run.stderr
        assert message in run.stderr and len(run.stderr.strip().splitlines()) == 1
    toml = tmp_path / "dealt.toml"
    toml.write_text('base = "chinese-1-6"\nroyalties_dealt = true\n')
    opp = tmp_path / "one.txt"
    opp.write_text(OPP_FLUSH_FH + "\n")
    run = capsa_in("solve", FOUR_SEVENS_HAND, "--rules", str(toml), "--against", str(opp),
                   "--format", "json")  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["ev"] == 6


def test_batch_carries_stakes_through_every_path(tmp_path):
    from solver.apps.batch import BatchError, run_batch

    src = tmp_path / "in.txt"
    src.write_text(
        f"a: {STAKES_HAND}\nb: {FOUR_SEVENS_HAND}\nc: 2c 2d 5h 5s 7c 7d 9h 9s Jc Jd Kh Ks Ac\n"
    )
    fast, slow = tmp_path / "fast.jsonl", tmp_path / "slow.jsonl"
    run_batch(src, fast, policy="field", workers=1, stakes=[100, 10, 10])
    run_batch(src, slow, policy="field", workers=1, stakes=[100, 10, 10], fast=False)
    a = [json.loads(x) for x in fast.read_text().splitlines()]
    b = [json.loads(x) for x in slow.read_text().splitlines()]
    assert len(a) == len(b) == 3
    for x, y in zip(a, b, strict=True):  # the fast path and solve() agree
        assert x["stakes"] == y["stakes"] == [100, 10, 10]
        assert x["ev_staked"] == pytest.approx(y["ev_staked"], abs=1e-6)
        assert x["ev_staked"] == pytest.approx(np.dot([100, 10, 10], x["ev_by_opponent"]))
    with pytest.raises(BatchError, match="other options"):  # resume needs the same stakes
        run_batch(src, fast, policy="field", workers=1, stakes=[1, 1, 1], resume=True)
    with pytest.raises(InputError, match="one per opponent"):
        run_batch(src, tmp_path / "x.jsonl", policy="field", workers=1, stakes=[1, 1])
