"""numba kernels for setting a hand: subsets, splits, the Pareto front, policies.

Pure: arrays and scalars in, no validation, no I/O. Hands are **sorted** 13-card
``uint8`` arrays. A *split* is a partition of the 13 positions into a 3-subset (front,
index into the 286 three-subsets) and two 5-subsets (indices into the 1,287 five-subsets);
the stronger five always goes to the back, so the 72,072 ordered splits reduce to
36,036 partitions (``part``, int16[36036, 3]: front, five A, five B).

Row keys: ``key = strength' * 4 + suit component`` (see solver.engine.settlement); a higher key
wins, and a setting is legal when ``key_front <= key_middle <= key_back``.

The field model (``FieldModel``, solver.strategy.field_model.field) is one kernel argument. Its
tables per row r = 0 front, 1 middle, 2 back, indexed by key, interleaved in
``fx[r, k]``: P(win the row), P(tie), the expected royalty an opponent collects on that row by
beating a row of key k, and the row utility a learned opponent model adds to a row of
key k (0 for the field; docs/opponents.md#learned-models); ``fe[r]`` an opponent's
expected row royalty (for royalty mode "always"). The royalties the kernels charge are
``jx[n]`` and ``je[n]``'s, the same given the n jokers the hand holds (at a deck without
jokers, n = 0 and they are ``fx``'s and ``fe``'s). Two corrections refine the
independent-rows value: the card-removal shift of P(win) for the hand being set
(``rank``, ``suit``; see ``_hand_shift``) and the joint correction of the bonus for the
opponent's correlated rows (``joint``, ``jw``, ``jl`` on the rows' midranks; see
``_model_value``).
"""

from __future__ import annotations

import numpy as np

from evaluator._jit import kernel, register_kernel_sources
from evaluator._kernels import _subset_pass
from solver.engine._kernels import (
    _dealt_royalty,
    _extra,
    _one_royalty_with_dealt,
    _row_key3,
    _row_key5,
    _scoops,
    _settle_core,
    _settle_naturals,
    _settle_parts,
    _shown_units,
    _third_card_trips,
)
from solver.engine.layout import (
    KERNEL_SOURCES,
    MODE_ALWAYS,
    P_CAP,
    P_FOUL,
    P_FOUL_NAT,
    P_HR_MIN,
    P_HR_MULT,
    P_MODE,
    P_MULT,
    P_ONE,
    P_ROY,
    P_RR,
    P_SCOOP_ADD,
    P_SCORING,
    P_XX_FOUL,
    P_XX_KEY,
    P_XX_ROY,
    POLICY_GREEDY,
    POLICY_SAFE,
    SCORING_16,
    SCORING_24,
)

register_kernel_sources(KERNEL_SOURCES)  # before the first kernel below


@kernel
def _keys_and_royalties(hand, s5, s3, ra, k5, k3, r5, r3):
    """Row keys and royalties of every subset of a sorted hand.

    hand uint8[13] sorted; s5 int16[1287], s3 int16[286] strengths (evaluator order,
    itertools.combinations of positions); ra the ruleset's RuleArrays.
    Out: k5 int64[1287], k3 int64[286], r5 float64[2, 1287] (as middle, as back),
    r3 float64[286]. Keys are solver.engine's row keys (``_row_key5``/``_row_key3``).
    """
    remap, decisive, suit_rank, roy = ra.remap, ra.decisive, ra.suit_rank, ra.roy
    suited = False  # a loop, not suit_rank.max(): that would load numba's array math
    for i in range(suit_rank.shape[0]):
        if suit_rank[i] > 0:
            suited = True
    n = 0
    for a in range(9):
        for b in range(a + 1, 10):
            for c in range(b + 1, 11):
                for d in range(c + 1, 12):
                    for e in range(d + 1, 13):
                        s = s5[n]
                        if suited:
                            k5[n] = _row_key5(
                                hand[a], hand[b], hand[c], hand[d], hand[e],
                                s, remap, decisive, suit_rank,
                            )  # fmt: skip
                        else:
                            k5[n] = np.int64(remap[s]) * 4
                        r5[0, n] = roy[1, s]
                        r5[1, n] = roy[2, s]
                        n += 1
    n = 0
    for a in range(11):
        for b in range(a + 1, 12):
            for c in range(b + 1, 13):
                s = s3[n]
                if suited:
                    k3[n] = _row_key3(hand[a], hand[b], hand[c], s, remap, decisive, suit_rank)
                else:
                    k3[n] = np.int64(remap[s]) * 4
                r3[n] = roy[0, s]
                n += 1
    if ra.params[P_XX_KEY] >= 0.0 and np.int64(hand[11]) >> 2 > 12:
        # both jokers (sorted last: positions 11 and 12) in front, with each first card
        # a: the last three of a's run in combinations order (docs/rules.md#jokers)
        idx = -1
        for a in range(11):
            idx += (12 - a) * (11 - a) // 2
            k3[idx] = np.int64(ra.params[P_XX_KEY])
            r3[idx] = ra.params[P_XX_ROY]


@kernel
def _prepare(hand, lk, ra, k5, k3, r5, r3, f3):
    """Subset strengths, then keys and royalties (see _keys_and_royalties); lk the
    evaluator's Lookup. Also f3 int64[286]: each three's key as a front in the foul
    check (``_foul_keys3``)."""
    s5 = np.empty(1287, np.int16)
    s3 = np.empty(286, np.int16)
    _subset_pass(hand, lk.multi5, lk.flush5, lk.multi3, s5, s3)
    _keys_and_royalties(hand, s5, s3, ra, k5, k3, r5, r3)
    _foul_keys3(hand, lk, ra, k3, f3)


@kernel
def _foul_keys3(hand, lk, ra, k3, f3):
    """f3 int64[286]: the key each three of a sorted hand has as a front in the foul
    check: its key k3, but a front of both jokers under ``two_jokers_foul =
    "third_card"`` (params[P_XX_FOUL]) is three of a kind of its third card
    (docs/rules.md#jokers), while it keeps its key above every front against others."""
    for i in range(286):
        f3[i] = k3[i]
    if ra.params[P_XX_FOUL] != 0.0 and np.int64(hand[11]) >> 2 > 12:
        idx = -1  # as _keys_and_royalties: the fronts (a, 11, 12) of both jokers
        for a in range(11):
            idx += (12 - a) * (11 - a) // 2
            f3[idx] = _third_card_trips(hand[a], hand[11], hand[12], lk.multi3, ra.remap,
                                        ra.decisive, ra.suit_rank)  # fmt: skip


@kernel
def _candidate_rows(hand, ra, split, k3, k5, r3, r5, keys, roy):
    """Keys and royalties of splits of a sorted hand uint8[13]: split int32[n, 3] (front,
    middle, back subsets) -> keys int64[n, 3], roy float64[n, 4] (rows, then the dealt
    cards' royalty; after one royalty per hand when the ruleset says so)."""
    one = ra.params[P_ONE] != 0.0
    dealt = _dealt_royalty(hand, ra.dealt_units, one)
    for i in range(split.shape[0]):
        f = split[i, 0]
        m = split[i, 1]
        b = split[i, 2]
        keys[i, 0] = k3[f]
        keys[i, 1] = k5[m]
        keys[i, 2] = k5[b]
        q0 = r3[f]
        q1 = r5[0, m]
        q2 = r5[1, b]
        qd = dealt
        if one:
            q0, q1, q2, qd = _one_royalty_with_dealt(q0, q1, q2, qd)
        roy[i, 0] = q0
        roy[i, 1] = q1
        roy[i, 2] = q2
        roy[i, 3] = qd


