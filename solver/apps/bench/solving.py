"""Measurements of setting hands: the splits and the Pareto front (the strategy's
kernels timed directly, the exception the layering contract names), the field and
greedy strategies, and the Monte Carlo solve."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from solver.apps.bench.timing import (
    TARGET_FIELD,
    TARGET_MC3000,
    TARGET_SPLITS,
    Result,
    Runner,
    Target,
    load,
    measure,
    random_hands,
)

if TYPE_CHECKING:
    from solver.engine.compiled import RulesLike
    from solver.engine.rules import Rules

__all__ = ["field", "greedy", "mc", "pareto", "splits"]


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

    The kernels ``solver.strategy.splits.candidates`` runs for every hand: ``_prepare`` (subset
    strengths, row keys and royalties), ``_legal_partitions`` and ``_pareto``, called
    hand by hand from Python.
    """
    from solver.engine.compiled import compile_rules
    from solver.strategy import _kernels as k
    from solver.strategy.splits import structure

    r = load(rules)
    cr = compile_rules(r)
    part = structure().part
    hands = random_hands(n, seed)
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
    res = measure(
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
    rules: Rules,
    runner: Runner | None,
) -> Result:
    """Set random hands with a strategy (``solver.strategy.setting.set_hands``)."""
    from solver.strategy.setting import set_hands

    r = load(rules)
    hands = random_hands(n, seed)
    return measure(
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
    rules: RulesLike = None,
    runner: Runner | None = None,
) -> Result:
    """Set hands with the ``field`` strategy (``solver.strategy.setting.set_hands``)."""
    return _policy("field", TARGET_FIELD, n, rounds, seed, rules, runner)


def greedy(
    n: int = 5_000,
    rounds: int = 5,
    seed: int = 0,
    rules: RulesLike = None,
    runner: Runner | None = None,
) -> Result:
    """Set hands with the ``greedy`` strategy (``solver.strategy.setting.set_hands``)."""
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
    """A Monte Carlo ``solve`` of one hand against ``opponents`` opponent hands.

    ``solve``'s ``samples`` counts opponent hands: with 4 players one shuffle of the
    other 39 cards deals 3 of them, so 3,000 opponent hands are 1,000 shuffles.
    """
    from solver.strategy.solve import solve

    r = load(rules)
    deals = -(-opponents // (players - 1))
    hs = random_hands(hands, seed)

    def call() -> None:
        for i, h in enumerate(hs):
            solve(h, rules=r, players=players, policy="mc", samples=opponents, seed=seed + i, top=0)

    return measure(
        f"mc{opponents}",
        f"Monte Carlo solve, {opponents:,} opponent hands ({deals:,} deals, {players} "
        f"players), {hands} hands ({r.name})",
        call,
        hands,
        "hand",
        rounds,
        runner,
        TARGET_MC3000 if opponents >= 3000 else None,
        {"samples": opponents, "deals": deals, "players": players},
    )
