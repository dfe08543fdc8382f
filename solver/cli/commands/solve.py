"""``capsa solve``: the best setting of one hand, and what a played setting cost."""

from __future__ import annotations

import functools
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from solver.cli.options import (
    JokersOpt,
    NoPoolOpt,
    OpponentsOpt,
    PolicyOpt,
    ResultFormat,
    RulesOpt,
    SeatOpt,
    StakesOpt,
    samples_option,
)
from solver.cli.output import ROW_NAMES, clauses, consoles, emit, pretty_cards, shown
from solver.engine.options import DEFAULT_TOP, Policy, SolveOptions, TopBy
from solver.engine.table_shape import MIN_PLAYERS, TABLE_MAX_PLAYERS

SolveSamples = samples_option("Opponent hands dealt (mc).")


def solve(
    ctx: typer.Context,
    hand: Annotated[
        list[str],
        typer.Argument(
            metavar="HAND",
            help="13 cards, quoted or not: 'As Kd Qh ...' or As Kd Qh ... ('-' reads stdin).",
        ),
    ],
    rules: RulesOpt = None,
    players: Annotated[
        int | None,
        typer.Option("--players", "-p", min=MIN_PLAYERS, max=TABLE_MAX_PLAYERS,
                     help="Players at the table (5 and 6: a deck with added suits)."),  # fmt: skip
    ] = None,
    jokers: JokersOpt = None,
    samples: SolveSamples = None,
    seed: Annotated[int | None, typer.Option("--seed", "-s", help="Random seed (mc).")] = None,
    top: Annotated[
        int, typer.Option("--top", "-k", min=0, help="Runners-up to show.")
    ] = DEFAULT_TOP,
    policy: PolicyOpt = Policy.mc,
    against: Annotated[
        str | None,
        typer.Option(
            "--against",
            help="File of opponent settings 'front | middle | back' "
            "(one per line): exact answer against them.",
        ),
    ] = None,
    stakes: StakesOpt = None,
    seat: SeatOpt = None,
    played: Annotated[
        str | None,
        typer.Option(
            "--played",
            metavar="'FRONT | MIDDLE | BACK'|declare|surrender",
            help="What you played: a setting (what it cost next to the best, row by row), "
            "or declare (the natural) or surrender.",
        ),
    ] = None,
    top_by: Annotated[
        TopBy,
        typer.Option(
            "--top-by",
            help="Runners-up: the best setting of each other shape (another hand in a row, "
            "or another back), or the next best by value.",
        ),
    ] = TopBy.shape,
    no_pool: NoPoolOpt = False,
    opponents: OpponentsOpt = None,
    fmt: ResultFormat = "table",
) -> None:
    """Find the setting of a hand that wins the most units on average."""
    from solver.apps.inputs import one_stdin, read_settings, read_stdin_text
    from solver.engine.inputs import parse_stakes
    from solver.strategy.solving.solve import solve as _solve

    one_stdin(("--rules -", rules == "-"), ("the hand", hand == ["-"]),
              ("--against -", against == "-"))  # fmt: skip
    # 13 cards as one argument, or as 13 (or any number: the parser counts them)
    text = read_stdin_text(why="a hand is 13 cards").strip() if hand == ["-"] else " ".join(hand)
    options = SolveOptions(
        players=players,
        policy=policy.value,
        samples=samples,
        seed=seed,
        against=read_settings(against) if against else None,
        top=top,
        top_by=top_by.value,
        stakes=parse_stakes(stakes) if stakes is not None else None,
        played=played,
        pool=not no_pool,
        opponents=opponents,
        seat=seat,
    )
    sol = _solve(text, table := _table(rules, options, jokers), options)
    d, at = sol.to_dict(), (seat or "player") if table.banker else None  # the seat solved for
    emit(consoles(ctx).out, fmt, d,
         functools.partial(render_solution, d, pooled=sol.pooled, wheel=table.wheel, seat=at))


def _table(rules: str | None, options: SolveOptions, jokers: int | None) -> Any:
    """The ruleset ``--rules`` names; with ``--jokers``, the table ``--players`` (or
    ``--against``) seats given its jokers (``solver.engine.seating.at_table``)."""
    from solver.engine.rules import load_rules
    from solver.engine.seating import at_table

    given = load_rules(rules)
    if jokers is None:
        return given
    seats = options.players or (len(options.against) + 1 if options.against else None)
    return at_table(given, seats, jokers)


_HOW = {
    "exact": "exact against the given opponents",
    "field": "field model (no sampling)",
    "greedy": "greedy setting, field-model value",
}
_ADVICE = {
    "play": "[green]play this setting[/]",
    "declare": "[bold magenta]declare the natural[/]",
    "surrender": "[bold red]surrender[/]",
}


