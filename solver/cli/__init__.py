"""The ``capsa`` command line. Thin: parse, call the library, format, map errors to exit codes.

- ``app``: the Typer app and the one mapping of errors to exit codes and one line on
  stderr (0 success, 1 a failure of the run, 2 bad usage or bad input, 130 interrupted);
- ``output``: the consoles (stdout is data, stderr is talk), ``emit``, the progress
  display, card markup, ``shown``, whole-or-nothing output files;
- ``options``: the options several commands share (``--format``, ``--rules``...);
- ``commands``: one module per command, with its renderer.

Heavy modules (numba kernels) are imported inside the commands, so that
``capsa --help`` stays fast.
"""

from __future__ import annotations

import gc

from solver.cli.app import app, help_text
from solver.cli.commands import COMMANDS
from solver.cli.output import Consoles, emit_json

__all__ = ["Consoles", "app", "emit_json", "main"]

for _name, _command in COMMANDS:
    app.command(_name, help=help_text(_command.__doc__ or ""))(_command)

#: Allocations between collections of the youngest generation in the command (Python: 700).
_GC_YOUNG = 20_000


def main() -> None:
    """Console-script entry point (errors and exit codes: ``solver.cli.app.CapsaGroup``)."""
    # Importing numba makes hundreds of thousands of objects, and Python's default
    # thresholds would run ~200 garbage collections over them (40 ms of a solve); our
    # work is numpy arrays, so young objects are collected less often.
    gc.set_threshold(_GC_YOUNG, *gc.get_threshold()[1:])
    try:
        app(prog_name="capsa")  # also as `python -m solver`
    finally:
        # The process ends here. Python's last garbage collections would walk every object
        # numba and numpy made (a tenth of a second of a solve's wall time) to free memory
        # the system takes back anyway; frozen objects are skipped. Files are closed and
        # atexit handlers run as before.
        gc.freeze()
