"""What the duel's parts share: a strategy, the error, the mark of no answer, the
program's time limit."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from solver.engine.compiled import CompiledRules
from solver.engine.errors import InputError
from solver.engine.layout import MAX_TIMEOUT

__all__ = ["BAD", "DuelError", "SetHands", "Strategy", "check_timeout"]

#: A card id no hand holds: a strategy row full of it means "no valid answer".
BAD = 255


class DuelError(InputError):
    """A duel that cannot be run (bad strategy name or option, program that cannot start)."""


SetHands = Callable[[np.ndarray, CompiledRules, int], np.ndarray]


@dataclass
class Strategy:
    """A named hand-setting strategy: ``set_hands(hands, cr, seed) -> settings`` (``cr``
    the compiled ruleset).

    ``chunk``: hands per call (progress is reported between calls); 0 = all at once.
    ``notes`` collects what went wrong with an external program's answers.
    """

    name: str
    set_hands: SetHands
    chunk: int = 0
    notes: list[str] = field(default_factory=list)


def check_timeout(timeout: float | None) -> float | None:
    """``timeout`` as a float of seconds, finite, above 0 and at most ``MAX_TIMEOUT``."""
    if timeout is None:
        return None
    try:
        t = float(timeout)
    except (TypeError, ValueError):
        raise DuelError(f"timeout must be a number of seconds, got {timeout!r}") from None
    if not (math.isfinite(t) and 0 < t <= MAX_TIMEOUT):
        raise DuelError(
            f"timeout must be more than 0 and at most {MAX_TIMEOUT:,.0f} seconds, got {timeout!r}"
        )
    return t
