"""solver.strategy.threads: chunked kernels on threads, and one job in the background."""

from __future__ import annotations

import contextvars
import threading
import time

import pytest

from solver.strategy.threads import Stopped, in_background, run_ranges

VAR: contextvars.ContextVar[str] = contextvars.ContextVar("VAR", default="unset")


def test_in_background_returns_the_value_and_sees_the_callers_context():
    VAR.set("caller")
    seen = []

    def job(halt):
        seen.append((VAR.get(), threading.current_thread() is threading.main_thread()))
        return 42

    with in_background(job) as result:
        assert result() == 42
    assert seen == [("caller", False)]


def test_in_background_raises_the_jobs_error_in_the_caller():
    def job(halt):
        raise ValueError("bad job")

    with in_background(job) as result, pytest.raises(ValueError, match="bad job"):
        result()


def _long_job(done: list):
    def job(halt):
        out = []

        def chunk(lo, hi):
            time.sleep(0.02)
            out.append(lo)

        try:
            run_ranges(chunk, 10_000, chunk=1, max_threads=2, stop=halt)
        finally:
            done.append(len(out))
        return len(out)

    return job


def test_leaving_the_block_early_stops_the_job_before_it_returns():
    """An error in the caller's block sets halt: the job stops within a chunk, and the
    block is not left while it runs (no thread outlives it)."""
    done: list[int] = []
    t0 = time.perf_counter()
    with pytest.raises(KeyError), in_background(_long_job(done)):
        time.sleep(0.1)
        raise KeyError("caller failed")
    assert done and done[0] < 100  # stopped early: 10,000 chunks would take 100 s
    assert time.perf_counter() - t0 < 5
    assert not [t for t in threading.enumerate() if t.name == "capsa-background"]


def test_the_callers_stop_reaches_the_job():
    done: list[int] = []
    stop = threading.Event()
    with in_background(_long_job(done), stop) as result:
        time.sleep(0.1)
        stop.set()
        with pytest.raises(Stopped):
            result()
    assert done and done[0] < 100


def test_ctrl_c_while_waiting_for_the_result_stops_the_job():
    """Ctrl-C in the caller while it waits: the job is stopped and waited for before the
    KeyboardInterrupt leaves the block (Python 3.11's Thread.join, interrupted, would
    call the thread finished and leave it running)."""
    import os
    import signal

    done: list[int] = []
    threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT)).start()
    with pytest.raises(KeyboardInterrupt), in_background(_long_job(done)) as result:
        result()
    assert done and done[0] < 100
    assert not [t for t in threading.enumerate() if t.name == "capsa-background"]
