"""How much each policy wins, hand by hand, against the same opponents.

For every random hand, each policy sets it once; then all the settings meet the same
fresh opponent deals (``eval_deals`` deals of the unseen cards, each opponent set by the
field strategy, naturals declared), settled exactly. The deals are independent of the
ones ``mc`` sampled while choosing, so its estimate carries no optimizer's-curse bias.
Differences are paired per hand; the standard error is over hands.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from solver.engine.rules import Rules, load_rules


@dataclass(frozen=True)
class PolicyResult:
    policy: str
    mean: float  # units per opponent per hand
    stderr: float


@dataclass(frozen=True)
class StrengthReport:
    hands: int
    players: int
    eval_deals: int
    rules: str
    results: tuple[PolicyResult, ...]
    gains: dict[str, tuple[float, float]]  # "a-b": (mean gain per hand, stderr)
    differ: dict[str, float]  # "a-b": share of hands set differently


def compare_policies(
    n_hands: int = 1000,
    rules: Rules | str | None = None,
    players: int = 4,
    policies: Sequence[str] = ("mc", "field", "greedy"),
    samples: int = 3000,
    eval_deals: int = 100,
    seed: int = 1,
    progress: Callable[[int, int], None] | None = None,
) -> StrengthReport:
    """Mean units per opponent of each policy over the same random hands and opponents."""
    from solver.engine.settlement import compile_rules, find_natural, find_naturals, summarize
    from solver.strategy import _kernels as k
    from solver.strategy.policy import set_sorted_hands
    from solver.strategy.search import _deal_opponents, solve

    rules = load_rules(rules)
    ra = compile_rules(rules)
    n_opp = players - 1
    rng = np.random.default_rng(seed)
    values = np.zeros((len(policies), n_hands))
    differ = {f"{a}-{b}": 0 for i, a in enumerate(policies) for b in policies[i + 1 :]}
    for h in range(n_hands):
        hand = np.sort(rng.permutation(52)[:13].astype(np.uint8))
        opp = _deal_opponents(hand, n_opp, eval_deals, int(rng.integers(2**63)))
        _, okeys, oroy, _ = set_sorted_hands(opp, rules, "field")
        onat, onatkey = find_naturals(opp, rules)
        settings = []
        for i, p in enumerate(policies):
            sol = solve(
                hand,
                rules=rules,
                players=players,
                policy=p,
                samples=samples,
                seed=int(rng.integers(2**63)),
                top=0,
            )
            settings.append((sol.front, sol.middle, sol.back))
            if sol.action == "surrender":
                values[i, h] = -float(rules.surrender_cost)
            elif sol.action == "declare":
                nat = find_natural(hand, rules)
                dv = np.empty(len(onat))
                k._natural_values(nat[0], nat[1], onat, onatkey, ra.nat_units, dv)
                values[i, h] = dv.mean()
            else:
                keys, roy, _ = summarize(settings[-1], rules)
                out = np.zeros((1, eval_deals))
                k._mc_values(
                    keys.reshape(1, 3),
                    roy.reshape(1, 3),
                    okeys,
                    oroy,
                    onat,
                    onatkey,
                    n_opp,
                    ra.params,
                    ra.nat_units,
                    0,
                    eval_deals,
                    out,
                )
                values[i, h] = out.mean() / n_opp
        for i, a in enumerate(policies):
            for j in range(i + 1, len(policies)):
                if set(settings[i][0].split()) != set(settings[j][0].split()) or set(
                    settings[i][1].split()
                ) != set(settings[j][1].split()):
                    differ[f"{a}-{policies[j]}"] += 1
        if progress:
            progress(h + 1, n_hands)
    se = lambda x: float(x.std(ddof=1) / math.sqrt(len(x))) if len(x) > 1 else float("nan")  # noqa: E731
    results = tuple(
        PolicyResult(p, float(values[i].mean()), se(values[i])) for i, p in enumerate(policies)
    )
    gains = {}
    for i, a in enumerate(policies):
        for j in range(i + 1, len(policies)):
            d = values[i] - values[j]
            gains[f"{a}-{policies[j]}"] = (float(d.mean()), se(d))
    return StrengthReport(
        n_hands,
        players,
        eval_deals,
        rules.name,
        results,
        gains,
        {k_: v / n_hands for k_, v in differ.items()},
    )
