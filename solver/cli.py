"""The `capsa` command line. Thin: parse, call the library, format, map errors to exit codes.

stdout is data, stderr is talk. Exit codes: 0 success, 1 a failure of the run, 2 bad
usage or bad input, 130 interrupted. Every error is one line on stderr
(``capsa: error: ...``): usage errors (unknown option, missing argument, bad choice,
number out of range), bad input (``evaluator.CardParseError`` and
``solver.engine.errors.InputError``, which ``RulesError`` and ``DuelError`` are), a
failed write (a full disk, ``> /dev/full``) and, for a bug, the exception's type and
message (``CAPSA_DEBUG=1`` adds the traceback). The mapping lives in one place, the
command group below, so a command only raises.

Heavy modules (numba kernels) are imported inside the commands, so that
``capsa --help`` stays fast.
"""

from __future__ import annotations

import enum
import errno
import gc
import json
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer
from rich.console import Console
from rich.table import Table
from typer.core import TyperGroup

from solver.engine.errors import InputError
from solver.engine.options import MAX_DEALS, MAX_SAMPLES, Policy
from solver.engine.rules import DEFAULT_PRESET

try:  # typer >= 0.20 vendors click; its usage errors derive from TyperException
    from typer.exceptions import TyperException as _UsageBase
except ImportError:  # pragma: no cover - older typer on click
    from click.exceptions import ClickException as _UsageBase  # type: ignore[assignment]


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def shown(text: object) -> str:
    """A user's text (an id, a file or ruleset name) for Rich markup: its markup escaped
    and every character a terminal would act on written as its escape (``visible``)."""
    from rich.markup import escape

    from solver.engine.inputs import visible

    return escape(visible(str(text)))


def _say(message: str) -> None:
    """One line on stderr, with every character a terminal would act on written as its
    escape (never raises: stderr may be gone too)."""
    from solver.engine.inputs import visible

    message = visible(_one_line(message))
    try:
        sys.stderr.write(f"capsa: {message}\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


def _quiet_stdout() -> None:
    """After a failed write to stdout: point it at the null device, so that the data
    still buffered does not fail again (with a traceback) when Python exits."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # not a real file (tests)
        return
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, fd)
        os.close(devnull)
    except OSError:
        pass


def _bad_input() -> tuple[type[Exception], ...]:
    """The exceptions that mean the user's input is wrong (exit 2), and only those."""
    from evaluator.cards import CardParseError

    return (CardParseError, InputError)


class CapsaGroup(TyperGroup):
    """The command group: turns every way a command can end into an exit code and at most
    one line on stderr (see the module docstring)."""

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        """Run the CLI; usage errors become one line and exit code 2."""
        try:
            rv = super().main(
                args=args,
                prog_name=prog_name,
                complete_var=complete_var,
                standalone_mode=False,
                **extra,
            )
            code = rv if isinstance(rv, int) else 0
        except _UsageBase as exc:
            code = _usage_error(exc)
        except typer.Abort:
            _say("aborted")
            code = 1
        if standalone_mode:
            sys.exit(code)
        return code

    def invoke(self, ctx: Any) -> Any:
        """Run the command; map what escapes it to an exit code and one line."""
        try:
            try:
                return super().invoke(ctx)
            finally:
                sys.stdout.flush()  # data still buffered: a full stdout fails here
        except (typer.Exit, typer.Abort, _UsageBase):
            raise
        except KeyboardInterrupt:
            _say("interrupted")
            raise typer.Exit(130) from None
        except BrokenPipeError:  # `capsa ... | head`: the reader has gone; say nothing
            _quiet_stdout()
            raise typer.Exit(1) from None
        except Exception as exc:
            if isinstance(exc, _bad_input()):
                fail(str(exc))
            if os.environ.get("CAPSA_DEBUG"):
                import traceback

                traceback.print_exc()
            if isinstance(exc, OSError):  # a failure of the run (a full disk), not a bug
                _quiet_stdout()
                where = f": '{exc.filename}'" if exc.filename else ""
                full = exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)
                fail(f"{'write failed: ' if full else ''}{exc.strerror or exc}{where}", 1)
            fail(
                f"{type(exc).__name__}: {exc} (this is a bug in capsa; "
                "CAPSA_DEBUG=1 shows the traceback)",
                1,
            )


def _usage_error(exc: Exception) -> int:
    """A usage error as one line (the help, for ``capsa`` alone); its exit code (2)."""
    code = int(getattr(exc, "exit_code", 2))
    if type(exc).__name__ == "NoArgsIsHelpError":  # `capsa` with nothing: show the help
        ctx = getattr(exc, "ctx", None)
        if ctx is not None:
            typer.echo(ctx.get_help(), err=True)
        return code
    ctx = getattr(exc, "ctx", None)
    hint = f" (see '{ctx.command_path} --help')" if ctx is not None else ""
    _say(f"error: {exc.format_message()}{hint}")
    return code


