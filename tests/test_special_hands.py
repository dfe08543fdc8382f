"""The special hands of regional tables (docs/rules.md#special-hands) against the oracle.

Every natural a ruleset may list is detected by one kernel pass
(``solver.engine._kernels._find_natural``); here it is compared with the independent,
brute-force oracle (``tests/reference.py``: ``ref_naturals``, ``ref_best_natural``,
``ref_settle_natural``) on hands rich in each natural, hands one card off them
(``tests/rich_hands.py``: ``natural_hand``, ``near_miss``) and tied hands
(``tie_twin``), under several ``[naturals]`` orders (the 十三水 table's, reversed so that
the weakest payouts come first, and shuffled with random payouts), with the wheel low and
second. Counted facts pin how many of the 635,013,559,600 hands hold each natural that
depends on ranks or colours alone: the kernel over every pattern of rank (suit) counts,
each weighted by its number of hands, against a formula. Then the settings shown, the
settlement between naturals (``settle_natural``, ``solve``, the Monte Carlo opponents,
``capsa batch``), the names and the errors through the real command line.
"""

from __future__ import annotations

import dataclasses
import json
import random
from functools import lru_cache
from math import comb, factorial

import numpy as np
import pytest

from solver.engine import settlement as S
from solver.engine.compiled import compile_rules
from solver.engine.layout import NATURAL_CODES, NATURAL_NAMES_SHOWN, natural_label
from solver.engine.rules import (
    BIG_DECK_NATURALS,
    DEFAULT_NATURALS,
    PRESETS,
    Rules,
    load_rules,
    rules_from_dict,
)
from solver.engine.rules import NATURAL_NAMES as ALL_NATURAL_NAMES
from solver.engine.ruleset_files import to_toml
from tests import reference as R
from tests import rich_hands as RH
from tests.helpers import capsa_in

#: The naturals a 52-card hand can hold (tests/test_big_tables.py plays the others).
NATURAL_NAMES = tuple(n for n in ALL_NATURAL_NAMES if n not in BIG_DECK_NATURALS)

#: The 十三水 apps' payouts (docs/rules.md#special-hands), twelve of one colour added.
PAYOUTS = {
    "royal_dragon": 108,
    "dragon": 36,
    "twelve_royals": 24,
    "twelve_royals_and_one": 24,
    "three_straight_flushes": 22,
    "three_quads": 20,
    "all_high": 15,
    "all_low": 12,
    "one_colour": 10,
    "twelve_one_colour": 8,
    "four_trips": 6,
    "five_pairs_trips": 5,
    "six_pairs": 4,
    "three_flushes": 3,
    "three_straights": 3,
    # only decks with added suits make these (tests/test_big_tables.py)
    "eight_of_a_kind": 2,
    "seven_of_a_kind": 2,
    "two_fives_trips": 2,
    "six_of_a_kind": 2,
}
TABLE = tuple((n, PAYOUTS[n]) for n in NATURAL_NAMES)


def _shuffled(seed: int) -> tuple[tuple[str, int], ...]:
    rng = random.Random(seed)
    names = list(NATURAL_NAMES)
    rng.shuffle(names)
    return tuple((n, rng.randint(1, 50)) for n in names)


#: ``[naturals]`` orders: the table's, reversed (three straights at 3 units first, the
#: royal dragon at 108 last), and two shuffles with random payouts.
ORDERS = {
    "table": TABLE,
    "reversed": tuple(reversed(TABLE)),
    "shuffled-1": _shuffled(1),
    "shuffled-2": _shuffled(2),
}
#: Rulesets to start from: wheel low, no suit order; wheel second, suits s > h > c > d.
BASES = ("chinese-1-6", "shisanshui")


def house(base: str | Rules, naturals) -> Rules:
    r = PRESETS[base] if isinstance(base, str) else base
    return dataclasses.replace(r, name="house", naturals=tuple(naturals))


@lru_cache(maxsize=4096)
def _oracle(hand: tuple[int, ...], wheel: str) -> dict[str, tuple]:
    rules = house(PRESETS["chinese-1-6"], TABLE)
    rules = dataclasses.replace(rules, wheel=wheel)
    return dict(R.ref_naturals(hand, rules))


def oracle(hand, wheel: str) -> dict[str, tuple]:
    """Every natural the hand holds, with the oracle's tie key (cached: the keys do not
    depend on the order, and the brute force over splits is slow)."""
    return _oracle(tuple(sorted(int(c) for c in hand)), wheel)


def oracle_best(hand, rules: Rules):
    """The oracle's natural of ``hand`` under ``rules``: (name, key) or None."""
    held = oracle(hand, rules.wheel)
    for name, _ in rules.naturals:
        if name in held:
            return name, held[name]
    return None


def ids(hands) -> np.ndarray:
    return np.array([list(h) for h in hands], np.uint8)


