"""What every command shares to talk: the consoles, results on stdout (``emit``), one
line on stderr (``say``, ``fail``), the progress display, card markup, user text shown
safely (``shown``) and whole-or-nothing output files (``write_file``).

stdout is data, stderr is talk. The consoles are made once a run (``Consoles.standard``)
and handed to the commands through the command context, so a renderer takes the console
it writes to and can be tested on one that writes to a string.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

import typer
from rich.console import Console

__all__ = [
    "ROW_NAMES",
    "Consoles",
    "Progress",
    "clauses",
    "consoles",
    "count",
    "duration",
    "emit",
    "emit_json",
    "fail",
    "pretty_cards",
    "progress",
    "quiet_stdout",
    "rate",
    "say",
    "shown",
    "write_file",
]

ROW_NAMES = ("front", "middle", "back")
_RANKS = frozenset("23456789TJQKA")
SUIT_STYLE = {"c": ("♣", "green"), "d": ("♦", "blue"), "h": ("♥", "red"), "s": ("♠", "bold")}


@dataclass
class Consoles:
    """Where a command writes: ``out`` (stdout, data) and ``err`` (stderr, talk)."""

    out: Console
    err: Console

    @classmethod
    def standard(cls) -> Consoles:
        """The process's stdout and stderr (no colour under ``NO_COLOR``); what goes to
        stdout never ends a line with spaces (``NoTrailingSpaces``)."""
        no_color = True if os.environ.get("NO_COLOR") else None
        kw: dict[str, Any] = {"highlight": False, "soft_wrap": True, "emoji": False}
        out = Console(file=NoTrailingSpaces(), no_color=no_color, **kw)
        return cls(out, Console(stderr=True, no_color=no_color, **kw))


#: Spaces at the end of a line, before the styles that close it.
_TRAILING = re.compile(r" +((?:\x1b\[[0-9;]*m)*)$", re.M)


class NoTrailingSpaces:
    """The process's stdout (looked up at each write, as Rich does), with the spaces that
    would end a line dropped: the padding of a table's last column. Spaces at the end of
    one write are held until the next shows whether a line ends there."""

    def __init__(self) -> None:
        self._held = ""

    def write(self, text: str) -> int:
        text, n = self._held + text, len(text)
        head, newline, tail = text.rpartition("\n")
        kept = tail.rstrip(" ")
        self._held = tail[len(kept) :]
        sys.stdout.write(_TRAILING.sub(r"\1", head) + newline + kept)
        return n

    def flush(self) -> None:
        sys.stdout.flush()

    def isatty(self) -> bool:
        return sys.stdout.isatty()

    def fileno(self) -> int:
        return sys.stdout.fileno()

    @property
    def encoding(self) -> str:
        return getattr(sys.stdout, "encoding", None) or "utf-8"


def consoles(ctx: typer.Context) -> Consoles:
    """The consoles of this run: the ones passed in (``obj=`` of the app's call), else
    the process's own."""
    root = ctx.find_root()
    if not isinstance(root.obj, Consoles):
        root.obj = Consoles.standard()
    return root.obj


def count(n: int, noun: str) -> str:
    """``1 bad line``, ``2 bad lines``, ``1,000 hands``: a count and its noun."""
    return f"{n:,} {noun}{'s' * (n != 1)}"


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def shown(text: object) -> str:
    """A user's text (an id, a file or ruleset name) for Rich markup: its markup escaped
    and every character a terminal would act on written as its escape (``visible``)."""
    from rich.markup import escape

    from solver.engine.inputs import visible

    return escape(visible(str(text)))


def say(message: str) -> None:
    """``capsa: message`` as one line on stderr, with every character a terminal would
    act on written as its escape (never raises: stderr may be gone too)."""
    from solver.engine.inputs import visible

    message = visible(_one_line(message))
    try:
        sys.stderr.write(f"capsa: {message}\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


def fail(message: str, code: int = 2) -> NoReturn:
    """One clear line on stderr, then exit (2: bad input or usage, 1: a failure)."""
    say(f"error: {message}")
    raise typer.Exit(code)


def quiet_stdout() -> None:
    """After a failed write to stdout: point it at the null device, so that the data
    still buffered does not fail again (with a traceback) when Python exits."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # not a real file (tests)
        return
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
    except OSError:
        return
    try:
        os.dup2(devnull, fd)
    except OSError:
        pass
    finally:
        os.close(devnull)


def emit_json(data: object, out: Console | None = None) -> None:
    """``data`` as JSON on stdout (indented on a terminal). Never NaN or Infinity: such a
    value is a bug (payouts are bounded), and raises ``ValueError`` here."""
    text = json.dumps(data, allow_nan=False)
    if out is None:
        print(text)
    elif out.is_terminal:
        out.print_json(text, indent=2)
    else:
        out.file.write(text + "\n")


def emit(out: Console, fmt: str, data: object, table: Callable[[Console], None]) -> None:
    """Print a command's result: JSON for ``--format json``, else ``table(out)``."""
    if fmt == "json":
        emit_json(data, out)
    else:
        table(out)


def clauses(text: str, width: int, indent: str = "  ") -> list[str]:
    """``text`` as lines of at most ``width`` columns, broken only after a clause (after
    ``, ``, ``; `` or ``: ``), so that a name and its number stay on one line; the lines
    after the first are indented. A clause wider than ``width`` is left whole."""
    from rich.cells import cell_len

    lines: list[str] = []
    line = ""
    for clause in re.split(r"(?<=[,;:]) ", text):
        longer = f"{line} {clause}" if line else clause
        if line and cell_len(longer) > width:
            lines.append(line)
            line = indent + clause
        else:
            line = longer
    return [*lines, line]


def pretty_cards(text: str) -> str:
    """Rich markup for 'As Kd' with coloured suit symbols (plain text when NO_COLOR); a
    word that is not a card as capsa writes one (a crafted record's) is shown as it is,
    its markup and control characters escaped (``shown``)."""
    parts = []
    for card in text.split():
        if len(card) == 2 and card[0] in _RANKS and card[1] in SUIT_STYLE:
            sym, style = SUIT_STYLE[card[1]]
            parts.append(f"[{style}]{card[0]}{sym}[/]")
        else:
            parts.append(shown(card))
    return " ".join(parts)


#: Seconds between two progress lines when stderr is not a terminal
#: (``CAPSA_PROGRESS_SECONDS`` overrides).
PROGRESS_SECONDS = 5.0


def progress_seconds() -> float:
    """Seconds between two progress lines on a stderr that is not a terminal."""
    try:
        return max(0.0, float(os.environ.get("CAPSA_PROGRESS_SECONDS", PROGRESS_SECONDS)))
    except ValueError:
        return PROGRESS_SECONDS


def duration(seconds: float) -> str:
    """``0.4 s``, ``12 s``, ``3 min 20 s``, ``1 h 05 min``: a time as one reads it."""
    if seconds < 10:
        return f"{seconds:.1f} s"
    if seconds < 60:
        return f"{seconds:.0f} s"
    minutes, sec = divmod(round(seconds), 60)
    if minutes < 60:
        return f"{minutes} min {sec:02d} s"
    return f"{minutes // 60} h {minutes % 60:02d} min"


def rate(n: float, seconds: float, noun: str) -> str:
    """How fast, in the unit that reads best: ``1,200 hands/s``, ``14.3 hands/s``,
    ``0.31 hands/s`` (never a rounded-down ``0 hands/s``); ``noun`` is the plural."""
    if seconds <= 0 or n <= 0:
        return f"0 {noun}/s"
    r = n / seconds
    if r >= 100:
        return f"{r:,.0f} {noun}/s"
    return f"{r:.3g} {noun}/s" if r >= 1 else f"{r:.2g} {noun}/s"


class Progress:
    """A command's progress on stderr: a bar (or, without a total, a pulse) with what is
    being done, a count, a note and the time when stderr is a terminal; else a plain line
    every few seconds (``progress_seconds``), so a pipe or a log sees the work go on.
    ``say`` prints a line above the bar (or on stderr when there is no bar). Calling it
    is a ``solver.engine.progress.Progress``: a long task's progress goes to it as is."""

    def __init__(
        self, err: Console, bar: Any, task: Any, what: str = "", unit: str = "",
        total: int | None = None,
    ) -> None:  # fmt: skip
        self._err = err
        self._bar = bar
        self._task = task
        self._plain = {"what": what, "done": None, "total": total, "note": ""}
        self._unit = unit
        self._start = time.monotonic()
        self._last = self._start

    @property
    def shown(self) -> bool:
        """Whether a bar is on the screen (else progress is a line every few seconds)."""
        return self._bar is not None

    def _line(self, **fields: Any) -> None:
        """Without a bar: keep the state, and print it when a line is due."""
        self._plain.update({k: v for k, v in fields.items() if v is not None})
        now = time.monotonic()
        if now - self._last < progress_seconds():
            return
        self._last = now
        p = self._plain
        done = "" if p["done"] is None else f"{p['done']:,}"
        if done and p["total"] is not None:
            done += f"/{p['total']:,}"
        if done and self._unit:
            done += f" {self._unit}"
        parts = [x for x in (done, p["note"], duration(now - self._start)) if x]
        self._err.print(f"capsa: {p['what']}: " + ", ".join(parts), soft_wrap=True)

    def update(
        self,
        done: int | None = None,
        *,
        total: int | None = None,
        what: str | None = None,
        note: str | None = None,
    ) -> None:
        if self._bar is None:
            self._line(done=done, total=total, what=what, note=note)
            return
        fields: dict[str, Any] = {}
        if done is not None:
            fields["completed"] = done
        if total is not None:
            fields["total"] = total
        if what is not None:
            fields["description"] = what
        if note is not None:
            fields["note"] = note
        self._bar.update(self._task, **fields)

    def say(self, text: str, *, markup: bool = False) -> None:
        self._err.print(text, markup=markup)

    def __call__(
        self, done: int, total: int | None = None, *, what: str | None = None, detail: Any = None
    ) -> None:
        """A library task's progress (``solver.engine.progress.Progress``): the count and
        the total; ``what`` and ``detail`` are for a command's own adapter to show."""
        self.update(done, total=total)


@contextlib.contextmanager
def progress(
    err: Console, what: str, *, total: int | None = None, unit: str = ""
) -> Iterator[Progress]:
    """The one progress display of every command (see ``Progress``); ``what`` is Rich
    markup (``shown`` a user's text in it), ``unit`` follows the count."""
    if not err.is_terminal:
        yield Progress(err, None, None, what, unit, total)
        return
    from rich.progress import (
        BarColumn,
        ProgressColumn,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )
    from rich.progress import Progress as Bar
    from rich.text import Text

    class Count(ProgressColumn):
        def render(self, task: Any) -> Text:
            of = f"/{task.total:,.0f}" if task.total is not None else ""
            return Text(f"{task.completed:,.0f}{of}" + (f" {unit}" if unit else ""))

    bar = Bar(
        TextColumn("{task.description}"),
        BarColumn(),
        Count(),
        TextColumn("{task.fields[note]}"),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=err,
        transient=True,
    )
    task = bar.add_task(what, total=total, note="")
    with bar:
        yield Progress(err, bar, task)


def write_file(path: Path, write: Callable[[Any], None]) -> None:
    """``write(stream)`` into ``path``, whole or not at all (``atomic_write``): a write
    that fails is one line (exit 1 for a full disk or a file size limit, else 2) and
    leaves a file that was there as it was."""
    from solver.apps.files import atomic_write

    try:
        atomic_write(path, write)
    except OSError as exc:
        kept = "; it is left as it was" if path.exists() else ""
        machine = exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO)
        fail(f"cannot write '{path}': {exc.strerror or exc}{kept}", 1 if machine else 2)
