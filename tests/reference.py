"""Slow, obviously correct reference implementation of the game (the test oracle).

Written straight from the game's specification, docs/rules.md, in pure Python (the
standard library only), and independent of ``evaluator`` and ``solver``: every fast
kernel in the project is tested against these functions, so they favour clarity over
speed. Two of them remember what they computed (``functools.lru_cache``): a row's key
(``_cmp_key``) and a hand's natural (``_natural_key``), which the brute forces and the
tests ask for again and again; each is a function of its arguments alone.

Cards are ids ``rank * 4 + suit`` (rank 0 = deuce .. 12 = ace; suit 0 = c, 1 = d, 2 = h,
3 = s). Any sequence of ints (tuples, lists, numpy arrays) is accepted; ``ref_cards`` turns
text such as ``"As Kd Th"`` into ids for hand-written tests.

Decks with added suits (docs/rules.md#added-suits): a second copy of a card is the id
``52 + rank * 4 + suit``, only for a suit the deck deals twice (``RefDeck`` lists the
deck and reads text with copies). Rows of these decks play by the same keys: five of a
kind is the category ``FIVE_OF_A_KIND`` above the straight flush, and a flush that holds
a pair or two pairs stays a flush, ranked by its number of pairs first
(docs/rules.md#flushes-with-pairs).

Functions that need a ruleset take a ``rules`` object, duck-typed: it needs the attributes
of ``solver.engine.rules.Rules`` (docs/rules.md#ruleset-files): ``scoring``, ``scoop_multiplier``,
``royalty_mode``, ``one_royalty_per_hand``, ``suit_order``, ``wheel``, ``royalties``
(tuple of ``(row, hand, units)``) and ``naturals`` (tuple of ``(name, units)``);
``royalties_dealt`` is read with ``getattr(rules, "royalties_dealt", False)``.

Row keys
--------
``ref_key5`` / ``ref_key3`` return ``(category, tiebreak)`` tuples on ONE scale: higher is
stronger, compare with ``<``. ``tiebreak`` lists one rank per rank group, the biggest
group first and higher ranks first within equal-sized groups, so it has the same length
for every hand of a category; a flush's starts with the number of pairs it holds (0 but
with added suits). A front row is padded with ``PAD = -1`` ("two more kickers
below a deuce"), which puts it just below every 5-card row with the same leading ranks:
front K K 5 -> (1, (11, 3, -1, -1)) < middle K K 5 3 2 -> (1, (11, 3, 1, 0)).

Interpretations made here, each explained under "Interpretations" in docs/rules.md (the
anchor follows each one):
  * royalty_replaces_row, natural_ties, foul_penalty and equal_rows_foul (the keys of
    tables as the apps pay them) are read with ``getattr`` and their defaults: a won row
    that earns a paid royalty R is worth R in place of 1
    (docs/rules.md#whole-rows-and-the-parts-of-a-value); a flat penalty is all a fouled
    hand pays (docs/rules.md#a-flat-foul-is-all-the-foul-pays);
    by payout, equal payouts tie whatever the naturals (docs/rules.md#equal-payouts-tie);
    by difference, two naturals settle by their payouts' difference; under equal_rows_foul
    a row the next one does not beat as gameBinh orders them fouls (``_beaten_by_next``,
    docs/rules.md#equal-rows-as-gamebinh-compares-them).
  * one_royalty_per_hand: a player's royalties are first reduced, from the hand alone,
    to its single largest one (on equal values the back is kept before the middle before
    the front); the royalty mode then decides whether it is paid.
    (docs/rules.md#one-royalty-per-hand-from-the-hand-alone)
  * a fouled hand's own royalties are void: it collects nothing, and in "cancel" mode they
    do not cancel the legal opponent's royalties. (docs/rules.md#fouled-royalties-are-void)
  * "cancel" is decided row by row: a row's royalty is not paid when both players' hands
    earn a royalty in that same row. (docs/rules.md#cancel-is-row-by-row)
  * naturals ignore the suit order (a full tie pays nothing); a straight flush counts as a
    straight for three straights and as a flush for three flushes.
    (docs/rules.md#natural-tie-keys, docs/rules.md#qualifying-splits-for-naturals)
  * every natural is tested on its own definition; a hand holding several is the first
    of the ruleset's list (docs/rules.md#overlapping-naturals); all high and all low both
    hold the 8 (docs/rules.md#all-high-and-all-low); twelve of one colour holds 12 or 13
    (docs/rules.md#twelve-of-one-colour).
  * the banker's table (docs/rules.md#the-pair-cap-and-its-order): a scoop's ``scoop_bonus``
    comes after the scoop multiplier, then ``pair_cap`` holds the pair's rows, scoop and
    naturals (not a surrender's cost); the home run and the code card multiply after
    the cap, the player's multiple last.
  * royalties_dealt (docs/rules.md#royalties-for-dealt-cards): the combinations are every
    four of a kind and every straight flush among the 13 cards
    (docs/rules.md#dealt-combinations); the player is paid for card-disjoint ones with the
    largest total (docs/rules.md#disjoint-dealt-combinations), each at the back row's line
    (docs/rules.md#dealt-royalties-use-the-back-line), collected from every opponent
    whoever wins the rows, never cancelled, inside the scoop multiplier
    (docs/rules.md#dealt-royalties-are-always-paid), void when the hand fouls
    (docs/rules.md#dealt-royalties-and-fouls); rows then earn nothing for those hands
    (docs/rules.md#rows-under-dealt-royalties). With one_royalty_per_hand the hand keeps
    the single largest of all its royalties, a dealt one before a row one of the same
    size, so the best single combination is the pick
    (docs/rules.md#dealt-royalties-and-one-royalty-per-hand).
  * stakes: ``ref_best_setting`` maximises ``sum(stake_j * units_j)``; ties keep the
    first split. (docs/rules.md#staked-best-setting)
  * the home run (``ref_settle_table``) is settled per table: a player scoops another
    when it is legal and wins all three rows or the other fouled, under every scoring
    system (docs/rules.md#a-home-run-is-three-rows-won); a player who surrendered is out
    of the hand, neither scooped nor counted among the opponents, and a surrender is
    never multiplied (docs/rules.md#surrender-and-the-home-run); a declared natural at
    the table stops it (docs/rules.md#declared-naturals-stop-the-home-run); the
    multiplier multiplies each pair's whole net settlement, royalties of every kind
    included, even when that net is not the scooper's gain
    (docs/rules.md#home-run-on-the-net, docs/rules.md#home-run-and-royalties).
  * the code card (``_code_factor``): a pair in which either player holds the card named
    by ``code_card`` is worth ``code_card_multiplier`` times its settlement, naturals,
    surrender and the home run included; when both hold a copy, multiplied once under
    ``code_card_both = "once"`` and not at all under ``"neither"``
    (docs/rules.md#the-code-card-multiplies-the-whole-pair). A table entry shows no
    cards when it declares or surrenders: ``holder`` names such a seat.
"""

from __future__ import annotations

import functools
import itertools
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from typing import NamedTuple

RANKS = "23456789TJQKA"
SUITS = "cdhs"
PAD = -1  # the imaginary kickers of a front row rank below a deuce (rank 0)

CATEGORY_NAMES = (
    "high card",
    "pair",
    "two pair",
    "three of a kind",
    "straight",
    "flush",
    "full house",
    "four of a kind",
    "straight flush",
)
HIGH_CARD, PAIR, TWO_PAIR, TRIPS, STRAIGHT, FLUSH, FULL_HOUSE, QUADS, STRAIGHT_FLUSH = range(9)
#: Five cards of one rank, possible only with added suits: above the straight flush.
FIVE_OF_A_KIND = 9
ALL_CATEGORY_NAMES = (*CATEGORY_NAMES, "five of a kind")
#: Distinct cards: a second copy is 52 + its first copy's id.
FACES = 52

ROWS = ("front", "middle", "back")
NATURAL_NAMES = (
    "royal_dragon",
    "dragon",
    "twelve_royals",
    "twelve_royals_and_one",
    "three_straight_flushes",
    "three_quads",
    "all_high",
    "all_low",
    "one_colour",
    "twelve_one_colour",
    "four_trips",
    "five_pairs_trips",
    "six_pairs",
    "three_flushes",
    "three_straights",
    "eight_of_a_kind",
    "seven_of_a_kind",
    "two_fives_trips",
    "six_of_a_kind",
)
#: Those only decks with added suits make (docs/rules.md#added-suits).
BIG_DECK_NATURALS = ("eight_of_a_kind", "seven_of_a_kind", "two_fives_trips", "six_of_a_kind")

# Royalty table hand name of each category (a royal flush is handled apart).
_ROYALTY_HAND = {
    TRIPS: "three_of_a_kind",
    FULL_HOUSE: "full_house",
    QUADS: "four_of_a_kind",
    STRAIGHT_FLUSH: "straight_flush",
    FIVE_OF_A_KIND: "five_of_a_kind",  # only with added suits
}


# --------------------------------------------------------------------------- cards


def rank_of(card: int) -> int:
    return int(card) % FACES // 4


def suit_of(card: int) -> int:
    return int(card) % 4


def ref_cards(text: str) -> tuple[int, ...]:
    """``"As Kd 10h 2c"`` -> card ids (for writing tests; no validation beyond lookup)."""
    out = []
    for token in text.replace(",", " ").split():
        rank_text, suit_text = token[:-1].upper(), token[-1].lower()
        if rank_text == "10":
            rank_text = "T"
        out.append(RANKS.index(rank_text) * 4 + SUITS.index(suit_text))
    return tuple(out)


