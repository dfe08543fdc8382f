"""``capsa batch``: solve a file of hands, a record a hand, in input order."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from solver.cli.options import (
    JokersOpt,
    OpponentsOpt,
    PolicyOpt,
    RecordFormat,
    RulesOpt,
    SeatOpt,
    samples_option,
    stakes_option,
)
from solver.cli.output import consoles, count, duration, progress, rate
from solver.engine.options import DEFAULT_SAMPLES, MAX_POOL_SIZE, MIN_POOL_SIZE, Policy
from solver.engine.table_shape import MIN_PLAYERS, TABLE_MAX_PLAYERS

BatchStakes = stakes_option("Money per unit against each opponent, in order (as for solve).")
FileArg = Annotated[
    str,
    typer.Argument(
        metavar="FILE|-",
        help="Hands, one a line ('id: cards', 'id<TAB>cards' or just cards; '#' comments),"
        " or CSV with an id,hand header; '-' reads stdin.",
    ),
]
OutputOpt = Annotated[
    Path | None, typer.Option("--output", "-o", help="Output file (default: stdout).")
]
SamplesOpt = samples_option(f"Opponent hands dealt (mc; default {DEFAULT_SAMPLES}).")
SeedOpt = Annotated[
    int,
    typer.Option("--seed", "-s", min=0, help="Run seed; each hand's comes from it and its line."),
]
PlayersOpt = Annotated[
    int | None,
    typer.Option(
        "--players",
        "-p",
        min=MIN_PLAYERS,
        max=TABLE_MAX_PLAYERS,
        help="Players (default: the ruleset's).",
    ),
]
WorkersOpt = Annotated[
    int | None,
    typer.Option(
        "--workers", "-w", min=1, help="Worker processes (default: CAPSA_WORKERS, else every core)."
    ),
]
ResumeOpt = Annotated[
    bool, typer.Option("--resume", help="Continue an interrupted run into the same -o file.")
]
ForceOpt = Annotated[
    bool,
    typer.Option("--force", help="Start again over an -o file that already holds records."),
]
DaskOpt = Annotated[
    str | None,
    typer.Option(
        "--dask",
        metavar="ADDRESS|local",
        help="Solve on a Dask cluster: a scheduler address, or local (needs the dask extra).",
    ),
]
ErrorsOpt = Annotated[
    Path | None, typer.Option("--errors", help="Also write the bad lines here (JSON lines).")
]
ChunkOpt = Annotated[int | None, typer.Option("--chunk-size", min=1, hidden=True)]
PoolOpt = Annotated[
    bool | None,
    typer.Option(
        "--pool/--no-pool",
        help="mc: draw opponents from the opponent pool, building it first when none is "
        "cached (default: the cached one, or built when the file is long enough to pay "
        "for it); --no-pool deals them all.",
    ),
]
PoolSizeOpt = Annotated[
    int | None, typer.Option("--pool-size", min=MIN_POOL_SIZE, max=MAX_POOL_SIZE, hidden=True)
]


def batch(
    ctx: typer.Context,
    file: FileArg,
    output: OutputOpt = None,
    fmt: RecordFormat = None,
    rules: RulesOpt = None,
    policy: PolicyOpt = Policy.mc,
    samples: SamplesOpt = None,
    seed: SeedOpt = 0,
    players: PlayersOpt = None,
    jokers: JokersOpt = None,
    workers: WorkersOpt = None,
    resume: ResumeOpt = False,
    force: ForceOpt = False,
    dask: DaskOpt = None,
    errors: ErrorsOpt = None,
    chunk_size: ChunkOpt = None,
    stakes: BatchStakes = None,
    pool: PoolOpt = None,
    pool_size: PoolSizeOpt = None,
    opponents: OpponentsOpt = None,
    seat: SeatOpt = None,
) -> None:
    """Solve a file of hands: one record per hand, in input order, on every core."""
    import signal
    import time

    from solver.apps.batch import BatchHooks, BatchOptions, run_batch
    from solver.engine.inputs import parse_stakes
    from solver.engine.options import SolveOptions

    err = consoles(ctx).err
    started = time.perf_counter()
    with progress(err, "lines") as bar:

        def on_progress(done: int, total: int | None = None, **kw: Any) -> None:
            p = kw["detail"]  # solver.apps.batch.BatchProgress
            bar.update(done, total=total, what="lines", note=rate(p.hands, p.elapsed, "hands"))

        def on_pool(done: int, total: int | None = None, **_: Any) -> None:
            bar.update(done, total=total, what="opponent pool", note="hands set")

        solve = SolveOptions(
            policy=policy.value,
            samples=samples,
            seed=seed,
            players=players,
            stakes=parse_stakes(stakes) if stakes is not None else None,
            opponents=opponents,
            seat=seat,
        )
        run = BatchOptions(
            fmt=fmt.value if fmt is not None else None,
            rules=rules,
            jokers=jokers,
            workers=workers,
            resume=resume,
            force=force,
            dask=dask,
            errors=errors,
            chunk_size=chunk_size,
            pool=pool,
            pool_size=pool_size,
        )
        hooks = BatchHooks(
            on_bad=lambda bad: bar.say(f"capsa: {bad.message()}"),
            on_progress=on_progress,
            on_pool=on_pool,
        )
        result = run_batch(file, output, solve, run, hooks)
    render_summary(result, time.perf_counter() - started, err)
    if result.interrupted:  # Ctrl-C, SIGTERM, SIGHUP: exit 128 + the signal
        raise typer.Exit(128 + (result.stopped_by or signal.SIGINT))
    if result.bad:
        raise typer.Exit(1)


def render_summary(result: Any, seconds: float, err: Console) -> None:
    """The closing lines of a batch on stderr (``result``: a ``BatchResult``)."""
    resumed = f" (resumed after line {result.resumed_after})" if result.resumed_after else ""
    err.print(
        f"capsa: {count(result.hands, 'hand')}, {count(result.bad, 'bad line')}, "
        f"{duration(seconds)}, {rate(result.hands, seconds, 'hands')}{resumed}",
        markup=False,
    )
    if result.interrupted:
        err.print("capsa: interrupted; run again with --resume to continue", markup=False)
