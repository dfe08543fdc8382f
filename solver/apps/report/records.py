"""Reading a batch output: JSON lines or CSV, line by line, into what the report needs of
each record (``Hand``), or the reason a line is not a record (``BadRecord``).

One reader (``hand_from_record``) takes a record as ``solver.strategy.solving.schema`` describes
it; a CSV row is first turned back into that record (``unflatten``: each cell converted
to its column's kind). Lines are read as batch reads its input: a line longer than
``MAX_LINE`` is dropped as it is read, so memory stays bounded.

Bad lines (not JSON, not UTF-8, a JSON value that is not a batch record, a CSV row with
the wrong number of cells, a field of the wrong type, a number larger than ``MAX_VALUE``
in size, text holding a lone surrogate, a line longer than ``MAX_LINE``) come out as
``BadRecord`` with their line number (the value quoted short). A file that is not a
batch output at all (a CSV without batch's columns, JSON lines none of whose first
``SNIFF_LINES`` is a record, a first line longer than ``MAX_LINE``) raises
``ReportError``.
"""

from __future__ import annotations

import csv
import itertools
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import IO, Any, NamedTuple

from solver.apps.batch.reading import MAX_LINE, read_lines
from solver.apps.batch.records import csv_text_value
from solver.engine.errors import InputError
from solver.engine.inputs import quote, visible
from solver.engine.table_shape import TABLE_MAX_PLAYERS
from solver.strategy.solving.schema import ACTIONS, Column, csv_columns

__all__ = [
    "MAX_VALUE",
    "SNIFF_LINES",
    "BadRecord",
    "Hand",
    "Played",
    "ReportError",
    "hand_from_record",
    "read_records",
    "record_deck",
    "unflatten",
]

#: How many content lines may pass before a JSON-lines file must have shown a record.
SNIFF_LINES = 50
#: The largest value (in size) a record may hold: far above any payout capsa makes
#: (payouts and stakes are at most 1,000,000 each), so every sum of them stays finite.
MAX_VALUE = 1e30
_ROWS = ("front", "middle", "back")
#: The keys a record must have (and a CSV output's columns).
NEEDED = ("hand", "action", "front", "middle", "back", "ev")


class ReportError(InputError):
    """The input cannot be reported on (unreadable, or not a batch output): one line."""


@dataclass(frozen=True)
class BadRecord:
    """A line of RESULTS that is not a batch record: its number and why."""

    line: int
    reason: str

    def message(self) -> str:
        """One line for a person (characters a terminal would act on escaped)."""
        return f"line {self.line}: {visible(self.reason)}"


class Bad(Exception):
    """A line that is not a record (the message is the reason)."""


class Played(NamedTuple):
    """What the report needs of a record's ``played``."""

    rows: tuple[str, str, str]  # "" for a surrender's
    ev: float
    loss: float  # the record's: units per opponent, or money with stakes
    loss_stderr: float | None
    fouled: bool
    back_differs: bool
    front_win_change: float | None
    middle_win_change: float | None
    rank: int | None
    of: int | None
    action: str = "play"  # or what was done instead: declare, surrender
    parts: tuple[float, float, float, float] | None = None  # the setting's ev_parts
    back_win_change: float | None = None
    wins: tuple[float | None, float | None, float | None] = (None, None, None)  # rows' win rates


class Hand(NamedTuple):
    """What the report needs of one record."""

    line: int | None
    id: str | None
    hand: str
    setup: tuple[str, str, int | None]  # rules, policy, players
    action: str
    best: tuple[str, str, str]
    ev: float
    staked: bool
    played: Played | None
    natural: str | None = None  # the natural the hand holds (its ruleset name), if any
    parts: tuple[float, float, float, float] | None = None  # the best setting's ev_parts
    wins: tuple[float | None, float | None, float | None] = (None, None, None)  # row_stats' win


