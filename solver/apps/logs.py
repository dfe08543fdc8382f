"""Where library talk goes when capsa runs as a program: ``capsa: ...`` lines on stderr.

The library logs on the ``capsa`` logger (compile notices, warnings) and never prints;
the CLI, and each batch worker process, send that logger to stderr with this one setup.
"""

from __future__ import annotations

import logging
import sys


def log_to_stderr() -> None:
    """Send the ``capsa`` logger's INFO and above to stderr as ``capsa: message`` (once)."""
    log = logging.getLogger("capsa")
    if not log.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("capsa: %(message)s"))
        log.addHandler(handler)
        log.setLevel(logging.INFO)
        log.propagate = False
