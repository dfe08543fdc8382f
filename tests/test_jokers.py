"""Jokers at the evaluator (evaluator.jokers): card text and ids with jokers, the widened
tables against the copies scale, every entry of them against the oracle (a joker tries
every card: tests/reference.py) for both wheels, the exhaustive category counts of the
54-card deck (pinned, and derived by hand), the subsets of a hand holding two jokers,
and named rows."""

from __future__ import annotations

import itertools
import multiprocessing
import os
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from math import comb

import numpy as np
import pytest

import evaluator as ev
from evaluator import _kernels
from evaluator.jokers import NMULTI3_JOKERS, NMULTI5_JOKERS, WHEELS, get_joker_tables
from evaluator.tables import NMULTI3, NMULTI5, multiset_index
from tests import reference as ref
from tests.test_decks import _patterns

NAMES = ev.CATEGORY_NAMES_COPIES
J1, J2 = ev.JOKER_IDS
JOKER_RANK = ev.JOKER_FACE // 4


def _category(strengths) -> Counter:
    cats = ev.get_deck_tables().category[np.asarray(strengths)]
    return Counter(NAMES[c] for c in cats.tolist())


# ---------------------------------------------------------------- card text and ids


@pytest.mark.parametrize("code", ["X", "XX", "hX", "hcXX"])
@pytest.mark.parametrize("token", ["X", "x", "\U0001f0cf", "\U0001f0cf\ufe0f"])
def test_a_joker_is_read_in_any_spelling_and_written_x(code, token):
    ids = ev.parse_cards(f"As {token} Kd", extra_suits=code)
    assert ids.tolist() == [51, J1, 45]
    assert ev.format_cards(ids, code) == "As X Kd"
    assert ev.parse_cards(f"{token}As", extra_suits=code).tolist() == [J1, 51]  # no separator
    assert ev.parse_cards(f"As{token}", extra_suits=code).tolist() == [51, J1]


@pytest.mark.parametrize("code", ["XX", "hXX", "hcXX"])
def test_two_jokers_are_the_two_joker_ids(code):
    ids = ev.parse_cards("x As \U0001f0cf", extra_suits=code)
    assert ids.tolist() == [J1, 51, J2]
    assert ev.format_cards(ids, code) == "X As X"
    hand = ev.parse_hand("X X Ah Kh Qh Jh Th 9h 8h 7h 6h 5h 4h", code)
    assert hand[:2].tolist() == [J1, J2] and ev.format_cards(hand, code).startswith("X X Ah")


@pytest.mark.parametrize("code", ["", "h", "hc"])
@pytest.mark.parametrize("token", ["X", "x", "\U0001f0cf"])
def test_a_joker_on_a_deck_without_jokers_is_an_error_naming_its_position(code, token):
    with pytest.raises(ev.CardParseError) as err:
        ev.parse_cards(f"As Kd {token} Qc", extra_suits=code)
    message = str(err.value)
    assert "\n" not in message and "joker" in message and "position 3" in message
    assert err.value.position == 3


@pytest.mark.parametrize("code, text", [("X", "X As X"), ("hX", "X X"), ("XX", "X X As x")])
def test_more_jokers_than_the_deck_holds_is_an_error(code, text):
    with pytest.raises(ev.CardParseError) as err:
        ev.parse_cards(text, extra_suits=code)
    message = str(err.value)
    assert "\n" not in message and "the deck holds" in message
    assert err.value.position == len(text.split())  # the joker one too many: the last


@pytest.mark.parametrize("code", ["XXX", "Xh", "x", "hXXX"])
def test_a_deck_code_with_more_than_two_jokers_or_out_of_order_is_an_error(code):
    with pytest.raises(ev.CardParseError, match="extra_suits must be up to two of"):
        ev.deck_ids(code)


