"""Jokers (issue #32) as a user meets them: the real ``capsa`` command (run in the
test's process, ``helpers.capsa_in``: no claim here is about the process itself).

``--jokers N`` beside ``--players`` on every command that seats a table (``solve``,
``batch``, ``strength``, ``duel``, ``train``, ``rank``, ``rules``, ``pool``), a ruleset
file with ``jokers = 2`` that needs no flag, ``X`` read and written everywhere (hands,
played settings, batch lines of every id form and CSV, records, the report's style, an
external duel program's hands), and a joker on a deck without jokers: one line naming
``--jokers`` (exit 2), or, in a batch, that line reported by its number while the
others are solved.

The field tables of ``shisanshui-jokers-2`` are trained once, small, by ``capsa train
--jokers 2`` into the tests' cache (the first test); every answer checked here is one
that does not depend on how good they are.
"""

from __future__ import annotations

import csv
import io
import json
import re
import sys
from collections import Counter

import pytest

from solver.engine.rules import PRESETS
from solver.engine.seating import at_table
from solver.strategy.field_model.field import FIELD_VERSION, play_digest
from tests.helpers import capsa_in

TABLE = ("--rules", "shisanshui", "--jokers", "2")
TWO = "X X Ah Kd Qh Jc 9s 8s 7d 5c 5h 3d 2c"
ONE = "X Ah Kd Qh Jc 9s 8s 7d 5c 5h 3d 2c 2d"
#: Settings played with jokers, of hands without a natural (so the advice is a setting).
PLAYED = (
    "X 2d 2c | Ah Kd Qh Jc 9s | 8s 7d 5c 5h 3d",
    "X As Kd | Ah Ad Qh Jc 9s | 8s 8d 8h 5h 3d",
    "X X As | Ah Ad Qh Jc 9s | Ks 8d 8h 5h 3d",
)


def _cards(text: str) -> Counter:
    return Counter(text.replace("|", " ").upper().split())


def _one_line(run, *words: str) -> None:
    """Exit 2 and one line on stderr holding ``words`` (besides a first run's notices:
    the kernels compiled, the lookup tables built)."""
    assert run.returncode == 2, (run.stdout, run.stderr)
    lines = [line for line in run.stderr.splitlines() if "(first run only" not in line]
    assert len(lines) == 1 and lines[0].startswith("capsa: error: "), run.stderr
    for word in words:
        assert word in lines[0], lines[0]


@pytest.fixture(scope="module")
def trained():
    """``capsa train --jokers 2``: small field tables of shisanshui-jokers-2, cached for
    every later command of this file."""
    run = capsa_in("train", *TABLE, "--rounds", "1", "--min-rounds", "1", "--hands", "100",
                   "--tol", "10")  # fmt: skip
    assert run.returncode == 0, run.stderr
    rules = at_table(PRESETS["shisanshui"], None, 2)
    assert f"field-v{FIELD_VERSION}-{play_digest(rules)}.npz" in run.stderr  # its own tables


def test_solve_with_jokers_as_a_table_and_as_json(trained):
    table = capsa_in("solve", TWO, *TABLE, "--policy", "field", "--top", "1")
    assert table.returncode == 0, table.stderr
    assert "shisanshui-jokers-2, 4 players" in table.stdout  # the whole title fits
    assert "jokers: in the " in table.stdout  # what each row's jokers stand for
    rows = [line for line in table.stdout.splitlines() if line.strip("│ ").startswith(
        ("front", "middle", "back"))]  # fmt: skip
    assert sum(line.split().count("X") for line in rows) == 2, table.stdout
    run = capsa_in("solve", TWO.replace("X", "🃏", 1), *TABLE, "--policy", "field", "-f", "json")
    assert run.returncode == 0, run.stderr
    d = json.loads(run.stdout)
    assert d["rules"] == "shisanshui-jokers-2"
    assert _cards(d["hand"]) == _cards(TWO)
    assert _cards(" ".join(d[r] for r in ("front", "middle", "back"))) == _cards(TWO)


def test_a_played_setting_and_opponents_with_jokers(trained, tmp_path):
    played = capsa_in("solve", ONE, *TABLE, "--policy", "field", "--played", PLAYED[0],
                      "-f", "json")  # fmt: skip
    assert played.returncode == 0, played.stderr
    p = json.loads(played.stdout)["played"]
    assert (p["front"], p["fouled"]) == ("X 2d 2c", True)  # trips before a high card
    against = tmp_path / "opp.txt"
    against.write_text("X 2h 2s | Ac Kc Qc Jd 9d | 8h 7h 6c 6h 4s\n")
    exact = capsa_in("solve", ONE, *TABLE, "--against", str(against), "-f", "json")
    assert exact.returncode == 0, exact.stderr
    d = json.loads(exact.stdout)
    assert (d["policy"], d["players"]) == ("exact", 2)
    assert _cards(" ".join(d[r] for r in ("front", "middle", "back"))) == _cards(ONE)


