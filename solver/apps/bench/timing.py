"""What every measurement shares: the targets, the result, timing through a runner, the
inputs (random rows, and hands from the one dealer, ``solver.strategy.hands.deal``)."""

from __future__ import annotations

import os
import platform
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from dataclasses import field as dc_field
from typing import TYPE_CHECKING, Any

import numpy as np

from solver.engine.table_shape import STANDARD_DECK

if TYPE_CHECKING:
    from solver.engine.rules import Rules, RulesLike

#: A runner calls ``fn`` ``rounds`` times and returns the seconds of each call.
Runner = Callable[[Callable[[], object], int], Sequence[float]]


class Unavailable(RuntimeError):
    """The code (or library) a measurement needs is not available; the message says what."""


@dataclass(frozen=True)
class Target:
    """A speed target of docs/benchmarks.md: ``text`` as the table says it, ``rate`` in items/s."""

    text: str
    rate: float  # the result's rate must be at least this


# docs/benchmarks.md, "Targets" (2-core machine, after JIT warm-up).
TARGET_EVAL5 = Target("≥ 80 M/s", 80e6)
TARGET_SPLITS = Target("≤ 0.15 ms/hand", 1 / 0.15e-3)
TARGET_FIELD = Target("≤ 0.3 ms/hand", 1 / 0.3e-3)
TARGET_MC3000 = Target("≤ 1 s/hand", 1.0)
TARGET_BATCH = Target("≥ 5,000 hands/s", 5000.0)
#: The public batch evaluator (validation included) against the bare kernel, same run.
PUBLIC_RATIO = 0.8
#: The Monte Carlo solve with the home run on, against the same solve without it.
HOME_RUN_RATIO = 1.5
#: The Monte Carlo solve from a cached pool (3,000 opponent hands, one core): at most
#: this many seconds a hand, and at most this many times field's time a hand.
MC_POOL_MS = 20e-3
MC_POOL_FIELD_RATIO = 250
#: Every preset's Monte Carlo solve from its pool: at most this times chinese-1-6's.
PRESET_RATIO = 1.2
#: A pool of the default size built within this many seconds on the machine's cores.
POOL_BUILD_SECONDS = 120.0
#: A Monte Carlo solve against a learned model's opponents: at most this times the same
#: solve against the field's (both dealt).
MODEL_FIELD_RATIO = 1.10
#: Hands of the pool a measurement builds for itself when none is cached.
BENCH_POOL_SIZE = 300_000
#: ``capsa batch`` with the Monte Carlo policy, drawing from the pool.
TARGET_BATCH_MC = Target("≥ 100 hands/s", 100.0)
# "a few seconds, one streaming pass" for 100,000 records: at most 5 s.
TARGET_REPORT = Target("≥ 20,000 records/s", 20000.0)


@dataclass(frozen=True)
class Result:
    """One measurement. ``median`` is seconds per timed call of ``items`` items."""

    name: str
    description: str
    items: int  # items per timed call
    unit: str  # what an item is, e.g. "lookup", "hand"
    median: float  # seconds per call (median over rounds)
    rate: float  # items per second (items / median)
    per_item: float  # seconds per item (median / items)
    rounds: int
    first_call: float  # seconds of the first call: numba compile or cache load, plus one run
    threads: int  # numba threads available to the code
    target: str | None = None  # docs/benchmarks.md target, as text
    target_rate: float | None = None  # the target in items/s
    ok: bool | None = None  # target met (None: there is none)
    extra: dict[str, Any] = dc_field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Measurement:
    """A registered measurement: its function and arguments for a full and a quick run."""

    name: str
    fn: Callable[..., Result]
    full: dict[str, Any]
    quick: dict[str, Any]


@dataclass
class Report:
    """Everything ``run`` measured: results, skipped measurements, comparisons, machine."""

    results: list[Result]
    skipped: list[dict[str, str]]  # name, reason: code or library not available
    failed: list[dict[str, str]]  # name, error: the measurement raised
    compare: list[Result]
    machine: dict[str, Any]
    quick: bool
    seconds: float

    def to_dict(self) -> dict[str, Any]:
        return {
            "quick": self.quick,
            "seconds": self.seconds,
            "machine": self.machine,
            "measurements": [r.to_dict() for r in self.results],
            "compare": [r.to_dict() for r in self.compare],
            "skipped": self.skipped,
            "failed": self.failed,
        }


