"""Batch and the opponent pool: when a run builds one, that every worker (processes, Dask)
draws from the same one, that --resume follows the run's choice, and what a worker that
cannot see the pool does (solver.apps.batch.pooling)."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import numpy as np
import pytest

from evaluator import format_cards
from solver.apps.batch import BatchFailed, run_batch
from solver.apps.batch.errors import BatchError
from solver.apps.batch.pooling import plan_pool
from solver.apps.batch.resume import sidecar_path
from solver.apps.batch.work import solve_chunk
from solver.engine.compiled import compile_rules
from solver.engine.rules import load_rules, rules_from_dict
from solver.strategy.opposition import pool as PL
from tests import shared
from tests.helpers import batch_job

#: A pool's hands: about 64 share no card with a hand, of which a solve of 30 samples draws
#: 30 (and the 2 whole tables' first seats; at least 40 fit each of the 170 hands here).
SIZE = 5_000
MC = {"policy": "mc", "samples": 30, "pool_size": SIZE}


def write_hands(path: Path, n: int, seed: int = 3) -> Path:
    rng = np.random.default_rng(seed)
    path.write_text("".join(format_cards(rng.permutation(52)[:13]) + "\n" for _ in range(n)))
    return path


@pytest.fixture
def folder(tmp_path, monkeypatch) -> Path:
    pools = tmp_path / "pools"
    monkeypatch.setenv("CAPSA_POOL_DIR", str(pools))
    return pools


def records(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text().splitlines()]


def test_a_short_input_deals_a_long_one_builds_the_pool(folder, tmp_path, caplog):
    """5,000 pool hands: 160 lines x 30 opponent hands (4,800) are dealt; 170 (5,100) pay
    for the pool, which is built first and said so."""
    caplog.set_level(logging.WARNING, logger="capsa")
    short = write_hands(tmp_path / "short.txt", 160)
    run_batch(short, tmp_path / "a.jsonl", workers=1, **MC)
    assert not folder.exists() or not list(folder.iterdir())
    assert json.loads(sidecar_path(tmp_path / "a.jsonl").read_text())["pool"] is None
    dealt = (tmp_path / "a.jsonl").read_bytes()
    run_batch(short, tmp_path / "b.jsonl", workers=1, pool=False, **MC)
    assert (tmp_path / "b.jsonl").read_bytes() == dealt
    assert "building the opponent pool" not in caplog.text

    long = write_hands(tmp_path / "long.txt", 170)
    seen: list[tuple[int, int]] = []
    run_batch(long, tmp_path / "c.jsonl", workers=1,
              on_pool=lambda d, t=None, **_: seen.append((d, t)), **MC)  # fmt: skip
    assert "building the opponent pool for chinese-1-6 first (5,000 hands" in caplog.text
    assert "170 lines x 30 opponent hands" in caplog.text
    assert seen[0] == (0, SIZE) and seen[-1] == (SIZE, SIZE)
    pool = PL.cached_pool(compile_rules(load_rules("chinese-1-6")))
    assert pool is not None and pool.size == SIZE
    stored = json.loads(sidecar_path(tmp_path / "c.jsonl").read_text())
    assert stored["pool"] == f"{pool.key}/{SIZE}/{pool.digest}" == pool.ident
    pooled = records(tmp_path / "c.jsonl")
    # the short file's hands are the long one's first 160: now drawn from the pool
    run_batch(short, tmp_path / "d.jsonl", workers=1, **MC)
    again = records(tmp_path / "d.jsonl")
    assert again == pooled[:160] and again != records(tmp_path / "a.jsonl")
    # --pool builds whatever the length, --no-pool never draws
    run_batch(short, tmp_path / "e.jsonl", workers=1, pool=False, **MC)
    assert (tmp_path / "e.jsonl").read_bytes() == dealt


def test_pool_true_builds_for_any_input_with_the_home_run_too(folder, tmp_path):
    src = write_hands(tmp_path / "h.txt", 5)
    hr = rules_from_dict({"base": "chinese-1-6", "home_run_multiplier": 2}, "hr")
    assert plan_pool(hr, "mc", 4, 30, True, 10**9, None, SIZE) is not None  # whole tables
    assert plan_pool(hr, "mc", 3, 30, True, 10**9, None, SIZE) is not None  # below its minimum
    assert plan_pool(load_rules(None), "field", 4, 30, True, 10**9, None, SIZE) is None
    assert plan_pool(load_rules(None), "mc", 4, 30, None, None, None, SIZE) is None  # stdin
    run_batch(src, tmp_path / "a.jsonl", workers=1, pool=True, **MC)
    assert PL.cached_pool(compile_rules(load_rules("chinese-1-6"))).size == SIZE


@pytest.mark.parametrize("name", ["shisanshui", "mau-binh-rules"])
def test_a_home_run_batch_builds_its_pool_and_draws_whole_tables(folder, tmp_path, name):
    """Under shisanshui and mau-binh-rules (4 players: the home run at the table) a batch long
    enough to pay for a pool builds the ruleset's own and draws from it (whole tables,
    solver.strategy.solving.home_run): the run file keeps it, one worker and two write the same
    records, and they differ from --no-pool's dealt ones. The two workers and the dealt run
    take the file's first 60 hands (a file shorter than a pool pays for draws from the
    pool once it is there: test_a_short_input_deals_a_long_one_builds_the_pool), in
    chunks of 5, so that both workers draw; all 700 of a 20,000-hand pool's run again
    were two thirds of the test."""
    src = write_hands(tmp_path / "h.txt", 170)
    opts = {**MC, "rules": name}
    run_batch(src, tmp_path / "a.jsonl", workers=1, **opts)
    pool = PL.cached_pool(compile_rules(load_rules(name)))
    assert pool is not None and pool.size == SIZE
    assert json.loads(sidecar_path(tmp_path / "a.jsonl").read_text())["pool"] == pool.ident
    first = records(tmp_path / "a.jsonl")[:60]
    short = write_hands(tmp_path / "short.txt", 60)  # the same hands as h.txt's first 60
    run_batch(short, tmp_path / "b.jsonl", workers=2, chunk_size=5, **opts)
    assert json.loads(sidecar_path(tmp_path / "b.jsonl").read_text())["pool"] == pool.ident
    assert records(tmp_path / "b.jsonl") == first
    run_batch(short, tmp_path / "c.jsonl", workers=1, pool=False, **opts)
    dealt = records(tmp_path / "c.jsonl")
    assert len(dealt) == 60 and dealt != first


def test_workers_and_dask_draw_from_the_same_pool(folder, tmp_path):
    """The same bytes in process, on two worker processes and on a Dask LocalCluster:
    each hand's seed and the one pool decide its opponents."""
    src = write_hands(tmp_path / "h.txt", 40)
    shared.pool(compile_rules(load_rules("chinese-1-6")), SIZE, folder)  # built once a run
    run_batch(src, tmp_path / "one.jsonl", workers=1, **MC)
    one = (tmp_path / "one.jsonl").read_bytes()
    run_batch(src, tmp_path / "dealt.jsonl", workers=1, pool=False, **MC)
    assert (tmp_path / "dealt.jsonl").read_bytes() != one
    run_batch(src, tmp_path / "two.jsonl", workers=2, chunk_size=3, **MC)
    assert (tmp_path / "two.jsonl").read_bytes() == one
    pytest.importorskip("distributed")
    run_batch(src, tmp_path / "dask.jsonl", workers=2, dask="local", chunk_size=5, **MC)
    assert (tmp_path / "dask.jsonl").read_bytes() == one


