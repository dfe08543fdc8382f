"""The registered measurements and ``run``, which ``capsa bench`` calls."""

from __future__ import annotations

import time
from collections.abc import Iterable

from solver.apps.bench.lookups import (
    COMPARE_LIBRARIES,
    compare,
    eval3,
    eval5,
    eval5_jokers,
    evaluate3,
    evaluate5,
    subset_pass,
)
from solver.apps.bench.opponents import mc_opponents
from solver.apps.bench.pooled import batch_mc, mc_pool, pool_build, shared_pools
from solver.apps.bench.presets import batch_mc_home_run, mc_presets
from solver.apps.bench.runs import batch, played, report, startup, startup_field
from solver.apps.bench.solving import field, greedy, mc, mc_home_run, pareto, splits
from solver.apps.bench.tables import batch_tables, mc_jokers, mc_tables
from solver.apps.bench.timing import (
    Measurement,
    Report,
    Result,
    Runner,
    Unavailable,
    machine_info,
)
from solver.apps.bench.web_load import web_load
from solver.engine.progress import Progress

__all__ = ["COMPARE_SIZES", "MEASUREMENTS", "run"]

#: The pools ``--quick`` builds for ``mc_tables`` and ``mc_jokers``, one a table (four
#: pools: at ``BENCH_POOL_SIZE`` they took 180 of the quick run's CPU seconds), with
#: their 1,000 opponent hands: a 52-card pool of this size holds 1,279 hands that share
#: no card with a hand, five standard deviations 178 (the bigger decks' pools, and the
#: jokers', hold more: tests/test_bench.py).
QUICK_TABLE_POOL = 100_000

MEASUREMENTS: tuple[Measurement, ...] = (
    Measurement("eval5", eval5, {"n": 1_000_000, "rounds": 9}, {"n": 1_000_000, "rounds": 3}),
    Measurement(
        "eval5_jokers",
        eval5_jokers,
        {"n": 1_000_000, "rounds": 9},
        {"n": 1_000_000, "rounds": 3},
    ),
    Measurement("eval3", eval3, {"n": 1_000_000, "rounds": 9}, {"n": 1_000_000, "rounds": 3}),
    Measurement(
        "evaluate5", evaluate5, {"n": 1_000_000, "rounds": 15}, {"n": 1_000_000, "rounds": 5}
    ),
    Measurement(
        "evaluate3", evaluate3, {"n": 1_000_000, "rounds": 15}, {"n": 1_000_000, "rounds": 5}
    ),
    Measurement("subset_pass", subset_pass, {"n": 20_000, "rounds": 7}, {"n": 5_000, "rounds": 3}),
    Measurement("splits", splits, {"n": 2_000, "rounds": 5}, {"n": 300, "rounds": 3}),
    Measurement("pareto", pareto, {"n": 2_000, "rounds": 5}, {"n": 300, "rounds": 3}),
    Measurement("greedy", greedy, {"n": 5_000, "rounds": 5}, {"n": 1_000, "rounds": 3}),
    Measurement("field", field, {"n": 5_000, "rounds": 5}, {"n": 1_000, "rounds": 3}),
    Measurement(
        "mc1000",
        mc,
        {"opponents": 1000, "hands": 5, "rounds": 3},
        {"opponents": 1000, "hands": 2, "rounds": 1},
    ),
    Measurement(
        "mc3000",
        mc,
        {"opponents": 3000, "hands": 3, "rounds": 3},
        {"opponents": 3000, "hands": 1, "rounds": 1},
    ),
    Measurement(
        "mc_pool",
        mc_pool,
        {"opponents": 3000, "hands": 20, "rounds": 5},
        {"opponents": 3000, "hands": 5, "rounds": 3},
    ),
    Measurement(
        "mc_opponents",
        mc_opponents,
        {"opponents": 3000, "hands": 3, "rounds": 5},
        {"opponents": 1000, "hands": 2, "rounds": 2, "learn_from": 200},
    ),
    Measurement(
        "mc_presets",
        mc_presets,
        {"opponents": 3000, "hands": 20, "rounds": 3},
        {"opponents": 3000, "hands": 3, "rounds": 1},
    ),
    Measurement(
        "mc_tables",
        mc_tables,
        {"opponents": 3000, "hands": 10, "rounds": 3},
        {"opponents": 1000, "hands": 2, "rounds": 1, "pool_size": QUICK_TABLE_POOL},
    ),
    Measurement(
        "mc_jokers",
        mc_jokers,
        {"opponents": 3000, "hands": 20, "rounds": 3},
        {"opponents": 1000, "hands": 2, "rounds": 1, "pool_size": QUICK_TABLE_POOL},
    ),
    Measurement("pool_build", pool_build, {"n": None, "rounds": 1}, {"n": 100_000, "rounds": 1}),
    Measurement(
        "mc_home_run",
        mc_home_run,
        {"opponents": 3000, "hands": 3, "rounds": 5},
        {"opponents": 3000, "hands": 1, "rounds": 1},
    ),
    Measurement("batch", batch, {"n": 100_000, "rounds": 2}, {"n": 10_000, "rounds": 1}),
    Measurement(
        "batch_mc",
        batch_mc,
        {"n": 2_000, "rounds": 2},
        {"n": 200, "rounds": 1},
    ),
    Measurement(
        "batch_mc_home_run",
        batch_mc_home_run,
        {"n": 2_000, "rounds": 2},
        {"n": 200, "rounds": 1},
    ),
    Measurement(
        "batch_tables", batch_tables, {"n": 100_000, "rounds": 2}, {"n": 10_000, "rounds": 1}
    ),
    Measurement(
        "played",
        played,
        {"n": 100_000, "rounds": 1, "mc_hands": 4},
        {"n": 2_000, "rounds": 1, "mc_hands": 1},
    ),
    Measurement("report", report, {"n": 100_000, "rounds": 3}, {"n": 10_000, "rounds": 1}),
    Measurement("startup", startup, {"rounds": 7}, {"rounds": 3}),
    Measurement("startup_field", startup_field, {"rounds": 7}, {"rounds": 3}),
    Measurement(
        "web_load",
        web_load,
        {"players": 200, "seconds": 60, "flood": 50, "workers": 2},
        {"players": 20, "seconds": 8, "think": 1.0, "flood": 20, "workers": 2},
    ),
)

