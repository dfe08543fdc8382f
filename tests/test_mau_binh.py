"""mau-binh as gameBinh's live code pays it (docs/rules.md#the-mau-binh-preset): the
source deals of the audit, each through ``solver.settle`` / ``settle_table`` and against
the oracle tests/reference.py; natural ties by difference and equal rows fouling
(docs/rules.md#natural-ties, docs/rules.md#equal-rows-foul), through the kernels and the
oracle; today's table of before as ``mau-binh-rules``."""

from __future__ import annotations

import dataclasses
import itertools
import json
import random

import numpy as np
import pytest

import solver
from solver.engine.compiled import compile_rules
from solver.engine.rules import PRESETS
from solver.engine.settlement import find_natural, settle_natural, settle_table, summarize
from solver.strategy.hands.splits import candidates
from tests import reference as R
from tests.helpers import capsa_in

NEW = PRESETS["mau-binh"]
OLD = PRESETS["mau-binh-rules"]


def ids(setting) -> tuple[tuple[int, ...], ...]:
    return tuple(R.ref_cards(row) for row in setting)


def both(a, b, rules) -> float:
    """settle and the oracle agree; the value."""
    fast = solver.settle(a, b, rules=rules)
    assert fast == pytest.approx(R.ref_settle(ids(a), ids(b), rules))
    assert solver.settle(b, a, rules=rules) == pytest.approx(-fast)
    return fast


# ---- the source deals ------------------------------------------------------------------

#: Front trips win the front; the other player's middle full house and back straight
#: flush win the other two: 6 - 4 - 10 (getNumEatChi, BinhGameLogic.cpp:482-556).
TRIPS = ("Kh Kd Ks", "4c 5d 6h 7s 8c", "2h 7h 9h Th Jh")
FH_SF = ("Qh Qd 4s", "2c 2d 2s 3c 3d", "8s 9s Ts Js Qs")
#: A scoop whose middle is four of a kind: (1 + 16 + 10) x 2 (sập, autoCheckBatSap).
QUADS = ("Ac Kc 3d", "9c 9d 9h 9s 2d", "Th Jh Qh Kh Ah")
SCOOPED = ("Qc Jd 4s", "5c 5d 5h 7s 8c", "2h 3h 4h 6h 8h")
#: A K-high straight against a wheel in the back, a row each elsewhere: the wheel is the
#: lowest straight (MaubinhGroupCardLogic.cpp:704-709, SoSanhChi(..., false)).
K_HIGH = ("Ad Kh 7c", "6c 6d 8h 9h Tc", "9s Ts Js Qs Kd")
WHEEL = ("Qh Jh 2c", "7d 7h 8c 8d 3c", "Ac 2d 3h 4s 5c")
#: A fouled hand (a pair of aces over a high-card middle).
FOUL = ("As Ad 2c", "3c 4d 5h 7s 9c", "Jh Qd Kc 6d 8h")
LEGAL = ("Qh Qc 4s", "2d 3d 9d Td Jd", "Kh Ks Kd 6c 6s")


@pytest.mark.parametrize(
    "a, b, new, old",
    [
        (TRIPS, FH_SF, -8.0, -4.0),  # 3 - 2 - 5 before
        (QUADS, SCOOPED, 54.0, 28.0),  # (1 + 8 + 5) x 2 before
        (K_HIGH, WHEEL, 1.0, -1.0),  # the wheel second before
        (FOUL, LEGAL, -6.0, -3.0),  # binh lủng: 6 (autoCheckBinhLung, :1442-1492)
    ],
    ids=["front-trips-one-row", "scoop-middle-quads", "wheel-lowest", "lung"],
)
def test_source_deals(a, b, new, old):
    assert both(a, b, NEW) == new
    assert both(a, b, OLD) == old


def test_source_deals_at_a_table():
    """settle_table pays the same: mau-binh has no home run (gameBinh's client settles
    no sập làng), so a table is the sum of its pairs."""
    for a, b, units in ((TRIPS, FH_SF, -8.0), (QUADS, SCOOPED, 54.0), (FOUL, LEGAL, -6.0)):
        assert settle_table([a, b], NEW) == [units, -units]
        assert R.ref_settle_table([ids(a), ids(b)], NEW) == pytest.approx([units, -units])


