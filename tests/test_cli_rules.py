"""`capsa rules`: list the presets, show one ruleset (preset, file or stdin), errors."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from solver.cli import app
from solver.engine.rules import PRESETS, load_rules
from solver.engine.ruleset_files import to_toml
from solver.engine.ruleset_text import describe_rules
from tests.helpers import capsa, capsa_in


def run(*args: str, input: str | None = None):
    return CliRunner().invoke(app, list(args), input=input)


def test_lists_every_preset_with_a_summary():
    res = run("rules")
    assert res.exit_code == 0, res.output
    lines = res.stdout.splitlines()
    for name in PRESETS:
        assert any(line.split()[:1] == [name] for line in lines), name
    assert "1-6 scoring" in res.stdout
    assert "suits s>h>c>d" in res.stdout
    assert "wheel second" in res.stdout
    assert res.stderr == ""


def test_list_as_json():
    res = run("rules", "--format", "json")
    assert res.exit_code == 0
    data = json.loads(res.stdout)
    assert [d["name"] for d in data] == list(PRESETS)
    by_name = {d["name"]: d["summary"] for d in data}
    assert by_name["per-row"].startswith("per-row scoring, no royalties, no naturals")
    assert "scoop x2" in by_name["shisanshui"]
    assert by_name["shisanshui"].endswith("home run x2 (2+ opponents)")
    assert "suits d>c>h>s" in by_name["pusoy"]
    games = {d["name"]: d["game"] for d in data}
    assert games["shisanshui"] == "十三水" and games["mau-binh"] == "Mậu Binh"
    assert games["capsa"] == "Capsa Susun" and games["pusoy"] == "Pusoy"


@pytest.mark.parametrize("name", list(PRESETS))
def test_shows_a_preset_in_full(name):
    res = run("rules", name)
    assert res.exit_code == 0, res.output
    for key, value in describe_rules(PRESETS[name]):
        assert key in res.stdout
        assert value.split()[0] in res.stdout
    assert PRESETS[name].digest() in res.stdout


@pytest.mark.parametrize("name", list(PRESETS))
def test_json_is_to_dict(name):
    res = run("rules", name, "-f", "json")
    assert res.exit_code == 0
    assert json.loads(res.stdout) == PRESETS[name].to_dict()


def test_preset_names_are_case_insensitive():
    res = run("rules", "ShiSanShui", "--format", "json")
    assert res.exit_code == 0
    assert json.loads(res.stdout)["wheel"] == "second"


def test_ruleset_file(tmp_path):
    path = tmp_path / "house.toml"
    path.write_text('base = "capsa"\nscoring = "2-4"\n\n[naturals]\nsix_pairs = 4\n')
    res = run("rules", str(path), "--format", "json")
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data == load_rules(str(path)).to_dict()
    assert data["name"] == "house"
    assert data["scoring"] == "2-4"
    assert data["suit_order"] == "shcd"
    assert data["naturals"] == {"six_pairs": 4}
    res = run("rules", str(path))
    assert res.exit_code == 0
    assert "house" in res.stdout and "six_pairs 4" in res.stdout


def test_ruleset_from_stdin():
    res = run("rules", "-", "-f", "json", input='base = "per-row"\nplayers = 2\n')
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["name"] == "stdin" and data["players"] == 2 and data["scoring"] == "per-row"


@pytest.mark.parametrize(
    ("args", "input", "message"),
    [
        (("rules", "chinese-1-7"), None, "unknown preset 'chinese-1-7' (did you mean"),
        (("rules", "missing.toml"), None, "ruleset file not found"),
        (("rules", "-"), "scoring = 5\n", "scoring must be one of"),
        (("rules", "-"), "scoring = \n", "stdin: not valid TOML"),
        (("rules", "-"), "colour = 1\n", "unknown key 'colour'"),
    ],
)
def test_errors_are_one_line_on_stderr_exit_2(args, input, message):
    res = run(*args, input=input)
    assert res.exit_code == 2
    assert res.stdout == ""
    assert message in res.stderr
    assert res.stderr.startswith("capsa: error: ")
    assert len(res.stderr.strip().splitlines()) == 1
    assert "Traceback" not in res.stderr


def test_bad_file_contents(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text('royalty_mode = "sometimes"\n')
    res = run("rules", str(path))
    assert res.exit_code == 2
    assert res.stderr.strip() == (
        "capsa: error: bad.toml: royalty_mode must be one of 'winner', 'cancel', 'always', "
        "got 'sometimes'"
    )


def test_bad_format_is_a_usage_error():
    res = run("rules", "capsa", "--format", "xml")
    assert res.exit_code == 2


def test_has_help_and_imports_no_numba():
    res = run("rules", "--help")
    assert res.exit_code == 0
    assert "List the rule presets" in res.stdout
    code = (
        "import sys\n"
        "from typer.testing import CliRunner\n"
        "from solver.cli import app\n"
        "res = CliRunner().invoke(app, ['rules', 'capsa'])\n"
        "assert res.exit_code == 0, res.output\n"
        "assert 'numba' not in sys.modules\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_royalties_dealt_is_shown_and_round_trips(tmp_path):
    """docs/rules.md#royalties-for-dealt-cards: `capsa rules` shows the key, off or on."""
    res = capsa_in("rules", "chinese-1-6")
    assert res.returncode == 0, res.stderr
    line = next(x for x in res.stdout.splitlines() if x.split()[:1] == ["royalties_dealt"])
    assert line.split()[1] == "no"
    path = tmp_path / "dealt.toml"
    path.write_text('base = "chinese-2-4"\nroyalties_dealt = true\n')
    res = capsa_in("rules", str(path))
    assert res.returncode == 0, res.stderr
    line = next(x for x in res.stdout.splitlines() if x.split()[:1] == ["royalties_dealt"])
    assert line.split()[1] == "yes"
    assert load_rules(str(path)).digest() in res.stdout
    res = capsa_in("rules", str(path), "--format", "json")
    data = json.loads(res.stdout)
    assert data["royalties_dealt"] is True
    # the ruleset written as TOML (to_toml) and read back from stdin is the same ruleset
    res = capsa("rules", "-", "--format", "json", input=to_toml(load_rules(str(path))))
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout) == data


@pytest.mark.parametrize(
    ("value", "shown"), [('"yes"', "'yes'"), ("1", "1"), ("[true]", "an array")]
)
def test_bad_royalties_dealt_is_one_line_exit_2(tmp_path, value, shown):
    path = tmp_path / "bad.toml"
    path.write_text(f"royalties_dealt = {value}\n")
    res = capsa_in("rules", str(path))
    assert res.returncode == 2
    assert res.stdout == ""
    assert res.stderr.strip() == (
        f"capsa: error: bad.toml: royalties_dealt must be true or false, got {shown}"
    )
