"""Known opponents (``capsa solve --against``): their settings read and summarised."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from evaluator import CardParseError, format_cards
from solver.engine.code_card import holds_code_card
from solver.engine.compiled import CompiledRules
from solver.engine.setting_cards import check_copies
from solver.engine.settlement import parse_setting, summarize

__all__ = ["parse_against"]


def parse_against(
    against: Sequence, hand: np.ndarray, cr: CompiledRules
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Opponent settings (each (front, middle, back) or ``"front | middle | back"``) as
    summaries: keys int64[m, 3], royalties float64[m, 4], fouls bool[m], and which hold
    the code card, bool[m]. Raises CardParseError naming the opponent for a bad setting
    or a card already dealt."""
    keys, roys, fouls, hold = [], [], [], []
    extra = cr.rules.deck_code
    used = set(hand.tolist())
    dealt = hand.tolist()  # with copies: every face at the table, as often as dealt
    for i, setting in enumerate(against, start=1):
        # CardParseError naming the opponent
        flat = parse_setting(setting, f"opponent {i}", extra)
        kk, rr, ff = summarize(flat, cr)
        cards = flat.tolist()
        if extra:  # a card no more often at the table than the deck holds it
            dealt += cards
            check_copies(dealt, extra, f"opponent {i}")
        clash = set() if extra else used.intersection(cards)
        if clash:
            raise CardParseError(
                f"opponent {i}: card {format_cards([min(clash)])!r} is already dealt"
            )
        used.update(cards)
        keys.append(kk)
        roys.append(rr)
        fouls.append(ff)
        hold.append(bool(holds_code_card(flat, cr)))
    return (
        np.array(keys, np.int64).reshape(-1, 3),
        np.array(roys).reshape(-1, 4),
        np.array(fouls, np.bool_),
        np.array(hold, np.bool_),
    )