def test_resume_follows_the_pool_of_the_run(folder, tmp_path):
    """A run drawn from the pool, cut short, resumed after the pool was removed: the same
    pool is built again (same key, size and seed) and the file ends as an uninterrupted
    run's. Resuming it with --no-pool is refused."""
    src = write_hands(tmp_path / "h.txt", 30)
    out = tmp_path / "out.jsonl"
    run_batch(src, out, workers=1, pool=True, **MC)
    whole = out.read_bytes()
    lines = whole.splitlines(keepends=True)
    out.write_bytes(b"".join(lines[:12]) + lines[12][:20])  # killed mid-record
    PL.pool_path(compile_rules(load_rules("chinese-1-6"))).unlink()
    with pytest.raises(BatchError, match="other options: pool"):
        run_batch(src, out, workers=1, resume=True, pool=False, **MC)
    res = run_batch(src, out, workers=1, resume=True, **MC)
    assert res.resumed_after == 12 and out.read_bytes() == whole
    # a dealt run resumed while a pool is cached stays dealt
    run_batch(src, tmp_path / "d.jsonl", workers=1, pool=False, **MC)
    dealt = (tmp_path / "d.jsonl").read_bytes()
    (tmp_path / "d.jsonl").write_bytes(b"".join(dealt.splitlines(keepends=True)[:7]))
    run_batch(src, tmp_path / "d.jsonl", workers=1, resume=True, **MC)
    assert (tmp_path / "d.jsonl").read_bytes() == dealt


def test_a_worker_that_cannot_see_the_pool_fails_the_run(tmp_path):
    job = batch_job(rules=load_rules(None), policy="mc", samples=30, seed=0, players=4, fmt="jsonl",
              csv_spec=None, skip_upto=0, pool=str(tmp_path / "gone.bin"),
              pool_id="x/1")  # fmt: skip
    with pytest.raises(BatchFailed, match="a worker cannot use the opponent pool: .*gone.bin"):
        solve_chunk(job, [(1, b"As Ks Qs Js Ts 9h 9d 9c 2s 3d 4c 5h 7d")])
