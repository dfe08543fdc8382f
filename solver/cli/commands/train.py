"""``capsa train``: the field strategy's tables for a ruleset, by self-play."""

from __future__ import annotations

from typing import Annotated

import typer

from solver.cli.options import RulesOpt
from solver.cli.output import consoles, progress, shown


def train(
    ctx: typer.Context,
    rules: RulesOpt = None,
    rounds: Annotated[int, typer.Option(min=1, help="Most rounds of self-play.")] = 30,
    hands: Annotated[int, typer.Option(min=100, help="Random hands set per round.")] = 20_000,
    seed: Annotated[int, typer.Option(help="Random seed (recorded in the tables).")] = 20261130,
    tol: Annotated[
        float, typer.Option(help="Stop when the win tables move less than this in a round.")
    ] = 0.0005,
    min_rounds: Annotated[
        int, typer.Option(min=1, help="Rounds to play before stopping on --tol.")
    ] = 10,
    output: Annotated[
        str | None,
        typer.Option(
            "--output",
            "-o",
            help="Where to write the tables (default: the cache, "
            "or solver/data for a preset with --ship).",
        ),
    ] = None,
    ship: Annotated[bool, typer.Option(help="Write to solver/data/field-NAME.npz.")] = False,
) -> None:
    """Train the field strategy's model for a ruleset by self-play (fictitious play): the
    row-key tables, the card-removal shift and the joint-rows correction."""
    from solver.apps.training import prepare, train_to_file

    options = {"rounds": rounds, "hands_per_round": hands, "seed": seed, "tol": tol,
               "min_rounds": min_rounds}  # fmt: skip
    cr, dest = prepare(rules, output, ship, **options)  # before minutes of training
    err = consoles(ctx).err
    what = f"[bold]training[/] {shown(cr.rules.name)}"
    with progress(err, what, total=rounds, unit="rounds") as bar:

        def report(rep) -> None:  # noqa: ANN001 - solver.strategy.train.RoundReport
            if rep.round == 0:
                bar.say(f"round 0: greedy start, {rep.hands} hands, {rep.seconds:.1f} s")
                return
            bar.update(rep.round)
            bar.say(
                f"round {rep.round}: tables moved {rep.change:.5f} "
                f"({rep.hands} hands, {rep.seconds:.1f} s)"
            )

        tables = train_to_file(cr, dest, progress=report, **options)
    meta = tables.meta
    state = "converged" if meta["converged"] else "NOT converged (raise --rounds)"
    err.print(
        f"{state} after {meta['rounds']} rounds (tol {tol}, {meta['seconds']:.0f} s); "
        f"wrote {shown(dest)}"
    )
    if not meta["converged"]:
        raise typer.Exit(1)
