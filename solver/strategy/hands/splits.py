"""The splits of a hand: subsets, partitions, the legal ones and their Pareto front.

A hand is sorted (13 ``uint8`` ids, low to high). A *split* is a front 3-subset and two
5-subsets of its positions (indices into ``evaluator.COMB3`` / ``COMB5``); the stronger
five always goes to the back, so the 72,072 ordered splits reduce to 36,036 partitions.
``candidates`` ranks every subset once, keeps the legal partitions and, when the ruleset
makes payoffs monotone in row strength (``CompiledRules.pareto_safe``), only those on
the Pareto front: a setting whose every row is matched or beaten by another setting's
can never be worth more.
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from evaluator import COMB3, COMB5, format_cards
from evaluator.cards import HAND_SIZE, JOKER_FACE, SUITS
from solver.engine.compiled import KEY_STEP, CompiledRules
from solver.engine.layout import NPART, NSUB3, NSUB5


class Structure(NamedTuple):
    """Index arrays for splits of a sorted 13-card hand (positions 0..12); one kernel
    argument."""

    part: np.ndarray  # int16[36036, 3]: front 3-subset, five A, five B
    mask5: np.ndarray  # int64[1287] position bitmask of each five
    mask3: np.ndarray  # int64[286]
    idx5: np.ndarray  # int64[8192] five index of a bitmask (-1 if not a five)
    idx3: np.ndarray  # int64[8192] three index of a bitmask
    under: np.ndarray  # int16[1287, 56, 2] (five, three) splitting the 8 positions a five leaves


@functools.cache
def structure() -> Structure:
    weights = 1 << np.arange(13, dtype=np.int64)
    mask5 = (weights[COMB5.astype(np.int64)]).sum(axis=1)
    mask3 = (weights[COMB3.astype(np.int64)]).sum(axis=1)
    idx5 = np.full(8192, -1, np.int64)
    idx5[mask5] = np.arange(NSUB5)
    idx3 = np.full(8192, -1, np.int64)
    idx3[mask3] = np.arange(NSUB3)
    # each front with each five of the other 10 positions that holds the lowest of them
    # (16-bit masks: the 286 x 1,287 tests are a few times quicker)
    m5 = mask5.astype(np.int16)
    left = (0x1FFF ^ mask3).astype(np.int16)[:, None]
    low = left & -left
    front, five = np.nonzero(((m5 & ~left) == 0) & ((m5 & low) != 0))
    part = np.stack([front, five, idx5[left[front, 0] ^ m5[five]]], 1).astype(np.int16)
    if part.shape != (NPART, 3):
        raise AssertionError(f"expected {NPART} partitions, built {part.shape[0]}")
    comb85 = np.array(list(itertools.combinations(range(8), 5)), dtype=np.int64)
    rest = 0x1FFF ^ mask5  # the 8 positions each five leaves, as bitmasks
    pos = np.nonzero(rest[:, None] >> np.arange(13) & 1)[1].reshape(NSUB5, 8)  # ascending
    mid = (weights[pos[:, comb85]]).sum(axis=2)  # [1287, 56] masks of the middle fives
    under = np.stack([idx5[mid], idx3[rest[:, None] ^ mid]], axis=2).astype(np.int16)
    for a in (part, mask5, mask3, idx5, idx3, under):
        a.setflags(write=False)
    return Structure(part, mask5, mask3, idx5, idx3, under)


class HandRows(NamedTuple):
    """Row keys and royalties of every subset of a sorted hand under a ruleset."""

    k5: np.ndarray  # int64[1287] key of each five
    k3: np.ndarray  # int64[286] key of each three (as a front)
    r5: np.ndarray  # float64[2, 1287] royalty of each five as middle, as back
    r3: np.ndarray  # float64[286] royalty of each three as a front
    #: int64[286] key of each three as a front in the foul check (k3, but a front of both
    #: jokers under ``two_jokers_foul = "third_card"``: docs/rules.md#jokers)
    f3: np.ndarray


def _empty_rows() -> HandRows:
    return HandRows(np.empty(NSUB5, np.int64), np.empty(NSUB3, np.int64), np.empty((2, NSUB5)),
                    np.empty(NSUB3), np.empty(NSUB3, np.int64))  # fmt: skip


def prepare_hand(hand: np.ndarray, cr: CompiledRules) -> HandRows:
    """Keys and royalties of every subset of a sorted hand (uint8[13], low to high)."""
    from solver.strategy import _kernels as k

    rows = _empty_rows()
    k._prepare(hand, cr.lookup, cr.arrays, *rows)
    return rows


def foul_fronts(
    hands: np.ndarray, split: np.ndarray, keys: np.ndarray, cr: CompiledRules
) -> np.ndarray | None:
    """int64[n]: the fronts' keys in the foul check, of settings of sorted hands
    (uint8[n, 13], split int32[n, 3], row keys int64[n, 3]): keys[:, 0], but a front of
    both jokers under ``two_jokers_foul = "third_card"`` is three of a kind of its third
    card (``CompiledRules.third_card_keys``, docs/rules.md#jokers); None for a ruleset
    where every front is checked by its key."""
    by_rank = cr.third_card_keys
    return None if by_rank is None else _fronts_by(hands, split, keys, by_rank)


def _fronts_by(
    hands: np.ndarray, split: np.ndarray, keys: np.ndarray, by_rank: np.ndarray
) -> np.ndarray:
    """``foul_fronts`` with the ruleset's ``third_card_keys`` (a hand uint8[13] stands
    for every setting's)."""
    hands = np.asarray(hands).reshape(-1, HAND_SIZE)
    if len(hands) == 1:
        hands = np.repeat(hands, len(split), axis=0)
    front = np.take_along_axis(hands, COMB3[np.asarray(split)[:, 0]].astype(np.intp), axis=1)
    both = (front == JOKER_FACE).sum(axis=1) == 2
    out = np.asarray(keys, np.int64)[:, 0].copy()
    by_face = np.repeat(by_rank, len(SUITS))  # a face's rank's key (faces 0..51)
    out[both] = by_face[front[both].min(axis=1)]  # the one card not a joker
    return out


@dataclass
class Candidates:
    """Settings of a sorted hand to score: the Pareto front, all legal splits, or any
    settings given (a played one, a policy's choice)."""

    hand: np.ndarray  # uint8[13], sorted
    split: np.ndarray  # int32[n, 3] subset indices (front, middle, back)
    keys: np.ndarray  # int64[n, 3]
    roy: np.ndarray  # float64[n, 4] rows, dealt cards (after one royalty per hand)
    legal: int  # number of legal partitions of the hand (0: not counted)
    pruned: bool  # whether the Pareto front was taken
    rows: HandRows | None = None  # the hand's subset rows, when computed
    #: the ruleset's ``RuleArrays.eq_top`` under equal_rows_foul, else None
    eq_top: np.ndarray | None = None
    #: the ruleset's ``CompiledRules.third_card_keys`` (a front of both jokers checked as
    #: three of its third card), else None
    third_keys: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.split)

    @property
    def fouls(self) -> np.ndarray:
        """bool[n]: which candidates are fouled (only a played setting can be)."""
        k = self.keys
        if self.third_keys is not None:  # docs/rules.md#jokers: 对鬼冲前
            k = k.copy()
            k[:, 0] = _fronts_by(self.hand, self.split, k, self.third_keys)
        bad = ~((k[:, 0] <= k[:, 1]) & (k[:, 1] <= k[:, 2]))
        if self.eq_top is not None:  # equal rows foul (docs/rules.md#equal-rows-foul)
            strength = k // KEY_STEP  # a key's strength' (its suit part dropped)
            bad |= strength[:, 1] <= self.eq_top[strength[:, 0]]
            bad |= strength[:, 2] <= self.eq_top[strength[:, 1]]
        return bad

    def text(self, i: int) -> tuple[str, str, str]:
        """(front, middle, back) of candidate i as text, each row high card first."""
        return setting_text(self.hand, self.split[i])

    def with_split(self, split: np.ndarray, cr: CompiledRules) -> Candidates:
        """These candidates and the given splits int32[m, 3] appended (keys and royalties
        computed from the hand's rows)."""
        from solver.strategy import _kernels as k

        rows = self.rows if self.rows is not None else prepare_hand(self.hand, cr)
        split = np.ascontiguousarray(split, np.int32).reshape(-1, 3)
        keys = np.empty((len(split), 3), np.int64)
        roy = np.empty((len(split), 4), np.float64)
        k._candidate_rows(self.hand, cr.arrays, split, rows.k3, rows.k5, rows.r3, rows.r5, keys,
                          roy)  # fmt: skip
        return Candidates(
            self.hand,
            np.vstack([self.split, split]).astype(np.int32),
            np.vstack([self.keys, keys]),
            np.vstack([self.roy, roy]),
            self.legal,
            self.pruned,
            rows,
            self.eq_top,
            cr.third_card_keys,
        )


