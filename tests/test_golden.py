"""Golden outputs: fixed inputs and seeds give the records recorded in tests/golden.

The records were written by ``python -m tests.golden.make`` before the solver was
restructured; a refactoring must give the same answers. Each recorded key must come
back with the same value (JSON equality, so the same bytes for numbers and text), in
the same order; records may carry keys added since. Regenerate the files only when an
answer is meant to change, and say why in the commit.
"""

from __future__ import annotations

import csv
import io
import json
import re

import pytest

from tests.golden import make as G

#: A number written -0.0 (not -0.01 or -0.05): the same value as 0.0.
NEGATIVE_ZERO = re.compile(r"(?<![0-9.])-0\.0(?![0-9])")


def _same_record(old: dict, new: dict, where: str) -> None:
    missing = [k for k in old if k not in new]
    assert not missing, f"{where}: keys gone: {missing}"
    changed = {k: (old[k], new[k]) for k in old if old[k] != new[k]}
    assert not changed, f"{where}: changed values (old, new): {changed}"
    order = [k for k in new if k in old]
    assert order == list(old), f"{where}: key order changed"


@pytest.mark.parametrize("name,opts", G.BATCH_RUNS, ids=[n for n, _ in G.BATCH_RUNS])
def test_batch_gives_the_recorded_records(name, opts):
    text, bad = G.batch_records(opts)
    # capsa writes no -0.0 since issue 21 (the same value as 0.0): the files recorded
    # before say -0.0 where the records now say 0.0.
    old_text = NEGATIVE_ZERO.sub("0.0", G.read_gz(G.HERE / f"batch-{name}.gz"))
    assert bad == json.loads((G.HERE / "bad-lines.json").read_text())
    if opts.get("fmt") == "csv":
        old_rows = list(csv.DictReader(io.StringIO(old_text)))
        new_rows = list(csv.DictReader(io.StringIO(text)))
    else:
        old_rows = [json.loads(x) for x in old_text.splitlines()]
        new_rows = [json.loads(x) for x in text.splitlines()]
    assert len(new_rows) == len(old_rows) > 100
    for old, new in zip(old_rows, new_rows, strict=True):
        _same_record(old, new, f"{name} line {old['line']}")
    if text == old_text:
        return
    # Not byte-identical: only keys added since may explain it.
    assert any(set(n) - set(o) for o, n in zip(old_rows, new_rows, strict=True))


def test_solve_gives_the_recorded_solutions():
    old = [json.loads(x) for x in G.read_gz(G.HERE / "solve.gz").splitlines()]
    new = [json.loads(x) for x in G.solve_records().splitlines()]
    assert len(new) == len(old) == len(G.SOLVE_HANDS) * (len(G.SOLVE_RUNS) + len(G.AGAINST_RULES))
    for i, (o, n) in enumerate(zip(old, new, strict=True)):
        _same_record(o, n, f"solve record {i} ({o['run']})")
