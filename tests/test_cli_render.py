"""The CLI's renderers and shared output, without a subprocess: every renderer prints on
the console it is given (never on a module's own), the app writes on the consoles passed
in, the one progress display, and stdout silenced after a failed write without leaving
a descriptor open."""

from __future__ import annotations

import io
import json
import os
import sys
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from solver.cli import Consoles, app
from solver.cli.commands.duel import render_duel
from solver.cli.commands.rank import render_rank
from solver.cli.commands.report import render_report
from solver.cli.commands.rules import render_presets, render_ruleset
from solver.cli.commands.solve import render_solution
from solver.cli.output import emit, progress, quiet_stdout

HAND = "As Ks Qs Js Ts 9h 9d 9c 2s 3d 4c 5h 7d"
OPPONENTS = ["2c 3c 4d | 5s 6s 7h 8h Jd | Qc Qd Kc Kh Ad"]
runner = CliRunner()


def console(width: int = 120) -> tuple[Console, io.StringIO]:
    buf = io.StringIO()
    return Console(file=buf, width=width, no_color=True, highlight=False, emoji=False), buf


def test_the_solution_is_rendered_on_the_console_given(capsys):
    from solver import solve

    sol = solve(HAND, against=OPPONENTS, top=2, played="2s 3d 4c | 9h 9d 9c 5h 7d | As Ks Qs Js Ts")
    out, buf = console()
    render_solution(sol.to_dict(), out)
    text = buf.getvalue()
    assert capsys.readouterr().out == ""  # nothing went to the process's stdout
    lines = text.splitlines()
    assert "rules chinese-1-6, 2 players" in lines[0]
    assert "exact against the given opponents" in text
    assert f"expected value: {sol.ev:+.3f} units per opponent" in text
    assert "advice: play this setting" in text
    assert "runners-up" in text and text.count("+11.000") >= 2  # two runners-up
    assert f"rank {sol.played['rank']} of {sol.played['of']}" in text
    assert "A♠ K♠ Q♠ J♠ T♠" in text


def test_rank_rules_and_duel_render_on_the_console_given(capsys):
    out, buf = console()
    render_rank({"cards": "As Ks Qs", "category": "trips", "strength": 7000, "royal": False}, out)
    render_presets([{"name": "capsa", "summary": "2-4 scoring"}], out)
    render_ruleset([("naturals", "on"), ("natural names", "six pairs\nthree flushes")], out)
    duel = {
        "a": "field", "b": "greedy", "rules": "capsa", "players": 2, "deals": 10, "seed": 1,
        "ci95": [0.1, 0.3], "mean": 0.2, "mean_per_opponent": 0.2, "differ": 0.5, "hands": 20,
        "fouls": {s: {"fouls": 0, "rate": 0.0, "bad_answers": 0} for s in ("a", "b")},
    }  # fmt: skip
    render_duel(duel, out)
    text = buf.getvalue()
    assert capsys.readouterr().out == ""
    assert "A♠ K♠ Q♠" in text and "7000 of 0..7916" in text
    assert "capsa" in text and "2-4 scoring" in text
    assert "six pairs" in text and "three flushes" in text  # a line each
    assert "+0.2000 ± 0.1000  [+0.1000, +0.3000]" in text


def test_the_report_is_rendered_on_the_console_given(tmp_path, capsys):
    from solver.apps.report import make_report
    from solver.engine.rules import load_rules

    rules = load_rules("chinese-1-6")
    from solver import solve

    sol = solve(
        HAND, rules=rules, against=OPPONENTS, played="As Ks Qs | Js Ts 9h 9d 9c | 2s 3d 4c 5h 7d"
    )
    path = tmp_path / "one.jsonl"
    path.write_text(json.dumps({"line": 1, "id": "x", **sol.to_dict()}) + "\n")
    out, buf = console()
    render_report(make_report(path).to_dict(), out)
    text = buf.getvalue()
    assert capsys.readouterr().out == ""
    assert "capsa report" in text and "where the loss went" in text
    assert "fouled" in text and "costliest hands" in text


def test_the_app_writes_on_the_consoles_passed_in():
    out, buf = console()
    err, ebuf = console()
    res = runner.invoke(app, ["rank", "As Ks Qs Js Ts"], obj=Consoles(out, err))
    assert res.exit_code == 0
    assert res.stdout == ""  # not on the process's stdout
    assert "straight flush" in buf.getvalue() and "7916 of 0..7916" in buf.getvalue()
    res = runner.invoke(app, ["rules", "capsa", "-f", "json"], obj=Consoles(out, err))
    assert json.loads(buf.getvalue().split("\n", 3)[-1])["name"] == "capsa"


def test_emit_json_or_the_table():
    out, buf = console()
    emit(out, "json", {"a": 1}, lambda c: c.print("table"))
    emit(out, "table", {"a": 1}, lambda c: c.print("table"))
    assert buf.getvalue() == '{"a": 1}\ntable\n'


def test_one_progress_display_shown_only_on_a_terminal():
    err, buf = console()
    with progress(err, "lines", total=3) as bar:
        assert not bar.shown
        bar.update(2, note="fast")  # nothing on a pipe
        bar.say("capsa: line 2: bad")
    assert buf.getvalue() == "capsa: line 2: bad\n"

    buf = io.StringIO()
    term = Console(file=buf, width=100, force_terminal=True, no_color=True, highlight=False)
    with progress(term, "training", total=4, unit="rounds") as bar:
        assert bar.shown
        bar.update(3, note="1,234 hands/s")
        bar.say("round 3: tables moved 0.001")
    text = buf.getvalue()
    assert "round 3: tables moved 0.001" in text
    assert "3/4 rounds" in text and "1,234 hands/s" in text and "training" in text


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs /proc")
def test_quieting_stdout_leaves_no_descriptor_open(tmp_path, monkeypatch):
    """After a failed write, stdout is pointed at the null device; the descriptor opened
    to do it is closed again (batch's own handling left one open each time)."""
    target = open(tmp_path / "out.txt", "w")  # noqa: SIM115 - closed below
    monkeypatch.setattr(sys, "stdout", target)
    before = set(os.listdir("/proc/self/fd"))
    for _ in range(3):
        quiet_stdout()
    after = set(os.listdir("/proc/self/fd"))
    assert after == before
    assert os.readlink(f"/proc/self/fd/{target.fileno()}") == os.devnull
    target.close()
