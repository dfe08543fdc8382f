"""The home run with opponents from the pool (docs/pool.md#the-home-run).

With the home run at the table (docs/rules.md#home-run) a deal's value depends on every
opponent together, so a deal of independent pool hands
(``solver.strategy.solving.drawn.pool_opponents``) is not a table. A setting's value at a
dealt table is its pairwise sum plus the home run's correction (the whole table's value
minus that sum), and so is its expectation:

- the pairwise part from ``deals`` deals of independent pool hands, as without the home
  run (each seat is a uniformly random hand of the unseen cards, so each pair's
  expectation is a dealt table's);
- the correction from ``tables`` whole tables, one for every ``DEALS_PER_TABLE`` deals:
  pool hands that share no card with the hand nor with one another, the last seat the
  cards left (dealt from them when more are left) set by the field, so a table is
  distributed exactly as a dealt one (rejection sampling, seat by seat) at the cost of
  setting one hand instead of ``n_opp``; and that hand is set only at the tables where
  some candidate's correction can be other than 0 (``home_run_possible``, an exact test
  from the pool seats and the dealt cards): elsewhere it is 0 without setting it.

The value of a setting is the mean of the pairwise part plus the mean of the correction:
the sum of two unbiased estimates. Its standard error comes from ``tables`` independent
columns (``Scores.per_unit``): column t is the mean of its own ``DEALS_PER_TABLE``
pairwise deals plus table t's correction, so the columns are independent and identically
distributed and their spread is the estimate's, the correction's noise included.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from dataclasses import dataclass

import numpy as np

from solver.engine.code_card import holds_code_card
from solver.engine.compiled import CompiledRules
from solver.engine.layout import P_HR_MULT
from solver.engine.settlement import find_naturals
from solver.engine.table_shape import MASK_DTYPE, STANDARD_DECK, Deck
from solver.strategy.field_model.field import FieldTables
from solver.strategy.field_model.policy import set_sorted_hands
from solver.strategy.field_model.trained import get_field
from solver.strategy.hands.splits import Candidates
from solver.strategy.opposition.pool import OpponentPool, card_faces, hand_masks
from solver.strategy.solving.code_card import holds_in_masks, pair_factors
from solver.strategy.solving.scoring import Opponents, Scores, score_against
from solver.strategy.threads import Stop

#: Pairwise pool deals for each whole table (the home run's correction).
DEALS_PER_TABLE = 8
#: Pool hands, beyond those of the pairwise deals, scanned for the tables' opponents.
SPARE_HANDS = 6_000
_MASK = np.dtype(MASK_DTYPE).type


@dataclass
class PooledTables:
    """Opponents for the home run from the pool: ``pairs`` deals of independent pool hands
    (the pairwise part) and ``n_tables`` whole tables of ``n_opp`` seats (the correction),
    seat o of table t at row ``t * n_opp + o``: ``cards`` every seat's hand, ``drawn``
    which seats are pool hands (their rows in ``rows`` from the pool), the others dealt
    from the cards left and set by the field only where a table needs them
    (``set_tables``; ``tables`` and ``split`` set them all)."""

    pairs: Opponents
    n_opp: int
    cards: np.ndarray  # uint8[tables * n_opp, 13]: the tables' hands, sorted
    drawn: np.ndarray  # bool[tables * n_opp]: a pool hand (else dealt)
    rows: Opponents  # each seat's keys, royalties, natural, foul (dealt seats once set)
    setting: np.ndarray  # int64[tables * n_opp, 3]: each one's split (as the pool's)
    hold: np.ndarray | None  # bool[tables * n_opp]: holds the code card (None: no code card)
    cr: CompiledRules
    field: FieldTables | None
    done: np.ndarray  # bool[tables]: the table's dealt seats are set

    @property
    def n_tables(self) -> int:
        return len(self.done)

    @property
    def dealt(self) -> int:
        """Hands of the tables dealt (not drawn from the pool)."""
        return int((~self.drawn).sum())

    def set_tables(self, which: np.ndarray) -> None:
        """Set the dealt seats of tables ``which`` (int indices) with the field."""
        which = np.asarray(which, np.int64)
        which = which[~self.done[which]]
        if not len(which):
            return
        at = (which[:, None] * self.n_opp + np.arange(self.n_opp)).ravel()
        at = at[~self.drawn[at]]
        hands = np.ascontiguousarray(self.cards[at])
        cr = self.cr
        dsplit, dkeys, droy, _ = set_sorted_hands(hands, cr, "field", self.field or get_field(cr))
        dnat, dnatkey = find_naturals(hands, cr)
        r = self.rows
        for col, v in ((r.keys, dkeys), (r.roy, droy), (r.nat, dnat), (r.nat_key, dnatkey),
                       (self.setting, dsplit)):  # fmt: skip
            col[at] = v
        self.done[which] = True

    def of(self, which: np.ndarray) -> Opponents:
        """The rows of tables ``which`` (set), as ``Opponents`` with one table a deal."""
        self.set_tables(which)
        at = (np.asarray(which, np.int64)[:, None] * self.n_opp + np.arange(self.n_opp)).ravel()
        r = self.rows
        hold = None if self.hold is None else self.hold[at]
        return Opponents(self.n_opp, r.keys[at], r.roy[at], r.nat[at], r.nat_key[at],
                         r.foul[at], hold)  # fmt: skip

    @property
    def tables(self) -> Opponents:
        """Every table, set."""
        return self.of(np.arange(self.n_tables))

    @property
    def split(self) -> np.ndarray:
        """Every seat's split (all tables set)."""
        self.set_tables(np.arange(self.n_tables))
        return self.setting


