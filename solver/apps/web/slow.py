"""Monte Carlo answers of ``capsa serve`` in processes of their own (docs/serve.md: many
players).

A Monte Carlo solve takes a core for a second or so, and its Python parts (dealing,
finding the candidates, building the answer) hold the interpreter lock between its
kernels. Run on a thread of the worker that serves the page, it slows the worker's
event loop and its quick answers twice over: they wait for a core, and then for the
lock, which a thread of low priority may hold while it waits for a core itself. So a
worker of ``capsa serve`` hands its Monte Carlo solves to a small pool of processes
(``SolvePool``: as many as the slow lane has threads), loaded and warmed before the
worker serves, then at the lowest priority: ``nice`` 19 and, on Linux, the ``SCHED_IDLE``
policy, under which its threads weigh almost nothing beside any other (3 against a
nice-0 thread's 1,024; a nice value alone still gives every low thread a share: eight
threads at nice 19 weigh as much as one at nice 10). The quick answers and the event
loop never wait for them.

The request is read and checked in the worker (``api.solve_options``), so its errors
are the worker's; the process solves it and sends back ``Solution.to_dict()``. Each
process keeps the request's deadline itself (a run still going then is stopped between
chunks, ``Stopped``), ignores Ctrl-C (the worker ends the processes when it stops, and
a process whose worker has gone ends itself), and a process that dies is replaced.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from solver.apps.web.api import SolveRequest
from solver.apps.web.fair import Refused

__all__ = ["SolvePool"]


def _orphaned(parent: int) -> None:
    """End this process once its worker has gone (killed, say: nobody else would)."""
    while os.getppid() == parent:
        time.sleep(1)
    os._exit(1)


def _start(nice: int) -> None:
    """A pool process starts: deaf to Ctrl-C, ended with its worker, warmed, then below
    the worker's priority (the threads of every solve after it inherit it)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.Thread(target=_orphaned, args=(os.getppid(),), daemon=True).start()
    from solver.apps.web.app import WARM_HAND
    from solver.strategy.solving.solve import solve

    solve(WARM_HAND, policy="mc", samples=300, seed=0)
    if nice > 0:
        with contextlib.suppress(OSError):
            os.nice(nice)
        with contextlib.suppress(OSError, AttributeError):  # Linux: run only on idle cores
            os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))


def _ending(pid: int | None) -> bool:
    """Whether process ``pid``'s first thread has ended (Linux's ``/proc``: a zombie or
    dead) though the process cannot be reaped yet; False where there is no ``/proc``."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read(4096)
    except OSError:
        return False
    return stat[stat.rfind(b")") + 2 : stat.rfind(b")") + 3] in (b"Z", b"X")


def _pid() -> int:
    time.sleep(0.05)  # long enough that a call waiting for a process still warming finds it
    return os.getpid()


def _solve(request: SolveRequest, deadline: float) -> dict[str, Any]:
    """In a pool process: the answer, stopped at ``deadline`` (``time.monotonic``, one
    clock for every process of the machine)."""
    from solver.strategy.solving.solve import solve
    from solver.strategy.threads import Stopped

    left = deadline - time.monotonic()
    if left <= 0:
        raise Stopped
    stop = threading.Event()
    timer = threading.Timer(left, stop.set)
    timer.daemon = True
    timer.start()
    try:
        return solve(request.hand, request.rules, request.options, stop=stop).to_dict()
    finally:
        timer.cancel()


class SolvePool:
    """``processes`` processes solving Monte Carlo requests, ``nice`` below the worker."""

    def __init__(self, processes: int, nice: int = 19) -> None:
        import multiprocessing

        self.processes = max(1, processes)
        self.nice = nice
        self._ctx = multiprocessing.get_context("spawn")
        self._lock = threading.Lock()
        self._executor: ProcessPoolExecutor | None = None
        self.started = self.closed = False

    def _pool(self) -> ProcessPoolExecutor:
        with self._lock:
            if self.closed:
                raise BrokenProcessPool("the pool is closed")
            if self._executor is None:
                self._executor = ProcessPoolExecutor(
                    self.processes, self._ctx, initializer=_start, initargs=(self.nice,)
                )
            return self._executor

    def start(self) -> list[int]:
        """Start and warm every process (before the worker serves; once); their ids."""
        seen: set[int] = set()
        while not self.started:  # until each process has answered (so it is warm)
            pool = self._pool()
            seen |= {f.result() for f in [pool.submit(_pid) for _ in range(self.processes)]}
            self.started = len(seen) >= self.processes
        return self.pids()

    def pids(self) -> list[int]:
        """The processes' ids (for the memory a worker holds in all)."""
        ex = self._executor
        procs = getattr(ex, "_processes", None) or {}
        return sorted(p.pid for p in list(procs.values()) if p.pid is not None)

    def solve(self, request: SolveRequest, deadline: float) -> dict[str, Any]:
        """The answer of ``request`` from a pool process (waited for on this thread).
        ``Stopped`` when the pool is closed (the server stops); a pool whose process
        died is made again (warmed) for this answer (also when the pool has not noticed
        yet), or, when one dies under this answer, for the next, and this one is refused
        (503, ``Retry-After``)."""
        from solver.strategy.threads import Stopped

        for _ in range(2):
            pool = self._pool_or_stopped()
            if self._lost_one(pool):  # died before this answer: not this answer's loss
                self._drop(pool)
                continue
            try:
                future: Future[dict[str, Any]] = pool.submit(_solve, request, deadline)
            except BrokenProcessPool:  # a process died while it waited: a new pool
                self._drop(pool)
                continue
            try:
                return future.result()
            except BrokenProcessPool:
                self._drop(pool)
                if self.closed:
                    raise Stopped from None
                raise Refused(
                    "the process solving this answer stopped; ask again", 503, 1
                ) from None
        raise Stopped

    @staticmethod
    def _lost_one(pool: ProcessPoolExecutor) -> bool:
        """Whether a process of ``pool`` has ended or is ending (the pool has not yet
        noticed: an answer given to it now would be refused with the others). On Linux a
        killed process's first thread is a zombie a few milliseconds before the process
        can be reaped (its other threads are still ending): that one is ending."""
        procs = getattr(pool, "_processes", None) or {}
        return any(p.exitcode is not None or _ending(p.pid) for p in list(procs.values()))

    def _pool_or_stopped(self) -> ProcessPoolExecutor:
        from solver.strategy.threads import Stopped

        try:
            return self._pool()
        except BrokenProcessPool:
            raise Stopped from None

    def _drop(self, pool: ProcessPoolExecutor) -> None:
        """Forget a broken pool (the next answer makes a new one)."""
        with self._lock:
            if self._executor is pool:
                self._executor = None
        pool.shutdown(wait=False, cancel_futures=True)

    def close(self) -> None:
        """End the processes now (their running answers are given up)."""
        with self._lock:
            self.closed = True
            ex, self._executor = self._executor, None
        if ex is None:
            return
        procs = list((getattr(ex, "_processes", None) or {}).values())
        ex.shutdown(wait=False, cancel_futures=True)
        for p in procs:
            with contextlib.suppress(Exception):
                p.terminate()
