"""numba kernels for row strength. Pure: arrays and scalars in, no validation, no I/O.

Tables are arguments (numba would freeze globals into the cached code):
``multi5``/``flush5`` int16[6188] and ``multi3`` int16[455] are indexed by the colex rank
of a row's sorted rank multiset (sorted ranks r0 <= r1 <= ... become the distinct
numbers r_i + i). Strengths are on the one scale of ``evaluator.tables``: higher wins.
A joker (face 53, rank 13: ``evaluator.jokers``) is read as a rank above the ace and no
suit, and looked up in that module's widened tables; a row without one reads exactly as
before.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from evaluator._jit import kernel

if TYPE_CHECKING:
    from evaluator._jit import U64, Int, Ints, Table


@kernel
def _c2(x: Int) -> Int:
    return x * (x - 1) // 2


@kernel
def _c3(x: Int) -> Int:
    return x * (x - 1) * (x - 2) // 6


@kernel
def _c4(x: Int) -> Int:
    return x * (x - 1) * (x - 2) * (x - 3) // 24


@kernel
def _c5(x: Int) -> Int:
    return x * (x - 1) * (x - 2) * (x - 3) * (x - 4) // 120


@kernel
def _index5(r0: Int, r1: Int, r2: Int, r3: Int, r4: Int) -> Int:
    """Rank-multiset index of five ranks given in ascending order."""
    return r0 + _c2(r1 + 1) + _c3(r2 + 2) + _c4(r3 + 3) + _c5(r4 + 4)


@kernel
def _index3(r0: Int, r1: Int, r2: Int) -> Int:
    """Rank-multiset index of three ranks given in ascending order."""
    return r0 + _c2(r1 + 1) + _c3(r2 + 2)


@kernel
def _sort5(a: U64, b: U64, c: U64, d: U64, e: U64) -> tuple[U64, U64, U64, U64, U64]:
    """Five values in ascending order (a sorting network of 9 comparators)."""
    a, b = min(a, b), max(a, b)
    d, e = min(d, e), max(d, e)
    c, e = min(c, e), max(c, e)
    c, d = min(c, d), max(c, d)
    b, e = min(b, e), max(b, e)
    a, d = min(a, d), max(a, d)
    a, c = min(a, c), max(a, c)
    b, d = min(b, d), max(b, d)
    b, c = min(b, c), max(b, c)
    return a, b, c, d, e


_ONE = np.uint64(1)
_TWO = np.uint64(2)
_THREE = np.uint64(3)
_TOP_RANK = np.uint64(12)


@kernel
def _suit_bit(c: U64) -> U64:
    """A card's suit bit, none for a joker (face 53, rank 13: evaluator.jokers)."""
    return _ONE << (c & _THREE) if (c >> _TWO) <= _TOP_RANK else np.uint64(0)


@kernel
def _lookup5(c0: U64, c1: U64, c2: U64, c3: U64, c4: U64) -> tuple[Int, bool, U64]:
    """(rank-multiset index int, flush bool, highest rank uint64) of five card ids given
    as uint64. Scalars only, so it inlines into every loop that calls it (a kernel taking
    the table arrays per row costs several times the lookup itself). The index is
    meaningful only when the highest rank is at most 12 (a row with a joker:
    ``_lookup5_wild``)."""
    a, b, c, d, e = _sort5(c0 >> _TWO, c1 >> _TWO, c2 >> _TWO, c3 >> _TWO, c4 >> _TWO)
    idx = _index5(np.int64(a), np.int64(b), np.int64(c), np.int64(d), np.int64(e))
    suits = (
        (_ONE << (c0 & _THREE))
        | (_ONE << (c1 & _THREE))
        | (_ONE << (c2 & _THREE))
        | (_ONE << (c3 & _THREE))
        | (_ONE << (c4 & _THREE))
    )
    return idx, suits & (suits - _ONE) == 0, e


