"""Batch, report, duel and strength at a five-player table (issue #31), as a user meets them:
the real CLI (in the test's process, ``helpers.capsa_in``), ``--rules shisanshui --players
5`` (the seated preset ``shisanshui-5``, a 65-card deck with the hearts twice), hands rich
in copies of a card.

Each batch output is checked record by record: every good line has one, its rows are
exactly the hand's cards (copies included), the bad lines are reported with their line
numbers (exit 1, docs/batch.md "Bad lines"), the CSV holds one ``ev_opponent_N`` a
opponent summing to ``ev_total``, ``--resume`` adds nothing twice, a played setting
with copies is scored (its foul the oracle's, its loss the advice's value less its own).
"""

from __future__ import annotations

import csv
import io
import json
from collections import Counter

import numpy as np
import pytest

from evaluator import format_cards
from solver.engine.rules import PRESETS
from solver.engine.seating import seated
from tests import reference as ref
from tests.helpers import capsa_in
from tests.test_big_tables import deal, some_setting

RULES = seated(PRESETS["shisanshui"], 5)
TABLE = ("--rules", "shisanshui", "--players", "5")


def _row_text(row) -> str:
    return format_cards(row, "h")


def _batch_file(tmp_path):
    """A batch input: hands of the 65-card deck each holding both copies of two cards,
    two played settings with copies (one legal, one fouled), a line that is not cards and
    a line holding a card three times. Returns (path, {line: (id, hand text, played)},
    {bad line: id})."""
    rng = np.random.default_rng(31)
    lines = ["# five players, the hearts twice"]
    good: dict[int, tuple[str, str, tuple | None]] = {}
    bad: dict[int, str] = {}
    for i in range(6):
        hand = deal("h", 5, rng)[0]
        text = format_cards(hand, "h")
        lines.append(f"h{i}: {text}")
        good[len(lines)] = (f"h{i}", text, None)
    for i, legal in enumerate((True, False)):
        hand = deal("h", 5, rng)[0]
        setting = some_setting(hand, rng, RULES, legal=legal)
        if not legal:  # a back weaker than its middle: a foul for certain
            f, m, b = setting
            setting = (f, b, m) if ref.ref_key5(m) > ref.ref_key5(b) else setting
        lines.append(f"p{i}: " + " | ".join(_row_text(r) for r in setting))
        good[len(lines)] = (f"p{i}", format_cards(hand, "h"), setting)
    lines.append("x1: these are not cards")
    bad[len(lines)] = "x1"
    lines.append("x2: Ah Ah Ah Kh Kd Qs Qd Jc Tc 9d 8s 7h 6c")  # three Ah: the deck holds two
    bad[len(lines)] = "x2"
    path = tmp_path / "hands.txt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path, good, bad


def _check_records(records, good, bad, policy):
    """One record a good line, in order, holding the hand's own cards."""
    assert [r["line"] for r in records] == sorted(good)
    for rec in records:
        ident, hand, played = good[rec["line"]]
        assert rec["id"] == ident
        assert (rec["rules"], rec["players"], rec["policy"]) == ("shisanshui-5", 5, policy)
        assert Counter(rec["hand"].split()) == Counter(hand.split())
        rows = " ".join(rec[r] for r in ("front", "middle", "back")).split()
        assert Counter(rows) == Counter(hand.split()), rec  # copies included
        assert len(rec["ev_by_opponent"]) == 4
        assert sum(rec["ev_by_opponent"]) == pytest.approx(rec["ev_total"], abs=1e-5)
        assert rec["ev_total"] == pytest.approx(4 * rec["ev"], abs=1e-5)
        if played is None:
            assert rec["played"] is None
            continue
        p = rec["played"]
        assert [Counter(p[r].split()) for r in ("front", "middle", "back")] == [
            Counter(_row_text(r).split()) for r in played
        ]
        legal = ref.ref_is_legal(*played, RULES.wheel, RULES.suit_order)
        assert p["fouled"] is (not legal)
        assert p["loss"] == pytest.approx(rec["ev_play"] - p["ev"], abs=2e-6)
        if policy == "field":  # scored beside the advice with the same tables
            assert p["loss"] >= -1e-9
        if not legal:
            assert p["loss"] > 0 and p["rows"]["back"]["loss"] == 1.0


def _check_bad(res, bad):
    assert res.returncode == 1, res.stderr
    for line, ident in bad.items():
        assert f"line {line} (id {ident}):" in res.stderr
    assert "3 times the card 'Ah'" in res.stderr
    assert f"{len(bad)} bad lines" in res.stderr