app = typer.Typer(
    name="capsa",
    help="Optimal hand-setting solver for 13-card Chinese poker and Capsa Susun.",
    cls=CapsaGroup,
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

out = Console(highlight=False, soft_wrap=True, emoji=False)
err = Console(stderr=True, highlight=False, soft_wrap=True, emoji=False)

SUIT_STYLE = {"c": ("♣", "green"), "d": ("♦", "blue"), "h": ("♥", "red"), "s": ("♠", "bold")}

# ------------------------------------------------------------------ shared options
# One declaration each, used by every command that takes them (as sqlite-utils gives
# every command the same output options).

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
        metavar="NAME|FILE",
        help=f"Preset name or TOML ruleset file (see `capsa rules`); default {DEFAULT_PRESET}.",
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


def _setup_logging() -> None:
    """Library talk (compile notices, warnings) goes to stderr."""
    from solver.apps.logs import log_to_stderr

    log_to_stderr()


def fail(message: str, code: int = 2) -> NoReturn:
    """One clear line on stderr, then exit (2: bad input or usage, 1: a failure)."""
    _say(f"error: {message}")
    raise typer.Exit(code)


def bad_input_errors() -> tuple[type[Exception], ...]:
    """Exceptions that mean the user's input is wrong (exit 2)."""
    return _bad_input()


def emit_json(data: object) -> None:
    """``data`` as JSON on stdout (indented on a terminal). Never NaN or Infinity: such a
    value is a bug (payouts are bounded), and raises ``ValueError`` here."""
    text = json.dumps(data, allow_nan=False)
    out.print_json(text, indent=2) if out.is_terminal else print(text)


def emit(fmt: str, data: object, table: Callable[[], None]) -> None:
    """Print a command's result: JSON for ``--format json``, else ``table()``."""
    if fmt == "json":
        emit_json(data)
    else:
        table()


def read_stdin_text(what: str = "stdin", most: int | None = None, why: str = "") -> str:
    """Stdin as text, at most ``most`` bytes (default ``MAX_TEXT``); ``InputError`` (exit
    2) when there is more, or it is not UTF-8."""
    from solver.engine.inputs import read_bounded
    from solver.engine.options import MAX_TEXT

    return decode_text(read_bounded(sys.stdin.buffer, most or MAX_TEXT, what, why), what)


def decode_text(raw: bytes, what: str) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"{what} is not UTF-8 text (bad byte at offset {exc.start})") from None


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

    def table() -> None:
        t = Table(show_header=False, box=None)
        t.add_row("cards", pretty_cards(result["cards"]))
        t.add_row("category", result["category"])
        t.add_row("strength", f"{strength} of 0..{evaluator.NSTRENGTH - 1}")
        out.print(t)

    emit(fmt, result, table)


@app.command()
def batch(
    file: Annotated[
        str,
        typer.Argument(
            metavar="FILE|-",
            help="Hands, one a line ('id: cards', 'id<TAB>cards' or just cards; '#' comments),"
            " or CSV with an id,hand header; '-' reads stdin.",
        ),
    ],
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Output file (default: stdout).")
    ] = None,
    fmt: RecordFormat = None,
    rules: RulesOpt = None,
    policy: PolicyOpt = Policy.mc,
    samples: Annotated[
        int | None,
        typer.Option("--samples", "-n", min=1, help="Opponent hands dealt (mc; default 3000)."),
    ] = None,
    seed: Annotated[
        int,
        typer.Option(
            "--seed", "-s", min=0, help="Run seed; each hand's comes from it and its line."
        ),
    ] = 0,
    players: Annotated[
        int | None,
        typer.Option("--players", "-p", min=2, max=4, help="Players (default: the ruleset's)."),
    ] = None,
    workers: Annotated[
        int | None,
        typer.Option("--workers", "-w", min=1, help="Worker processes (default: every core)."),
    ] = None,
    resume: Annotated[
        bool, typer.Option("--resume", help="Continue an interrupted run into the same -o file.")
    ] = False,
    dask: Annotated[
        str | None,
        typer.Option(
            "--dask",
            metavar="ADDRESS|local",
            help="Solve on a Dask cluster: a scheduler address, or local (needs the dask extra).",
        ),
    ] = None,
    errors: Annotated[
        Path | None, typer.Option("--errors", help="Also write the bad lines here (JSON lines).")
    ] = None,
    chunk_size: Annotated[int | None, typer.Option("--chunk-size", min=1, hidden=True)] = None,
    stakes: Annotated[
        str | None,
        typer.Option(
            "--stakes",
            metavar="S1,S2,...",
            help="Money per unit against each opponent, in order (as for solve).",
        ),
    ] = None,
) -> None:
    """Solve a file of hands: one record per hand, in input order, on every core."""
    import signal
    import time

    from solver.apps.batch import BatchFailed, run_batch

    progress = None
    task = None
    if err.is_terminal:
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        progress = Progress(
            TextColumn("lines"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[rate]}"),
            TimeElapsedColumn(),
            TimeRemainingColumn(),
            console=err,
            transient=True,
        )
        task = progress.add_task("batch", total=None, rate="")
    talk = progress.console if progress is not None else err

    def on_bad(bad) -> None:  # noqa: ANN001 - solver.apps.batch.BadLine
        talk.print(f"capsa: {bad.message()}", markup=False)

    def on_progress(p) -> None:  # noqa: ANN001 - solver.apps.batch.BatchProgress
        rate = p.hands / p.elapsed if p.elapsed > 0 else 0.0
        progress.update(  # type: ignore[union-attr]
            task, total=p.total_lines, completed=p.line, rate=f"{rate:,.0f} hands/s"
        )

    started = time.perf_counter()
    try:
        if progress is not None:
            progress.start()
        result = run_batch(
            file,
            output,
            fmt=fmt.value if fmt is not None else None,
            rules=rules,
            policy=policy.value,
            samples=samples,
            seed=seed,
            players=players,
            workers=workers,
            resume=resume,
            dask=dask,
            errors=errors,
            on_bad=on_bad,
            on_progress=on_progress if progress is not None else None,
            chunk_size=chunk_size,
            stakes=parse_stakes(stakes),
        )
    except bad_input_errors() as exc:  # BatchError is an InputError
        fail(str(exc))
    except BatchFailed as exc:  # part way: a write failed, a worker died
        try:
            sys.stdout.flush()
        except OSError:  # stdout is what failed: let the exit not try it again
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        fail(str(exc), 1)
    except BrokenPipeError:  # `capsa batch ... | head`: the reader has gone
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        raise typer.Exit(1) from None
    finally:
        if progress is not None:
            progress.stop()
    seconds = time.perf_counter() - started
    rate = result.hands / seconds if seconds > 0 else 0.0
    resumed = f" (resumed after line {result.resumed_after})" if result.resumed_after else ""
    err.print(
        f"capsa: {result.hands} hands, {result.bad} bad lines, {seconds:.1f} s, "
        f"{rate:,.0f} hands/s{resumed}",
        markup=False,
    )
    if result.interrupted:  # Ctrl-C, SIGTERM, SIGHUP: exit 128 + the signal
        err.print("capsa: interrupted; run again with --resume to continue", markup=False)
        raise typer.Exit(128 + (result.stopped_by or signal.SIGINT))
    if result.bad:
        raise typer.Exit(1)


