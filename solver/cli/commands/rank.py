"""``capsa rank``: a row's category and strength."""

from __future__ import annotations

from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from solver.cli.options import JokersOpt, ResultFormat, RulesOpt
from solver.cli.output import consoles, emit, fail, pretty_cards


def rank(
    ctx: typer.Context,
    cards: Annotated[str, typer.Argument(help="A 5-card or 3-card row, e.g. 'As Ks Qs Js Ts'.")],
    fmt: ResultFormat = "table",
    rules: RulesOpt = None,
    jokers: JokersOpt = None,
) -> None:
    """Show a row's category and strength (higher is stronger, one scale for 3 and 5 cards).

    With a ruleset that adds suits (``extra_suits``) the row may hold copies (``Ah Ah``),
    and with jokers (``--jokers``, or the ruleset's ``jokers``) a joker X, each as wild as
    the row needs; it is then ranked on that deck's scale: five of a kind above the
    straight flush."""
    import evaluator
    from solver.engine.rules import load_rules
    from solver.engine.seating import at_table

    deck = load_rules(rules) if rules is not None or jokers is not None else None
    if deck is not None and jokers is not None:
        deck = at_table(deck, None, jokers)
    extra = deck.deck_code if deck is not None else ""
    ids = evaluator.parse_cards(cards, extra_suits=extra)
    if len(ids) not in (3, 5):
        fail(f"a row has 3 or 5 cards, got {len(ids)}")
    row = evaluator.evaluate5 if len(ids) == 5 else evaluator.evaluate3
    strength = row(ids, extra)
    result = {
        "cards": evaluator.format_cards(ids, extra),
        "category": evaluator.category_name(strength, extra),
        "strength": strength,
        "royal": evaluator.is_royal(strength, extra),
    }
    if deck is not None and deck.extra_suits:  # the scale the strength is on (a 52-card
        result["extra_suits"] = deck.extra_suits  # answer is the one it was)
    if deck is not None and deck.jokers:
        result["jokers"] = deck.jokers
    emit(consoles(ctx).out, fmt, result, lambda out: render_rank(result, out))


def render_rank(result: dict[str, Any], out: Console) -> None:
    """The table of ``capsa rank`` (its JSON answer)."""
    from evaluator import NSTRENGTH, NSTRENGTH_COPIES

    top = NSTRENGTH_COPIES if result.get("extra_suits") or result.get("jokers") else NSTRENGTH
    t = Table(show_header=False, box=None)
    t.add_row("cards", pretty_cards(result["cards"]))
    t.add_row("category", result["category"])
    t.add_row("strength", f"{result['strength']} of 0..{top - 1}")
    out.print(t)
