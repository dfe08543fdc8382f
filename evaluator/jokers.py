"""Row strength with jokers (鬼牌, the ruleset key ``jokers``): one table lookup, as without.

A joker stands for whichever card makes its row strongest, and may copy a card already
in play (docs/rules.md#jokers), so a row with jokers is one of the copies scale's
classes (``evaluator.decks``: five of a kind, a flush holding a pair). Which card is best
depends only on the rank multiset of the row's other cards and on whether they share one
suit (then the jokers may take that suit). So the tables here are the copies scale's
lookups widened by one rank: a joker's face is ``JOKER_FACE`` (53), of rank
``JOKER_RANK`` (13) and no suit, and

- ``multi5[i]`` for the multiset ``i`` holding ``k`` thirteens is the strongest row the
  other ``5 - k`` ranks make with any ``k`` ranks added (not of one suit);
- ``flush5[i]`` the strongest with the jokers in the other cards' suit, or not;
- ``multi3[i]`` the same for a front.

Colex indices put every multiset holding a 13 after those that do not, so the first
6,188 (455) entries are the copies scale's tables unchanged: a row without a joker is
looked up exactly as before, by the same kernels; the kernels only read a joker's suit
as wild (``evaluator._kernels``). The best card depends on the wheel (A-2-3-4-5 ranks
last or second: a joker beside 2-3-4-5 makes the six-high straight or the wheel), so
there is a table per ``wheel``. Built in memory in well under a second; exhaustive
counts are pinned in tests/test_jokers.py, and tests/reference.py checks every entry
by trying every card for every joker.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Sequence
from math import comb
from typing import NamedTuple

import numpy as np

from evaluator.cards import JOKER_RANK, MAX_JOKERS
from evaluator.decks import NSTRENGTH_COPIES, get_deck_tables
from evaluator.tables import multiset_index

#: Entries of the widened tables: rank multisets of 14 ranks (the joker's the 14th).
NMULTI5_JOKERS = comb(JOKER_RANK + 1 + 4, 5)  # 8,568
NMULTI3_JOKERS = comb(JOKER_RANK + 1 + 2, 3)  # 560
WHEELS = ("low", "second")


class JokerTables(NamedTuple):
    """The three lookups of the copies scale, widened to rows holding jokers."""

    multi5: np.ndarray  # int16[8568]
    flush5: np.ndarray  # int16[8568]
    multi3: np.ndarray  # int16[560]


def _fill(
    out: np.ndarray, size: int, table: np.ndarray, order: np.ndarray, flush: np.ndarray | None
) -> None:
    """Entries of ``out`` for multisets of ``size`` ranks holding 1..MAX_JOKERS jokers:
    the best (by ``order``) of ``table`` over the ranks the jokers may take; with
    ``flush`` (the flush table), the best of both readings."""
    for k in range(1, min(MAX_JOKERS, size) + 1):
        for real in itertools.combinations_with_replacement(range(JOKER_RANK), size - k):
            best = -1
            for added in itertools.combinations_with_replacement(range(JOKER_RANK), k):
                idx = multiset_index(tuple(sorted(real + added)))
                for tab in (table, flush) if flush is not None else (table,):
                    s = int(tab[idx])
                    if s >= 0 and (best < 0 or order[s] > order[best]):
                        best = s
            out[multiset_index(real + (JOKER_RANK,) * k)] = best


def build_joker_tables(wheel: str = "low") -> JokerTables:
    """Build the widened tables for ``wheel`` (``"low"`` or ``"second"``) from nothing."""
    if wheel not in WHEELS:
        raise ValueError(f"wheel must be one of {WHEELS}, got {wheel!r}")
    d = get_deck_tables()
    order = np.arange(NSTRENGTH_COPIES) if wheel == "low" else d.wheel_second.astype(np.int64)
    multi5 = np.full(NMULTI5_JOKERS, -1, np.int16)
    flush5 = np.full(NMULTI5_JOKERS, -1, np.int16)
    multi3 = np.full(NMULTI3_JOKERS, -1, np.int16)
    multi5[: len(d.multi5)] = d.multi5
    flush5[: len(d.flush5)] = d.flush5
    multi3[: len(d.multi3)] = d.multi3
    _fill(multi5, 5, d.multi5, order, None)
    _fill(flush5, 5, d.multi5, order, d.flush5)
    _fill(multi3, 3, d.multi3, order, None)
    tables = JokerTables(multi5, flush5, multi3)
    for a in tables:
        a.setflags(write=False)
    return tables


@functools.cache
def get_joker_tables(wheel: str = "low") -> JokerTables:
    """The widened tables for ``wheel``, built once per process."""
    return build_joker_tables(wheel)


def stand_ins(row: Sequence[int], extra_suits: str, wheel: str = "low") -> tuple[int, ...]:
    """The cards a row's jokers stand for, as faces (card ids 0..51), in the order the
    jokers appear: a substitution that makes the row as strong as its jokers make it
    (docs/rules.md#jokers), of those the one with the highest cards (so the answer is
    one and the same every time), preferring cards not in the row. ``row`` holds 3 or
    5 ids of the deck ``extra_suits`` (a deck code); a row without a joker stands for
    nothing: ``()``."""
    from evaluator import _kernels as k
    from evaluator.cards import FACES, faces_of

    faces = faces_of(np.asarray(row, np.int64))
    jokers = [i for i, f in enumerate(faces.tolist()) if f >= FACES]
    if not jokers:
        return ()
    real = [f for f in faces.tolist() if f < FACES]
    held = np.bincount(np.array(real, np.int64), minlength=FACES) if real else np.zeros(FACES)
    picks = [
        p
        for p in itertools.combinations_with_replacement(range(FACES - 1, -1, -1), len(jokers))
        if all(held[f] + p.count(f) <= 2 for f in set(p))  # no card more than twice
    ]
    rows = np.empty((len(picks), len(faces)), np.uint8)
    rows[:] = faces
    rows[:, jokers] = np.array(picks, np.uint8)
    d = get_deck_tables()
    out = np.empty(len(rows), np.int32)
    if len(faces) == 5:
        k._eval5_batch(rows, d.multi5, d.flush5, out)
    else:
        k._eval3_batch(rows, d.multi3, out)
    order = (out if wheel == "low" else d.wheel_second[out]).astype(np.int64)
    # of the strongest, a card not yet in the row first (A♠ A♥ before A♠ A♠)
    fresh = np.array([all(held[f] == 0 for f in p) and len(set(p)) == len(p) for p in picks])
    return tuple(picks[int(np.argmax(order * 2 + fresh))])