def test_joker_ids_are_cards_of_decks_with_jokers_only():
    for extra in ev.EXTRA_SUITS:
        plain = set(ev.deck_ids(extra).tolist())
        assert not plain & set(ev.JOKER_IDS)  # no added suit deals their face twice
        assert set(ev.deck_ids(extra + "X").tolist()) == plain | {J1}
        assert set(ev.deck_ids(extra + "XX").tolist()) == plain | {J1, J2}
    assert len(ev.deck_ids("XX")) == 54 and len(ev.deck_ids("hcXX")) == 80
    assert ev.faces_of(np.array([J1, J2, 51, 102])).tolist() == [ev.JOKER_FACE] * 2 + [51, 50]
    row = [J1, 51, 47, 43, 39]  # X As Ks Qs Js
    for extra in ("", "h", "hc"):
        with pytest.raises(ev.CardParseError, match=f"bad card id {J1}"):
            ev.evaluate5(row, extra)
        with pytest.raises(ev.CardParseError, match=f"bad card id {J1}"):
            ev.as_cards(row, extra_suits=extra)
    assert ev.evaluate5(row, "X") == ev.evaluate5(row, "XX") == ev.evaluate5(row, "hX")
    with pytest.raises(ev.CardParseError, match=f"bad card id {J2}: not a card of extra_suits"):
        ev.evaluate5([J2, 51, 47, 43, 39], "X")  # the second joker: a deck of two only
    assert ev.evaluate5([J2, 51, 47, 43, 39], "XX") == ev.evaluate5(row, "XX")
    with pytest.raises(ev.CardParseError, match="duplicate card in row 0"):
        ev.evaluate5([J1, J1, 47, 43, 39], "XX")  # one joker twice is no two jokers


# ---------------------------------------------------------------- the widened tables


def _entries(size: int, jokers: int):
    """Every rank multiset of ``size`` ranks holding ``jokers`` joker ranks: (the real
    ranks, sorted, and the index of the entry)."""
    for real in itertools.combinations_with_replacement(range(13), size - jokers):
        yield real, multiset_index(real + (JOKER_RANK,) * jokers)


@pytest.mark.parametrize("wheel", WHEELS)
def test_the_widened_tables_begin_with_the_copies_scale(wheel):
    d, j = ev.get_deck_tables(), get_joker_tables(wheel)
    assert len(j.multi5) == len(j.flush5) == NMULTI5_JOKERS == comb(14 + 4, 5) == 8568
    assert len(j.multi3) == NMULTI3_JOKERS == comb(14 + 2, 3) == 560
    assert (j.multi5[:NMULTI5] == d.multi5).all() and NMULTI5 == 6188
    assert (j.flush5[:NMULTI5] == d.flush5).all()
    assert (j.multi3[:NMULTI3] == d.multi3).all() and NMULTI3 == 455
    # Every entry with one or two jokers is filled, none with more. The one-suit table
    # holds the better of both readings: where no real rank is held more than twice it
    # is at least the other; where one is (no row of one suit has it) it is the other.
    filled5, filled3 = [], []
    order = np.arange(ev.NSTRENGTH_COPIES) if wheel == "low" else d.wheel_second
    for k in (1, 2):
        for real, idx in _entries(5, k):
            filled5.append(idx)
            assert order[j.flush5[idx]] >= order[j.multi5[idx]]
            if max(Counter(real).values()) > 2:
                assert j.flush5[idx] == j.multi5[idx]
        filled3 += [idx for _, idx in _entries(3, k)]
    wide5 = np.arange(NMULTI5, NMULTI5_JOKERS)
    wide3 = np.arange(NMULTI3, NMULTI3_JOKERS)
    assert wide5[j.multi5[NMULTI5:] >= 0].tolist() == sorted(filled5)
    assert wide5[j.flush5[NMULTI5:] >= 0].tolist() == sorted(filled5)
    assert wide3[j.multi3[NMULTI3:] >= 0].tolist() == sorted(filled3)
    assert len(filled5) == comb(16, 4) + comb(15, 3) and len(filled3) == comb(14, 2) + 13
    assert j.multi5.max() < ev.NSTRENGTH_COPIES and d.is_five[j.flush5[j.flush5 >= 0]].all()
    assert not d.is_five[j.multi3[j.multi3 >= 0]].any()
    assert d.is_five[j.multi5[j.multi5 >= 0]].all()


def test_fronts_do_not_depend_on_the_wheel():
    assert (get_joker_tables("low").multi3 == get_joker_tables("second").multi3).all()


# ---------------------------------------------------------------- every entry, oracle


