"""The code card (马牌, docs/rules.md#the-code-card): which card it is, who holds it.

The factor it puts on a pair is applied outside the settlement kernels where a hand's
cards are known (``settlement.settle``), and by ``_settle_table`` from a per-player flag
(``settlement.settle_tables``' ``hold``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from solver.engine.compiled import CompiledRules
from solver.engine.errors import InputError
from solver.engine.rule_values import code_card_id

__all__ = ["code_card_of", "holder_seat", "holds_code_card"]


def code_card_of(cr: CompiledRules) -> int:
    """The code card's id under ``cr`` (docs/rules.md#the-code-card), -1 when it has none."""
    card = cr.rules.code_card
    return -1 if card is None else code_card_id(card)


def holds_code_card(hands: np.ndarray, cr: CompiledRules) -> np.ndarray:
    """Which of ``hands`` (uint8[..., n] card ids) hold the code card: bool[...] (all
    False when the ruleset has none)."""
    card = code_card_of(cr)
    if card < 0:
        return np.zeros(hands.shape[:-1], np.bool_)
    held: np.ndarray = (np.asarray(hands) == card).any(axis=-1)
    return held


def holder_seat(holder: Any, k: int, hold: np.ndarray, shown: np.ndarray) -> int:
    """``settle_table``'s ``holder``, checked: a seat that shows no cards, with the code
    card shown by nobody."""
    if (
        isinstance(holder, bool)
        or not isinstance(holder, int | np.integer)
        or not (0 <= holder < k)
    ):
        raise InputError(f"holder must be a seat from 0 to {k - 1}, got {holder!r}")
    if shown[holder] or hold.any():
        raise InputError(
            f"holder: seat {holder} shows its cards, or the code card is shown; "
            "holder is only for a player who declared a natural or surrendered"
        )
    return int(holder)
