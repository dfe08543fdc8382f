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
kernels are built from: this module and ``_kernels.py``, and the files a package whose
kernels call the evaluator's registers with ``register_kernel_sources`` before it makes
them (solver registers its ``_kernels.py`` modules and ``solver/engine/layout.py``,
whose constants they read). Any change there starts a fresh cache; the evaluator names
no other package. The folder is ``$NUMBA_CACHE_DIR`` or the user cache folder
(``platformdirs``), under ``capsa-kernels-DIGEST``: kernels made before a registration
are cached under the digest of the files registered then (they are built from those
only).

**Loading a cached kernel takes only what it needs.** Before numba loads a cached kernel
it refreshes its whole target context: it imports and registers every lowering it could
ever compile with (numba.np, numba.cpython, typed containers, jitclass, ...), about a
sixth of a second, paid by every process. Running machine code from the cache needs only
numba's runtime (NRT: the allocator our kernels link against); compiling needs the rest,
and numba's compiler refreshes the context itself before it compiles. So our kernels'
caches load with ``_load_cached``: the runtime, then numba's own load; a miss compiles as
before. ``CAPSA_NUMBA_FULL_REFRESH=1`` restores numba's behaviour (tests/test_startup.py
loads every cached kernel both ways in fresh processes).

**The compile notice** (``compiling``) does not read numba's internals: after a group of
kernels has run once, a marker file is written into that cache folder; while a group's
marker is missing, the notice says that group is compiling.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import hashlib
import logging
import os
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias, TypeVar, cast, overload

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

log = logging.getLogger("capsa")

_OPTIONS = {"cache": True, "nogil": True, "error_model": "numpy"}

_HERE = Path(__file__).resolve().parent
#: The files the cached kernels are built from, by the name the digest knows each by:
#: the evaluator's own, then those registered (``register_kernel_sources``). A kernel
#: may call only kernels of these modules and read only constants defined in them.
_SOURCES: dict[str, Path] = {
    "evaluator/_jit.py": _HERE / "_jit.py",
    "evaluator/_kernels.py": _HERE / "_kernels.py",
}


def register_kernel_sources(files: Mapping[str, str | os.PathLike[str]]) -> None:
    """Add the files a package's kernels are built from (``{name: path}``: its kernel
    modules and the modules whose constants they read) to the kernel cache's digest.
    Call it before the package makes its first kernel; kernels made from then on are
    cached under the digest over these files and the evaluator's."""
    for name, path in files.items():
        _SOURCES.setdefault(name, Path(path))


def kernel_sources() -> dict[str, Path]:
    """The files the digest covers now, in order (the evaluator's first)."""
    return dict(_SOURCES)


def sources_digest() -> str:
    """16 hex digits over numba's version and the contents of the kernel sources (a
    missing file counts too)."""
    import numba  # its __version__: reading the installed metadata takes longer

    h = hashlib.sha256(f"numba {numba.__version__};".encode())
    for name, path in _SOURCES.items():
        try:
            h.update(name.encode() + b"\0" + path.read_bytes() + b"\0")
        except OSError:
            h.update(name.encode() + b"\0missing\0")
    return h.hexdigest()[:16]


def cache_dir() -> Path | None:
    """The writable kernel cache folder for the kernel sources registered so far, or
    None (numba's default locations then)."""
    return _cache_dir(tuple(_SOURCES))


@functools.cache
def _cache_dir(names: tuple[str, ...]) -> Path | None:
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


F = TypeVar("F", bound=Callable[..., Any])

# The kernels' argument types, to the type checker (numba infers its own from the values).
#: An integer or bool scalar as a kernel sees it: a Python one or a numpy one (a float
#: scalar is a ``float``: numpy's float64 is one).
Int: TypeAlias = "int | np.integer[Any]"
Bool: TypeAlias = "bool | np.bool_"
#: A card id or rank read as unsigned (the lookups' bit tricks).
U64: TypeAlias = "np.uint64"
#: A lookup table (int16), and arrays: of any integer dtype, of int64, float64, bool, and
#: of card ids (uint8).
Table: TypeAlias = "NDArray[np.int16]"
Ints: TypeAlias = "NDArray[np.integer[Any]]"
I64: TypeAlias = "NDArray[np.int64]"
F64: TypeAlias = "NDArray[np.float64]"
Bools: TypeAlias = "NDArray[np.bool_]"
Cards: TypeAlias = "NDArray[np.uint8]"


@overload
def kernel(fn: F) -> F: ...
@overload
def kernel(fn: None = None, **extra: Any) -> Callable[[F], F]: ...


def kernel(fn: F | None = None, **extra: Any) -> F | Callable[[F], F]:
    """``@kernel`` / ``@kernel(...)``: numba.njit with the project's options. To the type
    checker a kernel is the function it compiles (the dispatcher is called alike)."""
    opts = {**_OPTIONS, **extra}
    if opts.get("parallel"):
        opts["cache"] = False

    def wrap(f: F) -> F:
        import numba

        folder = cache_dir()
        if folder is not None:
            # numba reads this when the dispatcher is made; set it every time, since numba
            # reloads its config from the environment when NUMBA_* variables change.
            numba.config.CACHE_DIR = str(folder)
        dispatcher = numba.njit(**opts)(f)
        _lean_cache_loads(dispatcher)
        return cast(F, dispatcher)

    return wrap if fn is None else wrap(fn)


def _lean_cache_loads(dispatcher: Any) -> None:
    """Make the dispatcher's cache load without refreshing numba's whole target context
    (the module docstring says why); left as numba made it when the cache is off, the
    user asked for numba's behaviour, or this numba lacks the internals used."""
    cache: Any = getattr(dispatcher, "_cache", None)
    if (
        os.environ.get("CAPSA_NUMBA_FULL_REFRESH")
        or not hasattr(cache, "_load_overload")
        or not hasattr(cache, "_guard_against_spurious_io_errors")
    ):
        return

    def load_overload(sig: Any, target_context: Any) -> Any:
        _runtime_ready(target_context)
        with cache._guard_against_spurious_io_errors():
            return cache._load_overload(sig, target_context)
        return None  # the guard swallowed an I/O error: numba compiles instead

    cache.load_overload = load_overload


def _runtime_ready(target_context: Any) -> None:
    """numba's runtime (NRT), which cached kernels link against; once per process (numba
    keeps the flag)."""
    from numba.core.runtime import rtsys

    rtsys.initialize(target_context)


# --------------------------------------------------------------------------- notice

_lock = threading.Lock()
_done: set[str] = set()
#: The group whose block is running (in this thread, or in the thread that started this
#: one in a copy of its context: ``solver.strategy.threads.in_background``).
_inside: contextvars.ContextVar[str | None] = contextvars.ContextVar("capsa_group", default=None)


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
    outer = _inside.get()
    if first and outer is None:  # nested groups compile within the outer one's notice
        log.warning(
            "compiling %s with numba (first run only, cached in %s)...", what or group, folder
        )
    t0 = time.perf_counter()
    token = _inside.set(outer or group)
    try:
        yield
    finally:
        _inside.reset(token)
    if first:
        try:
            marker.write_text(f"{time.perf_counter() - t0:.1f} s\n")
        except OSError:
            pass
