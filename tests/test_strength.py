"""`capsa strength`: the paired per-hand comparison of policies (solver.apps.strength)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from solver.apps.strength import compare_policies
from solver.engine.errors import InputError

CAPSA = [sys.executable, "-m", "solver", "strength"]


def test_gains_are_paired_differences_of_the_policies_values():
    report = compare_policies(
        n_hands=6, rules="chinese-2-4", players=2, policies=("mc", "field", "greedy"),
        samples=200, eval_deals=20, seed=3,
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
        n_hands=6, rules="chinese-2-4", players=2, policies=("mc", "field", "greedy"),
        samples=200, eval_deals=20, seed=3,
    )  # fmt: skip
    assert again.to_dict() == d


def test_cli_strength_json_and_bad_input():
    run = subprocess.run(
        [*CAPSA, "--hands", "4", "--samples", "100", "--eval-deals", "10", "--players", "2",
         "--against", "greedy", "--format", "json"],
        capture_output=True, text=True,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    d = json.loads(run.stdout)
    assert set(d["gains"]) == {"mc-greedy"} and d["hands"] == 4 and d["samples"] == 100
    bad = subprocess.run([*CAPSA, "--hands", "4", "--against", "best"],
                         capture_output=True, text=True)  # fmt: skip
    assert bad.returncode == 2 and "policies must be" in bad.stderr
    assert len(bad.stderr.strip().splitlines()) == 1
    with pytest.raises(InputError, match="hands must be"):
        compare_policies(n_hands=1)
