"""Self-play training of the field model (fictitious play, linearly weighted).

Round 0 sets random hands greedily; the first model is built from what they show. Each
later round sets fresh random hands with the current model and adds what they show to
the running statistics with weight equal to the round's number (round 0 drops out), so
the early, far-from-equilibrium rounds fade fast (linear averaging: the newest round
carries 2 / (rounds + 1) of the total). The next model is built from the statistics:

- the distribution of each row's key (the per-row win, tie and royalty tables);
- the card-removal shift of P(win) by the rank and suit counts of the hand being set
  (and by its jokers at a deck with jokers, counted as one more rank), from every hand
  shown with the exact (hypergeometric) probability that a hand dealt from the other 39
  cards holds each count (``_field_stats``);
- the joint correction grids, from the three rows' midranks of every hand shown.

Hands that declare a natural show no rows and are left out. Training stops when the win
tables move less than ``tol`` (largest over rows of the mean absolute change of P(win))
between rounds, once at least ``min_rounds`` rounds are done, or after ``rounds``.
Deterministic for a seed (any number of threads).

``ensure_field`` is the front ends' way to a ruleset's tables: found (shipped or cached,
``solver.strategy.field_model.trained``), else trained now with the defaults and cached.
"""

from __future__ import annotations

import logging
import math
import numbers
import time
from dataclasses import dataclass, field
from math import comb

import numpy as np

from solver.engine.compiled import CompiledRules
from solver.engine.errors import InputError
from solver.engine.inputs import quote, whole
from solver.engine.progress import Progress
from solver.engine.settlement import find_naturals
from solver.engine.table_shape import HAND_SIZE, STANDARD_DECK, Deck
from solver.strategy.field_model.field import (
    FIELD_VERSION,
    GRID,
    HOME_RUN_SAMPLE,
    HOME_RUN_SEED,
    KNOTS,
    FieldTables,
    field_cache_path,
    field_tables,
    pairwise,
    play_digest,
    save_field,
    scoop_chances,
    with_scoop,
)
from solver.strategy.field_model.policy import set_sorted_hands
from solver.strategy.field_model.trained import find_field, keep_field
from solver.strategy.hands.deal import random_hands

DEFAULT_ROUNDS = 30
DEFAULT_HANDS = 20_000
DEFAULT_TOL = 0.0005
DEFAULT_MIN_ROUNDS = 10
DEFAULT_SEED = 20261130


@dataclass(frozen=True)
class RoundReport:
    round: int
    change: float  # movement of the win tables this round
    hands: int
    seconds: float


def hypergeometric(deck: Deck = STANDARD_DECK) -> np.ndarray:
    """float64[g + 1, 14]: [a, n] the probability that 13 cards dealt from the cards a
    hand of ``deck`` does not hold (39 of 52) hold n of a group of a cards among them
    (g: the deck's largest group, a suit: 13, or 26 for a suit dealt twice)."""
    unseen = deck.size - HAND_SIZE
    big = max(deck.of_a_suit(s) for s in range(deck.suits))
    out = np.zeros((big + 1, HAND_SIZE + 1))
    for a in range(big + 1):
        for n in range(min(a, HAND_SIZE) + 1):
            out[a, n] = comb(a, n) * comb(unseen - a, HAND_SIZE - n) / comb(unseen, HAND_SIZE)
    return out


