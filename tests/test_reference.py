"""Hand-written checks of the oracle (tests/reference.py) against docs/rules.md."""

from __future__ import annotations

import itertools
import random
from collections import Counter
from types import SimpleNamespace

import pytest

try:  # tests/ on sys.path (pytest's default rootdir-less import) or tests as a package
    import reference as R
    import rich_hands as H
except ImportError:  # pragma: no cover
    from tests import reference as R
    from tests import rich_hands as H

C = R.ref_cards

DEFAULT_ROYALTIES = (
    ("front", "three_of_a_kind", 3),
    ("middle", "full_house", 2),
    ("middle", "four_of_a_kind", 8),
    ("middle", "straight_flush", 10),
    ("back", "four_of_a_kind", 4),
    ("back", "straight_flush", 5),
)
ROYAL_LINES = (("middle", "royal_flush", 14), ("back", "royal_flush", 7))
DEFAULT_NATURALS = (("dragon", 13), ("three_straights", 3), ("six_pairs", 3), ("three_flushes", 3))


def rules(**overrides):
    """A duck-typed stand-in for solver.engine.rules.Rules (chinese-1-6 defaults)."""
    base = dict(
        name="test",
        scoring="1-6",
        scoop_multiplier=1,
        royalty_mode="winner",
        one_royalty_per_hand=False,
        suit_order=None,
        wheel="low",
        surrender_cost=3,
        players=4,
        royalties=DEFAULT_ROYALTIES,
        naturals=DEFAULT_NATURALS,
    )
    base.update(overrides)
    return SimpleNamespace(**base)


def setting(front: str, middle: str, back: str):
    return (C(front), C(middle), C(back))


def check_disjoint(*settings):
    cards = [c for s in settings for row in s for c in row]
    assert len(cards) == len(set(cards)) == 13 * len(settings)


def key(text: str, wheel: str = "low"):
    return R.ref_key(C(text), wheel)


# ----------------------------------------------------------------- row keys


def test_ref_cards_ids():
    assert C("2c As 10h Td") == (0, 51, 34, 33)


def test_front_vs_middle_examples_from_rules():
    assert key("Kh Kd 5c") < key("Ks Kc 5d 3h 2s")
    assert key("Kh Kd Qc") > key("Ks Kc Jd 3h 2s")
    assert key("Ah Ad Ac") < key("As Ac Ad 3h 2s")
    # the same comparisons through ref_compare_rows, both ways round
    assert R.ref_compare_rows(C("Kh Kd 5c"), C("Ks Kc 5d 3h 2s")) == -1
    assert R.ref_compare_rows(C("Ks Kc Jd 3h 2s"), C("Kh Kd Qc")) == -1
    assert R.ref_compare_rows(C("As Ac Ad 3h 2s"), C("Ah Ad Ac")) == 1


def test_front_padding_is_below_a_deuce():
    # front A K Q sits above every 5-card A K J .. and below A K Q 3 2
    assert key("Ah Kd Qc") > key("As Kc Jd 9h 8s")
    assert key("Ah Kd Qc") < key("As Kc Qd 3h 2s")
    # front trips 2 beat any 5-card two pair, lose to any 5-card trips 2
    assert key("2h 2d 2c") > key("As Ac Kd Kh Qs")
    assert key("2h 2d 2s") < key("2c 2d 2h 4s 3c")


def test_category_order_five():
    rows = [
        "As Kd 9h 7c 3s",  # high card
        "As Ad 9h 7c 3s",  # pair
        "As Ad 9h 9c 3s",  # two pair
        "As Ad Ah 9c 3s",  # three of a kind
        "5s 4d 3h 2c As",  # straight (the wheel, lowest)
        "2s 4s 6s 8s Ts",  # flush
        "2s 2d 2h 3c 3s",  # full house
        "2s 2d 2h 2c 3s",  # four of a kind
        "5d 4d 3d 2d Ad",  # straight flush (steel wheel, lowest)
    ]
    keys = [key(r) for r in rows]
    assert keys == sorted(keys)
    assert len(set(keys)) == len(keys)
    assert [R.ref_category5(C(r)) for r in rows] == list(R.CATEGORY_NAMES)


def test_front_categories_ignore_straights_and_flushes():
    assert R.ref_category3(C("Qh Kh Ah")) == "high card"
    assert R.ref_category3(C("Qh Qd Ah")) == "pair"
    assert R.ref_category3(C("Qh Qd Qs")) == "three of a kind"
    assert key("Qh Kh Ah") < key("2c 2d 3h")  # suited run is only ace-high


def test_kickers_decide_within_a_category():
    assert key("As Ad Kh Qc 3s") > key("Ah Ac Kd Qs 2c")
    assert key("Ks Kd Qh Qc 2s") > key("Kh Kc Jd Js As")
    assert key("9s 9d 9h 2c 2s") > key("8h 8c 8d Ad As")
    assert key("As Ks Qs Js 9s") > key("Ad Kd Qd Jd 8d")
    assert key("As Kd Qh Jc 9s") == key("Ah Kc Qd Js 9h")


def test_wheel_low():
    wheel, six_high, broadway = "5s 4d 3h 2c Ad", "6s 5d 4h 3c 2h", "Ts Jd Qh Kc Ah"
    trips = "As Ah Ad Kc Qd"
    assert key(trips) < key(wheel) < key(six_high) < key(broadway)
    assert key("5d 4d 3d 2d Ad") < key("6h 5h 4h 3h 2h")


def test_wheel_second():
    wheel, king_high, broadway = "5s 4d 3h 2c Ad", "9s Td Jh Qc Kh", "Ts Jd Qh Kc Ah"
    six_high = "6s 5d 4h 3c 2h"
    w = "second"
    assert key(six_high, w) < key(king_high, w) < key(wheel, w) < key(broadway, w)
    assert key("5d 4d 3d 2d Ad", w) > key("9h Th Jh Qh Kh", w)
    assert key("5d 4d 3d 2d Ad", w) < key("Tc Jc Qc Kc Ac", w)
    # categories are unchanged: a second-ranked wheel is still below any flush
    assert key("5s 4d 3h 2c Ad", w) < key("2s 3s 4s 5s 7s", w)
    assert R.ref_compare_rows(C(wheel), C(king_high), wheel="low") == -1
    assert R.ref_compare_rows(C(wheel), C(king_high), wheel="second") == 1


def test_three_card_classes_exhaustive():
    keys = [R.ref_key3(h) for h in itertools.combinations(range(52), 3)]
    assert len(keys) == 22100
    assert len(set(keys)) == 455
    per_category = Counter(R.CATEGORY_NAMES[k[0]] for k in keys)
    assert per_category == {"high card": 18304, "pair": 3744, "three of a kind": 52}
    classes = Counter(R.CATEGORY_NAMES[k[0]] for k in set(keys))
    assert classes == {"high card": 286, "pair": 156, "three of a kind": 13}


FIVE_CARD_COUNTS = {
    "straight flush": 40,
    "four of a kind": 624,
    "full house": 3744,
    "flush": 5108,
    "straight": 10200,
    "three of a kind": 54912,
    "two pair": 123552,
    "pair": 1098240,
    "high card": 1302540,
}
FIVE_CARD_CLASSES = {
    "straight flush": 10,
    "four of a kind": 156,
    "full house": 156,
    "flush": 1277,
    "straight": 10,
    "three of a kind": 858,
    "two pair": 858,
    "pair": 2860,
    "high card": 1277,
}


def test_five_card_classes_by_rank_pattern():
    """Cheap equivalent of the exhaustive count: one representative per rank multiset
    (and per flush / not flush), weighted by how many of the 2,598,960 hands share it."""
    per_category: Counter = Counter()
    classes: dict[str, set] = {name: set() for name in R.CATEGORY_NAMES}
    all_keys = set()
    for ranks in itertools.combinations_with_replacement(range(13), 5):
        counts = Counter(ranks)
        if max(counts.values()) > 4:
            continue
        # representative: the i-th copy of a rank gets suit i (never a flush unless distinct)
        cards, seen = [], Counter()
        for r in ranks:
            cards.append(r * 4 + seen[r])
            seen[r] += 1
        if len(counts) == 5:
            # a non-flush with 5 distinct ranks: suits 0,0,0,0,1; and the flush: suits 0 x5
            variants = [([r * 4 for r in ranks[:4]] + [ranks[4] * 4 + 1], 4**5 - 4)]
            variants.append(([r * 4 for r in ranks], 4))
        else:
            weight = 1
            for n in counts.values():
                weight *= len(list(itertools.combinations(range(4), n)))
            variants = [(cards, weight)]
        for cs, weight in variants:
            k = R.ref_key5(cs)
            name = R.CATEGORY_NAMES[k[0]]
            per_category[name] += weight
            classes[name].add(k)
            all_keys.add(k)
    assert per_category == FIVE_CARD_COUNTS
    assert {n: len(s) for n, s in classes.items()} == FIVE_CARD_CLASSES
    assert len(all_keys) == 7462
    fronts = {R.ref_key3(h) for h in itertools.combinations(range(52), 3)}
    assert len(all_keys | fronts) == 7917


