"""The advice and what the player's choice cost: play the best setting, declare the
natural or surrender (``advise``), and a played setting, a declare or a surrender beside
it (``played_setting``, ``played_action``), for ``solve.assemble``.

Values are units per opponent, or money with stakes (the scale the setting is chosen
by); ``rounded`` writes them to 6 places, never ``-0.0``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from evaluator import format_cards
from solver.engine.compiled import CompiledRules
from solver.engine.errors import InputError
from solver.engine.layout import ROWS
from solver.strategy.hands.splits import Candidates
from solver.strategy.solving.scoring import PARTS, Natural, Scores

__all__ = [
    "PLAYED_WORDS",
    "Advice",
    "Ranked",
    "advise",
    "check_word",
    "played_action",
    "played_setting",
    "played_split",
    "played_word",
    "rounded",
    "value_parts",
    "with_played",
]


def rounded(x: float | None, nd: int = 6) -> float | None:
    return None if x is None else round(float(x), nd) + 0.0  # + 0.0: never -0.0


def value_parts(scores: Scores, i: int) -> dict[str, float] | None:
    """Candidate i's value in its parts (``scoring.PARTS``), units per opponent."""
    if scores.parts is None:
        return None
    return {k: rounded(v) for k, v in zip(PARTS, scores.parts(i).tolist(), strict=True)}


# --------------------------------------------------------------------------- assemble


class Advice(NamedTuple):
    """What to do with the hand: play the best setting, declare, or surrender."""

    action: str
    rows: tuple[str, str, str]  # the setting shown (the natural's, when declaring)
    ev: float  # units per opponent of the action
    by_opponent: np.ndarray  # units from each opponent
    value: float  # the action's value as the setting is chosen (money with stakes)
    natural: dict[str, Any] | None  # the natural held, and whether to declare it


def advise(
    cands: Candidates, scores: Scores, cr: CompiledRules, best: int, natural: Natural | None
) -> Advice:
    """Declare a natural when it is worth more than playing the best setting; then
    surrender when that costs less than the chosen action loses."""
    from solver.engine.settlement import natural_setting

    stakes = scores.stakes
    ev = scores.ev(best)
    action, rows, best_ev = "play", cands.text(best), ev
    by_opponent = scores.by_opponent(best)
    nat_info = None
    if natural is not None:
        ev_declare = scores.declare(natural)
        declare_by = scores.declare_by_opponent(natural)
        if stakes is None:
            declared = ev_declare > ev
        else:
            declared = float(stakes @ declare_by) > float(scores.value[best])
        nat_info = {"name": natural[2], "declared": bool(declared),
                    "ev_declare": rounded(ev_declare), "ev_play": rounded(ev)}  # fmt: skip
        if declared:
            action, best_ev, by_opponent = "declare", ev_declare, declare_by
            shown = natural_setting(cands.hand, cr)
            if shown is not None:
                rows = tuple(format_cards(np.sort(r)[::-1]) for r in shown)  # type: ignore[assignment]
    cost = cr.rules.surrender_cost
    if cost is not None:
        gives = surrender_by_opponent(scores, float(cost), len(by_opponent))
        if stakes is None:
            recommend = best_ev < float(gives.mean())
        else:
            recommend = float(stakes @ by_opponent) < float(stakes @ gives)
        if recommend:
            action, best_ev, by_opponent = "surrender", float(gives.mean()), gives
    value = best_ev if stakes is None else float(stakes @ by_opponent)
    return Advice(action, rows, best_ev, by_opponent, value, nat_info)


def surrender_by_opponent(scores: Scores, cost: float, n_opp: int) -> np.ndarray:
    """What a surrender pays each opponent: the cost, times the code card's factor of the
    pair (docs/rules.md#the-code-card)."""
    if scores.pair_factor is None:
        return np.full(n_opp, -cost)
    return -cost * np.broadcast_to(scores.pair_factor.mean(axis=0), (n_opp,))


