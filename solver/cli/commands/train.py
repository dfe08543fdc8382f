"""``capsa train``: the field strategy's tables for a ruleset, by self-play; or, with
``--from``, an opponent model learned from the settings opponents were seen to play."""

from __future__ import annotations

from typing import Annotated, Any

import typer
from rich.console import Console

from solver.cli.options import JokersOpt, ResultFormat, RulesOpt
from solver.cli.output import clauses, consoles, emit, progress, say, shown
from solver.engine.table_shape import MIN_PLAYERS, TABLE_MAX_PLAYERS


def train(
    ctx: typer.Context,
    rules: RulesOpt = None,
    players: Annotated[
        int | None,
        typer.Option("--players", "-p", min=MIN_PLAYERS, max=TABLE_MAX_PLAYERS,
                     help="Train the table of this many players (5 and 6: the preset's "
                     "deck with added suits)."),  # fmt: skip
    ] = None,
    jokers: JokersOpt = None,
    rounds: Annotated[int, typer.Option(min=1, help="Most rounds of self-play.")] = 30,
    hands: Annotated[int, typer.Option(min=100, help="Random hands set per round.")] = 20_000,
    seed: Annotated[int, typer.Option(help="Random seed (recorded in the tables).")] = 20261130,
    tol: Annotated[
        float, typer.Option(help="Stop when the win tables move less than this in a round.")
    ] = 0.0005,
    min_rounds: Annotated[
        int, typer.Option(min=1, help="Rounds to play before stopping on --tol.")
    ] = 10,
    output: Annotated[str | None, typer.Option(
        "--output", "-o", help="Where to write the tables (default: the cache, "
        "or solver/data for a preset with --ship).")] = None,  # fmt: skip
    ship: Annotated[bool, typer.Option(help="Write to solver/data/field-NAME.npz.")] = False,
    source: Annotated[
        str | None,
        typer.Option(
            "--from",
            metavar="FILE|-",
            help="Learn an opponent model instead, from the settings they were seen to play: "
            "'id: front | middle | back' lines or capsa batch JSON records (-o default: "
            "FILE with .npz).",
        ),
    ] = None,
    force: Annotated[bool, typer.Option(help="Replace an -o file that is not field tables "
                                        "(or, with --from, not an opponent model).")] = False,
    fmt: ResultFormat = "table",
) -> None:
    """Train the field strategy's model for a ruleset by self-play (fictitious play): the
    row-key tables, the card-removal shift and the joint-rows correction. With --from,
    learn an opponent model (--opponents MODEL.npz) from recorded settings."""
    from solver.apps.training import prepare, train_to_file

    if source is not None:
        _train_from(ctx, source, rules, output, ship, fmt, jokers, players, force)
        return

    options = {"rounds": rounds, "hands_per_round": hands, "seed": seed, "tol": tol,
               "min_rounds": min_rounds}  # fmt: skip
    # everything checked before the training
    cr, dest = prepare(rules, output, ship, players, jokers, force, **options)
    err = consoles(ctx).err
    what = f"[bold]training[/] {shown(cr.rules.name)}"
    with progress(err, what, total=rounds, unit="rounds") as bar:

        def report(done: int, total: int | None = None, **kw: Any) -> None:
            rep = kw["detail"]  # solver.strategy.field_model.train.RoundReport
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


def _train_from(
    ctx: typer.Context,
    source: str,
    rules: str | None,
    output: str | None,
    ship: bool,
    fmt: str,
    jokers: int | None = None,
    players: int | None = None,
    force: bool = False,
) -> None:
    """``capsa train --from``: read, learn, write the model, report how well it predicts
    (at the table ``--players`` and ``--jokers`` seat, on its deck: the settings' cards
    read as ``capsa batch`` reads them there, jokers and a suit dealt twice included)."""
    from pathlib import Path

    from solver.apps.files import check_outputs, check_replace, model_file, reads, writes
    from solver.apps.inputs import one_stdin
    from solver.apps.learning import learn_from, read_seen
    from solver.engine.errors import InputError
    from solver.engine.rules import load_rules
    from solver.engine.seating import at_table

    if ship:
        raise InputError("--ship writes field tables; --from learns an opponent model (-o)")
    one_stdin(("--rules -", rules == "-"), ("--from -", source == "-"))
    if output is None and source == "-":
        raise InputError("--from -: give the model's file with -o")
    dest = Path(output) if output else Path(source).with_suffix(".npz")
    ruleset = at_table(load_rules(rules), players, jokers)
    inputs = [reads(source, "the --from file")]
    if rules is not None and Path(rules).exists():
        inputs.append(reads(rules, "the ruleset file"))
    check_outputs(inputs, [writes(dest)], "capsa train")
    check_replace(dest, model_file, "an opponent model", force)
    seen = read_seen(source, ruleset.deck_code)
    for line, why in seen.bad:
        say(f"line {line}: {why}")
    _, report = learn_from(seen, ruleset, source, dest)
    emit(consoles(ctx).out, fmt, report, lambda out: render_learned(report, out))
    if seen.bad:
        raise typer.Exit(1)


def render_learned(d: dict[str, Any], out: Console) -> None:
    """What ``capsa train --from`` learned (its JSON report), for people."""
    learned = (
        f"learned from {d['fit_hands']:,} settings ({d['rules']}); "
        f"{d['fouled']:,} fouled and {d['skipped']:,} declared or surrendered left out"
    )
    for line in clauses(learned, out.width):  # at the terminal's width, between clauses
        out.print(line)
    out.print(f"held out {d['held_out']:,} settings:        model   field")
    out.print(f"  their setting, share of hands  {d['agree']:6.1%}  {d['agree_field']:6.1%}")
    out.print(f"  log-likelihood per hand       {d['loglik']:+7.3f} {d['loglik_field']:+7.3f}")
    out.print(
        f"  temperature                   {d['temperature']:>7g} {d['temperature_field']:>7g}"
    )
    out.print(f"wrote {shown(d['model'])}: play against it with --opponents {shown(d['model'])}")
