"""``capsa report``: what the settings of a file of played hands cost, and where."""

from __future__ import annotations

import enum
import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from solver.cli.output import (
    ROW_NAMES,
    consoles,
    count,
    emit_json,
    fail,
    pretty_cards,
    shown,
    write_file,
)


class ReportFormat(enum.StrEnum):
    table = "table"
    json = "json"
    html = "html"


def report(
    ctx: typer.Context,
    results: Annotated[
        str,
        typer.Argument(
            metavar="RESULTS|-",
            help="A capsa batch output (JSON lines or CSV); '-' reads stdin.",
        ),
    ],
    output: Annotated[
        Path | None,
        typer.Option("--output", "-o", help="Write here (default: stdout); .html: the HTML page."),
    ] = None,
    fmt: Annotated[
        ReportFormat | None,
        typer.Option(
            "--format",
            "-f",
            help="table (terminal), json, or html (one self-contained page with plots; "
            "default for an -o ending in .html).",
        ),
    ] = None,
    top: Annotated[
        int, typer.Option("--top", "-k", min=0, help="How many of the costliest hands to show.")
    ] = 10,
    lang: Annotated[
        str,
        typer.Option(
            "--lang", help="The HTML page's language: en, zh-Hans, zh-Hant, id, vi, fil, hr, bn."
        ),
    ] = "en",
    force: Annotated[bool, typer.Option(help="Replace an -o file not a capsa report.")] = False,
) -> None:
    """Sum up a file of played hands: what the settings cost, and where the loss went."""
    import time

    from solver.apps.files import check_outputs, check_replace, reads, report_file, writes
    from solver.apps.report import make_report, render_html

    io = consoles(ctx)
    if fmt is None:
        suffix = output.suffix.lower() if output is not None else ""
        by_suffix = {".html": ReportFormat.html, ".htm": ReportFormat.html}
        fmt = by_suffix.get(suffix, ReportFormat.json if suffix == ".json" else ReportFormat.table)
    if fmt is ReportFormat.html and output is None and io.out.is_terminal:
        fail("--format html writes a page: give -o FILE.html or redirect stdout")

    _check_lang(lang, fmt)
    check_outputs([reads(results)], [writes(output)], "capsa report")
    check_replace(output, report_file, "a report", force)
    started = time.perf_counter()
    rep = make_report(
        results, top=top, on_bad=lambda bad: io.err.print(f"capsa: {bad.message()}", markup=False)
    )
    text = render_html(rep, lang) if fmt is ReportFormat.html else None
    seconds = time.perf_counter() - started

    def write(sink: Any) -> None:  # a text stream, or None for stdout
        if text is not None:
            (sink or io.out.file).write(text)
        elif fmt is ReportFormat.json:
            if sink is None:
                emit_json(rep.to_dict(), io.out)
            else:
                sink.write(json.dumps(rep.to_dict(), indent=2, allow_nan=False) + "\n")
        else:
            console = io.out if sink is None else Console(file=sink, width=120, no_color=True)
            render_report(rep.to_dict(), console)

    write(None) if output is None else write_file(output, write)
    io.err.print(
        f"capsa: {count(rep.hands, 'hand')} ({rep.played:,} played), "
        f"{count(rep.bad, 'unreadable line')}, "
        f"{seconds:.2f} s" + (f"; wrote {output}" if output is not None else ""),
        markup=False,
    )
    if rep.bad:
        raise typer.Exit(1)


def _check_lang(lang: str, fmt: ReportFormat) -> None:
    """``--lang``: one of the page's languages, and only for the page."""
    if lang == "en":
        return
    from solver.apps.report.translations import LANGUAGES

    if lang not in LANGUAGES:
        fail(f"--lang must be one of {', '.join(LANGUAGES)}, got {shown(lang)}")
    if fmt is not ReportFormat.html:
        fail("--lang is the HTML page's language: add -o FILE.html (or --format html)")


def _num(x: float | None, spec: str) -> str:
    return "—" if x is None else format(x, spec)


