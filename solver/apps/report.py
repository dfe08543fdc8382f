"""capsa report: what the way a file of hands was played cost, and where it leaked.

``make_report`` reads a ``capsa batch`` output (JSON lines or CSV, as batch writes them;
``capsa solve --format json`` answers, one a line, also do) once, line by line (as
batch reads its input: a line longer than ``MAX_LINE`` is dropped as it is read), and
keeps only running totals, the loss of each played hand (a float, for the plots) and
the few costliest hands; memory does not grow with the records' size.

A record counts as a hand; a record whose ``played`` is not null (the input line gave
the setting played, ``Solution.played``) also counts in the loss figures. The loss of a
hand is in units per opponent: the record's ``played.loss``, or, where stakes were
given (``played.loss`` is then money), the advised action's ``ev`` minus the played
setting's ``ev``; the staked loss is kept apart.

Every played hand falls in exactly one of ``CATEGORIES``, the first that applies, in
this order (README, "Reports", says why these):

* ``perfect``: the loss is 0: the best setting, or one worth as much;
* ``natural_not_declared``: the advice was to declare a natural, and the player played
  (the report also breaks these down by the natural not declared);
* ``surrender_missed``: the advice was to surrender, and the player played;
* ``fouled``: the played setting fouls (scooped by every opponent);
* ``wrong_back``: the back row holds other cards than the best setting's;
* ``front_too_strong``: the same back, and the played front wins more often than the
  best's (strength kept in the front at the middle's cost);
* ``front_too_weak``: the same back, the played front wins less often and the middle
  more often (the middle kept strength the front needed);
* ``weaker_rows``: the same back, and neither the front nor the middle wins more often
  than the best's while one wins less (e.g. a straight broken into a pair);
* ``other_split``: the same back and rows that win as often (kickers moved between the
  middle and the front), or a record that does not say how the rows changed.

"Wins more often" compares the rows' win rates in the record (``played.rows``), which
grow with a row's strength whatever the policy; so the front and middle categories say
which way strength was moved between the two rows.

Bad lines (not JSON, not UTF-8, a JSON value that is not a batch record, a CSV row with
the wrong number of cells, a field of the wrong type, a number larger than ``MAX_VALUE``
in size, text holding a lone surrogate, a line longer than ``MAX_LINE``) are reported
through ``on_bad`` with their line number (the value quoted short) and left out; the
report of the good ones is still made, and every sum stays finite. A file that is not a
batch output at all (a CSV without batch's columns, JSON lines none of whose first
``SNIFF_LINES`` is a record, a first line longer than ``MAX_LINE``) raises
``ReportError``.

``render_html`` writes one self-contained HTML page (inline CSS and SVG plots drawn
with matplotlib, the ``report`` extra): the figures, the distribution of the losses,
the cumulative loss over the file, the loss by kind of mistake, and the costliest hands.

Library code: no printing; the CLI renders ``Report`` on the terminal.
"""

from __future__ import annotations

import csv
import heapq
import json
import math
import os
import sys
from array import array
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, NamedTuple

from solver.apps.batch.reading import MAX_LINE, read_lines
from solver.apps.batch.records import PLAYED_CSV_COLUMNS, csv_text_value
from solver.engine.errors import InputError
from solver.engine.inputs import quote, visible
from solver.engine.layout import ROWS, natural_label
from solver.engine.rules import NATURAL_NAMES

__all__ = [
    "CATEGORIES",
    "PLAYED_CSV_COLUMNS",
    "SNIFF_LINES",
    "BadRecord",
    "Category",
    "Report",
    "ReportError",
    "categorize",
    "make_report",
    "render_html",
]

#: How many content lines may pass before a JSON-lines file must have shown a record.
SNIFF_LINES = 50
#: The largest value (in size) a record may hold: far above any payout capsa makes
#: (payouts and stakes are at most 1,000,000 each), so every sum of them stays finite.
MAX_VALUE = 1e30


class ReportError(InputError):
    """The input cannot be reported on (unreadable, or not a batch output): one line."""


@dataclass(frozen=True)
class Category:
    """A kind of mistake: its key (JSON), label (tables) and what it means."""

    key: str
    label: str
    why: str


CATEGORIES: tuple[Category, ...] = (
    Category(
        "perfect",
        "played perfectly",
        "the played setting is worth as much as the advice (loss 0): the best setting, or "
        "one of equal value",
    ),
    Category(
        "natural_not_declared",
        "natural not declared",
        "the hand held a natural worth more declared than any setting, and it was played",
    ),
    Category(
        "surrender_missed",
        "surrender missed",
        "surrendering was worth more than the best setting, and the hand was played",
    ),
    Category(
        "fouled",
        "fouled",
        "the played rows are out of order: scooped by every opponent",
    ),
    Category(
        "wrong_back",
        "wrong back",
        "the back holds other cards than the best setting's: the hand was built around "
        "another five",
    ),
    Category(
        "front_too_strong",
        "front too strong",
        "the right back, but the front wins more often than the best's: strength kept in "
        "the front at the middle's cost",
    ),
    Category(
        "front_too_weak",
        "front too weak",
        "the right back, but the front wins less often than the best's and the middle more: "
        "the middle kept strength the front needed",
    ),
    Category(
        "weaker_rows",
        "weaker middle and front",
        "the right back, but neither the front nor the middle wins more often than the "
        "best's and one wins less: the eight cards split worse in both rows",
    ),
    Category(
        "other_split",
        "other middle/front split",
        "the right back, and rows that win as often as the best's: kickers moved between "
        "the middle and the front",
    ),
)
_INDEX = {c.key: i for i, c in enumerate(CATEGORIES)}

