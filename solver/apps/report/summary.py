"""The report of a batch output: running totals read in one pass (``Report``), its
JSON shape (``Report.to_dict``) and the one table of its figures (``figures``) that the
terminal and the HTML page both show.

A record counts as a hand; a record whose ``played`` is not null (the input line gave
the setting played, ``Solution.played``) also counts in the loss figures. The loss of a
hand is in units per opponent: the record's ``played.loss``, or, where stakes were
given (``played.loss`` is then money), the advised action's ``ev`` minus the played
setting's ``ev``; the staked loss is kept apart. Only running totals, the loss of each
played hand (a float, for the plots) and the few costliest hands are kept: memory does
not grow with the records' size.
"""

from __future__ import annotations

import heapq
import math
import os
import sys
from array import array
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, NamedTuple

from solver.apps.report.categories import CATEGORIES, INDEX, categorize
from solver.apps.report.records import (
    PARTS,
    BadRecord,
    Hand,
    ReportError,
    read_records,
    record_deck,
)
from solver.apps.report.style import Style
from solver.apps.report.translations import N_, _, ngettext
from solver.engine.layout import natural_label
from solver.engine.rule_values import NATURAL_NAMES
from solver.strategy.solving.schema import ACTIONS

__all__ = ["Figure", "Report", "figures", "make_report"]


