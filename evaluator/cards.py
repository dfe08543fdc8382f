"""Card ids, parsing and formatting.

A card id is ``rank * 4 + suit``: rank 0 is the deuce and 12 the ace, suit 0..3 is
clubs, diamonds, hearts, spades (2c = 0, As = 51). Every public array of cards is a
``numpy.uint8`` array of such ids.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

import numpy as np

RANKS = "23456789TJQKA"
SUITS = "cdhs"
SUIT_SYMBOLS = "♣♦♥♠"
HAND_SIZE = 13

_RANK_OF = {r: i for i, r in enumerate(RANKS)}
_RANK_OF.update({r.lower(): i for i, r in enumerate(RANKS)})
_RANK_OF["10"] = 8
_SUIT_OF = {s: i for i, s in enumerate(SUITS)}
_SUIT_OF.update({s.upper(): i for i, s in enumerate(SUITS)})
_SUIT_OF.update({s: i for i, s in enumerate(SUIT_SYMBOLS)})
# Emoji-style variants (with the variation selector) and the white suit symbols.
_SUIT_OF.update({s: i for i, s in enumerate("♧♢♡♤")})

_SEPARATORS = re.compile(r"[\s,;]+")
# A card: a rank (10 or one character) then a suit character, optionally followed by
# the U+FE0F variation selector that some keyboards add after suit symbols.
_CARD = re.compile(r"(10|[^\s,;])([^\s,;])\ufe0f?")

_SUIT_HELP = "suit must be one of c d h s ♣ ♦ ♥ ♠"
_RANK_HELP = "rank must be one of 2 3 4 5 6 7 8 9 T (or 10) J Q K A"


class CardParseError(ValueError):
    """Raised for text or ids that are not valid cards; the message names the bad token.

    ``token`` and ``position`` (1-based) are set when one token of a text is to blame.
    """

    def __init__(self, message: str, token: str | None = None, position: int | None = None):
        super().__init__(message)
        self.token = token
        self.position = position


def card_id(rank: int, suit: int) -> int:
    """The id of the card with ``rank`` (0 = deuce .. 12 = ace) and ``suit`` (0..3 = c d h s)."""
    return rank * 4 + suit


def format_card(cid: int) -> str:
    """``As`` form of one card id."""
    return RANKS[cid >> 2] + SUITS[cid & 3]


def format_cards(ids: Iterable[int]) -> str:
    """Cards in ``As Kd Th`` form, in the order given."""
    return " ".join(format_card(int(c)) for c in ids)


def _tokens(text: str) -> list[str]:
    """Split text into card tokens: by separators, and each chunk into rank+suit pairs."""
    out: list[str] = []
    for chunk in _SEPARATORS.split(text.strip()):
        if not chunk:
            continue
        pos = 0
        while pos < len(chunk):
            m = _CARD.match(chunk, pos)
            rest = chunk[pos:]
            if pos and rest[0] not in _RANK_OF and not rest.startswith("10"):
                out[-1] += rest  # trailing junk belongs to the card before it: 'Kd!'
                break
            if m is None:
                out.append(rest)
                break
            out.append(m.group(0))
            pos = m.end()
    return out


def _parse_token(token: str, position: int) -> int:
    body = token.replace("\ufe0f", "")
    if body[:2] == "10":
        rank_txt, suit_txt = "10", body[2:]
    else:
        rank_txt, suit_txt = body[:1], body[1:]
    if rank_txt not in _RANK_OF:
        raise CardParseError(
            f"bad card {token!r} at position {position}: {_RANK_HELP}", token, position
        )
    if len(suit_txt) != 1 or suit_txt not in _SUIT_OF:
        raise CardParseError(
            f"bad card {token!r} at position {position}: {_SUIT_HELP}", token, position
        )
    return card_id(_RANK_OF[rank_txt], _SUIT_OF[suit_txt])


def parse_cards(text: str, *, allow_duplicates: bool = False) -> np.ndarray:
    """Parse cards from text into a ``uint8`` id array, in the order written.

    Accepts ``As``, ``as``, ``AS``, ``10h``, ``Th`` and suit symbols ``♠♥♦♣``, separated by
    spaces, commas or nothing (``AsKdQh``). Raises :class:`CardParseError` naming the bad
    token and its 1-based position, or the duplicated card.
    """
    if not isinstance(text, str):
        raise CardParseError(f"expected card text, got {type(text).__name__}")
    ids: list[int] = []
    seen: set[int] = set()
    for i, token in enumerate(_tokens(text), start=1):
        cid = _parse_token(token, i)
        if not allow_duplicates and cid in seen:
            raise CardParseError(f"duplicate card {format_card(cid)!r}", token, i)
        seen.add(cid)
        ids.append(cid)
    return np.array(ids, dtype=np.uint8)


def as_cards(cards: str | Sequence[int] | np.ndarray, n: int | None = None) -> np.ndarray:
    """Coerce text or a sequence of ids to a validated ``uint8`` array of distinct cards.

    With ``n``, the number of cards must be exactly ``n``.
    """
    if isinstance(cards, str):
        arr = parse_cards(cards)
    else:
        try:
            raw = np.asarray(cards)
        except (TypeError, ValueError) as exc:  # ragged input
            raise CardParseError(f"not a card sequence: {exc}") from None
        if raw.ndim != 1:
            raise CardParseError(f"expected a flat sequence of card ids, got shape {raw.shape}")
        if raw.size and raw.dtype.kind not in "iu":
            if raw.dtype.kind == "U" or raw.dtype == object:
                return as_cards(" ".join(str(x) for x in raw.tolist()), n)
            raise CardParseError(f"card ids must be integers, got {raw.dtype}")
        if raw.size and (raw.min() < 0 or raw.max() > 51):
            bad = int(raw[(raw < 0) | (raw > 51)][0])
            raise CardParseError(f"bad card id {bad}: ids run from 0 (2c) to 51 (As)")
        arr = raw.astype(np.uint8)
        if len(np.unique(arr)) != len(arr):
            vals, counts = np.unique(arr, return_counts=True)
            raise CardParseError(f"duplicate card {format_card(int(vals[counts > 1][0]))!r}")
    if n is not None and len(arr) != n:
        raise CardParseError(f"expected {n} cards, got {len(arr)}")
    return arr


def parse_hand(hand: str | Sequence[int] | np.ndarray) -> np.ndarray:
    """Exactly 13 distinct cards (text or ids) as a ``uint8`` array, in the order given."""
    return as_cards(hand, HAND_SIZE)
