"""`capsa strength`: the paired per-hand comparison of policies (solver.apps.strength)."""

from __future__ import annotations

import json

import pytest

from solver.apps.strength import compare_policies
from solver.engine.errors import InputError
from solver.engine.options import SolveOptions
from solver.engine.rules import load_rules
from tests.helpers import capsa, capsa_in

#: ``capsa strength`` (``helpers.capsa_in``: in the test's process).
STRENGTH = ["strength"]


def test_gains_are_paired_differences_of_the_policies_values():
    report = compare_policies(
        n_hands=6, rules="chinese-2-4", options=SolveOptions(players=2, samples=200),
        policies=("mc", "field", "greedy"), eval_deals=20, seed=3,
    )  # fmt: skip
    d = report.to_dict()
    means = {p: v["mean"] for p, v in d["policies"].items()}
    for pair, g in d["gains"].items():
        a, b = pair.split("-")
        assert g["mean"] == pytest.approx(means[a] - means[b], abs=1e-12)
        lo, hi = g["ci95"]
        assert lo <= g["mean"] <= hi and g["stderr"] >= 0
        assert 0 <= g["differ"] <= 1
    # greedy is far weaker than the best response: every hand it differs, it loses
    assert d["gains"]["mc-greedy"]["mean"] > 0.3
    # the same seed gives the same figures
    again = compare_policies(
        n_hands=6, rules="chinese-2-4", options=SolveOptions(players=2, samples=200),
        policies=("mc", "field", "greedy"), eval_deals=20, seed=3,
    )  # fmt: skip
    assert again.to_dict() == d


def test_cli_strength_json_and_bad_input():
    run = capsa_in(*STRENGTH, "--hands", "4", "--samples", "100", "--eval-deals", "10",
                   "--players", "2", "--against", "greedy", "--format", "json")  # fmt: skip
    assert run.returncode == 0, run.stderr
    d = json.loads(run.stdout)
    assert set(d["gains"]) == {"mc-greedy"} and d["hands"] == 4 and d["samples"] == 100
    bad = capsa_in(*STRENGTH, "--hands", "4", "--against", "best")
    assert bad.returncode == 2 and "policies must be" in bad.stderr
    assert len(bad.stderr.strip().splitlines()) == 1
    with pytest.raises(InputError, match="hands must be"):
        compare_policies(n_hands=1)


def test_tables_compare_field_tables_on_the_same_hands(tmp_path):
    """--tables plays the field strategy with other tables beside the ruleset's own: the
    same tables again differ on no hand and gain exactly nothing; tables without the
    corrections (a version 1 file) set hands differently."""
    from solver.engine.compiled import compile_rules
    from solver.strategy.field_model.field import save_field, tables_from_dist
    from solver.strategy.field_model.trained import field_override, get_field

    cr = compile_rules(load_rules("chinese-2-4"))
    own = get_field(cr)
    save_field(own, tmp_path / "same.npz")
    save_field(tables_from_dist(own.dist, cr, meta=dict(own.meta)), tmp_path / "plain.npz")
    # a process: in this one, get_field's tables must stay the ones read above (below)
    run = capsa(*STRENGTH, "--rules", "chinese-2-4", "--hands", "12", "--samples", "100",
                "--eval-deals", "20", "--players", "2", "--tables", str(tmp_path / "same.npz"),
                "--tables", str(tmp_path / "plain.npz"), "--format", "json")  # fmt: skip
    assert run.returncode == 0, run.stderr
    d = json.loads(run.stdout)
    assert set(d["policies"]) == {"mc", "field", "field@same", "field@plain"}
    same = d["gains"]["field-field@same"]
    assert same["mean"] == 0 and same["differ"] == 0
    assert d["gains"]["field-field@plain"]["differ"] > 0
    # in process, the override holds for the block only, even when it raises
    other = tables_from_dist(own.dist, cr)
    with pytest.raises(RuntimeError), field_override(cr, other):
        assert get_field(cr) is other
        assert get_field(compile_rules(load_rules("chinese-1-6"))) is not other
        raise RuntimeError
    assert get_field(cr) is own
    (tmp_path / "junk.npz").write_text("not a table")
    for path, says in ((tmp_path / "junk.npz", "is not a field table file"),
                       (tmp_path / "missing.npz", "cannot read")):  # fmt: skip
        bad = capsa_in(*STRENGTH, "--hands", "2", "--tables", str(path))
        assert bad.returncode == 2 and says in bad.stderr, bad.stderr
        assert len(bad.stderr.strip().splitlines()) == 1
