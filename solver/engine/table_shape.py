"""The table's shape: the deck, how many players sit down, the rows of a hand.

Every other module reads these names instead of writing the numbers down
(``tests/test_table_shape.py`` fails on a literal 52, a 2-to-4 player bound or a 64-bit
card mask anywhere else, outside the kernels' documented places). The 52-card deck,
``STANDARD_DECK``, is the default; ``DECKS`` adds the decks of the ruleset key
``extra_suits`` (docs/rules.md#added-suits): ``"h"`` deals the hearts twice (65 cards),
``"hc"`` the hearts and the clubs (78). A ruleset with added suits seats up
to ``TABLE_MAX_PLAYERS`` (docs/architecture.md#the-tables-shape).

A card id is ``rank * suits + suit`` for the first copy of a card and ``ranks * suits``
more for its second copy (``evaluator.cards``: rank 0 the deuce, 12 the ace; suit 0..3
clubs, diamonds, hearts, spades): the second ace of hearts is 52 + 50 = 102. Copies
differ by id and are equal in play (``Deck.face``). A hand's cards fit one ``uint64``
mask (bit ``c`` for card ``c``) only while every id is below 64 (``Deck.fits_mask``).

Standard library only: ``capsa --help`` imports it (through ``solver.engine.rules``).
"""

from __future__ import annotations

from dataclasses import dataclass

#: Jokers' card ids and their face (as evaluator.cards spells them: 53 and 57, second
#: copies of diamonds, which no deck deals; the face is the first, of rank 13).
JOKER_IDS = (53, 57)
JOKER_FACE = JOKER_IDS[0]

__all__ = [
    "HAND_SIZE",
    "MAX_OPPONENTS",
    "MASK_BITS",
    "MASK_DTYPE",
    "MAX_PLAYERS",
    "MIN_OPPONENTS",
    "DECKS",
    "EXTRA_SUITS",
    "TABLE_MAX_PLAYERS",
    "MIN_PLAYERS",
    "ROW_SIZES",
    "STANDARD_DECK",
    "Deck",
    "deck_of",
    "players_text",
    "table_shape",
]

#: The rows' sizes, front, middle and back (docs/rules.md).
ROW_SIZES: tuple[int, int, int] = (3, 5, 5)
#: Cards in a hand: one per row place.
HAND_SIZE = sum(ROW_SIZES)
#: A set of cards as one number, bit ``c`` for card ``c``: numpy's little-endian uint64
#: (the opponent pool's masks, in memory and on disk), so a deck has at most 64 cards.
MASK_DTYPE = "<u8"
MASK_BITS = 64


#: Suit letters in id order (suit 0 clubs .. 3 spades), as ``evaluator.cards`` spells them.
SUIT_LETTERS = "cdhs"


