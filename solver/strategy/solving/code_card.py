"""The code card (马牌) in a setting's value (docs/rules.md#the-code-card).

A pair settlement in which one player holds the ruleset's code card is multiplied by
``code_card_multiplier``; one in which both hold a copy by it once, or not at all under
``code_card_both = "neither"``. The factor depends only on the two players' cards, so it
is applied here, outside the settlement kernels, to what the scorers found
(``with_code_card``); without a code card nothing here runs and the scorers' numbers are
returned as they are.

- The hand holds it: every pair is multiplied, so every value (each setting's, each
  opponent's, declaring, surrendering, each part) is the multiplier times the value
  without it; the setting chosen does not change. Under ``code_card_both = "neither"``
  a seat that holds the other copy is not multiplied: that seat weighs less.
- An opponent holds it (``--against``, or a Monte Carlo seat dealt it: the seats that
  hold it weigh more, deal by deal): the pairs with that seat are multiplied. The values
  are those without the code card plus, for each seat, the multiplier minus 1 times the
  seat's units on the deals where it holds the card (the whole-table kernel with that
  seat's weight alone, the home run included).
- The field model knows no opponent's cards: it ignores the opponents' code card, and
  multiplies the values of a hand that holds it
  (docs/rules.md#the-field-and-the-code-card).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from solver.engine.code_card import code_card_of
from solver.engine.compiled import CompiledRules
from solver.engine.layout import P_HR_MIN, P_HR_MULT
from solver.engine.table_shape import MASK_DTYPE

__all__ = ["holds_in_masks", "pair_factors", "with_code_card"]


def holds_in_masks(masks: np.ndarray, cr: CompiledRules) -> np.ndarray | None:
    """Which hands of ``masks`` (uint64 card masks, bit c for card c) hold the code
    card: bool[...], or None when the ruleset has none."""
    card = code_card_of(cr)
    if card < 0:
        return None
    one = np.dtype(MASK_DTYPE).type
    return ((np.asarray(masks, MASK_DTYPE) >> one(card)) & one(1)).astype(np.bool_)


def pair_factors(cr: CompiledRules, hand: np.ndarray, hold: np.ndarray | None, deals: int,
                 n_opp: int) -> np.ndarray | None:  # fmt: skip
    """float64[deals, n_opp]: what each pair of the hand with seat o of deal d is
    multiplied by; None when every pair is worth 1 times itself. ``hold``: bool[deals *
    n_opp] the opponents who hold the code card (None: not known, counted as not)."""
    card = code_card_of(cr)
    if card < 0:
        return None
    m, both = cr.rules.code_factor, cr.rules.code_factor_both
    if card in np.asarray(hand).tolist():
        if hold is None or both == m:
            return np.full((deals, n_opp), m)
        # a seat holding the other copy: the pair is multiplied by ``both``
        return np.where(np.asarray(hold).reshape(deals, n_opp), both, m)
    if hold is None or not hold.any():
        return None
    return np.where(np.asarray(hold).reshape(deals, n_opp), m, 1.0)


def _deals_of(opp, idx: np.ndarray):  # Opponents -> Opponents of deals idx
    n = opp.n_opp
    rows = (idx[:, None] * n + np.arange(n)).ravel()
    return type(opp)(n, opp.keys[rows], opp.roy[rows], opp.nat[rows], opp.nat_key[rows],
                     opp.foul[rows])  # fmt: skip


def _values(cands, rows: slice, cr: CompiledRules, opp, w: np.ndarray) -> np.ndarray:
    """float64[nc, deals]: the whole-table kernel's values of candidates ``rows``."""
    from solver.strategy import _kernels as k

    ra = cr.arrays
    out = np.zeros((len(cands.keys[rows]), opp.deals))
    k._mc_values(cands.keys[rows], cands.roy[rows], cands.fouls[rows], opp.keys, opp.roy,
                 opp.foul, opp.nat, opp.nat_key, np.ascontiguousarray(w, np.float64),
                 ra.params, ra.nat_units, 0, opp.deals, out)  # fmt: skip
    return out


