"""Resume: the run file beside the output, the tail of the output, the resume point.

The options of a run are kept beside its output in ``OUT.capsa-run.json`` (the
sidecar). ``--resume`` refuses to continue a file written with other options, cuts off
a trailing partial record, and continues after the last complete record's line, once it
has checked that this line of the input is still the same hand.
"""

from __future__ import annotations

import csv
import json
import os
import re
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from solver.apps.batch.errors import BatchError
from solver.apps.batch.reading import CsvSpec, Line, escape_breaks, hand_cards, parse_line
from solver.apps.batch.records import csv_text_value
from solver.apps.files import atomic_write
from solver.engine.inputs import TooLarge, read_bounded
from solver.strategy.solving.schema import CSV_OPPONENTS, csv_names

if TYPE_CHECKING:
    from solver.apps.batch.work import Job

__all__ = [
    "SIDECAR_SUFFIX",
    "check_field_tables",
    "check_options",
    "check_resume_point",
    "lines_again",
    "read_sidecar",
    "recorded_lines",
    "run_owner",
    "run_options",
    "sidecar_path",
    "stored_options",
    "tail_records",
    "write_sidecar",
]

SIDECAR_SUFFIX = ".capsa-run.json"
SIDECAR_VERSION = 1
#: The most bytes of a run file read (one is a few hundred bytes).
MAX_SIDECAR = 1 << 16
#: How far from its end the output is searched for its last complete record.
MAX_TAIL = 1 << 20


def sidecar_path(output: str | os.PathLike[str]) -> Path:
    """Where the options of the run writing ``output`` are kept."""
    p = Path(output)
    return p.with_name(p.name + SIDECAR_SUFFIX)


