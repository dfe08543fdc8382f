"""Setting hands without sampling: the `field` strategy, `greedy` and `safe`.

``field`` takes, for every hand, the legal split with the highest field value (exact
branch and bound over the splits, solver.strategy._kernels._field_best); ``greedy`` the
best back, then the best middle of the rest, the front from what is left; ``safe`` (an
opponent style, docs/opponents.md#safe) the split whose weakest row is strongest.
``set_sorted_hands`` sets many sorted hands at once on every core (the public wrappers,
``set_hands`` and ``set_hand``, are in ``solver.strategy.field_model.setting``).
"""

from __future__ import annotations

import numpy as np

from solver.engine.compiled import CompiledRules
from solver.engine.errors import InputError
from solver.engine.layout import POLICY_FIELD, POLICY_GREEDY, POLICY_SAFE, Policy
from solver.strategy.field_model.field import FieldTables, empty_model
from solver.strategy.hands.splits import split_cards, structure
from solver.strategy.threads import Stop, run_ranges

#: The policies that set a hand without sampling (``mc`` is solve()'s alone).
POLICIES: tuple[str, ...] = (Policy.greedy.value, Policy.field.value)
#: Every way ``set_sorted_hands`` sets a hand: the policies and the ``safe`` style.
SETTERS: tuple[str, ...] = (*POLICIES, "safe")
_CODES = {"greedy": POLICY_GREEDY, "field": POLICY_FIELD, "safe": POLICY_SAFE}
#: Hands per chunk of work (a few milliseconds with the field strategy).
_CHUNK = 256


def set_sorted_hands(
    hands: np.ndarray,
    cr: CompiledRules,
    policy: str,
    field: FieldTables | None,
    threads: int | None = None,
    stop: Stop | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Set sorted hands uint8[n, 13]: (split int32[n,3], keys int64[n,3], roy float64[n,3],
    value float64[n]). Split entries index COMB3 / COMB5 / COMB5 of each sorted hand;
    royalties are after one royalty per hand; ``value`` is the field value (0 for greedy
    and safe). ``field``: the field tables (``solver.strategy.field_model.trained.get_field``, or an
    opponent model's) the field policy sets hands with and safe reads its rows' midranks
    from; greedy reads none (None).
    """
    from evaluator._jit import compiling
    from solver.strategy import _kernels as k

    if policy not in SETTERS:
        raise InputError(f"policy must be one of {', '.join(SETTERS)}, got {policy!r}")
    st = structure()
    n = len(hands)
    if policy != "greedy" and field is None and n:
        raise ValueError(f"set_sorted_hands: the {policy} policy needs the field tables")
    model = field.model if policy != "greedy" and field is not None else empty_model()
    split = np.empty((n, 3), np.int32)
    keys = np.empty((n, 3), np.int64)
    roy = np.empty((n, 4), np.float64)
    val = np.empty(n, np.float64)
    code = _CODES[policy]

    def run(lo: int, hi: int) -> None:
        k._set_hands(hands[lo:hi], code, cr.lookup, cr.arrays, st, model,
                     split[lo:hi], keys[lo:hi], roy[lo:hi], val[lo:hi])  # fmt: skip

    with compiling("set-hands", "hand-setting kernels"):
        if n == 0:
            run(0, 0)  # no hand to set: loads the kernel (``load_set_hands``)
        run_ranges(run, n, chunk=max(8, min(_CHUNK, -(-n // 2))), max_threads=threads, stop=stop)
    return split, keys, roy, val


def load_set_hands(cr: CompiledRules, policy: str = "field") -> None:
    """Load (or compile) the kernel ``set_sorted_hands`` runs, setting no hand: a caller
    that starts it on another thread loads it first, since numba loads one kernel at a
    time (``solver.strategy.solving.solve``)."""
    set_sorted_hands(np.empty((0, 13), np.uint8), cr, policy, None)


def settings_of(hands: np.ndarray, split: np.ndarray) -> np.ndarray:
    """Settings uint8[n, 13] (front 3 + middle 5 + back 5) of sorted hands uint8[n, 13]
    from their splits int32[n, 3] (``set_sorted_hands``)."""
    out = np.empty_like(hands)
    for i in range(len(hands)):
        f, m, b = split_cards(hands[i], split[i])
        out[i, :3], out[i, 3:8], out[i, 8:] = f, m, b
    return out
