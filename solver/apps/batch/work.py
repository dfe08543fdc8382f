"""The per-chunk work, run in worker processes, on Dask workers, or in process.

``solve_chunk(job, items)`` parses and checks a chunk of ``(line number, raw line)``,
solves the good lines and returns the formatted text, the bad lines and the last line
number. A ``Job`` holds everything a worker needs besides the lines and is pickled with
every chunk, so a worker keeps no state but the warmed-up kernels.
"""

from __future__ import annotations

import dataclasses
import os
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

from solver.apps.batch.errors import BatchFailed
from solver.apps.batch.reading import BadLine, CsvSpec, Line, read_hand
from solver.apps.batch.records import format_records, records
from solver.engine.options import SolveOptions
from solver.engine.rules import Rules

__all__ = ["ChunkResult", "Job", "default_threads", "one_thread", "solve_chunk"]


@dataclass(frozen=True)
class Job:
    """Everything a worker needs besides the lines; pickled with every chunk.

    ``options``: what every hand's solve is asked (``solver.engine.options.SolveOptions``,
    checked once by ``run_batch``: players resolved, ``seed`` the run's, no runners-up,
    no pool); each line changes its seed and played setting (``SolveOptions.evolve``)."""

    rules: Rules
    options: SolveOptions
    fmt: str
    csv_spec: CsvSpec | None
    skip_upto: int  # lines <= this are checked, not solved (resume)
    solve_fn: Callable[..., Any] | None = None
    fast: bool = False
    #: The opponent pool file the workers draw from (mc; None: they deal) and its
    #: ``KEY/SIZE`` (kept in the run file); see solver.apps.batch.pooling.
    pool: str | None = None
    pool_id: str | None = None
    #: mc: the opponent model(s) at the table (``solve``'s ``opponents``; None: field)
    #: and each seat's model digest (None: styles only); see solver.apps.batch.pinned.
    opponents: str | None = None
    opponent_digests: tuple[str, ...] | None = None
    #: The digest of the field tables the run reads (kept in the run file; None: a
    #: ``solve_fn`` of the caller's, which may read none); see solver.apps.batch.pinned.
    field_digest: str | None = None
    field_file: str | None = None  # where they were read from (named in messages)
    #: Lines <= ``skip_upto`` solved again all the same (resume: lines with no record).
    again: tuple[int, ...] = ()

    @property
    def policy(self) -> str:
        return self.options.policy

    @property
    def samples(self) -> int | None:
        return self.options.samples

    @property
    def seed(self) -> int:
        """The run's seed (each line's comes from it: ``records.hand_seed``)."""
        return self.options.seed or 0

    @property
    def players(self) -> int:
        assert self.options.players is not None  # resolved by run_batch
        return self.options.players

    @property
    def settled(self) -> int:
        """The opponents each hand settles with: every other player, or at a banker's
        table the banker alone for a player (docs/rules.md#the-bankers-table)."""
        if self.rules.banker and self.options.seat != "banker":
            return 1
        return self.players - 1

    @property
    def stakes(self) -> tuple[float, ...] | None:
        """One per opponent (docs/rules.md#stakes), or None."""
        stakes = self.options.stakes
        return None if stakes is None else tuple(stakes)


class ChunkResult(NamedTuple):
    """A solved chunk: its output text, hands written, bad lines, last line number."""

    text: str
    hands: int
    bad: list[BadLine]
    last_line: int


_WARM: set[tuple[Any, ...]] = set()
#: An ordinary hand and a natural (six pairs): the warm-up runs both code paths.
_WARM_HANDS = ("As Ks Qs Js Ts 9h 9d 9c 2s 3d 4c 5h 7d", "As Ad Ks Kd Qs Qd Js Jd Ts Td 9s 9d 2c")


def one_thread() -> None:
    """Kernels run single-threaded in a worker: the workers are the parallelism.

    ``numba.set_num_threads`` is per thread, so this also holds for Dask worker threads;
    ``CAPSA_THREADS`` caps the thread pools of ``solver.strategy.field_model.policy`` and
    ``solver.strategy.solving.solve``.
    """
    import numba

    numba.set_num_threads(1)
    os.environ["CAPSA_THREADS"] = "1"


def default_threads(env: str | None) -> None:
    """Undo ``one_thread`` in this process (after an in-process run)."""
    numba = sys.modules.get("numba")
    if numba is not None:
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    if env is None:
        os.environ.pop("CAPSA_THREADS", None)
    else:
        os.environ["CAPSA_THREADS"] = env


def _warm_up(job: Job) -> None:
    """Load (or, on a machine's first run, compile) the kernels once per worker process
    (and thread, for Dask), by solving two fixed hands the way the chunks will be."""
    one_thread()
    key = (os.getpid(), threading.get_ident(), job.rules, job.policy, job.players, job.fast,
           job.pool, job.opponents)  # fmt: skip
    if key in _WARM:
        return
    from evaluator import parse_hand

    few = job.options.evolve(samples=min(job.samples or 32, 32))
    warm = dataclasses.replace(job, options=few)
    hands = [parse_hand(h) for h in _WARM_HANDS]
    played = (hands[0][:3], hands[0][3:8], hands[0][8:])  # a played setting (fouled)
    items = [(i, None, h, None) for i, h in enumerate(hands, 1)]
    records(warm, [*items, (len(items) + 1, None, hands[0], played)], [])
    _WARM.add(key)


def solve_chunk(job: Job, items: list[Line]) -> ChunkResult:
    """Parse, check and solve one chunk of ``(line number, raw line)``; format the records.

    A worker that cannot map the run's opponent pool (a Dask worker on a machine that
    does not see the file) fails the run (``BatchFailed``) rather than deal: every
    record of a run is drawn the same way."""
    from solver.strategy.opposition.pool import PoolError

    try:
        return _solve_chunk(job, items)
    except PoolError as exc:
        raise BatchFailed(
            f"a worker cannot use the opponent pool: {exc}; put the pool on a disk every "
            "worker sees (CAPSA_POOL_DIR), or run with --no-pool"
        ) from None


def _solve_chunk(job: Job, items: list[Line]) -> ChunkResult:
    from solver.apps.batch.pinned import run_field

    run_field(job)  # the tables the run began with, before the warm-up reads them
    _warm_up(job)
    bad: list[BadLine] = []
    good: list[tuple[int, str | None, Any, Any]] = []
    texts: dict[int, bytes] = {}
    for line, raw in items:
        got = read_hand(line, raw, job.csv_spec, job.rules.deck_code)
        if isinstance(got, BadLine):
            bad.append(got)
        elif line > job.skip_upto or line in job.again:
            good.append((line, *got))
            texts[line] = raw or b""
    done = records(job, good, bad)
    # a line the solver rejects keeps its text, as a line rejected when read does
    bad = [b if b.text or b.line not in texts
           else dataclasses.replace(b, text=texts[b.line].decode("utf-8").strip())
           for b in bad]  # fmt: skip
    if job.again and done and done[0]["line"] <= job.skip_upto:
        raise BatchFailed(
            f"line {done[0]['line']} has no record in the output, yet solves now (an output "
            "an earlier capsa wrote after a failure); run again without --resume"
        )
    bad.sort(key=lambda b: b.line)
    last = items[-1][0] if items else 0
    return ChunkResult(format_records(done, job.fmt, job.players - 1), len(done), bad, last)