@kernel
def _legal_partitions(k3, k5, part, out):
    """Legal partitions, oriented (front, middle, back); returns how many. k3: the
    threes' keys in the foul check (``_prepare``'s f3).

    out int32[36036, 3]. Of two equal fives, one orientation is kept (they are equal).
    Branch-free: every partition is written at slot n, and n advances only when legal.
    """
    n = 0
    for p in range(part.shape[0]):
        f = part[p, 0]
        a = part[p, 1]
        b = part[p, 2]
        swap = k5[a] > k5[b]
        m = b if swap else a
        bk = a if swap else b
        out[n, 0] = f
        out[n, 1] = m
        out[n, 2] = bk
        n += k3[f] <= k5[m]
    return n


@kernel
def _radix_order(keys):
    """Indices sorting int64 keys (0 <= key < 2**16) ascending: two stable 8-bit passes."""
    n = keys.shape[0]
    order = np.arange(n)
    tmp = np.empty(n, np.int64)
    for shift in (0, 8):
        cnt = np.zeros(257, np.int64)
        for i in range(n):
            cnt[((keys[order[i]] >> shift) & 255) + 1] += 1
        for v in range(256):
            cnt[v + 1] += cnt[v]
        for i in range(n):
            v = (keys[order[i]] >> shift) & 255
            tmp[cnt[v]] = order[i]
            cnt[v] += 1
        order, tmp = tmp, order
    return order


@kernel
def _dense_rank(keys):
    """Dense rank (0 = weakest) of each key (0 <= key < 2**16), and how many distinct."""
    order = _radix_order(keys)
    rank = np.empty(keys.shape[0], np.int64)
    r = -1
    for i in range(keys.shape[0]):
        if i == 0 or keys[order[i]] != keys[order[i - 1]]:
            r += 1
        rank[order[i]] = r
    return rank, r + 1


@kernel
def _counting_sort_desc(order, key, nkey):
    """Stable sort of the index array `order` by key[order] descending (keys 0..nkey-1)."""
    cnt = np.zeros(nkey + 1, np.int64)
    for i in order:
        cnt[nkey - 1 - key[i] + 1] += 1
    for v in range(nkey):
        cnt[v + 1] += cnt[v]
    out = np.empty_like(order)
    for i in order:
        v = nkey - 1 - key[i]
        out[cnt[v]] = i
        cnt[v] += 1
    return out


@kernel
def _pareto(k3, k5, legal, n, keep):
    """Mark the Pareto front of the first n legal splits: keep bool[n].

    A split is dropped when another has every row at least as strong (key >= in front,
    middle and back); of identical key triples one is kept. Royalties must be monotone
    in the key for this to be safe (the caller checks).

    Splits are radix-sorted by (middle, front, back) descending, so every split that
    dominates another comes before it; a sweep keeps, in a Fenwick tree over front rank,
    the best back rank seen among fronts at least as strong.
    """
    r5, n5 = _dense_rank(k5)
    r3, n3 = _dense_rank(k3)
    # Prefilter: within each front's group (legal is grouped by front), drop a split
    # strictly dominated by the group's best-back or best-middle split. Dominance is
    # transitive, so the exact sweep below still finds the same front.
    cand = np.empty(n, np.int64)
    nc = 0
    i = 0
    while i < n:
        f = legal[i, 0]
        j = i
        bmax = np.int64(-1)
        mb = np.int64(-1)
        mmax = np.int64(-1)
        bm = np.int64(-1)
        while j < n and legal[j, 0] == f:
            km = k5[legal[j, 1]]
            kb = k5[legal[j, 2]]
            if kb > bmax or (kb == bmax and km > mb):
                bmax = kb
                mb = km
            if km > mmax or (km == mmax and kb > bm):
                mmax = km
                bm = kb
            j += 1
        for t in range(i, j):
            km = k5[legal[t, 1]]
            kb = k5[legal[t, 2]]
            under_b = kb <= bmax and km <= mb and (kb < bmax or km < mb)
            under_m = km <= mmax and kb <= bm and (km < mmax or kb < bm)
            keep[t] = False
            if not (under_b or under_m):
                cand[nc] = t
                nc += 1
        i = j
    F = np.empty(n, np.int64)
    M = np.empty(n, np.int64)
    B = np.empty(n, np.int64)
    for c in range(nc):
        i = cand[c]
        F[i] = r3[legal[i, 0]]
        M[i] = r5[legal[i, 1]]
        B[i] = r5[legal[i, 2]]
    order = cand[:nc].copy()
    order = _counting_sort_desc(order, B, n5)
    order = _counting_sort_desc(order, F, n3)
    order = _counting_sort_desc(order, M, n5)
    fen = np.full(n3 + 1, np.int64(-1))
    for i in order:
        q = n3 - F[i]  # Fenwick position; prefix (1..q) covers fronts at least as strong
        best = np.int64(-1)
        j = q
        while j > 0:
            if fen[j] > best:
                best = fen[j]
            j -= j & (-j)
        if best >= B[i]:
            keep[i] = False
            continue
        keep[i] = True
        j = q
        while j <= n3:
            if fen[j] < B[i]:
                fen[j] = B[i]
            j += j & (-j)


@kernel
def _candidates(hand, lk, ra, part, prune, k5, k3, r5, r3, f3, split, keys, roy):
    """The candidate settings of a sorted hand uint8[13], in one call.

    Ranks every subset (``_prepare`` into k5 int64[1287], k3 int64[286], r5 float64[2,
    1287], r3 float64[286], f3 int64[286]), keeps the legal partitions of part
    int16[36036, 3] (``_legal_partitions`` of the foul check's keys f3) and, with
    ``prune``, only their Pareto front (``_pareto``).
    Writes the kept splits to split int32[36036, 3] with their keys int64[36036, 3] and
    royalties float64[36036, 4] (``_candidate_rows``); returns (legal count, kept count).
    """
    _prepare(hand, lk, ra, k5, k3, r5, r3, f3)
    n = _legal_partitions(f3, k5, part, split)
    m = n
    if prune:
        keep = np.zeros(n, np.bool_)
        _pareto(k3, k5, split, n, keep)
        m = 0
        for i in range(n):
            if keep[i]:
                split[m, 0] = split[i, 0]
                split[m, 1] = split[i, 1]
                split[m, 2] = split[i, 2]
                m += 1
    _candidate_rows(hand, ra, split[:m], k3, k5, r3, r5, keys[:m], roy[:m])
    return n, m


@kernel
def _hand_shift(hand, rank, suit, shift):
    """Card-removal shift of the field's P(win) for one sorted hand uint8[13].

    rank float64[3, Q, R + 1, K + 1] is the change of P(win) at the K + 1 knots (evenly
    spaced in the field's own P(win)) when the hand holds n cards of rank q (Q: 13, or
    14 at a deck with jokers, whose rank 13 is the jokers: the hand's jokers count as
    the dealing deals them, docs/rules.md#jokers); suit float64[3, 14, K + 1] when it
    holds n cards of one suit (each of the four suits adds its term; a joker has none);
    both are FieldModel's. Out: shift float64[3, K + 1], their sum for this hand
    (first-order: the ranks' and suits' effects add up). Returns the jokers the hand holds.
    """
    nr = np.zeros(14, np.int64)
    ns = np.zeros(4, np.int64)
    for i in range(13):
        c = np.int64(hand[i])
        nr[min(c >> 2, 13)] += 1
        if c >> 2 <= 12:
            ns[c & 3] += 1
    nk = shift.shape[1]
    for r in range(3):
        for x in range(nk):
            shift[r, x] = 0.0
        for q in range(rank.shape[1]):
            for x in range(nk):
                shift[r, x] += rank[r, q, nr[q], x]
        for s in range(4):
            for x in range(nk):
                shift[r, x] += suit[r, ns[s], x]
    return nr[13]


@kernel(inline="always")
def _jokers_given(fm, held):
    """The opponents' royalty tables (``jx``, ``je``: FieldModel's) given the jokers a hand
    holds (``_hand_shift``): a deck without jokers has one entry."""
    n = min(held, fm.jx.shape[0] - 1)
    return fm.jx[n], fm.je[n]


