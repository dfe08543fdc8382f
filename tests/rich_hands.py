"""Random hands and settings rich in four of a kind and straight flushes.

For testing ``royalties_dealt`` (docs/rules.md#royalties-for-dealt-cards): uniformly
random hands hold a quad or a straight flush too rarely to test anything, so these
generators plant them, including the awkward cases (six or more suited cards in
sequence, a quad sharing a card with a straight flush, a steel wheel A-2-3-4-5, a royal
flush, two quads each sharing a card with a royal flush), and then set the hands at
random, which mostly breaks the combinations up; a third of the settings keep one
combination whole in the back row instead.

Pure Python and deterministic for a given ``random.Random``. Used by
tests/test_reference.py, and meant for the kernel tests that compare the fast
settlement with the oracle on pairs of settings::

    rng = random.Random(1)
    for a, b in rich_pairs(rng, 500, wheel="low", suit_order=None):
        assert fast_settle(a, b, rules) == ref_settle(a, b, rules)

Settings are ``(front, middle, back)`` tuples of card ids; the two settings of a pair
hold 26 distinct cards.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator

try:  # tests/ on sys.path or tests as a package
    import reference as R
except ImportError:  # pragma: no cover
    from tests import reference as R

#: The kinds of combination ``rich_hand`` plants.
PLANTS = (
    "quad",
    "straight_flush",
    "run",  # 6 to 9 suited cards in sequence: overlapping straight flushes
    "quad_on_straight_flush",  # a straight flush and the quad of one of its ranks
    "steel_wheel",  # A-2-3-4-5 suited
    "royal",  # T-J-Q-K-A suited, sometimes with the 9 (a straight flush overlapping it)
    "two_quads_on_royal",  # quad A, quad K and Th Jh Qh: both quads share a card with the royal
)


def _card(rank: int, suit: int) -> int:
    return rank * 4 + suit


def _planted(kind: str, rng: random.Random) -> list[int]:
    """The cards of one combination of ``kind`` (ranks and suits at random)."""
    suit = rng.randrange(4)
    if kind == "quad":
        rank = rng.randrange(13)
        return [_card(rank, s) for s in range(4)]
    if kind == "straight_flush":
        low = rng.randrange(8)  # 2-6 .. 9-K (the wheel and the royal have their own kinds)
        return [_card(r, suit) for r in range(low, low + 5)]
    if kind == "run":
        length = rng.randint(6, 9)
        low = rng.randrange(13 - length + 1)
        return [_card(r, suit) for r in range(low, low + length)]
    if kind == "quad_on_straight_flush":
        low = rng.randrange(9)
        ranks = list(range(low, low + 5))
        quad_rank = rng.choice(ranks)
        cards = {_card(r, suit) for r in ranks} | {_card(quad_rank, s) for s in range(4)}
        return sorted(cards)
    if kind == "steel_wheel":
        return [_card(r, suit) for r in (12, 0, 1, 2, 3)]
    if kind == "royal":
        low = rng.choice((7, 8))  # with or without the 9 below it
        return [_card(r, suit) for r in range(low, 13)]
    if kind == "two_quads_on_royal":
        quads = [_card(r, s) for r in (11, 12) for s in range(4)]
        return quads + [_card(r, suit) for r in (8, 9, 10)]
    raise ValueError(f"unknown plant {kind!r}; expected one of {PLANTS}")


def rich_hand(rng: random.Random, free: set[int] | None = None) -> tuple[int, ...]:
    """13 cards from ``free`` (default: the whole deck) with 1 to 3 planted combinations
    (a plant that does not fit, or needs a card already taken, is drawn again up to
    five times, then skipped), filled up with random cards, in random order."""
    free = set(range(52)) if free is None else set(free)
    cards: list[int] = []
    for _ in range(rng.choice((1, 1, 2, 2, 3))):
        for _attempt in range(5):  # a few tries to find one that fits
            plant = _planted(rng.choice(PLANTS), rng)
            if len(cards) + len(plant) <= 13 and set(plant) <= free - set(cards):
                cards += plant
                break
    cards += rng.sample(sorted(free - set(cards)), 13 - len(cards))
    rng.shuffle(cards)
    return tuple(cards)


def rich_hands(rng: random.Random, players: int = 2) -> list[tuple[int, ...]]:
    """``players`` hands of 13 distinct cards from one deck, each from ``rich_hand``."""
    free = set(range(52))
    hands = []
    for _ in range(players):
        hand = rich_hand(rng, free)
        free -= set(hand)
        hands.append(hand)
    return hands


def random_setting(
    hand,
    rng: random.Random,
    legal: bool = True,
    wheel: str = "low",
    suit_order: str | None = None,
    tries: int = 200,
) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """A random (front, middle, back) setting of ``hand``.

    A third of the time one four of a kind or straight flush of the hand (if it holds
    one) is kept whole in the back row; a quarter of the time three cards of a four of
    a kind (if any) go to the front as trips, the seed's example of a broken-up quad;
    otherwise the cards are dealt to the rows at random, which mostly breaks the
    combinations up. With ``legal`` the setting is
    legal under ``wheel`` and ``suit_order`` (random tries, then the first legal split
    in ``ref_all_splits`` order); without it, it may or may not be fouled.
    """
    hand = tuple(int(c) for c in hand)
    combos = R.ref_dealt_combinations(hand, None)
    quads = [five for kind, five, _ in combos if kind == "four_of_a_kind"]
    for _ in range(tries):
        cards = list(hand)
        rng.shuffle(cards)
        mode = rng.random()
        if combos and mode < 1 / 3:
            whole = list(rng.choice(combos)[1])
            rest = [c for c in cards if c not in whole]
            back = whole + rest[: 5 - len(whole)]
            rest = rest[5 - len(whole) :]
            front, middle = rest[:3], rest[3:]
        elif quads and mode < 1 / 3 + 1 / 4:
            quad = list(rng.choice(quads))
            rng.shuffle(quad)
            front = quad[:3]
            rest = [c for c in cards if c not in front]
            middle, back = rest[:5], rest[5:]
            if legal:  # trips in front are rarely legal at random: pick a legal split
                fits = [
                    (m, tuple(c for c in rest if c not in m))
                    for m in itertools.combinations(rest, 5)
                    if R.ref_is_legal(front, m, [c for c in rest if c not in m], wheel, suit_order)
                ]
                if fits:
                    middle, back = rng.choice(fits)
        else:
            front, middle, back = cards[:3], cards[3:8], cards[8:]
        if legal and R.ref_compare_rows(middle, back, wheel, suit_order) > 0:
            middle, back = back, middle
        setting = (tuple(front), tuple(middle), tuple(back))
        if not legal or R.ref_is_legal(*setting, wheel, suit_order):
            return setting
    return next(s for s in R.ref_all_splits(hand) if R.ref_is_legal(*s, wheel, suit_order))


def rich_pairs(
    rng: random.Random,
    n: int,
    wheel: str = "low",
    suit_order: str | None = None,
    foul_rate: float = 0.1,
) -> Iterator[tuple[tuple, tuple]]:
    """``n`` pairs of settings of two disjoint rich hands. Each setting is legal (under
    ``wheel`` and ``suit_order``) except for a share ``foul_rate`` of them, which are
    random splits (fouled or not, as they fall)."""
    for _ in range(n):
        a, b = rich_hands(rng, 2)
        yield tuple(
            random_setting(
                h, rng, legal=rng.random() >= foul_rate, wheel=wheel, suit_order=suit_order
            )
            for h in (a, b)
        )


# ------------------------------------------------------------------ special hands
#
# Hands rich in each natural of docs/rules.md#special-hands: uniformly random hands hold
# one of them about once in a hundred deals or far less (four of them never in a
# lifetime), so ``natural_hand`` builds them, ``near_miss`` moves one card of such a hand
# (a card swapped for one from outside, which mostly breaks the natural and sometimes
# keeps it or makes another), and ``tie_twin`` gives another hand with the same ranks in
# other suits where it can (for the tie rules). Deterministic for a given
# ``random.Random``; hands are tuples of 13 distinct card ids in random order.

#: Every natural ``natural_hand`` builds (the names of a ruleset's ``[naturals]``).
NATURAL_KINDS = tuple(n for n in R.NATURAL_NAMES if n not in R.BIG_DECK_NATURALS)  # 52 cards


def _run_ranks(rng: random.Random, n: int) -> list[int]:
    """The ranks of a random n-card run (3 or 5): A-2-3 (A-2-3-4-5) up to Q-K-A
    (T-J-Q-K-A); K-A-2 is not a run."""
    low = rng.randrange(-1, 13 - n + 1)  # -1: the run starts with the ace
    return [12 if r == -1 else r for r in range(low, low + n)]


def _cards_of(ranks_counts: list[tuple[int, int]], rng: random.Random) -> list[int]:
    """``count`` cards of each rank, suits at random."""
    return [_card(r, s) for r, n in ranks_counts for s in rng.sample(range(4), n)]


def _rows_hand(rng: random.Random, straight: bool, flush: bool) -> list[int]:
    """Three rows (3, 5, 5 cards), each a run when ``straight`` and of one suit when
    ``flush``, holding 13 distinct cards (drawn again until they do)."""
    while True:
        cards: list[int] = []
        for n in (3, 5, 5):
            suit = rng.randrange(4)
            ranks = _run_ranks(rng, n) if straight else rng.sample(range(13), n)
            for r in ranks:
                s = suit if flush else (suit if rng.random() < 0.3 else rng.randrange(4))
                cards.append(_card(r, s))
        if len(set(cards)) == 13:
            return cards


def _natural_cards(name: str, rng: random.Random) -> list[int]:
    deck = range(52)
    if name == "royal_dragon":
        suit = rng.randrange(4)
        return [_card(r, suit) for r in range(13)]
    if name == "dragon":
        suit = rng.randrange(4)  # often one suit for a run of ranks: straight flushes
        return [_card(r, suit if rng.random() < 0.4 else rng.randrange(4)) for r in range(13)]
    if name == "twelve_royals":
        return rng.sample([c for c in deck if rank_of(c) >= 9], 13)
    if name == "twelve_royals_and_one":  # twelve J to A and (mostly) one lower card
        royals = rng.sample([c for c in deck if rank_of(c) >= 9], 13)
        if rng.random() < 0.8:
            royals[0] = rng.choice([c for c in deck if rank_of(c) < 9])
        return royals
    if name == "three_straight_flushes":
        return _rows_hand(rng, straight=True, flush=True)
    if name == "three_quads":
        ranks = rng.sample(range(13), 3)
        return [_card(r, s) for r in ranks for s in range(4)] + [
            rng.choice([c for c in deck if rank_of(c) not in ranks])
        ]
    if name == "all_high":
        return rng.sample([c for c in deck if rank_of(c) >= 6], 13)
    if name == "all_low":
        return rng.sample([c for c in deck if rank_of(c) <= 6], 13)
    if name in ("one_colour", "twelve_one_colour"):
        red = rng.random() < 0.5
        same = [c for c in deck if (suit_of(c) in (1, 2)) == red]
        other = [c for c in deck if (suit_of(c) in (1, 2)) != red]
        if name == "one_colour" or rng.random() < 0.25:
            return rng.sample(same, 13)
        return rng.sample(same, 12) + [rng.choice(other)]
    if name == "four_trips":
        ranks = rng.sample(range(13), 5)
        if rng.random() < 0.3:  # a four of a kind counts as a three of a kind
            return _cards_of([(ranks[0], 4), (ranks[1], 3), (ranks[2], 3), (ranks[3], 3)], rng)
        return _cards_of([(r, 3) for r in ranks[:4]] + [(ranks[4], 1)], rng)
    if name == "five_pairs_trips":
        ranks = rng.sample(range(13), 6)
        shape = rng.choice(("pairs", "pairs", "quad", "two_quads"))
        if shape == "pairs":
            groups = [(ranks[0], 3)] + [(r, 2) for r in ranks[1:6]]
        elif shape == "quad":  # a four of a kind counts as two pairs
            groups = [(ranks[0], 3), (ranks[1], 4)] + [(r, 2) for r in ranks[2:5]]
        else:
            groups = [(ranks[0], 3), (ranks[1], 4), (ranks[2], 4), (ranks[3], 2)]
        return _cards_of(groups, rng)
    if name == "six_pairs":
        ranks = rng.sample(range(13), 7)
        shape = rng.choice(("single", "trips", "quad", "two_quads"))
        if shape == "single":
            groups = [(r, 2) for r in ranks[:6]] + [(ranks[6], 1)]
        elif shape == "trips":  # trips count as one pair
            groups = [(ranks[0], 3)] + [(r, 2) for r in ranks[1:6]]
        elif shape == "quad":  # a quad as two pairs
            groups = [(ranks[0], 4)] + [(r, 2) for r in ranks[1:5]] + [(ranks[5], 1)]
        else:
            groups = [(ranks[0], 4), (ranks[1], 4), (ranks[2], 2), (ranks[3], 2), (ranks[4], 1)]
        return _cards_of(groups, rng)
    if name == "three_flushes":
        return _rows_hand(rng, straight=False, flush=True)
    if name == "three_straights":
        return _rows_hand(rng, straight=True, flush=False)
    raise ValueError(f"unknown natural {name!r}; expected one of {NATURAL_KINDS}")


def rank_of(card: int) -> int:
    return card // 4


def suit_of(card: int) -> int:
    return card % 4


def natural_hand(name: str, rng: random.Random) -> tuple[int, ...]:
    """A hand that holds natural ``name`` (it may hold others too), in random order."""
    cards = _natural_cards(name, rng)
    assert len(cards) == 13 and len(set(cards)) == 13, (name, cards)
    rng.shuffle(cards)
    return tuple(cards)


def near_miss(name: str, rng: random.Random) -> tuple[int, ...]:
    """A hand of natural ``name`` with one card swapped for a card from outside it:
    one card off the natural (whether it still holds it is the oracle's to say)."""
    cards = list(natural_hand(name, rng))
    out = rng.randrange(13)
    cards[out] = rng.choice([c for c in range(52) if c not in cards])
    return tuple(cards)


def tie_twin(hand: tuple[int, ...], rng: random.Random) -> tuple[int, ...]:
    """The hand with its suits renamed by a random permutation that keeps the two
    colours apart (clubs and spades black, diamonds and hearts red, or the two colours
    swapped): a hand of the same naturals with the same tie keys, since no natural looks
    at a suit's name (flushes stay flushes, one colour stays one colour): a tie."""
    black, red = rng.sample((0, 3), 2), rng.sample((1, 2), 2)
    if rng.random() < 0.5:
        black, red = red, black
    perm = {0: black[0], 3: black[1], 1: red[0], 2: red[1]}
    return tuple(_card(rank_of(c), perm[suit_of(c)]) for c in hand)
