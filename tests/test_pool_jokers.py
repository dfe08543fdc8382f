"""The opponent pool with jokers (docs/pool.md#jokers): ``chinese-1-6`` with one joker
(53 cards, one mask a hand, the joker bit 53) and ``shisanshui`` with two (54 cards, the
home run on; a hand may hold both jokers, so two masks a hand: the first joker in the
first, the second in the second, as the copies of a face).

A pool hand is dealt as card ids (the jokers 53 and 57) and kept as masks over the faces;
a solve's hand gives its first joker the first id; a pool hand fits beside it when they
share no card id, so each opponent drawn is uniform over the hands of the unseen cards,
jokers included. Checked here: the pool's hands are the hands its seed deals, the jokers
in their masks, and dealing holds the jokers as a shuffle does; hands drawn beside a hand
hold the jokers it left as often as hands dealt from the unseen cards, a whole table
never holds a card past the deck, pooled values agree with dealt ones, and solve, batch
and ``capsa pool --jokers`` use the pool. Pools of ``SIZE`` hands are built once for the
module, in a folder of its own, by the field's shipped tables of each table.

The tests that read those pools run under ``-m slow`` (CI's second step): their two
builds are 23 CPU seconds, the heaviest fixture of the default run. By default the
dealing with jokers is checked here exactly and by its frequencies, a damaged pool with
jokers is refused, and the pools of two masks a hand are read, drawn from and used by
solve, batch and ``capsa pool`` in tests/test_pool_big.py (five and six players, the
added suits' cards in the second mask as the second joker is here).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from evaluator import COMB3, COMB5
from evaluator.cards import format_cards
from solver.engine.compiled import compile_rules
from solver.engine.rules import load_rules
from solver.engine.seating import at_table
from solver.engine.table_shape import JOKER_FACE
from solver.strategy.field_model.policy import set_sorted_hands
from solver.strategy.field_model.trained import get_field
from solver.strategy.hands.deal import random_hands
from solver.strategy.hands.splits import candidates
from solver.strategy.opposition import pool as PL
from solver.strategy.opposition.pool_file import check_values
from solver.strategy.solving import home_run as HR
from solver.strategy.solving import scoring as SC
from solver.strategy.solving.drawn import pool_opponents
from solver.strategy.solving.solve import solve
from tests import reference as ref
from tests import shared
from tests.helpers import capsa

#: About 800 (two jokers) and 720 (one) hands of it share no card with a hand (1.59% and
#: 1.43%): the draws below take at most 469 (450 and the whole tables' first seats).
SIZE = 50_000
#: (preset, jokers) of the two pools.
TABLES = {1: ("chinese-1-6", 1), 2: ("shisanshui", 2)}


def _rules(jokers: int):
    name, n = TABLES[jokers]
    return at_table(load_rules(name), None, n)


def _jokers(hands: np.ndarray) -> np.ndarray:
    return (np.asarray(hands) == JOKER_FACE).sum(axis=1)


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    """A folder holding a pool of ``SIZE`` hands of each table, set by the field's shipped
    tables (solver/data/field-chinese-1-6-jokers-1.npz, field-shisanshui-jokers-2.npz)."""
    where = tmp_path_factory.mktemp("pools")
    for j in TABLES:
        cr = compile_rules(_rules(j))
        shared.pool(cr, SIZE, where)  # built once a run (the field's tables in its name)
    return where


@pytest.fixture(scope="module")
def pools(folder) -> dict[int, PL.OpponentPool]:
    return {j: PL.open_pool(next(folder.glob(f"pool-*-{PL._family(compile_rules(_rules(j)))}-*")))
            for j in TABLES}  # fmt: skip


def _ids_as_masks(ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Dealt card ids (0 .. 51 the cards, 53 the first joker, 57 the second) as the
    pool's two masks over the faces: every card and the first joker in the first (the
    joker as bit 53), the second joker as bit 53 of the second."""
    ids = ids.astype(np.uint64)
    joker = np.uint64(1) << np.uint64(JOKER_FACE)
    first = np.where(ids < 52, np.uint64(1) << np.minimum(ids, 52), np.uint64(0))
    first = np.bitwise_or.reduce(np.where(ids == 53, joker, first), axis=1)
    second = np.where((ids == 57).any(axis=1), joker, np.uint64(0))
    return first, second