def tables_for(deals: int) -> int:
    """Whole tables for ``deals`` pairwise deals (at least 2, for a standard error)."""
    return max(2, math.ceil(deals / DEALS_PER_TABLE))


def without_home_run(cr: CompiledRules) -> CompiledRules:
    """The compiled ruleset with the home run off (its kernels' parameters only)."""
    params = cr.arrays.params.copy()
    params[P_HR_MULT] = 1.0
    return dataclasses.replace(cr, arrays=cr.arrays._replace(params=params))


def _joint(masks: np.ndarray, seats: np.ndarray) -> np.ndarray:
    """uint64[T]: the cards of each table's pool hands ``masks[seats[t]]`` (int64[T, s],
    -1 entries skipped), as one mask a table."""
    picked = np.where(seats >= 0, masks[np.maximum(seats, 0)], _MASK(0))
    return np.bitwise_or.reduce(picked, axis=1)  # 0 a table with none


def _deal_rest(
    used: np.ndarray,
    empty: np.ndarray,
    rng: np.random.Generator,
    deck: Deck = STANDARD_DECK,
    used2: np.ndarray | None = None,
) -> np.ndarray:
    """uint8[empty.sum(), 13]: each table's ``empty[t]`` hands dealt from the card ids
    its masks leave (``used[t]`` the first copies, ``used2[t]`` the second, as the
    pool's; a uniformly random order of them, 13 cards a hand), as faces sorted, table
    by table (a joker face ``JOKER_FACE``, its bit in the masks)."""
    cards = np.array(deck.cards(), np.int64)
    face_of, second_of = card_faces(deck)
    face, second = face_of[cards], second_of[cards]
    bits = face.astype(MASK_DTYPE)
    words = np.where(second, used2[:, None], used[:, None]) if used2 is not None else used[:, None]
    free = (words >> bits) & _MASK(1) == 0
    order = np.argsort(np.where(free, rng.random(free.shape), 2.0), axis=1)  # free first
    table = np.repeat(np.arange(len(used)), empty)
    hand = np.arange(len(table)) - np.repeat(np.cumsum(empty) - empty, empty)
    at = order[table[:, None], 13 * hand[:, None] + np.arange(13)]
    return np.sort(face[at], axis=1).astype(np.uint8)


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
    copies = pool.seconds is not None
    hand1, hand2 = hand_masks(hand, copies)
    start = int(np.random.default_rng(seed).integers(pool.size))  # as OpponentPool.pick
    idx = np.empty(want, np.int64)
    got = pool.scan(hand, start, want, idx)
    if got < need + n_tables:
        return None
    pairs = Opponents(n_opp, *pool.entries(idx[:need]), holds_in_masks(pool.held(idx[:need]), cr))
    region = idx[need:got]
    masks = np.ascontiguousarray(pool.masks[region], MASK_DTYPE)
    seconds = None if pool.seconds is None else np.ascontiguousarray(pool.seconds[region],
                                                                      MASK_DTYPE)  # fmt: skip
    rng = np.random.default_rng(None if seed is None else [seed, 33])
    seats = np.full((n_tables, n_opp), -1, np.int64)  # index into region, -1 dealt
    seats[:, 0] = np.arange(n_tables)
    for s in range(1, n_opp - 1):  # the seats drawn from the pool after the first
        taken = _joint(masks, seats[:, :s]) | _MASK(hand1)
        part = np.empty(n_tables, np.int64)
        starts = rng.integers(len(masks), size=n_tables)
        if seconds is None:
            k._pool_partners(masks, taken, starts, part)
        else:
            taken2 = _joint(seconds, seats[:, :s]) | _MASK(hand2)
            k._pool_partners_copies(masks, seconds, taken, taken2, starts, part)
        seats[:, s] = part
    at_table = _Seats(region, masks, seats, hand1, seconds, hand2)
    return _tables(pool, cr, at_table, rng, tables, pairs)


