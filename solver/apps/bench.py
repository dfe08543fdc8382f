"""Speed measurements, shared by ``capsa bench`` and the pytest-benchmark suite.

One function per measurement. Each prepares its inputs (outside the timing), makes a
first call that compiles the numba kernels or loads them from the on-disk cache (timed
apart, as ``first_call``), then times ``rounds`` calls through a *runner* and returns a
:class:`Result`: the median seconds per call, the rate in items per second, and the
DESIGN.md target with whether it is met. ``capsa bench`` uses the default runner
(``time.perf_counter``); ``benchmarks/`` passes one that calls ``benchmark.pedantic``, so
the suite and the command always time the same code on the same inputs.

The comparison libraries (``capsa[compare]``: phevaluator, treys, eval7) are timed on
the first hands of the same random 5-card rows through their public evaluation
function; the card conversion happens before the timing.

Library code: no printing, no rich, no typer. A measurement whose code has not been
built yet (or whose library is missing) raises :class:`Unavailable`.
"""

from __future__ import annotations

import contextlib
import importlib
import itertools
import os
import platform
import statistics
import time
import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass
from dataclasses import field as dc_field
from typing import Any

import numpy as np

__all__ = [
    "COMPARE_LIBRARIES",
    "MEASUREMENTS",
    "Measurement",
    "Report",
    "Result",
    "Runner",
    "Target",
    "Unavailable",
    "batch",
    "compare",
    "default_runner",
    "eval3",
    "eval5",
    "evaluate3",
    "evaluate5",
    "field",
    "greedy",
    "machine_info",
    "mc",
    "mc_home_run",
    "mc_pool",
    "pool_build",
    "batch_mc",
    "pareto",
    "played",
    "random_hands",
    "random_rows",
    "report",
    "run",
    "splits",
    "startup",
    "startup_field",
    "subset_pass",
]

#: A runner calls ``fn`` ``rounds`` times and returns the seconds of each call.
Runner = Callable[[Callable[[], object], int], Sequence[float]]


class Unavailable(RuntimeError):
    """The code (or library) a measurement needs is not available; the message says what."""


@dataclass(frozen=True)
class Target:
    """A DESIGN.md speed target: ``text`` as the table says it, ``rate`` in items/s."""

    text: str
    rate: float  # the result's rate must be at least this


# DESIGN.md, "Speed" (2-core machine, after JIT warm-up).
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
#: A pool of the default size built within this many seconds on the machine's cores.
POOL_BUILD_SECONDS = 120.0
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
    target: str | None = None  # DESIGN.md target, as text
    target_rate: float | None = None  # the target in items/s
    ok: bool | None = None  # target met (None: DESIGN.md sets none)
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


# ------------------------------------------------------------------------------ timing


def default_runner(fn: Callable[[], object], rounds: int) -> list[float]:
    """Seconds of each of ``rounds`` calls of ``fn`` (``time.perf_counter``)."""
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return times


def _threads() -> int:
    import numba

    return int(numba.get_num_threads())


