"""Row strength on decks with added suits (``extra_suits`` ``"h"``, ``"hc"``): the copies scale.

A deck that deals some suits twice (docs/rules.md#added-suits) makes two kinds of row
the 52-card deck cannot: **five of a kind** (五同), a category of its own above the
straight flush, and a **flush that holds a pair or two pairs** (A♥ A♥ K♥ Q♥ J♥), which
stays a flush. Flushes compare as atom-chen/ShiSanShuiServer compares them
(``script_thirteen/lib/lib_normal_card_logic.lua``, ``CompareCardsLaizi``: "先比大对子
再比小对 最后比单张大小"; docs/rules.md#flushes-with-pairs): a flush with two pairs beats
one with a pair, which beats a plain flush; then the higher pair, the lower pair, and
the single cards from the top.

The scale is its own: dense from 0 to ``NSTRENGTH_COPIES - 1`` over 11,193 five-card and
455 three-card classes, higher stronger, the fronts interleaved as on the 52-card scale
(``evaluator.tables``), and the 52-card classes in the order they have there (a row's
number differs between the two scales, never its order). Both added-suit decks share
it: a five-card row holds at most two copies of a card of one suit on either, and five of
a kind happens on both; only how many rows each class has differs (tests pin them).

The kernels are the 52-card ones (``evaluator._kernels``): they read a row's faces (its
ids modulo ``FACES``) with these tables, the same rank-multiset table lookup. The tables
take well under a second to build and are built in memory on first use.
"""

from __future__ import annotations

import functools
import itertools
from collections import Counter
from typing import NamedTuple

import numpy as np

from evaluator.tables import (
    CATEGORY_NAMES,
    FLUSH,
    FULL_HOUSE,
    HIGH_CARD,
    NMULTI3,
    NMULTI5,
    PAIR,
    QUADS,
    STRAIGHT,
    STRAIGHT_FLUSH,
    TRIPS,
    TWO_PAIR,
    multiset_index,
)

#: The categories on the copies scale: the nine of the 52-card deck, then five of a kind.
FIVE_OF_A_KIND = len(CATEGORY_NAMES)
CATEGORY_NAMES_COPIES = (*CATEGORY_NAMES, "five of a kind")
#: Strengths on the copies scale: 7,462 + 13 five of a kind + 2,860 flushes with a pair
#: + 858 flushes with two pairs five-card classes, and the 455 fronts.
NSTRENGTH_COPIES = 11_648
_PAD = -1  # a front's missing kickers, below a deuce (as on the 52-card scale)
_CATEGORY = {
    (1, 1, 1, 1, 1): HIGH_CARD,
    (2, 1, 1, 1): PAIR,
    (2, 2, 1): TWO_PAIR,
    (3, 1, 1): TRIPS,
    (3, 2): FULL_HOUSE,
    (4, 1): QUADS,
    (5,): FIVE_OF_A_KIND,
    (1, 1, 1): HIGH_CARD,
    (2, 1): PAIR,
    (3,): TRIPS,
}


class DeckTables(NamedTuple):
    """The copies scale's tables (fields as ``evaluator.tables.Tables``' small ones)."""

    multi5: np.ndarray  # (6188,) int16, non-flush 5-card strength by rank-multiset index
    flush5: np.ndarray  # (6188,) int16, flush strength by rank-multiset index (-1 if n/a)
    multi3: np.ndarray  # (455,) int16, 3-card strength by rank-multiset index
    category: np.ndarray  # (11648,) int8, category 0..9 of each strength
    is_five: np.ndarray  # (11648,) bool, a 5-card class
    royal: np.ndarray  # (11648,) bool, the royal flush
    decisive_rank: np.ndarray  # (11648,) int8, rank of the card that breaks suit ties
    wheel_second: np.ndarray  # (11648,) int16, strength when A-2-3-4-5 ranks below T-A


