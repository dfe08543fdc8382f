"""The home run with opponents from the pool (solver.strategy.solving.home_run): whole tables of
pool hands that share no card with the hand nor one another, the last seat dealt and set
by the field; the pairwise part from independent pool deals; the values against the
oracle's table settlement, and against dealt whole tables.

A pool of ``SIZE`` hands per ruleset, test_pool.py's size (so its ``shisanshui`` pool is
the one tests/test_pool.py reads, built once a run: tests/shared.py), is copied into a
folder of the module's own; about 512 of its hands (1.28%) share no card with a given
hand, and the draws below take at most 375 (120 deals of three and their 15 tables).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

import evaluator as ev
from solver.engine.compiled import compile_rules
from solver.engine.rules import load_rules, rules_from_dict
from solver.engine.settlement import find_naturals
from solver.strategy.field_model.policy import set_sorted_hands
from solver.strategy.field_model.trained import get_field
from solver.strategy.hands.splits import candidates, split_cards, split_of
from solver.strategy.opposition import pool as PL
from solver.strategy.solving import home_run as HR
from solver.strategy.solving import scoring as SC
from solver.strategy.solving.drawn import pool_opponents
from solver.strategy.solving.solve import solve
from tests import reference as ref
from tests.helpers import random_hands
from tests.test_pool import SIZE, pools_in, seated_pool

RULES = ("shisanshui", "mau-binh-rules")
HAND = "Ah Kd Qc 9s 9d 7h 6c 5s 4d 3h 2c Jd Ts"
STRONG = "As Ks Qs Js Ts 9h 9d 9c 2s 3d 4c 5h 7d"


@pytest.fixture(scope="module")
def pools(tmp_path_factory) -> Path:
    return pools_in(tmp_path_factory, RULES, SIZE)


@pytest.fixture
def with_pools(pools, monkeypatch) -> Path:
    monkeypatch.setenv("CAPSA_POOL_DIR", str(pools))
    return pools


def _mask(cards) -> int:
    return sum(1 << int(c) for c in cards)


@pytest.mark.parametrize("name", RULES)
def test_tables_are_whole_tables_set_by_the_field(with_pools, name):
    """Every table: three hands that share no card with the hand nor one another (so all
    52 cards), each set as the field sets it (keys, royalties, natural); the pairwise
    deals are the plain pool's draw from the same seed; the first seat is always drawn, the
    second when a pool hand fits beside the hand and the first (about a quarter of the
    tables with this pool: 42 of 156; 0 would mean it is never drawn)."""
    cr = compile_rules(load_rules(name))
    pool = PL.cached_pool(cr)
    second = 0
    for i, hand in enumerate(random_hands(12, 7)):
        got = HR.pool_tables(pool, hand, cr, 3, 100, seed=i)
        t = got.tables
        assert t.deals == HR.tables_for(100) == 13
        for d in range(t.deals):
            seats = [_mask(got.cards[3 * d + o]) for o in range(3)]
            assert all(m & _mask(hand) == 0 for m in seats)
            assert _mask(hand) | seats[0] | seats[1] | seats[2] == (1 << 52) - 1
        assert got.drawn[::3].all() and not got.drawn[2::3].any()  # the last seat dealt
        second += int(got.drawn[1::3].sum())
        _, keys, roy, _ = set_sorted_hands(got.cards, cr, "field", get_field(cr))
        ids, nkeys = find_naturals(got.cards, cr)
        assert np.array_equal(t.keys, keys) and np.array_equal(t.roy, roy)
        assert np.array_equal(t.nat, ids) and np.array_equal(t.nat_key[ids >= 0], nkeys[ids >= 0])
        plain = pool_opponents(pool, hand, 3, 100, seed=i)
        assert np.array_equal(got.pairs.keys, plain.keys)
    assert second > 12 * 13 / 8  # the second seat drawn at times


def _corrections(c, cr, opp: SC.Opponents, weights: np.ndarray) -> np.ndarray:
    """float64[nc, tables]: each candidate's whole table minus its pairwise sum."""
    from solver.strategy import _kernels as k

    out = []
    for params in (cr.arrays.params, HR.without_home_run(cr).arrays.params):
        v = np.zeros((len(c), opp.deals))
        k._mc_values(c.keys, c.roy, c.fouls, opp.keys, opp.roy, opp.foul, opp.nat, opp.nat_key,
                     weights, params, cr.arrays.nat_units, 0, opp.deals, v)  # fmt: skip
        out.append(v)
    return out[0] - out[1]