@dataclass(frozen=True)
class Deck:
    """A deck: ``ranks`` ranks (deuce to ace) in ``suits`` suits, and the suits of
    ``extra_suits`` (suit ids) dealt a second time."""

    ranks: int = 13
    suits: int = 4
    extra_suits: tuple[int, ...] = ()
    #: Jokers (鬼牌, docs/rules.md#jokers): 0, 1 or 2, each wild, dealt as any card.
    jokers: int = 0

    def __post_init__(self) -> None:
        extra = self.extra_suits
        if (
            min(self.ranks, self.suits) < 1
            or len(set(extra)) != len(extra)
            or any(not 0 <= s < self.suits for s in extra)
            or not 0 <= self.jokers <= len(JOKER_IDS)
        ):
            raise ValueError(f"a deck of ranks and suits, each extra suit once, got {self}")

    @property
    def faces(self) -> int:
        """Distinct cards (52 for every deck of thirteen ranks in four suits)."""
        return self.ranks * self.suits

    @property
    def size(self) -> int:
        """The number of cards (52 for the standard deck, 65 and 78 with added suits, and
        one more a joker)."""
        return self.ranks * (self.suits + len(self.extra_suits)) + self.jokers

    @property
    def copies(self) -> int:
        """The most copies of any one card (1, or 2 with an added suit)."""
        return 2 if self.extra_suits else 1

    @property
    def wild(self) -> bool:
        """Whether rows are valued on the copies scale (evaluator.decks): the deck deals a
        card twice or a joker (a joker may copy a card in play)."""
        return self.copies > 1 or self.jokers > 0

    @property
    def two_masks(self) -> bool:
        """Whether a hand may hold a face twice (an added suit, or both jokers): the
        opponent pool then keeps each hand's cards as two masks over the faces, the first
        copies and the second copies (docs/pool.md#bigger-decks)."""
        return self.copies > 1 or self.jokers > 1

    def mask_faces(self) -> list[int]:
        """The faces a hand's mask may hold (bit f for face f): the 52, and the jokers'."""
        return [*range(self.faces), *([JOKER_FACE] if self.jokers else [])]

    def twice_faces(self) -> list[int]:
        """The faces the deck holds twice (a second mask's bits): an added suit's, and the
        jokers' when there are two."""
        twice = [f for f in range(self.faces) if self.copies_of(f) > 1]
        return [*twice, *([JOKER_FACE] if self.jokers > 1 else [])]

    def is_second(self, card: int) -> bool:
        """Whether card id ``card`` is a second copy of its face (an added suit's card,
        or the second joker)."""
        return card >= self.faces and card != JOKER_IDS[0]

    @property
    def fits_mask(self) -> bool:
        """Whether every card id is below ``MASK_BITS`` (a hand fits one uint64 mask)."""
        return max(self.cards()) < MASK_BITS

    @property
    def full_mask(self) -> int:
        """Every card's bit set (bit ``c`` for card ``c``), as a Python int."""
        return sum(1 << c for c in self.cards())

    def cards(self) -> list[int]:
        """Every card id, lowest first: the first copies, the second copies and the
        jokers."""
        second = [
            self.faces + r * self.suits + s
            for r in range(self.ranks)
            for s in sorted(self.extra_suits)
        ]
        return sorted([*range(self.faces), *second, *JOKER_IDS[: self.jokers]])

    @property
    def of_a_rank(self) -> int:
        """Cards of one rank: 4, or 5 and 6 with one and two added suits."""
        return self.suits + len(self.extra_suits)

    def of_a_suit(self, suit: int) -> int:
        """Cards of suit id ``suit``: 13, or 26 for a suit dealt twice."""
        return self.ranks * self.copies_of(suit)

    def face_copies(self) -> list[int]:
        """How many copies of each face (card id ``0 .. faces - 1``) the deck holds."""
        return [self.copies_of(f) for f in range(self.faces)]

    def face(self, card: int) -> int:
        """The card id of ``card``'s first copy: copies compare equal by their face; a
        joker's face is ``JOKER_FACE``."""
        return JOKER_FACE if card in JOKER_IDS else card % self.faces

    def copies_of(self, face: int) -> int:
        """How many copies of the card with id ``face`` the deck holds (1 or 2)."""
        return 2 if face % self.suits in self.extra_suits else 1

    def rank(self, card: int) -> int:
        """The rank of card id ``card`` (0 the deuce .. ranks - 1 the ace; a joker's is
        ``ranks``, above the ace)."""
        return self.face(card) // self.suits

    def suit(self, card: int) -> int:
        """The suit of card id ``card`` (0 .. suits - 1)."""
        return card % self.suits

    def most_players(self) -> int:
        """How many hands the deck deals at most."""
        return self.size // HAND_SIZE

    @property
    def extra_letters(self) -> str:
        """The ruleset's ``extra_suits`` of this deck (``""``, ``"h"``, ``"hc"``, ``"c"``
        ...), its suits in the order added."""
        return "".join(SUIT_LETTERS[s] for s in self.extra_suits)

    @property
    def code(self) -> str:
        """The deck code the card functions take (evaluator.cards): the added suits'
        letters and an ``X`` per joker (``"hXX"``)."""
        return self.extra_letters + "X" * self.jokers


