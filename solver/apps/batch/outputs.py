"""The files a run writes: checked against what it reads, locked, opened, written.

Before anything is opened for writing, every output (``-o``, ``--errors``, the run file
beside the output, stdout) is compared with every input (the input file, or whatever
stdin is, by device and inode) and with the other outputs; a clash is a
``BatchError`` naming both. The output is then locked (``fcntl.flock``, exclusive) for
the whole run before it is truncated or written, so a second run on it is refused with
the pid and start time the first one wrote in its run file; the kernel drops the lock
when the process ends, however it ends, so ``--resume`` after a kill still works.
A write that fails part way (disk full, a file size limit) is a ``BatchFailed``.
"""

from __future__ import annotations

import errno
import logging
import os
import stat
import sys
import time
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from solver.apps.batch.errors import BatchError, BatchFailed
from solver.apps.batch.records import csv_text
from solver.apps.batch.resume import (
    check_options,
    run_options,
    run_owner,
    sidecar_path,
    tail_records,
    write_sidecar,
)
from solver.apps.files import (
    Key,
    check_outputs,
    check_replace,
    errors_file,
    file_key,
    run_file,
    stream_key,
)
from solver.strategy.solving.schema import csv_names

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX: no lock
    fcntl = None  # type: ignore[assignment]

if TYPE_CHECKING:
    from solver.apps.batch.work import Job

__all__ = ["Output", "check_paths", "open_errors", "open_output", "write_failed"]

log = logging.getLogger("capsa")

#: errno values that mean the machine failed the run (exit 1), not the caller (exit 2).
_MACHINE = {errno.ENOSPC, errno.EFBIG, errno.EIO, getattr(errno, "EDQUOT", errno.ENOSPC)}


# --------------------------------------------------------------------------------------
# Same-file checks
# --------------------------------------------------------------------------------------


def check_paths(
    source: Any,
    output: Any,
    out_path: Path | None,
    errors: Any,
    rules: object = None,
    *,
    force: bool = False,
    resume: bool = False,
) -> None:
    """Refuse (``BatchError``) a run that would write over what it reads (the input, a
    ruleset file given as ``rules``), or write two of its outputs into one file
    (``solver.apps.files.check_outputs``), or replace an errors file or a run file it
    did not write (``check_replace``; ``force`` replaces them, a resumed run reads its
    run file)."""
    inputs: list[tuple[str, Key]] = []
    if isinstance(rules, str | os.PathLike):
        inputs.append((f"the ruleset file '{rules}'", file_key(rules, new=False)))
    if hasattr(source, "read"):
        inputs.append(("the input stream", stream_key(source)))
    elif str(source) == "-":
        inputs.append(("stdin", stream_key(sys.stdin)))
    else:
        inputs.append((f"the input file '{source}'", file_key(source, new=False)))
    outputs: list[tuple[str, Key]] = []
    if out_path is not None:
        outputs.append((f"the output '{out_path}'", file_key(out_path)))
        side = sidecar_path(out_path)
        outputs.append((f"the run file '{side}'", file_key(side)))
    elif output is None:
        outputs.append(("stdout", stream_key(sys.stdout)))
    else:
        outputs.append(("the output stream", stream_key(output)))
    if errors is not None:
        outputs.append((f"the errors file '{errors}'", file_key(errors)))
    check_outputs(inputs, outputs, "capsa batch", error=BatchError)
    if errors is not None and not hasattr(errors, "write"):
        check_replace(errors, errors_file, "a file of bad lines", force, error=BatchError)
    if out_path is not None and not resume:
        run = sidecar_path(out_path)
        check_replace(run, run_file, "a batch run file", force, error=BatchError)


# --------------------------------------------------------------------------------------
# Opening
# --------------------------------------------------------------------------------------


def _open_error(path: Any, exc: OSError) -> Exception:
    if exc.errno in _MACHINE:
        return BatchFailed(f"cannot write '{path}': {exc.strerror}")
    return BatchError(f"cannot write '{path}': {exc.strerror}")