def record_deck(rules: str, players: int | None, hand: str = "") -> str:
    """The deck code (``evaluator.cards``) of the deck a record's cards are of: its added
    suits, then its jokers. Suits: the 52-card deck's ``""`` up to the players it deals,
    else the deck the record's table (``shisanshui-5``, the preset seated at five:
    ``solver.engine.seating``) adds, or both added suits (``"hc"``, the most copies a row
    can hold) for a ruleset the report does not know. Jokers: as many as the rules' name
    says (``shisanshui-jokers-2``, ``shisanshui-5-jokers-1``: ``seating.with_jokers``),
    else, when the record's ``hand`` holds a joker (a ruleset file's name need not say),
    the most a deck deals (``"XX"``)."""
    from evaluator.cards import JOKER, MAX_JOKERS

    named = _JOKERS_NAME.fullmatch(rules)
    if named is not None:
        rules, jokers = named["table"], int(named["jokers"])
    else:
        jokers = MAX_JOKERS if JOKER in hand.upper() or "\U0001f0cf" in hand else 0
    return _record_suits(rules, players) + JOKER * jokers


#: A ruleset given jokers by ``solver.engine.seating.with_jokers``: ``NAME-jokers-N``.
_JOKERS_NAME = re.compile(r"(?P<table>.+)-jokers-(?P<jokers>[12])")


def _record_suits(rules: str, players: int | None) -> str:
    """The added suits of ``record_deck``."""
    from solver.engine.seating import BIG_TABLES
    from solver.engine.table_shape import STANDARD_DECK

    if players is None or players <= STANDARD_DECK.most_players():
        return ""
    base, _, seats = rules.rpartition("-")
    table = BIG_TABLES.get(base)
    if table is not None and seats == str(players) and players in table.extra_suits:
        return table.extra_suits[players]
    return "hc"


# --------------------------------------------------------------------------- values


def _number(value: Any, name: str, null: bool = False) -> float | None:
    kind = type(value)
    if (kind is float or kind is int) and -MAX_VALUE <= value <= MAX_VALUE:  # not NaN
        return float(value)
    if value is None and null:
        return None
    if kind is bool or not isinstance(value, int | float):
        raise Bad(f"'{name}' is not a number ({quote(value)})")
    raise Bad(f"'{name}' is out of range ({quote(value)}; at most {MAX_VALUE:g} in size)")


def _text(value: Any, name: str) -> str:
    if type(value) is not str:
        raise Bad(f"'{name}' is not text ({quote(value)})")
    return value


def _whole(value: Any, name: str) -> int | None:
    if value is None or type(value) is int:
        return value
    raise Bad(f"'{name}' is not a whole number ({quote(value)})")


def _object(value: Any, name: str) -> dict[str, Any]:
    if type(value) is dict:
        return value
    if value is None:
        return {}
    raise Bad(f"'{name}' is not an object ({quote(value)})")


# --------------------------------------------------------------------------- the reader


def hand_from_record(rec: Any) -> Hand:
    """A record (``{"line", "id", **Solution.to_dict()}``, as ``solver.strategy.solving.schema``
    describes it) as a ``Hand``; ``Bad`` says what is wrong. Only what the report uses
    is checked: the rows and values, the played setting, the setup shown as text."""
    try:
        hand, action, ev = rec["hand"], rec["action"], rec["ev"]
        best = (rec["front"], rec["middle"], rec["back"])
    except (KeyError, TypeError):
        if type(rec) is not dict:
            name = type(rec).__name__
            raise Bad(f"not a capsa batch record (a JSON {name}, not an object)") from None
        missing = next(key for key in NEEDED if key not in rec)
        raise Bad(f"not a capsa batch record (no '{missing}')") from None
    if action not in ACTIONS:
        raise Bad(f"'action' is not one of {', '.join(ACTIONS)} ({quote(action)})")
    if not (type(hand) is str and _texts(best)):
        _text(hand, "hand")
        _texts(best, "")
    get = rec.get
    ident, played = get("id"), get("played")
    return Hand(
        _whole(get("line"), "line"),
        None if ident is None else str(ident),
        hand,
        (str(get("rules") or "?"), str(get("policy") or "?"), _whole(get("players"), "players")),
        action,
        best,
        _number(ev, "ev"),  # type: ignore[arg-type]
        get("stakes") is not None,
        None if played is None else _played(played),
        _natural_name(get("natural")),
        _parts(get("ev_parts"), "ev_parts"),
        _wins(_object(get("row_stats"), "row_stats"), "row_stats."),
    )