def test_batch_field_jsonl_and_csv_at_five_players_with_copies_and_the_report(tmp_path):
    path, good, bad = _batch_file(tmp_path)
    out = tmp_path / "out.jsonl"
    res = capsa_in("batch", str(path), *TABLE, "--policy", "field", "-w", "2", "-o", str(out))
    _check_bad(res, bad)
    records = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()]
    _check_records(records, good, bad, "field")

    csv_out = tmp_path / "out.csv"
    res = capsa_in("batch", str(path), *TABLE, "--policy", "field", "-o", str(csv_out))
    _check_bad(res, bad)
    rows = list(csv.DictReader(io.StringIO(csv_out.read_text(encoding="utf-8"))))
    header = csv_out.read_text(encoding="utf-8").splitlines()[0].split(",")
    assert [c for c in header if c.startswith("ev_opponent_")] == [
        f"ev_opponent_{i}" for i in range(1, 5)
    ]
    assert [c for c in header if c.startswith("stake_")] == [f"stake_{i}" for i in range(1, 5)]
    assert [int(r["line"]) for r in rows] == sorted(good)
    for row, rec in zip(rows, records, strict=True):  # the same values as the JSON lines
        opp = [float(row[f"ev_opponent_{i}"]) for i in range(1, 5)]
        assert opp == rec["ev_by_opponent"]
        assert sum(opp) == pytest.approx(float(row["ev_total"]), abs=1e-5)
        assert row["hand"] == rec["hand"] and row["played_front"] == (
            rec["played"]["front"] if rec["played"] else ""
        )

    # --resume on a finished output adds nothing
    before = csv_out.read_bytes()
    res = capsa_in("batch", str(path), *TABLE, "--policy", "field", "-o", str(csv_out), "--resume")
    assert res.returncode == 1 and csv_out.read_bytes() == before

    # the report reads both, cards with copies included (the style counts them)
    for name in (out, csv_out):
        rep = capsa_in("report", str(name), "--format", "json")
        assert rep.returncode == 0, rep.stderr
        d = json.loads(rep.stdout.splitlines()[0])
        assert d["hands"] == len(good) and d["played"] == 2
        assert d["setups"] == [
            {"rules": "shisanshui-5", "policy": "field", "players": 5, "hands": len(good)}
        ]
        assert d["style"] is not None and d["style"]["hands"] == 2
        assert d["style"]["played"]["fouled"] == 1
        assert "five_of_a_kind" in d["style"]["played"]["back"]
        lines = {c["line"] for c in d["costliest"]}
        assert lines == {line for line, g in good.items() if g[2] is not None}


def test_batch_mc_at_five_players_with_workers_resumes_without_repeating(tmp_path):
    path, good, bad = _batch_file(tmp_path)
    out = tmp_path / "mc.jsonl"
    args = ("batch", str(path), *TABLE, "--samples", "40", "-w", "2", "-o", str(out))
    res = capsa_in(*args)
    _check_bad(res, bad)
    whole = out.read_bytes()
    records = [json.loads(x) for x in whole.decode("utf-8").splitlines()]
    _check_records(records, good, bad, "mc")
    assert all(r["samples"] == 40 and r["opponents"] == "field" for r in records)

    # killed part way: three records and half of the fourth kept
    kept = whole.splitlines(keepends=True)
    out.write_bytes(b"".join(kept[:3]) + kept[3][: len(kept[3]) // 2])
    res = capsa_in(*args, "--resume")
    _check_bad(res, bad)
    assert out.read_bytes() == whole  # each hand once, the same bytes
    res = capsa_in(*args, "--resume")
    assert res.returncode == 1 and out.read_bytes() == whole


#: An external player: each hand's cards as given (low to high), back, middle, front.
ECHO = """import sys
for line in sys.stdin:
    c = line.split()
    print(" ".join(c[0:3]), "|", " ".join(c[3:8]), "|", " ".join(c[8:13]), flush=True)
"""


def test_duel_and_strength_at_five_players(tmp_path):
    import sys

    res = capsa_in("duel", "field", "greedy", *TABLE, "--deals", "12", "--seed", "5")
    assert res.returncode == 0, res.stderr
    assert "shisanshui-5, 5 players, 12 deals x 5 seatings" in res.stdout
    assert "fouls A" in res.stdout and "0 (0.0%)" in res.stdout  # the field never fouls

    # an external program is sent hands with copies written twice, and its settings
    # holding both copies are read as settings of the hand (none refused)
    prog = tmp_path / "echo.py"
    prog.write_text(ECHO, encoding="utf-8")
    res = capsa_in("duel", "greedy", f"cmd:{sys.executable} {prog}", *TABLE, "--deals", "12",
                   "--seed", "5", "--format", "json")  # fmt: skip
    assert res.returncode == 0, res.stderr
    assert "not a setting" not in res.stdout + res.stderr

    res = capsa_in("strength", *TABLE, "--hands", "4", "--samples", "200", "--eval-deals", "40",
                   "--format", "json")  # fmt: skip
    assert res.returncode == 0, res.stderr
    d = json.loads(res.stdout)
    assert (d["rules"], d["players"], d["hands"]) == ("shisanshui-5", 5, 4)
    gain = d["gains"]["mc-field"]
    low, high = gain["ci95"]
    assert low <= gain["mean"] <= high and abs(gain["mean"]) < 5
    assert set(d["policies"]) == {"mc", "field"}