class ReportFormat(enum.StrEnum):
    table = "table"
    json = "json"
    html = "html"


@app.command()
def report(
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
) -> None:
    """Sum up a file of played hands: what the settings cost, and where the loss went."""
    import time

    from solver.apps.files import check_outputs, reads, writes
    from solver.apps.report import ReportError, make_report, render_html

    if fmt is None:
        suffix = output.suffix.lower() if output is not None else ""
        by_suffix = {".html": ReportFormat.html, ".htm": ReportFormat.html}
        fmt = by_suffix.get(suffix, ReportFormat.json if suffix == ".json" else ReportFormat.table)
    if fmt is ReportFormat.html and output is None and out.is_terminal:
        fail("--format html writes a page: give -o FILE.html or redirect stdout")

    check_outputs([reads(results)], [writes(output)], "capsa report")

    def on_bad(bad) -> None:  # noqa: ANN001 - solver.apps.report.BadRecord
        err.print(f"capsa: {bad.message()}", markup=False)

    started = time.perf_counter()
    try:
        rep = make_report(results, top=top, on_bad=on_bad)
        text = render_html(rep) if fmt is ReportFormat.html else None
    except ReportError as exc:
        fail(str(exc))
    seconds = time.perf_counter() - started

    def write(sink) -> None:  # noqa: ANN001 - a text stream, or None for stdout
        if fmt is ReportFormat.html:
            (sink or sys.stdout).write(text)  # type: ignore[arg-type]
        elif fmt is ReportFormat.json:
            if sink is None:
                emit_json(rep.to_dict())
            else:
                sink.write(json.dumps(rep.to_dict(), indent=2, allow_nan=False) + "\n")
        else:
            console = out if sink is None else Console(file=sink, width=120, no_color=True)
            _render_report(rep.to_dict(), console)

    if output is None:
        write(None)
    else:
        write_file(output, write)
    err.print(
        f"capsa: {rep.hands:,} hands ({rep.played:,} played), {rep.bad:,} bad lines, "
        f"{seconds:.2f} s" + (f"; wrote {output}" if output is not None else ""),
        markup=False,
    )
    if rep.bad:
        raise typer.Exit(1)


def write_file(path: Path, write: Callable[[Any], None]) -> None:
    """``write(stream)`` into ``path``, whole or not at all (``atomic_write``): a write
    that fails is one line (exit 1 for a full disk or a file size limit, else 2) and
    leaves a file that was there as it was."""
    from solver.apps.files import atomic_write

    try:
        atomic_write(path, write)
    except OSError as exc:
        kept = "; it is left as it was" if path.exists() else ""
        machine = exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO)
        fail(f"cannot write '{path}': {exc.strerror or exc}{kept}", 1 if machine else 2)


def _render_report(d: dict, console: Console) -> None:
    """The Rich summary of `capsa report` (``Report.to_dict()``)."""
    from rich import box
    from rich.panel import Panel

    from solver.apps.report import CATEGORIES

    n = d["played"]
    loss = d["loss"]
    setups = "; ".join(
        f"{shown(s['rules'])}, policy {shown(s['policy'])}, {s['players']} players"
        for s in d["setups"]
    )
    figures = Table(show_header=False, box=None, pad_edge=False)
    figures.add_column("what")
    figures.add_column("value", justify="right")
    figures.add_column("note", style="dim")

    def num(x: float | None, spec: str) -> str:
        return "—" if x is None else format(x, spec)

    sampling = loss["sampling_stderr"]
    figures.add_row("hands", f"{d['hands']:,}", f"{n:,} played")
    figures.add_row(
        "loss, total",
        num(loss["total"], ",.3f"),
        "units" + (f", ± {sampling:.3f} (sampling)" if sampling is not None else ""),
    )
    se = loss["mean_stderr"]
    figures.add_row(
        "loss, mean a hand",
        num(loss["mean"], ".4f"),
        f"± {se:.4f} (hand to hand)" if se is not None else "",
    )
    figures.add_row(
        "loss, median / 90% / max",
        f"{num(loss['median'], '.3f')} / {num(loss['p90'], '.3f')} / {num(loss['max'], '.3f')}",
        "",
    )
    if d["staked"]:
        st = d["staked"]
        figures.add_row(
            "staked loss, total",
            num(st["loss_total"], ",.2f"),
            f"money, {st['hands']:,} hands with stakes; mean {st['loss_mean']:.3f}",
        )
    ev = d["ev"]
    figures.add_row(
        "value: advice / played",
        f"{num(ev['advice_mean'], '+.3f')} / {num(ev['played_mean'], '+.3f')}",
        "mean a hand",
    )
    share = d["perfect"]["share"]
    figures.add_row(
        "played perfectly",
        f"{d['perfect']['hands']:,}",
        f"{share:z.1%} of the played hands" if share is not None else "",
    )
    figures.add_row("fouled", f"{d['fouls']:,}", "")
    figures.add_row("naturals not declared", f"{d['missed_naturals']:,}", "")
    figures.add_row("surrenders missed", f"{d['missed_surrenders']:,}", "")
    if d["bad_lines"]:
        figures.add_row("[red]bad lines[/]", f"{d['bad_lines']:,}", "left out")
    console.print(
        Panel.fit(
            figures,
            title=f"[bold]capsa report[/] {shown(d['source'])}",
            subtitle=setups or "no hands",
        )
    )
    if not n:
        return
    mistakes = Table(
        title="where the loss went", title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False
    )
    for col in ("mistake", "hands", "share", "loss", "mean", "of the loss"):
        mistakes.add_column(col, justify="left" if col == "mistake" else "right")
    for c, m in zip(CATEGORIES, d["mistakes"], strict=True):
        mistakes.add_row(
            c.label,
            f"{m['hands']:,}",
            num(m["share"], "z.1%"),
            num(m["loss"], ",.3f"),
            num(m["mean_loss"], ".3f"),
            num(m["loss_share"], "z.1%"),
        )
        for nat in m.get("naturals", ()):  # each special hand not declared, by name
            mistakes.add_row(
                shown(f"  {nat['label']}"),  # under "natural not declared"
                f"{nat['hands']:,}",
                "",
                num(nat["loss"], ",.3f"),
                num(nat["mean_loss"], ".3f"),
                "",
            )
    console.print(mistakes)
    if d["costliest"]:
        from rich.markup import escape

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
            played = "\n".join(pretty_cards(p[r]) for r in ROW_NAMES)
            if p["fouled"]:
                played += "\n[bold red]fouled[/]"
            costly.add_row(
                str(c["line"] if c["line"] is not None else ""),
                shown(c["id"] or ""),
                f"{c['loss']:.3f}",
                labels[c["category"]],
                advice,
                played,
            )
        console.print(costly)