#: A sảnh rồng, a lục phé bôn and a normal hand (the audit's three-player deal).
DRAGON = "2c 3d 4h 5s 6c 7d 8h 9s Tc Jd Qh Ks Ac"
SIX_PAIRS = "2d 2h 3c 3h 4c 4d 5c 5d 6d 6h 7c 7h 9c"
NORMAL = ("2s 3s 5h", "8c 8d 9d 9h Td", "Jc Jh Js Qc Qd")


def test_naturals_pay_64_and_32_and_settle_by_difference():
    """getNumEatBinh (BinhGameLogic.cpp:1390-1401): sảnh rồng 64, the others 32;
    autoCheckMauBinh (:1403-1440) pays each pair rate - rate: the dragon's seat collects
    +96 (32 from the six pairs, 64 from the normal hand), the six pairs pays it 32 and
    the normal hand 64."""
    hands = [R.ref_cards(h) for h in (DRAGON, SIX_PAIRS)]
    nats = [find_natural(h, NEW) for h in hands]
    assert [n[2] for n in nats] == ["dragon", "six_pairs"]
    refs = [R.ref_best_natural(h, NEW) for h in hands]
    assert settle_natural(nats[0], nats[1], NEW) == 32.0 == R.ref_settle_natural(*refs, NEW)
    assert settle_natural(nats[0], None, NEW) == 64.0 == R.ref_settle_natural(refs[0], None, NEW)
    assert settle_natural(nats[1], None, NEW) == 32.0
    normal = ids(NORMAL)
    assert find_natural([c for row in normal for c in row], NEW) is None
    table = settle_table([nats[0], nats[1], normal], NEW)
    assert table[0] == 96.0  # the game's +96 for the dragon
    assert table[0] == pytest.approx(
        R.ref_settle_table([R.ref_declare(refs[0]), R.ref_declare(refs[1]), normal], NEW)[0]
    )
    # the pairs with the dragon are the game's -32 / -64; capsa settles the six pairs
    # with the normal hand too (+32), which the game's client does not (it settles only
    # the human's pairs: docs/rules.md#the-mau-binh-preset)
    assert table[1:] == [-32.0 + 32.0, -64.0 - 32.0]
    # before: 3 each, two mậu binh tie
    old = [find_natural(h, OLD) for h in hands]
    assert settle_natural(old[0], old[1], OLD) == 0.0


def test_twelve_and_thirteen_of_one_colour_are_no_naturals():
    """GetPlayerCardsKind tests them only in Tính Át rooms (MaubinhPlayerCard.cpp:246-297)."""
    red = R.ref_cards("2h 3h 5h 6h 8h 9h Jh Qh Kh 2d 4d 7d Td")
    assert find_natural(red, NEW) is None
    assert find_natural(red, OLD)[2] == "one_colour"


# ---- equal rows foul (docs/rules.md#equal-rows-foul) ------------------------------------

#: Middle and back the same ranks (two flushes): equal, so lủng (MaubinhPlayerCard.cpp:288-294).
EQUAL_BACK = ("Ah Kd 3s", "2c 5c 7c 9c Jc", "2d 5d 7d 9d Jd")
#: A front equal to the middle's first ranks (K Q J against K Q J 4 3).
EQUAL_FRONT = ("Kc Qd Jh", "Kd Qh Js 4c 3d", "2h 2s 6c 6h 9s")
#: Two straights of one height in the middle and the back: gameBinh's SoSanhChi orders
#: them (the second is higher), so not lủng.
EQUAL_STRAIGHTS = ("Ah Kd 2s", "5c 6d 7h 8s 9c", "5d 6h 7s 8c 9d")
OPPONENT = ("Qc Qs 3h", "Tc Td 8c 8d 4s", "Ac Ad As 6d 6s")


@pytest.mark.parametrize("setting", [EQUAL_BACK, EQUAL_FRONT], ids=["middle=back", "front"])
def test_equal_rows_are_lung(setting):
    cr = compile_rules(NEW)
    assert summarize(setting, cr)[2]
    assert not R._hand_summary(ids(setting), NEW)[0]
    assert both(setting, OPPONENT, NEW) == -6.0
    assert not summarize(setting, compile_rules(OLD))[2]  # legal before


