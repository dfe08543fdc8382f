"""capsa report: the figures of a results file, checked on records whose answers are known,
the mistake categories on real solves, bad and foreign input, the HTML page and the CLI."""

from __future__ import annotations

import io
import json
import math
import re
import statistics
import sys
from functools import partial
from html.parser import HTMLParser

import pytest

import solver
from solver.apps.report import (
    CATEGORIES,
    SNIFF_LINES,
    ReportError,
    categorize,
    make_report,
    render_html,
)
from tests import helpers

KEYS = [c.key for c in CATEGORIES]
ROWS = ("front", "middle", "back")


def record(
    line: int,
    *,
    loss: float | None,
    action: str = "play",
    fouled: bool = False,
    back_differs: bool = False,
    front_change: float = 0.0,
    middle_change: float = 0.0,
    ev: float = 1.0,
    played_ev: float | None = None,
    loss_stderr: float | None = None,
    stakes: list[float] | None = None,
) -> dict:
    """A batch record shaped like ``{"line", "id", **Solution.to_dict()}``; ``loss=None``
    gives a record with nothing played."""
    rec = {
        "line": line,
        "id": f"h{line}",
        "hand": "Ah Kd Qc Jd Ts 9s 9d 7h 6c 5s 4d 3h 2c",
        "rules": "chinese-1-6",
        "policy": "mc",
        "players": 4,
        "samples": 100,
        "seed": line,
        "action": action,
        "front": "9s 9d 2c",
        "middle": "7h 6c 5s 4d 3h",
        "back": "Ah Kd Qc Jd Ts",
        "ev": ev,
        "ev_total": 3 * ev,
        "ev_play": ev,
        "stderr": 0.1,
        "row_stats": None,
        "alternatives": [],
        "natural": None,
        "surrender": {"cost": 3, "recommended": action == "surrender", "ev_play": ev},
        "candidates": 2,
        "stakes": stakes,
        "ev_staked": None,
        "ev_by_opponent": [ev] * 3,
        "played": None,
    }
    if loss is not None:
        changes = {"front": front_change, "middle": middle_change, "back": 0.0}
        rec["played"] = {
            "front": "9s 9d 7h",
            "middle": "6c 5s 4d 3h 2c",
            "back": "Ah Kd Qc Jd Ts",
            "ev": ev - loss if played_ev is None else played_ev,
            "loss": loss,
            "loss_stderr": loss_stderr,
            "rank": 2,
            "of": 3,
            "fouled": fouled,
            "rows": {
                r: {
                    "differs": r != "back" or back_differs,
                    "win": 0.5,
                    "tie": 0.0,
                    "loss": 0.5,
                    "win_change": changes[r],
                }
                for r in ROWS
            },
        }
    return rec


# loss in units, category, line: the known answers of KNOWN
EXPECTED = [
    (0.0, "perfect", 1),
    (0.05, "front_too_strong", 2),
    (0.2, "front_too_weak", 3),
    (0.01, "other_split", 4),
    (1.5, "wrong_back", 5),
    (7.25, "fouled", 6),
    (2.0, "natural_not_declared", 7),
    (0.5, "surrender_missed", 8),
    (0.25, "wrong_back", 10),  # staked: money 1.2, units ev - played ev = 0.25
    (0.4, "weaker_rows", 11),
]
TOTAL = sum(x for x, _, _ in EXPECTED)
KNOWN = [
    record(1, loss=0.0),
    record(2, loss=0.05, front_change=0.01, middle_change=-0.02, loss_stderr=0.03),
    record(3, loss=0.2, front_change=-0.03, middle_change=0.01, loss_stderr=0.04),
    record(4, loss=0.01),
    record(5, loss=1.5, back_differs=True, front_change=0.1),
    record(6, loss=7.25, fouled=True, back_differs=True),
    record(7, loss=2.0, action="declare", fouled=True, ev=13.0),
    record(8, loss=0.5, action="surrender", ev=-3.0),
    record(9, loss=None),
    record(
        10,
        loss=1.2,
        back_differs=True,
        ev=1.0,
        played_ev=0.75,
        stakes=[1, 2, 3],
        loss_stderr=0.5,
    ),  # fmt: skip
    record(11, loss=0.4, front_change=-0.02, middle_change=-0.05),
]