@dataclass
class Report:
    """Figures of a results file. Losses are units per opponent (see the module docstring).

    ``losses`` and ``categories`` hold each played hand's loss and category index (into
    ``CATEGORIES``) in file order, for the plots; ``to_dict`` leaves them out.
    """

    source: str
    format: str = "jsonl"
    hands: int = 0
    played: int = 0
    bad: int = 0
    setups: Counter = field(default_factory=Counter)  # (rules, policy, players) -> hands
    advice: Counter = field(default_factory=Counter)  # action -> hands
    loss_total: float = 0.0
    loss_sumsq: float = 0.0
    loss_max: float = 0.0
    sampling_var: float = 0.0  # sum of the unstaked hands' loss_stderr squared
    sampling_known: int = 0  # hands whose loss has a standard error
    ev_best_total: float = 0.0
    ev_played_total: float = 0.0
    staked_hands: int = 0
    staked_loss_total: float = 0.0
    perfect: int = 0
    fouls: int = 0
    parts_hands: int = 0  # hands whose loss is split into parts (both played settings)
    parts_loss: list[float] = field(default_factory=lambda: [0.0] * 4)
    missed_naturals: int = 0
    missed_surrenders: int = 0
    category_hands: list[int] = field(default_factory=lambda: [0] * len(CATEGORIES))
    category_loss: list[float] = field(default_factory=lambda: [0.0] * len(CATEGORIES))
    # the natural_not_declared hands by the natural not declared (a name of
    # NATURAL_NAMES, or None for a record that names none of them): [hands, loss]
    missed_by_natural: dict[str | None, list[float]] = field(default_factory=dict)
    top: int = 10
    costliest: list[dict[str, Any]] = field(default_factory=list)
    losses: array = field(default_factory=lambda: array("d"))
    categories: array = field(default_factory=lambda: array("B"))
    bad_lines: list[BadRecord] = field(default_factory=list)  # the first few, for the page
    style: Style = field(default_factory=Style)  # the played settings beside the advice's
    _heap: list[tuple[float, int, Hand, float, str]] = field(default_factory=list, repr=False)

    # ---- accumulating

    def add(self, h: Hand) -> None:
        self.hands += 1
        self.setups[h.setup] += 1
        self.advice[h.action] += 1
        p = h.played
        if p is None:
            return
        self.style.add(h)
        self.played += 1
        units = p.loss if not h.staked else round(h.ev - p.ev, 6)
        key = categorize(
            h.action,
            p.loss,
            p.fouled,
            p.back_differs,
            p.front_win_change,
            p.middle_win_change,
            p.action,
        )
        cat = INDEX[key]
        self.loss_total += units
        self.loss_sumsq += units * units
        self.loss_max = max(self.loss_max, units)
        if p.loss_stderr is not None and not h.staked:
            self.sampling_var += p.loss_stderr * p.loss_stderr
            self.sampling_known += 1
        self.ev_best_total += h.ev
        self.ev_played_total += p.ev
        if h.action == "play" and p.action == "play" and h.parts and p.parts and not h.staked:
            self.parts_hands += 1
            for j in range(4):
                self.parts_loss[j] += h.parts[j] - p.parts[j]
        if h.staked:
            self.staked_hands += 1
            self.staked_loss_total += p.loss
        self.perfect += key == "perfect"
        self.fouls += p.fouled
        self.missed_naturals += h.action == "declare" and p.action != "declare"
        self.missed_surrenders += h.action == "surrender" and p.action != "surrender"
        self.category_hands[cat] += 1
        self.category_loss[cat] += units
        if key == "natural_not_declared":
            # bounded: at most the fourteen names and None, whatever the records hold
            name = h.natural if h.natural in NATURAL_NAMES else None
            tally = self.missed_by_natural.setdefault(name, [0, 0.0])
            tally[0] += 1
            tally[1] += units
        self.losses.append(units)
        self.categories.append(cat)
        if self.top > 0 and units > 0:
            item = (units, -self.played, h, units, key)
            if len(self._heap) < self.top:
                heapq.heappush(self._heap, item)
            elif item[:2] > self._heap[0][:2]:
                heapq.heapreplace(self._heap, item)

    def finish(self) -> None:
        """Turn the heap of costliest hands into ``costliest`` (largest loss first); rank
        the style's last waiting hands."""
        self.style.flush()
        self.costliest = [
            _costly(h, units, key) for units, _, h, _, key in sorted(self._heap, reverse=True)
        ]

    # ---- figures

    @property
    def loss_mean(self) -> float | None:
        return self.loss_total / self.played if self.played else None

    @property
    def loss_mean_stderr(self) -> float | None:
        """Standard error of the mean loss over hands (hand-to-hand spread)."""
        n = self.played
        if n < 2:
            return None
        var = max(0.0, (self.loss_sumsq - self.loss_total**2 / n) / (n - 1))
        return math.sqrt(var / n)

    def quantile(self, q: float) -> float | None:
        if not self.losses:
            return None
        import numpy as np

        return float(np.quantile(np.frombuffer(self.losses, dtype=np.float64), q))

    def to_dict(self) -> dict[str, Any]:
        """The JSON shape of ``capsa report --format json`` (docs/report.md, "JSON")."""
        n = self.played
        setups = [
            {"rules": r, "policy": pol, "players": pl, "hands": k}
            for (r, pol, pl), k in sorted(self.setups.items(), key=lambda kv: -kv[1])
        ]
        return {
            "source": self.source,
            "format": self.format,
            "hands": self.hands,
            "played": n,
            "bad_lines": self.bad,
            "setups": setups,
            "advice": {a: self.advice.get(a, 0) for a in ACTIONS},
            "loss": {
                "total": _r(self.loss_total),
                "mean": _r(self.loss_mean),
                "mean_stderr": _r(self.loss_mean_stderr),
                "sampling_stderr": _r(math.sqrt(self.sampling_var))
                if self.sampling_known
                else None,
                "median": _r(self.quantile(0.5)),
                "p90": _r(self.quantile(0.9)),
                "max": _r(self.loss_max) if n else None,
            },
            "staked": None
            if not self.staked_hands
            else {
                "hands": self.staked_hands,
                "loss_total": _r(self.staked_loss_total),
                "loss_mean": _r(self.staked_loss_total / self.staked_hands),
            },
            "ev": {
                "advice_mean": _r(self.ev_best_total / n) if n else None,
                "played_mean": _r(self.ev_played_total / n) if n else None,
            },
            "perfect": {"hands": self.perfect, "share": _r(self.perfect / n) if n else None},
            "loss_parts": None
            if not self.parts_hands
            else {
                "hands": self.parts_hands,
                **{k: _r(v) for k, v in zip(PARTS, self.parts_loss, strict=True)},
            },
            "fouls": self.fouls,
            "missed_naturals": self.missed_naturals,
            "missed_surrenders": self.missed_surrenders,
            "mistakes": [
                {
                    "category": c.key,
                    "label": c.label,
                    "hands": self.category_hands[i],
                    "share": _r(self.category_hands[i] / n) if n else None,
                    "loss": _r(self.category_loss[i]),
                    "mean_loss": _r(self.category_loss[i] / self.category_hands[i])
                    if self.category_hands[i]
                    else None,
                    "loss_share": _r(self.category_loss[i] / self.loss_total)
                    if self.loss_total > 0
                    else None,
                }
                | ({"naturals": self._missed_naturals()} if c.key == "natural_not_declared" else {})
                for i, c in enumerate(CATEGORIES)
            ],
            "style": self.style.to_dict(),
            "costliest": self.costliest,
        }

    def _missed_naturals(self) -> list[dict[str, Any]]:
        """The natural_not_declared hands by natural, the costliest first: each special
        hand not declared is its own kind of mistake (docs/rules.md#natural-names)."""
        rows = sorted(self.missed_by_natural.items(), key=lambda kv: (-kv[1][1], kv[0] or ""))
        return [
            {
                "natural": name,
                "label": natural_label(name) if name else "a natural",
                "hands": int(k),
                "loss": _r(loss),
                "mean_loss": _r(loss / k),
            }
            for name, (k, loss) in rows
        ]


