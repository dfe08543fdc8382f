"""The home run with opponents from the pool (docs/pool.md#the-home-run).

With the home run at the table (docs/rules.md#home-run) a deal's value depends on every
opponent together, so a deal of independent pool hands (``scoring.pool_opponents``) is
not a table. A setting's value at a dealt table is its pairwise sum plus the home run's
correction (the whole table's value minus that sum), and so is its expectation:

- the pairwise part from ``deals`` deals of independent pool hands, as without the home
  run (each seat is a uniformly random hand of the unseen cards, so each pair's
  expectation is a dealt table's);
- the correction from ``tables`` whole tables, one for every ``DEALS_PER_TABLE`` deals:
  pool hands that share no card with the hand nor with one another, the last seat the
  cards left (dealt from them when more are left) set by the field, so a table is
  distributed exactly as a dealt one (rejection sampling, seat by seat) at the cost of
  setting one hand instead of ``n_opp``.

The value of a setting is the mean of the pairwise part plus the mean of the correction:
the sum of two unbiased estimates. Its standard error comes from ``tables`` independent
columns (``Scores.per_unit``): column t is the mean of its own ``DEALS_PER_TABLE``
pairwise deals plus table t's correction, so the columns are independent and identically
distributed and their spread is the estimate's, the correction's noise included.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np

from solver.engine.code_card import holds_code_card
from solver.engine.compiled import CompiledRules
from solver.engine.layout import P_HR_MULT
from solver.engine.settlement import find_naturals
from solver.engine.table_shape import MASK_DTYPE, STANDARD_DECK
from solver.strategy.code_card import holds_in_masks, pair_factors
from solver.strategy.field import FieldTables
from solver.strategy.policy import set_sorted_hands
from solver.strategy.pool import OpponentPool
from solver.strategy.scoring import Opponents, Scores, score_against
from solver.strategy.splits import Candidates
from solver.strategy.threads import Stop
from solver.strategy.trained import get_field

#: Pairwise pool deals for each whole table (the home run's correction).
DEALS_PER_TABLE = 8
#: Pool hands, beyond those of the pairwise deals, scanned for the tables' opponents.
SPARE_HANDS = 16_000
_ALL = STANDARD_DECK.full_mask
_MASK = np.dtype(MASK_DTYPE).type


@dataclass
class PooledTables:
    """Opponents for the home run from the pool: ``pairs`` deals of independent pool hands
    (the pairwise part), ``tables`` whole tables (the correction; ``Opponents`` with one
    table a deal). ``dealt``: hands of the tables set now (not drawn); ``cards`` and
    ``split``: how each seat of the tables set which cards."""

    pairs: Opponents
    tables: Opponents
    dealt: int
    cards: np.ndarray  # uint8[tables * n_opp, 13]: the tables' hands, sorted
    split: np.ndarray  # int64[tables * n_opp, 3]: each one's split (as the pool's)


def tables_for(deals: int) -> int:
    """Whole tables for ``deals`` pairwise deals (at least 2, for a standard error)."""
    return max(2, math.ceil(deals / DEALS_PER_TABLE))


def without_home_run(cr: CompiledRules) -> CompiledRules:
    """The compiled ruleset with the home run off (its kernels' parameters only)."""
    params = cr.arrays.params.copy()
    params[P_HR_MULT] = 1.0
    return dataclasses.replace(cr, arrays=cr.arrays._replace(params=params))


def _mask(hand: np.ndarray) -> int:
    return sum(1 << int(c) for c in np.asarray(hand).tolist())


def _joint(masks: np.ndarray, at: np.ndarray) -> int:
    """The cards of pool hands ``masks[at]`` (-1 entries skipped), as one mask."""
    out = 0
    for i in at.tolist():
        if i >= 0:
            out |= int(masks[i])
    return out


def _cards(mask: int) -> np.ndarray:
    return np.array([c for c in STANDARD_DECK.cards() if mask >> c & 1], np.uint8)


def pool_tables(
    pool: OpponentPool,
    hand: np.ndarray,
    cr: CompiledRules,
    n_opp: int,
    deals: int,
    seed: int | None,
    tables: FieldTables | None = None,
) -> PooledTables | None:
    """``deals`` pairwise deals of ``n_opp`` pool hands (the same as ``pool_opponents``
    draws from the same seed) and ``tables_for(deals)`` whole tables: seats 1 to
    ``n_opp - 1`` pool hands that share no card with the hand nor one another (the
    first from the hands after the pairwise deals', in order; each next from a random
    place among them), the last seat, and any seat no pool hand fits, dealt from the
    cards left and set by the field (``tables``: a learned model's, which set the pool).
    None when the pool holds too few hands apart from the hand's cards."""
    from solver.strategy import _kernels as k

    n_tables = tables_for(deals)
    need = deals * n_opp
    want = min(pool.size, need + n_tables + SPARE_HANDS)
    hand_mask = _mask(hand)
    start = int(np.random.default_rng(seed).integers(pool.size))  # as OpponentPool.pick
    idx = np.empty(want, np.int64)
    got = k._pool_pick(pool.masks, _MASK(hand_mask), start, want, idx)
    if got < need + n_tables:
        return None
    pairs = Opponents(n_opp, *pool.entries(idx[:need]), holds_in_masks(pool.masks[idx[:need]], cr))
    region = idx[need:got]
    masks = np.ascontiguousarray(pool.masks[region], MASK_DTYPE)
    rng = np.random.default_rng(None if seed is None else [seed, 33])
    seats = np.full((n_tables, n_opp), -1, np.int64)  # index into region, -1 dealt
    seats[:, 0] = np.arange(n_tables)
    for s in range(1, n_opp - 1):  # the seats drawn from the pool after the first
        taken = np.array([hand_mask | _joint(masks, seats[t, :s]) for t in range(n_tables)],
                         MASK_DTYPE)  # fmt: skip
        part = np.empty(n_tables, np.int64)
        k._pool_partners(masks, taken, rng.integers(len(masks), size=n_tables), part)
        seats[:, s] = part
    return _tables(pool, cr, _Seats(region, masks, seats, hand_mask), rng, tables, pairs)


@dataclass(frozen=True)
class _Seats:
    """The pool hands drawn for whole tables: ``region`` their pool indices, ``masks``
    their cards, ``seats`` each table's (index into ``region``, -1 a seat to deal from
    the cards left), ``hand_mask`` the hand's cards."""

    region: np.ndarray
    masks: np.ndarray
    seats: np.ndarray
    hand_mask: int


def _tables(
    pool: OpponentPool,
    cr: CompiledRules,
    at_table: _Seats,
    rng: np.random.Generator,
    tables: FieldTables | None,
    pairs: Opponents,
) -> PooledTables:
    """The tables of ``at_table.seats`` (pool hands, -1 a seat to deal from the cards
    left)."""
    region, masks, seats = at_table.region, at_table.masks, at_table.seats
    hand_mask = at_table.hand_mask
    n_tables, n_opp = seats.shape
    dealt = []
    for t in range(n_tables):
        used = hand_mask | _joint(masks, seats[t])
        rest = rng.permutation(_cards(_ALL & ~used))
        empty = int((seats[t] < 0).sum())
        for h in range(empty):
            dealt.append(np.sort(rest[13 * h : 13 * (h + 1)]))
    hands = np.array(dealt, np.uint8).reshape(-1, 13)
    dsplit, dkeys, droy, _ = set_sorted_hands(hands, cr, "field", tables or get_field(cr))
    dnat, dnatkey = find_naturals(hands, cr)
    drawn = np.flatnonzero(seats.ravel() >= 0)
    at = region[seats.ravel()[drawn]]
    mine = (*pool.entries(at), pool.hands(at), pool.split[at])
    theirs = (dkeys, droy, dnat, dnatkey, np.zeros(len(hands), np.bool_), hands, dsplit)
    rows = n_tables * n_opp
    out = []
    for a, b in zip(mine, theirs, strict=True):
        col = np.empty((rows, *a.shape[1:]), np.int64 if a.dtype.kind in "iu" else a.dtype)
        col[drawn] = a
        col[seats.ravel() < 0] = b
        out.append(col)
    cards = out[5].astype(np.uint8)
    hold = holds_code_card(cards, cr) if cr.rules.code_card else None
    return PooledTables(pairs, Opponents(n_opp, *out[:5], hold), len(hands), cards, out[6])


def score_tables(
    cands: Candidates,
    cr: CompiledRules,
    drawn: PooledTables,
    stop: Stop | None = None,
    stakes: np.ndarray | None = None,
) -> Scores:
    """``score_against`` with the home run from ``drawn`` (module docstring): the pairwise
    Scores of the pool deals, their per-deal values gathered into one column a table
    plus that table's correction (the whole-table kernel with the home run, minus it
    without); each seat's value and the bonus part get the mean correction. Under a code
    card each seat's correction is times its pair's factor (strategy.code_card)."""
    from solver.strategy import _kernels as k

    off = without_home_run(cr)
    base = score_against(cands, off, drawn.pairs, stop, stakes)
    tab, n_opp = drawn.tables, drawn.tables.n_opp
    n_tables = tab.deals
    ones = np.ones(n_opp)
    weights = ones if stakes is None else np.ascontiguousarray(stakes, np.float64)

    factor = pair_factors(cr, cands.hand, tab.hold, n_tables, n_opp)  # the code card
    eye = np.eye(n_opp)

    def correction(w: np.ndarray, rows: slice = slice(None)) -> np.ndarray:
        if factor is None:
            return unfactored(w, rows)
        return sum(unfactored(w[o] * eye[o], rows) * factor[:, o] for o in range(n_opp))

    def unfactored(w: np.ndarray, rows: slice) -> np.ndarray:
        whole = np.zeros((len(cands.keys[rows]), n_tables))
        pair = np.zeros_like(whole)
        for params, out in ((cr.arrays.params, whole), (off.arrays.params, pair)):
            k._mc_values(cands.keys[rows], cands.roy[rows], cands.fouls[rows], tab.keys, tab.roy,
                         tab.foul, tab.nat, tab.nat_key, w, params, cr.arrays.nat_units, 0,
                         n_tables, out)  # fmt: skip
        return whole - pair

    corr = correction(weights)
    if stakes is None:
        corr /= n_opp
    starts = np.array([g[0] for g in np.array_split(np.arange(drawn.pairs.deals), n_tables)])
    sizes = np.diff(np.append(starts, drawn.pairs.deals))

    def grouped(per_deal: np.ndarray) -> np.ndarray:
        return np.add.reduceat(per_deal, starts, axis=-1) / sizes

    per_unit = grouped(base.per_unit) + corr
    pair_factor = base.pair_factor  # a surrender's factors: one row a table, as per_unit
    if pair_factor is not None and len(pair_factor) > 1:
        pair_factor = grouped(pair_factor.T).T

    def by_opponent(i: int) -> np.ndarray:
        one = slice(i, i + 1)
        extra = [correction(eye[o], one).mean() for o in range(n_opp)]
        return base.by_opponent(i) + np.array(extra)

    def parts(i: int) -> np.ndarray:
        out = base.parts(i)
        out[1] += correction(ones, slice(i, i + 1)).mean() / n_opp  # the home run is bonus
        return out

    return dataclasses.replace(
        base,
        value=per_unit.mean(axis=1),
        per_unit=per_unit,
        by_opponent=by_opponent,
        parts=parts,
        declare_per_deal=lambda nat: grouped(base.declare_per_deal(nat)),
        pair_factor=pair_factor,
    )


def score_opponents(
    cands: Candidates,
    cr: CompiledRules,
    opp: Opponents | PooledTables,
    stop: Stop | None = None,
    stakes: np.ndarray | None = None,
) -> Scores:
    """``score_tables`` for opponents with whole tables, else ``score_against``."""
    if isinstance(opp, PooledTables):
        return score_tables(cands, cr, opp, stop, stakes)
    return score_against(cands, cr, opp, stop, stakes)