class RefDeck:
    """A deck with the suits of ``extra_suits`` (letters of ``SUITS``) dealt twice."""

    def __init__(self, extra_suits: str = ""):
        self.extra = {SUITS.index(letter) for letter in extra_suits}
        second = [FACES + r * 4 + s for r in range(13) for s in range(4) if s in self.extra]
        self.ids = tuple(range(FACES)) + tuple(second)

    def cards(self, text: str) -> tuple[int, ...]:
        """Text -> ids of this deck: a card written again is its second copy."""
        out: list[int] = []
        for face in ref_cards(text):
            if face in out:
                if face % 4 not in self.extra or face + FACES in out:
                    raise ValueError(f"{ref_format([face])} more times than the deck holds it")
                face += FACES
            out.append(face)
        return tuple(out)


#: Jokers (docs/rules.md#jokers): the evaluator's ids of the first and second joker.
JOKER_IDS = (53, 57)


def is_joker(card: int) -> bool:
    return int(card) in JOKER_IDS


def ref_deck_cards(text: str, extra_suits: str = "", jokers: int = 0) -> tuple[int, ...]:
    """Text with jokers (``X``) -> ids: the n-th ``X`` the n-th joker id."""
    deck = RefDeck(extra_suits)
    parts = text.split()
    n = parts.count("X")
    if n > jokers:
        raise ValueError(f"{n} jokers, the deck holds {jokers}")
    real = iter(deck.cards(" ".join(p for p in parts if p != "X")))
    it = iter(JOKER_IDS)
    return tuple(next(it) if p == "X" else next(real) for p in parts)


def _best_substitution(cards: tuple[int, ...], key) -> tuple[int, ...]:
    """The row with each joker replaced by the card that makes ``key`` highest, by trying
    every card for every joker (docs/rules.md#jokers): a joker may copy a card in play,
    but a row holds no card more than twice (a joker's stand-in is given an id of its own,
    ``face + 52 * (3 + j)``, so that rows keep distinct ids)."""
    real = [c for c in cards if not is_joker(c)]
    k = len(cards) - len(real)
    best: tuple | None = None
    best_row: tuple[int, ...] = ()
    for faces in itertools.combinations_with_replacement(range(FACES), k):
        counts = Counter(c % FACES for c in real) + Counter(faces)
        if max(counts.values()) > 2:
            continue
        row = tuple(real) + tuple(f + FACES * (3 + j) for j, f in enumerate(faces))
        value = key(row)
        if best is None or value > best:
            best, best_row = value, row
    return best_row


def ref_format(cards: Iterable[int]) -> str:
    return " ".join(RANKS[rank_of(c)] + SUITS[suit_of(c)] for c in cards)


def _ints(cards: Iterable[int]) -> tuple[int, ...]:
    return tuple(int(c) for c in cards)


def _rank_groups(cards: Sequence[int]) -> list[int]:
    """Distinct ranks, biggest group first, then higher rank first."""
    counts = Counter(rank_of(c) for c in cards)
    return sorted(counts, key=lambda r: (counts[r], r), reverse=True)


def _group_sizes(cards: Sequence[int]) -> list[int]:
    return sorted(Counter(rank_of(c) for c in cards).values(), reverse=True)


# ------------------------------------------------------------------- 5-card rows


def _straight_top(ranks: set[int], wheel: str) -> float | None:
    """Comparable height of a 5-rank straight, or None when the ranks are not one.

    Normal straights: their top rank (4 = six-high .. 12 = ace-high).
    The wheel A-2-3-4-5: 3 (five-high, the lowest) with wheel="low"; 11.5 with
    wheel="second", i.e. above K-high (11) and below A-high (12).
    """
    if len(ranks) != 5:
        return None
    if ranks == {12, 0, 1, 2, 3}:
        if wheel == "low":
            return 3
        if wheel == "second":
            return 11.5
        raise ValueError(f"wheel must be 'low' or 'second', got {wheel!r}")
    if max(ranks) - min(ranks) == 4:
        return max(ranks)
    return None


#: The wheel's orders (docs/rules.md): A-2-3-4-5 the lowest straight, or second to A-K.
WHEELS = ("low", "second")


def ref_key5(cards: Sequence[int], wheel: str = "low") -> tuple:
    """Comparable key of a 5-card row (middle or back). Higher is stronger. A joker
    takes the card that makes the row strongest (``_best_substitution``)."""
    cards = _ints(cards)
    if any(is_joker(c) for c in cards):
        return ref_key5(_best_substitution(cards, lambda r: ref_key5(r, wheel)), wheel)
    if wheel not in WHEELS:
        raise ValueError(f"wheel must be 'low' or 'second', got {wheel!r}")
    return _key5(_read5(cards), wheel)


def ref_key5_orders(cards: Sequence[int]) -> dict[str, tuple]:
    """``ref_key5`` under each order of the wheel (``WHEELS``): {wheel: key}. A row
    without a joker is read once (only a straight's height depends on the order)."""
    cards = _ints(cards)
    if any(is_joker(c) for c in cards):
        return {w: ref_key5(cards, w) for w in WHEELS}
    read = _read5(cards)
    return {w: _key5(read, w) for w in WHEELS}


def _read5(cards: tuple[int, ...]) -> tuple[tuple[int, ...], list[int], bool, set[int]]:
    """What a 5-card row's key is made of: its rank groups (one rank per group, biggest
    group first, then higher rank first), their sizes (biggest first), whether it is
    one suit, and its ranks."""
    if len(cards) != 5 or len(set(cards)) != 5:
        raise ValueError(f"a 5-card row needs 5 distinct cards, got {cards}")
    counts = Counter(rank_of(c) for c in cards)
    groups = tuple(sorted(counts, key=lambda r: (counts[r], r), reverse=True))
    sizes = sorted(counts.values(), reverse=True)
    is_flush = len({suit_of(c) for c in cards}) == 1
    return groups, sizes, is_flush, set(counts)


def _key5(read: tuple[tuple[int, ...], list[int], bool, set[int]], wheel: str) -> tuple:
    """The key of a row ``_read5`` read, under ``wheel``."""
    groups, sizes, is_flush, ranks = read
    top = _straight_top(ranks, wheel)
    if sizes == [5]:
        return (FIVE_OF_A_KIND, groups)
    if top is not None and is_flush:
        return (STRAIGHT_FLUSH, (top,))
    if is_flush and sizes != [1, 1, 1, 1, 1]:  # one or two pairs of copies: a flush
        return (FLUSH, (sizes.count(2), *groups))
    if sizes == [4, 1]:
        return (QUADS, groups)
    if sizes == [3, 2]:
        return (FULL_HOUSE, groups)
    if is_flush:
        return (FLUSH, (0, *groups))
    if top is not None:
        return (STRAIGHT, (top,))
    if sizes == [3, 1, 1]:
        return (TRIPS, groups)
    if sizes == [2, 2, 1]:
        return (TWO_PAIR, groups)
    if sizes == [2, 1, 1, 1]:
        return (PAIR, groups)
    return (HIGH_CARD, groups)


def ref_key3(cards: Sequence[int]) -> tuple:
    """Comparable key of a 3-card front row, on the same scale as ``ref_key5``.

    Only trips > pair > high card; straights and flushes do not count. The tiebreak is
    padded with two PAD "kickers below a deuce" (one per missing rank group) so that it
    has the length of the 5-card tiebreak of the same category.
    """
    cards = _ints(cards)
    if any(is_joker(c) for c in cards):
        return ref_key3(_best_substitution(cards, ref_key3))
    if len(cards) != 3 or len(set(cards)) != 3:
        raise ValueError(f"a front row needs 3 distinct cards, got {cards}")
    groups = tuple(_rank_groups(cards))
    sizes = _group_sizes(cards)
    if sizes == [3]:
        return (TRIPS, groups + (PAD, PAD))  # like trips + 2 kickers
    if sizes == [2, 1]:
        return (PAIR, groups + (PAD, PAD))  # like pair + 3 kickers
    return (HIGH_CARD, groups + (PAD, PAD))  # like 5 high cards


def ref_key(cards: Sequence[int], wheel: str = "low") -> tuple:
    """``ref_key3`` for 3 cards, ``ref_key5`` for 5 cards."""
    n = len(cards)
    if n == 3:
        return ref_key3(cards)
    if n == 5:
        return ref_key5(cards, wheel)
    raise ValueError(f"a row has 3 or 5 cards, got {n}")


def ref_category5(cards: Sequence[int]) -> str:
    return ALL_CATEGORY_NAMES[ref_key5(cards)[0]]


def ref_category3(cards: Sequence[int]) -> str:
    return CATEGORY_NAMES[ref_key3(cards)[0]]


def ref_is_royal(cards: Sequence[int]) -> bool:
    """T-J-Q-K-A of one suit (a row with jokers: as its best substitution)."""
    cards = _ints(cards)
    if any(is_joker(c) for c in cards):
        cards = _best_substitution(cards, ref_key5) if len(cards) == 5 else cards
    return (
        len(cards) == 5
        and len({suit_of(c) for c in cards}) == 1
        and {rank_of(c) for c in cards} == {8, 9, 10, 11, 12}
    )


# -------------------------------------------------------------------- suit order


def _suit_strength(suit: int, suit_order: str) -> int:
    """3 for the strongest suit of ``suit_order`` (e.g. "shcd": s=3, h=2, c=1, d=0)."""
    order = suit_order.lower()
    if sorted(order) != sorted(SUITS):
        raise ValueError(f"suit_order must be 4 distinct suit letters, got {suit_order!r}")
    return 3 - order.index(SUITS[suit])