def _rules_summary(r) -> str:  # noqa: ANN001 - a Rules
    """One line about a ruleset, for `capsa rules`."""
    from solver.engine.rules import rules_summary

    return rules_summary(r)


@app.command("rules")
def rules_command(
    name: Annotated[
        str | None,
        typer.Argument(
            help="Preset name or TOML ruleset file ('-' reads stdin); omit to list the presets."
        ),
    ] = None,
    fmt: RulesetFormat = "table",
) -> None:
    """List the rule presets, or show one ruleset (a preset or a TOML file) in full."""
    from solver.engine.rules import (
        PRESET_GAMES,
        PRESETS,
        describe_rules,
        load_rules,
        rules_from_dict,
        to_toml,
    )

    if name is None:
        if fmt == "toml":
            fail("--format toml shows one ruleset: give its NAME or FILE")
        rows = [(n, PRESET_GAMES[n], _rules_summary(r)) for n, r in PRESETS.items()]

        def listing() -> None:
            table = Table(box=None)
            table.add_column("preset")
            table.add_column("game")
            table.add_column("summary")
            for n, game, summary in rows:
                table.add_row(n, game, summary)
            out.print(table)

        emit(
            fmt,
            [{"name": n, "game": game, "summary": summary} for n, game, summary in rows],
            listing,
        )
        return
    if name == "-":
        from solver.engine.options import MAX_RULESET_BYTES
        from solver.engine.rules import RulesError, ruleset_data

        text = read_stdin_text(most=MAX_RULESET_BYTES, why="a ruleset is a few hundred bytes")
        try:
            r = rules_from_dict(ruleset_data(text), name="stdin")
        except RulesError as exc:
            raise RulesError(f"stdin: {exc}") from None
    else:
        r = load_rules(name)
    if fmt == "toml":
        print(to_toml(r), end="")
        return

    def table() -> None:
        t = Table(show_header=False, box=None)
        for key, value in describe_rules(r):
            # a value of several lines (the natural names) keeps its line breaks
            t.add_row(key, "\n".join(shown(line) for line in value.split("\n")))
        out.print(t)

    emit(fmt, r.to_dict(), table)


# ---------------------------------------------------------------- bench and duel (#6)


def _seconds(s: float) -> str:
    """A duration in the unit that suits it: '12 ns', '9.1 µs', '0.31 ms', '1.2 s'."""
    for scale, unit in ((1.0, "s"), (1e-3, "ms"), (1e-6, "µs")):
        if s >= scale:
            return f"{s / scale:.3g} {unit}"
    return f"{s / 1e-9:.3g} ns"


def _rate(rate: float) -> str:
    """Items per second, compact: '91.4 M/s', '3,307/s', '0.95/s'."""
    if rate >= 1e6:
        return f"{rate / 1e6:,.1f} M/s"
    return f"{rate:,.0f}/s" if rate >= 100 else f"{rate:.3g}/s"


def _status(text: str):  # noqa: ANN202 - a context manager
    """A spinner on stderr when it is a terminal, else nothing."""
    import contextlib

    return err.status(text) if err.is_terminal else contextlib.nullcontext()


@app.command()
def bench(
    quick: Annotated[
        bool, typer.Option("--quick", help="Smaller inputs, fewer rounds: under a minute.")
    ] = False,
    compare: Annotated[
        bool,
        typer.Option(
            "--compare",
            help="Also time phevaluator, treys and eval7 (pip install 'capsa\\[compare]') "
            "on the same 5-card hands.",
        ),
    ] = False,
    only: Annotated[
        list[str] | None,
        typer.Option("--only", help="Run just this measurement (repeatable), e.g. eval5."),
    ] = None,
    fmt: ResultFormat = "table",
) -> None:
    """Measure speed next to DESIGN.md's targets: medians, rates, first-call (compile) time."""
    from solver.apps import bench as b

    with _status("bench") as status:

        def progress(name: str) -> None:
            if status is not None:
                status.update(f"bench: {name}")

        report = b.run(quick=quick, with_compare=compare, names=only, progress=progress)
    for s in report.skipped:
        err.print(f"capsa: skipped {s['name']}: {s['reason']}", markup=False)
    for s in report.failed:
        err.print(f"capsa: {s['name']} failed: {s['error']}", markup=False)
    emit(fmt, report.to_dict(), lambda: _bench_tables(report, quick))
    if report.failed:
        raise typer.Exit(1)


