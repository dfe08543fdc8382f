"""The run: open the input and the outputs, cut chunks, pump them through a backend,
write the results in input order, stop cleanly on a signal.

Memory stays flat however long the input: it is never read whole, and at most a few
chunks per worker are in flight (a reorder buffer keyed by chunk index holds the ones
that finish early). Records are written whole and flushed chunk by chunk.

SIGINT (Ctrl-C), SIGTERM and SIGHUP stop the run after the chunk being written,
keeping everything written (``BatchResult.interrupted``, ``stopped_by``); a second one
stops at once, still returning the result. A worker that dies, or a write that fails,
ends the run with ``BatchFailed``, everything written before it kept.
"""

from __future__ import annotations

import dataclasses
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from solver.apps.batch.backends import make_backend
from solver.apps.batch.errors import BatchError, BatchFailed
from solver.apps.batch.outputs import Output, check_paths, open_errors, open_output, write_failed
from solver.apps.batch.pooling import ready_pool, with_pool
from solver.apps.batch.reading import BadLine, Line, open_input
from solver.apps.batch.records import error_line
from solver.apps.batch.resume import (
    check_field_tables,
    check_options,
    check_resume_point,
    lines_again,
    recorded_lines,
    run_options,
    stored_options,
    write_sidecar,
)
from solver.apps.batch.work import ChunkResult, Job
from solver.engine.errors import InputError
from solver.engine.options import SolveOptions
from solver.engine.progress import Progress
from solver.engine.rules import Rules, load_rules

__all__ = [
    "DEFAULT_CHUNK",
    "BatchHooks",
    "BatchOptions",
    "BatchProgress",
    "BatchResult",
    "chunks",
    "pump",
    "run_batch",
]

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
    #: The signal that stopped an interrupted run (SIGINT, SIGTERM or SIGHUP).
    stopped_by: int | None = None

    @property
    def hands_per_second(self) -> float:
        return self.hands / self.seconds if self.seconds > 0 else 0.0


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
    """Writes chunk results (records, bad lines) in order and reports progress."""

    out: Output
    err_sink: IO[str] | None
    errors_name: str
    result: BatchResult
    on_bad: Callable[[BadLine], None] | None
    on_progress: Progress | None
    total_lines: int | None
    start: float
    done_line: int = 0

    def _put(self, sink: IO[str], text: str, name: str, resumable: bool) -> None:
        try:
            sink.write(text)
            sink.flush()
        except BrokenPipeError:  # `capsa batch ... | head`: the caller's business
            raise
        except OSError as exc:
            raise write_failed(name, exc, self.done_line, resumable) from None

    def header(self) -> None:
        if self.out.header:
            self._put(self.out.sink, self.out.header, self.out.name, False)

    def write(self, res: ChunkResult) -> None:
        if res.text:
            self._put(self.out.sink, res.text, self.out.name, self.out.path is not None)
        if self.err_sink is not None and res.bad:
            text = "".join(error_line(bad) for bad in res.bad)
            self._put(self.err_sink, text, self.errors_name, self.out.path is not None)
        if self.on_bad is not None:
            for bad in res.bad:
                self.on_bad(bad)
        self.result.hands += res.hands
        self.result.bad += len(res.bad)
        self.done_line = max(self.done_line, res.last_line)
        self.report()

    def report(self) -> None:
        if self.on_progress is not None:
            elapsed = time.perf_counter() - self.start
            r = self.result
            detail = BatchProgress(self.done_line, self.total_lines, r.hands, r.bad, elapsed)
            self.on_progress(self.done_line, self.total_lines, detail=detail)


