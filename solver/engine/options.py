"""The options every front end shares: the policies and the documented limits.

Standard library only, so that ``capsa --help`` and ``import solver`` stay light;
``solver.engine.layout`` re-exports all of it beside the kernels' layout constants.
"""

from __future__ import annotations

from enum import StrEnum


class Policy(StrEnum):
    """How a hand is set: Monte Carlo best response, the field strategy, or greedy."""

    mc = "mc"
    field = "field"
    greedy = "greedy"


POLICIES: tuple[str, ...] = tuple(p.value for p in Policy)

# Documented upper bounds, checked before any work (README "Limits").

#: Opponent hands a Monte Carlo solve may deal.
MAX_SAMPLES = 1_000_000
#: Deals of a duel, or of a strength measurement.
MAX_DEALS = 1_000_000
#: Units any single payout may be worth (royalty lines, naturals, surrender cost, stakes).
MAX_UNITS = 1_000_000
#: Seconds an external duel program may be given.
MAX_TIMEOUT = 86_400.0