@dataclass
class FieldStats:
    """Weighted statistics of the rows hands of ``deck`` showed (see ``_field_stats``),
    over ``nkey`` row keys."""

    nkey: int
    deck: Deck = STANDARD_DECK
    dist: np.ndarray = field(init=False)
    rank: np.ndarray = field(init=False)
    suit: np.ndarray = field(init=False)
    keys: list[np.ndarray] = field(default_factory=list)  # int32[m, 3] per round
    weights: list[float] = field(default_factory=list)
    hands: int = 0

    def __post_init__(self) -> None:
        deck = self.deck
        self.dist = np.zeros((3, self.nkey))
        ranks = deck.ranks + (deck.jokers > 0)  # the jokers as one more rank
        self.rank = np.zeros((3, ranks, deck.of_a_rank + 1, self.nkey))
        self.suit = np.zeros((3, HAND_SIZE + 1, self.nkey))
        self._hyp = hypergeometric(deck)
        self._groups = np.array(
            [deck.of_a_rank, *(deck.of_a_suit(s) for s in range(deck.suits)), deck.jokers],
            np.int64,
        )

    def add(self, hands: np.ndarray, keys: np.ndarray, natural: np.ndarray, weight: float):
        from solver.strategy import _kernels as k

        k._field_stats(hands, keys, natural, float(weight), self._hyp, self._groups,
                       self.dist, self.rank, self.suit)  # fmt: skip
        self.keys.append(keys[natural < 0].astype(np.int32))
        self.weights.append(float(weight))
        self.hands += len(hands)


def shift_knots(dist: np.ndarray, hist: np.ndarray, knots: int) -> np.ndarray:
    """The change of P(win) at ``knots + 1`` knots evenly spaced in the base P(win).

    dist float64[3, nkey] the rows' key distribution (any scale), hist float64[3, m, nkey]
    m conditional distributions of the same keys (any scale; an empty one gives 0).
    Returns float64[3, m, knots + 1]: at each knot, the conditional P(key below) minus
    the base P(key below), interpolated linearly between the keys that occur.
    """
    z = np.linspace(0.0, 1.0, knots + 1)
    out = np.zeros((3, hist.shape[1], knots + 1))
    for r in range(3):
        d = dist[r] / dist[r].sum()
        seen = np.flatnonzero(d > 0)
        below = (np.cumsum(d) - d)[seen]
        xs = np.append(below, 1.0)
        tot = hist[r].sum(axis=1)
        h = hist[r][:, seen] / np.where(tot > 0, tot, 1.0)[:, None]
        moved = (np.cumsum(h, axis=1) - h) - below[None, :]
        for c in np.flatnonzero(tot > 0):
            out[r, c] = np.interp(z, xs, np.append(moved[c], 0.0))
    return out


def joint_grids(dist: np.ndarray, keys: np.ndarray, weights: np.ndarray, grid: int) -> np.ndarray:
    """Joint-correction grids from the rows hands showed.

    dist float64[3, nkey] (any scale), keys int[m, 3] each hand's row keys, weights
    float64[m]. Each row is placed at its midrank U = P(key below) + P(key) / 2 under
    dist; at the nodes u = (i / grid, j / grid, k / grid) the result holds, for a setting
    whose rows sit at u against these hands (s = +1 a row won, -1 lost: U below or above
    u): [0] E[s_f s_m s_b], [1] P(win all three), [2] P(lose all three), each minus its
    value for independent rows with the same marginals. float64[3, grid + 1]^3.
    """
    d = dist / dist.sum(axis=1, keepdims=True)
    mid = np.cumsum(d, axis=1) - 0.5 * d
    cell = np.empty((len(keys), 3), np.int64)
    for r in range(3):
        cell[:, r] = np.minimum((mid[r][keys[:, r]] * grid).astype(np.int64), grid - 1)
    flat = (cell[:, 0] * grid + cell[:, 1]) * grid + cell[:, 2]
    h = np.bincount(flat, weights=weights, minlength=grid**3).reshape(grid, grid, grid)
    h /= h.sum()
    below = np.zeros((grid + 1, grid + 1, grid + 1))
    below[1:, 1:, 1:] = h.cumsum(0).cumsum(1).cumsum(2)
    above = np.zeros((grid + 1, grid + 1, grid + 1))
    above[:-1, :-1, :-1] = h[::-1, ::-1, ::-1].cumsum(0).cumsum(1).cumsum(2)[::-1, ::-1, ::-1]
    marg = [np.concatenate([[0.0], np.cumsum(h.sum(axis=tuple(a for a in range(3) if a != r)))])
            for r in range(3)]  # fmt: skip
    sign = np.where(np.arange(grid)[None, :] < np.arange(grid + 1)[:, None], 1.0, -1.0)
    e3 = np.einsum("ai,bj,ck,ijk->abc", sign, sign, sign, h)
    ff = marg[0][:, None, None]
    fm = marg[1][None, :, None]
    fb = marg[2][None, None, :]
    out = np.empty((3, grid + 1, grid + 1, grid + 1))
    out[0] = e3 - (2 * ff - 1) * (2 * fm - 1) * (2 * fb - 1)
    out[1] = below - ff * fm * fb
    out[2] = above - (1 - ff) * (1 - fm) * (1 - fb)
    return out


