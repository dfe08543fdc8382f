"""The run: open the input and the outputs, cut chunks, pump them through a backend,
write the results in input order, stop cleanly on Ctrl-C.

Memory stays flat however long the input: it is never read whole, and at most a few
chunks per worker are in flight (a reorder buffer keyed by chunk index holds the ones
that finish early). Records are written whole and flushed chunk by chunk.
"""

from __future__ import annotations

import dataclasses
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from solver.apps.batch.backends import make_backend
from solver.apps.batch.errors import BatchError
from solver.apps.batch.reading import (
    BadLine,
    CsvSpec,
    Line,
    count_lines,
    csv_header,
    is_content,
    read_lines,
)
from solver.apps.batch.records import CSV_COLUMNS, csv_text, error_line
from solver.apps.batch.resume import (
    check_options,
    check_resume_point,
    run_options,
    tail_records,
    write_sidecar,
)
from solver.apps.batch.work import ChunkResult, Job
from solver.engine.layout import POLICIES
from solver.engine.rules import Rules, load_rules

__all__ = ["DEFAULT_CHUNK", "BatchProgress", "BatchResult", "chunks", "pump", "run_batch"]

#: Hands per chunk: Monte Carlo hands take about a second, policy hands well under a ms.
DEFAULT_CHUNK = {"mc": 2, "field": 1024, "greedy": 1024}


@dataclass(frozen=True)
class BatchProgress:
    """Where a run is: ``line`` is the last input line whose record is written."""

    line: int
    total_lines: int | None
    hands: int
    bad: int
    elapsed: float


@dataclass
class BatchResult:
    """What a run did. ``hands`` counts records written by this run only."""

    hands: int = 0
    bad: int = 0
    resumed_after: int = 0
    seconds: float = 0.0
    interrupted: bool = False
    output: str = ""

    @property
    def hands_per_second(self) -> float:
        return self.hands / self.seconds if self.seconds > 0 else 0.0


# --------------------------------------------------------------------------------------
# Input and output
# --------------------------------------------------------------------------------------


@dataclass
class _Input:
    """The open input: its lines (comments and blanks dropped), name, CSV layout."""

    lines: Iterator[Line]
    name: str
    total_lines: int | None
    csv_spec: CsvSpec | None


def _open_input(source: Any, stack: ExitStack) -> _Input:
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
    return _Input(lines, name, total, spec)


def _prepend(first: Line, rest: Iterator[Line]) -> Iterator[Line]:
    yield first
    yield from rest


@dataclass
class _Output:
    """The open output: where records go, and where a resumed run picks up."""

    sink: IO[str]
    path: Path | None
    header: str
    resumed_after: int = 0
    last_record: dict[str, Any] | None = None


def _open_output(
    output: Any, out_path: Path | None, job: Job, resume: bool, inp: _Input, stack: ExitStack
) -> _Output:
    header = csv_text([list(CSV_COLUMNS)]) if job.fmt == "csv" else ""
    if out_path is None:
        sink = output if output is not None else sys.stdout
        return _Output(sink, None, header)
    options = run_options(job)
    resumed_after, last_record = 0, None
    if inp.name != "<stdin>" and out_path.exists() and os.path.samefile(out_path, inp.name):
        raise BatchError(f"the output '{out_path}' is the input file")
    if resume and out_path.exists():
        check_options(out_path, options)
        resumed_after, last_record, has_header = tail_records(out_path, job.fmt)
        if has_header:
            header = ""
    else:
        try:
            write_sidecar(out_path, options, inp.name)
            out_path.write_bytes(b"")
        except OSError as exc:
            raise BatchError(f"cannot write '{out_path}': {exc.strerror}") from None
    sink = stack.enter_context(out_path.open("a", encoding="utf-8", newline=""))
    return _Output(sink, out_path, header, resumed_after, last_record)