@pytest.mark.parametrize(
    ("name", "n_opp"), [("shisanshui", 3), ("mau-binh-rules", 3), ("shisanshui", 2)]
)
def test_the_screen_keeps_every_table_with_a_home_run(with_pools, name, n_opp):
    """``home_run_possible`` (from the pool seats and the dealt seat's cards, before the
    field sets it) is False only at tables where no candidate's correction, with every
    seat set, differs from 0; it leaves most tables unset; and the solve's per-table
    columns are the mean of their pairwise deals plus the correction of every table."""
    cr = compile_rules(load_rules(name))
    pool = PL.cached_pool(cr)
    skipped = kept = 0
    for i, hand in enumerate(random_hands(12, 5 + n_opp)):
        drawn = HR.pool_tables(pool, hand, cr, n_opp, 120, seed=i)
        c = candidates(hand, cr)
        need = HR.home_run_possible(c, drawn)
        s = HR.score_tables(c, cr, drawn)
        assert drawn.done.sum() == need.sum()  # only the tables screened in were set
        corr = _corrections(c, cr, drawn.tables, np.ones(n_opp))
        assert not corr[:, ~need].any()
        kept += int((corr[:, need] != 0).any(axis=0).sum())
        skipped += int((~need).sum())
        pairs = SC.score_against(c, HR.without_home_run(cr), drawn.pairs)
        g = HR.DEALS_PER_TABLE
        want = pairs.per_unit.reshape(len(c), -1, g).mean(axis=2) + corr / n_opp
        assert np.allclose(s.per_unit, want, rtol=0, atol=1e-12)
    assert kept > 0 and skipped > 0


