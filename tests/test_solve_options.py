"""The one solve request (``solver.engine.options.SolveOptions``): its one check, the
keyword front of ``solve`` beside the options form, and the front ends (the CLI, the web
API, batch) building the same options for the same inputs."""

from __future__ import annotations

import dataclasses
import json

import pytest
from starlette.testclient import TestClient
from typer.testing import CliRunner

from solver import SolveOptions, solve
from solver.engine.errors import InputError
from solver.engine.options import DEFAULT_SAMPLES, DEFAULT_TOP, MAX_SAMPLES
from solver.engine.table_shape import TABLE_MAX_PLAYERS
from tests.helpers import capsa

HAND = "As Ks Qs Js Ts 9h 9d 9c 2s 3d 4c 5h 7d"
runner = CliRunner()


@pytest.mark.parametrize(
    ("field", "bad"),
    [
        ("players", TABLE_MAX_PLAYERS + 1),  # up to 6: the ruleset's deck decides
        ("players", 1),
        ("samples", 0),
        ("samples", MAX_SAMPLES + 1),
        ("samples", 2.5),
        ("seed", -1),
        ("seed", True),
        ("top", -1),
        ("top", "3"),
        ("policy", "best"),
        ("top_by", "luck"),
        ("stakes", "100,10,10"),
        ("against", "Ah Kh Qh | ..."),
        ("played", 7),
        ("pool", 3.5),
        ("opponents", 2),
    ],
)
def test_check_refuses_each_bad_field_in_one_line_naming_it(field, bad):
    with pytest.raises(InputError) as err:
        SolveOptions(**{field: bad}).check()
    message = str(err.value)
    assert message.startswith(f"{field} must ") and "\n" not in message


def test_every_field_has_a_check_and_the_defaults_are_the_limits_modules():
    opts = SolveOptions()
    assert opts.check() == opts and opts.top == DEFAULT_TOP
    assert SolveOptions(policy="mc").mc_samples == DEFAULT_SAMPLES
    assert SolveOptions(policy="field").mc_samples is None
    assert SolveOptions(against=["x"]).mc_samples is None  # exact: nothing sampled


def test_checked_options_are_checked_once_and_a_change_again():
    checked = SolveOptions(samples=10).check()
    assert checked.checked and checked.check() is checked
    assert checked.evolve(seed=3).checked  # batch: each line's seed, no second check
    with pytest.raises(InputError, match="^seed must be"):
        checked.evolve(seed=-3)  # a changed field is checked all the same
    assert not dataclasses.replace(checked, seed=3).checked
    import numpy as np

    assert type(SolveOptions(samples=np.int64(5)).check().samples) is int


@pytest.mark.parametrize(
    "keywords",
    [
        {"samples": 120, "seed": 4, "top": 2},
        {"policy": "field", "top_by": "value", "top": 5},
        {"policy": "greedy", "played": "9h 9c 7d | As 5h 4c 3d 2s | Ks Qs Js Ts 9d"},
        {"against": ["2h 3h 4h | 5c 6c 7c 8c Tc | Jd Qd Kd Ad 2d"], "stakes": [10]},
        {"samples": 60, "seed": 9, "pool": False, "players": 3, "stakes": [1, 5]},
    ],
)
def test_the_keyword_front_and_the_options_form_give_the_same_solution(keywords):
    a = solve(HAND, "chinese-1-6", **keywords)
    b = solve(HAND, "chinese-1-6", SolveOptions(**keywords))
    assert a == b and a.to_dict() == b.to_dict()


def test_solve_takes_the_options_or_keywords_not_both():
    with pytest.raises(TypeError, match="not both"):
        solve(HAND, None, SolveOptions(), samples=10)
    with pytest.raises(TypeError, match="unexpected keyword argument 'sample'"):
        solve(HAND, sample=10)


# --------------------------------------------------------------------------- the fronts