def model_from_stats(
    stats: FieldStats,
    cr: CompiledRules,
    knots: int = KNOTS,
    grid: int = GRID,
    meta: dict | None = None,
) -> FieldTables:
    """The field model the statistics describe."""
    _, ranks, counts, nkey = stats.rank.shape
    rank = shift_knots(stats.dist, stats.rank.reshape(3, ranks * counts, nkey), knots)
    suit = shift_knots(stats.dist, stats.suit, knots)
    keys = np.concatenate(stats.keys)
    weights = np.concatenate(
        [np.full(len(k), w) for k, w in zip(stats.keys, stats.weights, strict=True)]
    )
    cop = joint_grids(stats.dist, keys, weights, grid)
    dist = stats.dist / stats.dist.sum(axis=1, keepdims=True)
    jokers = cr.rules.deck.jokers  # the rows' keys given the jokers the hand holds
    jdist = stats.rank[:, 13, : jokers + 1].transpose(1, 0, 2) if jokers else None
    return field_tables(dist, cr, rank.reshape(3, ranks, counts, knots + 1), suit, cop, meta,
                        jdist=jdist)  # fmt: skip


def table_change(old: np.ndarray, new: np.ndarray) -> float:
    """Largest over rows of E_key~new |P_win,new(key) - P_win,old(key)|."""
    moved = np.abs(np.cumsum(new, axis=1) - np.cumsum(old, axis=1))
    return float((moved * new).sum(axis=1).max())


def _show(cr: CompiledRules, hands: np.ndarray, policy: str, tables: FieldTables | None):
    _, keys, _, _ = set_sorted_hands(hands, cr, policy, field=tables)
    natural, _ = find_naturals(hands, cr)
    return keys, natural


#: The largest seed ``train`` takes (numpy's generators take any; a seed is written in
#: the tables' JSON metadata).
MAX_SEED = 2**64 - 1


def check_train_options(
    rounds: int, hands_per_round: int, seed: int, tol: float, min_rounds: int
) -> None:
    """Refuse (``InputError``, one line) options training cannot run with: a seed below 0
    (numpy's generators take none) or past ``MAX_SEED``, a ``tol`` that is not a finite
    number above 0 (a change is never below NaN, 0 or less), fewer than one round or
    100 hands a round."""
    checks = (
        ("rounds", rounds, 1, None),
        ("hands", hands_per_round, 100, None),
        ("min-rounds", min_rounds, 1, None),
        ("seed", seed, 0, MAX_SEED),
    )
    for name, value, low, high in checks:
        whole(value, f"--{name}", low, high)
    if (
        isinstance(tol, bool)
        or not isinstance(tol, numbers.Real)
        or not (math.isfinite(tol) and tol > 0)
    ):
        raise InputError(
            "--tol must be a number above 0 (training stops when the win tables move "
            f"less than this in a round), got {quote(tol)}"
        )


@dataclass(frozen=True)
class ModelShape:
    """The field model's resolution: ``knots`` of the rank and suit shifts, ``grid``
    cells a side of the joint correction."""

    knots: int = KNOTS
    grid: int = GRID


