"""A showdown pair's points row by row (issue 53, item 6): what each row is worth to the
player against one opponent, as the table pays it, and the rest of the pair by what
pays it, as the apps show a showdown (each row's +1 / -1 / +3, then 打枪 / sập 3 chi).

The pair's settlement (docs/rules.md#the-settlement-step-by-step) is split here into
``rows``, one figure a row: the row won (+1), lost (-1) or tied (0), with the row's
royalty as the royalty mode pays it (winner / cancel: the row's winner's; always: each
side's own; a royalty that replaces the row's unit, docs/rules.md#a-bonus-row-is-its-whole-value,
is the row's whole value), a fouled hand losing every row; and ``extras``, what the pair
adds beyond its rows, each ``{"kind", "units"}``: ``scoop`` (1-6's scoop 3, the scoop
multiplier's extra and the scoop's added units), ``majority`` (2-4's unit to whoever won
more rows), ``dealt`` (the dealt cards' royalties), ``cap`` (what the pair cap takes),
``foul`` (the flat foul payment, then no rows), ``home_run``, ``code_card``, and for a
pair without rows ``natural`` or ``surrender``. The rows and extras add up to the pair's
units (tests/test_web_row_points.py, against tests/reference.py).
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["pair_points"]


def _extra(r: float, replaces: bool) -> float:
    """What a row royalty adds to its row's unit (r - 1 when it replaces the unit)."""
    return r - 1.0 if replaces and r > 0.0 else r


def _rows(sa: tuple, sb: tuple, cr: Any) -> tuple[list[int], list[float], float]:
    """Two hands, at most one fouled: (each row's result from A's side, each row's
    units with its royalty, the dealt cards' royalties A collects)."""
    rules = cr.rules
    (ka, ra, fa), (kb, rb, fb) = sa, sb
    replaces = bool(rules.royalty_replaces_row)
    if fa or fb:  # the legal hand wins every row and all its royalties
        sign, own = (1, ra) if fb else (-1, rb)
        rows = [sign * (1.0 + _extra(float(own[i]), replaces)) for i in range(3)]
        return [sign] * 3, rows, sign * float(own[3])
    signs = [int(np.sign(int(x) - int(y))) for x, y in zip(ka, kb, strict=True)]
    rows = []
    for i, w in enumerate(signs):
        a, b = float(ra[i]), float(rb[i])
        if rules.royalty_mode == "always":
            royalty = a - b
        elif w == 0 or (rules.royalty_mode == "cancel" and a > 0 and b > 0):
            royalty = 0.0
        else:
            royalty = _extra(a, replaces) if w > 0 else -_extra(b, replaces)
        rows.append(w + royalty)
    return signs, rows, float(ra[3]) - float(rb[3])


def _shown(sa: tuple, sb: tuple, cr: Any) -> tuple[list[float] | None, list[dict]]:
    """The rows and extras of two shown hands, before the home run and the code card."""
    rules = cr.rules
    if sa[2] and sb[2]:
        return [0.0, 0.0, 0.0], []
    cap = float("inf") if rules.pair_cap is None else float(rules.pair_cap)
    if (sa[2] or sb[2]) and rules.foul_penalty is not None:
        flat = float(rules.foul_penalty) * (1 if sb[2] else -1)
        return None, [{"kind": "foul", "units": min(max(flat, -cap), cap)}]
    signs, rows, dealt = _rows(sa, sb, cr)
    won, lost = signs.count(1), signs.count(-1)
    scoop, majority = 0.0, 0.0
    if rules.scoring == "1-6" and 3 in (won, lost):
        scoop = 3.0 if won == 3 else -3.0
    elif rules.scoring == "2-4" and won != lost:
        majority = 1.0 if won > lost else -1.0
    whole = sum(rows) + scoop + majority + dealt
    if 3 in (won, lost):
        scoop += (float(rules.scoop_multiplier) - 1.0) * whole
        add = float(rules.scoop_bonus) * (1 if won == 3 else -1)
        scoop += add
        whole = whole * float(rules.scoop_multiplier) + add
    capped = min(max(whole, -cap), cap)
    extras = [{"kind": k, "units": v}
              for k, v in (("scoop", scoop), ("majority", majority), ("dealt", dealt),
                           ("cap", capped - whole)) if v != 0.0]  # fmt: skip
    return rows, extras


def pair_points(
    i: int, j: int, table: tuple, cr: Any, units: float, banker: int | None = None
) -> dict[str, Any]:
    """What seat i wins from seat j (``units``, as ``play_table`` settles it), in its
    parts: ``{"rows": [front, middle, back] or None, "extras": [{"kind", "units"}, ...]}``
    (the module's docstring); a banker's pair without the banker pays nothing. ``table``
    is ``(seats, sums, hold, h)``: what each seat shows, its summary (None: no rows), who
    holds the code card, the home run's seat or None."""
    seats, sums, hold, h = table
    if banker is not None and banker not in (i, j):
        return {"rows": None, "extras": []}
    if sums[i] is None or sums[j] is None:  # a natural declared, or a surrender
        kind = "surrender" if isinstance(seats[i], str) or isinstance(seats[j], str) else "natural"
        return {"rows": None, "extras": [{"kind": kind, "units": units}] if units else []}
    rows, extras = _shown(sums[i], sums[j], cr)
    pair = sum(rows or []) + sum(e["units"] for e in extras)
    if h in (i, j) and cr.rules.home_run_multiplier != 1:
        extras.append({"kind": "home_run", "units": pair * (cr.rules.home_run_multiplier - 1)})
        pair *= cr.rules.home_run_multiplier
    factor = cr.rules.pair_code_factor(bool(hold[i]), bool(hold[j]))
    if factor != 1.0 and pair != 0.0:
        extras.append({"kind": "code_card", "units": pair * (factor - 1.0)})
    return {"rows": rows, "extras": extras}