@dataclass(frozen=True)
class _Seats:
    """The pool hands drawn for whole tables: ``region`` their pool indices, ``masks``
    their cards, ``seats`` each table's (index into ``region``, -1 a seat to deal from
    the cards left), ``hand_mask`` the hand's cards; with copies ``seconds`` and
    ``hand2`` the second copies (``OpponentPool``)."""

    region: np.ndarray
    masks: np.ndarray
    seats: np.ndarray
    hand_mask: int
    seconds: np.ndarray | None = None
    hand2: int = 0


def _tables(
    pool: OpponentPool,
    cr: CompiledRules,
    at_table: _Seats,
    rng: np.random.Generator,
    tables: FieldTables | None,
    pairs: Opponents,
) -> PooledTables:
    """The tables of ``at_table.seats`` (pool hands, -1 a seat to deal from the cards
    left): the dealt seats' cards now, their settings when a table needs them
    (``PooledTables.set_tables``)."""
    region, masks, seats = at_table.region, at_table.masks, at_table.seats
    hand_mask = at_table.hand_mask
    n_tables, n_opp = seats.shape
    used2 = None
    if at_table.seconds is not None:
        used2 = _joint(at_table.seconds, seats) | _MASK(at_table.hand2)
    dealt = _deal_rest(_joint(masks, seats) | _MASK(hand_mask), (seats < 0).sum(axis=1), rng,
                       cr.rules.deck, used2)  # fmt: skip
    flat = seats.ravel()
    drawn = flat >= 0
    at = region[flat[drawn]]
    entries = pool.entries(at)
    rows = n_tables * n_opp
    cols = []
    for a in (*entries, pool.split[at]):
        col = np.zeros((rows, *a.shape[1:]), np.int64 if a.dtype.kind in "iu" else a.dtype)
        col[drawn] = a
        cols.append(col)
    cards = np.empty((rows, 13), np.uint8)
    cards[drawn] = pool.hands(at)
    cards[~drawn] = dealt
    hold = holds_code_card(cards, cr) if cr.rules.code_card else None
    return PooledTables(pairs, n_opp, cards, drawn, Opponents(n_opp, *cols[:5]), cols[5], hold,
                        cr, tables, np.zeros(n_tables, np.bool_))  # fmt: skip


def home_run_possible(cands: Candidates, drawn: PooledTables) -> np.ndarray:
    """bool[tables]: where some candidate's correction may be other than 0, from the
    pool seats and the dealt seats' cards alone (docs/pool.md#the-home-run). A table
    where it is False has no home run for any candidate, whatever the field sets its
    dealt seats to: a pool seat declared a natural; or no candidate scoops every pool
    seat (its own home run), no pool seat scoops every other pool seat and some
    candidate (theirs), and no legal split of any dealt seat's cards beats the strongest
    legal pool seat on every row (a dealt seat's). Each is needed for its home run
    whatever the other dealt seats hold (a scoop beats every other player), so one
    dealt seat or several alike (a 5- or 6-player table deals two or three)."""
    from solver.strategy import _kernels as k

    T, n = drawn.n_tables, drawn.n_opp
    r = drawn.rows
    known = drawn.drawn.reshape(T, n)
    flag = np.empty(T, np.int64)
    th = np.empty((T, 3), np.int64)
    k._home_run_screen(np.ascontiguousarray(cands.keys), cands.fouls,
                       np.ascontiguousarray(r.keys.reshape(T, n, 3)), r.foul.reshape(T, n),
                       known, r.nat.reshape(T, n), flag, th)  # fmt: skip
    need = flag > 0
    left = np.flatnonzero(flag == 0)
    if len(left):
        x = ~known[left]
        hands = drawn.cards.reshape(T, n, 13)[left][x]  # every dealt seat, table by table
        which = np.repeat(np.arange(len(left)), x.sum(axis=1))
        can = _can_scoop(hands, th[left][which], drawn.cr)
        need[left[np.unique(which[can])]] = True
    return need