def render_solution(
    d: dict[str, Any],
    out: Console,
    *,
    pooled: bool = False,
    wheel: str = "low",
    seat: str | None = None,
) -> None:
    """A solution (``Solution.to_dict()``): the rows, the value, the advice, the played
    setting and the runners-up; ``pooled``: mc drew its opponents from the pool; a row
    holding a joker says what it stands for (on the ruleset's ``wheel``); ``seat``: at a
    banker's table, the seat solved for."""
    from rich.panel import Panel

    # a long name (a table with jokers) goes without the word, so the title fits
    word = "rules " if len(d["rules"]) <= 16 else ""
    head = f"[bold]{pretty_cards(d['hand'])}[/]   {word}{shown(d['rules'])}, {d['players']} players"
    how = _HOW.get(d["policy"], d["policy"])
    if d["policy"] == "mc":
        whence = " from the pool" if pooled else ""
        how = f"Monte Carlo, {d['samples']} opponent hands{whence}, seed {d['seed']}"
        if d.get("opponents") not in (None, "field"):
            how += f", opponents {shown(d['opponents'])}"
    if seat is not None:  # a banker's table: whom the hand settles with
        how += ", as the banker" if seat == "banker" else ", as a player (vs the banker)"
    out.print(Panel.fit(_rows_table(d), title=head, subtitle=how))
    for line in _value_lines(d):  # at the terminal's width, broken only between clauses
        for part in clauses(line, out.width):
            out.print(part)
    out.print(f"advice: {_ADVICE[d['action']]}")
    jokers = _jokers_line(d, wheel)
    if jokers:
        out.print(jokers)
    if d.get("played"):
        render_played(d, out)
    if d["alternatives"]:
        out.print(_runners_up(d["alternatives"], d.get("ev_parts")))


def _jokers_line(d: dict[str, Any], wheel: str) -> str:
    """``jokers: X in the back as T♠`` for the rows of the answer that hold jokers
    (docs/rules.md#jokers: each row's jokers take the best card for that row), or ""."""
    from evaluator import format_cards, parse_cards
    from evaluator.jokers import stand_ins

    said = []
    for name in ROW_NAMES:
        if "X" not in d[name]:
            continue
        row = parse_cards(d[name], extra_suits="hcXX")  # any row's cards, copies and jokers
        cards = pretty_cards(format_cards(list(stand_ins(row, "hcXX", wheel))))
        said.append(f"in the {name} as {cards}")
    return "jokers: " + "; ".join(said) if said else ""


def _rows_table(d: dict[str, Any]) -> Table:
    rows = Table(box=None, show_header=True, header_style="bold")
    rows.add_column("row")
    rows.add_column("cards", no_wrap=True)
    if d["row_stats"]:
        for col in ("win", "tie", "loss"):
            rows.add_column(col, justify="right", no_wrap=True)
    for name in ROW_NAMES:
        cells = [name, pretty_cards(d[name])]
        if d["row_stats"]:
            st = d["row_stats"][name]
            cells += [f"{st['win']:z.1%}", f"{st['tie']:z.1%}", f"{st['loss']:z.1%}"]
        rows.add_row(*cells)
    return rows


def _value_lines(d: dict[str, Any]) -> list[str]:
    """The expected value, the stakes or per-opponent values, the natural, surrender."""
    # a declared natural is a payment, not a sampled play: the ± is the playing setting's
    declared = d["action"] == "declare"
    se = f" ± {d['stderr']:.3f}" if d["stderr"] is not None and d["policy"] == "mc" else ""
    ev = f"{d['ev']:+.3f}" + ("" if declared else se)
    how = ", declaring" if declared else ""
    lines = [f"expected value: {ev} units per opponent{how} ({d['ev_total']:+.3f} for the table)"]
    if d.get("ev_parts"):
        what = "why, in parts" if d["action"] == "play" else "playing this setting, in parts"
        lines.append(f"{what}: {_parts_text(d['ev_parts'])} (= {d['ev_play']:+.3f})")
    by = d.get("ev_by_opponent") or []
    if d.get("stakes"):
        stakes = ", ".join(f"{x:g}" for x in d["stakes"])
        lines.append(
            f"staked total: {d['ev_staked']:+,.3f} (stakes {stakes}; units by opponent "
            + ", ".join(f"{x:+.3f}" for x in by)
            + "; runners-up compared in money)"
        )
    elif len(by) > 1 and d["policy"] == "exact":
        lines.append("by opponent: " + ", ".join(f"{x:+.3f}" for x in by))
    if d["natural"]:
        from solver.engine.layout import natural_label

        n = d["natural"]
        paid = " (paid without playing the rows)" if n["declared"] else ""
        lines.append(
            f"natural: {natural_label(n['name'])}: declaring is worth {n['ev_declare']:+.3f}"
            f"{paid}, playing {n['ev_play']:+.3f}{se if n['declared'] else ''}"
        )
    sur = d["surrender"]
    if sur["cost"] is not None:
        lines.append(
            f"surrender costs {sur['cost']} per opponent: "
            f"{'recommended' if sur['recommended'] else 'not recommended'}"
        )
    return lines