def test_the_catalogue_is_one_list_everywhere():
    """The names a ruleset accepts, the kernel codes, the names shown and the oracle's
    list are the same nineteen (four of them only decks with added suits make), in
    docs/rules.md's order; the presets keep theirs."""
    assert len(ALL_NATURAL_NAMES) == 19 == len(set(ALL_NATURAL_NAMES))
    names = ALL_NATURAL_NAMES
    assert tuple(NATURAL_CODES) == names == tuple(NATURAL_NAMES_SHOWN) == R.NATURAL_NAMES
    assert BIG_DECK_NATURALS == R.BIG_DECK_NATURALS == ALL_NATURAL_NAMES[-4:]
    assert len(set(NATURAL_CODES.values())) == 19
    for name, shown in NATURAL_NAMES_SHOWN.items():
        assert natural_label(name) == (
            f"{shown.english} ({', '.join(shown.local)})" if shown.local else shown.english
        )
    assert natural_label("six_pairs") == "Six pairs (六对半, lục phé bôn)"
    assert natural_label("twelve_royals") == "Twelve royals"
    assert natural_label("twelve_royals_and_one") == "Twelve royals and one (十二皇族)"
    assert natural_label("twelve_one_colour") == "Twelve of one colour (12 lá đồng màu)"
    for name in ("chinese-1-6", "chinese-2-4", "capsa", "pusoy"):
        assert PRESETS[name].naturals == DEFAULT_NATURALS
    assert PRESETS["per-row"].naturals == ()
    # docs/rules.md#the-shisanshui-preset: the 13 special hands of atom-chen's 十三水
    # server, by payout (the catalogue's without twelve of one colour, and with its own
    # twelve royals: docs/rules.md#twelve-royals-and-one)
    shisanshui = PRESETS["shisanshui"].naturals
    assert sorted(n for n, _ in shisanshui) == sorted(
        n for n in NATURAL_NAMES if n not in ("twelve_one_colour", "twelve_royals")
    )
    assert [u for _, u in shisanshui] == [104, 52, 52, 52, 26, 26, 6, 6, 6, 6, 6, 6, 6]
    # docs/rules.md#the-mau-binh-preset: gameBinh's live code, sảnh rồng 64 and the others
    # 32, no đồng màu outside Tính Át rooms; docs/rules.md#the-mau-binh-rules-preset: the
    # comment above soSanhBai, six at 3 each
    assert PRESETS["mau-binh"].naturals == (
        ("dragon", 64), ("three_flushes", 32), ("three_straights", 32), ("six_pairs", 32),
    )  # fmt: skip
    assert PRESETS["mau-binh-rules"].naturals == (
        ("dragon", 3), ("one_colour", 3), ("twelve_one_colour", 3), ("three_flushes", 3),
        ("three_straights", 3), ("six_pairs", 3),
    )  # fmt: skip


def test_every_name_loads_in_order(tmp_path):
    """All fourteen in a file, a dict and Rules(...), strongest first as written; a TOML
    export reads back the same."""
    text = "[naturals]\n" + "".join(f"{n} = {u}\n" for n, u in ORDERS["shuffled-1"])
    path = tmp_path / "house.toml"
    path.write_text(text)
    from_file = load_rules(str(path))
    assert from_file.naturals == ORDERS["shuffled-1"]
    from_dict = rules_from_dict({"naturals": dict(ORDERS["shuffled-1"])}, name="house")
    assert from_dict == from_file
    assert Rules(name="house", naturals=ORDERS["shuffled-1"]) == from_file
    back = tmp_path / "back.toml"
    back.write_text(to_toml(from_file))
    assert load_rules(str(back)).naturals == ORDERS["shuffled-1"]
    assert compile_rules(load_rules(from_file)).arrays.nat_codes.tolist() == [
        NATURAL_CODES[n] for n, _ in ORDERS["shuffled-1"]
    ]
    # The order is part of the game: reversed, another digest.
    assert house("chinese-1-6", TABLE).digest() != house("chinese-1-6", ORDERS["reversed"]).digest()


def test_the_shisanshui_example_of_the_rules_page_loads():
    """docs/rules.md#special-hands shows the 十三水 apps' list as a [naturals] table."""
    import re
    import tomllib

    from tests.test_docs import section

    blocks = re.findall(r"```toml\n(.*?)```", section("special-hands"), re.S)
    assert len(blocks) == 1
    rules = rules_from_dict(tomllib.loads(blocks[0]), name="house")
    left_out = ("twelve_one_colour", "twelve_royals_and_one")
    shown = tuple(n for n in NATURAL_NAMES if n not in left_out)
    assert rules.naturals == tuple((n, u) for n, u in TABLE if n in shown)


# ------------------------------------------------------------------ the generated hands


def generated(seed: int, per_kind: int = 4) -> list[tuple[int, ...]]:
    """Hands of every natural, as many one card off, tie twins of the first two of each,
    and uniformly random hands."""
    rng = random.Random(seed)
    hands: list[tuple[int, ...]] = []
    for name in RH.NATURAL_KINDS:
        made = [RH.natural_hand(name, rng) for _ in range(per_kind)]
        hands += made
        hands += [RH.near_miss(name, rng) for _ in range(per_kind)]
        hands += [RH.tie_twin(h, rng) for h in made[:2]]
    hands += [tuple(rng.sample(range(52), 13)) for _ in range(40)]
    return hands


