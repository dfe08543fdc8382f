"""The `capsa` command line. Thin: parse, call the library, format, map errors to exit codes.

stdout is data, stderr is talk. Exit codes: 0 success, 1 a domain failure, 2 bad usage or
bad input. Heavy modules (numba kernels) are imported inside the commands, so that
``capsa --help`` stays fast.
"""

from __future__ import annotations

import enum
import json
import logging
import os
import sys
from pathlib import Path
from typing import Annotated, NoReturn

import typer
from rich.console import Console
from rich.table import Table

app = typer.Typer(
    name="capsa",
    help="Optimal hand-setting solver for 13-card Chinese poker and Capsa Susun.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

out = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False, soft_wrap=True)

SUIT_STYLE = {"c": ("♣", "green"), "d": ("♦", "blue"), "h": ("♥", "red"), "s": ("♠", "bold")}


class Format(enum.StrEnum):
    table = "table"
    json = "json"


class BatchFormat(enum.StrEnum):
    jsonl = "jsonl"
    csv = "csv"


RulesOpt = Annotated[
    str, typer.Option("--rules", "-r", help="Preset name or TOML ruleset file (see `capsa rules`).")
]
FormatOpt = Annotated[Format, typer.Option("--format", "-f", help="Output format.")]


def _setup_logging() -> None:
    """Library talk (compile notices, warnings) goes to stderr."""
    logger = logging.getLogger("capsa")
    if not logger.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("capsa: %(message)s"))
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
        logger.propagate = False


def fail(message: str, code: int = 2) -> NoReturn:
    """One clear line on stderr, then exit (2: bad input or usage, 1: domain failure)."""
    err.print(f"capsa: error: {message}", markup=False)
    raise typer.Exit(code)


def bad_input_errors() -> tuple[type[Exception], ...]:
    """Exceptions that mean the user's input is wrong (exit 2)."""
    from evaluator import CardParseError

    errs: list[type[Exception]] = [CardParseError]
    try:
        from solver.rules import RulesError

        errs.append(RulesError)
    except ImportError:  # pragma: no cover - rules module always present once built
        pass
    return tuple(errs)


def emit_json(data: object) -> None:
    out.print_json(json.dumps(data), indent=2) if out.is_terminal else print(json.dumps(data))


def pretty_cards(text: str) -> str:
    """Rich markup for 'As Kd' with coloured suit symbols (plain text when NO_COLOR)."""
    parts = []
    for card in text.split():
        sym, style = SUIT_STYLE[card[1]]
        parts.append(f"[{style}]{card[0]}{sym}[/]")
    return " ".join(parts)


def _version(value: bool) -> None:
    if value:
        from importlib.metadata import version

        print(f"capsa {version('capsa')}")
        raise typer.Exit()


@app.callback()
def _main(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Show the version.")
    ] = False,
) -> None:
    """Optimal hand-setting solver for 13-card Chinese poker and Capsa Susun."""
    _setup_logging()


@app.command()
def rank(
    cards: Annotated[str, typer.Argument(help="A 5-card or 3-card row, e.g. 'As Ks Qs Js Ts'.")],
    fmt: FormatOpt = Format.table,
) -> None:
    """Show a row's category and strength (higher is stronger, one scale for 3 and 5 cards)."""
    import evaluator

    try:
        ids = evaluator.parse_cards(cards)
        if len(ids) == 5:
            strength = evaluator.evaluate5(ids)
        elif len(ids) == 3:
            strength = evaluator.evaluate3(ids)
        else:
            fail(f"a row has 3 or 5 cards, got {len(ids)}")
    except bad_input_errors() as exc:
        fail(str(exc))
    result = {
        "cards": evaluator.format_cards(ids),
        "category": evaluator.category_name(strength),
        "strength": strength,
        "royal": evaluator.is_royal(strength),
    }
    if fmt is Format.json:
        emit_json(result)
        return
    table = Table(show_header=False, box=None)
    table.add_row("cards", pretty_cards(result["cards"]))
    table.add_row("category", result["category"])
    table.add_row("strength", f"{strength} of 0..{evaluator.NSTRENGTH - 1}")
    out.print(table)


def main() -> None:
    """Console-script entry point."""
    if os.environ.get("NO_COLOR"):
        out.no_color = err.no_color = True
    try:
        app()
    except KeyboardInterrupt:
        err.print("capsa: interrupted")
        sys.exit(130)


__all__ = ["app", "main", "Path"]
