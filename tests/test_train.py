"""Training of the field model: its statistics against direct counts, determinism, and
the trained model's value against Monte Carlo settlement."""

from __future__ import annotations

import itertools
from dataclasses import replace
from math import comb

import numpy as np
import pytest

from solver.engine.compiled import compile_rules
from solver.engine.layout import NKEY
from solver.engine.rules import load_rules
from solver.engine.seating import with_jokers
from solver.engine.table_shape import JOKER_FACE, deck_of
from solver.strategy.field_model import field as FT
from solver.strategy.field_model import train as T
from solver.strategy.field_model import trained as TR
from solver.strategy.field_model.policy import set_sorted_hands
from solver.strategy.hands.deal import random_hands
from solver.strategy.hands.splits import Candidates, candidates
from solver.strategy.solving.scoring import deal_opponents, score_against


@pytest.mark.parametrize("code", ["", "h", "hc", "X", "XX", "hXX"])
def test_field_stats_are_the_direct_counts(code):
    """``_field_stats``: each hand adds the round's weight at its rows' keys, and for every
    rank (suit) and count n the probability that 13 of the cards the hand does not hold
    (39 of 52; 52 of 65, 65 of 78 with added suits, where a rank has 5 or 6 cards and a
    suit dealt twice 26; one or two more with jokers) hold n of that rank (suit), counted
    here the slow way from the cards themselves (hands with a natural left out). At a
    deck with jokers the jokers are a fourteenth rank (face 53: 53 // 4 = 13), as the
    dealing deals them to the others, and of no suit."""
    deck = deck_of(code)
    rng = np.random.default_rng(3)
    hands = random_hands(rng, 120, deck)
    rules = replace(load_rules("chinese-1-6"), extra_suits=deck.extra_letters)
    nkey = compile_rules(with_jokers(rules, deck.jokers)).nkey
    keys = rng.integers(0, nkey, (120, 3))
    natural = np.where(rng.random(120) < 0.2, 1, -1)
    stats = T.FieldStats(nkey, deck)
    stats.add(hands, keys, natural, 2.5)
    ranks = 13 + (deck.jokers > 0)
    dist = np.zeros((3, nkey))
    rank = np.zeros((3, ranks, deck.of_a_rank + 1, nkey))
    suit = np.zeros((3, 14, nkey))
    cards = [deck.face(c) for c in deck.cards()]  # every card of the deck, as its face
    unseen = len(cards) - 13
    for hand, key, nat in zip(hands, keys, natural, strict=True):
        if nat >= 0:
            continue
        for r in range(3):
            dist[r, key[r]] += 2.5
            for q in range(ranks):  # of rank q among the cards the hand does not hold
                left = sum(1 for c in cards if c // 4 == q) - sum(1 for c in hand if c // 4 == q)
                for n in range(left + 1):
                    p = comb(left, n) * comb(unseen - left, 13 - n) / comb(unseen, 13)
                    rank[r, q, n, key[r]] += 2.5 * p
            for s in range(4):
                left = sum(1 for c in cards if c % 4 == s and c // 4 < 13) - sum(
                    1 for c in hand if c % 4 == s and c // 4 < 13
                )
                for n in range(min(left, 13) + 1):
                    p = comb(left, n) * comb(unseen - left, 13 - n) / comb(unseen, 13)
                    suit[r, n, key[r]] += 2.5 * p / 4
    assert np.array_equal(stats.dist, dist)
    assert np.allclose(stats.rank, rank, rtol=1e-12, atol=1e-15)
    assert np.allclose(stats.suit, suit, rtol=1e-12, atol=1e-15)
    assert np.allclose(T.hypergeometric(deck).sum(axis=1), 1.0)
    if deck.extra_suits or deck.jokers > 1:  # some hand holds a face twice: copies dealt
        assert any(len(set(h.tolist())) < 13 for h in hands)
    if deck.jokers:  # hands holding 0, 1 (and 2) jokers were counted
        held = {int((h == JOKER_FACE).sum()) for h in hands[natural < 0]}
        assert held == set(range(deck.jokers + 1)), held


def test_shift_knots_are_the_conditional_minus_the_base_probability():
    """On keys whose base P(key below) falls on the knots, the knots hold exactly the
    conditional P(key below) minus the base one; between keys the shift is linear, and 0
    at P(win) = 1."""
    dist = np.zeros((3, NKEY))
    keys = [10, 50, 51, 300]  # base P(below): 0, 1/4, 1/2, 3/4
    dist[:, keys] = 1.0
    hist = np.zeros((3, 2, NKEY))
    hist[:, 0, keys] = [1.0, 2.0, 3.0, 4.0]  # conditional P(below): 0, .1, .3, .6
    got = T.shift_knots(dist, hist, 8)
    # shifts at the keys: 0, -0.15, -0.2, -0.15, and 0 at P(win) = 1; knots every 1/8
    want = [0.0, -0.075, -0.15, -0.175, -0.2, -0.175, -0.15, -0.075, 0.0]
    for r in range(3):
        assert np.allclose(got[r, 0], want)
        assert not got[r, 1].any()  # an empty conditional distribution shifts nothing


def test_joint_grids_by_their_definition():
    """At every node u, [0] E[s_f s_m s_b] (s = +1 where the hand's midrank U is below u,
    -1 above), [1] P(all three below), [2] P(all three above), each minus the same for
    independent rows with those marginals: counted sample by sample."""
    rng = np.random.default_rng(5)
    dist = rng.random((3, NKEY)) * (rng.random((3, NKEY)) < 0.02)
    keys = np.stack([rng.choice(np.flatnonzero(dist[r]), 500) for r in range(3)], axis=1)
    weights = rng.random(500)
    grid = 4
    got = T.joint_grids(dist, keys, weights, grid)
    d = dist / dist.sum(axis=1, keepdims=True)
    mid = np.cumsum(d, axis=1) - d / 2
    u = np.stack([mid[r][keys[:, r]] for r in range(3)], axis=1)
    w = weights / weights.sum()
    for node in itertools.product(range(grid + 1), repeat=3):
        at = np.array(node) / grid
        below = u < at
        s = np.where(below, 1.0, -1.0)
        pb = [(w * below[:, r]).sum() for r in range(3)]
        e3 = (w * s.prod(axis=1)).sum() - np.prod([2 * p - 1 for p in pb])
        win = (w * below.all(axis=1)).sum() - np.prod(pb)
        lose = (w * (~below).all(axis=1)).sum() - np.prod([1 - p for p in pb])
        assert got[:, node[0], node[1], node[2]] == pytest.approx([e3, win, lose], abs=1e-12)


def test_training_is_deterministic_for_a_seed():
    rules = load_rules("chinese-2-4")
    a = T.train(compile_rules(load_rules(rules)), rounds=3, hands_per_round=400, seed=7)
    b = T.train(compile_rules(load_rules(rules)), rounds=3, hands_per_round=400, seed=7)
    c = T.train(compile_rules(load_rules(rules)), rounds=3, hands_per_round=400, seed=8)
    for name in ("dist", "rank", "suit", "cop"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name
    assert not np.array_equal(a.dist, c.dist)
    assert a.meta["seed"] == 7 and a.meta["rounds"] == 3 and a.meta["version"] == FT.FIELD_VERSION
    hands = random_hands(np.random.default_rng(1), 200)
    cr = compile_rules(load_rules(rules))
    assert np.array_equal(set_sorted_hands(hands, cr, "field", field=a, threads=1)[0],
                          set_sorted_hands(hands, cr, "field", field=b)[0])  # fmt: skip


def test_saved_tables_load_bit_for_bit(tmp_path):
    """What training returns and what its file loads are the same model, so a shipped
    table sets hands exactly as the training run's last model did."""
    rules = load_rules("shisanshui")
    t = T.train(compile_rules(load_rules(rules)), rounds=2, hands_per_round=300, seed=2)
    FT.save_field(t, tmp_path / "t.npz")
    back = FT.load_field_file(tmp_path / "t.npz", compile_rules(load_rules(rules)))
    for a, b in zip(t.model, back.model, strict=True):
        assert np.array_equal(a, b)
    assert back.meta == t.meta


def test_field_value_tracks_monte_carlo():
    """The shipped model's value of a setting is what it wins against field opponents.

    On 6 random hands (chinese-2-4, 2 players), the field's 5 best settings of each are
    settled exactly against 6,000 dealt field opponents: the model's values are within
    0.12 units of those Monte Carlo values on average (absolute error; 0.077 when
    written, the Monte Carlo standard error being about 0.03), and closer than the same
    tables without the card-removal and joint corrections come (0.115 when written).
    """
    cr = compile_rules(load_rules("chinese-2-4"))
    full = TR.get_field(cr)
    plain = FT.field_tables(full.dist, cr)
    errors = {"full": [], "plain": []}
    for i, hand in enumerate(random_hands(np.random.default_rng(20), 6)):
        cands = candidates(hand, cr)
        vals, _ = FT.field_values(cands.keys, cands.roy, hand, cr, full)
        best = np.argsort(-vals)[:5]
        top = Candidates(hand, cands.split[best], cands.keys[best], cands.roy[best], 0, False)
        mc = score_against(top, cr, deal_opponents(hand, cr, 1, 6000, 100 + i))
        for name, f in (("full", full), ("plain", plain)):
            v, _ = FT.field_values(top.keys, top.roy, hand, cr, f)
            errors[name].extend(v - mc.value)
    full_err, plain_err = (np.abs(errors[k]).mean() for k in ("full", "plain"))
    assert full_err < 0.12
    assert full_err < plain_err