def surrender_per_deal(scores: Scores, cost: float) -> np.ndarray:
    """A surrender's value deal by deal, on ``Scores.per_unit``'s scale (Monte Carlo)."""
    deals = scores.per_unit.shape[1]
    stakes = scores.stakes
    f = np.ones((1, 1 if stakes is None else len(stakes))) if scores.pair_factor is None else (
        scores.pair_factor)  # fmt: skip
    f = np.broadcast_to(f, (deals, f.shape[1]))
    return -cost * (f.mean(axis=1) if stakes is None else f @ stakes)


def played_setting(
    cands: Candidates,
    scores: Scores,
    best: int,
    p: int,
    order: np.ndarray,
    best_value: float,
    action: str,
    scale: float | None = None,
) -> dict[str, Any]:
    """What the played setting (candidate p) is worth next to the advice.

    ``loss`` is the advised action's value minus the played setting's (units per
    opponent; money with stakes), ``loss_stderr`` its paired standard error (0 exact,
    None for a model); ``rank`` is 1 + the number of scored settings worth more;
    ``rows`` compares each row with the best setting's. ``scale``: equal stakes (the
    values are units per opponent; money is ``scale`` times them).
    """
    fouled = bool(cands.fouls[p])
    value = float(scores.value[p])
    if action == "play":
        diff, se = scores.diff(best, p)
        loss = diff
    else:  # the advice was to declare or surrender: compare with its value
        loss, se = best_value - value, scores.stderr(p)
    if scale is not None:
        loss, se = scale * loss, None if se is None else scale * se
    rank = 1 + int((scores.value[order] > value).sum())
    rows_played = cands.text(p)
    rows_best = cands.text(best)
    stats_p = scores.row_stats(p) or {}
    stats_b = scores.row_stats(best) or {}
    rows = {}
    for r, name in enumerate(ROWS):
        sp = stats_p.get(name) or {}
        sb = stats_b.get(name) or {}
        rows[name] = {
            "differs": sorted(rows_played[r].split()) != sorted(rows_best[r].split()),
            "win": sp.get("win"),
            "tie": sp.get("tie"),
            "loss": sp.get("loss"),
            "win_change": None
            if sp.get("win") is None or sb.get("win") is None
            else round(sp["win"] - sb["win"], 4) + 0.0,
        }
    out = {
        "action": "play",
        "front": rows_played[0],
        "middle": rows_played[1],
        "back": rows_played[2],
        "ev": rounded(scores.ev(p)),
        "loss": rounded(loss + 0.0),  # + 0.0: no "-0.0" when the played setting is the best
        "loss_stderr": rounded(se),
        "rank": rank,
        "of": len(order) + 1,
        "fouled": fouled,
        "rows": rows,
        "ev_parts": value_parts(scores, p),
    }
    if scores.stakes is not None:
        out["ev_staked"] = rounded(value)
    elif scale is not None:
        out["ev_staked"] = rounded(scale * value)
    return out


@dataclass(frozen=True)
class Ranked:
    """Where the candidates stand: the best one, the others in order of value (best
    first), and the equal stakes' scale (money = ``scale`` x units; None: none)."""

    best: int
    order: np.ndarray
    scale: float | None


