"""What the jokers of a row stand for, as the page shows it (``POST /api/rows``: ``jokers``).

A joker stands for whichever card makes its row strongest, and may copy a card in play,
though a row holds no card more than twice (docs/rules.md#jokers); the evaluator names
those cards (``evaluator.jokers.stand_ins``, at the ruleset's wheel). The row is then
valued as those cards make it, on the copies scale: at a table whose wheel ranks second
a joker beside 2 3 4 5 makes the wheel, not the six-high straight the 52-card wheel
makes of it.

A row that holds a copy of a spade or a diamond is valued with its suits renamed so
that the copied suits are hearts and clubs, the suits a deck with added suits deals
twice (no suit order where jokers play: a row's strength does not depend on which suit
is which).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from evaluator import FACES, JOKER_FACE, evaluate3, evaluate5, format_cards
from evaluator.cards import copies_of
from evaluator.jokers import stand_ins
from solver.engine.table_shape import STANDARD_DECK

__all__ = ["joker_row"]

#: The deck code whose ids a row with copies is written in: copies of hearts and clubs.
_COPIES = "hc"


def _copies_ids(faces: Sequence[int]) -> list[int]:
    """Faces (each at most twice) as ids of the ``"hc"`` deck, suits renamed so that
    every face held twice is a heart or a club."""
    counts = Counter(faces)
    suit = STANDARD_DECK.suit
    doubled = list(dict.fromkeys(suit(f) for f in faces if counts[f] > 1))
    rename = dict(zip(doubled, (2, 0), strict=False))
    free = iter(s for s in range(4) if s not in rename.values())
    for s in range(4):
        if s not in rename:
            rename[s] = next(free)
    seen: set[int] = set()
    out = []
    for f in faces:
        g = f - suit(f) + rename[suit(f)]
        out.append(g + FACES if g in seen else g)
        seen.add(g)
    return out


def joker_row(faces: Sequence[int], deck_code: str, wheel: str) -> tuple[str, int] | None:
    """The cards a complete row's jokers stand for (``"Ts"``, ``"As Ah"``) and the row's
    strength on the copies scale then; None when the row holds no joker. ``faces``: the
    row's faces, a joker's ``JOKER_FACE``, of the deck ``deck_code``."""
    if JOKER_FACE not in faces:
        return None
    stand = stand_ins(copies_of(list(faces), deck_code), deck_code, wheel)
    row = [f for f in faces if f != JOKER_FACE] + list(stand)
    ids = _copies_ids(row)
    strength = evaluate5(ids, _COPIES) if len(row) == 5 else evaluate3(ids, _COPIES)
    return format_cards(stand), int(strength)