@kernel(inline="always")
def _row_terms(key, myroy, fx, jo, je, shift, r, mode, rr):
    """(win, tie, loss, royalty term, midrank) of one row of key `key` against the field.

    fx float64[3, NKEY, 4]: (win, tie, royalty the opponent collects, row utility) by row
    and key, interleaved so that one lookup is one cache line; jo float64[3, NKEY, 2], je
    float64[3] the royalty an opponent collects (and how often it beats the row), and its
    expected row royalty, given the jokers the hand holds (``_jokers_given``). The win
    probability is moved by the hand's card-removal shift (float64[3, K + 1], ``_hand_shift``),
    interpolated linearly at the field's P(win), and kept within [0, 1 - tie]. The
    midrank win + tie / 2 places the row for the joint correction (``_trilinear``).
    ``myroy`` is the row's royalty as it adds to the row's unit (``_extra`` with rr). The
    row utility (``fx[r, key, 3]``, a learned model's) is not in the royalty term: the
    callers add it, only when the model has one (``FieldModel.util``), outside this loop
    (reading it here costs the field's setting a quarter of its time). No multiplier
    touches it: the value is the field's plus the utility of the three rows.
    """
    myroy = myroy - rr * (myroy > 0.0)
    w0 = fx[r, key, 0]
    t = fx[r, key, 1]
    nk = shift.shape[1] - 1
    x = w0 * nk
    i = np.int64(x)
    if i >= nk:
        i = nk - 1
    f = x - i
    w = w0 + shift[r, i] + f * (shift[r, i + 1] - shift[r, i])
    if w > 1.0 - t:
        w = 1.0 - t
    if w < 0.0:
        w = 0.0
    if mode == MODE_ALWAYS:
        rt = myroy - je[r]
    else:
        rt = w * myroy - jo[r, key, 0]
    return w, t, 1.0 - w - t, rt, w + 0.5 * t


@kernel(inline="always")
def _node(u, n):
    """(cell, fraction) of u, clamped to [0, 1], on n equal cells."""
    x = min(max(u, 0.0), 1.0) * n
    i = min(np.int64(x), n - 1)
    return i, x - i


@kernel
def _trilinear(g, x, y, z):
    """g float64[n + 1, n + 1, n + 1] (values at the nodes i / n of the unit cube),
    interpolated trilinearly at (x, y, z): along z, then y, then x (``_slab`` and the
    split loop of ``_field_best`` do the same arithmetic in the same order)."""
    n = g.shape[0] - 1
    i, fx = _node(x, n)
    j, fy = _node(y, n)
    k, fz = _node(z, n)
    c00 = g[i, j, k] + fz * (g[i, j, k + 1] - g[i, j, k])
    c01 = g[i, j + 1, k] + fz * (g[i, j + 1, k + 1] - g[i, j + 1, k])
    c10 = g[i + 1, j, k] + fz * (g[i + 1, j, k + 1] - g[i + 1, j, k])
    c11 = g[i + 1, j + 1, k] + fz * (g[i + 1, j + 1, k + 1] - g[i + 1, j + 1, k])
    c0 = c00 + fy * (c01 - c00)
    c1 = c10 + fy * (c11 - c10)
    return c0 + fx * (c1 - c0)


@kernel
def _slab(g, z, out):
    """The first step of ``_trilinear`` for a fixed z: out float64[n + 1, n + 1] =
    g[:, :, z] interpolated linearly."""
    n = g.shape[0] - 1
    k, fz = _node(z, n)
    for i in range(n + 1):
        for j in range(n + 1):
            out[i, j] = g[i, j, k] + fz * (g[i, j, k + 1] - g[i, j, k])


@kernel(inline="always")
def _bilinear(s, i, fx, j, fy):
    """The last two steps of ``_trilinear`` on a slab s (``_slab``), cells and fractions
    of x and y from ``_node``."""
    c0 = s[i, j] + fy * (s[i, j + 1] - s[i, j])
    c1 = s[i + 1, j] + fy * (s[i + 1, j + 1] - s[i + 1, j])
    return c0 + fx * (c1 - c0)


@kernel(inline="always")
def _field_value(wf, tf, lf, wm, tm, lm, wb, tb, lb, rsum, scoring, mult, add):
    """Expected units per opponent from independent row outcomes, under the scoring (the
    scoop's ``add`` units too; the pair cap left out:
    docs/rules.md#the-field-at-a-bankers-table)."""
    v = (wf - lf) + (wm - lm) + (wb - lb) + rsum
    sw = wf * wm * wb
    sl = lf * lm * lb
    bonus3 = 0.0
    if scoring == SCORING_16:
        v += 3.0 * (sw - sl)
        bonus3 = 3.0
    elif scoring == SCORING_24:
        pw = wf * wm + wf * wb + wm * wb - 2.0 * sw + wf * tm * tb + tf * wm * tb + tf * tm * wb
        pl = lf * lm + lf * lb + lm * lb - 2.0 * sl + lf * tm * tb + tf * lm * tb + tf * tm * lb
        v += pw - pl
        bonus3 = 1.0
    if mult != 1.0:
        v += (mult - 1.0) * (3.0 + bonus3) * (sw - sl)
    return v + add * (sw - sl)


@kernel(inline="always")
def _given_beat(jo, r, key):
    """The royalty an opponent collects when it beats row ``r`` of key ``key``: what it
    collects on average (``jo[r, key, 0]``, over every opponent hand, given the jokers the
    hand holds: ``_jokers_given``) over how often it beats the row (``jo[r, key, 1]``), both
    the table's own, before the card-removal shift. The shifted loss
    is not its divisor: the shift can lift a win to 1 - tie, leaving a loss of rounding
    (1e-17) or of a few millionths, and a royalty divided by it was tens to billions of
    units, which kept the field and every learned model from settings with a row the
    hand's cards make nearly sure (docs/rules.md#jokers)."""
    lose = jo[r, key, 1]
    if lose > 1e-12:
        return jo[r, key, 0] / lose
    return 0.0


@kernel(inline="always")
def _scoop_royalties(pw, pl, mine, cf, cm, cb, fe_sum, mult, mode):
    """What a scoop multiplier adds through the royalties it multiplies: pw, pl the
    probabilities of winning and losing all three rows, mine the setting's own row
    royalties; cf/cm/cb the royalty an opponent collects when it beats each row
    (``_given_beat``); fe_sum an opponent's expected royalties (mode "always")."""
    pw = min(max(pw, 0.0), 1.0)
    pl = min(max(pl, 0.0), 1.0 - pw)
    if mode == MODE_ALWAYS:
        return (mult - 1.0) * (mine - fe_sum) * (pw + pl)
    return (mult - 1.0) * (mine * pw - (cf + cm + cb) * pl)


@kernel(inline="always")
def _scooped_pair(scoring, mult, add):
    """The units a scooped pair settles for before royalties: three rows and the
    scoring's scoop bonus, times the scoop multiplier, and the scoop's added units."""
    rows = 3.0
    if scoring == SCORING_16:
        rows = 6.0
    elif scoring == SCORING_24:
        rows = 4.0
    return rows * mult + add


@kernel(inline="always")
def _home_run(pw, pl, mine, theirs, fe_sum, scoring, mult, add, mode, hr):
    """What the home run adds to a setting's value per opponent
    (docs/rules.md#the-field-and-the-home-run). pw, pl: the chances of winning and losing
    all three rows against one opponent; mine: the setting's own row royalties; theirs:
    the royalties an opponent collects when it beats all three (``_given_beat``); fe_sum
    an opponent's expected royalties (mode "always"). hr float64[4] (``FieldModel.hr``):
    the multiplier less 1 (0: no home run at this table), the opponents m, the chance
    that none of them declares a natural, and the chance that an opponent who scooped
    this setting scoops the m - 1 others too (times the chance that none of those
    declares one). The setting's own home run: every pair scooped, pw to the power m,
    each paying the multiplier less 1 times a scooped pair's units; an opponent's home
    run against it: this pair scooped (pl) and the opponent's others too."""
    x = hr[0]
    if x == 0.0:
        return 0.0
    pw = min(max(pw, 0.0), 1.0)
    pl = min(max(pl, 0.0), 1.0 - pw)
    base = _scooped_pair(scoring, mult, add)
    if mode == MODE_ALWAYS:
        won = base + (mine - fe_sum) * mult
        lost = -base + (mine - fe_sum) * mult
    else:
        won = base + mine * mult
        lost = -base - theirs * mult
    return x * (won * pw ** hr[1] * hr[2] + lost * pl * hr[3])


