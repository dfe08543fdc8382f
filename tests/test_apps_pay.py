"""Tables as the apps pay them (docs/rules.md#tables-as-the-apps-pay-them): a bonus row's
whole value, natural ties by payout and flat fouls, through the paths a player meets
(``solver.settle``, ``settle_table``, ``capsa solve --against`` and ``--played``,
``capsa rules``), each against the oracle tests/reference.py."""

from __future__ import annotations

import dataclasses
import json

import pytest

import solver
from solver.engine.rules import PRESETS, load_rules
from solver.engine.ruleset_files import to_toml
from tests import reference as R
from tests.helpers import capsa_in

#: The case of the issue: A wins only the front, with trips
#: (docs/rules.md#a-bonus-row-is-its-whole-value).
A = ("Kh Kd Ks", "4c 5d 6h 7s 8c", "2h 7h 9h Th Jh")
B = ("Qh Qd 4s", "2d 3d 9d Td Jd", "Ac Ad As 6c 6d")
A_TEXT = " | ".join(A)
B_TEXT = " | ".join(B)


def ids(setting) -> tuple[tuple[int, ...], ...]:
    return tuple(R.ref_cards(row) for row in setting)


@pytest.mark.parametrize(
    "name, units",
    [
        ("shisanshui", 1.0),  # 3 - 1 - 1: the front's trips are the row's whole value
        ("mau-binh-rules", 1.0),  # the rule texts pay front trips 3 in all too
        ("mau-binh", 4.0),  # gameBinh's live code: 6 - 1 - 1
        ("chinese-1-6", 2.0),  # 1 - 1 - 1 + 3: a royalty on top of the row, as before
        ("per-row", -1.0),
    ],
)
def test_the_constructed_case_through_settle(name, units):
    r = PRESETS[name]
    assert solver.settle(A, B, rules=r) == units == R.ref_settle(ids(A), ids(B), r)
    assert solver.settle(B, A, rules=r) == -units


def test_the_constructed_case_before_the_apps_rules():
    """The same table with the royalty on top of the row: +2, as capsa paid before."""
    r = dataclasses.replace(PRESETS["shisanshui"], name="on-top", royalty_replaces_row=False)
    assert solver.settle(A, B, rules=r) == 2.0 == R.ref_settle(ids(A), ids(B), r)


def test_the_constructed_case_through_capsa_solve_against(tmp_path):
    """``capsa solve --against`` values the played setting +1 under shisanshui, and its own
    best answer is the oracle's value of the setting it prints."""
    opp = tmp_path / "b.txt"
    opp.write_text(B_TEXT + "\n", encoding="utf-8")
    hand = " ".join(A)
    res = capsa_in("solve", hand, "--rules", "shisanshui", "--against", str(opp),
                   "--played", A_TEXT, "--format", "json")  # fmt: skip
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert out["policy"] == "exact"
    assert out["played"]["ev"] == pytest.approx(1.0)
    r = PRESETS["shisanshui"]
    best = tuple(R.ref_cards(out[row]) for row in ("front", "middle", "back"))
    assert out["ev_play"] == pytest.approx(R.ref_settle(best, ids(B), r))
    assert out["ev_play"] >= 1.0


def test_flat_foul_and_whole_rows_at_a_table():
    """mau-binh-rules: a fouled hand pays each legal opponent 3 and nothing else (its full
    house in the back earns the legal hand nothing more); two fouled hands settle 0; at
    a table the home run from 2 opponents multiplies the flat penalty too."""
    r = PRESETS["mau-binh-rules"]
    foul = ("As Ad 2c", "3c 4d 5h 7s 9c", "Jh Qd Kc 6d 8h")  # pair of aces over high card
    legal = ("Qh Qc 4s", "2d 3d 9d Td Jd", "Kh Ks Kd 6c 6s")
    assert solver.settle(foul, legal, rules=r) == -3.0 == R.ref_settle(ids(foul), ids(legal), r)
    assert solver.settle(legal, foul, rules=r) == 3.0
    other_foul = ("Ac Ah 2d", "3d 4c 5s 7h 9d", "Js Qc Kd 6h 8s")
    assert solver.settle(foul, other_foul, rules=r) == 0.0
    used = set(sum((list(x) for x in ids(foul) + ids(legal)), []))
    rest = [c for c in range(52) if c not in used][:13]
    third = (tuple(rest[:3]), tuple(rest[3:8]), tuple(rest[8:]))
    table = [ids(legal), ids(foul), third]
    units = R.ref_table_units(table, r)
    assert solver.settle_table(table, r) == R.ref_settle_table(table, r)
    assert units[1][0] in (-3.0, -6.0)  # x2 when the legal hand has the home run