def _no_suit_order(suit_order: str | None) -> bool:
    return suit_order is None or suit_order == "" or str(suit_order).lower() == "none"


def ref_decisive_card(cards: Sequence[int], suit_order: str | None = None) -> int:
    """The card whose suit breaks ties between equal-ranked rows under a suit order.

    Its rank is the highest rank within the largest rank group (the higher pair of two
    pair, the trips of a full house; for straights, flushes and high cards the highest
    rank, so the ace of A-2-3-4-5). Among the row's cards of that rank it is the one of the
    strongest suit: under ``suit_order`` when given, else the highest card id
    (s > h > d > c, the id order). (docs/rules.md#decisive-card)
    """
    cards = _ints(cards)
    rank = _rank_groups(cards)[0]
    candidates = [c for c in cards if rank_of(c) == rank]
    if _no_suit_order(suit_order):
        return max(candidates)
    return max(candidates, key=lambda c: _suit_strength(suit_of(c), suit_order))


def _cmp_key(cards: Sequence[int], wheel: str, suit_order: str | None) -> tuple:
    """(row key, suit component): 0 without a suit order, else the decisive suit's rank."""
    return _cmp_key_of(_ints(cards), wheel, suit_order)


@functools.lru_cache(maxsize=1 << 17)
def _cmp_key_of(cards: tuple[int, ...], wheel: str, suit_order: str | None) -> tuple:
    """``_cmp_key`` of a row of ints, remembered: the brute forces compare the same
    rows again and again (a hand's 72,072 splits are made of its 286 fronts and 1,287
    five-card rows)."""
    key = ref_key(cards, wheel)
    if _no_suit_order(suit_order):
        return (key, 0)
    return (key, _suit_strength(suit_of(ref_decisive_card(cards, suit_order)), suit_order))


def _sign(x) -> int:
    return (x > 0) - (x < 0)


def _cmp(a, b) -> int:
    return (a > b) - (a < b)


def ref_compare_rows(
    a: Sequence[int], b: Sequence[int], wheel: str = "low", suit_order: str | None = None
) -> int:
    """+1 if row a beats row b, -1 if it loses, 0 on a tie. Rows have 3 or 5 cards.

    With a suit order, rows of equal rank are decided by the suit of their decisive cards.
    """
    return _cmp(_cmp_key(a, wheel, suit_order), _cmp_key(b, wheel, suit_order))


def ref_is_legal(
    front: Sequence[int],
    middle: Sequence[int],
    back: Sequence[int],
    wheel: str = "low",
    suit_order: str | None = None,
) -> bool:
    """front <= middle <= back on the one scale (equal allowed; with a suit order, equal
    rows are ordered by suits: docs/rules.md#suit-order-in-the-foul-check)."""
    return (
        ref_compare_rows(front, middle, wheel, suit_order) <= 0
        and ref_compare_rows(middle, back, wheel, suit_order) <= 0
    )


# --------------------------------------------------------------------- royalties


def _royalty_table(rules) -> dict[tuple[str, str], float]:
    table = getattr(rules, "royalties", ())
    if not table:  # () or False: royalties off
        return {}
    return {(row, hand): float(units) for row, hand, units in table}


def _royalties_dealt(rules) -> bool:
    return bool(getattr(rules, "royalties_dealt", False))


def ref_row_royalty(row: str, cards: Sequence[int], rules) -> float:
    """Royalty units the row earns (before royalty mode / one-per-hand are applied).

    The front (3 cards) is ranked as trips/pair/high card only. A royal flush is paid the
    row's ``royal_flush`` line when the table has one, else the ``straight_flush`` line.
    Under ``royalties_dealt`` a row earns nothing for four of a kind, a straight flush or
    a royal flush: those are paid for the dealt cards instead (``ref_dealt_royalties``).
    """
    if row not in ROWS:
        raise ValueError(f"row must be one of {ROWS}, got {row!r}")
    table = _royalty_table(rules)
    if not table:
        return 0.0
    category = ref_key(cards)[0]  # the wheel does not change any category
    if category in (QUADS, STRAIGHT_FLUSH) and _royalties_dealt(rules):
        return 0.0
    if category == STRAIGHT_FLUSH and ref_is_royal(cards) and (row, "royal_flush") in table:
        return table[(row, "royal_flush")]
    hand = _ROYALTY_HAND.get(category)
    if hand is None:
        return 0.0
    return table.get((row, hand), 0.0)


def _one_per_hand(royalties: list[float]) -> list[float]:
    """Keep only the largest row royalty (equal values: back, then middle, then front)."""
    best = max(range(3), key=lambda i: (royalties[i], i))  # i: 0 front, 1 middle, 2 back
    return [royalties[i] if i == best else 0.0 for i in range(3)]


# ------------------------------------------------------- royalties for the dealt cards
#
# Under royalties_dealt, four of a kind and straight flushes are paid for the 13 cards
# dealt (the union of the three rows), not for the rows they end up in.

# The rank sets of the ten straights, lowest first; the wheel A-2-3-4-5 is listed first
# and counts whatever the ruleset's wheel setting (that only decides how it ranks).
_STRAIGHT_RANKS = (frozenset({12, 0, 1, 2, 3}),) + tuple(
    frozenset(range(top - 4, top + 1)) for top in range(4, 13)
)
_BROADWAY = frozenset({8, 9, 10, 11, 12})


def ref_dealt_combinations(hand13: Sequence[int], rules) -> list[tuple[str, tuple, float]]:
    """Every four of a kind and every straight flush among the cards, with what it earns.

    Returns ``(hand, cards, units)`` triples: quads by rank, then straight flushes by
    suit and height. ``hand`` is ``"four_of_a_kind"``, ``"straight_flush"`` or
    ``"royal_flush"`` (T-J-Q-K-A of one suit); ``units`` is the BACK row's line for it
    (a royal flush without a back ``royal_flush`` line earns the ``straight_flush``
    line; a missing line earns 0). Combinations may share cards (six suited cards in
    sequence hold two straight flushes; a quad may share a card with one).
    """
    cards = _ints(hand13)
    table = _royalty_table(rules)
    found = []
    for rank in range(13):
        quad = tuple(sorted(c for c in cards if rank_of(c) == rank))
        if len(quad) == 4:
            found.append(("four_of_a_kind", quad, table.get(("back", "four_of_a_kind"), 0.0)))
    for suit in range(4):
        suited = {rank_of(c): c for c in cards if suit_of(c) == suit}
        for ranks in _STRAIGHT_RANKS:
            if not ranks <= suited.keys():
                continue
            five = tuple(sorted(suited[r] for r in ranks))
            straight_flush = table.get(("back", "straight_flush"), 0.0)
            if ranks == _BROADWAY:
                units = table.get(("back", "royal_flush"), straight_flush)
                found.append(("royal_flush", five, units))
            else:
                found.append(("straight_flush", five, straight_flush))
    return found


def ref_dealt_royalties(
    hand13: Sequence[int], rules
) -> tuple[tuple[tuple[str, tuple, float], ...], float]:
    """The dealt combinations the player is paid for, and their total: ``(picked, total)``.

    The player picks combinations (``ref_dealt_combinations``) that share no card, with
    the largest total; combinations that earn 0 are never picked. Ties between picks of
    the same total keep the one with fewer combinations, then the first in
    ``itertools.combinations`` order (only the total is ever paid, so the choice does not
    matter). With ``one_royalty_per_hand`` only one royalty of the hand will count, so
    the player's best choice is the single most valuable combination (any one
    combination is a card-disjoint pick): ``picked`` holds that one alone.

    This is what the combinations are worth when ``royalties_dealt`` is on; the flag
    itself is not read here.
    """
    combos = [c for c in ref_dealt_combinations(hand13, rules) if c[2] > 0]
    if not combos:
        return (), 0.0
    if getattr(rules, "one_royalty_per_hand", False):
        best = max(combos, key=lambda c: c[2])  # the first of the largest
        return (best,), best[2]
    best_pick: tuple = ()
    best_total = 0.0
    for size in range(1, len(combos) + 1):
        for pick in itertools.combinations(combos, size):
            used = [card for _hand, five, _units in pick for card in five]
            if len(used) != len(set(used)):
                continue  # two combinations share a card
            total = sum(units for _hand, _five, units in pick)
            if total > best_total:
                best_pick, best_total = pick, total
    return best_pick, float(best_total)


# ------------------------------------------------------------------- settlement
#
# A hand is summarised once as (legal, (3 row comparison keys), (3 row royalties), dealt
# royalty); the pairwise settlement works on two summaries. ref_settle and
# ref_best_setting share it.


def _beaten_by_next(x: tuple, y: tuple) -> bool:
    """Under equal_rows_foul (docs/rules.md#equal-rows-as-gamebinh-compares-them): whether
    row y (the next row up) beats row x, comparison keys as ``_cmp_key`` gives them, as
    gameBinh orders a hand's rows: a higher category wins; two straights (straight flushes) by their
    height, the equal one counted as beaten; other equal categories by their ranks as far
    as the shorter row has real ones (a front's PAD kickers are not ranks), equal ranks
    not beaten."""
    (cx, tx), (cy, ty) = x[0], y[0]
    if cx != cy:
        return cx < cy
    if cx in (STRAIGHT, STRAIGHT_FLUSH):
        return tx <= ty
    rx = tuple(r for r in tx if r != PAD)
    ry = tuple(r for r in ty if r != PAD)
    n = min(len(rx), len(ry))
    return rx[:n] < ry[:n]


