"""`capsa solve`, `capsa train`, `capsa rank`: output shapes, errors and exit codes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

import evaluator as ev
from solver.cli import app
from solver.engine.compiled import compile_rules
from solver.engine.rules import load_rules
from tests import reference as ref

runner = CliRunner()
HAND = "As Ks Qs Js Ts 9h 9d 9c 2s 3d 4c 5h 7d"
KEYS = {
    "hand",
    "rules",
    "policy",
    "players",
    "samples",
    "seed",
    "opponents",
    "action",
    "front",
    "middle",
    "back",
    "stakes",
    "ev_staked",
    "ev_by_opponent",
    "played",
    "ev",
    "ev_total",
    "ev_play",
    "ev_parts",
    "stderr",
    "row_stats",
    "alternatives",
    "natural",
    "surrender",
    "candidates",
}


def run_json(*args: str) -> dict:
    res = runner.invoke(app, [*args, "--format", "json"])
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


def test_solve_json_shape():
    d = run_json("solve", HAND, "--samples", "300", "--seed", "7", "--top", "2")
    assert set(d) == KEYS
    assert d["policy"] == "mc" and d["samples"] == 300 and d["seed"] == 7 and d["players"] == 4
    rows = [ev.parse_cards(d[r]).tolist() for r in ("front", "middle", "back")]
    assert sorted(sum(rows, [])) == sorted(ev.parse_hand(HAND).tolist())
    assert ref.ref_is_legal(*rows)
    assert len(d["alternatives"]) == 2
    assert d["ev_total"] == pytest.approx(3 * d["ev"], abs=1e-5)
    assert d["surrender"]["cost"] == 3 and d["natural"] is None and d["action"] == "play"


def test_solve_is_reproducible_with_a_seed():
    a = run_json("solve", HAND, "--samples", "300", "--seed", "3")
    b = run_json("solve", HAND, "--samples", "300", "--seed", "3")
    assert a == b


@pytest.mark.parametrize("policy", ["field", "greedy"])
def test_solve_other_policies(policy):
    d = run_json("solve", HAND, "--policy", policy, "--rules", "capsa", "--players", "2")
    assert d["policy"] == policy and d["stderr"] is None and d["players"] == 2
    assert d["rules"] == "capsa" and d["ev_total"] == pytest.approx(d["ev"])


def test_solve_against_file_is_exact(tmp_path):
    opp = "2c 2d 3h | 4d 4h 5c 6s 7s | 8c 8d 8h Jc Jd"
    f = tmp_path / "opp.txt"
    f.write_text(f"# one opponent\n{opp}\n")
    d = run_json("solve", HAND, "--against", str(f))
    assert d["policy"] == "exact" and d["players"] == 2 and d["stderr"] == 0
    rules = load_rules("chinese-1-6")
    mine = tuple(ev.parse_cards(d[r]).tolist() for r in ("front", "middle", "back"))
    theirs = tuple(ev.parse_cards(x).tolist() for x in opp.split("|"))
    assert ref.ref_settle(mine, theirs, rules) == pytest.approx(d["ev_play"])


def test_solve_table_output_names_the_rows():
    res = runner.invoke(app, ["solve", HAND, "--samples", "200", "--seed", "1"])
    assert res.exit_code == 0
    for word in ("front", "middle", "back", "expected value", "advice"):
        assert word in res.stdout


def test_solve_reads_stdin():
    res = runner.invoke(app, ["solve", "-", "--policy", "field", "--format", "json"], input=HAND)
    assert res.exit_code == 0 and json.loads(res.stdout)["policy"] == "field"


@pytest.mark.parametrize(
    "args, message",
    [
        (["solve", "As Ks Qs"], "expected 13 cards, got 3"),
        (["solve", HAND.replace("7d", "7x")], "bad card '7x' at position 13"),
        (["solve", HAND.replace("7d", "As")], "duplicate card 'As'"),
        (["solve", HAND, "--policy", "best"], "'best' is not one of 'mc', 'field', 'greedy'"),
        (["solve", HAND, "--rules", "nosuch"], "unknown preset 'nosuch'"),
        (["solve", HAND, "--against", "/nonexistent/file"], "cannot read --against file"),
        (["rank", "As Ks"], "a row has 3 or 5 cards, got 2"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args, message):
    res = runner.invoke(app, args)
    assert res.exit_code == 2
    assert message in res.stderr
    assert res.stderr.count("\n") == 1 and "Traceback" not in res.stderr


def test_bad_options_exit_2():
    assert runner.invoke(app, ["solve", HAND, "--players", "5"]).exit_code == 2
    assert runner.invoke(app, ["solve", HAND, "--samples", "0"]).exit_code == 2


def test_every_command_has_help():
    """Each command's help shows its own docstring's first line, and every option and
    argument it takes has help text of its own."""
    import typer.main

    group = typer.main.get_command(app)
    res = runner.invoke(app, ["--help"])
    assert res.exit_code == 0
    names = sorted(group.commands)
    assert {"solve", "batch", "bench", "rules", "train", "duel", "rank"} <= set(names)
    for name in names:
        cmd = group.commands[name]
        summary = (cmd.callback.__doc__ or "").strip().splitlines()
        assert summary and summary[0], f"{name} has no docstring"
        assert name in res.stdout
        sub = runner.invoke(app, [name, "--help"])
        assert sub.exit_code == 0, name
        assert " ".join(summary[0].split()[:4]) in " ".join(sub.stdout.split()), name
        for param in cmd.params:
            if param.name != "help" and not getattr(param, "hidden", False):
                assert (getattr(param, "help", None) or "").strip(), f"{name} {param.name}"


def test_help_does_not_import_numba():
    code = "import sys; from solver.cli import app; assert 'numba' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_python_dash_m_solver_and_version():
    out = subprocess.run(
        [sys.executable, "-m", "solver", "--version"], capture_output=True, text=True, check=True
    )
    assert out.stdout.startswith("capsa ")


def test_train_writes_tables_that_load(tmp_path):
    dest = tmp_path / "t.npz"
    res = runner.invoke(
        app,
        [
            "train",
            "--rules",
            "per-row",
            "--rounds",
            "3",
            "--hands",
            "300",
            "--tol",
            "1",
            "--output",
            str(dest),
        ],
    )
    assert res.exit_code == 0, res.output
    assert "converged after 3 rounds" in res.stderr and "round 3: tables moved" in res.stderr
    from solver.strategy.field_model.field import load_field_file

    t = load_field_file(dest, compile_rules(load_rules("per-row")))
    assert t.meta["seed"] == 20261130 and t.meta["rounds"] == 3
    assert np.allclose(t.dist.sum(axis=1), 1)


def test_train_defaults_are_the_library_defaults():
    """``capsa train`` with no options trains as ``solver.strategy.field_model.train.train``
    does (the CLI cannot import the library for its help text, so it writes the numbers down)."""
    import inspect

    from solver.cli.commands.train import train as command
    from solver.strategy.field_model import train as T

    opts = {name: p.default for name, p in inspect.signature(command).parameters.items()}
    lib = {name: p.default for name, p in inspect.signature(T.train).parameters.items()}
    assert opts["rounds"] == lib["rounds"] == T.DEFAULT_ROUNDS
    assert opts["hands"] == lib["hands_per_round"] == T.DEFAULT_HANDS
    assert opts["seed"] == lib["seed"] == T.DEFAULT_SEED
    assert opts["tol"] == lib["tol"] == T.DEFAULT_TOL
    assert opts["min_rounds"] == lib["min_rounds"] == T.DEFAULT_MIN_ROUNDS


def test_rank_json():
    d = run_json("rank", "As Ks Qs Js Ts")
    assert d["category"] == "straight flush" and d["royal"] is True and d["strength"] == 7916


def test_ctrl_c_stops_a_long_solve_at_once():
    """Ctrl-C during a long Monte Carlo solve ends it within a chunk of work: it says so
    and exits 130 (it used to run to the end, tens of seconds at a million samples).
    Counted in the process's CPU seconds (``helpers.cpu_seconds``), not the clock's, so a
    loaded machine does not fail it: the signal comes once the solve has worked
    ``busy`` seconds (imports and kernels loaded, dealing begun: a warm start is under
    one), and the work after it is bounded by ``after`` (it was 1.8 to 2.9 CPU seconds),
    where running on to the end takes 160."""
    import signal
    import time

    from tests.helpers import cpu_seconds

    busy, after = 3.0, 8.0
    proc = subprocess.Popen(
        [sys.executable, "-m", "solver", "solve", HAND, "--samples", "1000000", "--seed", "1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 300
        while cpu_seconds(proc.pid) < busy:
            assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
            time.sleep(0.05)
        at_signal = cpu_seconds(proc.pid)
        proc.send_signal(signal.SIGINT)
        while Path(f"/proc/{proc.pid}/stat").read_text().split(") ")[1][0] != "Z":
            assert time.monotonic() < deadline, "still running after Ctrl-C"
            time.sleep(0.02)
        stopped_after = cpu_seconds(proc.pid) - at_signal  # ended, not yet waited for
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 130, err
    assert err.strip().endswith("capsa: interrupted")
    assert "Traceback" not in err and out == ""
    assert stopped_after < after, f"worked {stopped_after:.1f} CPU s after Ctrl-C"


def test_thirteen_unquoted_cards_are_a_hand():
    """`capsa solve As Ks ...` (13 arguments) is the same hand as one quoted argument;
    a wrong count is still the parser's one line."""
    quoted = run_json("solve", HAND, "--policy", "field")
    loose = run_json("solve", *HAND.split(), "--policy", "field")
    assert loose == quoted
    res = runner.invoke(app, ["solve", *HAND.split()[:12], "--policy", "field"])
    assert res.exit_code == 2 and "expected 13 cards, got 12" in res.output


def test_capsa_help_lists_solve_first():
    res = runner.invoke(app, ["--help"])
    assert res.exit_code == 0
    names = [c for c in ("solve", "batch", "report", "serve", "rules", "rank") if c in res.stdout]
    first = min(res.stdout.index(f" {c} ") for c in names if f" {c} " in res.stdout)
    assert res.stdout.index(" solve ") == first