def test_can_scoop_is_every_legal_split_checked():
    """``_can_scoop`` against every one of the 36,036 partitions of each hand into a front
    and two fives (either five the back), for thresholds taken from other hands' rows."""
    from solver.strategy.hands.splits import prepare_hand, structure

    cr = compile_rules(load_rules("capsa"))  # a suit order: keys beyond the strengths
    hands = random_hands(60, 9)
    other = random_hands(60, 10)
    th = np.array([candidates(h, cr).keys[len(candidates(h, cr)) // 2] for h in other])
    th[::3] -= 40  # weaker thresholds: more hands can beat them
    part = structure().part.astype(np.int64)
    want = []
    for h, t in zip(hands, th, strict=True):
        r = prepare_hand(h, cr)
        f, a, b = r.k3[part[:, 0]], r.k5[part[:, 1]], r.k5[part[:, 2]]
        ok = False
        for m, bk in ((a, b), (b, a)):
            ok |= bool(((f <= m) & (m <= bk) & (f > t[0]) & (m > t[1]) & (bk > t[2])).any())
        want.append(ok)
    got = HR._can_scoop(hands, th, cr)
    assert got.tolist() == want
    assert 5 < sum(want) < 55


def _setting(cards: np.ndarray, split: np.ndarray) -> tuple:
    return tuple(x.tolist() for x in split_cards(cards, split.astype(np.int32)))


def test_values_are_the_oracles_table_settlement(with_pools):
    """A solve's per-table columns: the mean of its pairwise pool deals plus the table's
    home run (ref_settle_table minus the pairwise sum, both the oracle's), for every
    candidate of a sample and the best, per opponent; and the value is the columns' mean.
    A strong hand and a draw (seed 8) where the home run happens at 4 of the 15 tables: a
    whole table's home run is rare (about one table in 75 for ``HAND``; the 50 tables of a
    150,000-hand pool's draw held at least one), and each table costs the oracle a second."""
    rules = load_rules("shisanshui")
    cr = compile_rules(load_rules(rules))
    hand = np.sort(ev.parse_hand(STRONG))
    drawn = HR.pool_tables(PL.cached_pool(cr), hand, cr, 3, 120, seed=8)
    c = candidates(hand, cr)
    s = HR.score_tables(c, cr, drawn)
    assert drawn.tables.deals == 15
    pairs = SC.score_against(c, HR.without_home_run(cr), drawn.pairs)
    off = replace(rules, home_run_multiplier=1)
    seen = 0
    for ci in [*range(0, len(c), max(1, len(c) // 6)), int(s.value.argmax())]:
        mine = tuple(x.tolist() for x in split_cards(hand, c.split[ci]))
        for t in range(drawn.tables.deals):
            table = [mine]
            for o in range(3):
                j = 3 * t + o
                nat = ref.ref_best_natural(drawn.cards[j].tolist(), rules)
                assert (nat is not None) == (drawn.tables.nat[j] >= 0)
                if nat is not None:
                    table.append(ref.ref_declare(nat))
                else:
                    table.append(_setting(drawn.cards[j], drawn.split[j]))
            whole = ref.ref_settle_table(table, rules)[0]
            pairwise = ref.ref_settle_table(table, off)[0]
            extra = whole - pairwise
            seen += extra != 0
            g = HR.DEALS_PER_TABLE
            want = pairs.per_unit[ci, g * t : g * (t + 1)].mean() + extra / 3
            assert s.per_unit[ci, t] == pytest.approx(want, abs=1e-9)
    assert seen > 0  # the home run happened at some table
    assert np.allclose(s.value, s.per_unit.mean(axis=1))


def test_pooled_tables_agree_with_dealt_tables(with_pools):
    """Three hands, 360 opponent hands from the pool (120 deals and their 15 whole tables:
    what the 40,000-hand pool holds apart from a hand, with room) and 1,800 dealt: the
    pooled value of each of the five best settings is within four standard errors of the
    dealt whole tables'. A difference's standard error is 0.17 to 0.49 units here (0.08 to
    0.24 at the 500 pooled and 2,000 dealt deals a 150,000-hand pool allowed), so a bias
    of 4.84 of them, 0.8 to 2.4 units, fails it with a power of 80% (0.4 to 1.2 before):
    the pool hands' middles and backs read swapped (0.78 units, 6.4 standard errors)
    fails it; a draw blind to the hand's cards moves the values by less (at most 2.2
    standard errors here: ``test_tables_are_whole_tables_set_by_the_field`` fails on
    it). Smaller biases are the ``-m long`` test's (1,000 hands, a 500,000-hand pool);
    what the pool seats hold and how they are set and settled is checked exactly above."""
    cr = compile_rules(load_rules("shisanshui"))
    pool = PL.cached_pool(cr)
    for i, hand in enumerate(random_hands(3, 11)):
        c = candidates(hand, cr)
        a = HR.score_tables(c, cr, HR.pool_tables(pool, hand, cr, 3, 120, seed=2 * i))
        b = SC.score_against(c, cr, SC.deal_opponents(hand, cr, 3, 600, 2 * i + 1))
        for j in np.argsort(b.value)[-5:]:
            assert abs(a.value[j] - b.value[j]) < 4 * np.hypot(a.stderr(j), b.stderr(j))


def test_solve_draws_whole_tables_from_the_pool(with_pools):
    """With the home run at a 4-player table, solve draws from the pool (and says so),
    the same answer for the same seed, and ``pool=False`` still deals; below the home
    run's minimum of opponents the plain pool; one opponent, whose pairs are tables. The
    tables of 2 and 3 players draw from pools of their own size (docs/pool.md#table-size)."""
    a = solve(HAND, rules="shisanshui", samples=300, seed=3)
    assert a.pooled and a.to_dict() == solve(HAND, rules="shisanshui", samples=300,
                                             seed=3).to_dict()  # fmt: skip
    b = solve(HAND, rules="shisanshui", samples=300, seed=3, pool=False)
    assert not b.pooled and b.to_dict() != a.to_dict()
    assert solve(HAND, rules="mau-binh-rules", samples=300, seed=3).pooled
    hr1 = rules_from_dict({"base": "shisanshui", "home_run_min_opponents": 1}, "hr1")
    seated_pool(hr1, 2, with_pools)
    seated_pool("shisanshui", 3, with_pools)
    one = solve(HAND, rules=hr1, players=2, samples=150, seed=1)
    assert one.pooled and one.to_dict() != solve(HAND, rules=hr1, players=2, samples=150,
                                                 seed=1, pool=False).to_dict()  # fmt: skip
    assert solve(HAND, rules="shisanshui", players=3, samples=150, seed=1).pooled


@pytest.mark.slow
@pytest.mark.long
def test_pooled_and_dealt_whole_tables_agree_within_their_errors(tmp_path, monkeypatch):
    """On 1,000 random hands (shisanshui, 4 players, 3,000 opponent hands), the field's
    setting (chosen without either sample) and each sample's best setting, valued with
    whole tables drawn from the pool and with dealt ones (independent seeds): the mean
    differences are within three standard errors of 0, and the field setting's
    differences over their standard errors spread like a standard normal. A pool of
    500,000 hands is built first. (docs/pool.md gives the figures.)"""
    monkeypatch.setenv("CAPSA_POOL_DIR", str(tmp_path))
    cr = compile_rules(load_rules("shisanshui"))
    pool = PL.cached_pool(cr) or PL.build_pool(cr, 500_000)
    z, fixed, best = agreement(cr, pool, 1000)
    for d in (np.array(fixed), np.array(best)):
        assert abs(d.mean()) < 3 * d.std(ddof=1) / np.sqrt(len(d))
    assert len(z) > 950 and 0.9 < np.std(z) < 1.1


def agreement(cr, pool, n: int, seed: int = 2026) -> tuple[list, list, list]:
    """For ``n`` random hands (those the field plays): z of the field setting's pooled
    minus dealt value, that difference, and the best settings' difference."""
    z, fixed, best = [], [], []
    for i, hand in enumerate(random_hands(n, seed)):
        f = solve(hand, rules=cr, policy="field", top=0)
        if f.action != "play":
            continue
        rows = [ev.parse_cards(x) for x in f.setting]
        c = candidates(hand, cr).with_split(split_of(hand, *rows)[None, :], cr)
        a = HR.score_tables(c, cr, HR.pool_tables(pool, hand, cr, 3, 1000, 2 * i))
        b = SC.score_against(c, cr, SC.deal_opponents(hand, cr, 3, 1000, 2 * i + 1))
        j = len(c) - 1
        fixed.append(a.value[j] - b.value[j])
        z.append(fixed[-1] / np.hypot(a.stderr(j), b.stderr(j)))
        best.append(a.value.max() - b.value.max())
    return z, fixed, best


def test_code_card_at_pooled_tables_is_the_oracles(with_pools):
    """With a code card (docs/rules.md#the-code-card) the ruleset draws the same pool
    (the code card sets no hand); every seat that holds the 8h, in the pairwise deals
    (known from the pool's card masks) and at the whole tables, weighs twice: each
    table's correction is the oracle's (whole table minus pairwise, both with the code
    card), added to the pairwise deals' values."""
    rules = replace(load_rules("shisanshui"), name="shisanshui-8h", code_card="8h")
    cr = compile_rules(load_rules(rules))
    card = 4 * 6 + 2
    hand = np.sort(ev.parse_hand(HAND))
    assert card not in hand.tolist()
    pool = PL.cached_pool(cr)
    plain = PL.cached_pool(compile_rules(load_rules("shisanshui")))
    assert pool is not None and pool.path == plain.path
    drawn = HR.pool_tables(pool, hand, cr, 3, 120, seed=4)
    held = drawn.pairs.hold.reshape(-1, 3).mean()
    assert 0.25 < held < 0.42  # 13 of the 39 unseen cards a seat
    assert drawn.tables.hold.reshape(-1, 3).sum(axis=1).tolist() == [1] * drawn.tables.deals
    c = candidates(hand, cr)
    s = HR.score_tables(c, cr, drawn)
    pairs = SC.score_against(c, HR.without_home_run(cr), drawn.pairs)
    assert s.pair_factor.shape == (drawn.tables.deals, 3)  # a surrender's, table by table
    off = replace(rules, home_run_multiplier=1)
    for ci in [*range(0, len(c), max(1, len(c) // 4)), int(s.value.argmax())]:
        mine = tuple(x.tolist() for x in split_cards(hand, c.split[ci]))
        for t in range(drawn.tables.deals):
            table, holder = [mine], None
            for o in range(3):
                j = 3 * t + o
                nat = ref.ref_best_natural(drawn.cards[j].tolist(), rules)
                if nat is not None:
                    table.append(ref.ref_declare(nat))
                    holder = 1 + o if card in drawn.cards[j].tolist() else holder
                else:
                    table.append(_setting(drawn.cards[j], drawn.split[j]))
            extra = (ref.ref_settle_table(table, rules, holder)[0]
                     - ref.ref_settle_table(table, off, holder)[0])  # fmt: skip
            g = HR.DEALS_PER_TABLE
            want = pairs.per_unit[ci, g * t : g * (t + 1)].mean() + extra / 3
            assert s.per_unit[ci, t] == pytest.approx(want, abs=1e-9)