def _summarise(
    rows_cmp: tuple, rows_royalty: list[float], rules, dealt: float = 0.0, foul_front=None
) -> tuple:
    """``dealt`` is ``ref_dealt_royalties(...)[1]`` under royalties_dealt, else 0;
    ``foul_front`` the front's comparison key in the foul check where it is not the one
    it is compared with opponents' fronts by (``_two_jokers_front``), else None."""
    front = rows_cmp[0] if foul_front is None else foul_front
    legal = front <= rows_cmp[1] <= rows_cmp[2]
    if legal and getattr(rules, "equal_rows_foul", False):
        legal = _beaten_by_next(front, rows_cmp[1]) and _beaten_by_next(rows_cmp[1], rows_cmp[2])
    royalties = list(rows_royalty)
    if getattr(rules, "one_royalty_per_hand", False):
        # The single largest of all the hand's royalties; a dealt one is kept over a row
        # royalty of the same size, then back, middle, front among the rows.
        if dealt > 0 and dealt >= max(royalties):
            royalties = [0.0, 0.0, 0.0]
        else:
            royalties = _one_per_hand(royalties)
            dealt = 0.0
    return (legal, tuple(rows_cmp), tuple(royalties), float(dealt))


def _hand_summary(setting, rules) -> tuple:
    front, middle, back = (_ints(r) for r in setting)
    if len(front) != 3 or len(middle) != 5 or len(back) != 5:
        raise ValueError("a setting is (front 3 cards, middle 5 cards, back 5 cards)")
    rows = (front, middle, back)
    cmp_keys = tuple(_cmp_key(r, rules.wheel, rules.suit_order) for r in rows)
    royalties = [ref_row_royalty(name, r, rules) for name, r in zip(ROWS, rows, strict=True)]
    xx = _two_jokers_front(front, rules)
    foul_front = None
    if xx is not None:
        cmp_key, royalties[0], foul_front = xx
        cmp_keys = (cmp_key, *cmp_keys[1:])
    dealt = ref_dealt_royalties(front + middle + back, rules)[1] if _royalties_dealt(rules) else 0.0
    return _summarise(cmp_keys, royalties, rules, dealt, foul_front)


def _two_jokers_front(front: Sequence[int], rules) -> tuple | None:
    """对鬼冲前 (docs/rules.md#jokers): a front holding both jokers where the ruleset pays
    the ``front.two_jokers`` line, as (its comparison key against other fronts: above
    three aces, below three aces with kickers; its royalty, the line; its key in the
    foul check: None, the same, or under ``two_jokers_foul = "third_card"`` three of a
    kind of its third card, as the server's ``IsXianggong`` values it); None for any
    other front."""
    line = _royalty_table(rules).get(("front", "two_jokers"))
    if line is None or getattr(rules, "jokers", 0) < 2 or sum(is_joker(c) for c in front) != 2:
        return None
    foul_key = None
    if getattr(rules, "two_jokers_foul", "above_aces") == "third_card":
        (third,) = [c for c in front if not is_joker(c)]
        foul_key = ((TRIPS, (rank_of(third), PAD, PAD)), 0)
    return ((TRIPS, (12, PAD, PAD + 0.5)), 0), line, foul_key


def _row_values(results, roy_a, roy_b, mode) -> float:
    """The rows' units when a row's royalty is its whole value: a won row is worth its
    winner's royalty when that royalty is more than 0 and paid (under "cancel", not when
    both rows earn one), else 1; a tied row 0. From A's side."""
    if mode not in ("winner", "cancel"):
        raise ValueError(f"royalty_replaces_row needs winner or cancel, got {mode!r}")
    total = 0.0
    for i in range(3):
        if results[i] == 0:
            continue
        mine = roy_a[i] if results[i] == 1 else roy_b[i]
        cancelled = mode == "cancel" and roy_a[i] > 0 and roy_b[i] > 0
        worth = mine if mine > 0 and not cancelled else 1.0
        total += results[i] * worth
    return total


def _settle_summaries(sa: tuple, sb: tuple, rules) -> float:
    """docs/rules.md#the-settlement-step-by-step, step by step."""
    legal_a, keys_a, roy_a, dealt_a = sa
    legal_b, keys_b, roy_b, dealt_b = sb

    # Row results from A's side: +1 won, -1 lost, 0 tied.
    if not legal_a and not legal_b:
        return 0.0  # two fouled hands settle 0
    penalty = getattr(rules, "foul_penalty", None)
    if penalty is not None and legal_a != legal_b:
        # A flat penalty, and nothing else (docs/rules.md#flat-foul-penalty).
        return _capped(float(penalty) if legal_a else -float(penalty), rules)
    if legal_a and legal_b:
        results = [_cmp(keys_a[i], keys_b[i]) for i in range(3)]
    elif legal_a:
        results = [1, 1, 1]  # B fouled: B loses every row (is scooped)
    else:
        results = [-1, -1, -1]

    # A fouled hand collects no royalties (and, being void, cancels none).
    if not legal_a:
        roy_a, dealt_a = (0.0, 0.0, 0.0), 0.0
    if not legal_b:
        roy_b, dealt_b = (0.0, 0.0, 0.0), 0.0

    won_a = results.count(1)
    won_b = results.count(-1)
    units = float(sum(results))

    scoring = rules.scoring
    if scoring == "per-row":
        pass
    elif scoring == "1-6":
        if won_a == 3:
            units += 3
        elif won_b == 3:
            units -= 3
    elif scoring == "2-4":
        if won_a > won_b:
            units += 1
        elif won_b > won_a:
            units -= 1
    else:
        raise ValueError(f"scoring must be 'per-row', '1-6' or '2-4', got {scoring!r}")

    mode = rules.royalty_mode
    if getattr(rules, "royalty_replaces_row", False):
        # Each row won is worth its royalty in place of its 1 unit, when it earns one
        # that is paid (docs/rules.md#a-bonus-row-is-its-whole-value).
        units -= float(sum(results))
        units += _row_values(results, roy_a, roy_b, mode)
        units += dealt_a - dealt_b
        if won_a == 3 or won_b == 3:
            units *= rules.scoop_multiplier
        return _scoop_then_cap(float(units), won_a, won_b, rules)
    royalty = 0.0
    for i in range(3):
        if mode == "always":
            royalty += roy_a[i] - roy_b[i]
        elif mode in ("winner", "cancel"):
            if mode == "cancel" and roy_a[i] > 0 and roy_b[i] > 0:
                continue
            if results[i] == 1:
                royalty += roy_a[i]
            elif results[i] == -1:
                royalty -= roy_b[i]
        else:
            raise ValueError(f"royalty_mode must be winner/cancel/always, got {mode!r}")
    # Dealt royalties are paid whoever wins the rows, in every mode (never cancelled).
    royalty += dealt_a - dealt_b
    units += royalty

    if won_a == 3 or won_b == 3:
        units *= rules.scoop_multiplier
    return _scoop_then_cap(float(units), won_a, won_b, rules)


def _scoop_then_cap(units: float, won_a: int, won_b: int, rules) -> float:
    """The banker's table's two steps on a pair of shown hands
    (docs/rules.md#the-bankers-table): a scoop adds ``scoop_bonus`` units to the side that
    scooped, after the scoop multiplier; then the pair's result is held to ``pair_cap``
    either way."""
    bonus = float(getattr(rules, "scoop_bonus", 0))
    if won_a == 3:
        units += bonus
    elif won_b == 3:
        units -= bonus
    return _capped(units, rules)


def _capped(units: float, rules) -> float:
    """``units`` held between -pair_cap and +pair_cap (no cap: as it is)."""
    cap = getattr(rules, "pair_cap", None)
    if cap is None:
        return units
    return float(max(-cap, min(cap, units)))


def _settle_summaries_parts(sa: tuple, sb: tuple, rules) -> dict[str, float]:
    """``_settle_summaries`` split into the parts of docs/solve.md's "Why this setting":
    ``rows`` (rows won minus rows lost, a fouled hand losing all three), ``bonus`` (the
    scoring's scoop or majority units, and all that a scoop multiplier adds to the pair),
    ``royalties`` (row and dealt-card royalties as the mode pays them). Written from the
    same steps, kept apart: their sum is the settlement."""
    legal_a, keys_a, roy_a, dealt_a = sa
    legal_b, keys_b, roy_b, dealt_b = sb
    if not legal_a and not legal_b:
        return {"rows": 0.0, "bonus": 0.0, "royalties": 0.0}
    penalty = getattr(rules, "foul_penalty", None)
    if penalty is not None and legal_a != legal_b:  # the flat penalty is all bonus
        flat = _capped(float(penalty if legal_a else -penalty), rules)
        return {"rows": 0.0, "bonus": flat, "royalties": 0.0}
    if legal_a and legal_b:
        results = [_cmp(keys_a[i], keys_b[i]) for i in range(3)]
    else:
        results = [1, 1, 1] if legal_a else [-1, -1, -1]
    if not legal_a:
        roy_a, dealt_a = (0.0, 0.0, 0.0), 0.0
    if not legal_b:
        roy_b, dealt_b = (0.0, 0.0, 0.0), 0.0
    won_a, won_b = results.count(1), results.count(-1)
    rows = float(sum(results))
    bonus = 0.0
    if rules.scoring == "1-6" and 3 in (won_a, won_b):
        bonus = 3.0 if won_a == 3 else -3.0
    elif rules.scoring == "2-4" and won_a != won_b:
        bonus = 1.0 if won_a > won_b else -1.0
    royalty = 0.0
    if getattr(rules, "royalty_replaces_row", False):  # what the rows' values add to rows
        royalty = _row_values(results, roy_a, roy_b, rules.royalty_mode) - rows
    else:
        for i in range(3):
            if rules.royalty_mode == "always":
                royalty += roy_a[i] - roy_b[i]
            elif not (rules.royalty_mode == "cancel" and roy_a[i] > 0 and roy_b[i] > 0):
                royalty += roy_a[i] if results[i] == 1 else -roy_b[i] if results[i] == -1 else 0.0
    royalty += dealt_a - dealt_b
    if won_a == 3 or won_b == 3:  # the multiplier's extra is bonus
        bonus += (rules.scoop_multiplier - 1) * (rows + bonus + royalty)
    # what the scoop's added units and the cap change is bonus too
    whole = rows + bonus + royalty
    bonus += _scoop_then_cap(whole, won_a, won_b, rules) - whole
    return {"rows": rows, "bonus": float(bonus), "royalties": float(royalty)}