def render_report(d: dict[str, Any], console: Console) -> None:
    """The summary of ``capsa report`` (``Report.to_dict()``): the figures, where the
    loss went, the costliest hands."""
    from rich.panel import Panel

    setups = "; ".join(
        f"{shown(s['rules'])}, policy {shown(s['policy'])}, {s['players']} players"
        for s in d["setups"]
    )
    console.print(
        Panel.fit(
            _figures(d),
            title=f"[bold]capsa report[/] {shown(d['source'])}",
            subtitle=setups or "no hands",
        )
    )
    if not d["played"]:
        return
    console.print(_mistakes(d))
    if d.get("style"):
        import textwrap

        from solver.apps.report.style import style_note

        console.print(_style(d["style"]))
        from solver.engine.inputs import visible

        note = textwrap.fill(visible(style_note(d["style"])), width=min(console.width, 80))
        console.print(note, markup=False, highlight=False)
        console.print()
    if d["costliest"]:
        console.print(_costliest(d))


def _figures(d: dict[str, Any]) -> Table:
    """The report's figures (``solver.apps.report.figures``, as the page shows them):
    what, value, note; a figure without a value is left out unless a headline."""
    from solver.apps.report import figures

    table = Table(show_header=False, box=None, pad_edge=False)
    table.add_column("what")
    table.add_column("value", justify="right")
    table.add_column("note", style="dim")
    for f in figures(d):
        if f.value is None and not f.headline:
            continue
        label = f"[red]{f.label}[/]" if f.key == "bad_lines" and f.value else f.label
        table.add_row(label, f.text, f.note)
    return table


def _mistakes(d: dict[str, Any]) -> Table:
    from rich import box

    from solver.apps.report import CATEGORIES

    mistakes = Table(
        title="where the loss went", title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False
    )
    # 80 columns hold it: the numbers never wrap; a long name would, at its words
    for col in ("mistake", "hands", "share", "loss", "mean", "of loss"):
        mistakes.add_column(col, justify="left" if col == "mistake" else "right",
                            no_wrap=col != "mistake")  # fmt: skip
    for c, m in zip(CATEGORIES, d["mistakes"], strict=True):
        mistakes.add_row(
            c.label,
            f"{m['hands']:,}",
            _num(m["share"], "z.1%"),
            _num(m["loss"], ",.3f"),
            _num(m["mean_loss"], ".3f"),
            _num(m["loss_share"], "z.1%"),
        )
        for nat in m.get("naturals", ()):  # each special hand not declared, by name
            mistakes.add_row(
                shown(f"  {nat['label']}"),  # under "natural not declared"
                f"{nat['hands']:,}",
                "",
                _num(nat["loss"], ",.3f"),
                _num(nat["mean_loss"], ".3f"),
                "",
            )
    return mistakes


def _style(s: dict[str, Any]) -> Table:
    """The player's settings beside the advice's (``solver.apps.report.style_rows``, as
    the page shows them); the sentence that sums them up is printed under it."""
    from rich import box

    from solver.apps.report.style import against, style_rows

    table = Table(
        title=f"your style against {shown(against(s))}",
        title_justify="left",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
    )
    for col in ("", "you", shown(against(s))):
        table.add_column(col, justify="right" if col else "left")
    for row in style_rows(s):
        table.add_row(row.label, row.played_text, row.advice_text)
    return table


def _costliest(d: dict[str, Any]) -> Table:
    from rich import box
    from rich.markup import escape

    from solver.apps.report import CATEGORIES
    from solver.engine.layout import natural_label

    labels = {c.key: c.label for c in CATEGORIES}
    costly = Table(
        title="costliest hands",
        title_justify="left",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
        show_lines=True,
    )
    for col in ("line", "id", "loss", "mistake", "advice", "played"):
        costly.add_column(col, justify="right" if col in ("line", "loss") else "left")
    for c in d["costliest"]:
        b, p = c["best"], c["played"]
        advice = "\n".join(pretty_cards(b[r]) for r in ROW_NAMES)
        if b["action"] == "surrender":
            advice = "[bold red]surrender[/]"
        elif b["action"] == "declare":
            named = f" {natural_label(b['natural'])}" if b.get("natural") else ""
            advice = f"[bold magenta]declare{escape(named)}[/]\n" + advice
        played = "\n".join(pretty_cards(p[r]) for r in ROW_NAMES if p[r])
        if p.get("action", "play") != "play":
            played = f"[bold]{p['action']}[/]" + (f"\n{played}" if played else "")
        if p["fouled"]:
            played += "\n[bold red]fouled[/]"
        costly.add_row(
            str(c["line"] if c["line"] is not None else ""),
            shown(c["id"] or ""),
            f"{c['loss']:.3f}",
            labels[c["category"]] + (f"\n{c['detail']}" if c.get("detail") else ""),
            advice,
            played,
        )
    return costly