@pytest.mark.slow
def test_five_card_classes_exhaustive():
    """Every one of the 2,598,960 hands through the oracle under both wheel orders:
    ``ref_key5_orders`` reads each hand once for both (what ``ref_key5`` of each order
    gives: test_the_orders_of_the_wheel_are_ref_key5s below), half the Python work of
    two calls, which took 68 s here."""
    per_category: Counter = Counter()
    keys_low, keys_second = set(), set()
    for hand in itertools.combinations(range(52), 5):
        keys = R.ref_key5_orders(hand)
        k = keys["low"]
        per_category[R.CATEGORY_NAMES[k[0]]] += 1
        keys_low.add(k)
        keys_second.add(keys["second"])
    assert per_category == FIVE_CARD_COUNTS
    assert len(keys_low) == 7462
    assert len(keys_second) == 7462
    fronts = {R.ref_key3(h) for h in itertools.combinations(range(52), 3)}
    assert len(keys_low | fronts) == 7917


def test_the_orders_of_the_wheel_are_ref_key5s():
    """``ref_key5_orders`` (the exhaustive test's one read of a hand) is ``ref_key5``
    under each order, on random rows of the standard deck, on the wheel and its straight
    flush, on rows with copies (65 cards) and with jokers; a wrong order is refused."""
    rng = random.Random(55)
    rows = [tuple(rng.sample(range(52), 5)) for _ in range(3_000)]
    rows += [C("As 2d 3h 4c 5s"), C("Ah 2h 3h 4h 5h"), C("6s 2d 3h 4c 5s")]
    rows += [R.ref_deck_cards(t, "h") for t in ("Ah Ah Kh 5h 5h", "Ah Ah Kd 5c 9s")]
    rows.append(R.ref_deck_cards("X 2d 3h 4c 5s", jokers=2))  # a six-high, or the wheel
    for row in rows:
        assert R.ref_key5_orders(row) == {w: R.ref_key5(row, w) for w in R.WHEELS}, row
    wheel = R.ref_key5_orders(C("As 2d 3h 4c 5s"))
    assert wheel["low"] < R.ref_key5(C("6s 2d 3h 4c 5s")) < wheel["second"]
    with pytest.raises(ValueError, match="wheel must be"):
        R.ref_key5(C("As Kd 3h 4c 5s"), "high")


# ----------------------------------------------------------- decisive card, suits


def test_decisive_card():
    assert R.ref_decisive_card(C("Kh Kd Qs Qc 2s")) == C("Kh")[0]  # higher pair
    assert R.ref_decisive_card(C("3h 3d 3s Ac As")) == C("3s")[0]  # trips of a full house
    assert R.ref_decisive_card(C("5s 4d 3h 2c Ad")) == C("Ad")[0]  # the wheel: the ace
    assert R.ref_decisive_card(C("2h 9h 4h Jh 6h")) == C("Jh")[0]  # flush: highest card
    assert R.ref_decisive_card(C("7s 7d 2c 9h Kc")) == C("7s")[0]  # pair beats higher kicker
    assert R.ref_decisive_card(C("Qs 9d 4c")) == C("Qs")[0]  # front high card
    # among the cards of the decisive rank the strongest suit counts: clubs > diamonds
    # under "shcd" (not the id order, where diamonds > clubs)
    assert R.ref_decisive_card(C("Ac Ad 5h 6h 7h")) == C("Ad")[0]
    assert R.ref_decisive_card(C("Ac Ad 5h 6h 7h"), "shcd") == C("Ac")[0]


def test_suit_order_breaks_ties():
    a, b = C("9s 8d 7h 6c 5d"), C("9h 8s 7s 6s 5s")
    assert R.ref_compare_rows(a, b) == 0
    assert R.ref_compare_rows(a, b, suit_order="shcd") == 1
    assert R.ref_compare_rows(b, a, suit_order="shcd") == -1
    # two pair: the suit of the higher pair's best card decides, not the kicker
    a, b = C("Kc Kd 4c 4d As"), C("Kh Ks 4h 4s Ac")
    assert R.ref_compare_rows(a, b, suit_order="shcd") == -1
    # clubs beat diamonds under "shcd"
    a, b = C("Ac Th 9h"), C("Ad Ts 9s")
    assert R.ref_compare_rows(a, b, suit_order="shcd") == 1
    assert R.ref_compare_rows(a, b, suit_order="sdhc") == -1
    # a difference in rank is never overruled by suits
    assert R.ref_compare_rows(C("As Ks Qs Js 9s"), C("Ad Kd Qd Jd Td"), suit_order="shcd") == -1


def test_legality():
    assert R.ref_is_legal(C("Kh Kd 5c"), C("Ks Kc 5d 3h 2s"), C("7s 7c 7d 3c 2c"))
    assert not R.ref_is_legal(C("Kh Kd Qc"), C("Ks Kc Jd 3h 2s"), C("7s 7c 7d 3c 2c"))
    assert not R.ref_is_legal(C("2h 3d 5c"), C("7s 7c 7d 3c 2c"), C("Ks Kc Jd 3h 2s"))
    # equal middle and back are legal without a suit order; the suits decide with one
    front, middle, back = C("2h 3d 5c"), C("9s 8d 7h 6c 5d"), C("9h 8s 7s 6s 5s")
    assert R.ref_is_legal(front, middle, back)
    assert R.ref_is_legal(front, back, middle)
    assert not R.ref_is_legal(front, middle, back, suit_order="shcd")  # 9s over 9h
    assert R.ref_is_legal(front, back, middle, suit_order="shcd")
    # wheel position changes legality
    front, middle, back = C("2h 3d 6c"), C("5s 4d 3h 2c Ad"), C("9s Td Jh Qc Kh")
    assert R.ref_is_legal(front, middle, back, wheel="low")
    assert not R.ref_is_legal(front, middle, back, wheel="second")


# ------------------------------------------------------------------ royalties


def test_row_royalties():
    r = rules()
    assert R.ref_row_royalty("front", C("2h 2d 2c"), r) == 3
    assert R.ref_row_royalty("front", C("Ah Kh Qh"), r) == 0
    assert R.ref_row_royalty("middle", C("2h 2d 2c 5s 7s"), r) == 0
    assert R.ref_row_royalty("middle", C("2h 2d 2c 5s 5d"), r) == 2
    assert R.ref_row_royalty("back", C("2h 2d 2c 5s 5d"), r) == 0
    assert R.ref_row_royalty("middle", C("2h 2d 2c 2s 5d"), r) == 8
    assert R.ref_row_royalty("back", C("2h 2d 2c 2s 5d"), r) == 4
    assert R.ref_row_royalty("middle", C("5d 4d 3d 2d Ad"), r) == 10
    assert R.ref_row_royalty("back", C("5d 4d 3d 2d Ad"), r) == 5
    royal = C("Ts Js Qs Ks As")
    assert R.ref_row_royalty("middle", royal, r) == 10  # no royal line: straight flush line
    assert R.ref_row_royalty("back", royal, r) == 5
    r = rules(royalties=DEFAULT_ROYALTIES + ROYAL_LINES)
    assert R.ref_row_royalty("middle", royal, r) == 14
    assert R.ref_row_royalty("back", royal, r) == 7
    assert R.ref_row_royalty("back", C("9s Ts Js Qs Ks"), r) == 5
    r = rules(royalties=())
    assert R.ref_row_royalty("middle", royal, r) == 0
    assert R.ref_row_royalty("front", C("2h 2d 2c"), r) == 0


# ------------------------------------------------------------------ settlement

# A scoops B (pair/trips/flush against high card/two pair/straight), no royalties.
SCOOP_A = setting("Qh Qd 4c", "Jh Jd Js 5c 6d", "2s 5s 8s Ts Ks")
SCOOP_B = setting("7c 8d 9h", "Tc Td 3c 3d 4d", "2d 3h 4h 5h 6c")
# Another scooping A: full houses in the middle (royalty 2) and the back (none).
SCOOP_A_FH = setting("Qh Qd 4c", "6d 6h 6s 2c 2h", "Jh Jd Js 5c 5d")


def test_scoop_under_each_scoring_system():
    check_disjoint(SCOOP_A, SCOOP_B)
    for scoring, units in (("per-row", 3), ("1-6", 6), ("2-4", 4)):
        r = rules(scoring=scoring)
        assert R.ref_settle(SCOOP_A, SCOOP_B, r) == units
        assert R.ref_settle(SCOOP_B, SCOOP_A, r) == -units
    assert R.ref_settle(SCOOP_A, SCOOP_B, rules(scoring="per-row", scoop_multiplier=2)) == 6
    assert R.ref_settle(SCOOP_A, SCOOP_B, rules(scoring="1-6", scoop_multiplier=2)) == 12