def jsonl(records: list) -> bytes:
    return b"".join(
        (r if isinstance(r, bytes) else json.dumps(r).encode()) + b"\n" for r in records
    )


@pytest.fixture(scope="module")
def known_report():
    return make_report(io.BytesIO(jsonl(KNOWN)), top=3)


def test_figures_of_a_file_whose_answers_are_known(known_report):
    d = known_report.to_dict()
    losses = [x for x, _, _ in EXPECTED]
    assert d["hands"] == 11 and d["played"] == 10 and d["bad_lines"] == 0
    assert d["advice"] == {"play": 9, "declare": 1, "surrender": 1}
    assert d["loss"]["total"] == pytest.approx(sum(losses))
    assert d["loss"]["mean"] == pytest.approx(sum(losses) / 10)
    assert d["loss"]["mean_stderr"] == pytest.approx(statistics.stdev(losses) / math.sqrt(10))
    assert d["loss"]["sampling_stderr"] == pytest.approx(math.hypot(0.03, 0.04))  # not staked
    assert d["loss"]["median"] == pytest.approx(statistics.median(losses))
    assert d["loss"]["max"] == 7.25
    assert d["staked"] == {"hands": 1, "loss_total": 1.2, "loss_mean": 1.2}
    assert d["perfect"] == {"hands": 1, "share": 0.1}
    assert d["fouls"] == 2 and d["missed_naturals"] == 1 and d["missed_surrenders"] == 1
    evs = [1.0] * 6 + [13.0, -3.0, 1.0, 1.0]
    assert d["ev"]["advice_mean"] == pytest.approx(sum(evs) / 10)
    assert d["ev"]["played_mean"] == pytest.approx((sum(evs) - sum(losses)) / 10)
    assert d["setups"] == [{"rules": "chinese-1-6", "policy": "mc", "players": 4, "hands": 11}]


def test_every_played_hand_falls_in_exactly_one_category(known_report):
    d = known_report.to_dict()
    by = {m["category"]: m for m in d["mistakes"]}
    assert [m["category"] for m in d["mistakes"]] == KEYS
    for key in KEYS:
        want = [x for x, k, _ in EXPECTED if k == key]
        assert by[key]["hands"] == len(want), key
        assert by[key]["loss"] == pytest.approx(sum(want)), key
    assert sum(m["hands"] for m in d["mistakes"]) == d["played"]
    assert sum(m["loss"] for m in d["mistakes"]) == pytest.approx(d["loss"]["total"])
    assert sum(m["loss_share"] for m in d["mistakes"]) == pytest.approx(1.0, abs=1e-5)
    # the per-hand arrays, in file order, for the plots
    assert list(known_report.losses) == pytest.approx([x for x, _, _ in EXPECTED])
    assert [KEYS[c] for c in known_report.categories] == [k for _, k, _ in EXPECTED]


def test_the_costliest_hands_largest_loss_first(known_report):
    costly = known_report.to_dict()["costliest"]
    assert [(c["line"], c["loss"], c["category"]) for c in costly] == [
        (6, 7.25, "fouled"),
        (7, 2.0, "natural_not_declared"),
        (5, 1.5, "wrong_back"),
    ]
    assert costly[1]["best"]["action"] == "declare" and costly[0]["played"]["fouled"]
    assert costly[0]["played"]["front"] == "9s 9d 7h" and costly[0]["best"]["front"] == "9s 9d 2c"