def _bench_tables(report, quick: bool) -> None:  # noqa: ANN001 - solver.apps.bench.Report
    """The Rich tables of `capsa bench`: measurements, then the comparisons."""
    from rich import box

    m = report.machine
    table = Table(
        title="capsa bench" + (" --quick" if quick else ""),
        caption=f"median per item of timed rounds; first call (numba compile or cache load) "
        f"apart; eval5/eval3 items are rows, the rest hands; numba {m['numba']}, "
        f"{m['numba_threads']} threads, {m['cpus']} CPUs; {report.seconds:.0f} s",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
    )
    for col in ("measurement", "n", "first call", "median", "rate", "target", "ok"):
        table.add_column(col, justify="left" if col in ("measurement", "target") else "right")
    for r in report.results:
        ok = "—" if r.ok is None else "[green]yes[/]" if r.ok else "[red]no[/]"
        table.add_row(
            r.name,
            f"{r.items:,}",
            _seconds(r.first_call),
            _seconds(r.per_item),
            f"{r.extra['ratio']:.2f}× numba"
            if r.name.startswith("startup")
            else f"{r.extra['ratio']:.2f}× without"
            if r.name == "mc_home_run"
            else _rate(r.rate),
            r.target or "—",
            ok,
        )
    out.print(table)
    if report.compare:
        cmp = Table(
            title="5-card evaluation: the same hands, public API in a Python loop",
            caption="ratio: capsa's eval5 rate over the library's",
            box=box.SIMPLE_HEAD,
            pad_edge=False,
        )
        for col in ("library", "version", "n", "median", "rate", "ratio", "same order"):
            cmp.add_column(col)
        for r in report.compare:
            ratio = r.extra.get("ratio")
            cmp.add_row(
                r.name,
                str(r.extra.get("version", "?")),
                f"{r.items:,}",
                _seconds(r.per_item),
                _rate(r.rate),
                f"{ratio:,.1f}x" if ratio is not None else "—",
                "yes" if r.extra.get("same_order") else "[red]NO[/]",
            )
        out.print(cmp)


@app.command()
def duel(
    a: Annotated[
        str, typer.Argument(help="Strategy A: mc, mc:SAMPLES, field, greedy, cmd:PROGRAM.")
    ],
    b: Annotated[str, typer.Argument(help="Strategy B, the same choices.")],
    deals: Annotated[
        int,
        typer.Option(
            "--deals", "-d", min=1, max=MAX_DEALS, help="Deals, each played in every seating."
        ),
    ] = 1000,
    rules: RulesOpt = None,
    players: Annotated[
        int | None,
        typer.Option(
            "--players", min=2, max=4, help="Players at the table (default: the ruleset's)."
        ),
    ] = None,
    seed: Annotated[
        int | None, typer.Option("--seed", "-s", min=0, help="Seed of the deals (default: random).")
    ] = None,
    timeout: Annotated[
        float | None,
        typer.Option(
            "--timeout",
            help="Seconds a cmd: program gets for all its hands (default 60 + 0.01 a hand; "
            "at most a day).",
        ),
    ] = None,
    fmt: ResultFormat = "table",
) -> None:
    """Play strategy A against B in duplicate: A's units per deal (95% CI), differences, fouls.

    Every deal is played once per seat, A in that seat and B in the others, so the cards'
    luck cancels. cmd:PROGRAM reads hands on stdin, one a line ('2c 7d ...'), and writes
    one setting a line ('front | middle | back'); bad or missing answers count as fouls.
    """
    from solver.apps.duel import check_timeout
    from solver.apps.duel import duel as run_duel

    timeout = check_timeout(timeout)  # before any work
    with _status("duel") as status:

        def progress(name: str, done: int, total: int) -> None:
            if status is not None:
                status.update(f"duel: {name} setting hands {done:,}/{total:,}")

        result = run_duel(
            a, b, deals=deals, rules=rules, players=players, seed=seed,
            timeout=timeout, progress=progress,
        )  # fmt: skip
    for note in result.notes:
        _say(note)
    d = result.to_dict()
    emit(fmt, d, lambda: _duel_table(d))


def _duel_table(d: dict) -> None:
    """The Rich table of `capsa duel`."""
    table = Table(
        title=f"{shown(d['a'])} (A) vs {shown(d['b'])} (B)",
        caption=f"{shown(d['rules'])}, {d['players']} players, {d['deals']:,} deals x "
        f"{d['players']} seatings, seed {d['seed']}",
        show_header=False,
    )
    table.add_column("what")
    table.add_column("value", justify="right")
    ci = d["ci95"]
    interval = f" ± {(ci[1] - ci[0]) / 2:.4f}  [{ci[0]:+.4f}, {ci[1]:+.4f}]" if ci else ""
    table.add_row("A units per deal (95% CI)", f"{d['mean']:+.4f}{interval}")
    if d["players"] > 2:
        table.add_row("A units per deal per opponent", f"{d['mean_per_opponent']:+.4f}")
    table.add_row("hands set differently", f"{d['differ']:z.1%} of {d['hands']:,}")
    for side in ("a", "b"):
        f = d["fouls"][side]
        bad = f", {f['bad_answers']:,} bad answers" if f["bad_answers"] else ""
        table.add_row(f"fouls {side.upper()}", f"{f['fouls']:,} ({f['rate']:z.1%}){bad}")
    out.print(table)


