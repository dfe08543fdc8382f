"""The oracle's answers kept for a test: a pure function of ``tests/reference.py``
(its answer fixed by its arguments) worked out once a test for each argument, not again
each time the oracle or the test asks. The same function, its answers kept: the oracle
stays its own slow self, only not slow twice over the same question."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests import reference as R

__all__ = ["keep"]


def _frozen(value: Any) -> Any:
    """A hashable copy of an argument: card sequences (lists, tuples, arrays) as tuples of
    ints, anything else (a ruleset, a wheel) itself (it must be hashable: a frozen
    dataclass, a string)."""
    if isinstance(value, str) or value is None:
        return value
    if hasattr(value, "__len__") and not hasattr(value, "__dataclass_fields__"):
        return tuple(_frozen(v) for v in value)
    if hasattr(value, "__index__"):
        return int(value)
    hash(value)  # a ruleset that is not hashable cannot be a key: fail, not guess
    return value


def keep(monkeypatch, name: str, when: Callable[..., bool] | None = None) -> dict:
    """``reference.<name>`` replaced, for the test, by itself with its answers kept (only
    for the calls ``when`` accepts, when given: the rest are worked out as before). Calls
    from inside the oracle go through it too (they look the name up in the module).
    Returns the kept answers (for a test to see that they were used)."""
    fn, kept = getattr(R, name), {}

    def kept_fn(*args, **kwargs):
        if when is not None and not when(*args, **kwargs):
            return fn(*args, **kwargs)
        key = (_frozen(args), _frozen(sorted(kwargs.items())))
        if key not in kept:
            kept[key] = fn(*args, **kwargs)
        return kept[key]

    monkeypatch.setattr(R, name, kept_fn)
    return kept
