"""Running a kernel over ranges of work on threads, so that it can be stopped.

The kernels release the GIL (``nogil=True``), so Python threads run them side by side.
``run_ranges`` cuts ``n`` items into chunks, runs ``fn(lo, hi)`` on each from a pool of
threads, and checks between chunks whether to stop: a Ctrl-C (KeyboardInterrupt in the
main thread) or a caller's ``stop`` event ends the work within one chunk's time and
raises there. Every chunk writes only its own slice of the output, so the result does
not depend on the number of threads.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, wait

Stop = threading.Event


class Stopped(Exception):
    """The work was stopped (``stop`` was set) before it finished."""


def threads() -> int:
    """Threads to use: ``CAPSA_THREADS``, else every core."""
    env = os.environ.get("CAPSA_THREADS")
    return max(1, int(env)) if env else (os.cpu_count() or 1)


def run_ranges(
    fn: Callable[[int, int], object],
    n: int,
    *,
    chunk: int,
    max_threads: int | None = None,
    stop: Stop | None = None,
) -> None:
    """``fn(lo, hi)`` over ``range(n)`` in chunks of at most ``chunk`` items.

    Runs inline when one thread suffices; stops between chunks when ``stop`` is set
    (raising :class:`Stopped`) or on KeyboardInterrupt (re-raised once the running
    chunks have finished, which takes at most one chunk's time).
    """
    bounds = list(range(0, n, max(1, chunk))) + [n]
    spans = list(zip(bounds[:-1], bounds[1:], strict=True))
    nt = min(max_threads or threads(), len(spans))
    halt = stop if stop is not None else threading.Event()
    if nt <= 1:
        for lo, hi in spans:
            if halt.is_set():
                raise Stopped
            fn(lo, hi)
        return
    todo = iter(spans)
    lock = threading.Lock()

    def worker() -> None:
        while not halt.is_set():
            with lock:
                span = next(todo, None)
            if span is None:
                return
            fn(*span)

    with ThreadPoolExecutor(nt) as pool:
        futures = [pool.submit(worker) for _ in range(nt)]
        try:
            for fut in futures:
                while not fut.done():
                    wait([fut], timeout=0.1)
                fut.result()
        except BaseException:
            halt.set()
            raise
    if stop is not None and stop.is_set():
        raise Stopped