_ACTIONS = ("play", "declare", "surrender")
_CSV_NEEDS = ("hand", "action", "front", "middle", "back", "ev")


@dataclass(frozen=True)
class BadRecord:
    """A line of RESULTS that is not a batch record: its number and why."""

    line: int
    reason: str

    def message(self) -> str:
        """One line for a person (characters a terminal would act on escaped)."""
        return f"line {self.line}: {visible(self.reason)}"


def categorize(
    action: str,
    loss: float,
    fouled: bool,
    back_differs: bool,
    front_win_change: float | None,
    middle_win_change: float | None,
) -> str:
    """The one category (a ``CATEGORIES`` key) of a played hand; see the module docstring.

    ``loss`` is the record's ``played.loss``; the win changes are the played rows' win
    rates minus the best setting's (``played.rows.front/middle.win_change``).
    """
    if loss <= 0:
        return "perfect"
    if action == "declare":
        return "natural_not_declared"
    if action == "surrender":
        return "surrender_missed"
    if fouled:
        return "fouled"
    if back_differs:
        return "wrong_back"
    f, m = front_win_change, middle_win_change
    if f is None or m is None:
        return "other_split"
    if f > 0:
        return "front_too_strong"
    if f < 0 and m > 0:
        return "front_too_weak"
    if m <= 0 and (f < 0 or m < 0):
        return "weaker_rows"
    return "other_split"


# --------------------------------------------------------------------------- records


class _Bad(Exception):
    """A line that is not a record (the message is the reason)."""


class _Hand(NamedTuple):
    """What the report needs of one record."""

    line: int | None
    id: str | None
    hand: str
    setup: tuple[str, str, int | None]  # rules, policy, players
    action: str
    best: tuple[str, str, str]
    ev: float
    staked: bool
    played: _Played | None
    natural: str | None = None  # the natural the hand holds (its ruleset name), if any


def _natural_name(nat: Any) -> str | None:
    """The name of a record's ``natural`` (null or ``{"name": ...}``), for display only."""
    name = nat.get("name") if isinstance(nat, dict) else None
    return name if isinstance(name, str) else None


class _Played(NamedTuple):
    rows: tuple[str, str, str]
    ev: float
    loss: float  # the record's: units per opponent, or money with stakes
    loss_stderr: float | None
    fouled: bool
    back_differs: bool
    front_win_change: float | None
    middle_win_change: float | None
    rank: int | None
    of: int | None


def _in_range(x: Any) -> bool:
    """A number capsa could have written: finite and at most ``MAX_VALUE`` in size."""
    return -MAX_VALUE <= x <= MAX_VALUE  # False for NaN


def _number(value: Any, name: str, *, optional: bool = False) -> float | None:
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _Bad(f"'{name}' is not a number ({quote(value)})")
    if not _in_range(value):
        raise _Bad(f"'{name}' is out of range ({quote(value)}; at most {MAX_VALUE:g} in size)")
    return float(value)


def _text(value: Any, name: str, *, optional: bool = False) -> str | None:
    if value is None and optional:
        return None
    if not isinstance(value, str):
        raise _Bad(f"'{name}' is not text ({quote(value)})")
    return value