@pytest.mark.parametrize("base", BASES)
def test_detection_equals_the_oracle_under_every_order(base):
    """Each hand's natural and id under four orders, and each natural alone (present or
    not), as the oracle says; the batch equals one hand at a time."""
    hands = generated(7 if base == BASES[0] else 8)
    arr = ids(hands)
    wheel = PRESETS[base].wheel
    seen = set()
    for label, order in ORDERS.items():
        rules = house(base, order)
        nids, keys = S.find_naturals(arr, compile_rules(load_rules(rules)))
        for i, h in enumerate(hands):
            want = oracle_best(h, rules)
            got = None if nids[i] < 0 else order[nids[i]][0]
            assert got == (None if want is None else want[0]), (label, R.ref_format(h), got)
            if i % 7 == 0:  # the one-hand wrapper gives the same
                one = S.find_natural(arr[i], rules)
                assert (one is None and nids[i] < 0) or one[:2] == (nids[i], keys[i])
            if got is not None:
                seen.add(got)
    for name in NATURAL_NAMES:
        alone = house(base, ((name, 1),))
        nids, _ = S.find_naturals(arr, compile_rules(load_rules(alone)))
        for i, h in enumerate(hands):
            assert (nids[i] == 0) == (name in oracle(h, wheel)), (name, R.ref_format(h))
        assert (nids == 0).sum() >= 4, name  # the generator makes it
    assert seen == set(NATURAL_NAMES)  # every natural wins a hand under some order


@pytest.mark.parametrize("base", BASES)
def test_tie_keys_order_hands_as_the_oracle(base):
    """For each natural, the kernel's keys order every pair of hands holding it as the
    oracle's keys do (ties included: the tie twins), and settle_natural pays as the
    oracle pays under every order."""
    hands = generated(11 if base == BASES[0] else 12, per_kind=5)
    arr = ids(hands)
    wheel = PRESETS[base].wheel
    ties = 0
    for name in NATURAL_NAMES:
        alone = house(base, ((name, PAYOUTS[name]),))
        nids, keys = S.find_naturals(arr, compile_rules(load_rules(alone)))
        held = [i for i in range(len(hands)) if nids[i] == 0]
        theirs = {i: oracle(hands[i], wheel)[name] for i in held}
        for a in held:
            for b in held:
                assert np.sign(keys[a] - keys[b]) == R._cmp(theirs[a], theirs[b]), (
                    name,
                    R.ref_format(hands[a]),
                    R.ref_format(hands[b]),
                )
                ties += a != b and keys[a] == keys[b]
    assert ties > 0
    for order in ORDERS.values():
        rules = house(base, order)
        nids, keys = S.find_naturals(arr, compile_rules(load_rules(rules)))
        found = [
            None if nids[i] < 0 else (int(nids[i]), int(keys[i]), order[nids[i]][0])
            for i in range(len(hands))
        ]
        rng = random.Random(3)
        for _ in range(400):
            a, b = rng.randrange(len(hands)), rng.randrange(len(hands))
            want = R.ref_settle_natural(
                oracle_best(hands[a], rules), oracle_best(hands[b], rules), rules
            )
            assert S.settle_natural(found[a], found[b], rules) == want


def test_tie_twins_settle_zero():
    """A hand and its suits renamed hold the same natural with the same key: a full tie
    pays nothing, whatever the natural (docs/rules.md#natural-tie-keys)."""
    rng = random.Random(5)
    for base in BASES:
        rules = house(base, ORDERS["shuffled-2"])
        for name in NATURAL_NAMES:
            for _ in range(3):
                h = RH.natural_hand(name, rng)
                a = S.find_natural(np.array(h, np.uint8), rules)
                b = S.find_natural(np.array(RH.tie_twin(h, rng), np.uint8), rules)
                assert a == b and a is not None
                assert S.settle_natural(a, b, rules) == 0.0


# ------------------------------------------------------------------ the interpretations


def nat(text: str, rules: Rules):
    return S.find_natural(R.ref_cards(text), rules)


def names_of(text: str, base: str = "chinese-1-6") -> set[str]:
    return set(oracle(R.ref_cards(text), PRESETS[base].wheel))


