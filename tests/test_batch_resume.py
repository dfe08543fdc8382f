"""solver.apps.batch.resume: the run file, the output's tail, the resume point."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys

import pytest

from solver.apps.batch import resume as S
from solver.apps.batch.errors import BatchError
from solver.apps.batch.reading import CsvSpec
from solver.apps.batch.records import CSV_COLUMNS, csv_text, format_records

HAND = "As Ks Qs Js Ts 9h 9d 9c 2s 3d 4c 5h 7d"
OPTIONS = {"capsa_batch": 1, "format": "jsonl", "seed": 0, "policy": "mc"}


def test_sidecar_path():
    assert str(S.sidecar_path("d/out.jsonl")) == os.path.join("d", "out.jsonl.capsa-run.json")


def test_write_sidecar_records_the_run_and_replaces_whole(tmp_path):
    out = tmp_path / "out.jsonl"
    S.sidecar_path(out).write_text("old")
    S.write_sidecar(out, OPTIONS, "hands.txt")
    data = json.loads(S.sidecar_path(out).read_text())
    assert {k: data[k] for k in OPTIONS} == OPTIONS and data["input"] == "hands.txt"
    assert data["run"]["pid"] == os.getpid() and data["run"]["host"] == socket.gethostname()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.jsonl.capsa-run.json"]
    assert S.read_sidecar(out) == data


@pytest.mark.parametrize(
    ("content", "why"),
    [
        (None, "is missing"),
        (b"{", "damaged \\(not JSON"),
        (b"\xff", "damaged \\(not UTF-8"),
        (b"[1, 2]", "damaged \\(not the run file"),
        (b"null", "damaged \\(not the run file"),
        (b'{"capsa_batch": "1"}', "damaged \\(not the run file"),
        (b'{"capsa_batch": 2}', "damaged \\(not the run file"),
    ],
)
def test_read_sidecar_refuses_in_one_line(tmp_path, content, why):
    out = tmp_path / "out.jsonl"
    if content is not None:
        S.sidecar_path(out).write_bytes(content)
    with pytest.raises(BatchError, match=f"^cannot resume: '.*capsa-run.json'.* {why}") as e:
        S.read_sidecar(out)
    assert "\n" not in str(e.value)


def test_check_options_lists_what_differs(tmp_path):
    out = tmp_path / "out.jsonl"
    S.write_sidecar(out, OPTIONS, "x")
    S.check_options(out, OPTIONS)
    with pytest.raises(BatchError, match=r"other options: seed 0 \(now 5\), policy 'mc'"):
        S.check_options(out, {**OPTIONS, "seed": 5, "policy": "field"})


def test_run_owner(tmp_path):
    out = tmp_path / "out.jsonl"
    assert S.run_owner(out) is None  # no run file
    S.write_sidecar(out, OPTIONS, "x")
    owner = S.run_owner(out)
    assert owner is not None and owner.startswith(f"pid {os.getpid()} on {socket.gethostname()}")
    assert ", started 2" in owner
    gone = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    data = json.loads(S.sidecar_path(out).read_text())
    data["run"]["pid"] = int(gone.stdout)  # a process that has ended
    S.sidecar_path(out).write_text(json.dumps(data))
    assert S.run_owner(out) is None
    data["run"]["host"] = "elsewhere"  # cannot tell: say what the file says
    S.sidecar_path(out).write_text(json.dumps(data))
    assert S.run_owner(out).startswith(f"pid {int(gone.stdout)} on elsewhere")
    data["run"] = "garbage"
    S.sidecar_path(out).write_text(json.dumps(data))
    assert S.run_owner(out) is None


def record(line: int, ident: str | None) -> dict:
    return {"line": line, "id": ident, "hand": HAND}


@pytest.mark.parametrize("fmt", ["jsonl", "csv"])
def test_tail_records_cuts_the_partial_record(tmp_path, fmt):
    out = tmp_path / f"out.{fmt}"
    header = csv_text([list(CSV_COLUMNS)]) if fmt == "csv" else ""
    body = format_records([record(2, "a"), record(5, "b\u2028c")], fmt)
    for partial in ("", '{"line":9,"id":"x', "9,x,As"):
        out.write_text(header + body + partial, encoding="utf-8")
        got = S.tail_records(out, fmt)
        want_id = "b\u2028c" if fmt == "jsonl" else "b\\u2028c"
        assert got == (5, {"id": want_id, "hand": HAND}, fmt == "csv")
        assert out.read_text(encoding="utf-8") == header + body
    out.write_text(header)
    assert S.tail_records(out, fmt) == (0, None, fmt == "csv")
    out.write_text("")
    assert S.tail_records(out, fmt) == (0, None, False)


@pytest.mark.parametrize(
    "last",
    [
        '{"line": "7", "id": null, "hand": "As"}',
        '{"line": true, "id": null, "hand": "As"}',
        '{"line": 0, "id": null, "hand": "As"}',
        '{"line": 3, "id": 5, "hand": "As"}',
        '{"line": 3, "id": null, "hand": 5}',
        '{"line": 3, "hand": "As"}',
        "[3]",
        "not json",
    ],
)
def test_tail_records_refuses_what_is_not_a_record(tmp_path, last):
    out = tmp_path / "out.jsonl"
    out.write_text(format_records([record(1, None)], "jsonl") + last + "\n")
    with pytest.raises(BatchError, match="is not a jsonl record of capsa batch"):
        S.tail_records(out, "jsonl")


def _lines(*texts: str) -> list[tuple[int, bytes | None]]:
    return [(n, t.encode()) for n, t in enumerate(texts, 1)]


def test_check_resume_point(tmp_path):
    lines = _lines(f"a: {HAND}", f"b\u2028c: {HAND}", f"d: {HAND}")
    rec = {"id": "b\\u2028c", "hand": HAND}  # as a CSV output holds it
    assert list(S.check_resume_point(iter(lines), 2, rec, None, tmp_path)) == lines
    for upto, recd, why in (
        (2, {"id": "x", "hand": HAND}, "line 2 of the input is not the hand last written"),
        (2, {"id": "b\u2028c", "hand": "2c 3c"}, "is not the hand last written"),
        (9, rec, "the input ends before line 9"),
    ):
        with pytest.raises(BatchError, match=why):
            list(S.check_resume_point(iter(lines), upto, recd, None, tmp_path))
    gap = [lines[0], lines[2]]
    with pytest.raises(BatchError, match="the input has no hand on line 2"):
        list(S.check_resume_point(iter(gap), 2, rec, None, tmp_path))
    spec = CsvSpec(2, 1, 0)
    rows = _lines("id,hand", f'g1,"{HAND}"')
    assert list(S.check_resume_point(iter(rows), 2, {"id": "g1", "hand": HAND}, spec, None))