class _Stop:
    """SIGINT, SIGTERM and SIGHUP set a flag (the run stops after the chunk being
    written); a second signal raises KeyboardInterrupt, which the pump turns into an
    immediate stop, and so does the first while the run waits for its input
    (``reading``: ``capsa batch -`` on a pipe nobody writes to would not return from the
    read; the hands read so far, not yet solved, are for --resume). A signal the caller
    ignores (``nohup``) stays ignored."""

    SIGNALS = tuple(
        getattr(signal, n) for n in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, n)
    )

    def __init__(self) -> None:
        self.flag = threading.Event()
        self.signum: int | None = None
        self.previous: dict[int, Any] = {}
        self.reading = False

    def __enter__(self) -> _Stop:
        if threading.current_thread() is threading.main_thread():
            for sig in self.SIGNALS:
                if signal.getsignal(sig) in (signal.SIG_DFL, signal.default_int_handler):
                    self.previous[sig] = signal.signal(sig, self._handle)
        return self

    def _handle(self, signum: int, frame: Any) -> None:
        if self.flag.is_set():
            raise KeyboardInterrupt
        self.signum = signum
        self.flag.set()
        if self.reading:
            raise KeyboardInterrupt

    def pieces(self, pieces: Iterator[Any]) -> Iterator[Any]:
        """``pieces``, each read with ``reading`` set (a signal stops the read)."""
        while True:
            self.reading = True
            try:
                piece = next(pieces, None)
            finally:
                self.reading = False
            if piece is None:
                return
            yield piece

    def __exit__(self, *exc: object) -> None:
        for sig, previous in self.previous.items():
            signal.signal(sig, previous)

    @property
    def stopped(self) -> bool:
        return self.flag.is_set()

    def wait(self, seconds: float) -> bool:
        """Whether a stop signal comes within ``seconds`` (handlers run meanwhile)."""
        deadline = time.monotonic() + seconds
        while not self.flag.is_set() and time.monotonic() < deadline:
            time.sleep(0.02)
        return self.flag.is_set()


def pump(
    job: Job,
    pieces: Iterator[list[Line] | tuple[Job, list[Line]]],
    writer: _Writer,
    backend: Callable[[], Any],
    waits: bool = False,
) -> int | None:
    """Submit chunks with a bounded number in flight; write results in input order. A
    piece is a chunk, or a chunk with the job for it (a resumed run's lines solved again).
    ``waits``: reading the input may wait (a pipe, a terminal): a stop signal stops a
    read that waits (``_Stop.reading``).

    Returns the signal that stopped the run, or None when it ran to the end.
    """
    buffer: dict[int, ChunkResult] = {}
    pending: dict[Any, int] = {}
    next_out = 0
    submitted = 0

    def collect(timeout: float) -> None:
        nonlocal next_out
        for fut in runner.wait(list(pending), timeout):
            index = pending.pop(fut)
            try:
                buffer[index] = fut.result()
            except runner.died:
                if stop.wait(1.0):  # the whole process group was signalled
                    return
                raise BatchFailed(
                    f"a worker process died mid-batch; the records up to line "
                    f"{writer.done_line} are kept"
                    + ("; run again with --resume to continue" if writer.out.path else "")
                ) from None
        while next_out in buffer:
            writer.write(buffer.pop(next_out))
            next_out += 1

    writer.report()
    with _Stop() as stop:
        runner = None
        finished = False
        try:
            runner = backend()
            for piece in stop.pieces(pieces) if waits else pieces:
                while submitted - next_out >= 2 * runner.slots + 1 and not stop.stopped:
                    collect(0.2)
                if stop.stopped:
                    break
                this_job, chunk = piece if isinstance(piece, tuple) else (job, piece)
                pending[runner.submit(this_job, chunk)] = submitted
                submitted += 1
                collect(0)
            while pending and not stop.stopped:
                collect(0.2)
            finished = not pending
        except KeyboardInterrupt:
            if not stop.stopped:
                raise
        finally:
            for fut in pending:
                fut.cancel()
            if runner is not None:
                try:
                    runner.close(not finished)
                except KeyboardInterrupt:  # a second signal while waiting: now
                    runner.close(True)
        return stop.signum if stop.stopped else None


# --------------------------------------------------------------------------------------
# run_batch
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class BatchOptions:
    """How a run goes, besides what each hand's solve is asked (``SolveOptions``): see
    ``run_batch``."""

    fmt: str | None = None
    rules: Rules | str | os.PathLike[str] | None = None
    jokers: int | None = None
    workers: int | None = None
    resume: bool = False
    force: bool = False
    dask: Any = None
    errors: str | os.PathLike[str] | None = None
    chunk_size: int | None = None
    solve_fn: Callable[..., Any] | None = None
    fast: bool | None = None
    pool: bool | None = None
    pool_size: int | None = None


@dataclass(frozen=True)
class BatchHooks:
    """What a run tells its caller: each bad line, the lines written, the pool built."""

    on_bad: Callable[[BadLine], None] | None = None
    on_progress: Progress | None = None
    on_pool: Progress | None = None