def test_scoop_multiplier_includes_royalties():
    check_disjoint(SCOOP_A_FH, SCOOP_B)
    assert R.ref_settle(SCOOP_A_FH, SCOOP_B, rules()) == 8  # 6 + 2
    assert R.ref_settle(SCOOP_A_FH, SCOOP_B, rules(scoring="2-4")) == 6  # 4 + 2
    r = rules(scoring="per-row", scoop_multiplier=2)
    assert R.ref_settle(SCOOP_A_FH, SCOOP_B, r) == 10  # (3 + 2) * 2
    assert R.ref_settle(SCOOP_B, SCOOP_A_FH, r) == -10
    assert R.ref_settle(SCOOP_A_FH, SCOOP_B, rules(scoop_multiplier=2)) == 16  # (6 + 2) * 2
    assert R.ref_settle(SCOOP_A_FH, SCOOP_B, rules(royalties=())) == 6


def test_non_scoop_results():
    # A wins front and middle, loses back (B's back is a full house, no back royalty)
    b = setting("7c 8d 9h", "Tc Td 3c 3d 4d", "9c 9d 9s 8c 8h")
    check_disjoint(SCOOP_A, b)
    assert R.ref_row_results(SCOOP_A, b, rules()) == (1, 1, -1)
    assert R.ref_settle(SCOOP_A, b, rules(scoring="per-row")) == 1
    assert R.ref_settle(SCOOP_A, b, rules(scoring="1-6")) == 1
    assert R.ref_settle(SCOOP_A, b, rules(scoring="2-4")) == 2
    assert R.ref_settle(SCOOP_A, b, rules(scoring="per-row", scoop_multiplier=2)) == 1
    # A wins two rows and ties the front: no scoop, 2-4 still pays the extra unit
    b = setting("Qc Qs 4h", "Tc Td 3c 3d 4d", "2d 3h 4s 5h 6c")
    check_disjoint(SCOOP_A, b)
    assert R.ref_row_results(SCOOP_A, b, rules()) == (0, 1, 1)
    assert R.ref_settle(SCOOP_A, b, rules(scoring="per-row")) == 2
    assert R.ref_settle(SCOOP_A, b, rules(scoring="1-6")) == 2
    assert R.ref_settle(SCOOP_A, b, rules(scoring="2-4")) == 3
    assert R.ref_settle(SCOOP_A, b, rules(scoring="1-6", scoop_multiplier=2)) == 2
    # one win, one loss, one tie
    b = setting("Qc Qs 4h", "Ac Ad Ah 3d 4d", "2d 3h 4s 5h 6c")
    check_disjoint(SCOOP_A, b)
    assert R.ref_row_results(SCOOP_A, b, rules()) == (0, -1, 1)
    for scoring in ("per-row", "1-6", "2-4"):
        assert R.ref_settle(SCOOP_A, b, rules(scoring=scoring)) == 0
    # one win, two ties (the backs are flushes of the same ranks): 2-4 pays 1 + 1
    b = setting("Qc Qs 4h", "Ac Ad 3c 3d 4d", "2h 5h 8h Th Kh")
    check_disjoint(SCOOP_A, b)
    assert R.ref_row_results(SCOOP_A, b, rules()) == (0, 1, 0)
    assert R.ref_settle(SCOOP_A, b, rules(scoring="per-row")) == 1
    assert R.ref_settle(SCOOP_A, b, rules(scoring="1-6")) == 1
    assert R.ref_settle(SCOOP_A, b, rules(scoring="2-4")) == 2
    # suits break both ties: under "shcd" Qs beats Qh in front, spades beat hearts in back
    r = rules(scoring="2-4", suit_order="shcd")
    assert R.ref_row_results(SCOOP_A, b, r) == (-1, 1, 1)
    assert R.ref_settle(SCOOP_A, b, r) == 2
    # under "dshc" A's Qd beats Qs and A scoops
    r = rules(scoring="2-4", suit_order="dshc")
    assert R.ref_row_results(SCOOP_A, b, r) == (1, 1, 1)
    assert R.ref_settle(SCOOP_A, b, r) == 4


# Royalty hands: A loses front (222 vs AAA, both 3), loses middle (FH 2 vs quads 8),
# wins back (straight flush 5 vs quads 4). Row sum -1.
ROY_A = setting("2c 2d 2h", "5c 5d 5h 9c 9d", "6s 7s 8s 9s Ts")
ROY_B = setting("Ac Ad Ah", "Qc Qd Qh Qs 4c", "Kc Kd Kh Ks 3c")


def test_royalty_modes():
    check_disjoint(ROY_A, ROY_B)
    assert R.ref_row_results(ROY_A, ROY_B, rules()) == (-1, -1, 1)
    # winner: -1 - 3 - 8 + 5
    assert R.ref_settle(ROY_A, ROY_B, rules(royalty_mode="winner")) == -7
    assert R.ref_settle(ROY_B, ROY_A, rules(royalty_mode="winner")) == 7
    # cancel: every row has a royalty on both sides, none is paid
    assert R.ref_settle(ROY_A, ROY_B, rules(royalty_mode="cancel")) == -1
    # always: A is paid 3 + 2 + 5 = 10, B is paid 3 + 8 + 4 = 15
    assert R.ref_settle(ROY_A, ROY_B, rules(royalty_mode="always")) == -6
    assert R.ref_settle(ROY_B, ROY_A, rules(royalty_mode="always")) == 6
    # royalties off
    assert R.ref_settle(ROY_A, ROY_B, rules(royalties=())) == -1
    # 2-4: rows -1 - 1 (B won more rows), royalties as in winner mode: -2 - 3 - 8 + 5
    assert R.ref_settle(ROY_A, ROY_B, rules(scoring="2-4")) == -8


def test_cancel_pays_one_sided_rows():
    # A: front trips (3), B: front pair; middles: FH vs two pair; backs: quads vs quads
    a = setting("2c 2d 2h", "5c 5d 5h 9c 9d", "Jc Jd Jh Js 3c")
    b = setting("Ac Ad 7h", "Qc Qd 4h 4d 3d", "Kc Kd Kh Ks 6c")
    check_disjoint(a, b)
    assert R.ref_row_results(a, b, rules()) == (1, 1, -1)
    # winner: 1 + 3 + 2 - 4
    assert R.ref_settle(a, b, rules(royalty_mode="winner")) == 2
    # cancel: the back royalty is cancelled, the front and middle ones are paid
    assert R.ref_settle(a, b, rules(royalty_mode="cancel")) == 6
    # always: 9 - 4
    assert R.ref_settle(a, b, rules(royalty_mode="always")) == 6
    assert R.ref_settle(b, a, rules(royalty_mode="always")) == -6


def test_tied_row_pays_no_royalty_unless_suits_break_it():
    # backs: 9-high straight flushes of hearts and clubs; middles: quads T < quads J
    a = setting("2c 3d 7s", "Tc Td Th Ts 2h", "5h 6h 7h 8h 9h")
    b = setting("2d 3s 8d", "Jc Jd Jh Js 4d", "5c 6c 7c 8c 9c")
    check_disjoint(a, b)
    assert R.ref_row_results(a, b, rules()) == (-1, -1, 0)
    # winner: -2 rows - middle royalty 8, the tied back pays nothing
    assert R.ref_settle(a, b, rules()) == -10
    # always: A 8 + 5, B 8 + 5
    assert R.ref_settle(a, b, rules(royalty_mode="always")) == -2
    # hearts beat clubs: A wins the back and its straight flush royalty
    r = rules(suit_order="shcd")
    assert R.ref_row_results(a, b, r) == (-1, -1, 1)
    assert R.ref_settle(a, b, r) == -1 - 8 + 5
    # clubs strongest: B wins the back too, a scoop (the front is a rank difference)
    r = rules(suit_order="cdhs")
    assert R.ref_row_results(a, b, r) == (-1, -1, -1)
    assert R.ref_settle(a, b, r) == -6 - 8 - 5


