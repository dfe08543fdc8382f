"""solver.strategy.solving.schema: the one description of an answer and a batch record.

Real answers (every policy, against given opponents, stakes, a played setting, a
natural, a surrender, batch's fast records) hold exactly the schema's keys in its
order; the CSV columns come from it; and the report reads a record the same whether it
came as JSON or as the CSV row batch wrote for it.
"""

from __future__ import annotations

import csv
import io
import json

import pytest

from solver.apps.batch.records import csv_row, csv_text, fast_records
from solver.apps.report.records import hand_from_record, read_records, unflatten
from solver.engine.rules import load_rules
from solver.strategy.solving import schema as S
from solver.strategy.solving.solve import Solution, solve
from tests.helpers import batch_job

HAND = "As Ks Qs Js Ts 9h 9d 9c 2s 3d 4c 5h 7d"
DRAGON = "2c 3d 4h 5s 6c 7d 8h 9s Tc Jd Qh Ks Ac"
WEAK = "2c 3d 4h 5s 7c 8d 9h Js Qc 2d 3h 4s 6c"
OPPONENTS = ["2c 3c 4d | 5s 6s 7h 8h Jd | Qc Qd Kc Kh Ad"]
PLAYED = "2s 3d 4c | 9h 9d 9c 5h 7d | As Ks Qs Js Ts"

ANSWERS = [
    dict(hand=HAND, samples=50, seed=1, top=2),
    dict(hand=HAND, policy="field", played=PLAYED),
    dict(hand=HAND, policy="greedy", played="As Ks Qs | Js Ts 9h 9d 9c | 2s 3d 4c 5h 7d"),
    dict(hand=HAND, against=OPPONENTS, stakes=[2.0], played=PLAYED, top=1),
    dict(hand=DRAGON, samples=50, seed=2),
    dict(
        hand=WEAK,
        rules="capsa",
        policy="field",
        played="2c 3d 4h | 5s 7c 8d 9h Js | Qc 2d 3h 4s 6c",
    ),
    dict(hand=WEAK, rules="capsa", samples=50, seed=3, stakes=[1, 2, 3]),
]


def _solve(opts: dict) -> Solution:
    opts = dict(opts)
    rules = load_rules(opts.pop("rules", None))
    return solve(opts.pop("hand"), rules=rules, **opts)


@pytest.fixture(scope="module")
def answers() -> list[dict]:
    return [{"line": i + 1, "id": f"h{i}", **_solve(o).to_dict()} for i, o in enumerate(ANSWERS)]


def test_real_answers_hold_the_schemas_keys_in_its_order(answers):
    assert {a["action"] for a in answers} == {"play", "declare"}
    assert any(a["played"] for a in answers) and any(a["stakes"] for a in answers)
    assert any(a["natural"] for a in answers)
    for a in answers:
        assert S.conforms(a) == [], a
        assert tuple(k for k in a if k not in ("line", "id")) == S.ANSWER_KEYS


def test_a_surrender_answer_conforms():
    from solver.engine.rules import rules_from_dict
    from tests.test_solver import SPECIAL_HANDS

    base = load_rules("chinese-1-6").to_dict()
    del base["name"]
    cheap = rules_from_dict({**base, "surrender_cost": 0}, "cheap")
    d = solve(SPECIAL_HANDS["junk"], rules=cheap, samples=600, seed=2).to_dict()
    assert d["action"] == "surrender"
    assert S.conforms({"line": None, "id": None, **d}) == []


def test_batch_fast_records_conform():
    from evaluator import parse_hand

    job = batch_job(rules=load_rules("chinese-1-6"), policy="field", samples=None, seed=1,
                    players=4, fmt="jsonl")  # fmt: skip
    good = [(1, "a", parse_hand(HAND), None), (2, None, parse_hand(DRAGON), None)]
    records = fast_records(job, good, [])
    assert len(records) == 2
    for rec in records:
        assert S.conforms(rec) == [], rec


def test_conforms_finds_what_departs():
    good = {"line": 1, "id": None, **_solve(ANSWERS[1]).to_dict()}
    assert S.conforms(good) == []
    bad = dict(good)
    bad["ev"] = "1.0"
    assert S.conforms(bad) == ["ev: not number ('1.0')"]
    moved = {"id": None, "line": 1, **{k: v for k, v in good.items() if k not in ("line", "id")}}
    assert any("out of order" in p for p in S.conforms(moved))
    extra = {**good, "bogus": 1}
    assert S.conforms(extra) == ["bogus: unknown key"]
    gone = {k: v for k, v in good.items() if k != "surrender"}
    assert S.conforms(gone) == ["surrender: missing"]
    nested = json.loads(json.dumps(good))
    nested["played"]["rows"]["front"]["win"] = True
    assert S.conforms(nested) == ["played.rows.front.win: not number (True)"]


def test_the_csv_columns_are_the_schemas_leaves():
    """Every scalar of a record is a column, or is left out on purpose (alternatives,
    surrender.ev_play); no column is named twice."""
    # 64 before ev_parts (4) and played's action and ev_parts (5), and opponents (1)
    assert len(set(S.CSV_COLUMNS)) == len(S.CSV_COLUMNS) == 74
    assert S.CSV_COLUMNS[S.CSV_COLUMNS.index("seed") + 1] == "opponents"
    assert S.CSV_COLUMNS[:3] == ("line", "id", "hand")
    assert "natural" in S.CSV_COLUMNS and "stake_3" in S.CSV_COLUMNS
    assert "played_front_win_change" in S.PLAYED_CSV_COLUMNS
    assert "ev_parts_royalties" in S.CSV_COLUMNS and "played_action" in S.PLAYED_CSV_COLUMNS
    paths = {c.path for c in S.COLUMNS}
    assert ("surrender", "ev_play") not in paths and ("alternatives",) not in paths
    assert ("natural", "name") in paths and ("played", "rows", "back", "differs") in paths


def test_the_report_reads_a_record_alike_from_json_and_csv(answers):
    """Each answer, written as batch writes a CSV row and read back by the report (the
    cells converted by the schema), gives the report the same hand as its JSON."""
    text = csv_text([list(S.CSV_COLUMNS), *(csv_row(a) for a in answers)])
    fmt, items = read_records(io.BytesIO(text.encode()), "t.csv")
    from_csv = list(items)
    assert fmt == "csv" and len(from_csv) == len(answers)
    for a, got in zip(answers, from_csv, strict=True):
        want = hand_from_record(json.loads(json.dumps(a)))
        assert got == want


def test_unflatten_gives_back_the_flat_values(answers):
    from solver.apps.report.records import csv_header

    header = csv_header(list(S.CSV_COLUMNS))
    for a in answers:
        cells = next(csv.reader([csv_text([csv_row(a)])]))
        back = unflatten(cells, header)
        for col, value in S.flatten(a):
            got = back
            for step in col.path:
                got = got.get(step) if isinstance(got, dict) else (
                    got[step] if isinstance(got, list) and step < len(got) else None)  # fmt: skip
                if got is None:
                    break
            assert got == value or (value == "" and got is None), col.name