@kernel(inline="always")
def _home_run_most(mine, fe_sum, pw_most, scoring, mult, add, mode, hr):
    """The most ``_home_run`` can add to a split with own royalties at most ``mine`` and
    a chance of winning all three rows at most ``pw_most`` (``_field_best``'s bound)."""
    base = _scooped_pair(scoring, mult, add)
    gain = max(0.0, mine - fe_sum) if mode == MODE_ALWAYS else mine
    most = max(0.0, base + gain * mult) * pw_most ** hr[1] * hr[2]
    if mode == MODE_ALWAYS:  # royalties the scooped setting still collects
        most += max(0.0, -base + gain * mult) * hr[3]
    return hr[0] * most


@kernel
def _field_values(keys, roy, hands, fm, params, vals, wt, sc):
    """Field value of settings given by their row keys int64[n, 3], royalties
    float64[n, 4] (rows, dealt cards) and sorted hands uint8[n, 13] (whose cards the
    opponents cannot hold) -> vals float64[n], wt float64[n, 3, 2] each row's (win,
    tie), and sc float64[n, 2] the chances of winning and losing all three rows. The
    same value ``_field_best`` maximises: the independent-rows value, the joint
    correction (``fm.joint`` at the rows' midranks), under a scoop multiplier with
    royalties the multiplied royalties (``_scoop_royalties``), and the home run at the
    table (``_home_run``). The dealt cards' royalty is added as it is (approximation:
    the field model leaves it out of the scoop multiplier and the home run, and the
    opponents' out)."""
    scoring = np.int64(params[P_SCORING])
    mult = params[P_MULT]
    add = params[P_SCOOP_ADD]
    mode = np.int64(params[P_MODE])
    rr = params[P_RR]
    cor = fm.jw.shape[0] > 1  # P(win all), P(lose all) corrected
    royal = mult != 1.0 and params[P_ROY] != 0.0 and cor
    hr_on = fm.hr[0] != 0.0
    fx = fm.fx
    ut = fm.util[0] != 0.0
    jo, je = _jokers_given(fm, 0)
    shift = np.empty((3, fm.rank.shape[3]))
    T = np.empty((3, 5))
    for i in range(keys.shape[0]):
        same = i > 0
        if same:
            for c in range(13):
                if hands[i, c] != hands[i - 1, c]:
                    same = False
                    break
        if not same:
            jo, je = _jokers_given(fm, _hand_shift(hands[i], fm.rank, fm.suit, shift))
        rsum = roy[i, 3]
        for r in range(3):
            w, t, l, rt, u = _row_terms(keys[i, r], roy[i, r], fx, jo, je, shift, r, mode, rr)
            if ut:  # a learned model's row utility
                rt += fx[r, keys[i, r], 3]
            T[r, 0] = w
            T[r, 1] = t
            T[r, 2] = l
            T[r, 3] = u
            T[r, 4] = _given_beat(jo, r, keys[i, r])
            rsum += rt
            wt[i, r, 0] = w
            wt[i, r, 1] = t
        v = _field_value(T[0, 0], T[0, 1], T[0, 2], T[1, 0], T[1, 1], T[1, 2], T[2, 0],
                         T[2, 1], T[2, 2], rsum - roy[i, 3], scoring, mult, add)  # fmt: skip
        if fm.joint.shape[0] > 1:
            v += _trilinear(fm.joint, T[0, 3], T[1, 3], T[2, 3])
        pw = T[0, 0] * T[1, 0] * T[2, 0]
        pl = T[0, 2] * T[1, 2] * T[2, 2]
        if cor:
            pw += _trilinear(fm.jw, T[0, 3], T[1, 3], T[2, 3])
            pl += _trilinear(fm.jl, T[0, 3], T[1, 3], T[2, 3])
        sc[i, 0] = pw
        sc[i, 1] = pl
        if royal or hr_on:
            mine = _extra(roy[i, 0], rr) + _extra(roy[i, 1], rr) + _extra(roy[i, 2], rr)
            fe_sum = je[0] + je[1] + je[2]
            if royal:
                v += _scoop_royalties(pw, pl, mine, T[0, 4], T[1, 4], T[2, 4], fe_sum, mult,
                                      mode)  # fmt: skip
            if hr_on:
                v += _home_run(pw, pl, mine, T[0, 4] + T[1, 4] + T[2, 4], fe_sum, scoring,
                               mult, add, mode, fm.hr)  # fmt: skip
        vals[i] = v + roy[i, 3]


@kernel
def _field_terms(k3, k5, r3, r5, fx, jo, je, shift, mode, rr, ut, ng, F, M, B):
    """Per-subset terms for front, middle, back use: (win, tie, loss, royalty term, row
    value, midrank, royalty an opponent collects when it beats it (``_given_beat``), own
    royalty, and the midrank's cell and fraction on a grid of ng cells (``_node``; ng >= 1)).
    F float64[286, 10], M and B float64[1287, 10] (the back's cell columns unused).
    ``ut``: a learned model's row utility (``fx[..., 3]``) is added to the royalty term and
    the row value after the loops, which stay as fast as the field's without it.
    Written out row by row: a helper kernel per row costs a third more time here."""
    for j in range(286):
        w, t, l, rt, u = _row_terms(k3[j], r3[j], fx, jo, je, shift, 0, mode, rr)
        c, x = _node(u, ng)
        F[j, 8] = c
        F[j, 9] = x
        F[j, 0] = w
        F[j, 1] = t
        F[j, 2] = l
        F[j, 3] = rt
        F[j, 4] = w - l + rt
        F[j, 5] = u
        F[j, 6] = _given_beat(jo, 0, k3[j])
        F[j, 7] = _extra(r3[j], rr)
    for i in range(1287):
        for r, out in ((1, M), (2, B)):
            w, t, l, rt, u = _row_terms(k5[i], r5[r - 1, i], fx, jo, je, shift, r, mode, rr)
            c, x = _node(u, ng)
            out[i, 0] = w
            out[i, 1] = t
            out[i, 2] = l
            out[i, 3] = rt
            out[i, 4] = w - l + rt
            out[i, 5] = u
            out[i, 6] = _given_beat(jo, r, k5[i])
            out[i, 7] = _extra(r5[r - 1, i], rr)
            out[i, 8] = c
            out[i, 9] = x
    if ut:  # a learned model's row utility, in the royalty term and the row value
        for j in range(286):
            F[j, 3] += fx[0, k3[j], 3]
            F[j, 4] = F[j, 0] - F[j, 2] + F[j, 3]
        for i in range(1287):
            for r, out in ((1, M), (2, B)):
                out[i, 3] += fx[r, k5[i], 3]
                out[i, 4] = out[i, 0] - out[i, 2] + out[i, 3]


#: Slack on a split's own bound in ``_field_best``: the bound and the split's value add the
#: same terms in another order, so they may differ in the last bits.
_SPLIT_MARGIN = 1e-9


