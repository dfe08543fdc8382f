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
from solver.apps.bench.timing import PRESET_RATIO, Result, Runner, default_runner, threads

__all__ = ["BIG_PRESET", "BIG_TABLE_RATIO", "batch_tables", "mc_jokers", "mc_tables"]

#: The preset that seats five and six (solver.engine.seating.BIG_TABLES).
BIG_PRESET = "shisanshui"
#: A five- or six-player solve at most this many times the four-player one per opponent
#: hand (docs/benchmarks.md).
BIG_TABLE_RATIO = 1.5


def _table(players: int, jokers: int = 0) -> Any:
    """The compiled 十三水 ruleset seated at ``players`` (its deck: 52, 65 or 78 cards),
    with ``jokers``."""
    from solver.engine.compiled import compile_rules
    from solver.engine.rules import PRESETS
    from solver.engine.seating import at_table

    return compile_rules(at_table(PRESETS[BIG_PRESET], players, jokers))


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


@dataclasses.dataclass(frozen=True)
class _Timed:
    """What ``_in_rounds`` measured."""

    per_hand: dict[str, float]
    pooled: dict[str, int]
    samples: int
    hands: int
    rounds: int
    first: float
    threads: int


def _in_rounds(
    tables: dict[str, tuple[Any, int]],
    opponents: int,
    hands: int,
    rounds: int,
    seed: int,
    runner: Runner | None,
    pool_size: int | None,
) -> _Timed:
    """Time a Monte Carlo ``solve`` of ``hands`` hands of each table's deck (``tables``:
    label -> (compiled ruleset, players)) against ``opponents`` opponent hands, one core,
    every table in each round, each from its opponent pool (the cached one, else a
    temporary one of ``pool_size`` hands) where it has one, else dealt. Returns each
    table's median seconds a hand, how many of its hands drew from a pool, the rounds,
    the first call's seconds (kernels compiled or loaded) and the threads used."""
    from solver.strategy.solving.solve import solve

    times: dict[str, list[float]] = {k: [] for k in tables}
    with contextlib.ExitStack() as stack:
        at = {}
        for k, (cr, players) in tables.items():
            at[k] = (cr, players, stack.enter_context(_maybe_pool(cr, pool_size)),
                     _hands(hands, seed + players, cr.rules.deck))  # fmt: skip
        stack.enter_context(_one_thread())

        def solve_all(k: str) -> int:
            """Solve table ``k``'s hands: how many drew from a pool."""
            cr, players, pool, hs = at[k]
            drawn = 0
            for i, h in enumerate(hs):
                drawn += solve(h, rules=cr, players=players, samples=opponents, seed=seed + i,
                               top=0, pool=pool if pool is not None else False).pooled  # fmt: skip
            return drawn

        def one_round() -> None:
            for k in tables:
                t0 = time.perf_counter()
                solve_all(k)
                times[k].append(time.perf_counter() - t0)

        t0 = time.perf_counter()
        pooled = {k: solve_all(k) for k in tables}  # kernels compiled or loaded
        first = time.perf_counter() - t0
        (runner or default_runner)(one_round, rounds)
        used = threads()
    per_hand = {k: statistics.median(t) / hands for k, t in times.items() if t}
    if len(per_hand) != len(tables):
        raise ValueError("runner made no rounds")
    return _Timed(per_hand, pooled, opponents, hands, len(next(iter(times.values()))), first,
                  used)  # fmt: skip


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
    tables = {str(p): (_table(p), p) for p in (4, 5, 6)}
    got = _in_rounds(tables, opponents, hands, rounds, seed, runner, pool_size)
    worst = max(got.per_hand["5"], got.per_hand["6"])
    return _result(
        "mc_tables", got, "4", worst, BIG_TABLE_RATIO,
        f"Monte Carlo solve under {BIG_PRESET} at 4, 5 and 6 players, {opponents:,} "
        f"opponent hands, {hands} hands a table, one core, every table in each round "
        "(the slower of 5 and 6; each from its pool where it has one, else dealt)",
        f"5 and 6 players ≤ {BIG_TABLE_RATIO}× 4 players per opponent hand",
    )  # fmt: skip


def mc_jokers(
    opponents: int = 3_000,
    hands: int = 20,
    rounds: int = 3,
    seed: int = 0,
    runner: Runner | None = None,
    pool_size: int | None = None,
) -> Result:
    """``mc_tables`` for jokers: the 十三水 table of 4 players with both jokers (54
    cards, the home run on; its field tables ship) against the same table without, each
    from its opponent pool (docs/pool.md#jokers). Target: within ``PRESET_RATIO`` times
    the table without jokers."""
    tables = {str(j): (_table(4, j), 4) for j in (0, 2)}
    got = _in_rounds(tables, opponents, hands, rounds, seed, runner, pool_size)
    return _result(
        "mc_jokers", got, "0", got.per_hand["2"], PRESET_RATIO,
        f"Monte Carlo solve under {BIG_PRESET} with both jokers (54 cards) and without, "
        f"{opponents:,} opponent hands, {hands} hands a table, one core, every table in each "
        "round (each from its pool where it has one, else dealt)",
        f"with jokers ≤ {PRESET_RATIO}× without",
    )  # fmt: skip


def _result(
    name: str,
    got: _Timed,
    base: str,
    worst: float,
    ratio_target: float,
    description: str,
    target: str,
) -> Result:
    """The Result of a measurement of tables against table ``base``: the slowest
    measured (``worst`` seconds a hand) within ``ratio_target`` times ``base``'s."""
    per_hand = got.per_hand
    target_rate = 1 / (ratio_target * per_hand[base])
    extra: dict[str, Any] = {
        "ms_per_hand": {k: v * 1e3 for k, v in per_hand.items()},
        "ratio": {k: v / per_hand[base] for k, v in per_hand.items()},
        "samples": got.samples,
        "pooled_hands": got.pooled,
    }
    return Result(name=name, description=description, items=got.hands, unit="hand",
                  median=worst * got.hands, rate=1 / worst, per_item=worst, rounds=got.rounds,
                  first_call=got.first, threads=got.threads, target=target, target_rate=target_rate,
                  ok=1 / worst >= target_rate, extra=extra)  # fmt: skip


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
