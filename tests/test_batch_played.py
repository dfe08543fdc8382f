"""Batch lines that give the setting played: parsing, every policy and format, the fast
path against solve(), resume, and capsa report on the output."""

from __future__ import annotations

import csv
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import solver
import solver.apps.batch as B
from evaluator import CardParseError, format_cards, parse_cards
from solver.apps.batch.reading import parse_entry
from solver.apps.batch.records import PLAYED_CSV_COLUMNS, hand_seed
from solver.apps.bench import seeded_hands
from solver.apps.report import make_report

HAND = "Ah Kd Qc Jd Ts 9s 9d 7h 6c 5s 4d 3h 2c"
BEST = "9s 9d 2c | 7h 6c 5s 4d 3h | Ah Kd Qc Jd Ts"
ROWS = ("front", "middle", "back")
MC = {"policy": "mc", "samples": 24}

# line number -> (text, what it is); bad settings carry their reason
MIXED = [
    "# a session: settings played, bare hands, bad settings",
    f"s1: {BEST}",
    f"s2: {HAND}",
    "s3: 9s 9d 7h | 6c 5s 4d 3h 2c | Ah Kd Qc Jd Ts",
    "s4: 9s 9d | 7h 6c 5s 4d 3h 2c | Ah Kd Qc Jd Ts",
    "s5: 9s 9d 9d | 7h 6c 5s 4d 3h | Ah Kd Qc Jd Ts",
    "Ah Kd Qc | 7h 6c 5s 4d 3h | Jd Ts 9s 9d 2c",  # fouled, no id
    "s7\t4h 3s 2c | 9d 8h 7s 6c 5d | Ac Kd Qh Js Tc",  # a dragon, played
    "s8: 9s 9d 2c | 7h 6c 5s 4d 3h",
    "s9: 9s 9d 2x | 7h 6c 5s 4d 3h | Ah Kd Qc Jd Ts",
    "",
    "s11 2c 2d 4h | 5s 6c 7d 8h 9s | Tc Jd Qh Ks As",
]
BAD = {
    5: "played front: expected 3 cards, got 2",
    6: "played front: duplicate card '9d'",
    9: "played: a setting is 'front | middle | back' (3 rows), got 2 rows",
    10: "played front: bad card '2x'",
}
GOOD = [2, 3, 4, 7, 8, 12]  # line numbers
PLAYED = {2: BEST, 4: MIXED[3][4:], 7: MIXED[6], 8: MIXED[7][3:], 12: MIXED[11][4:]}


@pytest.fixture
def mixed(tmp_path) -> Path:
    path = tmp_path / "session.txt"
    path.write_text("\n".join(MIXED) + "\n")
    return path


def records(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text().splitlines()]


# --------------------------------------------------------------------------- parsing


@pytest.mark.parametrize(
    ("line", "ident"),
    [
        (f"d1: {BEST}", "d1"),
        (f"d 1\t{BEST}", "d 1"),
        (f"d1 {BEST}", "d1"),
        (BEST, None),
        ("9s9d2c|7h6c5s4d3h|AhKdQcJdTs", None),
        ("d1: 9♠ 9♦ 2♣ | 7♥ 6♣ 5♠ 4♦ 3♥ | A♥ K♦ Q♣ J♦ 10♠", "d1"),
    ],
)
def test_a_setting_line_gives_the_hand_and_the_rows(line, ident):
    got_id, hand, played = parse_entry(line)
    assert got_id == ident
    assert [format_cards(r) for r in played] == [r.strip() for r in BEST.split("|")]
    assert sorted(hand.tolist()) == sorted(np.concatenate(played).tolist())
    assert format_cards(np.sort(hand)[::-1]) == HAND
    assert parse_entry(HAND)[2] is None


@pytest.mark.parametrize(("line", "reason"), [(MIXED[n - 1], r) for n, r in BAD.items()])
def test_a_bad_setting_is_a_bad_line_with_its_reason(line, reason):
    with pytest.raises(CardParseError, match="^" + re.escape(reason)) as exc:
        parse_entry(line)
    assert exc.value.line_id == line.split(":")[0]  # type: ignore[attr-defined]


