"""Card ids, parsing and formatting.

A card id is ``rank * 4 + suit``: rank 0 is the deuce and 12 the ace, suit 0..3 is
clubs, diamonds, hearts, spades (2c = 0, As = 51). Every public array of cards is a
``numpy.uint8`` array of such ids.

A deck with added suits (``extra_suits``: ``"h"``, ``"hc"``, or up to two of c, h, s in
any order, docs/rules.md#added-suits)
holds a second copy of each card of those suits: its id is the first copy's plus
``FACES`` (52), so the second ace of hearts is 102. Text writes both copies alike
(``Ah Ah``); a reader gives the first ``Ah`` of a text id 50 and the second id 102, and
the strength of a row depends on its faces (``id % FACES``) only.

A deck with jokers (the ruleset key ``jokers``, docs/rules.md#jokers) is named by its
**deck code**: the added suits' letters, then one ``X`` per joker (``"X"``, ``"XX"``,
``"hXX"``); every ``extra_suits`` argument below takes a deck code. A joker is written
``X`` (or ``x``, or 🃏); its ids are ``JOKER_IDS`` (53 and 57: second copies of the
diamonds, a suit no deck deals twice, so no card has them) and its face is the first,
``JOKER_FACE`` (53), the one face of rank ``JOKER_RANK`` (13, as ``53 // 4``), whose suit
the kernels read as wild (``evaluator.jokers``). A joker's face is an id, as a first
copy's is: a hand's faces are valid ids of its deck. ``faces_of`` turns ids into faces.
"""

from __future__ import annotations

import itertools
import operator
import re
from collections.abc import Iterable, Iterator, Sequence

import numpy as np

RANKS = "23456789TJQKA"
SUITS = "cdhs"
SUIT_SYMBOLS = "♣♦♥♠"
HAND_SIZE = 13
#: Distinct cards: a second copy's id is its face's plus FACES.
FACES = len(RANKS) * len(SUITS)
#: The ``extra_suits`` the shisanshui preset's decks add (加一色, 加二色); a deck may add
#: up to two of ``ADDABLE_SUITS`` in any order (not the diamonds: their second copies'
#: ids are the jokers').
EXTRA_SUITS = ("", "h", "hc")
ADDABLE_SUITS = "chs"
#: Jokers (鬼牌): the face every joker has, its rank (above the ace, wild in the
#: kernels), the ids of the first and the second joker, the most a deck holds, the
#: letter that writes one in a deck code and in card text.
JOKER_IDS = (53, 57)
JOKER_FACE = JOKER_IDS[0]
JOKER_RANK = JOKER_FACE // 4
MAX_JOKERS = len(JOKER_IDS)
JOKER = "X"
_JOKER_TOKENS = frozenset({"X", "x", "\U0001f0cf"})
#: How the message of a joker read on a deck without jokers ends (a front end may name
#: its own way to deal them, as the command line's ``--jokers``).
NO_JOKERS = "the deck has no jokers (set jokers = 1 or 2)"

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
_CARD = re.compile(r"[Xx\U0001f0cf]\ufe0f?|(10|[^\s,;])([^\s,;])\ufe0f?")

#: The text of every card id, 0 (2c) .. 51 (As).
_NAMES: tuple[str, ...] = tuple(r + s for r in RANKS for s in SUITS)
#: Tokens longer than this are shortened in error messages (the message stays one line).
_SHOW_MAX = 40

#: The common spellings of every card ("As", "as", "AS"), for parse_cards' quick path.
_COMMON: dict[str, int] = {
    text: r * 4 + s
    for r, rank in enumerate(RANKS)
    for s, suit in enumerate(SUITS)
    for text in (rank + suit, rank.lower() + suit, rank + suit.upper())
}

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


def _index(
    value: object,
    what: str,
    upper: int,
    span: str | None = None,
    error: type[ValueError] = CardParseError,
) -> int:
    """``value`` as an int in ``0..upper``; ``error`` for anything else (floats, bools,
    out of range), ``span`` wording the range. Numpy integer scalars are integers."""
    if isinstance(value, bool):
        raise error(f"{what} must be an integer, got {value!r}")
    try:
        i = operator.index(value)  # type: ignore[arg-type]  # any object: TypeError below
    except TypeError:
        raise error(f"{what} must be an integer, got {value!r}") from None
    if not 0 <= i <= upper:
        raise error(f"bad {what} {i}: {span or f'{what}s run from 0 to {upper}'}")
    return i