def test_one_royalty_per_hand():
    check_disjoint(ROY_A, ROY_B)
    # A keeps only its back 5, B only its middle 8
    assert R.ref_settle(ROY_A, ROY_B, rules(one_royalty_per_hand=True)) == -1 - 8 + 5
    assert R.ref_settle(ROY_A, ROY_B, rules(one_royalty_per_hand=True, royalty_mode="always")) == (
        -1 + 5 - 8
    )
    # A keeps only the front trips (3 > 2): the middle FH royalty no longer counts
    a = setting("Ac Ad Ah", "5c 5d 5h 9c 9d", "Jc Jd Js 3c 3h")
    b = setting("2c 2d 7h", "Qc Qd 4h 4d 3d", "Kc Kd Kh 6c 6d")
    check_disjoint(a, b)
    assert R.ref_row_results(a, b, rules()) == (1, 1, -1)
    assert R.ref_settle(a, b, rules()) == 1 + 3 + 2
    assert R.ref_settle(a, b, rules(one_royalty_per_hand=True)) == 1 + 3
    # scooped opponent: only the single largest royalty is paid, then multiplied
    check_disjoint(SCOOP_A_FH, SCOOP_B)
    assert R.ref_settle(SCOOP_A_FH, SCOOP_B, rules(one_royalty_per_hand=True)) == 8


# B fouls: front trips aces above a middle pair; B's rows would otherwise win the front.
FOUL_B = setting("Ac Ad Ah", "Kc Kd 7c 8c 9d", "Qc Qs 3c 3d 6c")
# B fouls with a middle full house above its back (a royalty in the middle, like A's)
FOUL_B_FH = setting("Ac Ad 8h", "Kc Kd Kh 7c 7d", "Qc Qs 3c 3d 6c")


def test_one_fouled_hand():
    for b in (FOUL_B, FOUL_B_FH):
        check_disjoint(SCOOP_A_FH, b)
        assert not R.ref_is_legal(*b)
        assert R.ref_is_legal(*SCOOP_A_FH)
        assert R.ref_row_results(SCOOP_A_FH, b, rules()) == (1, 1, 1)
        # scooped, pays A's middle royalty 2, collects nothing (its own trips / FH void)
        for mode in ("winner", "cancel", "always"):
            r = rules(royalty_mode=mode)
            assert R.ref_settle(SCOOP_A_FH, b, r) == 8
            assert R.ref_settle(b, SCOOP_A_FH, r) == -8
        assert R.ref_settle(SCOOP_A_FH, b, rules(scoring="per-row")) == 5
        assert R.ref_settle(SCOOP_A_FH, b, rules(scoring="2-4")) == 6
        assert R.ref_settle(SCOOP_A_FH, b, rules(scoring="per-row", scoop_multiplier=2)) == 10
        assert R.ref_settle(SCOOP_A_FH, b, rules(royalties=())) == 6
    # a fouled hand is scooped even by a legal hand whose rows are all weaker
    weak = setting("2s 3s 4d", "5s 6s 7d 8h Th", "9h Jd Jh Ks 2h")
    check_disjoint(weak, FOUL_B)
    assert R.ref_is_legal(*weak)
    assert R.ref_settle(weak, FOUL_B, rules()) == 6
    assert R.ref_settle(FOUL_B, weak, rules(scoring="2-4")) == -4


def test_two_fouled_hands_settle_zero():
    a = setting("Jc Jd Js", "Th 2d 4s 5c 6d", "2s 5s 8s Ts Ks")  # trips front over high card
    check_disjoint(a, FOUL_B)
    assert not R.ref_is_legal(*a)
    for mode in ("winner", "cancel", "always"):
        assert R.ref_settle(a, FOUL_B, rules(royalty_mode=mode, scoop_multiplier=2)) == 0
        assert R.ref_settle(FOUL_B, a, rules(royalty_mode=mode)) == 0


def test_wheel_setting_in_settlement():
    a = setting("2c 3d 7s", "8c 8d 4h 4d Jc", "5s 4c 3h 2h Ad")
    b = setting("2d 3s 7c", "8h 8s 4s Kc Kd", "9s Td Jh Qc Kh")
    check_disjoint(a, b)
    assert R.ref_is_legal(*a) and R.ref_is_legal(*b)
    # front tie (7-3-2 each), middle lost (eights and fours < kings and eights)
    assert R.ref_settle(a, b, rules(wheel="low")) == -2
    assert R.ref_settle(a, b, rules(wheel="second")) == 0
    assert R.ref_settle(a, b, rules(wheel="second", scoring="2-4")) == 0


def test_settle_is_antisymmetric():
    rng = random.Random(20240601)
    variants = [
        rules(),
        rules(scoring="2-4", royalty_mode="cancel"),
        rules(
            scoring="per-row",
            scoop_multiplier=2,
            suit_order="shcd",
            wheel="second",
            royalties=DEFAULT_ROYALTIES + ROYAL_LINES,
        ),
        rules(royalty_mode="always", one_royalty_per_hand=True),
    ]
    for _ in range(200):
        deck = list(range(52))
        rng.shuffle(deck)
        a = (deck[0:3], deck[3:8], deck[8:13])
        b = (deck[13:16], deck[16:21], deck[21:26])
        for r in variants:
            assert R.ref_settle(a, b, r) == -R.ref_settle(b, a, r)


# -------------------------------------------------------------------- naturals

DRAGON = C("2c 3d 4h 5s 6c 7d 8h 9s Tc Jd Qh Ks Ad")


def test_dragon():
    found = R.ref_naturals(DRAGON, rules())
    assert [name for name, _ in found] == ["dragon", "three_straights"]
    assert found[0] == ("dragon", ())
    # best split: back T-A, middle 5-9, front 2-3-4
    assert found[1][1] == (
        R.ref_key5(C("Tc Jd Qh Ks Ad")),
        R.ref_key5(C("5s 6c 7d 8h 9s")),
        R.ref_key3(C("2c 3d 4h")),
    )
    assert R.ref_best_natural(DRAGON, rules()) == ("dragon", ())
    assert R.ref_naturals(C("2c 3d 4h 5s 6c 7d 8h 9s Tc Jd Qh Ks Kd"), rules()) == []


def test_six_pairs():
    hand = C("2c 2d 3c 3d 4c 4d 5c 5d 6c 6d 7c 7d As")
    assert R.ref_naturals(hand, rules()) == [("six_pairs", (5, 4, 3, 2, 1, 0))]
    # quads count as two pairs
    hand = C("Ac Ad Ah As Kc Kd Qc Qd Jc Jd Tc Td 9s")
    assert R.ref_naturals(hand, rules()) == [("six_pairs", (12, 12, 11, 10, 9, 8))]
    # trips count as one pair
    hand = C("Ac Ad Ah Kc Kd Qc Qd Jc Jd Tc Td 9s 9d")
    assert R.ref_naturals(hand, rules()) == [("six_pairs", (12, 11, 10, 9, 8, 7))]
    # two trips and three pairs make only five pairs
    hand = C("Ac Ad Ah Kc Kd Ks Qc Qd Jc Jd Tc Td 9s")
    assert R.ref_naturals(hand, rules()) == []


def test_three_straights():
    hand = C("Ac 2d 3h 3c 4d 5h 6s 7c 5c 6d 7h 8s 9c")  # A-2-3 front counts
    assert R.ref_naturals(hand, rules()) == [
        (
            "three_straights",
            (
                R.ref_key5(C("5c 6d 7h 8s 9c")),
                R.ref_key5(C("3c 4d 5h 6s 7c")),
                R.ref_key3(C("Ac 2d 3h")),
            ),
        )
    ]
    hand = C("Qc Kd Ah 2c 3d 4h 5s 6c 5d 6h 7s 8c 9d")  # Q-K-A front counts
    assert [n for n, _ in R.ref_naturals(hand, rules())] == ["three_straights"]
    hand = C("Kc Ad 2h 2c 3d 4h 5s 6c 5d 6h 7s 8c 9d")  # K-A-2 does not
    assert R.ref_naturals(hand, rules()) == []
    # the wheel position decides which straight is the back
    hand = C("Ac 2d 3h 4s 5c 9d Th Js Qc Kd 3c 4d 5h")
    wheel, king_high, front = C("Ac 2d 3h 4s 5c"), C("9d Th Js Qc Kd"), C("3c 4d 5h")
    assert R.ref_naturals(hand, rules()) == [
        ("three_straights", (R.ref_key5(king_high), R.ref_key5(wheel), R.ref_key3(front)))
    ]
    second = (R.ref_key5(wheel, "second"), R.ref_key5(king_high, "second"), R.ref_key3(front))
    assert R.ref_naturals(hand, rules(wheel="second")) == [("three_straights", second)]


