"""Speed measurements, shared by ``capsa bench`` and the pytest-benchmark suite.

One function per measurement. Each prepares its inputs (outside the timing), makes a
first call that compiles the numba kernels or loads them from the on-disk cache (timed
apart, as ``first_call``), then times ``rounds`` calls through a *runner* and returns a
:class:`Result`: the median seconds per call, the rate in items per second, and the
target (docs/benchmarks.md) with whether it is met. ``capsa bench`` uses the default
runner (``time.perf_counter``); ``benchmarks/`` passes one that calls
``benchmark.pedantic``, so the suite and the command always time the same code on the
same inputs. The parts:

* ``timing``: the targets, ``Result``, runners, the inputs (hands from the one dealer);
* ``lookups``: the evaluator's kernels and public calls, and other libraries
  (``capsa[compare]``: phevaluator, treys, eval7) on the same rows;
* ``solving``: the splits and the Pareto front, the field and greedy strategies, the
  Monte Carlo solve;
* ``runs``: ``capsa batch``, ``capsa report`` and a fresh ``capsa solve`` process;
* ``pooled``: the opponent pool: the Monte Carlo solve drawing from it (one core,
  against field in the same rounds), building one, ``capsa batch --policy mc`` with one;
* ``presets``: that solve under every preset in the same rounds (the home run's whole
  tables, the suit order), and the batch under shisanshui;
* ``tables``: that solve at the 十三水 tables of 4, 5 and 6 players in the same rounds,
  and the field batch at five players (issue #31);
* ``run``: the registered measurements and ``run``.

``lookups`` and ``solving`` call kernels (``evaluator._kernels``,
``solver.strategy._kernels``): the one exception to "kernels are private to their
package", named in pyproject's layering contract. Library code: no printing, no rich,
no typer. A measurement whose library is missing raises :class:`Unavailable`.
"""

from __future__ import annotations

from solver.apps.bench.lookups import (
    COMPARE_LIBRARIES,
    JOKER_RATIO,
    compare,
    eval3,
    eval5,
    eval5_jokers,
    evaluate3,
    evaluate5,
    subset_pass,
)
from solver.apps.bench.opponents import mc_opponents
from solver.apps.bench.pooled import batch_mc, mc_pool, pool_build
from solver.apps.bench.presets import batch_mc_home_run, mc_presets
from solver.apps.bench.run import COMPARE_SIZES, MEASUREMENTS, run
from solver.apps.bench.runs import batch, played, report, startup, startup_field
from solver.apps.bench.solving import field, greedy, mc, mc_home_run, pareto, splits
from solver.apps.bench.tables import batch_tables, mc_jokers, mc_tables
from solver.apps.bench.timing import (
    HOME_RUN_RATIO,
    PUBLIC_RATIO,
    STARTUP_HAND,
    STARTUP_RATIO,
    TARGET_BATCH,
    TARGET_EVAL5,
    TARGET_FIELD,
    TARGET_MC3000,
    TARGET_REPORT,
    TARGET_SPLITS,
    Measurement,
    Report,
    Result,
    Runner,
    Target,
    Unavailable,
    default_runner,
    machine_info,
    random_rows,
    seeded_hands,
)

__all__ = [
    "COMPARE_LIBRARIES",
    "COMPARE_SIZES",
    "HOME_RUN_RATIO",
    "MEASUREMENTS",
    "JOKER_RATIO",
    "PUBLIC_RATIO",
    "STARTUP_HAND",
    "STARTUP_RATIO",
    "TARGET_BATCH",
    "TARGET_EVAL5",
    "TARGET_FIELD",
    "TARGET_MC3000",
    "TARGET_REPORT",
    "TARGET_SPLITS",
    "Measurement",
    "Report",
    "Result",
    "Runner",
    "Target",
    "Unavailable",
    "batch",
    "batch_mc",
    "batch_mc_home_run",
    "batch_tables",
    "compare",
    "default_runner",
    "eval3",
    "eval5",
    "eval5_jokers",
    "evaluate3",
    "evaluate5",
    "field",
    "greedy",
    "machine_info",
    "mc",
    "mc_home_run",
    "mc_jokers",
    "mc_opponents",
    "mc_pool",
    "mc_presets",
    "mc_tables",
    "pareto",
    "played",
    "pool_build",
    "seeded_hands",
    "random_rows",
    "report",
    "run",
    "splits",
    "startup",
    "startup_field",
    "subset_pass",
]
