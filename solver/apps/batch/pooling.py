"""Which opponent pool a Monte Carlo batch draws from, and building it when it pays.

A batch decides once, before any worker starts, and every worker follows: the ``Job``
carries the path of the pool file (workers map it read-only, on this machine or, for a
Dask cluster, on a disk they share) or none (every worker deals). So the records do not
depend on the worker count or the backend. The decision is kept in the run file (the
pool's key and size), and ``--resume`` follows it: a pool missing by then is built
again, the same pool (its hands come from a fixed seed), so a resumed file never mixes
pooled and dealt answers.

``pool``: None (the default) uses the ruleset's cached pool, or builds one when the
hands left to solve would deal more opponent hands than the pool holds (``pool_pays``;
an input of unknown length, stdin, never builds); True builds one when none is cached
whatever the size of the input; False deals, as before the pool. With the home run at
the table the workers draw its whole tables from the pool too (solver.strategy.home_run).
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from solver.apps.batch.errors import BatchError, BatchFailed
from solver.engine.compiled import CompiledRules, compile_rules
from solver.engine.rules import Rules

if TYPE_CHECKING:
    from solver.apps.batch.work import Job

__all__ = ["PoolPlan", "plan_pool", "ready_pool", "with_pool"]

log = logging.getLogger("capsa")


@dataclass(frozen=True)
class PoolPlan:
    """The pool a run draws from: its file, key and size; ``cached``: it is there now;
    ``cr``: the ruleset, compiled."""

    path: str
    key: str
    size: int
    cached: bool
    cr: CompiledRules = field(compare=False, repr=False)

    @property
    def ident(self) -> str:
        """What the run file keeps: ``KEY/SIZE``."""
        return f"{self.key}/{self.size}"


def plan_pool(
    rules: Rules,
    policy: str,
    players: int,
    samples: int | None,
    pool: bool | None,
    lines: int | None,
    stored: dict[str, Any] | None,
    size: int | None = None,
) -> PoolPlan | None:
    """The pool a run will use, or None to deal (module docstring). ``lines``: the input's
    lines (None: unknown); ``stored``: the run file of the output being resumed (None
    for a fresh run); ``size``: of a pool built now (default ``DEFAULT_POOL_SIZE``)."""
    from solver.strategy.pool import (
        DEFAULT_POOL_SIZE,
        cached_pool,
        pool_key,
        pool_path,
        pool_pays,
    )
    from solver.strategy.solve import DEFAULT_SAMPLES

    if policy != "mc" or pool is False:
        return None
    cr = compile_rules(rules)
    key = pool_key(cr)
    path = str(pool_path(cr, key))
    found = cached_pool(cr)
    if stored is not None:  # resuming: what the run that wrote the output used
        was = stored.get("pool")
        if not isinstance(was, str):
            return None
        old_key, _, old_size = was.partition("/")
        if old_key != key or not old_size.isdigit():
            raise BatchError(
                "cannot resume: the output was written with an opponent pool this capsa does "
                "not build (other code or field tables); run again without --resume"
            )
        want = int(old_size)
        return PoolPlan(path, key, want, found is not None and found.size == want, cr)
    if found is not None:
        return PoolPlan(path, key, found.size, True, cr)
    size = size or DEFAULT_POOL_SIZE
    if pool is True or pool_pays(lines, samples or DEFAULT_SAMPLES, size):
        return PoolPlan(path, key, size, False, cr)
    return None


def with_pool(
    job: Job,
    pool: bool | None,
    size: int | None,
    lines: int | None,
    resuming: Path | None,
) -> tuple[Job, PoolPlan | None]:
    """The job with the pool its workers draw from (``run_batch``'s ``pool``: None the
    cached one, or one built when the input pays for it, of ``size`` hands; True one
    built whatever the input; False none), and the plan (None: the workers deal).
    ``lines``: the input's lines (None: unknown); ``resuming``: the output being resumed,
    whose run file says which pool it was written with."""
    stored = _stored_options(resuming) if resuming is not None else None
    if job.opponents is not None:  # only field opponents are drawn from the pool
        return job, None
    plan = plan_pool(job.rules, job.policy, job.players, job.samples, pool, lines, stored, size)
    if plan is None:
        return job, None
    return dataclasses.replace(job, pool=plan.path, pool_id=plan.ident), plan


def _stored_options(out_path: Path) -> dict[str, Any] | None:
    """The run file of an output being resumed, None when there is none to follow (an
    empty or missing output starts afresh; a damaged run file is refused later, by
    ``open_output``)."""
    from solver.apps.batch.resume import read_sidecar

    try:
        if out_path.stat().st_size == 0:
            return None
        return read_sidecar(out_path)
    except (OSError, BatchError):
        return None


def ready_pool(
    plan: PoolPlan,
    total_lines: int | None,
    done_lines: int,
    samples: int | None,
    progress: Callable[[int, int], None] | None = None,
) -> None:
    """Build the planned pool when it is not there (saying so on the ``capsa`` logger),
    and check it: a pool that cannot be built is a ``BatchFailed``. ``total_lines`` of
    the input (None: unknown), ``done_lines`` already written (a resumed run)."""
    from solver.strategy.pool import PoolError, build_pool, open_pool
    from solver.strategy.solve import DEFAULT_SAMPLES

    if plan.cached:
        return
    lines = None if total_lines is None else total_lines - done_lines
    why = (
        f"{lines:,} lines x {samples or DEFAULT_SAMPLES:,} opponent hands"
        if lines is not None
        else "as asked"
    )
    log.warning(
        "building the opponent pool for %s first (%s hands set once, %s; cached in %s for "
        "every later mc solve)",
        plan.cr.rules.name,
        f"{plan.size:,}",
        why,
        Path(plan.path).parent,
    )
    try:
        built = build_pool(plan.cr, plan.size, progress=progress)
        open_pool(built.path, plan.key)
    except PoolError as exc:
        raise BatchFailed(f"cannot build the opponent pool: {exc}") from None
    except OSError as exc:
        raise BatchFailed(f"cannot write the opponent pool in {Path(plan.path).parent}: "
                          f"{exc.strerror or exc}") from None  # fmt: skip
