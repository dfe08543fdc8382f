"""The home run in the field's value (docs/rules.md#the-field-and-the-home-run).

The field's tables are pairwise and shared by every number of players; their file keeps
the moments of the field's chance of scooping (``FieldTables.scoop``), from which loading
them for a ruleset sets ``FieldModel.hr`` at its table, which the kernels add
(``_home_run``; the value term for term against the oracle, and the branch and bound's
allowance, are in tests/test_solver.py's ``_field_configs``). Here: where it is set, what
it holds, that its chances are what dealt tables of field players make, that training
keeps the moments and an old file without them is refused, and that the pools of two
tables of one ruleset do not replace each other.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from solver.engine.compiled import compile_rules
from solver.engine.rules import load_rules
from solver.engine.settlement import find_naturals
from solver.strategy.field_model import field as FT
from solver.strategy.field_model import train as TRAIN
from solver.strategy.field_model.field import play_digest, scoop_chances
from solver.strategy.field_model.policy import set_sorted_hands
from solver.strategy.field_model.trained import get_field
from solver.strategy.hands.deal import deal_hands
from solver.strategy.opposition import pool as P


def at(name: str, **change) -> object:
    return compile_rules(dataclasses.replace(load_rules(name), **change))


def test_the_field_adds_the_home_run_only_where_the_table_plays_it():
    """十三水 (×2 from 2 opponents) at 3 and 4 players: the multiplier less 1 and the
    opponents; at 2 players, a banker's table, or a preset without the home run: none.
    The tables themselves are the same at every table of the ruleset."""
    two, three, four = (get_field(at("shisanshui", players=n)) for n in (2, 3, 4))
    assert not two.model.hr.any()
    assert list(three.model.hr[:2]) == [1.0, 2.0]
    assert list(four.model.hr[:2]) == [1.0, 3.0]
    for f in (three, four):
        assert 0.9 < f.model.hr[2] < 1.0  # the chance none of the others declares
        assert 0.0 < f.model.hr[3] < 1.0
    assert three.model.hr[3] > four.model.hr[3]  # two others are harder to scoop than one
    assert np.array_equal(two.model.fx, three.model.fx)  # one set of tables
    assert three.model.fx is four.model.fx or np.array_equal(three.model.fx, four.model.fx)
    assert play_digest(at("shisanshui", players=3).rules) == play_digest(at("shisanshui").rules)
    for cr in (at("shisanshui-banker", players=3), at("chinese-1-6"), at("mau-binh", players=3)):
        assert not get_field(cr).model.hr.any(), cr.rules.name
    assert not FT.pairwise(three).model.hr.any()  # how training and learned models value
    assert three.model.jw.shape[0] > 1  # scoop chances corrected for the home run


def test_a_table_of_fewer_players_is_seated_with_its_players():
    """The table size is a front end's (``--players``), not the ruleset's: ``seated``
    gives a ruleset that plays the home run the table's ``players``, so the field's value
    counts it at 3 players over 2 opponents and not at all at 2; a ruleset without the
    home run keeps its own (its digest with it)."""
    from solver.engine.seating import seated

    shisanshui, chinese = load_rules("shisanshui"), load_rules("chinese-1-6")
    assert seated(shisanshui, 3).players == 3 and seated(shisanshui, 4) is shisanshui
    assert seated(chinese, 2) is chinese
    assert not get_field(compile_rules(seated(shisanshui, 2))).model.hr.any()
    assert list(get_field(compile_rules(seated(shisanshui, 3))).model.hr[:2]) == [1.0, 2.0]


def test_the_chances_of_the_home_run_are_what_dealt_tables_make():
    """At 十三水 tables of 3 players, every seat set by the field: how often a seat scoops
    the table with none declaring a natural, beside the mean of pw^m times the chance
    none of the others declares (``FieldModel.hr[2]``; pw each seat's own chance of
    scooping one field opponent, as the field value reckons it); and how often a seat
    that scooped one player scoops the other too, none declaring, beside ``hr[3]``.
    4,000 tables (12,000 seats): the first is about 0.029 (3% a standard error), the
    second 0.27 over about 2,600 scoops (3%); both within 15% (the measured gaps are 3%
    and 4%; the power m - 1 in place of m would be off threefold)."""
    cr = at("shisanshui", players=3)
    f = get_field(cr)
    hr = f.model.hr
    tables = 4000
    hands = deal_hands(np.random.default_rng(5), tables, 3, deck=cr.rules.deck).reshape(-1, 13)
    _, keys, roy, _ = set_sorted_hands(hands, cr, "field", f)
    pw = np.clip(scoop_chances(keys, roy, hands, cr, f)[:, 0], 0.0, 1.0).reshape(tables, 3)
    shows = (find_naturals(hands, cr)[0] < 0).reshape(tables, 3)
    k = keys.reshape(tables, 3, 3)
    beats = (k[:, :, None, :] > k[:, None, :, :]).all(axis=3)  # [t, j, i]: j scoops i
    whole = scooped = both = 0
    for j in range(3):
        i, other = (s for s in range(3) if s != j)
        whole += (beats[:, j, i] & beats[:, j, other] & shows.all(axis=1)).sum()
        for a, b in ((i, other), (other, i)):
            scooped += beats[:, j, a].sum()
            both += (beats[:, j, a] & beats[:, j, b] & shows[:, j] & shows[:, b]).sum()
    predicted = float((pw**2 * hr[2] * shows).mean())
    assert whole / (3 * tables) == pytest.approx(predicted, rel=0.15)
    assert both / scooped == pytest.approx(hr[3], rel=0.15)


def test_the_pools_of_two_tables_of_one_ruleset_are_two_families():
    """A pool is set by the field at its table: 十三水's pools at 3 and 4 players have
    their own keys and families (building one never removes the other as stale), and
    at 2 players and without the home run a ruleset keeps one family."""
    three, four = at("shisanshui", players=3), at("shisanshui", players=4)
    assert P.pool_key(three) != P.pool_key(four)
    assert P._family(three) != P._family(four)
    assert P._family(at("shisanshui", players=2)) == P._family(at("shisanshui", players=2))
    assert P._family(at("chinese-1-6", players=2)) == P._family(at("chinese-1-6", players=3))


def test_training_keeps_the_scoop_moments_and_an_old_file_without_them_is_refused(tmp_path):
    """What training returns carries E[pw^k] of its own settings (``scoop_moments``: the
    same numbers again from the same tables), saved and loaded with the tables; a file
    without them loads at a table without the home run, and at one with it is refused in
    one line naming the file and saying to train it again (a cached one is then trained
    again by ``ensure_field``); damaged moments (a crafted file) are refused too."""
    two = at("per-row", players=2)
    tables = TRAIN.train(two, rounds=1, hands_per_round=400, min_rounds=1)
    assert tables.scoop.shape == (5,)
    again = TRAIN.scoop_moments(two, tables)
    assert np.allclose(tables.scoop, again.astype(np.float32), rtol=1e-6)
    assert 0.0 < tables.scoop[4] < tables.scoop[0] < 1.0  # moments of a chance, falling
    FT.save_field(tables, tmp_path / "new.npz")
    hr_rules = dataclasses.replace(load_rules("per-row"), home_run_multiplier=2,
                                   home_run_min_opponents=1, players=3)  # fmt: skip
    hr = compile_rules(hr_rules)
    loaded = FT.load_field_file(tmp_path / "new.npz", hr)
    assert np.array_equal(loaded.scoop, tables.scoop)
    assert loaded.model.hr[1] == 2.0
    assert loaded.model.hr[3] == pytest.approx(tables.scoop[1] / tables.scoop[0])  # no naturals
    old = tables._replace(scoop=np.zeros(0))
    FT.save_field(old, tmp_path / "old.npz")
    assert not FT.load_field_file(tmp_path / "old.npz", two).model.hr.any()
    with pytest.raises(ValueError, match=r"old\.npz: .*leaves the home run out.*train it again"):
        FT.load_field_file(tmp_path / "old.npz", hr)
    for bad in ([0.1, 0.2], [0.1, 0.05, np.nan, 0.0, 0.0], [1.5, 0.5, 0.2, 0.1, 0.0]):
        FT.save_field(old, tmp_path / "bad.npz", extra={"scoop": np.array(bad)})
        with pytest.raises(ValueError, match=r"bad\.npz: .*scoop moments are damaged"):
            FT.load_field_file(tmp_path / "bad.npz", two)
