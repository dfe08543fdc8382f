"""Reading the input: physical lines, CSV header and rows, ids, and one line's hand.

Input, one hand per line (line numbers count every physical line, from 1):

* blank lines and lines whose first non-blank character is ``#`` are skipped;
* the cards may be in any spelling ``evaluator.parse_cards`` accepts;
* a line may give the setting played instead of a bare hand: ``front | middle | back``
  (3, 5 and 5 cards; the hand is the 13 cards), or what was done instead of setting it:
  ``HAND | declare`` (a natural declared) or ``HAND | surrender``. The record then
  carries ``played``; a setting with the wrong row sizes or a card twice is a bad line,
  and so is ``declare`` for a hand without a natural under the ruleset, or ``surrender``
  under rules that allow none (``solve`` says so);
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
import re
import stat
import sys
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, NamedTuple

from solver.apps.batch.errors import BatchError
from solver.engine.inputs import visible

__all__ = [
    "MAX_LINE",
    "BadLine",
    "CsvSpec",
    "Input",
    "LINE_BREAKS",
    "count_lines",
    "csv_header",
    "escape_breaks",
    "hand_cards",
    "is_content",
    "open_input",
    "parse_entry",
    "parse_line",
    "read_hand",
    "read_lines",
    "split_id",
]

#: Lines longer than this (bytes) are reported as bad without being parsed.
MAX_LINE = 65536

#: ``(line number, stripped bytes)``; None for a line longer than ``MAX_LINE``.
Line = tuple[int, bytes | None]

#: Every character ``str.splitlines`` ends a line at. Input lines end only at ``\n``,
#: ``\r\n`` and ``\r``, so an id may hold the others; output escapes them all.
LINE_BREAKS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
_BREAK = re.compile(f"[{re.escape(LINE_BREAKS)}]")


def escape_breaks(text: str) -> str:
    """``text`` with each ``LINE_BREAKS`` character written as a ``\\uXXXX`` escape, so
    that it stays on one line for any reader (``str.splitlines`` included)."""
    if _BREAK.search(text) is None:
        return text
    return _BREAK.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


@dataclass(frozen=True)
class BadLine:
    """A line that is not a hand: its number, id (if one was read) and why."""

    line: int
    id: str | None
    reason: str
    text: str = ""

    def message(self) -> str:
        """One line for a person: the id and the reason with every character a terminal
        would act on (escape sequences, line breaks) written as its escape."""
        ident = f" (id {visible(self.id)})" if self.id is not None else ""
        return f"line {self.line}{ident}: {visible(self.reason)}"


class CsvSpec(NamedTuple):
    """Where the hand (and the id) sit in a CSV input's rows."""

    fields: int
    hand: int
    id: int  # -1: no id column


# --------------------------------------------------------------------------------------
# Physical lines
# --------------------------------------------------------------------------------------


def read_lines(stream: IO[bytes], block: int = 1 << 16) -> Iterator[Line]:
    """``(line number, stripped line)`` for every physical line; None for an over-long one.

    ``\n``, ``\r\n`` and ``\r`` each end a line (a classic Mac file is as many lines as
    a Unix one), and every physical line counts, blank or not. The stream is read in
    blocks of ``block`` bytes (``read1`` where it has it, so that a pipe's lines are
    seen as they come); a line longer than ``MAX_LINE`` bytes is dropped as it is
    read, so memory stays bounded whatever the input, and is given (as None) as soon as
    it is known to be too long, not at its end, which may never come. A UTF-8 byte
    order mark at the start is skipped.
    """
    read = getattr(stream, "read1", None) or stream.read
    number = 0
    carry = b""  # the start of a line whose end is not read yet
    dropping = False  # the line being read is over-long (already given): its bytes go
    while data := read(block):
        parts = (carry + data).splitlines(keepends=True)
        # A last part without an end, or ending in \r (a \n may follow), is not done.
        carry = b"" if parts[-1].endswith(b"\n") else parts.pop()
        for part in parts:
            if dropping:  # the end of the over-long line given below
                dropping = False
                continue
            number += 1
            if len(part) > MAX_LINE and len(part.rstrip(b"\r\n")) > MAX_LINE:
                yield number, None
            elif number == 1:
                yield number, _no_bom(part).strip()
            else:
                yield number, part.strip()  # the line end is white space too
        if len(carry) > MAX_LINE + 1:  # + 1: a \r that may be half of \r\n
            if not dropping:  # say so now: the line may never end (/dev/zero)
                number += 1
                yield number, None
                dropping = True
            carry = carry[-1:] if carry.endswith(b"\r") else b""
    if carry and not dropping:
        number += 1
        over = len(carry.rstrip(b"\r")) > MAX_LINE
        yield number, None if over else _no_bom(carry).strip() if number == 1 else carry.strip()


def _no_bom(first: bytes) -> bytes:
    return first[3:] if first.startswith(b"\xef\xbb\xbf") else first


def count_lines(path: Path) -> int | None:
    """Lines in a regular file as ``read_lines`` counts them (None for pipes and such)."""
    try:
        if not stat.S_ISREG(path.stat().st_mode):
            return None
        n = 0
        last = b"\n"
        with path.open("rb") as f:
            while block := f.read(1 << 20):
                n += block.count(b"\n") + block.count(b"\r") - block.count(b"\r\n")
                if last == b"\r" and block.startswith(b"\n"):
                    n -= 1  # a \r\n across two blocks
                last = block[-1:]
        return n + (last not in (b"\n", b"\r"))
    except OSError:
        return None


def is_content(raw: bytes | None) -> bool:
    """Whether a stripped line holds a hand (or is over-long): not blank, not a comment."""
    return raw is None or (bool(raw) and not raw.startswith(b"#"))


