"""Exact solves of hands holding jokers (docs/rules.md#jokers) against given opponents
equal the oracle's brute force over all 72,072 splits (tests/reference.py tries every
card for every joker), and the settings they give are worth that at the table."""

from __future__ import annotations

import numpy as np
import pytest

from evaluator import format_cards
from solver import load_rules, solve
from solver.engine.seating import with_jokers
from tests import reference as ref
from tests.kept import keep
from tests.test_big_tables import some_setting

JOKERS = ref.JOKER_IDS


def _deal(jokers: int, mine_jokers: int, rng: np.random.Generator) -> list[tuple[int, ...]]:
    """Four hands of the 52 cards and ``jokers`` jokers, the first holding
    ``mine_jokers`` of them, the others the rest (the 54-card deck deals 52)."""
    rest = list(range(52))
    rng.shuffle(rest)
    mine = [*JOKERS[:mine_jokers], *rest[: 13 - mine_jokers]]
    rest = rest[13 - mine_jokers :] + list(JOKERS[mine_jokers:jokers])
    rng.shuffle(rest)
    others = [tuple(sorted(rest[13 * i : 13 * i + 13])) for i in range(3)]
    return [tuple(sorted(mine)), *others]


@pytest.mark.parametrize(
    ("preset", "jokers", "mine_jokers", "seed"),
    [
        ("chinese-1-6", 1, 1, 1),
        ("chinese-2-4", 2, 1, 2),
        ("shisanshui", 2, 1, 3),
        ("per-row", 2, 2, 4),  # both jokers in the hand
    ],
)
def test_an_exact_solve_with_jokers_equals_the_brute_force(
    preset, jokers, mine_jokers, seed, monkeypatch
):
    """A hand with a joker against three given opponents (the other joker, where there
    are two, in an opponent's hand; 十三水's home run on): the solve's value is the
    oracle's best, and its setting, settled by the oracle, is worth that. The oracle's
    key of a row with a joker (``ref_key5``, ``ref_key3``: pure functions of the row and
    the wheel, every stand-in tried) is kept for the test (tests/kept.py), not tried
    again in each of the splits the row is part of."""
    with_joker = lambda cards, *_: any(ref.is_joker(c) for c in cards)  # noqa: E731
    keep(monkeypatch, "ref_key5", with_joker)
    keep(monkeypatch, "ref_key3", with_joker)
    rng = np.random.default_rng(seed)
    rules = with_jokers(load_rules(preset), jokers)
    code = rules.deck_code
    hands = _deal(jokers, mine_jokers, rng)
    mine, opps = hands[0], [some_setting(h, rng, rules) for h in hands[1:]]
    against = [[format_cards(list(r), code) for r in o] for o in opps]
    sol = solve(format_cards(list(mine), code), rules, against=against)
    value, _, _ = ref.ref_best_setting(mine, opps, rules)
    assert sol.ev_play * 3 == pytest.approx(value, abs=1e-9)
    ids = iter(JOKERS)
    chosen = tuple(
        tuple(next(ids) if t == "X" else ref.ref_cards(t)[0] for t in getattr(sol, r).split())
        for r in ("front", "middle", "back")
    )
    assert sorted(sum(chosen, ())) == sorted(mine)
    assert ref.ref_settle_table([chosen, *opps], rules)[0] == pytest.approx(value)