@kernel
def _field_best(hand, k3, k5, r3, r5, st, fm, params, f3):
    """Best legal split of a sorted hand by field value (``_field_values``' value): (front,
    middle, back) subset indices, value. f3: the threes' keys in the foul check.

    Exact branch and bound: backs are taken strongest first; a back is expanded (its 56
    middle/front splits of the other 8 cards, ``st.under[b]``, scored) only when an upper
    bound on any split with that back beats the best so far. The bound adds the back's own
    row value, the best middle and front row values among rows no stronger than the back, a
    bound on the joint bonus (scoop, 2-4, multiplier) that can only overstate it, the
    largest joint correction at the back's midrank (``fm.jslab``) and, under a scoop
    multiplier with royalties, the most the multiplied royalties can add; within a back, a
    split whose independent-rows value plus those two allowances cannot beat the best so
    far is not corrected at all.
    st is the split Structure (solver.strategy.hands.splits); fm the FieldModel. The grids are
    cut at the back's midrank once per expanded back (``_slab``) and finished in the loop
    (no array is handed to a function per split: that costs more than the arithmetic).
    """
    under = st.under
    scoring = np.int64(params[P_SCORING])
    mult = params[P_MULT]
    add = params[P_SCOOP_ADD]
    mode = np.int64(params[P_MODE])
    fx = fm.fx
    joint, jw, jl, jslab = fm.joint, fm.jw, fm.jl, fm.jslab
    has_joint = joint.shape[0] > 1
    cor = jw.shape[0] > 1  # P(win all), P(lose all) corrected
    royal = mult != 1.0 and params[P_ROY] != 0.0 and cor
    hr = fm.hr
    hr_on = hr[0] != 0.0
    ng = max(joint.shape[0], jw.shape[0]) - 1
    sj = np.zeros((ng + 1, ng + 1))
    sw = np.zeros((ng + 1, ng + 1))
    sl = np.zeros((ng + 1, ng + 1))
    jw_max = fm.jmax[0]
    shift = np.empty((3, fm.rank.shape[3]))
    jo, je = _jokers_given(fm, _hand_shift(hand, fm.rank, fm.suit, shift))
    fe_sum = je[0] + je[1] + je[2]
    F = np.empty((286, 10))
    M = np.empty((1287, 10))
    B = np.empty((1287, 10))
    _field_terms(k3, k5, r3, r5, fx, jo, je, shift, mode, params[P_RR], fm.util[0] != 0.0,
                 max(ng, 1), F, M, B)  # fmt: skip
    o5 = _radix_order(k5)
    o3 = _radix_order(f3)  # fronts by their keys in the foul check
    # prefix maxima over rows no stronger than each five (ties included)
    pm = np.empty(1287)  # best middle row value, key <= k5[i]
    pf = np.empty(1287)  # best front row value, key <= k5[i]
    pwm = np.empty(1287)  # best middle win probability
    pwf = np.empty(1287)  # best front win probability
    best_m = -1e300
    best_wm = 0.0
    best_f = -1e300
    best_wf = 0.0
    j = 0
    i = 0
    while i < 1287:
        key = k5[o5[i]]
        e = i
        while e < 1287 and k5[o5[e]] == key:
            v = M[o5[e], 4]
            if v > best_m:
                best_m = v
            if M[o5[e], 0] > best_wm:
                best_wm = M[o5[e], 0]
            e += 1
        while j < 286 and f3[o3[j]] <= key:
            v = F[o3[j], 4]
            if v > best_f:
                best_f = v
            if F[o3[j], 0] > best_wf:
                best_wf = F[o3[j], 0]
            j += 1
        for q in range(i, e):
            pm[o5[q]] = best_m
            pf[o5[q]] = best_f
            pwm[o5[q]] = best_wm
            pwf[o5[q]] = best_wf
        i = e
    # the multiplied royalties add at most (mult - 1) x own royalties x P(win all)
    roy_m = 0.0
    roy_f = 0.0
    if royal or hr_on:
        for i in range(1287):
            roy_m = max(roy_m, M[i, 7])
        for i in range(286):
            roy_f = max(roy_f, F[i, 7])
    njs = jslab.shape[0]
    best = -1e300
    bf = -1
    bm = -1
    bb = -1
    for q in range(1286, -1, -1):
        b = o5[q]
        wb = B[b, 0]
        if pf[b] < -1e299:
            continue  # no front fits under this back
        ub = B[b, 4] + pm[b] + pf[b]
        if scoring == SCORING_16:
            ub += 3.0 * wb + (mult - 1.0) * 6.0 * wb
        elif scoring == SCORING_24:
            ub += min(1.0, wb + pwm[b] + pwf[b]) + (mult - 1.0) * 4.0 * wb
        else:
            ub += (mult - 1.0) * 3.0 * wb
        ub += add * wb  # the scoop's added units
        extra = 0.0  # the most the joint correction and multiplied royalties add
        if has_joint:
            extra += jslab[min(np.int64(B[b, 5] * njs), njs - 1)]
        if royal:
            mine = B[b, 7] + roy_m + roy_f
            if mode == MODE_ALWAYS:
                extra += (mult - 1.0) * max(0.0, mine - fe_sum)
            else:
                extra += (mult - 1.0) * mine * min(1.0, wb + jw_max)
        if hr_on:  # the home run adds at most its own, and the opponents' in mode always
            extra += _home_run_most(B[b, 7] + roy_m + roy_f, fe_sum, min(1.0, wb + jw_max),
                                    scoring, mult, add, mode, hr)  # fmt: skip
        if ub + extra <= best:
            continue
        # the same bound for one split: its own middle and front row values in place of
        # the best ones (the margin covers adding the same terms in another order)
        rest_ub = ub - pm[b] - pf[b] + extra + _SPLIT_MARGIN
        cut = False  # grids cut at this back's midrank (when first needed)
        kb = k5[b]
        for c in range(56):
            m = np.int64(under[b, c, 0])
            if k5[m] > kb:
                continue
            f = np.int64(under[b, c, 1])
            if f3[f] > k5[m]:
                continue
            if M[m, 4] + F[f, 4] + rest_ub <= best:
                continue
            v = _field_value(
                F[f, 0], F[f, 1], F[f, 2], M[m, 0], M[m, 1], M[m, 2], B[b, 0], B[b, 1], B[b, 2],
                F[f, 3] + M[m, 3] + B[b, 3], scoring, mult, add,
            )  # fmt: skip
            if has_joint or royal or hr_on:
                if v + extra <= best:
                    continue  # the corrections cannot lift it above the best
                if not cut:
                    if has_joint:
                        _slab(joint, B[b, 5], sj)
                    if cor and (royal or hr_on):
                        _slab(jw, B[b, 5], sw)
                        _slab(jl, B[b, 5], sl)
                    cut = True
                gi = np.int64(F[f, 8])
                gx = F[f, 9]
                gj = np.int64(M[m, 8])
                gy = M[m, 9]
                if has_joint:
                    v += _bilinear(sj, gi, gx, gj, gy)
                if royal or hr_on:
                    pw = F[f, 0] * M[m, 0] * B[b, 0]
                    pl = F[f, 2] * M[m, 2] * B[b, 2]
                    if cor:
                        pw += _bilinear(sw, gi, gx, gj, gy)
                        pl += _bilinear(sl, gi, gx, gj, gy)
                    mine = F[f, 7] + M[m, 7] + B[b, 7]
                    if royal:
                        v += _scoop_royalties(pw, pl, mine, F[f, 6], M[m, 6], B[b, 6], fe_sum,
                                              mult, mode)  # fmt: skip
                    if hr_on:
                        v += _home_run(pw, pl, mine, F[f, 6] + M[m, 6] + B[b, 6], fe_sum,
                                       scoring, mult, add, mode, hr)  # fmt: skip
            if v > best:
                best = v
                bf = f
                bm = m
                bb = b
    return bf, bm, bb, best


@kernel
def _greedy(k5, mask5, idx3):
    """Best back, then best middle of the rest, front the rest: subset indices."""
    back = 0
    for i in range(1287):
        if k5[i] > k5[back]:
            back = i
    rest = 0x1FFF ^ mask5[back]
    mid = -1
    for i in range(1287):
        if mask5[i] & rest == mask5[i] and (mid < 0 or k5[i] > k5[mid]):
            mid = i
    front = idx3[rest ^ mask5[mid]]
    return front, mid, back


