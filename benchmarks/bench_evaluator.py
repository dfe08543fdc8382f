"""Evaluator throughput: 5-card and 3-card lookups, the 13-card subset pass; comparisons."""

from __future__ import annotations

import pytest

from solver.apps import bench


@pytest.mark.parametrize("name", ["eval5", "eval3", "subset_pass"])
def test_evaluator(measure, name):
    result = measure(name)
    assert result.rate > 0


@pytest.mark.parametrize("name", ["evaluate5", "evaluate3"])
def test_public_evaluator(measure, name):
    """The public call (ids checked in the kernel) next to the bare kernel, same rounds;
    the ratio and the 0.8x target are in extra_info."""
    result = measure(name)
    assert result.rate > 0 and result.extra["kernel_rate"] > 0


def test_eval5_jokers(measure):
    """Rows holding jokers against the same rows without, same rounds (issue 32: at most
    2x); the ratio is in extra_info."""
    result = measure("eval5_jokers")
    assert result.rate > 0 and result.extra["plain_rate"] > 0


@pytest.mark.parametrize("library", bench.COMPARE_LIBRARIES)
def test_compare(measure, library):
    """Other libraries' public 5-card evaluation on the same rows (``capsa[compare]``)."""
    result = measure(f"compare:{library}")
    assert result.extra["same_order"]