def _whole(value: Any, name: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise _Bad(f"'{name}' is not a whole number ({quote(value)})")
    return value


def _hand_from_dict(rec: Any) -> _Hand:
    """A JSON record (``{"line", "id", **Solution.to_dict()}``) as a ``_Hand``.

    A quick path takes well-formed records with few checks; anything it doubts goes
    through ``_checked_hand``, which says what is wrong.
    """
    try:
        get = rec.get
        hand, action, ev = rec["hand"], rec["action"], rec["ev"]
        rows = (rec["front"], rec["middle"], rec["back"])
        line, players, played = get("line"), get("players"), get("played")
    except (KeyError, AttributeError, TypeError):
        return _checked_hand(rec)
    p = None
    if played is not None:
        p = _quick_played(played)
        if p is None:
            return _checked_hand(rec)
    if (
        type(hand) is str
        and action in _ACTIONS
        and type(ev) in _NUMBERS
        and abs(ev) <= MAX_VALUE  # False for NaN
        and type(rows[0]) is str
        and type(rows[1]) is str
        and type(rows[2]) is str
        and (line is None or type(line) is int)
        and (players is None or type(players) is int)
    ):
        ident = get("id")
        return _Hand(
            line,
            None if ident is None else str(ident),
            hand,
            (str(get("rules") or "?"), str(get("policy") or "?"), players),
            action,
            rows,
            float(ev),
            get("stakes") is not None,
            p,
            _natural_name(get("natural")),
        )
    return _checked_hand(rec)


_NUMBERS = (float, int)


def _quick_played(p: Any) -> _Played | None:
    """``played`` of a well-formed record, or None (then ``_played_from_dict`` checks it)."""
    try:
        get = p.get
        ev, loss, fouled, se = p["ev"], p["loss"], p["fouled"], get("loss_stderr")
        rows = (p["front"], p["middle"], p["back"])
        rank, of = get("rank"), get("of")
        stats = get("rows") or {}
        back = stats.get("back") or {}
        change = (stats.get("front") or {}).get("win_change")
        mchange = (stats.get("middle") or {}).get("win_change")
        differs = back.get("differs")
    except (KeyError, AttributeError, TypeError):
        return None
    if (
        type(ev) in _NUMBERS
        and type(loss) in _NUMBERS
        and abs(ev) <= MAX_VALUE  # False for NaN and infinities
        and abs(loss) <= MAX_VALUE
        and type(fouled) is bool
        and (se is None or (type(se) in _NUMBERS and abs(se) <= MAX_VALUE))
        and (change is None or (type(change) in _NUMBERS and abs(change) <= MAX_VALUE))
        and (mchange is None or (type(mchange) in _NUMBERS and abs(mchange) <= MAX_VALUE))
        and (differs is None or type(differs) is bool)
        and (rank is None or type(rank) is int)
        and (of is None or type(of) is int)
        and type(rows[0]) is str
        and type(rows[1]) is str
        and type(rows[2]) is str
    ):
        return _Played(
            rows,
            float(ev),
            float(loss),
            None if se is None else float(se),
            fouled,
            bool(differs),
            None if change is None else float(change),
            None if mchange is None else float(mchange),
            rank,
            of,
        )
    return None


def _checked_hand(rec: Any) -> _Hand:
    """``_hand_from_dict`` with every check, raising ``_Bad`` with the reason."""
    if not isinstance(rec, dict):
        raise _Bad(f"not a capsa batch record (a JSON {type(rec).__name__}, not an object)")
    for key in ("hand", "action", "front", "middle", "back", "ev"):
        if key not in rec:
            raise _Bad(f"not a capsa batch record (no '{key}')")
    action = rec["action"]
    if action not in _ACTIONS:
        raise _Bad(f"'action' is not one of {', '.join(_ACTIONS)} ({quote(action)})")
    ident = rec.get("id")
    played = rec.get("played")
    return _Hand(
        line=_whole(rec.get("line"), "line"),
        id=None if ident is None else str(ident),
        hand=_text(rec["hand"], "hand"),  # type: ignore[arg-type]
        setup=(
            str(rec.get("rules") or "?"),
            str(rec.get("policy") or "?"),
            _whole(rec.get("players"), "players"),
        ),
        action=action,
        best=(
            _text(rec["front"], "front"),  # type: ignore[arg-type]
            _text(rec["middle"], "middle"),
            _text(rec["back"], "back"),
        ),
        ev=_number(rec["ev"], "ev"),  # type: ignore[arg-type]
        staked=rec.get("stakes") is not None,
        played=None if played is None else _played_from_dict(played),
        natural=_natural_name(rec.get("natural")),
    )


def _played_from_dict(p: Any) -> _Played:
    if not isinstance(p, dict):
        raise _Bad(f"'played' is not an object or null ({quote(p)})")
    for key in ("front", "middle", "back", "ev", "loss", "fouled"):
        if key not in p:
            raise _Bad(f"'played' has no '{key}'")
    if not isinstance(p["fouled"], bool):
        raise _Bad(f"'played.fouled' is not true or false ({quote(p['fouled'])})")
    rows = p.get("rows") or {}
    if not isinstance(rows, dict):
        raise _Bad(f"'played.rows' is not an object ({quote(rows)})")
    back = rows.get("back") or {}
    front = rows.get("front") or {}
    middle = rows.get("middle") or {}
    if not all(isinstance(r, dict) for r in (front, middle, back)):
        raise _Bad("'played.rows' holds a row that is not an object")
    differs = back.get("differs")
    if differs is not None and not isinstance(differs, bool):
        raise _Bad(f"'played.rows.back.differs' is not true or false ({quote(differs)})")
    return _Played(
        rows=(
            _text(p["front"], "played.front"),  # type: ignore[arg-type]
            _text(p["middle"], "played.middle"),
            _text(p["back"], "played.back"),
        ),
        ev=_number(p["ev"], "played.ev"),  # type: ignore[arg-type]
        loss=_number(p["loss"], "played.loss"),  # type: ignore[arg-type]
        loss_stderr=_number(p.get("loss_stderr"), "played.loss_stderr", optional=True),
        fouled=p["fouled"],
        back_differs=bool(differs),
        front_win_change=_number(
            front.get("win_change"), "played.rows.front.win_change", optional=True
        ),
        middle_win_change=_number(
            middle.get("win_change"), "played.rows.middle.win_change", optional=True
        ),
        rank=_whole(p.get("rank"), "played.rank"),
        of=_whole(p.get("of"), "played.of"),
    )


class _CsvLayout(NamedTuple):
    names: tuple[str, ...]


def _csv_layout(fields: list[str]) -> _CsvLayout | None:
    """The layout of a batch CSV header, or None if ``fields`` is not one."""
    names = tuple(f.strip() for f in fields)
    if all(k in names for k in ("line", *_CSV_NEEDS)):
        return _CsvLayout(names)
    return None


def _cell_number(row: dict[str, str], name: str, *, optional: bool = True) -> float | None:
    text = row.get(name, "")
    if text == "":
        if optional:
            return None
        raise _Bad(f"column '{name}' is empty")
    try:
        value = float(text)
    except ValueError:
        raise _Bad(f"column '{name}' is not a number ({quote(text)})") from None
    if not _in_range(value):
        raise _Bad(
            f"column '{name}' is out of range ({quote(text)}; at most {MAX_VALUE:g} in size)"
        )
    return value


def _cell_whole(row: dict[str, str], name: str) -> int | None:
    text = row.get(name, "")
    if text == "":
        return None
    try:
        return int(text)
    except ValueError:
        raise _Bad(f"column '{name}' is not a whole number ({quote(text)})") from None


def _cell_bool(row: dict[str, str], name: str) -> bool | None:
    text = row.get(name, "")
    if text == "":
        return None
    if text not in ("true", "false"):
        raise _Bad(f"column '{name}' is not true or false ({quote(text)})")
    return text == "true"


def _hand_from_csv(cells: list[str], layout: _CsvLayout) -> _Hand:
    """A batch CSV row (``CSV_COLUMNS``, with ``PLAYED_CSV_COLUMNS`` if any) as a ``_Hand``."""
    if len(cells) != len(layout.names):
        raise _Bad(f"expected {len(layout.names)} CSV cells, got {len(cells)}")
    row = dict(zip(layout.names, cells, strict=True))
    action = row["action"]
    if action not in _ACTIONS:
        raise _Bad(f"column 'action' is not one of {', '.join(_ACTIONS)} ({quote(action)})")
    played = None
    if row.get("played_front"):
        fouled = _cell_bool(row, "played_fouled")
        if fouled is None:
            raise _Bad("column 'played_fouled' is empty")
        played = _Played(
            rows=(row["played_front"], row.get("played_middle", ""), row.get("played_back", "")),
            ev=_cell_number(row, "played_ev", optional=False),  # type: ignore[arg-type]
            loss=_cell_number(row, "played_loss", optional=False),  # type: ignore[arg-type]
            loss_stderr=_cell_number(row, "played_loss_stderr"),
            fouled=fouled,
            back_differs=bool(_cell_bool(row, "played_back_differs")),
            front_win_change=_cell_number(row, "played_front_win_change"),
            middle_win_change=_cell_number(row, "played_middle_win_change"),
            rank=_cell_whole(row, "played_rank"),
            of=_cell_whole(row, "played_of"),
        )
    return _Hand(
        line=_cell_whole(row, "line"),
        id=csv_text_value(row.get("id") or "") or None,
        hand=row["hand"],
        setup=(
            csv_text_value(row.get("rules") or "") or "?",
            row.get("policy") or "?",
            _cell_whole(row, "players"),
        ),
        action=action,
        best=(row["front"], row["middle"], row["back"]),
        ev=_cell_number(row, "ev", optional=False),  # type: ignore[arg-type]
        staked=bool(row.get("stake_1")),
        played=played,
        natural=row.get("natural") or None,
    )


# --------------------------------------------------------------------------- reading


def _lines(stream: IO[bytes]) -> Iterator[tuple[int, bytes | None]]:
    """``(line number, stripped line)`` of every non-blank physical line, None for a line
    longer than ``MAX_LINE`` (read as batch reads its input: memory stays bounded)."""
    for number, raw in read_lines(stream):
        if raw is None or raw:
            yield number, raw


_TOO_LONG = f"line longer than {MAX_LINE:,} bytes"


def _parse_json(raw: bytes) -> _Hand:
    try:
        rec = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise _Bad(f"not UTF-8 text (bad byte at {exc.start + 1})") from None
    except RecursionError:
        raise _Bad("not a capsa batch record (JSON nested too deep)") from None
    except ValueError as exc:
        raise _Bad(f"not JSON ({exc})") from None
    if b"\\u" in raw:  # an escaped lone surrogate is JSON, but not text
        _check_text(rec)
    return _hand_from_dict(rec)


def _check_text(rec: Any) -> None:
    """``_Bad`` when a string in ``rec`` holds a lone surrogate (``"\\ud800"``)."""
    try:
        json.dumps(rec, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError as exc:
        bad = exc.object[exc.start : exc.end]
        raise _Bad(f"not text: holds a lone surrogate ({visible(bad)})") from None
    except (ValueError, RecursionError):
        pass  # not a record anyway: _hand_from_dict says why


def _parse_csv(raw: bytes, layout: _CsvLayout) -> _Hand:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _Bad(f"not UTF-8 text (bad byte at {exc.start + 1})") from None
    try:
        cells = next(csv.reader([text]))
    except (csv.Error, StopIteration) as exc:
        raise _Bad(f"not a CSV row ({exc})") from None
    return _hand_from_csv(cells, layout)


def _records(stream: IO[bytes], name: str) -> tuple[str, Iterator[tuple[int, _Hand | BadRecord]]]:
    """The format (``jsonl`` or ``csv``) and ``(line, record or bad line)`` in file order.

    Raises ReportError when the input is not a batch output at all.
    """
    lines = _lines(stream)
    first = next(lines, None)
    if first is None:
        return "jsonl", iter(())
    number, raw = first
    if raw is None:
        raise ReportError(f"{name} is not a capsa batch output: its line {number} is a {_TOO_LONG}")
    if not raw.startswith(b"{"):
        try:
            fields = next(csv.reader([raw.decode("utf-8")]))
        except (UnicodeDecodeError, csv.Error, StopIteration):
            fields = []
        layout = _csv_layout(fields)
        if layout is None:
            raise ReportError(
                f"{name} is not a capsa batch output: line {number} is neither a JSON record"
                f" nor a CSV header naming the columns {', '.join(('line', *_CSV_NEEDS))}"
            )
        return "csv", _csv_records(lines, layout)
    return "jsonl", _json_records(first, lines, name)


def _csv_records(
    lines: Iterator[tuple[int, bytes | None]], layout: _CsvLayout
) -> Iterator[tuple[int, _Hand | BadRecord]]:
    for number, raw in lines:
        try:
            if raw is None:
                raise _Bad(_TOO_LONG)
            yield number, _parse_csv(raw, layout)
        except _Bad as exc:
            yield number, BadRecord(number, str(exc))


def _json_records(
    first: tuple[int, bytes | None], lines: Iterator[tuple[int, bytes | None]], name: str
) -> Iterator[tuple[int, _Hand | BadRecord]]:
    """JSON lines; the first ``SNIFF_LINES`` are held back until one of them is a record."""
    held: list[tuple[int, _Hand | BadRecord]] = []
    it = iter([first])
    seen_record = False
    while True:
        item = next(it, None) or next(lines, None)
        if item is None:
            break
        number, raw = item
        try:
            if raw is None:
                raise _Bad(_TOO_LONG)
            out: _Hand | BadRecord = _parse_json(raw)
        except _Bad as exc:
            out = BadRecord(number, str(exc))
        if seen_record:
            yield number, out
            continue
        held.append((number, out))
        if isinstance(out, _Hand):
            seen_record = True
            yield from held
            held = []
        elif len(held) >= SNIFF_LINES:
            break
    if held:
        first_bad = held[0][1]
        assert isinstance(first_bad, BadRecord)
        within = f"its first {len(held)} lines" if len(held) >= SNIFF_LINES else "its lines"
        raise ReportError(
            f"{name} is not a capsa batch output: no batch record in {within} "
            f"(line {first_bad.line}: {first_bad.reason})"
        )


# --------------------------------------------------------------------------- the report


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
    _heap: list[tuple[float, int, _Hand, float, str]] = field(default_factory=list, repr=False)

    # ---- accumulating

    def add(self, h: _Hand) -> None:
        self.hands += 1
        self.setups[h.setup] += 1
        self.advice[h.action] += 1
        p = h.played
        if p is None:
            return
        self.played += 1
        units = p.loss if not h.staked else round(h.ev - p.ev, 6)
        key = categorize(
            h.action, p.loss, p.fouled, p.back_differs, p.front_win_change, p.middle_win_change
        )
        cat = _INDEX[key]
        self.loss_total += units
        self.loss_sumsq += units * units
        self.loss_max = max(self.loss_max, units)
        if p.loss_stderr is not None and not h.staked:
            self.sampling_var += p.loss_stderr * p.loss_stderr
            self.sampling_known += 1
        self.ev_best_total += h.ev
        self.ev_played_total += p.ev
        if h.staked:
            self.staked_hands += 1
            self.staked_loss_total += p.loss
        self.perfect += key == "perfect"
        self.fouls += p.fouled
        self.missed_naturals += h.action == "declare"
        self.missed_surrenders += h.action == "surrender"
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
        """Turn the heap of costliest hands into ``costliest`` (largest loss first)."""
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
        """The JSON shape of ``capsa report --format json`` (README, "Reports")."""
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
            "advice": {a: self.advice.get(a, 0) for a in _ACTIONS},
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


def _costly(h: _Hand, units: float, key: str) -> dict[str, Any]:
    p = h.played
    assert p is not None
    return {
        "line": h.line,
        "id": h.id,
        "hand": h.hand,
        "category": key,
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
        fmt, items = _records(stream, name)
        report = Report(source=name, format=fmt, top=top)
        for _, item in items:
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


# --------------------------------------------------------------------------- HTML

_COLORS = {
    "perfect": "#4c9a5b",
    "natural_not_declared": "#8e5ab5",
    "surrender_missed": "#7f7f7f",
    "fouled": "#c8403a",
    "wrong_back": "#e08a2c",
    "front_too_strong": "#3a78c2",
    "front_too_weak": "#41a6a6",
    "weaker_rows": "#9c6b4a",
    "other_split": "#b5a33a",
}
_SUITS = {"s": ("♠", "s"), "h": ("♥", "h"), "d": ("♦", "d"), "c": ("♣", "c")}

_CSS = """
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#222;
margin:0;background:#f6f6f3}
main{max-width:1100px;margin:0 auto;padding:24px 28px 48px}
h1{font-size:24px;margin:0 0 2px}h2{font-size:18px;margin:28px 0 8px}
.sub{color:#666;margin:0 0 18px}
.cards{display:grid;grid-template-columns:repeat(4,1fr);gap:10px}
.card{background:#fff;border:1px solid #e2e2dc;border-radius:8px;padding:10px 14px}
.card b{display:block;font-size:22px}.card span{color:#666;font-size:13px}
table{border-collapse:collapse;background:#fff;width:100%;font-size:14px}
th,td{padding:5px 9px;border-bottom:1px solid #ecece6;text-align:left;vertical-align:top}
th{background:#fafaf7;font-weight:600}td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}
.plots{display:grid;grid-template-columns:1fr 1fr;gap:12px}
.plot{background:#fff;border:1px solid #e2e2dc;border-radius:8px;padding:6px}
.plot.wide{grid-column:1 / span 2}.plot svg{width:100%;height:auto;display:block}
.sw{display:inline-block;width:11px;height:11px;border-radius:2px;margin-right:6px}
.c{white-space:nowrap;font-family:ui-monospace,Menlo,Consolas,monospace}
.h,.d{color:#c0392b}.s,.c.s{color:#222}.cl{color:#2e7d32}.dm{color:#1f5fbf}
.foul{color:#c8403a;font-weight:600}.why{color:#555;font-size:13px}.sub{padding-left:24px;color:#444}
.bad{color:#a33}
"""


def _esc(text: Any) -> str:
    import html

    return html.escape(str(text), quote=True)


def _cards_html(text: str) -> str:
    """'As Kd' as HTML with suit symbols (hearts red, diamonds blue, clubs green)."""
    out = []
    for card in text.split():
        rank, suit = card[:-1], card[-1:]
        sym, cls = _SUITS.get(suit, (suit, ""))
        cls = {"c": "cl", "d": "dm"}.get(cls, cls)
        out.append(f'<span class="{cls}">{_esc(rank)}{sym}</span>')
    return '<span class="c">' + " ".join(out) + "</span>"


def _fmt(x: float | None, spec: str = "+.3f") -> str:
    return "—" if x is None else format(x, spec)


def _svg(fig: Any) -> str:
    import io

    buf = io.StringIO()
    fig.savefig(buf, format="svg", metadata={"Date": None}, bbox_inches="tight")
    text = buf.getvalue()
    return text[text.index("<svg") :]


def _plots(report: Report) -> dict[str, str]:
    """The three plots as inline SVG: the loss distribution, the cumulative loss, and the
    loss by kind of mistake."""
    try:
        import matplotlib
    except ImportError:
        raise ReportError(
            "the HTML report draws its plots with matplotlib: pip install 'capsa[report]'"
        ) from None
    import numpy as np
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    style = {
        "svg.fonttype": "none",
        "font.size": 10,
        "axes.spines.top": False,
        "axes.spines.right": False,
        "axes.grid": True,
        "grid.color": "#e4e4de",
        "grid.linewidth": 0.7,
        "axes.axisbelow": True,
    }
    losses = np.frombuffer(report.losses, dtype=np.float64)
    cats = np.frombuffer(report.categories, dtype=np.uint8)
    out = {}
    with matplotlib.rc_context(style):
        # the distribution of the losses, stacked by kind of mistake
        fig = Figure(figsize=(5.6, 3.6), layout="constrained")
        ax = fig.add_subplot()
        positive = losses > 0
        if positive.any():
            lo = max(float(losses[positive].min()), 1e-4)
            hi = max(float(losses.max()), lo * 10)
            bins = np.geomspace(lo, hi * 1.0001, 31)
            groups = [
                (c, losses[positive & (cats == i)])
                for i, c in enumerate(CATEGORIES)
                if c.key != "perfect"
            ]
            groups = [(c, v) for c, v in groups if len(v)]
            ax.hist(
                [v for _, v in groups],
                bins=bins,
                stacked=True,
                color=[_COLORS[c.key] for c, _ in groups],
                label=[c.label for c, _ in groups],
            )
            ax.set_xscale("log")
            ax.yaxis.set_major_locator(MaxNLocator(integer=True))
            fig.legend(loc="outside lower center", ncols=3, fontsize=8, frameon=False)
        else:
            ax.text(0.5, 0.5, "no hand lost anything", ha="center", va="center")
        ax.set_xlabel("loss (units per opponent, log scale)")
        ax.set_ylabel("hands")
        ax.set_title(f"losses of the {int(positive.sum()):,} hands not played perfectly "
                     f"({report.perfect:,} perfect not shown)", fontsize=10)  # fmt: skip
        out["distribution"] = _svg(fig)

        # loss by kind of mistake
        fig = Figure(figsize=(5.6, 3.3))
        ax = fig.add_subplot()
        shown = [(i, c) for i, c in enumerate(CATEGORIES) if c.key != "perfect"][::-1]
        values = [report.category_loss[i] for i, _ in shown]
        bars = ax.barh(
            [c.label for _, c in shown], values, color=[_COLORS[c.key] for _, c in shown]
        )
        for bar, (i, _) in zip(bars, shown, strict=True):
            ax.annotate(
                f" {report.category_hands[i]:,} hand{'s' * (report.category_hands[i] != 1)}",
                (bar.get_width(), bar.get_y() + bar.get_height() / 2),
                va="center",
                fontsize=8,
                color="#555",
            )
        ax.set_xlim(0, max(max(values, default=0) * 1.3, 1e-9))
        ax.set_xlabel("total loss (units per opponent)")
        ax.set_title("loss by kind of mistake", fontsize=10)
        ax.grid(axis="y", visible=False)
        out["mistakes"] = _svg(fig)

        # cumulative loss over the file
        fig = Figure(figsize=(11.2, 3.0))
        ax = fig.add_subplot()
        if len(losses):
            cum = np.cumsum(losses)
            step = max(1, len(cum) // 2000)
            x = np.arange(1, len(cum) + 1)
            idx = np.unique(np.r_[np.arange(0, len(cum), step), len(cum) - 1])
            ax.plot(x[idx], cum[idx], color="#3a78c2", linewidth=1.4)
            fouled = np.flatnonzero(cats == _INDEX["fouled"])
            if len(fouled) and len(fouled) <= 200:
                ax.plot(x[fouled], cum[fouled], "o", color=_COLORS["fouled"], markersize=3.5,
                        label="fouled hands")  # fmt: skip
                ax.legend(fontsize=8, frameon=False, loc="upper left")
            ax.set_xlim(0, len(cum) + 1)
        ax.set_xlabel("played hands, in file order")
        ax.set_ylabel("cumulative loss (units)")
        ax.set_title("cumulative loss over the file", fontsize=10)
        out["cumulative"] = _svg(fig)
    return out


def render_html(report: Report) -> str:
    """One self-contained HTML page of the report (inline CSS and SVG; no network)."""
    d = report.to_dict()
    plots = _plots(report)
    loss = d["loss"]
    n = d["played"]
    setups = "; ".join(
        f"{s['rules']}, policy {s['policy']}, {s['players']} players ({s['hands']:,} hands)"
        for s in d["setups"]
    )
    if any(s["policy"] in ("field", "greedy") for s in d["setups"]):
        setups += " — the field model's values: the losses are approximate"
    perfect = d["perfect"]
    cards = [
        ("hands", f"{d['hands']:,}", f"{n:,} with a played setting"),
        (
            "loss_total",
            _fmt(loss["total"], ",.3f"),
            "units lost in all" + (
                f" (± {loss['sampling_stderr']:.3f} sampling)"
                if loss["sampling_stderr"] is not None else ""
            ),
        ),
        ("loss_mean", _fmt(loss["mean"], ".4f"), "units lost a hand, per opponent"),
        (
            "perfect",
            "—" if perfect["share"] is None else f"{perfect['share']:.1%}",
            f"{perfect['hands']:,} hands played perfectly",
        ),
        ("fouls", f"{d['fouls']:,}", "fouled settings"),
        ("missed_naturals", f"{d['missed_naturals']:,}", "naturals not declared"),
        ("missed_surrenders", f"{d['missed_surrenders']:,}", "surrenders missed"),
        ("bad_lines", f"{d['bad_lines']:,}", "bad lines left out"),
    ]  # fmt: skip
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>capsa report: {_esc(d['source'])}</title>",
        f"<style>{_CSS}</style></head><body><main>",
        f"<h1>capsa report: {_esc(d['source'])}</h1>",
        f'<p class="sub">{_esc(setups or "no hands")}</p>',
        '<div class="cards">',
    ]
    for key, value, label in cards:
        parts.append(
            f'<div class="card" data-key="{key}"><b>{_esc(value)}</b>'
            f"<span>{_esc(label)}</span></div>"
        )
    parts.append("</div>")

    parts.append('<h2>Plots</h2><div class="plots">')
    parts.append(f'<div class="plot" id="plot-distribution">{plots["distribution"]}</div>')
    parts.append(f'<div class="plot" id="plot-mistakes">{plots["mistakes"]}</div>')
    parts.append(f'<div class="plot wide" id="plot-cumulative">{plots["cumulative"]}</div>')
    parts.append("</div>")

    parts.append(
        '<h2>Where the loss went</h2><table id="mistakes"><tr><th>mistake</th>'
        '<th class="n">hands</th><th class="n">share</th><th class="n">loss</th>'
        '<th class="n">mean</th><th class="n">of the loss</th><th>what it means</th></tr>'
    )
    for c, m in zip(CATEGORIES, d["mistakes"], strict=True):
        parts.append(
            f'<tr data-category="{c.key}"><td><span class="sw" style="background:'
            f'{_COLORS[c.key]}"></span>{_esc(c.label)}</td>'
            f'<td class="n">{m["hands"]:,}</td><td class="n">{_fmt(m["share"], ".1%")}</td>'
            f'<td class="n">{_fmt(m["loss"], ",.3f")}</td>'
            f'<td class="n">{_fmt(m["mean_loss"], ".3f")}</td>'
            f'<td class="n">{_fmt(m["loss_share"], ".1%")}</td>'
            f'<td class="why">{_esc(c.why)}</td></tr>'
        )
        for nat in m.get("naturals", ()):  # each special hand not declared, by name
            parts.append(
                f'<tr data-category="{c.key}" data-natural="{_esc(nat["natural"] or "")}">'
                f'<td class="sub">{_esc(nat["label"])} not declared</td>'
                f'<td class="n">{nat["hands"]:,}</td><td class="n"></td>'
                f'<td class="n">{_fmt(nat["loss"], ",.3f")}</td>'
                f'<td class="n">{_fmt(nat["mean_loss"], ".3f")}</td>'
                '<td class="n"></td><td class="why"></td></tr>'
            )
    parts.append("</table>")

    labels = {c.key: c.label for c in CATEGORIES}
    parts.append(
        f'<h2>The {len(d["costliest"])} costliest hands</h2><table id="costliest"><tr>'
        '<th class="n">line</th><th>id</th><th class="n">loss</th><th>mistake</th>'
        '<th>advice</th><th class="n">ev</th><th>played</th><th class="n">ev</th></tr>'
    )
    for c in d["costliest"]:
        b, p = c["best"], c["played"]
        advice = " | ".join(_cards_html(b[r]) for r in ROWS)
        if b["action"] != "play":
            shown = f" {natural_label(b['natural'])}" if b.get("natural") else ""
            advice = f"<b>{_esc(b['action'] + shown)}</b> " + (
                advice if b["action"] == "declare" else ""
            )
        played = " | ".join(_cards_html(p[r]) for r in ROWS)
        if p["fouled"]:
            played += ' <span class="foul">fouled</span>'
        parts.append(
            f'<tr><td class="n">{_esc(c["line"] if c["line"] is not None else "")}</td>'
            f'<td>{_esc(c["id"] or "")}</td><td class="n">{c["loss"]:.3f}</td>'
            f"<td>{_esc(labels[c['category']])}</td>"
            f'<td>{advice}</td><td class="n">{_fmt(b["ev"])}</td>'
            f'<td>{played}</td><td class="n">{_fmt(p["ev"])}</td></tr>'
        )
    parts.append("</table>")
    parts.append('<h2>All figures</h2><table id="figures">')
    rows = [
        ("hands", "hands", f"{d['hands']:,}"),
        ("played", "hands with a played setting", f"{n:,}"),
        ("loss_total", "total loss (units per opponent)", _fmt(loss["total"], ".6f")),
        ("loss_mean", "mean loss a played hand", _fmt(loss["mean"], ".6f")),
        ("loss_mean_stderr", "its standard error (hand to hand)",
         _fmt(loss["mean_stderr"], ".6f")),
        ("sampling_stderr", "sampling error of the total (Monte Carlo)",
         _fmt(loss["sampling_stderr"], ".6f")),
        ("loss_median", "median loss", _fmt(loss["median"], ".6f")),
        ("loss_p90", "90th percentile of the loss", _fmt(loss["p90"], ".6f")),
        ("loss_max", "largest loss", _fmt(loss["max"], ".6f")),
        ("ev_advice", "mean value of the advice (units per opponent)",
         _fmt(d["ev"]["advice_mean"], "+.6f")),
        ("ev_played", "mean value as played", _fmt(d["ev"]["played_mean"], "+.6f")),
        ("perfect_hands", "played perfectly", f"{perfect['hands']:,}"),
        ("fouls", "fouled", f"{d['fouls']:,}"),
        ("missed_naturals", "naturals not declared", f"{d['missed_naturals']:,}"),
        ("missed_surrenders", "surrenders missed", f"{d['missed_surrenders']:,}"),
        ("bad_lines", "bad lines", f"{d['bad_lines']:,}"),
    ]  # fmt: skip
    if d["staked"]:
        st = d["staked"]
        rows += [
            ("staked_hands", "hands with stakes", f"{st['hands']:,}"),
            ("staked_loss_total", "total staked loss (money)", _fmt(st["loss_total"], ".6f")),
            ("staked_loss_mean", "mean staked loss a hand", _fmt(st["loss_mean"], ".6f")),
        ]
    for key, label, value in rows:
        parts.append(
            f'<tr data-key="{key}"><th>{_esc(label)}</th><td class="n">{_esc(value)}</td></tr>'
        )
    parts.append("</table>")

    if report.bad_lines:
        parts.append("<h2>Bad lines</h2><ul>")
        for bad in report.bad_lines:
            parts.append(f'<li class="bad">{_esc(bad.message())}</li>')
        if report.bad > len(report.bad_lines):
            parts.append(f"<li>… and {report.bad - len(report.bad_lines):,} more</li>")
        parts.append("</ul>")
    parts.append(
        '<p class="why">Losses are in units per opponent: the advised action\'s expected '
        "value minus the played setting's, against the same opponents. Made by capsa "
        "report.</p></main></body></html>"
    )
    return "\n".join(parts) + "\n"
