"""Issue 51 (the fourth hardening round), inputs and messages, through the real CLI (in
the test's process, ``helpers.capsa_in``: stdin is given whole, and the claims are which
input reads it and how): one stdin for one input (``solve - --rules -``), a ruleset saved
with a byte order mark, a ruleset's name that is never a path, the presets that seat
five named where a newcomer asks for five."""

from __future__ import annotations

import json

import pytest

from tests.helpers import capsa_in

HAND = "As Ks Qs Js Ts 9h 9d 9c 2s 3d 4c 5h 7d"


def error_line(res, code: int = 2) -> str:
    """The one error line of a refused command (exit ``code``, no traceback)."""
    assert res.returncode == code, res.stdout + res.stderr
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("capsa: error: "), res.stderr
    assert "bug in capsa" not in lines[0]
    return lines[0]


# ---------------------------------------------------------------- 7: one stdin, one input


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["solve", "-", "--rules", "-"], "--rules - and the hand both on stdin"),
        (["solve", HAND, "--rules", "-", "--against", "-"],
         "--rules - and --against - both on stdin"),
        (["solve", "-", "--against", "-"], "the hand and --against - both on stdin"),
        (["train", "--from", "-", "--rules", "-", "-o", "model.npz"],
         "--rules - and --from - both on stdin"),
    ],
)  # fmt: skip
def test_two_inputs_cannot_both_come_from_stdin(tmp_path, args, named):
    res = capsa_in(*args, input="jokers = 1\n", cwd=tmp_path)
    line = error_line(res)
    assert named in line and "give one of them as a file" in line, line
    assert not list(tmp_path.iterdir())


def test_the_hand_on_stdin_with_rules_from_a_file_still_reads(tmp_path):
    (tmp_path / "one.toml").write_text("jokers = 1\n", encoding="utf-8")
    res = capsa_in("solve", "-", "--rules", "one.toml", "--policy", "greedy", "-f", "json",
                   input="X Ks Qs Js Ts 9h 9d 9c 2s 3d 4c 5h 7d\n", cwd=tmp_path)  # fmt: skip
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["rules"] == "one"


# ---------------------------------------------------------------- 8: a byte order mark

BOM = "\ufeff"
HOUSE = 'name = "house"\nbase = "per-row"\nplayers = 3\n'


def test_a_ruleset_file_saved_with_a_byte_order_mark_is_read(tmp_path):
    (tmp_path / "house.toml").write_text(BOM + HOUSE, encoding="utf-8")
    assert (tmp_path / "house.toml").read_bytes().startswith(b"\xef\xbb\xbf")
    res = capsa_in("rules", "house.toml", "-f", "json", cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    got = json.loads(res.stdout)
    assert (got["name"], got["scoring"], got["players"]) == ("house", "per-row", 3)
    # and the same ruleset without the mark is the same ruleset
    (tmp_path / "plain.toml").write_text(HOUSE, encoding="utf-8")
    plain = capsa_in("rules", "plain.toml", "-f", "json", cwd=tmp_path)
    assert json.loads(plain.stdout) == got


def test_a_ruleset_on_stdin_with_a_byte_order_mark_is_read(tmp_path):
    res = capsa_in("solve", HAND, "--rules", "-", "--policy", "greedy", "-f", "json",
                   input=BOM + HOUSE, cwd=tmp_path)  # fmt: skip
    assert res.returncode == 0, res.stderr
    got = json.loads(res.stdout)
    assert got["rules"] == "house" and got["players"] == 3


def test_a_byte_order_mark_inside_a_ruleset_is_still_not_toml(tmp_path):
    (tmp_path / "mid.toml").write_text(HOUSE + BOM + "jokers = 1\n", encoding="utf-8")
    line = error_line(capsa_in("rules", "mid.toml", cwd=tmp_path))
    assert "mid.toml: not valid TOML" in line, line


# ---------------------------------------------------------------- 4: a name is not a path


def test_train_ship_refuses_a_name_that_is_a_path(tmp_path):
    """``--ship`` writes ``solver/data/field-NAME.npz``: a name that climbs out of it
    (here into this test's folder) is refused before any training, nothing written."""
    import os

    from solver.strategy.field_model import field

    data = field.DATA_DIR
    climb = os.path.relpath(tmp_path / "x", data / "field-..")
    (tmp_path / "n.toml").write_text(f'name = "../{climb}"\nbase = "per-row"\n')
    before = sorted(p.name for p in data.iterdir())
    res = capsa_in("train", "--rules", "n.toml", "--ship", "--rounds", "1", "--hands", "100",
                   "--min-rounds", "1", cwd=tmp_path)  # fmt: skip
    created = sorted(p.name for p in data.iterdir())
    for name in set(created) - set(before):  # today's code made field-.. there: undo it
        import shutil

        shutil.rmtree(data / name, ignore_errors=True)
    line = error_line(res)
    assert "n.toml: name '../" in line and "is a path" in line, line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["n.toml"]
    assert created == before


@pytest.mark.parametrize("name", ["a/b", "a\\\\b", "..", "."])
def test_a_name_with_a_path_in_it_is_refused_wherever_a_ruleset_is_read(tmp_path, name):
    (tmp_path / "n.toml").write_text(f'name = "{name}"\n')
    line = error_line(capsa_in("rules", "n.toml", cwd=tmp_path))
    assert "n.toml: name " in line and "is a path" in line, line
    line = error_line(capsa_in("solve", HAND, "--rules", "-", input=f'name = "{name}"\n'))
    assert "stdin: name " in line and "is a path" in line, line


# ---------------------------------------------------------------- 11: five at the table


@pytest.mark.parametrize("rules", [None, "mau-binh"])
def test_five_players_under_a_preset_of_four_names_the_preset_that_seats_five(rules):
    """A newcomer cannot set ``extra_suits`` from the command line: the line names the
    option that seats five (``--rules shisanshui``) before the ruleset file's key, and
    that option does seat five."""
    given = ["--rules", rules] if rules else []
    line = error_line(capsa_in("solve", HAND, *given, "--players", "5"))
    assert 'players = 5 needs a bigger deck than extra_suits = ""' in line, line
    assert "(--rules shisanshui: it adds a suit)" in line, line
    assert 'or set extra_suits = "h" (65 cards) or "hc" (78 cards) in a ruleset file' in line
    hand = "As Ks Qs Js Ts 9h 9d 9c 2s 3d 4c 5h 5h"  # a second 5♥: the 65-card deck
    res = capsa_in("solve", hand, "--rules", "shisanshui", "--players", "5", "--policy",
                   "greedy", "-f", "json")  # fmt: skip
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["rules"] == "shisanshui-5"