def _top(order: tuple[int, ...]) -> int:
    """Top rank of five distinct ranks (high first) in sequence (3 for the wheel), or -1."""
    if order[0] - order[4] == 4:
        return order[0]
    return 3 if order == (12, 3, 2, 1, 0) else -1


def copies_key(ranks: tuple[int, ...], flush: bool) -> tuple[int, ...]:
    """The comparison key of a row's ranks on the copies scale, padded to 7 entries:
    (category, pairs in a flush, one rank per rank group, the biggest group first and
    the higher rank first among equal groups). A front pads with kickers below a deuce."""
    counts = Counter(ranks)
    groups = sorted(counts.items(), key=lambda rc: (-rc[1], -rc[0]))
    pattern = tuple(c for _, c in groups)
    order = tuple(r for r, _ in groups)
    if len(ranks) == 5 and len(order) == 5 and _top(order) >= 0:
        cat = STRAIGHT_FLUSH if flush else STRAIGHT
        return (cat, 0, _top(order), _PAD, _PAD, _PAD, _PAD)
    sub = 0
    if flush:  # a flush of five singles, or holding one or two pairs
        cat, sub = FLUSH, pattern.count(2)
    else:
        cat = _CATEGORY[pattern]
    return (cat, sub, *order) + (_PAD,) * (5 - len(order))


def _multisets(n: int, most: int) -> list[tuple[int, ...]]:
    """Sorted rank multisets of size ``n``, no rank more than ``most`` times."""
    return [
        ms
        for ms in itertools.combinations_with_replacement(range(13), n)
        if max(Counter(ms).values()) <= most
    ]


def build_deck_tables() -> DeckTables:
    """Build the copies scale's tables from nothing."""
    entries: list[tuple[tuple[int, ...], str, int]] = []
    for ms in _multisets(5, 5):
        entries.append((copies_key(ms, False), "m5", multiset_index(ms)))
        if max(Counter(ms).values()) <= 2:  # one suit holds at most two copies of a rank
            entries.append((copies_key(ms, True), "f5", multiset_index(ms)))
    for ms in _multisets(3, 3):
        entries.append((copies_key(ms, False), "m3", multiset_index(ms)))
    keys = sorted({e[0] for e in entries})
    if len(keys) != NSTRENGTH_COPIES:
        raise AssertionError(f"expected {NSTRENGTH_COPIES} classes, built {len(keys)}")
    strength_of = {k: s for s, k in enumerate(keys)}
    target = {
        "m5": np.full(NMULTI5, -1, np.int16),
        "f5": np.full(NMULTI5, -1, np.int16),
        "m3": np.full(NMULTI3, -1, np.int16),
    }
    is_five = np.zeros(NSTRENGTH_COPIES, bool)
    for key, kind, idx in entries:
        target[kind][idx] = strength_of[key]
        is_five[strength_of[key]] = kind != "m3"
    category = np.array([k[0] for k in keys], np.int8)
    decisive = np.array([k[2] for k in keys], np.int8)
    royal = np.zeros(NSTRENGTH_COPIES, bool)
    royal[strength_of[(STRAIGHT_FLUSH, 0, 12, _PAD, _PAD, _PAD, _PAD)]] = True

    def second(k: tuple[int, ...]) -> tuple[float, ...]:  # the wheel just below T-A
        if k[0] in (STRAIGHT, STRAIGHT_FLUSH) and k[2] == 3:
            return (k[0], 0, 11.5, *k[3:])
        return k

    order2 = sorted(range(NSTRENGTH_COPIES), key=lambda s: second(keys[s]))
    wheel_second = np.empty(NSTRENGTH_COPIES, np.int16)
    wheel_second[np.array(order2)] = np.arange(NSTRENGTH_COPIES, dtype=np.int16)
    tables = DeckTables(
        target["m5"], target["f5"], target["m3"], category, is_five, royal, decisive, wheel_second
    )
    for a in tables:
        a.setflags(write=False)
    return tables


@functools.cache
def get_deck_tables() -> DeckTables:
    """The copies scale's tables, built once per process."""
    return build_deck_tables()