_SOLVE_KEYS = ("policy", "samples", "seed", "players", "stakes", "opponents", "seat")
_RUN_KEYS = tuple(f.name for f in dataclasses.fields(BatchOptions))
_HOOK_KEYS = tuple(f.name for f in dataclasses.fields(BatchHooks))


def _check_options(fmt: str | None, out_path: Path | None, resume: bool) -> str:
    """``BatchError`` for options a run cannot start with; the output format (default:
    csv for an output named ``*.csv``, else jsonl)."""
    if fmt is None:
        fmt = "csv" if out_path is not None and out_path.suffix.lower() == ".csv" else "jsonl"
    if fmt not in ("jsonl", "csv"):
        raise BatchError(f"unknown output format {fmt!r}; formats are jsonl, csv")
    if resume and out_path is None:
        raise BatchError("--resume needs an output file (-o FILE)")
    return fmt


def _checked(solve: SolveOptions) -> SolveOptions:
    """The run's solve options, checked once (``BatchError``): each line sets its seed
    and played setting, and the answers carry no runners-up."""
    if solve.against is not None or solve.played is not None:
        raise BatchError("batch takes no against and no played: a line gives its played setting")
    try:
        return solve.evolve(top=0, pool=False).check()
    except InputError as exc:
        raise BatchError(str(exc)) from None


def _job(rules: Rules, solve: SolveOptions, run: BatchOptions, fmt: str) -> Job:
    """What every chunk's worker is given (the input's CSV layout comes later). The
    opponent models are checked here, once (one clear error before any worker starts);
    ``field`` everywhere is no model (today's run, its pool and run file)."""
    from solver.engine.seating import at_table
    from solver.strategy.solving.scoring import check_stakes

    n_players = solve.players or rules.players
    # more players than the deck deals: the preset's bigger table, else one line; then
    # the jokers asked for (None: the ruleset's)
    rules = at_table(rules, n_players, run.jokers)
    if solve.seat is not None and not rules.banker:
        raise BatchError(f"seat: ruleset '{rules.name}' seats no banker (banker = true)")
    settled = 1 if rules.banker and solve.seat != "banker" else n_players - 1
    weights = check_stakes(solve.stakes, settled)
    opponents, digests = _opponents(solve.opponents, rules, solve.policy, settled)
    stakes = None if weights is None else tuple(weights.tolist())
    return Job(
        rules=rules,
        options=solve.evolve(
            players=n_players, seed=solve.seed or 0, stakes=stakes, opponents=None
        ),  # fmt: skip
        fmt=fmt,
        csv_spec=None,
        skip_upto=0,
        solve_fn=run.solve_fn,
        fast=solve.policy in ("field", "greedy") if run.fast is None else run.fast,
        opponents=opponents,
        opponent_digests=digests,
    )


def _opponents(
    spec: str | None, rules: Rules, policy: str, n_opp: int
) -> tuple[str | None, tuple[str, ...] | None]:
    """The ``opponents`` spec the workers get (None for the field at every seat) and each
    seat's model digest (None when no seat has a model file)."""
    from solver.apps.batch.pinned import model_digests
    from solver.engine.compiled import compile_rules
    from solver.strategy.opposition.opponents import is_field, resolve_opponents

    if spec is None:
        return None, None
    try:
        models = resolve_opponents(spec, compile_rules(rules), n_opp)
    except ValueError as exc:
        raise BatchError(str(exc)) from None
    if is_field(models):
        return None, None
    if policy != "mc":
        raise BatchError(f"opponents: only policy mc meets opponents at the table, not {policy}")
    digests = model_digests(models)
    return spec, (digests if any(digests) else None)


def _with_field(job: Job, resuming: Path | None) -> Job:
    """The job with the digest of the field tables its workers read (trained now, once,
    if the ruleset has none yet), which the run file keeps. Resuming, an output written
    with other options is refused before any training, and one written with other tables
    here, in one line naming them, before any pool is planned on them. A ``solve_fn`` of
    the caller's may read no tables: none is kept."""
    if job.solve_fn is not None:
        return job
    from solver.engine.compiled import compile_rules
    from solver.strategy.field_model.field import tables_digest
    from solver.strategy.field_model.train import ensure_field
    from solver.strategy.field_model.trained import field_file

    stored = stored_options(resuming) if resuming is not None else None
    if resuming is not None and stored is not None:  # other options: before any training
        known = {k: v for k, v in run_options(job).items() if k not in ("pool", "field_digest")}
        check_options(resuming, known)
    cr = compile_rules(job.rules)
    digest = tables_digest(ensure_field(cr))
    where = field_file(cr)
    job = dataclasses.replace(job, field_digest=digest,
                              field_file=None if where is None else str(where))  # fmt: skip
    if resuming is not None and stored is not None:
        check_field_tables(resuming, stored, run_options(job), job.field_file)
    return job


