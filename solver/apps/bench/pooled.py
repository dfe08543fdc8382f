"""Measurements of the opponent pool (solver.strategy.opposition.pool): the Monte Carlo solve that
draws from it on one core against the field strategy in the same rounds, building a
pool, and ``capsa batch --policy mc`` drawing from one."""

from __future__ import annotations

import contextlib
import contextvars
import os
import statistics
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from solver.apps.bench.timing import (
    BENCH_POOL_SIZE,
    MC_POOL_FIELD_RATIO,
    MC_POOL_MS,
    POOL_BUILD_SECONDS,
    TARGET_BATCH_MC,
    Label,
    Result,
    Runner,
    Target,
    default_runner,
    load,
    measure,
    seeded_hands,
    threads,
)

if TYPE_CHECKING:
    from solver.engine.compiled import CompiledRules
    from solver.engine.rules import RulesLike

__all__ = ["batch_mc", "mc_pool", "pool_build", "shared_pools"]


#: The folder a ``run`` of the measurements builds its pools in, shared by them (a pool
#: one measurement built is the next one's, of the same ruleset; removed when the run
#: ends), or None: each measurement builds its own and removes it.
_SHARED_POOLS: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "capsa_bench_pools", default=None
)


@contextlib.contextmanager
def shared_pools() -> Iterator[str]:
    """While open, the pools the measurements build (``_a_pool``) are kept in one
    temporary folder, so that one built for a ruleset serves every later measurement of
    that ruleset; the folder is removed on close."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="capsa-bench-pools-") as folder:
        token = _SHARED_POOLS.set(folder)
        try:
            yield folder
        finally:
            _SHARED_POOLS.reset(token)


@contextlib.contextmanager
def _pool_dir(folder: str) -> Iterator[None]:
    """``CAPSA_POOL_DIR`` names ``folder`` meanwhile (worker processes started meanwhile
    find their pool there)."""
    before = os.environ.get("CAPSA_POOL_DIR")
    os.environ["CAPSA_POOL_DIR"] = folder
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("CAPSA_POOL_DIR", None)
        else:
            os.environ["CAPSA_POOL_DIR"] = before


@contextlib.contextmanager
def _a_pool(cr: CompiledRules, size: int | None = None) -> Iterator[tuple[Any, float]]:
    """The ruleset's cached opponent pool, else one of ``size`` hands (default
    ``BENCH_POOL_SIZE``) built in a temporary folder (``shared_pools``'s, when one is
    open, where an earlier measurement's pool of that ruleset and at least that size is
    taken as it is) that ``CAPSA_POOL_DIR`` names meanwhile: (pool, seconds the build
    took, 0 for a pool found). Several at once: enter the cached ones first, since a
    pool built here hides the user's pool folder until its context ends."""
    import tempfile

    from solver.strategy.opposition import pool as pools

    found = pools.cached_pool(cr)
    if found is not None:
        yield found, 0.0
        return
    size = size or BENCH_POOL_SIZE
    shared = _SHARED_POOLS.get()
    with contextlib.ExitStack() as stack:
        folder = shared or stack.enter_context(
            tempfile.TemporaryDirectory(prefix="capsa-bench-pool-")
        )
        stack.enter_context(_pool_dir(folder))
        found = pools.cached_pool(cr) if shared else None
        if found is not None and found.size >= size:
            yield found, 0.0
            return
        t0 = time.perf_counter()
        built = pools.build_pool(cr, size)
        yield built, time.perf_counter() - t0


@contextlib.contextmanager
def _one_thread() -> Iterator[None]:
    """Every thread pool of the solver (``CAPSA_THREADS``) and numba's at one thread."""
    import numba

    before, numba_threads = os.environ.get("CAPSA_THREADS"), numba.get_num_threads()
    os.environ["CAPSA_THREADS"] = "1"
    numba.set_num_threads(1)
    try:
        yield
    finally:
        numba.set_num_threads(numba_threads)
        if before is None:
            os.environ.pop("CAPSA_THREADS", None)
        else:
            os.environ["CAPSA_THREADS"] = before


