"""``capsa duel``: two strategies in duplicate."""

from __future__ import annotations

from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from solver.cli.options import JokersOpt, OpponentsOpt, ResultFormat, RulesOpt
from solver.cli.output import consoles, emit, progress, say, shown
from solver.engine.options import MAX_DEALS
from solver.engine.table_shape import MIN_PLAYERS, TABLE_MAX_PLAYERS


def duel(
    ctx: typer.Context,
    a: Annotated[
        str,
        typer.Argument(
            help="Strategy A: mc, mc:SAMPLES, field, greedy, safe, MODEL.npz (a learned "
            "model, capsa train --from), cmd:PROGRAM."
        ),
    ],
    b: Annotated[str, typer.Argument(help="Strategy B, the same choices.")],
    deals: Annotated[
        int,
        typer.Option(
            "--deals", "-d", min=1, max=MAX_DEALS, help="Deals, each played in every seating."
        ),
    ] = 1000,
    rules: RulesOpt = None,
    players: Annotated[
        int | None,
        typer.Option(
            "--players",
            min=MIN_PLAYERS,
            max=TABLE_MAX_PLAYERS,
            help="Players at the table (default: the ruleset's).",
        ),
    ] = None,
    jokers: JokersOpt = None,
    seed: Annotated[
        int | None, typer.Option("--seed", "-s", min=0, help="Seed of the deals (default: random).")
    ] = None,
    timeout: Annotated[
        float | None,
        typer.Option(
            "--timeout",
            help="Seconds a cmd: program gets for all its hands (default 60 + 0.01 a hand; "
            "at most a day).",
        ),
    ] = None,
    opponents: OpponentsOpt = None,
    fmt: ResultFormat = "table",
) -> None:
    """Play strategy A against B in duplicate: A's units per deal (95% CI), differences, fouls.

    Every deal is played once per seat, A in that seat and B in the others, so the cards'
    luck cancels. cmd:PROGRAM reads hands on stdin, one a line ('2c 7d ...'), and writes
    one setting a line ('front | middle | back'); bad or missing answers count as fouls.
    """
    from solver.apps.duel import check_timeout
    from solver.apps.duel import duel as run_duel
    from solver.engine.options import SolveOptions
    from solver.engine.rules import load_rules
    from solver.engine.seating import at_table

    timeout = check_timeout(timeout)  # before any work
    table_rules: Any = rules
    if jokers is not None:  # the table --players seats, then its jokers
        table_rules = at_table(load_rules(rules), players, jokers)
    io = consoles(ctx)
    with progress(io.err, "duel") as bar:
        table = SolveOptions(players=players, seed=seed, opponents=opponents)
        result = run_duel(
            a, b, deals=deals, rules=table_rules, table=table, timeout=timeout,
            progress=lambda done, total=None, what=None, **_: bar.update(
                done, total=total, what=f"duel: {shown(what)} setting hands"
            ),
        )  # fmt: skip
    for note in result.notes:
        say(note)
    d = result.to_dict()
    emit(io.out, fmt, d, lambda out: render_duel(d, out))


def render_duel(d: dict[str, Any], out: Console) -> None:
    """The table of ``capsa duel`` (its JSON answer)."""
    table = Table(
        title=f"{shown(d['a'])} (A) vs {shown(d['b'])} (B)",
        caption=f"{shown(d['rules'])}, {d['players']} players, {d['deals']:,} deals x "
        f"{d['players']} seatings, seed {d['seed']}",
        show_header=False,
    )
    table.add_column("what")
    table.add_column("value", justify="right")
    ci = d["ci95"]
    interval = f" ± {(ci[1] - ci[0]) / 2:.4f}  [{ci[0]:+.4f}, {ci[1]:+.4f}]" if ci else ""
    table.add_row("A units per deal (95% CI)", f"{d['mean']:+.4f}{interval}")
    if d["players"] > MIN_PLAYERS:  # more than one opponent
        table.add_row("A units per deal per opponent", f"{d['mean_per_opponent']:+.4f}")
    table.add_row("hands set differently", f"{d['differ']:z.1%} of {d['hands']:,}")
    for side in ("a", "b"):
        f = d["fouls"][side]
        bad = f", {f['bad_answers']:,} bad answers" if f["bad_answers"] else ""
        table.add_row(f"fouls {side.upper()}", f"{f['fouls']:,} ({f['rate']:z.1%}){bad}")
    out.print(table)