def _r(x: float | None, nd: int = 6) -> float | None:
    return None if x is None else round(float(x), nd) + 0.0


#: Made hands a played setting can break up, strongest first: (evaluator category,
#: what the report calls breaking it up). A royal flush is named as such.
_BREAKABLE = (
    (9, N_("five of a kind broken up")),  # a deck with added suits (the copies scale)
    (8, N_("straight flush broken up")),
    (7, N_("four of a kind broken up")),
)


def broken_up(
    best: tuple[str, str, str], played: tuple[str, str, str], extra_suits: str = ""
) -> str | None:
    """What the played rows broke up of the best setting's (``"royal flush broken up"``,
    ``"straight flush broken up"``, ``"four of a kind broken up"``, and on a deck with
    added suits, ``extra_suits``, ``"five of a kind broken up"``), or None: a row of the
    best setting of that kind that the played setting has fewer of."""
    import evaluator as ev

    def kinds(rows: tuple[str, str, str]) -> list[tuple[int, bool]]:
        out = []
        for row in rows:
            cards = row.split()
            if len(cards) == 5:
                s = int(ev.evaluate5(row, extra_suits))
                out.append((ev.category(s, extra_suits), ev.is_royal(s, extra_suits)))
        return out

    try:
        have, kept = kinds(best), kinds(played)
    except ValueError:  # rows that are not cards (a record edited by hand): say nothing
        return None
    for cat, name in _BREAKABLE:
        n_have = sum(c == cat for c, _ in have)
        if n_have > sum(c == cat for c, _ in kept):
            if cat == 8 and any(c == 8 and royal for c, royal in have):
                return N_("royal flush broken up")
            return name
    return None


