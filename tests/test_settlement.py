"""Settlement and naturals (solver/engine/settlement.py, solver/engine/_kernels.py) vs the oracle.

The oracle is tests/reference.py (``ref_settle``, ``ref_naturals``, ``ref_best_natural``,
``ref_settle_natural``). Random pairs are random deals of 26 cards, each 13 set by one
of three orderings (as dealt, by rank, by suit then rank) cut into front/middle/back in
one of six layouts, or set greedily (best five in the back); in a fifth of the pairs B
repeats A's ranks. So fouls (one or both hands), ties, rows split by suits, pairs to
quads, flushes and straight flushes, royalties and scoops all occur; the random-pairs
tests assert that they do.

Default run: per preset, 100,000 random pairs through the kernel (antisymmetry checked on
all of them) and the first 20,000 compared exactly with ``ref_settle`` (about 2-5 s of
pure-Python oracle per preset); ``pytest -m slow`` compares all 100,000 of another
100,000 per preset. Eight more rulesets (royalty modes, one royalty per hand, fractional
units, multipliers, other suit orders) compare 3,000 pairs each.
"""

from __future__ import annotations

import dataclasses
import itertools
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import solver
from evaluator import CardParseError, get_tables, parse_cards
from solver.engine import _kernels as k
from solver.engine import settlement as S
from solver.engine.compiled import compile_rules
from solver.engine.rules import PRESETS, Rules, load_rules
from tests import reference as R

D = PRESETS["chinese-1-6"]

# ----------------------------------------------------------------------- helpers


def rules(**overrides) -> Rules:
    """The default preset with some settings changed."""
    return dataclasses.replace(D, name="test", **overrides)


#: The shisanshui preset as it was before it followed the 十三水 apps
#: (docs/rules.md#the-shisanshui-preset): suits s > h > c > d and royal flush lines
#: (middle 14, back 7), the default naturals, the home run off, royalties on top of the
#: row's unit and natural ties by order.
EARLIER_SHISANSHUI = dataclasses.replace(
    PRESETS["shisanshui"],
    name="earlier-shisanshui",
    suit_order="shcd",
    royalties=D.royalties + (("middle", "royal_flush", 14), ("back", "royal_flush", 7)),
    naturals=D.naturals,
    home_run_multiplier=1,
    royalty_replaces_row=False,  # rows on top of their unit, as before the apps' payouts
    natural_ties="order",
)


def ids(setting) -> tuple[tuple[int, ...], ...]:
    """A (front, middle, back) text triple as reference id tuples."""
    return tuple(R.ref_cards(row) for row in setting)


def both(a, b, r) -> float:
    """settle(a, b) after checking it equals the oracle and -settle(b, a)."""
    got = S.settle(a, b, r)
    assert got == R.ref_settle(ids(a), ids(b), r)
    assert S.settle(b, a, r) == -got
    return got


# Layouts: how a 13-card ordering is cut into front, middle, back (positions).
_SEG = {
    (3, 5, 5): (range(0, 3), range(3, 8), range(8, 13)),
    (5, 3, 5): (range(0, 5), range(5, 8), range(8, 13)),
    (5, 5, 3): (range(0, 5), range(5, 10), range(10, 13)),
}
LAYOUTS = []
for segs in _SEG.values():
    front = next(s for s in segs if len(s) == 3)
    fives = [s for s in segs if len(s) == 5]
    for mid, back in (fives, fives[::-1]):
        LAYOUTS.append(np.array([*front, *mid, *back], np.int64))
LAYOUTS = np.array(LAYOUTS)


def greedy(hands: np.ndarray) -> np.ndarray:
    """Settings uint8[n, 13]: the best five as the back, the best five of the rest as the
    middle, the last three in front (always legal, and rich in royalty rows)."""
    from evaluator import COMB5
    from evaluator._kernels import _subset_pass_batch

    t = get_tables()
    masks = (1 << COMB5.astype(np.int64)).sum(axis=1)
    out = np.empty_like(hands)
    for lo in range(0, len(hands), 5000):
        h = np.sort(hands[lo : lo + 5000], axis=1)
        s5 = np.empty((len(h), 1287), np.int16)
        s3 = np.empty((len(h), 286), np.int16)
        _subset_pass_batch(h, t.multi5, t.flush5, t.multi3, s5, s3)
        back = masks[np.argmax(s5, axis=1)]
        free = (masks[None, :] & back[:, None]) == 0
        middle = masks[np.argmax(np.where(free, s5, -1), axis=1)]
        # the front's positions, then the middle's, then the back's, each in order
        p = np.arange(13)
        row = (middle[:, None] >> p & 1) + 2 * (back[:, None] >> p & 1)
        out[lo : lo + len(h)] = np.take_along_axis(h, np.argsort(row * 16 + p, axis=1), axis=1)
    return out


def arrange(rng: np.random.Generator, hands: np.ndarray) -> np.ndarray:
    """Settings uint8[n, 13] from hands uint8[n, 13]: an ordering (as dealt, by rank,
    by suit then rank) cut in one of the six layouts, or (a quarter) the greedy setting."""
    n = len(hands)
    scheme = rng.integers(0, 4, n)
    rank = (hands >> 2).astype(np.float64)
    suit = (hands & 3).astype(np.float64)
    key = np.where(
        scheme[:, None] == 0,
        rng.random((n, 13)),
        np.where(scheme[:, None] == 1, rank + rng.random((n, 13)) * 0.5, suit * 16 + rank),
    )
    ordered = np.take_along_axis(hands, np.argsort(key, axis=1), axis=1)
    layout = LAYOUTS[rng.integers(0, len(LAYOUTS), n)]
    out = np.take_along_axis(ordered, layout, axis=1).astype(np.uint8)
    out[scheme == 3] = greedy(hands[scheme == 3])
    return out


def rank_copies(rng: np.random.Generator, a: np.ndarray) -> np.ndarray:
    """For each setting of a, another (disjoint) whose cards repeat a's ranks position by
    position where a free card of that rank is left: rows that tie, or split on suits."""
    out = np.empty_like(a)
    for i, row in enumerate(a.tolist()):
        used = set(row)
        new = []
        for c in row:
            same = [r for r in range(c & ~3, (c & ~3) + 4) if r not in used]
            pick = same[rng.integers(len(same))] if same else None
            if pick is None:
                free = [x for x in range(52) if x not in used]
                pick = free[rng.integers(len(free))]
            used.add(pick)
            new.append(pick)
        out[i] = new
    return out


