"""What several tests (and both pytest-xdist workers) need and building costs seconds of
CPU: built once a run and shared.

- ``pool(cr, size, folder)``: an opponent pool of ``size`` hands of the compiled ruleset
  ``cr``, copied into ``folder`` under its own name (``pool_path``'s), as ``build_pool``
  would have written it there. A pool is fixed by that name (its ruleset's family, the
  key over the code, the ruleset's and the field's arrays, its size) and the pool's seed,
  so the first process of the run that asks builds it into the run's shared folder
  (``CAPSA_TESTS_SHARED``, tests/conftest.py), under a lock, and the others copy it: the
  pool they would have built (the same arrays; only the time it was built, in its
  header, differs: tests/test_shared.py). Tests of building itself (tests/test_cli_pool.py, the
  builds of tests/test_pool.py) still build.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

__all__ = ["pool", "shared_folder"]


def shared_folder(name: str) -> Path:
    """The run's shared folder ``name`` (made on first use)."""
    folder = Path(os.environ["CAPSA_TESTS_SHARED"]) / name
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """Held by one process of the run at a time (``path`` is the lock file)."""
    try:
        import fcntl
    except ImportError:  # no flock: each process may build its own copy, as before
        yield
        return
    with open(path, "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def pool(cr: Any, size: int, folder: str | os.PathLike[str], tables: Any = None) -> Path:
    """The pool of ``size`` hands of ``cr`` (``tables``: a learned model's, as
    ``build_pool`` takes them), copied into ``folder``: its path there."""
    from solver.strategy.opposition import pool as PL

    name = PL.pool_path(cr, None, tables, size).name
    shared = shared_folder("pools")
    built = shared / name
    with _locked(shared / f"{name}.lock"):
        if not built.exists():
            PL.build_pool(cr, size, path=built, tables=tables)
    target = Path(folder) / name
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(built, target)
    return target
