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


def is_cached(dispatcher) -> bool:
    """Whether numba holds a valid on-disk cache index for a kernel (its source unchanged).

    Uses numba's cache internals; when they cannot be read, assume cached (no notice).
    """
    try:
        return bool(dispatcher._cache._cache_file._load_index())
    except Exception:  # noqa: BLE001 - internals of another library: never fail on them
        return True


_noticed: set[str] = set()


def notice_if_uncached(what: str, kernels) -> None:
    """Log (once per process per `what`) that numba is about to compile, when it is."""
    if what in _noticed:
        return
    _noticed.add(what)
    missing = [k for k in kernels if not is_cached(k)]
    if missing:
        log.warning(
            "compiling %s with numba (first run only, cached afterwards; %d kernels)...",
            what,
            len(missing),
        )


@contextlib.contextmanager
def compile_notice(what: str = "kernels", delay: float = 0.4, kernels=()) -> Iterator[None]:
    """Say on the "capsa" logger that numba is compiling, while it is.

    With ``kernels``, the notice is logged up front when any of them has no valid disk
    cache. Without, it is logged if the block takes longer than ``delay`` seconds:
    loading cached machine code takes well under that.
    """
    if kernels:
        notice_if_uncached(what, kernels)
        yield
        return
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