def _pool_ready(
    job: Job, plan: Any, files: tuple[Any, Any, Path | None], samples: int | None,
    on_pool: Progress | None,
) -> Job:  # fmt: skip
    """The job once its pool is built (if need be) and checked: its workers get the pool's
    ``KEY/SIZE/DIGEST``, and a pool built now has its digest written in the run file.
    ``files``: the input, the output and the output's path."""
    inp, out, out_path = files
    ident = ready_pool(plan, inp.total_lines, out.resumed_after, samples, on_pool)
    if ident == job.pool_id:
        return job
    job = dataclasses.replace(job, pool_id=ident)
    if out_path is not None:
        try:
            write_sidecar(out_path, run_options(job), inp.name)
        except OSError as exc:
            raise BatchFailed(f"cannot write the run file of '{out_path}': "
                              f"{exc.strerror or exc}") from None  # fmt: skip
    return job


def _pieces(job: Job, inp: Any, out: Any, out_path: Path | None, size: int) -> Iterator[Any]:
    """The chunks to solve; resuming, the input must still hold what the output was made
    from, and lines with no record up to the resume point are solved again."""
    if not out.resumed_after:
        return chunks(inp.lines, size)
    upto = out.resumed_after
    lines = check_resume_point(
        inp.lines, upto, out.last_record, inp.csv_spec, out_path, job.rules.deck_code
    )
    recorded = recorded_lines(out_path, job.fmt, upto)  # type: ignore[arg-type]
    return lines_again(chunks(lines, size, upto), recorded, upto, job)


#: The batch's worker processes when the run names none (``default_workers``).
WORKERS_ENV = "CAPSA_WORKERS"


def default_workers() -> int:
    """A batch's worker processes when the run names none: ``CAPSA_WORKERS`` when set
    (a whole number of at least 1; 1 runs in process), else one a core."""
    text = os.environ.get(WORKERS_ENV, "").strip()
    if not text:
        return os.cpu_count() or 1
    if not text.isdigit() or int(text) < 1:
        raise BatchError(f"{WORKERS_ENV} must be a whole number of at least 1, got {text!r}")
    return int(text)


