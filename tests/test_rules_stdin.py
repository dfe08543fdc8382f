"""``--rules -`` reads a TOML ruleset on stdin in every command that takes ``--rules``,
through the one reader (``solver.engine.rules.load_rules``): the real CLI, in a
subprocess. A ruleset that is not one is reported as stdin's, in one line, exit 2 (a
file named ``-`` would be "not found")."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
HAND = "As Ks Qs Js Ts 9h 9d 9c 2s 3d 4c 5h 7d"

#: Every command that takes --rules, with the arguments it needs besides.
COMMANDS = {
    "solve": [HAND],
    "batch": ["hands.txt"],
    "strength": [],
    "duel": ["greedy", "field"],
    "pool": [],
    "rank": ["As Ks Qs Js Ts"],
    "serve": [],
    "train": [],
}


def capsa(*args: str, input: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    cmd = [sys.executable, "-m", "solver", *args]
    return subprocess.run(
        cmd, capture_output=True, text=True, input=input, timeout=120, cwd=cwd, env=env
    )


def test_every_command_with_rules_is_listed():
    from typer.main import get_command

    from solver.cli import app

    cli = get_command(app)
    with_rules = {
        name
        for name, cmd in cli.commands.items()  # type: ignore[attr-defined]
        if any("--rules" in p.opts for p in cmd.params)
    }
    assert with_rules == set(COMMANDS)


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_rules_dash_reads_stdin(command, tmp_path):
    res = capsa(command, *COMMANDS[command], "--rules", "-", input="scoring = 5\n", cwd=tmp_path)
    assert res.returncode == 2, res.stdout + res.stderr
    lines = res.stderr.strip().splitlines()
    assert lines == ["capsa: error: stdin: scoring must be one of 'per-row', '1-6', '2-4', got 5"]


def test_the_ruleset_read_is_the_one_on_stdin():
    res = capsa("rules", "-", "-f", "json", input='base = "per-row"\nplayers = 2\n')
    assert res.returncode == 0, res.stderr
    got = json.loads(res.stdout)
    assert (got["name"], got["scoring"], got["players"]) == ("stdin", "per-row", 2)


def test_batch_refuses_rules_and_hands_both_on_stdin():
    res = capsa("batch", "-", "--rules", "-", input='base = "capsa"\n')
    assert res.returncode == 2
    assert "--rules - and the hands both on stdin" in res.stderr
