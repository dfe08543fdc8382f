"""Opponent models: the styles (``greedy``, ``safe``) against their oracles, and what a
Monte Carlo solve assumes about the table (``opponents``)."""

from __future__ import annotations

import numpy as np
import pytest

from solver.engine.compiled import compile_rules
from solver.engine.rules import load_rules
from solver.strategy import setting as P
from solver.strategy.splits import candidates
from solver.strategy.trained import get_field
from tests import reference as ref


def random_hands(n: int, seed: int) -> np.ndarray:
    """n random hands, sorted (uint8[n, 13])."""
    rng = np.random.default_rng(seed)
    return np.sort(np.stack([rng.permutation(52)[:13] for _ in range(n)]), axis=1).astype(np.uint8)


@pytest.mark.parametrize("preset", ["chinese-2-4", "capsa", "shisanshui"])
def test_safe_is_the_legal_setting_whose_weakest_row_is_strongest(preset):
    """``safe`` (the kernel ``_safe``) against the brute force over every legal split:
    the same (weakest midrank, sum) pair, a legal setting of the hand's own cards."""
    rules = load_rules(preset)
    cr = compile_rules(rules)
    fx = get_field(cr).fx

    def midrank(r, key):
        return float(fx[r, key, 0] + 0.5 * fx[r, key, 1])

    hands = random_hands(12, 31)
    out = P.set_hands(hands, rules, "safe")
    for hand, row in zip(hands, out, strict=True):
        assert sorted(row.tolist()) == hand.tolist()
        f, m, b = row[:3].tolist(), row[3:8].tolist(), row[8:].tolist()
        assert ref.ref_is_legal(f, m, b, rules.wheel, rules.suit_order)
        every = candidates(hand, cr, prune=False)
        want = ref.ref_safe_choice(every.keys.tolist(), midrank)
        mine = _keys_of(hand, row, cr)
        u = [midrank(r, k) for r, k in enumerate(mine)]
        assert (min(u), u[0] + u[1] + u[2]) == pytest.approx(want, abs=1e-12)


def _keys_of(hand, row, cr):
    from solver.engine.settlement import summarize

    keys, _, foul = summarize(np.asarray(row, np.uint8), cr)
    assert not foul
    return [int(k) for k in keys]