def test_the_remembered_keys_are_the_keys_computed_afresh():
    """The oracle remembers a row's key and a hand's natural (``_cmp_key_of``,
    ``_natural_key_of``: docs/architecture.md#tests), the natural under the hand's cards
    sorted. Each remembered answer is the one computed afresh, and a natural's key is the
    same whatever the order of the hand's cards (each natural of a hand that holds it and
    of one a card off it, shuffled; each row of those hands under every suit order)."""
    rng = random.Random(55)
    for name in R.NATURAL_NAMES:
        if name in R.BIG_DECK_NATURALS:
            continue  # these need the copies of a deck with added suits
        for hand in (H.natural_hand(name, rng), H.near_miss(name, rng)):
            for wheel, split in (("low", False), ("second", True)):
                fresh = R._natural_key_of.__wrapped__(name, hand, wheel, split)
                shuffled = tuple(rng.sample(hand, 13))
                r = rules(wheel=wheel, split_ranks=split)
                assert R._natural_key(name, shuffled, r) == fresh, (name, R.ref_format(hand))
            for row in (hand[:3], hand[3:8], hand[8:]):
                for order in (None, "shdc", "cdhs"):
                    want = R._cmp_key_of.__wrapped__(tuple(row), "low", order)
                    assert R._cmp_key(list(row), "low", order) == want


def test_three_flushes_and_order():
    hand = C("2c 3c 7c 2d 3d 4d 5d 6d 4h 5h 6h 7h 8h")
    found = R.ref_naturals(hand, rules())
    assert found == [
        ("six_pairs", (5, 4, 3, 2, 1, 0)),
        (
            "three_flushes",
            (
                R.ref_key5(C("4h 5h 6h 7h 8h")),
                R.ref_key5(C("2d 3d 4d 5d 6d")),
                R.ref_key3(C("2c 3c 7c")),
            ),
        ),
    ]
    assert found[1][1][0] == (8, (6,))  # back: the 8-high straight flush
    assert R.ref_best_natural(hand, rules()) == found[0]
    # the ruleset's order decides which is the strongest
    r = rules(naturals=(("three_flushes", 5), ("six_pairs", 3)))
    assert R.ref_best_natural(hand, r) == found[1]
    assert R.ref_naturals(hand, rules(naturals=())) == []
    assert R.ref_best_natural(hand, rules(naturals=())) is None
    # best back among several: 8 hearts give a choice of front and rows
    hand = C("2h 3h 4h 9h Jh Qh Kh Ah 2s 5s 7s 8s Ts")
    key = dict(R.ref_naturals(hand, rules()))["three_flushes"]
    assert key == (
        R.ref_key5(C("9h Jh Qh Kh Ah")),
        R.ref_key5(C("2s 5s 7s 8s Ts")),
        R.ref_key3(C("2h 3h 4h")),
    )
    # four cards of each suit: no 5-card flush, so no three flushes (nor anything else)
    assert R.ref_naturals(C("2c 3c 7c Kc 3d 4d 5d 6d 4h 5h 6h 7h 8s"), rules()) == []
    # ... while the same ranks with 9c in place of Kc make three straights (7-8-9 front)
    hand = C("2c 3c 7c 9c 3d 4d 5d 6d 4h 5h 6h 7h 8s")
    assert [n for n, _ in R.ref_naturals(hand, rules())] == ["three_straights"]


def test_settle_naturals():
    r = rules()
    dragon, six = ("dragon", ()), ("six_pairs", (5, 4, 3, 2, 1, 0))
    six_hi = ("six_pairs", (6, 4, 3, 2, 1, 0))
    st_lo = ("three_straights", ((4, (7,)), (4, (5,)), (0, (2, 1, 0, -1, -1))))
    st_hi = ("three_straights", ((4, (8,)), (4, (4,)), (0, (2, 1, 0, -1, -1))))
    fl = ("three_flushes", ((5, (12, 5, 4, 3, 1)), (5, (9, 5, 4, 3, 0)), (0, (7, 6, 5, -1, -1))))
    assert R.ref_settle_natural(dragon, None, r) == 13
    assert R.ref_settle_natural(None, dragon, r) == -13
    assert R.ref_settle_natural(six, None, r) == 3
    assert R.ref_settle_natural(dragon, six, r) == 13
    assert R.ref_settle_natural(six, dragon, r) == -13
    assert R.ref_settle_natural(st_lo, six, r) == 3
    assert R.ref_settle_natural(fl, six, r) == -3
    assert R.ref_settle_natural(six_hi, six, r) == 3  # highest pair decides
    assert R.ref_settle_natural(six, six_hi, r) == -3
    assert R.ref_settle_natural(six, six, r) == 0  # full tie
    assert R.ref_settle_natural(dragon, dragon, r) == 0
    assert R.ref_settle_natural(st_hi, st_lo, r) == 3  # back first, despite lower middle
    assert R.ref_settle_natural(st_lo, st_hi, r) == -3
    assert R.ref_settle_natural(None, None, r) == 0
    # custom payouts: the stronger natural collects its own payout; no multiplier
    r = rules(naturals=(("six_pairs", 4), ("dragon", 20)), scoop_multiplier=2)
    assert R.ref_settle_natural(dragon, six, r) == -4
    assert R.ref_settle_natural(dragon, None, r) == 20


def test_six_pairs_tie_from_real_hands():
    a = C("2c 2d 3c 3d 4c 4d 5c 5d 6c 6d 7c 7d As")
    b = C("2h 2s 3h 3s 4h 4s 5h 5s 6h 6s 7h 7s Ah")
    na, nb = R.ref_best_natural(a, rules()), R.ref_best_natural(b, rules())
    assert R.ref_settle_natural(na, nb, rules()) == 0


# --------------------------------------------------------------- brute force


def test_all_splits():
    hand = C("2c 3d 4h 5s 6c 7d 8h 9s Tc Jd Qh Ks Ad")
    splits = list(R.ref_all_splits(hand))
    assert len(splits) == 72072
    assert len({(frozenset(f), frozenset(m), frozenset(b)) for f, m, b in splits}) == 72072
    assert all(sorted(f + m + b) == sorted(hand) for f, m, b in splits)
    assert {(len(f), len(m), len(b)) for f, m, b in splits} == {(3, 5, 5)}


QUADS_HAND = C("Ac Ad Ah As Kc Kd Kh Ks Qc Qd Qh 2c 3d")
FOULED_OPPONENT = setting("Jc Jd Js", "Tc 9d 8c 6s 5s", "4c 4d 4h 9c 7s")


def test_best_setting_against_fouled_opponent():
    opp = FOULED_OPPONENT
    assert not R.ref_is_legal(*opp)
    value, best, _ = R.ref_best_setting(QUADS_HAND, [opp], rules())
    # 6 for the scoop + front trips 3 + middle quads 8 + back quads 4
    assert value == 21
    front, middle, back = best
    assert R.ref_category3(front) == "three of a kind"
    assert R.ref_category5(middle) == R.ref_category5(back) == "four of a kind"
    assert R.ref_settle(best, opp, rules()) == 21
    value, _, _ = R.ref_best_setting(QUADS_HAND, [opp], rules(one_royalty_per_hand=True))
    assert value == 6 + 8
    value, _, _ = R.ref_best_setting(QUADS_HAND, [opp] * 3, rules(scoop_multiplier=2))
    assert value == 3 * 2 * 21


def test_best_setting_matches_settle_sum():
    rng = random.Random(7)
    deck = list(range(52))
    rng.shuffle(deck)
    hand = deck[:13]
    opps = []
    for i in (1, 2, 3):
        h = deck[13 * i : 13 * i + 13]
        opps.append(next(s for s in R.ref_all_splits(h) if R.ref_is_legal(*s)))
    r = rules(scoring="2-4", royalty_mode="always", suit_order="shcd")
    value, best, units = R.ref_best_setting(hand, opps, r)
    assert units == tuple(R.ref_settle(best, o, r) for o in opps)
    assert value == sum(units)
    assert R.ref_is_legal(*best, suit_order="shcd")
    # no split does better (checked on a sample of splits, every 97th)
    for s in itertools.islice(R.ref_all_splits(hand), 0, None, 97):
        assert sum(R.ref_settle(s, o, r) for o in opps) <= value


# ------------------------------------------------------ royalties for the dealt cards
#
# docs/rules.md#royalties-for-dealt-cards. Default table: a dealt four of a kind earns the
# back line 4, a straight flush 5 (a royal flush 7 where the back has a royal line).

DEALT = dict(royalties_dealt=True)

# The seed's example: four sevens dealt, three set as front trips, one in a middle
# straight. FOUR_SEVENS wins the front, loses the middle (straight < flush) and the back
# (flush < full house) against OPP_FLUSH_FH, which holds no dealt combination.
FOUR_SEVENS = setting("7c 7d 7h", "3s 4d 5c 6h 7s", "2h 9h Jh Qh Kh")
OPP_FLUSH_FH = setting("Ac Kd 2c", "As Ks Qs 9s 4s", "Tc Td Ts 3c 3d")
# Loses every row to FOUR_SEVENS and holds 8s 9s Ts Js Qs (a straight flush) broken up.
OPP_BROKEN_SF = setting("Qs Qc 2c", "2d 3c 4c 5d 6c", "8s 9s Ts Js Qd")


