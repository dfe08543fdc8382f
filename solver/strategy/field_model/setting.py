"""Setting hands with a policy, the public way: ``set_hands`` and ``set_hand`` check their
cards, compile the ruleset once and set the hands with ``field`` (the trained tables,
found by ``ensure_field``), ``greedy`` or the ``safe`` style."""

from __future__ import annotations

import numpy as np

from evaluator import as_cards, parse_hand
from solver.engine.compiled import compile_rules
from solver.engine.errors import InputError
from solver.engine.rules import Rules, load_rules
from solver.strategy.field_model.policy import set_sorted_hands, settings_of
from solver.strategy.field_model.train import ensure_field

__all__ = ["set_hand", "set_hands"]


def set_hands(hands, rules: Rules | str | None = None, policy: str = "field") -> np.ndarray:
    """Set many hands: uint8[n, 13] -> uint8[n, 13] laid out front(3) + middle(5) + back(5).
    A public entry point: ``rules`` (a ``Rules``, a preset's name or a file) is compiled
    here, once."""
    cr = compile_rules(load_rules(rules))
    arr = np.asarray(hands)
    if arr.ndim != 2 or arr.shape[1] != 13:
        raise InputError(f"hands must have shape (n, 13), got {arr.shape}")
    checked = np.stack([as_cards(row, 13) for row in arr]) if len(arr) else arr.astype(np.uint8)
    srt = np.sort(checked.astype(np.uint8), axis=1)
    field = ensure_field(cr) if policy != "greedy" else None
    split, _, _, _ = set_sorted_hands(srt, cr, policy, field)
    return settings_of(srt, split)


def set_hand(hand, rules: Rules | str | None = None, policy: str = "field"):
    """Set one hand: (front, middle, back) uint8 arrays."""
    row = set_hands(parse_hand(hand).reshape(1, 13), rules, policy)[0]
    return row[:3], row[3:8], row[8:]
