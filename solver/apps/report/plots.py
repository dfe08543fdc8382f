"""The report's three plots as inline SVG, drawn with matplotlib (the ``report`` extra):
the distribution of the losses by kind of mistake, the loss by kind of mistake, and the
cumulative loss over the file."""

from __future__ import annotations

import functools
import warnings
from typing import TYPE_CHECKING, Any

from solver.apps.report.categories import CATEGORIES, INDEX
from solver.apps.report.records import ReportError
from solver.apps.report.translations import _, ngettext

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
    style = {**_STYLE, "font.family": ["sans-serif", *_cjk_fonts()]}
    with matplotlib.rc_context(style), warnings.catch_warnings():
        # The text is written as text (svg.fonttype none): the browser draws it in its own
        # fonts. Without a CJK font here matplotlib only measures it less well.
        warnings.filterwarnings("ignore", message="Glyph .* missing from", category=UserWarning)
        return {
            "distribution": _svg(_distribution(losses, cats, report.perfect)),
            "mistakes": _svg(_by_mistake(report.category_loss, report.category_hands)),
            "cumulative": _svg(_cumulative(losses, cats)),
        }


@functools.cache
def _cjk_fonts() -> tuple[str, ...]:
    """The CJK fonts matplotlib finds on this machine (fonts-noto-cjk: Noto Sans CJK),
    as fallbacks for Chinese text in the plots."""
    from matplotlib import font_manager

    names = {f.name for f in font_manager.fontManager.ttflist if "CJK" in f.name}
    return tuple(sorted(names))


def _svg(fig: Any) -> str:
    import io

    buf = io.StringIO()
    fig.savefig(buf, format="svg", metadata={"Date": None}, bbox_inches="tight")
    text = buf.getvalue()
    return text[text.index("<svg") :]


#: Up to this many hands not played perfectly, the distribution is one bar a hand.
FEW_HANDS = 40
#: From this many, and losses spread over more than three decades, the histogram's loss
#: axis is logarithmic (the rest start from zero, on a linear axis).
LOG_FROM = 1000


def _distribution(losses: Any, cats: Any, perfect: int) -> Any:
    """The losses of the hands not played perfectly, by kind of mistake: one bar a hand,
    largest first, for a short session; a histogram stacked by kind for more (from zero,
    linear; logarithmic for thousands of hands whose losses span decades)."""
    import numpy as np
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    fig = Figure(figsize=(5.6, 3.6), layout="constrained")
    ax = fig.add_subplot()
    positive = losses > 0
    n = int(positive.sum())
    shown = [(i, c) for i, c in enumerate(CATEGORIES) if c.key != "perfect"]
    if 0 < n <= FEW_HANDS:
        idx = np.flatnonzero(positive)
        idx = idx[np.argsort(-losses[idx], kind="stable")]
        colors = [CATEGORIES[int(cats[i])].color for i in idx]
        ax.bar(np.arange(1, n + 1), losses[idx], color=colors, width=0.8)
        ax.set_xlim(0.4, n + 0.6)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_xlabel(_("hands, largest loss first"))
        ax.set_ylabel(_("loss (units per opponent)"))
        for i, c in shown:
            if (cats[idx] == i).any():
                ax.bar([0], [0], color=c.color, label=_(c.label))
    elif n:
        lo = max(float(losses[positive].min()), 1e-4)
        hi = float(losses.max())
        log = n >= LOG_FROM and hi > lo * 1000
        bins = np.geomspace(lo, hi * 1.0001, 31) if log else np.linspace(0.0, hi * 1.0001, 31)
        groups = [(c, losses[positive & (cats == i)]) for i, c in shown]
        groups = [(c, v) for c, v in groups if len(v)]
        ax.hist(
            [v for _c, v in groups],
            bins=bins,
            stacked=True,
            color=[c.color for c, _v in groups],
            label=[_(c.label) for c, _v in groups],
        )
        if log:
            ax.set_xscale("log")
        else:
            ax.set_xlim(0.0, hi * 1.02)
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_xlabel(
            _("loss (units per opponent, log scale)") if log else _("loss (units per opponent)")
        )
        ax.set_ylabel(_("hands"))
    else:
        ax.text(0.5, 0.5, _("no hand lost anything"), ha="center", va="center")
    if n:
        ax.set_ylim(bottom=0)
        fig.legend(loc="outside lower center", ncols=3, fontsize=8, frameon=False)
    ax.set_title(
        _("losses of the {n} hands not played perfectly ({perfect} perfect not shown)").format(
            n=f"{n:,}", perfect=f"{perfect:,}"
        ),
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
    bars = ax.barh([_(c.label) for _i, c in shown], values, color=[c.color for _i, c in shown])
    for bar, (i, _c) in zip(bars, shown, strict=True):
        ax.annotate(
            " "
            + ngettext("{n} hand", "{n} hands", category_hands[i]).format(
                n=f"{category_hands[i]:,}"
            ),
            (bar.get_width(), bar.get_y() + bar.get_height() / 2),
            va="center",
            fontsize=8,
            color="#555",
        )
    ax.set_xlim(0, max(max(values, default=0) * 1.3, 1e-9))
    ax.set_xlabel(_("total loss (units per opponent)"))
    ax.set_title(_("loss by kind of mistake"), fontsize=10)
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
            ax.plot(
                x[fouled], cum[fouled], "o", color=color, markersize=3.5, label=_("fouled hands")
            )
            ax.legend(fontsize=8, frameon=False, loc="upper left")
        ax.set_xlim(0, len(cum) + 1)
        ax.set_ylim(bottom=min(0.0, float(cum.min())))
    ax.set_xlabel(_("played hands, in file order"))
    ax.set_ylabel(_("cumulative loss (units per opponent)"))
    ax.set_title(_("cumulative loss over the file"), fontsize=10)
    return fig
