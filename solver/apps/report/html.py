"""The report as one self-contained HTML page: ``page.html`` (a Jinja2 template shipped
beside this module, every value escaped) filled with the figures, the plots (inline
SVG), where the loss went, the costliest hands and the bad lines."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

from solver.apps.report.categories import CATEGORIES
from solver.apps.report.records import ReportError
from solver.apps.report.summary import figures
from solver.engine.layout import ROWS, natural_label

if TYPE_CHECKING:
    from solver.apps.report.summary import Report

__all__ = ["render_html"]

#: A card's suit: its symbol and the class that colours it (hearts red, diamonds blue,
#: clubs green).
SUITS = {"s": ("♠", "s"), "h": ("♥", "h"), "d": ("♦", "dm"), "c": ("♣", "cl")}


@functools.cache
def _template() -> Any:
    try:
        import jinja2
    except ImportError:
        raise ReportError(
            "the HTML report is made from a Jinja2 template: pip install 'capsa[report]'"
        ) from None
    from importlib.resources import files

    text = files("solver.apps.report").joinpath("page.html").read_text(encoding="utf-8")
    env = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined)
    return env.from_string(text)


def _fmt(x: float | None, spec: str = "+.3f") -> str:
    return "—" if x is None else format(x, spec)


def render_html(report: Report) -> str:
    """One self-contained HTML page of the report (inline CSS and SVG; no network)."""
    from markupsafe import Markup

    from solver.apps.report.plots import plots

    template = _template()
    d = report.to_dict()
    every = figures(d)
    return template.render(
        source=d["source"],
        setups=_setups(d),
        headlines=[f for f in every if f.headline],
        figures=every,
        plots={k: Markup(svg) for k, svg in plots(report).items()},  # matplotlib's own SVG
        mistakes=_mistakes(d),
        costliest=_costliest(d),
        suits=SUITS,
        bad_lines=[bad.message() for bad in report.bad_lines],
        more_bad=f"{report.bad - len(report.bad_lines):,}"
        if report.bad > len(report.bad_lines)
        else "",
    )


def _setups(d: dict[str, Any]) -> str:
    setups = "; ".join(
        f"{s['rules']}, policy {s['policy']}, {s['players']} players ({s['hands']:,} hands)"
        for s in d["setups"]
    )
    if any(s["policy"] in ("field", "greedy") for s in d["setups"]):
        setups += " — the field model's values: the losses are approximate"
    return setups


def _mistakes(d: dict[str, Any]) -> list[dict[str, str]]:
    return [
        {
            "key": c.key,
            "label": c.label,
            "color": c.color,
            "why": c.why,
            "hands": f"{m['hands']:,}",
            "share": _fmt(m["share"], ".1%"),
            "loss": _fmt(m["loss"], ",.3f"),
            "mean": _fmt(m["mean_loss"], ".3f"),
            "loss_share": _fmt(m["loss_share"], ".1%"),
        }
        for c, m in zip(CATEGORIES, d["mistakes"], strict=True)
    ]


def _costliest(d: dict[str, Any]) -> list[dict[str, Any]]:
    labels = {c.key: c.label for c in CATEGORIES}
    out = []
    for c in d["costliest"]:
        b, p = c["best"], c["played"]
        advice = ""
        if b["action"] != "play":
            named = f" {natural_label(b['natural'])}" if b.get("natural") else ""
            advice = b["action"] + named
        out.append(
            {
                "line": "" if c["line"] is None else c["line"],
                "id": c["id"] or "",
                "loss": f"{c['loss']:.3f}",
                "mistake": labels[c["category"]],
                "action": b["action"],
                "advice": advice,
                "best": [b[r] for r in ROWS],
                "best_ev": _fmt(b["ev"]),
                "played": [p[r] for r in ROWS],
                "played_ev": _fmt(p["ev"]),
                "fouled": p["fouled"],
            }
        )
    return out