@kernel
def _lookup5_wild(c0: U64, c1: U64, c2: U64, c3: U64, c4: U64) -> tuple[Int, bool, U64]:
    """``_lookup5`` of a row that may hold jokers (rank 13, the highest; evaluator.jokers):
    a joker is wild in suit, so the flush test leaves it out. The index is meant for the
    widened tables. Apart from ``_lookup5``, whose loops stay as fast as before jokers:
    the test for a joker costs a fifth of a bare lookup."""
    idx, flush, e = _lookup5(c0, c1, c2, c3, c4)
    if e > _TOP_RANK:
        suits = _suit_bit(c0) | _suit_bit(c1) | _suit_bit(c2) | _suit_bit(c3) | _suit_bit(c4)
        flush = suits & (suits - _ONE) == 0
    return idx, flush, e


@kernel
def _lookup3(c0: U64, c1: U64, c2: U64) -> tuple[Int, U64]:
    """(rank-multiset index int, highest rank uint64) of three card ids given as uint64."""
    a = c0 >> _TWO
    b = c1 >> _TWO
    c = c2 >> _TWO
    a, b = min(a, b), max(a, b)
    b, c = min(b, c), max(b, c)
    a, b = min(a, b), max(a, b)
    return _index3(np.int64(a), np.int64(b), np.int64(c)), c


@kernel
def _eval5(
    c0: Int, c1: Int, c2: Int, c3: Int, c4: Int, multi5: Table, flush5: Table
) -> np.int32:
    """Strength of five card faces in any order (int32): ids 0..51, or with jokers
    (face 53) with the widened tables of ``evaluator.jokers``."""
    idx, flush, _ = _lookup5_wild(
        np.uint64(c0), np.uint64(c1), np.uint64(c2), np.uint64(c3), np.uint64(c4)
    )
    if flush:
        return np.int32(flush5[idx])
    return np.int32(multi5[idx])


@kernel
def _eval3(c0: Int, c1: Int, c2: Int, multi3: Table) -> np.int32:
    """Strength of three distinct card ids (0..51) in any order, as a front (int32)."""
    idx, _ = _lookup3(np.uint64(c0), np.uint64(c1), np.uint64(c2))
    return np.int32(multi3[idx])


@kernel
def _eval5_batch(cards: Ints, multi5: Table, flush5: Table, out: Ints) -> None:
    """cards uint8[n, 5] (distinct ids 0..51 per row, any order) -> out int32[n].

    The bare lookup: no check at all (the public wrapper uses ``_eval5_checked``).
    """
    for i in range(cards.shape[0]):
        idx, flush, _ = _lookup5(
            np.uint64(cards[i, 0]),
            np.uint64(cards[i, 1]),
            np.uint64(cards[i, 2]),
            np.uint64(cards[i, 3]),
            np.uint64(cards[i, 4]),
        )
        out[i] = flush5[idx] if flush else multi5[idx]


@kernel
def _eval5_batch_wild(cards: Ints, multi5: Table, flush5: Table, out: Ints) -> None:
    """``_eval5_batch`` of rows that may hold jokers (face 53), with the widened tables of
    ``evaluator.jokers``: the bare lookup, no check."""
    for i in range(cards.shape[0]):
        idx, flush, _ = _lookup5_wild(
            np.uint64(cards[i, 0]),
            np.uint64(cards[i, 1]),
            np.uint64(cards[i, 2]),
            np.uint64(cards[i, 3]),
            np.uint64(cards[i, 4]),
        )
        out[i] = flush5[idx] if flush else multi5[idx]


@kernel
def _eval3_batch(cards: Ints, multi3: Table, out: Ints) -> None:
    """cards uint8[n, 3] (distinct ids 0..51 per row, any order) -> out int32[n]; no check."""
    for i in range(cards.shape[0]):
        idx, _ = _lookup3(np.uint64(cards[i, 0]), np.uint64(cards[i, 1]), np.uint64(cards[i, 2]))
        out[i] = multi3[idx]


#: What a checked batch kernel reports about its first bad row: ``row * 2 + what``.
BAD_ID, DUPLICATE = 0, 1