def write_failed(name: str, exc: OSError, done_line: int, resumable: bool) -> BatchFailed:
    """The one line for a write that failed part way (``resumable``: into a file, which
    keeps the records before it and can be continued)."""
    why = f"cannot write {name}: {exc.strerror or exc}"
    if not resumable:
        return BatchFailed(why)
    # A chunk's records are written in one go, and a write that fails part way may have
    # written some of them: the file keeps every whole record written (a cut one is cut
    # off by --resume), ``done_line`` those of the chunks written whole.
    kept = "the records written are kept" + (
        f", up to line {done_line} at least" if done_line else ""
    )
    return BatchFailed(f"{why} ({kept}; run again with --resume once it can be written)")


def _close_quietly(stream: IO[str]) -> None:
    """Close a stream whose last write may have failed (the failure is reported)."""
    try:
        stream.close()
    except OSError:
        pass


@dataclass
class Output:
    """The open output: where records go, and where a resumed run picks up."""

    sink: IO[str]
    path: Path | None
    header: str
    resumed_after: int = 0
    last_record: dict[str, Any] | None = None

    @property
    def name(self) -> str:
        return f"'{self.path}'" if self.path is not None else "to stdout"


def _lock(fd: int, path: Path) -> None:
    """Hold an exclusive lock on the output until ``fd`` is closed (or the process ends)."""
    if fcntl is None or not stat.S_ISREG(os.fstat(fd).st_mode):
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return
    except BlockingIOError:
        pass
    except OSError as exc:  # a file system without locks
        log.warning("cannot lock %s (%s); make sure no other run writes it", path, exc.strerror)
        return
    # The run holding it writes its pid in the run file just after taking the lock.
    deadline = time.monotonic() + 2.0
    while (owner := run_owner(path)) is None and time.monotonic() < deadline:
        time.sleep(0.05)
    who = f"({owner})" if owner else "(its run file does not say which)"
    raise BatchError(
        f"'{path}' is being written by another capsa batch {who}; "
        "wait for it to finish or stop it first"
    )


def open_output(
    output: Any,
    out_path: Path | None,
    job: Job,
    resume: bool,
    input_name: str,
    stack: ExitStack,
    force: bool = False,
) -> Output:
    """Open (and lock) the output; with ``resume``, find where the run picks up. An output
    that already holds records is refused unless resumed or ``force``d (``_refuse``).

    Order matters: lock, then (resuming) check the options and cut the partial record,
    or (starting over) truncate and only then write the run file, so that a run killed
    at any point leaves an output that ``--resume`` continues or refuses, never mixes.
    """
    header = csv_text([list(csv_names(job.settled))]) if job.fmt == "csv" else ""
    if out_path is None:
        return Output(output if output is not None else sys.stdout, None, header)
    try:
        fd = os.open(out_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o666)
    except OSError as exc:
        raise _open_error(out_path, exc) from None
    sink = open(fd, "a", encoding="utf-8", newline="")  # noqa: SIM115 - closed by the stack
    stack.callback(_close_quietly, sink)  # closing it releases the lock
    _lock(fd, out_path)
    options = run_options(job)

    def run_file() -> None:
        try:
            write_sidecar(out_path, options, input_name)
        except OSError as exc:
            raise _open_error(sidecar_path(out_path), exc) from None

    resumed_after, last_record = 0, None
    try:
        if resume and os.fstat(fd).st_size > 0:
            check_options(out_path, options, job.field_file)
            run_file()
            opponents = job.settled
            resumed_after, last_record, has_header = tail_records(out_path, job.fmt, opponents)
            if has_header:
                header = ""
        else:
            if stat.S_ISREG(os.fstat(fd).st_mode):
                _refuse(out_path, os.fstat(fd).st_size, force)
                os.ftruncate(fd, 0)
            run_file()
    except OSError as exc:
        raise _open_error(out_path, exc) from None
    return Output(sink, out_path, header, resumed_after, last_record)


def _refuse(out_path: Path, size: int, force: bool) -> None:
    """Refuse to write over an output that already holds records: one repeated command
    must not lose a finished run (``--resume`` continues it, ``--force`` starts again)."""
    if size and not force:
        raise BatchError(
            f"'{out_path}' already holds records ({size:,} bytes): --resume continues it, "
            "--force starts again"
        )


def open_errors(errors: Any, stack: ExitStack) -> IO[str] | None:
    """The errors file, opened for writing (None when there is none)."""
    if errors is None:
        return None
    try:
        sink = open(errors, "w", encoding="utf-8", newline="")  # noqa: SIM115
    except OSError as exc:
        raise _open_error(errors, exc) from None
    stack.callback(_close_quietly, sink)
    return sink
