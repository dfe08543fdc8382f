"""``capsa rank``: a row's category and strength."""

from __future__ import annotations

from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from solver.cli.options import ResultFormat
from solver.cli.output import consoles, emit, fail, pretty_cards


def rank(
    ctx: typer.Context,
    cards: Annotated[str, typer.Argument(help="A 5-card or 3-card row, e.g. 'As Ks Qs Js Ts'.")],
    fmt: ResultFormat = "table",
) -> None:
    """Show a row's category and strength (higher is stronger, one scale for 3 and 5 cards)."""
    import evaluator

    ids = evaluator.parse_cards(cards)
    if len(ids) not in (3, 5):
        fail(f"a row has 3 or 5 cards, got {len(ids)}")
    strength = evaluator.evaluate5(ids) if len(ids) == 5 else evaluator.evaluate3(ids)
    result = {
        "cards": evaluator.format_cards(ids),
        "category": evaluator.category_name(strength),
        "strength": strength,
        "royal": evaluator.is_royal(strength),
    }
    emit(consoles(ctx).out, fmt, result, lambda out: render_rank(result, out))


def render_rank(result: dict[str, Any], out: Console) -> None:
    """The table of ``capsa rank`` (its JSON answer)."""
    from evaluator import NSTRENGTH

    t = Table(show_header=False, box=None)
    t.add_row("cards", pretty_cards(result["cards"]))
    t.add_row("category", result["category"])
    t.add_row("strength", f"{result['strength']} of 0..{NSTRENGTH - 1}")
    out.print(t)
