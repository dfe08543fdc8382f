"""The Pareto front hand by hand (``CompiledRules.pareto_below``): with a joker in the
deck, ``chinese-1-6``, ``chinese-2-4`` and ``mau-binh`` pay five of a kind less than a
straight flush in the middle and the back, so a setting stronger in every row can be
worth less, and the ruleset is not safe for the front (docs/architecture.md#the-pareto-front).
A hand whose rows all stay below five of a kind is: for it the royalties never fall,
so only its front is scored; a hand that can make five of a kind scores every legal
split. Checked: the keys where the royalties fall, that the front's best is the best of
every legal split (the same Monte Carlo deals), and which hands score every split.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from solver.engine.compiled import KEY_STEP, compile_rules
from solver.engine.rules import load_rules
from solver.engine.seating import at_table
from solver.engine.setting_cards import hand_faces
from solver.strategy.hands.splits import candidates
from solver.strategy.solving.solve import solve

FIVE = "X Ah Ad Ac As Kd Qh Jc 9s 8s 7d 5c 3h"  # four aces and a joker: five of a kind
ONE = "X Ah Kd Qh Jc 9s 8s 7d 5c 5h 3d 2c 2d"  # a joker, no four of a rank
PLAIN = "Ah Kd Qh Jc 9s 8s 7d 5c 5h 3d 2c 2d Td"  # no joker


def _cr(name: str, jokers: int):
    return compile_rules(at_table(load_rules(name), None, jokers))


def _hand(text: str, cr) -> np.ndarray:
    return hand_faces(text, cr.rules.deck.code)


@pytest.mark.parametrize("name", ["chinese-1-6", "chinese-2-4", "mau-binh"])
def test_five_of_a_kind_is_where_the_royalties_fall(name):
    """Unsafe with a joker, safe without; the keys below which the royalties never
    fall: the front nowhere, the middle and back at the weakest five of a kind (its
    strength on the ruleset's scale, times the keys of a strength)."""
    plain = _cr(name, 0)
    assert plain.pareto_safe and plain.pareto_below is None
    cr = _cr(name, 1)
    assert not cr.pareto_safe and cr.pareto_below is not None
    front, middle, back = cr.pareto_below
    assert middle == back and front > int(cr.arrays.remap.max()) * KEY_STEP
    fives = cr.tables.category == cr.tables.category.max()  # five of a kind, on top
    assert middle == int(cr.arrays.remap[fives].min()) * KEY_STEP
    assert _cr("shisanshui", 1).pareto_below is None  # 十三水 pays five of a kind more


def test_a_hand_that_can_make_five_of_a_kind_scores_every_split():
    cr = _cr("chinese-1-6", 1)
    for text, whole in ((FIVE, True), (ONE, False), (PLAIN, False)):
        hand = _hand(text, cr)
        front, every = candidates(hand, cr), candidates(hand, cr, prune=False)
        assert front.pruned != whole and (len(front) == len(every)) == whole, text


@pytest.mark.parametrize("text", [FIVE, ONE, PLAIN])
def test_the_front_holds_the_best_of_every_split(text):
    """Monte Carlo values of every legal split (the same deals) never beat the best of
    the splits scored."""
    cr = _cr("chinese-1-6", 1)
    everything = dataclasses.replace(cr, pareto_below=None)
    front = solve(text, rules=cr, samples=300, seed=4, top=0, pool=False)
    every = solve(text, rules=everything, samples=300, seed=4, top=0, pool=False)
    assert every.ev_play == front.ev_play
    assert every.candidates >= front.candidates
