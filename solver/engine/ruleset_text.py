"""A ruleset for people: one line (``rules_summary``, as ``capsa rules`` lists the
presets) and its settings as rows (``describe_rules``, as ``capsa rules NAME`` shows
them)."""

from __future__ import annotations

from solver.engine.rule_values import ROWS, SUIT_NAMES, fmt_units
from solver.engine.rules import Rules

__all__ = ["describe_rules", "rules_summary"]

# --------------------------------------------------------------------------------------
# Display and export
# --------------------------------------------------------------------------------------

_SCORING_TEXT = {
    "per-row": "per-row (1 unit a row)",
    "1-6": "1-6 (1 unit a row, 3 more for a scoop)",
    "2-4": "2-4 (1 unit a row, 1 more for winning more rows)",
}
_WHEEL_TEXT = {
    "low": "low (A-2-3-4-5 is the lowest straight)",
    "second": "second (A-2-3-4-5 ranks just below T-J-Q-K-A)",
}
_MODE_TEXT = {
    "winner": "winner (paid by the loser of the row)",
    "cancel": "cancel (as winner; none when both rows earn one)",
    "always": "always (paid whoever wins the row)",
}


def rules_summary(r: Rules) -> str:
    """One line about a ruleset, as ``capsa rules`` lists the presets."""
    parts = [f"{r.scoring} scoring"]
    if r.scoop_multiplier != 1:
        parts.append(f"scoop x{r.scoop_multiplier:g}")
    if r.royalties:
        royal = " + royal flush" if any(h == "royal_flush" for _, h, _ in r.royalties) else ""
        parts.append(f"royalties{royal} ({r.royalty_mode})")
    else:
        parts.append("no royalties")
    parts.append("naturals" if r.naturals else "no naturals")
    parts.append("suits " + ">".join(r.suit_order) if r.suit_order else "no suit order")
    parts.append(f"wheel {r.wheel}")
    if r.home_run:
        parts.append(f"home run x{r.home_run_multiplier:g} ({r.home_run_min_opponents}+ opponents)")
    return ", ".join(parts)


def _home_run_text(rules: Rules) -> str:
    """The home run's two keys in one line (``home_run`` in ``describe_rules``)."""
    if not rules.home_run:
        return "off"
    m, low = fmt_units(rules.home_run_multiplier), rules.home_run_min_opponents
    return f"x{m}: a player who scoops every opponent (at least {low}) collects {m}x from each"


def describe_rules(rules: Rules) -> list[tuple[str, str]]:
    """Human-readable ``(setting, value)`` rows for display (the CLI renders them).

    With naturals, a ``natural names`` row follows ``naturals``: one line a natural, its
    ruleset name and how players call it (docs/rules.md#natural-names).
    """
    if rules.royalties:
        parts = []
        for row in ROWS:
            lines = [f"{h} {fmt_units(u)}" for r, h, u in rules.royalties if r == row]
            if lines:
                parts.append(f"{row} " + ", ".join(lines))
        royalties = "; ".join(parts)
    else:
        royalties = "off"
    if rules.suit_order:
        suits = (
            " > ".join(rules.suit_order)
            + " ("
            + ", ".join(SUIT_NAMES[s] for s in rules.suit_order)
            + ")"
        )
    else:
        suits = "none (equal rows tie)"
    naturals = (
        ", ".join(f"{n} {fmt_units(u)}" for n, u in rules.naturals) + " (strongest first)"
        if rules.naturals
        else "off"
    )
    cost = rules.surrender_cost
    surrender = f"{fmt_units(cost)} per opponent" if cost is not None else "off"
    names: list[tuple[str, str]] = []
    if rules.naturals:
        from solver.engine.layout import natural_label  # layout imports this module

        names = [
            ("natural names", "\n".join(f"{n}: {natural_label(n)}" for n, _ in rules.naturals))
        ]
    return [
        ("name", rules.name),
        ("scoring", _SCORING_TEXT[rules.scoring]),
        ("scoop_multiplier", fmt_units(rules.scoop_multiplier)),
        ("royalties", royalties),
        ("royalty_mode", _MODE_TEXT[rules.royalty_mode]),
        ("one_royalty_per_hand", "yes" if rules.one_royalty_per_hand else "no"),
        (
            "royalties_dealt",
            "yes (four of a kind and straight flushes paid for the dealt 13 cards)"
            if rules.royalties_dealt
            else "no (paid for the rows)",
        ),
        ("naturals", naturals),
        *names,
        ("suit_order", suits),
        ("wheel", _WHEEL_TEXT[rules.wheel]),
        ("surrender_cost", surrender),
        ("players", f"{rules.players} ({rules.players - 1} opponents)"),
        ("home_run", _home_run_text(rules)),
        ("digest", rules.digest()),
    ]