def ref_settle_parts(a, b, rules) -> dict[str, float]:
    """``ref_settle`` in its parts (``_settle_summaries_parts``): rows, bonus, royalties."""
    return _settle_summaries_parts(_hand_summary(a, rules), _hand_summary(b, rules), rules)


def ref_settle(a, b, rules) -> float:
    """Units player A wins from player B.

    ``a`` and ``b`` are (front, middle, back) triples of card-id sequences; fouled
    settings are allowed. Antisymmetric: ref_settle(a, b) == -ref_settle(b, a).
    """
    units = _settle_summaries(_hand_summary(a, rules), _hand_summary(b, rules), rules)
    return units * _pair_factor(ref_holds(a, rules), ref_holds(b, rules), rules)


def _code_card(rules) -> int | None:
    """The id of the ruleset's code card (its text, "8h", read here), or None."""
    text = getattr(rules, "code_card", None)
    return None if text is None else RANKS.index(text[0]) * 4 + SUITS.index(text[1])


def ref_holds(setting, rules) -> bool:
    """Whether a setting (rows of card ids) holds the ruleset's code card."""
    card = _code_card(rules)
    return card is not None and any(
        not is_joker(c) and int(c) % FACES == card for row in setting for c in row
    )  # either copy of the card


def _code_factor(either_holds: bool, rules) -> float:
    """What a pair is multiplied by when one of its players holds the code card: the
    multiplier (however many copies that player holds), else 1."""
    return float(rules.code_card_multiplier) if either_holds else 1.0


def _pair_factor(holds_a: bool, holds_b: bool, rules) -> float:
    """What a pair is multiplied by, given which of its two players hold the code card:
    both hold a copy: the multiplier once under ``code_card_both = "once"``, 1 under
    ``"neither"`` (atom-chen multiplies only when exactly one holds it); else
    ``_code_factor``."""
    if holds_a and holds_b and getattr(rules, "code_card_both", "once") == "neither":
        return 1.0
    return _code_factor(holds_a or holds_b, rules)


def ref_row_results(a, b, rules) -> tuple[int, int, int]:
    """Per-row results (+1/0/-1 for A) as used by ref_settle (fouls included)."""
    sa, sb = _hand_summary(a, rules), _hand_summary(b, rules)
    if sa[0] and sb[0]:
        return tuple(_cmp(sa[1][i], sb[1][i]) for i in range(3))
    if sa[0] == sb[0]:
        return (0, 0, 0)
    return (1, 1, 1) if sa[0] else (-1, -1, -1)


# ------------------------------------------------------------ whole tables (home run)
#
# A table is a list of 2 to 4 entries, one a player: a setting (front, middle, back), the
# word "surrender", or ("declare", natural) with natural the (name, key) of
# ref_best_natural. Each ordered pair is settled on its own with ref_settle's summaries
# or ref_settle_natural, then the home run multiplies the pairs of the one player who
# has it.

SURRENDER = "surrender"


def ref_declare(natural) -> tuple:
    """A table entry for a player who declares ``natural`` ((name, key))."""
    return ("declare", natural)


def _table_entry(entry, rules) -> tuple[str, object]:
    """(kind, data): ("surrender", None), ("declare", (name, key)) or ("play", summary)."""
    if isinstance(entry, str) and entry == SURRENDER:
        return ("surrender", None)
    if isinstance(entry, tuple) and len(entry) == 2 and entry[0] == "declare":
        return ("declare", entry[1])
    return ("play", _hand_summary(entry, rules))


def ref_scoops(sa: tuple, sb: tuple) -> bool:
    """A scoops B (summaries): A legal, and B fouled or beaten in all three rows."""
    if not sa[0]:
        return False  # a fouled player never scoops
    if not sb[0]:
        return True  # a fouled opponent counts as scooped
    return all(_cmp(sa[1][r], sb[1][r]) == 1 for r in range(3))  # a tie is not a win


def _home_run_player(entries: list, rules) -> int | None:
    """The player who has the home run at this table, or None."""
    if getattr(rules, "home_run_multiplier", 1) == 1:
        return None
    for i, (kind, summary) in enumerate(entries):
        if kind != "play":
            continue
        opponents = [e for j, e in enumerate(entries) if j != i and e[0] != "surrender"]
        if len(opponents) < rules.home_run_min_opponents:
            continue
        if any(k == "declare" for k, _ in opponents):
            continue
        if all(ref_scoops(summary, other) for _, other in opponents):
            return i
    return None


def _pair_units(a: tuple, b: tuple, rules) -> float:
    """What entry a wins from entry b, before the home run."""
    (ka, da), (kb, db) = a, b
    if ka == "surrender" or kb == "surrender":
        if ka == kb:
            return 0.0
        cost = float(rules.surrender_cost)
        return -cost if ka == "surrender" else cost
    if ka == "declare" or kb == "declare":
        units = ref_settle_natural(da if ka == "declare" else None,
                                   db if kb == "declare" else None, rules)  # fmt: skip
        penalty = getattr(rules, "foul_penalty", None)
        if penalty is not None and getattr(rules, "foul_pays_naturals", False):
            # a fouled hand pays a declared natural its flat penalty too (gameBinh's binh
            # lủng: docs/rules.md#flat-foul-penalty)
            if kb == "play" and not db[0]:
                units += penalty
            elif ka == "play" and not da[0]:
                units -= penalty
        return units
    return _settle_summaries(da, db, rules)


def _units_of(i: int, entries: list, home_run: int | None, rules) -> list[float]:
    """What player i wins from each player (0.0 from itself)."""
    out = []
    for j, other in enumerate(entries):
        if j == i:
            out.append(0.0)
            continue
        units = _pair_units(entries[i], other, rules)
        if home_run in (i, j) and entries[i][0] == other[0] == "play":
            units *= rules.home_run_multiplier  # a surrender is never multiplied
        out.append(units)
    return out


def ref_table_units(
    players: Sequence, rules, holder: int | None = None, banker: int = 0, multiples=None
) -> list[list[float]]:
    """units[i][j]: what player i wins from player j at this table (home run included,
    then the code card: ``holder`` a seat that holds it without showing cards).

    At a banker's table (``rules.banker``, docs/rules.md#the-bankers-table) seat
    ``banker`` is the banker: two players who are not the banker settle nothing with each
    other, and what a player and the banker settle is multiplied last by the multiple
    that player bet (``multiples``, one a seat; None: 1 each)."""
    entries = [_table_entry(p, rules) for p in players]
    home_run = _home_run_player(entries, rules)
    holds = [
        i == holder or (kind == "play" and ref_holds(p, rules))
        for i, ((kind, _), p) in enumerate(zip(entries, players, strict=True))
    ]
    units = [_units_of(i, entries, home_run, rules) for i in range(len(entries))]
    out = [
        [u * _pair_factor(holds[i], holds[j], rules) for j, u in enumerate(row)]
        for i, row in enumerate(units)
    ]
    if not getattr(rules, "banker", False):
        return out
    bets = multiples if multiples is not None else [1.0] * len(players)
    for i, row in enumerate(out):
        for j in range(len(row)):
            if banker not in (i, j):
                row[j] = 0.0  # two players: they do not settle
            else:
                row[j] *= bets[j if i == banker else i]  # the player's bet, not the banker's
    return out


def ref_settle_table(
    players: Sequence, rules, holder: int | None = None, banker: int = 0, multiples=None
) -> list[float]:
    """Each player's units at the table: the sum of what it wins from every other."""
    return [sum(row) for row in ref_table_units(players, rules, holder, banker, multiples)]


def ref_table_parts(players: Sequence, rules, i: int = 0) -> dict[str, float]:
    """What player ``i`` (who plays a setting) wins at this table of opponents who play or
    declare, in its parts: rows, bonus and royalties summed over the opponents who play
    (``ref_settle_parts``),
    ``naturals`` what the opponents who declare take (``ref_settle_natural``); the home
    run's extra (``ref_settle_table`` minus the pairwise sum) is bonus. Units, not per
    opponent; the four add up to ``ref_settle_table(players, rules)[i]``."""
    entries = [_table_entry(p, rules) for p in players]
    kind, me = entries[i]
    assert kind == "play", "the parts are of a setting played"
    parts = {"rows": 0.0, "bonus": 0.0, "royalties": 0.0, "naturals": 0.0}
    pairwise = 0.0
    mine = ref_holds(players[i], rules)
    for j, (other_kind, other) in enumerate(entries):
        if j == i:
            continue
        if other_kind == "declare":
            factor = _code_factor(mine, rules)  # a declared hand shows no code card
            units = factor * ref_settle_natural(None, other, rules)
            parts["naturals"] += units
        elif other_kind == "surrender":
            raise ValueError("the parts are of tables whose opponents play or declare")
        else:
            factor = _pair_factor(mine, ref_holds(players[j], rules), rules)
            split = _settle_summaries_parts(me, other, rules)
            for k, v in split.items():
                parts[k] += factor * v
            units = factor * _settle_summaries(me, other, rules)
        pairwise += units
    parts["bonus"] += ref_settle_table(players, rules)[i] - pairwise
    return parts


