"""Five and six players (issue #31): the Monte Carlo solve at the 十三水 tables of 4, 5
and 6 players in the same rounds, and ``capsa batch --policy field`` at five players.

A solve's ``samples`` are opponent hands whatever the players (3,000 opponent hands are
1,000 deals at 4 players, 750 at 5, 600 at 6), so the time of a solve is its time per
opponent hand times the same number at every table: the target (docs/benchmarks.md) is
each bigger table within ``BIG_TABLE_RATIO`` times the four-player table's median.
"""

from __future__ import annotations

import contextlib
import dataclasses
import statistics
import time
from collections.abc import Iterator
from typing import Any

import numpy as np

from solver.apps.bench.pooled import _a_pool, _one_thread
from solver.apps.bench.timing import Result, Runner, default_runner, threads

__all__ = ["BIG_PRESET", "BIG_TABLE_RATIO", "batch_tables", "mc_tables"]

#: The preset that seats five and six (solver.engine.seating.BIG_TABLES).
BIG_PRESET = "shisanshui"
#: A five- or six-player solve at most this many times the four-player one per opponent
#: hand (docs/benchmarks.md).
BIG_TABLE_RATIO = 1.5


def _table(players: int) -> Any:
    """The compiled 十三水 ruleset seated at ``players`` (its deck: 52, 65 or 78 cards)."""
    from solver.engine.compiled import compile_rules
    from solver.engine.rules import PRESETS
    from solver.engine.seating import seated

    return compile_rules(seated(PRESETS[BIG_PRESET], players))


def _hands(n: int, seed: int, deck: Any) -> np.ndarray:
    """``n`` random hands of ``deck`` (faces, each sorted), seeded."""
    from solver.strategy.hands.deal import random_hands

    return random_hands(np.random.default_rng(seed), n, deck)


@contextlib.contextmanager
def _maybe_pool(cr: Any, size: int | None) -> Iterator[Any]:
    """The table's opponent pool (``_a_pool``), or None where the deck has none (a deck
    with added suits before its pool is built: Monte Carlo deals)."""
    from solver.engine.errors import RulesError

    try:
        with _a_pool(cr, size) as (pool, _):
            yield pool
    except RulesError:
        yield None


def mc_tables(
    opponents: int = 3_000,
    hands: int = 10,
    rounds: int = 3,
    seed: int = 0,
    runner: Runner | None = None,
    pool_size: int | None = None,
) -> Result:
    """A Monte Carlo ``solve`` of ``hands`` hands of each table's deck against
    ``opponents`` opponent hands under 十三水 at 4, 5 and 6 players, one core, every table
    in each round, each from its opponent pool when it has one (the cached one, else a
    temporary one of ``pool_size`` hands), else dealt. Target: every bigger table within
    ``BIG_TABLE_RATIO`` times the four-player table's median (the same opponent hands).
    ``extra``: each table's ms a hand and its ratio, and how many hands drew from a pool."""
    from solver.strategy.solving.solve import solve

    seats = (4, 5, 6)
    times: dict[int, list[float]] = {p: [] for p in seats}
    with contextlib.ExitStack() as stack:
        tables = {}
        for p in seats:
            cr = _table(p)
            tables[p] = (cr, stack.enter_context(_maybe_pool(cr, pool_size)),
                         _hands(hands, seed + p, cr.rules.deck))  # fmt: skip
        stack.enter_context(_one_thread())

        def solve_all(p: int) -> int:
            """Solve the hands at ``p`` players: how many drew from a pool."""
            cr, pool, hs = tables[p]
            drawn = 0
            for i, h in enumerate(hs):
                drawn += solve(h, rules=cr, players=p, samples=opponents, seed=seed + i,
                               top=0, pool=pool if pool is not None else False).pooled  # fmt: skip
            return drawn

        def one_round() -> None:
            for p in seats:
                t0 = time.perf_counter()
                solve_all(p)
                times[p].append(time.perf_counter() - t0)

        t0 = time.perf_counter()
        pooled = {p: solve_all(p) for p in seats}  # kernels compiled or loaded
        first = time.perf_counter() - t0
        (runner or default_runner)(one_round, rounds)
        used = threads()
    per_hand = {p: statistics.median(t) / hands for p, t in times.items() if t}
    if len(per_hand) != len(seats):
        raise ValueError("runner made no rounds for mc_tables")
    ratio = {p: v / per_hand[4] for p, v in per_hand.items()}
    worst = max(per_hand[5], per_hand[6])
    target_rate = 1 / (BIG_TABLE_RATIO * per_hand[4])
    extra: dict[str, Any] = {
        "ms_per_hand": {str(p): v * 1e3 for p, v in per_hand.items()},
        "ratio": {str(p): v for p, v in ratio.items()},
        "samples": opponents,
        "pooled_hands": {str(p): n for p, n in pooled.items()},
    }
    return Result(
        name="mc_tables",
        description=(
            f"Monte Carlo solve under {BIG_PRESET} at 4, 5 and 6 players, {opponents:,} "
            f"opponent hands, {hands} hands a table, one core, every table in each round "
            "(the slower of 5 and 6; each from its pool where it has one, else dealt)"
        ),
        items=hands,
        unit="hand",
        median=worst * hands,
        rate=1 / worst,
        per_item=worst,
        rounds=len(times[4]),
        first_call=first,
        threads=used,
        target=f"5 and 6 players ≤ {BIG_TABLE_RATIO}× 4 players per opponent hand",
        target_rate=target_rate,
        ok=1 / worst >= target_rate,
        extra=extra,
    )


def batch_tables(
    n: int = 100_000,
    rounds: int = 2,
    seed: int = 0,
    runner: Runner | None = None,
) -> Result:
    """``capsa batch --policy field`` on ``n`` hands of the 65-card deck under 十三水 at
    five players (hands holding both copies of a card among them), worker processes on
    every core, as ``batch`` measures the 52-card table. Target: ``TARGET_BATCH``."""
    from solver.apps.bench.runs import batch

    players = 5
    res = batch(n, rounds, seed, BIG_PRESET, runner, players=players)
    told = (
        f"capsa batch --policy field, {n:,} hands of {_table(players).rules.deck.size} cards "
        f"({BIG_PRESET} at {players} players), every core"
    )
    return dataclasses.replace(res, name="batch_tables", description=told)