def run_batch(
    source: str | os.PathLike[str] | IO[bytes],
    output: str | os.PathLike[str] | IO[str] | None = None,
    solve: SolveOptions | None = None,
    run: BatchOptions | None = None,
    hooks: BatchHooks | None = None,
    **keywords: Any,
) -> BatchResult:
    """Solve every hand of ``source`` and write the records to ``output``.

    ``source`` is a path, ``"-"`` (stdin) or a binary stream; ``output`` a path, a text
    stream, or None (stdout). ``solve``: what each hand's solve is asked (``policy``,
    ``samples``, ``seed``: the run's, each line's coming from it and the line number,
    default 0; ``players``, ``stakes``, ``opponents``); ``run``: how the run goes
    (``BatchOptions``); ``hooks``: ``on_bad``, ``on_progress``, ``on_pool``. The keyword
    form ``run_batch(src, out, samples=..., workers=..., on_bad=...)`` builds the three
    from the same names (not mixed with them).

    ``fmt`` is ``jsonl`` or ``csv`` (default: from the output
    name, else jsonl). ``workers`` processes (default: ``default_workers()``; 1 runs in process);
    ``dask`` is a scheduler address, ``"local"`` or a ``distributed.Client``.
    ``solve_fn`` replaces ``solver.solve`` (a top-level function, so that it pickles;
    called as ``solve_fn(hand, rules, options)``).
    ``fast`` (default: on for field and greedy) sets policy hands a chunk at a time
    (see ``records.fast_records``); off, every hand goes through ``solve``. Raises
    ``BatchError`` when the run cannot start; bad lines do not raise. ``stakes``: money
    per unit against each opponent, as ``solve`` takes them (kept in the run file, so a
    resumed run must give the same). ``pool``, ``pool_size``, ``on_pool``: the opponent
    pool of an mc run (``solver.apps.batch.pooling.with_pool``). ``opponents``: who sits
    at the table (mc; ``solve``'s, one for all or one per seat; kept in the run file):
    other than the field, every opponent is dealt, never drawn from the pool.
    ``jokers``: the jokers in the deck, 0 to 2 (None: the ruleset's), once the table is
    seated (``solver.engine.seating.at_table``).
    An output file that already holds records is refused (``BatchError``) unless the
    run resumes it or ``force`` starts it again.
    """
    solve, run, hooks = _fronts(solve, run, hooks, keywords)
    start = time.perf_counter()
    out_path = None if output is None or hasattr(output, "write") else Path(output)
    fmt = _check_options(run.fmt, out_path, run.resume)
    solve = _checked(solve)
    if run.rules == "-" and not hasattr(source, "read") and str(source) == "-":
        raise BatchError("--rules - and the hands both on stdin: give one of them as a file")
    rules = load_rules(run.rules)
    workers = run.workers if run.workers is not None else default_workers()
    workers = max(1, workers)
    job = _job(rules, solve, run, fmt)
    resume, errors, samples = run.resume, run.errors, job.samples
    check_paths(source, output, out_path, errors, run.rules, force=run.force, resume=resume)

    with ExitStack() as stack:
        inp = open_input(source, stack)
        job = dataclasses.replace(job, csv_spec=inp.csv_spec)
        job = _with_field(job, out_path if resume else None)
        job, plan = with_pool(job, run.pool, run.pool_size, inp.total_lines,
                              out_path if resume else None)  # fmt: skip
        out = open_output(output, out_path, job, resume, inp.name, stack, run.force)
        job = dataclasses.replace(job, skip_upto=out.resumed_after)
        if plan is not None:  # the output is ours (locked): build the pool if need be
            job = _pool_ready(job, plan, (inp, out, out_path), samples, hooks.on_pool)
        pieces = _pieces(job, inp, out, out_path, run.chunk_size or DEFAULT_CHUNK[job.policy])
        err_sink = open_errors(errors, stack)
        result = BatchResult(resumed_after=out.resumed_after, output=str(out_path or "<stdout>"))
        writer = _Writer(out, err_sink, f"'{errors}'", result, hooks.on_bad, hooks.on_progress,
                         inp.total_lines, start, job.skip_upto)  # fmt: skip
        writer.header()
        result.stopped_by = pump(
            job,
            pieces,
            writer,
            lambda: make_backend(run.dask, workers),
            waits=_may_wait(source),
        )
        result.interrupted = result.stopped_by is not None
    result.seconds = time.perf_counter() - start
    return result


def _may_wait(source: Any) -> bool:
    """Whether reading ``source`` may wait for its writer: not a regular file (stdin on
    a pipe or a terminal, a named pipe)."""
    from solver.apps.files import reads, stream_key

    return (stream_key(source) if hasattr(source, "read") else reads(source)[1]) is None


def _fronts(
    solve: SolveOptions | None,
    run: BatchOptions | None,
    hooks: BatchHooks | None,
    keywords: dict[str, Any],
) -> tuple[SolveOptions, BatchOptions, BatchHooks]:
    """``run_batch``'s keyword form: the three option objects from the keywords."""
    unknown = sorted(set(keywords) - {*_SOLVE_KEYS, *_RUN_KEYS, *_HOOK_KEYS})
    if unknown:
        raise TypeError(f"run_batch() got an unexpected keyword argument {unknown[0]!r}")
    pick = lambda keys: {k: v for k, v in keywords.items() if k in keys}  # noqa: E731
    parts = [(solve, SolveOptions, _SOLVE_KEYS), (run, BatchOptions, _RUN_KEYS),
             (hooks, BatchHooks, _HOOK_KEYS)]  # fmt: skip
    out: list[Any] = []
    for given, kind, keys in parts:
        named = pick(keys)
        if given is not None and named:
            raise TypeError(f"run_batch() takes {kind.__name__} or its keywords, not both")
        out.append(given if given is not None else kind(**named))
    return out[0], out[1], out[2]