def _wins(stats: dict[str, Any], where: str) -> tuple[float | None, float | None, float | None]:
    """The rows' win rates of a ``row_stats`` (or ``played.rows``) object, None where
    the record gives none."""
    try:  # the common case: three win rates as batch writes them
        f, m, b = stats["front"]["win"], stats["middle"]["win"], stats["back"]["win"]
        if type(f) is type(m) is type(b) is float and 0 <= f <= 1 and 0 <= m <= 1 and 0 <= b <= 1:
            return f, m, b
    except (KeyError, TypeError):
        pass
    return tuple(  # type: ignore[return-value]
        _number(_object(stats.get(r), where + r).get("win"), f"{where}{r}.win", True) for r in _ROWS
    )


#: The parts of a value (``ev_parts``), in order.
PARTS = ("rows", "bonus", "royalties", "naturals")


def _parts(parts: Any, where: str) -> tuple[float, float, float, float] | None:
    """A record's ``ev_parts`` (null, or an object of the four numbers) as a tuple."""
    if parts is None:
        return None
    obj = _object(parts, where)
    if all(obj.get(k) is None for k in PARTS):  # a CSV row's empty cells
        return None
    return tuple(_number(obj.get(k), f"{where}.{k}") for k in PARTS)  # type: ignore[return-value]


def _texts(rows: tuple[Any, Any, Any], where: str | None = None) -> bool:
    """Whether the three rows are text; with ``where``, ``Bad`` naming the first that is
    not (``where`` + ``front``...)."""
    if where is None:
        return type(rows[0]) is str and type(rows[1]) is str and type(rows[2]) is str
    for name, row in zip(_ROWS, rows, strict=True):
        _text(row, where + name)
    return True


def _natural_name(natural: Any) -> str | None:
    """The name of a record's ``natural`` (null or ``{"name": ...}``), for display only."""
    name = natural.get("name") if type(natural) is dict else None
    return name if type(name) is str else None


def _played(p: Any) -> Played:
    try:
        rows = (p["front"], p["middle"], p["back"])
        ev, loss, fouled = p["ev"], p["loss"], p["fouled"]
    except (KeyError, TypeError):
        if type(p) is not dict:
            raise Bad(f"'played' is not an object or null ({quote(p)})") from None
        missing = next(k for k in ("front", "middle", "back", "ev", "loss", "fouled") if k not in p)
        raise Bad(f"'played' has no '{missing}'") from None
    if type(fouled) is not bool:
        raise Bad(f"'played.fouled' is not true or false ({quote(fouled)})")
    get = p.get
    action = get("action", "play")
    if action not in ACTIONS:
        raise Bad(f"'played.action' is not one of {', '.join(ACTIONS)} ({quote(action)})")
    if action != "play":  # a declared natural shows its rows; a surrender has none
        rows = tuple("" if r is None else r for r in rows)
    if not _texts(rows):
        _texts(rows, "played.")
    stats = _object(get("rows"), "played.rows")
    front = _object(stats.get("front"), "played.rows.front")
    middle = _object(stats.get("middle"), "played.rows.middle")
    back = _object(stats.get("back"), "played.rows.back")
    differs = back.get("differs")
    if differs is not None and type(differs) is not bool:
        raise Bad(f"'played.rows.back.differs' is not true or false ({quote(differs)})")
    return Played(
        rows,
        _number(ev, "played.ev"),  # type: ignore[arg-type]
        _number(loss, "played.loss"),  # type: ignore[arg-type]
        _number(get("loss_stderr"), "played.loss_stderr", null=True),
        fouled,
        bool(differs),
        _number(front.get("win_change"), "played.rows.front.win_change", True),
        _number(middle.get("win_change"), "played.rows.middle.win_change", True),
        _whole(get("rank"), "played.rank"),
        _whole(get("of"), "played.of"),
        action,
        _parts(get("ev_parts"), "played.ev_parts"),
        _number(back.get("win_change"), "played.rows.back.win_change", True),
        _wins(stats, "played.rows."),
    )