def candidates(hand: np.ndarray, cr: CompiledRules, prune: bool = True) -> Candidates:
    """The legal splits of a sorted hand worth scoring: the Pareto front when safe, for
    the ruleset or for this hand (``CompiledRules.pareto_below``: no row it can make is
    one where the royalties fall, such as five of a kind paying less than a straight
    flush), else every legal split."""
    from solver.strategy import _kernels as k

    rows = _empty_rows()
    split = np.empty((NPART, 3), np.int32)
    keys = np.empty((NPART, 3), np.int64)
    roy = np.empty((NPART, 4), np.float64)
    below = cr.pareto_below if prune and not cr.pareto_safe else None
    pruned = prune and (cr.pareto_safe or below is not None)
    n, m = k._candidates(hand, cr.lookup, cr.arrays, structure().part, pruned, *rows,
                         split, keys, roy)  # fmt: skip
    if below is not None and (rows.k3.max() >= below[0] or rows.k5.max() >= min(below[1:])):
        pruned = False  # a row of this hand may be one whose royalty falls: every split
        n, m = k._candidates(hand, cr.lookup, cr.arrays, structure().part, pruned, *rows,
                             split, keys, roy)  # fmt: skip
    if cr.rules.equal_rows_foul:  # docs/rules.md#equal-rows-foul
        eq = cr.fouls(keys[:m], rows.f3[split[:m, 0]])
        if eq.any() and pruned:  # the front of the legal splits of the plain check held
            n, m = _strict_front(hand, cr, rows, split, keys, roy)  # one: take it again
        elif eq.any():
            good = np.flatnonzero(~eq)
            m = n = len(good)
            split[:m], keys[:m], roy[:m] = split[good], keys[good], roy[good]
    split, keys, roy = split[:m], keys[:m], roy[:m]
    keep = _distinct_settings(hand, split)
    split, keys, roy = (a[keep].copy() for a in (split, keys, roy))
    eq_top = cr.arrays.eq_top if cr.rules.equal_rows_foul else None
    return Candidates(hand, split, keys, roy, n, pruned, rows, eq_top, cr.third_card_keys)


