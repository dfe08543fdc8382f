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


class TopBy(StrEnum):
    """How the runners-up are chosen: the best setting of each other shape (another hand
    class in some row, or another back), or the next best by value."""

    shape = "shape"
    value = "value"


# Documented upper bounds, checked before any work (docs/cli.md, "Limits").

#: Opponent hands a Monte Carlo solve may deal.
MAX_SAMPLES = 1_000_000
#: Deals of a duel, or of a strength measurement.
MAX_DEALS = 1_000_000
#: Units any single payout may be worth (royalty lines, naturals, surrender cost, stakes).
MAX_UNITS = 1_000_000
#: The smallest stake (money per unit against an opponent): stakes span at most 12
#: orders of magnitude, far inside float64's 15 digits, and are never subnormal.
MIN_STAKE = 1e-6
#: Seconds an external duel program may be given.
MAX_TIMEOUT = 86_400.0
#: Hands in an opponent pool (solver.strategy.pool): the default (about 25,600 of them
#: share no card with a given hand, C(39,13) / C(52,13) = 1.28%), the fewest, the most.
DEFAULT_POOL_SIZE = 2_000_000
MIN_POOL_SIZE = 1_000
MAX_POOL_SIZE = 50_000_000

# Bounds on what capsa reads (docs/cli.md, "Limits"): beyond them an input is refused in one
# line, before it is parsed.

#: Bytes of a hand or of opponent settings read from stdin or an ``--against`` file.
MAX_TEXT = 1 << 16
#: Bytes of a TOML ruleset (a file, stdin or the web API; a real one is under 1 KiB).
MAX_RULESET_BYTES = 1 << 14
#: Tables and arrays nested in a ruleset (a real one nests 2 deep: royalties.front).
MAX_RULESET_DEPTH = 4
#: Keys and array items in a ruleset, all tables counted (a real one holds about 30).
MAX_RULESET_KEYS = 256