# --------------------------------------------------------------------------- CSV


def _cell(text: str, col: Column) -> Any:
    """A CSV cell (not empty) as its column's kind; ``Bad`` naming the column."""
    kind = col.field.kind
    try:
        if kind in ("number", "numbers"):
            value = float(text)
            if not -MAX_VALUE <= value <= MAX_VALUE:
                raise Bad(
                    f"column '{col.name}' is out of range ({quote(text)}; "
                    f"at most {MAX_VALUE:g} in size)"
                )
            return value
        if kind == "whole":
            return int(text)
    except ValueError:
        what = "a number" if kind != "whole" else "a whole number"
        raise Bad(f"column '{col.name}' is not {what} ({quote(text)})") from None
    if kind == "bool":
        if text not in ("true", "false"):
            raise Bad(f"column '{col.name}' is not true or false ({quote(text)})")
        return text == "true"
    return csv_text_value(text) if col.field.user else text


def unflatten(cells: list[str], header: tuple[Column | None, ...]) -> dict[str, Any]:
    """A CSV row of a batch output back into its record: each cell converted to its
    column's kind; an empty cell is a value left out (so ``played`` is null on a line
    that gave no setting). Columns capsa does not write (None in ``header``) are
    skipped. The cells the report cannot do without (``NEEDED``, and the played
    setting's value, loss and foul) must not be empty."""
    if len(cells) != len(header):
        raise Bad(f"expected {len(header)} CSV cells, got {len(cells)}")
    record: dict[str, Any] = {}
    for text, col in zip(cells, header, strict=True):
        if col is None or text == "":
            continue
        *parents, last = col.path
        node: Any = record
        for step in parents[:-1]:
            node = node.setdefault(step, {})
        if isinstance(last, int):  # stake_1..3 (..5 at six players): a list
            items = node.setdefault(parents[-1], [])
            items.extend([None] * (last + 1 - len(items)))
            items[last] = _cell(text, col)
        else:
            if parents:
                node = node.setdefault(parents[-1], {})
            node[last] = _cell(text, col)
    for key in NEEDED:
        if key not in record:
            if key == "ev":
                raise Bad("column 'ev' is empty")
            record[key] = ""
    played = record.get("played")
    for key in ("ev", "loss", "fouled") if played is not None else ():
        if key not in played:
            raise Bad(f"column 'played_{key}' is empty")
    return record


def csv_header(fields: list[str]) -> tuple[Column | None, ...] | None:
    """The columns of a batch CSV header (None for a column capsa does not write), or
    None if ``fields`` is not one: it must name ``line`` and ``NEEDED``. A table of five
    or six writes a per-opponent column for each opponent (``csv_columns``)."""
    by_name = {c.name: c for c in csv_columns(TABLE_MAX_PLAYERS - 1)}
    names = [f.strip() for f in fields]
    if not all(k in names for k in ("line", *NEEDED)):
        return None
    return tuple(by_name.get(n) for n in names)


# --------------------------------------------------------------------------- lines


_TOO_LONG = f"line longer than {MAX_LINE:,} bytes"