@pytest.mark.slow  # reads the pools of 50,000 hands (module docstring)
def test_the_pools_hold_the_hands_dealt_with_their_jokers(pools):
    """Every pool hand is the hand dealt for it: the pool's seed dealt a block at a time
    (``_deal_ids``: 13 card ids of a shuffle of the deck, the jokers two ids of their
    own), the cards and the first joker in the first mask, the second joker (bit 53) in
    the second; the one-joker pool has no second masks, the two-joker pool has. So the
    pool holds the jokers exactly as dealing does, which
    ``test_dealing_holds_the_jokers_as_a_shuffle_does`` checks on 400,000 deals. Besides,
    on the pool's own hands: a hand holds on average as many jokers as a dealt one (13/53
    with one, 2 x 13/54 with two) and both jokers in about 13 x 12 / (54 x 53) of hands,
    within five standard errors (at 50,000 hands these catch a joker dealt never, always
    or twice as often; telling both jokers dealt independently, 0.0580 against 0.0545,
    is the 400,000 deals' work: here it would have a power of 5%)."""
    for j, pool in pools.items():
        deck = _rules(j).deck
        assert (pool.seconds is None) == (j == 1)
        rng = np.random.default_rng(PL.POOL_SEED)
        for lo in range(0, pool.size, PL._BLOCK):
            hi = min(pool.size, lo + PL._BLOCK)
            first, second = _ids_as_masks(PL._deal_ids(rng, hi - lo, deck))
            assert np.array_equal(np.asarray(pool.masks[lo:hi]), first)
            if j == 2:
                assert np.array_equal(np.asarray(pool.seconds[lo:hi]), second)
            else:
                assert not second.any()
        hands = pool.hands(np.arange(pool.size))
        held = _jokers(hands)
        assert int(held.max()) == j
        n = deck.size
        se = np.sqrt(held.var() / pool.size)
        assert abs(held.mean() - j * 13 / n) < 5 * se
        if j == 2:
            both = (held == 2).mean()
            p = 13 * 12 / (n * (n - 1))
            assert abs(both - p) < 5 * np.sqrt(p * (1 - p) / pool.size)
        real = hands[hands != JOKER_FACE]
        assert int(real.max()) < 52 and len(real) + held.sum() == 13 * pool.size


@pytest.mark.parametrize("jokers", [1, 2])
def test_dealing_holds_the_jokers_as_a_shuffle_does(jokers):
    """``_deal_ids``, which deals the pool's hands: over 400,000 hands every hand is 13
    different card ids of the deck; each joker is held by 13/53 (one joker) or 13/54 (two)
    of hands and, with two, both by 13 x 12 / (54 x 53) = 0.0545, each within five
    standard errors. Jokers dealt independently of one another would give both to
    (13/54)^2 = 0.0580 of hands: 9.6 standard errors (0.00036) away, so this fails
    with a power above 99.99%. (The pools' 50,000 hands would tell them apart at five
    standard errors with a power of 5%, 150,000 with 80%.)"""
    deck = _rules(jokers).deck
    n, rng = deck.size, np.random.default_rng(55)
    blocks = [PL._deal_ids(rng, 50_000, deck) for _ in range(8)]
    ids = np.concatenate(blocks)
    assert set(np.unique(ids).tolist()) <= set(deck.cards())
    ordered = np.sort(ids, axis=1)
    assert (np.diff(ordered, axis=1) > 0).all()  # 13 different card ids
    size = len(ids)
    holds = [(ids == joker).any(axis=1) for joker in deck.cards()[52:]]
    assert len(holds) == jokers
    for held in holds:
        p = 13 / n
        assert abs(held.mean() - p) < 5 * np.sqrt(p * (1 - p) / size)
    if jokers == 2:
        both = (holds[0] & holds[1]).mean()
        p = 13 * 12 / (n * (n - 1))
        assert abs(both - p) < 5 * np.sqrt(p * (1 - p) / size)


@pytest.mark.parametrize("jokers", [1, 2])
@pytest.mark.slow  # reads the pools of 50,000 hands (module docstring)
def test_drawn_hands_hold_the_jokers_left_as_often_as_dealt_ones(pools, jokers):
    """Opponents drawn beside a hand holding k jokers hold, on average, 13 x (jokers - k)
    / (size - 13) jokers (a hand dealt from the unseen cards), and never more than are
    left; drawn beside a hand with none, some hold each joker."""
    cr = compile_rules(_rules(jokers))
    deck = cr.rules.deck
    pool = pools[jokers]
    rng = np.random.default_rng(4)
    for k in range(jokers + 1):
        hands = random_hands(rng, 400, deck)
        hand = next(h for h in hands if _jokers(h[None])[0] == k)
        idx = pool.pick(hand, 450, seed=k)
        assert idx is not None
        drawn = _jokers(pool.hands(idx))
        want = 13 * (jokers - k) / (deck.size - 13)
        assert int(drawn.max()) <= jokers - k
        if k < jokers:
            se = np.sqrt(want * (1 - want / (jokers - k)) / len(idx))
            assert abs(drawn.mean() - want) < 5 * se
        else:
            assert drawn.sum() == 0


