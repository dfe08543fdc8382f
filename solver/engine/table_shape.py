"""The table's shape: the deck, how many players sit down, the rows of a hand.

Every other module reads these names instead of writing the numbers down
(``tests/test_table_shape.py`` fails on a literal 52, a 2-to-4 player bound or a 64-bit
card mask anywhere else, outside the kernels' documented places). Today's 52-card deck,
``STANDARD_DECK``, is the default and the only deck built; a bigger deck (added suits,
copies, jokers) starts here (docs/architecture.md#the-tables-shape).

A card id is ``rank * suits + suit`` within one copy of the deck, and ``copy * (ranks *
suits)`` more for the copies after the first (``evaluator.cards``: rank 0 the deuce,
12 the ace; suit 0..3 clubs, diamonds, hearts, spades). A hand's cards fit one
``uint64`` mask (bit ``c`` for card ``c``) while the deck has at most 64 cards.

Standard library only: ``capsa --help`` imports it (through ``solver.engine.rules``).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "HAND_SIZE",
    "MAX_OPPONENTS",
    "MASK_BITS",
    "MASK_DTYPE",
    "MAX_PLAYERS",
    "MIN_OPPONENTS",
    "MIN_PLAYERS",
    "ROW_SIZES",
    "STANDARD_DECK",
    "Deck",
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


@dataclass(frozen=True)
class Deck:
    """A deck: ``ranks`` ranks (deuce to ace) in ``suits`` suits, ``copies`` times."""

    ranks: int = 13
    suits: int = 4
    copies: int = 1

    def __post_init__(self) -> None:
        if min(self.ranks, self.suits, self.copies) < 1 or self.size > MASK_BITS:
            raise ValueError(f"a deck of 1 to {MASK_BITS} cards, got {self}")

    @property
    def size(self) -> int:
        """The number of cards (52 for the standard deck)."""
        return self.ranks * self.suits * self.copies

    @property
    def full_mask(self) -> int:
        """Every card's bit set (bit ``c`` for card ``c``)."""
        return (1 << self.size) - 1

    def cards(self) -> range:
        """Every card id, lowest first."""
        return range(self.size)

    def rank(self, card: int) -> int:
        """The rank of card id ``card`` (0 the deuce .. ranks - 1 the ace)."""
        return card % (self.ranks * self.suits) // self.suits

    def suit(self, card: int) -> int:
        """The suit of card id ``card`` (0 .. suits - 1)."""
        return card % self.suits

    def most_players(self) -> int:
        """How many hands the deck deals at most."""
        return self.size // HAND_SIZE


#: Today's deck: 52 cards, thirteen ranks in four suits, one copy.
STANDARD_DECK = Deck()

#: Players at a table (docs/rules.md#table-size): the standard deck deals four hands.
MIN_PLAYERS = 2
MAX_PLAYERS = STANDARD_DECK.most_players()
#: Opponents a player meets: every other seat.
MIN_OPPONENTS = MIN_PLAYERS - 1
MAX_OPPONENTS = MAX_PLAYERS - 1


def players_text() -> str:
    """The bound as messages write it: ``"2 to 4"``."""
    return f"{MIN_PLAYERS} to {MAX_PLAYERS}"


def table_shape(deck: Deck = STANDARD_DECK) -> dict[str, object]:
    """The shape as ``GET /api/rules`` gives it (``table``): the page builds its players
    menu from it."""
    return {
        "deck": {
            "ranks": deck.ranks,
            "suits": deck.suits,
            "copies": deck.copies,
            "cards": deck.size,
        },
        "min_players": MIN_PLAYERS,
        "max_players": MAX_PLAYERS,
        "row_sizes": list(ROW_SIZES),
    }
