"""The Monte Carlo solve from the opponent pool under every preset, in the same rounds
(the home run's whole tables under shisanshui and mau-binh-rules, solver.strategy.solving.home_run;
the suit order of capsa and pusoy), and ``capsa batch --policy mc`` with the home run."""

from __future__ import annotations

import contextlib
import dataclasses
import statistics
import time
from typing import Any

from solver.apps.bench.pooled import _a_pool, _one_thread, batch_mc
from solver.apps.bench.timing import (
    MC_POOL_MS,
    PRESET_RATIO,
    Result,
    Runner,
    default_runner,
    seeded_hands,
    threads,
)

__all__ = ["batch_mc_home_run", "mc_presets"]

#: What every preset is measured against.
BASE_PRESET = "chinese-1-6"


def mc_presets(
    opponents: int = 3_000,
    hands: int = 20,
    rounds: int = 3,
    players: int = 4,
    seed: int = 0,
    runner: Runner | None = None,
    pool_size: int | None = None,
) -> Result:
    """A Monte Carlo ``solve`` of ``hands`` hands against ``opponents`` opponent hands from
    each preset's pool, one core, every preset in each round (back to back, so they see
    the same machine). Targets: at most ``MC_POOL_MS`` a hand under every preset, home
    run included, and each preset within ``PRESET_RATIO`` times chinese-1-6's median.
    Uses each preset's cached pool, else builds a temporary one of ``pool_size`` hands
    (``BENCH_POOL_SIZE``). ``extra``: each preset's ms a hand and ratio, its pool's size
    and how many of its hands drew their opponents from it (``pooled_hands``)."""
    from solver.engine.compiled import compile_rules
    from solver.engine.rules import PRESETS
    from solver.strategy.opposition.pool import cached_pool
    from solver.strategy.solving.solve import solve

    names = [BASE_PRESET, *(n for n in PRESETS if n != BASE_PRESET)]
    hs = seeded_hands(hands, seed)
    times: dict[str, list[float]] = {n: [] for n in names}
    with contextlib.ExitStack() as stack:
        pools, crs = {}, {n: compile_rules(PRESETS[n]) for n in names}
        for n in sorted(names, key=lambda n: cached_pool(crs[n]) is None):  # see _a_pool
            pools[n] = (crs[n], stack.enter_context(_a_pool(crs[n], pool_size))[0])
        stack.enter_context(_one_thread())

        def solve_all(n: str) -> int:
            """Solve the hands under preset ``n``: how many drew from its pool."""
            cr, pool = pools[n]
            drawn = 0
            for i, h in enumerate(hs):
                drawn += solve(h, rules=cr, players=players, samples=opponents, seed=seed + i,
                               top=0, pool=pool).pooled  # fmt: skip
            return drawn

        def one_round() -> None:
            for n in names:
                t0 = time.perf_counter()
                solve_all(n)
                times[n].append(time.perf_counter() - t0)

        t0 = time.perf_counter()  # kernels compiled or loaded; how many drew from a pool:
        pooled = {n: solve_all(n) for n in names}
        first = time.perf_counter() - t0
        (runner or default_runner)(one_round, rounds)
        used = threads()
    per_hand = {n: statistics.median(t) / hands for n, t in times.items() if t}
    if len(per_hand) != len(names):
        raise ValueError("runner made no rounds for mc_presets")
    ratio = {n: v / per_hand[BASE_PRESET] for n, v in per_hand.items()}
    worst = max(per_hand.values())  # every preset within both targets: the slowest is
    target_rate = max(1 / MC_POOL_MS, 1 / (PRESET_RATIO * per_hand[BASE_PRESET]))
    sizes = {n: int(pool.size) for n, (_, pool) in pools.items()}
    extra: dict[str, Any] = {"ms_per_hand": {n: v * 1e3 for n, v in per_hand.items()},
                             "ratio": ratio, "samples": opponents, "players": players,
                             "pooled_hands": pooled, "pool_size": sizes}  # fmt: skip
    return Result(
        name="mc_presets",
        description=(
            f"Monte Carlo solve from each preset's opponent pool, {opponents:,} opponent "
            f"hands ({players} players), {hands} hands a preset, one core, every preset in "
            f"each round (the slowest preset's time){_pool_note(sizes)}"
        ),
        items=hands,
        unit="hand",
        median=worst * hands,
        rate=1 / worst,
        per_item=worst,
        rounds=len(times[BASE_PRESET]),
        first_call=first,
        threads=used,
        target=f"≤ {MC_POOL_MS * 1e3:g} ms/hand every preset, ≤ {PRESET_RATIO}× {BASE_PRESET}",
        target_rate=target_rate,
        ok=1 / worst >= target_rate,
        extra=extra,
    )


def _pool_note(sizes: dict[str, int]) -> str:
    """What the description adds when a preset's pool is smaller than the default: a
    home-run preset draws whole tables, and a smaller pool finds fewer partners, so it
    deals (and sets) more seats and measures slower than with ``capsa pool``'s."""
    from solver.engine.options import DEFAULT_POOL_SIZE

    small = sorted(n for n, size in sizes.items() if size < DEFAULT_POOL_SIZE)
    if not small:
        return ""
    return (
        f"; pools of {min(sizes[n] for n in small):,} hands for {', '.join(small)} (smaller "
        f"than the default {DEFAULT_POOL_SIZE:,}: home-run presets measure slower)"
    )


def batch_mc_home_run(
    n: int = 2_000,
    rounds: int = 1,
    seed: int = 0,
    runner: Runner | None = None,
    pool_size: int | None = None,
    samples: int = 3_000,
) -> Result:
    """``batch_mc`` under shisanshui (4 players, the home run at the table: the workers
    draw whole tables from the pool). Target: ``TARGET_BATCH_MC``."""
    res = batch_mc(n, rounds, seed, "shisanshui", runner, pool_size, samples)
    told = res.description.replace("from the pool", "and whole tables from the pool")
    return dataclasses.replace(res, name="batch_mc_home_run", description=told)