def _entry_rows(real: tuple[int, ...], jokers: int, n: int) -> list[tuple[str, list[int]]]:
    """Rows of the entry of the real ranks ``real`` (sorted) and ``jokers`` jokers, as
    (deck code, ids): one not of one suit (a rank's cards are consecutive, so ``i % 4``
    gives them distinct suits, and the first two cards differ in suit), and one of one
    suit when the ranks allow it: the 54-card deck's (suit ``n % 4``) for distinct
    ranks, the hearts of "hXX", both copies, for a rank held twice. The jokers go in at
    a place that varies with ``n`` (the kernels sort)."""
    js = list(ev.JOKER_IDS[:jokers])
    at = n % (len(real) + 1)
    mixed = [r * 4 + i % 4 for i, r in enumerate(real)]
    rows = [("XX", mixed[:at] + js + mixed[at:])]
    most = max(Counter(real).values())
    if most == 1:
        rows.append(("XX", [r * 4 + n % 4 for r in real] + js))
    elif most == 2:
        one_suit: list[int] = []
        for r in real:
            card = r * 4 + 2
            one_suit.append(card + ev.FACES if card in one_suit else card)
        rows.append(("hXX", js + one_suit))
    return rows


def _five_card_entry_rows() -> list[tuple[str, list[int]]]:
    """The rows of every five-card entry with one or two jokers (``_entry_rows``)."""
    rows = []
    for k in (1, 2):
        for n, (real, _) in enumerate(_entries(5, k)):
            rows += _entry_rows(real, k, n)
    return rows


def _joker_free_classes() -> list[list[int]]:
    """One row of every class of the copies scale (11,648: fives and fronts), from the
    78-card deck (tests/test_decks.py)."""
    rows = []
    for size in (5, 3):
        for flush_row, _, other, _ in _patterns("hc", size):
            rows += [r for r in (flush_row, other) if r is not None]
    return rows


def _oracle_keys(rows: list[list[int]], wheel: str = "low") -> list[tuple]:
    """``ref.ref_key`` of every row, in a few processes when there are cores for them:
    the oracle tries 52 cards per joker (1,378 pairs for two), some 30 ms a row."""
    cores = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else range(2)
    workers = min(4, len(cores))
    if workers == 1:
        return [ref.ref_key(r, wheel) for r in rows]
    spawn = multiprocessing.get_context("spawn")  # no fork of a process running numba
    with ProcessPoolExecutor(workers, mp_context=spawn) as pool:
        return list(pool.map(ref.ref_key, rows, itertools.repeat(wheel), chunksize=16))


def _same_order(strengths: list[int], keys: list[tuple], rows: list) -> None:
    """Strength a < strength b exactly when key a < key b, and equal exactly when equal:
    sorted by key, each neighbour pair is ordered alike by strength."""
    by_key = sorted(range(len(keys)), key=keys.__getitem__)
    for a, b in itertools.pairwise(by_key):
        shown = [ev.format_cards(rows[i], "hcXX") for i in (a, b)]  # every deck's ids
        assert strengths[a] <= strengths[b], shown
        assert (keys[a] < keys[b]) == (strengths[a] < strengths[b]), shown


def _evaluate(code_rows: list[tuple[str, list[int]]], width: int) -> list[int]:
    """Strengths of rows of several decks, each on its own deck code (the one scale)."""
    f = ev.evaluate5 if width == 5 else ev.evaluate3
    codes = sorted({c for c, _ in code_rows})
    by_code = {c: iter(f(np.array([r for cc, r in code_rows if cc == c]), c)) for c in codes}
    return [int(next(by_code[code])) for code, _ in code_rows]


#: How many of the 897 five-card rows with both jokers (some 15 ms each to the oracle,
#: which tries 1,378 pairs of cards) the default run checks; the slow run checks them all.
TWO_JOKER_SAMPLE = 120


def _orders_like_the_oracle(sample: int | None) -> None:
    """Wheel low: one row of every entry with one joker and of ``sample`` entries with two
    drawn at random (every one: ``None``), each not of one suit and of one suit where the
    ranks allow it, every front with one or two jokers of the 54-card deck, and a row of
    every class without jokers: the evaluator's strengths are the oracle's keys, in order,
    one strength per key."""
    fives = _five_card_entry_rows()
    if sample is not None:
        two = [i for i, (_, r) in enumerate(fives) if J2 in r]
        left = set(np.random.default_rng(5).choice(two, len(two) - sample, replace=False))
        fives = [row for i, row in enumerate(fives) if i not in left]
    fronts = [("XX", list(c) + [J1]) for c in itertools.combinations(range(52), 2)]
    fronts += [("XX", [c, J1, J2]) for c in range(52)]
    assert len(fronts) == comb(52, 2) + 52
    plain = _joker_free_classes()
    strengths = _evaluate(fives, 5) + _evaluate(fronts, 3)
    plain5 = [r for r in plain if len(r) == 5]
    plain3 = [r for r in plain if len(r) == 3]
    strengths += ev.evaluate5(np.array(plain5), "hcXX").tolist()
    strengths += ev.evaluate3(np.array(plain3), "hcXX").tolist()
    rows = [r for _, r in fives] + [r for _, r in fronts] + plain5 + plain3
    _same_order(strengths, _oracle_keys(rows), rows)
    assert len(set(strengths)) == ev.NSTRENGTH_COPIES  # the joker-free rows: every class
    # the "XX" rows read alike on every deck code with two jokers
    xx = [r for c, r in fives if c == "XX"]
    assert (ev.evaluate5(np.array(xx), "XX") == ev.evaluate5(np.array(xx), "hcXX")).all()


