"""Cards and row strength for 13-card Chinese poker.

Strengths are ``int32`` on one scale for 5-card rows (middle, back) and 3-card rows
(front): **higher is stronger**, and a front compares with a 5-card row as if it had two
more kickers below a deuce, so the foul check is ``front <= middle <= back`` on integers.
Default rules: the wheel A-2-3-4-5 is the lowest straight, no suit order.

With ``extra_suits`` (``"h"``, ``"hc"``: a deck that deals those suits twice) the row
functions take that deck's ids (a second copy is its face + ``FACES``) and answer on
the copies scale of ``evaluator.decks``: five of a kind above the straight flush,
flushes that hold pairs. ``extra_suits`` is a deck code: an ``X`` per joker after the
letters (``"XX"``, ``"hX"``: evaluator.cards), and rows may then hold jokers (``X``),
valued on the copies scale by the widened tables of ``evaluator.jokers``.

Importing this package does not import numba; the kernels load on first use.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from evaluator.cards import (
    EXTRA_SUITS,
    FACES,
    HAND_SIZE,
    JOKER,
    JOKER_FACE,
    JOKER_IDS,
    RANKS,
    SUIT_SYMBOLS,
    SUITS,
    CardParseError,
    as_cards,
    card_id,
    deck_code,
    deck_ids,
    faces_of,
    format_card,
    format_cards,
    jokers_in,
    parse_cards,
    parse_hand,
)
from evaluator.decks import (
    CATEGORY_NAMES_COPIES,
    FIVE_OF_A_KIND,
    NSTRENGTH_COPIES,
    DeckTables,
    get_deck_tables,
)
from evaluator.jokers import JokerTables, get_joker_tables
from evaluator.tables import (
    CATEGORY_NAMES,
    NSTRENGTH,
    Tables,
    build_tables,
    get_tables,
    tables_digest,
)

__all__ = [
    "CATEGORY_NAMES",
    "CATEGORY_NAMES_COPIES",
    "COMB3",
    "COMB5",
    "EXTRA_SUITS",
    "FACES",
    "FIVE_OF_A_KIND",
    "HAND_SIZE",
    "JOKER",
    "JOKER_FACE",
    "JOKER_IDS",
    "NSTRENGTH",
    "NSTRENGTH_COPIES",
    "RANKS",
    "SUITS",
    "SUIT_SYMBOLS",
    "CardParseError",
    "DeckTables",
    "JokerTables",
    "Tables",
    "as_cards",
    "build_tables",
    "card_id",
    "category",
    "category_name",
    "deck_code",
    "deck_ids",
    "evaluate3",
    "evaluate5",
    "format_card",
    "faces_of",
    "format_cards",
    "get_deck_tables",
    "get_joker_tables",
    "get_tables",
    "is_royal",
    "jokers_in",
    "parse_cards",
    "parse_hand",
    "subset_strengths",
    "tables_digest",
    "warmup",
]


def _combos(n: int, k: int) -> np.ndarray:
    from itertools import combinations

    a = np.array(list(combinations(range(n), k)), dtype=np.int8)
    a.setflags(write=False)
    return a


COMB5 = _combos(13, 5)  # (1287, 5) positions of each 5-subset of a sorted 13-card hand
COMB3 = _combos(13, 3)  # (286, 3)

#: Rows of card ids for the batch evaluators: text (one row), one row of ids, or (n, width).
Rows = str | Sequence[int] | Sequence[Sequence[int]] | np.ndarray

_warm = False


def warmup() -> None:
    """Load the tables and compile (or load from cache) the kernels, once per process."""
    global _warm
    if _warm:
        return
    from evaluator import _kernels as k
    from evaluator._jit import compiling

    t = get_tables()
    with compiling("evaluator", "evaluator kernels"):
        k._eval5_batch(
            np.arange(5, dtype=np.uint8).reshape(1, 5),
            t.multi5,
            t.flush5,
            np.empty(1, np.int32),
        )
        k._eval5_batch_wild(
            np.arange(5, dtype=np.uint8).reshape(1, 5), t.multi5, t.flush5, np.empty(1, np.int32)
        )
        k._eval3_batch(np.arange(3, dtype=np.uint8).reshape(1, 3), t.multi3, np.empty(1, np.int32))
        k._eval5_checked(
            np.arange(5, dtype=np.uint8).reshape(1, 5), t.multi5, t.flush5, np.empty(1, np.int32)
        )
        k._eval3_checked(
            np.arange(3, dtype=np.uint8).reshape(1, 3), t.multi3, np.empty(1, np.int32)
        )
        k._subset_pass(
            np.arange(13, dtype=np.uint8),
            t.multi5,
            t.flush5,
            t.multi3,
            np.empty(1287, np.int16),
            np.empty(286, np.int16),
        )
    _warm = True


def _batch(cards: Rows, width: int) -> tuple[np.ndarray, bool]:
    """(rows, single): an integer (n, width) array for the checked kernels (not yet
    validated: the kernel checks ids and duplicates in its pass), and whether the input
    was one row (validated here, as it is small)."""
    if isinstance(cards, str):
        return as_cards(cards, width).reshape(1, width), True
    arr = np.asarray(cards)
    if arr.ndim == 1:
        return as_cards(arr, width).reshape(1, width), True
    if arr.ndim != 2 or arr.shape[1] != width:
        raise CardParseError(f"expected shape ({width},) or (n, {width}), got {arr.shape}")
    if arr.dtype.kind not in "iu":
        raise CardParseError(f"card ids must be integers, got {arr.dtype}")
    return arr, False


def _raise_bad_row(arr: np.ndarray, bad: int) -> None:
    """The CardParseError for a checked kernel's report ``row * 2 + what``.

    The messages (and which error wins) are those of a check in two passes: an id out of
    range anywhere first, then the first row holding a card twice.
    """
    from evaluator._kernels import BAD_ID

    row, what = divmod(int(bad), 2)
    if what == BAD_ID or ((arr[row + 1 :] < 0) | (arr[row + 1 :] > 51)).any():
        raise CardParseError("bad card id: ids run from 0 (2c) to 51 (As)")
    raise CardParseError(f"duplicate card in row {row}: {format_cards(arr[row])}")


def _deck_faces(cards: Rows, width: int, extra_suits: str) -> tuple[np.ndarray, bool]:
    """(faces, single) of rows of the deck with ``extra_suits``: every id the deck's, no
    id twice in a row (CardParseError, one line), then each id's face (``id % FACES``)
    as uint8, which the bare kernels read."""
    if isinstance(cards, str):
        arr = as_cards(cards, width, extra_suits).reshape(1, width)
        return faces_of(arr), True
    arr = np.asarray(cards)
    single = arr.ndim == 1
    if single:
        arr = arr.reshape(1, -1)
    if arr.ndim != 2 or arr.shape[1] != width:
        raise CardParseError(f"expected shape ({width},) or (n, {width}), got {np.shape(cards)}")
    if arr.size and arr.dtype.kind not in "iu":
        raise CardParseError(f"card ids must be integers, got {arr.dtype}")
    ids = arr.astype(np.int64)
    valid = np.zeros(256, bool)
    valid[deck_ids(extra_suits)] = True
    inside = (ids >= 0) & (ids < 256)
    if not (inside & valid[np.where(inside, ids, 0)]).all():
        bad = int(ids[~(inside & valid[np.where(inside, ids, 0)])][0])
        raise CardParseError(f"bad card id {bad}: not a card of extra_suits = {extra_suits!r}")
    ordered = np.sort(ids, axis=1)
    twice = (ordered[:, 1:] == ordered[:, :-1]).any(axis=1)
    if twice.any():
        row = int(np.flatnonzero(twice)[0])
        raise CardParseError(
            f"duplicate card in row {row}: {format_cards(arr[row], extra_suits)} (one id twice)"
        )
    return faces_of(ids), single


def _lookups(extra_suits: str) -> DeckTables | JokerTables:
    """The copies scale's lookups for a deck code: widened for jokers (wheel low)."""
    return get_joker_tables() if jokers_in(extra_suits) else get_deck_tables()


