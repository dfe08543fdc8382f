"""Where chunks are solved: in process, on a process pool, or on a Dask cluster.

A backend has ``slots`` (how many chunks it works on at once), ``submit(job, items)``
returning a future of a ``ChunkResult``, ``wait(futures, timeout)`` returning the done
ones, ``died`` (the exceptions a future raises when its worker died) and
``close(cancel)``; ``close(True)`` stops at once, dropping the chunks in flight.
``make_backend`` picks one.

Pool workers never outlive the run: each asks the kernel to kill it when its parent
dies (``PR_SET_PDEATHSIG`` on Linux) and watches its parent's pid (everywhere), so a
killed ``capsa batch`` leaves no worker holding the caller's pipes. Workers ignore
SIGINT and SIGHUP, which a terminal sends the whole process group: the parent stops
the run and then the workers.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from collections.abc import Iterable
from typing import Any

from solver.apps.batch.errors import BatchError
from solver.apps.batch.reading import Line
from solver.apps.batch.work import ChunkResult, Job, default_threads, solve_chunk
from solver.apps.logs import log_to_stderr

__all__ = ["Dask", "Inline", "Pool", "die_with_parent", "make_backend"]


class Inline:
    """Runs each chunk at submit time (one worker, no pool)."""

    slots = 1
    died: tuple[type[BaseException], ...] = ()

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


#: prctl option: the signal this process gets when its parent dies (linux/prctl.h).
_PR_SET_PDEATHSIG = 1


def die_with_parent(parent: int, poll: float = 0.5, *, pdeathsig: bool = True) -> None:
    """Make this process exit when ``parent`` (its parent process) does.

    On Linux the kernel sends SIGKILL on the parent's death (``PR_SET_PDEATHSIG``,
    through ctypes); everywhere, a daemon thread checks every ``poll`` seconds that the
    parent pid is still this process's parent and exits when it is not (the fallback,
    and the catch for a parent that died before the prctl call). ``pdeathsig=False``
    leaves the watchdog alone (to test it).
    """
    if pdeathsig and sys.platform.startswith("linux"):
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
        except (OSError, AttributeError):  # pragma: no cover - no prctl: the watchdog
            pass
    if os.getppid() != parent:
        os._exit(1)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(poll)
        os._exit(1)

    threading.Thread(target=watch, name="capsa-parent-watchdog", daemon=True).start()


def _pool_init(parent: int) -> None:
    """A worker dies with its parent, ignores Ctrl-C and hangups (the parent stops the
    run), and says on stderr when it compiles the kernels, as the command does."""

    die_with_parent(parent)
    for name in ("SIGINT", "SIGHUP"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), signal.SIG_IGN)
    log_to_stderr()


class Pool:
    """A ``ProcessPoolExecutor`` of spawned workers."""

    def __init__(self, workers: int):
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor
        from concurrent.futures.process import BrokenProcessPool

        self.slots = workers
        self.died = (BrokenProcessPool,)
        self.pool = ProcessPoolExecutor(
            workers,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_pool_init,
            initargs=(os.getpid(),),
        )

    def submit(self, job: Job, items: list[Line]) -> Any:
        return self.pool.submit(solve_chunk, job, items)

    def wait(self, futures: Iterable[Any], timeout: float) -> set[Any]:
        from concurrent.futures import FIRST_COMPLETED, wait

        return wait(futures, timeout=timeout, return_when=FIRST_COMPLETED).done

    def close(self, cancel: bool) -> None:
        if cancel:  # the chunks in flight are dropped: do not wait for them
            # ProcessPoolExecutor has no public way to stop its workers (3.14 adds
            # terminate_workers); its process table is the one handle there is.
            for proc in list((getattr(self.pool, "_processes", None) or {}).values()):
                proc.kill()
        self.pool.shutdown(wait=True, cancel_futures=cancel)


class Dask:
    """Chunks on a Dask cluster: a scheduler address, ``local``, or a ``Client``."""

    def __init__(self, target: Any, workers: int):
        try:
            from distributed import Client, KilledWorker, LocalCluster
        except ImportError:
            raise BatchError(
                'the Dask backend needs dask.distributed: pip install "capsa[dask]"'
            ) from None
        self.died = (KilledWorker,)
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
                dashboard_address=":0",
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