@pytest.mark.slow  # reads the pools of 50,000 hands (module docstring)
def test_whole_tables_with_jokers_hold_no_card_past_the_deck(pools):
    """``shisanshui`` with two jokers: every whole table (the hand, a pool seat, a second
    when one fits, the last dealt from the cards left) holds 52 of the 54 cards, no card past its
    copies (a joker at most twice), each seat set as the field sets it."""
    cr = compile_rules(_rules(2))
    copies = np.array([*cr.rules.deck.face_copies(), 0, cr.rules.deck.jokers])
    rng = np.random.default_rng(9)
    hands = [h for h in random_hands(rng, 200, cr.rules.deck) if _jokers(h[None])[0] == 1][:3]
    hands.append(next(h for h in random_hands(rng, 400, cr.rules.deck) if _jokers(h[None])[0] == 0))
    for i, hand in enumerate(hands):
        got = HR.pool_tables(pools[2], hand, cr, 3, 160, seed=i)
        assert got is not None and got.n_tables == 20
        assert got.drawn[::3].all()  # the first seat from the pool (the second: at times)
        for t in range(got.n_tables):
            seats = got.cards[3 * t : 3 * t + 3]
            counts = np.bincount(np.concatenate([hand, *seats]).astype(np.int64),
                                 minlength=JOKER_FACE + 1)  # fmt: skip
            assert (counts <= copies).all() and counts.sum() == 52
        _, keys, _, _ = set_sorted_hands(got.cards, cr, "field", get_field(cr))
        assert np.array_equal(got.tables.keys, keys)


@pytest.mark.parametrize("jokers", [1, 2])
@pytest.mark.slow  # reads the pools of 50,000 hands (module docstring)
def test_pooled_and_dealt_values_agree_with_jokers(pools, jokers):
    """Three hands with a joker: 450 opponent hands from the pool (150 deals; whole tables
    for the home run with two jokers) against 1,800 dealt; the five best settings' values
    within four standard errors of one another. A difference's standard error is 0.23 to
    0.37 units here (1.5 times the 1,200-against-3,000 hands' of a 150,000-hand pool), so
    a bias of 4.84 of them, 1.1 to 1.8 units, fails it with a power of 80%: a draw blind to
    the hand's jokers (an opponent may hold the joker the hand holds) is off by 1.4 and
    1.7 units, 6.2 and 4.8 standard errors."""
    cr = compile_rules(_rules(jokers))
    rng = np.random.default_rng(11)
    hands = [h for h in random_hands(rng, 100, cr.rules.deck) if _jokers(h[None])[0] >= 1][:3]
    for i, hand in enumerate(hands):
        c = candidates(hand, cr)
        if jokers == 2:
            drawn = HR.pool_tables(pools[2], hand, cr, 3, 150, seed=2 * i)
            assert drawn is not None
            a = HR.score_tables(c, cr, drawn)
        else:
            plain = pool_opponents(pools[1], hand, 3, 150, seed=2 * i, cr=cr)
            assert plain is not None and plain.deals == 150
            a = SC.score_against(c, cr, plain)
        b = SC.score_against(c, cr, SC.deal_opponents(hand, cr, 3, 600, 2 * i + 1))
        for j in np.argsort(b.value)[-5:]:
            assert abs(a.value[j] - b.value[j]) < 4 * np.hypot(a.stderr(j), b.stderr(j))