COMPARE_SIZES = {"full": {"n": 200_000, "rounds": 3}, "quick": {"n": 20_000, "rounds": 1}}


def run(
    quick: bool = False,
    with_compare: bool = False,
    names: Iterable[str] | None = None,
    progress: Progress | None = None,
    runner: Runner | None = None,
) -> Report:
    """Run the registered measurements (all, or ``names``), then the comparisons.

    ``progress(done, what=name)`` is called before each measurement starts (``done``
    of them finished). A measurement whose code or library is missing is listed in
    ``Report.skipped`` with the reason; one that raises is listed in ``Report.failed``
    and the others still run. Unknown ``names`` raise ``InputError``.
    """
    from solver.engine.errors import InputError

    t0 = time.perf_counter()
    wanted = set(names) if names is not None else None
    if wanted is not None:
        unknown = wanted - {m.name for m in MEASUREMENTS}
        if unknown:
            raise InputError(
                f"unknown measurement {sorted(unknown)[0]!r}: one of "
                + ", ".join(m.name for m in MEASUREMENTS)
            )
    results: list[Result] = []
    skipped: list[dict[str, str]] = []
    failed: list[dict[str, str]] = []
    with shared_pools():  # a pool built for one measurement serves the later ones
        for m in MEASUREMENTS:
            if wanted is not None and m.name not in wanted:
                continue
            if progress:
                progress(len(results) + len(skipped) + len(failed), what=m.name)
            try:
                results.append(m.fn(**(m.quick if quick else m.full), runner=runner))
            except Unavailable as exc:
                skipped.append({"name": m.name, "reason": str(exc)})
            except Exception as exc:  # noqa: BLE001 - one broken measurement must not stop the rest
                failed.append({"name": m.name, "error": f"{type(exc).__name__}: {exc}"})
    compared: list[Result] = []
    if with_compare:
        reference = next((r for r in results if r.name == "eval5"), None)
        for lib in COMPARE_LIBRARIES:
            if progress:
                progress(len(results) + len(skipped) + len(failed) + len(compared), what=lib)
            try:
                compared.append(
                    compare(
                        lib,
                        **COMPARE_SIZES["quick" if quick else "full"],
                        reference=reference,
                        runner=runner,
                    )
                )
            except Unavailable as exc:
                skipped.append({"name": lib, "reason": f"{exc}; pip install 'capsa[compare]'"})
    return Report(
        results=results,
        skipped=skipped,
        failed=failed,
        compare=compared,
        machine=machine_info(),
        quick=quick,
        seconds=time.perf_counter() - t0,
    )
