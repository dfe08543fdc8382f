"""Records: one per good line, as JSON lines or CSV rows; the per-hand and chunked solves.

A record is ``{"line": n, "id": id-or-null, **Solution.to_dict()}``, as
``solver.strategy.solving.schema`` describes it. JSONL writes it as compact JSON; CSV
flattens it into the schema's ``CSV_COLUMNS`` (row win rates, natural, surrender and the
played setting flattened, alternatives left out; empty cells are nulls, booleans
``true``/``false``; a user's text that a spreadsheet would run as a formula starts with
a ``'``, see ``csv_text_cell``). A line that gave the setting played is solved with
``solve(..., played=...)``, so its record carries ``played``. Records hold no timings:
each hand's seed comes from the run's seed and its line number only (``hand_seed``), so
the same input and options give the same bytes whatever the worker count, backend or
resume point.

Policies: ``mc`` runs ``solve(hand, ..., top=0)`` per hand (``solve_one``). ``field``
and ``greedy`` set a chunk of hands at once (``fast_records``) and score the chosen
settings with the field tables exactly as ``solve`` scores its candidates (a played
setting beside them, as ``solve`` scores it); hands holding a natural go through
``solve``.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from solver.apps.batch.pinned import run_models, run_pool
from solver.apps.batch.reading import BadLine, Played, escape_breaks
from solver.strategy.solving.schema import (
    CSV_COLUMNS,
    CSV_OPPONENTS,
    PLAYED_CSV_COLUMNS,
    flatten,
)

if TYPE_CHECKING:
    from solver.apps.batch.work import Job

__all__ = [
    "CSV_COLUMNS",
    "PLAYED_CSV_COLUMNS",
    "csv_row",
    "csv_text",
    "csv_text_cell",
    "csv_text_value",
    "error_line",
    "fast_records",
    "format_records",
    "hand_seed",
    "records",
    "solve_one",
]

#: A good line: ``(line number, id or None, hand ids, played rows, word or None)``.
Good = tuple[int, str | None, Any, Played | None]


def hand_seed(seed: int, line: int) -> int:
    """The seed of the hand on ``line``: depends on ``seed`` and the line number only."""
    import numpy as np

    return int(np.random.SeedSequence([seed, line]).generate_state(1)[0])


# --------------------------------------------------------------------------------------
# Text
# --------------------------------------------------------------------------------------


#: The JSON escapes of the line breaks ``json.dumps(..., ensure_ascii=False)`` leaves raw
#: (it escapes every other one, being below U+0020).
_JSON_BREAKS = {0x85: "\\u0085", 0x2028: "\\u2028", 0x2029: "\\u2029"}
_JSON_BREAK = re.compile("[\x85\u2028\u2029]")


#: What a spreadsheet takes for the start of a formula (OWASP, "CSV injection").
_FORMULA = re.compile(r"'*[=+\-@\t\r]")
_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?", re.ASCII)


def csv_text_cell(text: str) -> str:
    """A user's text (an id, a ruleset's name) as a CSV cell no spreadsheet runs as a
    formula: text starting with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return
    (after any single quotes) gets one more ``'`` in front (OWASP's advice; a spreadsheet
    shows the text, not the quote), unless it is a plain number such as ``-5``.
    ``csv_text_value`` gives the text back."""
    if _FORMULA.match(text) and not _NUMBER.fullmatch(text):
        return "'" + text
    return text


def csv_text_value(cell: str) -> str:
    """The text ``csv_text_cell`` made ``cell`` from."""
    if cell.startswith("'") and _FORMULA.match(cell) and not _NUMBER.fullmatch(cell[1:]):
        return cell[1:]
    return cell


def _json_lines(text: str) -> str:
    """JSON text with every line break inside its strings escaped (the same values)."""
    return text.translate(_JSON_BREAKS) if _JSON_BREAK.search(text) else text


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def csv_row(record: dict[str, Any], opponents: int = CSV_OPPONENTS) -> list[str]:
    """A record flattened into the ``CSV_COLUMNS`` cells (``solver.strategy.solving.schema``;
    one per opponent at a table of more than ``CSV_OPPONENTS``: ``csv_columns``); a
    user's text is one physical line and never a formula (``csv_text_cell``)."""
    cells = []
    for col, value in flatten(record, opponents):
        if col.field.user and isinstance(value, str):
            value = csv_text_cell(escape_breaks(value))
        cells.append(_cell(value))
    return cells


def csv_text(rows: Iterable[list[str]]) -> str:
    """CSV lines (``\\n`` endings, minimal quoting)."""
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(rows)
    return buf.getvalue()


def format_records(records: list[dict[str, Any]], fmt: str, opponents: int = CSV_OPPONENTS) -> str:
    """Records as output text: one line each, each ending in a newline (CSV: the columns
    of a batch of ``opponents`` opponents a hand, ``csv_row``).

    Line breaks in text (an id holding U+2028, say) are escaped: in JSON as ``\\uXXXX``
    (the same value read back), in CSV as ``escape_breaks`` writes them.
    """
    if fmt == "csv":
        return csv_text(csv_row(r, opponents) for r in records)
    dump = json.dumps
    return _json_lines(
        "".join(dump(r, ensure_ascii=False, separators=(",", ":")) + "\n" for r in records)
    )


def error_line(bad: BadLine) -> str:
    """A bad line as a line of the errors file: JSON ``{"line", "id", "reason", "text"}``."""
    data = {"line": bad.line, "id": bad.id, "reason": bad.reason, "text": bad.text}
    return _json_lines(json.dumps(data, ensure_ascii=False)) + "\n"


