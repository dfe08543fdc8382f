"""Solver speed: splits pass, field and greedy setting, Monte Carlo solve (dealt and from
the opponent pool), the pool's build, batch (field and mc)."""

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
        "mc_pool",
        "mc_presets",
        "mc_opponents",
        "pool_build",
        "mc_home_run",
        "batch",
        "batch_mc",
        "batch_mc_home_run",
        "played",
        "report",
    ],
)
def test_solver(measure, name):
    result = measure(name)
    assert result.rate > 0
