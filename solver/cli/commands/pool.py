"""``capsa pool``: build a ruleset's opponent pool ahead of time
(solver.strategy.opposition.pool)."""

from __future__ import annotations

import time
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from solver.cli.options import JokersOpt, ResultFormat, RulesOpt
from solver.cli.output import consoles, duration, emit, progress, shown
from solver.engine.options import DEFAULT_POOL_SIZE, MAX_POOL_SIZE, MIN_POOL_SIZE
from solver.engine.table_shape import MIN_PLAYERS, TABLE_MAX_PLAYERS


def pool(
    ctx: typer.Context,
    rules: RulesOpt = None,
    players: Annotated[
        int | None,
        typer.Option("--players", "-p", min=MIN_PLAYERS, max=TABLE_MAX_PLAYERS,
                     help="Players at the table (5 and 6: the preset's deck with added suits, "
                     "a pool of its own)."),  # fmt: skip
    ] = None,
    jokers: JokersOpt = None,
    size: Annotated[
        int,
        typer.Option(
            "--size",
            min=MIN_POOL_SIZE,
            max=MAX_POOL_SIZE,
            help=f"Hands in the pool (default {DEFAULT_POOL_SIZE:,}: about 1.28% of them share "
            "no card with a given hand).",
        ),
    ] = DEFAULT_POOL_SIZE,
    force: Annotated[
        bool, typer.Option("--force", help="Build it again even when a sound one is cached.")
    ] = False,
    opponents: Annotated[
        str | None,
        typer.Option(
            "--opponents",
            metavar="MODEL.npz",
            help="Build the pool of a learned opponent model (capsa train --from) instead "
            "of the field's: mc --opponents MODEL.npz draws from it.",
        ),
    ] = None,
    fmt: ResultFormat = "table",
) -> None:
    """Build the opponent pool: random hands set by the field once, which every mc solve
    then draws its opponents from instead of setting them (about 50 times faster)."""
    from solver.engine.compiled import compile_rules
    from solver.engine.errors import InputError
    from solver.strategy.field_model.train import ensure_field
    from solver.strategy.opposition.opponents import resolve_opponents
    from solver.strategy.opposition.pool import build_pool, cached_pool

    cr = compile_rules(_table(rules, players, jokers))  # once: the pool takes it
    tables = None
    if opponents is not None:
        (model,) = resolve_opponents(opponents, cr, 1)
        if model.policy != "field":
            raise InputError(f"--opponents: {model.name} is dealt, not pooled: give a model file")
        tables = model.tables
    else:
        ensure_field(cr)  # the field sets the pool's hands (trained now if it has none)
    io = consoles(ctx)
    found = None if force else cached_pool(cr, tables)
    started = time.perf_counter()
    if found is not None and found.size == size:
        built, seconds = found, None
        io.err.print(
            f"capsa: the opponent pool for {shown(cr.rules.name)} is cached already "
            "(--force builds it again)"
        )
    else:
        with progress(io.err, f"opponent pool for {shown(cr.rules.name)}", total=size,
                      unit="hands") as bar:  # fmt: skip
            built = build_pool(cr, size, progress=bar, tables=tables)
        seconds = time.perf_counter() - started
    d = {
        "rules": cr.rules.name,
        "path": str(built.path),
        "hands": built.size,
        "bytes": built.nbytes,
        "key": built.key,
        "natural_hands": len(built.nat_at),
        "built": seconds is not None,
        "seconds": None if seconds is None else round(seconds, 1),
    }
    emit(io.out, fmt, d, lambda out: render_pool(d, out))


def _table(rules: str | None, players: int | None, jokers: int | None) -> Any:
    """The table the pool is for (``solver.engine.seating.at_table``)."""
    from solver.engine.rules import load_rules
    from solver.engine.seating import at_table

    return at_table(load_rules(rules), players, jokers)


def render_pool(d: dict[str, Any], out: Console) -> None:
    """The table of ``capsa pool`` (its JSON answer)."""
    table = Table(show_header=False, box=None)
    table.add_column()
    table.add_column(overflow="fold")  # a long path folds over lines, never cut with "…"
    table.add_row("rules", shown(d["rules"]))
    table.add_row("hands", f"{d['hands']:,} ({d['natural_hands']:,} declare a natural)")
    table.add_row("size", f"{d['bytes'] / 1e6:.1f} MB on disk and mapped in memory")
    table.add_row(
        "built", f"in {duration(d['seconds'])}" if d["built"] else "no: it was cached already"
    )
    table.add_row("file", shown(d["path"]))
    out.print(table)