def card_id(rank: int, suit: int) -> int:
    """The id of the card with ``rank`` (0 = deuce .. 12 = ace) and ``suit`` (0..3 = c d h s).

    Raises :class:`CardParseError` for a rank or suit that is not an integer in range.
    """
    return _index(rank, "rank", 12) * 4 + _index(suit, "suit", 3)


def _check_id(cid: object) -> int:
    """A card id as an int; ``CardParseError`` unless it is an integer from 0 to 51."""
    return _index(cid, "card id", 51, "ids run from 0 (2c) to 51 (As)")


def format_card(cid: int) -> str:
    """``As`` form of one card id (an integer from 0 to 51, else ``CardParseError``); a
    joker's id (``JOKER_IDS``: its face, as a hand's faces hold it) is ``X``."""
    if not isinstance(cid, bool) and isinstance(cid, int | np.integer) and cid in JOKER_IDS:
        return JOKER
    return _NAMES[_check_id(cid)]


def format_cards(ids: Iterable[int], extra_suits: str = "") -> str:
    """Cards in ``As Kd Th`` form, in the order given; every id is checked as in
    :func:`format_card` (a numpy integer array in one pass). With ``extra_suits`` the ids
    are the deck's (``deck_ids``) and a second copy is written as its first: ``Ah Ah``."""
    if extra_suits:
        valid = set(deck_ids(extra_suits).tolist())
        flat = [int(c) for c in ids]
        outside = [c for c in flat if c not in valid]
        if outside:
            why = f"not a card of extra_suits = {extra_suits!r}"
            raise CardParseError(f"bad card id {outside[0]}: {why}")
        return " ".join(JOKER if c in JOKER_IDS else _NAMES[c % FACES] for c in flat)
    if isinstance(ids, np.ndarray) and ids.dtype.kind in "iu" and ids.ndim == 1:
        if ids.size and (int(ids.min()) < 0 or int(ids.max()) > 51) and is_joker(ids).any():
            return " ".join([format_card(c) for c in ids.tolist()])
        if ids.size and (int(ids.min()) < 0 or int(ids.max()) > 51):
            bad = int(ids[(ids < 0) | (ids > 51)][0])
            raise CardParseError(f"bad card id {bad}: ids run from 0 (2c) to 51 (As)")
        return " ".join([_NAMES[c] for c in ids.tolist()])
    return " ".join([format_card(c) for c in ids])


def _tokens(text: str) -> Iterator[str]:
    """Card tokens of a text, lazily: split by separators, and each chunk into rank+suit
    pairs. Linear in the length of the text (no slice of the rest per token), and lazy,
    so that a parser stops reading at its first error."""
    for chunk in _SEPARATORS.split(text.strip()):
        pos, end = 0, len(chunk)
        pending: str | None = None  # the token before: trailing junk may still join it
        while pos < end:
            if (
                pending is not None
                and chunk[pos] not in _RANK_OF
                and chunk[pos] not in _JOKER_TOKENS
                and not chunk.startswith("10", pos)
            ):
                pending += chunk[pos:]  # trailing junk belongs to the card before it: 'Kd!'
                break
            m = _CARD.match(chunk, pos)
            if pending is not None:
                yield pending
            if m is None:
                pending = chunk[pos:]
                break
            pending = m.group(0)
            pos = m.end()
        if pending is not None:
            yield pending


def _show(token: str) -> str:
    """A token for a one-line message: its repr, shortened when it is long."""
    if len(token) <= _SHOW_MAX:
        return repr(token)
    return f"{token[:20] + '…'!r} ({len(token):,} characters)"