#: The parts of a value (``ev_parts``), as the table names them.
PART_NAMES = {
    "rows": "rows",
    "bonus": "bonus",
    "royalties": "royalties",
    "naturals": "opponents' naturals",
}


def _parts_text(parts: dict[str, float]) -> str:
    """``rows +0.500, bonus +0.008, royalties +4.921, opponents' naturals +0.000``."""
    return ", ".join(f"{PART_NAMES[k]} {parts[k]:+.3f}" for k in PART_NAMES)


def _biggest_change(parts: dict[str, float] | None, best: dict[str, float] | None) -> str:
    """The part that tells a setting from the best most: ``royalties -5.211``."""
    if not parts or not best:
        return ""
    key = max(PART_NAMES, key=lambda k: abs(parts[k] - best[k]))
    change = parts[key] - best[key]
    return f"{PART_NAMES[key]} {change:+.3f}" if abs(change) >= 0.0005 else ""


def _runners_up(alternatives: list[dict[str, Any]], best: dict[str, float] | None) -> Table:
    # 80 columns hold it: cards and numbers never wrap; "most of it" wraps at its words
    alt = Table(
        box=None, header_style="bold", title="runners-up", title_justify="left", pad_edge=False
    )
    for col in ROW_NAMES:
        alt.add_column(col, no_wrap=True)
    alt.add_column("ev", justify="right", no_wrap=True)
    alt.add_column("vs best", justify="right", no_wrap=True)
    alt.add_column("most of it")
    for a in alternatives:
        diff = f"{a['diff']:+.3f}"
        if a.get("diff_stderr"):
            diff += f"±{a['diff_stderr']:.3f}"
        why = _biggest_change(a.get("ev_parts"), best)
        alt.add_row(*(pretty_cards(a[r]) for r in ROW_NAMES), f"{a['ev']:+.3f}", diff, why)
    return alt


def render_played(d: dict[str, Any], out: Console) -> None:
    """The played setting beside the best: its value, the loss and each row's change; or
    the natural declared, or the surrender, beside the advice."""
    p = d["played"]
    loss = f"{p['loss']:.3f}"
    if p.get("loss_stderr"):
        loss += f" ± {p['loss_stderr']:.3f}"
    rank = f", rank {p['rank']} of {p['of']}" if p.get("rank") is not None else ""
    if p.get("action", "play") != "play":
        from solver.engine.layout import natural_label

        what = "surrender"
        if p["action"] == "declare" and d["natural"]:
            what = f"declare {natural_label(d['natural']['name'])}"
        for line in clauses(f"played: {what}: ev {p['ev']:+.3f}, loss {loss} units per "
                            f"opponent{rank}", out.width):  # fmt: skip
            out.print(line)
        return
    table = Table(box=None, header_style="bold", title="played", title_justify="left")
    for col in ("row", "played", "best", "win", "win vs best"):
        table.add_column(col, justify="right" if col.startswith("win") else "left", no_wrap=True)
    for name in ROW_NAMES:
        r = p["rows"][name]
        mark = "[yellow]*[/]" if r["differs"] else " "
        win = "—" if r["win"] is None else f"{r['win']:z.1%}"
        change = "—" if r["win_change"] is None else f"{100 * r['win_change']:+z.1f} pp"
        table.add_row(f"{mark}{name}", pretty_cards(p[name]), pretty_cards(d[name]), win, change)
    out.print(table)
    out.print("[dim](*: the row differs from the best's; win vs best: in percentage points)[/]")
    state = "[bold red]fouled[/]: scooped by every opponent; " if p["fouled"] else ""
    for line in clauses(f"played: {state}ev {p['ev']:+.3f}, loss {loss} units per opponent"
                        f"{rank}", out.width):  # fmt: skip
        out.print(line)
    if p.get("ev_parts") and d.get("ev_parts"):
        lost = {k: d["ev_parts"][k] - p["ev_parts"][k] for k in PART_NAMES}
        for line in clauses(f"given up, in parts: {_parts_text(lost)} (= {p['loss']:.3f})",
                            out.width):  # fmt: skip
            out.print(line)