def test_the_widened_tables_order_like_the_oracle():
    """Every entry with one joker, every front, every joker-free class, and
    ``TWO_JOKER_SAMPLE`` of the five-card rows with both jokers
    (``_orders_like_the_oracle``); every one of those is the slow test's."""
    _orders_like_the_oracle(TWO_JOKER_SAMPLE)


@pytest.mark.slow  # the oracle tries 1,378 pairs of cards for each of 897 rows
def test_every_entry_of_the_widened_tables_orders_like_the_oracle():
    """``_orders_like_the_oracle`` over every five-card row with both jokers too."""
    _orders_like_the_oracle(None)


def test_a_sample_of_entries_orders_like_the_oracle_with_the_wheel_second():
    """Wheel second, straight through the kernel with the tables of that wheel: the
    order of the strengths under ``wheel_second`` is the oracle's for wheel second, on
    300 of the rows of the entries with jokers, drawn at random, four rows beside the
    wheel, and a row of every joker-free five-card class."""
    rng = np.random.default_rng(2)
    fives = _five_card_entry_rows()
    sample = [fives[i][1] for i in sorted(rng.choice(len(fives), 300, replace=False))]
    # the straights a joker completes on either side of the wheel are always in
    wheelish = [[0, 5, 10, 15, J1], [0, 5, 10, J1, J2], [48, 1, 6, 11, J1], [48, 0, 4, J1, J2]]
    plain = [r for r in _joker_free_classes() if len(r) == 5]
    rows = sample + wheelish + plain
    t = get_joker_tables("second")
    faces = ev.faces_of(np.array(rows))
    out = np.empty(len(rows), np.int32)
    _kernels._eval5_batch_wild(faces, t.multi5, t.flush5, out)
    ordered = ev.get_deck_tables().wheel_second[out].tolist()
    _same_order(ordered, _oracle_keys(rows, "second"), rows)


# ---------------------------------------------------------------- exhaustive counts


#: Rows of the 54-card deck (52 cards, two jokers) by category, counted through
#: ``evaluate5(rows, "XX")`` / ``evaluate3`` over every row holding exactly one joker
#: (C(52, 4) = 270,725 five-card rows, C(52, 2) = 1,326 fronts) or exactly two (C(52, 3)
#: = 22,100 and 52), then written here (and equal to the derivation by hand below).
ONE_JOKER_FIVE = {
    "pair": 169_848,
    "three of a kind": 82_368,
    "straight": 10_332,
    "flush": 2_696,
    "full house": 2_808,
    "four of a kind": 2_496,
    "straight flush": 164,
    "five of a kind": 13,
}
TWO_JOKERS_FIVE = {
    "three of a kind": 13_320,
    "straight": 3_840,
    "flush": 888,
    "four of a kind": 3_744,
    "straight flush": 256,
    "five of a kind": 52,
}
ONE_JOKER_THREE = {"pair": 1_248, "three of a kind": 78}
TWO_JOKERS_THREE = {"three of a kind": 52}


def _rows_with_jokers(size: int, jokers: int) -> np.ndarray:
    real = np.array(list(itertools.combinations(range(52), size - jokers)), np.uint8)
    js = np.tile(np.array(ev.JOKER_IDS[:jokers], np.uint8), (len(real), 1))
    return np.concatenate([js, real], axis=1)


@pytest.mark.parametrize(
    "size, jokers, counts",
    [
        (5, 1, ONE_JOKER_FIVE),
        (5, 2, TWO_JOKERS_FIVE),
        (3, 1, ONE_JOKER_THREE),
        (3, 2, TWO_JOKERS_THREE),
    ],
)
def test_every_row_with_jokers_of_the_54_card_deck(size, jokers, counts):
    rows = _rows_with_jokers(size, jokers)
    assert len(rows) == comb(52, size - jokers)
    f = ev.evaluate5 if size == 5 else ev.evaluate3
    assert dict(_category(f(rows, "XX"))) == counts
    assert (f(rows, "hcXX") == f(rows, "XX")).all()  # the deck code's suits change no row