def _parse_token(token: str, position: int) -> int:
    body = token.replace("\ufe0f", "")
    if body in _JOKER_TOKENS:
        return JOKER_FACE
    if body[:2] == "10":
        rank_txt, suit_txt = "10", body[2:]
    else:
        rank_txt, suit_txt = body[:1], body[1:]
    if rank_txt not in _RANK_OF:
        raise CardParseError(
            f"bad card {_show(token)} at position {position}: {_RANK_HELP}", token, position
        )
    if len(suit_txt) != 1 or suit_txt not in _SUIT_OF:
        raise CardParseError(
            f"bad card {_show(token)} at position {position}: {_SUIT_HELP}", token, position
        )
    return _RANK_OF[rank_txt] * 4 + _SUIT_OF[suit_txt]


def deck_ids(extra_suits: str = "") -> np.ndarray:
    """Every card id of the deck with ``extra_suits`` added (a deck code: its jokers
    last), lowest first (uint8)."""
    suits = _extra(extra_suits)
    second = [FACES + r * 4 + s for r in range(len(RANKS)) for s in sorted(suits)]
    jokers = JOKER_IDS[: jokers_in(extra_suits)]
    return np.array(sorted([*range(FACES), *second, *jokers]), np.uint8)


def deck_code(extra_suits: str, jokers: int) -> str:
    """The deck code of added suits and jokers: ``deck_code("h", 2) == "hXX"``."""
    return extra_suits + JOKER * jokers


def jokers_in(code: str) -> int:
    """How many jokers a deck code deals (0, 1 or 2)."""
    return code.count(JOKER)


def _extra(extra_suits: str) -> tuple[int, ...]:
    """The suit ids of a deck code's added suits; CardParseError for another value."""
    letters = extra_suits.rstrip(JOKER)
    ok = (
        len(letters) <= 2
        and len(set(letters)) == len(letters)
        and all(c in ADDABLE_SUITS for c in letters)
    )
    if not ok or jokers_in(extra_suits) > MAX_JOKERS:
        raise CardParseError(
            f"extra_suits must be up to two of the suits {ADDABLE_SUITS!r} (e.g. "
            f"{EXTRA_SUITS[1]!r}, {EXTRA_SUITS[2]!r}) and up to {MAX_JOKERS} {JOKER!r} "
            f"(jokers), got {extra_suits!r}"
        )
    return tuple(SUITS.index(c) for c in letters)


def faces_of(ids: np.ndarray) -> np.ndarray:
    """Card ids of any deck -> their faces (uint8, same shape): ``id % FACES``, and
    ``JOKER_FACE`` for a joker."""
    a = np.asarray(ids)
    return np.where(is_joker(a), JOKER_FACE, a % FACES).astype(np.uint8)


def is_joker(ids: np.ndarray | int) -> np.ndarray:
    """Whether card ids are jokers (a bool array of their shape)."""
    a = np.asarray(ids)
    return np.asarray((a == JOKER_IDS[0]) | (a == JOKER_IDS[1]))


def copies_of(faces: Sequence[int], extra_suits: str) -> list[int]:
    """Faces (ids 0..51, and ``JOKER_FACE``, in order) -> card ids on the deck with
    ``extra_suits`` (a deck code): a face's second appearance is its second copy (id +
    FACES), a joker's its second joker. CardParseError, one line, for a card more times
    than the deck holds it."""
    suits = _extra(extra_suits)
    jokers = jokers_in(extra_suits)
    seen: dict[int, int] = {}
    out = []
    for i, face in enumerate(faces, start=1):
        n = seen.get(face, 0)
        if face == JOKER_FACE:
            if n >= jokers:
                have = f"{jokers} (jokers = {jokers})" if jokers else "none (jokers = 0)"
                raise CardParseError(
                    f"{n + 1} jokers 'X': the deck holds {have}" if n else
                    f"bad card 'X' at position {i}: a joker, and {NO_JOKERS}",
                    JOKER,
                    i,
                )
            seen[face] = n + 1
            out.append(JOKER_IDS[n])
            continue
        if n and (face % 4 not in suits or n > 1):
            held = "two" if face % 4 in suits else "one"
            deck = f"extra_suits = {extra_suits!r}" if extra_suits else "the 52-card deck"
            times = "duplicate card" if n == 1 else f"{n + 1} times the card"
            raise CardParseError(
                f"{times} {_NAMES[face]!r}: {deck} holds {held} {_NAMES[face]}",
                _NAMES[face],
                i,
            )
        seen[face] = n + 1
        out.append(face + FACES * n)
    return out


