"""capsa report: what the way a file of hands was played cost, and where it leaked.

``make_report`` reads a ``capsa batch`` output (JSON lines or CSV, as batch writes them;
``capsa solve --format json`` answers, one a line, also do) once, line by line, into a
``Report``: running totals, the loss of each played hand, the few costliest hands.
The parts:

* ``categories``: the kinds of mistake and the one rule that picks a hand's;
* ``records``: reading the lines into records (``solver.strategy.solving.schema`` describes
  them, JSON and CSV alike), bad lines, files that are not a batch output;
* ``summary``: ``Report``, ``make_report`` and the one table of figures (``figures``)
  that the terminal and the page show;
* ``style``: the player's settings beside the advice's for the same hands (the front's
  and the back's hand classes, the stronger rows, the fouls), the report's ``style``;
* ``plots``: the plots as SVG (matplotlib, the ``report`` extra);
* ``html``: the self-contained page, from the template ``page.html``.

Library code: no printing; the CLI renders ``Report`` on the terminal.
"""

from __future__ import annotations

from solver.apps.report.categories import CATEGORIES, Category, categorize
from solver.apps.report.html import render_html
from solver.apps.report.records import MAX_VALUE, SNIFF_LINES, BadRecord, ReportError
from solver.apps.report.summary import Figure, Report, figures, make_report
from solver.strategy.solving.schema import PLAYED_CSV_COLUMNS

__all__ = [
    "CATEGORIES",
    "MAX_VALUE",
    "PLAYED_CSV_COLUMNS",
    "SNIFF_LINES",
    "BadRecord",
    "Category",
    "Figure",
    "Report",
    "ReportError",
    "categorize",
    "figures",
    "make_report",
    "render_html",
]