@kernel
def _safe(k3, k5, fx, st, f3):
    """The ``safe`` style (docs/opponents.md#safe): the legal split whose weakest row is
    strongest, a row's strength being its midrank among the field's rows of that
    position (``fx[r, key, 0] + fx[r, key, 1] / 2``: P(win) + P(tie) / 2 against a field
    opponent's row, card removal left out); equal weakest rows: the largest sum of the
    three midranks; then the first found (backs strongest first, ``st.under`` order).
    Returns (front, middle, back) subset indices. A back whose own midrank is below the
    best weakest row so far cannot win, and no weaker back can: the search stops there.
    f3: the threes' keys in the foul check.
    """
    o5 = _radix_order(k5)
    best_min = -1.0
    best_sum = -1.0
    bf = -1
    bm = -1
    bb = -1
    for t in range(1286, -1, -1):
        b = o5[t]
        ub = fx[2, k5[b], 0] + 0.5 * fx[2, k5[b], 1]
        if ub < best_min:
            break
        for j in range(56):
            m = np.int64(st.under[b, j, 0])
            f = np.int64(st.under[b, j, 1])
            if k5[m] > k5[b] or f3[f] > k5[m]:
                continue
            um = fx[1, k5[m], 0] + 0.5 * fx[1, k5[m], 1]
            uf = fx[0, k3[f], 0] + 0.5 * fx[0, k3[f], 1]
            lo = min(uf, min(um, ub))
            s = uf + um + ub
            if lo > best_min or (lo == best_min and s > best_sum):
                best_min = lo
                best_sum = s
                bf = f
                bm = m
                bb = b
    return bf, bm, bb


@kernel
def _set_hands(hands, policy, lk, ra, st, fm, out_split, out_keys, out_roy, out_val):
    """Set many sorted hands uint8[n, 13] with a policy (POLICY_GREEDY, POLICY_FIELD or
    POLICY_SAFE).

    lk the evaluator's Lookup, ra the RuleArrays, st the split Structure, fm the
    FieldModel (unused by greedy; safe reads its per-row tables). Out: out_split
    int32[n, 3] (front 3-subset, middle 5-subset, back 5-subset indices), out_keys
    int64[n, 3] row keys, out_roy float64[n, 4] royalties of the rows and the dealt cards
    (after one royalty per hand), out_val float64[n] the field value (0 for greedy and
    safe).
    """
    k5 = np.empty(1287, np.int64)
    k3 = np.empty(286, np.int64)
    r5 = np.empty((2, 1287))
    r3 = np.empty(286)
    f3 = np.empty(286, np.int64)
    for h in range(hands.shape[0]):
        _prepare(hands[h], lk, ra, k5, k3, r5, r3, f3)
        if policy == POLICY_GREEDY:
            f, m, b = _greedy(k5, st.mask5, st.idx3)
            val = 0.0
        elif policy == POLICY_SAFE:
            f, m, b = _safe(k3, k5, fm.fx, st, f3)
            val = 0.0
        else:
            f, m, b, val = _field_best(hands[h], k3, k5, r3, r5, st, fm, ra.params, f3)
        out_split[h, 0] = f
        out_split[h, 1] = m
        out_split[h, 2] = b
        _candidate_rows(hands[h], ra, out_split[h : h + 1], k3, k5, r3, r5,
                        out_keys[h : h + 1], out_roy[h : h + 1])  # fmt: skip
        out_val[h] = val + out_roy[h, 3]


@kernel
def _mc_values(ckeys, croy, cfoul, okeys, oroy, ofoul, onat, onatkey, weights, params, nat_units,
               lo, hi, out):  # fmt: skip
    """Monte Carlo totals: out[c, d] += what candidate c wins from every opponent of deal d,
    each opponent's units times its weight, the whole table settled.

    ckeys int64[nc, 3], croy float64[nc, 4], cfoul bool[nc] candidate summaries; okeys
    int64[deals * n_opp, 3], oroy float64[deals * n_opp, 4], ofoul bool[deals * n_opp]
    the opponents' (deal d, seat o at row d * n_opp + o); onat/onatkey the opponents'
    declared naturals (-1 none); weights float64[n_opp] a weight per seat (stakes; 1.0
    each for plain units). Deals lo..hi only (threads take disjoint ranges; each writes
    its own columns, which start at 0). With the home run on (params[P_HR_MULT] != 1 and
    at least params[P_HR_MIN] opponents), ``_mc_home_run`` applies it to each deal after
    the pairwise sum; otherwise nothing else runs, so the values are the pairwise ones.
    """
    n_opp = weights.shape[0]
    home_run = params[P_HR_MULT] != 1.0 and n_opp >= params[P_HR_MIN]
    for d in range(lo, hi):
        for o in range(n_opp):
            j = d * n_opp + o
            w = weights[o]
            if onat[j] >= 0:
                v = w * _settle_naturals(-1, 0, onat[j], onatkey[j], nat_units, params)
                # a fouled (played) candidate pays a natural its flat penalty too
                pen = w * params[P_FOUL] if params[P_FOUL_NAT] != 0.0 else 0.0
                for c in range(ckeys.shape[0]):
                    out[c, d] += v - pen if cfoul[c] else v
            else:
                b0 = okeys[j, 0]
                b1 = okeys[j, 1]
                b2 = okeys[j, 2]
                q0 = oroy[j, 0]
                q1 = oroy[j, 1]
                q2 = oroy[j, 2]
                q3 = oroy[j, 3]
                fb = ofoul[j]
                for c in range(ckeys.shape[0]):
                    out[c, d] += w * _settle_core(
                        ckeys[c, 0], ckeys[c, 1], ckeys[c, 2], croy[c, 0], croy[c, 1],
                        croy[c, 2], croy[c, 3], cfoul[c], b0, b1, b2, q0, q1, q2, q3, fb,
                        params,
                    )  # fmt: skip
        if home_run:
            _mc_home_run(ckeys, croy, cfoul, okeys, oroy, ofoul, onat, weights, params, d, out)


@kernel
def _mc_pairs(ckeys, croy, cfoul, ob, orb, onat, onv, weights, params, lo, hi, out):
    """``_mc_values`` when the table settles pair by pair (no home run) and no opponent
    fouled (the field never fouls): the same numbers, bit for bit, ten times faster.

    The opponents come seat-major, contiguous along the deals: ob int64[3, n_opp, deals]
    row keys, orb float64[4, n_opp, deals] royalties (rows, then the dealt cards), onat
    bool[n_opp, deals] the opponent declared a natural, onv float64[n_opp, deals] what a
    candidate wins from it then (``_settle_naturals``). Candidates, weights, params, the
    range of deals and ``out`` (float64[nc, deals], += per deal, columns lo..hi) as in
    ``_mc_values``.

    The loop over deals is innermost, on slices that start at 0 (numba then knows no
    index is negative) and without a branch: every choice is a select between values
    computed either way, so LLVM vectorises it. Each settlement is ``_shown_units``, the
    kernel ``_settle_core`` settles two legal hands with (inlined; the ruleset's codes
    read once, as scalars), and a deal's seats are added in seat order, so ``out`` is
    what ``_mc_values`` writes.
    """
    n_opp = weights.shape[0]
    mode = params[P_MODE]
    scoring = params[P_SCORING]
    mult = params[P_MULT]
    add = params[P_SCOOP_ADD]
    cap = params[P_CAP]
    rr = params[P_RR]
    n = hi - lo
    for c in range(ckeys.shape[0]):
        a0 = ckeys[c, 0]
        a1 = ckeys[c, 1]
        a2 = ckeys[c, 2]
        ra0 = croy[c, 0]
        ra1 = croy[c, 1]
        ra2 = croy[c, 2]
        rda = croy[c, 3]
        oc = out[c, lo:hi]
        if cfoul[c]:  # a fouled (played) setting: the scalar settlement
            for o in range(n_opp):
                w = weights[o]
                for d in range(n):
                    j = lo + d
                    if onat[o, j]:  # a natural: its payout, and the flat penalty where paid
                        v = onv[o, j] - (params[P_FOUL] if params[P_FOUL_NAT] != 0.0 else 0.0)
                    else:
                        v = _settle_core(a0, a1, a2, ra0, ra1, ra2, rda, np.bool_(True),
                                         ob[0, o, j], ob[1, o, j], ob[2, o, j], orb[0, o, j],
                                         orb[1, o, j], orb[2, o, j], orb[3, o, j], np.bool_(False),
                                         params)  # fmt: skip
                    oc[d] += w * v
            continue
        for o in range(n_opp):
            w = weights[o]
            k0 = ob[0, o, lo:hi]
            k1 = ob[1, o, lo:hi]
            k2 = ob[2, o, lo:hi]
            q0 = orb[0, o, lo:hi]
            q1 = orb[1, o, lo:hi]
            q2 = orb[2, o, lo:hi]
            q3 = orb[3, o, lo:hi]
            nat = onat[o, lo:hi]
            natv = onv[o, lo:hi]
            for d in range(n):
                units = _shown_units(a0, a1, a2, ra0, ra1, ra2, rda, k0[d], k1[d], k2[d],
                                     q0[d], q1[d], q2[d], q3[d], rr, mode, scoring,
                                     mult, add, cap)  # fmt: skip
                oc[d] += w * (natv[d] if nat[d] else units)


