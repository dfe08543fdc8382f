"""Which opponent pool a Monte Carlo batch draws from, and building it when it pays.

A batch decides once, before any worker starts, and every worker follows: the ``Job``
carries the path of the pool file (workers map it read-only, on this machine or, for a
Dask cluster, on a disk they share) and its identity, ``KEY/SIZE/DIGEST``, which every
worker checks the file it maps against (solver.apps.batch.pinned), or none (every
worker deals). So the records do not depend on the worker count or the backend, and a
pool rebuilt meanwhile (another size is another file) never reaches a running batch.
The identity is kept in the run file, and ``--resume`` follows it: a pool missing by
then is built again, the same pool (its hands come from a fixed seed, so its digest is
the same); a pool of that key and size that holds anything else is refused.

``pool``: None (the default) uses the ruleset's cached pool, or builds one when the
hands left to solve would deal more opponent hands than the pool holds (``pool_pays``;
an input of unknown length, stdin, never builds; a shorter one that still deals
``HINT_SAMPLES`` opponent hands says on stderr what ``capsa pool`` would gain); True
builds one when none is cached whatever the size of the input; False deals, as before
the pool. With the home run at the table the workers draw its whole tables from the
pool too (solver.strategy.solving.home_run).
"""

from __future__ import annotations

import dataclasses
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from solver.apps.batch.errors import BatchError, BatchFailed
from solver.engine.compiled import CompiledRules, compile_rules
from solver.engine.progress import Progress
from solver.engine.rules import Rules

if TYPE_CHECKING:
    from solver.apps.batch.work import Job

__all__ = ["PoolPlan", "plan_pool", "ready_pool", "with_pool"]

log = logging.getLogger("capsa")

#: A batch too short to pay for building a pool (``pool_pays``), that would still deal
#: this many opponent hands or more (100 hands at 3,000: some 15 s on 2 cores), says how
#: much faster it would run with one.
HINT_SAMPLES = 300_000


@dataclass(frozen=True)
class PoolPlan:
    """The pool a run draws from: its file, key, size and digest (None: not built yet);
    ``cached``: it is there now; ``cr``: the ruleset, compiled."""

    path: str
    key: str
    size: int
    cached: bool
    cr: CompiledRules = field(compare=False, repr=False)
    digest: str | None = None

    @property
    def ident(self) -> str:
        """What the run file keeps: ``KEY/SIZE/DIGEST`` (``KEY/SIZE`` until it is built)."""
        return f"{self.key}/{self.size}" + (f"/{self.digest}" if self.digest else "")


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
    from solver.engine.options import DEFAULT_SAMPLES
    from solver.strategy.field_model.train import ensure_field
    from solver.strategy.opposition.pool import (
        DEFAULT_POOL_SIZE,
        cached_pool,
        pool_key,
        pool_path,
        pool_pays,
    )

    if policy != "mc" or pool is False:
        return None
    cr = compile_rules(rules)
    ensure_field(cr)  # the pool's key is over them
    key = pool_key(cr)
    if stored is not None:  # resuming: what the run that wrote the output used
        was = stored.get("pool")
        if not isinstance(was, str):
            return None
        old_key, old_size, digest = ([*was.split("/"), "", ""])[:3]
        if old_key != key or not old_size.isdigit() or not digest:
            raise BatchError(
                "cannot resume: the output was written with an opponent pool this capsa does "
                "not build (other code or field tables); run again without --resume"
            )
        path = pool_path(cr, key, size=int(old_size))
        return PoolPlan(str(path), key, int(old_size), path.exists(), cr, digest)
    found = cached_pool(cr)
    if found is not None:
        return PoolPlan(str(found.path), key, found.size, True, cr, found.digest)
    size = size or DEFAULT_POOL_SIZE
    if pool is True or pool_pays(lines, samples or DEFAULT_SAMPLES, size):
        return PoolPlan(str(pool_path(cr, key, size=size)), key, size, False, cr)
    if lines is not None and lines * (samples or DEFAULT_SAMPLES) >= HINT_SAMPLES:
        log.info(
            "no opponent pool for %s is cached, so mc sets every opponent hand it deals "
            "(about 0.15 s a hand on 2 cores); 'capsa pool --rules %s' builds one once "
            "(about 2 minutes), and mc then runs about 50 times faster",
            rules.name,
            rules.name,
        )
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
    from solver.apps.batch.resume import stored_options

    stored = stored_options(resuming) if resuming is not None else None
    if job.opponents is not None:  # only field opponents are drawn from the pool
        return job, None
    plan = plan_pool(job.rules, job.policy, job.players, job.samples, pool, lines, stored, size)
    if plan is None:
        return job, None
    return dataclasses.replace(job, pool=plan.path, pool_id=plan.ident), plan


def ready_pool(
    plan: PoolPlan,
    total_lines: int | None,
    done_lines: int,
    samples: int | None,
    progress: Progress | None = None,
) -> str:
    """Build the planned pool when it is not there (saying so on the ``capsa`` logger),
    and check it: a pool that cannot be built, or cannot be written (checked before the
    build), is a ``BatchFailed``; one that is not the pool the plan names (its digest) a
    ``BatchError``. Returns its ``KEY/SIZE/DIGEST``. ``total_lines`` of the input (None:
    unknown), ``done_lines`` already written (a resumed run)."""
    from solver.engine.options import DEFAULT_SAMPLES
    from solver.strategy.opposition.pool import PoolError, build_pool, check_writable, open_pool

    folder = Path(plan.path).parent
    try:
        if plan.cached:
            pool = open_pool(plan.path, plan.key)
        else:
            lines = None if total_lines is None else total_lines - done_lines
            why = (f"{lines:,} lines x {samples or DEFAULT_SAMPLES:,} opponent hands"
                   if lines is not None else "as asked")  # fmt: skip
            check_writable(folder)
            log.warning(
                "building the opponent pool for %s first (%s hands set once, %s; cached in %s "
                "for every later mc solve)", plan.cr.rules.name, f"{plan.size:,}", why, folder,
            )  # fmt: skip
            built = build_pool(plan.cr, plan.size, progress=progress)
            pool = open_pool(built.path, plan.key)
    except PoolError as exc:
        raise BatchFailed(f"cannot build the opponent pool: {exc}") from None
    except OSError as exc:
        raise BatchFailed(f"cannot write the opponent pool in {folder}: "
                          f"{exc.strerror or exc}") from None  # fmt: skip
    if plan.digest is not None and pool.digest != plan.digest:
        raise BatchError(
            f"cannot resume: the opponent pool {plan.path} is not the one the output was "
            "written with (its contents differ); run again without --resume"
        )
    return pool.ident