def dealt(text: str, **overrides):
    """(picked combinations as (hand, cards text), total) of ref_dealt_royalties."""
    picked, total = R.ref_dealt_royalties(C(text), rules(**DEALT, **overrides))
    return [(hand, R.ref_format(cards)) for hand, cards, _units in picked], total


def test_dealt_combinations_are_listed_with_the_back_line():
    hand = C("9c 9d 9h 9s 5s 6s 7s 8s Ah 2h 3h 4h 5h")
    found = R.ref_dealt_combinations(hand, rules())
    assert [(h, R.ref_format(c), u) for h, c, u in found] == [
        ("four_of_a_kind", "9c 9d 9h 9s", 4),
        ("straight_flush", "2h 3h 4h 5h Ah", 5),  # the steel wheel
        ("straight_flush", "5s 6s 7s 8s 9s", 5),  # shares 9s with the quad
    ]
    # the wheel setting does not matter: A-2-3-4-5 suited is a straight flush either way
    assert R.ref_dealt_combinations(hand, rules(wheel="second")) == found
    # the back line is paid, never the middle one (8 / 10); a missing line earns 0
    table = (("middle", "four_of_a_kind", 8), ("back", "straight_flush", 6))
    assert [u for _, _, u in R.ref_dealt_combinations(hand, rules(royalties=table))] == [0, 6, 6]
    assert R.ref_dealt_royalties(hand, rules(royalties=table))[1] == 12  # two SFs, 1 card apart
    assert R.ref_dealt_combinations(C("2c 3d 4h 5s 6c 7d 8h 9s Tc Jd Qh Ks Ad"), rules()) == []


def test_four_sevens_from_the_seed():
    a, b = FOUR_SEVENS, OPP_FLUSH_FH
    check_disjoint(a, b)
    assert R.ref_is_legal(*a) and R.ref_is_legal(*b)
    assert R.ref_row_results(a, b, rules()) == (1, -1, -1)
    assert dealt("7c 7d 7h 3s 4d 5c 6h 7s 2h 9h Jh Qh Kh") == (
        [("four_of_a_kind", "7c 7d 7h 7s")],
        4,
    )
    # without the rule: rows -1, front trips +3 (A won the front)
    assert R.ref_settle(a, b, rules()) == 2
    # with it: the four sevens are paid 4 as well, although no row holds them
    assert R.ref_settle(a, b, rules(**DEALT)) == 6
    assert R.ref_settle(b, a, rules(**DEALT)) == -6
    for mode in ("cancel", "always"):  # only A has royalties: every mode pays the same
        assert R.ref_settle(a, b, rules(**DEALT, royalty_mode=mode)) == 6
    # royalties off: nothing to pay, for the rows or the dealt cards
    assert R.ref_settle(a, b, rules(**DEALT, royalties=())) == -1
    assert dealt("7c 7d 7h 3s 4d 5c 6h 7s 2h 9h Jh Qh Kh", royalties=()) == ([], 0)


def test_two_disjoint_straight_flushes():
    assert dealt("2h 3h 4h 5h 6h 9s Ts Js Qs Ks Ac 7d 8c") == (
        [("straight_flush", "2h 3h 4h 5h 6h"), ("straight_flush", "9s Ts Js Qs Ks")],
        10,
    )
    # ten suited cards in a row hold six straight flushes; only 2-6 and 7-J share no card
    assert dealt("2h 3h 4h 5h 6h 7h 8h 9h Th Jh Ac Ad 5s") == (
        [("straight_flush", "2h 3h 4h 5h 6h"), ("straight_flush", "7h 8h 9h Th Jh")],
        10,
    )


def test_overlapping_straight_flushes_count_once():
    # six suited cards in sequence: 4-8 and 5-9 share four cards, one of them counts
    picked, total = dealt("4h 5h 6h 7h 8h 9h Ac Kd Qs Jc 2d 2s 3c")
    assert total == 5 and len(picked) == 1
    assert len(R.ref_dealt_combinations(C("4h 5h 6h 7h 8h 9h Ac Kd Qs Jc 2d 2s 3c"), rules())) == 2


def test_quad_sharing_a_card_with_a_straight_flush():
    hand = "9c 9d 9h 9s 5s 6s 7s 8s Ac Kd Qh 2d 3c"
    # one or the other, not both: the straight flush (5) beats the quad (4) ...
    assert dealt(hand) == ([("straight_flush", "5s 6s 7s 8s 9s")], 5)
    # ... and a table paying the quad more keeps the quad instead
    table = (("back", "four_of_a_kind", 6), ("back", "straight_flush", 5))
    assert dealt(hand, royalties=table) == ([("four_of_a_kind", "9c 9d 9h 9s")], 6)
    # a quad and a straight flush with no card in common are both paid
    assert dealt("9c 9d 9h 9s 4s 5s 6s 7s 8s Ac Kd Qh 2d")[1] == 9


def test_royal_flush_with_and_without_a_royal_line():
    hand = "Th Jh Qh Kh Ah 2c 3d 4s 6c 7d 8s 9c 9d"
    assert dealt(hand) == ([("royal_flush", "Th Jh Qh Kh Ah")], 5)  # the straight flush line
    assert dealt(hand, royalties=DEFAULT_ROYALTIES + ROYAL_LINES)[1] == 7
    # the back royal line is paid, not the middle's 14, even when no back SF line exists
    assert (
        dealt(hand, royalties=(("middle", "royal_flush", 14), ("back", "royal_flush", 7)))[1] == 7
    )
    assert dealt(hand, royalties=(("middle", "royal_flush", 14),))[1] == 0
    # 9-K and T-A of hearts overlap: the royal is kept where it pays more
    hand = "9h Th Jh Qh Kh Ah 2c 3d 4s 6c 7d 8s 9c"
    assert dealt(hand, royalties=DEFAULT_ROYALTIES + ROYAL_LINES) == (
        [("royal_flush", "Th Jh Qh Kh Ah")],
        7,
    )
    assert dealt(hand)[1] == 5


def test_rows_earn_no_royalty_for_quads_or_straight_flushes():
    r = rules(**DEALT)
    assert R.ref_row_royalty("back", C("2h 2d 2c 2s 5d"), r) == 0
    assert R.ref_row_royalty("middle", C("2h 2d 2c 2s 5d"), r) == 0
    assert R.ref_row_royalty("middle", C("5d 4d 3d 2d Ad"), r) == 0
    assert (
        R.ref_row_royalty("back", C("Ts Js Qs Ks As"), rules(**DEALT, royalties=ROYAL_LINES)) == 0
    )
    # front trips and a middle full house still earn theirs
    assert R.ref_row_royalty("front", C("2h 2d 2c"), r) == 3
    assert R.ref_row_royalty("middle", C("2h 2d 2c 5s 5d"), r) == 2
    # a quad kept whole in the back is paid as dealt cards: even when the row loses
    a = setting("3s 4d 5c", "6h 9h Jh Qh Kh", "7c 7d 7h 7s 2h")
    b = setting("Ac Kd 2c", "As Ks Qs 9s 4s", "Tc Td Ts Th 3d")
    check_disjoint(a, b)
    assert R.ref_row_results(a, b, rules()) == (-1, -1, -1)
    assert R.ref_settle(a, b, rules()) == -6 - 4  # winner: only B's back quads are paid
    assert R.ref_settle(a, b, rules(**DEALT)) == -6 + 4 - 4  # each quad is paid to its holder
    assert R.ref_settle(a, b, rules(**DEALT, scoop_multiplier=2)) == -12


def test_one_royalty_per_hand_with_dealt_royalties():
    # A: front trips 2 (a row royalty), four nines broken between middle and back.
    a = setting("2c 2d 2h", "9c Tc Jd Qd Kh", "9d 9h 9s 4c 4d")
    # B: front trips aces (B wins the front), a lower straight, a higher full house.
    b = setting("Ac Ad Ah", "3s 4h 5s 6s 7h", "Kc Kd Ks 7c 7d")
    check_disjoint(a, b)
    assert R.ref_is_legal(*a) and R.ref_is_legal(*b)
    assert R.ref_row_results(a, b, rules()) == (-1, 1, -1)
    assert dealt("2c 2d 2h 9c Tc Jd Qd Kh 9d 9h 9s 4c 4d") == (
        [("four_of_a_kind", "9c 9d 9h 9s")],
        4,
    )
    bigger = (("front", "three_of_a_kind", 5), ("back", "four_of_a_kind", 4))
    equal = (("front", "three_of_a_kind", 4), ("back", "four_of_a_kind", 4))
    # every royalty: rows -1, A's dealt quad +4, B's front trips -5 (A's trips lost)
    assert R.ref_settle(a, b, rules(**DEALT, royalties=bigger)) == -1 + 4 - 5
    # one per hand, the row royalty bigger: A keeps its front trips (5), lost with the row
    r = rules(**DEALT, royalties=bigger, one_royalty_per_hand=True)
    assert R.ref_settle(a, b, r) == -1 - 5
    # equal sizes: the dealt one is kept, and it is paid whoever wins the rows
    r = rules(**DEALT, royalties=equal, one_royalty_per_hand=True)
    assert R.ref_settle(a, b, r) == -1 + 4 - 4
    assert R.ref_settle(b, a, r) == 1 - 4 + 4
    # two quads each sharing a card with a royal flush: alone, the quads total 8 > 5; with
    # one royalty per hand only one counts, so the player's best pick is the straight flush
    hand = "Ac Ad Ah As Kc Kd Kh Ks Th Jh Qh 2c 3d"
    assert dealt(hand) == (
        [("four_of_a_kind", "Kc Kd Kh Ks"), ("four_of_a_kind", "Ac Ad Ah As")],
        8,
    )
    assert dealt(hand, one_royalty_per_hand=True) == ([("royal_flush", "Th Jh Qh Kh Ah")], 5)