def _costly(h: Hand, units: float, key: str) -> dict[str, Any]:
    p = h.played
    assert p is not None
    detail = None
    if h.action == "play" and not p.fouled:
        detail = broken_up(h.best, p.rows, record_deck(h.setup[0], h.setup[2], h.hand))
    return {
        "line": h.line,
        "id": h.id,
        "hand": h.hand,
        "category": key,
        "detail": detail,
        "loss": _r(units),
        "loss_staked": _r(p.loss) if h.staked else None,
        "best": {
            "action": h.action,
            "front": h.best[0],
            "middle": h.best[1],
            "back": h.best[2],
            "ev": _r(h.ev),
            # the natural to declare, by its ruleset name (shown with its local names)
            **({"natural": h.natural} if h.action == "declare" and h.natural else {}),
        },
        "played": {
            "action": p.action,
            "front": p.rows[0],
            "middle": p.rows[1],
            "back": p.rows[2],
            "ev": _r(p.ev),
            "fouled": p.fouled,
            "rank": p.rank,
            "of": p.of,
        },
    }


def make_report(
    source: str | os.PathLike[str] | IO[bytes],
    *,
    top: int = 10,
    on_bad: Callable[[BadRecord], None] | None = None,
    keep_bad: int = 20,
) -> Report:
    """Read a batch output once and sum it up; see the module docstring.

    ``source`` is a path, ``"-"`` (stdin) or a binary stream. ``top``: how many of the
    costliest hands to keep. Bad lines go to ``on_bad`` as they are met (the first
    ``keep_bad`` are also kept in ``Report.bad_lines``). Raises ``ReportError`` when the
    file cannot be read or is not a batch output at all.
    """
    if isinstance(top, bool) or not isinstance(top, int) or top < 0:
        raise ReportError(f"top must be a whole number from 0, got {top!r}")
    if hasattr(source, "read"):
        stream: IO[bytes] = source  # type: ignore[assignment]
        name, own = "<stream>", False
    elif str(source) == "-":
        stream, name, own = sys.stdin.buffer, "<stdin>", False
    else:
        path = Path(source)
        name = str(path)
        try:
            stream = path.open("rb")
        except OSError as exc:
            raise ReportError(f"cannot read '{path}': {exc.strerror}") from None
        own = True
    try:
        fmt, items = read_records(stream, name)
        report = Report(source=name, format=fmt, top=top)
        for item in items:
            if isinstance(item, BadRecord):
                report.bad += 1
                if len(report.bad_lines) < keep_bad:
                    report.bad_lines.append(item)
                if on_bad is not None:
                    on_bad(item)
            else:
                report.add(item)
    except OSError as exc:
        raise ReportError(f"cannot read {name}: {exc.strerror or exc}") from None
    finally:
        if own:
            stream.close()
    report.finish()
    return report


class Figure(NamedTuple):
    """One figure of a report: ``key`` (the page's ``data-key``), what it is, its value,
    the value as shown (``text``), every digit of it (``exact``), a note beside it, and
    whether it is a headline (a card at the top of the page)."""

    key: str
    label: str
    value: float | int | None
    text: str
    exact: str
    note: str = ""
    headline: bool = False


