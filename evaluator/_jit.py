"""One decorator policy for every numba kernel in the project, the kernel cache, and the
compile notice.

Every kernel compiles the same way: ``cache=True`` (compiled code is kept on disk, so
only the first run of a machine pays for it), ``nogil=True`` (threads can run kernels
side by side) and numpy's error model (no ZeroDivisionError checks in hot loops).
``parallel=True`` kernels are never cached (pynndescent's experience: a cached parallel
build may not reload under another thread count); no kernel uses it today.

**The cache follows the kernels' sources.** numba checks a cached kernel against its own
file only: a kernel inlines the kernels it calls and reads module constants as
compile-time values, and a change to either in another file would leave stale machine
code in the cache. So the cache lives in a folder named after a digest of every file
kernels are built from (``KERNEL_SOURCES``: the ``_kernels.py`` modules, this module and
``solver/engine/layout.py``): any change there starts a fresh cache. The folder is
``$NUMBA_CACHE_DIR`` or the user cache folder (``platformdirs``), under
``capsa-kernels-DIGEST``.

**The compile notice** (``compiling``) does not read numba's internals: after a group of
kernels has run once, a marker file is written into that cache folder; while a group's
marker is missing, the notice says that group is compiling.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import logging
import os
import threading
import time
from collections.abc import Callable, Iterator
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import TypeVar

log = logging.getLogger("capsa")

_OPTIONS = {"cache": True, "nogil": True, "error_model": "numpy"}

_ROOT = Path(__file__).resolve().parent.parent
#: Files whose contents every cached kernel depends on (relative to the folder holding
#: the evaluator and solver packages). A kernel may call only kernels of these modules
#: and read only constants defined in them.
KERNEL_SOURCES: tuple[str, ...] = (
    "evaluator/_jit.py",
    "evaluator/_kernels.py",
    "solver/engine/layout.py",
    "solver/engine/_kernels.py",
    "solver/strategy/_kernels.py",
)


def sources_digest(root: Path = _ROOT) -> str:
    """16 hex digits over numba's version and the contents of ``KERNEL_SOURCES`` (a missing
    file counts too)."""
    try:
        numba_version = version("numba")
    except PackageNotFoundError:  # pragma: no cover - numba is a dependency
        numba_version = "?"
    h = hashlib.sha256(f"numba {numba_version};".encode())
    for rel in KERNEL_SOURCES:
        try:
            h.update(rel.encode() + b"\0" + (root / rel).read_bytes() + b"\0")
        except OSError:
            h.update(rel.encode() + b"\0missing\0")
    return h.hexdigest()[:16]


@functools.cache
def cache_dir() -> Path | None:
    """The writable kernel cache folder, or None (numba's default locations then)."""
    base = os.environ.get("NUMBA_CACHE_DIR")
    if not base:
        import platformdirs

        base = platformdirs.user_cache_dir("capsa")
    path = Path(base) / f"capsa-kernels-{sources_digest()}"
    try:
        path.mkdir(parents=True, exist_ok=True)
        probe = path / f".probe-{os.getpid()}"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        log.warning("kernel cache folder %s is not writable (%s); using numba's default", path, exc)
        return None
    return path


F = TypeVar("F", bound=Callable)


def kernel(fn: F | None = None, **extra) -> F:
    """``@kernel`` / ``@kernel(...)``: numba.njit with the project's options."""
    opts = {**_OPTIONS, **extra}
    if opts.get("parallel"):
        opts["cache"] = False

    def wrap(f):
        import numba

        folder = cache_dir()
        if folder is not None:
            # numba reads this when the dispatcher is made; set it every time, since numba
            # reloads its config from the environment when NUMBA_* variables change.
            numba.config.CACHE_DIR = str(folder)
        return numba.njit(**opts)(f)

    return wrap if fn is None else wrap(fn)


# --------------------------------------------------------------------------- notice

_lock = threading.Lock()
_done: set[str] = set()
_inside = threading.local()  # a group's block is running in this thread


@contextlib.contextmanager
def compiling(group: str, what: str | None = None) -> Iterator[None]:
    """Wrap the first calls of a group of kernels: says when numba is compiling them.

    When ``group`` has never completed with this cache folder (no marker file), log once
    per process on the "capsa" logger that numba is compiling ``what`` (default: the
    group's name), before the block runs; when the block completes, write the marker.
    A group entered inside another group's block says nothing: the outer notice covers it.
    Cheap after the first time in a process (a set lookup).
    """
    folder = cache_dir() if group not in _done else None
    if folder is None:
        yield
        return
    marker = folder / f"warm-{group}"
    with _lock:
        first = group not in _done and not marker.exists()
        _done.add(group)
    outer = getattr(_inside, "group", None)
    if first and outer is None:  # nested groups compile within the outer one's notice
        log.warning(
            "compiling %s with numba (first run only, cached in %s)...", what or group, folder
        )
    t0 = time.perf_counter()
    _inside.group = outer or group
    try:
        yield
    finally:
        _inside.group = outer
    if first:
        try:
            marker.write_text(f"{time.perf_counter() - t0:.1f} s\n")
        except OSError:
            pass
