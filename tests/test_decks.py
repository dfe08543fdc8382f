"""Decks with added suits (docs/rules.md#added-suits): card text with copies, and the
evaluator's copies scale, its exhaustive class counts for the 52-, 65- and 78-card decks
by formula and through the evaluator, and the evaluator against the oracle on rows rich
in copies."""

from __future__ import annotations

import itertools
from collections import Counter
from math import comb

import numpy as np
import pytest

import evaluator as ev
from tests import reference as ref

DECKS = {"": 0, "h": 1, "hc": 2}  # extra_suits -> suits dealt twice
NAMES = ev.CATEGORY_NAMES_COPIES
FLUSH = NAMES.index("flush")


# ---------------------------------------------------------------- the counts, by formula


def five_card_counts(e: int) -> dict[str, int]:
    """Rows of five of each category on a deck with ``e`` of its four suits dealt twice,
    by counting: ``n`` copies of each rank, ``4 - e`` suits of one copy of each card and
    ``e`` of two. A flush of five ranks, distinct, comes in ``(4 - e) + 2**5 e`` ways; a
    flush with a pair only in a doubled suit (both copies, and either copy of the three
    others: 8 ways), with two pairs in 2."""
    n = 4 + e
    flush_ways = (4 - e) + 2**5 * e
    distinct = comb(13, 5) - 10  # five ranks that are no straight
    pair_sets, two_pair_sets = 13 * comb(12, 3), comb(13, 2) * 11
    return {
        "high card": distinct * (n**5 - flush_ways),
        "pair": pair_sets * (comb(n, 2) * n**3 - 8 * e),
        "two pair": two_pair_sets * (comb(n, 2) ** 2 * n - 2 * e),
        "three of a kind": 13 * comb(12, 2) * comb(n, 3) * n**2,
        "straight": 10 * (n**5 - flush_ways),
        "flush": distinct * flush_ways + pair_sets * 8 * e + two_pair_sets * 2 * e,
        "full house": 13 * 12 * comb(n, 3) * comb(n, 2),
        "four of a kind": 13 * 12 * comb(n, 4) * n,
        "straight flush": 10 * flush_ways,
        "five of a kind": 13 * comb(n, 5),
    }


def three_card_counts(e: int) -> dict[str, int]:
    n = 4 + e
    return {
        "high card": comb(13, 3) * n**3,
        "pair": 13 * 12 * comb(n, 2) * n,
        "three of a kind": 13 * comb(n, 3),
    }


#: Distinct strengths of each category on the copies scale (five-card rows): the 52-card
#: classes, 13 five of a kind, and flushes holding a pair (13 x C(12, 3)) or two pairs
#: (C(13, 2) x 11).
COPIES_CLASSES = {
    "high card": 1277,
    "pair": 2860,
    "two pair": 858,
    "three of a kind": 858,
    "straight": 10,
    "flush": 1277 + 2860 + 858,
    "full house": 156,
    "four of a kind": 156,
    "straight flush": 10,
    "five of a kind": 13,
}


def test_the_formulas_are_the_pinned_52_card_counts():
    from tests.test_evaluator import CATEGORY_COUNTS

    counts = five_card_counts(0)
    assert [counts[n] for n in ev.CATEGORY_NAMES] == CATEGORY_COUNTS
    assert counts["five of a kind"] == 0
    assert three_card_counts(0) == {"high card": 18304, "pair": 3744, "three of a kind": 52}
    for extra, e in DECKS.items():
        cards = len(ev.deck_ids(extra))
        assert sum(five_card_counts(e).values()) == comb(cards, 5)
        assert sum(three_card_counts(e).values()) == comb(cards, 3)


# ---------------------------------------------------------------- the counts, by evaluator


