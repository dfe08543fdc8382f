"""Reading the input: physical lines, CSV header and rows, ids, and one line's hand.

Input, one hand per line (line numbers count every physical line, from 1):

* blank lines and lines whose first non-blank character is ``#`` are skipped;
* the cards may be in any spelling ``evaluator.parse_cards`` accepts;
* a line may carry an id before the cards: ``id: cards`` (the id is everything before
  the *last* colon; cards never contain one), or ``id<TAB>cards``, or ``id cards`` when
  the first field (up to the first tab, else the first space) is not card text. An id
  that is itself card text (``As``) needs the colon form;
* CSV input (a file named ``*.csv``, or any input whose first line is a header such as
  ``id,hand``): a header naming a ``hand`` column and optionally an ``id`` column
  (other columns are ignored), then one row per hand. Comments and blank lines are
  skipped here too; a row cannot span lines.

Nothing here knows about workers, records or files being written.
"""

from __future__ import annotations

import csv
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, NamedTuple

from solver.apps.batch.errors import BatchError

__all__ = [
    "MAX_LINE",
    "BadLine",
    "CsvSpec",
    "count_lines",
    "csv_header",
    "is_content",
    "parse_line",
    "read_hand",
    "read_lines",
    "split_id",
]

#: Lines longer than this (bytes) are reported as bad without being parsed.
MAX_LINE = 65536

#: ``(line number, stripped bytes)``; None for a line longer than ``MAX_LINE``.
Line = tuple[int, bytes | None]


@dataclass(frozen=True)
class BadLine:
    """A line that is not a hand: its number, id (if one was read) and why."""

    line: int
    id: str | None
    reason: str
    text: str = ""

    def message(self) -> str:
        where = f"line {self.line}" + (f" (id {self.id})" if self.id is not None else "")
        return f"{where}: {self.reason}"


class CsvSpec(NamedTuple):
    """Where the hand (and the id) sit in a CSV input's rows."""

    fields: int
    hand: int
    id: int  # -1: no id column


# --------------------------------------------------------------------------------------
# Physical lines
# --------------------------------------------------------------------------------------


def read_lines(stream: IO[bytes]) -> Iterator[Line]:
    """``(line number, stripped line)`` for every physical line; None for an over-long one."""
    line = 0
    while True:
        raw = stream.readline(MAX_LINE + 1)
        if not raw:
            return
        line += 1
        if len(raw) > MAX_LINE and not raw.endswith(b"\n"):
            while (more := stream.readline(MAX_LINE + 1)) and not more.endswith(b"\n"):
                pass
            yield line, None
            continue
        if line == 1 and raw.startswith(b"\xef\xbb\xbf"):
            raw = raw[3:]
        yield line, raw.strip()


def count_lines(path: Path) -> int | None:
    """Lines in a regular file, counted in 1 MiB blocks (None for pipes and such)."""
    try:
        if not stat.S_ISREG(path.stat().st_mode):
            return None
        n = 0
        last = b"\n"
        with path.open("rb") as f:
            while block := f.read(1 << 20):
                n += block.count(b"\n")
                last = block[-1:]
        return n + (last != b"\n")
    except OSError:
        return None


def is_content(raw: bytes | None) -> bool:
    """Whether a stripped line holds a hand (or is over-long): not blank, not a comment."""
    return raw is None or (bool(raw) and not raw.startswith(b"#"))


# --------------------------------------------------------------------------------------
# CSV
# --------------------------------------------------------------------------------------


def csv_header(raw: bytes, *, required: bool, name: str) -> CsvSpec | None:
    """The CSV layout if ``raw`` is a header line naming a ``hand`` column.

    ``required`` (a file named ``*.csv``): raise ``BatchError`` when it is not one.
    """
    try:
        fields = [f.strip().lower() for f in next(csv.reader([raw.decode("utf-8")]))]
    except (UnicodeDecodeError, StopIteration, csv.Error):
        fields = []
    names_only = all(f.replace("_", "").isalnum() and not f[:1].isdigit() for f in fields)
    if "hand" in fields and names_only and len(set(fields)) == len(fields):
        return CsvSpec(
            len(fields), fields.index("hand"), fields.index("id") if "id" in fields else -1
        )
    if required:
        raise BatchError(
            f"{name}: a CSV input starts with a header naming a 'hand' column (e.g. id,hand)"
        )
    return None