@pytest.mark.slow  # reads the pools of 50,000 hands (module docstring)
def test_solve_batch_and_the_command_use_the_pool_with_jokers(pools, folder, monkeypatch,
                                                              tmp_path):  # fmt: skip
    """solve with jokers draws from the cached pool (the same answer for the same seed),
    ``pool=False`` deals; batch's plan takes the pool; ``capsa pool --jokers 2`` builds
    one and ``capsa solve --jokers 2`` then draws from it (the real CLI)."""
    from solver.apps.batch.pooling import plan_pool

    monkeypatch.setenv("CAPSA_POOL_DIR", str(folder))
    for j in TABLES:
        rules = _rules(j)
        hand = next(h for h in random_hands(np.random.default_rng(j), 50, rules.deck)
                    if _jokers(h[None])[0] == 1)  # fmt: skip
        text = format_cards(hand.tolist())
        a = solve(text, rules=rules, samples=450, seed=3)
        assert a.pooled
        assert a.to_dict() == solve(text, rules=rules, samples=450, seed=3).to_dict()
        assert not solve(text, rules=rules, samples=450, seed=3, pool=False).pooled
        plan = plan_pool(rules, "mc", 4, None, None, 10, None)
        assert plan is not None and plan.cached and plan.size == SIZE
    built = tmp_path / "built"
    monkeypatch.setenv("CAPSA_POOL_DIR", str(built))
    run = capsa("pool", "--rules", "shisanshui", "--jokers", "2", "--size", "2000", "-f", "json")
    assert run.returncode == 0, run.stderr
    d = json.loads(run.stdout)
    assert (d["rules"], d["hands"], d["built"]) == ("shisanshui-jokers-2", 2000, True)
    pool = PL.cached_pool(compile_rules(_rules(2)))
    assert pool is not None and pool.seconds is not None and pool.size == 2000
    assert check_values({k: getattr(pool, k) for k in (
        "keys", "split", "roy_id", "nat", "foul", "roy_table", "nat_at", "nat_key", "masks",
        "seconds")}, _rules(2).deck) is None  # fmt: skip


def test_a_pool_with_jokers_is_checked():
    """``check_values``: a joker bit on a deck without jokers, a second joker on a deck
    with one, or a bit past the jokers' is refused."""
    from solver.engine.table_shape import deck_of

    one, two, none = deck_of("", 1), deck_of("", 2), deck_of("")
    ids = np.arange(13, dtype=np.uint64)
    mask = np.bitwise_or.reduce(np.uint64(1) << ids)  # 2c .. 5s
    base = {"keys": np.zeros((1, 3), np.uint16), "split": np.zeros((1, 3), np.uint16),
            "roy_id": np.zeros(1, np.uint16), "nat": np.full(1, -1, np.int8),
            "foul": np.zeros(1, np.bool_), "roy_table": np.zeros((1, 4)),
            "nat_at": np.zeros(0, np.int64), "nat_key": np.zeros(0, np.int64)}  # fmt: skip
    joker = np.uint64(1) << np.uint64(JOKER_FACE)
    with_joker = np.array([(mask & ~np.uint64(1)) | joker], np.uint64)  # 12 cards and X
    assert check_values({**base, "masks": with_joker}, one) is None
    assert "not 13" in check_values({**base, "masks": with_joker}, none)
    past = np.array([(mask & ~np.uint64(1)) | (np.uint64(1) << np.uint64(52))], np.uint64)
    assert "not 13" in check_values({**base, "masks": past}, one)
    x2 = np.array([(mask & ~np.uint64(3)) | joker], np.uint64)
    good2 = {**base, "masks": x2, "seconds": np.array([joker], np.uint64)}  # both jokers
    assert check_values(good2, two) is None
    bad2 = {**good2, "seconds": np.array([np.uint64(1) << np.uint64(5)], np.uint64)}
    assert "not 13" in check_values(bad2, two)


@pytest.mark.slow  # reads the pools of 50,000 hands (module docstring)
def test_a_front_of_both_jokers_over_a_lower_middle_is_a_legal_pool_seat(pools):
    """``shisanshui`` with two jokers checks a front of both jokers as three of its third
    card (docs/rules.md#jokers): the field sets some such fronts over a middle below
    their key (above every front), the pool keeps those seats legal, and the oracle
    finds each legal and its rows as the pool keeps them."""
    pool = pools[2]
    keys = pool.keys.astype(np.int64)
    below = np.flatnonzero(~pool.foul & (keys[:, 0] > keys[:, 1]))
    assert len(below) >= 20
    hands = pool.hands(below[:20])
    assert (_jokers(hands) == 2).all()
    rules = _rules(2)
    for hand, split in zip(hands, pool.split[below[:20]], strict=True):
        rows = [hand[idx[s]].tolist() for idx, s in zip((COMB3, COMB5, COMB5), split, strict=True)]
        ids = iter(ref.JOKER_IDS)
        setting = tuple(tuple(next(ids) if c == JOKER_FACE else c for c in r) for r in rows)
        assert sum(ref.is_joker(c) for c in setting[0]) == 2
        assert ref._hand_summary(setting, rules)[0]  # legal
