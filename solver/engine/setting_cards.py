"""A setting's cards as play reads them: rows parsed, checked, and turned into faces.

Play compares cards by their **face** (``id % FACES``, docs/rules.md#added-suits): on the
52-card deck a face is the card id itself; on a deck with added suits (``extra_suits``
``"h"``, ``"hc"``) both copies of a card have the same face, so a setting or a hand
reaches the kernels as 13 faces, sorted or in row order, with a face twice where the
player holds both copies. Every rank and suit count the kernels make is the same on
faces (``face >> 2``, ``face & 3``). What is checked here is what text cannot say alone:
that a card appears no more often than the deck holds it, within one setting and across
a table (``check_copies``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np

from evaluator import CardParseError, as_cards, format_card, format_cards
from evaluator.cards import copies_of, faces_of
from solver.engine.layout import ROWS

__all__ = ["check_copies", "hand_faces", "parse_setting"]


def _row_of(pos: int) -> str:
    return "front" if pos < 3 else "middle" if pos < 8 else "back"


def _check_distinct(flat: np.ndarray, who: str) -> None:
    seen: dict[int, int] = {}
    for pos, c in enumerate(flat.tolist()):
        if c in seen:
            where = _row_of(seen[c]), _row_of(pos)
            rows = where[0] if where[0] == where[1] else f"{where[0]} and {where[1]}"
            raise CardParseError(f"{who}: duplicate card {format_card(c)!r} ({rows})")
        seen[c] = pos


def _faces(cards: Any, extra_suits: str) -> np.ndarray:
    """One row's (or a flat setting's) cards as faces: text may write a copy twice, ids
    are the deck's (a second copy ``face + FACES``)."""
    if isinstance(cards, str):
        return faces_of(as_cards(cards, extra_suits=extra_suits))
    raw = np.asarray(cards)
    if raw.ndim != 1 or (raw.size and raw.dtype.kind not in "iu"):
        if raw.ndim == 1 and (raw.dtype.kind == "U" or raw.dtype == object):
            return _faces(" ".join(str(x) for x in raw.tolist()), extra_suits)
        raise CardParseError(f"expected a flat sequence of card ids, got {raw.dtype} {raw.shape}")
    format_cards(raw.tolist(), extra_suits)  # every id the deck's (faces are)
    faces = faces_of(raw)
    check_copies(faces, extra_suits)  # faces or ids: each no more than the deck holds
    return faces


def check_copies(faces: Sequence[int] | np.ndarray, extra_suits: str, who: str = "") -> None:
    """CardParseError, one line naming ``who`` and the card, when a face appears more
    often than the deck with ``extra_suits`` holds it (all the cards of a setting, or of
    a whole table)."""
    try:
        copies_of(sorted(int(c) for c in faces), extra_suits)
    except CardParseError as exc:
        raise CardParseError(f"{who}: {exc}" if who else str(exc)) from None


def hand_faces(hand: Any, extra_suits: str) -> np.ndarray:
    """A hand of the deck with ``extra_suits`` (text or the deck's ids) as its 13 faces,
    sorted low to high (CardParseError for a bad card or one copy too many)."""
    faces = _faces(hand, extra_suits)
    if len(faces) != 13:
        raise CardParseError(f"expected 13 cards, got {len(faces)}")
    return np.sort(faces)


def parse_setting(setting: Any, who: str = "setting", extra_suits: str = "") -> np.ndarray:
    """A validated setting as uint8[13]: front(3) + middle(5) + back(5).

    Accepts the text ``"front | middle | back"``, a (front, middle, back) triple of ids or
    text, or 13 cards (ids or text) in front, middle, back order. CardParseError names
    ``who``, the row and the card that is wrong. With ``extra_suits`` the cards are the
    deck's (a copy may be written twice) and the setting is given as faces.
    """
    if isinstance(setting, str) and "|" in setting:
        texts = setting.split("|")
        if len(texts) != 3:
            raise CardParseError(
                f"{who}: a setting is 'front | middle | back' (3 rows), got {len(texts)} rows"
            )
        setting = texts
    if isinstance(setting, str) or (
        isinstance(setting, np.ndarray) and setting.ndim == 1 and setting.shape[0] == 13
    ):
        return _flat(setting, who, extra_suits)
    try:
        n = len(setting)
    except TypeError:
        raise CardParseError(
            f"{who}: a setting is a (front, middle, back) triple of cards, "
            f"got {type(setting).__name__}"
        ) from None
    if n == 13:  # 13 cards (ids or card strings) in front, middle, back order
        return _flat(list(setting), who, extra_suits)
    if n != 3:
        raise CardParseError(
            f"{who}: a setting is a (front, middle, back) triple of cards, got {n} items"
        )
    rows: list[np.ndarray] = []
    for name, size, cards in zip(ROWS, (3, 5, 5), setting, strict=True):
        try:
            arr = _faces(cards, extra_suits) if extra_suits else as_cards(cards)
        except CardParseError as exc:
            raise CardParseError(f"{who} {name}: {exc}") from None
        if len(arr) != size:
            raise CardParseError(f"{who} {name}: expected {size} cards, got {len(arr)}")
        rows.append(arr)
    flat = np.concatenate(rows)
    if extra_suits:
        check_copies(flat, extra_suits, who)
    else:
        _check_distinct(flat, who)
    return flat


def _flat(cards: Any, who: str, extra_suits: str) -> np.ndarray:
    """13 cards in front, middle, back order (text or ids), checked."""
    try:
        flat = _faces(cards, extra_suits) if extra_suits else as_cards(cards)
    except CardParseError as exc:
        raise CardParseError(f"{who}: {exc}") from None
    if len(flat) != 13:
        raise CardParseError(
            f"{who}: a setting is 13 cards (front 3, middle 5, back 5), got {len(flat)}"
        )
    return flat


def count_faces(flats: np.ndarray) -> Counter[int]:
    """How many times each face appears in the settings or hands ``flats``."""
    return Counter(np.asarray(flats).ravel().tolist())
