"""``capsa bench``: the speed measurements beside their targets."""

from __future__ import annotations

from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from solver.cli.options import ResultFormat
from solver.cli.output import consoles, emit, progress


def bench(
    ctx: typer.Context,
    quick: Annotated[
        bool,
        typer.Option("--quick", help="Smaller inputs, fewer rounds: about 4 minutes on 2 cores."),
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
    """Measure speed against the targets in docs/benchmarks.md: medians, rates, compile time."""
    from solver.apps import bench as b

    io = consoles(ctx)
    with progress(io.err, "bench") as bar:
        report = b.run(
            quick=quick,
            with_compare=compare,
            names=only,
            progress=lambda done, total=None, what=None, **_: bar.update(what=f"bench: {what}"),
        )
    for s in report.skipped:
        io.err.print(f"capsa: skipped {s['name']}: {s['reason']}", markup=False)
    for s in report.failed:
        io.err.print(f"capsa: {s['name']} failed: {s['error']}", markup=False)
    emit(io.out, fmt, report.to_dict(), lambda out: render_bench(report, quick, out))
    if report.failed:
        raise typer.Exit(1)


def seconds(s: float) -> str:
    """A duration in the unit that suits it: '12 ns', '9.1 µs', '0.31 ms', '1.2 s'."""
    for scale, unit in ((1.0, "s"), (1e-3, "ms"), (1e-6, "µs")):
        if s >= scale:
            return f"{s / scale:.3g} {unit}"
    return f"{s / 1e-9:.3g} ns"


def rate(r: float) -> str:
    """Items per second, compact: '91.4 M/s', '3,307/s', '0.95/s'."""
    if r >= 1e6:
        return f"{r / 1e6:,.1f} M/s"
    return f"{r:,.0f}/s" if r >= 100 else f"{r:.3g}/s"


def _rate_cell(r: Any) -> str:
    """A measurement's rate, or its ratio where the figure is one (start-up against a bare
    ``import numba``, the home run against the same solve without it; the Monte Carlo
    solve from the pool against field's time a hand, beside its rate)."""
    if r.name.startswith("startup"):
        return f"{r.extra['ratio']:.2f}× numba"
    if r.name == "mc_home_run":
        return f"{r.extra['ratio']:.2f}× without"
    if r.name == "mc_pool":
        return f"{rate(r.rate)}, {r.extra['ratio']:.0f}× field"
    return rate(r.rate)


def render_bench(report: Any, quick: bool, out: Console) -> None:
    """The tables of ``capsa bench`` (``report``: a ``solver.apps.bench.Report``): the
    measurements, then the comparisons."""
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
            seconds(r.first_call),
            seconds(r.per_item),
            _rate_cell(r),
            r.target or "—",
            ok,
        )
    out.print(table)
    for r in report.results:
        if r.name == "web_load":
            out.print(_web_load_table(r.extra))
    if report.compare:
        out.print(_compare_table(report.compare))


def _web_load_table(x: dict[str, Any]) -> Table:
    """web_load's figures: each kind's p50/p95/p99 (ms) and refusals, alone and beside
    the flood; the flood's answers, the flood ratio, each worker's memory."""
    from rich import box

    ratio = x["flood_ratio"]
    flood = x["flooded"]["flood"]
    table = Table(
        title=f"web_load: {x['players']} players, --workers {x['workers']}",
        caption=f"targets: {x['targets']} ({'met' if x['targets_met'] else 'NOT met'}); "
        f"flood ratio {'—' if ratio is None else f'{ratio:.2f}×'}; the flood's answers "
        + ", ".join(f"{k}: {v:,}" for k, v in flood.items())
        + f"; worker memory {', '.join(f'{m:.0f}' for m in x['worker_memory_mb'])} MB",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
    )
    for col in ("phase", "kind", "n", "p50 ms", "p95 ms", "p99 ms", "429", "503", "errors"):
        table.add_column(col, justify="left" if col in ("phase", "kind") else "right")
    for phase in ("alone", "flooded"):
        for kind, k in x[phase]["kinds"].items():
            cells = [k["n"], k["p50"], k["p95"], k["p99"], k["429"], k["503"], k["errors"]]
            table.add_row(phase, kind, *("—" if c is None else f"{c:,}" for c in cells))
        q = x[phase]
        cells = [q["quick_p50"], q["quick_p95"], q["quick_p99"]]
        table.add_row(phase, "all quick", "", *("—" if c is None else f"{c:,}" for c in cells),
                      "", f"{q['quick_refused']:,} refused", f"{q['errors']:,}")  # fmt: skip
    return table


def _compare_table(results: Any) -> Table:
    from rich import box

    cmp = Table(
        title="5-card evaluation: the same hands, public API in a Python loop",
        caption="ratio: capsa's eval5 rate over the library's",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
    )
    for col in ("library", "version", "n", "median", "rate", "ratio", "same order"):
        cmp.add_column(col)
    for r in results:
        ratio = r.extra.get("ratio")
        cmp.add_row(
            r.name,
            str(r.extra.get("version", "?")),
            f"{r.items:,}",
            seconds(r.per_item),
            rate(r.rate),
            f"{ratio:,.1f}x" if ratio is not None else "—",
            "yes" if r.extra.get("same_order") else "[red]NO[/]",
        )
    return cmp
