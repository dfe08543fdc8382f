"""solver.apps.batch.backends: in process, the process pool, workers dying with the parent."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from solver.apps.batch import backends as K
from solver.apps.batch.work import Job, solve_chunk
from solver.engine.rules import load_rules
from tests.helpers import batch_job

HAND = "As Ks Qs Js Ts 9h 9d 9c 2s 3d 4c 5h 7d"
ROOT = Path(__file__).resolve().parent.parent
needs_proc = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")


def sleepy_solve(hand, *args, **kw):
    """A solve_fn that never finishes in time (top-level: it pickles)."""
    time.sleep(120)


def failing_solve(hand, *args, **kw):
    raise RuntimeError("a bug")


def job(**kw) -> Job:
    base = dict(
        rules=load_rules("chinese-1-6"),
        policy="field",
        samples=None,
        seed=0,
        players=4,
        fmt="jsonl",
        csv_spec=None,
        skip_upto=0,
    )
    return batch_job(**{**base, **kw})


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


def wait_gone(pid: int, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    return not alive(pid)


def test_inline_runs_at_submit_and_keeps_errors_in_the_future():
    items = [(1, HAND.encode()), (2, b"bad")]
    runner = K.Inline()
    fut = runner.submit(job(), items)
    assert runner.wait([fut], 0) == {fut} and fut.done()
    assert fut.result() == solve_chunk(job(), items)
    boom = runner.submit(job(policy="mc", samples=24, solve_fn=failing_solve), items)
    with pytest.raises(RuntimeError, match="a bug"):
        boom.result()
    runner.close(False)
    assert K.Inline.died == ()


def test_make_backend():
    assert isinstance(K.make_backend(None, 1), K.Inline)
    pool = K.make_backend(None, 2)
    try:
        assert isinstance(pool, K.Pool) and pool.slots == 2
    finally:
        pool.close(False)


@pytest.mark.parametrize(("env", "workers"), [("", os.cpu_count() or 1), ("1", 1), (" 3 ", 3)])
def test_the_workers_a_run_names_none_of(env, workers, monkeypatch, tmp_path):
    """A batch that names no ``--workers`` runs ``CAPSA_WORKERS`` of them when set, else
    one a core; one it names is its own."""
    from solver.apps.batch import run as R

    seen = []

    def backend(dask, n):  # noqa: ANN001, ANN202 - make_backend's
        seen.append(n)
        return K.Inline()

    monkeypatch.setattr(R, "make_backend", backend)
    monkeypatch.setenv("CAPSA_WORKERS", env)
    (tmp_path / "h.txt").write_text(HAND + "\n")
    R.run_batch(tmp_path / "h.txt", tmp_path / "a.jsonl", policy="field")
    R.run_batch(tmp_path / "h.txt", tmp_path / "b.jsonl", policy="field", workers=2)
    assert seen == [workers, 2]


@pytest.mark.parametrize("env", ["0", "two", "-1", "1.5"])
def test_workers_that_are_not_a_count_are_refused_in_one_line(env, tmp_path):
    """The real command: a ``CAPSA_WORKERS`` that is not a whole number of at least 1
    is one line naming it, exit code 2, and nothing written."""
    from tests.helpers import capsa

    (tmp_path / "h.txt").write_text(HAND + "\n")
    res = capsa("batch", "h.txt", "-o", "out.jsonl", "--policy", "field", cwd=tmp_path,
                env={"CAPSA_WORKERS": env})  # fmt: skip
    assert res.returncode == 2
    assert res.stderr == (
        f"capsa: error: CAPSA_WORKERS must be a whole number of at least 1, got {env!r}\n"
    )
    assert not (tmp_path / "out.jsonl").exists()


LEAF = """
import os, sys, time
sys.path.insert(0, {root!r})
from solver.apps.batch.backends import die_with_parent
die_with_parent(os.getppid(), 0.1, pdeathsig={pdeathsig})
open({ready!r}, "w").close()
time.sleep(120)
"""
MIDDLE = """
import subprocess, sys, time
leaf = subprocess.Popen([sys.executable, "-c", sys.argv[1]])
print(leaf.pid, flush=True)
time.sleep(120)
"""


@needs_proc
@pytest.mark.parametrize("pdeathsig", [True, False], ids=["pdeathsig", "watchdog"])
def test_a_worker_dies_with_its_parent(tmp_path, pdeathsig):
    ready = tmp_path / "ready"
    leaf_code = LEAF.format(root=str(ROOT), pdeathsig=pdeathsig, ready=str(ready))
    middle = subprocess.Popen(
        [sys.executable, "-c", MIDDLE, leaf_code], stdout=subprocess.PIPE, text=True
    )
    leaf = int(middle.stdout.readline())
    try:
        deadline = time.monotonic() + 60
        while not ready.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert ready.exists() and alive(leaf)
        middle.kill()
        middle.wait()
        assert wait_gone(leaf, 5), "the leaf outlived its parent"
    finally:
        middle.kill()
        middle.stdout.close()
        if alive(leaf):
            os.kill(leaf, signal.SIGKILL)


def test_pool_close_with_cancel_does_not_wait_for_the_chunk():
    pool = K.Pool(1)
    fut = pool.submit(job(policy="mc", samples=24, solve_fn=sleepy_solve), [(1, HAND.encode())])
    time.sleep(1)
    started = time.monotonic()
    pool.close(True)
    assert time.monotonic() - started < 60  # the chunk would sleep 120 s
    assert fut.done()


@needs_proc
def test_pool_reports_a_dead_worker():
    pool = K.Pool(1)
    try:
        fut = pool.submit(job(policy="mc", samples=24, solve_fn=sleepy_solve), [(1, b"x")])
        deadline = time.monotonic() + 60
        while not pool.pool._processes and time.monotonic() < deadline:
            time.sleep(0.05)
        (pid,) = list(pool.pool._processes)
        time.sleep(1)
        os.kill(pid, signal.SIGKILL)
        with pytest.raises(pool.died):
            fut.result(timeout=60)
    finally:
        pool.close(True)