def test_equal_straights_are_not_lung():
    assert not summarize(EQUAL_STRAIGHTS, compile_rules(NEW))[2]
    assert R._hand_summary(ids(EQUAL_STRAIGHTS), NEW)[0]


def test_equal_rows_foul_kernel_equals_the_oracle_on_crowded_hands():
    """Hands of few ranks set at random (many rows equal): the kernels' foul check and
    settlement equal the oracle's, and some are fouls only under the key."""
    cr = compile_rules(NEW)
    plain = compile_rules(dataclasses.replace(NEW, name="plain", equal_rows_foul=False))
    rng = random.Random(52)
    only_equal = 0
    for _ in range(300):
        ranks = rng.sample(range(13), rng.choice([5, 6, 7]))
        hand = rng.sample([r * 4 + s for r in ranks for s in range(4)], 13)
        for _ in range(10):
            rng.shuffle(hand)
            s = (hand[:3], hand[3:8], hand[8:])
            fast = summarize(s, cr)[2]
            assert fast == (not R._hand_summary(s, NEW)[0])
            only_equal += fast and not summarize(s, plain)[2]
    assert only_equal >= 15


def test_the_solver_never_offers_an_equal_row_setting():
    """Two flushes of the same ranks: the Pareto front of the plain check holds a split
    with equal middle and back; the candidates the solver scores hold no lủng, and every
    legal split (equal rows fouling) is dominated by one of them, so none is lost."""
    cr = compile_rules(NEW)
    plain = compile_rules(dataclasses.replace(NEW, name="plain", equal_rows_foul=False))
    hand = np.sort(np.array(R.ref_cards("2c 5c 7c 9c Jc 2d 5d 7d 9d Jd Ah Kd 3s"), np.uint8))
    assert cr.fouls(candidates(hand, plain).keys).any()
    cand = candidates(hand, cr)
    assert cand.pruned and len(cand) and not cand.fouls.any()
    every = candidates(hand, cr, prune=False)
    assert not every.fouls.any()
    assert every.legal == cand.legal == len(every)
    k = cand.keys
    for key in every.keys:
        assert ((k[:, 0] >= key[0]) & (k[:, 1] >= key[1]) & (k[:, 2] >= key[2])).any()
    # the oracle agrees on which are legal (a sample of the 72,072 splits)
    for s in itertools.islice(R.ref_all_splits(hand.tolist()), 0, None, 1999):
        assert R._hand_summary(s, NEW)[0] == (not summarize(s, cr)[2])


def test_capsa_solve_against_pays_the_new_numbers(tmp_path):
    """``capsa solve --against --played`` values the played front-trips setting -8."""
    opp = tmp_path / "b.txt"
    opp.write_text(" | ".join(FH_SF) + "\n", encoding="utf-8")
    res = capsa_in("solve", " ".join(TRIPS), "--rules", "mau-binh", "--against", str(opp),
                   "--played", " | ".join(TRIPS), "--format", "json")  # fmt: skip
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert out["played"]["ev"] == pytest.approx(-8.0)
    best = tuple(R.ref_cards(out[row]) for row in ("front", "middle", "back"))
    assert R._hand_summary(best, NEW)[0]
    assert out["ev_play"] == pytest.approx(R.ref_settle(best, ids(FH_SF), NEW))


# ---- a binh lủng pays a mậu binh too (docs/rules.md#flat-foul-penalty) -----------------

#: Three flushes (a mậu binh at 32) and a fouled hand from the other cards.
FLUSHES = "2h 3h 9h 5c 6c 8c Tc Qc 2s 4s 7s Js Ks"
FOULED = ("As Ad 3c", "4d 5d 6h 7d 9c", "Jh Qd Kc 8d 8h")  # a pair of aces over high card