# --------------------------------------------------------------------------------------
# Solving
# --------------------------------------------------------------------------------------


def _real_solve() -> Callable[..., Any]:
    from solver.strategy.solving.solve import solve

    return solve


def records(job: Job, good: list[Good], bad: list[BadLine]) -> list[dict[str, Any]]:
    """The records of the good lines, in order; hands the solver rejects go to ``bad``."""
    if not good:
        return []
    if job.fast:
        return fast_records(job, good, bad)
    out = []
    for line, ident, hand, played in good:
        record = solve_one(job, line, ident, hand, bad, played)
        if record is not None:
            out.append(record)
    return out


def solve_one(
    job: Job,
    line: int,
    ident: str | None,
    hand: Any,
    bad: list[BadLine],
    played: Played | None = None,
) -> dict[str, Any] | None:
    """The per-hand path: ``solve(...).to_dict()`` with the line number and id in front
    (``solve(..., played=...)`` when the line gave the setting played)."""
    solve = job.solve_fn or _real_solve()
    try:
        opts = job.options.evolve(
            seed=hand_seed(job.seed, line),
            played=played,
            **({"pool": run_pool(job) if job.pool else False} if job.policy == "mc" else {}),
            **({"opponents": run_models(job)} if job.opponents is not None else {}),
        )
        solution = solve(hand, job.rules, opts)
    except ValueError as exc:  # the solver's own input checks
        bad.append(BadLine(line, ident, str(exc)))
        return None
    return {"line": line, "id": ident, **solution.to_dict()}


def fast_records(job: Job, good: list[Good], bad: list[BadLine]) -> list[dict[str, Any]]:
    """Field and greedy hands of a chunk set together; the per-hand path's record shape.

    ``solver.strategy.field_model.policy.set_sorted_hands`` sets the chunk, the field model
    scores the chosen settings the way ``solve`` scores its candidates, and ``solve``'s own
    ``assemble`` makes each record (so ``ev``, ``row_stats``, ``surrender`` and ``action``
    are those ``solve`` gives for that setting); hands holding a natural take the per-hand
    path, and so do lines that declared or surrendered. A played setting is scored beside
    the policy's as ``solve`` scores it (``score_field``: a fouled one is scooped), so
    ``played`` holds the same ``ev``, ``loss`` and rows. Unlike ``solve`` (documented):
    ``candidates``, ``played.rank`` and ``played.of`` are null (no Pareto front is built);
    of settings of equal row keys the policy may show another than ``solve`` does."""
    import numpy as np

    from solver.engine.compiled import compile_rules
    from solver.engine.settlement import find_naturals
    from solver.strategy.field_model.field import field_values
    from solver.strategy.field_model.policy import set_sorted_hands
    from solver.strategy.field_model.train import ensure_field
    from solver.strategy.hands.splits import Candidates, split_of
    from solver.strategy.solving.code_card import with_code_card
    from solver.strategy.solving.scoring import (
        field_parts,
        field_scores,
        score_field,
        uniform_stake,
    )
    from solver.strategy.solving.solve import Found, assemble

    stakes = None if job.stakes is None else np.array(job.stakes, np.float64)
    same = uniform_stake(stakes)  # equal stakes: chosen as without them (Scores.stake)
    if same is not None:
        stakes = None
    cr = compile_rules(job.rules)
    n_opp = job.settled
    srt = np.sort(np.stack([g[2] for g in good]), axis=1)
    naturals, _ = find_naturals(srt, cr)
    out: list[dict[str, Any] | None] = [None] * len(good)
    # a natural, or a line that declared or surrendered: the per-hand path
    by_word = np.array([isinstance(g[3], str) for g in good], np.bool_)
    for i in np.flatnonzero((naturals >= 0) | by_word).tolist():
        line, ident, hand, played = good[i]
        out[i] = solve_one(job, line, ident, hand, bad, played)
    play = np.flatnonzero((naturals < 0) & ~by_word)
    if len(play):
        field = ensure_field(cr)
        setter = field if job.policy == "field" else None
        split, keys, roy, _ = set_sorted_hands(srt[play], cr, job.policy, setter, threads=1)
        vals, wt = field_values(keys, roy, srt[play], cr, field)
        no_fouls = np.zeros(len(play), np.bool_)  # the policies never foul
        parts = field_parts(vals, wt, keys, roy, srt[play], no_fouls, cr, field)  # one pass
        for j, i in enumerate(play.tolist()):
            line, ident, _, played = good[i]
            one = Candidates(srt[i], split[j : j + 1], keys[j : j + 1], roy[j : j + 1], 0, False,
                             third_keys=cr.third_card_keys)  # fmt: skip
            if played is None:
                one_v, one_w, one_p = vals[j : j + 1], wt[j : j + 1], parts[j : j + 1]
                scores = with_code_card(one, cr, None, stakes, field_scores(
                    one_v, one_w, cr, job.policy, n_opp, stakes, one_p))  # fmt: skip
                at = None
            else:  # the played setting as a second candidate, scored as solve scores it
                one = one.with_split(split_of(srt[i], *played)[None, :], cr)  # rows checked
                scores = score_field(one, cr, job.policy, n_opp, stakes)
                at = 1
            scores.stake = same
            opts = job.options.evolve(seed=hand_seed(job.seed, line))
            found = Found(job.players, best=0, played=at, settled=n_opp)
            solution = assemble(one, scores, cr, opts, found)
            record = {"line": line, "id": ident, **solution.to_dict()}
            if at is not None:
                record["played"]["rank"] = record["played"]["of"] = None
            out[i] = record
    return [r for r in out if r is not None]