def random_pairs(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """n pairs of disjoint settings (uint8[n, 13] each); in a fifth of them B repeats
    A's ranks (see rank_copies)."""
    rng = np.random.default_rng(seed)
    decks = rng.permuted(np.tile(np.arange(52, dtype=np.uint8), (n, 1)), axis=1)
    a, b = arrange(rng, decks[:, :13]), arrange(rng, decks[:, 13:26])
    copy = rng.random(n) < 0.2
    b[copy] = rank_copies(rng, a[copy])
    return a, b


def kernel_settle_pairs(a: np.ndarray, b: np.ndarray, r: Rules) -> np.ndarray:
    ka, qa, fa = S.summarize_batch(a, compile_rules(load_rules(r)))
    kb, qb, fb = S.summarize_batch(b, compile_rules(load_rules(r)))
    out = np.empty(len(a))
    k._settle_pairs(ka, qa, fa, kb, qb, fb, S.compile_rules(load_rules(r)).params, out)
    return out


def split(s: np.ndarray) -> tuple[list[int], list[int], list[int]]:
    return s[:3].tolist(), s[3:8].tolist(), s[8:].tolist()


def compare_with_reference(a: np.ndarray, b: np.ndarray, r: Rules, n_ref: int) -> dict:
    """Kernel over all pairs, the oracle on the first n_ref; returns coverage counts of
    the compared pairs (from the kernel's summaries)."""
    got = kernel_settle_pairs(a, b, r)
    assert np.isfinite(got).all()
    # Antisymmetry over every pair, through the kernel.
    np.testing.assert_array_equal(kernel_settle_pairs(b, a, r), -got)
    for i in range(n_ref):
        sa, sb = split(a[i]), split(b[i])
        want = R.ref_settle(sa, sb, r)
        assert got[i] == want, (i, r.name, sa, sb, got[i], want)
    ka, qa, fa = (x[:n_ref] for x in S.summarize_batch(a, compile_rules(load_rules(r))))
    kb, qb, fb = (x[:n_ref] for x in S.summarize_batch(b, compile_rules(load_rules(r))))
    legal = ~fa & ~fb
    wins, losses = (ka > kb).sum(axis=1), (ka < kb).sum(axis=1)
    return {
        "legal_pairs": int(legal.sum()),
        "one_fouled": int((fa != fb).sum()),
        "both_fouled": int((fa & fb).sum()),
        "scoops": int((legal & ((wins == 3) | (losses == 3))).sum()),
        "ties": int((legal & (ka == kb).any(axis=1)).sum()),
        "royalties": int((legal & ((qa > 0).any(axis=1) | (qb > 0).any(axis=1))).sum()),
        "suit_decided": int((legal & ((ka >> 2 == kb >> 2) & (ka != kb)).any(axis=1)).sum()),
    }


# How many of the 100,000 pairs per preset the default run compares with the oracle:
# about 2-5 s of pure-Python reference per preset. `-m slow` compares all 100,000.
N_PAIRS = 100_000
N_REF = 20_000


# 20,000 pairs against the oracle: one preset in every run, the others with the slow
# statistics (-m slow, which CI runs: .ci/run), so the suite keeps to ten minutes
@pytest.mark.parametrize(
    "preset",
    [p if p == "chinese-1-6" else pytest.param(p, marks=pytest.mark.slow) for p in PRESETS],
)
def test_kernel_matches_reference_on_random_pairs(preset):
    """100,000 random pairs per preset through the kernel (antisymmetry checked on all);
    the first 20,000 compared with ref_settle exactly (the slow test compares all)."""
    r = PRESETS[preset]
    a, b = random_pairs(N_PAIRS, seed=list(PRESETS).index(preset))
    stats = compare_with_reference(a, b, r, N_REF)
    # The compared sample exercises what it should.
    assert stats["legal_pairs"] > N_REF // 10
    assert stats["one_fouled"] > N_REF // 10
    assert stats["both_fouled"] > N_REF // 10
    assert stats["scoops"] > N_REF // 20
    if r.suit_order:
        assert stats["suit_decided"] > N_REF // 100
        assert stats["ties"] == 0  # two players never hold the same card
    else:
        assert stats["ties"] > N_REF // 100
    if r.royalties:
        assert stats["royalties"] > N_REF // 100


@pytest.mark.slow
@pytest.mark.long
@pytest.mark.parametrize("preset", list(PRESETS))
def test_kernel_matches_reference_on_all_random_pairs(preset):
    """All 100,000 random pairs per preset compared with ref_settle (minutes)."""
    r = PRESETS[preset]
    a, b = random_pairs(N_PAIRS, seed=100 + list(PRESETS).index(preset))
    compare_with_reference(a, b, r, N_PAIRS)


CUSTOM = {
    "cancel": rules(royalty_mode="cancel"),
    "always-2-4-x2": rules(royalty_mode="always", scoring="2-4", scoop_multiplier=2),
    "one-per-hand": rules(one_royalty_per_hand=True),
    "one-per-hand-cancel": rules(one_royalty_per_hand=True, royalty_mode="cancel"),
    "one-per-hand-always": rules(one_royalty_per_hand=True, royalty_mode="always"),
    "fractions": rules(
        scoop_multiplier=1.5,
        royalties=(
            ("front", "three_of_a_kind", 0.5),
            ("middle", "full_house", 1.25),
            ("middle", "four_of_a_kind", 2.75),
            ("back", "straight_flush", 0.1),
            ("back", "royal_flush", 0.3),
        ),
    ),
    "per-row-royal-second-dshc": rules(
        scoring="per-row",
        surrender_cost=None,
        royalties=D.royalties + (("middle", "royal_flush", 14), ("back", "royal_flush", 7)),
        wheel="second",
        suit_order="dshc",
    ),
    "1-6-x3-suits": rules(scoop_multiplier=3, suit_order="hsdc", royalty_mode="always"),
    # docs/rules.md#tables-as-the-apps-pay-them: a row's royalty as its whole value, under
    # each mode it allows, with one royalty per hand, with values of 1 and below 1 (a row
    # worth less than its unit), and flat fouls under every scoring.
    "whole-row-1-6": rules(royalty_replaces_row=True, scoop_multiplier=2),
    "whole-row-cancel": rules(royalty_replaces_row=True, royalty_mode="cancel"),
    "whole-row-one-per-hand": rules(royalty_replaces_row=True, one_royalty_per_hand=True),
    "whole-row-one-per-hand-cancel-2-4": rules(
        royalty_replaces_row=True,
        one_royalty_per_hand=True,
        royalty_mode="cancel",
        scoring="2-4",
    ),  # fmt: skip
    "whole-row-small-values-cancel": rules(
        royalty_replaces_row=True,
        royalty_mode="cancel",
        scoring="per-row",
        surrender_cost=None,
        royalties=(
            ("front", "three_of_a_kind", 0.5),
            ("middle", "full_house", 1),
            ("middle", "four_of_a_kind", 2.75),
            ("back", "four_of_a_kind", 1),
            ("back", "straight_flush", 0.25),
        ),
    ),
    "flat-foul-1-6-x2": rules(foul_penalty=3, scoop_multiplier=2),
    "flat-foul-2-4-whole-row": rules(foul_penalty=6, scoring="2-4", royalty_replaces_row=True),
    "flat-foul-zero-always": rules(foul_penalty=0, royalty_mode="always"),
}


@pytest.mark.parametrize("name", list(CUSTOM))
def test_kernel_matches_reference_on_custom_rules(name):
    """Royalty modes, one royalty per hand, fractional units and other combinations that
    no preset has: 20,000 pairs through the kernel, 3,000 compared with ref_settle."""
    r = CUSTOM[name]
    a, b = random_pairs(20_000, seed=len(name) * 7919)
    stats = compare_with_reference(a, b, r, 3_000)
    assert stats["legal_pairs"] > 300
    assert stats["royalties"] > 10


# ----------------------------------------------------------------- hand-written
# Every case is checked against ref_settle and for antisymmetry by `both`.

# A scoops B with no royalties: pair/trips/flush against high card/two pair/straight.
A = ("Qh Qd 4c", "Jh Jd Js 5c 6d", "2s 5s 8s Ts Ks")
B = ("7c 8d 9h", "Tc Td 3c 3d 4d", "2d 3h 4h 5h 6c")
# B's front made stronger: A loses the front, wins middle and back.
B2 = ("Kc Kd 9h", "Tc Td 3c 3d 4d", "2d 3h 4h 5h 6c")
# Front and back tie rank for rank with A, B3 loses the middle.
B3 = ("Qc Qs 4h", "Ac Ad 3c 3d 4d", "2h 5h 8h Th Kh")


@pytest.mark.parametrize(
    ("scoring", "mult", "scoop", "two_one", "one_win_two_ties"),
    [
        ("per-row", 1, 3, 1, 1),
        ("1-6", 1, 6, 1, 1),
        ("2-4", 1, 4, 2, 2),
        ("per-row", 2, 6, 1, 1),
        ("1-6", 2, 12, 1, 1),
        ("2-4", 2, 8, 2, 2),
    ],
)
def test_scoring_systems(scoring, mult, scoop, two_one, one_win_two_ties):
    r = rules(scoring=scoring, scoop_multiplier=mult)
    assert both(A, B, r) == scoop
    assert both(A, B2, r) == two_one
    assert both(A, B3, r) == one_win_two_ties


def test_two_four_one_each_and_all_ties():
    r = rules(scoring="2-4")
    a = ("Qh Jd 4c", "Td Th 7h 6h 3c", "2s 5s 8s Js Ks")
    tie = ("Qc Jc 4d", "Tc Ts 7d 6d 3d", "2h 5h 8h Jh Kh")  # the same ranks, row by row
    assert R.ref_row_results(ids(a), ids(tie), r) == (0, 0, 0)
    assert both(a, tie, r) == 0
    assert both(a, tie, PRESETS["chinese-1-6"]) == 0
    # one win (front), one tie (middle), one loss (back): 0
    b = ("Jc 9c 4d", "Tc Ts 7d 6d 3d", "Ac Ad Ah 2d 2c")
    assert R.ref_row_results(ids(a), ids(b), r) == (1, 0, -1)
    assert both(a, b, r) == 0


def test_suit_order_breaks_ties():
    # A vs B3 without suits: front tie, middle A, back tie.
    r = rules(scoring="2-4", suit_order="shcd")  # Qs beats Qh; spades beat hearts
    assert R.ref_row_results(ids(A), ids(B3), r) == (-1, 1, 1)
    assert both(A, B3, r) == 2
    r = rules(scoring="2-4", suit_order="dshc")  # Qd beats Qs: a scoop
    assert both(A, B3, r) == 4
    assert both(A, B3, PRESETS["capsa"]) == 1  # shcd, 1-6: -1 + 1 + 1
    # Two pair: the higher pair's best suit decides (not the kicker or lower pair).
    a = ("2c 3d 5s", "Kc Kd 4s 4h As", "6c 6d 6h 7c 7d")
    b = ("2d 3c 5h", "Kh Ks 4c 4d Ac", "8c 8d 8h 9c 9d")
    r = rules(scoring="per-row", suit_order="shcd")
    assert R.ref_row_results(ids(a), ids(b), r) == (1, -1, -1)  # 5s > 5h; Ks > Kc
    assert both(a, b, r) == -1


# Royalty hands. RA: trips 2 (3), quads T (8), 7-high straight flush (5).
RA = ("2c 2d 2h", "Tc Td Th Ts 4c", "3h 4h 5h 6h 7h")
# RB wins the front (trips A, 3), loses the middle (full house, 2) and the back (a
# full house, no royalty in the back).
RB = ("Ac Ad Ah", "9c 9d 9h 5c 5d", "Kc Kd Ks Qc Qd")
# RC loses every row and has no royalties.
RC = ("As Ks 8c", "Jc Jd 8d 8s 2s", "Ac Kc Qc 9c 6c")


@pytest.mark.parametrize(
    ("overrides", "units"),
    [
        ({}, 1 - 3 + 8 + 5),  # winner
        ({"royalty_mode": "cancel"}, 1 + 5),  # front and middle both earn: cancelled
        ({"royalty_mode": "always"}, 1 + (3 - 3) + (8 - 2) + 5),
        ({"scoring": "2-4"}, 2 - 3 + 8 + 5),
        ({"scoring": "per-row"}, 1 - 3 + 8 + 5),
        ({"scoop_multiplier": 2}, 1 - 3 + 8 + 5),  # no scoop: no multiplier
        ({"one_royalty_per_hand": True}, 1 - 3 + 8),  # A keeps 8, B keeps 3
        ({"one_royalty_per_hand": True, "royalty_mode": "cancel"}, 1 - 3 + 8),
        ({"one_royalty_per_hand": True, "royalty_mode": "always"}, 1 + 8 - 3),
        ({"royalties": ()}, 1),
    ],
)
def test_royalty_modes(overrides, units):
    assert both(RA, RB, rules(**overrides)) == units


@pytest.mark.parametrize(
    ("overrides", "units"),
    [
        ({}, 6 + 16),
        ({"scoring": "per-row"}, 3 + 16),
        ({"scoring": "2-4"}, 4 + 16),
        ({"scoop_multiplier": 2}, (6 + 16) * 2),  # royalties multiplied too
        ({"scoring": "per-row", "scoop_multiplier": 2}, (3 + 16) * 2),
        ({"royalty_mode": "always"}, 6 + 16),
        ({"one_royalty_per_hand": True}, 6 + 8),
    ],
)
def test_scoop_with_royalties(overrides, units):
    assert both(RA, RC, rules(**overrides)) == units


def test_one_royalty_per_hand_keeps_the_back_on_equal_values():
    # Both hands earn 3 in front and 3 in the back; one per hand keeps the backs.
    r = rules(
        one_royalty_per_hand=True,
        royalties=(("front", "three_of_a_kind", 3), ("back", "four_of_a_kind", 3)),
    )
    a = ("4c 4d 4h", "9c 9d 9h 8c 8d", "Kc Kd Kh Ks 3c")
    b = ("Ac Ad Ah", "Tc Td Th 3d 3h", "Qc Qd Qh Qs 2d")
    assert R.ref_row_results(ids(a), ids(b), r) == (-1, -1, 1)
    assert S.summarize(a, compile_rules(load_rules(r)))[1].tolist() == [0, 0, 3, 0]
    assert both(a, b, r) == -1 + 3  # B's front royalty is gone, A's back one is paid
    assert both(a, b, dataclasses.replace(r, one_royalty_per_hand=False)) == -1 - 3 + 3


# Fouled hands: front trips A above a pair-of-kings middle (its own royalties are void).
F = ("As Ad Ac", "Ks Kd 9d 6s 3s", "Jc Jd Js 8c 8d")
# RA's cards set with trips T in front over trips 2 in the middle: fouled.
F2 = ("Tc Td Th", "2c 2d 2h Ts 4c", "3h 4h 5h 6h 7h")


@pytest.mark.parametrize(
    ("overrides", "units"),
    [
        ({}, 3 + 3 + 16),  # scooped, pays all of RA's royalties
        ({"royalty_mode": "cancel"}, 3 + 3 + 16),  # F's front trips cancel nothing
        ({"royalty_mode": "always"}, 3 + 3 + 16),  # and collect nothing
        ({"scoring": "2-4"}, 3 + 1 + 16),
        ({"scoring": "per-row"}, 3 + 16),
        ({"scoop_multiplier": 2}, (3 + 3 + 16) * 2),
        ({"one_royalty_per_hand": True}, 3 + 3 + 8),
        ({"royalties": ()}, 6),
    ],
)
def test_one_fouled_hand(overrides, units):
    r = rules(**overrides)
    assert S.summarize(F, compile_rules(r))[2] and not S.summarize(RA, compile_rules(r))[2]
    assert both(RA, F, r) == units


@pytest.mark.parametrize("preset", list(PRESETS))
def test_two_fouled_hands_settle_zero(preset):
    r = PRESETS[preset]
    assert S.summarize(F2, compile_rules(load_rules(r)))[2]
    assert both(F, F2, r) == 0
    assert S.settle(F, F2, r) == 0.0


def test_royal_flush_lines():
    # Middle royal (hearts) and back royal (spades): legal, spades > hearts under shcd.
    a = ("2c 3d 5h", "Ah Kh Qh Jh Th", "As Ks Qs Js Ts")
    b = ("2d 3c 6h", "8c 8h 9c 9d 4d", "Ad Kd Qd Jd 8d")
    assert both(a, b, EARLIER_SHISANSHUI) == 1 + 14 + 7  # royal flush lines
    assert both(a, b, D) == 1 + 10 + 5  # no royal line: paid as straight flushes
    # 十三水 has no royal line either, and pays each won row its whole value (the front lost)
    assert both(a, b, PRESETS["shisanshui"]) == -1 + 10 + 5
    assert both(a, b, PRESETS["capsa"]) == 1
    # The suit order fouls hearts over spades.
    a_swapped = ("2c 3d 5h", "As Ks Qs Js Ts", "Ah Kh Qh Jh Th")
    assert S.summarize(a_swapped, compile_rules(load_rules(EARLIER_SHISANSHUI)))[2]
    assert not S.summarize(a_swapped, compile_rules(load_rules(D)))[2]
    assert not S.summarize(a_swapped, compile_rules(PRESETS["shisanshui"]))[2]  # no suits
    assert both(a_swapped, b, EARLIER_SHISANSHUI) == (3 + 0) * 2 * -1  # per-row, x2


def test_wheel_both_ways():
    a = ("Kc Qd 9h", "Jc Jd 8s 8h 3s", "Ad 2h 3d 4c 5d")  # back: the wheel
    b = ("Kh Qs 9d", "Jh Js 8c 8d 3c", "2c 3h 4d 5c 6s")  # back: six-high straight
    assert R.ref_row_results(ids(a), ids(b), D) == (0, 0, -1)
    assert both(a, b, D) == -1
    assert both(a, b, rules(wheel="second")) == 1
    # second wheel, but the suits give B the front (Kh > Kc) and the middle (Js > Jc):
    # -1 - 1 + 1
    assert both(a, b, EARLIER_SHISANSHUI) == -1
    # shisanshui: second wheel and no suits: the front and middle tie
    assert both(a, b, PRESETS["shisanshui"]) == 1
    # The wheel straight flush moves too (and keeps its straight flush royalty).
    a = ("Kc Qd 9h", "Jc Jd 8s 8h 3s", "Ad 2d 3d 4d 5d")
    b = ("Kh Qs 9d", "Jh Js 8c 8d 3h", "2c 3c 4c 5c 6c")
    assert both(a, b, D) == -1 - 5
    assert both(a, b, rules(wheel="second")) == 1 + 5


# ----------------------------------------------------------------- properties

RULESETS = [*PRESETS.values(), *CUSTOM.values()]


@st.composite
def table(draw, players: int = 4):
    """Settings of up to four players from one shuffled deck, each arranged at random."""
    deck = np.array(draw(st.permutations(range(52))), dtype=np.uint8)
    seed = draw(st.integers(0, 2**32 - 1))
    hands = deck[: 13 * players].reshape(players, 13)
    return arrange(np.random.default_rng(seed), hands)


@settings(deadline=None, max_examples=150)
@given(table(), st.sampled_from(RULESETS))
def test_antisymmetry_and_zero_sum(settings_, r):
    players = [split(s) for s in settings_]
    totals = [0.0] * len(players)
    for i, j in itertools.combinations(range(len(players)), 2):
        u = S.settle(players[i], players[j], r)
        assert S.settle(players[j], players[i], r) == -u
        totals[i] += u
        totals[j] -= u
    assert sum(totals) == pytest.approx(0.0, abs=1e-9)
    # The batch settlement of every pair gives the same per-player totals.
    keys, roys, fouls = S.summarize_batch(settings_, compile_rules(load_rules(r)))
    ii, jj = np.triu_indices(len(players), 1)
    pair = S.settle_pairs(
        (keys[ii], roys[ii], fouls[ii]), (keys[jj], roys[jj], fouls[jj]), compile_rules(r)
    )
    out = np.zeros(len(players))
    np.add.at(out, ii, pair)
    np.add.at(out, jj, -pair)
    np.testing.assert_allclose(out, totals, atol=1e-9)
    assert abs(out.sum()) < 1e-9


# ----------------------------------------------------------------- kernels and API


def test_compile_rules_fields():
    t = get_tables()
    cr = S.compile_rules(load_rules(D))
    ra = cr.arrays
    assert ra._fields == (
        "remap", "decisive", "suit_rank", "roy", "params", "nat_units", "nat_codes",
        "dealt_units", "eq_top",
    )  # fmt: skip
    assert ra.dealt_units.tolist() == [0, 0, 0]  # royalties_dealt off
    assert (ra.eq_top == np.arange(7917) - 1).all()  # equal rows do not foul
    assert ra.remap.dtype == np.int16 and ra.remap.shape == (7917,)
    assert ra.decisive.dtype == np.int8 and ra.decisive.shape == (7917,)
    assert ra.suit_rank.dtype == np.int64 and ra.suit_rank.tolist() == [0, 0, 0, 0]
    assert ra.roy.dtype == np.float64 and ra.roy.shape == (3, 7917)
    # scoring, scoop multiplier, mode, one per hand, royalties, home run x1 from 3, rows on
    # top of their unit, no flat foul (and its units), ties by order, the code card's x1
    assert ra.params.dtype == np.float64
    # no two-jokers front, equal rows legal, no flat foul for naturals, two holders of the
    # code card multiplied once (x1 here: no code card), no front of both jokers checked
    # as its third card, a scoop adds nothing, no pair cap
    inf = float("inf")
    assert ra.params.tolist() == [1, 1, 0, 0, 1, 1, 3, 0, 0, 0, 0, 1, -1, 0, 0, 0, 1, 0, 0, inf]
    assert ra.nat_units.tolist() == [13, 3, 3, 3]
    assert ra.nat_codes.tolist() == [0, 1, 2, 3]  # dragon, three straights, six pairs, flushes
    assert (ra.remap == np.arange(7917)).all()
    assert S.compile_rules(load_rules(D)) is cr  # cached
    assert S.compile_rules(load_rules("chinese-1-6")) is cr
    assert S.compile_rules(load_rules(None)) is cr
    for read_first in ("chinese-1-6", None, Path("x.toml")):  # load_rules reads names
        with pytest.raises(TypeError, match="load_rules first"):
            S.compile_rules(read_first)  # type: ignore[arg-type]
    assert S.compile_rules(cr) is cr
    assert cr.params is ra.params and cr.rules is D and cr.pareto_safe
    sh = S.compile_rules(PRESETS["shisanshui"]).arrays
    assert (sh.remap == t.wheel_second).all()
    assert sh.suit_rank.tolist() == [0, 0, 0, 0]  # no suit order
    # per-row x2, home run x2 from 2, rows at their whole value, natural ties by payout
    # code x1 (and x1 for two holders), no XX
    assert sh.params.tolist() == [0, 2, 0, 0, 1, 2, 2, 1, 0, 0, 1, 1, -1, 0, 0, 0, 1, 0, 0, inf]
    assert sh.nat_units.tolist() == [104, 52, 52, 52, 26, 26, 6, 6, 6, 6, 6, 6, 6]
    earlier = S.compile_rules(load_rules(EARLIER_SHISANSHUI)).arrays
    assert earlier.suit_rank.tolist() == [1, 0, 2, 3]  # c d h s under s > h > c > d
    no_hr = [0, 2, 0, 0, 1, 1, 2, 0, 0, 0, 0, 1, -1, 0, 0, 0, 1, 0, 0, inf]
    assert earlier.params.tolist() == no_hr  # no HR
    # mau-binh: no home run, a flat foul of 6 (paid to naturals too), ties by difference,
    # equal rows foul (docs/rules.md#the-mau-binh-preset)
    mb = S.compile_rules(PRESETS["mau-binh"]).arrays
    assert mb.params.tolist() == [0, 2, 0, 0, 1, 1, 3, 1, 1, 6, 2, 1, -1, 0, 1, 1, 1, 0, 0, inf]
    # 水庄: x1, home run off, a scoop +1, a pair capped at 8 (docs/rules.md#the-bankers-table)
    water = S.compile_rules(PRESETS["shisanshui-banker"]).params.tolist()
    assert water[:2] == [0, 1] and water[5] == 1 and water[-2:] == [1, 8]
    assert (mb.remap == np.arange(7917)).all()  # the wheel low
    assert S.compile_rules(PRESETS["pusoy"]).arrays.suit_rank.tolist() == [2, 3, 1, 0]
    home_run = rules(home_run_multiplier=2.5, home_run_min_opponents=2)
    assert S.compile_rules(load_rules(home_run)).params.tolist()[5:7] == [2.5, 2]
    assert S.compile_rules(PRESETS["per-row"]).arrays.nat_units.shape == (0,)
    assert not S.compile_rules(PRESETS["capsa"]).arrays.roy.any()
    r = rules(scoring="2-4", royalty_mode="always", one_royalty_per_hand=True)
    assert S.compile_rules(load_rules(r)).params.tolist()[:5] == [2, 1, 2, 1, 1]
    assert S.compile_rules(rules(royalty_mode="cancel")).params[2] == 1
    with pytest.raises(ValueError):
        ra.roy[0, 0] = 1.0  # read-only


def class_representatives() -> dict[int, list[int]]:
    """One row of cards for each of the 7,917 strengths (all 5- and 3-card rows)."""
    from evaluator import tables as tb

    t = get_tables()
    reps = {}
    for n, table in ((5, t.five), (3, t.three)):
        combos = tb._combos(52, n)
        strengths = table[tb._colex(combos)]
        uniq, first = np.unique(strengths, return_index=True)
        reps.update({int(s): combos[i].tolist() for s, i in zip(uniq, first, strict=True)})
    assert len(reps) == 7917
    return reps


def test_royalty_table_by_strength():
    """Every strength's royalty in each row is the oracle's royalty for a row of it."""
    t = get_tables()
    reps = class_representatives()
    for r in (D, PRESETS["shisanshui"], PRESETS["capsa"], CUSTOM["fractions"]):
        roy = S.compile_rules(load_rules(r)).arrays.roy
        for s, cards in reps.items():
            if len(cards) == 3:
                assert roy[0, s] == R.ref_row_royalty("front", cards, r)
                assert roy[1, s] == roy[2, s] == 0
            else:
                assert roy[0, s] == 0
                assert roy[1, s] == R.ref_row_royalty("middle", cards, r)
                assert roy[2, s] == R.ref_row_royalty("back", cards, r)
        royal = int(np.flatnonzero(t.royal)[0])
        assert roy[1, royal] == r.royalty("middle", "royal_flush")


def ev_strength(cards) -> int:
    import evaluator

    return evaluator.evaluate5(list(cards)) if len(cards) == 5 else evaluator.evaluate3(list(cards))


def test_summarize():
    keys, roy, foul = S.summarize(RA, compile_rules(load_rules(D)))
    assert keys.dtype == np.int64 and roy.dtype == np.float64 and isinstance(foul, bool)
    assert not foul and roy.tolist() == [3, 8, 5, 0]
    assert keys[0] <= keys[1] <= keys[2]
    assert [int(x) >> 2 for x in keys] == [ev_strength(c) for c in ids(RA)]
    assert S.summarize(RA, compile_rules(rules(one_royalty_per_hand=True)))[1].tolist() == [
        0,
        8,
        0,
        0,
    ]
    assert S.summarize(F, compile_rules(load_rules(D)))[2] is True
    # 13 ids in front, middle, back order work too.
    flat = parse_cards(" ".join(RA))
    assert (S.summarize(flat, compile_rules(load_rules(D)))[0] == keys).all()
    assert (S.summarize(" ".join(RA), compile_rules(load_rules(D)))[0] == keys).all()
    # keys compare like the oracle's comparison keys, row by row, with suits.
    r = PRESETS["shisanshui"]
    a, b = random_pairs(300, seed=5)
    ka, _, _ = S.summarize_batch(a, compile_rules(load_rules(r)))
    kb, _, _ = S.summarize_batch(b, compile_rules(load_rules(r)))
    for i in range(300):
        for row, (ra_, rb_) in enumerate(zip(split(a[i]), split(b[i]), strict=True)):
            want = R.ref_compare_rows(ra_, rb_, r.wheel, r.suit_order)
            assert np.sign(ka[i, row] - kb[i, row]) == want


def test_subset_keys_and_royalties_match_the_oracle():
    """The keys and royalties of every subset (``_keys_and_royalties``, what solve ranks
    splits with) order rows exactly as the oracle does, suits included, and pay the
    oracle's royalties."""
    from evaluator import COMB3, COMB5
    from solver.strategy.hands.splits import prepare_hand

    rng = np.random.default_rng(3)
    for r in (D, PRESETS["shisanshui"], rules(suit_order="dchs"), CUSTOM["fractions"]):
        cr = S.compile_rules(load_rules(r))
        hand = np.sort(rng.permutation(52)[:13]).astype(np.uint8)
        k5, k3, r5, r3, f3 = prepare_hand(hand, cr)
        assert (f3 == k3).all()  # no jokers: every front is checked by its key
        rows = [hand[c].tolist() for c in COMB5] + [hand[c].tolist() for c in COMB3]
        keys = np.concatenate([k5, k3])
        for i in rng.choice(len(rows), 60, replace=False):
            for j in rng.choice(len(rows), 40, replace=False):
                want = R.ref_compare_rows(rows[i], rows[j], r.wheel, r.suit_order)
                assert np.sign(keys[i] - keys[j]) == want, (rows[i], rows[j])
        for i in range(0, 1287, 7):
            assert k5[i] % 4 == R._cmp_key(rows[i], r.wheel, r.suit_order)[1]
            assert r5[0, i] == R.ref_row_royalty("middle", rows[i], r)
            assert r5[1, i] == R.ref_row_royalty("back", rows[i], r)
        for i in range(286):
            assert r3[i] == R.ref_row_royalty("front", rows[1287 + i], r)


def test_settle_against_one_opponent():
    r = PRESETS["chinese-2-4"]
    a, b = random_pairs(2000, seed=11)
    keys, roys, fouls = S.summarize_batch(a, compile_rules(load_rules(r)))
    kb, rb, fb = S.summarize(split(b[0]), compile_rules(load_rules(r)))
    out = np.empty(2000)
    k._settle_against(keys, roys, fouls, kb, rb, fb, S.compile_rules(load_rules(r)).params, out)
    for i in range(0, 2000, 97):
        want = k._settle(keys[i], roys[i], fouls[i], kb, rb, fb, S.compile_rules(r).params)
        assert out[i] == want
        if not set(a[i].tolist()) & set(b[0].tolist()):
            assert out[i] == S.settle(split(a[i]), split(b[0]), r)


@pytest.mark.parametrize(
    ("a", "b", "message"),
    [
        (("Qh Qd", "Jh Jd Js 5c 6d", "2s 5s 8s Ts Ks"), B, "a front: expected 3 cards, got 2"),
        (A, ("7c 8d 9h", "Tc Td 3c 3d", "2d 3h 4h 5h 6c"), "b middle: expected 5 cards, got 4"),
        (A, ("7c 8d 9h", "Tc Td 3c 3d 4d", "2d 3h 4h 5h 6c 7h"), "b back: expected 5"),
        (("Qh Qd 4c", "Jh Jd Js 5c 6d", "2s 5s 8s Ts Qh"), B, "duplicate card 'Qh'"),
        (("Qh Qd 4c", "Jh Jd Js 5c 6d", "2s 5s 8s Ts Qh"), B, "(front and back)"),
        (("Qh Qd 4c", "Jh Jd Jh 5c 6d", "2s 5s 8s Ts Ks"), B, "duplicate card 'Jh'"),
        (A, ("7c 8d 9h", "Tc Td 3c 3d 4d", "2d 3h 4h 5h Ks"), "card 'Ks' is in both a and b"),
        (("Qh Qd 4x", "Jh Jd Js 5c 6d", "2s 5s 8s Ts Ks"), B, "bad card '4x' at position 3"),
        ((1, 2), B, "a: a setting is a (front, middle, back) triple"),
        ("Qh Qd 4c Jh", B, "13 cards"),
        (A, None, "b: a setting"),
    ],
)
def test_settle_validation(a, b, message):
    with pytest.raises(CardParseError) as exc:
        S.settle(a, b, D)
    assert message in str(exc.value)
    assert isinstance(exc.value, ValueError)


def test_settle_accepts_ids_and_rules_names():
    a = tuple(np.array(R.ref_cards(row), np.uint8) for row in A)
    b = tuple(list(R.ref_cards(row)) for row in B)
    assert S.settle(a, b, "chinese-1-6") == 6
    assert S.settle(a, b) == 6
    assert S.settle(a, b, "per-row") == 3
    assert isinstance(S.settle(a, b), float)


def test_lazy_exports_and_no_numba_on_import():
    assert solver.settle is S.settle
    assert solver.compile_rules is S.compile_rules
    assert solver.find_natural is S.find_natural
    assert solver.settle_natural is S.settle_natural
    with pytest.raises(AttributeError):
        solver.no_such_name  # noqa: B018
    code = (
        "import sys, solver; assert 'numba' not in sys.modules; "
        "import solver.engine.settlement; assert 'numba' not in sys.modules; "
        "solver.settle(('2c 3c 4c', '5c 6c 7c 8c 9d', 'Tc Jc Qc Kc Ac'), "
        "('2d 3d 4d', '5d 6d 7d 8d 9c', 'Td Jd Qd Kd Ad'))"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


# ----------------------------------------------------------------------- naturals

DRAGON = "2c 3d 4h 5s 6c 7d 8h 9s Tc Jd Qh Ks Ad"
SIX_PAIRS = "2c 2d 5h 5s 7c 7d 9h 9s Jc Jd Kh Ks Ad"
SIX_PAIRS_TIE = "2h 2s 5c 5d 7h 7s 9c 9d Jh Js Kc Kd Ac"
SIX_PAIRS_HIGHER = "2h 2s 5c 5d 7h 7s 9c 9d Jh Js Ac Ah 3c"  # top pair aces
SIX_PAIRS_QUADS = "Ac Ad Ah As Kc Kd Qc Qd Jc Jd Tc Td 2c"
SIX_PAIRS_TRIPS = "Ac Ad Ah Kc Kd Qc Qd Jc Jd Tc Td 9c 9d"
FIVE_PAIRS = "Ac Ad Ah As Kc Kd Qc Qd Jc Jd 2c 3d 4h"
THREE_STRAIGHTS = "Qc Kd Ah 2c 3d 4h 5s 6c 5d 6h 7c 8s 9d"
THREE_STRAIGHTS_A23 = "Ac 2d 3h 4c 5d 6h 7s 8c 4d 5h 6s 7c 8d"
THREE_FLUSHES = "2c 5c 9c 3d 6d 8d Td Qd 4h 7h Jh Kh Qh"  # (13 ranks would be a dragon)
THREE_FLUSHES_ONE_SUIT_8 = "2c 5c 9c 3c 6c 8c Tc Qc 4h 7h Jh Kh Qh"


def nat(text: str, r: Rules = D):
    return S.find_natural(parse_cards(text), r)


def test_natural_detection_examples():
    assert nat(DRAGON) == (0, 0, "dragon")
    assert nat(SIX_PAIRS)[::2] == (2, "six_pairs")
    assert nat(SIX_PAIRS_QUADS)[2] == "six_pairs"
    assert nat(SIX_PAIRS_TRIPS)[2] == "six_pairs"
    assert nat(FIVE_PAIRS) is None
    assert nat(THREE_STRAIGHTS)[::2] == (1, "three_straights")
    assert nat(THREE_STRAIGHTS_A23)[2] == "three_straights"
    assert nat(THREE_FLUSHES)[::2] == (3, "three_flushes")
    assert nat(THREE_FLUSHES_ONE_SUIT_8)[2] == "three_flushes"
    assert nat(DRAGON, PRESETS["per-row"]) is None  # naturals off
    # text and any-order ids work; the strongest listed natural wins
    assert S.find_natural(DRAGON) == (0, 0, "dragon")
    only_pairs = rules(naturals=(("six_pairs", 4),))
    assert nat(DRAGON, only_pairs) is None
    assert nat(SIX_PAIRS, only_pairs)[::2] == (0, "six_pairs")
    # a dragon whose cards also make three straights: dragon first by default,
    # three straights first when the list says so
    dragon_straights = "Ac 2d 3h 4c 5d 6h 7s 8c 9d Th Jc Qs Kd"
    assert nat(dragon_straights)[2] == "dragon"
    order = rules(naturals=(("three_straights", 3), ("dragon", 13)))
    assert nat(dragon_straights, order)[::2] == (0, "three_straights")
    # every natural agrees with the oracle
    for text in (DRAGON, SIX_PAIRS, SIX_PAIRS_QUADS, SIX_PAIRS_TRIPS, FIVE_PAIRS):
        check_natural(parse_cards(text), D)
    for text in (THREE_STRAIGHTS, THREE_STRAIGHTS_A23, THREE_FLUSHES, THREE_FLUSHES_ONE_SUIT_8):
        check_natural(parse_cards(text), D)


def test_natural_validation():
    with pytest.raises(CardParseError, match="expected 13 cards, got 12"):
        S.find_natural(DRAGON[:-3])
    with pytest.raises(CardParseError, match="duplicate card"):
        S.find_natural(DRAGON.replace("Ad", "Ks"))
    with pytest.raises(CardParseError, match="duplicate"):
        S.find_natural(np.array([0] * 13, np.uint8))
    with pytest.raises(CardParseError, match="bad card id"):
        S.find_natural(np.array([*range(12), 60], np.uint8))


def check_natural(hand: np.ndarray, r: Rules) -> dict:
    """find_natural agrees with ref_naturals: the first natural it lists is the one
    found, and every listed natural is found alone (by a ruleset listing only it).
    Returns the oracle's {name: key}."""
    found = dict(R.ref_naturals(hand.tolist(), r))
    got = S.find_natural(hand, r)
    assert (got is None) == (not found), (hand, got, found)
    if got is not None:
        assert got[2] == next(iter(found)) == R.ref_best_natural(hand.tolist(), r)[0]
        assert r.naturals[got[0]][0] == got[2]
    for name, units in r.naturals:
        alone = dataclasses.replace(r, naturals=((name, units),))
        assert (S.find_natural(hand, alone) is not None) == (name in found), (name, hand)
    return found


def make_dragon(rng) -> np.ndarray:
    return (np.arange(13) * 4 + rng.integers(0, 4, 13)).astype(np.uint8)


def make_six_pairs(rng) -> np.ndarray:
    kind = rng.integers(0, 4)
    ranks = rng.permutation(13)
    if kind == 0:  # six pairs and a single
        groups = [(r, 2) for r in ranks[:6]] + [(ranks[6], 1)]
    elif kind == 1:  # quads, four pairs, a single
        groups = [(ranks[0], 4)] + [(r, 2) for r in ranks[1:5]] + [(ranks[5], 1)]
    elif kind == 2:  # trips and five pairs
        groups = [(ranks[0], 3)] + [(r, 2) for r in ranks[1:6]]
    else:  # two quads, two pairs, a single
        groups = [(ranks[0], 4), (ranks[1], 4), (ranks[2], 2), (ranks[3], 2), (ranks[4], 1)]
    cards = [r * 4 + s for r, n in groups for s in rng.permutation(4)[:n]]
    return rng.permutation(np.array(cards, np.uint8))


def _run(low: int, n: int) -> list[int]:
    """Ranks of an n-card run starting at low (-1: starting at the ace)."""
    return [12 if x == -1 else x for x in range(low, low + n)]


def make_three_straights(rng) -> np.ndarray:
    while True:
        rows = [_run(rng.integers(-1, 11), 3), _run(rng.integers(-1, 9), 5)]
        rows.append(_run(rng.integers(-1, 9), 5))
        counts = np.bincount([r for row in rows for r in row], minlength=13)
        if counts.max() <= 3:
            break
    used: set[int] = set()
    cards = []
    for row in rows:
        flush_suit = rng.integers(0, 4) if rng.random() < 0.3 else None
        for r in row:
            free = [s for s in range(4) if r * 4 + s not in used]
            s = flush_suit if flush_suit in free else free[rng.integers(0, len(free))]
            used.add(r * 4 + s)
            cards.append(r * 4 + s)
    return rng.permutation(np.array(cards, np.uint8))


def make_three_flushes(rng) -> np.ndarray:
    suits = rng.integers(0, 4, 3)  # front, middle, back (may repeat)
    need = np.bincount(suits, weights=[3, 5, 5], minlength=4)
    cards = []
    for s in range(4):
        n = int(need[s])
        if n:
            ranks = rng.permutation(13)[:n]
            if rng.random() < 0.2 and n == 5:  # sometimes a straight flush
                low = rng.integers(0, 9)
                ranks = np.arange(low, low + 5)
            cards += [int(r) * 4 + s for r in ranks]
    return rng.permutation(np.array(cards, np.uint8))


MAKERS = {
    "dragon": make_dragon,
    "six_pairs": make_six_pairs,
    "three_straights": make_three_straights,
    "three_flushes": make_three_flushes,
}


@pytest.mark.parametrize("name", list(MAKERS))
@pytest.mark.parametrize("preset", ["chinese-1-6", "shisanshui"])
@pytest.mark.sampled  # tests/sampling.py: every value once by default, all under -m slow
def test_constructed_naturals_match_reference(name, preset):
    """15 constructed hands per natural: detection as the oracle, and keys ordered as the
    oracle's keys for every pair of them (and settled as the oracle settles them)."""
    r = PRESETS[preset]
    rng = np.random.default_rng(len(name) + len(preset))
    hands = [MAKERS[name](rng) for _ in range(15)]
    alone = dataclasses.replace(r, naturals=((name, 3),))
    ours, theirs = [], []
    for h in hands:
        assert len(set(h.tolist())) == 13
        found = check_natural(h, r)
        got = S.find_natural(h, alone)
        assert got is not None and name in found
        ours.append(got[1])
        theirs.append(found[name])
    for i, j in itertools.combinations(range(len(hands)), 2):
        assert np.sign(ours[i] - ours[j]) == R._cmp(theirs[i], theirs[j]), (hands[i], hands[j])
        a = (0, ours[i], name)
        b = (0, ours[j], name)
        assert S.settle_natural(a, b, alone) == R.ref_settle_natural(
            (name, theirs[i]), (name, theirs[j]), alone
        )


def test_random_hands_match_reference():
    """200 random hands (about 1.5% hold a natural) against the oracle, every natural;
    the batch test below runs 3,000 more against find_natural."""
    rng = np.random.default_rng(21)
    for r in (D, PRESETS["shisanshui"]):
        for _ in range(100):
            check_natural(rng.permutation(52)[:13].astype(np.uint8), r)


def test_find_naturals_batch_matches_single():
    rng = np.random.default_rng(8)
    hands = rng.permuted(np.tile(np.arange(52, dtype=np.uint8), (3000, 1)), axis=1)[:, :13]
    extra = [MAKERS[n](rng) for n in MAKERS for _ in range(5)]
    hands = np.vstack([hands, np.array(extra)])
    for r in (D, PRESETS["shisanshui"], rules(naturals=(("three_flushes", 2),))):
        nids, keys = S.find_naturals(hands, compile_rules(load_rules(r)))
        for i in range(len(hands)):
            got = S.find_natural(hands[i], r)
            assert (nids[i], keys[i]) == ((-1, 0) if got is None else got[:2])
        assert (nids >= 0).sum() >= 20
    nids, keys = S.find_naturals(hands, compile_rules(PRESETS["per-row"]))
    assert (nids == -1).all()


def test_natural_ties_and_order():
    dragon, pairs = nat(DRAGON), nat(SIX_PAIRS)
    pairs_tie, pairs_higher = nat(SIX_PAIRS_TIE), nat(SIX_PAIRS_HIGHER)
    straights, flushes = nat(THREE_STRAIGHTS), nat(THREE_FLUSHES)
    cases = [
        (dragon, None, 13),
        (None, dragon, -13),
        (dragon, pairs, 13),
        (dragon, nat(DRAGON.replace("Ad", "Ac")), 0),  # all dragons tie
        (straights, pairs, 3),
        (pairs, straights, -3),
        (pairs, flushes, 3),
        (flushes, None, 3),
        (pairs, pairs_tie, 0),  # same pair ranks: a full tie
        (pairs_higher, pairs, 3),  # aces over kings
        (nat(SIX_PAIRS_QUADS), nat(SIX_PAIRS_TRIPS), 3),  # A A K Q J T over A K Q J T 9
        (None, None, 0),
    ]
    for a, b, units in cases:
        assert S.settle_natural(a, b, D) == units
        assert S.settle_natural(b, a, D) == -units
        ref_a = None if a is None else (a[2], R.ref_best_natural(_hand_of(a), D)[1])
        ref_b = None if b is None else (b[2], R.ref_best_natural(_hand_of(b), D)[1])
        assert R.ref_settle_natural(ref_a, ref_b, D) == units
    # Three straights: the back decides first (T-high over 9-high), then the middle.
    low = nat("Qc Kd Ah 2c 3d 4h 5s 6c 5d 6h 7c 8s 9d")
    high = nat("Qc Kd Ah 2c 3d 4h 5s 6c 6d 7h 8c 9s Td")
    assert S.settle_natural(high, low, D) == 3
    # Three flushes: back, then middle, then front.
    f1 = nat("2c 5c 9c 3d 6d 8d Td Qd 4h 7h Jh Kh Qh")
    f2 = nat("2s 5s 9s 3c 6c 8c Tc Qc 4d 7d Jd Kd Qd")
    f3 = nat("2s 6s 9s 3c 6c 8c Tc Qc 4d 7d Jd Kd Qd")
    assert f1[2] == f2[2] == f3[2] == "three_flushes"
    assert S.settle_natural(f1, f2, D) == 0
    assert S.settle_natural(f3, f2, D) == 3
    # Payouts and order come from the ruleset.
    r = rules(naturals=(("six_pairs", 5), ("dragon", 13)))
    rp, rd = nat(SIX_PAIRS, r), nat(DRAGON, r)
    assert S.settle_natural(rp, rd, r) == 5
    assert S.settle_natural(None, rd, r) == -13


def _hand_of(found):
    for text in (
        DRAGON,
        SIX_PAIRS,
        SIX_PAIRS_TIE,
        SIX_PAIRS_HIGHER,
        SIX_PAIRS_QUADS,
        SIX_PAIRS_TRIPS,
        THREE_STRAIGHTS,
        THREE_FLUSHES,
        DRAGON.replace("Ad", "Ac"),
    ):
        if nat(text) == found:
            return parse_cards(text).tolist()
    raise AssertionError(found)


def test_settle_natural_validation():
    with pytest.raises(ValueError, match="out of range"):
        S.settle_natural((7, 0, "dragon"), None, D)
    with pytest.raises(ValueError, match="is 'dragon'"):
        S.settle_natural((0, 0, "six_pairs"), None, D)
    with pytest.raises(ValueError, match="find_natural"):
        S.settle_natural("dragon", None, D)


@pytest.mark.parametrize("name", list(MAKERS))
@pytest.mark.parametrize("preset", ["chinese-1-6", "capsa", "shisanshui"])
def test_natural_setting_shows_the_natural(name, preset):
    r = PRESETS[preset]
    rng = np.random.default_rng(99)
    alone = dataclasses.replace(r, naturals=((name, 3),))
    for _ in range(10):
        hand = MAKERS[name](rng)
        front, middle, back = S.natural_setting(hand, compile_rules(load_rules(alone)))
        assert sorted([*front, *middle, *back]) == sorted(hand.tolist())
        assert (len(front), len(middle), len(back)) == (3, 5, 5)
        assert not S.summarize((front, middle, back), compile_rules(load_rules(r)))[2]  # legal
        if name == "three_straights":
            assert R._is_straight3(front) and R._is_straight5(middle) and R._is_straight5(back)
        if name == "three_flushes":
            assert all(R._is_flush(row) for row in (front, middle, back))
    assert S.natural_setting(FIVE_PAIRS, compile_rules(load_rules(r))) is None


def test_natural_setting_puts_the_stronger_suit_in_the_back():
    # Two flushes of the same ranks: only the suit order tells middle from back.
    hand = parse_cards("2c 5c 9c 3d 6d 8d Td Qd 3h 6h 8h Th Qh")
    for order in ("shcd", "dchs"):
        r = dataclasses.replace(PRESETS["capsa"], suit_order=order)
        front, middle, back = S.natural_setting(hand, compile_rules(load_rules(r)))
        assert not S.summarize((front, middle, back), compile_rules(load_rules(r)))[2]
        assert (
            S.summarize((front, middle, back), compile_rules(load_rules(r)))[0][2]
            > S.summarize((front, back, middle), compile_rules(load_rules(r)))[0][2]
        )


def test_loaded_rules_work():
    r = load_rules("shisanshui")
    assert S.settle(A, B, r) == 6