def _evaluate_copies(cards: Rows, width: int, extra_suits: str) -> int | np.ndarray:
    """``evaluate5`` / ``evaluate3`` on the deck with ``extra_suits`` (a deck code): the
    bare kernels over the rows' faces, with the copies scale's tables (widened for
    jokers: evaluator.jokers)."""
    from evaluator import _kernels as k

    faces, single = _deck_faces(cards, width, extra_suits)
    warmup()
    t = _lookups(extra_suits)
    out = np.empty(len(faces), np.int32)
    if width == 5:
        lookup = k._eval5_batch_wild if jokers_in(extra_suits) else k._eval5_batch
        lookup(faces, t.multi5, t.flush5, out)
    else:
        k._eval3_batch(faces, t.multi3, out)
    return int(out[0]) if single else out


def evaluate5(cards: Rows, extra_suits: str = "") -> int | np.ndarray:
    """Strength of 5-card rows: ids of shape (5,) or (n, 5), or text; higher is stronger.

    One row gives an ``int``, a batch an ``int32`` array of length n. Raises
    :class:`CardParseError` for an id outside 0..51, a card twice in a row, a wrong shape
    or non-integer ids (a batch is checked by the kernel, in the same pass as the lookup).
    With ``extra_suits``, rows of that deck on the copies scale (module docstring).
    """
    from evaluator import _kernels as k

    if extra_suits:
        return _evaluate_copies(cards, 5, extra_suits)
    rows, single = _batch(cards, 5)
    warmup()
    t = get_tables()
    out = np.empty(len(rows), np.int32)
    bad = k._eval5_checked(rows, t.multi5, t.flush5, out)
    if bad >= 0:
        _raise_bad_row(rows, bad)
    return int(out[0]) if single else out


