"""What a run's workers draw from, pinned: the opponent pool, the opponent models and the
field tables, each checked against the identity the run began with, then held for the
process.

A run's pool, models and field tables are part of its identity (the run file keeps the
pool's ``KEY/SIZE/DIGEST``, each model file's digest and the field tables' digest). A
worker maps the pool file the ``Job`` names and loads the models once, checks them and
the field tables it reads against the job, and draws from those for the rest of the run,
whatever happens to the files meanwhile: a rebuilt pool is another file
(``solver.strategy.opposition.pool.pool_path`` names the size) and a model file replaced
or cut short, or tables trained again, under a running worker change nothing it already
holds. A worker that must open a file which no longer is the one the run began with (a
new worker, a Dask worker) stops the run (``BatchFailed``, one line) rather than mix
answers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from solver.apps.batch.errors import BatchFailed
from solver.engine.caches import Cache

if TYPE_CHECKING:
    from solver.apps.batch.work import Job

__all__ = ["model_digests", "run_field", "run_models", "run_pool"]

#: A run's pool and its models, each checked once per process, by what the job names.
RUN_POOLS: Cache[tuple[Any, ...], Any] = Cache("a batch run's pool", 16)
RUN_MODELS: Cache[tuple[Any, ...], Any] = Cache("a batch run's models", 16)
RUN_FIELDS: Cache[tuple[Any, ...], bool] = Cache("a batch run's field tables", 16)
_RESUME = "; restore it and run again with --resume to continue"


def model_digests(models: Any) -> tuple[str, ...]:
    """Each seat's model digest ("" for a style): what the run file and the job keep."""
    return tuple(m.digest for m in models)


def run_pool(job: Job) -> Any:
    """The run's opponent pool (an ``OpponentPool``), checked once per process against
    the job's ``KEY/SIZE/DIGEST``; ``PoolError`` when it cannot be opened at all."""
    from solver.strategy.opposition.pool import open_pool

    ident = (job.pool, job.pool_id)
    got = RUN_POOLS.get(ident)
    if got is not None:
        return got
    key = (job.pool_id or "").split("/")[0]
    pool = open_pool(job.pool, key or None)
    if job.pool_id is not None and pool.ident != job.pool_id:
        raise BatchFailed(
            f"the opponent pool changed under the run: {job.pool} holds {pool.ident}, the run "
            f"began with {job.pool_id}{_RESUME}"
        )
    return RUN_POOLS.put(ident, pool)


def run_models(job: Job) -> Any:
    """The run's opponent models (one a seat), loaded once per process and checked
    against the job's digests; ``BatchFailed`` when a model file can no longer be read
    or is not the one the run began with."""
    from solver.engine.compiled import compile_rules
    from solver.strategy.opposition.opponents import resolve_opponents

    ident = (job.opponents, job.opponent_digests, job.rules)
    got = RUN_MODELS.get(ident)
    if got is not None:
        return got
    try:
        models = resolve_opponents(job.opponents, compile_rules(job.rules), job.settled)
    except ValueError as exc:
        raise BatchFailed(f"the opponent model can no longer be read: {exc}{_RESUME}") from None
    if job.opponent_digests is not None and model_digests(models) != job.opponent_digests:
        changed = next(m.name for m, d in zip(models, job.opponent_digests, strict=True)
                       if m.digest != d)  # fmt: skip
        raise BatchFailed(f"the opponent model {changed} changed under the run{_RESUME}")
    return RUN_MODELS.put(ident, models)


def run_field(job: Job) -> None:
    """Check once per process that the field tables this worker reads for the run's
    ruleset are those the run began with (the job's digest), before it solves a hand
    with them: a worker that would find other tables (trained again meanwhile, and read
    by a new worker or a Dask worker) or none stops the run (``BatchFailed``). A worker
    keeps the tables it checked for the rest of the run (``get_field`` holds them)."""
    if job.field_digest is None:
        return
    ident = (job.rules, job.field_digest)
    if RUN_FIELDS.get(ident):
        return
    from solver.engine.compiled import compile_rules
    from solver.strategy.field_model.field import tables_digest
    from solver.strategy.field_model.trained import find_field

    tables = find_field(compile_rules(job.rules))
    if tables is None or tables_digest(tables) != job.field_digest:
        where = f" ({job.field_file})" if job.field_file else ""
        what = "are gone" if tables is None else "changed under the run"
        raise BatchFailed(
            f"the field tables of {job.rules.name!r}{where} {what}; the records so far are "
            "the old tables': run again without --resume to start over"
        )
    RUN_FIELDS.put(ident, True)