def parse_cards(
    text: str, *, allow_duplicates: bool = False, extra_suits: str = ""
) -> np.ndarray:
    """Parse cards from text into a ``uint8`` id array, in the order written.

    Accepts ``As``, ``as``, ``AS``, ``10h``, ``Th`` and suit symbols ``♠♥♦♣``, separated by
    spaces, commas or nothing (``AsKdQh``). Raises :class:`CardParseError` naming the bad
    token and its 1-based position, or the duplicated card; parsing stops at the first
    error (a long text costs time in proportion to its length, at most). With
    ``extra_suits`` (``"h"``, ``"hc"``) a card of an added suit may be written twice: the
    second is its second copy (``copies_of``).
    """
    if not isinstance(text, str):
        raise CardParseError(f"expected card text, got {type(text).__name__}")
    if extra_suits:
        faces = _parse_faces(text, True)
        return np.array(copies_of(faces, extra_suits), dtype=np.uint8)
    quick = [_COMMON.get(t, -1) for t in text.split()]  # the usual spelling: one lookup each
    if -1 not in quick and (allow_duplicates or len(set(quick)) == len(quick)):
        return np.array(quick, dtype=np.uint8)
    ids = _parse_faces(text, allow_duplicates)
    if JOKER_FACE in ids:
        at = ids.index(JOKER_FACE) + 1
        written = next(itertools.islice(_tokens(text), at - 1, None))  # as the text has it
        raise CardParseError(
            f"bad card {_show(written)} at position {at}: a joker, and {NO_JOKERS}",
            written,
            at,
        )
    return np.array(ids, dtype=np.uint8)


def _parse_faces(text: str, allow_duplicates: bool) -> list[int]:
    """The faces of a card text, jokers (``JOKER_FACE``) included, in the order written."""
    ids: list[int] = []
    seen: set[int] = set()
    for i, token in enumerate(_tokens(text), start=1):
        cid = _parse_token(token, i)
        if not allow_duplicates and cid in seen and cid != JOKER_FACE:
            raise CardParseError(f"duplicate card {format_card(cid)!r}", token, i)
        seen.add(cid)
        ids.append(cid)
    return ids


def as_cards(
    cards: str | Sequence[int] | np.ndarray, n: int | None = None, extra_suits: str = ""
) -> np.ndarray:
    """Coerce text or a sequence of ids to a validated ``uint8`` array of distinct cards.

    With ``n``, the number of cards must be exactly ``n``. With ``extra_suits``, of the
    deck with those suits added (text may hold copies, ids are the deck's ids).
    """
    if extra_suits:
        if isinstance(cards, str):
            arr = parse_cards(cards, extra_suits=extra_suits)
        else:
            arr = _deck_array(cards, extra_suits)
    elif isinstance(cards, str):
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


def _deck_array(cards: Sequence[int] | np.ndarray, extra_suits: str) -> np.ndarray:
    """Ids of the deck with ``extra_suits``, distinct, as a uint8 array (else CardParseError)."""
    raw = np.asarray(cards)
    if raw.ndim != 1 or (raw.size and raw.dtype.kind not in "iu"):
        raise CardParseError(f"expected a flat sequence of card ids, got {raw.dtype} {raw.shape}")
    format_cards(raw.tolist(), extra_suits)  # every id the deck's
    arr = raw.astype(np.uint8)
    if len(np.unique(arr)) != len(arr):
        vals, counts = np.unique(arr, return_counts=True)
        raise CardParseError(f"card id {int(vals[counts > 1][0])} twice")
    return arr


def parse_hand(hand: str | Sequence[int] | np.ndarray, extra_suits: str = "") -> np.ndarray:
    """Exactly 13 distinct cards (text or ids) as a ``uint8`` array, in the order given;
    with ``extra_suits``, of that deck (``as_cards``)."""
    return as_cards(hand, HAND_SIZE, extra_suits)