def _can_scoop(hands: np.ndarray, th: np.ndarray, cr: CompiledRules) -> np.ndarray:
    """bool[m]: whether sorted hand i (uint8[m, 13]) has a legal split whose front,
    middle and back keys all exceed th[i] (int64[m, 3]): over every back above th[i, 2],
    the 56 ways the other eight cards make a middle and a front (``_scoop_possible``)."""
    from solver.strategy import _kernels as k
    from solver.strategy.hands.splits import structure

    out = np.zeros(len(hands), np.bool_)
    k._scoop_possible(np.ascontiguousarray(hands, np.uint8), np.ascontiguousarray(th, np.int64),
                      cr.lookup, cr.arrays, structure().under, out)  # fmt: skip
    return out


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
    n_opp, n_tables = drawn.n_opp, drawn.n_tables
    weights = np.ones(n_opp) if stakes is None else np.ascontiguousarray(stakes, np.float64)
    at = np.flatnonzero(home_run_possible(cands, drawn))  # elsewhere the correction is 0
    tab = drawn.of(at)

    factor = pair_factors(cr, cands.hand, drawn.hold, n_tables, n_opp)  # the code card

    def unfactored(w: np.ndarray, rows: slice) -> np.ndarray:
        """float64[rows, tables]: the correction with weights w (0 where screened out)."""
        whole = np.zeros((len(cands.keys[rows]), n_tables))
        pair = np.zeros((len(whole), len(at)))
        part = np.zeros_like(pair)
        for params, out in ((cr.arrays.params, part), (off.arrays.params, pair)):
            k._mc_values(cands.keys[rows], cands.roy[rows], cands.fouls[rows], tab.keys, tab.roy,
                         tab.foul, tab.nat, tab.nat_key, w, params, cr.arrays.nat_units, 0,
                         len(at), out)  # fmt: skip
        whole[:, at] = part - pair
        return whole

    def by_seat(rows: slice) -> np.ndarray:
        """float64[n_opp, rows, tables]: each seat's correction (weight 1 for it alone);
        what is won is linear in the weights, so any weighting is a sum of these."""
        eye = np.eye(n_opp)
        seat = np.stack([unfactored(eye[o], rows) for o in range(n_opp)])
        return seat if factor is None else seat * factor.T[:, None, :]

    corr = unfactored(weights, slice(None)) if factor is None else np.tensordot(
        weights, by_seat(slice(None)), axes=1)  # fmt: skip
    if stakes is None:
        corr /= n_opp
    seat_of = functools.lru_cache(maxsize=None)(lambda i: by_seat(slice(i, i + 1))[:, 0])
    starts = np.array([g[0] for g in np.array_split(np.arange(drawn.pairs.deals), n_tables)])
    sizes = np.diff(np.append(starts, drawn.pairs.deals))

    def grouped(per_deal: np.ndarray) -> np.ndarray:
        return np.add.reduceat(per_deal, starts, axis=-1) / sizes

    per_unit = grouped(base.per_unit) + corr
    pair_factor = base.pair_factor  # a surrender's factors: one row a table, as per_unit
    if pair_factor is not None and len(pair_factor) > 1:
        pair_factor = grouped(pair_factor.T).T

    def by_opponent(i: int) -> np.ndarray:
        return base.by_opponent(i) + seat_of(i).mean(axis=1)

    def parts(i: int) -> np.ndarray:
        out = base.parts(i)
        out[1] += seat_of(i).sum(axis=0).mean() / n_opp  # the home run is bonus
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
