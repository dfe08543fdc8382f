"""Running a kernel over ranges of work on threads, so that it can be stopped.

The kernels release the GIL (``nogil=True``), so Python threads run them side by side.
``run_ranges`` cuts ``n`` items into chunks, runs ``fn(lo, hi)`` on each from a pool of
threads, and checks between chunks whether to stop: a Ctrl-C (KeyboardInterrupt in the
main thread) or a caller's ``stop`` event ends the work within one chunk's time and
raises there. Every chunk writes only its own slice of the output, so the result does
not depend on the number of threads.

``in_background`` runs one such piece of work on a thread of its own while the caller
does something else (``solve`` deals and sets the Monte Carlo opponents while it finds
the hand's candidates), and stops it when the caller leaves early.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor, wait
from typing import TypeVar

Stop = threading.Event
T = TypeVar("T")


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


class _Either:
    """Set when either event is: a caller's ``stop`` (read only) or our own ``halt``.
    Quacks like the Event ``run_ranges`` reads and sets."""

    def __init__(self, own: threading.Event, caller: Stop | None) -> None:
        self.own = own
        self.caller = caller

    def is_set(self) -> bool:
        return self.own.is_set() or (self.caller is not None and self.caller.is_set())

    def set(self) -> None:
        self.own.set()


@contextlib.contextmanager
def in_background(fn: Callable[[Stop], T], stop: Stop | None = None) -> Iterator[Callable[[], T]]:
    """Run ``fn(halt)`` on a thread (in a copy of the caller's context) while the block
    runs; the block gets ``result()``, which waits for ``fn`` and returns its value or
    raises its exception. ``halt`` is set when ``stop`` is, and when the block is left
    before ``fn`` is done (an exception, Ctrl-C): ``fn`` passes it on to ``run_ranges``,
    so the work ends within a chunk, and the block is not left until it has."""
    halt = _Either(threading.Event(), stop)
    box: dict[str, object] = {}
    # Waited on through an Event, not Thread.join: Python 3.11's join, interrupted by
    # Ctrl-C, marks a running thread as finished (is_alive() False).
    finished = threading.Event()

    def target() -> None:
        try:
            box["value"] = fn(halt)  # type: ignore[arg-type]
        except BaseException as exc:  # handed to result()
            box["error"] = exc
        finally:
            finished.set()

    ctx = contextvars.copy_context()
    thread = threading.Thread(target=ctx.run, args=(target,), name="capsa-background")
    thread.start()

    def join() -> None:
        while not finished.wait(0.1):  # a timed wait, so that Ctrl-C reaches this thread
            pass
        thread.join()

    def result() -> T:
        join()
        if "error" in box:
            raise box["error"]  # type: ignore[misc]
        return box["value"]  # type: ignore[return-value]

    try:
        yield result
    finally:
        if not finished.is_set():
            halt.set()
        join()