def test_a_foul_voids_dealt_royalties():
    fouled = setting("7c 7d 7h", "2h 3s 4d 9h Qh", "5c 6h 7s Jh Kh")  # trips over high card
    b = OPP_BROKEN_SF
    check_disjoint(fouled, b)
    assert not R.ref_is_legal(*fouled) and R.ref_is_legal(*b)
    # scooped; its four sevens pay nothing; B collects its dealt straight flush (5)
    assert R.ref_settle(fouled, b, rules()) == -6
    assert R.ref_settle(fouled, b, rules(**DEALT)) == -6 - 5
    assert R.ref_settle(b, fouled, rules(**DEALT)) == 6 + 5
    assert R.ref_settle(fouled, b, rules(**DEALT, scoop_multiplier=2)) == -22
    for mode in ("cancel", "always"):
        assert R.ref_settle(fouled, b, rules(**DEALT, royalty_mode=mode)) == -11
    # two fouled hands settle 0, dealt royalties or not
    fouled_b = setting("Qs Qc Qd", "2d 3c 4c 5d 8s", "6c 9s Ts Js 2s")
    check_disjoint(fouled, fouled_b)
    assert R.ref_settle(fouled, fouled_b, rules(**DEALT)) == 0


def test_a_fouled_opponent_pays_dealt_royalties():
    fouled = setting("Qs Qc Qd", "2d 3c 4c 5d 8s", "6c 9s Ts Js 2s")  # holds 8s-Qs broken
    check_disjoint(FOUR_SEVENS, fouled)
    assert not R.ref_is_legal(*fouled)
    # scoop 6, front trips 3 as though won, the four sevens 4; the fouled SF pays nothing
    assert R.ref_settle(FOUR_SEVENS, fouled, rules(**DEALT)) == 6 + 3 + 4
    assert R.ref_settle(FOUR_SEVENS, fouled, rules(**DEALT, scoop_multiplier=2)) == 26
    assert R.ref_settle(FOUR_SEVENS, fouled, rules(**DEALT, royalty_mode="always")) == 13
    # one per hand: the dealt 4 is kept over the front's 3
    assert R.ref_settle(FOUR_SEVENS, fouled, rules(**DEALT, one_royalty_per_hand=True)) == 6 + 4


def test_scoop_multiplier_multiplies_dealt_royalties():
    a, b = FOUR_SEVENS, OPP_BROKEN_SF
    check_disjoint(a, b)
    assert R.ref_row_results(a, b, rules()) == (1, 1, 1)
    assert dealt("Qs Qc 2c 2d 3c 4c 5d 6c 8s 9s Ts Js Qd") == (
        [("straight_flush", "8s 9s Ts Js Qs")],
        5,
    )
    # scoop 6 + front trips 3 + A's four sevens 4 - B's straight flush 5 (B is scooped,
    # but its dealt royalty is still paid to it)
    assert R.ref_settle(a, b, rules(**DEALT)) == 8
    assert R.ref_settle(a, b, rules(**DEALT, scoop_multiplier=2)) == 16
    assert R.ref_settle(b, a, rules(**DEALT, scoop_multiplier=2)) == -16
    assert R.ref_settle(a, b, rules(scoop_multiplier=2)) == 18
    # per-row scoring, multiplier 3: (3 + 3 + 4 - 5) * 3
    assert R.ref_settle(a, b, rules(**DEALT, scoring="per-row", scoop_multiplier=3)) == 15


def test_cancel_mode_never_cancels_dealt_royalties():
    a = FOUR_SEVENS
    b = setting("Qs Qc Qd", "2d 3c 4c 5d 6c", "8s 9s Ts Js 2s")  # front trips, SF broken
    check_disjoint(a, b)
    assert R.ref_is_legal(*b)
    assert R.ref_row_results(a, b, rules()) == (-1, 1, 1)
    # winner: rows +1, B's front trips -3, dealt +4 - 5
    assert R.ref_settle(a, b, rules(**DEALT)) == 1 - 3 + 4 - 5
    # cancel: both fronts hold trips, so the front royalty is cancelled; the dealt ones stay
    assert R.ref_settle(a, b, rules(**DEALT, royalty_mode="cancel")) == 1 + 4 - 5
    assert R.ref_settle(a, b, rules(royalty_mode="cancel")) == 1
    # always: 3 - 3 for the fronts, 4 - 5 dealt
    assert R.ref_settle(a, b, rules(**DEALT, royalty_mode="always")) == 1 + 4 - 5


def test_naturals_ignore_royalties_dealt():
    hand = C("Ac Ad Ah As Kc Kd Kh Ks Qc Qd Jc Jd 2c")  # six pairs, two quads
    assert R.ref_naturals(hand, rules(**DEALT)) == R.ref_naturals(hand, rules())
    assert R.ref_best_natural(hand, rules(**DEALT)) == ("six_pairs", (12, 12, 11, 11, 10, 9))


DEALT_VARIANTS = [
    rules(**DEALT),
    rules(**DEALT, royalty_mode="cancel"),
    rules(**DEALT, royalty_mode="always", scoring="2-4"),
    rules(**DEALT, one_royalty_per_hand=True),
    rules(**DEALT, one_royalty_per_hand=True, royalty_mode="always", scoop_multiplier=2),
    rules(
        **DEALT,
        scoring="per-row",
        scoop_multiplier=2,
        suit_order="shcd",
        wheel="second",
        royalties=DEFAULT_ROYALTIES + ROYAL_LINES,
    ),
    rules(**DEALT, royalty_mode="cancel", scoop_multiplier=3, royalties=ROYAL_LINES),
]


def test_rich_hands_generator():
    """tests/rich_hands.py plants what it promises (the kernel tests rely on it)."""
    rng = random.Random(5)
    pairs = list(H.rich_pairs(rng, 200))
    hands = [s[0] + s[1] + s[2] for pair in pairs for s in pair]
    assert all(len(set(a[0] + a[1] + a[2] + b[0] + b[1] + b[2])) == 26 for a, b in pairs)
    combos = [R.ref_dealt_combinations(h, rules()) for h in hands]
    assert sum(bool(c) for c in combos) > 0.8 * len(hands)
    assert sum(len(c) >= 2 for c in combos) > 0.3 * len(hands)
    overlapping = sum(
        len(set(c[i][1]) & set(c[j][1])) > 0
        for c in combos
        for i in range(len(c))
        for j in range(i)
    )
    assert overlapping > 50
    settings_ = [s for pair in pairs for s in pair]
    legal = sum(R.ref_is_legal(*s) for s in settings_)
    assert 0.8 * len(settings_) < legal < len(settings_)  # ~10% random, some of them fouled
    # combinations broken up, kept whole in a row, and broken into front trips
    whole = sum(R.ref_key(s[2])[0] in (R.QUADS, R.STRAIGHT_FLUSH) for s in settings_)
    trips = sum(R.ref_key(s[0])[0] == R.TRIPS for s in settings_)
    assert whole > 50 and trips > 10
    assert len(settings_) - whole > 200


def test_dealt_settlement_is_antisymmetric_on_rich_pairs():
    rng = random.Random(20240610)
    for a, b in H.rich_pairs(rng, 150):
        for r in DEALT_VARIANTS:
            assert R.ref_settle(a, b, r) == -R.ref_settle(b, a, r)
    rng = random.Random(11)
    for a, b in H.rich_pairs(rng, 60, wheel="second", suit_order="shcd"):
        r = DEALT_VARIANTS[5]
        assert R.ref_settle(a, b, r) == -R.ref_settle(b, a, r)


