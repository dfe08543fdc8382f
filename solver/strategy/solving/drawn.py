"""Opponents drawn from the opponent pool (solver.strategy.opposition.pool) instead of
dealt and set: ``pool_opponents`` seats pool hands pair by pair; whole tables, which the
home run needs, are ``solver.strategy.solving.home_run.pool_tables``."""

from __future__ import annotations

import numpy as np

from solver.engine.compiled import CompiledRules
from solver.strategy.opposition.pool import OpponentPool
from solver.strategy.solving.code_card import holds_in_masks
from solver.strategy.solving.scoring import Opponents

__all__ = ["pool_opponents"]


def pool_opponents(
    pool: OpponentPool,
    hand: np.ndarray,
    n_opp: int,
    deals: int,
    seed: int | None,
    cr: CompiledRules | None = None,
) -> Opponents | None:
    """``deals`` x ``n_opp`` opponents drawn from the pool: hands that share no card with
    ``hand`` (``OpponentPool.pick``), seated in the order drawn (deal d, seat o is hand
    ``d * n_opp + o``); None when the pool holds too few of them (deal instead). With
    ``cr``, which of them hold its code card (from their card masks; each pair weighs its
    own factor, as at a dealt table).

    The seats of one deal are independent hands, not disjoint from one another as dealt
    ones are: under pairwise settlement a deal's value is the sum of its seats' and each
    seat is a uniformly random hand of the unseen cards either way, so the expected
    value is the same; the deals are independent of one another, so their spread gives
    the standard error, as for dealt ones (docs/architecture.md, "The opponent pool").
    """
    idx = pool.pick(hand, deals * n_opp, seed)
    if idx is None:
        return None
    keys, roy, nat, nat_key, foul = pool.entries(idx)
    hold = None if cr is None else holds_in_masks(pool.held(idx), cr)
    return Opponents(n_opp, keys, roy, nat, nat_key, foul, hold)