# ---------------------------------------------------------------------- naturals
#
# A qualifying partition for three straights / three flushes / three straight flushes is
# any split of the 13 cards into a 3-card front and two 5-card rows (middle, back) such
# that the front is a 3-card straight (3 consecutive ranks; A-2-3 and Q-K-A count, K-A-2
# does not) / a 3-card flush / both, and both 5-card rows are straights / flushes /
# straight flushes (straight flushes count as either). There is no
# ordering constraint beyond that; the key is the best (back, middle, front) over all
# qualifying partitions, compared back, then middle, then front with ref_key5/ref_key3
# (so the stronger 5-card row is the back in the best partition).


def _is_straight3(cards: Sequence[int]) -> bool:
    ranks = {rank_of(c) for c in cards}
    if len(ranks) != 3:
        return False
    return ranks == {12, 0, 1} or max(ranks) - min(ranks) == 2


def _is_straight5(cards: Sequence[int]) -> bool:
    return _straight_top({rank_of(c) for c in cards}, "low") is not None


def _is_flush(cards: Sequence[int]) -> bool:
    return len({suit_of(c) for c in cards}) == 1


def _best_three_rows(hand: tuple[int, ...], front_ok, five_ok, wheel: str):
    """Best (key5(back), key5(middle), key3(front)) over qualifying partitions, or None."""
    best = None
    five_keys: dict[tuple[int, ...], tuple] = {}  # each 5-card row's key, computed once

    fits: dict[tuple[int, ...], bool] = {}  # whether a 5-card row qualifies, found once

    def key5(cards: tuple[int, ...]) -> tuple:
        if cards not in five_keys:
            five_keys[cards] = ref_key5(cards, wheel)
        return five_keys[cards]

    def fit5(cards: tuple[int, ...]) -> bool:
        if cards not in fits:
            fits[cards] = five_ok(cards)
        return fits[cards]

    for front in itertools.combinations(hand, 3):
        if not front_ok(front):
            continue
        rest = [c for c in hand if c not in front]
        for middle in itertools.combinations(rest, 5):
            if not fit5(middle):
                continue
            back = tuple(c for c in rest if c not in middle)
            if not fit5(back):
                continue
            key = (key5(back), key5(middle), ref_key3(front))
            if best is None or key > best:
                best = key
    return best


def _is_straight_flush3(cards: Sequence[int]) -> bool:
    return _is_straight3(cards) and _is_flush(cards)


def _is_straight_flush5(cards: Sequence[int]) -> bool:
    return _is_straight5(cards) and _is_flush(cards)


def _is_red(card: int) -> bool:
    return SUITS[suit_of(card)] in "dh"