#: Every figure: key, what it is, where it is in ``Report.to_dict()``, its format, and
#: whether it is a headline.
_FIGURES: tuple[tuple[str, str, tuple[str, ...], str, bool], ...] = (
    ("hands", N_("hands"), ("hands",), ",", True),
    ("played", N_("hands with a played setting"), ("played",), ",", False),
    ("loss_total", N_("loss, total"), ("loss", "total"), ",.3f", True),
    ("loss_mean", N_("loss, mean a played hand"), ("loss", "mean"), ".3f", True),
    (
        "loss_mean_stderr",
        N_("its standard error (hand to hand)"),
        ("loss", "mean_stderr"),
        ".3f",
        False,
    ),
    (
        "sampling_stderr",
        N_("sampling error of the total"),
        ("loss", "sampling_stderr"),
        ".3f",
        False,
    ),
    ("loss_median", N_("loss, median"), ("loss", "median"), ".3f", False),
    ("loss_p90", N_("loss, 90th percentile"), ("loss", "p90"), ".3f", False),
    ("loss_max", N_("loss, largest"), ("loss", "max"), ".3f", False),
    ("ev_advice", N_("value of the advice, mean a hand"), ("ev", "advice_mean"), "+.3f", False),
    ("ev_played", N_("value as played, mean a hand"), ("ev", "played_mean"), "+.3f", False),
    ("perfect_hands", N_("played perfectly"), ("perfect", "hands"), ",", True),
    ("fouls", N_("fouled"), ("fouls",), ",", True),
    ("missed_naturals", N_("naturals not declared"), ("missed_naturals",), ",", True),
    ("missed_surrenders", N_("surrenders missed"), ("missed_surrenders",), ",", True),
    ("bad_lines", N_("unreadable lines"), ("bad_lines",), ",", True),
)
#: Where the loss went in parts (hands whose advice and play were both settings).
_PARTS_FIGURES = (
    ("loss_rows", N_("loss in rows"), ("loss_parts", "rows"), ",.3f", False),
    (
        "loss_bonus",
        N_("loss in bonuses"),
        ("loss_parts", "bonus"),
        ",.3f",
        False,
    ),  # fmt: skip
    ("loss_royalties", N_("loss in royalties"), ("loss_parts", "royalties"), ",.3f", False),
    (
        "loss_naturals",
        N_("loss to opponents' naturals"),
        ("loss_parts", "naturals"),
        ",.3f",
        False,
    ),  # fmt: skip
)
#: The figures of a report with stakes.
_STAKED = (
    ("staked_hands", N_("hands with stakes"), ("staked", "hands"), ",", False),
    ("staked_loss_total", N_("staked loss, total"), ("staked", "loss_total"), ",.2f", False),
    ("staked_loss_mean", N_("staked loss, mean a hand"), ("staked", "loss_mean"), ".3f", False),
)


def _notes(d: dict[str, Any]) -> dict[str, str]:
    loss, share = d["loss"], d["perfect"]["share"]
    sampling = loss["sampling_stderr"]
    units = _("units per opponent")
    return {
        "loss_total": units
        + (
            _(", ± {error} (sampling)").format(error=f"{sampling:.3f}")
            if sampling is not None
            else ""
        ),
        "sampling_stderr": _("Monte Carlo"),
        "ev_advice": units,
        "ev_played": units,
        "perfect_hands": _("{share} of the played hands").format(share=f"{share:z.1%}")
        if share is not None
        else "",
        "fouls": _("scooped by every opponent"),
        "bad_lines": _("not batch records: left out")
        if d["bad_lines"]
        else _("of this file, not of the input"),
        "loss_rows": _parts_note(d),
        "staked_loss_total": _("money"),
        "staked_loss_mean": _("money"),
    }


def _parts_note(d: dict[str, Any]) -> str:
    parts = d.get("loss_parts")
    if not parts:
        return ""
    return ngettext(
        "{n} hand where both were settings",
        "{n} hands where both were settings",
        parts["hands"],
    ).format(n=f"{parts['hands']:,}")


def _figure(key: str, label: str, value: Any, spec: str, note: str, headline: bool) -> Figure:
    if value is None:
        return Figure(key, label, None, "—", "—", note, headline)
    if isinstance(value, int):
        return Figure(key, label, value, f"{value:,}", f"{value:,}", note, headline)
    exact = format(value, "+.6f" if spec.startswith("+") else ".6f")
    return Figure(key, label, value, format(value, spec), exact, note, headline)


def figures(d: dict[str, Any]) -> list[Figure]:
    """Every figure of a report (``Report.to_dict()``), in the order they are shown: the
    terminal shows their ``text``, the page its headlines as cards and every figure's
    ``exact`` value in a table. Labels and notes are in the language in use
    (``translations.use_language``; English by default)."""
    notes = _notes(d)
    out = []
    extra = (_PARTS_FIGURES if d.get("loss_parts") else ()) + (_STAKED if d["staked"] else ())
    for key, label, path, spec, headline in _FIGURES + extra:
        value: Any = d
        for step in path:
            value = value[step]
        out.append(_figure(key, _(label), value, spec, notes.get(key, ""), headline))
    return out
