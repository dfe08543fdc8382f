"""numba kernels for row strength. Pure: arrays and scalars in, no validation, no I/O.

Tables are arguments (numba would freeze globals into the cached code):
``multi5``/``flush5`` int16[6188] and ``multi3`` int16[455] are indexed by the colex rank
of a row's sorted rank multiset (sorted ranks r0 <= r1 <= ... become the distinct
numbers r_i + i). Strengths are on the one scale of ``evaluator.tables``: higher wins.
"""

from __future__ import annotations

import numpy as np

from evaluator._jit import kernel


@kernel
def _c2(x):
    return x * (x - 1) // 2


@kernel
def _c3(x):
    return x * (x - 1) * (x - 2) // 6


@kernel
def _c4(x):
    return x * (x - 1) * (x - 2) * (x - 3) // 24


@kernel
def _c5(x):
    return x * (x - 1) * (x - 2) * (x - 3) * (x - 4) // 120


@kernel
def _index5(r0, r1, r2, r3, r4):
    """Rank-multiset index of five ranks given in ascending order."""
    return r0 + _c2(r1 + 1) + _c3(r2 + 2) + _c4(r3 + 3) + _c5(r4 + 4)


@kernel
def _index3(r0, r1, r2):
    """Rank-multiset index of three ranks given in ascending order."""
    return r0 + _c2(r1 + 1) + _c3(r2 + 2)


@kernel
def _eval5(c0, c1, c2, c3, c4, multi5, flush5):
    """Strength of five distinct card ids in any order (int)."""
    a = np.int64(c0) >> 2
    b = np.int64(c1) >> 2
    c = np.int64(c2) >> 2
    d = np.int64(c3) >> 2
    e = np.int64(c4) >> 2
    # Sorting network for five values (9 comparators).
    a, b = min(a, b), max(a, b)
    d, e = min(d, e), max(d, e)
    c, e = min(c, e), max(c, e)
    c, d = min(c, d), max(c, d)
    b, e = min(b, e), max(b, e)
    a, d = min(a, d), max(a, d)
    a, c = min(a, c), max(a, c)
    b, d = min(b, d), max(b, d)
    b, c = min(b, c), max(b, c)
    idx = _index5(a, b, c, d, e)
    suits = (1 << (c0 & 3)) | (1 << (c1 & 3)) | (1 << (c2 & 3)) | (1 << (c3 & 3)) | (1 << (c4 & 3))
    if suits & (suits - 1) == 0:
        return np.int32(flush5[idx])
    return np.int32(multi5[idx])


@kernel
def _eval3(c0, c1, c2, multi3):
    """Strength of three distinct card ids in any order, as a front (int)."""
    a = np.int64(c0) >> 2
    b = np.int64(c1) >> 2
    c = np.int64(c2) >> 2
    a, b = min(a, b), max(a, b)
    b, c = min(b, c), max(b, c)
    a, b = min(a, b), max(a, b)
    return np.int32(multi3[_index3(a, b, c)])


@kernel
def _eval5_batch(cards, multi5, flush5, out):
    """cards uint8[n, 5] (distinct ids per row, any order) -> out int32[n]."""
    for i in range(cards.shape[0]):
        out[i] = _eval5(
            cards[i, 0], cards[i, 1], cards[i, 2], cards[i, 3], cards[i, 4], multi5, flush5
        )


@kernel
def _eval3_batch(cards, multi3, out):
    """cards uint8[n, 3] (distinct ids per row, any order) -> out int32[n]."""
    for i in range(cards.shape[0]):
        out[i] = _eval3(cards[i, 0], cards[i, 1], cards[i, 2], multi3)


@kernel
def _subset_pass(hand, multi5, flush5, multi3, out5, out3):
    """Strengths of every 5- and 3-card subset of a 13-card hand.

    hand uint8[13] sorted ascending; out5 int16[1287] and out3 int16[286] receive the
    subsets in lexicographic order of their positions (itertools.combinations order).
    Sorted cards give sorted ranks, so each index is built incrementally, loop by loop.
    """
    r = np.empty(13, np.int64)
    s = np.empty(13, np.int64)
    for i in range(13):
        r[i] = hand[i] >> 2
        s[i] = 1 << (hand[i] & 3)
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
def _subset_pass_batch(hands, multi5, flush5, multi3, out5, out3):
    """hands uint8[n, 13] (each sorted) -> out5 int16[n, 1287], out3 int16[n, 286]."""
    for i in range(hands.shape[0]):
        _subset_pass(hands[i], multi5, flush5, multi3, out5[i], out3[i])