def played_action(
    cands: Candidates,
    scores: Scores,
    cr: CompiledRules,
    ranked: Ranked,
    advice: Advice,
    action: str,
    natural: Natural | None,
) -> dict[str, Any]:
    """What declaring the natural or surrendering (``action``) is worth next to the
    advice: ``loss`` is the advised action's value minus this one's (0 when it is the
    advice), with its paired standard error over the same deals (0 exact, None for a
    model); ``rank`` among the settings scored. The rows are the natural's, as the
    advice shows them, or null for a surrender."""
    from solver.engine.settlement import natural_setting

    best, order, scale = ranked.best, ranked.order, ranked.scale
    stakes = scores.stakes
    rows: tuple[str | None, ...] = (None, None, None)
    if action == "declare":
        assert natural is not None
        ev = scores.declare(natural)
        by = scores.declare_by_opponent(natural)
        shown = natural_setting(cands.hand, cr)
        if shown is not None:
            rows = tuple(format_cards(np.sort(r)[::-1]) for r in shown)
    else:
        by = surrender_by_opponent(scores, float(cr.rules.surrender_cost), len(advice.by_opponent))
        ev = float(by.mean())
    value = ev if stakes is None else float(stakes @ by)
    loss = 0.0 if action == advice.action else advice.value - value
    se = None if scores.per_unit is None and not scores.exact else 0.0
    if scores.per_unit is not None and action != advice.action:
        per_deal = {"play": lambda: scores.per_unit[best]}
        if natural is not None and scores.declare_per_deal is not None:
            per_deal["declare"] = lambda: scores.declare_per_deal(natural)
        per_deal["surrender"] = lambda: surrender_per_deal(scores, float(cr.rules.surrender_cost))
        diff = per_deal[advice.action]() - per_deal[action]()
        se = float(diff.std(ddof=1) / math.sqrt(len(diff)))
    if scale is not None:
        loss, se = scale * loss, None if se is None else scale * se
    out = {
        "action": action,
        "front": rows[0],
        "middle": rows[1],
        "back": rows[2],
        "ev": rounded(ev),
        "loss": rounded(loss + 0.0),
        "loss_stderr": rounded(se),
        "rank": 1 + int((scores.value[order] > value).sum()),
        "of": len(order) + 1,
        "fouled": False,
        "rows": None,
        "ev_parts": None,
    }
    if stakes is not None:
        out["ev_staked"] = rounded(value)
    elif scale is not None:
        out["ev_staked"] = rounded(scale * value)
    return out


#: What ``played`` may say instead of a setting: what was done instead of setting it.
PLAYED_WORDS = ("declare", "surrender")


def played_word(played: Any) -> str | None:
    """``"declare"`` or ``"surrender"`` when ``played`` is that word (any case), else None."""
    if isinstance(played, str) and played.strip().lower() in PLAYED_WORDS:
        return played.strip().lower()
    return None


def with_played(
    cands: Candidates, hand: np.ndarray, played: Any, cr: CompiledRules
) -> tuple[Candidates, int | str | None]:
    """The candidates with a played setting appended, and where it is: its index, or the
    word ``played`` says (``declare``, ``surrender``: no candidate), or None."""
    word = played_word(played)
    if played is None or word is not None:
        return cands, word
    cands = cands.with_split(played_split(hand, played, cr.rules.deck_code)[None, :], cr)
    return cands, len(cands) - 1


def check_word(word: Any, natural: Natural | None, cr: CompiledRules) -> None:
    """InputError when the hand cannot do what ``played`` says (``word``; a setting's
    index is fine): declare without a natural under the ruleset, or surrender under rules
    that allow none."""
    if word == "declare" and natural is None:
        raise InputError(
            f"played: declare: this hand holds no natural under the rules {cr.rules.name!r}"
        )
    if word == "surrender" and cr.rules.surrender_cost is None:
        raise InputError(f"played: surrender: the rules {cr.rules.name!r} allow no surrender")


def played_split(hand: np.ndarray, played: Sequence | str, extra_suits: str = "") -> np.ndarray:
    """The split (int32[3]) of a played setting of the sorted hand's own cards.

    ``played`` is ``"front | middle | back"`` or a (front, middle, back) triple of cards;
    raises CardParseError for bad cards, wrong row sizes, a card twice, or a card that
    is not the hand's (with ``extra_suits``, the hand's faces: a card played more often
    than the hand holds it).
    """
    from collections import Counter

    from evaluator import CardParseError
    from solver.engine.settlement import parse_setting
    from solver.strategy.hands.splits import split_of

    flat = parse_setting(played, "played", extra_suits)
    over = Counter(flat.tolist()) - Counter(hand.tolist())
    foreign = sorted(over)
    if foreign:
        raise CardParseError(f"played: card {format_cards(foreign[:1])!r} is not in the hand")
    return split_of(hand, flat[:3], flat[3:8], flat[8:])
