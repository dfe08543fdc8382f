"""Every layout constant of the solver, in one place.

Kernels and wrappers both read these names; nothing else writes the numbers down. The
kernels read them as compile-time constants, so ``evaluator._jit`` ties the numba cache
to this file's contents (a change here recompiles every kernel). Only the standard
library and ``evaluator.tables`` are imported: ``capsa --help`` imports this module.

See docs/architecture.md for where each array with this layout is built and read.
"""

from __future__ import annotations

from evaluator.tables import NSTRENGTH
from solver.engine.options import (  # noqa: F401 - re-exported: one place to look
    MAX_DEALS,
    MAX_SAMPLES,
    MAX_TIMEOUT,
    MAX_UNITS,
    POLICIES,
    Policy,
)
from solver.engine.rules import ROWS as ROWS  # the rows, in the order of every array

# ----------------------------------------------------------------------- rows and keys

ROW_SIZES: tuple[int, int, int] = (3, 5, 5)
#: Row keys are ``strength' * 4 + suit component`` (see solver.engine.settlement).
NKEY = NSTRENGTH * 4
#: Subsets of a sorted 13-card hand, and the partitions into front + two fives.
NSUB5 = 1287
NSUB3 = 286
NPART = 36036

# ----------------------------------------------------------------------- ruleset params
# ``CompiledRules.params`` (float64[NPARAMS]) carries the scalar settings to the kernels.

P_SCORING = 0  # a SCORING_* code
P_MULT = 1  # scoop multiplier
P_MODE = 2  # a MODE_* code
P_ONE = 3  # one royalty per hand (0/1)
P_ROY = 4  # royalties on (0/1)
P_HR_MULT = 5  # home run multiplier (1: off; docs/rules.md#home-run)
P_HR_MIN = 6  # opponents a home run needs (1..3)
NPARAMS = 8

SCORING_PER_ROW, SCORING_16, SCORING_24 = 0, 1, 2
SCORING_CODES: dict[str, int] = {"per-row": SCORING_PER_ROW, "1-6": SCORING_16, "2-4": SCORING_24}
MODE_WINNER, MODE_CANCEL, MODE_ALWAYS = 0, 1, 2
MODE_CODES: dict[str, int] = {"winner": MODE_WINNER, "cancel": MODE_CANCEL, "always": MODE_ALWAYS}

# ----------------------------------------------------------------------- naturals
# A ruleset's naturals become kernel codes (strongest first, in the ruleset's order).

DRAGON, THREE_STRAIGHTS, SIX_PAIRS, THREE_FLUSHES = 0, 1, 2, 3
NATURAL_CODES: dict[str, int] = {
    "dragon": DRAGON,
    "three_straights": THREE_STRAIGHTS,
    "six_pairs": SIX_PAIRS,
    "three_flushes": THREE_FLUSHES,
}

# ----------------------------------------------------------------------- policies


#: Kernel codes of the policies that set hands without sampling.
POLICY_GREEDY, POLICY_FIELD = 0, 1