def test_examples_and_interpretations():
    table = house("chinese-1-6", TABLE)
    # docs/rules.md#all-high-and-all-low: the 8 is high and low.
    high = "8c 8d 8h 9s Tc Jd Qh Ks Ac Ad Kd Qd Jc"
    low = "8c 8d 8h 7s 7c 6d 5h 4s 3c 2d 2h 3d 4c"
    assert nat(high, table)[2] == "all_high" and nat(low, table)[2] == "all_low"
    assert "all_high" not in names_of(low) and "all_low" not in names_of(high)
    assert nat("7c 8d 8h 9s Tc Jd Qh Ks Ac Ad Kd Qd Jc", table) is None  # one 7
    # docs/rules.md#twelve-of-one-colour: thirteen red are also twelve of one colour.
    red = "2d 4d 6d 8d Td Qd Ad 3h 5h 7h 9h Jh 2h"
    assert {"one_colour", "twelve_one_colour"} <= names_of(red)
    twelve_first = house("chinese-1-6", (("twelve_one_colour", 2), ("one_colour", 10)))
    assert nat(red, twelve_first)[::2] == (0, "twelve_one_colour")
    assert nat(red.replace("2h", "2s"), table)[2] == "twelve_one_colour"
    assert nat(red.replace("2h", "2s").replace("Jh", "Jc"), table) is None
    # docs/rules.md#overlapping-naturals: a royal dragon is a dragon too; order decides.
    royal = "2s 3s 4s 5s 6s 7s 8s 9s Ts Js Qs Ks As"
    assert names_of(royal) == {
        "royal_dragon",
        "dragon",
        "one_colour",
        "twelve_one_colour",
        "three_straight_flushes",
        "three_flushes",
        "three_straights",
    }
    assert nat(royal, table)[2] == "royal_dragon"
    assert nat(royal, house("chinese-1-6", (("dragon", 36), ("royal_dragon", 108))))[2] == "dragon"
    # A four of a kind: two pairs for five pairs and trips and six pairs, trips for four trips.
    quad_pairs = "2c 2d 2h 2s 3c 3d 3h 5c 5d 6c 6d 7c 7d"
    assert names_of(quad_pairs) >= {"five_pairs_trips", "six_pairs"}
    assert "four_trips" not in names_of(quad_pairs)
    quad_trips = "Ac Ad Ah As Kc Kd Kh Qc Qd Qh 5c 5d 5h"
    assert nat(quad_trips, table)[2] == "four_trips" and "three_quads" not in names_of(quad_trips)
    five = "2c 2d 2h 3c 3d 5h 5s 6c 6d 7h 7s 9c 9h"
    assert nat(five, table)[2] == "five_pairs_trips"
    pairs_first = house("chinese-1-6", (("six_pairs", 4), ("five_pairs_trips", 5)))
    assert nat(five, pairs_first)[2] == "six_pairs"
    assert nat("2c 2d 3c 3d 5h 5s 6c 6d 7h 7s 9c 9h Th", table)[2] == "six_pairs"  # a single
    assert nat("2c 2d 2h 3c 3d 5h 5s 6c 6d 7h 7s 9c Th", table) is None  # five pairs
    # three quads: the highest quad decides, then the next
    aces = nat("Ac Ad Ah As 3c 3d 3h 3s 2c 2d 2h 2s Kd", table)
    kings = nat("Kc Kd Kh Ks Qc Qd Qh Qs 9c 9d 9h 9s Jd", table)
    assert aces[2] == kings[2] == "three_quads" and S.settle_natural(aces, kings, table) == 20
    # twelve royals: J to A only, and they tie
    royals = nat("Jc Jd Jh Js Qc Qd Qh Qs Kc Kd Kh Ks Ac", table)
    assert royals[::2] == (2, "twelve_royals")
    other = nat("Jc Jd Jh Qs Qc Qd Qh As Kc Kd Kh Ks Ac", table)
    assert S.settle_natural(royals, other, table) == 0
    # twelve royals and one (the apps' 十二皇族): one card below J is allowed, two are not
    apps = house("chinese-1-6", (("twelve_royals_and_one", 26), ("six_pairs", 4)))
    one_low = "Jc Jd Jh Js Qc Qd Qh Qs Kc Kd Kh Ks 5c"
    assert nat(one_low, apps)[2] == "twelve_royals_and_one"
    assert nat(one_low, table)[2] == "twelve_royals_and_one"
    assert "twelve_royals" not in names_of(one_low)
    assert nat("Jc Jd Jh Js Qc Qd Qh Qs Kc Kd Kh 4s 5c", apps) is None  # two below J
    assert nat("Jc Jd Jh Js Qc Qd Qh Qs Kc Kd Kh Ks Ac", apps)[2] == "twelve_royals_and_one"


