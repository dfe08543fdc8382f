"""A table's name follows its deck (issue #51, item 5): the real ``capsa`` command
(in the test's process, ``helpers.capsa_in``).

``capsa rules shisanshui --jokers 2 -f toml`` writes a file named
``shisanshui-jokers-2``; that file given ``--jokers 0`` kept the name for a table
without jokers, and ``--jokers 1`` named it ``shisanshui-jokers-2-jokers-1``, so records,
run files and messages named the wrong table. A name a table was given for its jokers
(``NAME-jokers-N``, N the ruleset's jokers) is now taken off before the deck asked for
names it again. ``capsa train --from`` named ``shisanshui-jokers-2`` in its refusal of a
six-player table with jokers: it now seats the table ``--players`` asks for, and names it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from solver.engine.rules import PRESETS
from solver.engine.seating import at_table, with_jokers
from tests.helpers import capsa_in

HAND = "As Kd Qh Jc 9s 8d 7h 6c 5s 4d 3h 2c 2s"
AGAINST = "Ad Ac Kc | Qd Qc Td Tc 9d | Ks 8s 7s 6s 4s\n"


@pytest.fixture(scope="module")
def sj2(tmp_path_factory) -> Path:
    """The file ``capsa rules shisanshui --jokers 2 -f toml`` writes."""
    folder = tmp_path_factory.mktemp("names")
    res = capsa_in("rules", "shisanshui", "--jokers", "2", "-f", "toml")
    assert res.returncode == 0, res.stderr
    path = folder / "sj2.toml"
    path.write_text(res.stdout)
    assert 'name = "shisanshui-jokers-2"' in res.stdout
    return path


@pytest.mark.parametrize(("jokers", "name"), [(0, "shisanshui"), (1, "shisanshui-jokers-1"),
                                              (2, "shisanshui-jokers-2")])  # fmt: skip
def test_a_file_given_other_jokers_is_named_for_its_deck(sj2, jokers, name):
    """``capsa rules FILE --jokers N``: the table's name is the base name and its deck,
    and the table is the preset's at that deck (what the file paid for two jokers, the
    front of both jokers and six of a kind, is not paid at a table without them)."""
    res = capsa_in("rules", str(sj2), "--jokers", str(jokers), "-f", "json")
    assert res.returncode == 0, res.stderr
    shown = json.loads(res.stdout)
    assert (shown["name"], shown.get("jokers", 0)) == (name, jokers)
    preset = capsa_in("rules", "shisanshui", "--jokers", str(jokers), "-f", "json")
    assert preset.returncode == 0, preset.stderr
    assert shown == json.loads(preset.stdout)
    table = capsa_in("rules", str(sj2), "--jokers", str(jokers))
    assert table.returncode == 0, table.stderr
    assert table.stdout.splitlines()[0].split() == ["name", name]


@pytest.mark.parametrize(("jokers", "name"), [(0, "shisanshui"), (1, "shisanshui-jokers-1")])
def test_an_answer_names_the_table_it_was_played_at(sj2, tmp_path, jokers, name):
    """``capsa solve`` at that table (against a known opponent: no field tables needed)
    names it in its answer."""
    (tmp_path / "opp.txt").write_text(AGAINST)
    res = capsa_in("solve", HAND, "--rules", str(sj2), "--jokers", str(jokers), "--against",
                   str(tmp_path / "opp.txt"), "-f", "json")  # fmt: skip
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["rules"] == name


def test_the_library_names_a_table_by_base_and_deck():
    """``with_jokers`` from a table already given jokers; the preset's five-player
    table; from any deck of the preset's to another, the preset's table there; a ruleset
    whose own name ends like a derived one but deals other jokers keeps it; an edited
    table is named for its deck and keeps what it pays."""
    two = at_table(PRESETS["shisanshui"], None, 2)
    assert [with_jokers(two, j).name for j in (0, 1, 2)] == [
        "shisanshui", "shisanshui-jokers-1", "shisanshui-jokers-2"]  # fmt: skip
    five = at_table(PRESETS["shisanshui"], 5, 1)
    assert five.name == "shisanshui-5-jokers-1"
    assert with_jokers(five, 2).name == "shisanshui-5-jokers-2"
    assert with_jokers(five, 0).name == "shisanshui-5"
    for players in (None, 5, 6):  # from one deck to another: the preset's table there
        for was in (1, 2):
            for now in (0, 1, 2):
                moved = with_jokers(at_table(PRESETS["shisanshui"], players, was), now)
                assert moved == at_table(PRESETS["shisanshui"], players, now)
    import dataclasses

    own = dataclasses.replace(PRESETS["chinese-1-6"], name="house-jokers-2")  # no jokers
    assert with_jokers(own, 1).name == "house-jokers-2-jokers-1"
    edited = dataclasses.replace(two, surrender_cost=5)  # a file of its own: its payouts kept
    assert with_jokers(edited, 0).name == "shisanshui"
    assert with_jokers(edited, 0).royalties == edited.royalties


def test_train_from_names_the_table_its_players_seat(tmp_path):
    """``capsa train --from`` at six players with two jokers learns the model of
    ``shisanshui-6-jokers-2`` (before, ``shisanshui-jokers-2``: ``--players`` was not
    read), and at six players without jokers that of ``shisanshui-6``, the deck with added
    suits (before, the model was learned for four players); the settings are read with
    the table's deck (docs/opponents.md#every-table)."""
    from tests.test_learn_decks import dealt, greedy_lines, table

    for jokers, name in ((2, "shisanshui-6-jokers-2"), (None, "shisanshui-6")):
        rules = table(6, jokers)
        src = tmp_path / f"seen-{name}.txt"
        src.write_text(greedy_lines(rules, dealt(rules, 60, 3)))
        given = ("--jokers", str(jokers)) if jokers else ()
        res = capsa_in("train", "--from", str(src), "--rules", "shisanshui", "-p", "6", *given,
                       "-o", str(tmp_path / f"{name}.npz"), "-f", "json")  # fmt: skip
        assert res.returncode == 0, res.stderr
        assert json.loads(res.stdout)["rules"] == name
        assert (tmp_path / f"{name}.npz").exists()