# --------------------------------------------------------------------------------------
# Opening the input
# --------------------------------------------------------------------------------------


@dataclass
class Input:
    """The open input: its lines (comments and blanks dropped), name, CSV layout."""

    lines: Iterator[Line]
    name: str
    total_lines: int | None
    csv_spec: CsvSpec | None


def open_input(source: Any, stack: ExitStack) -> Input:
    """Open ``source`` (a path, ``"-"`` for stdin, or a binary stream), read its first
    line to tell CSV from plain lines, and give its lines (comments and blanks dropped).
    A path is closed by ``stack``; a stream is left open."""
    name, total = "<stdin>", None
    if hasattr(source, "read"):
        stream: IO[bytes] = source
    elif str(source) == "-":
        stream = sys.stdin.buffer
    else:
        path = Path(source)
        name = str(path)
        try:
            stream = stack.enter_context(path.open("rb"))
        except OSError as exc:
            raise BatchError(f"cannot read '{path}': {exc.strerror}") from None
        total = count_lines(path)
    lines = (item for item in read_lines(stream) if is_content(item[1]))
    first = next(lines, None)
    spec = None
    if first is not None and first[1] is not None:
        spec = csv_header(first[1], required=name.lower().endswith(".csv"), name=name)
    if spec is None and first is not None:
        lines = _prepend(first, lines)
    return Input(lines, name, total, spec)


def _prepend(first: Line, rest: Iterator[Line]) -> Iterator[Line]:
    yield first
    yield from rest


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


def _is_card_text(text: str) -> bool:
    from evaluator import JOKER, CardParseError, parse_cards

    try:
        parse_cards(text, allow_duplicates=True)
    except CardParseError as exc:
        return exc.token == JOKER  # cards, a joker among them: a deck with jokers reads it
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


#: What was played: (front, middle, back) card ids, uint8 arrays of 3, 5 and 5; or one
#: of ``ACTIONS``, what was done instead of setting the hand.
Played = tuple[Any, Any, Any] | str
#: The words of ``HAND | declare`` and ``HAND | surrender`` (``solve(played=...)``'s).
ACTIONS = ("declare", "surrender")


def hand_cards(cards: str, extra_suits: str) -> Any:
    """A hand's 13 cards: ids on the 52-card deck, else the deck's faces (a card of an
    added suit may be written twice; one copy too many is a CardParseError)."""
    from evaluator import parse_hand
    from solver.engine.setting_cards import hand_faces

    return hand_faces(cards, extra_suits) if extra_suits else parse_hand(cards)


def _parse_setting(cards: str, extra_suits: str = "") -> tuple[Any, Played]:
    """``(hand ids, played)`` of ``"front | middle | back"`` (the rows) or ``"HAND |
    declare"`` / ``"HAND | surrender"`` (the word); CardParseError naming the row (and
    the card) that is wrong, in the words ``solve(played=...)`` uses. With
    ``extra_suits`` the cards are faces (``hand_cards``)."""
    from solver.engine.settlement import parse_setting

    parts = cards.split("|")
    if len(parts) == 2 and parts[1].strip().lower() in ACTIONS:
        return hand_cards(parts[0], extra_suits), parts[1].strip().lower()
    hand = parse_setting(cards, "played", extra_suits)
    return hand, (hand[:3], hand[3:8], hand[8:])


def parse_entry(
    text: str, csv_spec: CsvSpec | None = None, extra_suits: str = ""
) -> tuple[str | None, Any, Played | None]:
    """``(id, hand ids, played or None)`` of one input line (already stripped, not a
    comment). The cards are a hand, or a setting ``front | middle | back`` (then the
    hand is its 13 cards and the rows are the setting played), or ``HAND | declare`` /
    ``HAND | surrender`` (then ``played`` is the word). ``extra_suits``: the deck's
    (the ruleset's ``extra_suits``): a card of an added suit may be written twice, and
    the hand and rows are then its faces (``solver.engine.setting_cards``).

    Raises ``CardParseError`` (or ``BatchError`` for a bad CSV row) carrying the id read
    so far in ``.line_id``.
    """
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
    try:
        if "|" in cards:
            hand, played = _parse_setting(cards, extra_suits)
            return ident, hand, played
        return ident, hand_cards(cards, extra_suits), None
    except ValueError as exc:
        exc.line_id = ident  # type: ignore[attr-defined]
        raise


def parse_line(
    text: str, csv_spec: CsvSpec | None = None, extra_suits: str = ""
) -> tuple[str | None, Any]:
    """``(id, hand ids)`` of one input line: ``parse_entry`` without the played rows."""
    ident, hand, _ = parse_entry(text, csv_spec, extra_suits)
    return ident, hand


def read_hand(
    line: int, raw: bytes | None, csv_spec: CsvSpec | None, extra_suits: str = ""
) -> tuple[str | None, Any, Played | None] | BadLine:
    """``(id, hand ids, played rows or None)`` of a physical line as ``read_lines`` gives
    it, or the ``BadLine`` saying why it is not a hand (``extra_suits``: the deck's, as
    ``parse_entry`` reads it)."""
    if raw is None:
        return BadLine(line, None, f"line longer than {MAX_LINE} bytes")
    try:
        text = raw.decode("utf-8").strip()
    except UnicodeDecodeError as exc:
        return BadLine(line, None, f"not UTF-8 text (bad byte at {exc.start + 1})")
    try:
        return parse_entry(text, csv_spec, extra_suits)
    except ValueError as exc:
        from solver.apps.inputs import card_message

        return BadLine(line, getattr(exc, "line_id", None), card_message(str(exc)), text)
