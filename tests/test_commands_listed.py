"""The commands are listed once, ``COMMANDS`` in ``solver/cli/commands/__init__.py``; the
CLI registers that list, and the other places that name the commands (the command
modules, the import contract that keeps them independent, ``capsa --help``, docs/cli.md
and docs/architecture.md) are checked against it."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from typer.testing import CliRunner

from solver.cli import app
from solver.cli.commands import COMMANDS

ROOT = Path(__file__).resolve().parents[1]
NAMES = [name for name, _ in COMMANDS]


def test_each_command_is_a_module_of_its_own():
    modules = sorted(p.stem for p in (ROOT / "solver/cli/commands").glob("*.py"))
    assert modules == sorted(["__init__", *NAMES])
    for name, command in COMMANDS:
        assert command.__module__ == f"solver.cli.commands.{name}"


def test_the_cli_registers_the_list_in_its_order():
    out = CliRunner().invoke(app, ["--help"], terminal_width=200).output
    listed = [m.group(1) for m in re.finditer(r"^\W*(\w+)\s{2,}\S", out, re.M)
              if m.group(1) in NAMES]  # fmt: skip
    assert listed == NAMES
    assert [c.name for c in app.registered_commands] == NAMES


def test_the_import_contract_names_every_command():
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    independent = next(
        c for c in contracts["contracts"] if c["type"] == "independence"
        and all(m.startswith("solver.cli.commands.") for m in c["modules"])
    )  # fmt: skip
    assert sorted(independent["modules"]) == sorted(f"solver.cli.commands.{n}" for n in NAMES)


def test_docs_cli_lists_the_commands_in_order():
    text = " ".join((ROOT / "docs/cli.md").read_text().split())
    sentence = re.search(r"`capsa` has the commands (.*?) \(", text)
    assert sentence, "docs/cli.md: `capsa` has the commands ..."
    assert re.findall(r"`(\w+)`", sentence.group(1)) == NAMES


def test_docs_architecture_names_every_command():
    row = next(line for line in (ROOT / "docs/architecture.md").read_text().splitlines()
               if line.startswith("| `solver/cli/commands/` |"))  # fmt: skip
    assert re.findall(r"\(((?:`\w+`, )+`\w+`)\)", row)
    named = re.findall(r"`(\w+)`", re.findall(r"\(((?:`\w+`, )+`\w+`)\)", row)[0])
    assert named == NAMES