def test_categorize_order_of_precedence():
    assert categorize("declare", 0.0, True, True, 1.0, -1.0) == "perfect"
    assert categorize("declare", 1.0, True, True, 1.0, -1.0) == "natural_not_declared"
    assert categorize("surrender", 1.0, True, True, 1.0, -1.0) == "surrender_missed"
    assert categorize("play", 1.0, True, True, 1.0, -1.0) == "fouled"
    assert categorize("play", 1.0, False, True, 1.0, -1.0) == "wrong_back"
    assert categorize("play", 1.0, False, False, 0.1, -0.1) == "front_too_strong"
    assert categorize("play", 1.0, False, False, -0.1, 0.1) == "front_too_weak"
    assert categorize("play", 1.0, False, False, -0.1, -0.1) == "weaker_rows"
    assert categorize("play", 1.0, False, False, -0.1, 0.0) == "weaker_rows"
    assert categorize("play", 1.0, False, False, 0.0, -0.1) == "weaker_rows"
    assert categorize("play", 1.0, False, False, 0.0, 0.0) == "other_split"
    assert categorize("play", 1.0, False, False, None, None) == "other_split"


# --------------------------------------------------------------------------- real solves

HAND = "Ah Kd Qc Jd Ts 9s 9d 7h 6c 5s 4d 3h 2c"  # field: 9s 9d 2c | 7h..3h | Ah Kd Qc Jd Ts
REAL = [
    (HAND, "9s 9d 2c | 7h 6c 5s 4d 3h | Ah Kd Qc Jd Ts", "perfect"),
    # a 7 kept in the front breaks the 7-high straight down to 6-high
    (HAND, "9s 9d 7h | 6c 5s 4d 3h 2c | Ah Kd Qc Jd Ts", "front_too_strong"),
    # the pair of nines moved into the middle breaks the straight: both rows weaker
    (HAND, "7h 3h 2c | 9s 9d 6c 5s 4d | Ah Kd Qc Jd Ts", "weaker_rows"),
    (HAND, "Ah Kd Qc | 7h 6c 5s 4d 3h | Jd Ts 9s 9d 2c", "fouled"),
    # the ace kept for the middle's two pair instead of the front
    (
        "As Kc Qc Ts Tc 8h 8d 7d 7c 6c 5s 3s 3c",
        "7d 5s 3s | As Ts Tc 8h 8d | Kc Qc 7c 6c 3c",
        "front_too_weak",
    ),
    # a dragon (13 units an opponent) played as two straights
    (
        "Ac Kd Qh Js Tc 9d 8h 7s 6c 5d 4h 3s 2c",
        "4h 3s 2c | 9d 8h 7s 6c 5d | Ac Kd Qh Js Tc",
        "natural_not_declared",
    ),
    # surrendering (3 units) is worth more than the best setting
    (
        "Ac Kd Td 9s 9d 8s 8d 7c 6h 4s 3c 2d 2c",
        "3c 2d 2c | 8s 8d 7c 6h 4s | Ac Kd Td 9s 9d",
        "surrender_missed",
    ),
]


@pytest.fixture(scope="module")
def real_records():
    out = []
    for i, (hand, played, _) in enumerate(REAL, start=1):
        sol = solver.solve(hand, policy="field", top=0, played=played)
        out.append({"line": i, "id": None, **sol.to_dict()})
    # a back of two nines and three high cards instead of the broadway straight
    played = "4d 3h 2c | Jd Ts 7h 6c 5s | Ah Kd Qc 9s 9d"
    sol = solver.solve(HAND, policy="field", top=0, played=played)
    out.append({"line": 8, "id": None, **sol.to_dict()})
    return out


def test_categories_of_real_solves(real_records):
    rep = make_report(io.BytesIO(jsonl(real_records)), top=20)
    want = [k for _, _, k in REAL] + ["wrong_back"]
    assert [KEYS[c] for c in rep.categories] == want
    assert rep.perfect == 1 and rep.fouls == 1
    assert rep.missed_naturals == 1 and rep.missed_surrenders == 1
    assert rep.loss_total == pytest.approx(sum(r["played"]["loss"] for r in real_records))


# --------------------------------------------------------------------------- bad input