@app.command()
def strength(
    rules: RulesOpt = None,
    players: Annotated[
        int | None, typer.Option("--players", "-p", min=2, max=4, help="Players at the table.")
    ] = None,
    hands: Annotated[
        int, typer.Option("--hands", min=2, max=MAX_DEALS, help="Random hands compared.")
    ] = 1000,
    samples: Annotated[
        int,
        typer.Option(
            "--samples", "-n", min=1, max=MAX_SAMPLES, help="Opponent hands of each mc solve."
        ),
    ] = 3000,
    eval_deals: Annotated[
        int,
        typer.Option(
            "--eval-deals", min=2, max=MAX_DEALS, help="Fresh opponent deals each setting meets."
        ),
    ] = 100,
    against: Annotated[
        list[str] | None,
        typer.Option(
            "--against",
            help="Policy mc is measured against (repeatable; default field): its exploitability.",
        ),
    ] = None,
    tables: Annotated[
        list[Path] | None,
        typer.Option(
            "--tables",
            metavar="FILE",
            help="Field tables to compare too (repeatable; a capsa train -o file or an "
            "older shipped one): played as policy field@NAME, NAME the file's stem.",
        ),
    ] = None,
    seed: Annotated[int, typer.Option("--seed", "-s", min=0, help="Seed of the hands.")] = 1,
    fmt: ResultFormat = "table",
) -> None:
    """Paired per-hand comparison of policies: what mc gains against a policy per hand."""
    from solver.apps.strength import compare_policies
    from solver.engine.rules import load_rules
    from solver.strategy.field import load_field_file

    r = load_rules(rules)
    extra = {}
    for path in tables or []:
        name = f"field@{path.stem}"
        if name in extra:
            raise InputError(f"--tables: two files named {path.stem!r}; rename one")
        try:
            extra[name] = load_field_file(path, r)
        except OSError as exc:
            raise InputError(f"--tables: cannot read {path}: {exc.strerror or exc}") from None
        except Exception as exc:  # noqa: BLE001 - any unreadable content is the user's file
            raise InputError(f"--tables: {path} is not a field table file ({exc})") from None
    policies = ("mc", *(against or ["field"]), *extra)
    progress, task = None, None
    if err.is_terminal:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

        progress = Progress(BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                            console=err, transient=True)  # fmt: skip
        task = progress.add_task("hands", total=hands)
        progress.start()
    try:
        report = compare_policies(
            n_hands=hands, rules=r, players=players or r.players, policies=policies,
            samples=samples, eval_deals=eval_deals, seed=seed, tables=extra,
            progress=(lambda done, total: progress.update(task, completed=done))
            if progress else None,
        )  # fmt: skip
    finally:
        if progress is not None:
            progress.stop()
    d = report.to_dict()
    emit(fmt, d, lambda: _strength_table(d))


def _strength_table(d: dict) -> None:
    """The Rich table of `capsa strength`."""
    table = Table(
        title=f"strength: {shown(d['rules'])}, {d['players']} players, {d['hands']:,} hands",
        caption=f"mc at {d['samples']:,} opponent hands; every setting meets the same "
        f"{d['eval_deals']} fresh deals; seed {d['seed']}; units per opponent per hand",
    )
    for col in ("comparison", "gain", "± se", "95% interval", "set differently"):
        table.add_column(
            col, justify="left" if col == "comparison" else "right", no_wrap=col == "comparison"
        )
    for name, g in d["gains"].items():
        lo, hi = g["ci95"]
        table.add_row(name.replace("-", " over ", 1), f"{g['mean']:+.4f}", f"{g['stderr']:.4f}",
                      f"[{lo:+.4f}, {hi:+.4f}]", f"{g['differ']:z.0%}")  # fmt: skip
    out.print(table)
    for name, v in d["policies"].items():
        out.print(f"{name}: {v['mean']:+.4f} ± {v['stderr']:.4f} units per opponent per hand")


ROW_NAMES = ("front", "middle", "back")


def _render_solution(d: dict) -> None:
    """Rich rendering of Solution.to_dict() on stdout."""
    from rich.panel import Panel

    head = f"[bold]{pretty_cards(d['hand'])}[/]   rules {shown(d['rules'])}, {d['players']} players"
    rows = Table(box=None, show_header=True, header_style="bold")
    rows.add_column("row")
    rows.add_column("cards")
    if d["row_stats"]:
        rows.add_column("win", justify="right")
        rows.add_column("tie", justify="right")
        rows.add_column("loss", justify="right")
    for name in ROW_NAMES:
        cells = [name, pretty_cards(d[name])]
        if d["row_stats"]:
            st = d["row_stats"][name]
            cells += [f"{st['win']:z.1%}", f"{st['tie']:z.1%}", f"{st['loss']:z.1%}"]
        rows.add_row(*cells)
    ev = f"{d['ev']:+.3f} units per opponent ({d['ev_total']:+.3f} for the table)"
    if d["stderr"] is not None and d["policy"] == "mc":
        ev = f"{d['ev']:+.3f} ± {d['stderr']:.3f} units per opponent ({d['ev_total']:+.3f} table)"
    how = {
        "mc": f"Monte Carlo, {d['samples']} opponent hands, seed {d['seed']}",
        "exact": "exact against the given opponents",
        "field": "field model (no sampling)",
        "greedy": "greedy setting, field-model value",
    }
    advice = {
        "play": "[green]play this setting[/]",
        "declare": "[bold magenta]declare the natural[/]",
        "surrender": "[bold red]surrender[/]",
    }[d["action"]]
    out.print(Panel.fit(rows, title=head, subtitle=how.get(d["policy"], d["policy"])))
    out.print(f"expected value: {ev}")
    by = d.get("ev_by_opponent") or []
    if d.get("stakes"):
        stakes = ", ".join(f"{x:g}" for x in d["stakes"])
        out.print(
            f"staked total: {d['ev_staked']:+,.3f} (stakes {stakes}; units by opponent "
            + ", ".join(f"{x:+.3f}" for x in by)
            + "; runners-up compared in money)"
        )
    elif len(by) > 1 and d["policy"] == "exact":
        out.print("by opponent: " + ", ".join(f"{x:+.3f}" for x in by))
    if d["natural"]:
        from solver.engine.layout import natural_label

        n = d["natural"]
        out.print(
            f"natural: {natural_label(n['name'])}: declaring is worth {n['ev_declare']:+.3f}, "
            f"playing {n['ev_play']:+.3f}"
        )
    sur = d["surrender"]
    if sur["cost"] is not None:
        out.print(
            f"surrender costs {sur['cost']} per opponent: "
            f"{'recommended' if sur['recommended'] else 'not recommended'}"
        )
    out.print(f"advice: {advice}")
    if d.get("played"):
        _render_played(d)
    if d["alternatives"]:
        alt = Table(box=None, header_style="bold", title="runners-up", title_justify="left")
        for col in ("front", "middle", "back"):
            alt.add_column(col)
        alt.add_column("ev", justify="right")
        alt.add_column("vs best", justify="right")
        for a in d["alternatives"]:
            diff = f"{a['diff']:+.3f}"
            if a.get("diff_stderr"):
                diff += f" ± {a['diff_stderr']:.3f}"
            alt.add_row(
                pretty_cards(a["front"]),
                pretty_cards(a["middle"]),
                pretty_cards(a["back"]),
                f"{a['ev']:+.3f}",
                diff,
            )
        out.print(alt)


