"""The one description of an answer and of a batch record: their keys, in order, what
each holds, and the CSV columns they flatten into.

An answer is ``Solution.to_dict()`` (``capsa solve --format json``, the web API); a
batch record is ``{"line": n, "id": id-or-null, **answer}``. From ``RECORD``:

- ``ANSWER_KEYS``: the answer's keys in order (``Solution.to_dict`` writes them so);
- ``COLUMNS``/``CSV_COLUMNS``: the columns a CSV batch output has, in order, each with
  where its value is in a record; ``flatten`` gives a record's cells (``capsa batch``
  writes them, ``capsa report`` reads them back into the record). The per-opponent
  lists take ``CSV_OPPONENTS`` (3) columns each, or one per opponent at a bigger table
  (``csv_columns(opponents)``: 4 at five players, 5 at six), so the CSV of a table of
  two to four players is what it always was;
- ``conforms``: whether a record holds the keys the schema names, in its order, with
  values of their kinds (the tests check real answers with it).

Kinds: ``text``, ``number`` (a finite float or int), ``whole`` (an int), ``bool``,
``action`` (play, declare or surrender), ``object`` (its fields follow), ``numbers``
(a list of numbers; ``width`` CSV columns, or more: ``csv_columns``), ``list`` (kept
out of CSV). Standard library only.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Mapping
from typing import Any, NamedTuple

__all__ = [
    "ACTIONS",
    "ANSWER",
    "ANSWER_KEYS",
    "COLUMNS",
    "CSV_COLUMNS",
    "CSV_OPPONENTS",
    "PARTS",
    "PLAYED",
    "PLAYED_CSV_COLUMNS",
    "RECORD",
    "Column",
    "Field",
    "columns",
    "conforms",
    "csv_columns",
    "csv_names",
    "flatten",
]

ACTIONS = ("play", "declare", "surrender")
_ROWS = ("front", "middle", "back")


class Field(NamedTuple):
    """One key of an answer: its kind, whether it may be null, and how it is flattened.

    ``column``: the name it adds to its CSV columns (None: its key; "": nothing, so
    ``row_stats.front.win`` is ``front_win`` and ``natural.name`` is ``natural``).
    ``csv``: an ordering of ``fields`` for the CSV columns when it differs from the
    JSON one; ``in_csv`` False keeps a field out of CSV. ``user`` marks a user's text
    (an id, a ruleset file's name), quoted in CSV so that no spreadsheet runs it.
    ``always`` False: the key may be left out (``played.ev_staked``, with stakes only)."""

    key: str
    kind: str
    null: bool = True
    fields: tuple[Field, ...] = ()
    column: str | None = None
    width: int = 0
    csv: tuple[str, ...] = ()
    in_csv: bool = True
    user: bool = False
    always: bool = True


def _f(key: str, kind: str, null: bool = True, **kw: Any) -> Field:
    return Field(key, kind, null, **kw)


def _rows(*keys: str, kinds: Mapping[str, str] | None = None) -> tuple[Field, ...]:
    """``front``, ``middle``, ``back``, each an object of these keys (numbers unless
    ``kinds`` says otherwise)."""
    kinds = kinds or {}
    inner = tuple(_f(k, kinds.get(k, "number")) for k in keys)
    return tuple(_f(r, "object", fields=inner) for r in _ROWS)


#: Where a setting's value comes from (``Solution.ev_parts``): units per opponent,
#: summing to its value.
PARTS: tuple[Field, ...] = tuple(
    _f(k, "number", False) for k in ("rows", "bonus", "royalties", "naturals")
)

#: What the player did (``Solution.played``) beside the advice: a setting played, or
#: the natural declared, or a surrender (no rows).
PLAYED: tuple[Field, ...] = (
    _f("action", "action", False),
    *(_f(r, "text") for r in _ROWS),
    _f("ev", "number", False),
    _f("loss", "number", False),
    _f("loss_stderr", "number"),
    _f("rank", "whole"),
    _f("of", "whole"),
    _f("fouled", "bool", False),
    _f(
        "rows",
        "object",
        fields=_rows("differs", "win", "tie", "loss", "win_change", kinds={"differs": "bool"}),
        column="",
    ),
    _f("ev_parts", "object", fields=PARTS),
    _f("ev_staked", "number", always=False),
)

#: An answer, ``Solution.to_dict()``, in its order.
ANSWER: tuple[Field, ...] = (
    _f("hand", "text", False),
    _f("rules", "text", False, user=True),
    _f("policy", "text", False),
    _f("players", "whole", False),
    _f("samples", "whole"),
    _f("seed", "whole"),
    _f("opponents", "text", user=True),
    _f("action", "action", False),
    *(_f(r, "text", False) for r in _ROWS),
    _f("ev", "number", False),
    _f("ev_total", "number", False),
    _f("ev_play", "number", False),
    _f("ev_parts", "object", fields=PARTS),
    _f("stderr", "number"),
    _f("row_stats", "object", fields=_rows("win", "tie", "loss"), column=""),
    _f("alternatives", "list", False, in_csv=False),
    _f(
        "natural",
        "object",
        fields=(
            _f("name", "text", False, column=""),
            _f("declared", "bool", False),
            _f("ev_declare", "number", False),
            _f("ev_play", "number", False),
        ),
    ),
    _f(
        "surrender",
        "object",
        False,
        fields=(
            _f("cost", "number"),
            _f("recommended", "bool", False),
            _f("ev_play", "number", False, in_csv=False),
        ),
    ),
    _f("candidates", "whole"),
    _f("stakes", "numbers", width=3, column="stake"),
    _f("ev_staked", "number"),
    _f("ev_by_opponent", "numbers", width=3, column="ev_opponent"),
    _f(
        "played",
        "object",
        fields=PLAYED,
        # CSV: the staked value beside the value
        csv=(
            "action",
            "front",
            "middle",
            "back",
            "ev",
            "ev_staked",
            "loss",
            "loss_stderr",
            "rank",
            "of",
            "fouled",
            "rows",
            "ev_parts",
        ),  # fmt: skip
    ),
)

#: A batch record: the input line's number and id, then the answer.
RECORD = _f(
    "",
    "object",
    False,
    fields=(_f("line", "whole"), _f("id", "text", user=True), *ANSWER),
    # CSV: the count of candidates with the figures, the staked value before the stakes
    csv=(
        "line",
        "id",
        "hand",
        "rules",
        "policy",
        "players",
        "samples",
        "seed",
        "opponents",
        "action",
        "front",
        "middle",
        "back",
        "ev",
        "ev_total",
        "ev_play",
        "stderr",
        "ev_parts",
        "candidates",
        "row_stats",
        "natural",
        "surrender",
        "ev_staked",
        "stakes",
        "ev_by_opponent",
        "played",
    ),  # fmt: skip
)

ANSWER_KEYS: tuple[str, ...] = tuple(f.key for f in ANSWER)


class Column(NamedTuple):
    """A CSV column: its name, where its value is in a record, and the field there."""

    name: str
    path: tuple[str | int, ...]
    field: Field


def _csv_fields(obj: Field) -> Iterator[Field]:
    by_key = {f.key: f for f in obj.fields}
    for key in obj.csv or by_key:
        if by_key[key].in_csv:
            yield by_key[key]


def columns(
    obj: Field = RECORD, path: tuple[str | int, ...] = (), name: str = "", opponents: int = 0
) -> Iterator[Column]:
    """The CSV columns of ``obj``'s fields, in CSV order (see ``Field``); a list of
    numbers takes its ``width`` columns, or ``opponents`` when that is more."""
    for f in _csv_fields(obj):
        part = f.key if f.column is None else f.column
        full = "_".join(p for p in (name, part) if p)
        if f.kind == "object":
            yield from columns(f, (*path, f.key), full, opponents)
        elif f.kind == "numbers":
            for j in range(max(f.width, opponents)):
                yield Column(f"{full}_{j + 1}", (*path, f.key, j), f)
        else:
            yield Column(full, (*path, f.key), f)


#: The per-opponent columns of every CSV up to four players (``stake_1..3``,
#: ``ev_opponent_1..3``); a bigger table has one per opponent.
CSV_OPPONENTS = 3


def csv_columns(opponents: int = CSV_OPPONENTS) -> tuple[Column, ...]:
    """The CSV columns of a batch of ``opponents`` opponents a hand: ``COLUMNS`` up to
    ``CSV_OPPONENTS`` (the CSV of two to four players never changes), else with one
    ``stake_N`` and one ``ev_opponent_N`` column per opponent."""
    return _csv_columns(max(opponents, CSV_OPPONENTS))


@functools.cache
def _csv_columns(width: int) -> tuple[Column, ...]:
    return tuple(columns(opponents=width))


def csv_names(opponents: int = CSV_OPPONENTS) -> tuple[str, ...]:
    """The header of a batch CSV of ``opponents`` opponents a hand (``csv_columns``)."""
    return tuple(c.name for c in csv_columns(opponents))


COLUMNS: tuple[Column, ...] = csv_columns()
CSV_COLUMNS: tuple[str, ...] = tuple(c.name for c in COLUMNS)
#: ``played`` flattened (empty cells when the line gave no setting).
PLAYED_CSV_COLUMNS: tuple[str, ...] = tuple(c.name for c in COLUMNS if c.path[0] == "played")


def _at(record: Any, path: tuple[str | int, ...]) -> Any:
    value = record
    for step in path:
        if isinstance(step, int):
            value = value[step] if isinstance(value, list) and step < len(value) else None
        else:
            value = value.get(step) if isinstance(value, dict) else None
        if value is None:
            return None
    return value


def flatten(
    record: Mapping[str, Any], opponents: int = CSV_OPPONENTS
) -> Iterator[tuple[Column, Any]]:
    """Every CSV column of ``record`` with its value (None where the record has none), for
    a batch of ``opponents`` opponents a hand (``csv_columns``)."""
    for col in csv_columns(opponents):
        yield col, _at(record, col.path)


def conforms(value: Any, obj: Field = RECORD, where: str = "") -> list[str]:
    """What in ``value`` departs from ``obj`` (the record, or one of its objects): keys
    missing, unknown or out of order, values of the wrong kind. Empty when it conforms."""
    if not isinstance(value, dict):
        return [f"{where or 'record'} is not an object"]
    keys = [f.key for f in obj.fields]
    have = [k for k in value if k in keys]
    problems = [f"{where}{k}: unknown key" for k in value if k not in keys]
    problems += [f"{where}{f.key}: missing" for f in obj.fields if f.always and f.key not in value]
    if have != [k for k in keys if k in value]:
        problems.append(f"{where or 'record'}: keys out of order {list(value)}")
    for f in obj.fields:
        if f.key in value:
            problems += _kind_problems(value[f.key], f, f"{where}{f.key}")
    return problems


def _kind_problems(v: Any, f: Field, where: str) -> list[str]:
    if v is None:
        return [] if f.null else [f"{where}: null"]
    ok = {
        "text": lambda: isinstance(v, str),
        "number": lambda: isinstance(v, int | float) and not isinstance(v, bool),
        "whole": lambda: isinstance(v, int) and not isinstance(v, bool),
        "bool": lambda: isinstance(v, bool),
        "action": lambda: v in ACTIONS,
        "list": lambda: isinstance(v, list),
        "numbers": lambda: (
            isinstance(v, list)
            and all(isinstance(x, int | float) and not isinstance(x, bool) for x in v)
        ),
        "object": lambda: True,
    }[f.kind]()
    if not ok:
        return [f"{where}: not {f.kind} ({v!r})"]
    if f.kind == "object":
        return conforms(v, f, f"{where}.")
    return []