def _measure(
    name: str,
    description: str,
    fn: Callable[[], object],
    items: int,
    unit: str,
    rounds: int,
    runner: Runner | None,
    target: Target | None = None,
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
        raise ValueError(f"runner returned no timings for {name}")
    median = statistics.median(times)
    rate = items / median if median > 0 else float("inf")
    return Result(
        name=name,
        description=description,
        items=items,
        unit=unit,
        median=median,
        rate=rate,
        per_item=median / items,
        rounds=len(times),
        first_call=first_call,
        threads=_threads(),
        target=target.text if target else None,
        target_rate=target.rate if target else None,
        ok=(rate >= target.rate) if target else None,
        extra=extra or {},
    )


# ------------------------------------------------------------------------------ inputs


def random_rows(n: int, k: int, seed: int = 0) -> np.ndarray:
    """``n`` rows of ``k`` distinct random card ids in random (unsorted) order, uint8[n, k]."""
    rng = np.random.default_rng(seed)
    if k > 7:
        return random_hands(n, seed, k)
    rows = rng.integers(0, 52, size=(n, k), dtype=np.uint8)
    while True:
        srt = np.sort(rows, axis=1)
        bad = np.flatnonzero((srt[:, 1:] == srt[:, :-1]).any(axis=1))
        if not len(bad):
            return rows
        rows[bad] = rng.integers(0, 52, size=(len(bad), k), dtype=np.uint8)


def random_hands(n: int, seed: int = 0, k: int = 13) -> np.ndarray:
    """``n`` random hands of ``k`` (13) distinct cards in dealt order, uint8[n, k]."""
    rng = np.random.default_rng(seed)
    out = np.empty((n, k), np.uint8)
    deck = np.arange(52, dtype=np.uint8)
    step = 65536
    for i in range(0, n, step):
        m = min(step, n - i)
        out[i : i + m] = rng.permuted(np.tile(deck, (m, 1)), axis=1)[:, :k]
    return out


def _rules(rules: Any = None) -> Any:
    from solver.engine.rules import load_rules

    return load_rules(rules)


def _need(module: str, attr: str | None = None) -> Any:
    """Import ``module`` (and get ``attr``), or raise :class:`Unavailable`."""
    try:
        mod = importlib.import_module(module)
    except ImportError as exc:
        raise Unavailable(f"{module} is not available ({exc})") from None
    if attr is None:
        return mod
    try:
        return getattr(mod, attr)
    except AttributeError:
        raise Unavailable(f"{module}.{attr} is not available yet") from None


# ------------------------------------------------------------------------- evaluator


def eval5(
    n: int = 1_000_000, rounds: int = 7, seed: int = 0, runner: Runner | None = None
) -> Result:
    """5-card strength lookups, ``n`` random unsorted rows, one thread (``_eval5_batch``)."""
    from evaluator import _kernels as k
    from evaluator import get_tables

    t = get_tables()
    rows = random_rows(n, 5, seed)
    out = np.empty(n, np.int32)
    return _measure(
        "eval5",
        f"5-card strength, {n:,} random unsorted rows, one thread",
        lambda: k._eval5_batch(rows, t.multi5, t.flush5, out),
        n,
        "lookup",
        rounds,
        runner,
        TARGET_EVAL5,
    )


def eval3(
    n: int = 1_000_000, rounds: int = 7, seed: int = 0, runner: Runner | None = None
) -> Result:
    """3-card (front) strength lookups, ``n`` random unsorted rows, one thread."""
    from evaluator import _kernels as k
    from evaluator import get_tables

    t = get_tables()
    rows = random_rows(n, 3, seed)
    out = np.empty(n, np.int32)
    return _measure(
        "eval3",
        f"3-card strength, {n:,} random unsorted rows, one thread",
        lambda: k._eval3_batch(rows, t.multi3, out),
        n,
        "lookup",
        rounds,
        runner,
    )


def _public(width: int, n: int, rounds: int, seed: int, runner: Runner | None) -> Result:
    """``evaluator.evaluate5``/``evaluate3`` on ``n`` random rows (the public call: ids
    checked in the kernel's pass, output allocated), next to the bare lookup kernel
    (``_eval5_batch``/``_eval3_batch``: no check) timed in the same rounds, each round
    the two calls back to back, so the two rates see the same machine; the bare call
    allocates its output as the public one does. Target: the public rate at least
    ``PUBLIC_RATIO`` times the kernel's. On the reference machine a lookup loop runs at
    about half speed for some placements of its arrays in memory (the bare 3-card
    kernel alone: 2.9 or 6.9 ms for the same 1,000,000 rows, by output array), which
    can strike either call of a run: compare more than one run."""
    import evaluator
    from evaluator import _kernels as k
    from evaluator import get_tables

    t = get_tables()
    rows = random_rows(n, width, seed)
    if width == 5:
        name, public = "evaluate5", evaluator.evaluate5

        def bare() -> np.ndarray:
            out = np.empty(n, np.int32)
            k._eval5_batch(rows, t.multi5, t.flush5, out)
            return out
    else:
        name, public = "evaluate3", evaluator.evaluate3

        def bare() -> np.ndarray:
            out = np.empty(n, np.int32)
            k._eval3_batch(rows, t.multi3, out)
            return out

    t0 = time.perf_counter()
    public(rows)  # the first call: kernels compiled or loaded
    first_call = time.perf_counter() - t0
    if not np.array_equal(public(rows), bare()):
        raise RuntimeError(f"{name} and the bare kernel disagree")
    bare_times: list[float] = []
    public_times: list[float] = []

    def pair() -> None:
        t0 = time.perf_counter()
        bare()
        t1 = time.perf_counter()
        public(rows)
        t2 = time.perf_counter()
        bare_times.append(t1 - t0)
        public_times.append(t2 - t1)

    (runner or default_runner)(pair, rounds)
    if not public_times:
        raise ValueError(f"runner made no rounds for {name}")
    median = statistics.median(public_times)
    kernel_rate = n / statistics.median(bare_times)
    rate = n / median
    target_rate = PUBLIC_RATIO * kernel_rate
    return Result(
        name=name,
        description=f"evaluator.{name} on {n:,} random unsorted rows (ids checked), one "
        f"thread, against the bare lookup kernel in the same rounds",
        items=n,
        unit="lookup",
        median=median,
        rate=rate,
        per_item=median / n,
        rounds=len(public_times),
        first_call=first_call,
        threads=_threads(),
        target=f"≥ {PUBLIC_RATIO:g}× kernel",
        target_rate=target_rate,
        ok=rate >= target_rate,
        extra={"kernel_rate": kernel_rate, "ratio": rate / kernel_rate},
    )


def evaluate5(
    n: int = 1_000_000, rounds: int = 15, seed: int = 0, runner: Runner | None = None
) -> Result:
    """The public ``evaluator.evaluate5`` batch call against the bare kernel (``_public``)."""
    return _public(5, n, rounds, seed, runner)


def evaluate3(
    n: int = 1_000_000, rounds: int = 15, seed: int = 0, runner: Runner | None = None
) -> Result:
    """The public ``evaluator.evaluate3`` batch call against the bare kernel (``_public``)."""
    return _public(3, n, rounds, seed, runner)


def subset_pass(
    n: int = 20_000, rounds: int = 7, seed: int = 0, runner: Runner | None = None
) -> Result:
    """Strengths of all 1,287 five-card and 286 three-card subsets of a hand, one thread."""
    from evaluator import _kernels as k
    from evaluator import get_tables

    t = get_tables()
    hands = np.sort(random_hands(n, seed), axis=1)
    out5 = np.empty((n, 1287), np.int16)
    out3 = np.empty((n, 286), np.int16)
    return _measure(
        "subset_pass",
        f"13-card subset pass (1,573 rows a hand), {n:,} hands, one thread",
        lambda: k._subset_pass_batch(hands, t.multi5, t.flush5, t.multi3, out5, out3),
        n,
        "hand",
        rounds,
        runner,
    )


# ---------------------------------------------------------------------------- solver


def splits(
    n: int = 2_000,
    rounds: int = 5,
    seed: int = 0,
    rules: Any = None,
    runner: Runner | None = None,
    pareto: bool = False,
) -> Result:
    """Rank the 72,072 splits of a hand and keep the legal ones (DESIGN's splits target);
    with ``pareto``, also mark their Pareto front (what ``solve`` scores; no target).

    The kernels ``solver.strategy.splits.candidates`` runs for every hand: ``_prepare`` (subset
    strengths, row keys and royalties), ``_legal_partitions`` and ``_pareto``, called
    hand by hand from Python.
    """
    k = _need("solver.strategy._kernels")
    for attr in ("_prepare", "_legal_partitions", "_pareto"):
        if not hasattr(k, attr):
            raise Unavailable(f"solver.strategy._kernels.{attr} is not available yet")
    from solver.engine.compiled import compile_rules
    from solver.strategy.splits import structure

    r = _rules(rules)
    cr = compile_rules(r)
    part = structure().part
    hands = np.sort(random_hands(n, seed), axis=1)
    k5 = np.empty(1287, np.int64)
    k3 = np.empty(286, np.int64)
    r5 = np.empty((2, 1287))
    r3 = np.empty(286)
    legal = np.empty((36036, 3), np.int32)
    keep = np.zeros(36036, np.bool_)
    counts = np.zeros(n, np.int64)

    def call() -> None:
        for i in range(n):
            k._prepare(hands[i], cr.lookup, cr.arrays, k5, k3, r5, r3)
            m = k._legal_partitions(k3, k5, part, legal)
            if pareto:
                k._pareto(k3, k5, legal, m, keep)
                counts[i] = keep[:m].sum()
            else:
                counts[i] = m

    what = (
        "rank all 72,072 splits, keep the legal ones and mark their Pareto front"
        if pareto
        else "rank all 72,072 splits and mark the legal ones"
    )
    res = _measure(
        "pareto" if pareto else "splits",
        f"{what}, {n:,} hands ({r.name}), one thread",
        call,
        n,
        "hand",
        rounds,
        runner,
        None if pareto else TARGET_SPLITS,
    )
    res.extra["pareto_front_mean" if pareto else "legal_partitions_mean"] = float(counts.mean())
    return res


def pareto(**kw: Any) -> Result:
    """:func:`splits` with the Pareto front marked."""
    return splits(pareto=True, **kw)


def _policy(
    policy: str,
    target: Target | None,
    n: int,
    rounds: int,
    seed: int,
    rules: Any,
    runner: Runner | None,
) -> Result:
    """Set random hands with a strategy (``solver.strategy.policy.set_hands``)."""
    set_hands = _need("solver.strategy.policy", "set_hands")
    r = _rules(rules)
    hands = random_hands(n, seed)
    return _measure(
        policy,
        f"set a hand with the {policy} strategy, {n:,} hands ({r.name})",
        lambda: set_hands(hands, r, policy),
        n,
        "hand",
        rounds,
        runner,
        target,
    )


def field(
    n: int = 5_000,
    rounds: int = 5,
    seed: int = 0,
    rules: Any = None,
    runner: Runner | None = None,
) -> Result:
    """Set hands with the ``field`` strategy (``solver.strategy.policy.set_hands``)."""
    return _policy("field", TARGET_FIELD, n, rounds, seed, rules, runner)


def greedy(
    n: int = 5_000,
    rounds: int = 5,
    seed: int = 0,
    rules: Any = None,
    runner: Runner | None = None,
) -> Result:
    """Set hands with the ``greedy`` strategy (``solver.strategy.policy.set_hands``)."""
    return _policy("greedy", None, n, rounds, seed, rules, runner)


def mc(
    opponents: int = 3_000,
    hands: int = 3,
    rounds: int = 3,
    players: int = 4,
    seed: int = 0,
    rules: Any = None,
    runner: Runner | None = None,
) -> Result:
    """A Monte Carlo ``solve`` of one hand against ``opponents`` opponent hands, dealt
    (``pool=False``: :func:`mc_pool` draws them from the pool).

    ``solve``'s ``samples`` counts opponent hands: with 4 players one shuffle of the
    other 39 cards deals 3 of them, so 3,000 opponent hands are 1,000 shuffles.
    """
    solve = _need("solver.strategy.solve", "solve")
    r = _rules(rules)
    deals = -(-opponents // (players - 1))
    hs = random_hands(hands, seed)

    def call() -> None:
        for i, h in enumerate(hs):
            solve(h, rules=r, players=players, policy="mc", samples=opponents, seed=seed + i,
                  top=0, pool=False)  # fmt: skip

    return _measure(
        f"mc{opponents}",
        f"Monte Carlo solve, {opponents:,} opponent hands dealt ({deals:,} deals, {players} "
        f"players), {hands} hands ({r.name})",
        call,
        hands,
        "hand",
        rounds,
        runner,
        TARGET_MC3000 if opponents >= 3000 else None,
        {"samples": opponents, "deals": deals, "players": players},
    )


@contextlib.contextmanager
def _a_pool(rules: Any, size: int | None = None) -> Iterator[tuple[Any, float]]:
    """The ruleset's cached opponent pool, else one of ``size`` hands (default
    ``BENCH_POOL_SIZE``) built in a temporary folder that ``CAPSA_POOL_DIR`` names
    meanwhile (worker processes started meanwhile find it there): (pool, seconds the
    build took, 0 for a cached pool)."""
    import tempfile

    pools = _need("solver.strategy.pool")
    cr = _need("solver.engine.compiled", "compile_rules")(rules)
    found = pools.cached_pool(cr)
    if found is not None:
        yield found, 0.0
        return
    before = os.environ.get("CAPSA_POOL_DIR")
    with tempfile.TemporaryDirectory(prefix="capsa-bench-pool-") as folder:
        os.environ["CAPSA_POOL_DIR"] = folder
        try:
            t0 = time.perf_counter()
            built = pools.build_pool(cr, size or BENCH_POOL_SIZE)
            yield built, time.perf_counter() - t0
        finally:
            if before is None:
                os.environ.pop("CAPSA_POOL_DIR", None)
            else:
                os.environ["CAPSA_POOL_DIR"] = before


@contextlib.contextmanager
def _one_thread() -> Iterator[None]:
    """Every thread pool of the solver (``CAPSA_THREADS``) and numba's at one thread."""
    import numba

    before, threads = os.environ.get("CAPSA_THREADS"), numba.get_num_threads()
    os.environ["CAPSA_THREADS"] = "1"
    numba.set_num_threads(1)
    try:
        yield
    finally:
        numba.set_num_threads(threads)
        if before is None:
            os.environ.pop("CAPSA_THREADS", None)
        else:
            os.environ["CAPSA_THREADS"] = before


def mc_pool(
    opponents: int = 3_000,
    hands: int = 20,
    rounds: int = 5,
    players: int = 4,
    seed: int = 0,
    rules: Any = None,
    runner: Runner | None = None,
    field_hands: int = 2_000,
    pool_size: int | None = None,
) -> Result:
    """A Monte Carlo ``solve`` of a hand against ``opponents`` opponent hands drawn from
    the opponent pool, on one core (kernels warm, the pool mapped and checked by the
    first call), against the field strategy setting ``field_hands`` hands on one core in
    the same rounds (each round times the two back to back, so they see the same
    machine). Targets: at most ``MC_POOL_MS`` a hand and ``MC_POOL_FIELD_RATIO`` times
    field's time a hand. Uses the ruleset's cached pool, else builds a temporary one
    of ``pool_size`` hands (``BENCH_POOL_SIZE``) first (``extra``: its size, and the
    build's seconds)."""
    solve = _need("solver.strategy.solve", "solve")
    set_sorted_hands = _need("solver.strategy.policy", "set_sorted_hands")
    r = _rules(rules)
    deals = -(-opponents // (players - 1))
    hs = random_hands(hands, seed)
    fh = np.sort(random_hands(field_hands, seed + 1), axis=1)
    with _a_pool(r, pool_size) as (pool, built), _one_thread():

        def solve_all() -> None:
            for i, h in enumerate(hs):
                solve(h, rules=r, players=players, samples=opponents, seed=seed + i, top=0,
                      pool=pool)  # fmt: skip

        mc_times: list[float] = []
        field_times: list[float] = []

        def pair() -> None:
            t0 = time.perf_counter()
            solve_all()
            t1 = time.perf_counter()
            set_sorted_hands(fh, r, "field", threads=1)
            t2 = time.perf_counter()
            mc_times.append(t1 - t0)
            field_times.append(t2 - t1)

        t0 = time.perf_counter()
        solve_all()  # the first call: kernels compiled or loaded, the pool checked
        set_sorted_hands(fh[:10], r, "field", threads=1)
        first = time.perf_counter() - t0
        (runner or default_runner)(pair, rounds)
        if not mc_times:
            raise ValueError("runner made no rounds for mc_pool")
        threads = _threads()
    median = statistics.median(mc_times)
    per_hand = median / hands
    field_per_hand = statistics.median(field_times) / field_hands
    ratio = per_hand / field_per_hand
    target_rate = max(1 / MC_POOL_MS, 1 / (MC_POOL_FIELD_RATIO * field_per_hand))
    return Result(
        name="mc_pool",
        description=f"Monte Carlo solve, {opponents:,} opponent hands drawn from the opponent "
        f"pool ({deals:,} deals, {players} players), {hands} hands ({r.name}), one core, "
        f"against field setting {field_hands:,} hands on one core in the same rounds",
        items=hands,
        unit="hand",
        median=median,
        rate=hands / median,
        per_item=per_hand,
        rounds=len(mc_times),
        first_call=first,
        threads=threads,
        target=f"≤ {MC_POOL_MS * 1e3:g} ms/hand, ≤ {MC_POOL_FIELD_RATIO}× field",
        target_rate=target_rate,
        ok=hands / median >= target_rate,
        extra={
            "samples": opponents,
            "players": players,
            "field_per_hand": field_per_hand,
            "ratio": ratio,
            "pool_size": pool.size,
            "pool_bytes": pool.nbytes,
            "pool_built_seconds": built,
        },
    )


def pool_build(
    n: int | None = None,
    rounds: int = 1,
    seed: int = 0,
    rules: Any = None,
    runner: Runner | None = None,
) -> Result:
    """Building an opponent pool of ``n`` hands (default the default size) on every core,
    into a temporary folder (the cache is left alone). Target: the default size within
    ``POOL_BUILD_SECONDS``, as a rate. ``extra``: the file's bytes (the pool is mapped
    whole, so its size in memory too), bytes a hand, and both projected to the default
    size. The first call builds 2,000 hands (kernels compiled or loaded)."""
    import tempfile

    pools = _need("solver.strategy.pool")
    r = _rules(rules)
    cr = _need("solver.engine.compiled", "compile_rules")(r)
    n = n or pools.DEFAULT_POOL_SIZE
    default = pools.DEFAULT_POOL_SIZE
    nbytes: list[int] = []
    with tempfile.TemporaryDirectory(prefix="capsa-bench-pool-") as folder:

        def build(size: int) -> None:
            path = os.path.join(folder, f"pool-{size}.bin")
            nbytes.append(pools.build_pool(cr, size, path=path).nbytes)
            os.unlink(path)

        t0 = time.perf_counter()
        build(2_000)
        first = time.perf_counter() - t0
        res = _measure(
            "pool_build",
            f"build an opponent pool of {n:,} hands ({r.name}), every core",
            lambda: build(n),
            n,
            "hand",
            rounds,
            runner,
            Target(
                f"≤ {POOL_BUILD_SECONDS / 60:g} min for {default:,}", default / POOL_BUILD_SECONDS
            ),
            first_call=first,
        )
    per_hand = nbytes[-1] / n
    res.extra.update(
        bytes=nbytes[-1],
        bytes_per_hand=per_hand,
        default_size=default,
        default_bytes=round(per_hand * default),
        default_seconds=res.per_item * default,
    )
    return res


def mc_home_run(
    opponents: int = 3_000,
    hands: int = 3,
    rounds: int = 3,
    players: int = 4,
    seed: int = 0,
    rules: Any = "shisanshui",
    runner: Runner | None = None,
) -> Result:
    """:func:`mc` under ``rules`` with the home run on (``home_run_multiplier = 2``, from
    ``players - 1`` opponents) against the same solves with it off, in the same rounds
    (each round solves the hands off, then on; the same seeds, so the same opponents).
    The figure is the ratio of the medians, target at most ``HOME_RUN_RATIO``. ``extra``
    also has the ratio for the settlement alone (``score_against`` on the same
    candidates and opponents, where the home run's work is), best of five."""
    from dataclasses import replace

    solve = _need("solver.strategy.solve", "solve")
    scoring = _need("solver.strategy.scoring")
    compile_rules = _need("solver.engine.compiled", "compile_rules")
    candidates = _need("solver.strategy.splits", "candidates")
    off = _rules(rules)
    on = replace(off, name=f"{off.name}+home-run", home_run_multiplier=2,
                 home_run_min_opponents=players - 1)  # fmt: skip
    hs = random_hands(hands, seed)
    times: dict[bool, list[float]] = {False: [], True: []}

    def solve_all(r: Any) -> None:  # dealt both ways (the home run never draws from a pool)
        for i, h in enumerate(hs):
            solve(h, rules=r, players=players, policy="mc", samples=opponents, seed=seed + i,
                  top=0, pool=False)  # fmt: skip

    def timed(home_run: bool) -> None:
        t0 = time.perf_counter()
        solve_all(on if home_run else off)
        times[home_run].append(time.perf_counter() - t0)

    t0 = time.perf_counter()
    solve_all(off)
    solve_all(on)  # the first call: the kernels compiled or loaded
    first = time.perf_counter() - t0
    times[False].clear()
    times[True].clear()

    def pair() -> None:
        timed(False)
        timed(True)

    (runner or default_runner)(pair, rounds)
    if not times[True]:
        raise ValueError("runner made no rounds for mc_home_run")
    median_on = statistics.median(times[True])
    median_off = statistics.median(times[False])
    # the settlement alone, on the same candidates and opponents
    settle = {False: 0.0, True: 0.0}
    n_opp = players - 1
    deals = -(-opponents // n_opp)
    for i, h in enumerate(hs):
        h = np.sort(h)
        for home_run in (False, True):
            cr = compile_rules(on if home_run else off)
            cands = candidates(h, cr)
            opp = scoring.deal_opponents(h, cr, n_opp, deals, seed + i)
            best = float("inf")
            for _ in range(5):
                t1 = time.perf_counter()
                scoring.score_against(cands, cr, opp)
                best = min(best, time.perf_counter() - t1)
            settle[home_run] += best
    ratio = median_on / median_off
    return Result(
        name="mc_home_run",
        description=f"Monte Carlo solve with the home run (x2 from {n_opp} opponents) against "
        f"without, {opponents:,} opponent hands, {hands} hands ({off.name}), same rounds",
        items=hands,
        unit="hand",
        median=median_on,
        rate=hands / median_on,
        per_item=median_on / hands,
        rounds=len(times[True]),
        first_call=first,
        threads=_threads(),
        target=f"≤ {HOME_RUN_RATIO:g}× without",
        target_rate=hands / (HOME_RUN_RATIO * median_off),
        ok=ratio <= HOME_RUN_RATIO,
        extra={
            "samples": opponents,
            "players": players,
            "without": median_off / hands,
            "ratio": ratio,
            "settle_without": settle[False] / hands,
            "settle_with": settle[True] / hands,
            "settle_ratio": settle[True] / settle[False],
        },
    )


def batch(
    n: int = 100_000,
    rounds: int = 3,
    seed: int = 0,
    rules: Any = None,
    runner: Runner | None = None,
) -> Result:
    """``capsa batch --policy field`` on ``n`` hands: ``solver.apps.batch.run_batch`` from a
    file of hands to JSON lines (written to the null device), worker processes on every
    core. Each round starts its workers afresh, as the command does; the first call (the
    kernels compiled or loaded) is a run on the first ``min(n, 1000)`` hands."""
    import tempfile

    from evaluator import format_cards

    run_batch = _need("solver.apps.batch", "run_batch")
    r = _rules(rules)
    hands = random_hands(n, seed)
    tmp = tempfile.TemporaryDirectory(prefix="capsa-bench-")
    src = os.path.join(tmp.name, "hands.txt")
    warm = os.path.join(tmp.name, "warm.txt")
    for path, rows in ((src, hands), (warm, hands[:1000])):
        with open(path, "w", encoding="utf-8") as fh:
            fh.writelines(format_cards(h) + "\n" for h in rows)

    def run(path: str, want: int) -> None:
        with open(os.devnull, "w", encoding="utf-8") as sink:
            res = run_batch(path, sink, fmt="jsonl", rules=r, policy="field", seed=seed)
        if res.hands != want:
            raise RuntimeError(f"batch solved {res.hands} of {want} hands")

    batch_error = _need("solver.apps.batch", "BatchError")
    try:
        t0 = time.perf_counter()
        try:
            run(warm, min(n, 1000))  # the first call: kernels compiled or loaded
        except batch_error as exc:
            raise Unavailable(f"solver.apps.batch.run_batch: {exc}") from None
        first = time.perf_counter() - t0
        return _measure(
            "batch",
            f"capsa batch --policy field, {n:,} hands ({r.name}), every core",
            lambda: run(src, n),
            n,
            "hand",
            rounds,
            runner,
            TARGET_BATCH,
            first_call=first,
        )
    finally:
        tmp.cleanup()


def batch_mc(
    n: int = 2_000,
    rounds: int = 1,
    seed: int = 0,
    rules: Any = None,
    runner: Runner | None = None,
    pool_size: int | None = None,
) -> Result:
    """``capsa batch`` with the default policy (``mc``, 3,000 opponent hands) on ``n``
    hands drawn from the opponent pool: ``run_batch`` from a file of hands to JSON lines
    (the null device), worker processes on every core, each round starting them afresh
    as the command does. Uses the ruleset's cached pool, else builds a temporary one of
    ``pool_size`` hands (``BENCH_POOL_SIZE``) first. The first call runs 20 hands."""
    import tempfile

    from evaluator import format_cards

    run_batch = _need("solver.apps.batch", "run_batch")
    r = _rules(rules)
    hands = random_hands(n, seed)
    with (
        _a_pool(r, pool_size) as (pool, built),
        tempfile.TemporaryDirectory(prefix="capsa-bench-") as tmp,
    ):
        src = os.path.join(tmp, "hands.txt")
        warm = os.path.join(tmp, "warm.txt")
        for path, rows in ((src, hands), (warm, hands[:20])):
            with open(path, "w", encoding="utf-8") as fh:
                fh.writelines(format_cards(h) + "\n" for h in rows)

        def run(path: str, want: int) -> None:
            with open(os.devnull, "w", encoding="utf-8") as sink:
                res = run_batch(path, sink, fmt="jsonl", rules=r, policy="mc", seed=seed)
            if res.hands != want:
                raise RuntimeError(f"batch solved {res.hands} of {want} hands")

        t0 = time.perf_counter()
        run(warm, min(n, 20))
        first = time.perf_counter() - t0
        res = _measure(
            "batch_mc",
            f"capsa batch --policy mc (3,000 opponent hands from the pool), {n:,} hands "
            f"({r.name}), every core",
            lambda: run(src, n),
            n,
            "hand",
            rounds,
            runner,
            TARGET_BATCH_MC,
            first_call=first,
        )
    res.extra.update(pool_size=pool.size, pool_built_seconds=built)
    return res


def played(
    n: int = 100_000,
    rounds: int = 1,
    mc_hands: int = 4,
    seed: int = 0,
    rules: Any = None,
    runner: Runner | None = None,
) -> Result:
    """``capsa batch --policy field`` on ``n`` lines giving the setting played (the field
    setting, the greedy one, or the field one with the middle and the back swapped, a
    third each), every core. ``extra`` holds the same hands as bare lines (one timed
    run) and the slowdown; how much slower the first 2,000 played lines are through
    the per-hand ``solve`` than through the chunk path (one worker, in process); and
    the slowdown of ``mc`` at 3,000 opponent hands on ``mc_hands`` hands (CPU time)."""
    import tempfile

    from evaluator import format_cards

    run_batch = _need("solver.apps.batch", "run_batch")
    set_hands = _need("solver.strategy.policy", "set_hands")
    solve = _need("solver.strategy.solve", "solve")
    r = _rules(rules)
    hands = random_hands(n, seed)
    field_set = set_hands(hands, r, "field")
    greedy_set = set_hands(hands, r, "greedy")
    lines = []
    for i in range(n):
        s = (field_set, greedy_set, field_set)[i % 3][i]
        rows = [s[:3], s[3:8], s[8:]]
        if i % 3 == 2:
            rows[1], rows[2] = rows[2], rows[1]
        lines.append(" | ".join(format_cards(x) for x in rows))
    tmp = tempfile.TemporaryDirectory(prefix="capsa-bench-")
    bare, src, warm = (os.path.join(tmp.name, f) for f in ("bare.txt", "played.txt", "warm.txt"))
    try:
        for path, rows in ((bare, [format_cards(h) for h in hands]), (src, lines),
                           (warm, lines[:1000])):  # fmt: skip
            with open(path, "w", encoding="utf-8") as fh:
                fh.writelines(x + "\n" for x in rows)

        def run(path: str, want: int) -> None:
            with open(os.devnull, "w", encoding="utf-8") as sink:
                res = run_batch(path, sink, fmt="jsonl", rules=r, policy="field", seed=seed)
            if res.hands != want:
                raise RuntimeError(f"batch solved {res.hands} of {want} hands")

        t0 = time.perf_counter()
        run(warm, min(n, 1000))
        first = time.perf_counter() - t0
        t0 = time.perf_counter()
        run(bare, n)
        bare_s = time.perf_counter() - t0
        res = _measure(
            "played",
            f"capsa batch --policy field, {n:,} lines with a setting played ({r.name}), every core",
            lambda: run(src, n),
            n,
            "hand",
            rounds,
            runner,
            first_call=first,
        )
        # the played lines through the per-hand solve (fast=False) against the chunk
        # path, in process on one worker, on the first 2,000
        part = os.path.join(tmp.name, "part.txt")
        with open(part, "w", encoding="utf-8") as fh:
            fh.writelines(x + "\n" for x in lines[:2000])
        paths = {}
        for fast in (True, False):
            t0 = time.perf_counter()
            with open(os.devnull, "w", encoding="utf-8") as sink:
                run_batch(part, sink, rules=r, policy="field", workers=1, fast=fast)
            paths[fast] = time.perf_counter() - t0
        mc_set = [(format_cards(h), lines[i]) for i, h in enumerate(hands[:mc_hands])]
        mc_times = []
        for with_played in (False, True, False, True):
            t0 = time.process_time()
            for i, (h, p) in enumerate(mc_set):
                solve(h, rules=r, samples=3000, seed=i, top=0, pool=False,
                      played=p if with_played else None)  # fmt: skip
            mc_times.append(time.process_time() - t0)
        mc_bare, mc_played = min(mc_times[0::2]), min(mc_times[1::2])
        res.extra.update(
            bare_rate=n / bare_s,
            slowdown=res.median / bare_s,
            per_hand_path_slowdown=paths[False] / paths[True],
            mc3000_cpu_per_hand=mc_played / len(mc_set),
            mc3000_slowdown=mc_played / mc_bare,
        )
        return res
    finally:
        tmp.cleanup()


def _played_records(hands: int, seed: int, rules: Any) -> list[str]:
    """JSON records of ``hands`` random hands, each played as the best setting, a runner-up
    or a fouled setting (``solve(..., policy="field", played=...)``), as batch writes them."""
    import json

    from evaluator import format_cards

    solve = _need("solver.strategy.solve", "solve")
    rng = np.random.default_rng(seed)
    out = []
    for i, h in enumerate(random_hands(hands, seed)):
        text = format_cards(np.sort(h)[::-1])
        best = solve(text, rules=rules, policy="field", top=4)
        options = [(best.front, best.middle, best.back), (best.front, best.back, best.middle)]
        options += [(a["front"], a["middle"], a["back"]) for a in best.alternatives]
        if best.action != "play":  # the natural's rows: play the hand as dealt instead
            rows = text.split()
            options = [(" ".join(rows[10:]), " ".join(rows[5:10]), " ".join(rows[:5]))]
        played = " | ".join(options[int(rng.integers(len(options)))])
        sol = solve(text, rules=rules, policy="field", top=0, played=played)
        rec = {"line": i + 1, "id": f"h{i + 1}", **sol.to_dict()}
        out.append(json.dumps(rec, separators=(",", ":")))
    return out


def report(
    n: int = 100_000,
    rounds: int = 3,
    seed: int = 0,
    rules: Any = None,
    runner: Runner | None = None,
) -> Result:
    """``capsa report`` on ``n`` batch records with a played setting:
    ``solver.apps.report.make_report`` reading a JSON-lines file once (the HTML page and
    its plots apart). The records are 200 field records of random hands (each played as
    the best setting, a runner-up or fouled) repeated with new line numbers; the first
    call reads the first ``min(n, 1000)``."""
    import tempfile

    make_report = _need("solver.apps.report", "make_report")
    r = _rules(rules)
    base = _played_records(200, seed, r)
    tmp = tempfile.TemporaryDirectory(prefix="capsa-bench-")
    src = os.path.join(tmp.name, "results.jsonl")
    warm = os.path.join(tmp.name, "warm.jsonl")
    try:
        with open(src, "w", encoding="utf-8") as fh:
            for i in range(n):
                rec = base[i % len(base)]
                fh.write(f'{{"line":{i + 1},"id":"h{i + 1}"' + rec[rec.index(',"hand"') :] + "\n")
        with open(src, encoding="utf-8") as fin, open(warm, "w", encoding="utf-8") as fout:
            fout.writelines(itertools.islice(fin, min(n, 1000)))

        def run(path: str, want: int) -> None:
            rep = make_report(path)
            if rep.played != want or rep.bad:
                raise RuntimeError(f"report read {rep.played} of {want} records, {rep.bad} bad")

        t0 = time.perf_counter()
        run(warm, min(n, 1000))
        first = time.perf_counter() - t0
        return _measure(
            "report",
            f"capsa report, {n:,} batch records with a played setting ({r.name})",
            lambda: run(src, n),
            n,
            "record",
            rounds,
            runner,
            TARGET_REPORT,
            {"bytes": os.path.getsize(src)},
            first_call=first,
        )
    finally:
        tmp.cleanup()


# --------------------------------------------------------------------------- compare

#: The libraries ``capsa bench --compare`` times, as ``capsa[compare]`` installs them.
COMPARE_LIBRARIES = ("phevaluator", "treys", "eval7")


#: DESIGN's start-up targets: a warm `capsa solve` under 1 s wall and at most this many
#: times a bare `python -c "import numba"` process timed in the same run.
STARTUP_RATIO = 2.5
STARTUP_HAND = "As Ks Qs Js Ts 9h 9d 9c 2s 3d 4c 5h 7d"


def startup(rounds: int = 7, runner: Runner | None = None, policy: str = "mc") -> Result:
    """Wall time of a fresh ``capsa solve HAND --seed 1`` process (default ``mc``, 3,000
    opponent hands; kernels cached), each round back to back with a fresh
    ``python -c "import numba"`` process, so the two see the same machine: the ratio of
    the medians is a figure a noisy machine can keep. The first call (a solve that may
    compile the kernels and write bytecode, ``PYTHONDONTWRITEBYTECODE`` or not) is timed
    apart. Target: at most ``STARTUP_RATIO`` times the bare
    import (and under 1 s on a quiet machine)."""
    import subprocess
    import sys

    solve = [sys.executable, "-m", "solver", "solve", STARTUP_HAND, "--seed", "1",
             "--policy", policy, "--format", "json"]  # fmt: skip
    bare = [sys.executable, "-c", "import numba"]
    # A warm machine has its bytecode cached too: where writing it is turned off (some
    # sandboxes and containers), both processes would compile every module each time.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}

    def run(cmd: list[str]) -> float:
        t0 = time.perf_counter()
        subprocess.run(
            cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, env=env
        )
        return time.perf_counter() - t0

    run(bare)  # untimed: bytecode
    first_call = run(solve)
    solve_times: list[float] = []
    bare_times: list[float] = []

    def pair() -> None:
        bare_times.append(run(bare))
        solve_times.append(run(solve))

    (runner or default_runner)(pair, rounds)
    if not solve_times:
        raise ValueError("runner made no rounds for startup")
    median = statistics.median(solve_times)
    numba_median = statistics.median(bare_times)
    target_rate = 1 / (STARTUP_RATIO * numba_median)
    return Result(
        name="startup" if policy == "mc" else f"startup_{policy}",
        description=f"a fresh `capsa solve --policy {policy}` process, wall clock, against a "
        "fresh `python -c 'import numba'` in the same rounds",
        items=1,
        unit="process",
        median=median,
        rate=1 / median,
        per_item=median,
        rounds=len(solve_times),
        first_call=first_call,
        threads=_threads(),
        target=f"≤ {STARTUP_RATIO:g}× import numba",
        target_rate=target_rate,
        ok=median <= STARTUP_RATIO * numba_median,
        extra={"import_numba": numba_median, "ratio": median / numba_median},
    )


def startup_field(rounds: int = 7, runner: Runner | None = None) -> Result:
    """:func:`startup` with ``--policy field`` (no sampling)."""
    return startup(rounds, runner, policy="field")


def _compare_setup(library: str, rows: np.ndarray) -> tuple[Callable[[], object], Callable]:
    """(timed loop over the converted rows, function giving their strengths untimed)."""
    names = [[f"{'23456789TJQKA'[c >> 2]}{'cdhs'[c & 3]}" for c in row] for row in rows.tolist()]
    if library == "phevaluator":
        try:
            from phevaluator import evaluate_cards
        except ImportError as exc:
            raise Unavailable(f"phevaluator is not installed ({exc})") from None
        # phevaluator ids are ours (rank * 4 + suit, c d h s); lower is stronger.
        conv = [tuple(int(c) for c in row) for row in rows.tolist()]

        def loop() -> None:
            for h in conv:
                evaluate_cards(*h)

        return loop, lambda: [-evaluate_cards(*h) for h in conv]
    if library == "treys":
        try:
            from treys import Card, Evaluator
        except ImportError as exc:
            raise Unavailable(f"treys is not installed ({exc})") from None
        ev = Evaluator()
        # treys' public call is evaluate(hand, board); two cards + three make five.
        pairs = [([Card.new(s) for s in row[:2]], [Card.new(s) for s in row[2:]]) for row in names]

        def loop() -> None:
            for h, b in pairs:
                ev.evaluate(h, b)

        return loop, lambda: [-ev.evaluate(h, b) for h, b in pairs]
    if library == "eval7":
        try:
            with warnings.catch_warnings():  # eval7 builds its parsers with old pyparsing names
                warnings.simplefilter("ignore", DeprecationWarning)
                import eval7
        except ImportError as exc:
            raise Unavailable(f"eval7 is not installed ({exc})") from None
        hands = [[eval7.Card(s) for s in row] for row in names]
        evaluate = eval7.evaluate

        def loop() -> None:
            for h in hands:
                evaluate(h)

        return loop, lambda: [evaluate(h) for h in hands]  # higher is stronger
    raise ValueError(f"unknown comparison library {library!r}: one of {COMPARE_LIBRARIES}")


def _same_order(ours: np.ndarray, theirs: np.ndarray) -> bool:
    """Whether two strength arrays (both higher-is-stronger) rank the rows the same way."""
    o = np.argsort(ours, kind="stable")
    a, b = ours[o], theirs[o]
    same_a, same_b = a[1:] == a[:-1], b[1:] == b[:-1]
    return bool(np.array_equal(same_a, same_b) and (b[1:] >= b[:-1]).all())


def compare(
    library: str,
    n: int = 200_000,
    rounds: int = 3,
    seed: int = 0,
    reference: Result | None = None,
    runner: Runner | None = None,
    population: int = 1_000_000,
) -> Result:
    """Time ``library``'s public 5-card evaluation on the first ``n`` rows of ``eval5``'s.

    ``population`` and ``seed`` must be ``eval5``'s ``n`` and ``seed`` for the rows to be
    the same.

    ``extra`` holds ``ratio`` (our ``eval5`` rate over theirs, with ``reference``) and
    ``same_order`` (their ranking of the rows agrees with ours).
    """
    from evaluator import evaluate5

    rows = random_rows(max(n, population), 5, seed)[:n]  # the first n rows of eval5's
    loop, strengths = _compare_setup(library, rows)
    ours = np.asarray(evaluate5(rows), np.int64)
    same = _same_order(ours, np.asarray(strengths(), np.int64))
    version = _version(library)
    res = _measure(
        library,
        f"{library} {version}: public 5-card evaluation, {n:,} of the same rows, a Python loop",
        loop,
        n,
        "lookup",
        rounds,
        runner,
        extra={"version": version, "same_order": same},
    )
    if reference is not None:
        res.extra["ratio"] = reference.rate / res.rate
    return res


def _version(dist: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(dist)
    except PackageNotFoundError:
        return "?"


# ------------------------------------------------------------------------------- run

MEASUREMENTS: tuple[Measurement, ...] = (
    Measurement("eval5", eval5, {"n": 1_000_000, "rounds": 9}, {"n": 1_000_000, "rounds": 3}),
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
        {"opponents": 3000, "hands": 5, "rounds": 3, "pool_size": 100_000},
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
        {"n": 200, "rounds": 1, "pool_size": 100_000},
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
)

COMPARE_SIZES = {"full": {"n": 200_000, "rounds": 3}, "quick": {"n": 20_000, "rounds": 1}}


def machine_info() -> dict[str, Any]:
    """What the numbers were measured on."""
    import numba

    return {
        "python": platform.python_version(),
        "numpy": np.__version__,
        "numba": numba.__version__,
        "cpus": os.cpu_count(),
        "numba_threads": _threads(),
        "machine": platform.machine(),
        "system": platform.system(),
    }


def run(
    quick: bool = False,
    with_compare: bool = False,
    names: Iterable[str] | None = None,
    progress: Callable[[str], None] | None = None,
    runner: Runner | None = None,
) -> Report:
    """Run the registered measurements (all, or ``names``), then the comparisons.

    ``progress(name)`` is called before each measurement starts. A measurement whose code
    or library is missing is listed in ``Report.skipped`` with the reason; one that raises
    is listed in ``Report.failed`` and the others still run. Unknown ``names`` raise
    ``InputError``.
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
    for m in MEASUREMENTS:
        if wanted is not None and m.name not in wanted:
            continue
        if progress:
            progress(m.name)
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
                progress(lib)
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