def test_bad_lines_are_reported_with_their_number_and_the_rest_is_kept():
    good = [record(1, loss=0.5, back_differs=True), record(2, loss=None)]
    bad_played = record(9, loss=0.1)
    bad_played["played"]["loss"] = "x"
    lines = [
        good[0],
        b"{not json",
        b"[1, 2, 3]",
        b"",  # a blank line is skipped, not bad
        {"line": 5, "hand": "As Kd"},  # no 'action'
        b"\xff\xfe{}",
        bad_played,
        {**record(8, loss=0.2), "action": "fold"},
        good[1],
    ]
    seen = []
    rep = make_report(io.BytesIO(jsonl(lines)), on_bad=seen.append)
    assert rep.hands == 2 and rep.played == 1 and rep.loss_total == 0.5
    assert rep.bad == 6 and [b.line for b in seen] == [2, 3, 5, 6, 7, 8]
    reasons = [b.message() for b in seen]
    assert reasons[0].startswith("line 2: not JSON")
    assert reasons[1] == "line 3: not a capsa batch record (a JSON list, not an object)"
    assert reasons[2] == "line 5: not a capsa batch record (no 'action')"
    assert reasons[3].startswith("line 6: not UTF-8")
    assert reasons[4] == "line 7: 'played.loss' is not a number ('x')"
    assert "'action' is not one of play, declare, surrender" in reasons[5]
    assert all("\n" not in r for r in reasons)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (b"a,b,c\n1,2,3\n", "line 1 is neither a JSON record nor a CSV header"),
        (b"As Kd Qh Js Ts 9h 8h 7h 6h 5h 4h 3h 2h\n", "neither a JSON record"),
        # the --errors file of a batch run is JSON lines, but no record
        (b'{"line": 3, "id": null, "reason": "bad card", "text": "x"}\n', "no 'hand'"),
        (jsonl([{"x": i} for i in range(SNIFF_LINES + 5)] + [record(1, loss=0.1)]),
         f"no batch record in its first {SNIFF_LINES} lines"),
    ],
)  # fmt: skip
def test_a_file_that_is_not_a_batch_output_is_refused(text, message):
    with pytest.raises(ReportError, match="is not a capsa batch output") as exc:
        make_report(io.BytesIO(text))
    assert message in str(exc.value) and "\n" not in str(exc.value)


def test_empty_input_and_records_without_played():
    assert make_report(io.BytesIO(b"")).to_dict()["hands"] == 0
    d = make_report(io.BytesIO(jsonl([record(1, loss=None)] * 3))).to_dict()
    assert d["hands"] == 3 and d["played"] == 0 and d["loss"]["total"] == 0
    assert d["loss"]["mean"] is None and d["perfect"]["share"] is None and d["costliest"] == []


def test_a_missing_file_is_one_line():
    with pytest.raises(ReportError, match="cannot read 'nowhere.jsonl'"):
        make_report("nowhere.jsonl")


# --------------------------------------------------------------------------- HTML


