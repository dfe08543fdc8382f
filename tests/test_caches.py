"""What the program keeps in memory is owned by one ``Cache`` per concern
(solver.engine.caches): clearing one concern's cache leaves every other's as it was,
and answers are the same after a clear; no other module-level cache is left."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest

import solver
from solver.apps.batch import pinned
from solver.engine.caches import Cache, caches
from solver.engine.compiled import compile_rules
from solver.engine.rules import load_rules
from solver.strategy.field_model import trained
from solver.strategy.opposition import opponents, pool

ROOT = Path(__file__).resolve().parent.parent
HAND = "As Kd Qh Jc Ts 9d 8h 7c 6s 5d 4h 3c 2s"

#: Module-level mutable state under solver/ that is not a cache, and why.
NOT_CACHES = {
    ("solver/engine/caches.py", "_ALL"),  # the list of caches itself
    # field_override's tables, for a block
    ("solver/strategy/field_model/trained.py", "_OVERRIDES"),
}


def test_each_concern_has_its_own_cache():
    got = caches()
    for cache in (pool.POOL_KEYS, pool.OPEN_POOLS, pool.WARNED, opponents.MODELS,
                  trained.FIELDS, pinned.RUN_POOLS, pinned.RUN_MODELS):  # fmt: skip
        assert got[cache.concern] is cache
    assert len({id(c) for c in got.values()}) == len(got)


def test_clearing_one_concern_leaves_the_others_and_the_answers():
    cr = compile_rules(load_rules("chinese-1-6"))
    before = solver.solve(HAND, policy="field").to_dict()
    key = pool.pool_key(cr)
    tables = trained.get_field(cr)
    assert len(pool.POOL_KEYS) and len(trained.FIELDS)

    pool.POOL_KEYS.clear()
    assert len(pool.POOL_KEYS) == 0
    assert trained.FIELDS.get(cr.rules) is tables  # the field tables are still held
    assert pool.pool_key(cr) == key  # worked out again, the same
    assert len(pool.POOL_KEYS) == 1

    trained.FIELDS.clear()
    assert trained.FIELDS.get(cr.rules) is None
    assert len(pool.POOL_KEYS) == 1  # the pool keys are still held
    again = trained.get_field(cr)
    assert again is not tables and np.array_equal(again.fx, tables.fx)
    assert solver.solve(HAND, policy="field").to_dict() == before


def test_a_cache_keeps_at_most_its_limit_the_oldest_going_first():
    c: Cache[int, str] = Cache("test: three at most", 3)
    other: Cache[int, str] = Cache("test: another concern", 3)
    other.put(1, "kept")
    made = []
    for i in range(5):
        assert c.get(i, lambda i=i: made.append(i) or str(i)) == str(i)
    assert c.get(0) is None and c.get(1) is None and [c.get(i) for i in (2, 3, 4)] == list("234")
    assert c.get(4, lambda: "never") == "4" and made == [0, 1, 2, 3, 4]
    c.clear()
    assert len(c) == 0 and other.get(1) == "kept"
    with pytest.raises(ValueError, match="two caches for one concern"):
        Cache("test: another concern", 3)


def _module_level_dicts(path: Path) -> list[str]:
    """Names bound at module level to an empty dict (``{}`` or ``dict()``): a cache."""
    out = []
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        else:
            continue
        empty = (isinstance(value, ast.Dict) and not value.keys) or (
            isinstance(value, ast.Call) and getattr(value.func, "id", "") in ("dict", "OrderedDict")
        )
        if empty:
            out += [t.id for t in targets if isinstance(t, ast.Name)]
    return out


def test_no_module_keeps_a_cache_of_its_own():
    found = {
        (str(p.relative_to(ROOT)), name)
        for p in sorted((ROOT / "solver").rglob("*.py"))
        for name in _module_level_dicts(p)
    }
    assert found - NOT_CACHES == set()


def test_the_check_finds_a_module_level_cache(tmp_path):
    p = tmp_path / "m.py"
    p.write_text("_SEEN: dict[str, int] = {}\nTABLE = {'a': 1}\n_B = dict()\n")
    assert _module_level_dicts(p) == ["_SEEN", "_B"]
