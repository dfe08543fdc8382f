"""Opponent models: the styles (``greedy``, ``safe``) against their oracles, and what a
Monte Carlo solve assumes about the table (``opponents``)."""

from __future__ import annotations

import numpy as np
import pytest

from solver.engine.compiled import compile_rules
from solver.engine.rules import load_rules
from solver.strategy.field_model import setting as P
from solver.strategy.field_model.trained import get_field
from solver.strategy.hands.splits import candidates
from tests import reference as ref
from tests import shared
from tests.helpers import random_hands


@pytest.mark.parametrize("preset", ["chinese-2-4", "capsa", "shisanshui"])
def test_safe_is_the_legal_setting_whose_weakest_row_is_strongest(preset):
    """``safe`` (the kernel ``_safe``) against the brute force over every legal split:
    the same (weakest midrank, sum) pair, a legal setting of the hand's own cards."""
    rules = load_rules(preset)
    cr = compile_rules(load_rules(rules))
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


# --------------------------------------------------------------------------- solve


HANDS = (
    "As Kd Qh Jc 9s 8d 7h 6c 5s 4d 3h 2c 2s",
    "Ah Ad Kc Ks 7d 7c 9h Th Jh Qs 2d 3c 4s",
    "2c 3c 4c 5c 6c 7d 8d 9d Td Jd Qs Ks As",
)


@pytest.fixture(scope="module")
def pool_dir(tmp_path_factory):
    """A small opponent pool of chinese-1-6 (the default ruleset) in a folder of its own
    (built once a run, tests/shared.py)."""
    folder = tmp_path_factory.mktemp("pools")
    shared.pool(compile_rules(load_rules("chinese-1-6")), 40_000, folder)
    return folder


@pytest.mark.parametrize("pooled", [False, True])
def test_field_opponents_are_todays_mc_byte_for_byte(pooled, pool_dir, monkeypatch):
    """``opponents="field"`` (and the list of one field a seat) is the answer of a solve
    without it, pooled and dealt, for several hands, seeds and tables."""
    import json

    from solver.strategy.solving.solve import solve

    if pooled:
        monkeypatch.setenv("CAPSA_POOL_DIR", str(pool_dir))
    for hand in HANDS:
        for seed, players in ((1, 4), (7, 2), (123, 3)):
            base = solve(hand, players=players, seed=seed, samples=300, pool=pooled)
            assert base.pooled is pooled
            want = json.dumps(base.to_dict())
            for spec in ("field", ["field"] * (players - 1), ",".join(["field"] * (players - 1))):
                got = solve(hand, players=players, seed=seed, samples=300, pool=pooled,
                            opponents=spec)  # fmt: skip
                assert json.dumps(got.to_dict()) == want
                assert got.opponents == "field" and got.pooled is pooled


@pytest.mark.parametrize("style", ["greedy", "safe"])
def test_the_opponents_at_the_table_are_set_by_the_model(style):
    """The Monte Carlo opponents dealt for a style are the dealt hands set by that style
    (``set_hands``), and candidates' values are the oracle's settlement against them
    (a ruleset without naturals, so that every opponent plays its setting)."""
    from dataclasses import replace

    from solver.engine.settlement import summarize_batch
    from solver.strategy.hands.deal import deal_hands
    from solver.strategy.opposition.opponents import resolve_opponents, seat_setter
    from solver.strategy.solving import scoring as SC

    rules = replace(load_rules("chinese-2-4"), naturals=())
    cr = compile_rules(load_rules(rules))
    hand = random_hands(1, 5)[0]
    opp = SC.deal_opponents(
        hand, cr, 2, 30, 11, set_seats=seat_setter(resolve_opponents(style, cr, 2), cr)
    )
    dealt = deal_hands(np.random.default_rng(11), 30, 2, exclude=hand).reshape(60, 13)
    settings = P.set_hands(dealt, rules, style)
    keys, _, fouls = summarize_batch(settings, cr)
    assert (opp.keys == keys).all() and not fouls.any()
    cands = candidates(hand, cr)
    scores = SC.score_against(cands, cr, opp)
    for i in range(0, len(cands), max(1, len(cands) // 4)):
        mine = tuple(tuple(int(c) for c in part) for part in _cards(hand, cands.split[i]))
        total = 0.0
        for s in settings:
            theirs = (tuple(s[:3].tolist()), tuple(s[3:8].tolist()), tuple(s[8:].tolist()))
            total += ref.ref_settle(mine, theirs, rules)
        assert scores.value[i] == pytest.approx(total / 60, abs=1e-9)


def _cards(hand, split):
    from solver.strategy.hands.splits import split_cards

    return split_cards(hand, split)


def test_one_model_a_seat():
    """``greedy,safe`` seats greedy first and safe second: the deal's second seat is set
    by safe, the first by greedy."""
    from solver.strategy.opposition.opponents import resolve_opponents, seat_setter
    from solver.strategy.solving import scoring as SC

    cr = compile_rules(load_rules("chinese-2-4"))
    hand = random_hands(1, 6)[0]
    mixed = SC.deal_opponents(
        hand, cr, 2, 50, 3, set_seats=seat_setter(resolve_opponents("greedy,safe", cr, 2), cr)
    )
    greedy = SC.deal_opponents(
        hand, cr, 2, 50, 3, set_seats=seat_setter(resolve_opponents("greedy", cr, 2), cr)
    )
    safe = SC.deal_opponents(
        hand, cr, 2, 50, 3, set_seats=seat_setter(resolve_opponents("safe", cr, 2), cr)
    )
    assert (mixed.keys[0::2] == greedy.keys[0::2]).all()
    assert (mixed.keys[1::2] == safe.keys[1::2]).all()
    assert not (greedy.keys == safe.keys).all()


@pytest.mark.parametrize(
    ("spec", "why"),
    [
        ("foo", "unknown model 'foo'"),
        ("greedy,field", "one per opponent (3), got 2"),
        ("missing.npz", "cannot read 'missing.npz'"),
        ("", "a model is a style or a file"),
    ],
)
def test_bad_opponents_are_one_input_error(spec, why):
    from solver.engine.errors import InputError
    from solver.strategy.solving.solve import solve

    with pytest.raises(InputError, match=why.replace("(", r"\(").replace(")", r"\)")):
        solve(HANDS[0], players=4, opponents=spec, samples=100)


def test_only_mc_meets_opponents():
    from solver.engine.errors import InputError
    from solver.strategy.solving.solve import solve

    with pytest.raises(InputError, match="only policy mc"):
        solve(HANDS[0], policy="field", opponents="greedy")
    assert solve(HANDS[0], policy="field", opponents="field").opponents is None
    assert solve(HANDS[0], policy="mc", samples=100, opponents="safe").opponents == "safe"