class _Page(HTMLParser):
    """Collects the figures (data-key cells), the plots' elements and the images."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[tuple[str, dict]] = []
        self.figures: dict[str, str] = {}
        self.plots: dict[str, int] = {}
        self.external: list[str] = []
        self._key: str | None = None
        self._plot: str | None = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "tr" and "data-key" in a:
            self._key = a["data-key"]
        if tag == "div" and a.get("id", "").startswith("plot-"):
            self._plot = a["id"][5:]
            self.plots[self._plot] = 0
        if tag == "svg" and self._plot is not None:
            self.plots[self._plot] += 1
        for name in ("src", "href"):
            if a.get(name) and not a[name].startswith(("#", "data:")):
                self.external.append(a[name])
        if tag == "link" or tag == "script":
            self.external.append(tag)

    def handle_endtag(self, tag):
        if tag == "tr":
            self._key = None
        if tag == "svg":
            self._plot = None

    def handle_data(self, data):
        if self._key is not None and data.strip():
            self.figures[self._key] = data.strip()


def test_the_html_page_holds_the_plots_and_the_numbers(known_report):
    page = render_html(known_report)
    parser = _Page()
    parser.feed(page)
    assert parser.plots == {"distribution": 1, "mistakes": 1, "cumulative": 1}
    assert parser.external == [], "the page must be self-contained"
    d = known_report.to_dict()
    assert parser.figures["hands"] == "11" and parser.figures["played"] == "10"
    assert parser.figures["loss_total"] == f"{d['loss']['total']:.6f}"
    assert parser.figures["loss_mean"] == f"{d['loss']['mean']:.6f}"
    assert parser.figures["fouls"] == "2" and parser.figures["missed_naturals"] == "1"
    assert parser.figures["staked_loss_total"] == "1.200000"
    for c in CATEGORIES:
        assert f'data-category="{c.key}"' in page and c.label in page


def test_html_without_matplotlib_names_the_extra(known_report, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(ReportError, match=r"pip install 'capsa\[report\]'"):
        render_html(known_report)


def test_html_without_jinja2_names_the_extra(known_report, monkeypatch):
    from solver.apps.report import html

    html._template.cache_clear()
    monkeypatch.setitem(sys.modules, "jinja2", None)
    try:
        with pytest.raises(ReportError, match=r"pip install 'capsa\[report\]'"):
            render_html(known_report)
    finally:
        html._template.cache_clear()


def test_the_page_escapes_every_value(tmp_path):
    """An id or a ruleset name holding markup reaches the page as text."""
    evil = {**record(1, loss=0.5), "id": "<script>alert(1)</script>", "rules": "<b>x</b>"}
    page = render_html(make_report(io.BytesIO(jsonl([evil]))))
    assert "<script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "<b>x</b>" not in page and "&lt;b&gt;x&lt;/b&gt;" in page


# --------------------------------------------------------------------------- the CLI

#: Bytes in, bytes out: ``capsa`` a subprocess (a pipe on stdin), ``capsa_in`` the command in
#: the test's process (the claims are the report's text, files and exit codes).
capsa = partial(helpers.capsa, text=False)
capsa_in = partial(helpers.capsa_in, text=False)


def test_cli_report_table_json_and_stdin(tmp_path):
    path = tmp_path / "results.jsonl"
    path.write_bytes(jsonl(KNOWN))
    table = capsa_in("report", str(path), "--top", "2")
    assert table.returncode == 0, table.stderr
    out = table.stdout.decode()
    assert "capsa report" in out and "where the loss went" in out and "costliest" in out
    assert f"{TOTAL:.3f}" in out
    for c in CATEGORIES:
        assert c.label in out
    got = capsa("report", "-", "--format", "json", input=path.read_bytes())
    assert got.returncode == 0, got.stderr
    d = json.loads(got.stdout)
    assert d == {**make_report(path).to_dict(), "source": "<stdin>"}
    assert d["loss"]["total"] == pytest.approx(TOTAL)


def test_cli_report_html_file(tmp_path):
    path = tmp_path / "results.jsonl"
    path.write_bytes(jsonl(KNOWN))
    page = tmp_path / "report.html"
    run = capsa_in("report", str(path), "-o", str(page))
    assert run.returncode == 0, run.stderr
    assert run.stdout == b"" and b"wrote" in run.stderr
    parser = _Page()
    parser.feed(page.read_text(encoding="utf-8"))
    assert parser.plots == {"distribution": 1, "mistakes": 1, "cumulative": 1}
    assert parser.figures["loss_total"] == f"{TOTAL:.6f}"


def test_cli_report_bad_lines_exit_1_and_foreign_files_exit_2(tmp_path):
    path = tmp_path / "results.jsonl"
    path.write_bytes(jsonl([KNOWN[1], b"{oops", KNOWN[2]]))
    run = capsa_in("report", str(path), "--format", "json")
    assert run.returncode == 1
    assert json.loads(run.stdout)["played"] == 2
    err = run.stderr.decode().splitlines()
    assert err[0].startswith("capsa: line 2: not JSON") and "1 unreadable line," in err[-1]
    foreign = tmp_path / "hands.txt"
    foreign.write_text("As Kd Qh Js Ts 9h 8h 7h 6h 5h 4h 3h 2h\n")
    run = capsa_in("report", str(foreign))
    assert run.returncode == 2 and run.stdout == b""
    assert run.stderr.decode().strip().splitlines() == [
        f"capsa: error: {foreign} is not a capsa batch output: line 1 is neither a JSON "
        "record nor a CSV header naming the columns line, hand, action, front, middle, back, ev"
    ]
    assert capsa_in("report", str(tmp_path / "none.jsonl")).returncode == 2


def test_a_natural_to_declare_is_named_as_players_call_it(tmp_path):
    """docs/rules.md#natural-names: a costly hand whose advice was to declare a natural
    shows it by its English and local names (terminal, HTML), and by its ruleset name in
    the JSON's ``best.natural`` (a JSON or a CSV batch output alike)."""

    from solver.apps.batch.records import CSV_COLUMNS, csv_row, csv_text

    nat = {"name": "five_pairs_trips", "declared": True, "ev_declare": 5.0, "ev_play": 1.0}
    missed = {**record(1, loss=4.0, action="declare", ev=5.0), "natural": nat}
    shown = "declare Five pairs and trips (五对三条, năm đôi một sám)"
    path = tmp_path / "results.jsonl"
    path.write_bytes(jsonl([missed, record(2, loss=0.5)]))
    d = make_report(path).to_dict()
    assert d["costliest"][0]["best"]["natural"] == "five_pairs_trips"
    assert "natural" not in d["costliest"][1]["best"]  # nothing to declare
    assert shown in render_html(make_report(path))
    table = capsa_in("report", str(path), env={"COLUMNS": "200"})
    assert table.returncode == 0, table.stderr
    assert shown in table.stdout.decode()
    csv_path = tmp_path / "results.csv"
    csv_path.write_text(csv_text([list(CSV_COLUMNS), csv_row(missed)]), encoding="utf-8")
    assert make_report(csv_path).to_dict()["costliest"][0]["best"]["natural"] == "five_pairs_trips"


