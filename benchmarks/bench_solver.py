"""Solver speed: splits pass, field and greedy setting, Monte Carlo solve, batch."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize(
    "name",
    [
        "splits",
        "pareto",
        "greedy",
        "field",
        "mc1000",
        "mc3000",
        "mc_home_run",
        "batch",
        "played",
        "report",
    ],
)
def test_solver(measure, name):
    result = measure(name)
    assert result.rate > 0