def _open_errors(errors: Any, stack: ExitStack) -> IO[str] | None:
    if errors is None:
        return None
    try:
        return stack.enter_context(Path(errors).open("w", encoding="utf-8", newline=""))
    except OSError as exc:
        raise BatchError(f"cannot write '{errors}': {exc.strerror}") from None


# --------------------------------------------------------------------------------------
# Chunks, writing in order, interrupts, the pump
# --------------------------------------------------------------------------------------


def chunks(lines: Iterator[Line], size: int, skip_upto: int = 0) -> Iterator[list[Line]]:
    """Chunks of ``size`` lines; lines a resumed run only re-checks go 4096 at a time."""
    chunk: list[Line] = []
    for item in lines:
        chunk.append(item)
        if len(chunk) >= (size if item[0] > skip_upto else max(size, 4096)):
            yield chunk
            chunk = []
    if chunk:
        yield chunk


@dataclass
class _Writer:
    """Writes chunk results (records, bad lines) and reports progress."""

    sink: IO[str]
    err_sink: IO[str] | None
    result: BatchResult
    on_bad: Callable[[BadLine], None] | None
    on_progress: Callable[[BatchProgress], None] | None
    total_lines: int | None
    start: float
    done_line: int = 0

    def write(self, res: ChunkResult) -> None:
        if res.text:
            self.sink.write(res.text)
            self.sink.flush()
        for bad in res.bad:
            if self.err_sink is not None:
                self.err_sink.write(error_line(bad))
            if self.on_bad is not None:
                self.on_bad(bad)
        if self.err_sink is not None and res.bad:
            self.err_sink.flush()
        self.result.hands += res.hands
        self.result.bad += len(res.bad)
        self.done_line = max(self.done_line, res.last_line)
        self.report()

    def report(self) -> None:
        if self.on_progress is not None:
            elapsed = time.perf_counter() - self.start
            r = self.result
            self.on_progress(
                BatchProgress(self.done_line, self.total_lines, r.hands, r.bad, elapsed)
            )


@dataclass
class _Interrupt:
    """SIGINT sets a flag (the run stops after the chunk being written); twice aborts."""

    flag: threading.Event = field(default_factory=threading.Event)
    previous: Any = None
    installed: bool = False

    def __enter__(self) -> _Interrupt:
        if threading.current_thread() is threading.main_thread():
            self.previous = signal.getsignal(signal.SIGINT)
            signal.signal(signal.SIGINT, self._handle)
            self.installed = True
        return self

    def _handle(self, signum: int, frame: Any) -> None:
        if self.flag.is_set():
            raise KeyboardInterrupt
        self.flag.set()

    def __exit__(self, *exc: object) -> None:
        if self.installed:
            signal.signal(signal.SIGINT, self.previous)


def pump(
    job: Job, pieces: Iterator[list[Line]], writer: _Writer, backend: Callable[[], Any]
) -> bool:
    """Submit chunks with a bounded number in flight; write results in input order.

    Returns whether the run was interrupted.
    """
    buffer: dict[int, ChunkResult] = {}
    pending: dict[Any, int] = {}
    next_out = 0
    submitted = 0

    def collect(timeout: float) -> None:
        nonlocal next_out
        for fut in runner.wait(list(pending), timeout):
            buffer[pending.pop(fut)] = fut.result()
        while next_out in buffer:
            writer.write(buffer.pop(next_out))
            next_out += 1

    writer.report()
    with _Interrupt() as interrupt:
        runner = backend()
        cancel = True
        try:
            for chunk in pieces:
                while submitted - next_out >= 2 * runner.slots + 1:
                    if interrupt.flag.is_set():
                        break
                    collect(0.2)
                if interrupt.flag.is_set():
                    break
                pending[runner.submit(job, chunk)] = submitted
                submitted += 1
                collect(0)
            while pending and not interrupt.flag.is_set():
                collect(0.2)
            cancel = bool(pending)
        finally:
            for fut in pending:
                fut.cancel()
            runner.close(cancel)
        return interrupt.flag.is_set()