# --------------------------------------------------------------------------- a short session


def test_a_short_session_draws_one_bar_a_hand_from_zero():
    """A handful of hands: one bar a hand (largest loss first), linear axes from zero,
    no logarithmic histogram."""
    from solver.apps.report.plots import FEW_HANDS, _distribution

    losses = [0.0, 0.3, 2.5, 0.01, 1.0]
    rep = make_report(io.BytesIO(jsonl([record(i + 1, loss=x) for i, x in enumerate(losses)])))
    import numpy as np

    fig = _distribution(
        np.frombuffer(rep.losses, np.float64), np.frombuffer(rep.categories, np.uint8), rep.perfect
    )
    ax = fig.axes[0]
    assert ax.get_xscale() == "linear" and ax.get_yscale() == "linear"
    assert ax.get_ylim()[0] == 0
    bars = [p.get_height() for p in ax.patches if p.get_x() > 0]
    assert bars == sorted([x for x in losses if x > 0], reverse=True) and len(bars) < FEW_HANDS


def test_many_hands_spread_over_decades_get_a_log_histogram():
    import numpy as np

    from solver.apps.report.plots import LOG_FROM, _distribution

    rng = np.random.default_rng(1)
    losses = np.exp(rng.uniform(np.log(1e-4), np.log(10.0), LOG_FROM))
    fig = _distribution(losses, np.full(len(losses), 4, np.uint8), 0)
    assert fig.axes[0].get_xscale() == "log"
    fig = _distribution(losses[:200], np.full(200, 4, np.uint8), 0)
    assert fig.axes[0].get_xscale() == "linear" and fig.axes[0].get_xlim()[0] == 0


def test_losses_are_shown_to_three_decimals(known_report):
    from solver.apps.report import figures

    for f in figures(known_report.to_dict()):
        if f.key.startswith("loss") and f.value is not None:
            assert re.fullmatch(r"[\d,]+\.\d{3}", f.text), (f.key, f.text)


