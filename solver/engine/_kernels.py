"""numba kernels for settling two players. Pure: arrays and scalars in, no validation, no I/O.

Tables are arguments, never globals (numba would freeze them into the cached code):

* ``lk``: the evaluator's ``Lookup`` (``multi5``/``flush5`` int16[6188], ``multi3``
  int16[455]; see ``evaluator._kernels``), one NamedTuple argument;
* ``ra``: the ruleset's ``RuleArrays`` (``solver.engine.compiled``), one NamedTuple
  argument, or its arrays one by one in the hot scalar kernels: ``remap`` int16[7917]
  (strength -> strength under the ruleset's wheel), ``decisive`` int8[7917] (rank of the
  card whose suit breaks ties), ``suit_rank`` int64[4] (0..3 per suit id, 3 strongest; all
  0 without a suit order), ``roy`` float64[3, 7917] (royalty of a front/middle/back row by
  ORIGINAL strength), ``params`` float64[NPARAMS] and ``nat_units`` float64[k].

A row's **key** is ``remap[strength] * 4 + suit component`` (int64, higher is stronger,
one scale for 3- and 5-card rows): the suit component is the ``suit_rank`` of the
strongest-suited card of rank ``decisive[strength]`` in the row, so it is 0 without a
suit order. A **summary** of a setting is ``keys`` int64[3] (front, middle, back),
``roy`` float64[4] (the three rows' royalties and the dealt cards' royalty, after
``one_royalty_per_hand``) and ``foul`` (bool, ``not keys[0] <= keys[1] <= keys[2]``, but
for a front of both jokers checked as three of its third card, docs/rules.md#jokers).

``params`` float64[NPARAMS] and the scoring, royalty-mode and natural codes are laid out
in ``solver.engine.layout`` (``P_*``, ``SCORING_*``, ``MODE_*``, ``NATURAL_CODES``).
Natural codes (``codes`` int64[k]) are in the ruleset's strongest-first order; a natural
id is an index into ``codes`` (-1: none); its tie key is int64 (see ``_find_natural``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from evaluator._jit import kernel, register_kernel_sources
from evaluator._kernels import _eval3, _eval5
from solver.engine.layout import (
    ALL_HIGH,
    ALL_LOW,
    DRAGON,
    EIGHT_OF_A_KIND,
    FIVE_PAIRS_TRIPS,
    FOUR_TRIPS,
    FOUR_TRIPS_SPLIT,
    KERNEL_SOURCES,
    MODE_ALWAYS,
    MODE_CANCEL,
    ONE_COLOUR,
    P_CAP,
    P_CODE,
    P_CODE_BOTH,
    P_EQ_FOUL,
    P_FOUL,
    P_FOUL_NAT,
    P_FOUL_ON,
    P_HR_MIN,
    P_HR_MULT,
    P_MODE,
    P_MULT,
    P_NAT_PAYOUT,
    P_ONE,
    P_RR,
    P_SCOOP_ADD,
    P_SCORING,
    P_XX_FOUL,
    P_XX_KEY,
    P_XX_ROY,
    ROWS_FLUSH,
    ROWS_STRAIGHT,
    ROWS_STRAIGHT_FLUSH,
    ROYAL_DRAGON,
    SCORING_16,
    SCORING_24,
    SEVEN_OF_A_KIND,
    SIX_OF_A_KIND,
    SIX_PAIRS,
    THREE_FLUSHES,
    THREE_QUADS,
    THREE_QUADS_SPLIT,
    THREE_STRAIGHT_FLUSHES,
    THREE_STRAIGHTS,
    TWELVE_ONE_COLOUR,
    TWELVE_ROYALS,
    TWELVE_ROYALS_AND_ONE,
    TWO_FIVES_TRIPS,
)

if TYPE_CHECKING:
    from evaluator._jit import F64, I64, Bool, Bools, Cards, Int, Ints, Table
    from solver.engine.compiled import Lookup, RuleArrays

register_kernel_sources(KERNEL_SOURCES)  # before the first kernel below

# --------------------------------------------------------------------------- row keys


@kernel
def _suit_part(c: Int, d: Int, suit_rank: I64, best: Int) -> Int:
    """max(best, suit_rank of card c) when c has rank d. One expression, no early return:
    the branches cost 25 times the work, making keys under a suit order slow."""
    c = np.int64(c)
    v = suit_rank[c & 3] if (c >> 2) == d else best
    return max(v, best)


@kernel
def _row_key3(
    c0: Int, c1: Int, c2: Int, strength: Int, remap: Table, decisive: Ints, suit_rank: I64
) -> np.int64:
    """Key (int64) of a 3-card row from its three card ids (scalars) and its strength."""
    d = decisive[strength]
    best = _suit_part(c0, d, suit_rank, 0)
    best = _suit_part(c1, d, suit_rank, best)
    best = _suit_part(c2, d, suit_rank, best)
    return np.int64(remap[strength]) * 4 + best


@kernel
def _row_key5(
    c0: Int, c1: Int, c2: Int, c3: Int, c4: Int,
    strength: Int, remap: Table, decisive: Ints, suit_rank: I64,
) -> np.int64:  # fmt: skip
    """Key (int64) of a 5-card row from its five card ids (scalars) and its strength."""
    d = decisive[strength]
    best = _suit_part(c0, d, suit_rank, 0)
    best = _suit_part(c1, d, suit_rank, best)
    best = _suit_part(c2, d, suit_rank, best)
    best = _suit_part(c3, d, suit_rank, best)
    best = _suit_part(c4, d, suit_rank, best)
    return np.int64(remap[strength]) * 4 + best


# --------------------------------------------------------------------------- summaries


@kernel
def _one_royalty(r0: float, r1: float, r2: float) -> tuple[float, float, float]:
    """Keep only the largest of three row royalties (equal: back, then middle, then front)."""
    if r2 >= r1 and r2 >= r0:
        return 0.0, 0.0, r2
    if r1 >= r0:
        return 0.0, r1, 0.0
    return r0, 0.0, 0.0


@kernel
def _one_royalty_with_dealt(
    r0: float, r1: float, r2: float, rd: float
) -> tuple[float, float, float, float]:
    """One royalty per hand over the rows' and the dealt cards' royalties: the largest
    is kept (a dealt one over a row one of the same size; then back, middle, front)."""
    if rd > 0.0 and rd >= r0 and rd >= r1 and rd >= r2:
        return 0.0, 0.0, 0.0, rd
    r0, r1, r2 = _one_royalty(r0, r1, r2)
    return r0, r1, r2, 0.0


@kernel
def _dealt_royalty(cards: Cards, dealt_units: F64, single: Bool) -> float:
    """Royalty of the four of a kinds and straight flushes among 13 dealt cards uint8[13].

    dealt_units float64[3]: the back row's line for four of a kind, straight flush and
    royal flush (all 0: royalties_dealt off). Combinations may share cards; the largest
    total over card-disjoint picks is returned, or, with ``single``, the largest one
    (docs/rules.md#disjoint-dealt-combinations). A-2-3-4-5 suited counts.
    """
    if dealt_units[0] <= 0.0 and dealt_units[1] <= 0.0 and dealt_units[2] <= 0.0:
        return 0.0
    masks = np.zeros(16, np.int64)  # card bit masks (positions in `cards`) of the combos
    units = np.zeros(16, np.float64)
    n = 0
    for rank in range(13):
        m = np.int64(0)
        for p in range(13):
            if np.int64(cards[p]) >> 2 == rank:
                m |= np.int64(1) << p
        if m != 0 and (m & (m - 1)) != 0:  # more than one card
            cnt = 0
            x = m
            while x:
                x &= x - 1
                cnt += 1
            if cnt == 4 and dealt_units[0] > 0.0:
                masks[n] = m
                units[n] = dealt_units[0]
                n += 1
    for suit in range(4):
        pos = np.full(13, -1, np.int64)  # position of the card of each rank in this suit
        for p in range(13):
            c = np.int64(cards[p])
            if c & 3 == suit and c >> 2 <= 12:
                pos[c >> 2] = p
        for top in range(3, 13):  # top rank of the straight; 3 is the wheel (5-high)
            m = np.int64(0)
            ok = True
            for r in range(top - 4, top + 1):
                rr = 12 if r < 0 else r
                if pos[rr] < 0:
                    ok = False
                    break
                m |= np.int64(1) << pos[rr]
            if ok:
                u = dealt_units[2] if top == 12 else dealt_units[1]
                if u > 0.0 and n < 16:
                    masks[n] = m
                    units[n] = u
                    n += 1
    best = 0.0
    if single:
        for i in range(n):
            if units[i] > best:
                best = units[i]
        return best
    for pick in range(1, 1 << n):  # card-disjoint subsets (n is small: a few combos)
        used = np.int64(0)
        total = 0.0
        ok = True
        for i in range(n):
            if pick >> i & 1:
                if used & masks[i]:
                    ok = False
                    break
                used |= masks[i]
                total += units[i]
        if ok and total > best:
            best = total
    return best


@kernel
def _summarize(
    setting: Cards, lk: Lookup, ra: RuleArrays, keys_out: I64, roy_out: F64
) -> bool:
    """Summary of one setting: setting uint8[13] = front(3) + middle(5) + back(5) card ids,
    lk the evaluator's Lookup, ra the ruleset's RuleArrays.

    Writes keys_out int64[3] and roy_out float64[4] (front, middle, back and the dealt
    cards' royalty, after one royalty per hand); returns foul (bool).
    """
    c = setting
    remap, decisive, suit_rank = ra.remap, ra.decisive, ra.suit_rank
    sf = _eval3(c[0], c[1], c[2], lk.multi3)
    sm = _eval5(c[3], c[4], c[5], c[6], c[7], lk.multi5, lk.flush5)
    sb = _eval5(c[8], c[9], c[10], c[11], c[12], lk.multi5, lk.flush5)
    kf = _row_key3(c[0], c[1], c[2], sf, remap, decisive, suit_rank)
    km = _row_key5(c[3], c[4], c[5], c[6], c[7], sm, remap, decisive, suit_rank)
    kb = _row_key5(c[8], c[9], c[10], c[11], c[12], sb, remap, decisive, suit_rank)
    keys_out[0] = kf
    keys_out[1] = km
    keys_out[2] = kb
    one = ra.params[P_ONE] != 0.0
    r0 = ra.roy[0, sf]
    r1 = ra.roy[1, sm]
    r2 = ra.roy[2, sb]
    kx = kf  # the front's key in the foul check
    if ra.params[P_XX_KEY] >= 0.0:  # a front holding both jokers (docs/rules.md#jokers)
        held = (c[0] >> 2 > 12) + (c[1] >> 2 > 12) + (c[2] >> 2 > 12)
        if held == 2:
            kf = np.int64(ra.params[P_XX_KEY])
            keys_out[0] = kf
            r0 = ra.params[P_XX_ROY]
            kx = kf
            if ra.params[P_XX_FOUL] != 0.0:
                kx = _third_card_trips(c[0], c[1], c[2], lk.multi3, remap, decisive, suit_rank)
    rd = _dealt_royalty(c, ra.dealt_units, one)
    if one:
        r0, r1, r2, rd = _one_royalty_with_dealt(r0, r1, r2, rd)
    roy_out[0] = r0
    roy_out[1] = r1
    roy_out[2] = r2
    roy_out[3] = rd
    return _fouled(kx, km, kb, ra.eq_top, ra.params)


@kernel
def _third_card_trips(
    c0: Int, c1: Int, c2: Int, multi3: Table, remap: Table, decisive: Ints, suit_rank: I64
) -> np.int64:
    """The key of three of a kind of the one card of a front of both jokers that is not
    a joker (card ids c0..c2): what the foul check takes that front for under
    ``two_jokers_foul = "third_card"`` (docs/rules.md#jokers)."""
    third = c0 if c0 >> 2 <= 12 else (c1 if c1 >> 2 <= 12 else c2)
    r = np.int64(third >> 2) * 4
    s = _eval3(r, r + 1, r + 2, multi3)
    return _row_key3(r, r + 1, r + 2, s, remap, decisive, suit_rank)


@kernel(inline="always")
def _fouled(kf: Int, km: Int, kb: Int, eq_top: I64, params: F64) -> bool:
    """Whether rows of keys kf, km, kb foul: a row stronger than the next, or under
    equal_rows_foul (params[P_EQ_FOUL]) a row the next does not beat as gameBinh
    orders them (``RuleArrays.eq_top`` by strength': docs/rules.md#equal-rows-foul)."""
    if not (kf <= km and km <= kb):
        return True
    if params[P_EQ_FOUL] != 0.0:
        return (km >> 2) <= eq_top[kf >> 2] or (kb >> 2) <= eq_top[km >> 2]
    return False


@kernel
def _summarize_batch(
    settings: Cards, lk: Lookup, ra: RuleArrays, keys: I64, roys: F64, fouls: Bools
) -> None:
    """settings uint8[n, 13] -> keys int64[n, 3], roys float64[n, 4], fouls bool[n]."""
    for i in range(settings.shape[0]):
        fouls[i] = _summarize(settings[i], lk, ra, keys[i], roys[i])


# --------------------------------------------------------------------------- settlement


@kernel(inline="always")
def _extra(r: float, rr: float) -> float:
    """What a row royalty r adds to the row's unit: r, or r - 1 when the royalty replaces
    the row's unit (rr = 1.0, docs/rules.md#a-bonus-row-is-its-whole-value) and the row
    earns one (r > 0). With rr = 0.0 it is r exactly."""
    return r - rr * (r > 0.0)


# The settlement of a pair is written once, in the small kernels below, inlined into
# ``_settle_core``, ``_settle_parts`` and ``solver.strategy._kernels._mc_pairs`` (whose
# loop over deals LLVM vectorises: so every choice here is a select between values
# computed either way, never a branch, and the ruleset's codes come in as scalars, not
# as ``params``). Where no unit is paid they add 0.0 or multiply by 1.0, which changes
# no value, so the three agree bit for bit (tests/test_pool.py, tests/reference.py).


@kernel(inline="always")
def _row_sign(a: Int, b: Int) -> Int:
    """+1, 0 or -1 (int64): row key a beats, ties or loses to row key b."""
    return np.int64(a > b) - np.int64(a < b)


@kernel(inline="always")
def _row_royalty(w: Int, ra: float, rb: float, rr: float, cancel: Bool) -> float:
    """The royalty one row of result w (``_row_sign``) moves to A under royalty mode
    winner or cancel: the winner's (``_extra``), paid by the row's loser; 0.0 for a tied
    row, and with cancel (a bool) when both rows earn one."""
    t = _extra(ra, rr) if w > 0 else -_extra(rb, rr)
    return t if (w != 0) & ~(cancel & (ra > 0.0) & (rb > 0.0)) else 0.0


@kernel(inline="always")
def _royalties(
    w0: Int, w1: Int, w2: Int, ra0: float, ra1: float, ra2: float, rda: float,
    rb0: float, rb1: float, rb2: float, rdb: float, rr: float, mode: float,
) -> float:  # fmt: skip
    """Royalty units A collects from B, both legal, by royalty mode (a MODE_* code):
    winner / cancel (``_row_royalty`` row by row) or always (each side's own, whoever
    wins); the dealt cards' royalties rda - rdb are paid whoever wins, in every mode."""
    cancel = mode == MODE_CANCEL
    by_winner = (
        0.0
        + _row_royalty(w0, ra0, rb0, rr, cancel)
        + _row_royalty(w1, ra1, rb1, rr, cancel)
        + _row_royalty(w2, ra2, rb2, rr, cancel)
    )
    own = 0.0 + (ra0 - rb0) + (ra1 - rb1) + (ra2 - rb2)
    royalty = own if mode == MODE_ALWAYS else by_winner
    return royalty + (rda - rdb)


@kernel(inline="always")
def _bonus(won: Int, lost: Int, scoring: float) -> float:
    """The bonus by scoring (a SCORING_* code) to A, who won ``won`` rows and lost
    ``lost``: 1-6 +3 / -3 for a scoop, 2-4 +1 / -1 to whoever won more rows, per-row 0.0."""
    s16 = 3.0 if won == 3 else (-3.0 if lost == 3 else 0.0)
    s24 = 1.0 if won > lost else (-1.0 if lost > won else 0.0)
    return s16 if scoring == SCORING_16 else (s24 if scoring == SCORING_24 else 0.0)


@kernel(inline="always")
def _shown_parts(
    a0: Int, a1: Int, a2: Int, ra0: float, ra1: float, ra2: float, rda: float,
    b0: Int, b1: Int, b2: Int, rb0: float, rb1: float, rb2: float, rdb: float,
    rr: float, mode: float, scoring: float,
) -> tuple[float, float, float, Bool]:  # fmt: skip
    """Two legal hands (arguments as ``_settle_core``; rr, mode and scoring the params'
    codes): (rows, bonus, royalty, scoop), the rows won minus lost (float64), the
    scoring's bonus, the royalties paid (``_royalties``) and whether one side won all
    three rows (what the scoop multiplier then multiplies)."""
    w0 = _row_sign(a0, b0)
    w1 = _row_sign(a1, b1)
    w2 = _row_sign(a2, b2)
    royalty = _royalties(w0, w1, w2, ra0, ra1, ra2, rda, rb0, rb1, rb2, rdb, rr, mode)
    won = np.int64(w0 > 0) + np.int64(w1 > 0) + np.int64(w2 > 0)
    lost = np.int64(w0 < 0) + np.int64(w1 < 0) + np.int64(w2 < 0)
    return float(w0 + w1 + w2), _bonus(won, lost, scoring), royalty, (won == 3) | (lost == 3)


@kernel(inline="always")
def _capped(v: float, cap: float) -> float:
    """v held between -cap and cap (docs/rules.md#the-bankers-table; cap inf: v)."""
    return min(max(v, -cap), cap)


@kernel(inline="always")
def _scoop_added(whole: float, scoop: Bool, add: float, cap: float) -> float:
    """A pair's ``whole`` result after the scoop multiplier, with ``add`` units more to the
    side that scooped (the sign of ``whole``: a scoop is never 0), then capped."""
    return _capped(whole + ((add if whole > 0.0 else -add) if scoop else 0.0), cap)


@kernel(inline="always")
def _shown_units(
    a0: Int, a1: Int, a2: Int, ra0: float, ra1: float, ra2: float, rda: float,
    b0: Int, b1: Int, b2: Int, rb0: float, rb1: float, rb2: float, rdb: float,
    rr: float, mode: float, scoring: float, mult: float, add: float, cap: float,
) -> float:  # fmt: skip
    """Units A wins from B, both legal: ``_shown_parts`` added up (rows, bonus, then
    royalties), times the scoop multiplier ``mult`` on a scoop, plus the scoop's ``add``
    units, then held to ``cap`` (``_scoop_added``)."""
    rows, bonus, royalty, scoop = _shown_parts(a0, a1, a2, ra0, ra1, ra2, rda,
                                               b0, b1, b2, rb0, rb1, rb2, rdb, rr, mode,
                                               scoring)  # fmt: skip
    return _scoop_added((rows + bonus + royalty) * (mult if scoop else 1.0), scoop, add, cap)


@kernel(inline="always")
def _foul_parts(
    fb: Bool, ra0: float, ra1: float, ra2: float, rda: float,
    rb0: float, rb1: float, rb2: float, rdb: float, params: F64,
) -> tuple[float, float, float]:  # fmt: skip
    """One hand fouled (B when fb, else A), no flat penalty: (sign, units, royalty). The
    legal hand wins every row and its scoring's scoop bonus (units: 3 rows plus
    ``_bonus`` of a scoop) and is paid all its royalties (``_extra`` of its rows, then
    its dealt cards'); sign is +1.0 when A is the legal one."""
    rr = params[P_RR]
    if fb:
        sign = 1.0
        royalty = 0.0 + _extra(ra0, rr) + _extra(ra1, rr) + _extra(ra2, rr) + rda
    else:
        sign = -1.0
        royalty = 0.0 + _extra(rb0, rr) + _extra(rb1, rr) + _extra(rb2, rr) + rdb
    return sign, 3.0 + _bonus(3, 0, params[P_SCORING]), royalty


@kernel(inline="always")
def _flat_penalty(fb: Bool, params: F64) -> float:
    """The flat foul penalty A collects (fb: B fouled) or pays (docs/rules.md#flat-foul-penalty)."""
    return params[P_FOUL] if fb else -params[P_FOUL]


@kernel
def _settle_core(
    a0: Int, a1: Int, a2: Int, ra0: float, ra1: float, ra2: float, rda: float, fa: Bool,
    b0: Int, b1: Int, b2: Int, rb0: float, rb1: float, rb2: float, rdb: float, fb: Bool,
    params: F64,
) -> float:  # fmt: skip
    """``_settle`` on scalars: row keys a0..a2 / b0..b2 (int64), row royalties
    ra0..ra2 / rb0..rb2 and dealt-card royalties rda / rdb (float64), fouls fa / fb
    (bool). The hot loops use this form (no array views), which is several times faster
    than passing rows of arrays."""
    if fa or fb:
        if fa and fb:
            return 0.0
        if params[P_FOUL_ON] != 0.0:  # a flat penalty, nothing else
            return _capped(_flat_penalty(fb, params), params[P_CAP])
        sign, units, royalty = _foul_parts(fb, ra0, ra1, ra2, rda, rb0, rb1, rb2, rdb, params)
        return _scoop_added(sign * (units + royalty) * params[P_MULT], True,
                            params[P_SCOOP_ADD], params[P_CAP])  # fmt: skip
    return _shown_units(a0, a1, a2, ra0, ra1, ra2, rda, b0, b1, b2, rb0, rb1, rb2, rdb,
                        params[P_RR], params[P_MODE], params[P_SCORING],
                        params[P_MULT], params[P_SCOOP_ADD], params[P_CAP])  # fmt: skip


@kernel
def _settle_parts(
    a0: Int, a1: Int, a2: Int, ra0: float, ra1: float, ra2: float, rda: float, fa: Bool,
    b0: Int, b1: Int, b2: Int, rb0: float, rb1: float, rb2: float, rdb: float, fb: Bool,
    params: F64,
) -> tuple[float, float, float]:  # fmt: skip
    """``_settle_core`` split into where its units come from: ``(rows, bonus, royalties)``,
    whose sum is the settlement (docs/solve.md#why-this-setting-the-parts-of-the-value).

    ``rows``: the rows won minus the rows lost (a fouled hand loses all three);
    ``royalties``: the row and dealt-card royalties paid, as the royalty mode pays them;
    ``bonus``: the rest: the scoop's 3 (1-6) or the majority's 1 (2-4), and what the scoop
    multiplier adds to the whole pair settlement (rows and royalties included). Arguments
    as ``_settle_core``.
    """
    mult = params[P_MULT]
    scoop: Bool  # a fouled hand is scooped
    if fa or fb:
        if fa and fb:
            return 0.0, 0.0, 0.0
        if params[P_FOUL_ON] != 0.0:  # the flat penalty is all bonus
            return 0.0, _capped(_flat_penalty(fb, params), params[P_CAP]), 0.0
        sign, units, royalty = _foul_parts(fb, ra0, ra1, ra2, rda, rb0, rb1, rb2, rdb, params)
        extra = (mult - 1.0) * (units + royalty)
        rows, bonus, royalty = sign * 3.0, sign * (units - 3.0 + extra), sign * royalty
        scoop = True
    else:
        rows, bonus, royalty, scoop = _shown_parts(a0, a1, a2, ra0, ra1, ra2, rda,
                                                   b0, b1, b2, rb0, rb1, rb2, rdb, params[P_RR],
                                                   params[P_MODE], params[P_SCORING])  # fmt: skip
        if scoop:
            bonus += (mult - 1.0) * (rows + bonus + royalty)
    whole = rows + bonus + royalty  # the scoop's added units and the cap are bonus too
    bonus += _scoop_added(whole, scoop, params[P_SCOOP_ADD], params[P_CAP]) - whole
    return rows, bonus, royalty


@kernel
def _settle(ka: I64, ra: F64, fa: Bool, kb: I64, rb: F64, fb: Bool, params: F64) -> float:
    """Units A wins from B (float64). ka/kb int64[3] row keys (front, middle, back),
    ra/rb float64[4] royalties of the rows and of the dealt cards (after one royalty per
    hand), fa/fb foul.

    Rows: +1 won, -1 lost, 0 tied; per-row sums them, 1-6 adds 3 for a scoop, 2-4 adds 1
    to whoever won more rows. Royalties: winner (paid by the row's loser), cancel (as
    winner, none when both rows earn one), always (each side's own, whoever wins); the
    dealt cards' royalties are paid whoever wins. A scoop multiplies the whole pair
    settlement, royalties included. A fouled hand loses every row to a legal one, pays
    all the legal hand's royalties and collects nothing; two fouled hands settle 0.
    Same arithmetic order as tests/reference.py (bit-exact); docs/rules.md#fouls.
    """
    return _settle_core(ka[0], ka[1], ka[2], ra[0], ra[1], ra[2], ra[3], fa,
                        kb[0], kb[1], kb[2], rb[0], rb[1], rb[2], rb[3], fb, params)  # fmt: skip


@kernel
def _settle_at(
    keys_a: I64, roys_a: F64, fouls_a: Bools, i: int,
    keys_b: I64, roys_b: F64, fouls_b: Bools, j: int, params: F64,
) -> float:  # fmt: skip
    """``_settle`` of summary i of (keys_a int64[n,3], roys_a float64[n,4], fouls_a bool[n])
    against summary j of the b arrays, by index (no array views)."""
    return _settle_core(
        keys_a[i, 0], keys_a[i, 1], keys_a[i, 2],
        roys_a[i, 0], roys_a[i, 1], roys_a[i, 2], roys_a[i, 3], fouls_a[i],
        keys_b[j, 0], keys_b[j, 1], keys_b[j, 2],
        roys_b[j, 0], roys_b[j, 1], roys_b[j, 2], roys_b[j, 3], fouls_b[j],
        params,
    )  # fmt: skip


@kernel
def _settle_against(
    keys: I64, roys: F64, fouls: Bools, kb: I64, rb: F64, fb: Bool, params: F64, out: F64
) -> None:
    """Every summary of (keys int64[n,3], roys float64[n,4], fouls bool[n]) against one
    opponent (kb int64[3], rb float64[4], fb bool) -> out float64[n] (units won)."""
    b0, b1, b2 = kb[0], kb[1], kb[2]
    r0, r1, r2, r3 = rb[0], rb[1], rb[2], rb[3]
    for i in range(keys.shape[0]):
        out[i] = _settle_core(
            keys[i, 0], keys[i, 1], keys[i, 2],
            roys[i, 0], roys[i, 1], roys[i, 2], roys[i, 3], fouls[i],
            b0, b1, b2, r0, r1, r2, r3, fb, params,
        )  # fmt: skip


@kernel
def _settle_pairs(
    ka: I64, ra: F64, fa: Bools, kb: I64, rb: F64, fb: Bools, params: F64, out: F64
) -> None:
    """Pair i of two summary arrays (int64[n,3], float64[n,4], bool[n] each) -> out[i]."""
    for i in range(ka.shape[0]):
        out[i] = _settle_at(ka, ra, fa, i, kb, rb, fb, i, params)


# --------------------------------------------------------------------------- whole tables


@kernel
def _scoops(a0: Int, a1: Int, a2: Int, fa: Bool, b0: Int, b1: Int, b2: Int, fb: Bool) -> Bool:
    """Whether A scoops B for the home run (docs/rules.md#home-run): A is legal, and B is
    fouled or loses all three rows to A (row keys a0..a2 / b0..b2 int64, fouls fa / fb;
    a tied row is not a win)."""
    if fa:
        return False
    if fb:
        return True
    return a0 > b0 and a1 > b1 and a2 > b2


@kernel
def _home_run_seat(keys: I64, fouls: Bools, nat: I64, surr: Bools, params: F64) -> int:
    """The seat with a home run at a table of k players, or -1 (docs/rules.md#home-run).

    keys int64[k, 3], fouls bool[k], nat int64[k] (>= 0: a natural declared), surr
    bool[k] (surrendered: out of the hand). A seat has the home run when the rule is on
    (params[P_HR_MULT] != 1), it shows a legal hand, the players who did not surrender
    besides it are at least params[P_HR_MIN], none of them declared a natural, and it
    scoops each of them. At most one seat can.
    """
    if params[P_HR_MULT] == 1.0:
        return -1
    k = keys.shape[0]
    shown = 0
    for s in range(k):
        if not surr[s]:
            if nat[s] >= 0:
                return -1
            shown += 1
    if shown - 1 < params[P_HR_MIN]:
        return -1
    for h in range(k):
        if surr[h] or fouls[h]:
            continue
        ok = True
        for j in range(k):
            if j != h and not surr[j]:
                if not _scoops(keys[h, 0], keys[h, 1], keys[h, 2], np.bool_(False),
                               keys[j, 0], keys[j, 1], keys[j, 2], fouls[j]):  # fmt: skip
                    ok = False
                    break
        if ok:
            return h
    return -1


@kernel
def _settle_table(
    keys: I64, roys: F64, fouls: Bools, nat: I64, natkey: I64, surr: Bools, hold: Bools,
    params: F64, nat_units: F64, cost: float, banker: int, bets: F64, out: F64,
) -> None:  # fmt: skip
    """Each player's units at one table of k players: out float64[k] (written, sums to 0).

    keys int64[k, 3], roys float64[k, 4], fouls bool[k] summaries (read only for players
    who show their rows); nat int64[k] declared natural ids (-1: none) with tie keys
    natkey int64[k]; surr bool[k] players who surrendered; hold bool[k] players who hold
    the code card (docs/rules.md#the-code-card: a pair with one holder is multiplied by
    params[P_CODE], a pair of two holders by params[P_CODE_BOTH]); cost the surrender
    cost; banker the banker's seat at a banker's table (-1: none;
    docs/rules.md#the-bankers-table): only the pairs of the banker settle, each times the
    multiple its player bet (bets float64[k]).

    Every pair settles once (i < j) and each player adds its pairs in seat order, so with
    the home run off out[i] is exactly the sum of ``_settle`` over i's opponents: a
    surrendered player pays ``cost`` to each player who did not (two surrendered: 0); a
    declared natural settles by ``_settle_naturals``; two shown hands by ``_settle``,
    times the home run multiplier when either of them has the home run
    (``_home_run_seat``).
    """
    k = keys.shape[0]
    h = _home_run_seat(keys, fouls, nat, surr, params)
    for i in range(k):
        out[i] = 0.0
    for i in range(k):
        for j in range(i + 1, k):
            if banker >= 0 and i != banker and j != banker:
                continue  # two players at a banker's table do not settle
            if surr[i] or surr[j]:
                if surr[i] and surr[j]:
                    v = 0.0
                elif surr[i]:
                    v = -cost
                else:
                    v = cost
            elif nat[i] >= 0 or nat[j] >= 0:
                v = _settle_naturals(nat[i], natkey[i], nat[j], natkey[j], nat_units,
                                     params)  # fmt: skip
                if params[P_FOUL_NAT] != 0.0:  # a fouled hand pays a natural its penalty
                    if nat[j] < 0 and fouls[j]:
                        v += params[P_FOUL]
                    elif nat[i] < 0 and fouls[i]:
                        v -= params[P_FOUL]
            else:
                v = _settle_at(keys, roys, fouls, i, keys, roys, fouls, j, params)
                if i == h or j == h:
                    v *= params[P_HR_MULT]
            if hold[i] and hold[j]:
                v *= params[P_CODE_BOTH]
            elif hold[i] or hold[j]:
                v *= params[P_CODE]
            if banker >= 0:
                v *= bets[j if i == banker else i]  # the player's multiple
            out[i] += v
            out[j] -= v


@kernel
def _settle_tables(
    keys: I64, roys: F64, fouls: Bools, nat: I64, natkey: I64, surr: Bools, hold: Bools,
    k: int, params: F64, nat_units: F64, cost: float, banker: int, bets: F64, out: F64,
) -> None:  # fmt: skip
    """``_settle_table`` of many tables of k players each, laid out seat by seat: table t
    is rows t * k .. t * k + k - 1 of every array (keys int64[n * k, 3], roys
    float64[n * k, 4], fouls / surr / hold bool[n * k], nat / natkey int64[n * k], bets
    float64[n * k]; banker the banker's seat at every table, -1 none) -> out
    float64[n * k]."""
    for t in range(keys.shape[0] // k):
        lo = t * k
        hi = lo + k
        _settle_table(keys[lo:hi], roys[lo:hi], fouls[lo:hi], nat[lo:hi], natkey[lo:hi],
                      surr[lo:hi], hold[lo:hi], params, nat_units, cost, banker, bets[lo:hi],
                      out[lo:hi])  # fmt: skip


# --------------------------------------------------------------------------- naturals


@kernel
def _settle_natural(na: Int, nka: Int, nb: Int, nkb: Int, nat_units: F64) -> float:
    """Units A wins from B when a natural is involved: na/nb natural ids (-1 none, 0 the
    strongest), nka/nkb int64 tie keys, nat_units float64[k] payouts by id. A natural
    collects its payout from a player with none; the stronger of two collects its own
    payout; the same natural compares keys (a full tie pays 0). Both none: 0."""
    if na < 0:
        if nb < 0:
            return 0.0
        return -nat_units[nb]
    if nb < 0:
        return nat_units[na]
    if na < nb:
        return nat_units[na]
    if nb < na:
        return -nat_units[nb]
    if nka > nkb:
        return nat_units[na]
    if nka < nkb:
        return -nat_units[na]
    return 0.0


@kernel
def _settle_naturals(
    na: Int, nka: Int, nb: Int, nkb: Int, nat_units: F64, params: F64
) -> float:
    """``_settle_natural`` under the ruleset's natural ties (params[P_NAT_PAYOUT]; docs/
    rules.md#natural-ties): by payout, between two naturals the larger payout collects
    its payout and equal payouts tie (whatever the naturals); otherwise as
    ``_settle_natural``. With one side or none declaring, the two agree."""
    if params[P_NAT_PAYOUT] != 0.0 and na >= 0 and nb >= 0:
        ua = nat_units[na]
        ub = nat_units[nb]
        if params[P_NAT_PAYOUT] == 2.0:  # by difference
            v = ua - ub
        elif ua > ub:
            v = ua
        elif ub > ua:
            v = -ub
        else:
            v = 0.0
    else:
        v = _settle_natural(na, nka, nb, nkb, nat_units)
    return _capped(v, params[P_CAP])  # the pair cap holds a natural's payment too


@kernel
def _pow4(e: Int) -> Int:
    return np.int64(1) << (2 * e)


@kernel
def _straights_possible(packed: Int) -> bool:
    """Whether rank counts (2 bits a rank, each <= 3) are one 3-card run (A-2-3 .. Q-K-A)
    plus two 5-card runs (A-2-3-4-5 .. T-J-Q-K-A). Base-4 digits never carry here, so
    the integer sum matches the rank counts exactly."""
    for b in range(10):
        pb = _pow4(12) + 85 if b == 9 else _pow4(b) * 341
        for m in range(b, 10):
            pm = _pow4(12) + 85 if m == 9 else _pow4(m) * 341
            rest = packed - pb - pm
            if rest <= 0:
                continue
            if rest == _pow4(12) + 5:
                return True
            for f in range(11):
                if rest == _pow4(f) * 21:
                    return True
    return False


@kernel
def _flushes_possible(sc: I64) -> bool:
    """Whether suit counts int64[4] can make a 3-card flush and two 5-card flushes."""
    for s in range(4):
        n = sc[s]
        if n != 0 and n != 3 and n != 5 and n != 8 and n != 10 and n != 13:
            return False
    return True


@kernel
def _is_run(mask: Int, n: int) -> bool:
    """Rank bit mask of n distinct ranks in a row (A-2-3 and A-2-3-4-5 count)."""
    low = mask & -mask
    if n == 3:
        return mask == low * 7 or mask == 0x1003
    return mask == low * 31 or mask == 0x100F


@kernel
def _row_ok5(c0: Int, c1: Int, c2: Int, c3: Int, c4: Int, mode: int) -> bool:
    """Whether five cards are a straight (mode ROWS_STRAIGHT), a flush (ROWS_FLUSH) or a
    straight flush (ROWS_STRAIGHT_FLUSH)."""
    if mode != ROWS_STRAIGHT:
        s = c0 & 3
        if not ((c1 & 3) == s and (c2 & 3) == s and (c3 & 3) == s and (c4 & 3) == s):
            return False
        if mode == ROWS_FLUSH:
            return True
    mask = (
        (1 << (c0 >> 2)) | (1 << (c1 >> 2)) | (1 << (c2 >> 2)) | (1 << (c3 >> 2)) | (1 << (c4 >> 2))
    )
    return _is_run(mask, 5)


@kernel
def _front_ok(x0: Int, x1: Int, x2: Int, mode: int) -> bool:
    """``_row_ok5`` for a 3-card front: a 3-card run (A-2-3 .. Q-K-A, not K-A-2) and/or
    three cards of one suit."""
    if mode != ROWS_STRAIGHT:
        if (x0 & 3) != (x1 & 3) or (x0 & 3) != (x2 & 3):
            return False
        if mode == ROWS_FLUSH:
            return True
    return _is_run((1 << (x0 >> 2)) | (1 << (x1 >> 2)) | (1 << (x2 >> 2)), 3)


@kernel
def _best_rows(hand: Cards, mode: int, lk: Lookup, remap: Table, split: I64) -> np.int64:
    """Best three-straights (mode ROWS_STRAIGHT), three-flushes (ROWS_FLUSH) or
    three-straight-flushes (ROWS_STRAIGHT_FLUSH) split of hand uint8[13].

    Key = (remap[back] * S + remap[middle]) * S + remap[front] (S the deck's strengths,
    ``remap``'s length: 7,917 on 52 cards, 11,648 with copies) over the splits
    whose three rows qualify (a 3-card front and two 5-card rows, each a straight, a
    flush or both as the mode says; a straight flush counts as either), maximised:
    back, then middle, then front on the ruleset's wheel, suits ignored. Writes the best
    split's positions to split int64[13] (front 3, middle 5, back 5); returns -1 when
    there is none.
    """
    best = np.int64(-1)
    ns = np.int64(remap.shape[0])
    rest = np.empty(10, np.int64)
    bk = np.empty(5, np.int64)
    for a in range(11):
        for b in range(a + 1, 12):
            for c in range(b + 1, 13):
                x0 = np.int64(hand[a])
                x1 = np.int64(hand[b])
                x2 = np.int64(hand[c])
                if not _front_ok(x0, x1, x2, mode):
                    continue
                k = 0
                for p in range(13):
                    if p != a and p != b and p != c:
                        rest[k] = p
                        k += 1
                sf = np.int64(remap[_eval3(x0, x1, x2, lk.multi3)])
                for i0 in range(6):
                    for i1 in range(i0 + 1, 7):
                        for i2 in range(i1 + 1, 8):
                            for i3 in range(i2 + 1, 9):
                                for i4 in range(i3 + 1, 10):
                                    chosen = (
                                        (1 << i0) | (1 << i1) | (1 << i2) | (1 << i3) | (1 << i4)
                                    )
                                    m0 = np.int64(hand[rest[i0]])
                                    m1 = np.int64(hand[rest[i1]])
                                    m2 = np.int64(hand[rest[i2]])
                                    m3 = np.int64(hand[rest[i3]])
                                    m4 = np.int64(hand[rest[i4]])
                                    if not _row_ok5(m0, m1, m2, m3, m4, mode):
                                        continue
                                    q = 0
                                    for j in range(10):
                                        if not (chosen >> j) & 1:
                                            bk[q] = np.int64(hand[rest[j]])
                                            q += 1
                                    if not _row_ok5(bk[0], bk[1], bk[2], bk[3], bk[4], mode):
                                        continue
                                    m5, f5 = lk.multi5, lk.flush5
                                    sm = np.int64(remap[_eval5(m0, m1, m2, m3, m4, m5, f5)])
                                    sb = np.int64(
                                        remap[_eval5(bk[0], bk[1], bk[2], bk[3], bk[4], m5, f5)]
                                    )
                                    key = (sb * ns + sm) * ns + sf
                                    if key > best:
                                        best = key
                                        split[0] = a
                                        split[1] = b
                                        split[2] = c
                                        split[3] = rest[i0]
                                        split[4] = rest[i1]
                                        split[5] = rest[i2]
                                        split[6] = rest[i3]
                                        split[7] = rest[i4]
                                        q = 8
                                        for j in range(10):
                                            if not (chosen >> j) & 1:
                                                split[q] = rest[j]
                                                q += 1
    return best


@kernel
def _find_natural(
    hand: Cards, codes: I64, lk: Lookup, remap: Table, split: I64
) -> tuple[int, np.int64]:
    """``_natural_of_cards`` of hand uint8[13], its jokers counted: a joker (face 53,
    rank 13) stands for whichever card gives the strongest natural, then the highest
    key (docs/rules.md#jokers: it may copy a card in play, no card more than twice in
    the hand), every card tried for every joker; the split's positions are the hand's.
    A hand without a joker is ``_natural_of_cards`` itself."""
    j0 = -1
    j1 = -1
    for i in range(13):
        if np.int64(hand[i]) >> 2 > 12:
            if j0 < 0:
                j0 = i
            else:
                j1 = i
    if j0 < 0:
        return _natural_of_cards(hand, codes, lk, remap, split)
    sub = hand.copy()
    held = np.zeros(52, np.int64)  # the copies of each face among the other cards
    for i in range(13):
        if i != j0 and i != j1:
            held[np.int64(hand[i])] += 1
    best = -1
    best_key = np.int64(0)
    trial = np.empty(13, np.int64)
    for f0 in range(52):
        if held[f0] >= 2:
            continue
        sub[j0] = f0
        held[f0] += 1
        for f1 in range(f0, 52 if j1 >= 0 else f0 + 1):
            if j1 >= 0:
                if held[f1] >= 2:
                    continue
                sub[j1] = f1
            # only naturals at least as strong as the best so far are looked for
            n = codes.shape[0] if best < 0 else best + 1
            nid, key = _natural_of_cards(sub, codes[:n], lk, remap, trial)
            if nid >= 0 and (best < 0 or nid < best or key > best_key):
                best = nid
                best_key = key
                split[:] = trial
        held[f0] -= 1
    return best, best_key


@kernel
def _natural_of_cards(
    hand: Cards, codes: I64, lk: Lookup, remap: Table, split: I64
) -> tuple[int, np.int64]:
    """Strongest natural of hand uint8[13] among codes int64[k] (strongest first).

    Returns (id, key): id indexes codes (-1: none, key 0). Keys (int64, higher wins,
    compared only between hands of the same natural; docs/rules.md#natural-tie-keys):
    royal dragon, dragon, twelve royals, all high, all low, one colour and twelve of one
    colour 0 (they always tie); six pairs the six pair ranks highest first in base 16 (a
    quad gives its rank twice, trips once); four trips the four ranks held three or more
    times, three quads the three ranks held four times or more, highest first in base
    16; five pairs and trips the rank of its trips; six, seven and eight of a kind (six
    cards or more of one rank, seven, eight) and two fives and trips (5 + 5 + 3) of the
    decks with added suits 0 (they always tie, as atom-chen/ShiSanShuiServer pays them:
    docs/rules.md#added-suits); three straights / three flushes / three straight
    flushes the ``_best_rows`` key (plain strengths on the ruleset's wheel; the suit
    order plays no part). For those three, split int64[13] receives the best split's
    positions.

    A hand is the first natural of ``codes`` it holds, each tested on its own
    (docs/rules.md#overlapping-naturals). One pass counts ranks and suits; every natural
    but the three split ones is decided from the counts alone, and those three are
    searched only when the counts allow them.
    """
    rc = np.zeros(13, np.int64)
    sc = np.zeros(4, np.int64)
    for i in range(13):
        c = np.int64(hand[i])
        rc[c >> 2] += 1
        sc[c & 3] += 1
    # Rank-count facts: distinct ranks, pairs (a quad two, trips one), ranks held
    # exactly three times, three or more times, four times or more, exactly five times
    # (decks with added suits: docs/rules.md#added-suits), the most of one rank; the
    # lowest and highest rank.
    distinct = 0
    pairs = 0
    n3 = 0
    n3up = 0
    n4 = 0
    n5 = 0
    most = 0
    low = 13
    high = -1
    for r in range(13):
        n = rc[r]
        if n == 0:
            continue
        distinct += 1
        pairs += n >> 1
        most = max(most, n)
        if n >= 3:
            n3up += 1
            if n == 3:
                n3 += 1
            else:
                n4 += 1
                if n == 5:
                    n5 += 1
        if r < low:
            low = r
        high = r
    red = sc[1] + sc[2]  # diamonds and hearts
    for j in range(codes.shape[0]):
        code = codes[j]
        if code == DRAGON:
            if distinct == 13:
                return j, np.int64(0)
        elif code == ROYAL_DRAGON:
            if distinct == 13 and (sc[0] == 13 or sc[1] == 13 or sc[2] == 13 or sc[3] == 13):
                return j, np.int64(0)
        elif code == SIX_PAIRS:
            if pairs >= 6:
                key = np.int64(0)
                for r in range(12, -1, -1):
                    for _ in range(rc[r] // 2):
                        key = key * 16 + r
                return j, key
        elif code == FIVE_PAIRS_TRIPS:
            # 13 = 3 + 5 x 2: the trips' rank is the one rank held an odd number of
            # times, 3 (or 5: trips and a pair, with added suits); every other even.
            odd = 0
            trips = -1
            for r in range(13):
                if rc[r] & 1:
                    odd += 1
                    trips = r
            if odd == 1 and rc[trips] >= 3:
                return j, np.int64(trips)
        elif code == FOUR_TRIPS:
            if n3up >= 4:
                key = np.int64(0)
                for r in range(12, -1, -1):
                    if rc[r] >= 3:
                        key = key * 16 + r
                return j, key
        elif code == THREE_QUADS:
            if n4 >= 3:
                key = np.int64(0)
                for r in range(12, -1, -1):
                    if rc[r] >= 4:
                        key = key * 16 + r
                return j, key
        elif code == FOUR_TRIPS_SPLIT or code == THREE_QUADS_SPLIT:
            # split_ranks (docs/rules.md#ranks-held-six-times): a rank once for every
            # three (four) cards of it; the key those ranks, highest first, in base 16
            size = 3 if code == FOUR_TRIPS_SPLIT else 4
            sets = 0
            key = np.int64(0)
            for r in range(12, -1, -1):
                for _ in range(rc[r] // size):
                    sets += 1
                    key = key * 16 + r
            if sets >= 7 - size:
                return j, key
        elif code == SIX_OF_A_KIND or code == SEVEN_OF_A_KIND or code == EIGHT_OF_A_KIND:
            if most >= 6 + (code == SEVEN_OF_A_KIND) + 2 * (code == EIGHT_OF_A_KIND):
                return j, np.int64(0)
        elif code == TWO_FIVES_TRIPS:
            # 13 = 5 + 5 + 3: two ranks five times each, one three times
            if n5 == 2 and n3 == 1:
                return j, np.int64(0)
        elif code == TWELVE_ROYALS:
            if low >= 9:  # J, Q, K, A only
                return j, np.int64(0)
        elif code == TWELVE_ROYALS_AND_ONE:
            # twelve J, Q, K or A and one card of any rank (docs/rules.md#twelve-royals-and-one)
            if rc[9] + rc[10] + rc[11] + rc[12] >= 12:
                return j, np.int64(0)
        elif code == ALL_HIGH:
            if low >= 6:  # 8 or higher (docs/rules.md#all-high-and-all-low)
                return j, np.int64(0)
        elif code == ALL_LOW:
            if high <= 6:  # 8 or lower
                return j, np.int64(0)
        elif code == ONE_COLOUR:
            if red == 0 or red == 13:
                return j, np.int64(0)
        elif code == TWELVE_ONE_COLOUR:
            if red <= 1 or red >= 12:  # 12 or 13 (docs/rules.md#twelve-of-one-colour)
                return j, np.int64(0)
        elif code == THREE_STRAIGHTS or code == THREE_STRAIGHT_FLUSHES or code == THREE_FLUSHES:
            # one call of _best_rows, its mode a value: numba compiles it once, where a
            # constant argument would compile it again for that constant
            mode = -1
            if code == THREE_FLUSHES:
                if _flushes_possible(sc):
                    mode = ROWS_FLUSH
            elif code == THREE_STRAIGHT_FLUSHES and not _flushes_possible(sc):
                continue
            elif n4 == 0 and distinct >= 5:  # a rank in every row at most: three times
                packed = np.int64(0)
                for r in range(13):
                    packed += rc[r] << (2 * r)
                if _straights_possible(packed):
                    mode = ROWS_STRAIGHT if code == THREE_STRAIGHTS else ROWS_STRAIGHT_FLUSH
            if mode >= 0:
                key = _best_rows(hand, mode, lk, remap, split)
                if key >= 0:
                    return j, key
    return -1, np.int64(0)


@kernel
def _find_natural_batch(
    hands: Cards, codes: I64, lk: Lookup, remap: Table, ids: I64, keys: I64
) -> None:
    """hands uint8[n, 13] -> ids int64[n] (-1 none), keys int64[n]."""
    split = np.empty(13, np.int64)
    for i in range(hands.shape[0]):
        nid, key = _find_natural(hands[i], codes, lk, remap, split)
        ids[i] = nid
        keys[i] = key
