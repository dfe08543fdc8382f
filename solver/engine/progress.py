"""The one shape of progress every long task reports (a batch, a pool build, training,
``strength``, a duel, ``bench``): ``progress(done, total, what=..., detail=...)``.

``done`` counts what is finished (lines, hands, rounds, measurements), ``total`` is how
many there will be (None: not known), ``what`` names the part under way when a task has
several (a duel's strategy, a bench measurement, a batch's opponent pool), and
``detail`` carries the task's own record when it has more to say (a batch's
``BatchProgress``, training's ``RoundReport``). The library never prints: the CLI's
progress display takes these calls (``solver.cli.output.Progress`` is one).
Standard library only.
"""

from __future__ import annotations

from typing import Any, Protocol

__all__ = ["Progress"]


class Progress(Protocol):
    """A long task's progress callback (module docstring)."""

    def __call__(
        self, done: int, total: int | None = None, *, what: str | None = None, detail: Any = None
    ) -> None: ...