def test_a_broken_straight_flush_or_four_of_a_kind_is_named():
    from solver.apps.report.summary import broken_up

    best = ("4c 3d 2h", "9h 9d 9c 7d 5h", "As Ks Qs Js Ts")
    royal = ("Ts 3d 2h", "9h 9d 9c 7d 5h", "As Ks Qs Js 4c")
    assert broken_up(best, royal) == "royal flush broken up"
    sf = ("4c 3d 2h", "Ah Ad Ac 7d 5h", "9s 8s 7s 6s 5s")
    assert broken_up(sf, ("5s 3d 2h", "Ah Ad Ac 7d 4c", "9s 8s 7s 6s 5h")) == (
        "straight flush broken up"
    )
    quads = ("4c 3d 2h", "Ah Kd Qc 7d 5h", "9s 9h 9d 9c 5s")
    assert broken_up(quads, ("9c 3d 2h", "Ah Kd Qc 7d 5h", "9s 9h 9d 4c 5s")) == (
        "four of a kind broken up"
    )
    assert broken_up(best, best) is None
    rec = record(1, loss=5.0, back_differs=True)
    rec.update(front=best[0], middle=best[1], back=best[2])
    rec["played"].update(front=royal[0], middle=royal[1], back=royal[2])
    d = make_report(io.BytesIO(jsonl([rec]))).to_dict()
    assert d["costliest"][0]["detail"] == "royal flush broken up"
    assert "wrong back: royal flush broken up" in render_html(make_report(io.BytesIO(jsonl([rec]))))


def test_the_page_in_another_language(known_report, tmp_path):
    """`capsa report --lang zh-Hans`: the page's text, its figures and plots in Chinese,
    the rows as players say them; a language the report does not have is one line."""
    page = render_html(known_report, "zh-Hans")
    assert '<html lang="zh-Hans">' in page
    assert "损失出在哪里" in page and "Where the loss went" not in page
    assert "头墩 | 中墩 | 尾墩" in page
    assert "按失误类型的损失" in page  # a plot's title
    assert "倒水" in page  # a category
    assert render_html(known_report, "en").count("Where the loss went") == 1
    path = tmp_path / "r.jsonl"
    path.write_bytes(jsonl(KNOWN))
    out = tmp_path / "r.html"
    res = capsa_in("report", str(path), "-o", str(out), "--lang", "vi")
    assert res.returncode == 0, res.stderr
    assert "Thua ở đâu" in out.read_text(encoding="utf-8")
    res = capsa_in("report", str(path), "-o", str(out), "--lang", "xx")
    assert res.returncode == 2 and b"--lang must be one of en, zh-Hans" in res.stderr
    res = capsa_in("report", str(path), "--lang", "vi")
    assert res.returncode == 2 and b"--lang is the HTML page's language" in res.stderr


# --------------------------------------------------------------- declare, surrender, parts


def test_declares_and_surrenders_are_counted_as_what_they_were():
    """A natural declared as advised and a surrender as advised are played perfectly; a
    needless one is its own kind of mistake, with its loss; none of them is a missed
    natural or surrender."""
    declared = record(1, loss=0.0, action="declare")
    declared["played"].update(action="declare", front=None, middle=None, back=None, rows=None)
    needless = record(2, loss=1.5, action="play")
    needless["played"].update(action="surrender", front=None, middle=None, back=None, rows=None)
    surrendered = record(3, loss=0.0, action="surrender")
    surrendered["played"].update(action="surrender", front=None, middle=None, back=None)
    wrong_declare = record(4, loss=0.75, action="play")
    wrong_declare["played"].update(action="declare", rows=None)
    d = make_report(io.BytesIO(jsonl([declared, needless, surrendered, wrong_declare]))).to_dict()
    by = {m["category"]: m for m in d["mistakes"]}
    assert by["perfect"]["hands"] == 2
    assert (
        by["surrendered_needlessly"]["hands"] == 1 and by["surrendered_needlessly"]["loss"] == 1.5
    )
    assert by["declared_needlessly"]["hands"] == 1 and by["declared_needlessly"]["loss"] == 0.75
    assert d["missed_naturals"] == d["missed_surrenders"] == 0
    assert d["costliest"][0]["played"]["action"] == "surrender"
    page = render_html(make_report(io.BytesIO(jsonl([needless]))))
    assert "<b>surrender</b>" in page


