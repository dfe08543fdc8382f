"""Measurements of setting hands: the splits and the Pareto front (the strategy's
kernels timed directly, the exception the layering contract names), the field and
greedy strategies, and the Monte Carlo solve."""

from __future__ import annotations

import statistics
import time
from typing import TYPE_CHECKING, Any

import numpy as np

from solver.apps.bench.timing import (
    HOME_RUN_RATIO,
    TARGET_FIELD,
    TARGET_MC3000,
    TARGET_SPLITS,
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
    from solver.engine.rules import Rules, RulesLike

__all__ = ["field", "greedy", "mc", "mc_home_run", "pareto", "splits"]


def splits(
    n: int = 2_000,
    rounds: int = 5,
    seed: int = 0,
    rules: RulesLike = None,
    runner: Runner | None = None,
    pareto: bool = False,
) -> Result:
    """Rank the 72,072 splits of a hand and keep the legal ones (the splits target);
    with ``pareto``, also mark their Pareto front (what ``solve`` scores; no target).

    The kernels ``solver.strategy.hands.splits.candidates`` runs for every hand:
    ``_prepare`` (subset strengths, row keys and royalties), ``_legal_partitions`` and
    ``_pareto``, called hand by hand from Python.
    """
    from solver.engine.compiled import compile_rules
    from solver.strategy import _kernels as k
    from solver.strategy.hands.splits import structure

    r = load(rules)
    cr = compile_rules(r)
    part = structure().part
    hands = seeded_hands(n, seed)
    k5 = np.empty(1287, np.int64)
    k3 = np.empty(286, np.int64)
    r5 = np.empty((2, 1287))
    r3 = np.empty(286)
    f3 = np.empty(286, np.int64)
    legal = np.empty((36036, 3), np.int32)
    keep = np.zeros(36036, np.bool_)
    counts = np.zeros(n, np.int64)

    def call() -> None:
        for i in range(n):
            k._prepare(hands[i], cr.lookup, cr.arrays, k5, k3, r5, r3, f3)
            m = k._legal_partitions(f3, k5, part, legal)
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
    res = measure(
        Label(
            "pareto" if pareto else "splits",
            f"{what}, {n:,} hands ({r.name}), one thread",
            "hand",
            None if pareto else TARGET_SPLITS,
        ),
        call,
        n,
        rounds,
        runner,
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
    rules: Rules,
    runner: Runner | None,
) -> Result:
    """Set random hands with a strategy (``solver.strategy.field_model.setting.set_hands``)."""
    from solver.strategy.field_model.setting import set_hands

    r = load(rules)
    hands = seeded_hands(n, seed)
    return measure(
        Label(
            policy,
            f"set a hand with the {policy} strategy, {n:,} hands ({r.name})",
            "hand",
            target,
        ),
        lambda: set_hands(hands, r, policy),
        n,
        rounds,
        runner,
    )


def field(
    n: int = 5_000,
    rounds: int = 5,
    seed: int = 0,
    rules: RulesLike = None,
    runner: Runner | None = None,
) -> Result:
    """Set hands with the ``field`` strategy (``solver.strategy.field_model.setting.set_hands``)."""
    return _policy("field", TARGET_FIELD, n, rounds, seed, rules, runner)


def greedy(
    n: int = 5_000,
    rounds: int = 5,
    seed: int = 0,
    rules: RulesLike = None,
    runner: Runner | None = None,
) -> Result:
    """Set hands with the ``greedy`` strategy
    (``solver.strategy.field_model.setting.set_hands``)."""
    return _policy("greedy", None, n, rounds, seed, rules, runner)


def mc(
    opponents: int = 3_000,
    hands: int = 3,
    rounds: int = 3,
    players: int = 4,
    seed: int = 0,
    rules: RulesLike = None,
    runner: Runner | None = None,
) -> Result:
    """A Monte Carlo ``solve`` of one hand against ``opponents`` opponent hands, dealt
    (``pool=False``: ``solver.apps.bench.pooled.mc_pool`` draws them from the pool).

    ``solve``'s ``samples`` counts opponent hands: with 4 players one shuffle of the
    other 39 cards deals 3 of them, so 3,000 opponent hands are 1,000 shuffles.
    """
    from solver.strategy.solving.solve import solve

    r = load(rules)
    deals = -(-opponents // (players - 1))
    hs = seeded_hands(hands, seed)

    def call() -> None:
        for i, h in enumerate(hs):
            solve(h, rules=r, players=players, policy="mc", samples=opponents, seed=seed + i,
                  top=0, pool=False)  # fmt: skip

    return measure(
        Label(
            f"mc{opponents}",
            f"Monte Carlo solve, {opponents:,} opponent hands dealt ({deals:,} deals, {players} "
            f"players), {hands} hands ({r.name})",
            "hand",
            TARGET_MC3000 if opponents >= 3000 else None,
        ),
        call,
        hands,
        rounds,
        runner,
    )


def mc_home_run(
    opponents: int = 3_000,
    hands: int = 3,
    rounds: int = 3,
    players: int = 4,
    seed: int = 0,
    rules: RulesLike = "shisanshui",
    runner: Runner | None = None,
) -> Result:
    """:func:`mc` under ``rules`` with the home run on (the ruleset's own, or else
    ``home_run_multiplier = 2`` from ``players - 1`` opponents) against the same solves
    with it off (``home_run_multiplier = 1``), in the same rounds
    (each round solves the hands off, then on; the same seeds, so the same opponents).
    The figure is the ratio of the medians, target at most ``HOME_RUN_RATIO``. ``extra``
    also has the ratio for the settlement alone (``score_against`` on the same
    candidates and opponents, where the home run's work is), best of five."""
    from dataclasses import replace

    from solver.strategy.solving.solve import solve

    given = load(rules)
    if given.home_run:  # the shisanshui preset has it: time it against the same without
        on, off = given, replace(given, name=f"{given.name}-no-home-run", home_run_multiplier=1)
    else:
        off = given
        on = replace(off, name=f"{off.name}+home-run", home_run_multiplier=2,
                     home_run_min_opponents=players - 1)  # fmt: skip
    hs = seeded_hands(hands, seed)
    times: dict[bool, list[float]] = {False: [], True: []}

    def solve_all(r: Rules) -> None:  # dealt both ways (the home run never draws from a pool)
        for i, h in enumerate(hs):
            solve(h, rules=r, players=players, policy="mc", samples=opponents, seed=seed + i,
                  top=0, pool=False)  # fmt: skip

    def pair() -> None:
        for home_run in (False, True):
            t0 = time.perf_counter()
            solve_all(on if home_run else off)
            times[home_run].append(time.perf_counter() - t0)

    t0 = time.perf_counter()
    solve_all(off)
    solve_all(on)  # the first call: the kernels compiled or loaded
    first = time.perf_counter() - t0
    (runner or default_runner)(pair, rounds)
    if not times[True]:
        raise ValueError("runner made no rounds for mc_home_run")
    median_on = statistics.median(times[True])
    median_off = statistics.median(times[False])
    settle = _settle_seconds(hs, off, on, players, opponents, seed)
    ratio = median_on / median_off
    return Result(
        name="mc_home_run",
        description=f"Monte Carlo solve with the home run (x{on.home_run_multiplier:g} from "
        f"{on.home_run_min_opponents} opponents) against without, {opponents:,} opponent "
        f"hands, {hands} hands ({given.name}), same rounds",
        items=hands,
        unit="hand",
        median=median_on,
        rate=hands / median_on,
        per_item=median_on / hands,
        rounds=len(times[True]),
        first_call=first,
        threads=threads(),
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


def _settle_seconds(
    hands: np.ndarray, off: Rules, on: Rules, players: int, opponents: int, seed: int
) -> dict[bool, float]:
    """Seconds of the settlement alone (``score_against``, best of five a hand) on the same
    candidates and opponents, with the home run off and on."""
    from solver.engine.compiled import compile_rules
    from solver.strategy.hands.splits import candidates
    from solver.strategy.solving.scoring import deal_opponents, score_against

    settle = {False: 0.0, True: 0.0}
    n_opp = players - 1
    deals = -(-opponents // n_opp)
    for i, h in enumerate(hands):
        h = np.sort(h)
        for home_run in (False, True):
            cr = compile_rules(on if home_run else off)
            cands = candidates(h, cr)
            opp = deal_opponents(h, cr, n_opp, deals, seed + i)
            best = float("inf")
            for _ in range(5):
                t1 = time.perf_counter()
                score_against(cands, cr, opp)
                best = min(best, time.perf_counter() - t1)
            settle[home_run] += best
    return settle
