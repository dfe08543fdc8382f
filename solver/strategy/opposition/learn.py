"""Learning an opponent model from the settings opponents were seen to play
(``capsa train --from``; docs/opponents.md#learned-models).

The model is the field's own tables plus a **row utility** ``util[r, key]``: units the
opponent adds to a setting's field value for the strength of each row. The utility is a
function of the row's place in [0, 1] (``midranks``: the mean of its midrank among the
field's rows of that position, P(win) + P(tie) / 2, and its rank among all row keys):
piecewise linear on ``RAMPS`` equal pieces, nondecreasing (a stronger row
is never worth less to them), zero for the field. The opponent sets a hand by the
highest field value plus utility, the field's own branch and bound: the utility is kept
beside the field's tables (``fx[..., 3]``, which the setting kernels add to each row's
term, apart from the royalties a scoop multiplier multiplies), so a model plays under
every ruleset, and setting a hand with a model costs what the field costs.

**The fit.** An opponent is taken to play setting s of a hand with probability
proportional to exp(beta x (field value(s) + utility(s))) over the hand's candidate
settings (the Pareto front of its legal splits, which holds the best setting of every
model, plus the setting seen when it is off the front). That is a conditional logit,
linear in (beta, beta x utility pieces), so the log-likelihood is concave: it is
maximised by projected Newton steps (beta >= BETA_MIN, pieces >= 0), with a ridge
penalty ``ridge / 2 x sum of (beta x piece)^2`` that shrinks the utility towards zero,
the field. The ridge is chosen from ``RIDGES`` by the likelihood of an inner fifth of
the settings held out of the fit (``choose_ridge``): thin data choose a strong one (the
model stays near the field), plentiful data a weak one. The temperature is 1 / beta.

At the maximum, the expected piece features under the model equal the observed ones
(less the ridge's pull): the model reproduces the observed settings' row statistics.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from solver.engine.compiled import CompiledRules
from solver.strategy.field_model.field import FieldTables, field_tables, field_values

__all__ = [
    "HOLD_OUT",
    "RAMPS",
    "RIDGE",
    "RIDGES",
    "Fit",
    "Learned",
    "Problem",
    "agreement",
    "choose_ridge",
    "fit",
    "learn",
    "model_tables",
    "problem",
    "save_model",
    "util_table",
]

#: Pieces of each row's utility (equal steps of its place, ``midranks``).
RAMPS = 8
#: The ridge penalty on beta x each piece (per unit squared): the default, and the
#: ones ``choose_ridge`` tries (strongest first).
RIDGE = 1e-4
RIDGES = (1.0, 1e-2, 1e-4)
_ITER = 60
#: The least beta (the field value's weight): the utility is at most pieces / BETA_MIN.
BETA_MIN = 1e-3


def midranks(field: FieldTables) -> np.ndarray:
    """float64[3, nkey]: each row key's place in [0, 1], the mean of its midrank among
    the field's rows of its position and its rank among all keys (``key / nkey``, so that
    keys the field's rows never hold are still ordered; nkey: the deck's row keys)."""
    nkey = field.fx.shape[1]
    return 0.5 * (field.fx[..., 0] + 0.5 * field.fx[..., 1]) + 0.5 * np.arange(nkey) / nkey


def _ramps(m: np.ndarray) -> np.ndarray:
    """float64[..., RAMPS]: the pieces of midranks ``m`` (each clip(RAMPS x m - j, 0, 1))."""
    j = np.arange(RAMPS)
    return np.clip(RAMPS * m[..., None] - j, 0.0, 1.0)


@dataclass
class Problem:
    """The candidate settings of observed hands, concatenated: ``x`` float64[M, 1 + 3 x
    RAMPS] (the field value, then each row's pieces), ``start`` int64[n + 1] each hand's
    first candidate, ``seen`` int64[n] the index of the setting played, ``keys``
    int64[M, 3]."""

    x: np.ndarray
    start: np.ndarray
    seen: np.ndarray
    keys: np.ndarray

    @property
    def hands(self) -> int:
        return len(self.seen)


def problem(
    hands: np.ndarray, keys: np.ndarray, roy: np.ndarray, cr: CompiledRules, field: FieldTables
) -> Problem:
    """The fitting problem of sorted hands uint8[n, 13] and the settings seen (their row
    keys int64[n, 3] and royalties float64[n, 4], legal)."""
    from solver.strategy.hands.splits import candidates

    ck, cr_, ch, start, seen = [], [], [], [0], []
    for i in range(len(hands)):
        c = candidates(hands[i], cr)
        hit = np.flatnonzero((c.keys == keys[i]).all(axis=1))
        k, r = c.keys, c.roy
        if len(hit) == 0:
            k, r = np.vstack([k, keys[i]]), np.vstack([r, roy[i]])
        seen.append(start[-1] + (int(hit[0]) if len(hit) else len(k) - 1))
        ck.append(k)
        cr_.append(r)
        ch.append(np.broadcast_to(hands[i], (len(k), 13)))
        start.append(start[-1] + len(k))
    allk = np.vstack(ck) if ck else np.empty((0, 3), np.int64)
    allr = np.vstack(cr_) if cr_ else np.empty((0, 4))
    allh = np.ascontiguousarray(np.vstack(ch)) if ch else np.empty((0, 13), np.uint8)
    vals, _ = field_values(allk, allr, allh, cr, field)
    mid = midranks(field)
    x = np.empty((len(allk), 1 + 3 * RAMPS))
    x[:, 0] = vals
    for r in range(3):
        x[:, 1 + r * RAMPS : 1 + (r + 1) * RAMPS] = _ramps(mid[r, allk[:, r]])
    return Problem(x, np.array(start, np.int64), np.array(seen, np.int64), allk)


def _loglik(p: Problem, w: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    """The log-likelihood of the settings seen under weights ``w`` (beta, beta x pieces),
    its gradient and Hessian."""
    s = p.x @ w
    starts = p.start[:-1]
    sizes = np.diff(p.start)
    top = np.maximum.reduceat(s, starts)
    e = np.exp(s - np.repeat(top, sizes))
    z = np.add.reduceat(e, starts)
    prob = e / np.repeat(z, sizes)
    ll = float((s[p.seen] - top - np.log(z)).sum())
    mean = np.add.reduceat(prob[:, None] * p.x, starts)  # [n, d]
    grad = p.x[p.seen].sum(axis=0) - mean.sum(axis=0)
    hess = -(p.x.T @ (prob[:, None] * p.x)) + mean.T @ mean
    return ll, grad, hess


def _objective(p: Problem, w: np.ndarray, ridge: float) -> tuple[float, np.ndarray, np.ndarray]:
    ll, g, h = _loglik(p, w)
    pen = np.full(len(w), ridge)
    pen[0] = 0.0
    return ll - 0.5 * float((pen * w * w).sum()), g - pen * w, h - np.diag(pen)


def fit(
    p: Problem, ridge: float = RIDGE, pieces: bool = True, start: np.ndarray | None = None
) -> np.ndarray:
    """The weights (beta, beta x pieces) maximising the penalised log-likelihood, beta
    at least ``BETA_MIN`` and the pieces at least 0; ``pieces`` False fits beta alone
    (the field's own temperature); ``start``: weights to start from."""
    d = p.x.shape[1] if pieces else 1
    q = Problem(p.x[:, :d], p.start, p.seen, p.keys)
    w = np.zeros(d)
    w[0] = 1.0
    if start is not None:
        w = np.maximum(np.asarray(start, np.float64)[:d], 0.0)
        w[0] = max(w[0], BETA_MIN)
    floor = np.zeros(d)
    floor[0] = BETA_MIN
    cur, g, h = _objective(q, w, ridge)
    for _ in range(_ITER):
        free = (w > floor) | (g > 0)
        step = np.zeros(d)
        hf = h[np.ix_(free, free)] - 1e-9 * np.eye(int(free.sum()))
        step[free] = np.linalg.solve(hf, -g[free])
        t = 1.0
        while t > 1e-6:
            nw = np.maximum(w + t * step, floor)
            val, ng, nh = _objective(q, nw, ridge)
            if val >= cur - 1e-12:
                break
            t *= 0.5
        else:
            break
        moved = float(np.abs(nw - w).max())
        w, cur, g, h = nw, val, ng, nh
        if moved < 1e-7:
            break
    out = np.zeros(p.x.shape[1])
    out[:d] = w
    return out


def _subset(p: Problem, hands: np.ndarray) -> Problem:
    """The problem of some of its hands (indices, in order)."""
    rows = np.concatenate([np.arange(p.start[i], p.start[i + 1]) for i in hands])
    sizes = np.diff(p.start)[hands]
    start = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    seen = start[:-1] + (p.seen[hands] - p.start[hands])
    return Problem(p.x[rows], start, seen, p.keys[rows])


def choose_ridge(p: Problem) -> tuple[float, np.ndarray]:
    """The ridge of ``RIDGES`` whose fit on four fifths of the hands gives the fifth left
    out (every fifth hand) the highest likelihood, and the weights fitted with it on
    every hand (each fit starts from the previous one's weights)."""
    n = p.hands
    inner = np.arange(n) % 5 == 4
    if inner.sum() < 2 or (~inner).sum() < 2:
        return RIDGES[0], fit(p, RIDGES[0])
    fit_on, judge = _subset(p, np.flatnonzero(~inner)), _subset(p, np.flatnonzero(inner))
    w: np.ndarray | None = None
    tried = []
    for ridge in RIDGES:
        w = fit(fit_on, ridge, start=w)
        tried.append((_loglik(judge, w)[0], ridge, w))
    _, ridge, w_best = max(tried, key=lambda t: t[0])
    return ridge, fit(p, ridge, start=w_best)


def util_table(w: np.ndarray, field: FieldTables) -> np.ndarray:
    """float64[3, nkey]: each row key's utility (units) under weights ``w``."""
    beta = max(float(w[0]), 1e-12)
    mid = midranks(field)
    out = np.empty(mid.shape)
    for r in range(3):
        out[r] = _ramps(mid[r]) @ (w[1 + r * RAMPS : 1 + (r + 1) * RAMPS] / beta)
    return out


def model_tables(
    field: FieldTables, util: np.ndarray, cr: CompiledRules, meta: dict[str, Any]
) -> FieldTables:
    """A learned model's tables: the field's, with the row utility beside them."""
    return field_tables(field.dist, cr, field.rank, field.suit, field.cop, meta=meta, util=util,
                        jdist=field.jdist if len(field.jdist) else None)  # fmt: skip


@dataclass
class Fit:
    """How well a model predicts settings: the share of hands set as seen (``agree``,
    by the real setter) and the log-likelihood per hand (``loglik``), beside the field's."""

    hands: int
    agree: float
    agree_field: float
    loglik: float
    loglik_field: float

    def to_dict(self) -> dict[str, Any]:
        return {
            "hands": self.hands,
            "agree": round(self.agree, 4),
            "agree_field": round(self.agree_field, 4),
            "loglik": round(self.loglik, 4),
            "loglik_field": round(self.loglik_field, 4),
        }


def loglik_per_hand(p: Problem, w: np.ndarray) -> float:
    """The mean log-likelihood of the settings seen (the softmax above)."""
    return _loglik(p, w)[0] / max(1, p.hands) if p.hands else math.nan


def agreement(hands: np.ndarray, keys: np.ndarray, cr: CompiledRules, tables: FieldTables) -> float:
    """The share of hands the field strategy with ``tables`` sets with the row keys seen."""
    from solver.strategy.field_model.policy import set_sorted_hands

    if len(hands) == 0:
        return math.nan
    _, got, _, _ = set_sorted_hands(hands, cr, "field", tables)
    return float((got == keys).all(axis=1).mean())


# --------------------------------------------------------------------------- learning


@dataclass
class Learned:
    """A model learned from seen settings: its tables, the row utility, its weights and
    how well it predicts the held-out settings (``fit``)."""

    tables: FieldTables
    util: np.ndarray
    weights: np.ndarray
    weights_field: np.ndarray
    fit: Fit
    fit_hands: int

    @property
    def temperature(self) -> float:
        return 1.0 / float(self.weights[0])

    @property
    def temperature_field(self) -> float:
        return 1.0 / float(self.weights_field[0])


#: One setting in HOLD_OUT is held out (the 5th, 10th, ...) to measure the model.
HOLD_OUT = 5
#: The fewest settings a model is learned from.
MIN_SETTINGS = 2 * HOLD_OUT


def learn(
    hands: np.ndarray,
    keys: np.ndarray,
    roy: np.ndarray,
    cr: CompiledRules,
    field: FieldTables,
    meta: dict[str, Any],
) -> Learned:
    """Learn a model from sorted hands uint8[n, 13] and the legal settings seen (row keys
    int64[n, 3], royalties float64[n, 4]): fitted on all but every ``HOLD_OUT``-th
    setting, measured on those (agreement by the real setter, log-likelihood by the
    softmax), beside the field's own (its temperature fitted on the same settings).
    ``meta`` is stored with the tables, the fit added."""
    n = len(hands)
    held = np.arange(n) % HOLD_OUT == HOLD_OUT - 1
    train, test = ~held, held
    p = problem(hands[train], keys[train], roy[train], cr, field)
    ridge, w = choose_ridge(p)
    w_field = fit(p, pieces=False)
    util = util_table(w, field)
    q = problem(hands[test], keys[test], roy[test], cr, field)
    probe = model_tables(field, util, cr, {})
    measured = Fit(
        hands=int(test.sum()),
        agree=agreement(hands[test], keys[test], cr, probe),
        agree_field=agreement(hands[test], keys[test], cr, field),
        loglik=loglik_per_hand(q, w),
        loglik_field=loglik_per_hand(q, w_field),
    )
    full = {
        **meta,
        "samples": int(train.sum()),
        "held_out": measured.hands,
        "temperature": round(1.0 / float(w[0]), 6),
        "temperature_field": round(1.0 / float(w_field[0]), 6),
        "fit": measured.to_dict(),
        "ramps": RAMPS,
        "ridge": ridge,
    }
    return Learned(
        model_tables(field, util, cr, full), util, w, w_field, measured, int(train.sum())
    )


def save_model(path: Any, learned: Learned, field: FieldTables) -> None:
    """Write a learned model (the field's arrays, the utility, the metadata; float32,
    compressed), whole or not at all (``save_field``)."""
    from pathlib import Path

    from solver.strategy.field_model.field import save_field

    # pairwise, as a learned model values (its file keeps no scoop moments)
    pairwise = field._replace(scoop=np.zeros(0))
    save_field(pairwise, Path(path), extra={"util": learned.util}, meta=learned.tables.meta)