def _extra(cands, cr, opp, f: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """float64[nc, deals]: what the factors add to the candidates' weighted sums."""
    extra = np.zeros((len(cands), opp.deals))
    for o in range(opp.n_opp):
        at = np.flatnonzero(f[:, o] != 1.0)
        if len(at):
            w = np.zeros(opp.n_opp)
            w[o] = weights[o]
            for m in np.unique(f[at, o]):  # one multiplier in practice
                sub = at[f[at, o] == m]
                extra[:, sub] += (m - 1.0) * _values(cands, slice(None), cr,
                                                     _deals_of(opp, sub), w)  # fmt: skip
    return extra


def _seat_values(cands, i: int, cr, opp) -> np.ndarray:
    """float64[deals, n_opp]: candidate i's units from each seat, deal by deal."""
    eye = np.eye(opp.n_opp)
    return np.stack([_values(cands, slice(i, i + 1), cr, opp, eye[o])[0]
                     for o in range(opp.n_opp)], axis=1)  # fmt: skip


def _seat_parts(cands, i: int, cr, opp, f: np.ndarray) -> np.ndarray:
    """Candidate i's parts (``scoring.PARTS``) per opponent, each seat's deal by deal
    times its factor; the home run's extra of a seat (its whole-table units minus its
    pairwise ones) is bonus."""
    from solver.strategy import _kernels as k

    ra, n, deals = cr.arrays, opp.n_opp, opp.deals
    one = slice(i, i + 1)
    whole = _seat_values(cands, i, cr, opp)
    total = np.zeros(4)
    for o in range(n):
        rows = np.arange(deals) * n + o
        out = np.empty((1, deals, 4))
        k._mc_parts(cands.keys[one], cands.roy[one], cands.fouls[one], opp.keys[rows],
                    opp.roy[rows], opp.foul[rows], opp.nat[rows], opp.nat_key[rows],
                    ra.params, ra.nat_units, out)  # fmt: skip
        parts = out[0]
        if ra.params[P_HR_MULT] != 1.0 and n >= ra.params[P_HR_MIN]:
            parts[:, 1] += whole[:, o] - parts.sum(axis=1)
        total += (parts * f[:, o : o + 1]).sum(axis=0)
    return total / (deals * n)


def with_code_card(cands, cr: CompiledRules, opp, stakes: np.ndarray | None, scores):
    """``scores`` (scoring.Scores of ``cands`` against ``opp``, an ``Opponents`` with its
    ``hold``; None for the field model) with the code card's factors applied."""
    from solver.strategy import _kernels as k

    if cr.rules.code_card is None:
        return scores
    deals, n_opp = (1, 1) if opp is None else (opp.deals, opp.n_opp)
    f = pair_factors(cr, cands.hand, None if opp is None else opp.hold, deals, n_opp)
    if f is None:
        return scores
    if opp is None or (f == f[0, 0]).all():  # the hand holds it: everything scales
        return _scaled(scores, float(f[0, 0]), n_opp)
    weights = np.ones(n_opp) if stakes is None else stakes
    extra = _extra(cands, cr, opp, f, weights)
    if stakes is None:
        extra /= n_opp
    if scores.per_unit is not None:
        per_unit = scores.per_unit + extra
        value = per_unit.mean(axis=1)
    else:  # exact: one deal
        per_unit, value = None, scores.value + extra[:, 0]

    def naturals(nat) -> np.ndarray:
        dv = np.empty(len(opp.nat))
        ra = cr.arrays
        k._natural_values(nat[0], nat[1], opp.nat, opp.nat_key, opp.foul, ra.nat_units, dv,
                          ra.params)  # fmt: skip
        return dv.reshape(deals, n_opp) * f

    def per_deal(nat) -> np.ndarray:
        by_seat = naturals(nat)
        return by_seat.mean(axis=1) if stakes is None else by_seat @ stakes

    return dataclasses.replace(
        scores,
        value=value,
        per_unit=per_unit,
        by_opponent=lambda i: (_seat_values(cands, i, cr, opp) * f).mean(axis=0),
        declare=lambda nat: float(naturals(nat).mean()),
        declare_by_opponent=lambda nat: naturals(nat).mean(axis=0),
        declare_per_deal=per_deal if scores.declare_per_deal is not None else None,
        parts=lambda i: _seat_parts(cands, i, cr, opp, f),
        pair_factor=f,
    )


def _scaled(scores, m: float, n_opp: int):
    """Every value of ``scores`` times ``m`` (the hand holds the code card)."""

    def times(fn):
        return None if fn is None else (lambda *a: m * fn(*a))

    return dataclasses.replace(
        scores,
        value=m * scores.value,
        per_unit=None if scores.per_unit is None else m * scores.per_unit,
        by_opponent=times(scores.by_opponent),
        declare=times(scores.declare),
        declare_by_opponent=times(scores.declare_by_opponent),
        declare_per_deal=times(scores.declare_per_deal),
        parts=times(scores.parts),
        pair_factor=np.full((1, n_opp), m),
    )
