"""tests/sampling.py: a ``sampled`` sweep runs a sample holding every value of every
parameter by default, and every case under ``-m slow``."""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
from pathlib import Path

from tests.sampling import cover, mark_sampled

ROOT = Path(__file__).resolve().parent.parent


def _values(cases, chosen):
    return {(k, repr(v)) for i in chosen for k, v in cases[i].items()}


def test_a_product_is_covered_by_as_many_cases_as_its_longest_axis():
    cases = [{"size": s, "locale": loc, "pair": p}
             for s, loc, p in itertools.product(["desktop", "phone"], ["en", "hr", "bn"],
                                                ["fm", "fb", "mb"])]  # fmt: skip
    chosen = cover(cases)
    assert len(chosen) == 3
    assert _values(cases, chosen) == _values(cases, range(len(cases)))
    assert chosen == sorted(set(chosen))


def test_one_axis_keeps_every_case_and_unhashable_values_count():
    cases = [{"hands": [1, 2]}, {"hands": [1, 3]}, {"hands": [1, 2]}]
    assert cover(cases) == [0, 1]  # the third repeats the first
    assert cover([]) == []
    assert cover([{}, {}]) == []


class _Item:
    def __init__(self, name, params, slow=False):
        self.nodeid = f"t.py::{name}[{'-'.join(map(str, params.values()))}]"
        self.callspec = type("C", (), {"params": params})()
        self.marks = {"sampled"} | ({"slow"} if slow else set())

    def get_closest_marker(self, name):
        return name if name in self.marks else None

    def add_marker(self, mark):
        self.marks.add(mark.name)


def test_the_cases_left_out_are_marked_slow_and_other_tests_are_not_touched():
    sweep = [_Item("sweep", {"a": a, "b": b}) for a, b in itertools.product([1, 2], [1, 2, 3])]
    already = _Item("sweep", {"a": 3, "b": 9}, slow=True)
    other = _Item("other", {"a": 1})
    other.marks.discard("sampled")
    assert mark_sampled([*sweep, already, other]) == 3  # of 6, 3 kept; 1 slow already
    kept = [i for i in sweep if "slow" not in i.marks]
    assert len(kept) == 3  # a: 1, 2; b: 1, 2, 3 (the slow case's a: 3 and b: 9 are not)
    assert {i.callspec.params["a"] for i in kept} == {1, 2}
    assert {i.callspec.params["b"] for i in kept} == {1, 2, 3}
    assert "slow" not in other.marks


def _collected(*marks: str) -> set[str]:
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
         *marks, "tests/test_web_board.py"],
        cwd=ROOT, env={**os.environ}, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert out.returncode == 0, out.stdout + out.stderr
    return {line for line in out.stdout.splitlines() if "::test_any_two_rows_swap[" in line}


def test_the_default_run_collects_the_sample_and_the_slow_run_the_rest():
    """Through pytest's own ``-m``: the hook marks before ``-m`` deselects."""
    default, slow, every = _collected(), _collected("-m", "slow"), _collected("-m", "")
    assert len(every) == 18  # 2 sizes x 3 languages x 3 pairs of rows
    assert default | slow == every and not default & slow
    assert len(default) == 3
    for value in ("desktop", "phone", "en-US", "hr-HR", "bn-BD", "middle back",
                  "front middle", "front back"):  # fmt: skip
        assert any(value in line for line in default), value
