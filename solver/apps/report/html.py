"""The report as one self-contained HTML page: ``page.html`` (a Jinja2 template shipped
beside this module, every value escaped) filled with the figures, the plots (inline
SVG), where the loss went, the costliest hands and the bad lines, in one of the
report's languages (``translations``: the template, the figures and the plots)."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

from solver.apps.report.categories import CATEGORIES
from solver.apps.report.records import ReportError
from solver.apps.report.style import against, style_note, style_rows
from solver.apps.report.summary import figures
from solver.apps.report.translations import (
    LANGUAGES,
    N_,
    _,
    ngettext,
    translations,
    use_language,
)
from solver.engine.layout import NATURAL_NAMES_SHOWN, ROWS, natural_label

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
    env.globals.update(_=_, ngettext=ngettext)
    return env.from_string(text)


#: Every natural's English name, marked for the catalogues (the same names as
#: ``solver.engine.layout.NATURAL_NAMES_SHOWN``: tests/test_translations.py checks).
NATURAL_MESSAGES: dict[str, str] = {
    "royal_dragon": N_("Royal dragon"),
    "dragon": N_("Dragon"),
    "twelve_royals": N_("Twelve royals"),
    "twelve_royals_and_one": N_("Twelve royals and one"),
    "three_straight_flushes": N_("Three straight flushes"),
    "three_quads": N_("Three quads"),
    "all_high": N_("All high"),
    "all_low": N_("All low"),
    "one_colour": N_("One colour"),
    "twelve_one_colour": N_("Twelve of one colour"),
    "four_trips": N_("Four trips"),
    "five_pairs_trips": N_("Five pairs and trips"),
    "six_pairs": N_("Six pairs"),
    "three_flushes": N_("Three flushes"),
    "three_straights": N_("Three straights"),
    "eight_of_a_kind": N_("Eight of a kind"),
    "seven_of_a_kind": N_("Seven of a kind"),
    "two_fives_trips": N_("Two fives and trips"),
    "six_of_a_kind": N_("Six of a kind"),
}
#: The rows, as players of each language say them (docs/report.md, "Languages").
ROW_MESSAGES: dict[str, str] = {"front": N_("front"), "middle": N_("middle"), "back": N_("back")}
#: The advice's actions.
ACTION_MESSAGES: dict[str, str] = {
    "play": N_("play"),
    "declare": N_("declare"),
    "surrender": N_("surrender"),
}


def natural_name(name: str) -> str:
    """A natural in the page's language: its name there with the English name beside it
    (``一条龙 (Dragon)``); in English, with the names players use at regional tables
    (``Dragon (一条龙, sảnh rồng)``, docs/rules.md#natural-names)."""
    if name not in NATURAL_NAMES_SHOWN:
        return natural_label(name)
    english = NATURAL_NAMES_SHOWN[name].english
    local = _(english)
    return natural_label(name) if local == english else f"{local} ({english})"


def _fmt(x: float | None, spec: str = "+.3f") -> str:
    return "—" if x is None else format(x, spec)


def render_html(report: Report, lang: str = "en") -> str:
    """One self-contained HTML page of the report (inline CSS and SVG; no network), in
    language ``lang`` (``translations.LANGUAGES``; ValueError for another)."""
    translations(lang)  # an unknown language fails before any work
    with use_language(lang):
        return _render(report, lang)


def _render(report: Report, lang: str) -> str:
    from solver.apps.report.plots import plots

    template = _template()  # first: it names the extra when Jinja2 (or MarkupSafe) is missing
    from markupsafe import Markup  # Jinja2's own dependency: there once Jinja2 imports

    d = report.to_dict()
    every = figures(d)
    return template.render(
        lang=lang,
        source=d["source"],
        setups=_setups(d),
        headlines=[f for f in every if f.headline],
        figures=every,
        plots={k: Markup(svg) for k, svg in plots(report).items()},  # matplotlib's own SVG
        mistakes=_mistakes(d),
        style=_style(d["style"]),
        costliest=_costliest(d),
        rows=" | ".join(_(ROW_MESSAGES[r]) for r in ROWS),
        suits=SUITS,
        bad_lines=[bad.message() for bad in report.bad_lines],
        more_bad=f"{report.bad - len(report.bad_lines):,}"
        if report.bad > len(report.bad_lines)
        else "",
        languages=LANGUAGES,
    )


def _setups(d: dict[str, Any]) -> str:
    setups = "; ".join(
        _("{rules}, policy {policy}, {players} players ({hands} hands)").format(
            rules=s["rules"], policy=s["policy"], players=s["players"], hands=f"{s['hands']:,}"
        )
        for s in d["setups"]
    )
    if any(s["policy"] in ("field", "greedy") for s in d["setups"]):
        setups += " — " + _("the field model's values: the losses are approximate")
    return setups


def _style(s: dict[str, Any] | None) -> dict[str, Any] | None:
    """The style section (``style.style_rows``, as the terminal shows it), or None."""
    if not s:
        return None
    return {"against": against(s), "note": style_note(s), "rows": style_rows(s)}


def _mistakes(d: dict[str, Any]) -> list[dict[str, str]]:
    return [
        {
            "key": c.key,
            "label": _(c.label),
            "color": c.color,
            "why": _(c.why),
            "hands": f"{m['hands']:,}",
            "share": _fmt(m["share"], ".1%"),
            "loss": _fmt(m["loss"], ",.3f"),
            "mean": _fmt(m["mean_loss"], ".3f"),
            "loss_share": _fmt(m["loss_share"], ".1%"),
            # each special hand not declared, by name (natural_not_declared only)
            "naturals": [
                {
                    "natural": nat["natural"] or "",
                    "label": natural_name(nat["natural"]) if nat["natural"] else _("a natural"),
                    "hands": f"{nat['hands']:,}",
                    "loss": _fmt(nat["loss"], ",.3f"),
                    "mean": _fmt(nat["mean_loss"], ".3f"),
                }
                for nat in m.get("naturals", ())
            ],
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
            named = f" {natural_name(b['natural'])}" if b.get("natural") else ""
            advice = _(ACTION_MESSAGES[b["action"]]) + named
        mistake = _(labels[c["category"]])
        if c.get("detail"):
            mistake += f": {_(c['detail'])}"
        out.append(
            {
                "line": "" if c["line"] is None else c["line"],
                "id": c["id"] or "",
                "loss": f"{c['loss']:.3f}",
                "mistake": mistake,
                "action": b["action"],
                "advice": advice,
                "best": [b[r] for r in ROWS],
                "best_ev": _fmt(b["ev"]),
                "played": [p[r] for r in ROWS],
                "played_action": ""
                if p.get("action", "play") == "play"
                else _(ACTION_MESSAGES[p["action"]]),
                "played_ev": _fmt(p["ev"]),
                "fouled": p["fouled"],
            }
        )
    return out
