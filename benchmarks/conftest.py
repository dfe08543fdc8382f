"""pytest-benchmark suite: ``pytest benchmarks --benchmark-only``.

Plain ``pytest`` does not collect these files (``testpaths = ["tests"]``); pyproject's
``python_files`` includes ``bench_*.py`` for when this folder is named. Every measurement
lives in :mod:`solver.apps.bench`, which ``capsa bench`` runs too, so the two never drift: the
fixtures here only hand it a runner that times through ``benchmark.pedantic``. The first
call (numba compile or cache load) happens before the timed rounds.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

from solver.apps import bench


@pytest.fixture
def runner(benchmark) -> bench.Runner:
    """A :data:`solver.apps.bench.Runner` timing through ``benchmark.pedantic``.

    The rounds are timed inside the call as well, so the result is the same whether or
    not pytest-benchmark is disabled (``--benchmark-disable`` runs the target once).
    """

    def run(fn: Callable[[], object], rounds: int) -> list[float]:
        times: list[float] = []

        def timed() -> None:
            t0 = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t0)

        benchmark.pedantic(timed, rounds=rounds, iterations=1, warmup_rounds=0)
        return times

    return run


@pytest.fixture
def measure(benchmark, runner) -> Callable[[str], bench.Result]:
    """Run measurement ``name`` at full size; skip it if its code or library is missing.

    ``name`` is one of :data:`solver.apps.bench.MEASUREMENTS` or ``compare:LIBRARY``.
    """
    registry = {m.name: m for m in bench.MEASUREMENTS}

    def go(name: str) -> bench.Result:
        try:
            if name.startswith("compare:"):
                benchmark.group = "compare"
                result = bench.compare(
                    name.removeprefix("compare:"), **bench.COMPARE_SIZES["full"], runner=runner
                )
            else:
                m = registry[name]
                benchmark.group = name
                result = m.fn(**m.full, runner=runner)
        except bench.Unavailable as exc:
            pytest.skip(str(exc))
        record(benchmark, result)
        return result

    return go


def record(benchmark, result: bench.Result) -> None:
    """Put the rate and the target (docs/benchmarks.md) beside pytest-benchmark's timings."""
    benchmark.extra_info.update(
        {
            "items": result.items,
            "unit": result.unit,
            "rate": result.rate,
            "per_item": result.per_item,
            "first_call": result.first_call,
            "target": result.target,
            "ok": result.ok,
            **result.extra,
        }
    )