def _strict_front(
    hand: np.ndarray,
    cr: CompiledRules,
    rows: HandRows,
    split: np.ndarray,
    keys: np.ndarray,
    roy: np.ndarray,
) -> tuple[int, int]:
    """Under equal_rows_foul: the Pareto front of the splits that are legal with equal
    rows fouling (docs/rules.md#equal-rows-foul), written to split / keys / roy from
    row 0; returns (legal splits, splits kept). Of the legal splits of the plain check,
    the ones it fouls are dropped before the front is taken, so no split they dominated
    is lost."""
    from solver.strategy import _kernels as k

    legal = np.empty((NPART, 3), np.int32)
    n = k._legal_partitions(rows.f3, rows.k5, structure().part, legal)
    lk = np.stack([rows.f3[legal[:n, 0]], rows.k5[legal[:n, 1]], rows.k5[legal[:n, 2]]], axis=1)
    good = np.ascontiguousarray(legal[:n][~cr.fouls(lk)])
    keep = np.zeros(len(good), np.bool_)
    k._pareto(rows.k3, rows.k5, good, len(good), keep)
    m = int(keep.sum())
    split[:m] = good[keep]
    k._candidate_rows(hand, cr.arrays, split[:m], rows.k3, rows.k5, rows.r3, rows.r5, keys[:m],
                      roy[:m])  # fmt: skip
    return len(good), m


def _distinct_settings(hand: np.ndarray, split: np.ndarray) -> np.ndarray | slice:
    """Which of the splits to keep: every one, unless the hand holds a card twice (a
    deck with added suits), where two splits that swap the copies are one setting: the
    first of each set of rows (as faces) is kept, in order."""
    if len(np.unique(hand)) == len(hand):
        return slice(None)
    rows = [np.sort(hand[idx[split[:, j]]], axis=1) for j, idx in enumerate((COMB3, COMB5, COMB5))]
    _, first = np.unique(np.hstack(rows), axis=0, return_index=True)
    return np.sort(first)


def split_cards(hand_sorted: np.ndarray, split) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(front, middle, back) card arrays of a split of a sorted hand, each sorted high first."""
    f, m, b = (int(x) for x in split)
    rows = (hand_sorted[COMB3[f]], hand_sorted[COMB5[m]], hand_sorted[COMB5[b]])
    return tuple(np.sort(r)[::-1].copy() for r in rows)


def setting_text(hand_sorted: np.ndarray, split) -> tuple[str, str, str]:
    """(front, middle, back) of a split as text (``As Kd Th``), each row high card first."""
    return tuple(format_cards(r) for r in split_cards(hand_sorted, split))


def split_of(hand_sorted: np.ndarray, front, middle, back) -> np.ndarray:
    """The split int32[3] (subset indices) of a setting of a sorted hand's own cards (a
    card the hand holds twice, a face of a deck with added suits, takes its positions in
    turn)."""
    pos: dict[int, list[int]] = {}
    for i, c in enumerate(hand_sorted.tolist()):
        pos.setdefault(int(c), []).append(i)
    st = structure()
    out = np.empty(3, np.int32)
    for j, (row, idx) in enumerate(((front, st.idx3), (middle, st.idx5), (back, st.idx5))):
        mask = 0
        for c in np.asarray(row).tolist():
            mask |= 1 << pos[int(c)].pop(0)
        out[j] = idx[mask]
    return out