# --------------------------------------------------------------------------------------
# Ids and hands
# --------------------------------------------------------------------------------------

_PLAIN: dict[str, int] = {}


def _plain() -> dict[str, int]:
    """``{"As": 51, "as": 51, "AS": 51, ...}``: the common spellings, for the quick path."""
    if not _PLAIN:
        from evaluator import RANKS, SUITS

        for r, rank in enumerate(RANKS):
            for s, suit in enumerate(SUITS):
                for text in (rank + suit, rank.lower() + suit, rank + suit.upper()):
                    _PLAIN[text] = r * 4 + s
    return _PLAIN


def _quick_hand(cards: str) -> Any:
    """13 distinct space-separated cards in a common spelling, else None (parse fully)."""
    import numpy as np

    table = _plain()
    tokens = cards.split()
    if len(tokens) != 13:
        return None
    ids = [table.get(t, -1) for t in tokens]
    if -1 in ids or len(set(ids)) != 13:
        return None
    return np.array(ids, dtype=np.uint8)


def _is_card_text(text: str) -> bool:
    from evaluator import CardParseError, parse_cards

    if text in _plain():
        return True
    try:
        parse_cards(text, allow_duplicates=True)
    except CardParseError:
        return False
    return True


def split_id(text: str) -> tuple[str | None, str]:
    """``(id or None, card text)`` of a plain (not CSV) line."""
    if ":" in text:
        ident, _, cards = text.rpartition(":")
        return ident.strip() or None, cards
    if "\t" in text:
        head, _, rest = text.partition("\t")
    else:
        parts = text.split(None, 1)
        head, rest = (parts[0], parts[1]) if len(parts) == 2 else (text, "")
    head = head.strip()
    if rest.strip() and head and not _is_card_text(head):
        return head, rest
    return None, text


def parse_line(text: str, csv_spec: CsvSpec | None = None) -> tuple[str | None, Any]:
    """``(id, hand ids)`` of one input line (already stripped, not a comment).

    Raises ``CardParseError`` (or ``BatchError`` for a bad CSV row) carrying the id read
    so far in ``.line_id``.
    """
    from evaluator import parse_hand

    if csv_spec is not None:
        fields = next(csv.reader([text]))
        ident = (fields[csv_spec.id].strip() or None) if 0 <= csv_spec.id < len(fields) else None
        if len(fields) != csv_spec.fields:
            exc = BatchError(f"expected {csv_spec.fields} CSV fields, got {len(fields)}")
            exc.line_id = ident  # type: ignore[attr-defined]
            raise exc
        cards = fields[csv_spec.hand]
    else:
        ident, cards = split_id(text)
    hand = _quick_hand(cards)
    if hand is not None:
        return ident, hand
    try:
        return ident, parse_hand(cards)
    except ValueError as exc:
        exc.line_id = ident  # type: ignore[attr-defined]
        raise


def read_hand(
    line: int, raw: bytes | None, csv_spec: CsvSpec | None
) -> tuple[str | None, Any] | BadLine:
    """``(id, hand ids)`` of a physical line as ``read_lines`` gives it, or the
    ``BadLine`` saying why it is not a hand."""
    if raw is None:
        return BadLine(line, None, f"line longer than {MAX_LINE} bytes")
    try:
        text = raw.decode("utf-8").strip()
    except UnicodeDecodeError as exc:
        return BadLine(line, None, f"not UTF-8 text (bad byte at {exc.start + 1})")
    try:
        return parse_line(text, csv_spec)
    except ValueError as exc:
        return BadLine(line, getattr(exc, "line_id", None), str(exc), text)