def test_a_joker_on_a_deck_without_jokers_names_the_flag_and_the_key():
    _one_line(capsa_in("solve", ONE, "--rules", "shisanshui"), "'X'", "--jokers", "jokers = ")
    _one_line(capsa_in("rank", "X As Ks"), "'X'", "--jokers", "jokers = ")


@pytest.mark.parametrize("value", ["3", "-1", "two"])
def test_a_bad_jokers_value_is_one_line(value):
    _one_line(capsa_in("solve", ONE, "--jokers", value, "--policy", "field"), "--jokers")


def test_a_ruleset_with_a_suit_order_takes_no_jokers():
    _one_line(capsa_in("rules", "capsa", "--jokers", "1"), "suit_order")


def test_a_ruleset_file_with_jokers_needs_no_flag(trained, tmp_path):
    shown = capsa_in("rules", "shisanshui", "--jokers", "2", env={"COLUMNS": "200"})
    assert shown.returncode == 0, shown.stderr
    row = next(line for line in shown.stdout.splitlines() if line.split()[:1] == ["jokers"])
    assert "2 (" in row and "54 cards" in row, shown.stdout
    toml = capsa_in("rules", "shisanshui", "--jokers", "2", "-f", "toml")
    assert "jokers = 2" in toml.stdout.splitlines()
    path = tmp_path / "two.toml"
    path.write_text(toml.stdout)
    run = capsa_in("solve", TWO, "--rules", str(path), "--policy", "field", "-f", "json")
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["rules"] == "shisanshui-jokers-2"


def test_rank_reads_a_joker_as_any_card():
    run = capsa_in("rank", "X As Ah Ad Ac", "--jokers", "1", "-f", "json")
    assert run.returncode == 0, run.stderr
    d = json.loads(run.stdout)
    assert (d["category"], d["jokers"], d["cards"]) == ("five of a kind", 1, "X As Ah Ad Ac")
    assert "extra_suits" not in d


def _batch_input(tmp_path):
    """Hands with jokers in every id form, a played setting with jokers, a line of three
    jokers (bad), a hand without one; and the line numbers of each."""
    played = [f"p{i}: {s}" for i, s in enumerate(PLAYED)]
    lines = ["# jokers", f"a: {TWO}", ONE, f"b\t{ONE.replace('2d', '4c')}",
             "c: X X X As Ks Qs Js 9h 9d 9c 2s 3d 4c", *played,
             "n: As Ks Qs Js 9h 9d 9c 2s 3d 4c 5h 7d 8c"]  # fmt: skip
    path = tmp_path / "hands.txt"
    path.write_text("\n".join(lines) + "\n")
    return path, {"bad": 5, "no_joker": 9, "jokers": [2, 3, 4, 6, 7, 8]}


def test_batch_reads_and_writes_jokers(trained, tmp_path):
    path, at = _batch_input(tmp_path)
    out = tmp_path / "out.jsonl"
    run = capsa_in("batch", str(path), *TABLE, "--policy", "field", "-w", "1", "-o", str(out))
    assert run.returncode == 1, run.stderr  # the one bad line
    assert f"line {at['bad']} (id c): 3 jokers 'X'" in run.stderr
    records = {r["line"]: r for r in map(json.loads, out.read_text().splitlines())}
    assert sorted(records) == sorted([*at["jokers"], at["no_joker"]])
    assert records[3]["id"] is None  # a line of cards starting with X has no id
    for r in records.values():
        assert r["rules"] == "shisanshui-jokers-2"
        assert _cards(" ".join(r[k] for k in ("front", "middle", "back"))) == _cards(r["hand"])
    assert _cards(records[2]["hand"])["X"] == 2
    assert records[6]["played"]["front"] == "X 2d 2c"
    again = capsa_in("batch", str(path), "--rules", "shisanshui", "--jokers", "1", "--policy",
                     "field", "-o", str(out), "--resume")  # fmt: skip
    _one_line(again, "cannot resume", "shisanshui-jokers-1")


def test_batch_without_jokers_reports_each_joker_line_and_solves_the_others(tmp_path):
    path, at = _batch_input(tmp_path)
    run = capsa_in("batch", str(path), "--rules", "shisanshui", "--policy", "greedy", "-w", "1")
    assert run.returncode == 1, run.stderr
    said = [line for line in run.stderr.splitlines() if "--jokers" in line]
    numbers = [int(re.match(r"capsa: line (\d+)\b", line)[1]) for line in said]  # type: ignore[index]
    assert numbers == sorted([*at["jokers"], at["bad"]])
    assert all("'X'" in line and "jokers = " in line for line in said)
    assert [json.loads(r)["line"] for r in run.stdout.splitlines()] == [at["no_joker"]]