def run_options(job: Job) -> dict[str, Any]:
    """The options a resumed run must share with the run that wrote the output."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        capsa_version = version("capsa")
    except PackageNotFoundError:  # pragma: no cover - running from a source tree
        capsa_version = "unknown"
    return {
        "capsa_batch": SIDECAR_VERSION,
        "capsa": capsa_version,
        "format": job.fmt,
        "rules": job.rules.name,
        "rules_digest": job.rules.digest(),
        "policy": job.policy,
        "samples": job.samples,
        "seed": job.seed,
        "players": job.players,
        **({"stakes": list(job.stakes)} if job.stakes is not None else {}),
        # a banker's table: the seat each hand is set for
        **({"seat": job.options.seat or "player"} if job.rules.banker else {}),
        # mc: the opponent pool drawn from (KEY/SIZE), null when dealt
        **({"pool": job.pool_id} if job.policy == "mc" else {}),
        # mc: the opponent model(s), when not the field
        **({"opponents": job.opponents} if job.opponents is not None else {}),
        # mc: each seat's model file digest, when a learned model sits at the table
        **({"opponents_digest": list(job.opponent_digests)} if job.opponent_digests else {}),
        # the field tables the run reads (the field's settings and values, the opponents
        # mc deals and the pool's hands are theirs): their digest
        **({"field_digest": job.field_digest} if job.field_digest is not None else {}),
    }


def write_sidecar(output: Path, options: dict[str, Any], input_name: str) -> None:
    """Write the run file of ``output``: the options, the input's name, and this run
    (pid, host, start time: what a second run on the same output is told).

    Written whole or not at all (``solver.apps.files.atomic_write``), so a run killed
    meanwhile leaves the old run file or the new one, never half of one.
    """
    run = {
        "pid": os.getpid(),
        "host": socket.gethostname(),
        "started": time.strftime("%Y-%m-%d %H:%M:%S %z"),
    }
    text = json.dumps({**options, "input": input_name, "run": run}, indent=2) + "\n"
    atomic_write(sidecar_path(output), lambda f: f.write(text))


def read_sidecar(path: Path) -> dict[str, Any]:
    """The run file of the output ``path``; ``BatchError`` (one line) when it is missing,
    unreadable, not JSON, or not a capsa batch run file."""
    side = sidecar_path(path)
    try:
        text = read_bounded(side, MAX_SIDECAR, f"'{side}'").decode("utf-8")
    except TooLarge:
        raise BatchError(f"cannot resume: '{side}' is damaged (too large for a run file)") from None
    except FileNotFoundError:
        raise BatchError(
            f"cannot resume: '{side}' (the options of the run that wrote '{path}') is missing"
        ) from None
    except OSError as exc:
        raise BatchError(f"cannot resume: cannot read '{side}': {exc.strerror}") from None
    except UnicodeDecodeError:
        raise BatchError(f"cannot resume: '{side}' is damaged (not UTF-8 text)") from None
    try:
        stored = json.loads(text)
    except ValueError as exc:
        raise BatchError(f"cannot resume: '{side}' is damaged (not JSON: {exc})") from None
    if not isinstance(stored, dict) or stored.get("capsa_batch") != SIDECAR_VERSION:
        raise BatchError(
            f"cannot resume: '{side}' is damaged (not the run file of a capsa batch, "
            f"version {SIDECAR_VERSION})"
        )
    return stored


def stored_options(out_path: Path) -> dict[str, Any] | None:
    """The run file of an output being resumed, None when there is none to follow (an
    empty or missing output starts afresh; a damaged run file is refused later, by
    ``open_output``)."""
    try:
        if out_path.stat().st_size == 0:
            return None
        return read_sidecar(out_path)
    except (OSError, BatchError):
        return None


def check_options(path: Path, options: dict[str, Any], tables: str | None = None) -> None:
    """Refuse (``BatchError``) to resume ``path`` unless it was written with ``options``;
    other field tables first, in a line of their own naming them (``tables``: where they
    are read from, ``check_field_tables``)."""
    stored = read_sidecar(path)
    check_field_tables(path, stored, options, tables)
    differ = [
        f"{k} {stored.get(k)!r} (now {v!r})" for k, v in options.items() if stored.get(k) != v
    ]
    if differ:
        raise BatchError(
            f"cannot resume '{path}': it was written with other options: "
            + ", ".join(differ)
            + "; run again without --resume to start over"
        )


def check_field_tables(
    path: Path, stored: dict[str, Any], options: dict[str, Any], tables: str | None = None
) -> None:
    """Refuse (``BatchError``, one line naming them) to resume ``path`` when the field
    tables the run would read now are not those it was written with (their digest in the
    run file, ``stored``): tables trained again (``capsa train``, ``POST /api/train``) or
    replaced since. ``tables``: the file they are read from now, named in the line.
    Another ruleset has other tables: ``check_options`` names the ruleset instead."""
    now = options.get("field_digest")
    was = stored.get("field_digest")
    same_rules = all(stored.get(k) == options.get(k) for k in ("rules", "rules_digest"))
    if now is None or was == now or not same_rules:
        return
    name = options.get("rules")
    where = f" ({tables})" if tables else ""
    if was is None:
        raise BatchError(
            f"cannot resume '{path}': its run file does not say which field tables of "
            f"{name!r} it was written with (an earlier capsa wrote it); run again without "
            "--resume to start over"
        )
    raise BatchError(
        f"cannot resume '{path}': the field tables of {name!r}{where} are not those it was "
        f"written with (digest {str(was)[:12]}, now {str(now)[:12]}: trained again or "
        "replaced since); restore them, or run again without --resume to start over"
    )


def run_owner(path: Path) -> str | None:
    """``pid N on HOST, started T`` of the run the run file of ``path`` names, if that
    process is alive (or on another host); else None."""
    try:
        raw = read_bounded(sidecar_path(path), MAX_SIDECAR, "the run file")
        run = json.loads(raw.decode("utf-8"))["run"]
        pid, host, started = int(run["pid"]), str(run["host"]), str(run["started"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if host == socket.gethostname():
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return None
        except PermissionError:  # alive, another user's
            pass
    return f"pid {pid} on {host}, started {started}"


def tail_records(
    path: Path, fmt: str, opponents: int = CSV_OPPONENTS
) -> tuple[int, dict[str, Any] | None, bool]:
    """Cut a trailing partial line off ``path``; the last complete record's line number
    (CSV: the columns of a batch of ``opponents`` opponents a hand, ``csv_names``).

    Returns ``(last line, (id, hand) of that record or None, header present)``.
    Reads only the end of the file.
    """
    with path.open("rb+") as f:
        size = f.seek(0, os.SEEK_END)
        pos, tail = size, b""
        # Find the last newline, and the one before it, reading backwards in blocks.
        while pos > 0 and tail.count(b"\n") < 2:
            if len(tail) > MAX_TAIL:  # a record is never this long: not capsa's output
                raise BatchError(
                    f"cannot resume: the end of '{path}' is not a {fmt} record of capsa batch"
                    f" (no line end in its last {MAX_TAIL:,} bytes)"
                )
            step = min(1 << 16, pos)
            pos -= step
            f.seek(pos)
            tail = f.read(step) + tail
        cut = tail.rfind(b"\n")
        keep = pos + cut + 1 if cut >= 0 else 0
        if keep != size:
            f.truncate(keep)
        body = tail[: cut + 1] if cut >= 0 else b""
    lines = body.splitlines()
    if not lines:
        return 0, None, False
    names = list(csv_names(opponents))
    last = lines[-1].decode("utf-8", errors="replace")
    try:
        if fmt == "csv":
            cells = next(csv.reader([last]))
            if cells == names:
                return 0, None, True
            rec = dict(zip(names, cells, strict=True))
            line, hand = int(rec["line"]), rec["hand"]
            ident = csv_text_value(rec["id"]) or None
            has_header = True
        else:
            rec = json.loads(last)
            line, ident, hand = rec["line"], rec["id"], rec["hand"]
            has_header = False
        if not (type(line) is int and line > 0 and isinstance(hand, str)):
            raise TypeError(line, hand)
        if not (ident is None or isinstance(ident, str)):
            raise TypeError(ident)
    except (ValueError, KeyError, TypeError, StopIteration):
        raise BatchError(
            f"cannot resume: the last line of '{path}' is not a {fmt} record of capsa batch"
        ) from None
    return line, {"id": ident, "hand": hand}, has_header


_JSONL_LINE = re.compile(rb'\{"line":(\d+),')


def recorded_lines(path: Path, fmt: str, upto: int) -> Iterator[int]:
    """The line numbers of the records in ``path`` up to line ``upto``, in order, read
    one record at a time (a record longer than ``MAX_TAIL`` bytes is not capsa's).

    With the input, they say which lines a resumed run solves again: every line with no
    record (a bad line, whatever found it, or a line in flight when the run stopped), so
    that a resumed run reports what a complete run reports."""
    with path.open("rb") as f:
        for raw in iter(lambda: f.readline(MAX_TAIL), b""):
            if fmt == "csv":
                cell = raw.split(b",", 1)[0]
                if cell == b"line":  # the header
                    continue
                number = int(cell) if cell.isdigit() else None
            else:
                m = _JSONL_LINE.match(raw)
                number = int(m.group(1)) if m else None
            if number is None or not raw.endswith(b"\n"):
                raise BatchError(
                    f"cannot resume: '{path}' holds a line that is not a {fmt} record of capsa "
                    "batch"
                )
            if number > upto:
                return
            yield number


def lines_again(pieces: Iterator[list[Line]], recorded: Iterator[int], upto: int,
                job: Job) -> Iterator[list[Line] | tuple[Job, list[Line]]]:  # fmt: skip
    """The chunks of a resumed run, each with the job its worker gets: lines up to
    ``upto`` that have no record (``recorded``, ascending) are solved again
    (``Job.again``), the others only checked."""
    import dataclasses

    nxt = next(recorded, None)
    for chunk in pieces:
        again = []
        for line, _ in chunk:
            if line > upto:
                break
            while nxt is not None and nxt < line:
                nxt = next(recorded, None)
            if nxt != line:
                again.append(line)
        yield (dataclasses.replace(job, again=tuple(again)), chunk) if again else chunk


def _same_id(read: str | None, written: str | None) -> bool:
    """Whether an id read from the input is the one a record holds (CSV holds it with
    its line breaks escaped)."""
    if read is None or written is None:
        return read is written
    return escape_breaks(read) == escape_breaks(written)


def check_resume_point(
    lines: Iterator[Line],
    upto: int,
    record: dict[str, Any] | None,
    csv_spec: CsvSpec | None,
    out_path: Path | None,
    extra_suits: str = "",
) -> Iterator[Line]:
    """Pass the lines through, checking that line ``upto`` is the hand last written
    (``extra_suits``: the run's deck, whose cards a hand may hold twice)."""
    seen = False
    for line, raw in lines:
        if line == upto and record is not None:
            seen = True
            try:
                text = (raw or b"").decode("utf-8").strip()
                ident, hand = parse_line(text, csv_spec, extra_suits)
                same = _same_id(ident, record["id"]) and sorted(hand.tolist()) == sorted(
                    hand_cards(record["hand"], extra_suits).tolist()
                )
            except ValueError:
                same = False
            if not same:
                raise BatchError(
                    f"cannot resume: line {upto} of the input is not the hand last written "
                    f"to '{out_path}'; is it the same input?"
                )
        elif line > upto and not seen:
            seen = True
            raise BatchError(
                f"cannot resume: the input has no hand on line {upto}, the last one "
                f"written to '{out_path}'; is it the same input?"
            )
        yield line, raw
    if not seen:
        raise BatchError(
            f"cannot resume: the input ends before line {upto}, the last one written to "
            f"'{out_path}'; is it the same input?"
        )