def parse_stakes(text: str | None) -> list[float] | None:
    """``--stakes 100,10,10`` -> [100.0, 10.0, 10.0]; a bad number is bad input (exit 2)."""
    from solver.engine.inputs import quote

    if text is None:
        return None
    out = []
    for i, part in enumerate(text.split(","), start=1):
        try:
            out.append(float(part))
        except ValueError:
            fail(f"--stakes: stake {i} {quote(part.strip())} is not a number")
    return out


def _render_played(d: dict) -> None:
    """The played setting beside the best: its value, the loss and each row's change."""
    p = d["played"]
    table = Table(box=None, header_style="bold", title="played", title_justify="left")
    for col in ("row", "played", "best", "win", "win vs best"):
        table.add_column(col, justify="right" if col.startswith("win") else "left")
    for name in ROW_NAMES:
        r = p["rows"][name]
        mark = "[yellow]*[/]" if r["differs"] else " "
        win = "—" if r["win"] is None else f"{r['win']:z.1%}"
        change = "—" if r["win_change"] is None else f"{r['win_change']:+z.1%}"
        table.add_row(f"{mark}{name}", pretty_cards(p[name]), pretty_cards(d[name]), win, change)
    out.print(table)
    loss = f"{p['loss']:.3f}"
    if p.get("loss_stderr"):
        loss += f" ± {p['loss_stderr']:.3f}"
    state = "[bold red]fouled[/]: scooped by every opponent; " if p["fouled"] else ""
    out.print(
        f"played: {state}ev {p['ev']:+.3f}, loss {loss} units per opponent, "
        f"rank {p['rank']} of {p['of']}"
    )


def _read_against(path: str) -> list[str]:
    """Opponent settings, one 'front | middle | back' per line ('-' = stdin), at most
    ``MAX_TEXT`` bytes."""
    from solver.engine.inputs import read_bounded
    from solver.engine.options import MAX_TEXT

    why = "it holds at most 3 opponent settings"
    if path == "-":
        text = read_stdin_text("--against stdin", why=why)
    else:
        what = f"--against file '{path}'"
        try:
            text = decode_text(read_bounded(path, MAX_TEXT, what, why), what)
        except OSError as exc:
            raise InputError(f"cannot read --against file '{path}': {exc.strerror}") from None
    return [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.startswith("#")]


@app.command()
def solve(
    hand: Annotated[str, typer.Argument(help="13 cards, e.g. 'As Kd Qh ...' ('-' reads stdin).")],
    rules: RulesOpt = None,
    players: Annotated[
        int | None, typer.Option("--players", "-p", min=2, max=4, help="Players at the table.")
    ] = None,
    samples: Annotated[
        int | None,
        typer.Option("--samples", "-n", min=1, max=MAX_SAMPLES, help="Opponent hands dealt (mc)."),
    ] = None,
    seed: Annotated[int | None, typer.Option("--seed", "-s", help="Random seed (mc).")] = None,
    top: Annotated[int, typer.Option("--top", "-k", min=0, help="Runners-up to show.")] = 3,
    policy: PolicyOpt = Policy.mc,
    against: Annotated[
        str | None,
        typer.Option(
            "--against",
            help="File of opponent settings 'front | middle | back' "
            "(one per line): exact answer against them.",
        ),
    ] = None,
    stakes: Annotated[
        str | None,
        typer.Option(
            "--stakes",
            metavar="S1,S2,...",
            help="Money per unit against each opponent, in order (default 1 each): "
            "the setting maximises the staked total.",
        ),
    ] = None,
    played: Annotated[
        str | None,
        typer.Option(
            "--played",
            metavar="'FRONT | MIDDLE | BACK'",
            help="The setting you played: what it cost next to the best, row by row.",
        ),
    ] = None,
    fmt: ResultFormat = "table",
) -> None:
    """Find the setting of a hand that wins the most units on average."""
    from solver.engine.rules import load_rules
    from solver.strategy.solve import solve as _solve

    if hand == "-":
        hand = read_stdin_text(why="a hand is 13 cards").strip()
    opponents = _read_against(against) if against else None
    sol = _solve(
        hand,
        rules=load_rules(rules),
        players=players,
        policy=policy.value,
        samples=samples,
        seed=seed,
        against=opponents,
        top=top,
        stakes=parse_stakes(stakes),
        played=played,
    )
    d = sol.to_dict()
    emit(fmt, d, lambda: _render_solution(d))


def _check_writable(path: Path) -> None:
    """``InputError`` unless a file can be written at ``path`` (checked by writing a
    temporary file beside it, in the folder that exists or would be made)."""
    import tempfile

    if path.is_dir():
        raise InputError(f"cannot write '{path}': it is a directory")
    folder = path.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    if not folder.is_dir():
        raise InputError(f"cannot write '{path}': '{folder}' is not a directory")
    try:
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".capsa-probe-"):
            pass
    except OSError as exc:
        raise InputError(f"cannot write '{path}': {exc.strerror}") from None