def test_three_straight_flushes_rows_and_ties():
    """docs/rules.md#qualifying-splits-for-naturals: A-2-3 and Q-K-A fronts count, K-A-2
    does not; the best split is compared back, middle, front under the ruleset's wheel,
    a front by its cards (A-2-3 beats K-Q-J), never by suits."""
    table = house("chinese-1-6", (("three_straight_flushes", 22),))  # (a23 is a dragon too)
    # the shisanshui preset's wheel, its natural ties by order (by payout two of the same
    # natural always tie: docs/rules.md#natural-ties)
    second = dataclasses.replace(house("shisanshui", table.naturals), natural_ties="order")
    a23 = "As 2s 3s 4c 5c 6c 7c 8c 9d Td Jd Qd Kd"
    jqk = "Jh Qh Kh 4s 5s 6s 7s 8s 9c Tc Jc Qc Kc"
    qka = "Qh Kh Ah 4s 5s 6s 7s 8s 9c Tc Jc Qc Kc"
    ka2 = "Kh Ah 2h 4s 5s 6s 7s 8s 9c Tc Jc Qc Jd"
    assert nat(a23, table)[2] == nat(jqk, table)[2] == nat(qka, table)[2]
    assert nat(a23, table)[2] == "three_straight_flushes"
    assert "three_straight_flushes" not in names_of(ka2)
    assert S.settle_natural(nat(a23, table), nat(jqk, table), table) == 22
    assert S.settle_natural(nat(qka, table), nat(a23, table), table) == 22
    # The steel wheel in the middle: the lowest under "low", just below the royal under
    # "second", where it beats a king-high straight flush.
    wheel_mid = "2h 3h 4h Ac 2c 3c 4c 5c 9d Td Jd Qd Kd"
    king_mid = "Jh Qh Kh 9s Ts Js Qs Ks 8c 9c Tc Jc Qc"
    for rules, sign in ((table, -1), (second, 1)):
        a, b = nat(wheel_mid, rules), nat(king_mid, rules)
        assert a[2] == b[2] == "three_straight_flushes"
        want = R.ref_settle_natural(
            oracle_best(R.ref_cards(wheel_mid), rules),
            oracle_best(R.ref_cards(king_mid), rules),
            rules,
        )
        assert S.settle_natural(a, b, rules) == want == sign * 22


# ------------------------------------------------------------------ counted facts


def _rank_patterns() -> tuple[np.ndarray, np.ndarray]:
    """Every vector of rank counts (13 ranks, 0 to 4 each, summing to 13) and its number
    of hands, prod C(4, count): the vectors of the first 6 ranks and of the last 7 that
    sum to 13, paired."""
    halves = []
    for width in (6, 7):
        grid = np.array(list(np.ndindex(*([5] * width))), np.int8)
        halves.append((grid, grid.sum(axis=1)))
    (a, sa), (b, sb) = halves
    parts = []
    for total in range(0, 14):
        left, right = a[sa == total], b[sb == 13 - total]
        if len(left) and len(right):
            parts.append(
                np.hstack([np.repeat(left, len(right), axis=0), np.tile(right, (len(left), 1))])
            )
    vecs = np.vstack(parts)
    ways = np.array([comb(4, c) for c in range(5)], np.int64)[vecs].prod(axis=1)
    return vecs, ways


def _hands_of(vecs: np.ndarray, per_unit: int) -> np.ndarray:
    """One hand per count vector: unit u (a rank, or a suit) held n times gets cards
    0..n-1 of it (suits of a rank, or ranks of a suit)."""
    n = len(vecs)
    width = 4 if per_unit == 4 else 13
    mask = np.arange(width)[None, None, :] < vecs[:, :, None]  # [hand, unit, card of it]
    if per_unit != 4:  # units are suits: card (rank r, suit s) is id r * 4 + s
        mask = mask.transpose(0, 2, 1)
    return np.nonzero(mask.reshape(n, 52))[1].reshape(n, 13).astype(np.uint8)


def _counted(vecs: np.ndarray, ways: np.ndarray, per_unit: int, names) -> dict[str, int]:
    """Hands holding each natural of ``names`` (alone in a ruleset), over every count
    vector, a chunk of vectors at a time (the detection kernel itself: the wrapper's
    checks of millions of made hands would double the time)."""
    from solver.engine import _kernels as k

    totals = dict.fromkeys(names, 0)
    for lo in range(0, len(vecs), 400_000):
        hands = _hands_of(vecs[lo : lo + 400_000], per_unit)
        assert (np.diff(np.sort(hands, axis=1), axis=1) > 0).all()  # 13 distinct cards
        nids = np.empty(len(hands), np.int64)
        keys = np.empty(len(hands), np.int64)
        for name in names:
            cr = compile_rules(house("chinese-1-6", ((name, 1),)))
            k._find_natural_batch(
                hands, cr.arrays.nat_codes, cr.lookup, cr.arrays.remap, nids, keys
            )
            totals[name] += int(ways[lo : lo + 400_000][nids == 0].sum())
    return totals


def _by_shape(pred) -> int:
    """Hands whose rank counts have a ranks held four times, b three times, c twice and d
    once, with pred(a, b, c, d): multinomial ways to give the counts to the 13 ranks,
    times the suits of each."""
    total = 0
    for a in range(4):
        for b in range(5):
            for c in range(7):
                d = 13 - 4 * a - 3 * b - 2 * c
                e = 13 - a - b - c - d
                if d < 0 or e < 0 or not pred(a, b, c, d):
                    continue
                ranks = factorial(13) // (
                    factorial(a) * factorial(b) * factorial(c) * factorial(d) * factorial(e)
                )
                total += ranks * 4**b * 6**c * 4**d
    return total


