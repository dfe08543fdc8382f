"""What the tests build once a run and share (tests/shared.py) is what each test would
have built: a shared pool is the pool ``build_pool`` writes, under the name it gives
(every array the same; only the time it was built, in its header, differs), and a second
test asking for it copies it instead of building it again."""

from __future__ import annotations

import numpy as np
import pytest

from solver.engine.compiled import compile_rules
from solver.engine.rules import load_rules
from solver.strategy.opposition import pool as PL
from tests import shared


def test_a_shared_pool_is_the_pool_build_pool_writes(tmp_path, monkeypatch):
    cr = compile_rules(load_rules("capsa"))
    monkeypatch.setenv("CAPSA_POOL_DIR", str(tmp_path / "own"))
    own = PL.build_pool(cr, 2_000)
    got = shared.pool(cr, 2_000, tmp_path / "copy")
    assert got.name == own.path.name and got.stat().st_size == own.path.stat().st_size
    pool = PL.open_pool(got)
    assert pool.key == own.key and pool.size == own.size == 2_000
    for name in ("keys", "split", "roy_id", "nat", "foul", "roy_table", "nat_at", "nat_key",
                 "masks"):  # fmt: skip
        assert np.array_equal(getattr(pool, name), getattr(own, name)), name

    def built_again(*args, **kw):
        raise AssertionError("the shared pool was built again")

    monkeypatch.setattr(PL, "build_pool", built_again)
    again = shared.pool(cr, 2_000, tmp_path / "again")
    assert again.read_bytes() == got.read_bytes()
    with pytest.raises(AssertionError, match="built again"):
        shared.pool(cr, 2_001, tmp_path / "other")  # another size: another pool