def _lines(stream: IO[bytes]) -> Iterator[tuple[int, bytes | None]]:
    """``(line number, stripped line)`` of every non-blank physical line, None for a line
    longer than ``MAX_LINE``."""
    for number, raw in read_lines(stream):
        if raw is None or raw:
            yield number, raw


def _decoded(raw: bytes | None) -> str:
    if raw is None:
        raise Bad(_TOO_LONG)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise Bad(f"not UTF-8 text (bad byte at {exc.start + 1})") from None


def _json_hand(raw: bytes | None) -> Hand:
    text = _decoded(raw)
    try:
        rec = json.loads(text)
    except RecursionError:
        raise Bad("not a capsa batch record (JSON nested too deep)") from None
    except ValueError as exc:
        raise Bad(f"not JSON ({exc})") from None
    if "\\u" in text:  # an escaped lone surrogate is JSON, but not text
        _check_text(rec)
    return hand_from_record(rec)


def _check_text(rec: Any) -> None:
    """``Bad`` when a string in ``rec`` holds a lone surrogate (``"\\ud800"``)."""
    try:
        json.dumps(rec, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError as exc:
        bad = exc.object[exc.start : exc.end]
        raise Bad(f"not text: holds a lone surrogate ({visible(bad)})") from None
    except (ValueError, RecursionError):
        pass  # not a record anyway: hand_from_record says why


def _csv_hand(raw: bytes | None, header: tuple[Column, ...]) -> Hand:
    text = _decoded(raw)
    try:
        cells = next(csv.reader([text]))
    except (csv.Error, StopIteration) as exc:
        raise Bad(f"not a CSV row ({exc})") from None
    return hand_from_record(unflatten(cells, header))


def read_records(stream: IO[bytes], name: str) -> tuple[str, Iterator[Hand | BadRecord]]:
    """The format (``jsonl`` or ``csv``) and every record or bad line, in file order.

    Raises ``ReportError`` when the input is not a batch output at all.
    """
    lines = _lines(stream)
    first = next(lines, None)
    if first is None:
        return "jsonl", iter(())
    number, raw = first
    if raw is None:
        raise ReportError(f"{name} is not a capsa batch output: its line {number} is a {_TOO_LONG}")
    if raw.startswith(b"{"):
        return "jsonl", _json_records(first, lines, name)
    try:
        fields = next(csv.reader([raw.decode("utf-8")]))
    except (UnicodeDecodeError, csv.Error, StopIteration):
        fields = []
    header = csv_header(fields)
    if header is None:
        raise ReportError(
            f"{name} is not a capsa batch output: line {number} is neither a JSON record"
            f" nor a CSV header naming the columns {', '.join(('line', *NEEDED))}"
        )
    return "csv", _each(lines, lambda raw: _csv_hand(raw, header))


def _each(
    lines: Iterator[tuple[int, bytes | None]], parse: Callable[[bytes | None], Hand]
) -> Iterator[Hand | BadRecord]:
    for number, raw in lines:
        try:
            yield parse(raw)
        except Bad as exc:
            yield BadRecord(number, str(exc))


def _json_records(
    first: tuple[int, bytes | None], lines: Iterator[tuple[int, bytes | None]], name: str
) -> Iterator[Hand | BadRecord]:
    """JSON lines; the first ``SNIFF_LINES`` are held back until one of them is a record."""
    items = _each(itertools.chain([first], lines), _json_hand)
    held: list[Hand | BadRecord] = []
    for item in items:
        held.append(item)
        if isinstance(item, Hand):
            yield from held
            yield from items
            return
        if len(held) >= SNIFF_LINES:
            break
    if held:
        first_bad = held[0]
        assert isinstance(first_bad, BadRecord)
        within = f"its first {len(held)} lines" if len(held) >= SNIFF_LINES else "its lines"
        raise ReportError(
            f"{name} is not a capsa batch output: no batch record in {within} "
            f"(line {first_bad.line}: {first_bad.reason})"
        )