def _straight_sets(n: int) -> int:
    """How many sets of ``n`` distinct ranks lie inside a straight (a joker for each
    missing rank completes it), by listing the ten straights' subsets."""
    straights = [set(range(t - 4, t + 1)) for t in range(4, 13)] + [{12, 0, 1, 2, 3}]
    return len({frozenset(s) for st in straights for s in itertools.combinations(st, n)})


def test_the_counts_derived_by_hand():
    """The pinned counts, reasoned out. A joker copies the card that helps most, so:

    One joker, five cards (the other four from 52):
      - four of a rank + X: five of a kind, 13 x C(4, 4) = 13;
      - trips + a kicker: four of a kind, 13 C(4, 3) x 48 = 2,496;
      - two pairs: a full house, C(13, 2) C(4, 2)^2 = 2,808;
      - a pair + two other ranks: trips (a pair is of two suits: no flush, no straight),
        13 C(4, 2) x C(12, 2) 4^2 = 82,368;
      - four distinct ranks (C(13, 4) 4^4 = 183,040): a straight when they lie inside
        one (S4 = 41 sets: nine of the ten straights' five 4-sets, 50, less the 9 shared
        by neighbouring straights), a straight flush when of one suit (41 x 4 = 164)
        else 41 x (4^4 - 4) = 10,332; otherwise a flush (X copies the top card: a flush
        with a pair), 4 x (715 - 41) = 2,696, or a pair, 674 x 252 = 169,848.
    Two jokers, five cards (three from 52): trips + XX five of a kind, 13 x 4 = 52; a
    pair + a kicker four of a kind, 13 x 6 x 48 = 3,744 (never a full house, never below
    trips); three distinct ranks (C(13, 3) 4^3 = 18,304): S3 = 64 sets lie inside a
    straight (spans of at most 4: 9 x 6 + 3 + 1, and 6 with the ace low): straight
    flushes 64 x 4 = 256, straights 64 x 60 = 3,840; the rest flushes 222 x 4 = 888 and
    trips 222 x 60 = 13,320.
    Fronts: X + a pair trips, 13 x 6 = 78, else a pair of the higher card, 1,326 - 78;
    X X + any card trips, 52.
    """
    s4, s3 = _straight_sets(4), _straight_sets(3)
    assert (s4, s3) == (41, 9 * 6 + 3 + 1 + 6)
    distinct4, distinct3 = comb(13, 4), comb(13, 3)
    assert {
        "five of a kind": 13 * comb(4, 4),
        "four of a kind": 13 * comb(4, 3) * 48,
        "full house": comb(13, 2) * comb(4, 2) ** 2,
        "three of a kind": 13 * comb(4, 2) * comb(12, 2) * 4**2,
        "straight flush": s4 * 4,
        "straight": s4 * (4**4 - 4),
        "flush": (distinct4 - s4) * 4,
        "pair": (distinct4 - s4) * (4**4 - 4),
    } == ONE_JOKER_FIVE
    assert {
        "five of a kind": 13 * comb(4, 3),
        "four of a kind": 13 * comb(4, 2) * 48,
        "straight flush": s3 * 4,
        "straight": s3 * (4**3 - 4),
        "flush": (distinct3 - s3) * 4,
        "three of a kind": (distinct3 - s3) * (4**3 - 4),
    } == TWO_JOKERS_FIVE
    assert ONE_JOKER_THREE == {"three of a kind": 13 * comb(4, 2), "pair": comb(52, 2) - 78}
    assert TWO_JOKERS_THREE == {"three of a kind": 52}
    assert sum(ONE_JOKER_FIVE.values()) == comb(52, 4)
    assert sum(TWO_JOKERS_FIVE.values()) == comb(52, 3)
    assert sum(ONE_JOKER_THREE.values()) == comb(52, 2)


def test_a_joker_never_makes_a_plain_flush():
    """Four cards of one suit that make no straight: the joker copies the top card, a
    flush holding a pair, above every flush of five distinct ranks."""
    rows = _rows_with_jokers(5, 1)
    s = ev.evaluate5(rows, "XX")
    flushes = s[ev.get_deck_tables().category[s] == NAMES.index("flush")]
    best_plain = ev.evaluate5("Ah Kh Qh Jh 9h", "XX")
    assert len(flushes) == ONE_JOKER_FIVE["flush"] and (flushes > best_plain).all()
    assert len(np.unique(flushes)) == comb(13, 4) - _straight_sets(4)  # one per rank set