@pytest.mark.slow  # the kernel over every one of the 3,598,180 rank patterns
def test_counted_facts():
    """How many of the 635,013,559,600 hands hold each natural that depends only on the
    ranks (or only on the colours): the kernel over every pattern, weighted by its number
    of hands, equals the count by formula (docs/rules.md#special-hands shows them)."""
    vecs, ways = _rank_patterns()
    assert len(vecs) == 3_598_180 and int(ways.sum()) == comb(52, 13) == _by_shape(lambda *_: True)
    expected = {
        "dragon": 4**13,
        "twelve_royals": comb(16, 13),
        "twelve_royals_and_one": comb(16, 13) + comb(16, 12) * 36,
        "three_quads": comb(13, 3) * 40,
        "all_high": comb(28, 13),
        "all_low": comb(28, 13),
        "four_trips": comb(13, 4) * (4**4 * 36 + 4 * 4**3),
        "five_pairs_trips": 13
        * 4
        * (comb(12, 5) * 6**5 + 12 * comb(11, 3) * 6**3 + comb(12, 2) * 10 * 6),
        "six_pairs": _by_shape(lambda a, b, c, d: 2 * a + b + c >= 6),
    }
    # The same by the shape formula where it applies.
    assert expected["dragon"] == _by_shape(lambda a, b, c, d: d == 13)
    assert expected["three_quads"] == _by_shape(lambda a, b, c, d: a >= 3)
    assert expected["four_trips"] == _by_shape(lambda a, b, c, d: a + b >= 4)
    assert expected["five_pairs_trips"] == _by_shape(lambda a, b, c, d: b == 1 and d == 0)
    counted = _counted(vecs, ways, 4, list(expected))
    assert counted == expected
    assert counted == {
        "dragon": 67_108_864,
        "twelve_royals": 560,
        "twelve_royals_and_one": 66_080,
        "three_quads": 11_440,
        "all_high": 37_442_160,
        "all_low": 37_442_160,
        "four_trips": 6_772_480,
        "five_pairs_trips": 342_692_064,
        "six_pairs": 2_856_863_152,
    }
    # Colours and suits: every vector of suit counts.
    suits = np.array(
        [v for v in np.ndindex(14, 14, 14, 14) if sum(v) == 13], np.int8
    )  # clubs, diamonds, hearts, spades
    suit_ways = np.array([np.prod([comb(13, int(x)) for x in v]) for v in suits], np.int64)
    assert int(suit_ways.sum()) == comb(52, 13)
    colour = {
        "royal_dragon": 4,
        "one_colour": 2 * comb(26, 13),
        "twelve_one_colour": 2 * (comb(26, 13) + 26 * comb(26, 12)),
    }
    assert _counted(suits, suit_ways, 13, list(colour)) == colour
    assert colour == {"royal_dragon": 4, "one_colour": 20_801_200, "twelve_one_colour": 523_001_600}
    # docs/rules.md#special-hands shows these counts.
    assert _doc_table("special-hands", 3) == {
        n: f"{v:,}" for n, v in {**counted, **colour}.items()
    } | {n: "" for n in ("three_straight_flushes", "three_flushes", "three_straights")} | {
        n: "0" for n in BIG_DECK_NATURALS  # only decks with added suits make them
    }


def _doc_table(anchor: str, columns: int) -> dict[str, str | list[str]]:
    """The rows of the table in a section of docs/rules.md whose first cell is a natural's
    name: that name -> the last cell (columns == 3) or the cells after it."""
    from tests.test_docs import section

    rows = {}
    for line in section(anchor).splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == columns and cells[0].strip("`") in ALL_NATURAL_NAMES:
            rows[cells[0].strip("`")] = cells[-1] if columns == 3 else cells[1:]
    assert list(rows) == list(ALL_NATURAL_NAMES), anchor
    return rows


def test_the_names_table_of_the_rules_page_is_the_engine_table():
    """docs/rules.md#natural-names lists NATURAL_NAMES_SHOWN."""
    table = _doc_table("natural-names", 4)
    for name, shown in NATURAL_NAMES_SHOWN.items():
        assert table[name] == [shown.english, shown.chinese or "", shown.vietnamese or ""]


# ------------------------------------------------------------------ the settings shown


@pytest.mark.parametrize("base", ["chinese-1-6", "capsa", "shisanshui"])
def test_natural_setting_is_legal_and_shows_the_natural(base):
    """docs/rules.md#natural-settings: every natural's shown setting holds the hand's 13
    cards, is legal under the ruleset (wheel and suit order), and for the split naturals
    is the best qualifying split (the oracle's key)."""
    rng = random.Random(len(base))
    r = PRESETS[base]
    for name in NATURAL_NAMES:
        alone = house(base, ((name, PAYOUTS[name]),))
        for _ in range(6):
            hand = RH.natural_hand(name, rng)
            front, middle, back = (
                x.tolist() for x in S.natural_setting(np.array(hand), compile_rules(alone))
            )
            assert sorted(front + middle + back) == sorted(hand)
            assert (len(front), len(middle), len(back)) == (3, 5, 5)
            assert R.ref_is_legal(front, middle, back, r.wheel, r.suit_order), (name, hand)
            assert not S.summarize((front, middle, back), compile_rules(load_rules(alone)))[2]
            if name in ("three_straights", "three_flushes", "three_straight_flushes"):
                key = (R.ref_key5(back, r.wheel), R.ref_key5(middle, r.wheel), R.ref_key3(front))
                assert key == oracle(hand, r.wheel)[name]
            if name == "three_straight_flushes":
                assert R._is_straight_flush3(front)
                assert R._is_straight_flush5(middle) and R._is_straight_flush5(back)
        assert (
            S.natural_setting(np.array(RH.near_miss(name, rng)), compile_rules(house(base, ())))
            is None
        )


