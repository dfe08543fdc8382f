"""The field tables a batch reads are part of its identity (issue #51, item 2).

The run file kept the digests of the pool and the model files, not of the field tables:
a ruleset trained again between an interruption and ``--resume`` carried on without a
word, and the output mixed records of both tables. Now the run file keeps the tables'
digest (``field_digest``), ``--resume`` refuses other tables in one line naming them
(exit 2), and a worker that would read other tables than the run began with stops the
run. Through the real CLI in a subprocess: a house ruleset trained small with ``capsa
train`` in the tests' own cache (tests/conftest.py), a batch cut short, the tables
trained again, then ``--resume``.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from evaluator import format_cards
from tests.helpers import capsa_in

#: A ruleset no shipped tables fit (the wheel ranks second), so its tables are the cache's.
HOUSE = 'base = "per-row"\nname = "house"\nwheel = "second"\n'
SMALL = ("--rounds", "1", "--min-rounds", "1", "--hands", "100", "--tol", "10")


def train(folder: Path, seed: int) -> None:
    res = capsa_in("train", "--rules", "house.toml", *SMALL, "--seed", str(seed), cwd=folder)
    assert res.returncode == 0, res.stderr


def batch(folder: Path, out: str, *more: str):
    return capsa_in("batch", "h.txt", "-o", out, "--rules", "house.toml", "--policy", "field",
                    "-w", "1", *more, cwd=folder)  # fmt: skip


@pytest.fixture
def folder(tmp_path) -> Path:
    (tmp_path / "house.toml").write_text(HOUSE)
    rng = np.random.default_rng(51)
    hands = [format_cards(rng.permutation(52)[:13]) for _ in range(30)]
    (tmp_path / "h.txt").write_text("".join(f"{h}\n" for h in hands))
    return tmp_path


def test_resume_refuses_field_tables_trained_again(folder):
    """A batch, cut after 10 records; the house tables trained again (another seed):
    ``--resume`` is one line naming the tables, exit 2, and the output is left as it was.
    The first tables trained again (the same seed, the same tables): the resume goes on
    and ends with a complete run's records."""
    train(folder, 1)
    whole = batch(folder, "whole.jsonl")
    assert whole.returncode == 0, whole.stderr
    records = (folder / "whole.jsonl").read_bytes().splitlines(keepends=True)
    assert len(records) == 30
    out = folder / "out.jsonl"
    out.write_bytes(b"".join(records[:10]))
    (folder / "out.jsonl.capsa-run.json").write_bytes(
        (folder / "whole.jsonl.capsa-run.json").read_bytes()
    )
    train(folder, 2)  # the house's tables, trained again
    res = batch(folder, "out.jsonl", "--resume")
    assert res.returncode == 2, res.stderr
    lines = res.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("capsa: error: cannot resume"), res.stderr
    assert "the field tables of 'house'" in lines[0] and ".npz" in lines[0], lines[0]
    assert out.read_bytes() == b"".join(records[:10])
    run = json.loads((folder / "whole.jsonl.capsa-run.json").read_text())
    assert len(run["field_digest"]) == 32
    # a fresh run with the new tables writes their digest
    fresh = batch(folder, "new.jsonl")
    assert fresh.returncode == 0, fresh.stderr
    new = json.loads((folder / "new.jsonl.capsa-run.json").read_text())
    assert new["field_digest"] != run["field_digest"]
    train(folder, 1)  # the same tables as the run's: it carries on
    res = batch(folder, "out.jsonl", "--resume")
    assert res.returncode == 0, res.stderr
    assert out.read_bytes() == b"".join(records)


def test_a_run_file_without_the_tables_is_refused(folder):
    """A run file an earlier capsa wrote (no ``field_digest``): ``--resume`` cannot tell
    which tables the records were set with, and says so in one line, exit 2."""
    train(folder, 1)
    whole = batch(folder, "out.jsonl")
    assert whole.returncode == 0, whole.stderr
    side = folder / "out.jsonl.capsa-run.json"
    run = json.loads(side.read_text())
    del run["field_digest"]
    side.write_text(json.dumps(run))
    res = batch(folder, "out.jsonl", "--resume")
    assert res.returncode == 2, res.stderr
    assert res.stderr.count("\n") == 1, res.stderr
    assert "does not say which field tables of 'house'" in res.stderr


def test_a_worker_given_other_field_tables_stops_the_run(tmp_path):
    """What a worker that finds other tables does (a new worker, a Dask worker): one
    line, the run failed, never an answer from other tables; with the run's digest it
    solves."""
    import dataclasses

    from solver.apps.batch import BatchFailed, solve_chunk
    from solver.engine.compiled import compile_rules
    from solver.engine.rules import load_rules
    from solver.strategy.field_model.field import tables_digest
    from solver.strategy.field_model.train import ensure_field
    from tests.helpers import batch_job

    rules = load_rules("chinese-1-6")
    job = batch_job(rules=rules, policy="field", seed=0, players=4, fmt="jsonl",
                    field_digest="0" * 32, field_file="field-chinese-1-6.npz")  # fmt: skip
    hand = [(1, b"As Ks Qs Js Ts 9h 9d 9c 2s 3d 4c 5h 7d")]
    with pytest.raises(BatchFailed, match=r"^the field tables of 'chinese-1-6' \(field-chinese"
                                          r"-1-6.npz\) changed under the run"):  # fmt: skip
        solve_chunk(job, hand)
    digest = tables_digest(ensure_field(compile_rules(rules)))
    assert solve_chunk(dataclasses.replace(job, field_digest=digest), hand).hands == 1