@kernel
def _pool_pick(masks, hand, start, want, out):
    """The first ``want`` entries of a pool, from ``start`` on (wrapping round once), that
    share no card with the hand: masks uint64[n] each entry's cards (bit c for card c),
    hand uint64 the hand's; their indices go to out int64[want], in scan order. Returns
    how many were found (fewer than ``want`` only when the whole pool holds fewer)."""
    n = masks.shape[0]
    got = 0
    i = start
    for _ in range(n):
        if masks[i] & hand == 0:
            out[got] = i
            got += 1
            if got == want:
                return got
        i += 1
        if i == n:
            i = 0
    return got


@kernel
def _pool_pick_copies(firsts, seconds, hand1, hand2, start, want, out):
    """``_pool_pick`` for a deck with copies (docs/pool.md#bigger-decks): a hand's cards
    as two masks over the faces, ``firsts`` uint64[n] the first copies it holds (bit f
    for card id f) and ``seconds`` uint64[n] the second copies (bit f for card id
    faces + f); the hand's ``hand1`` and ``hand2`` likewise. A pool hand fits when it
    holds none of the hand's card ids: no first copy in common and no second copy."""
    n = firsts.shape[0]
    got = 0
    i = start
    for _ in range(n):
        if (firsts[i] & hand1) | (seconds[i] & hand2) == 0:
            out[got] = i
            got += 1
            if got == want:
                return got
        i += 1
        if i == n:
            i = 0
    return got


@kernel
def _scoop_possible(hands, th, lk, ra, under, out):
    """For each sorted hand i (uint8[m, 13]), whether some legal split of it has its
    front, middle and back keys all above th[i] (int64[m, 3]): over every back above
    th[i, 2], the 56 ways the other eight cards make a middle and a front (``under``,
    splits.structure), the first one found ending the search. out bool[m]."""
    k5 = np.empty(1287, np.int64)
    k3 = np.empty(286, np.int64)
    r5 = np.empty((2, 1287))
    r3 = np.empty(286)
    f3 = np.empty(286, np.int64)
    for i in range(hands.shape[0]):
        _prepare(hands[i], lk, ra, k5, k3, r5, r3, f3)
        found = False
        for b in range(1287):
            kb = k5[b]
            if kb <= th[i, 2]:
                continue
            for j in range(56):
                km = k5[under[b, j, 0]]
                if km <= th[i, 1] or km > kb:
                    continue
                f = under[b, j, 1]
                if th[i, 0] < k3[f] and f3[f] <= km:
                    found = True
                    break
            if found:
                break
        out[i] = found


@kernel
def _pool_partners(masks, taken, starts, out):
    """For each table t, a pool hand that shares no card with the cards ``taken[t]``
    (uint64, bit c for card c) already at it: masks uint64[n] the cards of the pool hands
    a solve may draw (none shares a card with its hand); the first such hand from
    position ``starts[t]`` on, wrapping round once, to out[t] (an index into masks), or
    -1 when there is none. Rejection sampling again: which hand is taken depends only on
    whether each shares a card with ``taken[t]``."""
    n = masks.shape[0]
    for t in range(taken.shape[0]):
        m = taken[t]
        out[t] = -1
        i = starts[t]
        for _ in range(n):
            if masks[i] & m == 0:
                out[t] = i
                break
            i += 1
            if i == n:
                i = 0


@kernel
def _pool_partners_copies(firsts, seconds, taken1, taken2, starts, out):
    """``_pool_partners`` for a deck with copies: the cards as two masks, first copies
    (``firsts``, ``taken1``) and second copies (``seconds``, ``taken2``), as in
    ``_pool_pick_copies``; a pool hand fits when it holds no card id already taken."""
    n = firsts.shape[0]
    for t in range(taken1.shape[0]):
        m1 = taken1[t]
        m2 = taken2[t]
        out[t] = -1
        i = starts[t]
        for _ in range(n):
            if (firsts[i] & m1) | (seconds[i] & m2) == 0:
                out[t] = i
                break
            i += 1
            if i == n:
                i = 0


@kernel
def _mc_home_run(ckeys, croy, cfoul, okeys, oroy, ofoul, onat, weights, params, d, out):
    """The home run at deal d's tables (docs/rules.md#home-run), on top of the pairwise
    sums out[:, d] that ``_mc_values`` wrote (arguments as there).

    What the opponents do among themselves is found once for the deal: no home run when
    one of them declared a natural; the strongest key of each row among the legal
    opponents (a candidate scoops them all when it is legal and beats those three); and
    the one opponent, if any, that scoops every other opponent (``star``). Then for each
    candidate: its own home run multiplies its whole sum; otherwise, when ``star``
    scoops it too, star's pair is counted ``multiplier - 1`` more times.
    """
    n_opp = weights.shape[0]
    base = d * n_opp
    for o in range(n_opp):
        if onat[base + o] >= 0:
            return
    m0 = np.int64(-1)
    m1 = np.int64(-1)
    m2 = np.int64(-1)
    for o in range(n_opp):
        j = base + o
        if not ofoul[j]:
            m0 = max(m0, okeys[j, 0])
            m1 = max(m1, okeys[j, 1])
            m2 = max(m2, okeys[j, 2])
    star = -1
    for o in range(n_opp):
        j = base + o
        if ofoul[j]:
            continue
        ok = True
        for p in range(n_opp):
            i = base + p
            if p != o and not _scoops(okeys[j, 0], okeys[j, 1], okeys[j, 2], np.bool_(False),
                                      okeys[i, 0], okeys[i, 1], okeys[i, 2], ofoul[i]):  # fmt: skip
                ok = False
                break
        if ok:
            star = o
            break
    mult = params[P_HR_MULT]
    js = base + max(star, 0)
    s0 = okeys[js, 0]
    s1 = okeys[js, 1]
    s2 = okeys[js, 2]
    extra = (mult - 1.0) * weights[max(star, 0)]
    for c in range(ckeys.shape[0]):
        if not cfoul[c] and ckeys[c, 0] > m0 and ckeys[c, 1] > m1 and ckeys[c, 2] > m2:
            out[c, d] *= mult
        elif star >= 0 and _scoops(s0, s1, s2, np.bool_(False),
                                   ckeys[c, 0], ckeys[c, 1], ckeys[c, 2], cfoul[c]):  # fmt: skip
            out[c, d] += extra * _settle_core(
                ckeys[c, 0], ckeys[c, 1], ckeys[c, 2], croy[c, 0], croy[c, 1], croy[c, 2],
                croy[c, 3], cfoul[c], s0, s1, s2, oroy[js, 0], oroy[js, 1], oroy[js, 2],
                oroy[js, 3], np.bool_(False), params,
            )  # fmt: skip


