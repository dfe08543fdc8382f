"""One decorator policy for every numba kernel in the project, and the compile notice.

Every kernel compiles the same way: ``cache=True`` (compiled code is kept on disk, so
only the first run of a machine pays for it), ``nogil=True`` (threads can run kernels
side by side) and numpy's error model (no ZeroDivisionError checks in hot loops).
``parallel=True`` kernels are compiled with the same options.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Iterator

import numba

log = logging.getLogger("capsa")

_OPTIONS = {"cache": True, "nogil": True, "error_model": "numpy"}


def kernel(fn=None, **extra):
    """``@kernel`` / ``@kernel(parallel=True)``: numba.njit with the project's options."""
    opts = {**_OPTIONS, **extra}
    if fn is None:
        return lambda f: numba.njit(**opts)(f)
    return numba.njit(**opts)(fn)


@contextlib.contextmanager
def compile_notice(what: str = "kernels", delay: float = 0.4) -> Iterator[None]:
    """Log a notice if the block takes longer than ``delay`` seconds (numba compiling).

    Loading cached machine code takes well under the delay, so the notice appears only
    on a first run (or after a numba upgrade), while compilation is under way.
    """
    done = threading.Event()

    def notify() -> None:
        if not done.is_set():
            log.warning("compiling %s with numba (first run only, cached afterwards)...", what)

    timer = threading.Timer(delay, notify)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        done.set()
        timer.cancel()