def test_a_setting_in_a_csv_hand_cell(tmp_path):
    src = tmp_path / "in.csv"
    src.write_text(f"id,hand\nc1,{BEST}\nc2,{HAND}\n")
    out = tmp_path / "out.jsonl"
    B.run_batch(src, out, workers=1, policy="field")
    recs = records(out)
    assert [r["id"] for r in recs] == ["c1", "c2"]
    assert recs[0]["played"]["loss"] == 0.0 and recs[1]["played"] is None


# --------------------------------------------------------------------------- batches


@pytest.mark.parametrize("policy", ["field", "greedy", "mc"])
def test_mixed_file_keeps_every_good_line(mixed, tmp_path, policy):
    out = tmp_path / "out.jsonl"
    bad: list[B.BadLine] = []
    opts = MC if policy == "mc" else {"policy": policy}
    res = B.run_batch(mixed, out, workers=1, chunk_size=3, on_bad=bad.append, **opts)
    assert res.hands == len(GOOD) and res.bad == len(BAD)
    assert {b.line: b.reason for b in bad}.keys() == BAD.keys()
    for b in bad:
        assert b.reason.startswith(BAD[b.line])
    recs = records(out)
    assert [r["line"] for r in recs] == GOOD
    by = {r["line"]: r for r in recs}
    assert by[3]["played"] is None
    assert by[2]["played"]["loss"] == 0.0 and not by[2]["played"]["fouled"]
    assert by[7]["played"]["fouled"] and by[7]["played"]["loss"] > 6
    assert by[8]["action"] == "declare" and by[8]["played"]["loss"] > 10
    for line, played in PLAYED.items():
        p = by[line]["played"]
        assert [p[r] for r in ROWS] == [format_cards(np.sort(parse_cards(r))[::-1])
                                        for r in played.split("|")]  # fmt: skip
    if policy == "mc":  # the per-hand path: exactly solve(..., played=...)
        for line, played in PLAYED.items():
            sol = solver.solve(by[line]["hand"], samples=24, seed=hand_seed(0, line), top=0,
                               played=played)  # fmt: skip
            assert {k: v for k, v in by[line].items() if k not in ("line", "id")} == sol.to_dict()


@pytest.mark.parametrize("policy", ["field", "greedy"])
def test_fast_path_played_is_what_solve_gives(tmp_path, policy):
    """Played lines on the chunked path: the played setting's value, loss, fouled and
    rows are solve()'s; rank and of are null (no Pareto front is built)."""
    rng = np.random.default_rng(3)
    lines = []
    for h in seeded_hands(120, 5):
        text = format_cards(np.sort(h)[::-1])
        best = solver.solve(text, policy="field", top=3)
        options = [(best.front, best.back, best.middle)]  # fouled (or a swap of equals)
        options += [(a["front"], a["middle"], a["back"]) for a in best.alternatives]
        if best.action != "play":
            continue
        lines.append(" | ".join(options[int(rng.integers(len(options)))]))
    src = tmp_path / "in.txt"
    src.write_text("\n".join(lines) + "\n")
    slow, fast = tmp_path / "slow.jsonl", tmp_path / "fast.jsonl"
    B.run_batch(src, slow, workers=1, policy=policy, fast=False, chunk_size=50)
    B.run_batch(src, fast, workers=1, policy=policy, chunk_size=50)
    same_best = fouled = 0
    for a, b in zip(records(slow), records(fast), strict=True):
        pa, pb = a["played"], b["played"]
        assert pb["rank"] is None and pb["of"] is None and pa["rank"] >= 1
        for key in ("front", "middle", "back", "ev", "loss", "loss_stderr", "fouled"):
            assert pa[key] == pb[key], (key, a, b)
        for row in ROWS:
            for key in ("win", "tie", "loss"):
                assert pa["rows"][row][key] == pb["rows"][row][key]
        if all(a[r] == b[r] for r in ROWS):  # the same best setting: the same comparison
            same_best += 1
            assert pa["rows"] == pb["rows"]
        fouled += pa["fouled"]
    assert same_best > 60 and fouled > 5