@kernel
def _natural_values(nid, nkey, onat, onatkey, ofoul, nat_units, out, params):
    """What declaring natural (nid, nkey) wins from each opponent: out float64[n]
    (``_settle_naturals``: the ruleset's natural ties, params float64[NPARAMS]); from an
    opponent whose shown setting fouled (ofoul bool[n]) the flat foul penalty too under
    foul_pays_naturals (params[P_FOUL_NAT])."""
    for j in range(onat.shape[0]):
        out[j] = _settle_naturals(nid, nkey, onat[j], onatkey[j], nat_units, params)
        if nid >= 0 and onat[j] < 0 and ofoul[j] and params[P_FOUL_NAT] != 0.0:
            out[j] += params[P_FOUL]


@kernel
def _field_stats(hands, keys, natural, weight, hyp, groups, dist, rank, suit):
    """Add what hands set by the field show to the training statistics.

    hands uint8[n, 13] sorted faces, keys int64[n, 3] their row keys, natural int64[n]
    (>= 0: the hand declares a natural and shows no rows: skipped), weight the round's
    weight, hyp float64[g + 1, 14]: hyp[a, n] the probability that 13 cards dealt from
    the cards a hand does not hold (39 of 52) include n of a group of a cards
    (hypergeometric), groups int64[6]: the deck's cards of a rank (4; 5 or 6 with added
    suits), then of each suit (13; 26 for a suit dealt twice), then its jokers.
    Adds, for each row r and its key: weight to dist float64[3, nkey]; weight x
    hyp[R - c_q, n] to rank float64[3, Q, R + 1, nkey] at [r, q, n, key] (R: groups[0],
    c_q: the hand's cards of rank q; another player's hand holds n of rank q with that
    probability; at a deck with jokers, Q = 14 and rank 13 is the jokers, R - c_q their
    count left: groups[5] - the hand's jokers); and weight x hyp[S_s - c_s, n] / 4 to
    suit float64[3, 14, nkey] at
    [r, n, key] for each suit s (S_s: groups[1 + s]). So each hand counts towards the
    rows' distribution given what another player holds, without dealing that player
    (Rao-Blackwellised).
    """
    nr = np.zeros(14, np.int64)
    ns = np.zeros(4, np.int64)
    for h in range(hands.shape[0]):
        if natural[h] >= 0:
            continue
        nr[:] = 0
        ns[:] = 0
        for i in range(13):
            c = np.int64(hands[h, i])
            nr[min(c >> 2, 13)] += 1  # a joker's rank is 13, as in _hand_shift
            if c >> 2 <= 12:
                ns[c & 3] += 1
        k0 = keys[h, 0]
        k1 = keys[h, 1]
        k2 = keys[h, 2]
        dist[0, k0] += weight
        dist[1, k1] += weight
        dist[2, k2] += weight
        for q in range(rank.shape[1]):
            a = (groups[0] if q < 13 else groups[5]) - nr[q]
            for n in range(min(a, 13) + 1):
                w = weight * hyp[a, n]
                rank[0, q, n, k0] += w
                rank[1, q, n, k1] += w
                rank[2, q, n, k2] += w
        for s in range(4):
            a = groups[1 + s] - ns[s]
            for n in range(min(a, 13) + 1):
                w = 0.25 * weight * hyp[a, n]
                suit[0, n, k0] += w
                suit[1, n, k1] += w
                suit[2, n, k2] += w


@kernel
def _mc_parts(ckeys, croy, cfoul, okeys, oroy, ofoul, onat, onatkey, params, nat_units, out):
    """Where each candidate's pairwise units come from, deal by deal: out[c, d, :] =
    (rows, bonus, royalties, naturals) summed over the opponents of deal d (arguments as
    ``_mc_values``; out float64[nc, deals, 4], written whole). ``_settle_parts`` splits a
    settlement with a setting opponent; what an opponent's declared natural takes is
    ``naturals``. The parts of deal d add up to ``_mc_values``' pairwise sum (before the
    home run, which the caller adds to the bonus)."""
    n_opp = okeys.shape[0] // out.shape[1]
    for c in range(ckeys.shape[0]):
        for d in range(out.shape[1]):
            rows = 0.0
            bonus = 0.0
            royalty = 0.0
            nats = 0.0
            for o in range(n_opp):
                j = d * n_opp + o
                if onat[j] >= 0:
                    nats += _settle_naturals(-1, 0, onat[j], onatkey[j], nat_units, params)
                    if cfoul[c] and params[P_FOUL_NAT] != 0.0:  # the flat foul is bonus
                        bonus -= params[P_FOUL]
                else:
                    r, b, y = _settle_parts(
                        ckeys[c, 0], ckeys[c, 1], ckeys[c, 2], croy[c, 0], croy[c, 1],
                        croy[c, 2], croy[c, 3], cfoul[c], okeys[j, 0], okeys[j, 1], okeys[j, 2],
                        oroy[j, 0], oroy[j, 1], oroy[j, 2], oroy[j, 3], ofoul[j], params,
                    )  # fmt: skip
                    rows += r
                    bonus += b
                    royalty += y
            out[c, d, 0] = rows
            out[c, d, 1] = bonus
            out[c, d, 2] = royalty
            out[c, d, 3] = nats


@kernel
def _home_run_screen(ck, cf, keys, foul, known, nat, need, th):
    """The first part of ``home_run.home_run_possible``, per table t (keys int64[T, n, 3],
    foul / known bool[T, n] the seats' row keys, fouls and whether the seat is a pool
    hand, set; nat int64[T, n] its natural, -1 none; ck int64[c, 3], cf bool[c] the
    candidates'). need[t] = 1 when some candidate's correction may be other than 0 from
    the pool seats alone: no pool seat declared a natural, and some candidate scoops
    every pool seat, or a pool seat scoops every other pool seat and some candidate;
    -1 when a pool seat declared a natural (no home run); 0 otherwise, where ``th[t]``
    gets the strongest key of each row among the legal pool seats (-1 none), for the
    dealt seats' check (``_scoop_possible``)."""
    n_tab = keys.shape[0]
    n = keys.shape[1]
    for t in range(n_tab):
        need[t] = 0
        for o in range(n):
            if known[t, o] and nat[t, o] >= 0:
                need[t] = -1
        if need[t] < 0:
            continue
        for c in range(ck.shape[0]):  # a candidate scooping every pool seat
            every = True
            for o in range(n):
                if known[t, o] and not _scoops(ck[c, 0], ck[c, 1], ck[c, 2], cf[c],
                                               keys[t, o, 0], keys[t, o, 1], keys[t, o, 2],
                                               foul[t, o]):  # fmt: skip
                    every = False
                    break
            if every:
                need[t] = 1
                break
        for p in range(n):  # a pool seat scooping every other pool seat and a candidate
            if need[t] or not known[t, p] or foul[t, p]:
                continue
            every = True
            for o in range(n):
                if o != p and known[t, o] and not _scoops(
                    keys[t, p, 0], keys[t, p, 1], keys[t, p, 2], np.bool_(False),
                    keys[t, o, 0], keys[t, o, 1], keys[t, o, 2], foul[t, o],
                ):  # fmt: skip
                    every = False
                    break
            if not every:
                continue
            for c in range(ck.shape[0]):
                if _scoops(keys[t, p, 0], keys[t, p, 1], keys[t, p, 2], np.bool_(False),
                           ck[c, 0], ck[c, 1], ck[c, 2], cf[c]):  # fmt: skip
                    need[t] = 1
                    break
        for r in range(3):
            th[t, r] = -1
            for o in range(n):
                if known[t, o] and not foul[t, o]:
                    th[t, r] = max(th[t, r], keys[t, o, r])