#: The standard deck: 52 cards, thirteen ranks in four suits, one copy.
STANDARD_DECK = Deck()

#: The ruleset key ``extra_suits`` -> its suits (ids), as atom-chen/ShiSanShuiServer's
#: ``script_thirteen/core/card_define.lua`` deals them: ``GStars_One_Color`` (加一色, the
#: hearts again) and ``GStars_Two_Color`` (加二色, hearts and clubs); the decks the
#: ``shisanshui`` preset seats five and six at, and the ones messages suggest.
EXTRA_SUITS: dict[str, tuple[int, ...]] = {"": (), "h": (2,), "hc": (2, 0)}
#: Each of those values' deck.
DECKS: dict[str, Deck] = {k: Deck(extra_suits=v) for k, v in EXTRA_SUITS.items()}
#: The suits a deck may deal twice, in any order and up to two of them (other copies of
#: that server add clubs, then hearts): not the diamonds, whose second copies' ids are the
#: jokers' (``JOKER_IDS``), docs/rules.md#added-suits.
ADDABLE_SUITS = "chs"
#: The most suits a deck adds (78 cards: six hands).
MAX_EXTRA_SUITS = 2


def extra_suit_ids(letters: str) -> tuple[int, ...] | None:
    """The suit ids of an ``extra_suits`` value, in its order (``"ch"`` -> (0, 2)), or
    None when it is not up to ``MAX_EXTRA_SUITS`` distinct letters of ``ADDABLE_SUITS``."""
    if (
        len(letters) > MAX_EXTRA_SUITS
        or len(set(letters)) != len(letters)
        or any(c not in ADDABLE_SUITS for c in letters)
    ):
        return None
    return tuple(SUIT_LETTERS.index(c) for c in letters)


def deck_of(extra_suits: str, jokers: int = 0) -> Deck:
    """The deck of an ``extra_suits`` value (``""``, ``"h"``, ``"hc"``, ``"c"``, ``"ch"``
    ...: ``extra_suit_ids``; KeyError else) with ``jokers``; ``extra_suits`` may also be a
    deck code (``"hXX"``)."""
    letters = extra_suits.rstrip("X")
    jokers += len(extra_suits) - len(letters)
    deck = DECKS.get(letters)
    if deck is None:
        ids = extra_suit_ids(letters)
        if ids is None:
            raise KeyError(letters)
        deck = Deck(extra_suits=ids)
    return Deck(extra_suits=deck.extra_suits, jokers=jokers) if jokers else deck


#: Players at a table (docs/rules.md#table-size): the standard deck deals four hands; a
#: ruleset may seat up to ``TABLE_MAX_PLAYERS`` (the biggest deck's hands) with added
#: suits, and a preset seats five and six on them (solver.engine.seating).
MIN_PLAYERS = 2
MAX_PLAYERS = STANDARD_DECK.most_players()
TABLE_MAX_PLAYERS = max(d.most_players() for d in DECKS.values())
#: Opponents a player meets: every other seat.
MIN_OPPONENTS = MIN_PLAYERS - 1
MAX_OPPONENTS = MAX_PLAYERS - 1


def players_text(most: int = MAX_PLAYERS) -> str:
    """The bound as messages write it: ``"2 to 4"`` (``most``: the largest)."""
    return f"{MIN_PLAYERS} to {most}"


def table_shape(deck: Deck = STANDARD_DECK) -> dict[str, object]:
    """The shape as ``GET /api/rules`` gives it (``table``): the page builds its players
    menu from it."""
    return {
        "deck": {
            "ranks": deck.ranks,
            "suits": deck.suits,
            "copies": deck.copies,
            "extra_suits": deck.extra_letters,
            "cards": deck.size,
            "jokers": deck.jokers,
        },
        "min_players": MIN_PLAYERS,
        "max_players": MAX_PLAYERS,
        "row_sizes": list(ROW_SIZES),
    }