#: The start-up targets (docs/benchmarks.md): a warm `capsa solve` under 1 s wall and at
#: most this many times a bare `python -c "import numba"` process timed in the same run.
STARTUP_RATIO = 2.5
STARTUP_HAND = "As Ks Qs Js Ts 9h 9d 9c 2s 3d 4c 5h 7d"


# ------------------------------------------------------------------------------ timing


def default_runner(fn: Callable[[], object], rounds: int) -> list[float]:
    """Seconds of each of ``rounds`` calls of ``fn`` (``time.perf_counter``)."""
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return times


def threads() -> int:
    import numba

    return int(numba.get_num_threads())


@dataclass(frozen=True)
class Label:
    """What a measurement is: its name, what it times, the unit of its items, and the
    target it is held to (None: none)."""

    name: str
    description: str
    unit: str
    target: Target | None = None


def measure(
    label: Label,
    fn: Callable[[], object],
    items: int,
    rounds: int,
    runner: Runner | None,
    extra: dict[str, Any] | None = None,
    first_call: float | None = None,
) -> Result:
    """First call apart (compile or cache load), then ``rounds`` timed calls.

    ``first_call``: the caller has made (and timed) the first call already.
    """
    if first_call is None:
        t0 = time.perf_counter()
        fn()
        first_call = time.perf_counter() - t0
    times = list((runner or default_runner)(fn, rounds))
    if not times:
        raise ValueError(f"runner returned no timings for {label.name}")
    median = statistics.median(times)
    target = label.target
    rate = items / median if median > 0 else float("inf")
    return Result(
        name=label.name,
        description=label.description,
        items=items,
        unit=label.unit,
        median=median,
        rate=rate,
        per_item=median / items,
        rounds=len(times),
        first_call=first_call,
        threads=threads(),
        target=target.text if target else None,
        target_rate=target.rate if target else None,
        ok=(rate >= target.rate) if target else None,
        extra=extra or {},
    )


# ------------------------------------------------------------------------------ inputs


def random_rows(n: int, k: int, seed: int = 0) -> np.ndarray:
    """``n`` rows of ``k`` (at most 7) distinct random card ids in random (unsorted) order,
    uint8[n, k]."""
    rng = np.random.default_rng(seed)
    rows = rng.integers(0, STANDARD_DECK.size, size=(n, k), dtype=np.uint8)
    while True:
        srt = np.sort(rows, axis=1)
        bad = np.flatnonzero((srt[:, 1:] == srt[:, :-1]).any(axis=1))
        if not len(bad):
            return rows
        rows[bad] = rng.integers(0, STANDARD_DECK.size, size=(len(bad), k), dtype=np.uint8)


def seeded_hands(n: int, seed: int = 0, extra_suits: str = "") -> np.ndarray:
    """``n`` random hands, uint8[n, 13], each sorted: ``solver.strategy.hands.deal.random_hands``
    with a generator seeded ``seed``, of the deck with ``extra_suits`` (its faces)."""
    from solver.engine.table_shape import deck_of
    from solver.strategy.hands.deal import random_hands as deal

    return deal(np.random.default_rng(seed), n, deck_of(extra_suits))


def load(rules: RulesLike = None) -> Rules:
    """The ``Rules`` a measurement runs under (a preset's name, a file, or None)."""
    from solver.engine.rules import load_rules

    return load_rules(rules)


def machine_info() -> dict[str, Any]:
    """What the numbers were measured on."""
    import numba

    return {
        "python": platform.python_version(),
        "numpy": np.__version__,
        "numba": numba.__version__,
        "cpus": os.cpu_count(),
        "numba_threads": threads(),
        "machine": platform.machine(),
        "system": platform.system(),
    }
