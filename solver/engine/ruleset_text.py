"""A ruleset for people: one line (``rules_summary``, as ``capsa rules`` lists the
presets) and its settings as rows (``describe_rules``, as ``capsa rules NAME`` shows
them)."""

from __future__ import annotations

from solver.engine.rule_values import ROWS, SUIT_NAMES, fmt_units
from solver.engine.rules import PRESET_GAMES, PRESETS, Rules

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
        whole = " as row values" if r.royalty_replaces_row else ""
        parts.append(f"royalties{royal}{whole} ({r.royalty_mode})")
    else:
        parts.append("no royalties")
    ties = {"payout": " (ties by payout)", "difference": " (ties by difference)"}.get(
        r.natural_ties, ""
    )
    parts.append(f"naturals{ties}" if r.naturals else "no naturals")
    parts.append("suits " + ">".join(r.suit_order) if r.suit_order else "no suit order")
    parts.append(f"wheel {r.wheel}")
    if r.foul_penalty is not None:
        parts.append(f"fouls pay {fmt_units(r.foul_penalty)}")
    if r.equal_rows_foul:
        parts.append("equal rows foul")
    if r.home_run:
        parts.append(f"home run x{r.home_run_multiplier:g} ({r.home_run_min_opponents}+ opponents)")
    if r.code_card is not None:
        parts.append(f"code card {_card_text(r.code_card)} x{fmt_units(r.code_card_multiplier)}")
    if r.banker:
        parts.append("a banker (each player against the banker)")
    if r.scoop_bonus:
        parts.append(f"scoop +{fmt_units(r.scoop_bonus)}")
    if r.pair_cap is not None:
        parts.append(f"a pair capped at {fmt_units(r.pair_cap)}")
    return ", ".join(parts)


def _card_text(card: str) -> str:
    """``"8h"`` as players see it, ``"8♥"`` (the code card)."""
    return card[0] + "♣♦♥♠"["cdhs".index(card[1])]


def _code_card_text(rules: Rules) -> str:
    """The code card in players' words (docs/rules.md#the-code-card)."""
    card, m = _card_text(rules.code_card or ""), rules.code_card_multiplier
    does = "doubles" if m == 2 else f"multiplies by {fmt_units(m)}"
    return (
        f"the {card} {does} its holder's scores (马牌): every settlement with each opponent, "
        "naturals, surrender and home run included"
    )


def _home_run_text(rules: Rules) -> str:
    """The home run's two keys in one line (``home_run`` in ``describe_rules``)."""
    if not rules.home_run:
        return "off"
    m, low = fmt_units(rules.home_run_multiplier), rules.home_run_min_opponents
    return f"x{m}: a player who scoops every opponent (at least {low}) collects {m}x from each"


def _apps_rows(rules: Rules) -> list[tuple[str, str]]:
    """The rows of natural ties, fouls and the code card, shown when they are not the default ones
    (docs/rules.md#natural-ties, docs/rules.md#flat-foul-penalty)."""
    rows = []
    if rules.natural_ties == "payout":
        rows.append(
            ("natural_ties", "by payout (the larger payout collects it; equal payouts tie)")
        )
    if rules.natural_ties == "difference":
        rows.append(("natural_ties", "by difference (the larger payout collects the difference)"))
    if rules.foul_penalty is not None:
        f = fmt_units(rules.foul_penalty)
        to = "each legal opponent"
        if rules.foul_pays_naturals:  # a declared natural too
            to = "each opponent that did not foul"
        rows.append(("fouls", f"a fouled hand pays {f} to {to}, nothing else"))
    if rules.equal_rows_foul:
        rows.append(
            ("equal_rows_foul", "yes (a row equal to the next one fouls; equal straights do not)")
        )
    if rules.code_card is not None:
        rows.append(("code_card", _code_card_text(rules)))
        if rules.code_card_both == "neither":
            rows.append(
                ("code_card_both", "a pair whose players both hold a copy is not multiplied")
            )
    if rules.splits_ranks:
        rows.append(("split_ranks", "six cards of a rank are two three of a kinds (four trips)"))
    if rules.two_jokers_third:
        rows.append(
            ("two_jokers_foul", "a front of both jokers fouls as three of its third card")
        )
    return rows + _banker_rows(rules)


def _banker_rows(rules: Rules) -> list[tuple[str, str]]:
    """The banker's table's keys, when set (docs/rules.md#the-bankers-table)."""
    rows = []
    if rules.banker:
        rows.append(("banker", "yes (坐庄: every other player settles with the banker alone, "
                     "times the multiple that player bet)"))  # fmt: skip
    if rules.scoop_bonus:
        rows.append(("scoop_bonus", f"a scoop adds {fmt_units(rules.scoop_bonus)} to the pair"))
    if rules.pair_cap is not None:
        cap = fmt_units(rules.pair_cap)
        rows.append(("pair_cap", f"a pair settles for {cap} at most, either way"))
    return rows


def describe_rules(rules: Rules) -> list[tuple[str, str]]:
    """Human-readable ``(setting, value)`` rows for display (the CLI renders them).

    With naturals, a ``natural names`` row follows ``naturals``: one line a natural, its
    ruleset name and how players call it (docs/rules.md#natural-names). A preset has a
    ``game`` row after its name: what players call the game it plays (``PRESET_GAMES``).
    """
    if rules.royalties:
        parts = []
        win = "wins " if rules.royalty_replaces_row else ""
        for row in ROWS:
            lines = [f"{h} {win}{fmt_units(u)}" for r, h, u in rules.royalties if r == row]
            if lines:
                parts.append(f"{row} " + ", ".join(lines))
        royalties = "; ".join(parts)
        if rules.royalty_replaces_row:  # players' words: "front trips win 3"
            royalties += " (the row's whole value, in place of its 1 unit)"
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
    game = [("game", PRESET_GAMES[rules.name])] if PRESETS.get(rules.name) == rules else []
    return [
        ("name", rules.name),
        *game,
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
        *_apps_rows(rules),
        ("suit_order", suits),
        ("wheel", _WHEEL_TEXT[rules.wheel]),
        ("surrender_cost", surrender),
        ("players", f"{rules.players} ({rules.players - 1} opponents)"),
        *_deck_rows(rules),
        ("home_run", _home_run_text(rules)),
        ("digest", rules.digest()),
    ]


#: Players' words for each ``extra_suits`` that adds a suit (docs/rules.md#added-suits).
_EXTRA_TEXT = {"h": "hearts twice (加一色)", "hc": "hearts and clubs twice (加二色)"}
_SUIT_WORDS = {"c": "clubs", "h": "hearts", "s": "spades"}


def _deck_rows(rules: Rules) -> list[tuple[str, str]]:
    """The ``extra_suits`` row, for a deck with added suits, and the ``jokers`` row, for
    a deck with jokers (a 52-card ruleset's description is the one it was); the last
    says how many cards the deck holds."""
    deck, rows = rules.deck, []
    if rules.extra_suits:
        size = "" if rules.jokers else f", {deck.size} cards"  # the jokers' row says
        words = (
            _EXTRA_TEXT.get(rules.extra_suits)
            or " then ".join(_SUIT_WORDS[c] for c in rules.extra_suits) + " twice"
        )
        text = f"{rules.extra_suits!r}: {words}{size}"
        rows.append(("extra_suits", text))
    if rules.jokers:
        each = "a joker" if rules.jokers == 1 else "each"
        rows.append(("jokers", f"{rules.jokers} (鬼牌, written X): {each} stands for any card "
                     f"a row needs, {deck.size} cards"))  # fmt: skip
    return rows