def train(
    cr: CompiledRules,
    rounds: int = DEFAULT_ROUNDS,
    hands_per_round: int = DEFAULT_HANDS,
    seed: int = DEFAULT_SEED,
    tol: float = DEFAULT_TOL,
    min_rounds: int = DEFAULT_MIN_ROUNDS,
    progress: Progress | None = None,
    shape: ModelShape | None = None,
) -> FieldTables:
    """Train the field model for a compiled ruleset by self-play; deterministic for a
    seed. ``InputError`` for options it cannot run with (``check_train_options``).
    ``shape``: the model's knots and grid (default ``ModelShape()``)."""
    check_train_options(rounds, hands_per_round, seed, tol, min_rounds)
    knots, grid = (shape or ModelShape()).knots, (shape or ModelShape()).grid
    rng = np.random.default_rng(seed)
    t0 = time.perf_counter()
    deck = cr.rules.deck
    hands = random_hands(rng, hands_per_round, deck)
    start = FieldStats(cr.nkey, deck)
    start.add(hands, *_show(cr, hands, "greedy", None), 1.0)
    tables = model_from_stats(start, cr, knots, grid)
    del start
    if progress:
        report = RoundReport(0, float("nan"), hands_per_round, time.perf_counter() - t0)
        progress(0, rounds, detail=report)
    stats = FieldStats(cr.nkey, deck)
    changes: list[float] = []
    done = 0
    for it in range(1, rounds + 1):
        t1 = time.perf_counter()
        hands = random_hands(rng, hands_per_round, deck)
        stats.add(hands, *_show(cr, hands, "field", tables), float(it))
        new = model_from_stats(stats, cr, knots, grid)
        change = table_change(tables.dist, new.dist)
        tables = new
        changes.append(change)
        done = it
        if progress:
            report = RoundReport(it, change, hands_per_round, time.perf_counter() - t1)
            progress(it, rounds, detail=report)
        if it >= min_rounds and change < tol:
            break
    meta = {
        "version": FIELD_VERSION,
        "rules": cr.rules.name,
        "play_digest": play_digest(cr.rules),
        "seed": seed,
        "rounds": done,
        "hands_per_round": hands_per_round,
        "tol": tol,
        "min_rounds": min_rounds,
        "knots": knots,
        "grid": grid,
        "weights": "linear",
        "changes": changes,
        "converged": bool(changes and changes[-1] < tol),
        "seconds": round(time.perf_counter() - t0, 1),
    }
    return with_scoop(tables._replace(meta=meta), cr, scoop_moments(cr, tables))


def scoop_moments(cr: CompiledRules, tables: FieldTables) -> np.ndarray:
    """float64[5]: E[pw^k], k = 1..5, over ``HOME_RUN_SAMPLE`` hands (seeded) dealt from
    the ruleset's deck and set by the field with ``tables`` valued pair by pair, pw each
    setting's chance of winning all three rows against one field opponent: what the home
    run at a table is reckoned from (``FieldTables.scoop``,
    docs/rules.md#the-field-and-the-home-run)."""
    field = pairwise(tables)
    hands = random_hands(np.random.default_rng(HOME_RUN_SEED), HOME_RUN_SAMPLE, cr.rules.deck)
    _, keys, roy, _ = set_sorted_hands(hands, cr, "field", field)
    pw = np.clip(scoop_chances(keys, roy, hands, cr, field)[:, 0], 0.0, 1.0)
    return np.array([float(np.mean(pw**k)) for k in range(1, 6)])


log = logging.getLogger("capsa")


def ensure_field(cr: CompiledRules) -> FieldTables:
    """A ruleset's field tables: shipped, else cached, else trained now (minutes; said on
    the ``capsa`` logger) and cached; held in memory, so ``get_field`` finds them from now
    on. Every front end calls it before what reads the tables."""
    tables = find_field(cr)
    if tables is not None:
        return tables
    cached = field_cache_path(cr)
    log.warning(
        "no field tables for ruleset %r yet: training them now (first use only, cached in %s)",
        cr.rules.name,
        cached.parent,
    )
    tables = train(cr)
    try:
        save_field(tables, cached)
    except OSError as exc:
        log.warning("could not cache field tables in %s: %s", cached, exc)
    return keep_field(cr, tables)