def test_the_loss_is_split_into_the_parts_of_the_values():
    """``loss_parts``: the best setting's ev_parts minus the played one's, summed over the
    hands where both are settings (a needless surrender has no parts)."""
    a = record(1, loss=2.0)
    a["ev_parts"] = {"rows": 0.5, "bonus": 0.2, "royalties": 4.0, "naturals": -0.1}
    a["played"]["ev_parts"] = {"rows": 0.4, "bonus": 0.1, "royalties": 2.2, "naturals": -0.1}
    b = record(2, loss=1.0)
    b["ev_parts"] = {"rows": 1.0, "bonus": 0.0, "royalties": 0.0, "naturals": 0.0}
    b["played"]["ev_parts"] = {"rows": 0.0, "bonus": 0.0, "royalties": 0.0, "naturals": 0.0}
    c = record(3, loss=0.5)  # no parts: left out of them
    d = make_report(io.BytesIO(jsonl([a, b, c]))).to_dict()
    parts = d["loss_parts"]
    assert parts == {"hands": 2, "rows": 1.1, "bonus": 0.1, "royalties": 1.8, "naturals": 0.0}
    from solver.apps.report import figures

    shown = {f.key: f for f in figures(d)}
    assert shown["loss_royalties"].text == "1.800"
    assert shown["loss_rows"].note == "2 hands where both were settings"
    assert make_report(io.BytesIO(jsonl([c]))).to_dict()["loss_parts"] is None


def test_each_special_hand_not_declared_is_its_own_mistake(tmp_path):
    """The hands whose advice was to declare a natural and that were played are also
    counted by the natural, the costliest first (JSON ``mistakes[].naturals``, a row of
    the terminal's table and of the page's each), named as players call it; a record
    naming no known natural counts as "a natural", so the breakdown stays bounded."""

    def missed(line: int, name: object, loss: float) -> dict:
        nat = {"name": name, "declared": True, "ev_declare": 5.0, "ev_play": 1.0}
        return {**record(line, loss=loss, action="declare", ev=5.0), "natural": nat}

    records = [
        missed(1, "six_pairs", 1.0),
        missed(2, "five_pairs_trips", 4.0),
        missed(3, "six_pairs", 2.5),
        missed(4, "no_such_hand", 0.5),
        missed(5, ["not", "a", "name"], 0.25),
        record(6, loss=0.0, action="declare", ev=5.0),  # declared: perfect
        record(7, loss=0.3),
    ]
    path = tmp_path / "results.jsonl"
    path.write_bytes(jsonl(records))
    d = make_report(path).to_dict()
    entry = next(m for m in d["mistakes"] if m["category"] == "natural_not_declared")
    assert entry["hands"] == 5 and entry["loss"] == pytest.approx(8.25)
    assert entry["naturals"] == [
        {"natural": "five_pairs_trips", "label": "Five pairs and trips (五对三条, năm đôi một sám)",
         "hands": 1, "loss": 4.0, "mean_loss": 4.0},
        {"natural": "six_pairs", "label": "Six pairs (六对半, lục phé bôn)",
         "hands": 2, "loss": 3.5, "mean_loss": 1.75},
        {"natural": None, "label": "a natural", "hands": 2, "loss": 0.75, "mean_loss": 0.375},
    ]  # fmt: skip
    assert sum(n["hands"] for n in entry["naturals"]) == entry["hands"]
    assert all("naturals" not in m for m in d["mistakes"] if m is not entry)
    page = render_html(make_report(path))
    assert "Six pairs (六对半, lục phé bôn) not declared" in page
    assert 'data-natural="five_pairs_trips"' in page
    table = capsa_in("report", str(path), env={"COLUMNS": "200"})
    assert table.returncode == 0, table.stderr
    lines = table.stdout.decode().splitlines()
    # a row for each, indented under "natural not declared", named as players call it
    at = next(
        i for i, line in enumerate(lines) if line.split()[:3] == ["natural", "not", "declared"]
    )
    assert lines[at + 1].split() == [
        "Five", "pairs", "and", "trips", "(五对三条,", "năm", "đôi", "một", "sám)", "1", "4.000",
        "4.000",
    ]  # fmt: skip
    assert lines[at + 2].split()[:3] == ["Six", "pairs", "(六对半,"]
    assert lines[at + 3].split() == ["a", "natural", "2", "0.750", "0.375"]
