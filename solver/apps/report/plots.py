"""The report's three plots as inline SVG, drawn with matplotlib (the ``report`` extra):
the distribution of the losses by kind of mistake, the loss by kind of mistake, and the
cumulative loss over the file."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from solver.apps.report.categories import CATEGORIES, INDEX
from solver.apps.report.records import ReportError

if TYPE_CHECKING:
    from solver.apps.report.summary import Report

__all__ = ["plots"]

_STYLE = {
    "svg.fonttype": "none",
    "font.size": 10,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.color": "#e4e4de",
    "grid.linewidth": 0.7,
    "axes.axisbelow": True,
}


def plots(report: Report) -> dict[str, str]:
    """``{"distribution", "mistakes", "cumulative"}``: each plot as an ``<svg>`` element.
    ``ReportError`` naming the extra when matplotlib is not installed."""
    try:
        import matplotlib
    except ImportError:
        raise ReportError(
            "the HTML report draws its plots with matplotlib: pip install 'capsa[report]'"
        ) from None
    import numpy as np

    losses = np.frombuffer(report.losses, dtype=np.float64)
    cats = np.frombuffer(report.categories, dtype=np.uint8)
    with matplotlib.rc_context(_STYLE):
        return {
            "distribution": _svg(_distribution(losses, cats, report.perfect)),
            "mistakes": _svg(_by_mistake(report.category_loss, report.category_hands)),
            "cumulative": _svg(_cumulative(losses, cats)),
        }


def _svg(fig: Any) -> str:
    import io

    buf = io.StringIO()
    fig.savefig(buf, format="svg", metadata={"Date": None}, bbox_inches="tight")
    text = buf.getvalue()
    return text[text.index("<svg") :]


def _distribution(losses: Any, cats: Any, perfect: int) -> Any:
    """The losses of the hands not played perfectly, stacked by kind of mistake."""
    import numpy as np
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    fig = Figure(figsize=(5.6, 3.6), layout="constrained")
    ax = fig.add_subplot()
    positive = losses > 0
    if positive.any():
        lo = max(float(losses[positive].min()), 1e-4)
        hi = max(float(losses.max()), lo * 10)
        groups = [
            (c, losses[positive & (cats == i)])
            for i, c in enumerate(CATEGORIES)
            if c.key != "perfect"
        ]
        groups = [(c, v) for c, v in groups if len(v)]
        ax.hist(
            [v for _, v in groups],
            bins=np.geomspace(lo, hi * 1.0001, 31),
            stacked=True,
            color=[c.color for c, _ in groups],
            label=[c.label for c, _ in groups],
        )
        ax.set_xscale("log")
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
        fig.legend(loc="outside lower center", ncols=3, fontsize=8, frameon=False)
    else:
        ax.text(0.5, 0.5, "no hand lost anything", ha="center", va="center")
    ax.set_xlabel("loss (units per opponent, log scale)")
    ax.set_ylabel("hands")
    ax.set_title(
        f"losses of the {int(positive.sum()):,} hands not played perfectly "
        f"({perfect:,} perfect not shown)",
        fontsize=10,
    )
    return fig


def _by_mistake(category_loss: list[float], category_hands: list[int]) -> Any:
    """The total loss of each kind of mistake, with its number of hands."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(5.6, 3.3))
    ax = fig.add_subplot()
    shown = [(i, c) for i, c in enumerate(CATEGORIES) if c.key != "perfect"][::-1]
    values = [category_loss[i] for i, _ in shown]
    bars = ax.barh([c.label for _, c in shown], values, color=[c.color for _, c in shown])
    for bar, (i, _) in zip(bars, shown, strict=True):
        ax.annotate(
            f" {category_hands[i]:,} hand{'s' * (category_hands[i] != 1)}",
            (bar.get_width(), bar.get_y() + bar.get_height() / 2),
            va="center",
            fontsize=8,
            color="#555",
        )
    ax.set_xlim(0, max(max(values, default=0) * 1.3, 1e-9))
    ax.set_xlabel("total loss (units per opponent)")
    ax.set_title("loss by kind of mistake", fontsize=10)
    ax.grid(axis="y", visible=False)
    return fig


def _cumulative(losses: Any, cats: Any) -> Any:
    """The loss summed over the played hands in file order, the fouled hands marked."""
    import numpy as np
    from matplotlib.figure import Figure

    fig = Figure(figsize=(11.2, 3.0))
    ax = fig.add_subplot()
    if len(losses):
        cum = np.cumsum(losses)
        step = max(1, len(cum) // 2000)
        x = np.arange(1, len(cum) + 1)
        idx = np.unique(np.r_[np.arange(0, len(cum), step), len(cum) - 1])
        ax.plot(x[idx], cum[idx], color="#3a78c2", linewidth=1.4)
        fouled = np.flatnonzero(cats == INDEX["fouled"])
        if len(fouled) and len(fouled) <= 200:
            color = CATEGORIES[INDEX["fouled"]].color
            ax.plot(x[fouled], cum[fouled], "o", color=color, markersize=3.5, label="fouled hands")
            ax.legend(fontsize=8, frameon=False, loc="upper left")
        ax.set_xlim(0, len(cum) + 1)
    ax.set_xlabel("played hands, in file order")
    ax.set_ylabel("cumulative loss (units)")
    ax.set_title("cumulative loss over the file", fontsize=10)
    return fig
