"""What the program keeps in memory between calls, one object per concern.

A ``Cache`` holds the values of one concern by key (the pool keys worked out, the pool
files opened, the opponent models read, the field tables found, a batch run's pool and
models): at most ``limit`` of them, the oldest dropped first, behind its own lock, and
cleared on its own (``clear``) without touching another concern's. Every cache made is
listed by ``caches()`` under its concern's name. A cache only saves work: what a call
returns is the same after a ``clear`` (the value is made again).

Pure functions of no argument or of hashable ones (the split structure, a compiled
ruleset) are memoised with ``functools.cache`` instead; they hold no state to clear.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

__all__ = ["Cache", "caches"]

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")

_ALL: dict[str, Cache[object, object]] = {}
_ALL_LOCK = threading.Lock()


class Cache(Generic[K, V]):
    """One concern's values by key: at most ``limit``, the oldest dropped first."""

    def __init__(self, concern: str, limit: int) -> None:
        if limit < 1:
            raise ValueError(f"a cache holds at least one value, not {limit}")
        self.concern = concern
        self.limit = limit
        self.lock = threading.RLock()
        self._held: dict[K, V] = {}
        with _ALL_LOCK:
            if concern in _ALL:
                raise ValueError(f"two caches for one concern: {concern!r}")
            _ALL[concern] = self  # type: ignore[assignment]

    def get(self, key: K, make: Callable[[], V] | None = None) -> V | None:
        """The value held for ``key``; when there is none, ``make()`` (under this cache's
        lock: one maker at a time) kept and returned, or None without ``make``."""
        with self.lock:
            if key in self._held:
                return self._held[key]
            if make is None:
                return None
            return self.put(key, make())

    def put(self, key: K, value: V) -> V:
        """Keep ``value`` for ``key`` (dropping the oldest past ``limit``); returns it."""
        with self.lock:
            self._held.pop(key, None)
            while len(self._held) >= self.limit:
                del self._held[next(iter(self._held))]
            self._held[key] = value
        return value

    def clear(self) -> None:
        """Forget every value of this concern (and no other's)."""
        with self.lock:
            self._held.clear()

    def __len__(self) -> int:
        return len(self._held)

    def __repr__(self) -> str:
        return f"Cache({self.concern!r}: {len(self)} of {self.limit})"


def caches() -> dict[str, Cache[object, object]]:
    """Every cache made so far, by its concern (those of the modules imported)."""
    with _ALL_LOCK:
        return dict(_ALL)
