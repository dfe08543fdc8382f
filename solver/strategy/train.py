"""Self-play training of the field tables (fictitious play).

Round 0 sets random hands greedily and tabulates each row's key distribution. Each later
round sets fresh random hands with the field strategy built from the current
distribution, tabulates the rows again, and blends the result into the running average
(weight 1/(round+1), as fictitious play does). Training stops when the win tables move
less than ``tol`` (sup norm over rows and keys, smoothed over neighbouring keys) between
rounds, or after ``rounds``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from solver.engine.compiled import compile_rules
from solver.engine.layout import NKEY
from solver.engine.rules import Rules
from solver.strategy.deal import random_hands
from solver.strategy.field import FIELD_VERSION, FieldTables, play_digest, tables_from_dist
from solver.strategy.policy import set_sorted_hands

DEFAULT_ROUNDS = 30
DEFAULT_HANDS = 20_000
DEFAULT_TOL = 0.001
DEFAULT_SEED = 20261130


@dataclass(frozen=True)
class RoundReport:
    round: int
    change: float  # sup-norm movement of the win tables this round
    hands: int
    seconds: float


def row_distribution(keys: np.ndarray) -> np.ndarray:
    """float64[3, NKEY] empirical distribution of each row's key."""
    dist = np.empty((3, NKEY))
    for r in range(3):
        dist[r] = np.bincount(keys[:, r], minlength=NKEY) / len(keys)
    return dist


def table_change(old: np.ndarray, new: np.ndarray) -> float:
    """Largest over rows of E_key~new |P_win,new(key) - P_win,old(key)|."""
    moved = np.abs(np.cumsum(new, axis=1) - np.cumsum(old, axis=1))
    return float((moved * new).sum(axis=1).max())


def train(
    rules: Rules,
    rounds: int = DEFAULT_ROUNDS,
    hands_per_round: int = DEFAULT_HANDS,
    seed: int = DEFAULT_SEED,
    tol: float = DEFAULT_TOL,
    min_rounds: int = 3,
    progress: Callable[[RoundReport], None] | None = None,
) -> FieldTables:
    """Train field tables for a ruleset by fictitious play; deterministic for a seed."""
    cr = compile_rules(rules)
    rng = np.random.default_rng(seed)
    t0 = time.perf_counter()
    hands = random_hands(rng, hands_per_round)
    _, keys, _, _ = set_sorted_hands(hands, cr, "greedy")
    dist = row_distribution(keys)
    changes: list[float] = []
    if progress:
        progress(RoundReport(0, float("nan"), hands_per_round, time.perf_counter() - t0))
    done = 0
    for it in range(1, rounds + 1):
        t1 = time.perf_counter()
        tables = tables_from_dist(dist, cr)
        hands = random_hands(rng, hands_per_round)
        _, keys, _, _ = set_sorted_hands(hands, cr, "field", field=tables)
        new = dist + (row_distribution(keys) - dist) / (it + 1)
        change = table_change(dist, new)
        dist = new
        changes.append(change)
        done = it
        if progress:
            progress(RoundReport(it, change, hands_per_round, time.perf_counter() - t1))
        if it >= min_rounds and change < tol:
            break
    meta = {
        "version": FIELD_VERSION,
        "rules": rules.name,
        "play_digest": play_digest(rules),
        "seed": seed,
        "rounds": done,
        "hands_per_round": hands_per_round,
        "tol": tol,
        "changes": changes,
        "converged": bool(changes and changes[-1] < tol),
    }
    return tables_from_dist(dist, cr, meta)