@app.command()
def train(
    rules: RulesOpt = None,
    rounds: Annotated[int, typer.Option(min=1, help="Most rounds of self-play.")] = 30,
    hands: Annotated[int, typer.Option(min=100, help="Random hands set per round.")] = 20_000,
    seed: Annotated[int, typer.Option(help="Random seed (recorded in the tables).")] = 20261130,
    tol: Annotated[
        float, typer.Option(help="Stop when the win tables move less than this in a round.")
    ] = 0.0005,
    min_rounds: Annotated[
        int, typer.Option(min=1, help="Rounds to play before stopping on --tol.")
    ] = 10,
    output: Annotated[
        str | None,
        typer.Option(
            "--output",
            "-o",
            help="Where to write the tables (default: the cache, "
            "or solver/data for a preset with --ship).",
        ),
    ] = None,
    ship: Annotated[bool, typer.Option(help="Write to solver/data/field-NAME.npz.")] = False,
) -> None:
    """Train the field strategy's model for a ruleset by self-play (fictitious play): the
    row-key tables, the card-removal shift and the joint-rows correction."""
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    from solver.apps.files import check_outputs, reads, writes
    from solver.engine.rules import load_rules
    from solver.strategy import field as pol
    from solver.strategy.train import check_train_options
    from solver.strategy.train import train as _train

    check_train_options(rounds, hands, seed, tol, min_rounds)
    r = load_rules(rules)
    if output:
        dest = Path(output)
    elif ship:
        dest = pol.DATA_DIR / f"field-{r.name}.npz"
    else:
        dest = pol.field_cache_path(r)
    inputs = [reads(rules, "the ruleset file")] if rules is not None else []
    check_outputs(inputs, [writes(dest)], "capsa train")
    _check_writable(dest)  # before minutes of training, not after
    with Progress(
        TextColumn("[bold]training[/] {task.description}"),
        BarColumn(),
        TextColumn("{task.completed}/{task.total} rounds"),
        TimeElapsedColumn(),
        console=err,
        disable=not err.is_terminal,
    ) as prog:
        task = prog.add_task(shown(r.name), total=rounds)

        def report(rep) -> None:  # noqa: ANN001 - solver.strategy.train.RoundReport
            if rep.round == 0:
                err.print(f"round 0: greedy start, {rep.hands} hands, {rep.seconds:.1f} s")
                return
            prog.update(task, completed=rep.round)
            err.print(
                f"round {rep.round}: tables moved {rep.change:.5f} "
                f"({rep.hands} hands, {rep.seconds:.1f} s)"
            )

        tables = _train(r, rounds=rounds, hands_per_round=hands, seed=seed, tol=tol,
                        min_rounds=min_rounds, progress=report)  # fmt: skip
    pol.save_field(tables, dest)
    pol.forget_fields()
    meta = tables.meta
    state = "converged" if meta["converged"] else "NOT converged (raise --rounds)"
    err.print(
        f"{state} after {meta['rounds']} rounds (tol {tol}, {meta['seconds']:.0f} s); "
        f"wrote {shown(dest)}"
    )
    if not meta["converged"]:
        raise typer.Exit(1)


@app.command()
def serve(
    host: Annotated[
        str, typer.Option("--host", help="Address to listen on (default: this machine only).")
    ] = "127.0.0.1",
    port: Annotated[
        int, typer.Option("--port", min=0, max=65535, help="Port to listen on (0: any free port).")
    ] = 8000,
    rules: RulesOpt = None,
    open_page: Annotated[
        bool, typer.Option("--open", help="Open the page in the web browser.")
    ] = False,
) -> None:
    """Serve a local web page to solve, check and practise hands (and its JSON API).

    --rules sets the page's default ruleset. It listens on this machine only unless
    --host says otherwise, and says where on stderr.
    """
    try:
        from solver.apps.web import Server
    except ImportError as exc:
        fail(f"capsa serve needs the web extra: pip install 'capsa[web]' ({exc})")
    from solver.engine.rules import load_rules

    ruleset = load_rules(rules)
    try:
        server = Server(host, port, rules=ruleset)
    except OSError as exc:
        fail(f"cannot listen on {host} port {port}: {exc.strerror or exc}")
    err.print("capsa: warming up (kernels and field tables)", markup=False)
    server.warm()
    if server.public:
        err.print(f"capsa: listening on {host}: anyone who can reach it can use it", markup=False)
    err.print(f"capsa: serving on {server.url} (Ctrl-C stops)", markup=False)
    if open_page:
        import webbrowser

        webbrowser.open(server.url)
    server.run()
    err.print("capsa: stopped", markup=False)


def main() -> None:
    """Console-script entry point (errors and exit codes: ``CapsaGroup``)."""
    if os.environ.get("NO_COLOR"):
        out.no_color = err.no_color = True
    # Importing numba makes hundreds of thousands of objects, and Python's default
    # thresholds would run ~200 garbage collections over them (40 ms of a solve); our
    # work is numpy arrays, so young objects are collected less often.
    gc.set_threshold(_GC_YOUNG, *gc.get_threshold()[1:])
    try:
        app(prog_name="capsa")  # also as `python -m solver`
    finally:
        # The process ends here. Python's last garbage collections would walk every object
        # numba and numpy made (a tenth of a second of a solve's wall time) to free memory
        # the system takes back anyway; frozen objects are skipped. Files are closed and
        # atexit handlers run as before.
        gc.freeze()


#: Allocations between collections of the youngest generation in the command (Python: 700).
_GC_YOUNG = 20_000


__all__ = ["app", "main", "Path"]