def test_natural_setting_of_a_dragon_with_a_straight_flush_inside_is_legal():
    """2-3-4 / 5-9 / T-A shows a dragon, unless 5 to 9 are suited and T to A not: the
    straight flush then goes to the back (before, the dragon was shown fouled)."""
    hand = R.ref_cards("2c 3d 4h 5s 6s 7s 8s 9s Tc Jd Qh Ks Ad")
    front, middle, back = (
        x.tolist()
        for x in S.natural_setting(np.array(hand), compile_rules(load_rules("chinese-1-6")))
    )
    assert R.ref_is_legal(front, middle, back, "low", None)
    assert R.ref_format(sorted(back)) == "5s 6s 7s 8s 9s"


# ------------------------------------------------------------------ settling naturals


def test_monte_carlo_opponents_declare_the_special_hands():
    """The Monte Carlo opponents' naturals are found by the same kernel, new codes and
    all: with 13 black cards in the hand, the opponents often hold twelve of one colour,
    one colour or all high; every candidate's value against every deal is the oracle's
    settlement (a natural collects its payout, docs/rules.md#natural-payouts-and-ties)."""
    from solver.strategy.field_model.setting import set_hands
    from solver.strategy.hands.deal import deal_hands
    from solver.strategy.hands.splits import candidates, split_cards
    from solver.strategy.solving.scoring import deal_opponents, score_against

    rules = house("chinese-1-6", TABLE)
    cr = compile_rules(load_rules(rules))
    hand = np.sort(R.ref_cards("2c 3c 4c 5c 6c 7c 2s 3s 4s 5s 6s 7s 8s")).astype(np.uint8)
    deals = 100
    opp = deal_opponents(hand, cr, 3, deals, seed=9)
    hands = deal_hands(np.random.default_rng(9), deals, 3, exclude=hand).reshape(deals * 3, 13)
    settings = set_hands(hands, rules, "field")
    declared = {}
    for i, h in enumerate(hands):
        want = oracle_best(h, rules)
        assert (opp.nat[i] >= 0) == (want is not None)
        if want is not None:
            assert TABLE[opp.nat[i]][0] == want[0]
            declared[i] = want
    names = {n for n, _ in declared.values()}
    assert names & {"twelve_one_colour", "one_colour", "all_high"}, names
    c = candidates(hand, cr)
    scores = score_against(c, cr, opp)
    # The hand holds a natural too (all low, before one colour): declaring it against
    # the same opponents, natural against natural, is worth what the oracle pays.
    mine_nat = S.find_natural(hand, cr)
    want = oracle_best(hand, rules)
    assert mine_nat[2] == want[0] == "all_low"
    per_opponent = [R.ref_settle_natural(want, declared.get(i), rules) for i in range(len(hands))]
    assert scores.declare(mine_nat) == pytest.approx(sum(per_opponent) / len(per_opponent))
    assert min(per_opponent) < 12  # some opponent's natural is stronger than all low
    for ci in range(0, len(c.keys), max(1, len(c.keys) // 3)):
        f, m, b = split_cards(hand, c.split[ci])
        mine = (f.tolist(), m.tolist(), b.tolist())
        for d in range(deals):
            total = 0.0
            for o in range(3):
                i = 3 * d + o
                if i in declared:
                    total += R.ref_settle_natural(None, declared[i], rules)
                else:
                    row = settings[i].tolist()
                    total += R.ref_settle(mine, (row[:3], row[3:8], row[8:]), rules)
            assert scores.per_unit[ci, d] * 3 == pytest.approx(total)


def test_solve_declares_a_special_hand_worth_more_than_playing():
    """``solve``: the natural is the ruleset's first that the hand holds, worth its payout
    from each known opponent (docs/rules.md#when-a-natural-is-declared), declared and
    shown legal; under an order that lists a weaker-paying natural first, that one."""
    from solver.strategy.solving.solve import solve

    rng = random.Random(21)
    rules = house("chinese-1-6", TABLE)
    low_first = house("chinese-1-6", ORDERS["reversed"])
    for name in ("royal_dragon", "twelve_royals", "three_quads", "all_low", "four_trips"):
        hand = RH.natural_hand(name, rng)
        rest = [c for c in range(52) if c not in hand]
        opponents = [rest[:13], rest[13:26]]
        against = [(o[:3], o[3:8], o[8:]) for o in (sorted(x) for x in opponents)]
        for r in (rules, low_first):
            want = oracle_best(hand, r)
            sol = solve(list(hand), rules=r, against=against, top=0)
            assert sol.natural["name"] == want[0]
            assert sol.natural["ev_declare"] == r.natural_units(want[0])
            if sol.natural["declared"]:
                rows = [R.ref_cards(getattr(sol, x)) for x in ("front", "middle", "back")]
                assert R.ref_is_legal(*rows, r.wheel, r.suit_order)
        field = solve(list(hand), rules=rules, policy="field", top=0)
        declare = field.natural["ev_declare"] > field.natural["ev_play"]
        assert field.natural["declared"] == declare == (field.action == "declare")
        assert declare or name != "royal_dragon"  # 108 units a opponent: nothing plays better


# ------------------------------------------------------------------ the command line

def write_table(tmp_path, order=TABLE, name="regional.toml"):
    path = tmp_path / name
    path.write_text("[naturals]\n" + "".join(f"{n} = {u}\n" for n, u in order), "utf-8")
    return path


@pytest.mark.parametrize("command", ["rules", "solve", "batch"])
def test_an_unknown_natural_is_one_line_naming_it_exit_2(tmp_path, command):
    path = tmp_path / "house.toml"
    path.write_text("[naturals]\nroyal_dragon = 108\nfive_pairs = 5\n")
    hands = tmp_path / "hands.txt"
    hands.write_text("As Ks Qs Js Ts 9h 9d 9c 2s 3d 4c 5h 7d\n")
    args = {
        "rules": ("rules", str(path)),
        "solve": ("solve", "As Ks Qs Js Ts 9h 9d 9c 2s 3d 4c 5h 7d", "--rules", str(path)),
        "batch": ("batch", str(hands), "--rules", str(path), "--policy", "field"),
    }[command]
    run = capsa_in(*args)
    assert run.returncode == 2, run.stderr
    assert run.stdout == ""
    line = run.stderr.strip()
    assert "\n" not in line and "Traceback" not in line
    assert line == (
        "capsa: error: house.toml: unknown natural 'naturals.five_pairs' (did you mean "
        "'five_pairs_trips'?); valid names are " + ", ".join(ALL_NATURAL_NAMES)
    )
    # docs/rules.md#special-hands shows this line
    from tests.test_docs import section

    assert line.removeprefix("capsa: error: ") in section("special-hands").splitlines()


def test_capsa_rules_shows_every_natural_by_name(tmp_path):
    """docs/rules.md#natural-names: the English name with the local ones, in the
    ruleset's order; the JSON keeps the ruleset's names and order."""
    path = write_table(tmp_path, ORDERS["shuffled-1"])
    run = capsa_in("rules", str(path))
    assert run.returncode == 0, run.stderr
    flat = " ".join(run.stdout.split())
    assert "natural names" in flat
    names = flat[flat.index("natural names") :]
    at = [names.index(f"{n}: {natural_label(n)}") for n, _ in ORDERS["shuffled-1"]]
    assert at == sorted(at)
    assert "Royal dragon (至尊清龙, rồng cuốn)" in flat and "Three quads (三分天下)" in flat
    data = json.loads(capsa_in("rules", str(path), "--format", "json").stdout)
    assert list(data["naturals"].items()) == list(ORDERS["shuffled-1"])
    none = capsa_in("rules", "per-row")
    assert none.returncode == 0 and "natural names" not in none.stdout


def test_capsa_solve_and_batch_name_the_special_hands(tmp_path):
    """``capsa solve`` says the natural by its names; ``capsa batch`` records each hand's
    natural as the oracle finds it, under an order where weaker payouts come first."""
    rng = random.Random(31)
    table = write_table(tmp_path)
    hand = RH.natural_hand("three_straight_flushes", rng)
    text = R.ref_format(hand)
    run = capsa_in("solve", text, "--rules", str(table), "--policy", "field")
    assert run.returncode == 0, run.stderr
    want = oracle_best(hand, house("chinese-1-6", TABLE))[0]
    assert f"natural: {natural_label(want)}: declaring is worth" in " ".join(run.stdout.split())
    order = ORDERS["reversed"]
    path = write_table(tmp_path, order, "reversed.toml")
    hands = [RH.natural_hand(n, rng) for n in NATURAL_NAMES for _ in range(2)]
    hands += [RH.near_miss(n, rng) for n in NATURAL_NAMES]
    src = tmp_path / "hands.txt"
    src.write_text("".join(R.ref_format(h) + "\n" for h in hands))
    run = capsa_in("batch", str(src), "--rules", str(path), "--policy", "field", "--workers", "1")
    assert run.returncode == 0, run.stderr
    records = [json.loads(x) for x in run.stdout.splitlines()]
    rules = house("chinese-1-6", order)
    assert len(records) == len(hands)
    for rec, h in zip(records, hands, strict=True):
        want = oracle_best(h, rules)
        got = rec["natural"]
        assert (got and got["name"]) == (want and want[0]), R.ref_format(h)
        if got:
            assert got["ev_declare"] == rules.natural_units(want[0])
            assert got["declared"] == (rec["action"] == "declare")