# --------------------------------------------------------------------------------------
# run_batch
# --------------------------------------------------------------------------------------


def run_batch(
    source: str | os.PathLike[str] | IO[bytes],
    output: str | os.PathLike[str] | IO[str] | None = None,
    *,
    fmt: str | None = None,
    rules: Rules | str | os.PathLike[str] | None = None,
    policy: str = "mc",
    samples: int | None = None,
    seed: int = 0,
    players: int | None = None,
    workers: int | None = None,
    resume: bool = False,
    dask: Any = None,
    errors: str | os.PathLike[str] | None = None,
    on_bad: Callable[[BadLine], None] | None = None,
    on_progress: Callable[[BatchProgress], None] | None = None,
    chunk_size: int | None = None,
    solve_fn: Callable[..., Any] | None = None,
    fast: bool | None = None,
) -> BatchResult:
    """Solve every hand of ``source`` and write the records to ``output``.

    ``source`` is a path, ``"-"`` (stdin) or a binary stream; ``output`` a path, a text
    stream, or None (stdout). ``fmt`` is ``jsonl`` or ``csv`` (default: from the output
    name, else jsonl). ``workers`` processes (default: every core; 1 runs in process);
    ``dask`` is a scheduler address, ``"local"`` or a ``distributed.Client``.
    ``solve_fn`` replaces ``solver.solve`` (a top-level function, so that it pickles).
    ``fast`` (default: on for field and greedy) sets policy hands a chunk at a time
    (see ``records.fast_records``); off, every hand goes through ``solve``. Raises
    ``BatchError`` when the run cannot start; bad lines do not raise.
    """
    start = time.perf_counter()
    if policy not in POLICIES:
        raise BatchError(f"unknown policy {policy!r}; policies are {', '.join(POLICIES)}")
    rules = load_rules(rules)
    out_path = None if output is None or hasattr(output, "write") else Path(output)
    if fmt is None:
        fmt = "csv" if out_path is not None and out_path.suffix.lower() == ".csv" else "jsonl"
    if fmt not in ("jsonl", "csv"):
        raise BatchError(f"unknown output format {fmt!r}; formats are jsonl, csv")
    if resume and out_path is None:
        raise BatchError("--resume needs an output file (-o FILE)")
    if samples is not None and samples < 1:
        raise BatchError(f"samples must be at least 1, got {samples}")
    workers = max(1, workers if workers is not None else os.cpu_count() or 1)

    with ExitStack() as stack:
        inp = _open_input(source, stack)
        job = Job(
            rules=rules,
            policy=policy,
            samples=samples,
            seed=seed,
            players=players or rules.players,
            fmt=fmt,
            csv_spec=inp.csv_spec,
            skip_upto=0,
            solve_fn=solve_fn,
            fast=policy in ("field", "greedy") if fast is None else fast,
        )
        out = _open_output(output, out_path, job, resume, inp, stack)
        job = dataclasses.replace(job, skip_upto=out.resumed_after)
        lines = inp.lines
        if out.resumed_after:
            lines = check_resume_point(
                lines, out.resumed_after, out.last_record, inp.csv_spec, out_path
            )
        err_sink = _open_errors(errors, stack)
        result = BatchResult(resumed_after=out.resumed_after, output=str(out_path or "<stdout>"))
        if out.header:
            out.sink.write(out.header)
            out.sink.flush()
        writer = _Writer(
            out.sink, err_sink, result, on_bad, on_progress, inp.total_lines, start, job.skip_upto
        )
        result.interrupted = pump(
            job,
            chunks(lines, chunk_size or DEFAULT_CHUNK[policy], out.resumed_after),
            writer,
            lambda: make_backend(dask, workers),
        )
    result.seconds = time.perf_counter() - start
    return result
