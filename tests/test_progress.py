"""One progress shape for every long task (``solver.engine.progress.Progress``): each
task's callback parameter is annotated with it, and the CLI's display is one."""

from __future__ import annotations

import inspect
import io
import re
from pathlib import Path

import pytest
from rich.console import Console

ROOT = Path(__file__).resolve().parents[1]


def _tasks():
    from importlib import import_module

    m = {n: import_module(n) for n in (
        "solver.apps.batch.run", "solver.apps.batch.pooling", "solver.apps.bench.run",
        "solver.apps.duel.play", "solver.apps.strength", "solver.apps.training",
        "solver.strategy.opposition.pool", "solver.strategy.field_model.train",
    )}  # fmt: skip
    batch_run, pooling, bench_run = (m["solver.apps.batch.run"], m["solver.apps.batch.pooling"],
                                     m["solver.apps.bench.run"])  # fmt: skip
    play, strength, training = (m["solver.apps.duel.play"], m["solver.apps.strength"],
                                m["solver.apps.training"])  # fmt: skip
    pool, train = m["solver.strategy.opposition.pool"], m["solver.strategy.field_model.train"]
    return [
        (batch_run.BatchHooks, "on_progress"),
        (batch_run.BatchHooks, "on_pool"),
        (pooling.ready_pool, "progress"),
        (bench_run.run, "progress"),
        (play.duel, "progress"),
        (strength.compare_policies, "progress"),
        (training.train_to_file, "progress"),
        (pool.build_pool, "progress"),
        (train.train, "progress"),
    ]


@pytest.mark.parametrize("index", range(9))
def test_every_long_task_takes_the_one_progress_shape(index):
    fn, name = _tasks()[index]
    assert inspect.signature(fn).parameters[name].annotation == "Progress | None"


def test_no_other_progress_callback_shape_in_the_library():
    shapes = re.compile(r"(progress|on_pool)\w*: Callable\[")
    found = [
        f"{p.relative_to(ROOT)}:{i}"
        for p in sorted((ROOT / "solver").rglob("*.py"))
        for i, line in enumerate(p.read_text().splitlines(), 1)
        if shapes.search(line)
    ]
    assert found == []


def test_the_cli_display_is_a_progress():
    from solver.cli.output import progress

    err = Console(file=io.StringIO(), force_terminal=False)
    with progress(err, "hands", total=3) as bar:
        bar(1, 3)
        bar(2, 3, what="ignored", detail=object())
        assert bar._plain["done"] == 2 and bar._plain["total"] == 3
