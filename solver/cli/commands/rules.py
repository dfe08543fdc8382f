"""``capsa rules``: the presets, or one ruleset in full."""

from __future__ import annotations

from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from solver.cli.options import JokersOpt, RulesetFormat
from solver.cli.output import consoles, emit, fail, shown


def rules(
    ctx: typer.Context,
    name: Annotated[
        str | None,
        typer.Argument(
            help="Preset name or TOML ruleset file ('-' reads stdin); omit to list the presets."
        ),
    ] = None,
    jokers: JokersOpt = None,
    fmt: RulesetFormat = "table",
) -> None:
    """List the rule presets, or show one ruleset (a preset or a TOML file) in full."""
    from solver.engine.rules import PRESET_GAMES, PRESETS, load_rules
    from solver.engine.ruleset_files import to_toml
    from solver.engine.ruleset_text import describe_rules, rules_summary
    from solver.engine.seating import at_table

    out = consoles(ctx).out
    if name is None:
        if fmt == "toml":
            fail("--format toml shows one ruleset: give its NAME or FILE")
        if jokers is not None:
            fail("--jokers shows one ruleset with its jokers: give its NAME or FILE")
        listing = [
            {"name": n, "game": PRESET_GAMES[n], "summary": rules_summary(r)}
            for n, r in PRESETS.items()
        ]
        emit(out, fmt, listing, lambda out: render_presets(listing, out))
        return
    r = at_table(load_rules(name), None, jokers)
    if fmt == "toml":
        out.file.write(to_toml(r))
        return
    emit(out, fmt, r.to_dict(), lambda out: render_ruleset(describe_rules(r), out))


def render_presets(listing: list[dict[str, Any]], out: Console) -> None:
    """The table of ``capsa rules``: a preset a line, the game it plays and its summary."""
    table = Table(box=None)
    table.add_column("preset")
    table.add_column("game")
    table.add_column("summary")
    for row in listing:
        table.add_row(row["name"], row["game"], row["summary"])
    out.print(table)


def render_ruleset(described: list[tuple[str, str]], out: Console) -> None:
    """The table of ``capsa rules NAME`` (``describe_rules``: what, value)."""
    t = Table(show_header=False, box=None)
    for key, value in described:
        # a value of several lines (the natural names) keeps its line breaks
        t.add_row(key, "\n".join(shown(line) for line in value.split("\n")))
    out.print(t)
