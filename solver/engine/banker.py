"""The banker's table (坐庄; the 水庄 room, docs/rules.md#the-bankers-table): its keys'
checks, and the multiples its players bet. Standard library only (``rules`` imports it).

``banker``: one seat is the banker and every other player settles with the banker
only, never with another player; ``scoop_bonus``: units a scoop adds to the pair's
result (水庄: 1, with ``scoop_multiplier = 1``); ``pair_cap``: the most a pair's
rows, scoop and naturals settle for either way (水庄: 8). Each player's result with
the banker is then multiplied by the multiple that player bet (``check_multiples``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from solver.engine.errors import InputError, RulesError
from solver.engine.rule_values import check_number, show

__all__ = ["check_banker", "check_multiples", "check_pair_cap"]


def check_pair_cap(value: Any) -> int | float | None:
    """``pair_cap``: false / "none" (no cap) or a number of units above 0."""
    if value is None or value is False:
        return None
    if isinstance(value, str) and value.strip().lower() in ("none", "off", "false"):
        return None
    need = 'a number of units > 0, or false (or "none") for no cap'
    cap = check_number(value, "pair_cap", what=need, units=True)
    if cap == 0:
        raise RulesError(f"pair_cap must be {need}, got 0")
    return cap


def check_banker(banker: bool, home_run: bool, cap: float | None, foul_nat: bool) -> None:
    """The keys a banker's table or a cap cannot go with (one line naming both)."""
    if banker and home_run:
        raise RulesError(
            "banker = true cannot go with a home run (home_run_multiplier above 1): "
            "each player settles with the banker alone; set home_run_multiplier = 1"
        )
    if cap is not None and foul_nat:
        raise RulesError(
            "pair_cap cannot go with foul_pays_naturals = true "
            "(a capped natural and a flat penalty on top have no one order)"
        )


def check_multiples(multiples: Any, players: int, banker: int | None) -> list[float]:
    """The multiples bet at a banker's table: one number above 0 a seat, in seat order
    (the banker's, who bets none, is not used). InputError, one line, otherwise."""
    if banker is None:
        raise InputError(
            "multiples are bet at a banker's table only (a ruleset with banker = true)"
        )
    if isinstance(multiples, str | bytes) or not isinstance(multiples, Sequence):
        raise InputError(
            f"multiples must be a list of numbers, one a player, got {show(multiples)}"
        )
    if len(multiples) != players:
        raise InputError(f"multiples: {len(multiples)} given for {players} players (one a player)")
    out = []
    for i, m in enumerate(multiples):
        try:
            x = check_number(m, f"multiple of player {i + 1}", what="a number > 0", units=True)
        except RulesError as exc:
            raise InputError(str(exc)) from None
        if x == 0:
            raise InputError(f"multiple of player {i + 1} must be a number > 0, got 0")
        out.append(float(x))
    return out