def test_batch_csv_with_jokers_in_and_out(trained, tmp_path):
    src = tmp_path / "hands.csv"
    src.write_text(f'id,hand\nh1,{TWO}\nh2,"{ONE.replace(" ", ",")}"\n', encoding="utf-8")
    out = tmp_path / "out.csv"
    run = capsa_in("batch", str(src), *TABLE, "--policy", "field", "-w", "1", "-o", str(out))
    assert run.returncode == 0, run.stderr
    rows = list(csv.DictReader(io.StringIO(out.read_text())))
    assert [r["id"] for r in rows] == ["h1", "h2"]
    assert [_cards(r["hand"])["X"] for r in rows] == [2, 1]
    report = capsa_in("report", str(out), "-f", "json")
    assert report.returncode == 0, report.stderr
    assert json.loads(report.stdout)["hands"] == 2


def test_report_ranks_the_settings_played_with_jokers(trained, tmp_path):
    src = tmp_path / "played.txt"
    src.write_text("".join(f"p{i}: {s}\n" for i, s in enumerate(PLAYED)))
    out = tmp_path / "played.jsonl"
    run = capsa_in("batch", str(src), *TABLE, "--policy", "field", "-w", "1", "-o", str(out))
    assert run.returncode == 0, run.stderr
    report = capsa_in("report", str(out), "-f", "json")
    assert report.returncode == 0, report.stderr
    style = json.loads(report.stdout)["style"]
    assert style is not None and style["hands"] == 3  # every hand ranked, jokers and all
    front = style["played"]["front"]  # X 2d 2c, X X As: trips; X As Kd: a pair of aces
    assert (front["three_of_a_kind"], front["pair"], front["pair_rank_mean"]) == (2, 1, 14.0)
    assert style["played"]["fouled"] == 3
    table = capsa_in("report", str(out))
    assert table.returncode == 0, table.stderr
    assert "X X A♠" in table.stdout


BOT = """\
import os, sys
with open(os.environ["BOT_LOG"], "a") as log:
    log.write(" ".join(os.environ[k] for k in ("CAPSA_RULES", "CAPSA_JOKERS")) + "\\n")
    for line in sys.stdin:
        log.write(line)
        c = line.split()
        print(" ".join(c[:3]), "|", " ".join(c[3:8]), "|", " ".join(c[8:]), flush=True)
"""


def test_duel_deals_jokers_to_every_strategy(trained, tmp_path):
    bot, log = tmp_path / "bot.py", tmp_path / "bot.log"
    bot.write_text(BOT)
    run = capsa_in("duel", "field", f"cmd:{sys.executable} {bot}", *TABLE, "--deals", "4",
                   "--seed", "1", "-f", "json", env={"BOT_LOG": str(log)})  # fmt: skip
    assert run.returncode == 0, run.stderr
    d = json.loads(run.stdout)
    assert d["rules"] == "shisanshui-jokers-2"
    assert d["fouls"]["a"]["bad_answers"] == d["fouls"]["b"]["bad_answers"] == 0
    env, *hands = log.read_text().splitlines()
    assert env == "shisanshui-jokers-2 2"
    jokers = [sum(h.split().count("X") for h in hands[i : i + 4]) for i in range(0, 16, 4)]
    assert len(hands) == 16 and 0 < sum(jokers) and max(jokers) <= 2  # 4 deals of 4 hands


def test_strength_with_jokers(trained):
    run = capsa_in("strength", *TABLE, "--hands", "3", "--samples", "20", "--eval-deals", "2",
                   "-f", "json")  # fmt: skip
    assert run.returncode == 0, run.stderr
    d = json.loads(run.stdout)
    assert (d["rules"], d["hands"]) == ("shisanshui-jokers-2", 3)


def test_a_pool_holds_jokers(trained, tmp_path):
    """``capsa pool --jokers 2`` builds the table's pool (docs/pool.md#jokers), and
    ``batch --pool`` then solves from it."""
    env = {"CAPSA_POOL_DIR": str(tmp_path / "pools")}
    run = capsa_in("pool", *TABLE, "--size", "1000", "-f", "json", env=env)
    assert run.returncode == 0, run.stderr
    d = json.loads(run.stdout)
    assert (d["rules"], d["hands"], d["built"]) == ("shisanshui-jokers-2", 1000, True)
    src = tmp_path / "one.txt"
    src.write_text(ONE + "\n")
    out = tmp_path / "out.jsonl"
    run = capsa_in("batch", str(src), *TABLE, "--pool", "--samples", "30", "-w", "1", "-o",
                   str(out), env=env)  # fmt: skip
    assert run.returncode == 0, run.stderr
    (r,) = map(json.loads, out.read_text().splitlines())
    assert _cards(" ".join(r[k] for k in ("front", "middle", "back"))) == _cards(ONE)


def test_the_table_seats_then_takes_its_jokers():
    from evaluator.cards import format_cards
    from solver.apps.report.records import record_deck

    five = at_table(PRESETS["shisanshui"], 5, 2)
    assert (five.name, five.deck_code, five.players) == ("shisanshui-5-jokers-2", "hXX", 5)
    assert record_deck(five.name, 5) == "hXX"
    assert record_deck("shisanshui-jokers-1", 4) == "X"
    assert record_deck("house", 4, "X As Kd") == "XX"  # a file's name need not say
    assert record_deck("house", 4, "As Kd Qh") == ""
    assert format_cards([53, 57, 51]) == "X X As"