def test_dealt_royalties_are_a_side_payment_inside_the_multiplier():
    """Without one royalty per hand, the dealt rule is: rows paid as if the table had no
    four of a kind / straight flush / royal lines, plus (dealt A - dealt B) for legal
    hands, multiplied with the rest on a scoop."""
    rng = random.Random(99)
    combo_hands = {"four_of_a_kind", "straight_flush", "royal_flush"}
    for a, b in H.rich_pairs(rng, 150):
        for r in DEALT_VARIANTS:
            if r.one_royalty_per_hand:
                continue
            plain = rules(
                **{k: v for k, v in vars(r).items() if k != "royalties_dealt"},
            )
            plain.royalties = tuple(line for line in r.royalties if line[1] not in combo_hands)
            legal_a = R.ref_is_legal(*a, r.wheel, r.suit_order)
            legal_b = R.ref_is_legal(*b, r.wheel, r.suit_order)
            da = R.ref_dealt_royalties(a[0] + a[1] + a[2], r)[1] if legal_a else 0
            db = R.ref_dealt_royalties(b[0] + b[1] + b[2], r)[1] if legal_b else 0
            results = R.ref_row_results(a, b, r)
            scoop = results in ((1, 1, 1), (-1, -1, -1))
            side = (da - db) * (r.scoop_multiplier if scoop else 1)
            if not legal_a and not legal_b:
                side = 0
            assert R.ref_settle(a, b, r) == R.ref_settle(a, b, plain) + side


def test_best_setting_breaks_the_four_sevens_up_only_under_royalties_dealt():
    """Brute force over the 72,072 splits: without the rule the quads stay whole in the
    back (3 units); with it the seed's setting is best (6 units)."""
    hand = C("7c 7d 7h 3s 4d 5c 6h 7s 2h 9h Jh Qh Kh")
    plain = R.ref_best_setting(hand, [OPP_FLUSH_FH], rules())
    assert plain.value == 3
    assert R.ref_format(plain.setting[2]) == "7c 7d 7h 7s Kh"
    assert R.ref_category5(plain.setting[1]) == "flush"
    best = R.ref_best_setting(hand, [OPP_FLUSH_FH], rules(**DEALT))
    assert best.value == 6 and best.units == (6,)
    assert best.setting == FOUR_SEVENS
    assert R.ref_settle(plain.setting, OPP_FLUSH_FH, rules(**DEALT)) == 3


# ----------------------------------------------------------------------- stakes
#
# docs/rules.md#stakes. Found by a search over random deals: at $100 a unit against the
# first opponent and $10 against the others, the player gives up the middle full house
# (a royalty against the weaker two) for a front pair that beats the first opponent's
# ace-high front and scoops it.

STAKES_HAND = C("Kh 9c 8h 8d 7s 6h 6d 6c 4h 4d 4c 2h 2d")
STAKES_OPPONENTS = [
    setting("Ac Td 4s", "Jh Tc 9s 9h 3d", "Ks Qs Qc Ts 2s"),
    setting("Qh 7d 5s", "Qd 5d 3s 3c 2c", "Ah Ad Jc 8s 6s"),
    setting("Jd 5c 3h", "Js Th 8c 7c 5h", "As Kd Kc 9d 7h"),
]


def test_staked_best_differs_from_the_unstaked_best():
    check_disjoint(*STAKES_OPPONENTS)
    assert not set(STAKES_HAND) & {c for s in STAKES_OPPONENTS for row in s for c in row}
    r = rules()
    plain = R.ref_best_setting(STAKES_HAND, STAKES_OPPONENTS, r)
    staked = R.ref_best_setting(STAKES_HAND, STAKES_OPPONENTS, r, stakes=(100, 10, 10))
    assert plain.setting == setting("Kh 9c 7s", "8h 8d 4h 4d 4c", "6h 6d 6c 2h 2d")
    assert staked.setting == setting("Kh 8h 8d", "9c 7s 6h 6d 6c", "4h 4d 4c 2h 2d")
    assert plain.units == (3, 8, 8) and plain.value == 19
    assert staked.units == (6, 6, 6) and staked.value == 100 * 6 + 10 * 6 + 10 * 6
    for best in (plain, staked):
        assert best.units == tuple(R.ref_settle(best.setting, o, r) for o in STAKES_OPPONENTS)
    # each is strictly better by its own measure
    assert sum(staked.units) < plain.value
    assert 100 * 3 + 10 * 8 + 10 * 8 < staked.value
    # stakes all equal change nothing but the scale; the order follows the opponents
    assert R.ref_best_setting(STAKES_HAND, STAKES_OPPONENTS, r, stakes=(10, 10, 10)) == (
        190,
        plain.setting,
        plain.units,
    )
    assert R.ref_best_setting(STAKES_HAND, STAKES_OPPONENTS, r, stakes=(10, 100, 10)).setting == (
        plain.setting
    )


@pytest.mark.parametrize(
    ("stakes", "message"),
    [((1, 1), "one stake per opponent"), ((1, 0, 1), "positive"), ((1, -2, 1), "positive")],
)
def test_bad_stakes(stakes, message):
    with pytest.raises(ValueError, match=message):
        R.ref_best_setting(STAKES_HAND, STAKES_OPPONENTS, rules(), stakes=stakes)


# ----------------------------------------------------------------- the home run

HR_A = setting("Ac Ad 4c", "Kc Kd Kh 2d 3d", "9h 9d 9s 9c 5d")
HR_B = setting("Qc Qd 5c", "Jc Jd 8h 8c 2c", "Th Tc Td 6c 6d")
HR_C = setting("Ks 8d 3c", "Js Jh 4d 4h 2h", "As Ah 7c 7d 2s")
HR_D = setting("Qh 6h 3h", "7s 7h 5s 5h Qs", "Ts 8s 6s 4s 3s")


def test_home_run_worked_example_by_hand():
    """docs/rules.md#a-home-run, the arithmetic done by hand: A scoops B, C and D for
    3 rows + 3 scoop + 4 (back four of a kind) = 10 each; B scoops C and D (6 each); C
    wins two rows of D's and loses one (1 + 0 = 1 under 1-6). With the home run x2, A's
    three pairs double and nothing else changes."""
    check_disjoint(HR_A, HR_B, HR_C, HR_D)
    off = rules()
    on = rules(home_run_multiplier=2, home_run_min_opponents=3)
    assert [R.ref_settle(HR_A, x, off) for x in (HR_B, HR_C, HR_D)] == [10, 10, 10]
    assert R.ref_settle(HR_B, HR_C, off) == R.ref_settle(HR_B, HR_D, off) == 6
    assert R.ref_settle(HR_C, HR_D, off) == 1
    table = [HR_A, HR_B, HR_C, HR_D]
    assert R.ref_settle_table(table, off) == [30, -10 + 12, -10 - 6 + 1, -10 - 6 - 1]
    assert R.ref_settle_table(table, on) == [60, -20 + 12, -20 - 6 + 1, -20 - 6 - 1]
    units = R.ref_table_units(table, on)
    assert units[0] == [0.0, 20, 20, 20] and units[1][2] == 6


def test_home_run_conditions_by_hand():
    on = rules(home_run_multiplier=3, home_run_min_opponents=2)
    # a tied row is not a win: A's front against the same ranks
    tie = setting("Ah As 4h", "7s 7h 5s 5h 6h", "Ts 8s 6s 3s Qs")
    assert R.ref_row_results(HR_A, tie, on) == (0, 1, 1)
    assert R.ref_settle_table([HR_A, HR_B, tie], on)[0] == 10 + R.ref_settle(HR_A, tie, on)
    # a fouled opponent is scooped; a fouled player scoops nobody
    fouled_d = (HR_D[0], HR_D[2], HR_D[1])
    assert R.ref_settle_table([HR_A, HR_B, fouled_d], on)[0] == 3 * (
        10 + R.ref_settle(HR_A, fouled_d, on)
    )
    fouled_a = (HR_A[0], HR_A[2], HR_A[1])
    assert R.ref_settle_table([fouled_a, HR_B, HR_C], on)[1] == 3 * (6 + 6)
    # a surrendered player is out: not counted, not scooped, its cost not multiplied
    assert R.ref_settle_table([HR_A, HR_B, HR_C, R.SURRENDER], on)[0] == 3 * 20 + 3
    assert R.ref_settle_table([HR_A, HR_B, R.SURRENDER, R.SURRENDER], on) == [
        10 + 6,
        -10 + 6,
        -6,
        -6,
    ]
    # a declared natural anywhere at the table: no home run
    dragon = R.ref_declare(("dragon", ()))
    assert R.ref_settle_table([HR_A, HR_B, HR_C, dragon], on)[0] == 10 + 10 - 13
    # fewer opponents than the minimum: none
    assert R.ref_settle_table([HR_A, HR_B], on) == [10, -10]
    assert R.ref_settle_table(
        [HR_A, HR_B], rules(home_run_multiplier=3, home_run_min_opponents=1)
    ) == [30, -30]