def _patterns(extra: str, size: int):
    """Every rank multiset of ``size`` cards the deck makes, as (a flush row or None, its
    count; a row that is not a flush or None, its count): every rank/suit pattern, with
    how many rows of the deck share it (copies are different cards)."""
    ids = ev.deck_ids(extra).tolist()
    by_rank = {r: [c for c in ids if c % 52 // 4 == r] for r in range(13)}
    for ms in itertools.combinations_with_replacement(range(13), size):
        k = Counter(ms)
        if any(k[r] > len(by_rank[r]) for r in k):
            continue
        total = 1
        for r, m in k.items():
            total *= comb(len(by_rank[r]), m)
        flush_row, flush_n = None, 0
        for s in range(4):
            ways = 1
            for r, m in k.items():
                ways *= comb(sum(c % 4 == s for c in by_rank[r]), m)
            if ways and size == 5:
                flush_n += ways
                if flush_row is None:
                    flush_row = []
                    for r, m in k.items():
                        flush_row += [c for c in by_rank[r] if c % 4 == s][:m]
        other = None
        if total > flush_n:  # the first choice of cards, rank by rank, that is no flush
            choices = [itertools.combinations(by_rank[r], m) for r, m in sorted(k.items())]
            for pick in itertools.product(*choices):
                row = [c for part in pick for c in part]
                if size == 3 or len({c % 4 for c in row}) > 1:
                    other = row
                    break
        yield flush_row, flush_n, other, total - flush_n


def _evaluator_counts(extra: str, size: int) -> tuple[Counter, dict[str, set]]:
    rows, weights = [], []
    for flush_row, flush_n, other, other_n in _patterns(extra, size):
        for row, n in ((flush_row, flush_n), (other, other_n)):
            if row is not None and n:
                rows.append(row)
                weights.append(n)
    arr = np.array(rows, np.uint8)
    if extra:
        strengths = ev.evaluate5(arr, extra) if size == 5 else ev.evaluate3(arr, extra)
    else:
        strengths = ev.evaluate5(arr) if size == 5 else ev.evaluate3(arr)
    counts: Counter = Counter()
    classes: dict[str, set] = {}
    for s, n in zip(np.asarray(strengths).tolist(), weights, strict=True):
        name = NAMES[ev.category(s, extra)]
        counts[name] += n
        classes.setdefault(name, set()).add(s)
    return counts, classes


@pytest.mark.parametrize("extra", list(DECKS))
def test_five_card_counts_through_the_evaluator(extra):
    counts, classes = _evaluator_counts(extra, 5)
    expected = {k: v for k, v in five_card_counts(DECKS[extra]).items() if v}
    assert dict(counts) == expected
    sizes = {k: len(v) for k, v in classes.items()}
    if extra:
        assert sizes == COPIES_CLASSES
        assert sum(sizes.values()) == ev.NSTRENGTH_COPIES - 455
    else:
        from tests.test_evaluator import CLASS_COUNTS

        assert [sizes[n] for n in ev.CATEGORY_NAMES] == CLASS_COUNTS


@pytest.mark.parametrize("extra", list(DECKS))
def test_three_card_counts_through_the_evaluator(extra):
    counts, classes = _evaluator_counts(extra, 3)
    assert dict(counts) == three_card_counts(DECKS[extra])
    assert {k: len(v) for k, v in classes.items()} == {
        "high card": 286,
        "pair": 156,
        "three of a kind": 13,
    }


@pytest.mark.parametrize("extra", ["h", "hc"])
def test_every_three_card_row_of_the_deck(extra):
    """The exhaustive count itself for fronts (C(65, 3) and C(78, 3) rows)."""
    rows = np.array(list(itertools.combinations(ev.deck_ids(extra).tolist(), 3)), np.uint8)
    cats = Counter(NAMES[c] for c in ev.get_deck_tables().category[ev.evaluate3(rows, extra)])
    assert dict(cats) == three_card_counts(DECKS[extra])


def test_the_copies_scale_is_dense_and_shared():
    t = ev.get_deck_tables()
    five = np.unique(np.concatenate([t.multi5, t.flush5[t.flush5 >= 0]]))
    assert np.union1d(five, np.unique(t.multi3)).tolist() == list(range(ev.NSTRENGTH_COPIES))
    assert t.is_five[five].all() and not t.is_five[t.multi3].any()
    assert int(t.category.max()) == ev.FIVE_OF_A_KIND and t.royal.sum() == 1


def test_the_52_card_classes_keep_their_order_on_the_copies_scale():
    """Every 52-card class, in order of strength on the 52-card scale, is in the same
    order on the copies scale (a row's number differs, never its order)."""
    t = ev.get_tables()
    rng = np.random.default_rng(31)
    hands = rng.permuted(np.tile(np.arange(52, dtype=np.uint8), (20_000, 1)), axis=1)
    for rows, f in ((hands[:, :5], ev.evaluate5), (hands[:, 5:8], ev.evaluate3)):
        old, new = f(rows), f(rows, "h")
        order = np.argsort(old, kind="stable")
        assert (np.diff(new[order]) >= 0).all()
        assert ((np.diff(old[order]) == 0) == (np.diff(new[order]) == 0)).all()
    assert (ev.evaluate5(hands[:, :5], "hc") == ev.evaluate5(hands[:, :5], "h")).all()
    assert t.five.shape == (2_598_960,)  # the 52-card tables are the ones they were


# ---------------------------------------------------------------- rows that show the rules


@pytest.mark.parametrize(
    "weaker, stronger",
    [
        ("As Ks Qs Js Ts", "2h 2h 2c 2d 2s"),  # five of a kind above a straight flush
        ("Ah Ah Ad Ac Ks", "2h 2h 2c 2d 2s"),  # four of a kind below any five of a kind
        ("2c 2c 2d 2h 2s", "3h 3h 3c 3d 3s"),  # five of a kind by rank
        ("Ah Kh Qh Jh 9h", "2h 2h 3h 4h 6h"),  # a flush with a pair above a plain flush
        ("Ah Ah Kh Qh Jh", "2h 2h 3h 3h 5h"),  # two pairs above one pair
        ("Kh Kh Qh Qh Ah", "Ah Ah 2h 2h 3h"),  # the higher pair first
        ("Ah Ah 3h 3h Kh", "Ah Ah 4h 4h 2h"),  # then the lower pair
        ("Ah Ah 4h 4h 2h", "Ah Ah 4h 4h 3h"),  # then the fifth card
        ("Ah Ah Kh Qh Th", "Ah Ah Kh Qh Jh"),  # one pair: then the others from the top
        ("Ah Ah Kh Kh Qh", "2c 2d 2h 3c 3d"),  # a flush with pairs stays below a full house
    ],
)
def test_rows_of_the_added_suits(weaker, stronger):
    a, b = ev.evaluate5(weaker, "hc"), ev.evaluate5(stronger, "hc")
    assert a < b
    key = ref.ref_key5
    deck = ref.RefDeck("hc")
    assert key(deck.cards(weaker)) < key(deck.cards(stronger))


def test_copies_compare_equal_and_name_their_category():
    assert ev.evaluate5("Ah Ah Kh Qh Jh", "h") == ev.evaluate5("Ah Ah Kh Qh Jh", "hc")
    s = ev.evaluate5([50, 102, 46, 42, 38], "h")  # Ah (both copies) Kh Qh Jh, by id
    assert s == ev.evaluate5("Ah Ah Kh Qh Jh", "h") and ev.category_name(s, "h") == "flush"
    five = ev.evaluate5("Ah Ah Ad Ac As", "h")
    assert ev.category_name(five, "h") == "five of a kind" == NAMES[ev.FIVE_OF_A_KIND]
    assert five == ev.NSTRENGTH_COPIES - 1 and not ev.is_royal(five, "h")
    assert ev.is_royal(ev.evaluate5("Ah Kh Qh Jh Th", "h"), "h")
    assert ev.evaluate3("Ah Ah 2c", "h") > ev.evaluate3("Ah Ad 2c", "h") - 1  # equal pairs
    assert ev.evaluate3("Ah Ah 2c", "h") == ev.evaluate3("Ah Ad 2c", "h")


# ---------------------------------------------------------------- card text with copies


def test_card_text_with_copies():
    assert ev.parse_cards("Ah Ah Kh", extra_suits="h").tolist() == [50, 102, 46]
    assert ev.parse_cards("2c 2c", extra_suits="hc").tolist() == [0, 52]
    hand = ev.parse_hand("Ah Ah Kh Kh Qh 2c 3c 4c 5c 6c 7c 8c 9c", "h")
    assert ev.format_cards(hand, "h") == "Ah Ah Kh Kh Qh 2c 3c 4c 5c 6c 7c 8c 9c"
    assert len(set(hand.tolist())) == 13


@pytest.mark.parametrize(
    "text, extra, message",
    [
        ("Ah Ah", "", "duplicate card 'Ah'"),
        ("As As", "h", "duplicate card 'As': extra_suits = 'h' holds one As"),
        ("Ac Ac", "h", "duplicate card 'Ac': extra_suits = 'h' holds one Ac"),
        ("Ah Ah Ah", "hc", "3 times the card 'Ah': extra_suits = 'hc' holds two Ah"),
    ],
)
def test_copies_only_where_the_deck_has_them(text, extra, message):
    with pytest.raises(ev.CardParseError) as err:
        ev.parse_cards(text, extra_suits=extra)
    assert str(err.value) == message


def test_ids_are_checked_against_the_deck():
    with pytest.raises(ev.CardParseError, match="bad card id 100: not a card of extra_suits"):
        ev.evaluate5([50, 102, 46, 42, 100], "h")  # the second 2c is 加二色's only
    assert ev.evaluate5([50, 102, 46, 42, 100], "hc") > 0
    with pytest.raises(ev.CardParseError, match="duplicate card in row 1"):
        ev.evaluate5(np.array([[50, 102, 46, 42, 38], [50, 50, 46, 42, 38]]), "h")
    with pytest.raises(ev.CardParseError, match="extra_suits must be up to two of"):
        ev.parse_cards("Ah", extra_suits="d")  # the diamonds' second copies: the jokers' ids


def test_subset_strengths_on_a_deck_with_copies():
    hand = ev.parse_hand("Ah Ah Ad Ac As Kh Kh Qh Jh Th 9c 9d 9s", "h")
    h, s5, s3 = ev.subset_strengths(hand, "h")
    assert sorted(h.tolist()) == sorted(hand.tolist())
    assert (s5 == ev.evaluate5(h[ev.COMB5], "h")).all()
    assert (s3 == ev.evaluate3(h[ev.COMB3], "h")).all()
    assert ev.category_name(int(s5.max()), "h") == "five of a kind"


# ---------------------------------------------------------------- against the oracle


def _ref_key(row) -> tuple:
    return ref.ref_key5(row) if len(row) == 5 else ref.ref_key3(row)


def _agree(rows: list[list[int]], extra: str) -> int:
    """The evaluator orders ``rows`` (of 5 and of 3 cards, mixed) as the oracle does, on
    the one scale: equal strengths exactly for equal keys, and the same category."""
    five = [r for r in rows if len(r) == 5]
    three = [r for r in rows if len(r) == 3]
    strengths = [int(s) for s in ev.evaluate5(np.array(five, np.uint8), extra)] + [
        int(s) for s in ev.evaluate3(np.array(three, np.uint8), extra)
    ]
    keys = [_ref_key(r) for r in five + three]
    by_key = sorted(range(len(keys)), key=lambda i: keys[i])
    for a, b in zip(by_key, by_key[1:], strict=False):
        assert (keys[a] < keys[b]) == (strengths[a] < strengths[b]), (
            ref.ref_format((five + three)[a]),
            ref.ref_format((five + three)[b]),
        )
        assert strengths[a] <= strengths[b]
    for i, row in enumerate(five + three):
        name = ref.ref_category5(row) if len(row) == 5 else ref.ref_category3(row)
        assert ev.category_name(strengths[i], extra) == name
    return len(set(strengths))


def test_every_class_of_the_copies_scale_orders_like_the_oracle():
    """One row of every rank/suit pattern of the 78-card deck, fives and fronts: all
    11,648 classes, in the oracle's order."""
    rows = []
    for size in (5, 3):
        for flush_row, _, other, _ in _patterns("hc", size):
            rows += [r for r in (flush_row, other) if r is not None]
    assert _agree(rows, "hc") == ev.NSTRENGTH_COPIES


def _rich_rows(rng: np.random.Generator, extra: str, n: int) -> list[list[int]]:
    """Random rows of the deck, most of them full of copies: cards from a few ranks
    (five of a kind, full houses of copies), from the doubled suits only (flushes with
    pairs), or from the whole deck."""
    ids = ev.deck_ids(extra)
    doubled = [c for c in ids.tolist() if c % 4 in {"cdhs".index(s) for s in extra}]
    rows = []
    for i in range(n):
        size = 5 if i % 3 else 3
        kind = i % 4
        if kind == 0:  # one rank (five of a kind, trips of copies) or two
            ranks = rng.choice(13, size=1 + (i // 4) % 2, replace=False)
            pool = [c for c in ids.tolist() if c % 52 // 4 in ranks]
        elif kind == 1:  # one doubled suit, a few ranks
            suit = rng.choice([c % 4 for c in doubled])
            ranks = rng.choice(13, size=4, replace=False)
            pool = [c for c in doubled if c % 4 == suit and c % 52 // 4 in ranks]
        elif kind == 2:  # the doubled suits
            pool = doubled
        else:
            pool = ids.tolist()
        if len(pool) < size:
            pool = ids.tolist()
        rows.append([int(c) for c in rng.choice(pool, size=size, replace=False)])
    return rows


@pytest.mark.parametrize("extra", ["h", "hc"])
def test_generated_rows_rich_in_copies_match_the_oracle(extra):
    rng = np.random.default_rng(31 + len(extra))
    rows = _rich_rows(rng, extra, 6000)
    five = [r for r in rows if len(r) == 5]
    cats = Counter(ref.ref_category5(r) for r in five)
    copies = sum(any(c >= 52 for c in r) for r in rows)
    paired_flushes = sum(
        ref.ref_category5(r) == "flush" and len({c % 52 // 4 for c in r}) < 5 for r in five
    )
    assert cats["five of a kind"] > 50 and paired_flushes > 200 and copies > len(rows) // 2
    _agree(rows, extra)


# ---------------------------------------------------------------- the royalty key


def test_the_five_of_a_kind_royalty_key(tmp_path):
    from typer.testing import CliRunner

    from solver.cli import app
    from solver.engine.errors import RulesError
    from solver.engine.rules import PRESETS, load_rules

    for rules in PRESETS.values():  # no preset pays it: 0 in every row
        assert all(rules.royalty(row, "five_of_a_kind") == 0 for row in ("middle", "back"))
    path = tmp_path / "five.toml"
    path.write_text(
        'base = "shisanshui"\nextra_suits = "h"\nplayers = 5\n'
        "[royalties.middle]\nfull_house = 2\nfive_of_a_kind = 20\n"
        "[royalties.back]\nfive_of_a_kind = 10\n",
        encoding="utf-8",
    )
    rules = load_rules(path)
    assert rules.royalty("middle", "five_of_a_kind") == 20
    assert rules.royalty("back", "five of a kind") == 10  # the evaluator's category name
    shown = CliRunner().invoke(app, ["rules", str(path)])
    assert shown.exit_code == 0 and "five_of_a_kind wins 20" in shown.output
    assert "five_of_a_kind wins 10" in shown.output
    path.write_text("[royalties.front]\nfive_of_a_kind = 5\n", encoding="utf-8")
    with pytest.raises(RulesError, match="front row pays only 'three_of_a_kind'"):
        load_rules(path)
    path.write_text("[royalties.back]\nfive_of_a_kind = -1\n", encoding="utf-8")
    with pytest.raises(RulesError, match="royalties.back.five_of_a_kind"):
        load_rules(path)


def test_the_rules_page_shows_these_counts():
    """docs/rules.md#flushes-with-pairs: its table of rows per deck is the formulas'."""
    from pathlib import Path

    text = (Path(__file__).resolve().parent.parent / "docs" / "rules.md").read_text("utf-8")
    shown = {}
    for cards, total, five, sf, flush, paired in re_rows(text):
        shown[cards] = (total, five, sf, flush, paired)
    for extra, e in DECKS.items():
        c = five_card_counts(e)
        paired = c["flush"] - (comb(13, 5) - 10) * ((4 - e) + 32 * e)
        cards = len(ev.deck_ids(extra))
        want = (comb(cards, 5), c["five of a kind"], c["straight flush"], c["flush"], paired)
        assert shown[cards] == want, cards


def re_rows(text: str):
    import re

    for m in re.finditer(
        r"^\| (\d+) cards[^|]*\| ([\d,]+) \| ([\d,]+) \| ([\d,]+) \| ([\d,]+) \(([\d,]+)\) \|$",
        text,
        re.MULTILINE,
    ):
        yield (int(m[1]), *(int(g.replace(",", "")) for g in m.groups()[1:]))