def test_natural_ties_by_payout():
    """shisanshui: equal payouts tie whatever the naturals (six pairs and three flushes
    both pay 6); the larger payout collects its own payout."""
    r = PRESETS["shisanshui"]
    six = ("six_pairs", (12, 11, 10, 9, 8, 7))
    flushes = ("three_flushes", (5, 4, 3))
    dragon = ("dragon", ())
    assert R.ref_settle_natural(six, flushes, r) == 0.0
    assert R.ref_settle_natural(dragon, six, r) == 52.0
    assert R.ref_settle_natural(six, dragon, r) == -52.0
    ids_ = {n: i for i, (n, _) in enumerate(r.naturals)}
    got = solver.settle_table([(ids_["six_pairs"], 5, "six_pairs"),
                               (ids_["three_flushes"], 9, "three_flushes")], r)  # fmt: skip
    assert got == [0.0, 0.0]
    by_order = dataclasses.replace(r, name="by-order", natural_ties="order")
    got = solver.settle_table([(ids_["six_pairs"], 5, "six_pairs"),
                               (ids_["three_flushes"], 9, "three_flushes")], by_order)  # fmt: skip
    assert got == [6.0, -6.0]


def test_capsa_rules_round_trips_the_new_keys(tmp_path):
    """``capsa rules --format toml`` writes every new key; the file reads back as the same
    rules, and the JSON ruleset carries them."""
    path = tmp_path / "house.toml"
    path.write_text(
        'base = "chinese-2-4"\nroyalty_replaces_row = true\nroyalty_mode = "cancel"\n'
        'natural_ties = "payout"\nfoul_penalty = 4.5\n',
        encoding="utf-8",
    )
    res = capsa_in("rules", str(path), "--format", "toml")
    assert res.returncode == 0, res.stderr
    for line in ("royalty_replaces_row = true", 'natural_ties = "payout"', "foul_penalty = 4.5"):
        assert f"\n{line}\n" in res.stdout
    again = tmp_path / "again.toml"
    again.write_text(res.stdout, encoding="utf-8")
    assert load_rules(again) == load_rules(path)
    assert to_toml(load_rules(again)) == res.stdout
    shown = json.loads(capsa_in("rules", str(path), "--format", "json").stdout)
    assert (shown["royalty_replaces_row"], shown["natural_ties"], shown["foul_penalty"]) == (
        True, "payout", 4.5,
    )  # fmt: skip
    words = capsa_in("rules", "shisanshui").stdout
    assert "front three_of_a_kind wins 3" in words and "by payout" in words


@pytest.mark.parametrize(
    "body, keys",
    [
        ('royalty_replaces_row = true\nroyalty_mode = "always"\n',
         ["royalty_replaces_row", "royalty_mode"]),
        ("royalty_replaces_row = true\nroyalties_dealt = true\n",
         ["royalty_replaces_row", "royalties_dealt"]),
        ('natural_ties = "biggest"\n', ["natural_ties"]),
        ("foul_penalty = -2\n", ["foul_penalty"]),
    ],
)  # fmt: skip
def test_bad_keys_are_one_line_exit_2(tmp_path, body, keys):
    path = tmp_path / "bad.toml"
    path.write_text(body, encoding="utf-8")
    res = capsa_in("rules", str(path))
    assert res.returncode == 2
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1, res.stderr
    assert "Traceback" not in res.stderr
    for key in keys:
        assert key in lines[0]


@pytest.mark.parametrize("ties", ["order", "payout"])
def test_natural_kernels_equal_the_oracle_on_equal_payouts(ties):
    """Every pair of shisanshui's naturals (seven of them pay 6), each with tie keys that
    tie or not, through ``_settle_naturals`` (the table), ``settle_declared`` and the Monte
    Carlo's ``_natural_values``, against ``ref_settle_natural``."""
    import numpy as np

    from solver.engine import _kernels as k
    from solver.engine.compiled import compile_rules
    from solver.engine.settlement import settle_declared
    from solver.strategy import _kernels as sk

    r = dataclasses.replace(PRESETS["shisanshui"], name="t", natural_ties=ties)
    cr = compile_rules(load_rules(r))
    names = [n for n, _ in r.naturals]
    onat = np.array([i for i in range(len(names)) for _ in range(2)] + [-1], np.int64)
    okey = np.array([key for _ in names for key in (1, 2)] + [0], np.int64)
    out = np.empty(len(onat))
    seen_equal = 0
    for i, name in enumerate(names):
        for key in (1, 2):
            sk._natural_values(i, key, onat, okey, np.zeros(len(onat), np.bool_),
                               cr.arrays.nat_units, out, cr.params)  # fmt: skip
            for j in range(len(onat)):
                theirs = None if onat[j] < 0 else (names[onat[j]], (int(okey[j]),))
                want = R.ref_settle_natural((name, (key,)), theirs, r)
                assert out[j] == want
                b = None if onat[j] < 0 else (int(onat[j]), int(okey[j]), names[onat[j]])
                assert settle_declared((i, key, name), b, cr) == want
                got = k._settle_naturals(i, key, onat[j], okey[j], cr.arrays.nat_units, cr.params)
                assert got == want
                seen_equal += theirs is not None and names[onat[j]] != name and want == 0.0
    assert (seen_equal > 50) is (ties == "payout")