@kernel
def _eval5_checked(cards: Ints, multi5: Table, flush5: Table, out: Ints) -> int:
    """cards int[n, 5] (any integer dtype, any order) -> out int32[n]; returns int -1 when
    every row holds five distinct ids from 0 to 51, else ``row * 2 + what`` for the first
    bad row (``BAD_ID``: an id out of range; ``DUPLICATE``: a card twice); ``out`` is
    then filled up to that row only.

    Validation rides along the lookup: the highest rank (from the sorting network) is
    above 12 exactly when an id is out of range (ids are read as unsigned, so negative
    ones are huge), and the sum of the five one-bit masks differs from their OR exactly
    when two ids are equal.
    """
    for i in range(cards.shape[0]):
        c0 = np.uint64(cards[i, 0])
        c1 = np.uint64(cards[i, 1])
        c2 = np.uint64(cards[i, 2])
        c3 = np.uint64(cards[i, 3])
        c4 = np.uint64(cards[i, 4])
        idx, flush, top = _lookup5(c0, c1, c2, c3, c4)
        if top > _TOP_RANK:
            return i * 2 + BAD_ID
        m0 = _ONE << c0
        m1 = _ONE << c1
        m2 = _ONE << c2
        m3 = _ONE << c3
        m4 = _ONE << c4
        if (m0 | m1 | m2 | m3 | m4) != m0 + m1 + m2 + m3 + m4:
            return i * 2 + DUPLICATE
        out[i] = flush5[idx] if flush else multi5[idx]
    return -1


@kernel
def _eval3_checked(cards: Ints, multi3: Table, out: Ints) -> int:
    """cards int[n, 3] (any integer dtype, any order) -> out int32[n]; returns -1 or the
    first bad row as ``row * 2 + what``, as :func:`_eval5_checked` does (for three cards
    the three comparisons are cheaper than the masks)."""
    for i in range(cards.shape[0]):
        c0 = np.uint64(cards[i, 0])
        c1 = np.uint64(cards[i, 1])
        c2 = np.uint64(cards[i, 2])
        idx, top = _lookup3(c0, c1, c2)
        if top > _TOP_RANK:
            return i * 2 + BAD_ID
        if (c0 == c1) | (c0 == c2) | (c1 == c2):
            return i * 2 + DUPLICATE
        out[i] = multi3[idx]
    return -1


@kernel
def _subset_pass(
    hand: Ints, multi5: Table, flush5: Table, multi3: Table, out5: Ints, out3: Ints
) -> None:
    """Strengths of every 5- and 3-card subset of a 13-card hand.

    hand uint8[13] sorted ascending; out5 int16[1287] and out3 int16[286] receive the
    subsets in lexicographic order of their positions (itertools.combinations order).
    Sorted cards give sorted ranks, so each index is built incrementally, loop by loop.
    """
    r = np.empty(13, np.int64)
    s = np.empty(13, np.int64)
    for i in range(13):
        r[i] = hand[i] >> 2
        s[i] = 1 << (hand[i] & 3) if r[i] <= 12 else 0  # a joker: wild in suit
    n = 0
    for a in range(9):
        ia = r[a]
        for b in range(a + 1, 10):
            ib = ia + _c2(r[b] + 1)
            sb = s[a] | s[b]
            for c in range(b + 1, 11):
                ic = ib + _c3(r[c] + 2)
                sc = sb | s[c]
                for d in range(c + 1, 12):
                    id_ = ic + _c4(r[d] + 3)
                    sd = sc | s[d]
                    for e in range(d + 1, 13):
                        idx = id_ + _c5(r[e] + 4)
                        se = sd | s[e]
                        if se & (se - 1) == 0:
                            out5[n] = flush5[idx]
                        else:
                            out5[n] = multi5[idx]
                        n += 1
    n = 0
    for a in range(11):
        for b in range(a + 1, 12):
            ib = r[a] + _c2(r[b] + 1)
            for c in range(b + 1, 13):
                out3[n] = multi3[ib + _c3(r[c] + 2)]
                n += 1


@kernel
def _subset_pass_batch(
    hands: Ints, multi5: Table, flush5: Table, multi3: Table, out5: Ints, out3: Ints
) -> None:
    """hands uint8[n, 13] (each sorted) -> out5 int16[n, 1287], out3 int16[n, 286]."""
    for i in range(hands.shape[0]):
        _subset_pass(hands[i], multi5, flush5, multi3, out5[i], out3[i])
