"""``capsa strength``: what mc gains against other policies, hand by hand."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich import box
from rich.console import Console
from rich.table import Table

from solver.cli.options import JokersOpt, NoPoolOpt, ResultFormat, RulesOpt
from solver.cli.output import consoles, emit, progress, shown
from solver.engine.options import DEFAULT_SAMPLES, MAX_DEALS, MAX_SAMPLES
from solver.engine.table_shape import MIN_PLAYERS, TABLE_MAX_PLAYERS


def strength(
    ctx: typer.Context,
    rules: RulesOpt = None,
    players: Annotated[
        int | None,
        typer.Option(
            "--players", "-p", min=MIN_PLAYERS, max=TABLE_MAX_PLAYERS, help="Players at the table."
        ),
    ] = None,
    jokers: JokersOpt = None,
    hands: Annotated[
        int, typer.Option("--hands", min=2, max=MAX_DEALS, help="Random hands compared.")
    ] = 1000,
    samples: Annotated[
        int,
        typer.Option(
            "--samples", "-n", min=1, max=MAX_SAMPLES, help="Opponent hands of each mc solve."
        ),
    ] = DEFAULT_SAMPLES,
    eval_deals: Annotated[
        int,
        typer.Option(
            "--eval-deals", min=2, max=MAX_DEALS, help="Fresh opponent deals each setting meets."
        ),
    ] = 100,
    against: Annotated[
        list[str] | None,
        typer.Option(
            "--against",
            help="Policy mc is measured against (repeatable; default field): its "
            "exploitability; mc@MODEL is mc assuming MODEL (see --opponents).",
        ),
    ] = None,
    tables: Annotated[
        list[Path] | None,
        typer.Option(
            "--tables",
            metavar="FILE",
            help="Field tables to compare too (repeatable; a capsa train -o file or an "
            "older shipped one): played as policy field@NAME, NAME the file's stem.",
        ),
    ] = None,
    seed: Annotated[int, typer.Option("--seed", "-s", min=0, help="Seed of the hands.")] = 1,
    no_pool: NoPoolOpt = False,
    opponents: Annotated[
        str | None,
        typer.Option(
            "--opponents",
            metavar="MODEL[,MODEL...]",
            help="Who sets the fresh opponent deals, and mc assumes: field (default), greedy, "
            "safe or a model file (capsa train --from); one for all, or one per opponent.",
        ),
    ] = None,
    fmt: ResultFormat = "table",
) -> None:
    """Paired per-hand comparison of policies: what mc gains against a policy per hand."""
    from solver.apps.strength import compare_policies, load_tables
    from solver.engine.compiled import compile_rules
    from solver.engine.options import SolveOptions
    from solver.engine.rules import load_rules
    from solver.engine.seating import at_table

    given = load_rules(rules)
    if jokers is not None:  # the table --players seats, then its jokers
        given = at_table(given, players, jokers)
    cr = compile_rules(given)  # once: the tables and the comparison take it compiled
    r = cr.rules
    extra = load_tables(tables or [], cr)
    policies = ("mc", *(against or ["field"]), *extra)
    io = consoles(ctx)
    with progress(io.err, "hands", total=hands) as bar:
        options = SolveOptions(players=players or r.players, samples=samples, top=0,
                               pool=not no_pool, opponents=opponents)  # fmt: skip
        report = compare_policies(
            n_hands=hands, rules=cr, options=options, policies=policies,
            eval_deals=eval_deals, seed=seed, progress=bar, tables=extra,
        )  # fmt: skip
    d = report.to_dict()
    emit(io.out, fmt, d, lambda out: render_strength(d, out))


def _pair(name: str, policies: dict[str, Any]) -> str:
    """``a-b`` as ``a over b`` (a policy's name may hold a ``-``: a model file's)."""
    for a in policies:
        if name.startswith(f"{a}-") and name[len(a) + 1 :] in policies:
            return f"{a} over {name[len(a) + 1 :]}"
    return name.replace("-", " over ", 1)


def _of(d: dict[str, Any]) -> str:
    who = d.get("opponents", "field")
    return "" if who == "field" else f" of {shown(who)} opponents"


def render_strength(d: dict[str, Any], out: Console) -> None:
    """The table of ``capsa strength`` (its JSON answer) and each policy's value."""
    # 80 columns hold it: no rules between the columns, numbers and intervals never wrap
    table = Table(
        box=box.SIMPLE_HEAD,
        show_edge=False,
        title_justify="left",
        caption_justify="left",
        title=f"strength: {shown(d['rules'])}, {d['players']} players, {d['hands']:,} hands",
        caption=f"mc at {d['samples']:,} opponent hands; every setting meets the same "
        f"{d['eval_deals']} fresh deals{_of(d)}; seed {d['seed']}; units per opponent per hand; "
        "differs: hands set differently",
    )
    for col in ("comparison", "gain", "± se", "95% interval", "differs"):
        table.add_column(col, justify="left" if col == "comparison" else "right", no_wrap=True)
    for name, g in d["gains"].items():
        lo, hi = g["ci95"]
        table.add_row(_pair(name, d["policies"]), f"{g['mean']:+.4f}", f"{g['stderr']:.4f}",
                      f"[{lo:+.4f}, {hi:+.4f}]", f"{g['differ']:z.0%}")  # fmt: skip
    out.print(table, soft_wrap=False)  # the caption wraps at its words to the table's width
    for name, v in d["policies"].items():
        out.print(f"{name}: {v['mean']:+.4f} ± {v['stderr']:.4f} units per opponent per hand")
