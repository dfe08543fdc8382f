"""Solver speed: splits pass, field and greedy setting, Monte Carlo solve (dealt and from
the opponent pool; at 4, 5 and 6 players), the pool's build, batch (field and mc; field
at 5 players)."""

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
        "mc_tables",
        "mc_jokers",
        "mc_opponents",
        "pool_build",
        "mc_home_run",
        "batch",
        "batch_mc",
        "batch_mc_home_run",
        "batch_tables",
        "played",
        "report",
    ],
)
def test_solver(measure, name):
    result = measure(name)
    assert result.rate > 0
