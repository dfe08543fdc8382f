"""Sweeps sampled by default, whole in the slow run (docs/architecture.md#tests).

A test marked ``@pytest.mark.sampled`` is a sweep over a product of parameters (a page's
size × its language × the rows swapped, say). By default it runs on a sample of its
cases in which every value of every parameter appears at least once (the first case of
the collection order that covers the most values not yet covered, again until none is
left); the other cases are marked ``slow``, so ``-m slow`` (CI's second step) runs them.
A case's claim is the same at every point of the product, and each value's own part of
it (a language's words, a phone's width, a pair of rows) is checked by default, once.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import pytest

MARK = "sampled"


def cover(cases: Sequence[dict[str, Any]]) -> list[int]:
    """The indices of a sample of ``cases`` (each its parameters' values by name) in
    which every (name, value) that any case has appears: greedily the case adding the
    most pairs not yet in the sample (the first such in order), until none adds any.
    Values are compared by ``repr``, so unhashable ones count too."""
    pairs = [{(k, repr(v)) for k, v in c.items()} for c in cases]
    left = set().union(*pairs) if pairs else set()
    chosen: list[int] = []
    while left:
        best = max(range(len(pairs)), key=lambda i: (len(pairs[i] & left), -i))
        chosen.append(best)
        left -= pairs[best]
    return sorted(chosen)


def mark_sampled(items: Iterable[pytest.Item]) -> int:
    """Mark ``slow`` the cases of each ``sampled`` test that its sample leaves out; how
    many were. A case marked ``slow`` already is not one of the default run's, so it is
    not in the sample either."""
    sweeps: dict[str, list[pytest.Item]] = {}
    for item in items:
        marked = item.get_closest_marker(MARK) is not None
        if marked and hasattr(item, "callspec") and item.get_closest_marker("slow") is None:
            sweeps.setdefault(item.nodeid.split("[", 1)[0], []).append(item)
    left_out = 0
    for cases in sweeps.values():
        kept = set(cover([c.callspec.params for c in cases]))
        for i, case in enumerate(cases):
            if i not in kept:
                case.add_marker(pytest.mark.slow)
                left_out += 1
    return left_out
