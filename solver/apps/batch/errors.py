"""What a batch raises.

``BatchError`` means the run cannot start as asked (a bad input file, an output that
is the input, a resume that does not match): the caller's mistake, one line, exit 2.
"""

from __future__ import annotations

from solver.engine.errors import InputError

__all__ = ["BatchError"]


class BatchError(InputError):
    """A batch that cannot run as asked (bad input file, resume refused): one line."""
