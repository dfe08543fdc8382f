"""Streaming, parallel, resumable batch solving, and the Dask backend.

``run_batch`` reads a file of hands one line at a time, cuts it into chunks, solves the
chunks on worker processes (or on a Dask cluster) and writes one record per hand, in
input order, as the chunks complete. Memory stays flat however long the file: the input
is never read whole, and at most a few chunks per worker are in flight (a reorder
buffer keyed by chunk index holds the ones that finish early).

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

Output: one record per good line, in input order. JSONL records are
``{"line": n, "id": id-or-null, **Solution.to_dict()}`` (compact separators); CSV rows
have the columns ``CSV_COLUMNS`` (row win rates, natural and surrender flattened,
alternatives left out). Records hold no timings, so a run's output is the same byte for
byte whatever the worker count, backend or resume point: each hand's seed is derived
from ``--seed`` and its line number only (``hand_seed``).

Policies: ``mc`` (the default) runs ``solve(hand, ..., top=0)`` per hand. ``field`` and
``greedy`` set a chunk of hands at once (``solver.strategy.policy.set_sorted_hands``) and score
the chosen settings with the field tables exactly as ``solve`` scores its candidates,
so the record has the same keys and the same ``ev``, ``row_stats``, ``surrender`` and
``action``; hands holding a natural go through ``solve``. Differences from ``solve``:
``candidates`` is null (no Pareto front is built), and where settings of equal row keys
(suits swapped between rows, equal value) exist, the shown one may differ in suits.
``fast=False`` sends every hand through ``solve`` (a few ms a hand).

Bad lines (unreadable cards, duplicates, wrong card count, bad CSV rows, not UTF-8,
longer than ``MAX_LINE`` bytes) are reported through ``on_bad`` and in the errors file
(JSON lines ``{"line", "id", "reason", "text"}``) in input order; the run goes on.

Resume: the run's options are kept beside the output in ``OUT.capsa-run.json``. With
``resume=True`` an existing output is checked against them (a run with other options
is refused), a trailing partial record is cut off, and the run continues after the
last complete record's line. Lines before that point are re-checked but not solved, so
the bad-line report and the errors file are those of a complete run. Records are
written whole and flushed chunk by chunk; Ctrl-C (SIGINT) stops after the chunk being
written, keeping everything already written.

This module never prints: progress goes to the ``on_progress`` callback and bad lines to
``on_bad``; the CLI renders them.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import os
import signal
import stat
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, NamedTuple

from solver.engine.layout import POLICIES, ROWS
from solver.engine.rules import Rules, load_rules

__all__ = [
    "CSV_COLUMNS",
    "MAX_LINE",
    "POLICIES",
    "BadLine",
    "BatchError",
    "BatchProgress",
    "BatchResult",
    "hand_seed",
    "parse_line",
    "run_batch",
    "sidecar_path",
]

#: Lines longer than this (bytes) are reported as bad without being parsed.
MAX_LINE = 65536
#: Hands per chunk: Monte Carlo hands take about a second, policy hands well under a ms.
DEFAULT_CHUNK = {"mc": 2, "field": 1024, "greedy": 1024}
SIDECAR_SUFFIX = ".capsa-run.json"
_SIDECAR_VERSION = 1

CSV_COLUMNS: tuple[str, ...] = (
    "line",
    "id",
    "hand",
    "rules",
    "policy",
    "players",
    "samples",
    "seed",
    "action",
    "front",
    "middle",
    "back",
    "ev",
    "ev_total",
    "ev_play",
    "stderr",
    "candidates",
    *(f"{row}_{k}" for row in ROWS for k in ("win", "tie", "loss")),
    "natural",
    "natural_declared",
    "natural_ev_declare",
    "natural_ev_play",
    "surrender_cost",
    "surrender_recommended",
    "ev_staked",
    *(f"stake_{j}" for j in (1, 2, 3)),
    *(f"ev_opponent_{j}" for j in (1, 2, 3)),
)


class BatchError(ValueError):
    """A batch that cannot run as asked (bad input file, resume refused): one line."""


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
# Lines, ids, seeds, records
# --------------------------------------------------------------------------------------


def hand_seed(seed: int, line: int) -> int:
    """The seed of the hand on ``line``: depends on ``seed`` and the line number only."""
    import numpy as np

    return int(np.random.SeedSequence([seed, line]).generate_state(1)[0])


class _CsvSpec(NamedTuple):
    fields: int
    hand: int
    id: int  # -1: no id column


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


def _split_id(text: str) -> tuple[str | None, str]:
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


def parse_line(text: str, csv_spec: _CsvSpec | None = None) -> tuple[str | None, Any]:
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
        ident, cards = _split_id(text)
    hand = _quick_hand(cards)
    if hand is not None:
        return ident, hand
    try:
        return ident, parse_hand(cards)
    except ValueError as exc:
        exc.line_id = ident  # type: ignore[attr-defined]
        raise


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def csv_row(record: dict[str, Any]) -> list[str]:
    """A record flattened into the ``CSV_COLUMNS`` cells."""
    flat = dict(record)
    stats = record.get("row_stats") or {}
    for row in ROWS:
        for k in ("win", "tie", "loss"):
            flat[f"{row}_{k}"] = (stats.get(row) or {}).get(k)
    natural = record.get("natural") or {}
    flat["natural"] = natural.get("name")
    flat["natural_declared"] = natural.get("declared")
    flat["natural_ev_declare"] = natural.get("ev_declare")
    flat["natural_ev_play"] = natural.get("ev_play")
    surrender = record.get("surrender") or {}
    flat["surrender_cost"] = surrender.get("cost")
    flat["surrender_recommended"] = surrender.get("recommended")
    for name, values in (
        ("stake", record.get("stakes")),
        ("ev_opponent", record.get("ev_by_opponent")),
    ):
        for j, v in enumerate(values or (), start=1):
            flat[f"{name}_{j}"] = v
    return [_cell(flat.get(col)) for col in CSV_COLUMNS]


def _csv_text(rows: Iterable[list[str]]) -> str:
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(rows)
    return buf.getvalue()


def format_records(records: list[dict[str, Any]], fmt: str) -> str:
    """Records as output text: one line each, each ending in a newline."""
    if fmt == "csv":
        return _csv_text(csv_row(r) for r in records)
    return "".join(json.dumps(r, ensure_ascii=False, separators=(",", ":")) + "\n" for r in records)


# --------------------------------------------------------------------------------------
# The per-chunk work (runs in worker processes, Dask workers, or in process)
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Job:
    """Everything a worker needs besides the lines; pickled with every chunk."""

    rules: Rules
    policy: str
    samples: int | None
    seed: int
    players: int
    fmt: str
    csv_spec: _CsvSpec | None
    skip_upto: int  # lines <= this are checked, not solved (resume)
    solve_fn: Callable[..., Any] | None = None
    fast: bool = False


class _ChunkResult(NamedTuple):
    text: str
    hands: int
    bad: list[BadLine]
    last_line: int


_WARM: set[tuple[Any, ...]] = set()
#: An ordinary hand and a natural (six pairs): the warm-up runs both code paths.
_WARM_HANDS = ("As Ks Qs Js Ts 9h 9d 9c 2s 3d 4c 5h 7d", "As Ad Ks Kd Qs Qd Js Jd Ts Td 9s 9d 2c")


def _real_solve() -> Callable[..., Any]:
    from solver.strategy.solve import solve

    return solve


def _one_thread() -> None:
    """Kernels run single-threaded in a worker: the workers are the parallelism.

    ``numba.set_num_threads`` is per thread, so this also holds for Dask worker threads;
    ``CAPSA_THREADS`` caps the thread pools of ``solver.strategy.policy`` and
    ``solver.strategy.solve``.
    """
    import numba

    numba.set_num_threads(1)
    os.environ["CAPSA_THREADS"] = "1"


def _default_threads(env: str | None) -> None:
    """Undo ``_one_thread`` in this process (after an in-process run)."""
    numba = sys.modules.get("numba")
    if numba is not None:
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    if env is None:
        os.environ.pop("CAPSA_THREADS", None)
    else:
        os.environ["CAPSA_THREADS"] = env


def _warm_up(job: _Job) -> None:
    """Load (or, on a machine's first run, compile) the kernels once per worker process
    (and thread, for Dask), by solving two fixed hands the way the chunks will be."""
    _one_thread()
    key = (os.getpid(), threading.get_ident(), job.rules, job.policy, job.players, job.fast)
    if key in _WARM:
        return
    from evaluator import parse_hand

    warm = dataclasses.replace(job, samples=min(job.samples or 32, 32))
    _records(warm, [(i, None, parse_hand(h)) for i, h in enumerate(_WARM_HANDS, 1)], [])
    _WARM.add(key)


def solve_chunk(job: _Job, items: list[tuple[int, bytes | None]]) -> _ChunkResult:
    """Parse, check and solve one chunk of ``(line number, raw line)``; format the records."""
    _warm_up(job)
    bad: list[BadLine] = []
    good: list[tuple[int, str | None, Any]] = []
    for line, raw in items:
        if raw is None:
            bad.append(BadLine(line, None, f"line longer than {MAX_LINE} bytes"))
            continue
        try:
            text = raw.decode("utf-8").strip()
        except UnicodeDecodeError as exc:
            bad.append(BadLine(line, None, f"not UTF-8 text (bad byte at {exc.start + 1})"))
            continue
        try:
            ident, hand = parse_line(text, job.csv_spec)
        except ValueError as exc:
            bad.append(BadLine(line, getattr(exc, "line_id", None), str(exc), text))
            continue
        if line > job.skip_upto:
            good.append((line, ident, hand))
    records = _records(job, good, bad)
    bad.sort(key=lambda b: b.line)
    last = items[-1][0] if items else 0
    return _ChunkResult(format_records(records, job.fmt), len(records), bad, last)


def _records(
    job: _Job, good: list[tuple[int, str | None, Any]], bad: list[BadLine]
) -> list[dict[str, Any]]:
    """The records of the good lines, in order; hands the solver rejects go to ``bad``."""
    if not good:
        return []
    if job.fast:
        return _fast_records(job, good, bad)
    out = []
    for line, ident, hand in good:
        record = _solve_one(job, line, ident, hand, bad)
        if record is not None:
            out.append(record)
    return out


def _solve_one(
    job: _Job, line: int, ident: str | None, hand: Any, bad: list[BadLine]
) -> dict[str, Any] | None:
    """The per-hand path: ``solve(...).to_dict()`` with the line number and id in front."""
    solve = job.solve_fn or _real_solve()
    try:
        solution = solve(
            hand,
            rules=job.rules,
            policy=job.policy,
            samples=job.samples,
            seed=hand_seed(job.seed, line),
            players=job.players,
            top=0,
        )
    except ValueError as exc:  # the solver's own input checks
        bad.append(BadLine(line, ident, str(exc)))
        return None
    return {"line": line, "id": ident, **solution.to_dict()}


def _fast_records(
    job: _Job, good: list[tuple[int, str | None, Any]], bad: list[BadLine]
) -> list[dict[str, Any]]:
    """Field and greedy hands of a chunk set together; the per-hand path's record shape.

    ``solver.strategy.policy.set_sorted_hands`` sets the chunk, the field model scores the
    chosen settings the way ``solve`` scores its candidates, and ``solve``'s own
    ``assemble`` makes each record (so ``ev``, ``row_stats``, ``surrender`` and ``action``
    are those ``solve`` gives for that setting); hands holding a natural take the
    per-hand path. Two differences from ``solve``, both documented: ``candidates`` is null
    (the Pareto front is not built), and among settings of equal row keys (the same
    ranks, suits swapped between rows, equal value) the policy may show another one than
    ``solve`` does.
    """
    import numpy as np

    from solver.engine.compiled import compile_rules
    from solver.engine.settlement import find_naturals
    from solver.strategy.field import field_values
    from solver.strategy.policy import set_sorted_hands
    from solver.strategy.scoring import field_scores
    from solver.strategy.solve import assemble
    from solver.strategy.splits import Candidates

    cr = compile_rules(job.rules)
    srt = np.sort(np.stack([h for _, _, h in good]), axis=1)
    naturals, _ = find_naturals(srt, cr)
    out: list[dict[str, Any] | None] = [None] * len(good)
    for i in np.flatnonzero(naturals >= 0).tolist():
        out[i] = _solve_one(job, *good[i], bad)
    play = np.flatnonzero(naturals < 0)
    if len(play):
        split, keys, roy, _ = set_sorted_hands(srt[play], cr, job.policy, threads=1)
        vals, wt = field_values(keys, roy, cr)
        for j, i in enumerate(play.tolist()):
            line, ident, _ = good[i]
            one = Candidates(srt[i], split[j : j + 1], keys[j : j + 1], roy[j : j + 1], 0, False)
            solution = assemble(
                one,
                field_scores(vals[j : j + 1], wt[j : j + 1], cr, job.policy, job.players - 1),
                cr,
                players=job.players,
                top=0,
                seed=hand_seed(job.seed, line),
                candidates=None,
            )
            out[i] = {"line": line, "id": ident, **solution.to_dict()}
    return [r for r in out if r is not None]


# --------------------------------------------------------------------------------------
# Reading the input
# --------------------------------------------------------------------------------------


def _count_lines(path: Path) -> int | None:
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


def _read_lines(stream: IO[bytes]) -> Iterator[tuple[int, bytes | None]]:
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


def _is_content(raw: bytes | None) -> bool:
    return raw is None or (bool(raw) and not raw.startswith(b"#"))


def _csv_header(raw: bytes, *, required: bool, name: str) -> _CsvSpec | None:
    """The CSV layout if ``raw`` is a header line naming a ``hand`` column."""
    try:
        fields = [f.strip().lower() for f in next(csv.reader([raw.decode("utf-8")]))]
    except (UnicodeDecodeError, StopIteration, csv.Error):
        fields = []
    names_only = all(f.replace("_", "").isalnum() and not f[:1].isdigit() for f in fields)
    if "hand" in fields and names_only and len(set(fields)) == len(fields):
        return _CsvSpec(
            len(fields), fields.index("hand"), fields.index("id") if "id" in fields else -1
        )
    if required:
        raise BatchError(
            f"{name}: a CSV input starts with a header naming a 'hand' column (e.g. id,hand)"
        )
    return None


# --------------------------------------------------------------------------------------
# Output, sidecar, resume
# --------------------------------------------------------------------------------------


def sidecar_path(output: str | os.PathLike[str]) -> Path:
    """Where the options of the run writing ``output`` are kept."""
    p = Path(output)
    return p.with_name(p.name + SIDECAR_SUFFIX)


def _run_options(job: _Job) -> dict[str, Any]:
    from importlib.metadata import PackageNotFoundError, version

    try:
        capsa_version = version("capsa")
    except PackageNotFoundError:  # pragma: no cover - running from a source tree
        capsa_version = "unknown"
    return {
        "capsa_batch": _SIDECAR_VERSION,
        "capsa": capsa_version,
        "format": job.fmt,
        "rules": job.rules.name,
        "rules_digest": job.rules.digest(),
        "policy": job.policy,
        "samples": job.samples,
        "seed": job.seed,
        "players": job.players,
    }


def _tail_records(path: Path, fmt: str) -> tuple[int, dict[str, Any] | None, bool]:
    """Cut a trailing partial line off ``path``; the last complete record's line number.

    Returns ``(last line, (id, hand) of that record or None, header present)``.
    Reads only the end of the file.
    """
    with path.open("rb+") as f:
        size = f.seek(0, os.SEEK_END)
        pos, tail = size, b""
        # Find the last newline, and the one before it, reading backwards in blocks.
        while pos > 0 and tail.count(b"\n") < 2:
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
    last = lines[-1].decode("utf-8", errors="replace")
    try:
        if fmt == "csv":
            cells = next(csv.reader([last]))
            if cells == list(CSV_COLUMNS):
                return 0, None, True
            rec = dict(zip(CSV_COLUMNS, cells, strict=False))
            return int(rec["line"]), {"id": rec["id"] or None, "hand": rec["hand"]}, True
        rec = json.loads(last)
        return int(rec["line"]), {"id": rec.get("id"), "hand": rec["hand"]}, False
    except (ValueError, KeyError, TypeError, StopIteration):
        raise BatchError(
            f"cannot resume: the last line of '{path}' is not a {fmt} record of capsa batch"
        ) from None


def _check_options(path: Path, options: dict[str, Any]) -> None:
    side = sidecar_path(path)
    try:
        stored = json.loads(side.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise BatchError(
            f"cannot resume: '{side}' (the options of the run that wrote '{path}') is missing"
        ) from None
    except (OSError, ValueError) as exc:
        raise BatchError(f"cannot resume: cannot read '{side}': {exc}") from None
    differ = [
        f"{k} {stored.get(k)!r} (now {v!r})" for k, v in options.items() if stored.get(k) != v
    ]
    if differ:
        raise BatchError(
            f"cannot resume '{path}': it was written with other options: "
            + ", ".join(differ)
            + "; run again without --resume to start over"
        )


# --------------------------------------------------------------------------------------
# Backends: in process, process pool, Dask
# --------------------------------------------------------------------------------------


class _Inline:
    """Runs each chunk at submit time (one worker, no pool)."""

    slots = 1

    def __init__(self) -> None:
        self._env = os.environ.get("CAPSA_THREADS")

    def submit(self, job: _Job, items: list[tuple[int, bytes | None]]) -> Any:
        from concurrent.futures import Future

        fut: Future[_ChunkResult] = Future()
        try:
            fut.set_result(solve_chunk(job, items))
        except Exception as exc:  # re-raised by .result(), as from a pool
            fut.set_exception(exc)
        return fut

    def wait(self, futures: Iterable[Any], timeout: float) -> set[Any]:
        return set(futures)

    def close(self, cancel: bool) -> None:
        _default_threads(self._env)


def _pool_init() -> None:
    """A worker ignores Ctrl-C (the parent stops the run) and says on stderr when it
    compiles the kernels, as the command does."""
    import logging

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    log = logging.getLogger("capsa")
    if not log.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("capsa: %(message)s"))
        log.addHandler(handler)
        log.setLevel(logging.INFO)
        log.propagate = False


class _Pool:
    """A ``ProcessPoolExecutor`` of spawned workers."""

    def __init__(self, workers: int):
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        self.slots = workers
        self.pool = ProcessPoolExecutor(
            workers, mp_context=multiprocessing.get_context("spawn"), initializer=_pool_init
        )

    def submit(self, job: _Job, items: list[tuple[int, bytes | None]]) -> Any:
        return self.pool.submit(solve_chunk, job, items)

    def wait(self, futures: Iterable[Any], timeout: float) -> set[Any]:
        from concurrent.futures import FIRST_COMPLETED, wait

        return wait(futures, timeout=timeout, return_when=FIRST_COMPLETED).done

    def close(self, cancel: bool) -> None:
        self.pool.shutdown(wait=True, cancel_futures=cancel)


class _Dask:
    """Chunks on a Dask cluster: a scheduler address, ``local``, or a ``Client``."""

    def __init__(self, target: Any, workers: int):
        try:
            from distributed import Client, LocalCluster
        except ImportError:
            raise BatchError(
                'the Dask backend needs dask.distributed: pip install "capsa[dask]"'
            ) from None
        self.cluster = None
        self.own_client = True
        if isinstance(target, Client):
            self.client = target
            self.own_client = False
        elif target == "local":
            self.cluster = LocalCluster(
                n_workers=workers,
                threads_per_worker=1,
                processes=True,
                dashboard_address=None,
                silence_logs=40,
            )
            self.client = Client(self.cluster)
        else:
            try:
                self.client = Client(target, timeout=30)
            except OSError as exc:
                raise BatchError(f"cannot reach the Dask scheduler at {target}: {exc}") from None
        self._slots_at = 0.0
        self._slots = workers

    @property
    def slots(self) -> int:
        now = time.monotonic()
        if now - self._slots_at > 2.0:
            self._slots_at = now
            self._slots = max(1, sum(self.client.nthreads().values()))
        return self._slots

    def submit(self, job: _Job, items: list[tuple[int, bytes | None]]) -> Any:
        return self.client.submit(solve_chunk, job, items, pure=False)

    def wait(self, futures: Iterable[Any], timeout: float) -> set[Any]:
        from distributed import wait
        from distributed.utils import TimeoutError as DaskTimeout

        futures = list(futures)
        try:
            return set(wait(futures, timeout=timeout, return_when="FIRST_COMPLETED").done)
        except (TimeoutError, DaskTimeout):
            return {f for f in futures if f.done()}

    def close(self, cancel: bool) -> None:
        if self.own_client:
            self.client.close()
        if self.cluster is not None:
            self.cluster.close()


# --------------------------------------------------------------------------------------
# The run
# --------------------------------------------------------------------------------------


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


def _chunks(
    lines: Iterator[tuple[int, bytes | None]], size: int, skip_upto: int = 0
) -> Iterator[list[tuple[int, bytes | None]]]:
    """Chunks of ``size`` lines; lines a resumed run only re-checks go 4096 at a time."""
    chunk: list[tuple[int, bytes | None]] = []
    for item in lines:
        chunk.append(item)
        if len(chunk) >= (size if item[0] > skip_upto else max(size, 4096)):
            yield chunk
            chunk = []
    if chunk:
        yield chunk


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
    (see ``_fast_records``); off, every hand goes through ``solve``. Raises
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
    if workers is None:
        workers = os.cpu_count() or 1
    workers = max(1, workers)
    if fast is None:
        fast = policy in ("field", "greedy")

    # ---- input
    name = "<stdin>"
    total_lines = None
    if hasattr(source, "read"):
        stream: IO[bytes] = source  # type: ignore[assignment]
        own_input = False
    elif str(source) == "-":
        stream, own_input = sys.stdin.buffer, False
    else:
        in_path = Path(source)
        name = str(in_path)
        try:
            stream = in_path.open("rb")
        except OSError as exc:
            raise BatchError(f"cannot read '{in_path}': {exc.strerror}") from None
        own_input = True
        total_lines = _count_lines(in_path)

    try:
        lines = (item for item in _read_lines(stream) if _is_content(item[1]))
        first = next(lines, None)
        csv_spec = None
        if first is not None and first[1] is not None:
            csv_spec = _csv_header(first[1], required=name.lower().endswith(".csv"), name=name)
        if csv_spec is None and first is not None:
            lines = _prepend(first, lines)

        job = _Job(
            rules=rules,
            policy=policy,
            samples=samples,
            seed=seed,
            players=players or rules.players,
            fmt=fmt,
            csv_spec=csv_spec,
            skip_upto=0,
            solve_fn=solve_fn,
            fast=fast,
        )
        options = _run_options(job)

        # ---- output
        header = _csv_text([list(CSV_COLUMNS)]) if fmt == "csv" else ""
        last_record = None
        resumed_after = 0
        if out_path is not None:
            if own_input and out_path.exists() and os.path.samefile(out_path, name):
                raise BatchError(f"the output '{out_path}' is the input file")
            if resume and out_path.exists():
                _check_options(out_path, options)
                resumed_after, last_record, has_header = _tail_records(out_path, fmt)
                if has_header:
                    header = ""
            else:
                resume = False
                try:
                    sidecar_path(out_path).write_text(
                        json.dumps({**options, "input": name}, indent=2) + "\n", encoding="utf-8"
                    )
                    out_path.write_bytes(b"")
                except OSError as exc:
                    raise BatchError(f"cannot write '{out_path}': {exc.strerror}") from None
            sink: IO[str] = out_path.open("a", encoding="utf-8", newline="")
        else:
            sink = output if output is not None else sys.stdout  # type: ignore[assignment]
        job = _replace(job, skip_upto=resumed_after)
        if resumed_after:
            lines = _check_resume_point(lines, resumed_after, last_record, csv_spec, out_path)

        err_sink = None
        if errors is not None:
            try:
                err_sink = Path(errors).open("w", encoding="utf-8", newline="")
            except OSError as exc:
                raise BatchError(f"cannot write '{errors}': {exc.strerror}") from None

        result = BatchResult(resumed_after=resumed_after, output=str(out_path or "<stdout>"))
        try:
            if header:
                sink.write(header)
                sink.flush()
            _pump(
                job,
                _chunks(lines, chunk_size or DEFAULT_CHUNK[policy], resumed_after),
                sink,
                err_sink,
                result,
                backend=lambda: _backend(dask, workers),
                on_bad=on_bad,
                on_progress=on_progress,
                total_lines=total_lines,
                start=start,
            )
        finally:
            if out_path is not None:
                sink.close()
            if err_sink is not None:
                err_sink.close()
    finally:
        if own_input:
            stream.close()
    result.seconds = time.perf_counter() - start
    return result


def _prepend(first: Any, rest: Iterator[Any]) -> Iterator[Any]:
    yield first
    yield from rest


def _replace(job: _Job, **changes: Any) -> _Job:
    return dataclasses.replace(job, **changes)


def _check_resume_point(
    lines: Iterator[tuple[int, bytes | None]],
    upto: int,
    record: dict[str, Any] | None,
    csv_spec: _CsvSpec | None,
    out_path: Path | None,
) -> Iterator[tuple[int, bytes | None]]:
    """Pass the lines through, checking that line ``upto`` is the hand last written."""
    from evaluator import parse_cards

    seen = False
    for line, raw in lines:
        if line == upto and record is not None:
            seen = True
            try:
                ident, hand = parse_line((raw or b"").decode("utf-8").strip(), csv_spec)
                same = ident == record["id"] and sorted(hand.tolist()) == sorted(
                    parse_cards(record["hand"]).tolist()
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


def _backend(dask: Any, workers: int) -> Any:
    if dask is not None:
        return _Dask(dask, workers)
    if workers == 1:
        return _Inline()
    return _Pool(workers)


def _pump(
    job: _Job,
    chunks: Iterator[list[tuple[int, bytes | None]]],
    sink: IO[str],
    err_sink: IO[str] | None,
    result: BatchResult,
    *,
    backend: Callable[[], Any],
    on_bad: Callable[[BadLine], None] | None,
    on_progress: Callable[[BatchProgress], None] | None,
    total_lines: int | None,
    start: float,
) -> None:
    """Submit chunks with a bounded number in flight; write results in input order."""
    done_line = job.skip_upto
    buffer: dict[int, _ChunkResult] = {}
    pending: dict[Any, int] = {}
    next_out = 0
    submitted = 0

    def report() -> None:
        if on_progress is not None:
            on_progress(
                BatchProgress(
                    done_line, total_lines, result.hands, result.bad, time.perf_counter() - start
                )
            )

    def emit() -> None:
        nonlocal next_out, done_line
        while next_out in buffer:
            res = buffer.pop(next_out)
            next_out += 1
            if res.text:
                sink.write(res.text)
                sink.flush()
            for bad in res.bad:
                if err_sink is not None:
                    err_sink.write(
                        json.dumps(
                            {
                                "line": bad.line,
                                "id": bad.id,
                                "reason": bad.reason,
                                "text": bad.text,
                            },
                            ensure_ascii=False,
                        )
                        + "\n"
                    )
                if on_bad is not None:
                    on_bad(bad)
            if err_sink is not None and res.bad:
                err_sink.flush()
            result.hands += res.hands
            result.bad += len(res.bad)
            done_line = max(done_line, res.last_line)
            report()

    def collect(timeout: float) -> None:
        for fut in runner.wait(list(pending), timeout):
            buffer[pending.pop(fut)] = fut.result()
        emit()

    report()
    with _Interrupt() as interrupt:
        runner = backend()
        cancel = True
        try:
            for chunk in chunks:
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
        result.interrupted = interrupt.flag.is_set()
