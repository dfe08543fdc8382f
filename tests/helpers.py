"""What many test files share: the command line run as a user runs it, and hands dealt.

- ``capsa(*args, ...)``: ``python -m solver ARGS`` in a subprocess, this tree's code
  (its root first on ``PYTHONPATH``, whatever the working directory), stdout and
  stderr captured; text (UTF-8) unless ``input`` is bytes or ``text=False``;
- ``random_hands(n, seed)``: ``n`` random 13-card hands, each sorted, uint8[n, 13]
  (the same hands for the same seed in every file that deals them); ``dealt=True``:
  unsorted, as dealt;
- ``batch_job(**kw)``: a batch ``Job`` from flat keywords, its solve options checked.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
#: The command line as a subprocess runs it.
CAPSA = [sys.executable, "-m", "solver"]

__all__ = ["CAPSA", "ROOT", "batch_job", "capsa", "random_hands"]


def capsa(
    *args: str,
    input: str | bytes | None = None,
    cwd: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
    text: bool | None = None,
    timeout: float = 900,
    **run: Any,
) -> subprocess.CompletedProcess:
    """``capsa ARGS`` in a subprocess (module docstring). ``env`` is added to this
    process's environment; other keywords (``stdout``, ``stdin``, ``encoding``) go to
    ``subprocess.run``."""
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)
    run.setdefault("stdout", subprocess.PIPE)
    run.setdefault("stderr", subprocess.PIPE)
    text = not isinstance(input, bytes) if text is None else text
    if text:
        run.setdefault("encoding", "utf-8")
    return subprocess.run(
        [*CAPSA, *args],
        input=input,
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": path, **(env or {})},
        text=text,
        timeout=timeout,
        **run,
    )


def random_hands(n: int, seed: int = 0, *, dealt: bool = False) -> np.ndarray:
    """``n`` random hands, each sorted (uint8[n, 13]): a shuffled deck a hand; ``dealt``:
    in the order dealt (not sorted), from a stream of their own."""
    rng = np.random.default_rng(seed)
    if dealt:
        return np.argsort(rng.random((n, 52)), axis=1)[:, :13].astype(np.uint8)
    return np.sort(
        rng.permuted(np.tile(np.arange(52, dtype=np.uint8), (n, 1)), axis=1)[:, :13], axis=1
    )


#: The fields of a batch ``Job`` that are its solve options (``Job.options``).
_JOB_SOLVE_KEYS = ("policy", "samples", "seed", "players", "stakes")


def batch_job(**kw: Any) -> Any:
    """A batch ``Job`` from flat keywords (``policy``, ``samples``, ``seed``, ``players``
    and ``stakes`` go into its checked ``SolveOptions``, as ``run_batch`` makes them)."""
    from solver.apps.batch.work import Job
    from solver.engine.options import SolveOptions

    solve = {k: kw.pop(k) for k in _JOB_SOLVE_KEYS if k in kw}
    kw.setdefault("csv_spec", None)
    kw.setdefault("skip_upto", 0)
    options = SolveOptions(top=0, pool=False, **solve).check()
    return Job(options=options, **kw)
