"""solver.apps.batch.records: CSV columns and rows, JSONL/CSV text, the per-hand record."""

from __future__ import annotations

import csv
import dataclasses
import io
import json

import pytest

from evaluator import parse_hand
from solver.apps.batch import records as C
from solver.apps.batch.reading import LINE_BREAKS, BadLine
from solver.apps.batch.work import Job
from solver.engine.rules import load_rules
from solver.strategy.solving.solve import Solution, solve
from tests.helpers import batch_job

HAND = "As Ks Qs Js Ts 9h 9d 9c 2s 3d 4c 5h 7d"
SIX_PAIRS = "As Ad Ks Kd Qs Qd Js Jd Ts Td 9s 9d 2c"


def job(**kw) -> Job:
    base = dict(
        rules=load_rules("chinese-1-6"),
        policy="mc",
        samples=24,
        seed=3,
        players=4,
        fmt="jsonl",
        csv_spec=None,
        skip_upto=0,
    )
    return batch_job(**{**base, **kw})


def refuse(hand, *args, **kw):
    """A solve_fn that rejects every hand (top-level: it pickles)."""
    raise ValueError("no thanks")


def test_csv_columns_cover_every_scalar_of_a_solution():
    nested = {"row_stats", "alternatives", "natural", "surrender", "setting", "played"}
    nested |= {"stakes", "ev_by_opponent"}  # flattened into stake_j, ev_opponent_j
    nested |= {"ev_parts"}  # flattened into ev_parts_rows, ev_parts_bonus, ...
    # played: flattened into C.PLAYED_CSV_COLUMNS (tests/test_batch_played.py)
    fields = {f.name for f in dataclasses.fields(Solution)} - nested
    assert fields <= set(C.CSV_COLUMNS)
    assert len(set(C.CSV_COLUMNS)) == len(C.CSV_COLUMNS) and C.CSV_COLUMNS[:3] == (
        "line",
        "id",
        "hand",
    )


def test_csv_row_flattens_the_nested_fields():
    rec = {"line": 2, "id": "x", **solve(SIX_PAIRS, samples=24, seed=1, top=0).to_dict()}
    row = dict(zip(C.CSV_COLUMNS, C.csv_row(rec), strict=True))
    assert (row["line"], row["id"], row["hand"]) == ("2", "x", rec["hand"])
    assert row["natural"] == rec["natural"]["name"] == "six_pairs"
    assert row["natural_declared"] == str(rec["natural"]["declared"]).lower()
    cost = (rec["surrender"] or {}).get("cost")
    assert row["surrender_cost"] == ("" if cost is None else str(cost))
    assert row["front_win"] == str(rec["row_stats"]["front"]["win"])
    assert row["stderr"] == str(rec["stderr"]) and row["samples"] == "24"
    by = rec["ev_by_opponent"]
    assert len(by) == 3 and [row[f"ev_opponent_{j}"] for j in (1, 2, 3)] == [str(x) for x in by]
    assert row["stake_1"] == row["ev_staked"] == ""  # no stakes in a batch
    empty = dict(zip(C.CSV_COLUMNS, C.csv_row({"line": 1, "id": None}), strict=True))
    assert empty["id"] == "" and empty["natural"] == "" and empty["back_loss"] == ""


def test_text_is_one_line_a_record_whatever_the_id_holds():
    ids = [f"a{c}b" for c in LINE_BREAKS] + ['q"u,o\tte', None]
    recs = [{"line": i + 1, "id": ident, "hand": HAND} for i, ident in enumerate(ids)]
    text = C.format_records(recs, "jsonl")
    assert len(text.splitlines()) == len(recs) and text.endswith("\n")
    assert [json.loads(x) for x in text.splitlines()] == recs  # JSON: the same values
    assert "\u2028" not in text and "\x85" not in text
    rows = C.format_records(recs, "csv")
    assert len(rows.splitlines()) == len(recs)
    got = [r[1] for r in csv.reader(io.StringIO(rows, newline=""))]
    want = [f"a\\u{ord(c):04x}b" for c in LINE_BREAKS] + ['q"u,o\tte', ""]
    assert got == want


def test_rules_names_are_escaped_too():
    row = C.csv_row({"line": 1, "id": "x", "rules": "house\nrules"})
    assert row[C.CSV_COLUMNS.index("rules")] == "house\\u000arules"


def test_jsonl_is_compact_and_keeps_key_order():
    text = C.format_records([{"line": 1, "id": None, "ev": 1.5, "z": [1, 2]}], "jsonl")
    assert text == '{"line":1,"id":null,"ev":1.5,"z":[1,2]}\n'


def test_error_line():
    bad = BadLine(7, "id\u2029", "bad card 'Xx' at position 1", "id\u2029: Xx")
    line = C.error_line(bad)
    assert line.endswith("\n") and len(line.splitlines()) == 1
    assert json.loads(line) == {
        "line": 7,
        "id": "id\u2029",
        "reason": "bad card 'Xx' at position 1",
        "text": "id\u2029: Xx",
    }
    assert C.error_line(BadLine(1, None, "r")) == (
        '{"line": 1, "id": null, "reason": "r", "text": ""}\n'
    )


def test_hand_seed_is_the_documented_one():
    import numpy as np

    # docs/batch.md: numpy.random.SeedSequence([seed, line]).generate_state(1)[0]
    for seed, line in ((0, 1), (0, 2), (7, 1), (2**40, 10**9)):
        want = int(np.random.SeedSequence([seed, line]).generate_state(1)[0])
        assert C.hand_seed(seed, line) == want


def test_solve_one_is_solve_with_line_and_id():
    j = job()
    bad: list[BadLine] = []
    rec = C.solve_one(j, 5, "h5", parse_hand(HAND), bad)
    want = solve(HAND, policy="mc", samples=24, seed=C.hand_seed(3, 5), top=0).to_dict()
    assert rec == {"line": 5, "id": "h5", **want} and not bad
    assert C.solve_one(dataclasses.replace(j, solve_fn=refuse), 6, "h6", None, bad) is None
    assert bad == [BadLine(6, "h6", "no thanks")]


@pytest.mark.parametrize("policy", ["field", "greedy"])
def test_fast_records_against_the_per_hand_path(policy):
    hands = [HAND, SIX_PAIRS, "Ah Kd Qc Jd Ts 9s 9d 7h 6c 5s 4d 3h 2c"]
    good = [(i + 1, f"h{i}", parse_hand(h), None) for i, h in enumerate(hands)]
    fast = C.records(job(policy=policy, samples=None, fast=True), good, [])
    slow = C.records(job(policy=policy, samples=None, fast=False), good, [])
    assert [r["line"] for r in fast] == [1, 2, 3]
    for f, s in zip(fast, slow, strict=True):
        assert list(f) == list(s)
        assert f["ev"] == s["ev"] and f["row_stats"] == s["row_stats"]
        assert f["candidates"] is None or f["natural"] is not None
