"""Why this setting: ``ev_parts`` (rows, bonus, royalties, the opponents' naturals) adds up
to ``ev_play`` for every policy and ruleset, and against known opponents it is the
oracle's own settlement split into the same parts (tests/reference.py)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import evaluator as ev
from solver import solve
from solver.engine.compiled import compile_rules
from solver.engine.rules import PRESETS, load_rules, rules_from_dict
from solver.strategy.hands.deal import random_hands
from tests import reference as ref
from tests.golden.make import against_opponents

PARTS = ("rows", "bonus", "royalties", "naturals")
HAND = "As Ks Qs Js Ts 9h 9d 9c 2s 3d 4c 5h 7d"
#: Rulesets whose every line of the settlement shows in a part: scoop multipliers,
#: royalty modes, one royalty per hand, royalties for the dealt cards, the home run.
CUSTOM = {
    "always-x2": {"royalty_mode": "always", "scoop_multiplier": 2},
    "cancel": {"base": "capsa", "royalty_mode": "cancel", "royalties": True},
    "one-per-hand": {"base": "chinese-2-4", "one_royalty_per_hand": True},
    "dealt": {"royalties_dealt": True},
    "home-run": {"base": "shisanshui", "home_run_multiplier": 2},
    "home-run-1-6": {"home_run_multiplier": 3, "home_run_min_opponents": 2},
}


def rules_named(name: str):
    return load_rules(name) if name in PRESETS else rules_from_dict(CUSTOM[name], name=name)


def split_rows(text: str) -> tuple[tuple[int, ...], ...]:
    return tuple(tuple(ev.parse_cards(r).tolist()) for r in text.split("|"))


def total(parts: dict) -> float:
    return sum(parts[k] for k in PARTS)


# --------------------------------------------------------------------------- the oracle


def test_the_oracles_parts_add_up_to_its_settlement():
    rng = np.random.default_rng(5)
    for name in [*PRESETS, *CUSTOM]:
        rules = rules_named(name)
        for _ in range(60):
            deck = rng.permutation(52)
            a = (deck[:3], deck[3:8], deck[8:13])
            b = (deck[13:16], deck[16:21], deck[21:26])
            if rng.random() < 0.25:  # fouled settings now and then
                a = (deck[8:11], deck[3:8], deck[11:13].tolist() + deck[:3].tolist())
            parts = ref.ref_settle_parts(a, b, rules)
            assert sum(parts.values()) == pytest.approx(ref.ref_settle(a, b, rules), abs=1e-9)


def test_a_scoop_puts_its_bonus_and_multiplier_in_the_bonus():
    """Under shisanshui (per-row, scoop x2, rows at their whole value): a scoop of three
    rows with a middle full house (worth 2) and a back straight flush (worth 5) is 3 rows,
    1 + 4 royalties (what they add to the rows' units) and 8 more for the multiplier."""
    rules = load_rules("shisanshui")
    a = split_rows("2c 2d 3h | Ah Ad Ac Kh Kd | 9s 8s 7s 6s 5s")
    b = split_rows("4c 5d 7h | Jh Jd 4h 4d 3c | Qh Qd Qc 6h 6d")
    assert ref.ref_settle(a, b, rules) == 16
    assert ref.ref_settle_parts(a, b, rules) == {"rows": 3.0, "bonus": 8.0, "royalties": 5.0}


# --------------------------------------------------------------------------- against


@pytest.mark.parametrize("name", [*PRESETS, *CUSTOM])
def test_against_known_opponents_the_parts_are_the_oracles(name):
    """solve(against=...): the best setting's parts and a played setting's, per opponent,
    equal the oracle's settlement of the table split into parts (home run included)."""
    rules = rules_named(name)
    rng = np.random.default_rng(11)
    hands = [HAND, *(ev.format_cards(h) for h in random_hands(rng, 5))]
    for i, hand in enumerate(hands):
        n = 1 + i % 3 if "home-run" not in name else 3
        opponents = against_opponents(hand, n, seed=i)
        opp_rows = [split_rows(o) for o in opponents]
        played = ev.format_cards(ev.parse_hand(hand)[::-1])  # an arbitrary, often fouled, setting
        cards = played.split()
        played = f"{' '.join(cards[:3])} | {' '.join(cards[3:8])} | {' '.join(cards[8:])}"
        # at a banker's table, seat 0 is the banker: it settles with every opponent
        seat = {"seat": "banker"} if rules.banker else {}
        sol = solve(hand, rules=rules, against=opponents, top=2, played=played, **seat).to_dict()
        for setting, parts in (
            (" | ".join(sol[r] for r in ("front", "middle", "back")), sol["ev_parts"]),
            (played, sol["played"]["ev_parts"]),
        ):
            table = [split_rows(setting), *opp_rows]
            want = ref.ref_table_parts(table, rules, 0)
            for k in PARTS:
                assert parts[k] == pytest.approx(want[k] / n, abs=2e-6), (name, hand, k)
        assert total(sol["ev_parts"]) == pytest.approx(sol["ev_play"], abs=3e-6)
        for alt in sol["alternatives"]:
            assert total(alt["ev_parts"]) == pytest.approx(alt["ev"], abs=3e-6)


def test_the_home_run_is_bonus():
    """A table where the hand scoops every opponent (one beaten in every row, two fouled)
    under a home run x2: its extra shows in the bonus, as the oracle's table says."""
    rules = dataclasses.replace(load_rules("chinese-1-6"), name="hr", home_run_multiplier=2)
    hand = "Ah Ad Ac As Kh Kd Kc Ks Qh Qd 2c 3c 4c"
    opponents = [
        "8h 5s 2d | Th Td 8s 6s 5d | Jh Jd 9h 9d 7s",
        "7h 7d 7c | 8c 8d 6h 6d 5h | 9s 9c Ts 3d 3s",  # fouled: front trips over two pair
        "Js Jc 6c | Tc 4s 4h 4d 2h | Qs Qc 2s 3h 5c",
    ]
    sol = solve(hand, rules=rules, against=opponents, top=0).to_dict()
    table = [split_rows(" | ".join(sol[r] for r in ("front", "middle", "back")))]
    table += [split_rows(o) for o in opponents]
    want = ref.ref_table_parts(table, rules, 0)
    plain = ref.ref_table_parts(table, dataclasses.replace(rules, home_run_multiplier=1), 0)
    assert want["bonus"] > plain["bonus"] and want["rows"] == plain["rows"] == 9
    for k in PARTS:
        assert sol["ev_parts"][k] == pytest.approx(want[k] / 3, abs=2e-6)


# --------------------------------------------------------------------------- every policy


@pytest.mark.parametrize("policy", ["mc", "field", "greedy"])
@pytest.mark.parametrize("name", list(PRESETS))
def test_the_parts_add_up_to_ev_play_for_every_policy_and_preset(policy, name):
    rng = np.random.default_rng(hash((policy, name)) % 2**32)
    hands = [HAND, *(ev.format_cards(h) for h in random_hands(rng, 3))]
    for i, hand in enumerate(hands):
        kw = {"samples": 300, "seed": i} if policy == "mc" else {}
        cards = hand.split()
        played = f"{' '.join(cards[:3])} | {' '.join(cards[3:8])} | {' '.join(cards[8:])}"
        sol = solve(hand, rules=name, policy=policy, played=played, **kw).to_dict()
        assert set(sol["ev_parts"]) == set(PARTS)
        assert total(sol["ev_parts"]) == pytest.approx(sol["ev_play"], abs=3e-6)
        assert total(sol["played"]["ev_parts"]) == pytest.approx(sol["played"]["ev"], abs=3e-6)
        for alt in sol["alternatives"]:
            assert total(alt["ev_parts"]) == pytest.approx(alt["ev"], abs=3e-6)
        if policy != "mc":
            assert sol["ev_parts"]["naturals"] == 0.0  # the field leaves them out


def test_with_stakes_the_parts_are_units_per_opponent():
    for policy in ("mc", "field"):
        kw = {"samples": 300, "seed": 2} if policy == "mc" else {}
        sol = solve(HAND, policy=policy, stakes=[100, 10, 10], **kw).to_dict()
        assert total(sol["ev_parts"]) == pytest.approx(sol["ev_play"], abs=3e-6)
        assert sol["ev_staked"] != pytest.approx(sol["ev_play"], abs=1e-3)


def test_mc_puts_what_the_opponents_naturals_take_in_naturals():
    """The naturals part is what the dealt opponents' declared naturals take, per
    opponent: with six pairs and three straights paying 30 it is clearly below zero, and
    it is exactly the mean over the same deals of their payouts."""
    from solver.strategy.solving.scoring import deal_opponents, mc_deals

    rules = rules_from_dict({"naturals": {"six_pairs": 30, "three_straights": 30}}, name="nat")
    cr = compile_rules(load_rules(rules))
    hand = np.sort(ev.parse_hand(HAND))
    sol = solve(HAND, rules=rules, samples=3000, seed=4, top=0).to_dict()
    deals = mc_deals(3000, 3)
    opp = deal_opponents(hand, cr, 3, deals, 4)
    paid = np.where(opp.nat >= 0, 30.0, 0.0).reshape(deals, 3)
    assert paid.sum() > 0
    assert sol["ev_parts"]["naturals"] == pytest.approx(-paid.mean(), abs=1e-6)


def test_a_broken_royal_flush_shows_in_the_royalties():
    """The issue's question: breaking the royal flush costs its royalty units, and the
    parts say so (a runner-up of another back gives up royalties, not rows)."""
    sol = solve(HAND, policy="field", top=3).to_dict()
    best = sol["ev_parts"]
    other_back = [a for a in sol["alternatives"] if a["back"] != sol["back"]]
    assert other_back
    for alt in other_back:
        lost = {k: best[k] - alt["ev_parts"][k] for k in PARTS}
        assert lost["royalties"] > 4.0 and lost["royalties"] == max(lost.values())