def evaluate3(cards: Rows, extra_suits: str = "") -> int | np.ndarray:
    """Strength of 3-card front rows, on the same scale as :func:`evaluate5` (same checks)."""
    from evaluator import _kernels as k

    if extra_suits:
        return _evaluate_copies(cards, 3, extra_suits)
    rows, single = _batch(cards, 3)
    warmup()
    t = get_tables()
    out = np.empty(len(rows), np.int32)
    bad = k._eval3_checked(rows, t.multi3, out)
    if bad >= 0:
        _raise_bad_row(rows, bad)
    return int(out[0]) if single else out


def subset_strengths(
    hand: str | Sequence[int] | np.ndarray, extra_suits: str = ""
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(sorted hand, strengths of its 1,287 five-card subsets, of its 286 three-card subsets).

    Subset ``i`` is the cards at positions ``COMB5[i]`` (``COMB3[i]``) of the sorted hand.
    With ``extra_suits``: a hand of that deck, sorted by face (a first copy before its
    second), on the copies scale.
    """
    from evaluator import _kernels as k

    warmup()
    if extra_suits:
        ids = parse_hand(hand, extra_suits)
        h = ids[np.lexsort((ids, faces_of(ids)))]
        faces = faces_of(h)
        d = _lookups(extra_suits)
        s5 = np.empty(1287, np.int16)
        s3 = np.empty(286, np.int16)
        k._subset_pass(faces, d.multi5, d.flush5, d.multi3, s5, s3)
        return h, s5, s3
    h = np.sort(parse_hand(hand))
    t = get_tables()
    s5 = np.empty(1287, np.int16)
    s3 = np.empty(286, np.int16)
    k._subset_pass(h, t.multi5, t.flush5, t.multi3, s5, s3)
    return h, s5, s3


def _check_strength(strength: int, extra_suits: str = "") -> int:
    """An integer strength in range (a float, a bool or a string is an error, not
    truncated): ValueError."""
    from evaluator.cards import _index

    n = NSTRENGTH_COPIES if extra_suits else NSTRENGTH
    return _index(strength, "strength", n - 1, f"out of range 0..{n - 1}", ValueError)


def _scale(extra_suits: str) -> Tables | DeckTables:
    return get_deck_tables() if extra_suits else get_tables()


def category(strength: int, extra_suits: str = "") -> int:
    """Category of a strength: 0 high card .. 8 straight flush (see CATEGORY_NAMES), and
    9 five of a kind on the copies scale (``extra_suits``; CATEGORY_NAMES_COPIES)."""
    return int(_scale(extra_suits).category[_check_strength(strength, extra_suits)])


def category_name(strength: int, extra_suits: str = "") -> str:
    """Category name of a strength, e.g. ``"two pair"``."""
    return CATEGORY_NAMES_COPIES[category(strength, extra_suits)]


def is_royal(strength: int, extra_suits: str = "") -> bool:
    """Whether the strength is the royal flush."""
    return bool(_scale(extra_suits).royal[_check_strength(strength, extra_suits)])