def test_csv_flattens_played_and_report_reads_it_back(mixed, tmp_path):
    jl, cs = tmp_path / "out.jsonl", tmp_path / "out.csv"
    B.run_batch(mixed, jl, workers=1, **MC)
    B.run_batch(mixed, cs, workers=1, **MC)
    header = cs.read_text().splitlines()[0].split(",")
    assert header[-len(PLAYED_CSV_COLUMNS) :] == list(PLAYED_CSV_COLUMNS)
    with cs.open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    for rec, row in zip(records(jl), rows, strict=True):
        p = rec["played"]
        if p is None:
            assert all(row[c] == "" for c in PLAYED_CSV_COLUMNS)
            continue
        assert row["played_front"] == p["front"] and row["played_loss"] == str(p["loss"])
        assert row["played_fouled"] == str(p["fouled"]).lower()
        assert row["played_middle_win_change"] == str(p["rows"]["middle"]["win_change"])
        assert row["played_back_differs"] == str(p["rows"]["back"]["differs"]).lower()
    a, b = make_report(jl).to_dict(), make_report(cs).to_dict()
    assert (a.pop("format"), b.pop("format")) == ("jsonl", "csv")
    a.pop("source"), b.pop("source")
    assert a == b and a["played"] == len(PLAYED) and a["hands"] == len(GOOD)


@pytest.mark.parametrize("fmt", ["jsonl", "csv"])
def test_resume_with_played_lines(mixed, tmp_path, fmt):
    ref = tmp_path / f"ref.{fmt}"
    B.run_batch(mixed, ref, workers=1, chunk_size=2, **MC)
    whole = ref.read_bytes()
    out = tmp_path / f"out.{fmt}"
    for cut in (0, len(whole) // 3, len(whole) // 2 + 5, len(whole) - 1):
        out.write_bytes(whole[:cut])
        B.sidecar_path(out).write_bytes(B.sidecar_path(ref).read_bytes())
        B.run_batch(mixed, out, workers=1, chunk_size=2, resume=True, **MC)
        assert out.read_bytes() == whole, cut


def test_cli_batch_into_report(mixed):
    """The way a player meets it: capsa batch on the session, its JSON lines piped into
    capsa report; both say what was bad and exit 1."""
    cmd = [sys.executable, "-m", "solver"]
    batch = subprocess.run([*cmd, "batch", str(mixed), "--policy", "field", "--workers", "1"],
                           capture_output=True, text=True)  # fmt: skip
    assert batch.returncode == 1
    assert "line 5 (id s4): played front: expected 3 cards, got 2" in batch.stderr
    rep = subprocess.run([*cmd, "report", "-", "--format", "json"], input=batch.stdout,
                         capture_output=True, text=True)  # fmt: skip
    assert rep.returncode == 0, rep.stderr
    d = json.loads(rep.stdout)
    assert d["hands"] == len(GOOD) and d["played"] == len(PLAYED)
    recs = [json.loads(x) for x in batch.stdout.splitlines()]
    perfect = sum(r["played"] is not None and r["played"]["loss"] == 0 for r in recs)
    assert d["fouls"] == 1 and d["missed_naturals"] == 1 and d["perfect"]["hands"] == perfect
    assert perfect >= 1  # line 2 played the best setting
    assert d["costliest"][0]["line"] == 8 and d["costliest"][0]["best"]["action"] == "declare"


def test_the_readme_session_is_a_clean_file_of_played_hands(tmp_path):
    """docs/examples/session.txt, the worked example of the README and docs/report.md: 24
    settings played, no bad line, every kind of advice there (a natural and a surrender
    missed, fouls)."""
    src = Path(__file__).resolve().parent.parent / "docs" / "examples" / "session.txt"
    out = tmp_path / "session.jsonl"
    res = B.run_batch(src, out, workers=1, policy="field")
    assert (res.hands, res.bad) == (24, 0)
    d = make_report(out).to_dict()
    assert d["played"] == 24 and d["fouls"] >= 1
    assert d["missed_naturals"] == 1 and d["missed_surrenders"] == 1
