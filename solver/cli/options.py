"""The options several commands take, declared once each (as sqlite-utils gives every
command the same output options): the same name, spelling and help everywhere.

Standard library, typer, ``solver.engine.options`` and ``solver.engine.table_shape`` only:
``capsa --help`` imports this.
"""

from __future__ import annotations

import enum
from typing import Annotated, Any

import typer

from solver.engine.options import MAX_SAMPLES, Policy
from solver.engine.rules import DEFAULT_PRESET
from solver.engine.table_shape import JOKER_IDS

__all__ = [
    "JokersOpt",
    "NoPoolOpt",
    "OpponentsOpt",
    "PolicyOpt",
    "RecordFormat",
    "ResultFormat",
    "RulesOpt",
    "RulesetFormat",
    "SeatOpt",
    "StakesOpt",
    "format_option",
    "samples_option",
]

_FORMAT_HELP = {
    "table": "a table to read",
    "json": "one JSON document",
    "jsonl": "JSON lines, a record a line",
    "csv": "CSV with a header line",
    "toml": "a TOML ruleset file that --rules reads back",
}


def format_option(*choices: str, default_help: str | None = None) -> Any:
    """The ``--format/-f`` option with these choices (from table, json, jsonl, csv,
    toml): the same name, spelling and help on every command. With ``default_help`` the
    option may be left out (None: the command picks the format)."""
    kind: Any = enum.StrEnum("Format", {c: c for c in choices})  # type: ignore[misc]
    text = "Output format: " + "; ".join(f"{c}: {_FORMAT_HELP[c]}" for c in choices) + "."
    if default_help:
        text += f" {default_help}"
        kind = kind | None
    return Annotated[kind, typer.Option("--format", "-f", help=text, case_sensitive=False)]


ResultFormat = format_option("table", "json")
RulesetFormat = format_option("table", "json", "toml")
RecordFormat = format_option(
    "jsonl", "csv", default_help="Default: csv for an OUT ending in .csv, else jsonl."
)

RulesOpt = Annotated[
    str | None,
    typer.Option(
        "--rules",
        "-r",
        metavar="NAME|FILE|-",
        help="Preset name, TOML ruleset file or '-' (a ruleset on stdin; see `capsa rules`); "
        f"default {DEFAULT_PRESET}.",
    ),
]
JokersOpt = Annotated[
    int | None,
    typer.Option(
        "--jokers",
        min=0,
        max=len(JOKER_IDS),
        metavar="0|1|2",
        help="Jokers in the deck, each wild and written X (default: the ruleset's jokers "
        "key); after --players: shisanshui -p 5 --jokers 2 is shisanshui-5-jokers-2.",
    ),
]
PolicyOpt = Annotated[
    Policy,
    typer.Option(
        "--policy",
        help="mc: Monte Carlo best response; field: the trained field strategy; "
        "greedy: the naive player.",
    ),
]

def samples_option(help: str) -> Any:
    """``--samples/-n``: opponent hands dealt (mc), from 1 to ``MAX_SAMPLES`` (the bound
    ``SolveOptions.check`` holds, so a command refuses too many before any work)."""
    return Annotated[
        int | None, typer.Option("--samples", "-n", min=1, max=MAX_SAMPLES, help=help)
    ]


NoPoolOpt = Annotated[
    bool,
    typer.Option(
        "--no-pool",
        help="mc: deal every opponent hand, never draw them from the cached opponent "
        "pool (capsa pool).",
    ),
]


def stakes_option(help: str) -> Any:
    """``--stakes S1,S2,...`` (parsed by ``solver.apps.inputs.parse_stakes``)."""
    return Annotated[str | None, typer.Option("--stakes", metavar="S1,S2,...", help=help)]


StakesOpt = stakes_option(
    "Money per unit against each opponent, in order (default 1 each): "
    "the setting maximises the staked total."
)

SeatOpt = Annotated[
    str | None,
    typer.Option(
        "--seat",
        metavar="player|banker",
        help="At a banker's table (shisanshui-banker): player (the default; you settle "
        "with the banker alone) or banker (with every player; --stakes: their multiples).",
    ),
]

OpponentsOpt = Annotated[
    str | None,
    typer.Option(
        "--opponents",
        metavar="MODEL[,MODEL...]",
        help="mc: who sits at the table: field (default), greedy, safe, or a model file "
        "(capsa train --from); one for all, or one per opponent, comma separated.",
    ),
]
