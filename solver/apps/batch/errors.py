"""What a batch raises.

``BatchError`` means the run cannot start as asked (a bad input file, an output that
is the input, an output another run is writing, a resume that does not match): the
caller's mistake, one line, exit 2. ``BatchFailed`` means the run failed part way (a
write failed, a worker process died): one line, exit 1; what was written is kept.
"""

from __future__ import annotations

from solver.engine.errors import InputError, RunFailed

__all__ = ["BatchError", "BatchFailed"]


class BatchError(InputError):
    """A batch that cannot run as asked (bad input file, resume refused): one line."""


class BatchFailed(RunFailed):
    """A run that failed part way (a write failed, a worker died): one line. Every
    record written before it is kept, so a run into a file can go on with --resume."""