# ---------------------------------------------------------------- subsets of a hand


@pytest.mark.parametrize(
    "code, hand, best, best_front",
    [
        ("XX", "X X As Ad Kh Qh Jh Th 2c 3d 4s 5s 9c", "Ah Kh Qh Jh Th", "Ac Ad Ah"),
        ("hXX", "Ah X Ah Kh Qh Jh 2c X 2d 3s 4s 5s 9c", "Ah Kh Qh Jh Th", "Ac Ad Ah"),
        ("hcXX", "X 2c 2c 2h 2h 2d 2s X 3c 3c 4h 4h 5s", "2c 2c 2h 2h 2d", "5c 5d 5h"),
    ],
)
def test_subset_strengths_with_two_jokers(code, hand, best, best_front):
    """Every subset as the row functions value it; the strongest: with two jokers the
    royal flush (four to it and a joker), five deuces, and trips of the top card."""
    ids = ev.parse_hand(hand, code)
    h, s5, s3 = ev.subset_strengths(ids, code)
    assert sorted(h.tolist()) == sorted(ids.tolist()) and {J1, J2} <= set(h.tolist())
    assert (s5 == ev.evaluate5(h[ev.COMB5], code)).all()
    assert (s3 == ev.evaluate3(h[ev.COMB3], code)).all()
    assert int(s5.max()) == ev.evaluate5(best, "hc")
    assert int(s3.max()) == ev.evaluate3(best_front, "hc")


# ---------------------------------------------------------------- named rows


def _key(text: str, wheel: str = "low") -> tuple:
    cards = ref.ref_deck_cards(text, "h", jokers=2)
    return ref.ref_key5(cards, wheel) if len(cards) == 5 else ref.ref_key3(cards)


def test_named_rows():
    royal = ev.evaluate5("As Ks Qs Js X", "X")
    assert ev.is_royal(royal, "X")
    assert ref.ref_is_royal(ref.ref_deck_cards("As Ks Qs Js X", jokers=1))
    assert royal == ev.evaluate5("Ah Kh Qh Jh Th", "X")
    five = ev.evaluate5("X X As Ad Ac", "XX")
    assert ev.category_name(five, "XX") == "five of a kind"
    assert ref.ref_category5(ref.ref_deck_cards("X X As Ad Ac", jokers=2)) == "five of a kind"
    assert five == ev.evaluate5("Ah Ah Ad Ac As", "h") == ev.NSTRENGTH_COPIES - 1
    six_high = ev.evaluate5("2c 3d 4h 5s X", "X")
    assert six_high == ev.evaluate5("2c 3d 4h 5s 6h", "X") != ev.evaluate5("Ah 2c 3d 4h 5s", "X")
    assert _key("2c 3d 4h 5s X") == _key("2c 3d 4h 5s 6h")
    flush = ev.evaluate5("Ah Kh Qh 9h X", "X")
    plain = ev.evaluate5("Ah Kh Qh Jh 9h", "X")
    assert ev.category_name(flush, "X") == "flush" and flush == ev.evaluate5("Ah Ah Kh Qh 9h", "h")
    assert (flush > plain) == (_key("Ah Kh Qh 9h X") > _key("Ah Kh Qh Jh 9h")) is True
    front = ev.evaluate3("X 2c 3c", "X")
    assert ev.category_name(front, "X") == "pair" and front == ev.evaluate3("3d 3h 2c", "X")
    assert _key("X 2c 3c") == _key("3d 3h 2c")


def test_the_wheel_second_makes_the_joker_the_ace():
    """Beside 2-3-4-5 a joker is the six under wheel low, the ace (A-2-3-4-5 just below
    T-A) under wheel second."""
    texts = ("2c 3d 4h 5s X", "Ah 2c 3d 4h 5s", "2c 3d 4h 5s 6h")
    rows = np.array([ev.parse_cards(t, extra_suits="X") for t in texts])
    faces = ev.faces_of(rows)
    got = {}
    for wheel in WHEELS:
        t = get_joker_tables(wheel)
        out = np.empty(3, np.int32)
        _kernels._eval5_batch_wild(faces, t.multi5, t.flush5, out)
        got[wheel] = out.tolist()
    assert got["low"][0] == got["low"][2] and got["second"][0] == got["second"][1]
    assert _key("2c 3d 4h 5s X", "second") == _key("Ah 2c 3d 4h 5s", "second")
