"""Where chunks are solved: in process, on a process pool, or on a Dask cluster.

A backend has ``slots`` (how many chunks it works on at once), ``submit(job, items)``
returning a future of a ``ChunkResult``, ``wait(futures, timeout)`` returning the done
ones, and ``close(cancel)``. ``make_backend`` picks one.
"""

from __future__ import annotations

import os
import signal
import sys
import time
from collections.abc import Iterable
from typing import Any

from solver.apps.batch.errors import BatchError
from solver.apps.batch.reading import Line
from solver.apps.batch.work import ChunkResult, Job, default_threads, solve_chunk

__all__ = ["Dask", "Inline", "Pool", "make_backend"]


class Inline:
    """Runs each chunk at submit time (one worker, no pool)."""

    slots = 1

    def __init__(self) -> None:
        self._env = os.environ.get("CAPSA_THREADS")

    def submit(self, job: Job, items: list[Line]) -> Any:
        from concurrent.futures import Future

        fut: Future[ChunkResult] = Future()
        try:
            fut.set_result(solve_chunk(job, items))
        except Exception as exc:  # re-raised by .result(), as from a pool
            fut.set_exception(exc)
        return fut

    def wait(self, futures: Iterable[Any], timeout: float) -> set[Any]:
        return set(futures)

    def close(self, cancel: bool) -> None:
        default_threads(self._env)


def _pool_init() -> None:
    """A worker ignores Ctrl-C (the parent stops the run) and says on stderr when it
    compiles the kernels, as the command does."""
    import logging

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    log = logging.getLogger("capsa")
    if not log.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("capsa: %(message)s"))
        log.addHandler(handler)
        log.setLevel(logging.INFO)
        log.propagate = False


class Pool:
    """A ``ProcessPoolExecutor`` of spawned workers."""

    def __init__(self, workers: int):
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        self.slots = workers
        self.pool = ProcessPoolExecutor(
            workers, mp_context=multiprocessing.get_context("spawn"), initializer=_pool_init
        )

    def submit(self, job: Job, items: list[Line]) -> Any:
        return self.pool.submit(solve_chunk, job, items)

    def wait(self, futures: Iterable[Any], timeout: float) -> set[Any]:
        from concurrent.futures import FIRST_COMPLETED, wait

        return wait(futures, timeout=timeout, return_when=FIRST_COMPLETED).done

    def close(self, cancel: bool) -> None:
        self.pool.shutdown(wait=True, cancel_futures=cancel)


class Dask:
    """Chunks on a Dask cluster: a scheduler address, ``local``, or a ``Client``."""

    def __init__(self, target: Any, workers: int):
        try:
            from distributed import Client, LocalCluster
        except ImportError:
            raise BatchError(
                'the Dask backend needs dask.distributed: pip install "capsa[dask]"'
            ) from None
        self.cluster = None
        self.own_client = True
        if isinstance(target, Client):
            self.client = target
            self.own_client = False
        elif target == "local":
            self.cluster = LocalCluster(
                n_workers=workers,
                threads_per_worker=1,
                processes=True,
                dashboard_address=None,
                silence_logs=40,
            )
            self.client = Client(self.cluster)
        else:
            try:
                self.client = Client(target, timeout=30)
            except OSError as exc:
                raise BatchError(f"cannot reach the Dask scheduler at {target}: {exc}") from None
        self._slots_at = 0.0
        self._slots = workers

    @property
    def slots(self) -> int:
        now = time.monotonic()
        if now - self._slots_at > 2.0:
            self._slots_at = now
            self._slots = max(1, sum(self.client.nthreads().values()))
        return self._slots

    def submit(self, job: Job, items: list[Line]) -> Any:
        return self.client.submit(solve_chunk, job, items, pure=False)

    def wait(self, futures: Iterable[Any], timeout: float) -> set[Any]:
        from distributed import wait
        from distributed.utils import TimeoutError as DaskTimeout

        futures = list(futures)
        try:
            return set(wait(futures, timeout=timeout, return_when="FIRST_COMPLETED").done)
        except (TimeoutError, DaskTimeout):
            return {f for f in futures if f.done()}

    def close(self, cancel: bool) -> None:
        if self.own_client:
            self.client.close()
        if self.cluster is not None:
            self.cluster.close()


def make_backend(dask: Any, workers: int) -> Inline | Pool | Dask:
    """Dask when ``dask`` is given, else in process for one worker, else a pool."""
    if dask is not None:
        return Dask(dask, workers)
    if workers == 1:
        return Inline()
    return Pool(workers)