@pytest.fixture
def seen(monkeypatch):
    """The options every ``solver.strategy.solving.solve.solve`` call is given (then solved)."""
    import solver.strategy.solving.solve as S

    real, got = S.solve, []

    def spy(hand, rules=None, options=None, **kw):
        got.append(options if options is not None else SolveOptions(**{
            k: v for k, v in kw.items() if k != "stop"}))  # fmt: skip
        return real(hand, rules, options, **kw)

    monkeypatch.setattr(S, "solve", spy)
    return got


def _web(body: dict) -> dict:
    from solver.apps.web import create_app

    with TestClient(create_app()) as client:
        res = client.post("/api/solve", json=body)
    assert res.status_code == 200, res.text
    return res.json()


def test_the_cli_and_the_web_api_build_the_same_options_and_answer(seen, tmp_path):
    from solver.cli import app as cli_app

    against = tmp_path / "against.txt"
    against.write_text("2h 3h 4h | 5c 6c 7c 8c Tc | Jd Qd Kd Ad 2d\n")
    res = runner.invoke(cli_app, ["solve", HAND, "--policy", "field", "--top", "4", "--top-by",
                                  "value", "--format", "json"])  # fmt: skip
    assert res.exit_code == 0, res.output
    web = _web({"hand": HAND, "policy": "field", "top": 4, "top_by": "value"})
    assert seen[0] == seen[1] and web == json.loads(res.stdout)
    res = runner.invoke(cli_app, ["solve", HAND, "--samples", "80", "--seed", "5", "--stakes",
                                  "1,2,3", "--format", "json"])  # fmt: skip
    assert res.exit_code == 0, res.output
    web = _web({"hand": HAND, "samples": 80, "seed": 5, "stakes": "1,2,3"})
    assert seen[2] == seen[3] and web == json.loads(res.stdout)
    res = runner.invoke(cli_app, ["solve", HAND, "--against", str(against), "--format", "json"])
    web = _web({"hand": HAND, "against": against.read_text()})
    assert seen[4] == seen[5] and web == json.loads(res.stdout)


BATCH_SEEN: list[SolveOptions] = []


def keeping_solve(hand, rules, options):
    """A batch ``solve_fn`` keeping the options each hand is solved with."""
    BATCH_SEEN.append(options)
    return solve(hand, rules, options)


def test_batch_solves_each_line_with_the_options_solve_gets(tmp_path):
    from solver.apps.batch import hand_seed, run_batch

    src = tmp_path / "in.txt"
    src.write_text(f"{HAND}\n")
    out = tmp_path / "out.jsonl"
    BATCH_SEEN.clear()
    run_batch(src, out, policy="mc", samples=50, seed=7, stakes=[1, 2, 3], workers=1,
              fast=False, solve_fn=keeping_solve, pool=False)  # fmt: skip
    line = BATCH_SEEN[-1]  # after the warm-up hands
    cli = SolveOptions(samples=50, seed=hand_seed(7, 1), stakes=[1, 2, 3], top=0, pool=False,
                       players=4).check()  # fmt: skip
    assert dataclasses.replace(line, stakes=list(line.stakes)) == cli
    record = json.loads(out.read_text())
    assert {k: v for k, v in record.items() if k not in ("line", "id")} == solve(
        HAND, None, cli
    ).to_dict()


def test_cli_batch_refuses_too_many_samples_in_one_line():
    res = capsa("batch", "--samples", str(MAX_SAMPLES + 1), "-", input=f"{HAND}\n")
    assert res.returncode == 2 and res.stdout == ""
    (line,) = res.stderr.strip().splitlines()
    assert "--samples" in line and f"{MAX_SAMPLES}" in line


def test_the_web_api_keys_are_the_options_fields():
    from solver.apps.web.api import SOLVE_KEYS

    fields = [f.name for f in dataclasses.fields(SolveOptions) if f.init]
    # the page's table also takes its jokers (docs/rules.md#jokers), a ruleset key
    assert SOLVE_KEYS == ("hand", "rules", *(f for f in fields if f != "pool"), "jokers")
