"""The options every front end shares: the policies and the documented limits.

Standard library only, so that ``capsa --help`` and ``import solver`` stay light;
``solver.engine.layout`` re-exports all of it beside the kernels' layout constants.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field, fields, replace
from enum import StrEnum
from typing import Any


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


TOP_BY: tuple[str, ...] = tuple(t.value for t in TopBy)

#: The seats of a banker's table (docs/rules.md#the-bankers-table): the banker settles
#: with every player, a player with the banker alone.
SEATS: tuple[str, ...] = ("player", "banker")

#: Opponent hands a Monte Carlo solve deals when none is said (``--samples``).
DEFAULT_SAMPLES = 3000
#: Runners-up an answer shows when none is said (``--top``).
DEFAULT_TOP = 3


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
#: Hands in an opponent pool (solver.strategy.opposition.pool): the default (about 25,600 of them
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


# --------------------------------------------------------------------------- the request


@dataclass(frozen=True)
class SolveOptions:
    """Everything a solve is asked besides the hand and the ruleset: the one request
    type that ``solver.solve``, ``capsa solve``, the web API, batch, strength and duel
    build (``solve``'s docstring says what each field means).

    ``check()`` is the one check of the fields that need neither the hand nor the
    ruleset (the documented limits above: ``MAX_SAMPLES``, the table's player bounds);
    what needs them (``against`` and ``played`` against the hand's cards, the count of
    ``stakes`` and of ``opponents`` against the table) ``solve`` checks with the hand.
    ``pool``: True, False, a pool file (a path), or an opened pool (an object with an
    ``ident``, as ``solver.strategy.opposition.pool.OpponentPool``); ``opponents``: a model spec,
    a model, or one per opponent.
    """

    players: int | None = None
    samples: int | None = None
    seed: int | None = None
    top: int = DEFAULT_TOP
    policy: str = Policy.mc.value
    against: Sequence[Any] | None = None
    stakes: Sequence[float] | None = None
    played: Sequence[Any] | str | None = None
    top_by: str = TopBy.shape.value
    opponents: Any = None
    pool: Any = True
    #: At a banker's table: "player" (the default; one opponent, the banker) or "banker".
    seat: str | None = None
    #: Set by ``check()`` on the instance it returns (``dataclasses.replace`` makes an
    #: unchecked one); not a field of the request.
    checked: bool = field(default=False, init=False, repr=False, compare=False)

    @property
    def mc(self) -> bool:
        """Whether the answer samples: Monte Carlo, without given opponents."""
        return self.policy == Policy.mc and self.against is None

    @property
    def mc_samples(self) -> int | None:
        """Opponent hands dealt (mc: ``samples`` or ``DEFAULT_SAMPLES``; else None)."""
        return (self.samples or DEFAULT_SAMPLES) if self.mc else None

    def check(self) -> SolveOptions:
        """These options with each field checked (an ``InputError`` of one line naming
        the first bad field) and whole numbers made ``int``; checked options are taken
        as they are."""
        if self.checked:
            return self
        out = replace(self, **{f: _CHECKS[f](getattr(self, f)) for f in _FIELDS})
        object.__setattr__(out, "checked", True)
        return out

    def evolve(self, **changes: Any) -> SolveOptions:
        """These options with ``changes``: checked options stay checked, the changed
        fields checked (batch checks a run's options once, then changes the seed and the
        played setting line by line)."""
        out = replace(self, **changes)
        if self.checked:
            for name, value in changes.items():
                object.__setattr__(out, name, _CHECKS[name](value))
            object.__setattr__(out, "checked", True)
        return out

    def to_kwargs(self) -> dict[str, Any]:
        """The fields as ``solve``'s keyword arguments."""
        return {f: getattr(self, f) for f in _FIELDS}


def _choice(name: str, choices: tuple[str, ...]) -> Any:
    def check(value: Any) -> Any:
        if value not in choices:
            from solver.engine.inputs import quote

            raise _bad(f"{name} must be one of {', '.join(choices)}, got {quote(value)}")
        return str(value)

    return check


def _count(name: str, low: int, high: int | None = None, *, optional: bool = True) -> Any:
    def check(value: Any) -> Any:
        from solver.engine.inputs import whole

        if value is None and optional:
            return None
        return whole(value, name, low, high)

    return check


def _bad(message: str) -> Exception:
    from solver.engine.errors import InputError

    return InputError(message)


def _players(value: Any) -> int | None:
    from solver.engine.table_shape import MIN_PLAYERS, TABLE_MAX_PLAYERS

    # up to the biggest deck's players; the ruleset's deck decides (engine.seating)
    return _count("players", MIN_PLAYERS, TABLE_MAX_PLAYERS)(value)  # type: ignore[no-any-return]


def _stakes(value: Any) -> Any:
    """A list of numbers (their count and bounds are the table's: ``solve`` checks them)."""
    if value is not None and (isinstance(value, str | bytes) or not hasattr(value, "__len__")):
        from solver.engine.inputs import quote

        raise _bad(f"stakes must be a list of numbers, one per opponent, got {quote(value)}")
    return value


def _against(value: Any) -> Any:
    if value is not None and (isinstance(value, str | bytes) or not hasattr(value, "__len__")):
        from solver.engine.inputs import quote

        raise _bad(
            "against must be a list of opponent settings 'front | middle | back', "
            f"got {quote(value)}"
        )
    return value


def _played(value: Any) -> Any:
    if value is not None and not isinstance(value, str) and not hasattr(value, "__len__"):
        from solver.engine.inputs import quote

        raise _bad(
            f"played must be 'front | middle | back', declare or surrender, got {quote(value)}"
        )
    return value


def _pool(value: Any) -> Any:
    if not isinstance(value, bool | str | os.PathLike) and not hasattr(value, "ident"):
        from solver.engine.inputs import quote

        raise _bad(f"pool must be true, false or a pool file, got {quote(value)}")
    return value


def _opponents(value: Any) -> Any:
    if value is not None and isinstance(value, bool | int | float | bytes):
        from solver.engine.inputs import quote

        raise _bad(f"opponents must be a model name, a model file or one per opponent, got "
                   f"{quote(value)}")  # fmt: skip
    return value


_CHECKS: dict[str, Any] = {
    "players": _players,
    "policy": _choice("policy", POLICIES),
    "samples": _count("samples", 1, MAX_SAMPLES),
    "seed": _count("seed", 0),
    "against": _against,
    "top": _count("top", 0, optional=False),
    "top_by": _choice("top_by", TOP_BY),
    "stakes": _stakes,
    "played": _played,
    "pool": _pool,
    "opponents": _opponents,
    "seat": lambda v: None if v is None else _choice("seat", SEATS)(v),
}
_FIELDS: tuple[str, ...] = tuple(f.name for f in fields(SolveOptions) if f.name != "checked")
assert set(_CHECKS) == set(_FIELDS)  # every field has its check