def _ranks_held(hand: Sequence[int], at_least: int, split: bool = False) -> list[int]:
    """The ranks held ``at_least`` times or more, highest first; with ``split`` a rank
    once for every ``at_least`` cards of it (six cards of a rank are two three of a kinds,
    as atom-chen's ``Check_Pt_Sp_Four_Three`` counts them: docs/rules.md#ranks-held-six-times)."""
    counts = Counter(rank_of(c) for c in hand)
    times = {r: (n // at_least if split else int(n >= at_least)) for r, n in counts.items()}
    return sorted((r for r, t in times.items() for _ in range(t)), reverse=True)


def _five_pairs_and_trips(hand: Sequence[int]):
    """The rank of the trips when the 13 cards are exactly five pairs and a three of a
    kind (a four of a kind is two pairs), else None: try every rank as the trips, and
    pair up the ten cards left."""
    counts = Counter(rank_of(c) for c in hand)
    found = None
    for trips in (r for r, n in counts.items() if n >= 3):
        rest = counts.copy()
        rest[trips] -= 3
        if all(n % 2 == 0 for n in rest.values()) and sum(n // 2 for n in rest.values()) == 5:
            found = trips if found is None else max(found, trips)
    return found


#: The n-of-a-kind naturals of decks with added suits, by the cards of one rank they need.
_OF_A_KIND = {"six_of_a_kind": 6, "seven_of_a_kind": 7, "eight_of_a_kind": 8}


def _natural_key(name: str, hand: tuple[int, ...], rules):
    """Tie-break key of natural ``name`` if the hand holds it, else None.

    Every natural of docs/rules.md#special-hands, each tested on its own (a hand may hold
    several; the ruleset's order picks one, docs/rules.md#overlapping-naturals). ``()``
    is the key of the naturals that always tie (docs/rules.md#natural-tie-keys).
    """
    wheel = getattr(rules, "wheel", "low")
    return _natural_key_of(name, tuple(sorted(_ints(hand))), wheel,
                           getattr(rules, "split_ranks", False))  # fmt: skip


@functools.lru_cache(maxsize=1 << 14)
def _natural_key_of(name: str, hand: tuple[int, ...], wheel: str, split_ranks: bool):
    """``_natural_key`` of a hand's cards in order, under ``wheel`` and ``split_ranks``
    (all it reads of the ruleset), remembered: a key does not depend on the order of
    the cards (each is a set's property, or the best over all of the hand's partitions),
    and the tests ask for the same hand's again (under other rulesets, for each setting
    of a table, each seat of a draw)."""
    ranks = [rank_of(c) for c in hand]
    if name == "royal_dragon":  # all 13 cards of one suit: 2 to A of that suit
        return () if len({suit_of(c) for c in hand}) == 1 else None
    if name == "dragon":
        return () if len(set(ranks)) == 13 else None
    if name == "twelve_royals":  # every card a J, Q, K or A
        return () if all(RANKS[r] in "JQKA" for r in ranks) else None
    if name == "twelve_royals_and_one":  # docs/rules.md#twelve-royals-and-one
        return () if sum(RANKS[r] in "JQKA" for r in ranks) >= 12 else None
    if name == "three_straight_flushes":
        return _best_three_rows(hand, _is_straight_flush3, _is_straight_flush5, wheel)
    if name == "three_quads":
        quads = _ranks_held(hand, 4, split_ranks)
        return tuple(quads) if len(quads) >= 3 else None
    if name == "all_high":  # docs/rules.md#all-high-and-all-low: the 8 counts in both
        return () if all(r >= RANKS.index("8") for r in ranks) else None
    if name == "all_low":
        return () if all(r <= RANKS.index("8") for r in ranks) else None
    if name == "one_colour":
        return () if len({_is_red(c) for c in hand}) == 1 else None
    if name == "twelve_one_colour":  # docs/rules.md#twelve-of-one-colour: 12 or 13
        red = sum(_is_red(c) for c in hand)
        return () if max(red, 13 - red) >= 12 else None
    if name == "four_trips":  # a four of a kind counts as a three of a kind
        trips = _ranks_held(hand, 3, split_ranks)
        return tuple(trips) if len(trips) >= 4 else None
    if name == "five_pairs_trips":
        trips = _five_pairs_and_trips(hand)
        return None if trips is None else (trips,)
    if name == "six_pairs":
        counts = Counter(ranks)
        pairs = sorted(
            (r for r, n in counts.items() for _ in range(n // 2)), reverse=True
        )  # quads count as two pairs, trips as one
        return tuple(pairs) if len(pairs) >= 6 else None
    if name in _OF_A_KIND:  # six or more cards of one rank (seven, eight): always a tie
        return () if max(Counter(ranks).values()) >= _OF_A_KIND[name] else None
    if name == "two_fives_trips":  # two five of a kinds and a three of a kind: 5 + 5 + 3
        return () if sorted(Counter(ranks).values()) == [3, 5, 5] else None
    if name == "three_straights":
        return _best_three_rows(hand, _is_straight3, _is_straight5, wheel)
    if name == "three_flushes":
        return _best_three_rows(hand, _is_flush, _is_flush, wheel)
    raise ValueError(f"unknown natural {name!r}; expected one of {NATURAL_NAMES}")


def _naturals_table(rules) -> tuple:
    table = getattr(rules, "naturals", ())
    return tuple(table) if table else ()


def ref_naturals(hand13: Sequence[int], rules) -> list[tuple[str, tuple]]:
    """Every natural of ``rules.naturals`` the hand holds, in that (strongest-first) order,
    each with its tie-break key:

    * royal_dragon, dragon, twelve_royals, all_high, all_low, one_colour,
      twelve_one_colour: ``()`` (always a tie);
    * six_pairs: the pair ranks, highest first (a quad gives its rank twice);
    * five_pairs_trips: ``(rank of the trips,)``;
    * four_trips: the four ranks held three or more times, highest first;
    * three_quads: the quad ranks, highest first;
    * three_straights / three_flushes / three_straight_flushes: ``(key5(back),
      key5(middle), key3(front))`` of the best qualifying partition (see the comment
      above ``_is_straight3``).
    """
    hand = _ints(hand13)
    if len(hand) != 13 or len(set(hand)) != 13:
        raise ValueError("a hand is 13 distinct cards")
    found = []
    for name, _units in _naturals_table(rules):
        key = _natural_key(name, hand, rules)
        if key is not None:
            found.append((name, key))
    return found


def ref_best_natural(hand13: Sequence[int], rules) -> tuple[str, tuple] | None:
    """The strongest natural the hand holds (first in rules.naturals order), or None."""
    hand = _ints(hand13)
    for name, _units in _naturals_table(rules):
        key = _natural_key(name, hand, rules)
        if key is not None:
            return (name, key)
    return None


def ref_settle_natural(a_nat, b_nat, rules) -> float:
    """Units A wins from B when at least one of them declared a natural.

    Each argument is None or (name, key). A natural collects its payout from a player with
    none; between two naturals the stronger (earlier in rules.naturals) collects its own
    payout; the same natural compares keys, a full tie pays 0. Under natural_ties "payout"
    the larger payout collects its payout and equal payouts pay 0. No multiplier, no
    royalties.
    Both None returns 0.0 (no natural was declared; the hands are settled by ref_settle).
    """
    if a_nat is None and b_nat is None:
        return 0.0
    return _capped(_natural_units(a_nat, b_nat, rules), rules)  # the pair cap holds them too


def _natural_units(a_nat, b_nat, rules) -> float:
    """``ref_settle_natural`` before the pair cap."""
    table = _naturals_table(rules)
    payout = {name: float(units) for name, units in table}
    order = {name: i for i, (name, _units) in enumerate(table)}
    if b_nat is None:
        return payout[a_nat[0]]
    if a_nat is None:
        return -payout[b_nat[0]]
    (name_a, key_a), (name_b, key_b) = a_nat, b_nat
    if getattr(rules, "natural_ties", "order") == "payout":
        # The larger payout collects it; equal payouts tie (docs/rules.md#natural-ties).
        pa, pb = payout[name_a], payout[name_b]
        return pa if pa > pb else -pb if pb > pa else 0.0
    if getattr(rules, "natural_ties", "order") == "difference":
        # Each is worth its payout; the pair settles by the difference (gameBinh).
        return payout[name_a] - payout[name_b]
    if order[name_a] < order[name_b]:
        return payout[name_a]
    if order[name_b] < order[name_a]:
        return -payout[name_b]
    return _cmp(key_a, key_b) * payout[name_a]


# --------------------------------------------------------------- brute force


def ref_all_splits(hand13: Sequence[int]) -> Iterator[tuple[tuple[int, ...], ...]]:
    """All 286 * 252 = 72,072 ordered (front, middle, back) splits, cards in hand order."""
    hand = _ints(hand13)
    positions = range(len(hand))
    for front_pos in itertools.combinations(positions, 3):
        rest = [p for p in positions if p not in front_pos]
        for middle_pos in itertools.combinations(rest, 5):
            back_pos = [p for p in rest if p not in middle_pos]
            yield (
                tuple(hand[p] for p in front_pos),
                tuple(hand[p] for p in middle_pos),
                tuple(hand[p] for p in back_pos),
            )


class RefBest(NamedTuple):
    """What ``ref_best_setting`` found: the staked value, the setting, and the units won
    from each opponent, so that ``value == sum(stake * u for stake, u in zip(stakes,
    units))`` and ``units[j] == ref_settle(setting, opponents[j], rules)``."""

    value: float
    setting: tuple
    units: tuple[float, ...]


def _stakes(stakes, n_opponents: int) -> tuple[float, ...]:
    if stakes is None:
        return (1.0,) * n_opponents
    stakes = tuple(float(s) for s in stakes)
    if len(stakes) != n_opponents:
        raise ValueError(f"one stake per opponent: {n_opponents} opponents, {len(stakes)} stakes")
    if not all(s > 0 for s in stakes):  # also rejects NaN
        raise ValueError(f"stakes must be positive numbers, got {stakes}")
    return stakes


def ref_best_setting(hand13: Sequence[int], opponents, rules, stakes=None) -> RefBest:
    """Brute force: the setting maximising ``sum(stakes[j] * ref_settle(setting, opp_j))``.

    ``stakes`` is one positive number per opponent (money per unit; default all 1, which
    is the plain sum of units). Every one of the 72,072 splits is scored, fouled ones
    included. On equal values the first split in ``ref_all_splits`` order wins. Row keys
    and royalties are computed once per card subset (1,287 fives, 286 threes), the dealt
    royalty (``royalties_dealt``) once per hand, and the settlement is the same
    ``_settle_summaries`` that ref_settle uses. With the home run on, each split is
    settled at the whole table (the hand and every opponent) as ``ref_settle_table``
    does, and ``units`` are what it wins from each opponent there.
    Returns ``RefBest(value, setting, units)``.
    """
    opponents = [tuple(opp) for opp in opponents]
    stakes = _stakes(stakes, len(opponents))
    opp_summaries = [_hand_summary(opp, rules) for opp in opponents]
    table = getattr(rules, "home_run_multiplier", 1) != 1
    opp_entries = [("play", opp) for opp in opp_summaries]
    wheel, suit_order = rules.wheel, rules.suit_order
    dealt = ref_dealt_royalties(hand13, rules)[1] if _royalties_dealt(rules) else 0.0

    row_cache: dict[tuple[int, ...], tuple] = {}

    def row_info(cards: tuple[int, ...]) -> tuple:
        info = row_cache.get(cards)
        if info is None:
            key = _cmp_key(cards, wheel, suit_order)
            xx = _two_jokers_front(cards, rules) if len(cards) == 3 else None
            if xx is not None:  # 对鬼冲前: its key, its line, its key in the foul check
                info = xx
            elif len(cards) == 3:
                info = (key, ref_row_royalty("front", cards, rules), None)
            else:
                info = (
                    key,
                    ref_row_royalty("middle", cards, rules),
                    ref_row_royalty("back", cards, rules),
                )
            row_cache[cards] = info
        return info

    best = None
    for setting in ref_all_splits(hand13):
        front, middle, back = setting
        f, m, b = row_info(front), row_info(middle), row_info(back)
        summary = _summarise((f[0], m[0], b[0]), [f[1], m[1], b[2]], rules, dealt, f[2])
        if table:
            entries = [("play", summary), *opp_entries]
            units = tuple(_units_of(0, entries, _home_run_player(entries, rules), rules)[1:])
        else:
            units = tuple(_settle_summaries(summary, opp, rules) for opp in opp_summaries)
        value = 0.0
        for stake, u in zip(stakes, units, strict=True):
            value += stake * u
        if best is None or value > best.value:
            best = RefBest(value, setting, units)
    return best


# ----------------------------------------------------------------------- the field model


def ref_field_value(win, tie, royalty_term, scoring: str, scoop_multiplier: float) -> float:
    """The field model's value of one setting, by enumerating the 27 joint row outcomes.

    The field strategy (solver.strategy) scores a setting as if its three rows were won,
    tied or lost independently, row r with probabilities ``win[r]``, ``tie[r]`` and
    ``1 - win[r] - tie[r]``. For each joint outcome the rows pay +1/0/-1, the scoring adds
    its bonus (1-6: 3 for a scoop; 2-4: 1 to whoever won more rows), and a scoop
    multiplies those units; ``royalty_term`` (the expected royalties, already weighted by
    the row probabilities) is added outside the multiplier. Returns the expectation.
    """
    total = 0.0
    for outcome in itertools.product((1, 0, -1), repeat=3):
        p = 1.0
        for r, o in enumerate(outcome):
            lose = 1.0 - win[r] - tie[r]
            p *= win[r] if o == 1 else tie[r] if o == 0 else lose
        won, lost = outcome.count(1), outcome.count(-1)
        units = float(sum(outcome))
        if scoring == "1-6" and won == 3:
            units += 3
        elif scoring == "1-6" and lost == 3:
            units -= 3
        elif scoring == "2-4":
            units += (won > lost) - (lost > won)
        if won == 3 or lost == 3:
            units *= scoop_multiplier
        total += p * units
    return total + sum(royalty_term)


def _interp(x: float, ys: Sequence[float]) -> float:
    """ys given at the knots 0, 1/K, ..., 1 (K = len(ys) - 1), interpolated linearly at
    x in [0, 1]."""
    k = len(ys) - 1
    pos = min(max(x, 0.0), 1.0) * k
    i = min(int(pos), k - 1)
    return ys[i] + (pos - i) * (ys[i + 1] - ys[i])


def _trilinear(grid, u: Sequence[float]) -> float:
    """grid[i][j][k] given at the nodes (i, j, k) / n of the unit cube, interpolated at u:
    the sum over the 8 corners of the cell holding u of the corner's value times the
    product of (1 - distance to it) along each axis."""
    n = len(grid) - 1
    cells, fracs = [], []
    for x in u:
        pos = min(max(x, 0.0), 1.0) * n
        i = min(int(pos), n - 1)
        cells.append(i)
        fracs.append(pos - i)
    total = 0.0
    for corner in itertools.product((0, 1), repeat=3):
        weight = 1.0
        for axis, c in enumerate(corner):
            weight *= fracs[axis] if c else 1.0 - fracs[axis]
        total += weight * grid[cells[0] + corner[0]][cells[1] + corner[1]][cells[2] + corner[2]]
    return total


def ref_field_model_value(hand13: Sequence[int], keys, royalties, model, rules) -> float:
    """The field model's value of one setting of a hand
    (solver.strategy.field_model.field), the slow way. ``keys``: the setting's three row
    keys (the solver's integer keys; they only index the tables), ``royalties``: its
    three row royalties and the dealt cards' royalty.

    ``model`` gives the field tables, indexed [row][key] (duck-typed): ``fw`` P(win),
    ``ft`` P(tie), ``fo`` the royalty an opponent collects by beating the row, ``fe[row]``
    an opponent's expected royalty; ``rank[row][q][n][knot]`` and ``suit[row][n][knot]``
    the card-removal shift of P(win) at knots evenly spaced in P(win), when the hand holds
    n cards of rank q / of a suit (at a deck with jokers ``rank[row]`` has 14 ranks, the
    last the jokers held); ``cop[c][i][j][k]`` the joint corrections at the
    midrank nodes: c = 0 E[s_f s_m s_b], 1 P(win all), 2 P(lose all).

    1. Each row's P(win): the field's, plus the sum over the 13 ranks (and the jokers,
       at a deck with jokers) and the 4 suits of the hand's shift curves at that P(win),
       kept within [0, 1 - P(tie)].
    2. The independent-rows value (``ref_field_value``) with those probabilities and the
       royalty terms (winner, cancel: P(win) x own royalty - fo; always: own - fe). At a
       deck with jokers fo and fe are those given the n jokers the hand holds
       (``model.model.jx[n]``'s first column and ``je[n]``;
       docs/strength.md#the-jokers-in-the-opponents-royalties).
    3. The joint correction at the rows' midranks P(win) + P(tie) / 2: under 2-4,
       -E[s s s] / 2 (the 2-4 bonus is (sum of s - s_f s_m s_b) / 2 when no row ties);
       under 1-6, 3 x (P(win all) - P(lose all)); plus (multiplier - 1) x the scoop's units
       (3 + bonus) x the same; per-row without a multiplier has none. A scoop's added
       units (``scoop_bonus``) add that many times P(win all) - P(lose all), the
       independent rows' product and its correction.
    4. With a scoop multiplier and royalties: P(win all) = product of P(win) + its
       correction, P(lose all) likewise (each kept in [0, 1], their sum at most 1);
       (multiplier - 1) x (own royalties x P(win all) - sum over rows of fo / P(lose the
       row) x P(lose all), both given the jokers held: ``jx[n]``'s two columns); mode
       always: (multiplier - 1) x (own royalties - sum of fe) x (P(win all) + P(lose all)).
    5. The dealt cards' royalty is added as it is.
    6. With the home run at the table (``model.model.hr``): ``_ref_field_home_run``.

    Where a royalty replaces the row's unit (``royalty_replaces_row``,
    docs/rules.md#a-bonus-row-is-its-whole-value) a row's own royalty R adds R - 1 to
    what the row wins (its unit is in the row's value already), in 2 and in 4 alike; the
    tables' ``fo`` are already so.
    """
    replaces = getattr(rules, "royalty_replaces_row", False)
    royalties = [
        float(x) - 1.0 if replaces and i < 3 and float(x) > 0 else float(x)
        for i, x in enumerate(royalties)
    ]
    plain = [c for c in hand13 if not is_joker(c)]  # a joker is of no rank or suit of 52
    ranks = [rank_of(c) for c in plain]
    suits = [suit_of(c) for c in plain]
    # at a deck with jokers the model's fourteenth rank counts the jokers the hand holds
    rank_counts = [ranks.count(q) for q in range(13)] + [len(hand13) - len(plain)]
    # the opponents' royalties given the jokers the hand holds (one entry without jokers)
    jx, je = model.model.jx, model.model.je
    held = min(len(hand13) - len(plain), len(jx) - 1)
    fe = [float(x) for x in je[held]]

    def fo(r: int, key: int) -> float:  # what it collects by beating the row
        return float(jx[held][r][key][0])

    def beaten(r: int, key: int) -> float:  # how often it beats the row
        return float(jx[held][r][key][1])

    win, tie, lose, mid, term = [], [], [], [], []
    for r in range(3):
        key = int(keys[r])
        w0, t = float(model.fw[r][key]), float(model.ft[r][key])
        nk = len(model.rank[r][0][0])
        # the hand's curves, each read once as floats (not indexed a knot at a time)
        by_rank = [[float(v) for v in model.rank[r][q][rank_counts[q]]]
                   for q in range(len(model.rank[r]))]  # fmt: skip
        by_suit = [[float(v) for v in model.suit[r][suits.count(s)]] for s in range(4)]
        curve = [sum(c[x] for c in by_rank) + sum(c[x] for c in by_suit) for x in range(nk)]
        w = max(0.0, min(w0 + _interp(w0, curve), 1.0 - t))
        win.append(w)
        tie.append(t)
        lose.append(1.0 - w - t)
        mid.append(w + t / 2)
        own = float(royalties[r])
        util = float(model.fx[r][key][3])  # a learned model's row utility (0: the field)
        if rules.royalty_mode == "always":
            term.append(own - fe[r] + util)
        else:
            term.append(w * own - fo(r, key) + util)
    mult = float(rules.scoop_multiplier)
    value = ref_field_value(win, tie, term, rules.scoring, mult)
    # a scoop's added units (docs/rules.md#the-bankers-table; the pair cap is left out)
    add = float(getattr(rules, "scoop_bonus", 0))
    value += add * (win[0] * win[1] * win[2] - lose[0] * lose[1] * lose[2])
    cop = model.cop
    if len(cop[0]) > 1:
        e3 = _trilinear(cop[0], mid)
        scoop = _trilinear(cop[1], mid) - _trilinear(cop[2], mid)
        value += add * scoop
        if rules.scoring == "2-4":
            value += -0.5 * e3 + (mult - 1) * 4 * scoop
        elif rules.scoring == "1-6":
            value += 3 * scoop + (mult - 1) * 6 * scoop
        else:
            value += (mult - 1) * 3 * scoop
        if mult != 1 and rules.royalties:
            p_win = min(max(win[0] * win[1] * win[2] + _trilinear(cop[1], mid), 0.0), 1.0)
            p_lose = lose[0] * lose[1] * lose[2] + _trilinear(cop[2], mid)
            p_lose = min(max(p_lose, 0.0), 1.0 - p_win)
            own = sum(float(x) for x in royalties[:3])
            if rules.royalty_mode == "always":
                theirs = sum(fe)
                value += (mult - 1) * (own - theirs) * (p_win + p_lose)
            else:
                theirs = 0.0  # what an opponent collects when it beats a row: the table's
                for r in range(3):  # own average over its own chance of beating it
                    k = int(keys[r])
                    beat = beaten(r, k)
                    theirs += fo(r, k) / beat if beat > 1e-12 else 0.0
                value += (mult - 1) * (own * p_win - theirs * p_lose)
    hr = getattr(model.model, "hr", None)
    if hr is not None and float(hr[0]) != 0.0:
        value += _ref_field_home_run((win, lose, mid), keys, royalties, (fe, fo, beaten), hr,
                                     model, rules)  # fmt: skip
    return value + float(royalties[3])


def _ref_field_home_run(rows, keys, royalties, theirs_by, hr, model, rules):
    """Step 6 of ``ref_field_model_value``: the home run at the table
    (docs/rules.md#the-field-and-the-home-run). ``hr``: (multiplier - 1, opponents m, the
    chance none of them declares a natural, the chance an opponent who scooped the
    setting scoops the others too). P(win all) and P(lose all) as in step 4 (corrected
    when the model keeps their grid); a scooped pair is worth its three rows and the
    scoring's scoop bonus (1-6: 3, 2-4: 1) times the multiplier, the scoop's added units,
    and the royalties times the multiplier: the setting's own when it scoops (less the
    opponent's expected ones in mode always), the opponent's (fo over how often it beats
    each row) when it is scooped (mode always: the setting's own less the opponent's
    expected ones). The setting's home run: that, times P(win all) to the power m, times
    the chance none declares; an opponent's: the scooped pair, times P(lose all), times
    the last factor. ``rows``: each row's (P(win), P(lose), midrank); ``theirs_by``: the
    opponent's expected royalties, and what it collects by beating a row and how often
    it beats it (functions of row and key)."""
    win, lose, mid = rows
    fe, fo, beaten = theirs_by
    x, m, clear, others = (float(v) for v in hr)
    p_win = win[0] * win[1] * win[2]
    p_lose = lose[0] * lose[1] * lose[2]
    cop = model.cop
    if len(cop[0]) > 1 and len(model.model.jw) > 1:  # the model corrects them
        p_win += _trilinear(cop[1], mid)
        p_lose += _trilinear(cop[2], mid)
    p_win = min(max(p_win, 0.0), 1.0)
    p_lose = min(max(p_lose, 0.0), 1.0 - p_win)
    mult = float(rules.scoop_multiplier)
    rows = {"per-row": 3.0, "1-6": 6.0, "2-4": 4.0}[rules.scoring]
    scooped = rows * mult + float(getattr(rules, "scoop_bonus", 0))
    own = sum(float(v) for v in royalties[:3])
    if rules.royalty_mode == "always":
        won = scooped + (own - sum(fe)) * mult
        lost = -scooped + (own - sum(fe)) * mult
    else:
        theirs = 0.0
        for r in range(3):
            k = int(keys[r])
            theirs += fo(r, k) / beaten(r, k) if beaten(r, k) > 1e-12 else 0.0
        won = scooped + own * mult
        lost = -scooped - theirs * mult
    return x * (won * p_win**m * clear + lost * p_lose * others)


# --------------------------------------------------------------- opponent styles


def ref_safe_choice(settings_keys, midrank) -> tuple[float, float]:
    """The ``safe`` style by brute force (docs/opponents.md#safe): of the legal settings
    given by their three row keys (front, middle, back), the best by (weakest row's
    midrank, then the sum of the three midranks); ``midrank(row, key)`` is a row's
    P(win) + P(tie) / 2 against the field's row of that position. Returns the best
    (weakest, sum) pair: every setting with it is a ``safe`` setting."""
    best = (-1.0, -1.0)
    for f, m, b in settings_keys:
        if not f <= m <= b:
            continue
        u = (midrank(0, f), midrank(1, m), midrank(2, b))
        cand = (min(u), u[0] + u[1] + u[2])
        if cand > best:
            best = cand
    return best