#: Hands the field strategy sets beside each Monte Carlo hand ``mc_pool`` times.
FIELD_HANDS = 100


def mc_pool(
    opponents: int = 3_000,
    hands: int = 20,
    rounds: int = 5,
    players: int = 4,
    seed: int = 0,
    rules: RulesLike = None,
    runner: Runner | None = None,
    pool_size: int | None = None,
) -> Result:
    """A Monte Carlo ``solve`` of a hand against ``opponents`` opponent hands drawn from
    the opponent pool, on one core (kernels warm, the pool mapped and checked by the
    first call), against the field strategy setting ``FIELD_HANDS`` hands for each mc
    hand on one core in the same rounds (each round times the two back to back, so they see the same
    machine). Targets: at most ``MC_POOL_MS`` a hand and ``MC_POOL_FIELD_RATIO`` times
    field's time a hand. Uses the ruleset's cached pool, else builds a temporary one
    of ``pool_size`` hands (``BENCH_POOL_SIZE``) first (``extra``: its size, the build's
    seconds, and how many of the hands drew from it, ``pooled_hands``: a pool too small
    to hold ``opponents`` hands that share no card with a hand deals them instead)."""
    from solver.engine.compiled import compile_rules
    from solver.strategy.field_model.policy import set_sorted_hands
    from solver.strategy.field_model.train import ensure_field
    from solver.strategy.solving.solve import solve

    r = load(rules)
    cr = compile_rules(r)  # once: the pool, the solves and the field take it compiled
    tables = ensure_field(cr)
    deals = -(-opponents // (players - 1))
    hs = seeded_hands(hands, seed)
    field_hands = FIELD_HANDS * hands
    fh = seeded_hands(field_hands, seed + 1)  # sorted
    with _a_pool(cr, pool_size) as (pool, built), _one_thread():

        def solve_all() -> int:
            """Solve the hands: how many drew their opponents from the pool."""
            drawn = 0
            for i, h in enumerate(hs):
                drawn += solve(h, rules=cr, players=players, samples=opponents, seed=seed + i,
                               top=0, pool=pool).pooled  # fmt: skip
            return drawn

        mc_times: list[float] = []
        field_times: list[float] = []

        def pair() -> None:
            t0 = time.perf_counter()
            solve_all()
            t1 = time.perf_counter()
            set_sorted_hands(fh, cr, "field", tables, threads=1)
            t2 = time.perf_counter()
            mc_times.append(t1 - t0)
            field_times.append(t2 - t1)

        t0 = time.perf_counter()
        pooled = solve_all()  # the first call: kernels compiled or loaded, the pool checked
        set_sorted_hands(fh[:10], cr, "field", tables, threads=1)
        first = time.perf_counter() - t0
        (runner or default_runner)(pair, rounds)
        if not mc_times:
            raise ValueError("runner made no rounds for mc_pool")
        used = threads()
    description = (
        f"Monte Carlo solve, {opponents:,} opponent hands drawn from the opponent pool "
        f"({deals:,} deals, {players} players), {hands} hands ({r.name}), one core, against "
        f"field setting {field_hands:,} hands on one core in the same rounds"
    )
    extra = {"samples": opponents, "players": players, "pool_size": pool.size,
             "pool_bytes": pool.nbytes, "pool_built_seconds": built,
             "pooled_hands": pooled}  # fmt: skip
    return _against_field(description, hands, mc_times, field_hands, field_times, first, used,
                          extra)  # fmt: skip


def _against_field(
    description: str,
    hands: int,
    mc_times: list[float],
    field_hands: int,
    field_times: list[float],
    first: float,
    used: int,
    extra: dict[str, Any],
) -> Result:
    """``mc_pool``'s result: the median a hand, the ratio to field's in the same rounds,
    and the stricter of the two targets as a rate."""
    median = statistics.median(mc_times)
    per_hand = median / hands
    field_per_hand = statistics.median(field_times) / field_hands
    target_rate = max(1 / MC_POOL_MS, 1 / (MC_POOL_FIELD_RATIO * field_per_hand))
    return Result(
        name="mc_pool",
        description=description,
        items=hands,
        unit="hand",
        median=median,
        rate=hands / median,
        per_item=per_hand,
        rounds=len(mc_times),
        first_call=first,
        threads=used,
        target=f"≤ {MC_POOL_MS * 1e3:g} ms/hand, ≤ {MC_POOL_FIELD_RATIO}× field",
        target_rate=target_rate,
        ok=hands / median >= target_rate,
        extra={**extra, "field_per_hand": field_per_hand, "ratio": per_hand / field_per_hand},
    )


def pool_build(
    n: int | None = None,
    rounds: int = 1,
    seed: int = 0,
    rules: RulesLike = None,
    runner: Runner | None = None,
) -> Result:
    """Building an opponent pool of ``n`` hands (default the default size) on every core,
    into a temporary folder (the cache is left alone). Target: the default size within
    ``POOL_BUILD_SECONDS``, as a rate. ``extra``: the file's bytes (the pool is mapped
    whole, so its size in memory too), bytes a hand, and both projected to the default
    size. The first call builds 2,000 hands (kernels compiled or loaded)."""
    import tempfile

    from solver.engine.compiled import compile_rules
    from solver.strategy.opposition import pool as pools

    r = load(rules)
    cr = compile_rules(r)
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
        res = measure(
            Label(
                "pool_build",
                f"build an opponent pool of {n:,} hands ({r.name}), every core",
                "hand",
                Target(
                    f"≤ {POOL_BUILD_SECONDS / 60:g} min for {default:,}",
                    default / POOL_BUILD_SECONDS,
                ),
            ),
            lambda: build(n),
            n,
            rounds,
            runner,
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


def batch_mc(
    n: int = 2_000,
    rounds: int = 1,
    seed: int = 0,
    rules: RulesLike = None,
    runner: Runner | None = None,
    pool_size: int | None = None,
    samples: int = 3_000,
) -> Result:
    """``capsa batch`` with the default policy (``mc``, ``samples`` opponent hands) on
    ``n`` hands drawn from the opponent pool: ``run_batch`` from a file of hands to JSON
    lines (the null device), worker processes on every core, each round starting them
    afresh as the command does. Uses the ruleset's cached pool, else builds a temporary
    one of ``pool_size`` hands (``BENCH_POOL_SIZE``) first. The first call runs 20 hands."""
    import tempfile

    from evaluator import format_cards
    from solver.apps.batch import run_batch
    from solver.engine.compiled import compile_rules

    r = load(rules)
    cr = compile_rules(r)  # the pool's (the batch compiles its own)
    hands = seeded_hands(n, seed)
    with (
        _a_pool(cr, pool_size) as (pool, built),
        tempfile.TemporaryDirectory(prefix="capsa-bench-") as tmp,
    ):
        src = os.path.join(tmp, "hands.txt")
        warm = os.path.join(tmp, "warm.txt")
        for path, rows in ((src, hands), (warm, hands[:20])):
            with open(path, "w", encoding="utf-8") as fh:
                fh.writelines(format_cards(h) + "\n" for h in rows)

        def run(path: str, want: int) -> None:
            with open(os.devnull, "w", encoding="utf-8") as sink:
                res = run_batch(path, sink, fmt="jsonl", rules=r, policy="mc", seed=seed,
                                samples=samples)  # fmt: skip
            if res.hands != want:
                raise RuntimeError(f"batch solved {res.hands} of {want} hands")

        t0 = time.perf_counter()
        run(warm, min(n, 20))
        first = time.perf_counter() - t0
        res = measure(
            Label(
                "batch_mc",
                f"capsa batch --policy mc ({samples:,} opponent hands from the pool), {n:,} hands "
                f"({r.name}), every core",
                "hand",
                TARGET_BATCH_MC,
            ),
            lambda: run(src, n),
            n,
            rounds,
            runner,
            first_call=first,
        )
    res.extra.update(pool_size=pool.size, pool_built_seconds=built)
    return res