def test_a_lung_hand_pays_a_mau_binh_its_six_too():
    """autoCheckBinhLung (BinhGameLogic.cpp:1442-1492) pays 6 to every seat that is not
    lủng, a mậu binh's included, after autoCheckMauBinh paid it 32: 38 in all."""
    hand = R.ref_cards(FLUSHES)
    nat = find_natural(hand, NEW)
    assert nat[2] == "three_flushes"
    assert summarize(FOULED, compile_rules(NEW))[2]
    assert settle_table([nat, FOULED], NEW) == [38.0, -38.0]
    ref = R.ref_settle_table([R.ref_declare(R.ref_best_natural(hand, NEW)), ids(FOULED)], NEW)
    assert ref == pytest.approx([38.0, -38.0])
    assert settle_table([FOULED, nat], NEW) == [-38.0, 38.0]
    # without the key (mau-binh-rules) the mậu binh alone: 3
    assert settle_table([find_natural(hand, OLD), FOULED], OLD) == [3.0, -3.0]
    off = dataclasses.replace(NEW, name="off", foul_pays_naturals=False)
    assert settle_table([nat, FOULED], off) == [32.0, -32.0]
    assert R.ref_settle_table([R.ref_declare(R.ref_best_natural(hand, off)), ids(FOULED)],
                              off) == pytest.approx([32.0, -32.0])  # fmt: skip


def test_declaring_against_a_known_lung_hand_is_worth_38():
    """``solve --against`` a fouled setting: declaring the three flushes is worth 38 (the
    solver's value of declaring counts the penalty), and it is what it advises."""
    hand = " ".join(FLUSHES.split())
    sol = solver.solve(hand, rules=NEW, against=[" | ".join(FOULED)])
    assert sol.natural["name"] == "three_flushes"
    assert sol.natural["ev_declare"] == pytest.approx(38.0)
    assert sol.action == "declare"


def test_a_played_lung_setting_pays_a_sampled_mau_binh_38():
    """The Monte Carlo kernels (``_mc_values``, and ``_mc_pairs`` bit for bit) value a
    fouled played setting against an opponent who declared a mậu binh at -38, the
    oracle's table settlement."""
    from solver.strategy import _kernels as K

    cr = compile_rules(NEW)
    ra = cr.arrays
    keys, roy, foul = summarize(FOULED, cr)
    ck, cro, cf = keys[None, :], roy[None, :], np.array([foul])
    nat = find_natural(R.ref_cards(FLUSHES), NEW)
    okeys, oroy = np.zeros((1, 3), np.int64), np.zeros((1, 4))
    onat, onatkey = np.array([nat[0]], np.int64), np.array([nat[1]], np.int64)
    out = np.zeros((1, 1))
    K._mc_values(ck, cro, cf, okeys, oroy, np.zeros(1, np.bool_), onat, onatkey, np.ones(1),
                 ra.params, ra.nat_units, 0, 1, out)  # fmt: skip
    want = R.ref_settle_table(
        [ids(FOULED), R.ref_declare(R.ref_best_natural(R.ref_cards(FLUSHES), NEW))], NEW
    )[0]
    assert out[0, 0] == want == -38.0
    nv = np.empty(1)
    K._natural_values(-1, 0, onat, onatkey, np.zeros(1, np.bool_), ra.nat_units, nv, ra.params)
    pairs = np.zeros((1, 1))
    K._mc_pairs(ck, cro, cf, okeys.T.reshape(3, 1, 1).copy(), oroy.T.reshape(4, 1, 1).copy(),
                np.ones((1, 1), np.bool_), nv.reshape(1, 1), np.ones(1), ra.params, 0, 1,
                pairs)  # fmt: skip
    assert pairs[0, 0] == -38.0


def test_the_practice_tables_showdown_pays_the_six_to_a_mau_binh():
    """The page's showdown settles each pair as settle_table does: a declared mậu binh
    against a binh lủng, +38 (solver/apps/web/table.py)."""
    from solver.apps.web import table as T

    cr = compile_rules(NEW)
    nat = find_natural(R.ref_cards(FLUSHES), NEW)
    fouled = summarize(FOULED, cr)
    seats, sums, hold = [nat, FOULED], [None, fouled], np.zeros(2, np.bool_)
    assert T._pair(0, 1, seats, sums, hold, None, cr) == 38.0 == settle_table(seats, NEW)[0]
    assert T._pair(1, 0, seats, sums, hold, None, cr) == -38.0
